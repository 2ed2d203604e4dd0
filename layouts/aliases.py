"""Aliases: the likely-duplicates warning under the data summary and the card where a group merges two names."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import dash_bootstrap_components as dbc
from dash import dcc, html

from layouts.datalist import name_list
from layouts.ids import Aliases, AliasType
from ratings.aliases import Suspect

__all__ = ["aliases_controls", "alias_list", "merge_note", "suspects_box", "suspects_warning"]

#: Likely duplicates listed at once (the rest are counted).
SHOWN = 8


def suspects_box() -> html.Div:
    """The place of the likely-duplicates warning (filled for each history) and the pairs it offers to merge."""
    return html.Div([html.Div(id=Aliases.SUSPECTS), dcc.Store(id=Aliases.PAIRS)])


def suspects_warning(suspects: Sequence[Suspect], note: str | None = None) -> list[Any]:
    """A yellow note listing likely duplicates, each with a button merging the rarer name into the other, and
    ``note`` when the check stopped before it was whole (``ratings.aliases.Suspects.note``).

    Names are plain text children (never markup).
    """
    stopped = [html.Div(note, className="text-muted suspects-note")] if note else []
    if not suspects:
        if not stopped:
            return []
        return [dbc.Alert(stopped, color="light", className="small py-1 mb-1 suspects", dismissable=True)]
    items = [
        html.Li(
            [
                html.Span(f"{s} "),
                dbc.Button(
                    f"merge '{s.rare}' into '{s.common}'",
                    id={"type": AliasType.MERGE_SUSPECT, "index": i},
                    size="sm",
                    color="link",
                    className="p-0 ms-2 align-baseline small",
                ),
            ]
        )
        for i, s in enumerate(suspects[:SHOWN])
    ]
    more = len(suspects) - SHOWN
    if more > 0:
        items.append(html.Li(f"... and {more} more pair{'s' if more != 1 else ''}"))
    return [
        dbc.Alert(
            [
                html.Div(
                    "Possibly one player under two names (a misspelling becomes a new player):", className="fw-semibold"
                ),
                html.Ul(items, className="mb-1"),
                html.Div(
                    "Merge the pairs that are one player, or declare any alias under Settings → Aliases.",
                    className="text-muted",
                ),
                *stopped,
            ],
            color="warning",
            className="small py-1 mb-1 suspects",
            dismissable=True,
        )
    ]


def alias_list(aliases: dict[str, str]) -> list[Any]:
    """The declared aliases, each with a button removing it."""
    if not aliases:
        return [html.Div("No aliases declared.", className="small text-muted")]
    return [
        html.Ul(
            [
                html.Li(
                    [
                        html.Span(f"'{alias}' is '{name}'"),
                        dbc.Button(
                            "remove",
                            id={"type": AliasType.REMOVE, "index": i},
                            size="sm",
                            color="link",
                            className="p-0 ms-2 align-baseline small",
                            title=f"Stop merging '{alias}' into '{name}'",
                        ),
                    ]
                )
                for i, (alias, name) in enumerate(sorted(aliases.items()))
            ],
            className="small mb-1 ps-3 alias-list",
        )
    ]


def aliases_controls() -> list[Any]:
    """The Aliases card's content: declare an alias ("Anne" is "Ann"), applied to every source, kept in the link."""
    return [
        dbc.Label("Name to replace", html_for=Aliases.ALIAS, className="small mb-0"),
        dbc.Input(id=Aliases.ALIAS, size="sm", list=Aliases.NAMES, placeholder="e.g. Anne", className="mb-1"),
        dbc.Label("is the player", html_for=Aliases.NAME, className="small mb-0"),
        dbc.InputGroup(
            [
                dbc.Input(id=Aliases.NAME, size="sm", list=Aliases.NAMES, placeholder="e.g. Ann"),
                dbc.Button("Merge", id=Aliases.MERGE, size="sm", color="primary"),
            ],
            size="sm",
            className="mb-1",
        ),
        *name_list(Aliases.NAMES, Aliases.NAMES_DATA),
        html.Div(id=Aliases.MESSAGE),
        html.Div(id=Aliases.LIST, children=alias_list({})),
        html.Div(
            "Aliases apply to every data source (sample, upload, sheet, edits) before rating; the link keeps them.",
            className="small text-muted",
        ),
    ]


def merge_note(message: str, ok: bool) -> list[Any]:
    """What merging or unmerging an alias did: green when done, red otherwise."""
    return [dbc.Alert(message, color="success" if ok else "danger", className="small py-1 mb-1", dismissable=True)]
