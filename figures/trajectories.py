"""Rating trajectories: each chosen player's rating after every game, with an optional pinned baseline."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import plotly.graph_objects as go

from figures.build import figure, figure_json, game_number_axis, typed_array
from figures.games import plain_game_labels
from figures.players import PlayerSeries, player_color, player_dash, player_series, top_players
from figures.scale import Scale, scale_of
from figures.text import HOVER_NUMBER, plain
from ratings import RatingRun
from ratings.numerics import signed

__all__ = [
    "MARKER_LIMIT",
    "TrajectoryValues",
    "trajectories_view",
    "trajectory_figure",
    "trajectory_values",
    "typed_array",
]

#: Most points a trajectory chart draws with markers (beyond, lines only).
MARKER_LIMIT = 1500
#: Behind the "initial rating" label: the plot's white, slightly see-through (the lines under it stay faintly seen).
INITIAL_LABEL_BACKGROUND = "rgba(255, 255, 255, 0.85)"


def _x_values(run: RatingRun, games: np.ndarray, by_date: bool) -> Any:
    if by_date:
        return [run.history.games[g].date for g in games]
    return games + 1


def _points(series: PlayerSeries) -> list[list[Any]]:
    """Each point's ``customdata``: ``[game index, place (or "DNF"), field size]`` (the same for every parameter).

    A plain list, not a numpy array: plotly.py sends arrays binary-encoded ({"dtype", "bdata"}) and dcc.Graph
    copies a clicked point's customdata from that undecoded object, so a click would arrive without it (issue 11,
    item 2).
    """
    return [
        [g, "DNF" if d else int(pos), int(n)]
        for g, pos, d, n in zip(
            series.games.tolist(), series.position.tolist(), series.dnf.tolist(), series.size.tolist(), strict=True
        )
    ]


def _changes(series: PlayerSeries, scale: Scale) -> list[str]:
    """Each point's change as the hover shows it (``+16``, ``−3.25``, ``0``; :func:`figures.signed`)."""
    return [signed(c) for c in scale.change_between(series.before, series.after).tolist()]


@dataclass(frozen=True)
class TrajectoryValues:
    """What a parameter change alters in a drawn trajectory chart with the same history, players and options:
    each solid trace's ``y`` and changes (``hovertext``), by trace index, and the initial rating's line."""

    traces: list[tuple[int, np.ndarray, list[str]]]
    initial: float


def _trace_slots(run: RatingRun, players: Sequence[str], baseline: RatingRun | None) -> list[tuple[str, int, bool]]:
    """``(player, trace index, with a baseline trace)`` in drawing order: one solid trace per player of the run,
    followed by that player's dashed baseline trace when the baseline has the player."""
    slots = []
    index = 0
    for player in players:
        if player not in run.history.player_index:
            continue
        with_base = baseline is not None and player in baseline.history.player_index
        slots.append((player, index, with_base))
        index += 2 if with_base else 1
    return slots


def trajectory_values(
    run: RatingRun, players: Sequence[str], *, scale: Scale | None = None, baseline: RatingRun | None = None
) -> TrajectoryValues:
    """The values of :func:`trajectory_figure` that depend on the run's parameters (for a partial update)."""
    scale = scale or Scale(unit=run.scale)
    traces = []
    for player, index, _ in _trace_slots(run, players, baseline):
        series = player_series(run, player)
        assert series is not None  # _trace_slots keeps only the run's players
        traces.append((index, np.asarray(scale.value(series.after), dtype=float), _changes(series, scale)))
    return TrajectoryValues(traces=traces, initial=float(scale.value(run.initial)))


def trajectory_figure(
    run: RatingRun,
    players: Sequence[str],
    *,
    by_date: bool = False,
    scale: Scale | None = None,
    baseline: RatingRun | None = None,
    baseline_scale: Scale | None = None,
    baseline_name: str = "baseline",
) -> go.Figure:
    """Rating after every game for ``players`` (solid), the baseline's (dashed) and the initial rating (dashed line).

    ``by_date`` puts the game date on the x axis when every game has one (else the game number).
    Each point's hover names the game (its ``text``), the place and the field size (its ``customdata``, whose first
    value is the game index: a click on the point selects that game) and the change (its ``hovertext``).
    """
    traces, layout = _trajectory_parts(
        run,
        players,
        by_date=by_date,
        scale=scale,
        baseline=baseline,
        baseline_scale=baseline_scale,
        baseline_name=baseline_name,
    )
    return figure(traces, layout)


