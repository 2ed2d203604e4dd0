"""The data card's summary line (what the data in use holds, in words) and the messages of a data action."""

from __future__ import annotations

from typing import Any

import dash_bootstrap_components as dbc
from dash import html

from figures import counted, date_range_text
from sources.model import Loaded

__all__ = ["data_messages", "season_alert", "summary_text"]


def summary_text(loaded: Loaded) -> str:
    """ "150 games, 10 players, 2021-01-08 to 2022-12-30 (sample 'poker')"."""
    info = loaded.history.summary()
    dates = date_range_text(info["first_date"], info["last_date"])
    text = f"{counted(info['games'], 'game')}, {counted(info['players'], 'player')}, {dates}"
    if info["dnfs"]:
        text += f", {counted(info['dnfs'], 'did-not-finish result')}"
    return f"{text} — {loaded.label}"


def data_messages(errors: list[str], warnings: list[str]) -> list[Any]:
    """Alerts for the errors (red) and warnings (yellow) of a data action."""
    out: list[Any] = []
    if errors:
        out.append(
            dbc.Alert(
                [html.Div(errors[0], className="fw-semibold"), html.Ul([html.Li(m) for m in errors[1:]])],
                color="danger",
                className="small py-1 mb-1",
                dismissable=True,
            )
        )
    if warnings:
        shown = warnings[:20]
        more = len(warnings) - len(shown)
        items = [html.Li(w) for w in shown] + ([html.Li(f"... and {more} more")] if more > 0 else [])
        out.append(
            dbc.Alert(
                [html.Div("Read with warnings:", className="fw-semibold"), html.Ul(items, className="mb-0")],
                color="warning",
                className="small py-1 mb-1",
                dismissable=True,
            )
        )
    return out


def season_alert(lines: list[str]) -> list[Any]:
    """What is wrong with the Season card's boxes, in red."""
    return [dbc.Alert(" ".join(lines), color="danger", className="small py-1 mb-1", dismissable=True)]
