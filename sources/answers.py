"""Identical callback requests answered once: a memo of callback answers shared by every worker.

Every first visit of the same page with the same settings asks the server the same questions with the same
request bodies (the standings of the racing sample under the default parameters, say).  Each answer is computed
once, kept in the shared store (:mod:`sources.store`: diskcache, or Redis when ``REDIS_URL`` is set) already
compressed, and every later identical request gets those bytes without running the callback.

Safe by construction:

- **Declared.**  Only the callbacks the app declares (``answer_memo.DECLARED``, each named by one of its outputs,
  with the reason its answer depends on nothing but the request: no per-user server state, no randomness, no clock,
  no writes) are memoised; anything else is computed as before.  ``tests/test_answers.py`` fails if a declaration
  names no callback or two, and checks that users with different uploads, edits, baselines and sheets never get
  each other's answers.
- **Keyed by everything the answer reads.**  The key is the callback's outputs, the whole request body in canonical
  JSON (inputs, states, which input changed) and :func:`code_version` (the app's code and bundled samples, the
  versions of the libraries that draw the answer, the ``RATINGS_*`` settings), so a deploy never serves an answer
  of the code before it.  Server-side content named in the body by a content id (an upload, an edit, a pinned
  baseline, aliases) cannot change under its id.  Content that can change is noted while the answer is computed
  (:func:`depends_on`: a Google Sheet's shared last-good copy and how long it stays fresh) and checked on every hit.
- **Volatile answers are not kept.**  An answer whose computation wrote user data to the store (an upload kept, a
  sheet read anew) or found some missing is sent as computed and not memoised: the store itself notes it on every
  ``put`` and ``get`` (:func:`sources.store._noted`), so no service has to remember to.  So is an answer that loaded
  anything by force or met an error (:func:`volatile`), that is not a plain 200 JSON, or whose request body is larger
  than :data:`MAX_BODY` (an upload).
- **Sources say why.**  An answer that read a data source is kept only when the source's class declares why it may
  be (:func:`sources.model.read_source`: its content is fixed under its key, or its ``load`` notes what it depends
  on, as a Sheet notes its shared copy and a group's title its group's latest change in the database); a source
  that declares nothing (a new kind of source) has every answer that read it computed anew.  A dependency is checked
  in the store, or by the check registered for its key's prefix (:class:`AnswerMemo`'s ``checks``: a group's latest
  change is read from the database itself, so no copy of it can fall behind).

A memoised answer lives in the store like every entry: until 30 days after its last use (``RATINGS_STORE_DAYS``),
the least recently used going first when the store is full; an answer derived from an upload therefore lives no
longer after its last use than the upload itself.  When the store is unreachable the memo steps aside and every
answer is computed.
"""

from __future__ import annotations

import base64
import contextlib
import contextvars
import hashlib
import importlib.metadata
import json
import logging
import os
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sources.compression import encode, encoding_for  # answers are kept compressed as they are sent
from sources.forksafe import ForkSafeLock
from sources.store import Store, StoreError, shared_store, wait_for_lock

__all__ = [
    "ENVIRON",
    "HEADER",
    "MAX_BODY",
    "AnswerMemo",
    "Dependency",
    "Found",
    "Missed",
    "Reads",
    "code_version",
    "depends_on",
    "encode",
    "encoding_for",
    "tracking",
    "volatile",
]

log = logging.getLogger(__name__)

#: Response header saying how the answer was produced: ``hit`` (from the memo) or ``kept`` (computed and memoised).
HEADER = "X-Ratings-Answer"
#: WSGI environ key under which the threaded worker (:mod:`serving`) hands the app what it found on arrival: a memo
#: hit (:class:`Found`) or the name it missed (:class:`Missed`).
ENVIRON = "ratings.answer"
#: A request body larger than this (an upload) is never memoised.
MAX_BODY = 256 * 1024
#: How long a request waits for an identical one that another thread or worker is computing.
WAIT_SECONDS = 10.0


# ------------------------------------------------------------------------------------------ what an answer read
@dataclass(frozen=True)
class Dependency:
    """A store entry an answer was computed from that may change: valid while the entry holds ``value`` and until
    ``until`` (seconds since the epoch)."""

    key: str
    value: bytes
    until: float

    def to_json(self) -> list[Any]:
        return [self.key, base64.b64encode(self.value).decode(), self.until]

    @classmethod
    def from_json(cls, item: Any) -> Dependency:
        key, value, until = item
        return cls(str(key), base64.b64decode(value), float(until))


