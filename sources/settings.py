"""The app's configuration: every environment variable it reads, declared once in :data:`VARIABLES`, read by one
reader per kind, into one typed object (:class:`Settings`).

Every setting has a safe default, so ``python app.py`` works with no environment at all.  The README's table of
settings is :func:`markdown_table` (``tests/test_settings.py`` checks that the two agree).  A bad value is a
:class:`SettingError` naming the variable and what it must be; at start-up (:func:`current`) it stops the process
with that message.

Modules that need a setting read it here: :func:`current` for the process's settings (read once), :func:`load` or
:func:`value` with an explicit mapping (tests, and readers that take an ``environ`` argument).
"""

from __future__ import annotations

import logging
import math
import os
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

__all__ = [
    "FLAG_WORDS",
    "VARIABLES",
    "SettingError",
    "Settings",
    "Variable",
    "current",
    "load",
    "markdown_table",
    "value",
]

log = logging.getLogger(__name__)


class SettingError(ValueError):
    """An environment variable holds a value the app cannot use; the message names it and says what it must be."""


#: The words an on/off setting accepts (lower case), by the value they mean.
FLAG_WORDS: dict[str, bool] = {
    **dict.fromkeys(("1", "true", "yes", "on"), True),
    **dict.fromkeys(("0", "false", "no", "off"), False),
}


@dataclass(frozen=True)
class Variable:
    """One environment variable: where it goes in :class:`Settings`, its kind and default, and what it means.

    ``kind``: ``text`` (stripped; blank is unset), ``secret`` (text never shown), ``flag`` (:data:`FLAG_WORDS`),
    ``number`` or ``whole`` (a whole number), within ``low``..``high`` when given.
    """

    name: str
    field: str
    kind: str
    default: Any
    meaning: str
    low: float | None = None
    high: float | None = None

    @property
    def shown_default(self) -> str:
        if self.default is None:
            return "unset"
        if isinstance(self.default, bool):
            return "on" if self.default else "off"
        return f"{self.default:g}" if isinstance(self.default, float) else str(self.default)


