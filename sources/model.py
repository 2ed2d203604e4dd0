"""Where a game history comes from: typed sources, each with a key, a label, a JSON form and ``load()``.

- :class:`Sample`: a bundled sample, by name.
- :class:`Sheet`: a Google Sheet (address, worksheet), read through :mod:`sources.sheets`; the last good copy lives
  in the shared store (:mod:`sources.histories`), so every worker sees a recorded game at once.
- :class:`Upload`: an uploaded file, kept on the server by content id; the file name is the user's own.
- :class:`Edited`: a what-if edit of another source, kept on the server by content id.
- :class:`GroupTitle`: a game title of a group kept in the database (``/g/<slug>``), read through
  :mod:`sources.groups.pages`.

Each kind is registered by :func:`source_kind` and says itself how a link names it (``query``/``from_query``), what
a link to it holds, and, for a kind typed in the data card's address box, which addresses it takes
(``from_address``, :func:`source_at`): a new kind read from an address is one class here (README's recipe).

A source in a browser store or an address is untrusted JSON: :func:`parse_source` turns it into one of these or
raises :class:`DataError` with a plain message.  ``load()`` returns a :class:`Loaded` (the history, the key runs are
cached under, the label, warnings) or raises :class:`DataError` with every problem found.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, Literal, TypeVar

from ratings import GameHistory, HistoryError
from sources import answers
from sources.forksafe import ForkSafeLock
from sources.histories import CONTENT_ID, MissingHistory, fetch, keep
from sources.store import StoreError, shared_store

__all__ = [
    "LRU",
    "DataError",
    "Edited",
    "GroupTitle",
    "Loaded",
    "Sample",
    "Sheet",
    "Source",
    "Upload",
    "keep_history",
    "parse_source",
    "read_source",
    "address_example",
    "address_label",
    "address_of",
    "source_at",
    "source_from_query",
    "source_kind",
]

log = logging.getLogger(__name__)

T = TypeVar("T")

#: Longest sheet address, worksheet or file name taken from a request.
MAX_TEXT = 500


class DataError(Exception):
    """A source that cannot be read; ``messages`` are plain-language lines for the user."""

    def __init__(self, messages: list[str]) -> None:
        self.messages = messages
        super().__init__("; ".join(messages))


@dataclass(frozen=True)
class Loaded:
    """A history read from a source, the key runs of it are cached under and what to tell the user."""

    history: GameHistory
    key: str
    label: str
    warnings: tuple[str, ...] = ()


class LRU(Generic[T]):
    """A small thread-safe least-recently-used cache of pure results, bounded by count and, given ``weigh`` (the
    bytes a value holds), by ``max_bytes`` (the newest value is kept whatever its size).

    Several callbacks of one page update ask for the same value at once; the first computes it and the others
    wait for that result instead of computing it again (a per-key lock).
    """

    def __init__(self, maxsize: int, *, max_bytes: int | None = None, weigh: Callable[[T], int] | None = None) -> None:
        self._max = maxsize
        self._max_bytes = max_bytes
        self._weigh = weigh
        self._items: OrderedDict[Hashable, T] = OrderedDict()
        self._bytes: dict[Hashable, int] = {}
        self._lock = ForkSafeLock()
        self._making: dict[Hashable, ForkSafeLock] = {}

    @property
    def nbytes(self) -> int:
        """Bytes held by the values, as ``weigh`` counts them (0 without it)."""
        with self._lock:
            return sum(self._bytes.values())

    def _store(self, key: Hashable, value: T) -> None:
        """Put ``value`` as the newest and drop the oldest past either bound (under ``self._lock``)."""
        self._items[key] = value
        self._items.move_to_end(key)
        if self._weigh is not None:
            self._bytes[key] = self._weigh(value)
        total = sum(self._bytes.values())
        while len(self._items) > self._max or (
            self._max_bytes is not None and total > self._max_bytes and len(self._items) > 1
        ):
            old, _ = self._items.popitem(last=False)
            total -= self._bytes.pop(old, 0)

    def get(self, key: Hashable) -> T | None:
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key]
        return None

    def get_or_make(self, key: Hashable, make: Callable[[], T]) -> T:
        """The cached value for ``key``, made once (other threads wait for it) and stored when missing."""
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key]
            key_lock = self._making.setdefault(key, ForkSafeLock())
        with key_lock:
            with self._lock:
                if key in self._items:
                    self._items.move_to_end(key)
                    return self._items[key]
            try:
                value = make()
            finally:
                with self._lock:
                    self._making.pop(key, None)
            with self._lock:
                self._store(key, value)
        return value

    def put(self, key: Hashable, value: T) -> None:
        """Store ``value`` under ``key`` (replacing what was there) as the most recently used."""
        with self._lock:
            self._store(key, value)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self._bytes.clear()


_HISTORIES: LRU[Loaded] = LRU(32)
#: Content ids of the sheet reads this process has already kept, by (sheet, time read).
_KEPT: LRU[str] = LRU(64)


def _problems(exc: HistoryError) -> list[str]:
    return [str(p) for p in exc.problems] or [str(exc)]


def keep_history(history: GameHistory) -> str:
    """Keep ``history`` in the shared store; its content id, or :class:`DataError` when the store is down."""
    try:
        return keep(history)
    except StoreError as exc:
        raise DataError([str(exc)]) from None


def _stored(cid: str, what: str) -> GameHistory:
    try:
        return fetch(cid)
    except MissingHistory:
        raise DataError(
            [
                f"this {what} is no longer on the server (uploaded and edited data are kept 30 days after their "
                "last use) or the link is incomplete; upload the file again"
            ]
        ) from None
    except StoreError as exc:
        raise DataError([str(exc)]) from None


def _text(value: Any, what: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise DataError([f"the page sent no readable {what}; reload the page"])
    return value.strip()[:MAX_TEXT]


#: Every kind of source by name, in the order they are registered (:func:`source_kind`).
_KINDS: dict[str, Any] = {}


def source_kind(cls: type[T]) -> type[T]:
    """Register a kind of source (a class decorator): its ``kind`` names it in the JSON form (:func:`parse_source`);
    its ``from_query`` (if any) reads it back from a page's address (:func:`source_from_query`); its
    ``from_address`` (if any) takes an address typed in the data card's address box (:func:`source_at`)."""
    _KINDS[cls.kind] = cls  # type: ignore[attr-defined]
    return cls


