"""What a group's page reads: a title's games as a :class:`~sources.model.Loaded`, cached by the group's change
counter.

A title's history is read from the database once per change of the group: the content is kept in the shared store
(:func:`sources.histories.keep`, by content id) and a pointer ``group-history:<key>`` names it (the key holds the
group, its creation time, the title and the group's change counter), so every worker (and with ``REDIS_URL`` every
instance) reads the database once per change, and the rating runs, cached by :attr:`Loaded.key`, are computed again
only after a write.  A game recorded through the page is added to the cached history instead of reading the title
again (:func:`record`), and its run resumes from the run before it (:mod:`sources.runs`), replaying from that game.
Nothing here is needed to keep the games: deleting the cache directory costs one read of the database.

An answer drawn from a title notes what it read (:data:`VERSION`: the group, its creation time and its latest
change), so the memo of answers keeps it and checks it on every hit by :func:`version_of`, one indexed read of the
database: every write to a group logs a change, so a game recorded, corrected or deleted, an alias or a title's
Sheet set from any worker, instance or the command line is seen by the next request.
"""

from __future__ import annotations

import bisect
import contextlib
import datetime as dt
import json
import logging
import time
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar
from zipfile import BadZipFile

import numpy as np
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session

from ratings import GameHistory
from ratings.aliases import AliasError, apply_aliases
from ratings.history import Entry as HistoryEntry
from ratings.history import Game
from ratings.io import write_csv
from ratings.io.dates import moment
from ratings.io.names import name_key
from ratings.io.writing import when
from sources import answers
from sources.access import REFUSED, group_mark, group_may, group_role
from sources.groups import service
from sources.groups.database import process_sessions
from sources.groups.schema import Game as GameRow
from sources.groups.schema import Group, MemberLink, Title
from sources.histories import MissingHistory, fetch, keep, read_when
from sources.model import GROUP_VERSION as VERSION
from sources.model import LRU, DataError, Loaded, Sheet
from sources.record import NewGame
from sources.store import StoreError, shared_store

__all__ = [
    "GroupInfo",
    "Visitor",
    "aliases_of",
    "declare_alias",
    "remove_alias",
    "delete_game",
    "export_files",
    "games_of",
    "import_games",
    "import_preview",
    "read_export",
    "restore",
    "set_mirror",
    "sheet_games",
    "group_info",
    "identify",
    "join",
    "links_of",
    "load_title",
    "make_link",
    "record",
    "revoke_link",
    "sign_in",
    "undo_last",
]

T = TypeVar("T")

log = logging.getLogger(__name__)

#: Histories this process read lately, by ``group:<group id>:<created>:<title id>:<counter>``.
_LOADED: LRU[GameHistory] = LRU(16)

#: What the page says when the database cannot be read (no details: they may name the database's address).
UNREADABLE = "the group's games cannot be read right now (the database did not answer); try again in a moment"


class GroupInfo:
    """A group as its page shows it: slug, name, titles (names), each read in one session."""

    def __init__(self, slug: str, name: str, titles: list[str]) -> None:
        self.slug, self.name, self.titles = slug, name, titles


def group_info(slug: str) -> GroupInfo | None:
    """The group at ``/g/<slug>``, or ``None`` when there is none (or the database has no groups yet)."""
    if not isinstance(slug, str) or not service.SLUG.fullmatch(slug):
        return None
    try:
        with process_sessions()() as session:
            group = service.find_group(session, slug)
            return None if group is None else GroupInfo(group.slug, group.name, [t.name for t in group.titles])
    except SQLAlchemyError as exc:
        log.warning("the groups' database could not be read: %s", type(exc).__name__)
        return None


def load_title(slug: str, title: str | None) -> Loaded:
    """The games of ``title`` (the group's first title for ``None``) of the group at ``/g/<slug>``.

    :class:`DataError` saying what is wrong: no such group, no such title, or the database not answering.
    """
    try:
        with process_sessions()() as session:
            group = service.find_group(session, slug)
            if group is None:
                raise DataError([f"there is no group at /g/{slug}"])
            chosen = service.title_named(group, title)
            if chosen is None:
                names = ", ".join(f"'{t.name}'" for t in group.titles) or "none yet"
                raise DataError([f"the group has no game title '{title}' (its titles: {names})"])
            label = f"{group.name}: {chosen.name}"
            sheet = (chosen.sheet, chosen.worksheet) if chosen.sheet else None
            aliases = service.aliases(session, group) if sheet else {}  # a database read gives its names by them
            counter = service.change_counter(session, group)
            key = _key(group, chosen, counter)
            answers.depends_on(f"{VERSION}{group.id}", _version(group, counter), time.time() + VERSION_SECONDS)
            history = None if sheet else (_LOADED.get(key) or _shared(key))
            if history is None and sheet is None:
                history, columns = service.read_title(session, chosen)
                if columns:
                    _COLUMNAR.add(history)
                _share(key, history, columns)
            if history is not None:
                _LOADED.put(key, history)
    except SQLAlchemyError as exc:
        log.warning("the groups' database could not be read: %s", type(exc).__name__)
        raise DataError([UNREADABLE]) from None
    if sheet is not None:  # the title's games live in its Sheet: read as / reads a Sheet (cached, stale copy)
        read = Sheet(*sheet).load()
        try:
            named = apply_aliases(read.history, aliases)
        except AliasError as exc:
            raise DataError([f"the title's Google Sheet: {exc}"]) from None
        # the group's change counter in the key: an alias declared or removed names the Sheet's players anew
        sheet_key = read.key if named is read.history else f"{read.key}|{key}"
        return Loaded(named, sheet_key, f"{label} (Google Sheet)", read.warnings)
    assert history is not None
    return Loaded(history, key, label, tuple(history.warnings))


