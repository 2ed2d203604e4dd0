"""ratings.io as a package of modules named by subject: the public names stay where they were, and the readers
do not import the samples (which are read with the readers)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import ratings.io
import ratings.samples

ROOT = Path(__file__).resolve().parent.parent


def fresh_python(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_the_readers_do_not_import_the_samples() -> None:
    loaded = fresh_python("import sys, ratings.io; print(sorted(m for m in sys.modules if m.startswith('ratings.')))")
    assert "ratings.samples" not in loaded
    assert "ratings.io.spreadsheets" in loaded and "ratings.io.text" in loaded


def test_the_samples_import_first_without_a_cycle() -> None:
    assert fresh_python("import ratings.samples; print(ratings.samples.load_sample('chess').n_players)") == "30"


def test_every_public_name_is_still_in_ratings_io() -> None:
    for name in ratings.io.__all__:
        assert getattr(ratings.io, name) is not None, name
    assert not hasattr(ratings.io, "load_history")  # it lives with the samples, so ratings.io never names them
    assert ratings.io.read_file.__module__ == "ratings.io.files"
    with pytest.raises(AttributeError, match="no_such_name"):
        ratings.io.no_such_name  # type: ignore[attr-defined]  # noqa: B018


RULE_MODULES = [
    "ratings.history",
    "ratings.io.cells",
    "ratings.io.places",
    "ratings.io.names",
    "ratings.io.dates",
    "ratings.io.writing",
    "ratings.io.table",
    "ratings.samples",
    "ratings.cli",
]


@pytest.mark.parametrize("module", RULE_MODULES)
def test_each_module_imports_first_on_its_own(module: str) -> None:
    # A module imported first in a fresh interpreter: an import cycle would fail here on a partly built module.
    # Then the one rule it leads to is used, so a late import inside from_records is exercised too.
    code = (
        f"import {module}\n"
        "from ratings import GameHistory\n"
        "h = GameHistory.from_records([{'game': 'g', 'player': 'Ann', 'place': '1st'},"
        " {'game': 'g', 'player': 'Bob', 'place': 'DQ'}])\n"
        "print([(e.player, e.place) for e in h.games[0].entries])"
    )
    assert fresh_python(code) == "[('Ann', 1), ('Bob', None)]"
