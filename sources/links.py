"""The link codec: the shareable address, whose query string holds the data source, the system and its parameters.

``?sample=poker&system=multielo&k=24&base=1.5`` (or ``sheet=<url>&worksheet=<name>``, or ``data=<content id>&file=
<name>`` for an uploaded history kept on the server, ``data=<content id>&edited=1&from_sample=poker`` for an edit
of a sample; ``aliases=<id>&from=<date>&to=<date>&last=<n>`` for the view, see ``sources.views``; ``tab=player`` for
a tab other than the Standings); only parameters that differ from the defaults are written.  A content id is
unguessable without the content (``sources.histories``), so the link shares the data exactly with whoever is given
it.

The page's tabs are the layout's (``layouts.ids.Tab``): the functions that read or write a tab take their names,
the first being the page's default (never written).  The browser joins the query's two parts with
``layouts.clientside.JOIN_QUERY_JS``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from urllib.parse import parse_qsl, urlencode

from ratings import SYSTEM_NAMES, get_system
from sources import settings
from sources.baselines import view_id
from sources.model import DataError, Sample, Sheet, parse_source, source_from_query
from sources.runs import parse_params
from sources.views import View, view_of

__all__ = [
    "DEFAULT_MIN_GAMES",
    "RESERVED",
    "address_values",
    "build_query",
    "default_source",
    "display_pairs",
    "link_params",
    "parse_query",
    "settings_pairs",
    "share_text",
    "unused_line",
    "url_state",
    "view_part",
]

#: The minimum-games box's value on a fresh page.
DEFAULT_MIN_GAMES = 1

#: Query keys that are not parameters.
RESERVED = (
    "sample",
    "sheet",
    "worksheet",
    "data",
    "file",
    "edited",
    "from_sample",
    "from_sheet",
    "from_worksheet",
    "from_data",
    "from_file",
    "system",
    "min",
    "x",
    "pin",
    "aliases",
    "from",
    "to",
    "last",
    "tab",
)


def default_source(config: settings.Settings | None = None) -> dict[str, Any]:
    """The source a fresh page opens on: the host's sheet when configured, else the default sample."""
    config = config or settings.current()
    if config.sheet:
        return Sheet(config.sheet, config.worksheet).to_json()
    return Sample(config.sample).to_json()


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


def _source_pairs(source: Any) -> list[tuple[str, str]]:
    try:
        return parse_source(source).query() + view_of(source).query()  # the view: aliases' id, season
    except DataError:
        return []


def settings_pairs(current: dict[str, Any] | None) -> list[tuple[str, str]]:
    """The query pairs of the ``current`` settings: the system and every parameter that differs from its default."""
    if not current or current.get("system") not in SYSTEM_NAMES:
        return []
    system = current["system"]
    pairs = [("system", system)]
    params = current.get("params") or {}
    for spec in get_system(system).parameters():
        if spec.name not in params:
            continue
        value = params[spec.name]
        default = list(spec.default) if isinstance(spec.default, tuple) else spec.default
        if value != default:
            pairs.append((spec.name, _text(value)))
    return pairs


def display_pairs(
    min_games: Any = None,
    *,
    by_date: bool = False,
    pin: str | None = None,
    tab: Any = None,
    tabs: Sequence[str] = (),
) -> list[tuple[str, str]]:
    """The query pairs of the display settings: minimum games when not the default 1, trajectories by date, the
    pinned baseline's id, the open tab when it is one of ``tabs`` but the first (the page's default)."""
    pairs = []
    if isinstance(min_games, int) and not isinstance(min_games, bool) and min_games != DEFAULT_MIN_GAMES:
        pairs.append(("min", str(min_games)))
    if by_date:
        pairs.append(("x", "date"))
    if pin:
        pairs.append(("pin", pin))
    if isinstance(tab, str) and tab in tabs[1:]:
        pairs.append(("tab", tab))
    return pairs


def build_query(
    source: dict[str, Any] | None,
    current: dict[str, Any] | None,
    *,
    min_games: Any = None,
    by_date: bool = False,
    pin: str | None = None,
    tab: Any = None,
    tabs: Sequence[str] = (),
) -> str:
    """The query string (with ``?``): ``source``, the ``current`` settings and the display settings.

    The page writes the same string from two parts, each with one writer (:data:`JOIN_QUERY_JS`): the settings
    part (:func:`settings_pairs`, with the settings) and the view part (the source's pairs before it, the display
    pairs after it); ``tabs`` as for :func:`display_pairs`."""
    pairs = _source_pairs(source) if source is not None else []
    pairs += settings_pairs(current) + display_pairs(min_games, by_date=by_date, pin=pin, tab=tab, tabs=tabs)
    return "?" + urlencode(pairs) if pairs else ""


def view_part(
    source: Any, min_games: Any, x_axis: Any, pinned: Any, tab: Any = None, *, tabs: Sequence[str] = ()
) -> dict[str, str]:
    """The view's part of the shareable query: ``{"head": the source's pairs, "tail": the display pairs}``, each
    url-encoded (the settings' part goes between them; :data:`layouts.clientside.JOIN_QUERY_JS` joins them)."""
    head = _source_pairs(source) if source is not None else []
    tail = display_pairs(min_games, by_date=x_axis == "date", pin=view_id(pinned), tab=tab, tabs=tabs)
    return {"head": urlencode(head), "tail": urlencode(tail)}