def _trajectory_parts(
    run: RatingRun,
    players: Sequence[str],
    *,
    by_date: bool,
    scale: Scale | None,
    baseline: RatingRun | None,
    baseline_scale: Scale | None,
    baseline_name: str,
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """:func:`trajectory_figure`'s traces and layout."""
    scale = scale or Scale(unit=run.scale)
    by_date = by_date and run.history.has_dates
    baseline_text = plain(baseline_name)
    # Thousands of SVG markers make the browser slow to redraw: long series are drawn as lines only
    # (hover and click still find the nearest game).
    index = run.history.player_index
    points = sum(int(run.games_played[index[p]]) for p in players if p in index)
    mode = "lines+markers" if points <= MARKER_LIMIT else "lines"
    bscale = None
    if baseline is not None:
        bscale = baseline_scale or Scale(unit=baseline.scale)
    # A baseline on another scale (another system) gets its own axis on the right.
    second_axis = bscale is not None and bscale.unit != scale.unit
    solid = trajectory_values(run, players, scale=scale, baseline=baseline)
    values = {i: (y, custom) for i, y, custom in solid.traces}
    labels = plain_game_labels(run.history)
    traces: list[dict[str, Any]] = []
    for player, slot, with_base in _trace_slots(run, players, baseline):
        series = player_series(run, player)
        assert series is not None
        y, changes = values[slot]
        color = player_color(players, player)
        name = plain(player)
        traces.append(
            {
                "type": "scatter",
                "x": _x_values(run, series.games, by_date),
                "y": y,
                "mode": mode,
                "name": name,
                "legendgroup": name,
                "line": {"color": color, "width": 2, "dash": player_dash(players, player)},
                "marker": {"size": 5},
                # The words once per trace (the template); per point only the game's name (text), its index,
                # place and field size (customdata; none changes with the parameters) and the change (hovertext).
                "customdata": _points(series),
                "text": [labels[g] for g in series.games.tolist()],
                "hovertext": changes,
                "hovertemplate": (
                    f"<b>{name}</b><br>%{{text}}<br>place %{{customdata[1]}} of %{{customdata[2]}}, "
                    f"change %{{hovertext}}<br>rating %{{y:{HOVER_NUMBER}}}<extra></extra>"
                ),
            }
        )
        if with_base:
            assert baseline is not None and bscale is not None
            base_series = player_series(baseline, player)
            assert base_series is not None
            bx_by_date = by_date and baseline.history.has_dates
            traces.append(
                {
                    "type": "scatter",
                    "x": _x_values(baseline, base_series.games, bx_by_date),
                    "y": np.asarray(bscale.value(base_series.after), dtype=float),
                    "mode": "lines",
                    "name": f"{name} ({baseline_text})",
                    "legendgroup": name,
                    "showlegend": False,
                    "line": {"color": color, "width": 1.5, "dash": "dash"},
                    "customdata": base_series.games.tolist(),
                    "yaxis": "y2" if second_axis else "y",
                    "hovertemplate": (
                        f"<b>{name}</b> ({baseline_text})<br>game %{{x}}<br>rating %{{y:{HOVER_NUMBER}}}<extra></extra>"
                    ),
                }
            )
    initial = solid.initial
    title = "Rating after each game"
    if baseline is not None:
        title += f" (dashed: {baseline_text})"
    layout: dict[str, Any] = {
        # the initial rating: a dashed line across the plot, labelled at its right end
        "shapes": [
            {
                "type": "line",
                "line": {"color": "#6c757d", "dash": "dash", "width": 1},
                "x0": 0,
                "x1": 1,
                "xref": "x domain",
                "y0": initial,
                "y1": initial,
                "yref": "y",
            }
        ],
        # On a background of its own: the lines' right ends crowd that corner, and at phone width (a plot about
        # 300 px wide) they ran through the words.  Drawn above the traces (plotly's info layer), nearly opaque.
        "annotations": [
            {
                "showarrow": False,
                "text": "initial rating",
                "font": {"size": 11, "color": "#495057"},
                "bgcolor": INITIAL_LABEL_BACKGROUND,
                "borderpad": 1,
                "x": 1,
                "xanchor": "right",
                "xref": "x domain",
                "y": initial,
                "yanchor": "top",
                "yref": "y",
            }
        ],
        "title": {"text": title, "font": {"size": 15}},
        "xaxis": {"title": {"text": "date"}} if by_date else game_number_axis(run.history.n_games),
        "yaxis": {"title": {"text": scale.unit}},
        "hovermode": "closest",
        "margin": {"l": 60, "r": 10, "t": 40, "b": 40},
        "legend": {"orientation": "h", "y": -0.18},
        "uirevision": "trajectories",
    }
    if second_axis and bscale is not None:
        layout["yaxis2"] = {
            "title": {"text": f"{bscale.unit} (dashed: {baseline_text})"},
            "overlaying": "y",
            "side": "right",
        }
        layout["margin"]["r"] = 60
    return traces, layout


def trajectories_view(
    run: RatingRun,
    players: list[str] | None,
    *,
    x_axis: str | None,
    offset: Any,
    factor: Any,
    baseline: RatingRun | None,
    baseline_label: str = "baseline",
) -> dict[str, Any]:
    """The trajectories figure for the chosen players (the default selection when none is chosen), as the
    dictionary a callback sends (:func:`figures.build.figure_json`)."""
    chosen = players or top_players(run)
    scale = scale_of(run, offset, factor)
    bscale = scale_of(baseline, offset, factor) if baseline is not None else None
    traces, layout = _trajectory_parts(
        run,
        chosen,
        by_date=x_axis == "date",
        scale=scale,
        baseline=baseline,
        baseline_scale=bscale,
        baseline_name=baseline_label,
    )
    return figure_json(traces, layout)
