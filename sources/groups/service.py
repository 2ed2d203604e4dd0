"""Everything that reads or writes a group's games: the one writer of the tables in :mod:`sources.groups.schema`.

Each write runs in the caller's session and adds one :class:`~sources.groups.schema.Change` (who, when, what, the
game before and after), so :func:`undo` can take any change back and the log keeps both.  Games are validated by
the rules every reader uses (:func:`sources.record.new_game`: places, names, dates); players are one player when
their names differ only in case or spacing (:func:`ratings.io.names.name_key`).  Who may call which function is the
caller's to check (organisers: everything; members: :func:`record_game`).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import itertools
import re
import secrets
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from sqlalchemy import func, insert, select
from sqlalchemy.orm import Session

from ratings.history import Entry as HistoryEntry
from ratings.history import Game as HistoryGame
from ratings.history import GameHistory
from ratings.io.dates import play_order
from ratings.io.names import clean_name, name_key
from ratings.io.writing import when
from sources.groups import GroupError
from sources.groups.schema import Alias, Base, Change, Entry, Game, Group, MemberLink, Player, Title
from sources.histories import read_when
from sources.record import NewGame

__all__ = [
    "GroupError",
    "Snapshot",
    "add_title",
    "aliases",
    "declare_alias",
    "remove_alias",
    "restore_aliases",
    "restore_sheets",
    "set_title_sheet",
    "change_log",
    "change_counter",
    "changes_since",
    "check_passphrase",
    "correct_game",
    "create_group",
    "deleted_ids",
    "delete_game",
    "export_manifest",
    "export_records",
    "game_named",
    "last_change",
    "lock_group",
    "recent_games",
    "find_group",
    "hash_passphrase",
    "history",
    "import_history",
    "make_member_link",
    "play_ids",
    "player_keys",
    "member_link",
    "member_links",
    "read_title",
    "record_game",
    "revoke_member_link",
    "title_named",
    "undo",
]

#: A group's address: ``/g/<slug>``.
SLUG = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,38}[a-z0-9])?")
#: scrypt's cost (2**14 iterations, 16 MiB): about 50 ms here, per check of a passphrase.
_SCRYPT = {"n": 2**14, "r": 8, "p": 1}


def hash_passphrase(passphrase: str) -> str:
    """A salted scrypt hash of ``passphrase`` (what the database keeps instead of it)."""
    salt = secrets.token_bytes(16)
    digest = hashlib.scrypt(passphrase.encode(), salt=salt, dklen=32, **_SCRYPT)
    return f"scrypt${_SCRYPT['n']}${_SCRYPT['r']}${_SCRYPT['p']}${salt.hex()}${digest.hex()}"


def check_passphrase(group: Group, passphrase: Any) -> bool:
    """Whether ``passphrase`` is the group's organisers' passphrase (compared in constant time)."""
    if not isinstance(passphrase, str) or not passphrase:
        return False
    try:
        _, n, r, p, salt, digest = group.admin_hash.split("$")
        given = hashlib.scrypt(passphrase.encode(), salt=bytes.fromhex(salt), n=int(n), r=int(r), p=int(p), dklen=32)
    except ValueError:
        return False
    return hmac.compare_digest(given.hex(), digest)


def create_group(session: Session, slug: str, name: str, *, titles: Iterable[str] = ()) -> tuple[Group, str]:
    """A new group and its organisers' passphrase (shown once: only its hash is kept)."""
    if not isinstance(slug, str) or not SLUG.fullmatch(slug):
        raise GroupError(
            f"'{slug}' cannot be a group's address: use 1 to 40 lower-case letters, digits and hyphens "
            "(not at either end)"
        )
    if session.scalar(select(Group).where(Group.slug == slug)) is not None:
        raise GroupError(f"there is already a group at /g/{slug}")
    passphrase = secrets.token_urlsafe(18)
    group = Group(slug=slug, name=clean_name(name) or slug, admin_hash=hash_passphrase(passphrase))
    session.add(group)
    session.flush()
    for title in titles:
        add_title(session, group, title)
    return group, passphrase


def find_group(session: Session, slug: str) -> Group | None:
    return session.scalar(select(Group).where(Group.slug == slug))


def add_title(session: Session, group: Group, name: str) -> Title:
    """A game title of ``group`` (Catan, Carcassonne; a racing category)."""
    cleaned = clean_name(name)
    if not cleaned:
        raise GroupError("a game title needs a name")
    if session.scalar(select(Title).where(Title.group_id == group.id, Title.name == cleaned)) is not None:
        raise GroupError(f"the group already has a title '{cleaned}'")
    title = Title(group_id=group.id, name=cleaned)
    session.add(title)
    session.flush()
    return title


