"""The edit session: editing the history for a what-if; the grid's rows become a new history only when the user
presses Apply.

The edited history is kept on the server by content (``sources.model.Edited``): the data source store gets an
``edited`` source naming it by content id and the source it was edited from, so every other feature recomputes
from it.
The edit store keeps what Apply needs beside it, per user, in the browser::

    {"base": <the unedited source>, "rows": <applied grid rows, compact> or None, "undo": [<rows or None>, ...]}

``rows`` keeps excluded games (they stay in the grid, ticked) while the source holds only the included ones;
an ``undo`` entry of ``None`` stands for the unedited source.  A grid that does not read as a history leaves
the source and the stores untouched and lists each problem with its row and column.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from typing import Any

from ratings import GameHistory, HistoryError
from ratings.history import Problem
from ratings.io.cells import Cell, is_blank  # the one rule for a blank cell
from ratings.io.dates import parse_date_cells  # the readers' date parser (one rule for dates)
from ratings.io.limits import MAX_ROWS  # an edit holds what a file may
from ratings.io.names import clean_name  # the one rule for trimming names and ids
from ratings.io.writing import when, when_text  # a date with its time of day, as the writers write it
from ratings.numerics import counted  # "1,234 games": the one rule for a count and its noun
from sources.model import DataError, Edited, keep_history, parse_source
from sources.reading import describe_source, history_for
from sources.views import view_of, with_view

__all__ = [
    "FIELDS",
    "UNDO_STEPS",
    "Checked",
    "EditOutcome",
    "add_player",
    "add_row",
    "apply_rows",
    "check_rows",
    "delete_rows",
    "edited_source",
    "fresh_state",
    "grid_rows",
    "new_game_id",
    "previous_dates",
    "records_of",
    "revert",
    "undo",
]


def _moment_text(value: dt.date | None) -> str | None:
    """A record's date (a ``datetime`` where the game has a time of day) as the writers write it, or None."""
    if value is None:
        return None
    if isinstance(value, dt.datetime):
        return when_text(value.date(), value.time())
    return when_text(value, None)


def records_of(history: GameHistory) -> list[dict[str, Any]]:
    """JSON-ready long-shape records (dates as the writers write them, ``YYYY-MM-DD`` with `` HH:MM`` where the game
    has a time of day; DNF as the word), with ``team`` and ``weight`` when some entry has them
    (:attr:`GameHistory.labels_teams`)."""
    return [
        {
            "game": r["game"],
            "date": _moment_text(r["date"]),
            "player": r["player"],
            "place": r["place"],
            **{key: r[key] for key in ("team", "weight") if key in r},
        }
        for r in history.to_records()
    ]


#: How many applied edits can be undone.
UNDO_STEPS = 5
#: Grid columns, in the compact order the edit store keeps them (``team`` and ``weight`` last, so a row stored
#: before they existed reads as a row without them).
FIELDS = ("game", "date", "player", "place", "exclude", "team", "weight")


def _weight_text(weight: Any) -> str:
    """A weight as the grid shows it: blank for a whole game (1), else the number."""
    return "" if weight is None or weight == 1.0 else f"{weight:g}"


def grid_rows(history: GameHistory) -> list[dict[str, Any]]:
    """One grid row per participant (long shape), places as text (``DNF`` for did-not-finish), none excluded; the
    team (blank: a team of one) and the weight (blank: the whole game) as the long shape's cells."""
    return [
        {
            "_id": str(i),  # AG Grid row ids are text
            "game": str(r["game"]),
            "date": r["date"] or "",
            "player": r["player"],
            "place": str(r["place"]),
            "exclude": False,
            "team": r.get("team") or "",
            "weight": _weight_text(r.get("weight")),
        }
        for i, r in enumerate(records_of(history))
    ]


def _compact(rows: list[dict[str, Any]]) -> list[list[Any]]:
    return [[r.get(f) for f in FIELDS] for r in rows]


