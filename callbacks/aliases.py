"""Aliases: warn about likely duplicate names; merge an alias into a player (kept by content, in the view;
:mod:`sources.aliasing`)."""

from __future__ import annotations

from typing import Any

from dash import ALL, Input, Output, State, callback, ctx, no_update
from dash.exceptions import PreventUpdate

from callbacks.runs import load_source
from layouts.aliases import alias_list, merge_note, suspects_warning
from layouts.ids import Aliases, AliasType, Data
from layouts.summary import summary_text
from sources.aliasing import declare, declared_and_players, remove, suspects_of


# data source -> likely-duplicates warning (saying when the check stopped short), the pairs it offers, the declared
# aliases, the names offered
@callback(
    Output(Aliases.SUSPECTS, "children"),
    Output(Aliases.PAIRS, "data"),
    Output(Aliases.LIST, "children"),
    Output(Aliases.NAMES_DATA, "data"),
    Input(Data.SOURCE, "data"),
    prevent_initial_call=True,
)
def on_source(source: Any) -> tuple[Any, ...]:
    suspects = suspects_of(source)
    aliases, players = declared_and_players(source)
    names = sorted(players, key=str.casefold)
    pairs = [[s.rare, s.common] for s in suspects]
    note = getattr(suspects, "note", None)  # ratings.aliases.Suspects: why the check may be incomplete
    return suspects_warning(suspects, note), pairs, alias_list(aliases), names


# Merge button, a likely duplicate's merge button, an alias's remove button -> data source (with the new view),
# message, the summary line
@callback(
    Output(Data.SOURCE, "data", allow_duplicate=True),
    Output(Aliases.MESSAGE, "children"),
    Output(Aliases.ALIAS, "value"),
    Output(Aliases.NAME, "value"),
    Output(Data.SUMMARY, "children", allow_duplicate=True),
    Input(Aliases.MERGE, "n_clicks"),
    Input({"type": AliasType.MERGE_SUSPECT, "index": ALL}, "n_clicks"),
    Input({"type": AliasType.REMOVE, "index": ALL}, "n_clicks"),
    State(Aliases.ALIAS, "value"),
    State(Aliases.NAME, "value"),
    State(Aliases.PAIRS, "data"),
    State(Data.SOURCE, "data"),
    prevent_initial_call=True,
)
def on_merge(_merge, suspect_clicks, remove_clicks, alias, name, pairs, source) -> tuple[Any, ...]:  # type: ignore[no-untyped-def]
    trigger = ctx.triggered_id
    if not ctx.triggered or not ctx.triggered[0].get("value"):
        raise PreventUpdate  # a button list redrawn, nothing clicked
    if trigger == Aliases.MERGE:
        result = declare(source, alias, name)
    elif isinstance(trigger, dict) and trigger.get("type") == AliasType.MERGE_SUSPECT:
        index = trigger.get("index")
        if not isinstance(pairs, list) or not isinstance(index, int) or not 0 <= index < len(pairs):
            raise PreventUpdate
        result = declare(source, pairs[index][0], pairs[index][1])
    elif isinstance(trigger, dict) and trigger.get("type") == AliasType.REMOVE:
        index = trigger.get("index")
        result = remove(source, index if isinstance(index, int) else -1)
    else:
        raise PreventUpdate
    cleared = "" if result.ok and trigger == Aliases.MERGE else no_update
    if result.source is None:
        return no_update, merge_note(result.message, result.ok), cleared, cleared, no_update
    return (
        result.source,
        merge_note(result.message, result.ok),
        cleared,
        cleared,
        summary_text(load_source(result.source)),
    )
