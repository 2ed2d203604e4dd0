"""The "Player" tab: pick a player; their record, rating and rank over time, and head-to-head records."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import dash_ag_grid as dag
import dash_bootstrap_components as dbc
from dash import Output, dcc, html

import figures
from figures import graph_config
from layouts.busy import busy
from layouts.ids import GameExplain, Partners, PlayerPage, Tab
from layouts.labels import labelled
from ratings import RatingRun
from ratings.explain import explain
from ratings.stats import head_to_head, partners, player_stats

__all__ = [
    "PLAYER_EXPLANATION",
    "STANDINGS_EXPLANATION",
    "ExplanationIds",
    "ExplanationView",
    "explain_panel",
    "explain_view",
    "explanation_outputs",
    "explanation_view",
    "game_explain_panel",
    "PlayerView",
    "head_to_head_grid",
    "partners_grid",
    "player_view",
    "record_list",
    "tab",
]


def record_list(items: Sequence[tuple[str, str]]) -> html.Dl:
    """The player's record as label/value pairs (two columns on wide screens)."""
    cells: list[html.Dt | html.Dd] = []
    for label, value in items:
        cells += [
            html.Dt(label, className="col-7 col-sm-5 fw-normal text-muted"),
            html.Dd(value, className="col-5 col-sm-7 mb-1"),
        ]
    return html.Dl(cells, className="row small mb-0")


#: The head-to-head's columns share the width, each at least what its header needs at phone size (12 px text, 5 px
#: padding, assets/app.css; the sorted "games" has its arrow, "ahead %" wraps after "ahead"): 318 px in all, so the
#: six fit a 360 px phone (326 px for the grid) and nothing scrolls sideways.
NARROW = {"flex": 1, "minWidth": 44}


def _people_grid(grid_id: str, columns: list[dict[str, Any]], *, key: str) -> dag.AgGrid:
    """A sortable grid of one row per other player (named by the field ``key``), as tall as its rows."""
    return dag.AgGrid(
        id=grid_id,
        rowData=[],
        columnDefs=columns,
        getRowId=f"params.data.{key}",
        defaultColDef={
            "sortable": True,
            "resizable": True,
            "suppressMovable": True,
            "wrapHeaderText": True,
            "autoHeaderHeight": True,
        },
        dashGridOptions={"animateRows": False, "tooltipShowDelay": 300, "domLayout": "autoHeight"},
        style={"width": "100%"},
        className="ag-theme-quartz",
    )


def head_to_head_grid() -> dag.AgGrid:
    """Head-to-head against every opponent (rows filled by the callback), sortable."""
    return _people_grid(
        PlayerPage.HEAD_TO_HEAD,
        [
            {"field": "opponent", "headerName": "opponent", "flex": 1.5, "minWidth": 74, "cellClass": "fw-semibold"},
            {
                "field": "games",
                "headerName": "games",
                **NARROW,
                "flex": 1.4,  # its sort arrow beside the word: at half width on a wide screen 1 was cut
                "minWidth": 74,
                "headerTooltip": "games together",
                "sort": "desc",
            },
            {
                "field": "ahead",
                "headerName": "ahead",
                **NARROW,
                "headerTooltip": "games in which the player finished ahead",
            },
            {
                "field": "behind",
                "headerName": "behind",
                **NARROW,
                "minWidth": 48,
                "headerTooltip": "games the opponent finished ahead",
            },
            {
                "field": "ties",
                "headerName": "ties",
                **NARROW,
                "minWidth": 34,
                "headerTooltip": "same place, or both did not finish",
            },
            {"field": "ahead_share", "headerName": "ahead %", **NARROW},
        ],
        key="opponent",
    )


def partners_grid() -> dag.AgGrid:
    """Every teammate of the player's team games (rows filled by the callback), sortable."""
    return _people_grid(
        Partners.GRID,
        [
            {"field": "partner", "headerName": "partner", "flex": 1.5, "minWidth": 80, "cellClass": "fw-semibold"},
            # four columns, each wide enough for its header with the sort arrow: they fit a 360 px phone
            {
                "field": "games",
                "headerName": "games",
                **NARROW,
                "minWidth": 84,
                "headerTooltip": "games on the same team",
                "sort": "desc",
            },
            {"field": "wins", "headerName": "wins", **NARROW, "headerTooltip": "games the team won together"},
            {
                "field": "change_per_game",
                "headerName": "change",
                **NARROW,
                "minWidth": 66,
                "headerTooltip": "the player's own rating change per game together (the measure of best and worst)",
            },
        ],
        key="partner",
    )