def _expand(compact: list[list[Any]]) -> list[dict[str, Any]]:
    # strict=False: a row kept before the team and weight columns has five cells (both then blank)
    return [
        {"_id": str(i), **dict.fromkeys(FIELDS), **dict(zip(FIELDS, row, strict=False))}
        for i, row in enumerate(compact)
    ]


@dataclass
class Checked:
    """What the grid rows read as: the history to rate (``None`` when there are problems)."""

    history: GameHistory | None
    excluded: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    ignored: int = 0
    dates: dict[str, str] = field(default_factory=dict)  # game id -> its one date (and time of day), as written


def _where(row: dict[str, Any]) -> str:
    """How a user finds a grid row: its game and its player (the grid has no row numbers and can be sorted)."""
    game, player = clean_name(row.get("game")), clean_name(row.get("player"))
    parts = [f"game '{game}'" if game else "a row without a game id"]
    if player:
        parts.append(f"player '{player}'")
    return ", ".join(parts)


def _located(problem: Problem, kept: list[dict[str, Any]]) -> str:
    """A problem of ``kept[problem.row]`` named by game and player (and the column), never by a row number."""
    message = _ROW_REFERENCE.sub("", problem.message)
    if problem.row is None or not 0 <= problem.row < len(kept):
        return message
    column = f", {problem.column}" if problem.column else ""
    return f"{_where(kept[problem.row])}{column}: {message}"


#: Row numbers inside the library's messages ("also row 12", "; rows 3, 5"): meaningless in a sortable grid.
_ROW_REFERENCE = re.compile(r" \(also row \d+\)|; rows [\d, .]+(?=\))")


def _game_dates(
    kept: list[dict[str, Any]], parsed: dict[int, str], previous: dict[str, str]
) -> tuple[dict[str, str], list[str]]:
    """One date per game (with its time of day, as the writers write it): the one its rows agree on, or the one row
    that changed it (that moves the whole game).

    ``parsed`` maps a row to its date as read; ``previous`` maps a game id to its date before this edit; a game whose
    rows carry two new dates is a problem.
    """
    seen: dict[str, dict[str, int]] = {}
    for i, row in enumerate(kept):
        if row["game"] is not None and i in parsed:
            seen.setdefault(row["game"], {}).setdefault(parsed[i], i)
    dates: dict[str, str] = {}
    problems: list[str] = []
    for game, found in seen.items():
        if len(found) == 1:
            dates[game] = next(iter(found))
            continue
        before = previous.get(game)
        changed = {d: i for d, i in found.items() if d != before}
        if len(changed) == 1:
            dates[game] = next(iter(changed))
            continue
        shown = " and ".join(f"{d} ({_where(kept[i])})" for d, i in list(found.items())[:3])
        problems.append(f"game '{game}' has two dates, {shown}: give each game one date")
    return dates, problems


def check_rows(rows: list[dict[str, Any]], previous_dates: dict[str, str] | None = None) -> Checked:
    """Read grid rows as a history, leaving out excluded games (a game is excluded when any of its rows is ticked).

    Rows with neither a player nor a place are ignored (a freshly added row).  Teams and weights are read by the
    long shape's one rule (:mod:`ratings.io.teams`): players of a game with the same team text are teammates.
    Dates are read by the file readers' date parser (ISO, 31/03/2024, 31 March 2024, ...); a game has one date, so
    a date changed on one row of a game moves the whole game (``previous_dates``: each game's date before the
    edit).  Problems name the game and the
    player, in the library's own words.
    """
    kept: list[dict[str, Any]] = []
    excluded: list[str] = []
    ignored = 0
    for row in rows:
        if is_blank(row.get("player")) and is_blank(row.get("place")):
            ignored += 1
            continue
        game = clean_name(row.get("game"))
        kept.append(
            {
                "game": game or None,
                "date": row.get("date"),
                "player": row.get("player"),
                "place": row.get("place"),
                "team": row.get("team"),
                "weight": row.get("weight"),
            }
        )
        if row.get("exclude") and game and game not in excluded:
            excluded.append(game)
    cells: dict[int, Cell] = {i: str(r["date"]) for i, r in enumerate(kept) if not is_blank(r["date"])}
    read = parse_date_cells(cells, "date", None)
    problems = [_located(p, kept) for p in [*read.column_problems, *read.row_problems.values()]]
    moments = {i: when_text(date, read.times.get(i)) for i, date in read.dates.items()}
    dates, date_problems = _game_dates(kept, moments, previous_dates or {})
    problems += date_problems
    records = [{**r, "date": dates.get(r["game"]) if r["game"] is not None else None} for r in kept]
    try:
        full = GameHistory.from_records(records, rows=list(range(len(kept))))
    except HistoryError as exc:
        problems += [_located(p, kept) for p in exc.problems]
        full = None
    if problems or full is None:
        return Checked(None, excluded, problems, ignored)
    if full.n_games == 0:
        return Checked(None, excluded, ["the table holds no games"], ignored)
    included = [g for g in full.games if g.id not in excluded]
    if not included:
        return Checked(None, excluded, ["every game is excluded; keep at least one game"], ignored)
    history = GameHistory(included, warnings=full.warnings) if excluded else full
    return Checked(history, excluded, [], ignored, dates)