#: Every environment variable the app reads, in the order the README lists them.
VARIABLES: tuple[Variable, ...] = (
    Variable(
        "SECRET_KEY",
        "secret_key",
        "secret",
        None,
        "Signs the session cookie and background-job handles; the same for every worker (unset: a random key per "
        "process, with a warning).",
    ),
    Variable("HOST", "host", "text", "127.0.0.1", "Where `python app.py` listens (gunicorn binds by itself)."),
    Variable("PORT", "port", "whole", 8050, "The port of `python app.py`; gunicorn reads `PORT` itself.", 0, 65535),
    Variable("DASH_DEBUG", "debug", "flag", False, "Dash's debug mode for `python app.py`."),
    Variable("RATINGS_SAMPLE", "sample", "text", "poker", "The bundled sample shown when no sheet is set."),
    Variable("RATINGS_SYSTEM", "system", "text", "multielo", "The rating system selected when the page opens."),
    Variable(
        "RATINGS_SHEET",
        "sheet",
        "text",
        None,
        "The group's Google Sheet (its address or key): the page opens on it, and games are recorded into it.",
    ),
    Variable("RATINGS_WORKSHEET", "worksheet", "text", None, "The sheet's tab: its name or gid (unset: the first)."),
    Variable(
        "GOOGLE_SERVICE_ACCOUNT_JSON",
        "service_account_json",
        "secret",
        None,
        "The JSON key of a Google service account: reads a private configured sheet and records games into it.",
    ),
    Variable(
        "RATINGS_ADMIN_SECRET",
        "admin_secret",
        "secret",
        None,
        "The organisers' secret: who types it in the record form may record games into the sheet (unset: "
        "recording into the sheet is off on a hosted server).",
    ),
    Variable(
        "RATINGS_SHEET_GROUP",
        "sheet_group",
        "text",
        None,
        "The group (its slug) whose organisers and members may write the server's sheet from the group's page: its "
        "Sheet mirror and its titles read from that sheet (unset: no group writes it).",
    ),
    Variable(
        "RATINGS_PROXY_HOPS",
        "proxy_hops",
        "whole",
        1,
        "Proxies in front of the app that add to `X-Forwarded-For` (1: a PaaS router; 0 when browsers reach "
        "gunicorn directly); per-client limits count the address that many hops back.",
        0,
        5,
    ),
    Variable(
        "RATINGS_SHEET_CACHE_SECONDS",
        "sheet_cache_seconds",
        "number",
        60.0,
        "How long a read of the sheet is reused.",
        0,
    ),
    Variable(
        "RATINGS_SHEET_TIMEOUT_SECONDS",
        "sheet_timeout_seconds",
        "number",
        5.0,
        "How long to wait for each answer from Google.",
        0.1,
    ),
    Variable(
        "RATINGS_SHEET_DEADLINE_SECONDS",
        "sheet_deadline_seconds",
        "number",
        20.0,
        "The longest a whole read or append of the sheet may take, retries included.",
        0.5,
    ),
    Variable("RATINGS_SHEET_ATTEMPTS", "sheet_attempts", "whole", 3, "Tries for Google's answers 429 and 5xx.", 1, 100),
    Variable(
        "RATINGS_SHEET_BACKOFF_SECONDS",
        "sheet_backoff_seconds",
        "number",
        0.5,
        "The first wait between tries, doubled each time.",
        0,
    ),
    Variable(
        "RATINGS_GOOGLE_ENDPOINT",
        "google_endpoint",
        "text",
        None,
        "Where requests for Google's hosts go instead (`http(s)://host[:port]`): an API gateway, or the test suite's "
        "stand-in for Google.",
    ),
    Variable(
        "DATABASE_URL",
        "database_url",
        "secret",
        None,
        "The groups' database (PostgreSQL, `postgres://` or `postgresql://`; the PaaS convention); unset: SQLite "
        "in `RATINGS_DATA_DIR`.",
    ),
    Variable(
        "RATINGS_DATA_DIR",
        "data_dir",
        "text",
        "instance",
        "Where the embedded SQLite database lives (relative to the working directory). On a platform whose disk "
        "does not last, set `DATABASE_URL` instead.",
    ),
    Variable(
        "REDIS_URL",
        "redis_url",
        "text",
        None,
        "Redis for the shared store and the background jobs' queue (several instances); unset: a disk store and "
        "jobs in a process beside the web worker.",
    ),
    Variable(
        "RATINGS_STORE_DIR",
        "store_dir",
        "text",
        None,
        "The disk store's directory (unset: `ratings-dashboard-store` in the system's temporary directory).",
    ),
    Variable(
        "RATINGS_STORE_MB",
        "store_mb",
        "number",
        512.0,
        "The disk store's cap for derived results (computed runs, memoised answers), in megabytes.",
        1,
    ),
    Variable(
        "RATINGS_STORE_USER_MB",
        "store_user_mb",
        "number",
        256.0,
        "The disk store's own cap for user data (uploads, edits, aliases, baselines), never evicted by derived "
        "results, in megabytes.",
        1,
    ),
    Variable(
        "RATINGS_REDIS_MB",
        "redis_mb",
        "number",
        256.0,
        "With `REDIS_URL`: the `maxmemory` set on a Redis that has none (with `volatile-ttl`, derived results go "
        "first).",
        1,
    ),
    Variable("RATINGS_STORE_DAYS", "store_days", "number", 30.0, "Days an entry is kept after its last use.", 0.001),
    Variable(
        "RATINGS_BUSY_SECONDS",
        "busy_seconds",
        "number",
        5.0,
        "A callback that could not finish within this many seconds, queue included, is refused at once, and a page "
        "load whose first request waited an eighth of it is refused whole (0: never).",
        0,
    ),
    Variable("RATINGS_LIGHT_THREADS", "light_threads", "whole", 4, "Threads per worker that serve pages.", 1, 64),
    Variable(
        "RATINGS_PREWARM_SECONDS",
        "prewarm_seconds",
        "number",
        20.0,
        "Under gunicorn, how long start-up (after binding the port) computes the samples' default runs and "
        "compresses the scripts (0: off).",
        0,
    ),
    Variable("RATINGS_ANSWER_MEMO", "answer_memo", "flag", True, "The shared memo of identical callback answers."),
    Variable(
        "RATINGS_JOBS_RUNNING",
        "jobs_running",
        "whole",
        2,
        "Fit and Compare searches running at once (on the host with the disk store; on all Celery workers with "
        "Redis); more wait in a queue whose place the page shows.",
        1,
        64,
    ),
    Variable(
        "RATINGS_JOBS_PER_CLIENT",
        "jobs_per_client",
        "whole",
        2,
        "Searches one visitor (address) may have running or waiting.",
        1,
        64,
    ),
    Variable(
        "RATINGS_JOBS_WAITING",
        "jobs_waiting",
        "whole",
        16,
        "Searches that may wait for a free slot; one more is refused at once.",
        0,
        1000,
    ),
)

