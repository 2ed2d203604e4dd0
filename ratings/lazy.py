"""Modules imported when first used: what keeps ``import ratings`` and a command's start cheap.

:func:`lazy_module` gives a stand-in whose first attribute read imports the module through the ordinary import
system and answers from it.  Used for ``scipy.special``, which costs about 0.3 s of CPU to import and which only some
systems' reference paths and prediction reach (a multiplayer Elo replay never does), and for the groups' pages,
which bring SQLAlchemy.

The standard library's :class:`importlib.util.LazyLoader` is not used: before Python 3.12.3 (CPython issue
gh-114763) it marks the module loaded before its code has run, so a second thread of a threaded web worker reading
the module meanwhile found it half-filled (``cannot import name ...``).  The import system's own per-module locks
make the second thread wait for the first.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from types import ModuleType
from typing import Any

__all__ = ["lazy_module"]


class _Deferred(ModuleType):
    """A module's stand-in: an attribute it does not have is read from the module, imported on first need."""

    def __getattr__(self, attr: str) -> Any:
        name = self.__name__
        module = sys.modules.get(name)
        if module is None or getattr(module.__spec__, "_initializing", False):
            module = importlib.import_module(name)  # waits for a thread importing it now
        return getattr(module, attr)


def lazy_module(name: str) -> ModuleType:
    """The module ``name`` when it is already imported; else a stand-in that imports it when an attribute of it is
    first read.  A name that no module has is an :class:`ImportError` at once."""
    loaded = sys.modules.get(name)
    if loaded is not None:
        return loaded
    if importlib.util.find_spec(name) is None:
        raise ImportError(f"no module named {name!r}")
    return _Deferred(name)
