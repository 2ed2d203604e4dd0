"""What the record form leads to: a game checked, then written to the group's sheet after a confirm step or added
to the user's session history (an edit like any other: undoable, downloadable).

Validation, the sheet's shape and the idempotent append live in :mod:`sources.record`; who may write and where in
:mod:`sources.access`.  Only the configured sheet is ever written, only by someone allowed to: the sheet a confirm
names is compared with the configured one, never used as an address.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ratings import HistoryError
from ratings.history import Entry, Game, team_problems
from ratings.io.teams import parse_team
from ratings.io.writing import when
from sources.access import Rights, write_target
from sources.edits import FIELDS, EditOutcome, apply_rows, grid_rows
from sources.model import DataError, Sheet, parse_source
from sources.reading import history_for
from sources.record import NewGame, new_game, record_game
from sources.sheets import SheetError, SheetSettings, load_settings

__all__ = ["Plan", "add_to_session", "game_text", "open_sheet", "plan", "sheet_writable", "write_to_sheet"]


def open_sheet(url: str, worksheet: str | None = None) -> Any:
    """A ``sources.sheets.SheetSource`` for ``url`` with the host's sheet settings (credentials, cache, retries)."""
    return Sheet(url, worksheet).opener()


def sheet_writable(source: dict[str, Any] | None, config: SheetSettings | None = None) -> bool:
    """Whether ``source`` is the (unedited) group sheet this server is configured to write to."""
    try:
        sheet = parse_source(source)
    except DataError:
        return False
    if not isinstance(sheet, Sheet):
        return False
    try:
        config = load_settings() if config is None else config
    except SheetError:
        return False
    return config.can_write and config.is_configured(sheet.url, sheet.worksheet)


def game_text(game: NewGame) -> str:
    """ "2024-05-31: 1. Ann, 2. Bo, DNF Cy"."""
    finished = sorted((e for e in game.entries if e.place is not None), key=lambda e: e.place or 0)
    parts = [f"{e.place}. {e.player}" for e in finished] + [f"DNF {e.player}" for e in game.entries if e.place is None]
    return f"{when(game.game('')) or 'no date'}: {', '.join(parts)}"


@dataclass
class Plan:
    """What the submit button leads to: problems, a confirm step (``pending``) or a game for the session."""

    problems: list[str]
    game: NewGame | None = None
    pending: dict[str, Any] | None = None


def plan(
    source: dict[str, Any] | None,
    date: Any,
    players: Sequence[Any],
    places: Sequence[Any],
    token: str,
    *,
    writable: bool,
    teams: Sequence[Any] | None = None,
) -> Plan:
    """Validate the form; a writable sheet asks for confirmation first, anything else goes to the session.

    ``teams`` (optional, one cell per player line) names each player's team by the long shape's one rule
    (:func:`ratings.io.teams.parse_team`; blank: a team of one); teammates must share a place.
    """
    try:
        game = new_game(date, list(zip(players, places, strict=False)))
    except HistoryError as exc:
        return Plan([str(p) for p in exc.problems])
    if teams is not None and any(parse_team(t) for t in teams):
        game, problems = _with_teams(game, players, teams)
        if problems:
            return Plan(problems)
        if writable and source:
            return Plan(["a team game cannot be written to the group's sheet yet; clear the team fields"])
    if writable and source:
        pending = {
            "date": when(game.game("")) or None,
            "results": [[e.player, e.place] for e in game.entries],
            "token": token,
            "source": source,
        }
        return Plan([], game, pending)
    return Plan([], game)


def _with_teams(game: NewGame, players: Sequence[Any], teams: Sequence[Any]) -> tuple[NewGame, list[str]]:
    """``game`` with each entry's team from the form line of the same player, and the history's team problems."""
    from ratings.io.names import name_key

    team_of = {name_key(p): parse_team(t) for p, t in zip(players, teams, strict=False) if p is not None}
    entries = tuple(Entry(e.player, e.place, team_of.get(name_key(e.player))) for e in game.entries)
    problems = team_problems(Game("new game", entries, game.date))
    return NewGame(game.date, entries, game.time), [p.replace("game 'new game': ", "") for p in problems]


def add_to_session(state: dict[str, Any] | None, game: NewGame, token: str) -> EditOutcome:
    """The session history with ``game`` added (an applied edit, so Undo takes it back); once per token."""
    if not state or not state.get("base"):
        return EditOutcome("The history is still loading; try again in a moment.", ok=False)
    rows = (
        [{"_id": i, **dict(zip(FIELDS, r, strict=False))} for i, r in enumerate(state["rows"])]
        if state.get("rows") is not None
        else grid_rows(history_for(state["base"]))
    )
    if any(str(r.get("game")) == token for r in rows):
        return EditOutcome("This game was already added (the same submission); it was not added again.", ok=False)
    date = when(game.game(""))
    start = len(rows)
    for i, entry in enumerate(game.entries):
        place = "DNF" if entry.place is None else str(entry.place)
        rows.append(
            {
                "_id": start + i,
                "game": token,
                "date": date,
                "player": entry.player,
                "place": place,
                "exclude": False,
                "team": entry.team or "",
                "weight": "",
            }
        )
    outcome = apply_rows(rows, state)
    if outcome.ok:
        outcome.message = (
            f"Added to this session's history as game '{token}' ({game_text(game)}). It is not saved anywhere: "
            "download the history CSV to keep it; Undo takes it back."
        )
    return outcome


def write_to_sheet(
    pending: dict[str, Any],
    allowed: Rights,
    opener: Callable[..., Any] = open_sheet,
    config: SheetSettings | None = None,
) -> tuple[bool, str]:
    """Append the confirmed game to the group's sheet (idempotent per token): ``(written or already there, message)``.

    ``pending`` comes from the browser: its game is validated again and its sheet only compared with the configured
    one (:func:`sources.access.write_target`); the address written to is the configured one.
    """
    if not allowed.may_record:
        return False, f"Not recorded: {allowed.message}"
    try:
        url, worksheet = write_target(pending.get("source"), load_settings() if config is None else config)
        game = new_game(pending.get("date"), [tuple(r) for r in pending["results"]])
        sheet = opener(url, worksheet)
        result = record_game(sheet, game, token=str(pending["token"]))
    except (SheetError, DataError, HistoryError, KeyError, TypeError) as exc:
        message = getattr(exc, "message", None) or "; ".join(getattr(exc, "messages", [])) or str(exc)
        if isinstance(exc, (KeyError, TypeError)):
            message = "the confirmation did not hold a game; press Record game again"
        return False, f"Not recorded: {message}"
    return True, result.message[0].upper() + result.message[1:] + "."
