"""The leaderboard panel and the table it shows."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import dash_bootstrap_components as dbc
from dash import html

from layouts.ids import Standings

__all__ = ["leaderboard_panel", "leaderboard_table"]


def leaderboard_panel() -> html.Div:
    """An empty panel; the standings callback fills it."""
    return html.Div(
        [html.H2("Leaderboard", className="h6 mb-1"), html.Div(id=Standings.LEADERBOARD, className="leaderboard")],
        className="mb-3",
    )


def _shift(value: int | None) -> html.Span:
    if value is None:
        return html.Span("new", className="text-muted shift")
    if value > 0:
        return html.Span(f"▲{value}", className="text-success shift", title=f"up {value} from the baseline")
    if value < 0:
        return html.Span(f"▼{-value}", className="text-danger shift", title=f"down {-value} from the baseline")
    return html.Span("=", className="text-muted shift", title="same rank as the baseline")


def _change(value: float) -> html.Span:
    cls = "text-success" if value > 0 else "text-danger" if value < 0 else "text-muted"
    return html.Span(f"{value:+.1f}" if abs(value) >= 1 else f"{value:+.3f}", className=cls)


def _rating(value: float) -> str:
    return f"{value:.0f}" if abs(value) >= 100 else f"{value:.3f}"


def leaderboard_table(rows: Sequence[dict[str, Any]], unit: str, *, with_shift: bool = False) -> Any:
    """A compact, scrollable table of leaderboard rows (see :func:`figures.leaderboard_rows`)."""
    if not rows:
        return dbc.Alert("No player has played enough games for the current filter.", color="light", className="small")
    head = ["#"] + (["±"] if with_shift else []) + ["player", f"rating ({unit})", "games", "wins", "avg place"]
    head += ["last change", "trend"]
    body = []
    for row in rows:
        cells: list[Any] = [html.Td(row["rank"])]
        if with_shift:
            cells.append(html.Td(_shift(row.get("shift"))))
        cells += [
            html.Td(row["player"], className="player"),
            html.Td(_rating(row["rating"]), className="num"),
            html.Td(row["games"], className="num"),
            html.Td(row["wins"], className="num"),
            html.Td(f"{row['average_place']:.2f}", className="num"),
            html.Td(_change(row["last_change"]), className="num"),
            html.Td(row["trend"], className="trend", title="the last ten ratings, low ▁ to high █"),
        ]
        body.append(html.Tr(cells))
    return html.Div(
        dbc.Table(
            [html.Thead(html.Tr([html.Th(h) for h in head])), html.Tbody(body)],
            size="sm",
            striped=True,
            hover=True,
            className="mb-0",
        ),
        className="table-responsive leaderboard-scroll",
    )