#: How long such an answer is kept at most, whatever the checks say.
VERSION_SECONDS = 30 * 86400.0


def _version(group: Group, counter: int) -> bytes:
    return f"{group.created_at.timestamp():.6f}:{counter}".encode()


def version_of(key: str) -> bytes | None:
    """The group's version an answer noted under ``key`` (``groupdb:<group id>``) as the database holds it now: its
    creation time (a database made anew may reuse the id) and latest change; ``None`` when it is gone or cannot be
    read (the answer is then computed)."""
    try:
        group_id = int(key[len(VERSION) :])
        with process_sessions()() as session:
            group = session.get(Group, group_id)
            return None if group is None else _version(group, service.change_counter(session, group))
    except (ValueError, SQLAlchemyError):
        return None


def _key(group: Group, title: Title, counter: int) -> str:
    """The cache key of ``title``'s games after change ``counter``.  The group's creation time tells this database's
    group from one of the same id in another (a database made anew, restored, or a test's): the shared store may
    outlive a database."""
    return f"group:{group.id}:{group.created_at.timestamp():.6f}:{title.id}:{counter}"


def _extended(history: GameHistory, game: Game) -> GameHistory | None:
    """``history`` with a newly recorded ``game``, placed where :func:`service.history` would read it: when every game
    has a date, after every game of its moment or earlier (date, then time of day; the readers' stable order); when
    some has none, last (recording order).  ``None`` when the order cannot be told from the history: an undated game
    among dated ones turns the whole title to recording order, which only the database knows."""
    dates = history.dates
    if not all(d is not None for d in dates):
        return _inserted(history, len(dates), game)
    if game.date is None:
        return None
    if history in _COLUMNAR:  # no times of day: dates alone order it, and no game object is made
        known = [d for d in dates if d is not None]  # every one (checked above)
        return _inserted(history, bisect.bisect_right(known, game.date), game)
    games = history.games
    at = moment(game.date, game.time)
    return _inserted(history, bisect.bisect_right([moment(g.date, g.time) for g in games], at), game)


#: Histories held as their arrays only (read from the database as columns, shared as arrays, or grown from one by
#: :func:`_inserted`): free-for-all games without times of day, whose game objects are not made yet.
_COLUMNAR: weakref.WeakSet[GameHistory] = weakref.WeakSet()


def _inserted(history: GameHistory, at: int, game: Game) -> GameHistory:
    """``history`` with ``game`` played ``at``-th (:meth:`GameHistory.inserted`: the arrays spliced, the new game
    alone checked), still one of :data:`_COLUMNAR` when it was one and the game is free-for-all without a time."""
    grown = history.inserted(at, game)
    if history in _COLUMNAR and game.time is None and all(e.team is None and e.weight == 1.0 for e in game.entries):
        _COLUMNAR.add(grown)
    return grown


#: Longest chain of recorded games a worker follows from a history it holds before reading the title again.
MAX_DELTAS = 50


def _carry(before: str, after: str, game: Game) -> None:
    """Keep the history after a recorded game under its new key, from the one before it when that is held (so the
    leaderboard after a recorded game needs no read of the whole title; else the next look reads the database).

    The shared store gets only the step (the key before and the game), not the whole history again: serialising
    20,000 games costs about 0.4 s; another worker applies the step to the history it holds (:func:`_shared`).
    """
    previous = _LOADED.get(before) or _shared(before)
    if previous is None:
        return
    history = _extended(previous, game)
    if history is None:
        return
    _LOADED.put(after, history)
    _put(after, json.dumps({"before": before, "game": _snapshot(game).to_json()}).encode())


@dataclass(frozen=True)
class _Edit:
    """One game of a title changed by a correction, a deletion or an undo, as the cached history takes it: the game
    ``drop`` (its id) taken out when it was in the history, ``game`` put in ``at``-th when it is in it after the
    write; ``order`` and ``note`` are what reading the title now gives (its ids in play order, the play order's
    note), which the edited history must match to be kept.  ``order`` is ``None`` when the game keeps its date and
    time of day (and was and is in the history): the play order is then what it was, and the game keeps its place."""

    before: str
    after: str
    drop: str | None
    game: Game | None
    at: int
    order: tuple[str, ...] | None
    note: str | None


