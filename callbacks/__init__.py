"""Callbacks, one module per feature; importing a module registers its ``@callback`` functions.

Each callback is a short adapter from JSON inputs to a pure function that is tested on its own.
Every module here is registered (:data:`FEATURES`): a new feature is a new module.
"""

from __future__ import annotations

import importlib
import pkgutil

__all__ = ["FEATURES", "register"]

#: Every module of this package (each feature's callbacks; ``runs`` is their shared adapter): a new feature's module
#: is registered by being here.
FEATURES = tuple(sorted(info.name for info in pkgutil.iter_modules(__path__)))


def register() -> None:
    """Import every feature module so that its callbacks are registered with Dash."""
    for name in FEATURES:
        importlib.import_module(f"callbacks.{name}")
