"""Recording a new game: validate it, then add it to a history held by the app or append it to the sheet.

Without a sheet, :func:`add_game` returns a new :class:`~ratings.history.GameHistory` with the game added, so the
app can keep it in the user's session and offer it for download.  With a writable sheet, :func:`record_game`
appends the game in the sheet's own shape:

- **wide** (one row per game: ``date``, ``1st``, ``2nd``, ..., optional ``DNF`` and ``game`` columns): one row,
  tied players in one cell separated by `` / ``;
- **long** (``game``, ``date``, ``player``, ``place``): one row per player, all in one append call.

Existing rows are never rewritten: the only write is one ``append_rows`` call.  Values are sent RAW, so the
sheet stores exactly the text given and never evaluates it; in addition a name that a spreadsheet would take
for a formula (starting with ``=``, ``+``, ``-``, ``@``) is written with a leading apostrophe, so that the sheet's
own CSV/Excel exports are safe too (the project's reader removes that apostrophe again).  Dates are written as
ISO text (``2024-05-31``, ``2024-05-31 18:30`` with a time of day), which the reader understands next to dates the
sheet formats itself.

Idempotency (a retried or double-clicked submit adds the game once): every submission carries a token.  When the
sheet has a game-id column (the long shape always has one; a wide sheet may), the token is written as the game
id, and before appending the sheet is re-read and the append skipped if that id is already there.  This holds
across gunicorn workers because the check reads the sheet itself, not process memory.  A wide sheet without a
game column cannot store the token: then a game identical (same date, same players and places) to one of the
sheet's last few games counts as the same submission and is not added again (``allow_duplicate=True`` records
it anyway; it never overrides a token found in a game column).  Within one process a lock serialises
check-and-append; between workers, two submits landing within the same fraction of a second could still both
pass the check, because the Sheets API has no conditional append.

An append that times out (or fails on Google's side, or on the network) may still land later: Google may finish
it after the app gave up waiting.  A retry that read the sheet before then would append the game a second time.
So after such a failure :func:`record_game` reads the sheet back, for up to :data:`CONFIRM_SECONDS`, and compares:
the submission's token in the game column, or (a wide sheet without one) the game's row among the rows added
since.  Found: the game was recorded, once, and the answer says so.  Not found by then: the error says it may or
may not have been written, as before.
"""

from __future__ import annotations

import datetime as dt
import secrets
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ratings.history import Entry, Game, GameHistory, HistoryError, Problem
from ratings.io import read_header, read_table  # the header reading of the sheet's own shape
from ratings.io.cells import is_blank
from ratings.io.dates import moment, parse_date, parse_date_cells
from ratings.io.names import clean_name, name_key
from ratings.io.places import ordinal_name, parse_place
from ratings.io.writing import place_cells, safe_cell, when
from sources import answers
from sources.forksafe import ForkSafeLock
from sources.sheets import SheetError, SheetSource

__all__ = [
    "NewGame",
    "RecordResult",
    "add_game",
    "new_game",
    "new_submission_token",
    "record_game",
    "sheet_rows",
]

SOURCE = "new game"
#: How many of the sheet's last games are compared when the sheet has no game-id column.
RECENT_GAMES = 5
#: Seconds an append whose outcome is unknown (a timeout) is looked for by reading the sheet back.
CONFIRM_SECONDS = 10.0
#: Failures of an append after which its rows may have been written all the same.
_UNSURE = ("timeout", "server-error", "network")
_LOCK = ForkSafeLock()


@dataclass(frozen=True)
class NewGame:
    """A validated new game: an optional date (with its time of day where one was given) and its participants
    (place ``None`` = did not finish)."""

    date: dt.date | None
    entries: tuple[Entry, ...]
    time: dt.time | None = None

    def game(self, game_id: str) -> Game:
        """This game as a history's game called ``game_id``."""
        return Game(game_id, self.entries, self.date, self.time if self.date is not None else None)

    def same_result(self, game: Game) -> bool:
        """Whether ``game`` has this date and the same players (up to case and spacing) in the same places."""

        def key(entries: Iterable[Entry]) -> set[tuple[str, int | None]]:
            return {(name_key(e.player), e.place) for e in entries}

        return game.date == self.date and key(game.entries) == key(self.entries)


