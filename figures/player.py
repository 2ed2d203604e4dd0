"""One player's page: rating trajectory with leaderboard rank, the record in numbers, head-to-head rows."""

from __future__ import annotations

from typing import Any

import numpy as np
import plotly.graph_objects as go

from figures.build import figure, figure_json, game_number_axis
from figures.games import game_label
from figures.leaderboard import leaderboard_rows
from figures.scale import Scale
from figures.text import HOVER_NUMBER, place_name, plain
from ratings import RatingRun
from ratings.explain import Explanation
from ratings.numerics import number, signed, without_noise
from ratings.stats import PARTNER_MIN_GAMES, HeadToHead, Partner, PlayerStats, player_games

__all__ = [
    "explanation_rows",
    "form_text",
    "game_pick",
    "head_to_head_rows",
    "partner_rows",
    "partner_summary",
    "player_figure",
    "player_figure_view",
    "player_pick",
    "record_items",
]


def form_text(stats: PlayerStats) -> str:
    """Recent form, oldest first: ``"1 3 DNF 2"`` (positions of the last ten games)."""
    return " ".join("DNF" if p == 0 else str(int(p)) for p in stats.recent)


def record_items(stats: PlayerStats, scale: Scale) -> list[tuple[str, str]]:
    """``(label, value)`` pairs of the player's record, as shown in the summary."""
    if stats.n_games == 0:
        return [("games", "0")]
    n = stats.n_games

    def share(count: int) -> str:
        return f"{count} ({100 * count / n:.0f}%)"

    def streaks(s: Any) -> str:
        return f"{s.longest} (now {s.current})"

    return [
        ("rating", number(float(scale.value(stats.after[-1])), 4)),
        ("rank", f"{int(stats.rank[-1])}"),
        ("games", f"{n}"),
        ("wins", share(stats.wins)),
        ("podiums", share(stats.podiums)),
        ("average place", f"{stats.average_place:.2f}"),
        ("best", place_name(stats.best) if stats.best else "no finish"),
        ("worst", f"{place_name(stats.worst)}" + (" (DNF)" if stats.dnf[stats.position == stats.worst].any() else "")),
        ("did not finish", f"{stats.dnfs}"),
        ("longest win streak", streaks(stats.win_streak)),
        ("longest podium streak", streaks(stats.podium_streak)),
        ("longest run of last places", streaks(stats.last_streak)),
        ("last 10 places", form_text(stats)),
    ]


def head_to_head_rows(rows: list[HeadToHead]) -> list[dict[str, Any]]:
    """Grid rows: opponent, games together, ahead, behind, ties, and the share of games finished ahead."""
    return [
        {
            "opponent": r.opponent,
            "games": r.games,
            "ahead": r.ahead,
            "behind": r.behind,
            "ties": r.ties,
            "ahead_share": round(100 * r.ahead / r.games, 1) if r.games else None,
        }
        for r in rows
    ]


def partner_rows(rows: list[Partner], scale: Scale) -> list[dict[str, Any]]:
    """Grid rows: partner, games together, wins together, their share, and the player's rating change per game
    together (on the shown scale)."""
    return [
        {
            "partner": r.partner,
            "games": r.games,
            "wins": r.wins,
            "win_share": round(100 * r.wins / r.games, 1),
            "change_per_game": round(float(scale.change(r.change_per_game)), 2),
        }
        for r in rows
    ]


def partner_summary(rows: list[Partner], scale: Scale, unit: str = "") -> str:
    """The best and worst partner in words, by the player's rating change per game together among partners of at
    least :data:`ratings.stats.PARTNER_MIN_GAMES` games; a note when there are no team games or too few."""
    if not rows:
        return "No team games: partners are the players of the same team in a team game."
    measure = f"by the player's rating change per game together, among partners of {PARTNER_MIN_GAMES}+ games"
    known = [r for r in rows if r.games >= PARTNER_MIN_GAMES]
    if not known:
        return f"No partner with {PARTNER_MIN_GAMES} or more games together yet to call best or worst."

    def said(r: Partner) -> str:
        per = signed(float(scale.change(r.change_per_game)))
        return f"{r.partner} ({per}{' ' + unit if unit else ''} a game over {r.games} games, {r.wins} won)"

    best = max(known, key=lambda r: (r.change_per_game, r.games))
    worst = min(known, key=lambda r: (r.change_per_game, -r.games))
    if best == worst:
        return f"Only partner ({measure}): {said(best)}."
    return f"Best partner: {said(best)}. Worst: {said(worst)}. ({measure[0].upper()}{measure[1:]}.)"


