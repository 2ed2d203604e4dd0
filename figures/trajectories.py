"""Rating trajectories: each chosen player's rating after every game, with an optional pinned baseline."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go

from figures.games import plain_game_labels
from figures.players import player_color, player_dash, player_series
from figures.scale import Scale
from figures.text import place_text, plain
from ratings import RatingRun

__all__ = ["MARKER_LIMIT", "trajectory_figure"]

#: Most points a trajectory chart draws with markers (beyond, lines only).
MARKER_LIMIT = 1500


def _x_values(run: RatingRun, games: np.ndarray, by_date: bool) -> Any:
    if by_date:
        return [run.history.games[g].date for g in games]
    return games + 1


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
    Each point's hover names the game, the place and the change; its ``customdata`` is the game index
    (a click on it selects that game).
    """
    scale = scale or Scale(unit=run.scale)
    by_date = by_date and run.history.has_dates
    baseline_text = plain(baseline_name)
    fig = go.Figure()
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
    for player in players:
        series = player_series(run, player)
        if series is None:
            continue
        color = player_color(players, player)
        name = plain(player)
        change = scale.change(series.after - series.before)
        # One short text per point and numeric arrays (sent as compact typed arrays) keep big histories light.
        labels = plain_game_labels(run.history)
        text = [
            f"{labels[g]}<br>{place_text(pos, bool(d), int(n))}, change {c:+.4g}"
            for g, pos, d, n, c in zip(
                series.games.tolist(), series.position, series.dnf, series.size, change.tolist(), strict=True
            )
        ]
        fig.add_trace(
            go.Scatter(
                x=_x_values(run, series.games, by_date),
                y=scale.value(series.after),
                mode=mode,
                name=name,
                legendgroup=name,
                line={"color": color, "width": 2, "dash": player_dash(players, player)},
                marker={"size": 5},
                # A plain list, not a numpy array: plotly.py sends arrays binary-encoded ({"dtype", "bdata"}) and
                # dcc.Graph copies a clicked point's customdata from that undecoded object, so a click would
                # arrive without it (issue 11, item 2). Small whole numbers are shorter as a list anyway.
                customdata=series.games.tolist(),
                text=text,
                hovertemplate=f"<b>{name}</b><br>%{{text}}<br>rating %{{y:.4g}}<extra></extra>",
            )
        )
        if baseline is not None:
            base_series = player_series(baseline, player)
            if base_series is None:
                continue
            assert bscale is not None
            bx_by_date = by_date and baseline.history.has_dates
            fig.add_trace(
                go.Scatter(
                    x=_x_values(baseline, base_series.games, bx_by_date),
                    y=bscale.value(base_series.after),
                    mode="lines",
                    name=f"{name} ({baseline_text})",
                    legendgroup=name,
                    showlegend=False,
                    line={"color": color, "width": 1.5, "dash": "dash"},
                    customdata=base_series.games.tolist(),
                    yaxis="y2" if second_axis else "y",
                    hovertemplate=f"<b>{name}</b> ({baseline_text})<br>game %{{x}}<br>rating %{{y:.4g}}<extra></extra>",
                )
            )
    fig.add_hline(
        y=float(scale.value(run.initial)),
        line={"dash": "dash", "color": "#6c757d", "width": 1},
        annotation_text="initial rating",
        annotation_position="bottom right",
    )
    title = "Rating after each game"
    if baseline is not None:
        title += f" (dashed: {baseline_text})"
    fig.update_layout(
        title={"text": title, "font": {"size": 15}},
        xaxis_title="date" if by_date else "game number",
        yaxis_title=scale.unit,
        hovermode="closest",
        margin={"l": 60, "r": 10, "t": 40, "b": 40},
        legend={"orientation": "h", "y": -0.18},
        template="plotly_white",
        uirevision="trajectories",
    )
    if second_axis and bscale is not None:
        fig.update_layout(
            yaxis2={"title": {"text": f"{bscale.unit} (dashed: {baseline_text})"}, "overlaying": "y", "side": "right"},
            margin={"r": 60},
        )
    return fig