def _game_edit(
    session: Session, group: Group, title: Title, row: Any, was_live: bool, counter: int, *, in_place: bool = False
) -> _Edit | None:
    """What the write just made to ``row`` (a game of ``title``; ``was_live``: it was in the history before;
    ``in_place``: it was and is, with the same date and time of day) does to the cached history, read inside the
    write's transaction (the group locked since ``counter`` was read); ``None`` when another write came between (then
    the next look reads the title)."""
    if service.changes_since(session, group, counter) != 1:
        return None
    order, note = (None, None) if in_place else service.play_ids(session, title)
    game = None if row.deleted else _as_game(_named(session, group, service.Snapshot.of(row)))
    at = order.index(row.public_id) if order is not None and game is not None and row.public_id in order else 0
    after = service.change_counter(session, group)
    return _Edit(
        _key(group, title, counter),
        _key(group, title, after),
        row.public_id if was_live else None,
        game,
        at,
        order,
        note,
    )


def _carry_edit(edit: _Edit) -> None:
    """Keep the history after a correction, deletion or undo under its new key, made from the one before it (the
    changed game's entries taken out and put in again where a read of the title puts them) when this worker holds
    it, and only when the result is in the order a read gives (a change of dates that re-orders other games, e.g.
    the only undated game dated, is left to the next read); the shared store gets the step."""
    previous = _LOADED.get(edit.before) or _shared(edit.before)
    if previous is None:
        return
    at = edit.at
    if edit.order is None:  # same date and time: the game keeps its place, the play order its note
        if edit.drop is None or edit.drop not in previous.game_ids:
            return
        at = previous.game_ids.index(edit.drop)
    history = _edited(previous, edit.drop, edit.game, at)
    if history is None:
        return
    if edit.order is not None:
        if history.game_ids != edit.order:
            return
        short = int(np.count_nonzero(np.diff(history.offsets) < 2))  # a warning each; the note is the only other
        noted = edit.note is not None
        if len(history.warnings) != short + noted or (edit.note and edit.note not in history.warnings):
            return
    _LOADED.put(edit.after, history)
    step = {
        "before": edit.before,
        "drop": edit.drop,
        "game": None if edit.game is None else _snapshot(edit.game).to_json(),
        "at": at,
    }
    _put(edit.after, json.dumps(step).encode())


def _edited(history: GameHistory, drop: str | None, game: Game | None, at: int) -> GameHistory | None:
    """``history`` without the game ``drop`` and with ``game`` played ``at``-th; ``None`` when it cannot be (no such
    game, no such place)."""
    if drop is not None:
        try:
            g = history.game_ids.index(drop)
        except ValueError:
            return None
        shorter = history.without(g)
        if history in _COLUMNAR:
            _COLUMNAR.add(shorter)
        history = shorter
    if game is None:
        return history
    if not 0 <= at <= len(history):
        return None
    return _inserted(history, at, game)


def _snapshot(game: Game) -> service.Snapshot:
    return service.Snapshot(game.id, _iso(game), _results(game))


def _named(session: Session, group: Group, snapshot: service.Snapshot) -> service.Snapshot:
    """``snapshot`` with each name that is one of the group's aliases read as its player (as a read of the title
    reads it)."""
    aliases = {name_key(a): p for a, p in service.aliases(session, group).items()}
    if not aliases:
        return snapshot
    entries = tuple((aliases.get(name_key(p), p), *rest) for p, *rest in snapshot.entries)
    return service.Snapshot(snapshot.public_id, snapshot.date, entries, snapshot.deleted)  # type: ignore[arg-type]


def _iso(game: Game) -> str | None:
    return when(game) or None


def _results(game: Game) -> tuple[service.Result, ...]:
    return tuple((e.player, e.place, e.team, e.weight) for e in game.entries)


def _shared(key: str, depth: int = 0) -> GameHistory | None:
    """The history the shared store holds for ``key``: a content id, or a step from the key before (followed from
    what this worker holds, at most :data:`MAX_DELTAS` steps back); ``None`` when it holds neither."""
    try:
        value = shared_store().get(f"group-history:{key}")
        if not value:
            return None
        if value.startswith(_ARRAYS):
            unpacked = _unpacked(value)
            _COLUMNAR.add(unpacked)
            return unpacked
        if not value.startswith(b"{"):
            return fetch(value.decode())
        step = json.loads(value)
        if depth >= MAX_DELTAS:
            return None
        previous = _LOADED.get(step["before"]) or _shared(step["before"], depth + 1)
        if previous is None:
            return None
        if "at" in step:  # a correction, deletion or undo
            game = None if step["game"] is None else _as_game(service.Snapshot.from_json(step["game"]))
            history = _edited(previous, step["drop"], game, int(step["at"]))
        else:
            history = _extended(previous, _as_game(service.Snapshot.from_json(step["game"])))
    except (
        StoreError,
        MissingHistory,
        UnicodeDecodeError,
        ValueError,
        KeyError,
        TypeError,
        OSError,
        EOFError,
        BadZipFile,
    ):
        return None
    if history is not None:
        _LOADED.put(key, history)
    return history


def _share(key: str, history: GameHistory, columns: bool) -> None:
    """Put the history read from the database in the shared store: as its arrays when it was read as columns
    (:func:`_packed`), else by content id (:func:`sources.histories.keep`)."""
    try:
        _put(key, _packed(history) if columns else keep(history).encode())
    except StoreError as exc:
        log.warning("could not share a group's history: %s", exc)


#: How a shared history held as arrays begins (a zip archive of ``.npy`` files, :func:`numpy.savez`).
_ARRAYS = b"PK"