#: One entry as the change log keeps it: (player, place, team, weight); place None = did not finish.
Result = tuple[str, int | None, str | None, float]


def _result(entry: Entry | HistoryEntry) -> Result:
    return (entry.player.name if isinstance(entry, Entry) else entry.player, entry.place, entry.team, entry.weight)


@dataclass(frozen=True)
class Snapshot:
    """A game as the change log keeps it: its id, date (as the writers write it, :func:`ratings.io.writing.when`:
    with its time of day where it has one), entries (player, place, team, weight) and whether it is deleted.  In
    JSON an entry without a team and of full weight is ``[player, place]`` (the log's first form)."""

    public_id: str
    date: str | None
    entries: tuple[Result, ...]
    deleted: bool = False

    @classmethod
    def of(cls, game: Game) -> Snapshot:
        moment = HistoryGame(game.public_id, (), game.played_on, game.played_time)
        return cls(game.public_id, when(moment) or None, tuple(_result(e) for e in game.entries), game.deleted)

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.public_id,
            "date": self.date,
            "entries": [
                [p, place] if team is None and w == 1.0 else [p, place, team, w] for p, place, team, w in self.entries
            ],
            "deleted": self.deleted,
        }

    @classmethod
    def from_json(cls, value: dict[str, Any]) -> Snapshot:
        entries: list[Result] = []
        for p, place, *rest in value["entries"]:
            team, weight = (rest + [None, 1.0])[:2]
            entries.append(
                (str(p), None if place is None else int(place), None if team is None else str(team), float(weight))
            )
        return cls(str(value["game"]), value.get("date"), tuple(entries), bool(value.get("deleted")))


def _players(session: Session, group_id: int, names: Iterable[str]) -> dict[str, Player]:
    """The group's players of ``names`` by name key, the missing ones added (one query for those that exist)."""
    wanted = {name_key(n): n for n in names}
    found = {
        p.key: p
        for p in session.scalars(select(Player).where(Player.group_id == group_id, Player.key.in_(list(wanted)))).all()
    }
    new = [Player(group_id=group_id, name=name, key=key) for key, name in wanted.items() if key not in found]
    if new:
        session.add_all(new)
        session.flush()
        found.update((p.key, p) for p in new)
    return found


def _set_entries(session: Session, game: Game, group_id: int, entries: Iterable[Result]) -> None:
    results = list(entries)
    players = _players(session, group_id, (name for name, *_ in results))
    _one_each(session, group_id, [[players[name_key(name)] for name, *_ in results]], [game.public_id])
    game.entries.clear()
    session.flush()
    for name, place, team, weight in results:
        game.entries.append(Entry(player=players[name_key(name)], place=place, team=team, weight=weight))


def _change(
    title: Title, game_id: int | None, who: str, action: str, before: Snapshot | None, after: Snapshot | None
) -> dict[str, Any]:
    """A change-log row's values (the one place they are put together: one change, or a whole import at once)."""
    return {
        "group_id": title.group_id,
        "title_id": title.id,
        "game_id": game_id,
        "at": dt.datetime.now(dt.UTC),
        "who": who,
        "action": action,
        "before": before.to_json() if before else None,
        "after": after.to_json() if after else None,
    }


def _log(
    session: Session,
    title: Title,
    game: Game | None,
    who: str,
    action: str,
    before: Snapshot | None,
    after: Snapshot | None,
    *,
    undoes: int | None = None,
) -> Change:
    change = Change(**_change(title, game.id if game is not None else None, who, action, before, after), undoes=undoes)
    session.add(change)
    session.flush()
    return change


def lock_group(session: Session, group_id: int) -> None:
    """Hold the group's row until the transaction ends, so the group's writes run one at a time (PostgreSQL; SQLite
    lets one writer in at a time anyway): a new game's position, and the order of the change counter, are then the
    order the writes are committed in."""
    session.execute(select(Group.id).where(Group.id == group_id).with_for_update())


def record_game(
    session: Session, title: Title, game: NewGame, *, who: str, public_id: str | None = None, token: str | None = None
) -> Game:
    """Add ``game`` (validated by :func:`sources.record.new_game`) to ``title``'s history.

    ``token``: the form's submission token (:func:`sources.record.new_submission_token`); a second submission with
    the same token (a double click, a retried request) returns the game the first one added and adds nothing.
    """
    lock_group(session, title.group_id)
    note = f"submission {token}" if token else None
    if note is not None:
        done = session.scalar(
            select(Change.game_id).where(Change.group_id == title.group_id, Change.note == note).limit(1)
        )
        if done is not None:
            return _game(session, done)[0]
    row = _add(session, title, game, who=who, public_id=public_id, action="added")
    if note is not None:
        change = session.scalars(select(Change).where(Change.game_id == row.id).order_by(Change.id.desc())).first()
        assert change is not None
        change.note = note
    return row


