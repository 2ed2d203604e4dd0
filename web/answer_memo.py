"""Which callbacks the app answers from the shared memo of answers (:mod:`sources.answers`), and the hooks that do it.

:data:`DECLARED` names each memoisable callback by one of its outputs (ids from :mod:`layouts.ids`) with the reason
its answer follows from the request alone: no per-user server state, no randomness, no clock, no writes.  A callback
not declared is computed for every request as before; two are deliberately absent: the record form's (it hands each
visitor a fresh submission token) and the settings' (a page's first settings draw the page's own random id, by which
its older work is stopped; :mod:`sources.generations`).  Drawing either marks an answer as not to be kept, too.
What an answer reads that may change (a Google Sheet's shared copy) is noted while it is computed and checked on
every hit; an answer that wrote to the store or met an error is not kept (:mod:`sources.answers`).

:func:`install` registers the hooks on the Flask server (before the overload gate, so a memoised answer is never
refused): a hit is sent as the stored compressed bytes, with ``X-Ratings-Answer: hit``; a miss is computed once while
identical requests (any worker) wait for it, then kept compressed (``X-Ratings-Answer: kept``).  Under the threaded
worker (:mod:`serving`) a hit is found on arrival and served on the light lane.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from layouts.ids import (
    Aliases,
    Baseline,
    Compare,
    Data,
    DateRange,
    Edit,
    Evaluate,
    GamesList,
    Page,
    Params,
    PlayerPage,
    Predict,
    ScoreFn,
    Standings,
)
from sources.answers import (
    ENVIRON,
    HEADER,
    AnswerMemo,
    Found,
    Missed,
    code_version,
    encode,
    encoding_for,
    tracking,
)
from sources.model import GROUP_VERSION
from web.static_files import with_body

__all__ = ["DECLARED", "Declared", "install", "memoisable_keys", "process_memo"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Declared:
    """A memoisable callback, named by one of its outputs (component id and property), and why it may be."""

    component: str
    prop: str
    why: str
    #: Inputs (component, property) whose values are left out of the key: they decide whether the callback runs at
    #: all (a page's change number), never what it answers.
    unkeyed: tuple[tuple[str, str], ...] = ()

    @property
    def output(self) -> str:
        return f"{self.component}.{self.prop}"


_SOURCE = "reads the data source named in the request (a sample, or content kept by id; a sheet's copy is checked)"

#: The callbacks whose answers are memoised (see the module docstring for what each must satisfy).
DECLARED: tuple[Declared, ...] = (
    Declared(Page.URL_STATE, "data", "parses the address's query, which is in the request"),
    Declared(Params.CONTROLS, "children", "draws the chosen system's controls from its parameter declarations"),
    Declared(Data.SOURCE, "data", f"{_SOURCE}; an upload or a sheet read writes to the store and is not kept"),
    Declared(DateRange.FROM, "value", "shows the season carried in the source sent"),
    Declared(
        Standings.LEADERBOARD,
        "rowData",
        f"{_SOURCE} and rates it with the settings sent; the page's change number (its own random page id) only "
        "lets the page's older work stop early (a superseded request answers 204, which is never kept), so it is "
        "left out of the key, and on a hit there is no work left to stop",
        unkeyed=((Standings.GENERATION, "data"),),
    ),
    Declared(Standings.PLAYERS, "options", f"{_SOURCE}; lists its players"),
    Declared(Standings.GAME, "options", f"{_SOURCE}; lists its games and the players of the game shown"),
    Declared(Page.SHARE_VIEW, "data", "writes the view's part of the shareable address from the values sent"),
    Declared(Standings.TRAJECTORIES, "config", "names the charts' picture files after the source and system sent"),
    Declared(Baseline.UNPIN, "disabled", "describes the pinned baseline sent (kept by content id)"),
    Declared(Aliases.SUSPECTS, "children", f"{_SOURCE}; its aliases are kept by content id"),
    Declared(Edit.GRID, "rowData", f"{_SOURCE}; the grid's rows of it (the edit state comes in the request)"),
    Declared(GamesList.PLAYER, "options", f"{_SOURCE}; the Games tab's filters"),
    Declared(GamesList.GRID, "rowData", f"{_SOURCE}; the Games tab's page of games"),
    Declared(GamesList.GAME, "children", f"{_SOURCE}; one game of the Games tab"),
    Declared(PlayerPage.PLAYER, "options", f"{_SOURCE}; the Player tab's picker"),
    Declared(PlayerPage.SUMMARY, "children", f"{_SOURCE}; the Player tab"),
    Declared(PlayerPage.GAME, "options", f"{_SOURCE}; the Player tab's games"),
    Declared(Predict.PLAYERS, "options", f"{_SOURCE}; the Predictions tab's picker"),
    Declared(Predict.FIGURE, "figure", f"{_SOURCE}; the Predictions tab's chart"),
    Declared(Evaluate.PANEL, "children", f"{_SOURCE}; the Predictions tab's metrics"),
    Declared(ScoreFn.FIGURE, "figure", "draws the system's score function for the settings sent"),
    Declared(Compare.GRID, "rowData", f"{_SOURCE}; the Compare tab (every system at its settings sent)"),
)


def _plain_outputs(key: str) -> list[str]:
    """The outputs of a key that are not duplicate outputs (Dash appends ``@<hash>`` to those)."""
    parts = key.strip(".").split("...") if key.startswith("..") else [key]
    return [part for part in parts if "@" not in part]


def memoisable_keys(callback_map: Mapping[str, Any]) -> tuple[dict[str, Declared], list[str]]:
    """The callback map keys of the declared callbacks (server-side callbacks only, background ones excluded), and
    the declarations that name no callback or more than one (a problem the tests report)."""
    found: dict[str, Declared] = {}
    problems = []
    for declared in DECLARED:
        keys = [
            key
            for key, spec in callback_map.items()
            if declared.output in _plain_outputs(key)
            and isinstance(spec, dict)
            and "callback" in spec
            and not spec.get("background")
        ]
        if len(keys) != 1:
            problems.append(f"{declared.output}: {len(keys)} callbacks")
            continue
        found[keys[0]] = declared
    return found, problems


_process_memo: AnswerMemo | None = None


def process_memo() -> AnswerMemo | None:
    """The memo of this process's app (set by :func:`install`), None before."""
    return _process_memo


