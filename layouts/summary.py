"""The data card's summary line: what the data in use holds, in words."""

from __future__ import annotations

from figures import counted, date_range_text
from sources.model import Loaded

__all__ = ["summary_text"]


def summary_text(loaded: Loaded) -> str:
    """ "150 games, 10 players, 2021-01-08 to 2022-12-30 (sample 'poker')"."""
    info = loaded.history.summary()
    dates = date_range_text(info["first_date"], info["last_date"])
    text = f"{counted(info['games'], 'game')}, {counted(info['players'], 'player')}, {dates}"
    if info["dnfs"]:
        text += f", {counted(info['dnfs'], 'did-not-finish result')}"
    return f"{text} — {loaded.label}"
