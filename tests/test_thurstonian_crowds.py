"""The bound on one crowd's work in the Thurstonian kernel (``Thurstonian.crowd_cells``): a hosted app keeps it (a
game of about 6,000 players at most), a trusted local file on the command line lifts it (20,000 players: about 3 s
and 800 MB banded, their updates within 8e-5 of the expected normal order statistics: BENCHMARKS.md).
The bound itself is lowered here so that a small crowd stands for a large one."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import numpy as np
import pytest

from ratings import Entry, Game, GameHistory, create
from ratings.base import ComputationError
from ratings.cli import main
from ratings.systems.thurstonian import CROWD_CELLS, Thurstonian

#: A crowd with every rating equal at its first game: computed by the kernel's tilted messages (from 400 players),
#: and beyond the per-game reference path (about 1,400 players), which a game the kernel declines falls back to.
N = 1_600


def crowd() -> GameHistory:
    return GameHistory([Game("g", tuple(Entry(f"p{q}", q + 1) for q in range(N)))])


def test_a_crowd_beyond_the_bound_is_refused_and_computed_once_it_is_lifted() -> None:
    default = create("thurstonian")
    assert isinstance(default, Thurstonian) and default.crowd_cells == CROWD_CELLS
    expected = default.rate(crowd()).after  # 1,600 players x about 15,000 points: within the default
    bounded = create("thurstonian")
    assert isinstance(bounded, Thurstonian)
    bounded.crowd_cells = 1_000  # below any crowd's grid
    with pytest.raises(ComputationError, match="crowd_cells = None lifts that bound"):
        bounded.rate(crowd())
    lifted = create("thurstonian")
    assert isinstance(lifted, Thurstonian)
    lifted.crowd_cells = None
    assert np.array_equal(lifted.rate(crowd()).after, expected)  # the bound changes what is computed, not how


def test_the_command_line_lifts_the_bound_for_a_local_file_not_for_standard_input(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(Thurstonian, "crowd_cells", 1_000)  # as if the crowd were beyond the default bound
    text = "game,player,place\n" + "".join(f"g,p{q},{q + 1}\n" for q in range(N))
    path = tmp_path / "crowd.csv"
    path.write_text(text)
    out, err = io.StringIO(), io.StringIO()
    assert main(["rate", str(path), "--system", "thurstonian"], out=out, err=err) == 0, err.getvalue()
    assert len(out.getvalue().splitlines()) == N + 1  # a header and every player
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text.encode())))
    out, err = io.StringIO(), io.StringIO()
    assert main(["rate", "-", "--system", "thurstonian"], out=out, err=err) == 2  # standard input: hosted bounds
    assert "crowd_cells = None lifts that bound" in err.getvalue()
    out, err = io.StringIO(), io.StringIO()
    assert main(["rate", str(path), "--system", "thurstonian", "--limits", "hosted"], out=out, err=err) == 2
