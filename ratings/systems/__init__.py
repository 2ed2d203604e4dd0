"""The registry of rating systems: one name per system, read by the CLI, the app and the tests.

Systems are imported on first use, so importing :mod:`ratings` stays cheap.
"""

from __future__ import annotations

import importlib
from typing import Any

from ratings.base import RatingSystem

__all__ = ["SYSTEM_NAMES", "UnknownSystemError", "create", "get_system"]

# name -> (module, class).  The order is the order menus show.
_REGISTRY: dict[str, tuple[str, str]] = {
    "multielo": ("ratings.systems.multielo", "MultiElo"),
    "pairwise-elo": ("ratings.systems.pairwise", "PairwiseElo"),
    "plackett-luce": ("ratings.systems.plackett_luce", "PlackettLuce"),
    "thurstonian": ("ratings.systems.thurstonian", "Thurstonian"),
    "trueskill": ("ratings.systems.trueskill", "TrueSkill"),
    "glicko2": ("ratings.systems.glicko2", "Glicko2"),
    "elo-mmr": ("ratings.systems.elo_mmr", "EloMMR"),
}

SYSTEM_NAMES: tuple[str, ...] = tuple(_REGISTRY)


class UnknownSystemError(KeyError):
    """A system name that is not in the registry."""

    def __init__(self, name: str) -> None:
        self.name = name
        super().__init__(name)

    def __str__(self) -> str:
        return f"unknown rating system '{self.name}'; valid systems are {', '.join(SYSTEM_NAMES)}"


def get_system(name: str) -> type[RatingSystem]:
    """The class registered under ``name``; raises :class:`UnknownSystemError` listing valid names."""
    try:
        module_name, class_name = _REGISTRY[name]
    except KeyError:
        raise UnknownSystemError(name) from None
    cls: type[RatingSystem] = getattr(importlib.import_module(module_name), class_name)
    return cls


def create(name: str, **params: Any) -> RatingSystem:
    """An instance of system ``name`` with the given parameters (defaults for the rest)."""
    return get_system(name)(**params)