def _packed(history: GameHistory) -> bytes:
    """A free-for-all history without times as its arrays and names (``numpy.savez``, no pickle), what
    :func:`_unpacked` makes it again: about 2 MB for 20,000 games and no object per game, where the JSON of
    :func:`sources.histories.keep` makes every game first (about 0.5 s of CPU for 20,000 games)."""
    import io

    meta = {
        "ids": list(history.game_ids),
        "dates": [d.isoformat() if d is not None else None for d in history.dates],
        "players": list(history.players),
        "warnings": list(history.warnings),
    }
    out = io.BytesIO()
    np.savez(
        out,
        offsets=history.offsets,
        player=history.flat_player,
        place=history.flat_place,
        meta=np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8),
    )
    return out.getvalue()


def _unpacked(value: bytes) -> GameHistory:
    import io

    with np.load(io.BytesIO(value), allow_pickle=False) as arrays:
        meta = json.loads(arrays["meta"].tobytes())
        return GameHistory.from_columns(
            meta["ids"],
            [dt.date.fromisoformat(d) if d is not None else None for d in meta["dates"]],
            arrays["offsets"],
            arrays["player"],
            arrays["place"],
            meta["players"],
            meta["warnings"],
        )


def _put(key: str, value: bytes) -> None:
    try:
        shared_store().put(f"group-history:{key}", value)
    except StoreError as exc:
        log.warning("could not share a group's history: %s", exc)


# ---------------------------------------------------------------- who is asking, and what they may do


@dataclass(frozen=True)
class Visitor:
    """Who a request comes from for one group: ``role`` (``None``: a visitor) and how the change log names them."""

    role: str | None
    who: str = "visitor"


@contextmanager
def _session() -> Iterator[Session]:
    """A session committed when the block succeeds; a database failure becomes a :class:`service.GroupError`."""
    try:
        with process_sessions()() as session:
            yield session
            session.commit()
    except SQLAlchemyError as exc:
        log.warning("the groups' database could not be written: %s", type(exc).__name__)
        raise service.GroupError(UNREADABLE[0].upper() + UNREADABLE[1:] + "; nothing was changed.") from None


def _group(session: Session, slug: str) -> Group:
    group = service.find_group(session, slug) if isinstance(slug, str) else None
    if group is None:
        raise service.GroupError(f"there is no group at /g/{slug}")
    return group


def _visitor(session: Session, group: Group, entry: Any, secret_key: str) -> Visitor:
    def link_hash(link_id: int) -> str | None:
        link = session.get(MemberLink, link_id)
        ok = link is not None and link.group_id == group.id and link.revoked_at is None
        return link.token_hash if ok and link is not None else None

    role = group_role(entry, secret_key=secret_key, slug=group.slug, admin_hash=group.admin_hash, link_hash=link_hash)
    if role == "member":
        link = session.get(MemberLink, entry["link"])
        return Visitor(role, f"member link '{link.label}'" if link is not None else "member")
    return Visitor(role, "organiser" if role == "organiser" else "visitor")


def identify(slug: str, entry: Any, secret_key: str) -> Visitor:
    """The role the cookie ``entry`` (untrusted) gives for the group at ``/g/<slug>``; a visitor when it gives
    none or the database cannot say."""
    try:
        with _session() as session:
            return _visitor(session, _group(session, slug), entry, secret_key)
    except service.GroupError:
        return Visitor(None)


def sign_in(slug: str, passphrase: Any, secret_key: str) -> dict[str, Any] | None:
    """The cookie entry of an organiser when ``passphrase`` is the group's (else ``None``).  The passphrase is
    compared with its scrypt hash and never kept or logged."""
    with _session() as session:
        group = _group(session, slug)
        if not service.check_passphrase(group, passphrase):
            return None
        return {"role": "organiser", "mark": group_mark(secret_key, group.slug, "organiser", group.admin_hash)}


def join(slug: str, token: Any, secret_key: str) -> dict[str, Any] | None:
    """The cookie entry of a member when ``token`` is one of the group's member links, not revoked."""
    with _session() as session:
        group = _group(session, slug)
        link = service.member_link(session, group, token)
        if link is None:
            return None
        return {
            "role": "member",
            "link": link.id,
            "mark": group_mark(secret_key, group.slug, "member", link.token_hash),
        }


def _allowed(session: Session, slug: str, entry: Any, secret_key: str, action: str) -> tuple[Group, Visitor]:
    group = _group(session, slug)
    visitor = _visitor(session, group, entry, secret_key)
    if not group_may(visitor.role, action):
        raise service.GroupError(REFUSED["record" if action == "record" else "other"])
    return group, visitor


def _title(group: Group, title: str | None) -> Title:
    chosen = service.title_named(group, title)
    if chosen is None:
        raise service.GroupError(f"the group has no game title '{title}'")
    return chosen


def _database_title(group: Group, title: str | None) -> Title:
    """The title, when its games live in the database (corrections, deletions and imports change only those)."""
    chosen = _title(group, title)
    if chosen.sheet:
        raise service.GroupError(
            f"'{chosen.name}' reads its games from a Google Sheet: correct, delete or add them in the Sheet "
            "(or read the title from the group's database again)"
        )
    return chosen