def parse_query(search: str | None, *, tabs: Sequence[str]) -> dict[str, Any]:
    """What a query string asks for: ``{"source": dict | None, "system": str | None, "params": {name: text}}``.

    An unknown system, a minimum number of games that is not a whole number and a tab not among ``tabs`` are not
    used, and ``"unused"`` says so (a line each for the page; ``callbacks.url.read_address`` adds a pinned baseline
    it cannot find);
    unknown parameter names are ignored (a shared link picks up keys such as ``fbclid`` on the way), the values of
    known ones are validated by the parameter callback; a data id is passed on as it is and checked when the data
    is read.
    """
    pairs = dict(parse_qsl((search or "").lstrip("?"), keep_blank_values=True))
    source = source_from_query(pairs)
    view = View.from_query(pairs)
    if source is not None and view is not None:
        source["view"] = view
    system = pairs.get("system")
    unused = []
    if system not in SYSTEM_NAMES:
        if system:
            reason = f"there is no rating system of that name (the systems are {', '.join(SYSTEM_NAMES)})"
            unused.append(unused_line("system", system, reason))
        system = None
    params: dict[str, str] = {}
    if system is not None:
        names = {spec.name for spec in get_system(system).parameters()}
        params = {k: v for k, v in pairs.items() if k in names}
    min_text = pairs.get("min", "")
    min_games = int(min_text) if min_text.isascii() and min_text.isdigit() and len(min_text) < 7 else None
    if min_text and min_games is None:
        unused.append(unused_line("min", min_text, "the minimum number of games is a whole number from 0 to 999999"))
    tab = pairs.get("tab")
    if tab and tab not in tabs:
        unused.append(unused_line("tab", tab, f"there is no tab of that name (the tabs are {', '.join(sorted(tabs))})"))
    return {
        "source": source,
        "view": view,  # also in the source when the link names one; else for the default source (url_state)
        "system": system,
        "params": params,
        "min_games": min_games,
        "x": "date" if pairs.get("x") == "date" else None,
        "pin": (pairs.get("pin") or "")[:64] or None,
        "tab": tab if tab in tabs else None,
        "unused": unused,
    }


def link_params(system: str, texts: dict[str, str]) -> tuple[dict[str, Any], list[str]]:
    """The address's parameter values for ``system`` that are valid together, and one line per value left out.

    Each line says which parameter, what value and why (the declaration's valid interval, or the rule between
    parameters it breaks); the rest of the link still applies.  Values are dropped one at a time, the one
    the validator names first, so two values that are only valid together both stay.
    """
    remaining = dict(texts)
    problems: list[str] = []
    while remaining:
        ok, error = parse_params(system, remaining)
        if ok is not None:
            return ok, problems
        culprit = _named(error, remaining)
        if culprit is None:  # a rule names a parameter the link leaves at its default: test each value alone
            kept = {name: text for name, text in remaining.items() if parse_params(system, {name: text})[0]}
            for name in remaining.keys() - kept.keys():
                problems.append(unused_line(name, remaining[name], parse_params(system, {name: remaining[name]})[1]))
            if kept == remaining:  # each alone is fine, together they are not: use none of them
                problems += [unused_line(n, t, error) for n, t in remaining.items()]
                return {}, problems
            remaining = kept
            continue
        problems.append(unused_line(culprit, remaining.pop(culprit), error))
    return {}, problems


def _named(error: str | None, texts: dict[str, str]) -> str | None:
    for name in texts:
        if (error or "").startswith(f"parameter '{name}':"):
            return name
    return None


def unused_line(name: str, text: str, error: str | None) -> str:
    """The page's line for a link's ``name=text`` that was not used, and why."""
    shown = text if len(text) <= 40 else text[:40] + "…"
    reason = (error or "").removeprefix(f"parameter '{name}': ")
    return f"The link's {name}={shown} was not used: {reason}."


def url_state(
    search: str | None, config: settings.Settings | None = None, *, tabs: Sequence[str]
) -> tuple[dict[str, Any], str]:
    """The state a page opens with (source defaulted) and the system to select (``tabs``: the page's tabs)."""
    config = config or settings.current()
    state = parse_query(search, tabs=tabs)
    if state["source"] is None:  # the page's default data, with the link's season and aliases if it has them
        source = default_source(config)
        if state["view"] is not None:
            source["view"] = state["view"]
        state["source"] = source
    system = state["system"] or (config.system if config.system in SYSTEM_NAMES else SYSTEM_NAMES[0])
    state["system"] = system
    return state, system


def share_text(source: Any) -> str:
    """What a link to the current view holds, said plainly for the kind of data."""
    parts = ["the rating system", "every changed parameter", "the display settings", "the pinned baseline"]
    try:
        view = view_of(source)
    except DataError:
        view = View()
    if view.aliases is not None:
        parts.append("the group's aliases")
    if not view.season.whole:
        parts.append(f"the season ({view.season})")
    rest = ", ".join(parts[:-1]) + " and " + parts[-1]
    try:
        typed = parse_source(source)
    except DataError:
        return f"The link holds {rest}."
    return f"The link holds {type(typed).link_holds}, {rest}."


def address_values(system: str, *, reset: bool, url_state: dict[str, Any] | None) -> tuple[dict[str, Any], list[str]]:
    """The page address's valid parameter values when it names ``system`` (none after a reset), and what
    was left out and why (an unknown system too: the page opened on ``system`` instead)."""
    if reset or not url_state or url_state.get("system") != system:
        return {}, []
    values, problems = link_params(system, url_state.get("params") or {})
    return values, [*(url_state.get("unused") or []), *problems]
