"""The shareable address: the query string holds the data source, the system and its parameters.

``?sample=poker&system=multielo&k=24&base=1.5`` (or ``sheet=<url>&worksheet=<name>``, or ``data=<content id>&file=
<name>`` for an uploaded or edited history kept on the server, ``edited=1`` for an edit); only parameters that
differ from the defaults are written.  A content id is unguessable without the content (``sources.histories``), so
the link shares the data exactly with whoever is given it.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qsl, urlencode

from dash import Input, Output, callback, clientside_callback

import settings
from layouts.ids import Data, Page, Params
from ratings import SYSTEM_NAMES, get_system

__all__ = ["RESERVED", "build_query", "default_source", "parse_query"]

#: Query keys that are not parameters.
RESERVED = ("sample", "sheet", "worksheet", "data", "file", "edited", "system")


def default_source(config: settings.Settings | None = None) -> dict[str, Any]:
    """The source a fresh page opens on: the host's sheet when configured, else the default sample."""
    config = config or settings.current()
    if config.sheet:
        return {"kind": "sheet", "url": config.sheet, "worksheet": config.worksheet}
    return {"kind": "sample", "name": config.sample}


def _text(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, (list, tuple)):
        return ",".join(f"{float(v):g}" for v in value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:.10g}"
    return str(value)


def build_query(source: dict[str, Any] | None, current: dict[str, Any] | None) -> str:
    """The query string (with ``?``) describing ``source`` and the ``current`` settings."""
    pairs: list[tuple[str, str]] = []
    if source and source.get("kind") == "sample":
        pairs.append(("sample", str(source.get("name"))))
    elif source and source.get("kind") == "sheet":
        pairs.append(("sheet", str(source.get("url"))))
        if source.get("worksheet"):
            pairs.append(("worksheet", str(source["worksheet"])))
    elif source and source.get("kind") == "upload":
        pairs.append(("data", str(source.get("id"))))
        pairs.append(("file", str(source.get("filename"))))
        if source.get("edited"):
            pairs.append(("edited", "1"))
    if current and current.get("system") in SYSTEM_NAMES:
        system = current["system"]
        pairs.append(("system", system))
        params = current.get("params") or {}
        for spec in get_system(system).parameters():
            if spec.name not in params:
                continue
            value = params[spec.name]
            default = list(spec.default) if isinstance(spec.default, tuple) else spec.default
            if value != default:
                pairs.append((spec.name, _text(value)))
    return "?" + urlencode(pairs) if pairs else ""


def parse_query(search: str | None) -> dict[str, Any]:
    """What a query string asks for: ``{"source": dict | None, "system": str | None, "params": {name: text}}``.

    Unknown systems and parameters are ignored (the parameter callback validates the values).
    """
    pairs = dict(parse_qsl((search or "").lstrip("?"), keep_blank_values=True))
    source: dict[str, Any] | None = None
    if pairs.get("sheet"):
        source = {"kind": "sheet", "url": pairs["sheet"], "worksheet": pairs.get("worksheet") or None}
    elif pairs.get("data"):
        source = {"kind": "upload", "id": pairs["data"][:64], "filename": (pairs.get("file") or "shared data")[:200]}
        if pairs.get("edited") == "1":
            source["edited"] = True
    elif pairs.get("sample"):
        source = {"kind": "sample", "name": pairs["sample"]}
    system = pairs.get("system")
    if system not in SYSTEM_NAMES:
        system = None
    params: dict[str, str] = {}
    if system is not None:
        names = {spec.name for spec in get_system(system).parameters()}
        params = {k: v for k, v in pairs.items() if k in names}
    return {"source": source, "system": system, "params": params}


def url_state(search: str | None, config: settings.Settings | None = None) -> tuple[dict[str, Any], str]:
    """The state a page opens with (source defaulted) and the system to select."""
    config = config or settings.current()
    state = parse_query(search)
    if state["source"] is None:
        state["source"] = default_source(config)
    system = state["system"] or (config.system if config.system in SYSTEM_NAMES else SYSTEM_NAMES[0])
    state["system"] = system
    return state, system


# page address (on load) -> url state store, system dropdown
@callback(Output(Page.URL_STATE, "data"), Output(Params.SYSTEM, "value"), Input(Page.LOCATION, "search"))
def read_address(search: str | None) -> tuple[dict[str, Any], str]:
    return url_state(search)


# data source, valid settings -> shareable query and link
@callback(
    Output(Page.SHARE_QUERY, "data"),
    Output(Page.SHARE_LINK, "href"),
    Input(Data.SOURCE, "data"),
    Input(Params.SETTINGS, "data"),
)
def write_address(source: dict[str, Any] | None, current: dict[str, Any] | None) -> tuple[str, str]:
    query = build_query(source, current)
    return query, query or "?"


# shareable query -> browser address bar (no reload, no history entry)
clientside_callback(
    """
    function(query) {
        if (query === undefined || query === null) { return window.dash_clientside.no_update; }
        var target = window.location.pathname + query;
        if (window.location.pathname + window.location.search !== target) {
            window.history.replaceState(window.history.state, "", target);
        }
        return "";
    }
    """,
    Output(Page.URL_WRITER, "children"),
    Input(Page.SHARE_QUERY, "data"),
)