def previous_dates(state: dict[str, Any] | None) -> dict[str, str]:
    """Each game's date (as the writers write it, with its time of day) in the table as last applied (or in the
    unedited source)."""
    if not state:
        return {}
    if state.get("rows") is not None:
        compact = state["rows"]
        at_game, at_date = FIELDS.index("game"), FIELDS.index("date")
        return {clean_name(r[at_game]): str(r[at_date] or "") for r in compact if isinstance(r, list)}
    try:
        history = history_for(state.get("base"))
    except DataError:
        return {}
    return {g.id: when(g) for g in history.games}


def fresh_state(source: dict[str, Any]) -> dict[str, Any]:
    """The edit store for an unedited source (``shown``: the source whose history the grid holds)."""
    return {"base": source, "rows": None, "undo": [], "shown": source}


def _normalised(rows: list[dict[str, Any]], checked: Checked) -> list[dict[str, Any]]:
    """The rows with fresh ids, each game's one date (ISO) and the exclude tick spread over every row of the game."""
    out = []
    for i, row in enumerate(rows):
        game = clean_name(row.get("game"))
        date = checked.dates.get(game, "")
        out.append(
            {"_id": str(i), **{f: row.get(f) for f in FIELDS}, "date": date, "exclude": game in checked.excluded}
        )
    return out


@dataclass
class EditOutcome:
    """The result of an edit action; ``None`` fields stay as they are."""

    message: str
    ok: bool = True
    source: dict[str, Any] | None = None
    state: dict[str, Any] | None = None
    rows: list[dict[str, Any]] | None = None


def apply_rows(rows: list[dict[str, Any]] | None, state: dict[str, Any] | None) -> EditOutcome:
    """Apply the grid: a new edited source and an undo step, or the problems (and nothing changes)."""
    if not state or not state.get("base"):
        return EditOutcome("The history is still loading; try again in a moment.", ok=False)
    if rows is not None and len(rows) > MAX_ROWS:
        # bounded before any row is read (issue 30: an Apply of 300,000 rows took 28.7 s of CPU and 692 MB)
        return EditOutcome(
            f"Not applied: the table has {len(rows):,} rows; an edit may hold at most {MAX_ROWS:,}, as a file may "
            "(the previous history stays in use).",
            ok=False,
        )
    checked = check_rows(rows or [], previous_dates(state))
    if checked.history is None:
        shown = checked.problems[:12]
        more = len(checked.problems) - len(shown)
        lines = shown + ([f"... and {more} more"] if more > 0 else [])
        head = "Not applied: the table has problems (the previous history stays in use):"
        return EditOutcome("\n".join([head, *lines]), ok=False)
    applied = _normalised(rows or [], checked)
    applied = [r for r in applied if not (is_blank(r["player"]) and is_blank(r["place"]))]
    source = edited_source(checked.history, state["base"])
    undo = [*state.get("undo", []), state.get("rows")][-UNDO_STEPS:]
    new_state = {"base": state["base"], "rows": _compact(applied), "undo": undo, "shown": source}
    info = checked.history.summary()
    message = f"Applied: {counted(info['games'], 'game')}, {counted(info['players'], 'player')} rated now"
    if checked.excluded:
        message += f" ({counted(len(checked.excluded), 'game')} excluded)"
    if checked.ignored:
        message += f"; {counted(checked.ignored, 'empty row')} left out"
    return EditOutcome(message + ".", source=source, state=new_state, rows=applied)