_BY_NAME = {v.name: v for v in VARIABLES}


@dataclass(frozen=True)
class Settings:
    """The app's configuration, one field per :data:`VARIABLES` entry (whose defaults :func:`load` applies)."""

    secret_key: str
    host: str
    port: int
    debug: bool
    sample: str
    system: str
    sheet: str | None
    worksheet: str | None
    service_account_json: str | None
    admin_secret: str | None
    sheet_group: str | None
    proxy_hops: int
    sheet_cache_seconds: float
    sheet_timeout_seconds: float
    sheet_deadline_seconds: float
    sheet_attempts: int
    sheet_backoff_seconds: float
    google_endpoint: str | None
    database_url: str | None
    data_dir: str
    redis_url: str | None
    store_dir: str | None
    store_mb: float
    store_user_mb: float
    redis_mb: float
    store_days: float
    busy_seconds: float
    light_threads: int
    prewarm_seconds: float
    answer_memo: bool
    jobs_running: int
    jobs_per_client: int
    jobs_waiting: int

    def __repr__(self) -> str:  # never the secrets, in a log or a traceback
        return "Settings(" + ", ".join(f"{f.name}={self._shown(f.name)}" for f in fields(self)) + ")"

    def _shown(self, name: str) -> str:
        secret = any(v.field == name and v.kind == "secret" for v in VARIABLES)
        value = getattr(self, name)
        return ("'***'" if value else "None") if secret else repr(value)


def _text(environ: Mapping[str, str], name: str) -> str | None:
    text = (environ.get(name) or "").strip()
    return text or None


def _what(variable: Variable) -> str:
    noun = "a whole number" if variable.kind == "whole" else "a number"
    if variable.low is not None and variable.high is not None:
        return f"{noun} from {variable.low:g} to {variable.high:g}"
    if variable.low is not None:
        return f"{noun} of at least {variable.low:g}"
    return noun


def _read(variable: Variable, text: str | None) -> Any:
    """The one reader: ``text`` (stripped, None when unset) as ``variable`` declares it."""
    if text is None:
        return variable.default
    if variable.kind in ("text", "secret"):
        return text
    if variable.kind == "flag":
        try:
            return FLAG_WORDS[text.lower()]
        except KeyError:
            raise SettingError(f"{variable.name} must be on or off ({', '.join(FLAG_WORDS)}), got '{text}'") from None
    try:
        number = float(text)
    except ValueError:
        number = math.nan
    whole = variable.kind == "whole"
    if (
        not math.isfinite(number)
        or (whole and not number.is_integer())
        or (variable.low is not None and number < variable.low)
        or (variable.high is not None and number > variable.high)
    ):
        raise SettingError(f"{variable.name} must be {_what(variable)}, got '{text}'")
    return int(number) if whole else number


def value(environ: Mapping[str, str], name: str) -> Any:
    """The value of the declared variable ``name`` in ``environ`` (its default when unset or blank)."""
    return _read(_BY_NAME[name], _text(environ, name))


def load(environ: Mapping[str, str] | None = None) -> Settings:
    """Every setting read from ``environ`` (default: ``os.environ``, read now); :class:`SettingError` (a
    ``SystemExit`` at start-up, through :func:`current`) for a value that cannot be used."""
    env = os.environ if environ is None else environ
    read = {v.field: value(env, v.name) for v in VARIABLES}
    if read["secret_key"] is None:
        read["secret_key"] = secrets.token_hex(32)
        log.warning(
            "SECRET_KEY is not set: using a random key. With several workers set SECRET_KEY to the same value "
            "for all of them."
        )
    return Settings(**read)


def markdown_table() -> str:
    """The README's table of settings, from :data:`VARIABLES`."""
    rows = ["| variable | default | what it does |", "|---|---|---|"]
    rows += [f"| `{v.name}` | {v.shown_default} | {v.meaning} |" for v in VARIABLES]
    return "\n".join(rows)


_current: Settings | None = None


def current() -> Settings:
    """The process's settings, read from the environment on first use (configuration, not user state); a bad value
    stops the process with the message saying which variable and what it must be."""
    global _current
    if _current is None:
        try:
            _current = load()
        except SettingError as exc:
            raise SystemExit(str(exc)) from None
    return _current
