"""Who may write a group's games, and where: the rule the record form and every write path ask.

The server decides both, never the request:

- **Where.** A game is written only into the sheet the host configured (``RATINGS_SHEET`` / ``RATINGS_WORKSHEET``).
  The page's data source names a sheet too, but that name came from the browser: it is only compared with the
  configured one (:func:`write_target`), and a request naming any other sheet writes nothing, whatever account
  could reach it.
- **Who.** On a hosted server, only an organiser: someone who typed the organisers' secret (``RATINGS_ADMIN_SECRET``)
  once in this browser.  The secret is compared in constant time (:func:`secret_matches`); the browser then holds a
  signed session cookie carrying :func:`organiser_mark`, a digest of the secret under the app's ``SECRET_KEY``, so
  changing either secret signs every organiser out.  With no secret configured, recording into a sheet is off on a
  hosted server; ``python app.py`` on a loopback address (one person's own machine) may record without one.

Recording into a browser session's own history (no sheet) is a private what-if and needs no right.  This module is
pure: the adapters read the cookie and the settings and pass them in.

A group kept in the database (``/g/<slug>``) has two roles (:data:`GROUP_ROLES`): its *organisers* (who typed the
group's passphrase) may do everything, its *members* (who opened a member link) may record games.  The browser holds
one signed cookie entry per group, ``{"role", "mark", "link"}``, where ``mark`` is :func:`group_mark`: a keyed digest
of the hash the database keeps for that secret (the passphrase's scrypt hash, the link token's SHA-256), so a changed
passphrase, a revoked link or a changed ``SECRET_KEY`` takes the right back at once (:func:`group_role`).
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from sources.sheets import SheetError, SheetSettings

__all__ = [
    "GROUP_ROLES",
    "Rights",
    "GROUPS_COOKIE",
    "group_entry",
    "group_mark",
    "group_role",
    "group_may",
    "is_loopback",
    "organiser_mark",
    "rights",
    "secret_matches",
    "write_target",
]

#: What a visitor is told when recording into the sheet needs the secret.
ASK_FOR_SECRET = (
    "Only the group's organisers may record games into the group's sheet. If you are one, type the organisers' "
    "secret below and press Sign in; otherwise ask an organiser to record the game."
)
#: What everyone is told when the host has not turned recording on.
RECORDING_OFF = (
    "Recording into the group's sheet is turned off on this server: the host turns it on by setting "
    "RATINGS_ADMIN_SECRET (the organisers' secret) in the app's configuration."
)


def is_loopback(address: str | None) -> bool:
    """Whether ``address`` (an IP address, or a host name ``localhost``) is this machine's own: the one rule for
    "the person at the keyboard is the host" (recording without a secret, requests not counted by the limits)."""
    if address is None:
        return False
    if address.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(address.strip()).is_loopback
    except ValueError:
        return False


def _digest(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()


def secret_matches(given: Any, configured: str | None) -> bool:
    """Whether ``given`` is the organisers' secret, compared in constant time (digests of equal length, so neither
    the secret's length nor its first differing character shows in the time taken)."""
    if not configured or not isinstance(given, str) or not given:
        return False
    return hmac.compare_digest(_digest(given), _digest(configured))


def organiser_mark(secret_key: str, admin_secret: str) -> str:
    """What an organiser's session cookie carries: a keyed digest of the secret (never the secret itself)."""
    return hmac.new(secret_key.encode(), _digest(admin_secret), hashlib.sha256).hexdigest()


@dataclass(frozen=True)
class Rights:
    """What one request may do with the configured sheet, with the sentence the record form shows."""

    may_record: bool
    organiser: bool
    can_sign_in: bool
    message: str


