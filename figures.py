"""Pure builders: (RatingRun, options) -> plotly figures and leaderboard rows.

Nothing here reads a file, a store or a request; every function is tested without a browser.
Ratings are shown through a :class:`Scale`, a linear map ``shown = offset + factor * rating`` that
turns Kerby's natural-scale ratings into familiar points (and is the identity for other systems),
so every axis and column can say which scale it uses.
"""

from __future__ import annotations

import datetime as dt
import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import plotly.graph_objects as go
from plotly.colors import qualitative

from ratings import GameHistory, RatingRun

__all__ = [
    "NATURAL_SCALE",
    "Scale",
    "change_heatmap",
    "default_players",
    "game_changes_figure",
    "game_label",
    "leaderboard_rows",
    "player_series",
    "scale_for",
    "sparkline",
    "trajectory_figure",
]

#: The ``RatingRun.scale`` of the systems whose ratings live around 0-3 (Kerby's models).
NATURAL_SCALE = "natural scale"
#: Names of placeholder players that are never listed (the dummy of seed 000, section 5.1, when a file has one).
PLACEHOLDER_NAMES = frozenset({"dummy", "placeholder", "?"})
PALETTE: tuple[str, ...] = tuple(qualitative.Plotly) + tuple(qualitative.D3) + tuple(qualitative.Dark24)
#: Most points a trajectory chart draws with markers (beyond, lines only).
MARKER_LIMIT = 1500
SPARK_CHARS = "▁▂▃▄▅▆▇█"
POSITIVE = "#1a7f37"
NEGATIVE = "#cf222e"


@dataclass(frozen=True)
class Scale:
    """How ratings are shown: ``shown = offset + factor * rating``, with a unit label for axes."""

    offset: float = 0.0
    factor: float = 1.0
    unit: str = "rating"

    def value(self, rating: Any) -> Any:
        """A rating (or array of ratings) on the shown scale."""
        return self.offset + self.factor * np.asarray(rating, dtype=float)

    def change(self, delta: Any) -> Any:
        """A rating change on the shown scale (the offset cancels)."""
        return self.factor * np.asarray(delta, dtype=float)


def scale_for(run: RatingRun, offset: float | None = None, factor: float | None = None) -> Scale:
    """The display scale of ``run``: natural-scale ratings become ``offset + factor * r`` points."""
    if run.scale != NATURAL_SCALE:
        return Scale(unit=run.scale)
    off = 1500.0 if offset is None else float(offset)
    fac = 200.0 if factor is None else float(factor)
    if off == 0.0 and fac == 1.0:
        return Scale(unit=NATURAL_SCALE)
    return Scale(off, fac, f"points = {off:g} + {fac:g} × natural-scale rating")


def is_placeholder(name: str) -> bool:
    """Whether a player name is a placeholder (a dummy row in a file), never shown in lists."""
    text = name.strip().lower()
    return text in PLACEHOLDER_NAMES or text.startswith("dummy ")


def player_color(players: Sequence[str], player: str) -> str:
    """A stable colour for ``player`` given the full player list of a history."""
    try:
        index = list(players).index(player)
    except ValueError:
        index = abs(hash(player))
    return PALETTE[index % len(PALETTE)]


def game_label(run: RatingRun, g: int) -> str:
    """A short human name of game ``g``: its number, id and date."""
    return _label(run.history, g)


def _label(history: GameHistory, g: int) -> str:
    game = history.games[g]
    label = f"Game {g + 1}"
    if game.id.strip().lower() not in (str(g + 1), f"game {g + 1}"):
        label += f" ({game.id})"
    if game.date is not None:
        label += f", {game.date.isoformat()}"
    return label


def default_players(data: RatingRun | GameHistory, limit: int = 15) -> list[str]:
    """The most active players (most games, then by name), at most ``limit``, placeholders left out.

    It depends on the history only, so the selection stays put while parameters change.
    """
    history = data.history if isinstance(data, RatingRun) else data
    games = np.bincount(history.flat_player, minlength=history.n_players)
    order = sorted(range(history.n_players), key=lambda p: (-games[p], history.players[p]))
    return [history.players[p] for p in order if not is_placeholder(history.players[p])][:limit]


@dataclass(frozen=True)
class PlayerSeries:
    """One player's games: game indices, ratings before/after, places and field sizes."""

    games: np.ndarray
    before: np.ndarray
    after: np.ndarray
    position: np.ndarray
    dnf: np.ndarray
    size: np.ndarray


def player_series(run: RatingRun, player: str) -> PlayerSeries | None:
    """The games of ``player`` in ``run`` (``None`` when the player is not in its history)."""
    h = run.history
    index = h.player_index.get(player)
    if index is None:
        return None
    mask = h.flat_player == index
    game_of = h.flat_game
    sizes = np.diff(h.offsets)
    games = game_of[mask]
    return PlayerSeries(
        games=games,
        before=run.before[mask],
        after=run.after[mask],
        position=run.history.flat_position[mask],
        dnf=h.flat_dnf[mask],
        size=sizes[games],
    )


