"""Callbacks, one module per feature; importing a module registers its ``@callback`` functions.

Each callback is a short adapter from JSON inputs to a pure function that is tested on its own.
A new feature adds its module to :data:`FEATURES`.
"""

from __future__ import annotations

import importlib

__all__ = ["FEATURES", "register"]

#: Feature modules whose callbacks the app registers.
FEATURES = (
    "page",
    "gates",
    "url",
    "data",
    "params",
    "standings",
    "baseline",
    "edit",
    "record",
    "predict",
    "evaluate",
    "downloads",
    "fit",
    "games",
    "player",
    "compare",
    "aliases",
    "group",
)


def register() -> None:
    """Import every feature module so that its callbacks are registered with Dash."""
    for name in FEATURES:
        importlib.import_module(f"callbacks.{name}")