def rights(*, mark: Any, secret_key: str, admin_secret: str | None, local: bool) -> Rights:
    """The rights of a request whose session cookie carries ``mark`` (``None`` without one).

    ``local``: the server is ``python app.py`` on a loopback address, where the person at the keyboard is the host.
    """
    if admin_secret:
        organiser = isinstance(mark, str) and hmac.compare_digest(mark, organiser_mark(secret_key, admin_secret))
        if organiser:
            return Rights(True, True, True, "You are signed in as an organiser in this browser: you may record games.")
        return Rights(False, False, True, ASK_FOR_SECRET)
    if local:
        return Rights(True, False, False, "This app runs on your own machine: you may record games.")
    return Rights(False, False, False, RECORDING_OFF)


def write_target(source: Any, settings: SheetSettings) -> tuple[str, str | None]:
    """The configured sheet (address, worksheet) when the page's ``source`` names it; else :class:`SheetError`
    saying why nothing is written.  ``source`` is the browser's JSON: only compared, never used as an address."""
    if not settings.sheet:
        raise SheetError("This server has no group sheet to record into (RATINGS_SHEET is not set).", "config")
    named = source if isinstance(source, dict) else {}
    if not settings.is_configured(named.get("url"), named.get("worksheet")):
        raise SheetError(
            "Games are recorded only into the group's own sheet, and that is not the sheet this page shows; "
            "nothing was written. Open the group's sheet (the app's default data) to record into it.",
            "refused",
        )
    return settings.sheet, settings.worksheet


#: The session cookie's field holding one entry per group signed in to, by slug.
GROUPS_COOKIE = "groups"


def group_entry(cookie: Any, slug: str) -> Any:
    """The cookie's entry for group ``slug`` (``None`` without one); checked by :func:`group_role`."""
    groups = cookie.get(GROUPS_COOKIE) if hasattr(cookie, "get") else None
    return groups.get(slug) if isinstance(groups, dict) else None


#: What each role of a group may do (``record``: add a game; the rest: correct, delete, undo, import, member links).
GROUP_ROLES: dict[str, frozenset[str]] = {
    "organiser": frozenset({"record", "correct", "delete", "undo", "import", "links"}),
    "member": frozenset({"record"}),
}
#: What a refused write says, by the right it needed.
REFUSED: Mapping[str, str] = MappingProxyType(
    {
        "record": "Not recorded: only the group's organisers and members (with a member link) may record games here.",
        "other": "Not done: only the group's organisers may change the group's games or links.",
    }
)


def group_mark(secret_key: str, slug: str, role: str, stored_hash: str) -> str:
    """What a group's cookie entry carries for ``role``: a digest keyed by ``SECRET_KEY`` of the hash the database
    keeps for the secret shown (never the secret, never that hash itself)."""
    text = f"{slug}\x00{role}\x00{stored_hash}"
    return hmac.new(secret_key.encode(), text.encode(), hashlib.sha256).hexdigest()


def group_role(
    entry: Any, *, secret_key: str, slug: str, admin_hash: str, link_hash: Callable[[int], str | None]
) -> str | None:
    """The role a browser's cookie ``entry`` for group ``slug`` gives (``None``: a visitor).

    ``admin_hash``: the group's passphrase hash; ``link_hash(id)``: the token hash of the group's member link ``id``
    while it is not revoked, else ``None``.  ``entry`` comes from a signed cookie, but is checked as untrusted all the
    same (its mark must match what the database holds now).
    """
    if not isinstance(entry, dict):
        return None
    role, mark = entry.get("role"), entry.get("mark")
    if role not in GROUP_ROLES or not isinstance(mark, str):
        return None
    if role == "organiser":
        stored: str | None = admin_hash
    else:
        link = entry.get("link")
        stored = link_hash(link) if isinstance(link, int) and not isinstance(link, bool) else None
    if stored is None:
        return None
    return role if hmac.compare_digest(mark, group_mark(secret_key, slug, role, stored)) else None


def group_may(role: str | None, action: str) -> bool:
    """Whether ``role`` (``None``: a visitor) may do ``action`` (one of :data:`GROUP_ROLES`' actions)."""
    return role is not None and action in GROUP_ROLES.get(role, frozenset())
