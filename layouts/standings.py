"""The "Standings" tab: leaderboard beside the trajectories, the chosen game below, and one change explained."""

from __future__ import annotations

import dash_bootstrap_components as dbc

from layouts.changes import game_panel
from layouts.ids import Tab
from layouts.leaderboard import leaderboard_panel
from layouts.player import game_explain_panel
from layouts.trajectories import trajectories_panel

__all__ = ["tab"]


def tab() -> dbc.Tab:
    """Leaderboard (left on wide screens), trajectories (right), per-game bars underneath."""
    return dbc.Tab(
        dbc.Row(
            [
                dbc.Col(leaderboard_panel(), xxl=5, xs=12),
                dbc.Col([trajectories_panel(), game_panel(), game_explain_panel()], xxl=7, xs=12),
            ],
            className="g-3 pt-2",
        ),
        label="Standings",
        tab_id=Tab.STANDINGS,
    )