def new_game(date: dt.date | str | None, results: Sequence[tuple[Any, Any]]) -> NewGame:
    """Validate a new game from a date and ``(player, place)`` pairs, by the rules the file readers use.

    Dates, places, names and blanks are read by :mod:`ratings.io` (``31/03/2024`` and ``2nd`` are accepted,
    ``2024-01-0123`` and ``second`` are not; a place left blank or ``DNF``/``DQ`` is did-not-finish).  Raises
    :class:`HistoryError` listing every problem: fewer than two players, an empty or repeated name (names equal up
    to case and spacing are the same player), a place that is not a place, nobody finishing, a date that is not a
    date.
    """
    problems: list[Problem] = []
    when: dt.date | None = None
    time_of_day: dt.time | None = None
    try:
        when = parse_date(date)
        time_of_day = _time_of_day(date) if when is not None else None
    except ValueError as exc:
        problems.append(Problem(str(exc), column="date", source=SOURCE))
    entries: list[Entry] = []
    seen: dict[str, int] = {}
    for i, (player, place) in enumerate(results, start=1):
        name = clean_name(player)
        if not name:
            if not is_blank(place):
                problems.append(Problem(f"player {i} has a place but no name", column="player", source=SOURCE))
            continue  # an empty line of the form is not a player
        key = name_key(name)
        if key in seen:
            problems.append(
                Problem(f"'{name}' is entered twice (players {seen[key]} and {i})", column="player", source=SOURCE)
            )
            continue
        seen[key] = i
        try:
            entries.append(Entry(name, parse_place(place)))
        except ValueError as exc:
            problems.append(Problem(f"{exc} (player '{name}')", column="place", source=SOURCE))
    if len(seen) < 2:
        problems.append(Problem(f"a game needs at least two players; {len(seen)} given", source=SOURCE))
    elif entries and all(e.place is None for e in entries) and len(entries) == len(seen):
        problems.append(Problem("nobody finished: give at least one player a place", column="place", source=SOURCE))
    if problems:
        raise HistoryError(problems)
    return NewGame(when, tuple(entries), time_of_day)


def _time_of_day(value: object) -> dt.time | None:
    """The time of day a date field gives after its date (``2024-05-31 18:30``), by the readers' date rule."""
    if isinstance(value, dt.datetime):
        return value.time()
    if isinstance(value, dt.date):
        return None
    return parse_date_cells({0: str(value)}, "date", None).times.get(0)


def new_submission_token(now: dt.datetime | None = None) -> str:
    """A readable token for one submission of the new-game form (create it when the form is shown).

    It becomes the game's id where the game keeps one: when the form was opened (UTC, to the minute) and a short
    random tail so two forms opened in the same minute differ, e.g. ``web 2026-11-23 14:05 k7q2m``.
    """
    when = (now or dt.datetime.now(dt.UTC)).strftime("%Y-%m-%d %H:%M")
    answers.volatile("drew a submission token")  # each form its own: never handed to another from the memo
    tail = "".join(secrets.choice(_TOKEN_LETTERS) for _ in range(5))
    return f"web {when} {tail}"


#: Letters of a token's random tail: lower case and digits without look-alikes (no 0/o, 1/l/i).
_TOKEN_LETTERS = "abcdefghjkmnpqrstuvwxyz23456789"


# ---------------------------------------------------------------------------------------------- no sheet
def add_game(history: GameHistory, game: NewGame, *, token: str | None = None) -> GameHistory:
    """A new history with ``game`` added (``history`` is unchanged).

    The game id is ``token`` when given (and adding the same token twice returns ``history`` as it is), else
    the next free ``game N``.  When every game has a date, the new game goes after the games of its moment (date
    and time of day, a date alone as its midnight) or earlier, the order the file readers use; otherwise at the
    end.
    """
    ids = {g.id for g in history.games}
    if token is not None and token in ids:
        return history
    game_id = token
    if game_id is None:
        n = len(history.games) + 1
        while f"game {n}" in ids:
            n += 1
        game_id = f"game {n}"
    added = game.game(game_id)
    games = list(history.games)
    position = len(games)
    if game.date is not None and history.has_dates:
        at = moment(added.date, added.time)
        position = sum(1 for g in games if moment(g.date, g.time) <= at)
    games.insert(position, added)
    return GameHistory(games, warnings=history.warnings)


