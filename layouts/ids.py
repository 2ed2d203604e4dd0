"""Every component id of the app, one Enum class per feature.

Layouts and callbacks import these; no id string is typed twice.  Pattern-matching ids are
dicts whose ``"type"`` is one of the ``*Type`` members below.  A new feature appends its own class.
"""

from __future__ import annotations

from enum import StrEnum


class Page(StrEnum):
    """The page frame: URL, tabs, the collapsible control column."""

    LOCATION = "page-location"
    SHARE_PARAMS = "page-share-params"
    SHARE_VIEW = "page-share-view"
    SHARE_LINK = "page-share-link"
    SHARE_URL = "page-share-url"
    SHARE_COPY = "page-share-copy"
    SHARE_TEXT = "page-share-text"
    URL_STATE = "page-url-state"
    TABS = "page-tabs"
    CONTROLS_TOGGLE = "page-controls-toggle"
    CONTROLS_COLLAPSE = "page-controls-collapse"
    ERROR = "page-error"
    MOUNTED = "page-mounted"


class Tab(StrEnum):
    """The tabs' ``tab_id`` values, in the page's order (``layouts.page.tab_builders`` finds each one's layout)."""

    STANDINGS = "standings"
    OVERVIEW = "overview"
    EDIT = "edit"
    PREDICTIONS = "predictions"
    GAMES = "games"
    PLAYER = "player"
    COMPARE = "compare"
    FIT = "fit"


#: The tabs' ids, which a link may name; the first (the Standings) is the page's default (``sources.links``).
TAB_NAMES = tuple(str(t) for t in Tab)


class Gate(StrEnum):
    """Per tab, the store its callbacks wait on: it changes only while the tab is open (callbacks/gates.py)."""

    GAMES = "page-gate-games"
    PLAYER = "page-gate-player"
    PREDICTIONS = "page-gate-predictions"
    COMPARE = "page-gate-compare"


def tab_gate(tab: Tab) -> Gate:
    """The gate of ``tab`` (one of :data:`GATED_TABS`)."""
    return Gate[tab.name]


#: Tabs whose callbacks read the current run only through their gate (a change made elsewhere sends no request).
GATED_TABS = tuple(Tab[gate.name] for gate in Gate)


class TabBody(StrEnum):
    """Per lazily mounted tab, the box its content is put in the first time the tab opens (callbacks/page.py)."""

    EDIT = "page-tab-body-edit"
    PREDICTIONS = "page-tab-body-predictions"
    FIT = "page-tab-body-fit"
    GAMES = "page-tab-body-games"
    PLAYER = "page-tab-body-player"
    COMPARE = "page-tab-body-compare"


def tab_body(tab: Tab) -> TabBody:
    """The box of ``tab`` (one of :data:`LAZY_TABS`)."""
    return TabBody[tab.name]


#: Tabs whose content is mounted only when first opened (and kept afterwards): a page shows the Standings first, and
#: every mounted component costs Dash's renderer a little on each of the many store updates of a change.
LAZY_TABS = tuple(Tab[body.name] for body in TabBody)


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
    LINK_ERROR = "params-link-error"  # values in the page address that were not used, and why
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
    LEADERBOARD = "standings-leaderboard"  # the grid itself: a change of results sets its rows, never rebuilds it
    LEADERBOARD_EMPTY = "standings-leaderboard-empty"
    PLAYERS = "standings-players"
    X_AXIS = "standings-x-axis"
    TRAJECTORIES = "standings-trajectories"
    GAME = "standings-game"
    GAME_CHANGES = "standings-game-changes"
    HEATMAP = "standings-heatmap"
    LEADERBOARD_SEARCH = "standings-leaderboard-search"
    NARROW = "standings-narrow"
    DRAWN = "standings-drawn"
    GENERATION = "standings-generation"
    LEADERBOARD_SORT = "standings-leaderboard-sort"  # the grid's sort, which the server applies before paging
    LEADERBOARD_PAGES = "standings-leaderboard-pages"
    LEADERBOARD_COUNT = "standings-leaderboard-count"
    LEADERBOARD_PAGER = "standings-leaderboard-pager"  # the count and the page picker, shown for a search or pages


class Baseline(StrEnum):
    """What if: pin the current settings and compare."""

    STORE = "baseline-store"
    PIN = "baseline-pin"
    UNPIN = "baseline-unpin"
    STATUS = "baseline-status"