@dataclass
class Reads:
    """What the callback being computed read that may change, and why its answer may not be kept (if so)."""

    dependencies: list[Dependency] = field(default_factory=list)
    volatile: str | None = None


_reads: contextvars.ContextVar[Reads | None] = contextvars.ContextVar("ratings_answer_reads", default=None)


def depends_on(key: str, value: bytes, until: float) -> None:
    """Note, for the answer being computed (if any), that it holds while the store entry ``key`` holds ``value``
    (or the check registered for its prefix answers ``value``) and until ``until`` (seconds since the epoch)."""
    reads = _reads.get()
    if reads is not None:
        reads.dependencies.append(Dependency(key, value, until))


def noted() -> int:
    """How many dependencies the answer being computed has noted so far (0 outside one)."""
    reads = _reads.get()
    return len(reads.dependencies) if reads is not None else 0


def volatile(reason: str) -> None:
    """Note that the answer being computed (if any) must not be memoised (a write, a forced read, an error)."""
    reads = _reads.get()
    if reads is not None and reads.volatile is None:
        reads.volatile = reason


class tracking:
    """Collect the :class:`Reads` of a computation in this context (``with tracking() as reads: ...``)."""

    def __enter__(self) -> Reads:
        self.reads = Reads()
        self._token = _reads.set(self.reads)
        return self.reads

    def __exit__(self, *exc: object) -> None:
        _reads.reset(self._token)


# ------------------------------------------------------------------------------------------ the version of the code
#: What the code version covers: the app's modules, the rating library and its bundled samples.
_TREES = ("callbacks", "figures", "layouts", "ratings", "sources")
_LIBRARIES = ("dash", "plotly", "dash-ag-grid", "dash-bootstrap-components", "numpy", "scipy", "pandas", "numba")
_version: str | None = None
_version_lock = ForkSafeLock()