# ---------------------------------------------------------------------------------------------- sheet rows
def _problem(message: str) -> HistoryError:
    return HistoryError([Problem(message, source=SOURCE)])


def sheet_rows(header: Sequence[Any], game: NewGame, *, game_id: str | None) -> tuple[str, list[list[Any]]]:
    """The rows to append for ``game`` in the shape of a sheet with this header row: ``(shape, rows)``.

    Wide: one row, values under the sheet's own columns.  Long: one row per player.  ``game_id`` goes into
    the game column when the sheet has one.  Raises :class:`HistoryError` when the sheet cannot hold the game
    (no column for a place, no DNF column, a name containing ``/`` in the wide shape).
    """
    shape = read_table([list(header)]).shape  # raises a clear HistoryError for a header of neither shape
    info = read_header([str(c) for c in header], None)
    width = len(info.names)
    game_col = info.roles.get("game")
    date_col = info.roles.get("date")
    date_text = when(game.game(""))
    if shape == "long":
        if game_col is None:
            raise _problem("the sheet has player and place columns but no 'game' column to group them into games")
        rows = []
        for entry in game.entries:
            row: list[Any] = [""] * width
            row[game_col] = safe_cell(game_id or "")
            if date_col is not None:
                row[date_col] = date_text
            row[info.roles["player"]] = safe_cell(entry.player)
            row[info.roles["place"]] = "DNF" if entry.place is None else entry.place
            rows.append(_trim(row))
        return shape, rows
    try:
        cells = place_cells(game.entries)
    except HistoryError as exc:
        raise HistoryError([Problem(p.message, source=SOURCE) for p in exc.problems]) from None
    column_of = {place: j for j, place in info.ordinals.items()}
    row = [""] * width
    if game_col is not None:
        row[game_col] = safe_cell(game_id or "")
    if date_col is not None:
        row[date_col] = date_text
    for place, text in cells.items():
        if place is None:
            j = info.roles.get("dnf")
            if j is None:
                raise _problem(
                    "the sheet has no DNF column; add a column named 'DNF' to record players who did not finish"
                )
        else:
            j = column_of.get(place)
            if j is None:
                top = max(column_of)
                raise _problem(
                    f"the sheet has place columns up to place {top}; add a column for place {place} (e.g. "
                    f"'{ordinal_name(place)}') to record this game"
                )
        row[j] = text
    return shape, [_trim(row)]


def _trim(row: list[Any]) -> list[Any]:
    while row and row[-1] == "":
        row.pop()
    return row


# ---------------------------------------------------------------------------------------------- recording
@dataclass(frozen=True)
class RecordResult:
    """What :func:`record_game` did: ``added`` False means the game was already there (a repeated submit)."""

    added: bool
    message: str
    game_id: str | None
    rows: tuple[tuple[Any, ...], ...] = ()


def _already_there(
    rows: list[list[str]], header_info: Any, game: NewGame, token: str, *, allow_duplicate: bool
) -> str | None:
    """Why this submission is already in the sheet, or None."""
    game_col = header_info.roles.get("game")
    if game_col is not None:
        for number, row in enumerate(rows[1:], start=2):
            if game_col < len(row) and clean_name(row[game_col]) == token:
                return f"this game was already recorded (row {number}, game '{token}'); it was not added again"
        return None
    if allow_duplicate:
        return None
    recent = read_table(rows, skip_bad_rows=True).history.games[-RECENT_GAMES:]
    for existing in recent:
        if game.same_result(existing):
            return (
                "an identical game (same date, players and places) is already among the sheet's last games, so it "
                "was not added again; if it really is another game, record it again with 'record anyway'"
            )
    return None


