"""The one page picker of the lists cut into pages on the server (the games list, the leaderboard)."""

from __future__ import annotations

from typing import Any

import dash_bootstrap_components as dbc

__all__ = ["page_picker"]


def page_picker(ident: Any, class_name: str) -> dbc.Pagination:
    """A compact picker starting at page 1 of 1 (the list's callback sets the number of pages), wrapping on a phone."""
    return dbc.Pagination(
        id=ident,
        max_value=1,
        active_page=1,
        fully_expanded=False,
        first_last=True,
        previous_next=True,
        size="sm",
        className=f"{class_name} flex-wrap",
    )