#: Why a group's page may not write the server's Sheet: the host names the one group that may (a group's organisers
#: never write the sheet of ``/`` or of another group).
NOT_THIS_GROUP = (
    "this server's Sheet is written only from the page of the group its host names (RATINGS_SHEET_GROUP), and that "
    "is not this group"
)


# ---------------------------------------------------------------- writes (each checks the role first)


def record(
    slug: str,
    title: str | None,
    game: NewGame,
    *,
    token: str,
    entry: Any,
    secret_key: str,
    correcting: str | None = None,
) -> str:
    """Record ``game`` in the title (or, ``correcting`` a game id, replace that game's date and results: organisers
    only); what to say.  :class:`service.GroupError` when refused or impossible (nothing written then)."""
    if correcting:
        return _correct(slug, title, game, correcting, entry=entry, secret_key=secret_key)
    keys: tuple[str, str] | None = None
    mirrored = False
    with _session() as session:
        group, visitor = _allowed(session, slug, entry, secret_key, "record")
        chosen = _title(group, title)
        # a title whose games live in its Sheet: the game goes there, never into the database
        sheet = (group.name, chosen.name, chosen.sheet, chosen.worksheet) if chosen.sheet else None
        if sheet is None:
            before = _locked_counter(session, group)
            row = service.record_game(session, chosen, game, who=visitor.who, token=token)
            after = service.change_counter(session, group)
            snapshot = _named(session, group, service.Snapshot.of(row))  # the names as a read gives them
            alone = service.changes_since(session, group, before) == 1  # this game, not a repeated submission
            keys = (_key(group, chosen, before), _key(group, chosen, after)) if alone else None
            message = f"Recorded in {group.name}, {chosen.name}, as game '{row.public_id}'."
            mirrored = group.mirror and alone
    if sheet is not None:
        return _record_in_sheet(slug, *sheet, game, token)
    if keys is not None:  # committed, and no other write came between: the cached history grows by this game
        _carry(*keys, _as_game(snapshot))
    if mirrored:  # committed: the group holds the game whatever the Sheet answers
        message += " " + _mirror(slug, game, token)
    return message


def _locked_counter(session: Session, group: Group) -> int:
    """Lock the group for this write and read its change counter, which then stays the group's latest until commit
    (so the write can tell whether it was the only change, and edit the cached history in place)."""
    service.lock_group(session, group.id)
    return service.change_counter(session, group)


def _correct(slug: str, title: str | None, game: NewGame, public_id: str, *, entry: Any, secret_key: str) -> str:
    """Replace the date and results of the title's game ``public_id`` (organisers only); the cached history takes the
    corrected game in place of the old one."""
    with _session() as session:
        group, visitor = _allowed(session, slug, entry, secret_key, "correct")
        chosen = _database_title(group, title)
        before = _locked_counter(session, group)
        row = service.game_named(session, chosen, public_id)
        was_live, moment = not row.deleted, (row.played_on, row.played_time)
        service.correct_game(session, row.id, game, who=visitor.who)
        same = was_live and moment == (row.played_on, row.played_time)
        edit = _game_edit(session, group, chosen, row, was_live, before, in_place=same)
        message = f"Game '{row.public_id}' of {chosen.name} corrected."
    if edit is not None:  # committed, and no other write came between
        _carry_edit(edit)
    return message


def _record_in_sheet(
    slug: str, group: str, title: str, sheet: str, worksheet: str | None, game: NewGame, token: str
) -> str:
    """Append ``game`` to the title's Sheet (the caller has checked the role), once per submission token, through the
    host's Sheet settings (:meth:`sources.model.Sheet.opener`: the service account writes the server's configured
    Sheet only; any other is read through its public link, which cannot be written); the Sheet is then read anew so
    the game shows at once.  :class:`service.GroupError` saying plainly why nothing was written."""
    from ratings.history import HistoryError
    from sources import sheets
    from sources.record import record_game as append

    try:
        config = sheets.load_settings()
        if config.is_configured(sheet, worksheet) and config.can_write and not config.group_may_write(slug):
            raise service.GroupError(f"Not recorded in the title's Google Sheet: {NOT_THIS_GROUP}")
        result = append(Sheet(sheet, worksheet).opener(), game, token=token)
    except sheets.SheetError as exc:
        raise service.GroupError(f"Not recorded in the title's Google Sheet: {exc.message}") from None
    except HistoryError as exc:
        said = "; ".join(str(p) for p in exc.problems)
        raise service.GroupError(f"Not recorded in the title's Google Sheet: {said}") from None
    except DataError as exc:
        raise service.GroupError(f"Not recorded in the title's Google Sheet: {'; '.join(exc.messages)}") from None
    if result.added:
        with contextlib.suppress(DataError):
            Sheet(sheet, worksheet).load(force=True)  # read anew: every worker's next look shows the game
    return f"{group}, {title} (its Google Sheet): {result.message}."