@dataclass(frozen=True)
class ExplanationIds:
    """The parts of one "why did the rating change?" block: the header line, the table and the notes."""

    box: str
    header: str
    table: str
    notes: str


STANDINGS_EXPLANATION = ExplanationIds(GameExplain.VIEW, GameExplain.HEADER, GameExplain.TABLE, GameExplain.NOTES)
PLAYER_EXPLANATION = ExplanationIds(
    PlayerPage.EXPLAIN, PlayerPage.EXPLAIN_HEADER, PlayerPage.EXPLAIN_TABLE, PlayerPage.EXPLAIN_NOTES
)

_EXACT = (("part", "opponent"), ("result", "result"), ("chance", "chance ahead"), ("change", "change"))
_MOVED = (("part", "what"), ("before", "before"), ("after", "after"), ("change", "change"))
_NUMBERS = ("chance", "change", "before", "after")


@dataclass(frozen=True)
class ExplanationView:
    """What one explanation block shows: a header line (or a short note alone), the table's rows and columns (none
    for a note), and the notes in words (one per line)."""

    header: str
    rows: list[dict[str, str]] = field(default_factory=list)
    columns: list[dict[str, Any]] = field(default_factory=list)
    notes: str = ""

    def outputs(self) -> tuple[Any, ...]:
        """The values of the block's outputs, in :func:`explanation_outputs`' order."""
        style = {"width": "100%"} if self.rows else {"display": "none"}
        return self.header, self.rows, self.columns, style, self.notes


def explanation_view(
    header: str, rows: Sequence[dict[str, str]], notes: Sequence[str], *, exact: bool
) -> ExplanationView:
    """The change of one player in one game: a header line, the rows of :func:`figures.explanation_rows` as a
    table (the exact systems' total row in bold), and the notes in words."""
    columns = [
        {
            "field": key,
            "headerName": title,
            # the columns share the width; at phone width numbers keep 72 px (assets/app.css sizes their text to fit)
            # and text enough for its header's longest word ("opponent")
            **({"type": "rightAligned", "flex": 1, "minWidth": 72} if key in _NUMBERS else {"flex": 1, "minWidth": 64}),
            **({"minWidth": 96} if key == "part" else {}),
            # a long part ("teammate Annabelle") wraps rather than being cut at phone width
            **({"cellClass": "fw-semibold", "wrapText": True, "autoHeight": True} if key == "part" else {}),
        }
        for key, title in (_EXACT if exact else _MOVED)
    ]
    shown = [dict(r) for r in rows]
    for row in shown:
        if exact and row.get("part") == "total":
            row["total"] = "1"
    return ExplanationView(header, shown, columns, "\n".join(notes))


def explanation_outputs(ids: ExplanationIds) -> list[Output]:
    """The outputs an explanation callback writes: text and rows of components built once (never rebuilt, so a
    change of parameters redraws only what changed)."""
    return [
        Output(ids.header, "children"),
        Output(ids.table, "rowData"),
        Output(ids.table, "columnDefs"),
        Output(ids.table, "style"),
        Output(ids.notes, "children"),
    ]


def explanation_block(ids: ExplanationIds) -> html.Div:
    """The header line, the table (a grid; the callback fills it) and the notes of one explanation."""
    return html.Div(
        [
            html.Div(id=ids.header, className="small fw-semibold mb-1"),
            dag.AgGrid(
                id=ids.table,
                rowData=[],
                columnDefs=[],
                defaultColDef={
                    "sortable": False,
                    "resizable": True,
                    "suppressMovable": True,
                    "wrapHeaderText": True,
                    "autoHeaderHeight": True,
                },
                dashGridOptions={
                    "animateRows": False,
                    "domLayout": "autoHeight",
                    "rowHeight": 28,
                    "headerHeight": 30,
                    "rowClassRules": {"fw-bold": "params.data.total"},
                },
                style={"display": "none"},
                className="ag-theme-quartz explanation-table mb-1",
            ),
            html.Div(id=ids.notes, className="small text-muted explanation-notes"),
        ],
        id=ids.box,
    )


def explain_panel() -> html.Div:
    """Pick one of the player's games (or click a point of the chart); its change explained below."""
    return html.Div(
        [
            html.H2("Why did the rating change?", className="h6 mt-2 mb-1"),
            html.Label("game", htmlFor=PlayerPage.GAME, className="small mb-0"),
            dcc.Dropdown(id=PlayerPage.GAME, clearable=False, placeholder="pick a game", className="mb-2"),
            busy(explanation_block(PLAYER_EXPLANATION)),
        ],
        className="mb-3",
    )