@source_kind
@dataclass(frozen=True)
class Sample:
    """A bundled sample."""

    name: str
    kind: ClassVar[str] = "sample"
    memo: ClassVar[Memo] = "fixed"  # bundled with the code, which the memo's key covers
    link_holds: ClassVar[str] = "the bundled sample"

    @property
    def key(self) -> str:
        return f"sample:{self.name}"

    @property
    def label(self) -> str:
        return f"sample '{self.name}'"

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "name": self.name}

    def query(self) -> list[tuple[str, str]]:
        """The source in an address (see :func:`source_from_query`)."""
        return [("sample", self.name)]

    @classmethod
    def from_json(cls, value: dict[str, Any]) -> Sample:
        return cls(_text(value.get("name"), "sample name"))

    @classmethod
    def from_query(cls, pairs: dict[str, str]) -> dict[str, Any] | None:
        return cls(pairs["sample"][:MAX_TEXT]).to_json() if pairs.get("sample") else None

    def load(self, *, force: bool = False) -> Loaded:
        return _HISTORIES.get_or_make(self.key, self._read)

    def _read(self) -> Loaded:
        from ratings.samples import load_sample

        try:
            history = load_sample(self.name)
        except HistoryError as exc:
            raise DataError(_problems(exc)) from None
        except (KeyError, ValueError) as exc:
            raise DataError([str(exc).strip("'\"")]) from None
        return Loaded(history, self.key, self.label, tuple(history.warnings))


#: What a link to kept data holds (an upload, an edit).
_KEPT_DATA = (
    "the data itself (kept on this server for 30 days after its last use: anyone you give the link to sees it, "
    "nobody else can find it)"
)


@source_kind
@dataclass(frozen=True)
class Upload:
    """An uploaded history kept on the server under ``id``; ``filename`` is the uploader's own name for it."""

    id: str
    filename: str
    kind: ClassVar[str] = "upload"
    memo: ClassVar[Memo] = "fixed"  # content-addressed
    link_holds: ClassVar[str] = _KEPT_DATA

    @property
    def key(self) -> str:
        return f"upload:{self.id}"

    @property
    def label(self) -> str:
        return f"upload {self.filename}"

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "id": self.id, "filename": self.filename}

    def query(self) -> list[tuple[str, str]]:
        return [("data", self.id), ("file", self.filename)]

    @classmethod
    def from_json(cls, value: dict[str, Any]) -> Upload:
        return cls(_content_id(value.get("id")), _name(value.get("filename")))

    @classmethod
    def from_query(cls, pairs: dict[str, str]) -> dict[str, Any] | None:
        if not pairs.get("data") or pairs.get("edited") == "1":
            return None
        return {"kind": cls.kind, "id": pairs["data"][:64], "filename": (pairs.get("file") or "shared data")[:200]}

    def load(self, *, force: bool = False) -> Loaded:
        loaded = _HISTORIES.get_or_make(self.key, lambda: _loaded_by_id(self.id, self.key, "data"))
        return dataclasses.replace(loaded, label=self.label)  # the user's own name, never the shared entry's


