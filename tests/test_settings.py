"""One declaration per setting (issue 26): every environment variable the app reads is declared once in
``sources.settings.VARIABLES``, read by one reader per kind, documented by the README's table made from the same
declarations, and a bad value is refused with the variable's name."""

from __future__ import annotations

import re
import subprocess
import sys
from dataclasses import fields
from pathlib import Path

import pytest

from sources import settings
from sources.settings import VARIABLES, SettingError, Settings

ROOT = Path(__file__).resolve().parent.parent
CODE = ["app.py", "web", "callbacks", "layouts", "figures", "sources", "bin"]
#: Read by other programs, not by the app's code: gunicorn and the Procfile, numba, Celery's worker.
OTHERS = {"WEB_CONCURRENCY", "WORKER_CONCURRENCY", "NUMBA_CACHE_DIR", "SERVER_SOFTWARE", "CI"}
#: Names of that shape that are not environment variables: a Flask config key set by app.py.
NOT_ENVIRONMENT = {"RATINGS_LOCAL_WRITES"}


def test_every_declared_variable_has_its_field_and_every_field_its_variable() -> None:
    assert sorted(v.field for v in VARIABLES) == sorted(f.name for f in fields(Settings))
    assert len({v.name for v in VARIABLES}) == len(VARIABLES)


def test_every_variable_the_code_names_is_declared() -> None:
    named: set[str] = set()
    for part in CODE:
        path = ROOT / part
        for file in [path] if path.is_file() else [*path.rglob("*.py"), *path.glob("*")]:
            if file.is_file():
                # quoted names, as an environment is read ("RATINGS_X"), and ${X} in shell scripts
                text = file.read_text()
                named |= set(re.findall(r"[\"'{]((?:RATINGS|GOOGLE|REDIS|DASH)_[A-Z_]*[A-Z]|SECRET_KEY)[\"'}]", text))
    declared = {v.name for v in VARIABLES}
    assert named - declared - OTHERS - NOT_ENVIRONMENT == set()


def test_the_readme_table_is_the_declarations() -> None:
    assert settings.markdown_table() in (ROOT / "README.md").read_text()


def test_defaults_with_nothing_set() -> None:
    read = settings.load({"SECRET_KEY": "k"})
    assert {v.field: getattr(read, v.field) for v in VARIABLES} == {
        v.field: "k" if v.name == "SECRET_KEY" else v.default for v in VARIABLES
    }
    assert (read.port, read.sample, read.proxy_hops, read.answer_memo) == (8050, "poker", 1, True)
    shown = repr(settings.load({"SECRET_KEY": "s3cr3t-key", "RATINGS_ADMIN_SECRET": "open-sesame"}))
    assert "s3cr3t-key" not in shown and "open-sesame" not in shown and "admin_secret='***'" in shown


@pytest.mark.parametrize(
    ("name", "text", "words"),
    [
        ("PORT", "eighty", "a whole number from 0 to 65535"),
        ("PORT", "70000", "a whole number from 0 to 65535"),
        ("RATINGS_STORE_MB", "lots", "a number of at least 1"),
        ("RATINGS_STORE_MB", "nan", "a number of at least 1"),
        ("RATINGS_SHEET_ATTEMPTS", "2.5", "a whole number from 1 to 100"),
        ("RATINGS_PREWARM_SECONDS", "-1", "a number of at least 0"),
        ("RATINGS_PROXY_HOPS", "9", "a whole number from 0 to 5"),
        ("RATINGS_ANSWER_MEMO", "maybe", "on or off"),
        ("RATINGS_LIGHT_THREADS", "0", "a whole number from 1 to 64"),
    ],
)
def test_a_bad_value_names_the_variable_and_what_it_must_be(name: str, text: str, words: str) -> None:
    with pytest.raises(SettingError) as error:
        settings.load({"SECRET_KEY": "k", name: text})
    assert str(error.value) == f"{name} must be {words}, got '{text}'" or (
        words == "on or off" and str(error.value).startswith(f"{name} must be on or off")
    )


def test_the_app_stops_at_start_with_that_message() -> None:
    done = subprocess.run(
        [sys.executable, "-c", "from sources import settings; settings.current()"],
        cwd=ROOT,
        env={"PATH": "/usr/bin:/bin", "RATINGS_STORE_MB": "lots", "SECRET_KEY": "k"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1 and done.stderr.strip().endswith(
        "RATINGS_STORE_MB must be a number of at least 1, got 'lots'"
    )
    assert "Traceback" not in done.stderr