def _place_text(position: float, dnf: bool, size: int) -> str:
    return f"DNF of {size}" if dnf else f"place {int(position)} of {size}"


def _x_values(run: RatingRun, games: np.ndarray, by_date: bool) -> Any:
    if by_date:
        return [run.history.games[g].date for g in games]
    return games + 1


@functools.lru_cache(maxsize=16)
def game_labels(history: GameHistory) -> tuple[str, ...]:
    """:func:`game_label` of every game, computed once per history."""
    return tuple(_label(history, g) for g in range(history.n_games))


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
        color = player_color(run.players, player)
        change = scale.change(series.after - series.before)
        # One short text per point and numeric arrays (sent as compact typed arrays) keep big histories light.
        labels = game_labels(run.history)
        text = [
            f"{labels[g]}<br>{_place_text(pos, bool(d), int(n))}, change {c:+.4g}"
            for g, pos, d, n, c in zip(
                series.games.tolist(), series.position, series.dnf, series.size, change.tolist(), strict=True
            )
        ]
        fig.add_trace(
            go.Scatter(
                x=_x_values(run, series.games, by_date),
                y=scale.value(series.after),
                mode=mode,
                name=player,
                legendgroup=player,
                line={"color": color, "width": 2},
                marker={"size": 5},
                customdata=series.games,
                text=text,
                hovertemplate=f"<b>{player}</b><br>%{{text}}<br>rating %{{y:.4g}}<extra></extra>",
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
                    name=f"{player} ({baseline_name})",
                    legendgroup=player,
                    showlegend=False,
                    line={"color": color, "width": 1.5, "dash": "dash"},
                    customdata=base_series.games,
                    yaxis="y2" if second_axis else "y",
                    hovertemplate=f"<b>{player}</b> ({baseline_name})<br>game %{{x}}"
                    "<br>rating %{y:.4g}<extra></extra>",
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
        title += f" (dashed: {baseline_name})"
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
            yaxis2={"title": {"text": f"{bscale.unit} (dashed: {baseline_name})"}, "overlaying": "y", "side": "right"},
            margin={"r": 60},
        )
    return fig


def game_changes_figure(run: RatingRun, g: int, *, scale: Scale | None = None) -> go.Figure:
    """Each participant of game ``g``, best place first: the rating change as a bar, labelled with the place."""
    scale = scale or Scale(unit=run.scale)
    h = run.history
    s = h.game_slice(g)
    positions = run.history.flat_position[s]
    order = np.argsort(positions, kind="stable")
    players = [h.players[p] for p in h.flat_player[s][order]]
    dnf = h.flat_dnf[s][order]
    size = s.stop - s.start
    change = scale.change(run.after[s] - run.before[s])[order]
    labels = [
        f"{'DNF' if d else int(pos)}. {name}" for name, pos, d in zip(players, positions[order], dnf, strict=True)
    ]
    hover = [
        f"<b>{name}</b><br>{_place_text(pos, bool(d), size)}<br>{b:.4g} → {a:.4g} ({c:+.4g})"
        for name, pos, d, b, a, c in zip(
            players,
            positions[order],
            dnf,
            scale.value(run.before[s][order]),
            scale.value(run.after[s][order]),
            change,
            strict=True,
        )
    ]
    fig = go.Figure(
        go.Bar(
            x=labels,
            y=change,
            marker_color=[POSITIVE if c >= 0 else NEGATIVE for c in change],
            text=[f"{c:+.3g}" for c in change],
            textposition="outside",
            hovertext=hover,
            hoverinfo="text",
        )
    )
    fig.update_layout(
        title={"text": f"{game_label(run, g)}: rating change by place", "font": {"size": 15}},
        xaxis_title="place. player",
        yaxis_title=f"change ({scale.unit})",
        margin={"l": 60, "r": 10, "t": 40, "b": 40},
        template="plotly_white",
    )
    return fig


def oddities(run: RatingRun) -> np.ndarray:
    """Flat mask of entries that look wrong at a glance: the last place (or a DNF) gained, or the winner lost.

    Only games with at least two distinct ranks count; a tie for everyone changes nothing odd.
    """
    h = run.history
    out = np.zeros(len(h.flat_rank), dtype=bool)
    change = run.change
    for g in range(h.n_games):
        s = h.game_slice(g)
        ranks = h.flat_rank[s]
        if ranks.min() == ranks.max():
            continue
        last = (ranks == ranks.max()) | h.flat_dnf[s]
        first = ranks == 0
        out[s] = (last & (change[s] > 1e-12)) | (first & (change[s] < -1e-12))
    return out


def change_heatmap(run: RatingRun, players: Sequence[str], *, scale: Scale | None = None) -> go.Figure:
    """Players x games heatmap of rating changes (blank where a player did not play).

    Entries where the last place or a DNF gained, or the winner lost, are marked with a cross.
    """
    scale = scale or Scale(unit=run.scale)
    h = run.history
    rows = [p for p in players if p in h.player_index]
    row_of = {h.player_index[p]: i for i, p in enumerate(rows)}
    z = np.full((len(rows), h.n_games), np.nan)
    game_of = h.flat_game
    change = scale.change(run.change)
    odd = oddities(run)
    odd_x: list[int] = []
    odd_y: list[str] = []
    odd_text: list[str] = []
    positions = run.history.flat_position
    sizes = np.diff(h.offsets)
    for i, (p, g) in enumerate(zip(h.flat_player, game_of, strict=True)):
        r = row_of.get(int(p))
        if r is None:
            continue
        z[r, g] = change[i]
        if odd[i]:
            odd_x.append(int(g) + 1)
            odd_y.append(rows[r])
            odd_text.append(
                f"{rows[r]}: {_place_text(positions[i], bool(h.flat_dnf[i]), int(sizes[g]))}, change {change[i]:+.3g}"
            )
    limit = float(np.nanmax(np.abs(z))) if np.isfinite(z).any() else 1.0
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x=np.arange(1, h.n_games + 1),
            y=rows,
            colorscale="RdBu",
            zmid=0.0,
            zmin=-limit,
            zmax=limit,
            colorbar={"title": {"text": "change"}},
            hovertemplate="%{y}<br>game %{x}<br>change %{z:+.3g}<extra></extra>",
            hoverongaps=False,
        )
    )
    fig.add_trace(
        go.Scatter(
            x=odd_x,
            y=odd_y,
            mode="markers",
            name="last place gained / winner lost",
            marker={"symbol": "x-thin", "size": 9, "line": {"width": 2, "color": "#000"}},
            hovertext=odd_text,
            hoverinfo="text",
        )
    )
    fig.update_layout(
        title={"text": f"Rating changes, players × games ({scale.unit}); × marks odd changes", "font": {"size": 15}},
        xaxis_title="game number",
        yaxis={"autorange": "reversed"},
        margin={"l": 90, "r": 10, "t": 40, "b": 40},
        legend={"orientation": "h", "y": -0.2},
        template="plotly_white",
        height=max(260, 60 + 22 * len(rows)),
    )
    return fig


