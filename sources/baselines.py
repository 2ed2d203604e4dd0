"""What if: a pinned baseline (a source, a system and its parameters) to compare the current view with.

A baseline travels as JSON (``{"source", "system", "params", "label"}``) in the browser's store and, for the
shareable address, is kept on the server by content (:func:`view_id`, :func:`from_view`).  Whatever arrives from
the browser or the address is checked again (:func:`checked`) before it is used.
"""

from __future__ import annotations

from typing import Any

from ratings import SYSTEM_NAMES, get_system
from sources.histories import MissingHistory, fetch_json, keep_json
from sources.model import DataError, parse_source
from sources.reading import describe_source
from sources.runs import settings_of
from sources.store import StoreError
from sources.views import view_of, with_view

__all__ = ["UNPINNED_TEXT", "baseline_label", "checked", "from_view", "pin", "status", "use_fitted", "view_id"]

UNPINNED_TEXT = (
    "Pin the current system and parameters, then change them: the baseline is drawn dashed and the "
    "leaderboard shows rank shifts."
)


def baseline_label(system: str, params: dict[str, Any]) -> str:
    """A short name of pinned settings: the system's title and the parameters that differ from the defaults."""
    changed = []
    for spec in get_system(system).parameters():
        value = params.get(spec.name, spec.default)
        default = list(spec.default) if isinstance(spec.default, tuple) else spec.default
        if value != default:
            shown = ",".join(f"{v:g}" for v in value) if isinstance(value, list) else value
            changed.append(f"{spec.name}={shown:g}" if isinstance(shown, float) else f"{spec.name}={shown}")
    title = get_system(system).title
    return f"{title} ({', '.join(changed)})" if changed else f"{title} (defaults)"


def pin(source: dict[str, Any] | None, current: dict[str, Any] | None) -> dict[str, Any] | None:
    """The baseline to store: a copy of the source and the valid settings, with a label (``None`` if not ready)."""
    if not source or not current:
        return None
    return checked({"source": source, "system": current.get("system"), "params": current.get("params")})


def view_id(pinned: Any) -> str | None:
    """Keep a pinned baseline on the server (by content) for the address; its id, or None when nothing is pinned."""
    clean = checked(pinned)
    if clean is None:
        return None
    try:
        return keep_json("view", clean)
    except StoreError:
        return None


def from_view(cid: Any) -> dict[str, Any] | None:
    """The pinned baseline an address names, or None (unknown, expired or malformed)."""
    try:
        return checked(fetch_json("view", cid))
    except (MissingHistory, StoreError, ValueError):
        return None


def checked(pinned: Any) -> dict[str, Any] | None:
    """A pinned baseline with a readable source and valid settings, as JSON (from an untrusted store or address)."""
    settings = settings_of(pinned)
    if settings is None or not isinstance(pinned, dict):
        return None
    try:
        raw = pinned.get("source")
        source = with_view(parse_source(raw).to_json(), view_of(raw))  # the view (aliases, season) pinned too
    except DataError:
        return None
    system, params = settings
    return {"source": source, "system": system, "params": params, "label": baseline_label(system, params)}


def _same_data(a: Any, b: Any) -> bool:
    try:
        return parse_source(a).to_json() == parse_source(b).to_json()
    except DataError:
        return False


def status(pinned: Any, source: Any = None) -> tuple[bool, str]:
    """Whether Unpin is disabled, and the status line, for the baseline store's value and the data in use.

    A baseline pinned on other data than ``source`` says so: its rank shifts compare only the players both
    histories have, by name, and its dashed lines follow that data's games.
    """
    clean = checked(pinned)
    if clean is None:
        return True, UNPINNED_TEXT
    head = f"Baseline: {clean['label']} on {describe_source(clean['source'])}."
    if source is None or _same_data(clean["source"], source):
        return False, head + " Dashed lines show it."
    return False, (
        f"{head} It belongs to other data than the one in use ({describe_source(source)}): rank shifts compare "
        "only the players both have, by name, and its dashed lines follow that data's games."
    )


def use_fitted(system: Any, result: Any, source: Any, current: Any) -> tuple[Any, Any, Any] | None:
    """What using a fitted result (``result``, a fit or a comparison of systems, as the browser holds it) for
    ``system`` leads to: the current settings pinned as the baseline, the system, and the address state that builds
    its controls with the fitted values; None if the result names no fitted values for ``system``."""
    if system not in SYSTEM_NAMES or not isinstance(result, dict):
        return None
    if result.get("kind") == "fit" and result.get("system") == system:
        params = result.get("fitted")
    else:
        params = next((r.get("fitted") for r in result.get("rows", []) if r.get("system") == system), None)
    if not isinstance(params, dict):
        return None
    return pin(source, current), system, {"source": source, "system": system, "params": params}
