"""Every component id of the app, one Enum class per feature.

Layouts and callbacks import these; no id string is typed twice.  Pattern-matching ids are
dicts whose ``"type"`` is one of the ``*Type`` members below.  A new feature appends its own class.
"""

from __future__ import annotations

from enum import StrEnum


class Page(StrEnum):
    """The page frame: URL, tabs, the collapsible control column."""

    LOCATION = "page-location"
    SHARE_QUERY = "page-share-query"
    SHARE_LINK = "page-share-link"
    URL_STATE = "page-url-state"
    URL_WRITER = "page-url-writer"
    TABS = "page-tabs"
    CONTROLS_TOGGLE = "page-controls-toggle"
    CONTROLS_COLLAPSE = "page-controls-collapse"


class Data(StrEnum):
    """Choosing the game history: sample, upload, Google Sheet."""

    SOURCE = "data-source"
    SAMPLE = "data-sample"
    UPLOAD = "data-upload"
    SHEET_URL = "data-sheet-url"
    SHEET_LOAD = "data-sheet-load"
    SHEET_REFRESH = "data-sheet-refresh"
    SUMMARY = "data-summary"
    MESSAGES = "data-messages"


class Params(StrEnum):
    """The rating system and its parameter controls (built from the schema)."""

    SYSTEM = "params-system"
    SYSTEM_SUMMARY = "params-system-summary"
    CONTROLS = "params-controls"
    RESET = "params-reset"
    ERROR = "params-error"
    SETTINGS = "params-settings"


class ParamType(StrEnum):
    """``"type"`` values of the pattern-matching parameter controls; each id also has ``"name"``."""

    VALUE = "param"  # number input: the exact value of a numeric parameter
    SLIDER = "param-slider"
    ON = "param-on"  # switch of a parameter that can be "none"
    CHOICE = "param-choice"
    LIST = "param-list"  # comma-separated numbers
    BOOL = "param-bool"


class Standings(StrEnum):
    """Leaderboard, trajectories and per-game changes."""

    MIN_GAMES = "standings-min-games"
    SCALE_OFFSET = "standings-scale-offset"
    SCALE_FACTOR = "standings-scale-factor"
    SCALE_ROW = "standings-scale-row"
    LEADERBOARD = "standings-leaderboard"
    PLAYERS = "standings-players"
    X_AXIS = "standings-x-axis"
    TRAJECTORIES = "standings-trajectories"
    GAME = "standings-game"
    GAME_CHANGES = "standings-game-changes"
    HEATMAP = "standings-heatmap"


class Baseline(StrEnum):
    """What if: pin the current settings and compare."""

    STORE = "baseline-store"
    PIN = "baseline-pin"
    UNPIN = "baseline-unpin"
    STATUS = "baseline-status"