@source_kind
@dataclass(frozen=True)
class Edited:
    """A what-if edit of ``base``, kept on the server under ``id``."""

    id: str
    base: Source | None
    kind: ClassVar[str] = "edited"
    memo: ClassVar[Memo] = "fixed"  # content-addressed
    link_holds: ClassVar[str] = _KEPT_DATA

    @property
    def key(self) -> str:
        return f"upload:{self.id}"  # content-addressed: the same history whether uploaded or edited

    @property
    def label(self) -> str:
        return f"what-if edit of {self.base.label}" if self.base is not None else "what-if edit"

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "id": self.id, "base": self.base.to_json() if self.base is not None else None}

    def query(self) -> list[tuple[str, str]]:
        base = self.base.query() if self.base is not None else []
        return [("data", self.id), ("edited", "1"), *[(f"from_{k}", v) for k, v in base]]

    @classmethod
    def of(cls, cid: str, base: Source | None) -> Edited:
        """An edit kept under ``cid`` of ``base``; an edit of an edit is named after the first base."""
        return cls(cid, base.base if isinstance(base, Edited) else base)

    @classmethod
    def from_json(cls, value: dict[str, Any]) -> Edited:
        base = value.get("base")
        return cls.of(_content_id(value.get("id")), parse_source(base) if base is not None else None)

    @classmethod
    def from_query(cls, pairs: dict[str, str]) -> dict[str, Any] | None:
        """``data`` with ``edited=1``; its base is named by the same keys prefixed ``from_``."""
        if not pairs.get("data") or pairs.get("edited") != "1":
            return None
        base = source_from_query({k[len("from_") :]: v for k, v in pairs.items() if k.startswith("from_")})
        return {"kind": cls.kind, "id": pairs["data"][:64], "base": base}

    def load(self, *, force: bool = False) -> Loaded:
        loaded = _HISTORIES.get_or_make(self.key, lambda: _loaded_by_id(self.id, self.key, "edit"))
        return dataclasses.replace(loaded, label=self.label)


def _loaded_by_id(cid: str, key: str, what: str) -> Loaded:
    history = _stored(cid, what)
    return Loaded(history, key, "", tuple(history.warnings))


def _content_id(value: Any) -> str:
    if not isinstance(value, str) or not CONTENT_ID.fullmatch(value):
        raise DataError(["the data id in the page or link is not valid; upload the file again"])
    return value


def _name(value: Any) -> str:
    from sources.uploads import clean_filename

    return clean_filename(value) or "shared data"