def check_sheet(address: str, tab: str | None) -> None:
    """Read the Google Sheet at ``address`` (its worksheet ``tab``, or the first) as ``/`` reads one, anew;
    :class:`~sources.groups.GroupError` saying why it cannot be a title's source."""
    from sources import sheets

    try:
        sheets.parse_sheet_ref(address, tab)
        Sheet.from_json({"url": address, "worksheet": tab}).load(force=True)
    except sheets.SheetError as exc:
        raise service.GroupError(f"the Sheet cannot be used: {exc.message}") from None
    except DataError as exc:
        raise service.GroupError(f"the Sheet cannot be used: {'; '.join(exc.messages)}") from None


def set_title_sheet(
    slug: str, title: str | None, url: Any, worksheet: Any = None, *, entry: Any, secret_key: str
) -> str:
    """Make the title read its games from the Google Sheet at ``url`` (its ``worksheet``: a tab name or gid, or the
    first), or from the group's database again when ``url`` is empty (organisers only).  The Sheet is read first,
    as ``/`` reads one, so an address that cannot be read is refused with the reason; the games the database holds
    for the title stay there."""
    address = url.strip() if isinstance(url, str) else ""
    tab = worksheet.strip() if isinstance(worksheet, str) and worksheet.strip() else None
    with _session() as session:  # the role first: a visitor's request reads no Sheet
        group, _ = _allowed(session, slug, entry, secret_key, "links")
        _title(group, title)
    if address:
        check_sheet(address, tab)
    with _session() as session:
        group, visitor = _allowed(session, slug, entry, secret_key, "links")
        chosen = _title(group, title)
        service.set_title_sheet(session, chosen, address or None, tab, who=visitor.who)
        if address:
            return (
                f"'{chosen.name}' now reads its games from the Google Sheet; games recorded here are appended to it "
                "(Undo takes this back)."
            )
        return f"'{chosen.name}' reads its games from the group's database again (Undo takes this back)."


def _mirror(slug: str, game: NewGame, token: str) -> str:
    """Append a game just recorded in a group to the server's configured Sheet (the group's opt-in mirror), once per
    submission token (:func:`sources.record.record_game`); what happened, said plainly."""
    from ratings.history import HistoryError
    from sources import sheets
    from sources.record import record_game as append

    try:
        config = sheets.load_settings()
        if config.can_write and not config.group_may_write(slug):
            return f"The Sheet mirror is on, but {NOT_THIS_GROUP}."
        source = sheets.open_configured_source(config) if config.can_write else None
        if source is None:
            return "The Sheet mirror is on, but this server has no Sheet it may write (RATINGS_SHEET, service account)."
        return f"Sheet mirror: {append(source, game, token=token).message}."
    except sheets.SheetError as exc:
        return f"The Sheet mirror failed: {exc} (the game is kept in the group)."
    except HistoryError as exc:
        return f"The Sheet mirror failed: {'; '.join(str(p) for p in exc.problems)} (the game is kept in the group)."


def set_mirror(slug: str, on: bool, *, entry: Any, secret_key: str) -> str:
    """Turn the group's Sheet mirror on or off (organisers only): each game recorded from then on is also appended
    to the server's configured Sheet; corrections, deletions and imports stay in the group's database only."""
    from sources import sheets

    with _session() as session:
        group, _ = _allowed(session, slug, entry, secret_key, "links")
        if on:
            try:
                config = sheets.load_settings()
            except sheets.SheetError as exc:
                raise service.GroupError(str(exc)) from None
            if not (config.configured and config.can_write):
                raise service.GroupError(
                    "this server has no Sheet it may write (RATINGS_SHEET with GOOGLE_SERVICE_ACCOUNT_JSON): "
                    "the mirror stays off"
                )
            if not config.group_may_write(slug):
                raise service.GroupError(NOT_THIS_GROUP + ": the mirror stays off")
        group.mirror = bool(on)
        if on:
            return "Each game recorded from now on is also appended to the server's Sheet."
        return "The Sheet mirror is off: recorded games stay in the group's database only."


def _as_game(snapshot: service.Snapshot) -> Game:
    date, time = read_when(snapshot.date) if snapshot.date else (None, None)
    entries = tuple(HistoryEntry(p, place, team, weight) for p, place, team, weight in snapshot.entries)
    return Game(snapshot.public_id, entries, date, time)


def delete_game(slug: str, title: str | None, public_id: Any, *, entry: Any, secret_key: str) -> str:
    with _session() as session:
        group, visitor = _allowed(session, slug, entry, secret_key, "delete")
        chosen = _database_title(group, title)
        before = _locked_counter(session, group)
        row = service.game_named(session, chosen, public_id)
        service.delete_game(session, row.id, who=visitor.who)
        edit = _game_edit(session, group, chosen, row, True, before)
        message = f"Game '{row.public_id}' deleted (Undo brings it back)."
    if edit is not None:  # committed: the cached history loses the game's entries
        _carry_edit(edit)
    return message