def _add(session: Session, title: Title, game: NewGame, *, who: str, public_id: str | None, action: str) -> Game:
    position = (session.scalar(select(func.max(Game.position)).where(Game.title_id == title.id)) or 0) + 1
    game_id = clean_name(public_id) if public_id else f"g{position}"
    if session.scalar(select(Game).where(Game.title_id == title.id, Game.public_id == game_id)) is not None:
        raise GroupError(f"'{title.name}' already has a game '{game_id}'")
    row = Game(
        title_id=title.id,
        public_id=game_id,
        played_on=game.date,
        played_time=game.time,
        position=position,
        deleted=False,
    )
    session.add(row)
    session.flush()
    _set_entries(session, row, title.group_id, (_result(e) for e in game.entries))
    _log(session, title, row, who, action, None, Snapshot.of(row))
    return row


def _game(session: Session, game_id: int) -> tuple[Game, Title]:
    game = session.get(Game, game_id)
    if game is None:
        raise GroupError(f"there is no game {game_id}")
    title = session.get(Title, game.title_id)
    assert title is not None
    return game, title


def correct_game(session: Session, game_id: int, game: NewGame, *, who: str) -> Game:
    """Replace the date and results of a recorded game (the log keeps both)."""
    row, title = _game(session, game_id)
    lock_group(session, title.group_id)
    if row.deleted:
        raise GroupError(f"game '{row.public_id}' is deleted: undo the deletion to correct it")
    before = Snapshot.of(row)
    row.played_on, row.played_time = game.date, game.time
    _set_entries(session, row, title.group_id, (_result(e) for e in game.entries))
    session.flush()
    _log(session, title, row, who, "corrected", before, Snapshot.of(row))
    return row


def delete_game(session: Session, game_id: int, *, who: str) -> None:
    """Take a game out of the history (kept, marked deleted; :func:`undo` brings it back)."""
    row, title = _game(session, game_id)
    lock_group(session, title.group_id)
    if row.deleted:
        raise GroupError(f"game '{row.public_id}' is already deleted")
    before = Snapshot.of(row)
    row.deleted = True
    _log(session, title, row, who, "deleted", before, Snapshot.of(row))


def _restore(session: Session, row: Game, title: Title, state: Snapshot) -> None:
    row.played_on, row.played_time = read_when(state.date) if state.date else (None, None)
    row.deleted = state.deleted
    _set_entries(session, row, title.group_id, state.entries)


def undo(session: Session, change_id: int, *, who: str) -> Change:
    """Take back change ``change_id``: the game returns to how it was before it (an added game is deleted).  The
    undoing is itself a change, so it can be undone in turn."""
    change = session.get(Change, change_id)
    if change is not None and change.game_id is None and "alias" in (change.before or change.after or {}):
        return _undo_alias(session, change, who=who)
    if change is not None and change.game_id is None and "sheet" in (change.before or change.after or {}):
        return _undo_sheet(session, change, who=who)
    if change is None or change.game_id is None:
        raise GroupError(f"there is no change {change_id} to undo")
    row, title = _game(session, change.game_id)
    lock_group(session, title.group_id)
    before = Snapshot.of(row)
    if change.before is None:  # it added the game: taking it back deletes it
        row.deleted = True
    else:
        _restore(session, row, title, Snapshot.from_json(change.before))
    session.flush()
    return _log(session, title, row, who, "undone", before, Snapshot.of(row), undoes=change.id)


def history(session: Session, title: Title) -> GameHistory:
    """``title``'s games (not deleted) as a :class:`~ratings.history.GameHistory` (:func:`read_title`)."""
    return read_title(session, title)[0]