@source_kind
@dataclass(frozen=True)
class Sheet:
    """A Google Sheet: its address (or key) and optionally the worksheet (tab name or gid)."""

    url: str
    worksheet: str | None = None
    kind: ClassVar[str] = "sheet"
    memo: ClassVar[Memo] = "tracked"  # load() notes the shared copy it answered from, or that it read the sheet anew
    link_holds: ClassVar[str] = "the sheet's address (viewers need access to the sheet)"
    #: In the data card's address box: what it is called, an example, and that it takes any address the other kinds
    #: leave (its reader says plainly when one is not a Google Sheet's).
    address_label: ClassVar[str] = "Google Sheet"
    address_example: ClassVar[str] = "https://docs.google.com/spreadsheets/d/..."
    any_address: ClassVar[bool] = True
    #: Seconds a copy in the shared store is used before the sheet is read again (``RATINGS_SHEET_CACHE_SECONDS``).
    ttl: ClassVar[float | None] = None

    @property
    def key(self) -> str:
        return f"sheet:{self.url}|{self.worksheet or ''}"

    @property
    def label(self) -> str:
        return f"Google Sheet {self.url}"

    @property
    def address(self) -> str:
        return self.url

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "url": self.url, "worksheet": self.worksheet}

    def query(self) -> list[tuple[str, str]]:
        return [("sheet", self.url)] + ([("worksheet", self.worksheet)] if self.worksheet else [])

    @classmethod
    def from_json(cls, value: dict[str, Any]) -> Sheet:
        url = value.get("url")
        if not isinstance(url, str) or not url.strip():
            raise DataError(["enter the address of a Google Sheet"])
        worksheet = value.get("worksheet")
        return cls(url.strip()[:MAX_TEXT], worksheet.strip()[:MAX_TEXT] if isinstance(worksheet, str) else None)

    @classmethod
    def from_query(cls, pairs: dict[str, str]) -> dict[str, Any] | None:
        if not pairs.get("sheet"):
            return None
        return cls.from_json({"url": pairs["sheet"], "worksheet": pairs.get("worksheet") or None}).to_json()

    @classmethod
    def from_address(cls, text: str) -> Sheet | None:
        return cls(text[:MAX_TEXT])

    def opener(self) -> Any:
        """A ``sources.sheets.SheetSource`` with the host's sheet settings (retries; the service account only for the
        configured sheet, any other through its public link)."""
        from sources import sheets

        config = sheets.load_settings().for_sheet(self.url, self.worksheet)
        source = sheets.open_configured_source(config)
        if source is None:
            raise DataError(["enter the address of a Google Sheet"])
        return source

    def load(self, *, force: bool = False) -> Loaded:
        """The sheet's history: the shared copy while it is fresh, else read (``force``: read anew at once).

        A new read is kept in the shared store for every worker (so a game one worker records shows on all);
        when reading fails, the newest copy held (shared or this worker's) is used with a note saying so, and
        without one the error says plainly that nothing could be read.
        """
        from sources.sheets import SheetError, load_settings

        ttl = self.ttl if self.ttl is not None else load_settings().cache_seconds
        raw, pointer = self._pointer()
        if pointer is not None and not force and time.time() - pointer[1] < ttl:
            shared = self._from_pointer(pointer, ())
            if shared is not None:
                # an answer drawn from this copy holds while the copy is the shared one and fresh
                answers.depends_on(self._pointer_key, raw, pointer[1] + ttl)
                return shared
        answers.volatile("read the sheet")  # a read, a failure's note with the copy's age: computed every time
        try:
            read = self.opener().read(force=force)
        except (SheetError, HistoryError) as exc:
            messages = [exc.message] if isinstance(exc, SheetError) else _problems(exc)
            if pointer is not None:
                note = f"{messages[0]} Showing the copy read {_age_text(time.time() - pointer[1])} ago."
                shared = self._from_pointer(pointer, (note,))
                if shared is not None:
                    return shared
            raise DataError([*messages, "No earlier copy of this sheet is held on the server."]) from None
        history = read.history
        stamp = read.fetched_at.timestamp()
        warnings = tuple(dict.fromkeys([*read.warnings, *history.warnings]))
        if read.stale and read.message:
            if pointer is not None and pointer[1] > stamp:  # another worker holds a newer copy
                shared = self._from_pointer(pointer, (read.message,))
                if shared is not None:
                    return shared
            warnings = (read.message, *warnings)
        cid = _KEPT.get_or_make((self.key, stamp), lambda: keep_history(history))
        if not read.stale and (pointer is None or stamp > pointer[1]):
            self._set_pointer(cid, stamp)
        return Loaded(history, f"upload:{cid}", self.label, warnings)

    @property
    def _pointer_key(self) -> str:
        return f"pointer:{self.key}"

    def _pointer(self) -> tuple[bytes, tuple[str, float] | None]:
        """The shared pointer to the newest copy as stored, and read: (content id, time read); None if none."""
        try:
            raw = shared_store().get(self._pointer_key)
        except StoreError:
            return b"", None
        if raw is None:
            return b"", None
        try:
            cid, stamp = json.loads(raw)
            return raw, (str(cid), float(stamp))
        except (ValueError, TypeError):
            return raw, None

    def _set_pointer(self, cid: str, stamp: float) -> None:
        try:
            shared_store().put(self._pointer_key, json.dumps([cid, stamp]).encode())
        except StoreError as exc:
            log.warning("could not share the sheet's copy: %s", exc)

    def _from_pointer(self, pointer: tuple[str, float], notes: tuple[str, ...]) -> Loaded | None:
        try:
            history = fetch(pointer[0])
        except (MissingHistory, StoreError):
            return None
        return Loaded(history, f"upload:{pointer[0]}", self.label, (*notes, *history.warnings))