def undo_last(slug: str, *, entry: Any, secret_key: str) -> str:
    """Take back the group's latest change that is not itself taken back."""
    with _session() as session:
        group, visitor = _allowed(session, slug, entry, secret_key, "undo")
        before = _locked_counter(session, group)
        change = service.last_change(session, group)
        if change is None:
            raise service.GroupError("there is no change to undo")
        undone = service.undo(session, change.id, who=visitor.who)
        edit = None
        if undone.game_id is not None and undone.title_id is not None:  # a game's change (not an alias's)
            row, title = session.get(GameRow, undone.game_id), session.get(Title, undone.title_id)
            if row is not None and title is not None:
                prior, now = undone.before or {}, undone.after or {}
                was_live = undone.before is not None and not prior.get("deleted")
                same = was_live and not row.deleted and now.get("date") == prior.get("date")
                edit = _game_edit(session, group, title, row, was_live, before, in_place=same)
        what = "game" if change.game_id is not None else "Sheet setting" if change.action == "sheet" else "alias"
        message = f"Undone: the {change.action} {what} of {change.at:%Y-%m-%d %H:%M} (the log keeps both)."
    if edit is not None:  # committed: the cached history takes the game back as it was
        _carry_edit(edit)
    return message


def declare_alias(slug: str, alias: Any, name: Any, *, entry: Any, secret_key: str) -> str:
    """Make ``alias`` another name of the group's player ``name`` in every title (organisers: an alias changes how
    past games read, as a correction does; a visitor's aliases stay in their own view)."""
    with _session() as session:
        group, visitor = _allowed(session, slug, entry, secret_key, "correct")
        change = service.declare_alias(session, group, alias, name, who=visitor.who)
        assert change.after is not None
        said = f"'{change.after['alias']}' is now '{change.after['player']}'"
        return f"{said} in every game of {group.name} (Undo takes it back)."


def remove_alias(slug: str, alias: Any, *, entry: Any, secret_key: str) -> str:
    with _session() as session:
        group, visitor = _allowed(session, slug, entry, secret_key, "correct")
        change = service.remove_alias(session, group, alias, who=visitor.who)
        assert change.before is not None
        return f"'{change.before['alias']}' is a player of its own again (Undo takes it back)."


def aliases_of(slug: str) -> dict[str, str]:
    """The group's aliases (alias -> player), as every visitor's page reads the games."""
    return _read(slug, service.aliases, {})


def make_link(slug: str, label: Any, *, entry: Any, secret_key: str) -> str:
    """A new member link's token (shown once)."""
    with _session() as session:
        group, _ = _allowed(session, slug, entry, secret_key, "links")
        _, token = service.make_member_link(session, group, label if isinstance(label, str) else "")
        return token


def revoke_link(slug: str, link_id: Any, *, entry: Any, secret_key: str) -> str:
    with _session() as session:
        group, _ = _allowed(session, slug, entry, secret_key, "links")
        link = service.revoke_member_link(session, group, link_id)
        return f"Member link '{link.label}' revoked: it opens nothing from now on."


# ---------------------------------------------------------------- what the page lists


def _read(slug: str, read: Callable[[Session, Group], T], default: T) -> T:
    try:
        with process_sessions()() as session:
            group = service.find_group(session, slug)
            return default if group is None else read(session, group)
    except SQLAlchemyError:
        return default


def links_of(slug: str, *, entry: Any, secret_key: str) -> list[tuple[int, str]]:
    """The group's member links (id, label) for an organiser; nothing for anyone else."""

    def read(session: Session, group: Group) -> list[tuple[int, str]]:
        if not group_may(_visitor(session, group, entry, secret_key).role, "links"):
            return []
        return [(link.id, link.label) for link in service.member_links(session, group)]

    return _read(slug, read, [])


def games_of(slug: str, title: str | None, last: int = 50) -> list[str]:
    """The ids of the title's last ``last`` games, newest first (what an organiser may correct or delete)."""

    def read(session: Session, group: Group) -> list[str]:
        chosen = service.title_named(group, title)
        if chosen is None or chosen.sheet:  # a Sheet's games are corrected in the Sheet
            return []
        return service.recent_games(session, chosen, last)

    return _read(slug, read, [])


def export_files(slug: str, title: str | None) -> tuple[str, str]:
    """The title's history as CSV and the group's change log as JSON: the files ``groups export`` writes."""
    with _session() as session:
        group = _group(session, slug)
        chosen = _title(group, title)
        csv = write_csv(service.history(session, chosen))
        return csv, json.dumps(service.export_manifest(session, group), indent=1)


# ---------------------------------------------------------------- importing a file's games into a title


def _new_games(session: Session, title: Title, history: GameHistory) -> tuple[GameHistory, list[str], list[str]]:
    """The games of ``history`` whose ids ``title`` does not hold yet, the ids it holds already, and the players new
    to the group (names compared by the readers' rule)."""
    taken = set(service.recent_games(session, title, 10**9)) | service.deleted_ids(session, title)
    fresh = [g for g in history.games if g.id not in taken]
    known = service.player_keys(session, title.group_id)
    new_players = sorted(
        {e.player for g in fresh for e in g.entries if name_key(e.player) not in known}, key=str.casefold
    )
    return history.with_games(fresh), [g.id for g in history.games if g.id in taken], new_players


