"""The page: a header, the control column and the feature tabs.

How features plug in
--------------------
A tab is three files, found by name (nothing else lists it):

- ``layouts/ids.py``: its ``Tab`` member (the members' order is the tabs' order on the page), an Enum class of its
  component ids, and a ``TabBody`` / ``Gate`` member if it is mounted lazily / computes only while open;
- ``layouts/<feature>.py`` with a ``tab() -> dbc.Tab`` function (its content, no I/O at import time); every module
  of this package with a ``tab`` function is a tab (:func:`tab_builders`);
- ``callbacks/<feature>.py`` with its ``@callback`` functions, each a short adapter to a pure function (every module
  of ``callbacks`` is registered, :data:`callbacks.FEATURES`).

A tab named in ``layouts.ids.LAZY_TABS`` is mounted only when first opened: the page holds an empty box in its place
(:func:`layout`), and ``callbacks.page`` puts :func:`tab_content` into it the first time the tab opens, where it
then stays (so what the user typed in it survives switching tabs).  Its callbacks that show the current state fire
when their outputs mount (``prevent_initial_call=False``: they are not on the first page, so that costs the first
page nothing); a callback with an input in such a tab and an output outside it fires on the mount too, with that
input's initial value, and must ignore it (a button's ``n_clicks`` of ``None``).  Shared state lives in the stores
made here: ``Data.SOURCE`` (where the history comes from), ``Params.SETTINGS`` (the valid system and parameters in
use), ``Baseline.STORE`` (the pinned settings, or nothing); ``callbacks.runs.run_for`` turns a source and settings
into a rating run.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
from collections.abc import Callable
from typing import Any

import dash_bootstrap_components as dbc
from dash import dcc, html

import layouts
from layouts import downloads as downloads_layout
from layouts import group as group_layout
from layouts.aliases import suspects_box
from layouts.controls import controls_column
from layouts.ids import GATED_TABS, LAZY_TABS, Baseline, Data, Page, Params, Tab, tab_body, tab_gate
from sources import settings

__all__ = ["full_layout", "layout", "sample_names", "tab_builders", "tab_content"]


@functools.cache
def tab_builders() -> dict[Tab, Callable[[], dbc.Tab]]:
    """Each feature tab's builder (a ``tab`` function of a module of this package), in the order of ``Tab``.

    Each tab is built once per process, to read its ``tab_id``.  A ``Tab`` member without a module, or two modules
    building one tab, is a programming error named here.
    """
    found: dict[Tab, Callable[[], dbc.Tab]] = {}
    for info in pkgutil.iter_modules(layouts.__path__):
        make = getattr(importlib.import_module(f"layouts.{info.name}"), "tab", None)
        if callable(make):
            tab = Tab(make().tab_id)
            if tab in found:
                twice = f"{found[tab].__module__} and layouts.{info.name}"
                raise RuntimeError(f"two layouts build the tab {tab!r}: {twice}")
            found[tab] = make
    missing = [str(t) for t in Tab if t not in found]
    if missing:
        raise RuntimeError(f"no layout builds the tab(s) {', '.join(missing)} (a module with a tab() function)")
    return {t: found[t] for t in Tab}


def sample_names() -> list[str]:
    """Names of the bundled samples."""
    from ratings.samples import SAMPLES

    return list(SAMPLES)


def _tabs(*, mounted: bool) -> list[dbc.Tab]:
    """Every feature's tab; unless ``mounted``, a lazy tab holds only the box its content goes in."""
    tabs = [make() for make in tab_builders().values()]
    for tab in tabs:
        if tab.tab_id in LAZY_TABS:
            waiting = html.Div("Opening…", className="small text-muted pt-2")
            tab.children = html.Div(tab.children if mounted else waiting, id=tab_body(Tab(tab.tab_id)))
    return tabs


def tab_content(tab: Tab) -> Any:
    """What the box of ``tab`` (one of :data:`layouts.ids.LAZY_TABS`) gets the first time the tab opens: only that
    tab is built."""
    return tab_builders()[tab]().children


def layout() -> html.Div:
    """The whole page (built per page load, so nothing here is shared between users); the lazy tabs empty."""
    return _page(mounted=False)


def full_layout() -> html.Div:
    """The page with every tab's content in place: every component a callback may name (the tests check this)."""
    return _page(mounted=True)


def _page(*, mounted: bool) -> html.Div:
    config = settings.current()
    samples = sample_names()
    tabs = _tabs(mounted=mounted)
    sample = config.sample if config.sample in samples else (samples[0] if samples else None)
    header = dbc.Navbar(
        dbc.Container(
            [
                html.Span("Game-group ratings", className="navbar-brand mb-0 h1"),
                group_layout.header(),
                dbc.Button(
                    "Settings",
                    id=Page.CONTROLS_TOGGLE,
                    color="light",
                    size="sm",
                    className="d-lg-none",
                    title="Show or hide the controls",
                ),
            ],
            fluid=True,
        ),
        color="dark",
        dark=True,
        className="mb-2 py-1",
    )
    status = html.Div(
        [
            group_layout.bar(),
            html.Div(id=Data.SUMMARY, className="small"),
            html.Div(id=Data.MESSAGES),
            suspects_box(),
            dbc.Alert(id=Page.ERROR, color="danger", dismissable=True, is_open=False, className="small py-1 mb-1"),
            # values of the page address that were not used, and why (callbacks/params.py)
            dbc.Alert(
                id=Params.LINK_ERROR, color="warning", dismissable=True, is_open=False, className="small py-1 mb-1"
            ),
            downloads_layout.bar(),
        ],
        className="mb-2 status",
    )
    body = dbc.Container(
        dbc.Row(
            [
                dbc.Col(
                    dbc.Collapse(
                        controls_column(samples, sample, config.system),
                        id=Page.CONTROLS_COLLAPSE,
                        is_open=False,
                        className="d-lg-block",
                    ),
                    lg=4,
                    xl=3,
                ),
                dbc.Col(
                    [status, dbc.Tabs(tabs, id=Page.TABS, active_tab=Tab.STANDINGS)],
                    lg=8,
                    xl=9,
                ),
            ],
            className="g-3",
        ),
        fluid=True,
    )
    stores = [
        dcc.Location(id=Page.LOCATION, refresh=False),
        dcc.Store(id=Page.URL_STATE),
        dcc.Store(id=Page.SHARE_PARAMS),
        dcc.Store(id=Page.SHARE_VIEW),
        dcc.Store(id=Data.SOURCE),
        dcc.Store(id=Params.SETTINGS),
        dcc.Store(id=Baseline.STORE),
        *[dcc.Store(id=tab_gate(tab)) for tab in GATED_TABS],
        dcc.Store(id=Page.MOUNTED, data=[]),  # the lazy tabs whose content is in place
    ]
    return html.Div([header, body, *stores])
