"""The host's commands for groups (issue 24 item 5), run as the host runs them (``flask --app web.commands ...`` in a
new process), on SQLite and on the suite's PostgreSQL: create, import, export, restore, and the errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ratings.io import read_file
from ratings.samples import load_sample

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
FLASK = Path(sys.executable).parent / "flask"
RACING = ROOT / "ratings" / "samples" / "racing.csv"


@pytest.fixture(params=["sqlite", "postgres"])
def environment(request: pytest.FixtureRequest, tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "RATINGS_DATA_DIR")}
    env.update(SECRET_KEY="commands", RATINGS_PREWARM_SECONDS="0", RATINGS_STORE_DIR=str(tmp_path / "store"))
    if request.param == "sqlite":
        env["RATINGS_DATA_DIR"] = str(tmp_path / "data")
    else:
        env["DATABASE_URL"] = request.getfixturevalue("postgres").new_database()
    return env


def flask(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(FLASK), "--app", "web.commands", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )


def test_create_import_export_restore(environment: dict[str, str], tmp_path: Path) -> None:
    created = flask(environment, "groups", "create", "racers", "--name", "The racers", "--title", "Sprint")
    assert created.returncode == 0, created.stderr
    assert "group /g/racers created" in created.stdout
    passphrase = created.stdout.split("keep it): ")[1].strip()
    assert len(passphrase) >= 20

    imported = flask(environment, "groups", "import", "racers", str(RACING), "--title", "Sprint")
    assert imported.returncode == 0, imported.stderr
    assert f"{load_sample('racing').n_games} games imported" in imported.stdout

    exported = flask(environment, "groups", "export", "racers", str(tmp_path / "export"))
    assert exported.returncode == 0, exported.stderr
    written = read_file(tmp_path / "export" / "Sprint.csv").history
    assert written.to_records() == load_sample("racing").to_records()  # the export is the history, game for game
    manifest = json.loads((tmp_path / "export" / "changes.json").read_text())
    assert manifest["titles"] == {"Sprint.csv": "Sprint"} and len(manifest["changes"]) == written.n_games
    assert passphrase not in (tmp_path / "export" / "changes.json").read_text()

    restored = flask(environment, "groups", "restore", "copy", str(tmp_path / "export"))
    assert restored.returncode == 0, restored.stderr
    assert "restored into /g/copy" in restored.stdout and "passphrase" in restored.stdout
    again = flask(environment, "groups", "export", "copy", str(tmp_path / "again"))
    assert again.returncode == 0, again.stderr
    assert (tmp_path / "again" / "Sprint.csv").read_text() == (tmp_path / "export" / "Sprint.csv").read_text()

    twice = flask(environment, "groups", "restore", "copy", str(tmp_path / "export"))
    assert twice.returncode == 2 and "nothing was imported" in twice.stderr


def test_errors_are_one_line_each_with_exit_status_2(environment: dict[str, str], tmp_path: Path) -> None:
    missing = flask(environment, "groups", "export", "nobody", str(tmp_path / "x"))
    assert missing.returncode == 2 and "there is no group at /g/nobody" in missing.stderr
    bad_slug = flask(environment, "groups", "create", "Not A Slug")
    assert bad_slug.returncode == 2 and "cannot be a group's address" in bad_slug.stderr
    assert flask(environment, "groups", "create", "club").returncode == 0
    broken = tmp_path / "broken.csv"
    broken.write_text("game,player,place\ng1,Ann,1\ng1,Bob,second\n")
    refused = flask(environment, "groups", "import", "club", str(broken), "--title", "Chess")
    assert refused.returncode == 2 and "row 3" in refused.stderr and "column 'place'" in refused.stderr
    assert "Traceback" not in missing.stderr + bad_slug.stderr + refused.stderr
    assert flask(environment, "db", "upgrade").returncode == 0