def game_explain_panel() -> html.Div:
    """Standings, under the one game: whose change to explain (a click on a trajectory point picks that player)."""
    return html.Div(
        [
            html.H2("Why did the rating change?", className="h6 mt-2 mb-1"),
            html.Div("player in this game", className="small mb-0"),
            labelled(
                "Player whose change is explained",
                dcc.Dropdown(id=GameExplain.PLAYER, clearable=False, placeholder="pick a player", className="mb-2"),
            ),
            busy(explanation_block(STANDINGS_EXPLANATION)),
        ],
        className="mb-3",
    )


def tab() -> dbc.Tab:
    """Pick and record (left on wide screens), trajectory with rank (right); head-to-head and partners below, side by
    side on wide screens."""
    left = html.Div(
        [
            html.Label("player", htmlFor=PlayerPage.PLAYER, className="small mb-0"),
            dcc.Dropdown(id=PlayerPage.PLAYER, clearable=False, placeholder="pick a player", className="mb-2"),
            busy(html.Div(id=PlayerPage.SUMMARY)),
        ],
        className="mb-3",
    )
    chart = busy(
        dcc.Graph(id=PlayerPage.TRAJECTORY, config=graph_config("player", responsive=True), style={"height": "420px"})
    )
    return dbc.Tab(
        html.Div(
            [
                dbc.Row([dbc.Col(left, xl=4, xs=12), dbc.Col(chart, xl=8, xs=12)], className="g-3"),
                explain_panel(),
                dbc.Row(
                    [
                        dbc.Col(
                            [
                                html.H2("Head to head", className="h6 mt-2 mb-1"),
                                html.Div(
                                    "Each opponent met (teammates are not opponents): games together, and how often "
                                    "each finished ahead (a DNF is behind every finisher; two DNFs are level).",
                                    className="small text-muted mb-1",
                                ),
                                busy(head_to_head_grid()),
                            ],
                            xl=6,
                            xs=12,
                        ),
                        dbc.Col(
                            [
                                html.H2("Partners", className="h6 mt-2 mb-1"),
                                html.Div(id=Partners.SUMMARY, className="small text-muted mb-1"),
                                busy(partners_grid()),
                            ],
                            xl=6,
                            xs=12,
                        ),
                    ],
                    className="g-3",
                ),
            ],
            className="pt-2",
        ),
        label="Player",
        tab_id=Tab.PLAYER,
    )


def explain_view(run: RatingRun, player: Any, game: Any, scale: figures.Scale) -> ExplanationView:
    """The explanation of ``player``'s change in ``game`` (a short note alone when there is none)."""
    if not isinstance(player, str) or not isinstance(game, int):
        return ExplanationView("Pick a game.")
    try:
        e = explain(run, game, player)
    except ValueError as exc:
        return ExplanationView(str(exc))
    change = figures.signed(float(scale.change_between(e.before, e.after)))
    header = (
        f"{player} in {figures.game_label(run, game)}: {figures.number(float(scale.value(e.before)))} → "
        f"{figures.number(float(scale.value(e.after)))} ({change} {scale.unit})"
    )
    return explanation_view(header, figures.explanation_rows(e, scale), e.notes, exact=e.exact)


class PlayerView(NamedTuple):
    """What the Player tab shows of one player."""

    record: Any  #: the record in numbers (a component, or a note)
    figure: Any  #: the rating and rank over time
    head_to_head: list[dict[str, Any]]  #: the head-to-head grid's rows
    partners: list[dict[str, Any]]  #: the partners grid's rows (team games)
    partner_summary: str  #: the best and worst partner in words


def player_view(run: RatingRun, player: Any, scale: figures.Scale) -> PlayerView:
    """The record, the trajectory-with-rank figure, the head-to-head and the partners of ``player``."""
    stats = player_stats(run, player) if isinstance(player, str) else None
    if stats is None or stats.n_games == 0:
        return PlayerView("Pick a player.", figures.empty_figure("Pick a player"), [], [], "")
    figure = figures.player_figure_view(stats, scale, labels=figures.plain_game_labels(run.history))
    rows = figures.head_to_head_rows(head_to_head(run.history, player))
    mates = partners(run, player)
    return PlayerView(
        record_list(figures.record_items(stats, scale)),
        figure,
        rows,
        figures.partner_rows(mates, scale),
        figures.partner_summary(mates, scale, scale.unit),
    )
