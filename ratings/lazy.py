"""Modules imported when first used: what keeps ``import ratings`` and a command's start cheap.

:func:`lazy_module` gives a module object whose code runs on its first attribute access (the standard library's
:class:`importlib.util.LazyLoader`).  Used for ``scipy.special``, which costs about 0.3 s of CPU to import and which
only some systems' reference paths and prediction reach; a multiplayer Elo replay never does.
"""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType

__all__ = ["lazy_module"]


def lazy_module(name: str) -> ModuleType:
    """The module ``name``, loaded (its code run) when an attribute of it is first read; the module itself when
    it is already imported."""
    loaded = sys.modules.get(name)
    if loaded is not None:
        return loaded
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None:
        raise ImportError(f"no module named {name!r}")
    loader = importlib.util.LazyLoader(spec.loader)
    spec.loader = loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    loader.exec_module(module)
    return module