class Edit(StrEnum):
    """Editing the history for a what-if: the grid, its buttons and the session's edit state."""

    GRID = "edit-grid"
    APPLY = "edit-apply"
    ADD_ROW = "edit-add-row"
    ADD_PLAYER = "edit-add-player"
    DELETE_ROWS = "edit-delete-rows"
    UNDO = "edit-undo"
    REVERT = "edit-revert"
    STATUS = "edit-status"
    STORE = "edit-store"


class Record(StrEnum):
    """Recording a real new game: the short form, the confirm step and the submission token."""

    DATE = "record-date"
    NAMES = "record-names"
    NAMES_DATA = "record-names-data"
    SUBMIT = "record-submit"
    CONFIRM_BOX = "record-confirm-box"
    CONFIRM_TEXT = "record-confirm-text"
    CONFIRM = "record-confirm"
    CANCEL = "record-cancel"
    STATUS = "record-status"
    TOKEN = "record-token"
    PENDING = "record-pending"
    ACCESS = "record-access"
    PANEL = "record-panel"  # the form's column: first on a phone for whoever may record into a group
    SIGN_IN_BOX = "record-sign-in-box"
    SECRET = "record-secret"
    SIGN_IN = "record-sign-in"
    SIGN_OUT = "record-sign-out"


class RecordType(StrEnum):
    """``"type"`` values of the new-game form's rows; each id also has ``"index"``."""

    PLAYER = "record-player"
    PLACE = "record-place"
    TEAM = "record-team"  # optional: players with the same team text are teammates (ratings.io.teams)


class Predict(StrEnum):
    """Win probabilities for an upcoming game."""

    PLAYERS = "predict-players"
    FIGURE = "predict-figure"
    TABLE = "predict-table"
    NOTE = "predict-note"


class Evaluate(StrEnum):
    """How well the current settings predict the group's own results."""

    PANEL = "evaluate-panel"
    CALIBRATION_ASK = "evaluate-calibration-ask"
    CALIBRATION = "evaluate-calibration"
    CALIBRATION_NOTE = "evaluate-calibration-note"


class ScoreFn(StrEnum):
    """The multiplayer Elo score function for the current base and a chosen game size."""

    SIZE = "scorefn-size"
    FIGURE = "scorefn-figure"
    NOTE = "scorefn-note"


class Downloads(StrEnum):
    """Downloads: the leaderboard and the (possibly edited) history as CSV."""

    RATINGS_BUTTON = "downloads-ratings-button"
    RATINGS = "downloads-ratings"
    HISTORY_BUTTON = "downloads-history-button"
    HISTORY = "downloads-history"


class Fit(StrEnum):
    """Fitting the parameters to the group's games, and comparing every system (background jobs)."""

    BUDGET = "fit-budget"
    METRIC = "fit-metric"
    SEASONS = "fit-seasons"
    DYNAMICS = "fit-dynamics"
    FRESH = "fit-fresh"
    RUN = "fit-run"
    COMPARE = "fit-compare"
    CANCEL = "fit-cancel"
    PROGRESS = "fit-progress"
    REQUEST = "fit-request"
    RESULT = "fit-result"
    VIEW = "fit-view"
    FIGURE = "fit-figure"


class FitType(StrEnum):
    """``"type"`` of the buttons that apply fitted settings; each id also has ``"index"`` (the system)."""

    APPLY = "fit-apply"


class GamesList(StrEnum):
    """The games list: filters, the page of games, and the clicked game's one-game view."""

    PLAYER = "games-player"
    DATE_FROM = "games-date-from"
    DATE_TO = "games-date-to"
    COUNT = "games-count"
    GRID = "games-grid"
    PAGES = "games-pages"
    GAME = "games-game"
    GAME_CHART = "games-game-chart"


class PlayerPage(StrEnum):
    """One player's page: the pick, their numbers, trajectory with rank, head-to-head, and a game explained."""

    PLAYER = "player-player"
    SUMMARY = "player-summary"
    TRAJECTORY = "player-trajectory"
    HEAD_TO_HEAD = "player-head-to-head"
    GAME = "player-game"
    EXPLAIN = "player-explain"
    EXPLAIN_HEADER = "player-explain-header"
    EXPLAIN_TABLE = "player-explain-table"
    EXPLAIN_NOTES = "player-explain-notes"


