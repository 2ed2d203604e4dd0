"""The request guard: the client's real address, the session cookie's attributes, no cross-site writes, and limits
per client on everything that writes or costs.

Installed on the Flask server before every other request hook (``app.py``), so a refused request gets no answer
from the answer memo, the overload gate or a callback.

- **Client address.** Behind ``RATINGS_PROXY_HOPS`` proxies (default 1, a PaaS router), werkzeug's ``ProxyFix``
  takes the address that many entries from the end of ``X-Forwarded-For`` (and the scheme from
  ``X-Forwarded-Proto``): the one the router saw, which a browser cannot choose.
- **Cookie.** Flask's session cookie is signed with ``SECRET_KEY``, HTTP-only, ``SameSite=Strict``, ``Secure``
  whenever the request came over HTTPS, and kept :data:`SIGNED_IN_FOR` once an organiser signs in.
- **No cross-site requests.** A POST that a browser marks as coming from another site (``Sec-Fetch-Site``), or
  whose ``Origin`` names another host, is refused with 403 before it is read.  Dash's own requests are same-origin.
- **A quota per client** (:data:`ADDS_DATA`): what a client's uploads, edits, aliases and baselines keep on the
  server counts against the store's quota for its address (50 MB a day).
- **Limits per client** (:data:`LIMITS`, the one place they are configured): each callback input that writes a
  group's games, reads an upload or checks the organisers' secret is counted per client address in a moving
  window kept in the shared store, so every worker (and with ``REDIS_URL`` every instance) counts together.
  Past the limit the request is answered at once with a plain line in the page's banner and ``Retry-After``.
  A request straight from the server's own machine (a loopback peer and no ``X-Forwarded-For``: the host, or the
  test suite) is not counted; behind a router every request carries that header, so no visitor is ever exempt.
  The counter lives in the store the workers already share; flask-limiter's only shared storages would need a
  Redis or memcached server even on one host, where its in-memory storage would count per worker.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from datetime import timedelta
from typing import Any
from urllib.parse import urlsplit

from flask import Flask, Request, Response, request
from flask.sessions import SecureCookieSessionInterface
from werkzeug.middleware.proxy_fix import ProxyFix

from layouts.ids import Aliases, Baseline, Data, Edit, Fit, GroupPage, Page, Record
from sources.access import is_loopback
from sources.store import StoreError, shared_store

__all__ = ["LIMITS", "SIGNED_IN_FOR", "Limit", "banner_answer", "install"]

#: How long an organiser stays signed in on one browser.
SIGNED_IN_FOR = timedelta(days=30)


@dataclass(frozen=True)
class Limit:
    """At most ``count`` requests of one kind per client in any ``seconds``; ``what`` names them for the message."""

    name: str
    count: int
    seconds: float
    what: str


_RECORD = Limit("record", 30, 60.0, "games written to the group's sheet")
_UPLOAD = Limit("upload", 20, 60.0, "uploaded files")
_SIGN_IN = Limit("sign-in", 10, 60.0, "tries of the organisers' secret")
#: A group's writes on its page (delete, undo, member links; recording a game counts as ``_RECORD``).
_GROUP_WRITE = Limit("group-write", 30, 60.0, "changes to the group")
#: A search runs up to 120 s (callbacks.fit.MAX_BUDGET) in a process of its own: two at a time per client.
_SEARCHES = Limit("searches", 2, 120.0, "searches started (Fit and Compare)")

#: The limits, by the callback input (``id.property``, as Dash names it in ``changedPropIds``) whose change does the
#: work: a callback acts on these only when the request says they changed.
LIMITS: dict[str, Limit] = {
    f"{Record.CONFIRM}.n_clicks": _RECORD,
    f"{Data.UPLOAD}.contents": _UPLOAD,
    f"{Record.SIGN_IN}.n_clicks": _SIGN_IN,
    f"{Record.SECRET}.n_submit": _SIGN_IN,
    f"{Record.SUBMIT}.n_clicks": _RECORD,
    f"{GroupPage.SIGN_IN}.n_clicks": _SIGN_IN,
    f"{GroupPage.PASSPHRASE}.n_submit": _SIGN_IN,
    f"{Page.LOCATION}.hash": _SIGN_IN,  # a member link's token, an admin link's passphrase
    f"{GroupPage.DELETE}.n_clicks": _GROUP_WRITE,
    f"{GroupPage.UNDO}.n_clicks": _GROUP_WRITE,
    f"{GroupPage.MAKE_LINK}.n_clicks": _GROUP_WRITE,
    f"{GroupPage.IMPORT_UPLOAD}.contents": _UPLOAD,
    f"{GroupPage.IMPORT_CONFIRM}.n_clicks": _GROUP_WRITE,
    f"{GroupPage.RESTORE_UPLOAD}.contents": _UPLOAD,
    f"{Fit.RUN}.n_clicks": _SEARCHES,
    f"{Fit.COMPARE}.n_clicks": _SEARCHES,
}


#: Callback inputs whose change keeps what the request sends on the server (an upload, an edited history, aliases,
#: a pinned baseline): each such request's size counts against its client's quota of the store (``Store.quota``:
#: 50 MB a day), so one visitor cannot fill the store that everyone's data shares.
ADDS_DATA = frozenset(
    {
        f"{Data.UPLOAD}.contents",
        f"{GroupPage.IMPORT_UPLOAD}.contents",
        f"{Edit.APPLY}.n_clicks",
        f"{Aliases.MERGE}.n_clicks",
        f"{Baseline.PIN}.n_clicks",
    }
)


class _CookieSession(SecureCookieSessionInterface):
    """Flask's signed cookie session, marked ``Secure`` when the request itself came over HTTPS (a local
    ``python app.py`` serves plain HTTP; a PaaS router forwards HTTPS, which ``ProxyFix`` makes visible)."""

    def get_cookie_secure(self, app: Flask) -> bool:
        return bool(request.is_secure) or super().get_cookie_secure(app)


def install(server: Flask, *, proxy_hops: int, update_path: str) -> None:
    """Install the guard on ``server``; ``update_path`` is Dash's callback route (``/_dash-update-component``)."""
    if proxy_hops > 0:
        server.wsgi_app = ProxyFix(server.wsgi_app, x_for=proxy_hops, x_proto=proxy_hops)  # type: ignore[method-assign]
    server.config.update(
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Strict",
        PERMANENT_SESSION_LIFETIME=SIGNED_IN_FOR,
    )
    server.session_interface = _CookieSession()

    @server.before_request
    def _guard() -> Response | None:
        if request.method in ("GET", "HEAD", "OPTIONS"):
            return None
        if _cross_site(request):
            return Response("cross-site requests are refused", status=403, mimetype="text/plain")
        if request.path == update_path:
            return _limited(request)
        return None