def undo(state: dict[str, Any] | None) -> EditOutcome:
    """Go back one applied edit (to the unedited source when that was the step before)."""
    if not state or not state.get("undo"):
        return EditOutcome("Nothing to undo.", ok=False)
    *rest, previous = state["undo"]
    base = state["base"]
    if previous is None:
        return EditOutcome(
            "Undone: back to the unedited history.",
            source=base,
            state=fresh_state(base),
            rows=grid_rows(history_for(base)),
        )
    rows = _expand(previous)
    checked = check_rows(rows)
    if checked.history is None:  # cannot happen for rows that were applied before; say so rather than fail
        return EditOutcome("Could not undo: the earlier table no longer reads as a history.", ok=False)
    source = edited_source(checked.history, base)
    new_state = {"base": base, "rows": previous, "undo": rest, "shown": source}
    return EditOutcome(
        f"Undone ({len(rest)} more step{'s' if len(rest) != 1 else ''} can be undone).",
        source=source,
        state=new_state,
        rows=rows,
    )


def revert(state: dict[str, Any] | None) -> EditOutcome:
    """Drop every edit: the unedited source again."""
    if not state or not state.get("base"):
        return EditOutcome("Nothing to revert.", ok=False)
    base = state["base"]
    return EditOutcome(
        f"Reverted to {describe_source(base)}.", source=base, state=fresh_state(base), rows=grid_rows(history_for(base))
    )


def _blank_row(rows: list[dict[str, Any]], game: str, date: str) -> dict[str, Any]:
    next_id = max((int(r.get("_id", 0)) for r in rows), default=-1) + 1
    return {
        "_id": str(next_id),
        "game": game,
        "date": date,
        "player": "",
        "place": "",
        "exclude": False,
        "team": "",
        "weight": "",
    }


def new_game_id(rows: list[dict[str, Any]]) -> str:
    """A readable id no row uses: one more than the largest numeric game id, else "game N"."""
    used = {clean_name(r.get("game")) for r in rows}
    numbers = [int(g) for g in used if g.isdigit()]
    n = max(numbers) + 1 if numbers else len(used - {""}) + 1
    while (str(n) if numbers else f"game {n}") in used:
        n += 1
    return str(n) if numbers else f"game {n}"


def add_row(rows: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    """The rows with an empty row at the end that starts a new game (a fresh id, no date yet)."""
    rows = list(rows or [])
    return [*rows, _blank_row(rows, new_game_id(rows), "")]


def add_player(rows: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    """The rows with an empty row at the end in the last row's game and date (a player added to that game)."""
    rows = list(rows or [])
    last = rows[-1] if rows else {}
    game = str(last.get("game") or "") or new_game_id(rows)
    return [*rows, _blank_row(rows, game, str(last.get("date") or ""))]


def delete_rows(rows: list[dict[str, Any]] | None, selected: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    """The rows without the selected ones (matched by their ``_id``)."""
    gone = {r.get("_id") for r in (selected or [])}
    return [r for r in (rows or []) if r.get("_id") not in gone]


def edited_source(history: GameHistory, base: Any) -> dict[str, Any]:
    """The JSON source of an edit of ``base`` (kept on the server by content)."""
    try:
        parsed = parse_source(base)
    except DataError:
        parsed = None
    edited = Edited.of(keep_history(history), parsed).to_json()
    return with_view(edited, view_of(base)) if isinstance(base, dict) else edited
