"""The tables of a group's home (SQLAlchemy 2 declarative mapping).

A *group* (a poker night, a club) has *titles* (the games it plays: Catan, Carcassonne; or a racing community's
categories), *players* and their *aliases*, and *member links* (secret links that may record games).  A *game*
belongs to one title, has a date (and a time of day where one was given) and holds its *entries* (player, place;
DNF as no place; an optional team and weight).  Every write is a row of the append-only *changes* table: who, when,
what (added, corrected, deleted, imported, undone), with the game as it was before and after, so any change can be
undone and nothing is ever lost.  Games are never removed, only marked deleted.
"""

from __future__ import annotations

import datetime as dt

from sqlalchemy import (
    JSON,
    Boolean,
    Date,
    DateTime,
    Float,
    ForeignKey,
    Integer,
    String,
    Text,
    Time,
    UniqueConstraint,
    false,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

__all__ = ["Alias", "Base", "Change", "Entry", "Game", "Group", "MemberLink", "Player", "Title"]


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


class Base(DeclarativeBase):
    pass


class Group(Base):
    __tablename__ = "groups"

    id: Mapped[int] = mapped_column(primary_key=True)
    slug: Mapped[str] = mapped_column(String(40), unique=True)
    name: Mapped[str] = mapped_column(String(200))
    #: The organisers' passphrase as a salted scrypt hash (never the passphrase).
    admin_hash: Mapped[str] = mapped_column(String(300))
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=_now)
    #: Whether each game recorded in the group is also appended to the server's configured Sheet (opt-in).
    mirror: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())

    titles: Mapped[list[Title]] = relationship(back_populates="group", order_by="Title.id")


class MemberLink(Base):
    """A secret link that may record games (not correct or delete them); revoked, it opens nothing."""

    __tablename__ = "member_links"

    id: Mapped[int] = mapped_column(primary_key=True)
    group_id: Mapped[int] = mapped_column(ForeignKey("groups.id"), index=True)
    #: SHA-256 of the link's token (a random 128-bit token needs no salt or slow hash).
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    label: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=_now)
    revoked_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True))


class Title(Base):
    __tablename__ = "titles"
    __table_args__ = (UniqueConstraint("group_id", "name"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    group_id: Mapped[int] = mapped_column(ForeignKey("groups.id"), index=True)
    name: Mapped[str] = mapped_column(String(200))
    #: The Google Sheet the title's games are read from (its address and worksheet), instead of the database's
    #: games; ``None``: the database holds them.
    sheet: Mapped[str | None] = mapped_column(String(500))
    worksheet: Mapped[str | None] = mapped_column(String(200))

    group: Mapped[Group] = relationship(back_populates="titles")


class Player(Base):
    __tablename__ = "players"
    __table_args__ = (UniqueConstraint("group_id", "key"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    group_id: Mapped[int] = mapped_column(ForeignKey("groups.id"), index=True)
    name: Mapped[str] = mapped_column(String(200))
    #: The name's key (``ratings.io.names.name_key``): names that differ only in case or spacing are one player.
    key: Mapped[str] = mapped_column(String(200))


class Alias(Base):
    __tablename__ = "aliases"
    __table_args__ = (UniqueConstraint("group_id", "key"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    group_id: Mapped[int] = mapped_column(ForeignKey("groups.id"), index=True)
    alias: Mapped[str] = mapped_column(String(200))
    key: Mapped[str] = mapped_column(String(200))
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"))


class Game(Base):
    __tablename__ = "games"
    __table_args__ = (UniqueConstraint("title_id", "public_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    title_id: Mapped[int] = mapped_column(ForeignKey("titles.id"), index=True)
    #: The game's id as the group sees it (a file's game column, or given when recorded).
    public_id: Mapped[str] = mapped_column(String(200))
    played_on: Mapped[dt.date | None] = mapped_column(Date)
    #: The time of day it was played, where the file or the form gave one (games of a date are played by it).
    played_time: Mapped[dt.time | None] = mapped_column(Time)
    #: Order of recording: games of one date are replayed in this order.
    position: Mapped[int] = mapped_column(Integer)
    deleted: Mapped[bool] = mapped_column(Boolean, default=False)

    entries: Mapped[list[Entry]] = relationship(
        back_populates="game", order_by="Entry.id", cascade="all, delete-orphan"
    )


class Entry(Base):
    __tablename__ = "entries"

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id"), index=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"))
    #: 1 is best, equal places tie; None: did not finish.
    place: Mapped[int | None] = mapped_column(Integer)
    team: Mapped[str | None] = mapped_column(String(200))
    weight: Mapped[float] = mapped_column(Float, default=1.0)

    game: Mapped[Game] = relationship(back_populates="entries")
    player: Mapped[Player] = relationship()


class Change(Base):
    """One write, kept for ever: ``before`` and ``after`` are the game as JSON (None where it did not exist)."""

    __tablename__ = "changes"

    id: Mapped[int] = mapped_column(primary_key=True)
    group_id: Mapped[int] = mapped_column(ForeignKey("groups.id"), index=True)
    title_id: Mapped[int | None] = mapped_column(ForeignKey("titles.id"))
    game_id: Mapped[int | None] = mapped_column(ForeignKey("games.id"))
    at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=_now)
    who: Mapped[str] = mapped_column(String(200))
    action: Mapped[str] = mapped_column(String(20))
    before: Mapped[dict[str, object] | None] = mapped_column(JSON)
    after: Mapped[dict[str, object] | None] = mapped_column(JSON)
    undoes: Mapped[int | None] = mapped_column(ForeignKey("changes.id"))
    note: Mapped[str | None] = mapped_column(Text)
