"""Rating systems for multiplayer games: a game-history model, the systems and their metrics.

Pure Python on numpy, scipy and pandas; imports neither Dash nor plotly.

>>> from ratings import GameHistory, create
>>> history = GameHistory.from_records([
...     {"game": "g1", "player": "Ann", "place": 1},
...     {"game": "g1", "player": "Bob", "place": 2},
... ])
>>> run = create("multielo").rate(history)
>>> [round(r, 2) for r in run.final]
[1016.0, 984.0]
"""

#: The library's version (the one declaration: pyproject.toml reads it).
__version__ = "0.2.0"

from ratings.base import ComputationError, GameView, RatingRun, RatingSystem
from ratings.history import Entry, Game, GameHistory, HistoryError, Problem
from ratings.io.files import read_file
from ratings.params import ParameterError, ParamSpec
from ratings.systems import SYSTEM_NAMES, UnknownSystemError, create, get_system

__all__ = [
    "SYSTEM_NAMES",
    "__version__",
    "ComputationError",
    "Entry",
    "Game",
    "GameHistory",
    "GameView",
    "HistoryError",
    "ParamSpec",
    "ParameterError",
    "Problem",
    "RatingRun",
    "RatingSystem",
    "UnknownSystemError",
    "create",
    "get_system",
    "read_file",
]