def install(app: Any, *, enabled: bool = True) -> AnswerMemo:
    """Serve the declared callbacks of ``app`` from the memo (register before the overload gate, so that a
    memoised answer is never refused); the memo (declarations that name no callback or several are logged)."""
    from flask import Response, g, request

    server = app.server

    def kinds() -> dict[str, list[str]]:
        # Dash moves the callbacks declared with the global ``@callback`` into the app on its first request (which
        # security.protect() serves at start-up), so the keys are looked up on first use, not now.
        found, problems = memoisable_keys(app.callback_map)
        for problem in problems:
            log.warning("answer memo: the declaration %s; not memoised", problem)
        return {key: [f"{component}.{prop}" for component, prop in d.unkeyed] for key, d in found.items()}

    def group_version(key: str) -> bytes | None:
        from sources.groups.pages import version_of  # the groups' database is opened only when a group is read

        return version_of(key)

    memo = AnswerMemo(kinds, code_version(), checks={GROUP_VERSION: group_version})
    memo.enabled = enabled
    global _process_memo
    _process_memo = memo
    update = (app.config.routes_pathname_prefix or "/") + "_dash-update-component"

    def answer(found: Found) -> Response:
        response = with_body(Response(status=200, mimetype="application/json"), found.data, found.encoding)
        response.headers[HEADER] = "hit"
        response.vary.add("Accept-Encoding")
        return response

    @server.before_request
    def _memoised() -> Response | None:
        if request.method != "POST" or request.path != update or "job" in request.args:
            return None
        handed = request.environ.get(ENVIRON)
        if isinstance(handed, Found):  # found by the threaded worker on arrival (serving.py)
            return answer(handed)
        encoding = encoding_for(request.headers.get("Accept-Encoding"))
        if isinstance(handed, Missed):  # looked up on arrival and not there: straight to the claim (it looks again)
            name, found = handed.name, None
        else:
            body = request.get_json(silent=True)
            kind = body.get("output") if isinstance(body, dict) else None
            named = memo.name(kind, body, request.content_length or 0)
            if named is None:
                return None
            name, found = named, memo.find(named, encoding)
        if found is None:
            held, found = memo.claim(name, encoding)
            if found is None:
                g.ratings_answer = (name, encoding, held, tracking())
                g.ratings_answer[3].__enter__()
                return None
        return answer(found)

    @server.after_request
    def _keep(response: Response) -> Response:
        pending = g.get("ratings_answer")
        if pending is None:
            return response
        name, encoding, _held, tracker = pending
        if (
            response.status_code != 200
            or response.mimetype != "application/json"
            or "Content-Encoding" in response.headers
            or response.headers.get("Retry-After")
        ):
            return response
        data = encode(response.get_data(), encoding)
        if memo.keep(name, data, encoding, tracker.reads):
            response.headers[HEADER] = "kept"
        # compressed here once; flask-compress leaves an encoded answer alone
        return with_body(response, data, encoding) if encoding else response

    @server.teardown_request
    def _release(_exc: BaseException | None) -> None:
        pending = g.pop("ratings_answer", None)
        if pending is None:
            return
        name, _encoding, held, tracker = pending
        tracker.__exit__(None, None, None)
        if held:
            memo.release(name)

    return memo