def _age_text(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


#: Key prefix of an answer's dependency on a group's database (``sources.groups.pages.version_of`` checks it).
GROUP_VERSION = "groupdb:"


@source_kind
@dataclass(frozen=True)
class GroupTitle:
    """A group's game title (``None``: the group's first), its games read from the groups' database."""

    group: str
    title: str | None = None
    kind: ClassVar[str] = "group"
    #: load() notes the group's latest change, which the memo reads from the database on every hit
    memo: ClassVar[Memo] = "tracked"
    link_holds: ClassVar[str] = "the group's address and game title (anyone with it sees the group's games)"

    @property
    def key(self) -> str:
        return f"group:{self.group}|{self.title or ''}"

    @property
    def label(self) -> str:
        return f"group /g/{self.group}" + (f", {self.title}" if self.title else "")

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "group": self.group, "title": self.title}

    def query(self) -> list[tuple[str, str]]:
        """The group is the address's path (``/g/<slug>``); the query names the title."""
        return [("title", self.title)] if self.title else []

    @classmethod
    def from_json(cls, value: dict[str, Any]) -> GroupTitle:
        title = value.get("title")
        return cls(_text(value.get("group"), "group")[:40], title.strip()[:200] if isinstance(title, str) else None)

    def load(self, *, force: bool = False) -> Loaded:
        from sources.groups.pages import load_title

        return load_title(self.group, self.title)


Source = Sample | Sheet | Upload | Edited | GroupTitle


#: Why the answers that read a source may be memoised (:func:`read_source`).
Memo = Literal["fixed", "tracked"]


def read_source(value: Any, *, force: bool = False) -> Loaded:
    """The history of the source ``value`` (typed or its JSON form) as read: the one place the app reads a source.

    An answer of the memo of answers (:mod:`sources.answers`) that read a source is kept only when the source's
    class says why it may be (its ``memo``: ``"fixed"``, its content cannot change under its key; ``"tracked"``, its
    ``load`` notes what its content depends on or that it must be computed every time).  A class without that
    declaration (a group's games in the database, or a new kind of source) has its answers computed every time.
    """
    source = parse_source(value)
    memo = getattr(type(source), "memo", None)
    if memo not in ("fixed", "tracked"):
        answers.volatile(f"read a {source.kind} source, whose content may change under the same key")
    if memo != "tracked":
        return source.load(force=force)
    before = answers.noted()
    try:
        return source.load(force=force)
    finally:  # a read that noted nothing to check (an error, say) holds for this request only
        if answers.noted() == before:
            answers.volatile(f"read a {source.kind} source that noted nothing it depends on")


def parse_source(value: Any) -> Source:
    """A typed source from its JSON form (a store, an address); :class:`DataError` for anything else."""
    if isinstance(value, tuple(_KINDS.values())):
        return value  # type: ignore[return-value]
    if not isinstance(value, dict):
        raise DataError(["the page sent no readable data source; reload the page"])
    kind = value.get("kind")
    if kind == "upload" and value.get("edited"):  # the earlier JSON form of an edit
        kind = "edited"
    cls = _KINDS.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise DataError([f"unknown data source {str(kind)[:40]!r}"])
    parsed: Source = cls.from_json(value)
    return parsed


def source_from_query(pairs: dict[str, str]) -> dict[str, Any] | None:
    """The JSON source an address names (the inverse of ``query()``), or None; checked when it is loaded.  Each kind
    reads its own keys (``from_query``): ``sample``, ``sheet``/``worksheet``, ``data``/``file`` (``edited=1``: an
    edit, whose base is named by the same keys prefixed ``from_``)."""
    for cls in _KINDS.values():
        from_query = getattr(cls, "from_query", None)
        found = from_query(pairs) if from_query is not None else None
        if found is not None:
            return found
    return None


def _addressed() -> list[Any]:
    """The kinds that take an address typed in the data card, those that take any address last."""
    kinds = [cls for cls in _KINDS.values() if hasattr(cls, "from_address")]
    return sorted(kinds, key=lambda cls: bool(getattr(cls, "any_address", False)))


def address_label() -> str:
    """What the data card's address box takes: "Google Sheet" (each addressed kind's name, joined by "or")."""
    return " or ".join(cls.address_label for cls in _addressed())


def address_example() -> str:
    return " or ".join(cls.address_example for cls in _addressed())


def source_at(address: str) -> dict[str, Any]:
    """The JSON source of an address typed in the data card: the first kind that takes it (checked when loaded)."""
    text = address.strip()
    if not text:
        raise DataError([f"Enter the address of a {address_label()} first."])
    for cls in _addressed():
        found = cls.from_address(text)
        if found is not None:
            return found.to_json()
    raise DataError([f"'{text[:80]}' is not the address of a {address_label()}."])


def address_of(source: Any) -> str | None:
    """The address a source was typed as in the data card (a Sheet's), or None for other kinds."""
    address = getattr(source, "address", None)
    return address if isinstance(address, str) else None
