"""Overload: refuse a callback request early when it could not finish in time, instead of letting it queue.

Each web worker process keeps a :class:`Gate`.  Before a callback request runs, the gate estimates when it would
finish:

    expected = queued + backlog + waiting + own

- ``queued``: how long the request already waited before the worker began it, from the ``X-Request-Start`` header
  (``t=<seconds since the epoch>``; milliseconds and microseconds are recognised too).  The app's threaded gunicorn
  worker (:mod:`serving`) writes it when it accepts the connection, replacing any value a client sent; a PaaS router
  sets it the same way (Heroku, or nginx's ``t=${msec}``).  Without it, ``queued`` is 0.
- ``backlog``: the CPU time the requests already running in this process still need.  Python code in one process
  shares one core (the GIL), so a new request finishes after them: for each, its kind's expected CPU time minus the
  CPU time its thread has used so far (Linux's per-thread CPU clock).
- ``waiting``: under the app's threaded worker, the expected CPU time of the heavy requests this process admitted
  on arrival that have not begun yet (they are judged when the worker's main loop hands them on, not when a thread
  picks them up: :meth:`Gate.arrive`), so a queue never builds inside the worker unseen.
- ``own``: the expected CPU time of this kind of request: an exponentially weighted mean of the CPU time (the
  thread's own clock, so time spent waiting for the GIL does not count) that requests for the same outputs took in
  this process, faded with age (below).  A kind never measured yet is assumed to take :data:`FIRST_GUESS` seconds,
  and at most :attr:`Gate.unmeasured_at_once` different requests of it (the heavy lane's threads) are admitted and
  unfinished at a time: after a restart, a flood of one kind nobody has timed yet would otherwise all be admitted
  at that guess (thirty replays of half a second each against a 1.5 s budget, the last answered after 17 s).  Once
  the first of them finishes, the kind is measured and judged by its time.  Requests the threaded worker knows to be
  the same (one answer-memo name, or one body, so all but the first wait for its answer) count once; a page load
  asks for many kinds, one request each, so the cap does not touch it.

When ``expected`` exceeds the budget (``RATINGS_BUSY_SECONDS``, default 5 s) the request is refused at once: the
page says the server is busy and keeps what it shows, instead of waiting for an answer that would come too late
(or never, past gunicorn's timeout).  A result computed before is cheap (the shared memo of :mod:`sources.runs`), so
the mean of a kind falls as the memo fills and those requests are admitted again.

What the gate learns cannot shut a kind out for good.  One request's cost says little about the next one's (a
hostile upload of 25 CPU-seconds, then ordinary parameter changes of 0.1 s on the same callback), and a kind that is
refused is never measured again, so a cost learnt once would otherwise refuse that kind for ever.  Three rules:

- An idle worker refuses nothing for its own cost: when no heavy request is running or waiting in the process
  (light ones aside), a request is refused only if it has already waited longer than the budget.  It delays nobody
  in flight, so refusing it would protect no one; once admitted it is measured, and teaches the gate its cost.
- Knowledge fades: between measurements a kind's estimate relaxes towards :data:`FIRST_GUESS` with a half-life of
  :data:`HALF_LIFE` seconds (``FIRST_GUESS + (mean - FIRST_GUESS) * 2 ** (-age / HALF_LIFE)``).  A refused request
  teaches nothing new: it leaves the fading as it is (learning its own estimate, which is the faded value, would
  change nothing, an exponential decay having no memory), so a stream of refusals never keeps a cost alive.  A kind
  last measured longer than a half-life ago counts as not measured for the cap on different requests at once, so a
  burst after a quiet spell is bounded as after a restart.
- A new measurement weighs at least :data:`WEIGHT` and more the older the mean is (``1 - 2 ** (-age /
  HALF_LIFE)``): a cost measured long ago counts for little against a fresh one.

Light requests: a kind whose mean is below :data:`LIGHT_SECONDS` reads memoised results and does no replay; the
threaded worker serves those (and pages, scripts, layout, dependencies) on a lane of their own threads, so a queue
of replays never delays a page load.  A light callback is refused neither for its cost nor for the load, but it is
when it has already waited longer than the budget before a thread began it: under real overload (hundreds of
visitors on two cores) the light lane's own queue grew without bound, every visitor waiting many seconds and none
told the server was busy.  :func:`process_gate` is the one gate of a process, shared by the app and the
worker.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from sources import settings
from sources.forksafe import ForkSafeLock

__all__ = [
    "ARRIVAL",
    "LIGHT",
    "REFUSED",
    "PAGE_REFUSED",
    "PAGE_WAVES",
    "BUSY_MESSAGE",
    "FIRST_GUESS",
    "HALF_LIFE",
    "LIGHT_SECONDS",
    "UNMEASURED_AT_ONCE",
    "Arrival",
    "Gate",
    "Ticket",
    "process_gate",
    "queued_seconds",
]

#: What the page says when a request is refused.
BUSY_MESSAGE = (
    "The server is busy: too many people are changing things at once, so this change was not computed. "
    "What you see is the last result; try again in a few seconds."
)
#: Expected CPU seconds of a kind of request the process has not served yet.
FIRST_GUESS = 0.05
#: Requests of one kind never measured that may be admitted and unfinished at once, unless the server says how many
#: threads its heavy lane has (:mod:`serving` gives :attr:`Gate.unmeasured_at_once` its thread count): one round of
#: the lane, so a burst right after a restart is bounded by a round, while the visitors of a fresh worker (a few
#: different requests each, as they type or drag) are not refused before the kind's first answer.
UNMEASURED_AT_ONCE = 8
#: Weight of the newest observation in a kind's mean (at least; more when the mean is old: the module docstring).
WEIGHT = 0.2
#: Seconds in which what the gate learnt about a kind's cost loses half its weight (see the module docstring).
HALF_LIFE = 10.0
#: A kind whose expected CPU time is below this is light: it does no replay (it reads memoised results), so the
#: threaded worker (:mod:`serving`) serves it on its light lane, never behind a queue of replays.
LIGHT_SECONDS = 0.2
#: WSGI environ keys set by the threaded worker (:mod:`serving`) for the app, never taken from a request: the
#: :class:`Arrival` of a heavy request admitted on arrival, a light callback's mark, a refusal decided on arrival.
ARRIVAL = "ratings.arrival"
LIGHT = "ratings.light"
REFUSED = "ratings.refused"
#: WSGI environ key set by the threaded worker on a page's HTML request that it judged too late to serve
#: (:meth:`Gate.page_refused`).
PAGE_REFUSED = "ratings.page_refused"
#: Requests of a page load waited in turn: the page's HTML, its scripts, layout and dependencies, then its callbacks
#: come in about 8 waves, each waiting about as long as the first on a busy light lane (benchmarks/load.py's
#: recording: 41 requests in 8 waves).
PAGE_WAVES = 8
#: Kinds remembered per process (the output names come from requests, so their number is bounded here).
MAX_KINDS = 512


def queued_seconds(header: str | None, now: float | None = None) -> float:
    """Seconds since ``X-Request-Start`` (``t=1700000000.123``, or whole milliseconds or microseconds); 0 when
    absent, unreadable or in the future (clocks of a router and a worker may differ slightly)."""
    if not header:
        return 0.0
    text = header.strip()
    if text.startswith("t="):
        text = text[2:]
    try:
        stamp = float(text)
    except ValueError:
        return 0.0
    if stamp != stamp or stamp <= 0:
        return 0.0
    if stamp > 1e14:  # microseconds
        stamp /= 1e6
    elif stamp > 1e11:  # milliseconds
        stamp /= 1e3
    now = time.time() if now is None else now
    return min(max(now - stamp, 0.0), 3600.0)


def _thread_cpu(ident: int) -> float | None:
    """CPU seconds used by the thread ``ident`` (Linux); None where the clock is unavailable."""
    try:
        return time.clock_gettime(time.pthread_getcpuclockid(ident))
    except (AttributeError, OSError, OverflowError):
        return None


@dataclass
class Arrival:
    """A heavy request admitted when it arrived, waiting for a thread (until :meth:`Gate.begin` or
    :meth:`Gate.discard`)."""

    kind: str
    expected: float
    same: str | None = None


@dataclass
class Ticket:
    """A request admitted by the gate, until :meth:`Gate.leave` (``light``: admitted on the light lane, whatever
    the load)."""

    kind: str
    expected: float
    thread: int
    cpu_start: float | None
    same: str | None = None
    light: bool = False


@dataclass
class _Cost:
    """What the gate learnt about a kind: the mean CPU seconds, and the clock reading of its newest measurement."""

    mean: float
    at: float


class Gate:
    """One process's admission control for callback requests (see the module docstring)."""

    def __init__(
        self,
        budget: float = 5.0,
        unmeasured_at_once: int = UNMEASURED_AT_ONCE,
        *,
        half_life: float = HALF_LIFE,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.budget = budget
        #: Different requests of a kind never measured admitted and unfinished at once (see the module docstring).
        self.unmeasured_at_once = unmeasured_at_once
        self.half_life = half_life
        self._clock = clock
        self._lock = ForkSafeLock()
        self._costs: dict[str, _Cost] = {}
        self._running: dict[int, Ticket] = {}
        self._waiting: dict[int, Arrival] = {}
        self.refused = 0

    @classmethod
    def from_environ(cls, environ: Mapping[str, str] | None = None) -> Gate:
        """A gate with the budget ``RATINGS_BUSY_SECONDS`` (declared in :data:`sources.settings.VARIABLES`: default 5;
        0 or less turns refusals off); a value that is not a number stops the process saying so."""
        env = os.environ if environ is None else environ
        try:
            budget = float(settings.value(env, "RATINGS_BUSY_SECONDS"))
        except settings.SettingError as exc:
            raise SystemExit(str(exc)) from None
        return cls(budget if budget > 0 else float("inf"))

    def page_refused(self, queued: float) -> bool:
        """Whether a page load whose HTML request waited ``queued`` seconds before a thread began it is refused as a
        whole.  Under real overload every request of a page load waits a little less than the budget, so none is
        refused while the load takes many budgets (200 visitors: 15-25 s, no refusal); the page's first request
        says how long each wave will wait, so when :data:`PAGE_WAVES` waves of that wait pass the budget the
        visitor is told at once, one request spent, instead of waiting with everyone else."""
        refused = queued * PAGE_WAVES > self.budget
        if refused:
            with self._lock:
                self.refused += 1
        return refused

    def _fade(self, cost: _Cost) -> float:
        """The weight left to what was learnt at ``cost.at`` (1 just measured, 1/2 a half-life later)."""
        return 0.5 ** (max(self._clock() - cost.at, 0.0) / self.half_life)

    def expected(self, kind: str) -> float:
        """The expected CPU seconds of a request of ``kind``: its learnt mean, faded towards :data:`FIRST_GUESS`."""
        with self._lock:
            cost = self._costs.get(kind)
            if cost is None:
                return FIRST_GUESS
            return FIRST_GUESS + (cost.mean - FIRST_GUESS) * self._fade(cost)

    def backlog(self) -> float:
        """CPU seconds the admitted requests still running in this process are expected to need."""
        with self._lock:
            running = list(self._running.values())
        total = 0.0
        for ticket in running:
            used = 0.0
            if ticket.cpu_start is not None:
                now = _thread_cpu(ticket.thread)
                used = 0.0 if now is None else max(now - ticket.cpu_start, 0.0)
            total += max(ticket.expected - used, 0.0)
        return total

    def measured(self, kind: str) -> bool:
        """Whether a request of ``kind`` has finished in this process within the last half-life (its CPU time is
        known, not faded by more than half)."""
        with self._lock:
            cost = self._costs.get(kind)
            return cost is not None and self._fade(cost) > 0.5

    def is_light(self, kind: str) -> bool:
        """Whether requests of ``kind`` took less than :data:`LIGHT_SECONDS` of CPU on average in this process (a
        kind never seen is not: it may be a replay).  The mean as learnt, unfaded: a replay does not become light
        by being left alone."""
        with self._lock:
            cost = self._costs.get(kind)
        return cost is not None and cost.mean < LIGHT_SECONDS

    def idle(self) -> bool:
        """Whether no heavy request is running or waiting in this process (light ones do not count)."""
        with self._lock:
            return not self._waiting and all(ticket.light for ticket in self._running.values())

    def waiting(self) -> float:
        """CPU seconds the requests admitted on arrival but not begun yet are expected to need."""
        with self._lock:
            return sum(arrival.expected for arrival in self._waiting.values())

    def _unmeasured_refused(self, kind: str, same: str | None) -> bool:
        """Whether ``kind`` is not measured yet and :attr:`unmeasured_at_once` different requests of it are admitted
        and unfinished (``same``: the request's answer-memo name, shared by requests with one answer)."""
        if self.measured(kind):
            return False
        with self._lock:
            flights: list[Arrival | Ticket] = [*self._waiting.values(), *self._running.values()]
        names = {f.same if f.same is not None else id(f) for f in flights if f.kind == kind}
        return (same is None or same not in names) and len(names) >= self.unmeasured_at_once

    def _admits(self, kind: str, queued: float, same: str | None = None) -> float | None:
        own = self.expected(kind)
        if self.idle():
            refused = queued > self.budget  # nobody in flight to protect: only an answer already too late
        else:
            refused = self._unmeasured_refused(kind, same) or (
                queued + self.backlog() + self.waiting() + own > self.budget
            )
        if refused:
            with self._lock:
                self.refused += 1
            return None
        return own

    def arrive(self, kind: str, queued: float = 0.0, same: str | None = None) -> Arrival | None:
        """Judge a request of ``kind`` when it arrives (``queued`` seconds ago; ``same``: its answer-memo name, if
        any), before it waits for a thread: an :class:`Arrival` counted against later arrivals until it begins, or
        None (refused)."""
        own = self._admits(kind, queued, same)
        if own is None:
            return None
        arrival = Arrival(kind, own, same)
        with self._lock:
            self._waiting[id(arrival)] = arrival
        return arrival

    def begin(self, arrival: Arrival) -> Ticket:
        """The request admitted on arrival starts on the current thread (never refused now)."""
        with self._lock:
            self._waiting.pop(id(arrival), None)
        return self._ticket(arrival.kind, arrival.expected, arrival.same)

    def discard(self, arrival: Arrival) -> None:
        """The request admitted on arrival ended without beginning (a no-op once it began)."""
        with self._lock:
            self._waiting.pop(id(arrival), None)

    def enter(self, kind: str, queued: float = 0.0, *, may_refuse: bool = True) -> Ticket | None:
        """Admit a request of ``kind`` that waited ``queued`` seconds (a :class:`Ticket`), or refuse it (None);
        with ``may_refuse=False`` (a light request) it is admitted whatever the load, and its time still learnt,
        unless it has already waited longer than the budget (its answer would come too late: under real overload the
        light lane's queue is refused, not left to grow)."""
        if not may_refuse:
            if queued > self.budget:
                with self._lock:
                    self.refused += 1
                return None
            return self._ticket(kind, self.expected(kind), light=True)
        own = self._admits(kind, queued)
        return None if own is None else self._ticket(kind, own)

    def _ticket(self, kind: str, own: float, same: str | None = None, *, light: bool = False) -> Ticket:
        ident = threading.get_ident()
        ticket = Ticket(kind, own, ident, _thread_cpu(ident), same, light)
        with self._lock:
            self._running[id(ticket)] = ticket
        return ticket

    def leave(self, ticket: Ticket) -> None:
        """The request of ``ticket`` is done: learn its CPU time (measured on its own thread)."""
        spent = None
        if ticket.cpu_start is not None:
            now = _thread_cpu(ticket.thread)
            spent = None if now is None else max(now - ticket.cpu_start, 0.0)
        with self._lock:
            self._running.pop(id(ticket), None)
        if spent is not None:
            self.learn(ticket.kind, spent)

    def learn(self, kind: str, seconds: float) -> None:
        """A request of ``kind`` took ``seconds`` of CPU: the first measurement is taken as it is, later ones weigh
        :data:`WEIGHT`, or more when the mean is old (see the module docstring)."""
        with self._lock:
            old = self._costs.pop(kind, None)
            if old is None and len(self._costs) >= MAX_KINDS:
                self._costs.pop(next(iter(self._costs)))
            weight = 1.0 if old is None else max(WEIGHT, 1.0 - self._fade(old))
            mean = seconds if old is None else (1 - weight) * old.mean + weight * seconds
            self._costs[kind] = _Cost(mean, self._clock())


_process_gate: Gate | None = None
_process_lock = ForkSafeLock()


def process_gate() -> Gate:
    """This process's gate, made from the environment on first use: the app (:mod:`security`) and the threaded
    worker (:mod:`serving`) judge requests against the same one."""
    global _process_gate
    with _process_lock:
        if _process_gate is None:
            _process_gate = Gate.from_environ()
        return _process_gate