def _cross_site(req: Request) -> bool:
    """Whether the browser says the request comes from another site (Fetch Metadata, then the Origin header)."""
    site = req.headers.get("Sec-Fetch-Site")
    if site is not None:
        return site not in ("same-origin", "none")
    origin = req.headers.get("Origin")
    if origin is None:
        return False  # not sent by a browser for a same-origin request of this kind, nor by scripts and tests
    return origin == "null" or urlsplit(origin).netloc.lower() != req.host.lower()


def _limited(req: Request) -> Response | None:
    """The refusal when the request's work is past its client's limit (counting it otherwise)."""
    body = req.get_json(silent=True)
    changed = body.get("changedPropIds") if isinstance(body, dict) else None
    if not isinstance(changed, list):
        return None
    limits = {LIMITS[c] for c in changed if isinstance(c, str) and c in LIMITS}
    adds = any(isinstance(c, str) and c in ADDS_DATA for c in changed)
    if not (limits or adds) or _from_this_machine(req):
        return None
    client = req.remote_addr or "unknown"
    if adds:
        try:
            wait = shared_store().quota(client, req.content_length or len(req.get_data(cache=True)))
        except StoreError as exc:
            return banner_answer(f"Not done: {exc}.", retry_after=60)
        if wait is not None:
            hours = max(1, math.ceil(wait / 3600))
            return banner_answer(
                "Your address has kept as much data on this server as one visitor may in a day (uploads, edits, "
                f"aliases, baselines). Nothing was kept; try again in about {hours} hour{'s' if hours != 1 else ''}.",
                retry_after=math.ceil(wait),
            )
    for limit in sorted(limits, key=lambda lim: lim.name):
        try:
            wait = shared_store().spend(f"limit:{limit.name}:{client}", limit.seconds, limit.count)
        except StoreError as exc:
            return banner_answer(f"Not done: {exc}.", retry_after=60)
        if wait is not None:
            seconds = max(1, math.ceil(wait))
            return banner_answer(
                f"Too many {limit.what} from your address: at most {limit.count} in {limit.seconds:g} seconds. "
                f"Nothing was done; try again in {seconds} second{'s' if seconds != 1 else ''}.",
                retry_after=seconds,
            )
    return None


def _from_this_machine(req: Request) -> bool:
    """Whether the request came straight from a loopback address, through no proxy (``ProxyFix`` keeps the peer's
    own address in ``werkzeug.proxy_fix.orig``)."""
    if "X-Forwarded-For" in req.headers:
        return False
    return is_loopback(req.environ.get("werkzeug.proxy_fix.orig", {}).get("REMOTE_ADDR", req.remote_addr))


def banner_answer(message: str, *, retry_after: int) -> Response:
    """A callback answer that updates none of its outputs and shows ``message`` in the page's error banner (Dash's
    renderer applies ``sideUpdate`` like ``set_props``), with ``Retry-After``."""
    body: dict[str, Any] = {
        "multi": True,
        "response": {},
        "sideUpdate": {Page.ERROR: {"children": message, "is_open": True}},
    }
    return Response(
        json.dumps(body), status=200, mimetype="application/json", headers={"Retry-After": str(retry_after)}
    )