def record_game(
    source: SheetSource,
    game: NewGame,
    *,
    token: str,
    allow_duplicate: bool = False,
    confirm_seconds: float = CONFIRM_SECONDS,
    sleep: Callable[[float], None] = time.sleep,
) -> RecordResult:
    """Append ``game`` to the sheet of ``source`` in the sheet's shape, once per ``token``.

    Raises :class:`SheetError` when the sheet is read-only (public link) or cannot be reached, and
    :class:`HistoryError` when the sheet's layout cannot hold the game.  See the module docstring for how a
    repeated submit is recognised, and how an append whose answer never came is confirmed by reading the sheet
    back for up to ``confirm_seconds``.
    """
    if not source.writable:
        source.append_rows([])  # raises the read-only explanation
    token = " ".join(str(token).split())
    if not token:
        raise SheetError("a submission token is needed to record a game", "config")
    with _LOCK:
        rows = source.fetch_rows()
        if all(is_blank(c) for r in rows for c in r):
            header: list[Any] = ["game", "date", "player", "place"]
            _, new_rows = sheet_rows(header, game, game_id=token)
            confirmed = _append(source, [header, *new_rows], rows, token, confirm_seconds, sleep)
            message = "the sheet was empty: wrote a header and the game" + confirmed
            return RecordResult(True, message, token, _freeze(new_rows))
        header = list(rows[0])
        info = read_header([str(c) for c in header], None)
        why = _already_there(rows, info, game, token, allow_duplicate=allow_duplicate)
        if why is not None:
            return RecordResult(False, why, token if "game" in info.roles else None)
        shape, new_rows = sheet_rows(header, game, game_id=token)
        confirmed = _append(source, new_rows, rows, token, confirm_seconds, sleep)
    count = len(new_rows)
    what = "1 row" if count == 1 else f"{count} rows"
    game_id = token if "game" in info.roles else None
    message = f"recorded the game: {what} added to the sheet ({shape} shape)" + confirmed
    if game.date is not None and "date" not in info.roles:
        message += "; the sheet has no date column, so the date was not written"
    return RecordResult(True, message, game_id, _freeze(new_rows))


def _append(
    source: SheetSource,
    new_rows: list[list[Any]],
    before: list[list[str]],
    token: str,
    seconds: float,
    sleep: Callable[[float], None],
) -> str:
    """Append ``new_rows`` to the sheet that held ``before``; "" when Google said it did, a note when its answer
    never came but reading the sheet back shows them; else the :class:`SheetError` as it came."""
    try:
        source.append_rows(new_rows)
        return ""
    except SheetError as exc:
        if exc.reason not in _UNSURE or not _landed(source, new_rows, before, token, seconds, sleep):
            raise
    return " (Google did not confirm the write, but reading the sheet back shows the game, once)"


def _cells(row: Sequence[Any]) -> tuple[str, ...]:
    """A row as the sheet gives it back: every cell as text, trailing blanks dropped."""
    cells = [str(c).strip() for c in row]
    while cells and not cells[-1]:
        cells.pop()
    return tuple(cells)


def _landed(
    source: SheetSource,
    new_rows: list[list[Any]],
    before: list[list[str]],
    token: str,
    seconds: float,
    sleep: Callable[[float], None],
) -> bool:
    """Whether the sheet, read back again and again for up to ``seconds``, shows ``new_rows`` appended after
    ``before``: by ``token`` in its game column where the rows have one, else by their cells among the rows added
    since ``before`` was read."""
    header = new_rows[0] if not before or all(is_blank(c) for r in before for c in r) else before[0]
    game_col = read_header([str(c) for c in header], None).roles.get("game")
    wanted = [_cells(r) for r in new_rows]
    deadline = time.monotonic() + seconds
    pause = 0.25
    while True:
        try:
            rows = source.fetch_rows()
        except SheetError:
            rows = []
        if game_col is not None:
            if any(game_col < len(r) and clean_name(r[game_col]) == token for r in rows[1:]):
                return True
        else:
            added = [_cells(r) for r in rows[len(before) :]]
            if all(w in added for w in wanted):
                return True
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        sleep(min(pause, left))
        pause = min(pause * 2, 2.0)


def _freeze(rows: list[list[Any]]) -> tuple[tuple[Any, ...], ...]:
    return tuple(tuple(r) for r in rows)