class Compare(StrEnum):
    """The current view against the pinned baseline, side by side, with a CSV download."""

    STATUS = "compare-status"
    GRID = "compare-grid"
    CSV_BUTTON = "compare-csv-button"
    CSV = "compare-csv"


class Aliases(StrEnum):
    """Likely duplicate names (a warning under the data summary) and the group's aliases (merge two names)."""

    SUSPECTS = "aliases-suspects"
    PAIRS = "aliases-pairs"
    ALIAS = "aliases-alias"
    NAME = "aliases-name"
    NAMES = "aliases-names"
    NAMES_DATA = "aliases-names-data"
    MERGE = "aliases-merge"
    LIST = "aliases-list"
    MESSAGE = "aliases-message"


class AliasType(StrEnum):
    """``"type"`` values of the aliases' pattern-matching buttons (``"index"``: position in the shown list)."""

    MERGE_SUSPECT = "aliases-merge-suspect"
    REMOVE = "aliases-remove"


class DateRange(StrEnum):
    """The season: rate and show only games from/to a date, or the last N games."""

    FROM = "range-from"
    TO = "range-to"
    LAST = "range-last"
    APPLY = "range-apply"
    CLEAR = "range-clear"
    MESSAGE = "range-message"


class GameExplain(StrEnum):
    """Standings: why one player's rating changed in the one game shown (a click on a trajectory point picks both)."""

    PLAYER = "game-explain-player"
    VIEW = "game-explain-view"
    HEADER = "game-explain-header"
    TABLE = "game-explain-table"
    NOTES = "game-explain-notes"


class GroupPage(StrEnum):
    """A group's page (``/g/<slug>``): its name, its titles, who is signed in, the organisers' tools."""

    BAR = "group-bar"
    HEADER = "group-header"
    TITLE = "group-title"
    ROLE = "group-role"
    PASSPHRASE = "group-passphrase"
    SIGN_IN = "group-sign-in"
    SIGN_OUT = "group-sign-out"
    SIGN_IN_BOX = "group-sign-in-box"
    MESSAGE = "group-message"
    TOOLS = "group-tools"
    GAME = "group-game"
    DELETE = "group-delete"
    UNDO = "group-undo"
    LINK_LABEL = "group-link-label"
    MAKE_LINK = "group-make-link"
    NEW_LINK = "group-new-link"
    LINKS = "group-links"
    EXPORT_CSV = "group-export-csv"
    EXPORT_LOG = "group-export-log"
    DOWNLOAD = "group-download"
    REFRESH = "group-refresh"
    IMPORT_UPLOAD = "group-import-upload"
    IMPORT_PREVIEW = "group-import-preview"
    IMPORT_CONFIRM = "group-import-confirm"
    IMPORT_PENDING = "group-import-pending"
    RESTORE_UPLOAD = "group-restore-upload"
    CLEANED = "group-cleaned"
    ALIAS_NAME = "group-alias-name"
    ALIAS_PLAYER = "group-alias-player"
    DECLARE_ALIAS = "group-declare-alias"
    ALIASES = "group-aliases"
    IMPORT_SHEET_URL = "group-import-sheet-url"
    IMPORT_SHEET = "group-import-sheet"
    MIRROR_ON = "group-mirror-on"
    MIRROR_OFF = "group-mirror-off"
    TITLE_SHEET_URL = "group-title-sheet-url"
    TITLE_SHEET_TAB = "group-title-sheet-tab"
    TITLE_SHEET_ON = "group-title-sheet-on"
    TITLE_SHEET_OFF = "group-title-sheet-off"


class GroupType(StrEnum):
    """``"type"`` values of a group page's pattern-matching ids (each also has ``"index"``)."""

    REVOKE = "group-revoke"
    UNALIAS = "group-unalias"


class Partners(StrEnum):
    """The Player tab's partners (team games): the best and worst in words, and a grid of every teammate."""

    SUMMARY = "partners-summary"
    GRID = "partners-grid"


class PredictTeams(StrEnum):
    """Win probabilities for a game between two chosen teams (each system's own team model)."""

    FIRST = "predict-teams-first"
    SECOND = "predict-teams-second"
    FIGURE = "predict-teams-figure"
    TABLE = "predict-teams-table"
    NOTE = "predict-teams-note"


class ParamRow(StrEnum):
    """``"type"`` of a parameter's whole control block that is shown or hidden as a group; each id also has
    ``"name"``."""

    TEAM = "param-team-row"  # a team-game parameter (team_strength, team_method): shown when the history has teams
