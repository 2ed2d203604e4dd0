"""`pip install .` builds the `ratings` library with its bundled samples, and nothing of the app.

The wheel is built from a copy of the working tree (so the build leaves nothing in the repository) with the
project's own pinned setuptools and no index (``--no-build-isolation``, ``PIP_NO_INDEX``): no network needed.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from ratings.samples import SAMPLES, load_sample

ROOT = Path(__file__).resolve().parents[1]
NOT_SOURCES = (".venv", ".git", "__pycache__", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".hypothesis")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("packaging")
    tree = base / "tree"
    shutil.copytree(ROOT, tree, ignore=shutil.ignore_patterns(*NOT_SOURCES, "build", "dist", "*.egg-info"))
    env = {**os.environ, "PIP_NO_INDEX": "1"}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            str(tree),
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(base / "dist"),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    (built,) = (base / "dist").glob("*.whl")
    return built


def _names(wheel: Path) -> set[str]:
    with zipfile.ZipFile(wheel) as archive:
        return set(archive.namelist())


def test_the_wheel_holds_every_sample_csv_byte_for_byte(wheel: Path) -> None:
    csvs = sorted(p.name for p in (ROOT / "ratings" / "samples").glob("*.csv"))
    assert {s.filename for s in SAMPLES.values()} <= set(csvs)
    with zipfile.ZipFile(wheel) as archive:
        for name in csvs:
            assert archive.read(f"ratings/samples/{name}") == (ROOT / "ratings" / "samples" / name).read_bytes()


def test_the_wheel_holds_the_whole_library_and_nothing_of_the_app(wheel: Path) -> None:
    names = _names(wheel)
    modules = {p.relative_to(ROOT).as_posix() for p in (ROOT / "ratings").rglob("*.py")}
    assert modules <= names
    top = {name.split("/")[0] for name in names}
    assert {t for t in top if not t.endswith(".dist-info")} == {"ratings"}  # no app.py, figures/, sources/, tests/


def test_the_wheel_declares_the_command_line_and_the_librarys_dependencies(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        info = next(n.split("/")[0] for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        entry_points = archive.read(f"{info}/entry_points.txt").decode()
        metadata = archive.read(f"{info}/METADATA").decode()
    assert "[console_scripts]" in entry_points and "ratings = ratings.cli:main" in entry_points
    required = {
        line.split(":", 1)[1].strip().split(">")[0]
        for line in metadata.splitlines()
        if line.startswith("Requires-Dist:")
    }
    assert {"numpy", "scipy", "pandas", "openpyxl", "numba"} <= required
    assert not required & {"dash", "plotly", "gunicorn", "redis", "diskcache"}  # the library needs none of the app's


def test_the_installed_library_loads_its_samples_outside_the_repository(wheel: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(site)
    code = (
        "import json, ratings\n"
        "from ratings.samples import SAMPLES, load_sample\n"
        "print(json.dumps({'file': ratings.__file__, "
        "'games': {name: load_sample(name).n_games for name in SAMPLES}}))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(site)
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert Path(found["file"]).is_relative_to(site)  # the copy from the wheel, not the repository's
    assert found["games"] == {name: load_sample(name).n_games for name in SAMPLES}
    assert all(n > 0 for n in found["games"].values())