def player_figure(stats: PlayerStats, scale: Scale, *, labels: tuple[str, ...] | None = None) -> go.Figure:
    """Rating after each game (top) and leaderboard rank after it (bottom, 1 at the top), by game number.

    ``labels`` (chart text, already :func:`plain`) names every game of the history for the hover.
    """
    return figure(*_player_parts(stats, scale, labels))


def player_figure_view(stats: PlayerStats, scale: Scale, *, labels: tuple[str, ...] | None = None) -> dict[str, Any]:
    """:func:`player_figure` as the dictionary a callback sends (:func:`figures.build.figure_json`)."""
    return figure_json(*_player_parts(stats, scale, labels))


#: The two rows' shares of the chart's height (rating, rank) and the gap between them: plotly's subplot grid of
#: ``make_subplots(rows=2, cols=1, shared_xaxes=True, row_heights=[0.68, 0.32], vertical_spacing=0.06)``.
_ROWS = (0.68, 0.32)
_GAP = 0.06


def _player_parts(
    stats: PlayerStats, scale: Scale, labels: tuple[str, ...] | None
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    x = stats.games + 1
    names = [labels[int(g)] for g in stats.games] if labels is not None else [f"Game {int(g) + 1}" for g in stats.games]
    places = [
        f"DNF of {int(s)}" if d else f"{place_name(int(p))} of {int(s)}"
        for p, d, s in zip(stats.position, stats.dnf, stats.size, strict=True)
    ]
    rating = np.asarray(scale.value(stats.after), dtype=float)
    change = scale.change_between(stats.before, stats.after)
    traces: list[dict[str, Any]] = [
        {
            "type": "scatter",
            "x": x,
            "y": rating,
            "mode": "lines+markers" if stats.n_games <= 300 else "lines",
            "name": "rating",
            "line": {"color": "#1f77b4"},
            "hovertext": [
                f"{n}<br>{p}<br>change {signed(c)}" for n, p, c in zip(names, places, change.tolist(), strict=True)
            ],
            "hovertemplate": f"%{{hovertext}}<br>rating %{{y:{HOVER_NUMBER}}}<extra></extra>",
            "xaxis": "x",
            "yaxis": "y",
        },
        {
            "type": "scatter",
            "x": x,
            "y": stats.rank,
            "mode": "lines",
            "line": {"shape": "hv", "color": "#6f42c1"},
            "name": "rank",
            "hovertemplate": "rank %{y}<extra></extra>",
            "xaxis": "x2",
            "yaxis": "y2",
        },
    ]
    worst = int(stats.rank.max()) if stats.n_games else 1
    step = max(1, -(-worst // 4))  # whole ranks only, at most about five ticks
    span = int(stats.games[-1] - stats.games[0]) + 1 if stats.n_games else 0  # the game numbers the chart spans
    bottom = (1 - _GAP) * _ROWS[1]
    layout = {
        "xaxis": {"anchor": "y", "domain": [0.0, 1.0], "matches": "x2", "showticklabels": False},
        "yaxis": {"anchor": "x", "domain": [bottom + _GAP, 1.0], "title": {"text": plain(scale.unit)}},
        "xaxis2": {"anchor": "y2", "domain": [0.0, 1.0], **game_number_axis(span)},
        "yaxis2": {
            "anchor": "x2",
            "domain": [0.0, bottom],
            "title": {"text": "rank"},
            "range": [worst + 0.5, 0.5],
            "tick0": 1,
            "dtick": step,
        },
        "title": {"text": f"{plain(stats.player)}: rating and rank after each game", "font": {"size": 15}},
        "showlegend": False,
        "margin": {"l": 60, "r": 10, "t": 40, "b": 40},
        "hovermode": "closest",
    }
    return traces, layout


def explanation_rows(explanation: Explanation, scale: Scale) -> list[dict[str, str]]:
    """The rows of "why did the rating change": one per term (exact systems) or per moved quantity (the others).

    Term rows: ``part``, ``result``, ``chance`` (of finishing ahead, in percent), ``change`` (on the shown scale),
    biggest effect first, then a ``total`` row.  In a team game the player's teammates follow, each with their own
    change (``part`` ``"teammate Bob"``; after the total, which they are not part of).  Moved rows: ``part``,
    ``before``, ``after``, ``change`` (``mu``,
    ``sigma`` and the like in the system's own units; the shown rating on the shown scale).  A change that is only
    rounding next to the numbers of its row or table (:func:`ratings.numerics.without_noise`) reads ``0``.
    """
    if explanation.exact:
        terms = sorted(explanation.terms, key=lambda t: -abs(t.value))
        # the terms are parts of the rating's change: rounding is relative to the rating and the largest part
        largest = max([abs(explanation.before), abs(explanation.after), *(abs(t.value) for t in terms)])
        rows = [
            {
                "part": t.label,
                "result": t.result,
                "chance": "" if t.expected is None else f"{100 * t.expected:.0f}%",
                "change": signed(float(scale.change(without_noise(t.value, largest)))),
            }
            for t in terms
        ]
        total = scale.change_between(explanation.before, explanation.after)
        rows.append({"part": "total", "result": "", "chance": "", "change": signed(float(total))})
        rows += [
            {
                "part": f"teammate {m.name}",
                "result": "same team",
                "chance": "",
                "change": signed(float(scale.change_between(m.before, m.after))),
            }
            for m in explanation.teammates
        ]
        return rows
    out = []
    for m in explanation.moved:
        shown = m.name == "shown rating"
        before = float(scale.value(m.before)) if shown else m.before
        after = float(scale.value(m.after)) if shown else m.after
        change = (scale if shown else Scale()).change_between(m.before, m.after)  # the others in their own units
        out.append({"part": m.name, "before": number(before), "after": number(after), "change": signed(float(change))})
    for m in explanation.teammates:  # their shown ratings
        out.append(
            {
                "part": f"teammate {m.name}",
                "before": number(float(scale.value(m.before))),
                "after": number(float(scale.value(m.after))),
                "change": signed(float(scale.change_between(m.before, m.after))),
            }
        )
    return out


def player_pick(run: RatingRun, chosen: Any) -> tuple[list[dict[str, str]], str | None]:
    """Options (leaderboard order, no placeholders) and the pick: the previous one if still there, else the leader."""
    names = [str(r["player"]) for r in leaderboard_rows(run)]
    options = [{"label": f"{i}. {p}", "value": p} for i, p in enumerate(names, start=1)]
    if isinstance(chosen, str) and chosen in run.history.player_index:
        return options, chosen
    return options, names[0] if names else None


def game_pick(run: RatingRun, player: Any, chosen: Any, click: Any = None) -> tuple[list[dict[str, Any]], int | None]:
    """The player's games, newest first, and the game to explain: a clicked chart point's game, else the previous
    choice when the player played it, else their newest game."""
    if not isinstance(player, str):
        return [], None
    games = [int(g) for g in player_games(run.history, player)][::-1]
    options = [{"label": game_label(run, g), "value": g} for g in games]
    points = click.get("points") if isinstance(click, dict) else None
    if isinstance(points, list) and points and isinstance(points[0], dict):
        # The point's x is the game number (a click's customdata does not reach the server: issue 11, item 2).
        x = points[0].get("x")
        if isinstance(x, (int, float)) and not isinstance(x, bool) and float(x).is_integer() and int(x) - 1 in games:
            return options, int(x) - 1
    if isinstance(chosen, int) and chosen in games:
        return options, chosen
    return options, games[0] if games else None