def read_title(session: Session, title: Title) -> tuple[GameHistory, bool]:
    """``title``'s games (not deleted) as a :class:`~ratings.history.GameHistory`, in recording order re-ordered by
    date where every game has one (:func:`ratings.io.dates.play_order`, the rule every reader orders games by).

    A free-for-all title is read as columns straight into the history's flat arrays
    (:meth:`GameHistory.from_columns`, as the column reader of a large upload builds them): one query for the games,
    one for the entries' integers, one for the names; no object per entry.  A title with teams or partial weights,
    a game that repeats a player, or games with times of day (``GameHistory.from_columns`` takes dates only), is
    read as records by the readers' rules (:func:`_history_from_records`, which names a repeated player's game).
    The flag: whether it was read as columns (then its games are free-for-all, without times, and not yet made as
    objects)."""
    live = (Game.title_id == title.id, Game.deleted.is_(False))
    special = (Entry.team.is_not(None)) | (Entry.weight != 1.0)
    if session.scalar(select(Entry.id).join(Game, Game.id == Entry.game_id).where(*live, special).limit(1)):
        return _history_from_records(session, title), False
    games = session.execute(
        select(Game.id, Game.public_id, Game.played_on, Game.played_time).where(*live).order_by(Game.position, Game.id)
    ).all()
    if any(g[3] is not None for g in games):  # times of day: the flat arrays have no place for them
        return _history_from_records(session, title), False
    # the entries' three integers as they come from the driver (the ORM's rows cost a lookup per value)
    flat = session.connection().execute(
        select(Entry.game_id, Entry.player_id, func.coalesce(Entry.place, 0))  # did not finish: place 0
        .join(Game, Game.id == Entry.game_id)
        .where(*live)
        .order_by(Game.position, Game.id, Entry.id)
    )
    values = np.fromiter(itertools.chain.from_iterable(flat), dtype=np.int64)
    columns = values.reshape(len(values) // 3, 3)
    merged = _merged(session, title.group_id)
    if merged:  # an alias's entries are its player's
        ids = np.fromiter(merged, dtype=np.int64, count=len(merged))
        into = np.fromiter(merged.values(), dtype=np.int64, count=len(merged))
        by_id = np.argsort(ids)
        at = np.searchsorted(ids, columns[:, 1], sorter=by_id).clip(0, len(ids) - 1)
        hit = ids[by_id[at]] == columns[:, 1]
        columns[hit, 1] = into[by_id[at[hit]]]
    read = _from_columns(session, title, games, columns)
    return (read, True) if read is not None else (_history_from_records(session, title), False)


def play_ids(session: Session, title: Title) -> tuple[tuple[str, ...], str | None]:
    """The ids of ``title``'s games (not deleted) in the order :func:`read_title` reads them, and the note that
    order brings (:func:`ratings.io.dates.play_order`'s, for games listed newest first): one query of the games'
    ids, dates and times, no entry (what a cached history is checked against after one game changed)."""
    rows = session.execute(
        select(Game.public_id, Game.played_on, Game.played_time)
        .where(Game.title_id == title.id, Game.deleted.is_(False))
        .order_by(Game.position, Game.id)
    ).all()
    order, note = play_order([r[1] for r in rows], [r[2] for r in rows])
    return tuple(rows[i][0] for i in order), note


def _from_columns(session: Session, title: Title, games: Sequence[Any], columns: np.ndarray) -> GameHistory | None:
    """The history of the games' rows (internal id, public id, date; in recording order) and the entries' columns
    (game's internal id, player id, place with 0 for did-not-finish; grouped by game in the games' order); ``None``
    when a game repeats a player."""
    game_ids = np.fromiter((g[0] for g in games), dtype=np.int64, count=len(games))
    by_id = np.argsort(game_ids)
    game_of = by_id[np.searchsorted(game_ids, columns[:, 0], sorter=by_id)]  # each entry's game, in recording order
    sizes = np.bincount(game_of, minlength=len(games))
    kept = np.flatnonzero(sizes)  # a game without entries is no game (as a file's records cannot hold one)
    dates: list[dt.date | None] = [games[g][2] for g in kept.tolist()]
    order, note = play_order(dates, [None] * len(dates))
    renumber = np.full(len(games), -1, dtype=np.int64)
    renumber[kept[np.asarray(order, dtype=np.int64)]] = np.arange(len(kept))
    final = renumber[game_of]
    rows = np.argsort(final, kind="stable")  # entries of each game keep their order
    player_ids, flat_player = np.unique(columns[rows, 1], return_inverse=True)
    flat_place = columns[rows, 2].astype(np.int32)
    offsets = np.zeros(len(kept) + 1, dtype=np.int64)
    np.cumsum(np.bincount(final, minlength=len(kept)), out=offsets[1:])
    pairs = np.sort(final[rows] * len(player_ids) + flat_player)
    if np.any(pairs[1:] == pairs[:-1]):
        return None
    names = dict(session.execute(select(Player.id, Player.name).where(Player.group_id == title.group_id)).all())
    by_order = kept[np.asarray(order, dtype=np.int64)].tolist()
    return GameHistory.from_columns(
        [games[g][1] for g in by_order],
        [games[g][2] for g in by_order],
        offsets,
        flat_player.astype(np.int32),
        flat_place,
        [names[p] for p in player_ids.tolist()],
        [note] if note else [],
    )


def _history_from_records(session: Session, title: Title) -> GameHistory:
    """``title``'s games read as long-shape records by the readers' rules (teams and weights; a repeated player
    reported by game)."""
    merged = _merged(session, title.group_id)
    names = dict(session.execute(select(Player.id, Player.name).where(Player.group_id == title.group_id)).all())
    rows = [
        (g, d, t, names[merged.get(p, p)], place, team, w)
        for g, d, t, p, place, team, w in session.execute(
            select(
                Game.public_id, Game.played_on, Game.played_time, Entry.player_id, Entry.place, Entry.team, Entry.weight
            )
            .join(Entry, Entry.game_id == Game.id)
            .where(Game.title_id == title.id, Game.deleted.is_(False))
            .order_by(Game.position, Game.id, Entry.id)
        ).all()
    ]
    teams = any(team is not None or weight != 1.0 for *_, team, weight in rows)
    return GameHistory.from_records(
        [
            {
                "game": g,
                "date": d if t is None or d is None else dt.datetime.combine(d, t),
                "player": p,
                "place": place,
                **({"team": team, "weight": w} if teams else {}),
            }
            for g, d, t, p, place, team, w in rows
        ]
    )


def export_records(session: Session, title: Title) -> list[dict[str, Any]]:
    """``title``'s history as long-shape records (the rows of its CSV export; DNF as no place; ``team`` and
    ``weight`` when some entry has a team or a partial weight)."""
    return history(session, title).to_records()


def import_history(session: Session, title: Title, imported: GameHistory, *, who: str) -> int:
    """Add every game of ``imported`` to ``title`` (ids kept; a game id already there is refused before anything is
    written), each logged as imported; the number of games added.  Written in a few statements, not one per game."""
    lock_group(session, title.group_id)
    taken = set(session.scalars(select(Game.public_id).where(Game.title_id == title.id)).all())
    clash = [g.id for g in imported.games if g.id in taken]
    if clash:
        raise GroupError(f"'{title.name}' already has games {', '.join(clash[:5])}; nothing was imported")
    players = _players(session, title.group_id, imported.players)
    _one_each(
        session,
        title.group_id,
        [[players[name_key(e.player)] for e in g.entries] for g in imported.games],
        [g.id for g in imported.games],
    )
    start = session.scalar(select(func.max(Game.position)).where(Game.title_id == title.id)) or 0
    games = [
        {
            "title_id": title.id,
            "public_id": g.id,
            "played_on": g.date,
            "played_time": g.time,
            "position": start + i + 1,
            "deleted": False,
        }
        for i, g in enumerate(imported.games)
    ]
    ids = session.scalars(insert(Game).returning(Game.id, sort_by_parameter_order=True), games).all()
    entries: list[dict[str, Any]] = []
    changes: list[dict[str, Any]] = []
    for game_id, game in zip(ids, imported.games, strict=True):
        results = tuple(_result(e) for e in game.entries)
        entries += [
            {
                "game_id": game_id,
                "player_id": players[name_key(e.player)].id,
                "place": e.place,
                "team": e.team,
                "weight": e.weight,
            }
            for e in game.entries
        ]
        after = Snapshot(game.id, when(game) or None, results)
        changes.append(_change(title, game_id, who, "imported", None, after))
    # Core inserts of the tables, one executemany each (the ORM's bulk path split them into a statement per few rows)
    for table in (Base.metadata.tables["entries"], Base.metadata.tables["changes"]):
        session.execute(insert(table), entries if table.name == "entries" else changes)
    return imported.n_games


def change_log(session: Session, group: Group) -> list[Change]:
    """Every change of ``group``, oldest first."""
    return list(session.scalars(select(Change).where(Change.group_id == group.id).order_by(Change.id)).all())


def change_counter(session: Session, group: Group) -> int:
    """The group's latest change (0 before the first): every write raises it, so what is derived from a title's
    games is cached under it and a recorded game invalidates the cache (one indexed query)."""
    return session.scalar(select(func.max(Change.id)).where(Change.group_id == group.id)) or 0


def changes_since(session: Session, group: Group, counter: int) -> int:
    """How many changes the group has had after change ``counter``."""
    query = select(func.count()).select_from(Change).where(Change.group_id == group.id, Change.id > counter)
    return session.scalar(query) or 0


def title_named(group: Group, name: str | None) -> Title | None:
    """The group's title called ``name`` (its first title for ``None``); ``None`` when it has no such title."""
    if name is None:
        return group.titles[0] if group.titles else None
    return next((t for t in group.titles if t.name == name), None)


def _token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def make_member_link(session: Session, group: Group, label: str) -> tuple[MemberLink, str]:
    """A new member link of ``group`` and its secret token (shown once: only its SHA-256 is kept)."""
    token = secrets.token_urlsafe(24)  # 192 random bits: a fast hash cannot be searched backwards
    link = MemberLink(group_id=group.id, token_hash=_token_hash(token), label=clean_name(label) or "member")
    session.add(link)
    session.flush()
    return link, token


def member_link(session: Session, group: Group, token: Any) -> MemberLink | None:
    """The group's member link whose token is ``token``, while it is not revoked; else ``None``."""
    if not isinstance(token, str) or not token or len(token) > 200:
        return None
    link = session.scalar(select(MemberLink).where(MemberLink.token_hash == _token_hash(token)))
    if link is None or link.group_id != group.id or link.revoked_at is not None:
        return None
    return link


def member_links(session: Session, group: Group) -> list[MemberLink]:
    """The group's member links not revoked, oldest first."""
    return list(
        session.scalars(
            select(MemberLink)
            .where(MemberLink.group_id == group.id, MemberLink.revoked_at.is_(None))
            .order_by(MemberLink.id)
        ).all()
    )


def revoke_member_link(session: Session, group: Group, link_id: Any) -> MemberLink:
    """Revoke one of the group's member links: it opens nothing from now on."""
    link = session.get(MemberLink, link_id) if isinstance(link_id, int) and not isinstance(link_id, bool) else None
    if link is None or link.group_id != group.id:
        raise GroupError("there is no such member link in this group")
    if link.revoked_at is None:
        link.revoked_at = dt.datetime.now(dt.UTC)
    return link


def game_named(session: Session, title: Title, public_id: Any) -> Game:
    """The title's game whose id is ``public_id`` (deleted or not); :class:`GroupError` when there is none."""
    row = (
        session.scalar(select(Game).where(Game.title_id == title.id, Game.public_id == public_id))
        if isinstance(public_id, str)
        else None
    )
    if row is None:
        raise GroupError(f"'{title.name}' has no game '{str(public_id)[:40]}'")
    return row


def recent_games(session: Session, title: Title, last: int) -> list[str]:
    """The ids of the title's last ``last`` games not deleted, newest first."""
    return list(
        session.scalars(
            select(Game.public_id)
            .where(Game.title_id == title.id, Game.deleted.is_(False))
            .order_by(Game.position.desc())
            .limit(last)
        ).all()
    )


def last_change(session: Session, group: Group) -> Change | None:
    """The group's latest change that is neither an undo nor taken back by one (what Undo takes back next)."""
    undone = select(Change.undoes).where(Change.group_id == group.id, Change.undoes.is_not(None))
    return session.scalars(
        select(Change)
        .where(
            Change.group_id == group.id,
            Change.game_id.is_not(None) | Change.action.in_((*ALIAS_ACTIONS, SHEET_ACTION)),
            Change.action != "undone",
            Change.id.not_in(undone),
        )
        .order_by(Change.id.desc())
        .limit(1)
    ).first()


def export_manifest(session: Session, group: Group) -> dict[str, Any]:
    """The group's ``changes.json``: its name, its titles by CSV file name, and every change (what ``groups export``
    writes beside the titles' CSV files, and the page offers for download)."""
    names = {t.id: t.name for t in group.titles}
    log = [
        {
            "id": c.id,
            "at": c.at.isoformat(),
            "who": c.who,
            "action": c.action,
            "title": names.get(c.title_id) if c.title_id is not None else None,
            "before": c.before,
            "after": c.after,
            "undoes": c.undoes,
        }
        for c in change_log(session, group)
    ]
    titles = {title_file(t.name) + ".csv": t.name for t in group.titles}
    merged = aliases(session, group)
    sheets = {t.name: {"sheet": t.sheet, "worksheet": t.worksheet} for t in group.titles if t.sheet}
    return {
        "group": group.slug,
        "name": group.name,
        "titles": titles,
        "aliases": merged,
        "sheets": sheets,
        "changes": log,
    }


def title_file(title: str) -> str:
    """A title's file name stem in an export (the title's name with what a file system may refuse replaced)."""
    return re.sub(r"[^A-Za-z0-9._ -]+", "_", title).strip(" .") or "title"


def deleted_ids(session: Session, title: Title) -> set[str]:
    """The ids of the title's deleted games (still taken: undo may bring them back)."""
    return set(session.scalars(select(Game.public_id).where(Game.title_id == title.id, Game.deleted.is_(True))).all())


def player_keys(session: Session, group_id: int) -> set[str]:
    """The name keys of the group's players (:func:`ratings.io.names.name_key`)."""
    return set(session.scalars(select(Player.key).where(Player.group_id == group_id)).all())


# ---------------------------------------------------------------- aliases: another name of one of the group's players

#: The change-log actions of aliases (their ``before`` and ``after``: ``{"alias", "player"}`` or None).
ALIAS_ACTIONS = ("aliased", "unaliased")


def aliases(session: Session, group: Group) -> dict[str, str]:
    """The group's aliases: each alias (as declared) and the name of the player it is, by alias."""
    rows = session.execute(
        select(Alias.alias, Player.name)
        .join(Player, Player.id == Alias.player_id)
        .where(Alias.group_id == group.id)
        .order_by(Alias.alias)
    ).all()
    return {alias: name for alias, name in rows}


def _merged(session: Session, group_id: int) -> dict[int, int]:
    """Player id -> the id of the player it is an alias of (only players whose name is an alias)."""
    rows = session.execute(
        select(Player.id, Alias.player_id)
        .join(Alias, (Alias.group_id == Player.group_id) & (Alias.key == Player.key))
        .where(Player.group_id == group_id)
    ).all()
    return {alias: player for alias, player in rows}


def _one_each(session: Session, group_id: int, games: list[list[Player]], ids: list[str]) -> None:
    """Refuse games in which two names are one player of the group (one an alias of the other)."""
    merged = _merged(session, group_id)
    if not merged:
        return
    for players, game_id in zip(games, ids, strict=True):
        seen: dict[int, str] = {}
        for player in players:
            one = merged.get(player.id, player.id)
            if one in seen:
                raise GroupError(
                    f"game '{game_id}': '{seen[one]}' and '{player.name}' are one player in this group (an alias); "
                    "nothing was written"
                )
            seen[one] = player.name


def declare_alias(session: Session, group: Group, alias: Any, name: Any, *, who: str) -> Change:
    """Make ``alias`` another name of the group's player ``name``: every game of every title, past and future, reads
    the alias as that player.  Logged (``aliased``), undone by :func:`undo`."""
    alias_text = clean_name(alias if isinstance(alias, str) else "")
    name_text = clean_name(name if isinstance(name, str) else "")
    if not alias_text or not name_text:
        raise GroupError("an alias needs both names: the other name and the player's name")
    if name_key(alias_text) == name_key(name_text):
        raise GroupError(f"'{alias_text}' and '{name_text}' are one name already (case and spacing aside)")
    lock_group(session, group.id)
    return _set_alias(session, group, alias_text, name_text, who=who, action="aliased")


def _set_alias(session: Session, group: Group, alias: str, name: str, *, who: str, action: str) -> Change:
    existing = aliases(session, group)
    keys = {name_key(a): (a, p) for a, p in existing.items()}
    if name_key(alias) in keys:
        raise GroupError(f"'{alias}' is already an alias of '{keys[name_key(alias)][1]}'")
    if name_key(name) in keys:
        a, p = keys[name_key(name)]
        raise GroupError(f"'{a}' is itself an alias of '{p}': make '{alias}' an alias of '{p}'")
    target = session.scalar(select(Player).where(Player.group_id == group.id, Player.key == name_key(name)))
    if target is None:
        raise GroupError(f"the group has no player '{name}'")
    others = sorted(a for a, p in existing.items() if name_key(p) == name_key(alias))
    if others:
        raise GroupError(f"'{alias}' has aliases of its own ({', '.join(others)}): remove them first")
    other = session.scalar(select(Player).where(Player.group_id == group.id, Player.key == name_key(alias)))
    if other is not None:
        both = (
            select(Game.public_id, Title.name)
            .join(Title, Title.id == Game.title_id)
            .where(
                Game.deleted.is_(False),
                Game.id.in_(select(Entry.game_id).where(Entry.player_id == other.id)),
                Game.id.in_(select(Entry.game_id).where(Entry.player_id == target.id)),
            )
            .limit(1)
        )
        found = session.execute(both).first()
        if found is not None:
            raise GroupError(
                f"'{alias}' and '{target.name}' both play in game '{found[0]}' of {found[1]}: they cannot be one player"
            )
    session.add(Alias(group_id=group.id, alias=alias, key=name_key(alias), player_id=target.id))
    change = Change(
        group_id=group.id, who=who, action=action, before=None, after={"alias": alias, "player": target.name}
    )
    session.add(change)
    session.flush()
    return change


def remove_alias(session: Session, group: Group, alias: Any, *, who: str, action: str = "unaliased") -> Change:
    """Take back the alias ``alias``: its games read it as a player of its own again.  Logged, undoable."""
    lock_group(session, group.id)
    key = name_key(clean_name(alias if isinstance(alias, str) else ""))
    row = session.scalar(select(Alias).where(Alias.group_id == group.id, Alias.key == key)) if key else None
    if row is None:
        raise GroupError(f"'{str(alias)[:40]}' is not an alias in this group")
    player = session.get(Player, row.player_id)
    assert player is not None
    before = {"alias": row.alias, "player": player.name}
    session.delete(row)
    change = Change(group_id=group.id, who=who, action=action, before=before, after=None)
    session.add(change)
    session.flush()
    return change


def _undo_alias(session: Session, change: Change, *, who: str) -> Change:
    """Take back an alias change: the alias as it was before it (declared again, or removed)."""
    group = session.get(Group, change.group_id)
    assert group is not None
    lock_group(session, group.id)
    if change.before is None and change.after is not None:  # it declared the alias: remove it
        undone = remove_alias(session, group, change.after["alias"], who=who, action="undone")
    elif change.before is not None:  # it removed the alias: declare it again
        undone = _set_alias(
            session, group, str(change.before["alias"]), str(change.before["player"]), who=who, action="undone"
        )
    else:
        raise GroupError(f"there is no change {change.id} to undo")
    undone.undoes = change.id
    session.flush()
    return undone


def restore_aliases(session: Session, group: Group, declared: Any, *, who: str) -> int:
    """Declare the aliases of an export's ``changes.json`` (``aliases``: alias -> player) that the group does not
    hold yet; how many (an export made before aliases were exported has none)."""
    if declared is None:
        return 0
    if not isinstance(declared, dict) or not all(isinstance(v, str) for v in declared.values()):
        raise GroupError("changes.json's aliases are not an alias -> player table: nothing was restored")
    held = {name_key(a) for a in aliases(session, group)}
    count = 0
    for alias, player in declared.items():
        if name_key(str(alias)) not in held:
            declare_alias(session, group, alias, player, who=who)
            count += 1
    return count


# ---------------------------------------------------------------- a title whose games live in a Google Sheet

#: The change-log action of a title's Sheet setting (its ``before`` and ``after``: ``{"title", "sheet",
#: "worksheet"}``, ``sheet`` None for the database).
SHEET_ACTION = "sheet"


def set_title_sheet(session: Session, title: Title, sheet: str | None, worksheet: str | None, *, who: str) -> Change:
    """Make ``title`` read its games from the Google Sheet ``sheet`` (its ``worksheet``; the caller has checked the
    address), or from the database again for ``None``.  The games the database holds for the title stay there
    untouched either way.  Logged (``sheet``), undone by :func:`undo`."""
    lock_group(session, title.group_id)
    before = {"title": title.name, "sheet": title.sheet, "worksheet": title.worksheet}
    title.sheet, title.worksheet = sheet, worksheet if sheet else None
    after = {"title": title.name, "sheet": title.sheet, "worksheet": title.worksheet}
    if before == after:
        raise GroupError(
            f"'{title.name}' reads its games from that Sheet already"
            if sheet
            else f"'{title.name}' reads its games from the group's database already"
        )
    change = Change(
        group_id=title.group_id, title_id=title.id, who=who, action=SHEET_ACTION, before=before, after=after
    )
    session.add(change)
    session.flush()
    return change


def _undo_sheet(session: Session, change: Change, *, who: str) -> Change:
    """Take back a Sheet setting: the title reads its games where it read them before it."""
    title = session.get(Title, change.title_id) if change.title_id is not None else None
    if title is None or change.before is None:
        raise GroupError(f"there is no change {change.id} to undo")
    sheet, worksheet = change.before.get("sheet"), change.before.get("worksheet")
    undone = set_title_sheet(
        session,
        title,
        sheet if isinstance(sheet, str) else None,
        worksheet if isinstance(worksheet, str) else None,
        who=who,
    )
    undone.action, undone.undoes = "undone", change.id
    session.flush()
    return undone


def restore_sheets(session: Session, group: Group, declared: Any, *, who: str) -> int:
    """Set the Sheets of an export's ``changes.json`` (``sheets``: title name -> ``{"sheet", "worksheet"}``) on the
    group's titles of those names that read from the database; how many (an export made before Sheets were
    exported has none)."""
    if declared is None:
        return 0
    if not isinstance(declared, dict) or not all(
        isinstance(v, dict) and isinstance(v.get("sheet"), str) and isinstance(v.get("worksheet"), str | None)
        for v in declared.values()
    ):
        raise GroupError("changes.json's sheets are not a title -> Sheet table: nothing was restored")
    count = 0
    for name, where in declared.items():
        title = title_named(group, str(name))
        if title is not None and title.sheet is None:
            set_title_sheet(session, title, where["sheet"], where["worksheet"], who=who)
            count += 1
    return count
