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


def test_the_wheel_carries_its_version_license_and_type_marker(wheel: Path) -> None:
    import ratings

    names = _names(wheel)
    assert "ratings/py.typed" in names  # type checkers read the library's annotations (PEP 561)
    info = next(n.split("/")[0] for n in names if n.endswith(".dist-info/METADATA"))
    assert info == f"ratings_dashboard-{ratings.__version__}.dist-info"  # one version, declared in ratings/__init__
    with zipfile.ZipFile(wheel) as archive:
        metadata = archive.read(f"{info}/METADATA").decode()
        licence = [n for n in names if n.startswith(info) and n.endswith("LICENSE")]
        assert licence and archive.read(licence[0]) == (ROOT / "LICENSE").read_bytes()
    assert "License-Expression: MIT" in metadata


def _library_imports() -> set[str]:
    """Every top-level module the library imports, at module level or inside a function."""
    import ast

    found: set[str] = set()
    for path in (ROOT / "ratings").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                found.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                found.add(node.module.split(".")[0])
    return found - set(sys.stdlib_module_names) - {"ratings", "__future__"}


def _declared(wheel: Path) -> set[str]:
    with zipfile.ZipFile(wheel) as archive:
        info = next(n.split("/")[0] for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        metadata = archive.read(f"{info}/METADATA").decode()
    return {
        line.split(":", 1)[1].strip().split(">")[0].split("=")[0].split(";")[0].strip().lower().replace("_", "-")
        for line in metadata.splitlines()
        if line.startswith("Requires-Dist:")
    }


def test_every_module_the_library_imports_is_a_declared_dependency(wheel: Path) -> None:
    import importlib.metadata

    providers = importlib.metadata.packages_distributions()
    needed = {module: {d.lower().replace("_", "-") for d in providers.get(module, [])} for module in _library_imports()}
    missing = {module: dists for module, dists in needed.items() if not dists & _declared(wheel)}
    assert missing == {}, f"imported by ratings/ but not declared in pyproject.toml: {missing}"


def _with_requirements(names: set[str]) -> set[str]:
    """``names`` and every distribution they require, recursively (as installed here)."""
    import importlib.metadata

    seen: set[str] = set()
    todo = list(names)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        try:
            requirements = importlib.metadata.requires(name) or []
        except importlib.metadata.PackageNotFoundError:
            continue  # required only on another platform (pandas' tzdata on Windows): not installed here
        seen.add(name)
        for requirement in requirements:
            if "extra ==" in requirement:
                continue
            head = requirement.split(";")[0].strip()
            for stop in "<>=!~[ (":
                head = head.split(stop)[0]
            todo.append(head.lower().replace("_", "-"))
    return seen


def test_the_installed_library_reads_a_windows_1252_file_with_only_its_declared_dependencies(
    wheel: Path, tmp_path: Path
) -> None:
    """The wheel beside only what it declares (and what those require), in an isolated interpreter: reading a file
    that is not UTF-8 needs charset_normalizer, which the library imports only then."""
    import importlib.metadata

    site = tmp_path / "site"
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(site)
    for name in sorted(_with_requirements(_declared(wheel))):
        dist = importlib.metadata.distribution(name)
        tops = {Path(str(f)).parts[0] for f in dist.files or [] if not str(f).startswith("..")}
        for top in tops:
            source = Path(str(dist.locate_file(top)))
            if source.exists() and not (site / top).exists():
                (site / top).symlink_to(source)
    text = "game,player,place\ng1,Zoë Müller,1\ng1,Björn,2\ng1,Renée,DNF\n"
    (tmp_path / "club.csv").write_bytes(text.encode("cp1252"))
    code = (
        "import sys\n"
        f"sys.path[:0] = [{str(site)!r}]\n"
        "from ratings.io import read_file\n"
        "result = read_file(sys.argv[1])\n"
        "print(sorted(result.history.players), result.encoding)\n"
    )
    done = subprocess.run(
        [sys.executable, "-I", "-S", "-c", code, str(tmp_path / "club.csv")],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "['Björn', 'Renée', 'Zoë Müller']" in done.stdout, done.stdout