def code_version(root: Path | None = None, environ: Mapping[str, str] | None = None) -> str:
    """A digest of everything an answer's bytes follow from besides the request: the app's source files and bundled
    samples (``__pycache__`` excluded), the versions of the libraries that draw answers, and the ``RATINGS_*``
    settings.  Computed once per process."""
    global _version
    if root is None and environ is None and _version is not None:
        return _version
    base = root or Path(__file__).resolve().parents[1]
    digest = hashlib.sha256()
    files = [path for path in base.glob("*.py")]
    for tree in _TREES:
        files += [p for p in (base / tree).rglob("*") if p.is_file() and "__pycache__" not in p.parts]
    for path in sorted(files):
        digest.update(str(path.relative_to(base)).encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    for name in _LIBRARIES:
        try:
            digest.update(f"{name}={importlib.metadata.version(name)}\0".encode())
        except importlib.metadata.PackageNotFoundError:
            digest.update(f"{name}=-\0".encode())
    env = os.environ if environ is None else environ
    for name in sorted(n for n in env if n.startswith("RATINGS_")):
        digest.update(f"{name}={env[name]}\0".encode())
    version = digest.hexdigest()[:16]
    if root is None and environ is None:
        with _version_lock:
            _version = version
    return version


# ------------------------------------------------------------------------------------------ the memo
@dataclass(frozen=True)
class Found:
    """A memoised answer: its bytes in ``encoding`` (``""``: uncompressed)."""

    data: bytes
    encoding: str


@dataclass(frozen=True)
class Missed:
    """A request the threaded worker looked up on arrival and did not find: its memo name, handed to the app so that
    the body is not read, keyed and looked up a second time (:func:`AnswerMemo.claim` looks again under the lock)."""

    name: str


#: Memoised callbacks: callback map key -> the inputs (``id.property``) whose values are left out of the key.
Kinds = Mapping[str, Iterable[str]] | Iterable[str]


def _kinds(kinds: Kinds) -> dict[str, frozenset[str]]:
    if isinstance(kinds, Mapping):
        return {str(kind): frozenset(unkeyed) for kind, unkeyed in kinds.items()}
    return {str(kind): frozenset() for kind in kinds}


def _without(item: Any, unkeyed: frozenset[str]) -> Any:
    """A body's input or state entry with its value left out when it is one of ``unkeyed``."""
    if isinstance(item, dict) and isinstance(item.get("id"), str) and f"{item['id']}.{item.get('property')}" in unkeyed:
        return {name: value for name, value in item.items() if name != "value"}
    return item


class AnswerMemo:
    """The answers of the declared callbacks (``kinds``: their callback map keys) in the shared store."""

    def __init__(
        self,
        kinds: Kinds | Callable[[], Kinds],
        version: str,
        store: Store | None = None,
        checks: Mapping[str, Callable[[str], bytes | None]] | None = None,
    ) -> None:
        self._kinds = kinds
        #: Key prefix -> the current value of a dependency of that prefix (``None``: gone), where the store is not
        #: where it lives (a group's latest change, in the database).
        self.checks = dict(checks or {})
        self._resolved: dict[str, frozenset[str]] | None = None if callable(kinds) else _kinds(kinds)
        self.version = version
        self._store = store
        #: False: nothing is memoised or answered from the memo (``RATINGS_ANSWER_MEMO=0``, benchmarks).
        self.enabled = True

    @property
    def kinds(self) -> dict[str, frozenset[str]]:
        """The callback map keys memoised, each with the inputs (``id.property``) left out of its key (given, or
        found by the callable given on first use)."""
        if self._resolved is None:
            kinds = self._kinds
            self._resolved = _kinds(kinds() if callable(kinds) else kinds)
        return self._resolved

    def store(self) -> Store:
        return self._store if self._store is not None else shared_store()

    def name(self, kind: Any, body: Any, size: int = 0) -> str | None:
        """The memo's name for a request of callback ``kind`` with ``body`` (parsed JSON; ``size`` bytes), or None
        when it is not memoised (an undeclared callback, or a body too large).  The values of the kind's unkeyed
        inputs are left out (their ids stay)."""
        if not self.enabled or not isinstance(kind, str) or not isinstance(body, dict) or size > MAX_BODY:
            return None
        unkeyed = self.kinds.get(kind)
        if unkeyed is None:
            return None
        if unkeyed:
            body = {
                name: [_without(item, unkeyed) for item in value]
                if name in ("inputs", "state") and isinstance(value, list)
                else value
                for name, value in body.items()
            }
        try:
            canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), allow_nan=True)
        except (TypeError, ValueError):
            return None
        if len(canonical) > MAX_BODY:
            return None
        digest = hashlib.sha256(f"{self.version}\0{kind}\0{canonical}".encode()).hexdigest()[:40]
        return f"answer:{digest}"

    def find(self, name: str, encoding: str) -> Found | None:
        """The answer memoised under ``name`` in ``encoding`` while everything it read still holds, else None."""
        try:
            store = self.store()
            packed = store.get(f"{name}:{encoding or 'identity'}")
            if packed is None:
                return None
            head, _, data = packed.partition(b"\n")
            dependencies = [Dependency.from_json(item) for item in json.loads(head)]
            now = time.time()
            for dep in dependencies:
                check = next((c for prefix, c in self.checks.items() if dep.key.startswith(prefix)), store.get)
                if now >= dep.until or check(dep.key) != dep.value:
                    return None
        except StoreError:
            return None
        except (ValueError, TypeError, KeyError):
            log.warning("a memoised answer could not be read; computing it again")
            return None
        return Found(data, encoding)

    def keep(self, name: str, data: bytes, encoding: str, reads: Reads) -> bool:
        """Memoise ``data`` (already in ``encoding``) under ``name`` unless ``reads`` says it may not be kept."""
        if reads.volatile is not None:
            return False
        head = json.dumps([dep.to_json() for dep in reads.dependencies]).encode()
        try:
            self.store().put(f"{name}:{encoding or 'identity'}", head + b"\n" + data)
        except StoreError:
            return False
        return True

    def claim(self, name: str, encoding: str) -> tuple[bool, Found | None]:
        """Take the right to compute ``name`` (so that identical requests wait for one computation): ``(True,
        None)``; or, when another request held it and finished meanwhile, ``(False, its answer)``; ``(False, None)``
        when waiting gave nothing (compute without the right)."""
        lock = f"lock:{name}"
        try:
            store = self.store()
            held, found = wait_for_lock(store, lock, WAIT_SECONDS, lambda: self.find(name, encoding))
            if not held:
                return False, found
            found = self.find(name, encoding)  # finished between the look and the lock
            if found is not None:
                store.release(lock)
                return False, found
            return True, None
        except StoreError:
            return False, None

    def release(self, name: str) -> None:
        with contextlib.suppress(StoreError):
            self.store().release(f"lock:{name}")