def sparkline(values: Sequence[float] | np.ndarray, width: int = 10) -> str:
    """The last ``width`` values as block characters, lowest ▁ to highest █ (relative to themselves)."""
    data = np.asarray(values, dtype=float)[-width:]
    if len(data) == 0:
        return ""
    low, high = float(data.min()), float(data.max())
    if high - low < 1e-12:
        return SPARK_CHARS[3] * len(data)
    steps = np.round((data - low) / (high - low) * (len(SPARK_CHARS) - 1)).astype(int)
    return "".join(SPARK_CHARS[i] for i in steps)


def leaderboard_rows(
    run: RatingRun,
    *,
    min_games: int = 0,
    scale: Scale | None = None,
    baseline: RatingRun | None = None,
) -> list[dict[str, Any]]:
    """Leaderboard rows, best first: rank, player, rating, games, wins, average place, last change, trend.

    Placeholder players are left out and ranks count only the players shown.  With a ``baseline``,
    ``shift`` is how many places a player moved up (positive) or down relative to the baseline's
    ranking of the same players (``None`` for a player the baseline does not know).
    """
    scale = scale or Scale(unit=run.scale)
    table = run.leaderboard()
    table = table[[not is_placeholder(p) for p in table["player"]]]
    table = table[table["games"] >= min_games]
    base_rank: dict[str, int] = {}
    if baseline is not None:
        base = baseline.leaderboard()
        base = base[[not is_placeholder(p) for p in base["player"]]]
        base = base[base["games"] >= min_games]
        base_rank = {p: i + 1 for i, p in enumerate(base["player"])}
    rows: list[dict[str, Any]] = []
    for rank, record in enumerate(table.to_dict("records"), start=1):
        player = str(record["player"])
        series = player_series(run, player)
        trend = sparkline(series.after) if series is not None else ""
        row = {
            "rank": rank,
            "player": player,
            "rating": float(scale.value(record["rating"])),
            "games": int(record["games"]),
            "wins": int(record["wins"]),
            "average_place": float(record["average_place"]),
            "last_change": float(scale.change(record["last_change"])),
            "trend": trend,
        }
        if baseline is not None:
            before = base_rank.get(player)
            row["shift"] = None if before is None else before - rank
        rows.append(row)
    return rows


def date_range_text(first: dt.date | None, last: dt.date | None) -> str:
    """``"2021-01-05 to 2021-12-20"``, or a note that the games are undated."""
    if first is None or last is None:
        return "no dates"
    return f"{first.isoformat()} to {last.isoformat()}"
