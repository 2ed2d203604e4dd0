"""Configuration of the hosted app, read once from environment variables.

Every setting has a safe default, so ``python app.py`` works with no environment at all.

- ``SECRET_KEY``: Flask's secret key; must be the same for every gunicorn worker (a random key is
  generated, with a warning, when it is missing).
- ``PORT`` / ``HOST``: where ``python app.py`` listens (default 127.0.0.1:8050; gunicorn reads ``PORT`` itself).
- ``RATINGS_SHEET``: a Google Sheet URL (or key) the app opens on instead of the bundled sample.
- ``RATINGS_WORKSHEET``: the worksheet (tab) of that sheet to read (default: the first).
- ``RATINGS_SAMPLE``: the bundled sample shown when no sheet is configured (default ``poker``).
- ``RATINGS_SYSTEM``: the rating system selected when the page opens (default ``multielo``).
- ``DASH_DEBUG``: on (``1``) turns on Dash's debug mode for ``python app.py`` (default off).
- ``RATINGS_PREWARM_SECONDS``: under gunicorn, how long start-up may spend computing the bundled samples' default
  runs and compressing the page's scripts before serving (default 20; 0 turns it off; :func:`serving.prewarm`).
- ``RATINGS_ANSWER_MEMO``: off (``0``) turns off the shared memo of callback answers (:mod:`answer_memo`; default on).
- ``RATINGS_ADMIN_SECRET``: the organisers' secret.  Whoever types it in the record form may write games into the
  configured sheet from that browser (:mod:`sources.access`).  Unset: recording into a sheet is off, except for
  ``python app.py`` serving on a loopback address (one person's own machine).
- ``RATINGS_PROXY_HOPS``: how many proxies in front of the app append to ``X-Forwarded-For`` (default 1: a PaaS
  router); the client address that per-client limits count (:mod:`web.guard`) is read that many hops back.  Set 0
  when browsers connect to gunicorn directly, so that a made-up header cannot pick another client's count.

An on/off setting reads ``1``, ``true``, ``yes``, ``on`` as on and ``0``, ``false``, ``no``, ``off`` as off (any case);
anything else stops the process with a message naming the variable, as a number that is not a number does.
"""

from __future__ import annotations

import logging
import os
import secrets
from collections.abc import Mapping
from dataclasses import dataclass

__all__ = ["Settings", "load"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Settings:
    """The app's configuration (see the module docstring for the variables)."""

    secret_key: str
    host: str
    port: int
    sheet: str | None
    worksheet: str | None
    sample: str
    system: str
    debug: bool
    prewarm_seconds: float
    answer_memo: bool = True
    admin_secret: str | None = None
    proxy_hops: int = 1


def _text(environ: dict[str, str], name: str) -> str | None:
    value = environ.get(name, "").strip()
    return value or None


def env_number(environ: Mapping[str, str], name: str, default: float, what: str) -> float:
    """The number in ``environ[name]`` (``default`` when unset or blank); a value that is not a number stops the
    process with ``NAME must be <what>, got '...'``.  The one reader of numeric settings."""
    text = _text(dict(environ), name)
    if text is None:
        return default
    try:
        return int(text) if what.startswith("a whole number") else float(text)
    except ValueError:
        raise SystemExit(f"{name} must be {what}, got '{text}'") from None


#: The words an on/off setting accepts (lower case), by the value they mean.
FLAG_WORDS: dict[str, bool] = {
    **dict.fromkeys(("1", "true", "yes", "on"), True),
    **dict.fromkeys(("0", "false", "no", "off"), False),
}


def env_flag(environ: Mapping[str, str], name: str, default: bool) -> bool:
    """The on/off value of ``environ[name]`` (``default`` when unset or blank; the words are :data:`FLAG_WORDS`); any
    other value stops the process with ``NAME must be on or off (...), got '...'``.  The one reader of on/off
    settings."""
    text = _text(dict(environ), name)
    if text is None:
        return default
    try:
        return FLAG_WORDS[text.lower()]
    except KeyError:
        raise SystemExit(f"{name} must be on or off ({', '.join(FLAG_WORDS)}), got '{text}'") from None


def load(environ: dict[str, str] | None = None) -> Settings:
    """Read the settings from ``environ`` (default: ``os.environ``)."""
    env = dict(os.environ if environ is None else environ)
    secret = _text(env, "SECRET_KEY")
    if secret is None:
        secret = secrets.token_hex(32)
        log.warning(
            "SECRET_KEY is not set: using a random key. With several workers set SECRET_KEY to the same value "
            "for all of them."
        )
    port = int(env_number(env, "PORT", 8050, "a whole number"))
    prewarm = max(env_number(env, "RATINGS_PREWARM_SECONDS", 20.0, "a number of seconds"), 0.0)
    return Settings(
        secret_key=secret,
        host=_text(env, "HOST") or "127.0.0.1",
        port=port,
        sheet=_text(env, "RATINGS_SHEET"),
        worksheet=_text(env, "RATINGS_WORKSHEET"),
        sample=_text(env, "RATINGS_SAMPLE") or "poker",
        system=_text(env, "RATINGS_SYSTEM") or "multielo",
        debug=env_flag(env, "DASH_DEBUG", False),
        prewarm_seconds=prewarm if prewarm == prewarm else 0.0,
        answer_memo=env_flag(env, "RATINGS_ANSWER_MEMO", True),
        admin_secret=_text(env, "RATINGS_ADMIN_SECRET"),
        proxy_hops=_hops(env),
    )


def _hops(env: dict[str, str]) -> int:
    hops = env_number(env, "RATINGS_PROXY_HOPS", 1, "a whole number from 0 to 5")
    if not 0 <= hops <= 5:
        raise SystemExit(f"RATINGS_PROXY_HOPS must be a whole number from 0 to 5, got '{env['RATINGS_PROXY_HOPS']}'")
    return int(hops)


_current: Settings | None = None


def current() -> Settings:
    """The process's settings, read from the environment on first use (configuration, not user state)."""
    global _current
    if _current is None:
        _current = load()
    return _current