def import_preview(slug: str, title: str | None, history: GameHistory, *, entry: Any, secret_key: str) -> str:
    """What importing ``history`` into the title would change, said plainly (organisers only)."""
    with _session() as session:
        group, _ = _allowed(session, slug, entry, secret_key, "import")
        chosen = _database_title(group, title)
        fresh, skipped, players = _new_games(session, chosen, history)
        if fresh.n_games == 0:
            raise service.GroupError(
                f"every game of the file is in '{chosen.name}' already (same game ids): nothing to import"
            )
        counted = f"{len(fresh.players)} players"
        if players:
            counted += f", {len(players)} new to the group: {_some(players, 10)}"
        parts = [f"{fresh.n_games} games to add to '{chosen.name}' ({counted})"]
        if skipped:
            parts.append(
                f"{len(skipped)} games are in the title already (same id) and are left out: {_some(skipped, 5)}"
            )
        return "; ".join(parts) + "."


def sheet_games(url: Any, worksheet: Any = None) -> tuple[str, str, list[str]]:
    """A Google Sheet's games read as the page reads a Sheet (the same readers, problem list and sheet settings:
    the configured sheet through the service account, any other through its public link), kept on the server by
    content as an upload is: its content id (what the import's confirmation names), its label and the reading's
    warnings.  :class:`DataError` saying what is wrong."""
    from sources.model import Sheet, keep_history

    loaded = Sheet.from_json({"url": url, "worksheet": worksheet}).load()
    return keep_history(loaded.history), loaded.label, list(loaded.warnings)


def import_games(slug: str, title: str | None, history: GameHistory, *, entry: Any, secret_key: str) -> str:
    """Add the games of ``history`` the title does not hold yet (organisers only); what was done."""
    with _session() as session:
        group, visitor = _allowed(session, slug, entry, secret_key, "import")
        chosen = _database_title(group, title)
        fresh, skipped, _ = _new_games(session, chosen, history)
        if fresh.n_games == 0:
            raise service.GroupError(f"every game of the file is in '{chosen.name}' already: nothing was imported")
        count = service.import_history(session, chosen, fresh, who=visitor.who)
        left = f"; {len(skipped)} already there left out" if skipped else ""
        return f"{count} games imported into '{chosen.name}'{left}."


def _some(names: list[str], shown: int) -> str:
    return ", ".join(names[:shown]) + (" ..." if len(names) > shown else "")


def restore(slug: str, manifest: Any, histories: dict[str, GameHistory], *, entry: Any, secret_key: str) -> str:
    """Bring an export (``manifest``: its ``changes.json``; ``histories``: its CSV files read, by file name) into the
    group, as ``groups restore`` does: each title the manifest names (made if missing) gets the games of its file
    that it does not hold yet.  Organisers only; what was done."""
    titles = manifest.get("titles") if isinstance(manifest, dict) else None
    if not isinstance(titles, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in titles.items()):
        raise service.GroupError("changes.json is not a group's export (it names no titles): nothing was restored")
    missing = sorted(set(titles) - set(histories))
    if missing:
        raise service.GroupError(f"the export's files {', '.join(missing)} were not chosen: nothing was restored")
    with _session() as session:
        group, visitor = _allowed(session, slug, entry, secret_key, "import")
        added = 0
        for file, name in titles.items():
            chosen = service.title_named(group, name) or service.add_title(session, group, name)
            fresh, _, _ = _new_games(session, chosen, histories[file])
            if fresh.n_games:
                added += service.import_history(session, chosen, fresh, who=visitor.who)
            session.refresh(group)
        aliased = service.restore_aliases(session, group, manifest.get("aliases"), who=visitor.who)
        sheets = service.restore_sheets(session, group, manifest.get("sheets"), who=visitor.who)
        also = f", {aliased} aliases declared" if aliased else ""
        also += f", {sheets} titles reading their Google Sheet" if sheets else ""
        return (
            f"Restored: {added} games added in {len(titles)} titles{also} (games already there by id were left as "
            "they are)."
        )


#: Most files one restore may bring (a changes.json and a CSV per title).
MAX_EXPORT_FILES = 51


def read_export(files: list[tuple[Any, Any]]) -> tuple[Any, dict[str, GameHistory]]:
    """An export chosen in the page, ``(file name, data URL)`` each: its ``changes.json`` (parsed) and every other
    file read by the upload's reader, by file name; :class:`DataError` saying which file is wrong."""
    import base64
    import binascii

    from ratings import HistoryError
    from sources.uploads import clean_filename, read_upload

    if not files or len(files) > MAX_EXPORT_FILES:
        raise DataError([f"choose the export's changes.json and its CSV files (at most {MAX_EXPORT_FILES} files)"])
    manifest: Any = None
    histories: dict[str, GameHistory] = {}
    for name, contents in files:
        cleaned = clean_filename(name) or "a file"
        if cleaned == "changes.json":
            try:
                text = str(contents).split(",", 1)[1]
                manifest = json.loads(base64.b64decode(text, validate=True)[: 64 << 20])
            except (IndexError, ValueError, binascii.Error):
                raise DataError(["changes.json could not be read as JSON"]) from None
            continue
        try:
            histories[cleaned] = read_upload(contents, cleaned).history
        except HistoryError as exc:
            raise DataError([f"{cleaned}: {p}" for p in exc.problems[:20]] or [f"{cleaned}: {exc}"]) from None
    if manifest is None:
        raise DataError(["the export's changes.json was not among the files chosen"])
    return manifest, histories
