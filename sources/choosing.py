"""Choosing the data in use: a sample, an upload, an address typed in the data card (a Google Sheet's) or the page's
address -> the new source (seen through the view in use) or the previous one kept, with what to say; and the season
the Season card's boxes ask for.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import parse_qs

from ratings.io.cells import Cell
from ratings.io.dates import parse_date_cells  # the readers' date parser (one rule for dates)
from ratings.seasons import Season, SeasonError
from sources.links import default_source
from sources.model import DataError, GroupTitle, Loaded, parse_source, source_at
from sources.reading import describe_source
from sources.runs import load as load_source
from sources.runs import read_upload
from sources.views import View, view_of, with_view

__all__ = [
    "Action",
    "Choice",
    "choose_source",
    "group_of_path",
    "group_shown",
    "title_of_query",
    "page_source",
    "season_boxes",
    "season_from",
    "set_season",
]


#: What a data control asks for: a file read, a sample, the source at an address typed in the data card (a Google
#: Sheet's; ``refresh``: read anew, not from its copy).
Action = Literal["upload", "sample", "address", "refresh"]


@dataclass
class Choice:
    """The outcome of a data action: the new source (``None``: keep the previous one), the data now shown (the new
    data, or the previous data kept; ``None`` when there is none: its summary line stays) and what to say."""

    source: dict[str, Any] | None
    shown: Loaded | None = None
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def _try(source: dict[str, Any], previous: dict[str, Any] | None, *, force: bool = False) -> Choice:
    try:
        loaded = load_source(source, force=force)
    except DataError as exc:
        return _failed(f"Could not read {describe_source(source)}:", exc.messages, previous)
    return Choice(source, loaded, warnings=list(loaded.warnings))


def _try_in_view(source: dict[str, Any], previous: dict[str, Any] | None, *, force: bool = False) -> Choice:
    """:func:`_try` on newly chosen data seen through the view in use (its aliases and season), so a change of
    data keeps them; a season that selects none of the new data's games is dropped, with a note saying so."""
    try:
        view = view_of(previous)
    except DataError:
        view = View()
    choice = _try(with_view(source, view), previous, force=force)
    if choice.source is None and not view.season.whole:
        fallback = _try(with_view(source, View(view.aliases)), previous, force=force)
        if fallback.source is not None:
            fallback.warnings.insert(0, f"The season ({view.season}) holds none of these games: showing all games.")
            return fallback
    return choice


def _failed(head: str, messages: list[str], previous: dict[str, Any] | None) -> Choice:
    errors = [head, *messages]
    if previous is not None:
        errors.append(f"Still using the previous data ({describe_source(previous)}).")
        try:
            return Choice(None, load_source(previous), errors)
        except DataError:
            return Choice(None, None, errors)
    return Choice(None, None, errors)


def choose_source(
    action: Action | None,
    *,
    previous: dict[str, Any] | None,
    url_source: dict[str, Any] | None = None,
    sample: str | None = None,
    upload: str | None = None,
    filename: str | None = None,
    address: str | None = None,
) -> Choice:
    """What a data action leads to (``None``: the page opened or its address changed); a source that cannot be
    read leaves the previous one in use.
    """
    if action == "upload":
        if not upload:
            return Choice(None)
        name = filename or "the uploaded file"
        try:
            typed, warnings = read_upload(upload, name)
        except DataError as exc:
            return _failed(f"Could not read {name}:", exc.messages, previous)
        choice = _try_in_view(typed.to_json(), previous)
        choice.warnings = warnings + [w for w in choice.warnings if w not in warnings]
        return choice
    if action == "sample" and sample:
        return _try_in_view({"kind": "sample", "name": sample}, previous)
    if action in ("address", "refresh"):
        try:
            at = source_at(address or "")
        except DataError as exc:
            return _failed(exc.messages[0], exc.messages[1:], previous)
        return _try_in_view(at, previous, force=action == "refresh")
    # the page opened (or its address changed): the address's source, else the default
    wanted = url_source or default_source()
    choice = _try(wanted, previous)
    if choice.source is None and previous is None and wanted != default_source():
        fallback = _try(default_source(), None)
        fallback.errors = choice.errors + [f"Showing {describe_source(default_source())} instead."]
        return fallback
    return choice


def season_from(start: Any, end: Any, last: Any) -> Season:
    """The season the Season card's boxes ask for; :class:`DataError` saying which box is wrong.

    Dates are read by the file readers' own rule (2024-03-31, 31/03/2024, 31 March 2024, ...).
    """
    cells: dict[int, Cell] = {
        i: str(v).strip()[:40] for i, v in enumerate((start, end)) if isinstance(v, str) and v.strip()
    }
    read = parse_date_cells(cells, "date", None)
    problems = [f"{('From', 'To')[row]}: {p.message}" for row, p in read.row_problems.items()]
    problems += [p.message for p in read.column_problems]
    count: int | None = None
    if last not in (None, ""):
        if isinstance(last, bool) or not isinstance(last, (int, float)) or not float(last).is_integer():
            problems.append("Last N games: enter a whole number")
        else:
            count = int(last)
    if problems:
        raise DataError(problems)
    try:
        return Season(read.dates.get(0), read.dates.get(1), count)
    except SeasonError as exc:
        raise DataError([str(exc)]) from None


def set_season(source: Any, season: Season) -> tuple[dict[str, Any] | None, str]:
    """The source seen through ``season`` (its aliases kept) and what to say; ``None`` when it selects nothing."""
    if not isinstance(source, dict):
        return None, "No data is in use yet."
    try:
        updated = with_view(source, View(view_of(source).aliases, season))
        load_source(updated)
    except DataError as exc:
        return None, " ".join(exc.messages)
    return updated, ""


def season_boxes(source: Any) -> tuple[str, str, int | str]:
    """The Season card's boxes for the view in use (from, to, last N; an empty box is "")."""
    try:
        season = view_of(source).season
    except DataError:
        return "", "", ""
    text = lambda d: d.isoformat() if d is not None else ""  # noqa: E731
    return text(season.start), text(season.end), season.last if season.last is not None else ""


#: A group's page: ``/g/<slug>`` (the slug checked by the groups' own rule when it is read).
_GROUP_PATH = re.compile(r"/g/([^/]{1,60})/?")


def group_of_path(pathname: Any) -> str | None:
    """The group slug a page address's path names (``/g/<slug>``), or ``None`` for any other page."""
    found = _GROUP_PATH.fullmatch(pathname) if isinstance(pathname, str) else None
    return found.group(1) if found else None


def page_source(pathname: Any, search: Any, url_source: dict[str, Any] | None) -> dict[str, Any] | None:
    """The source a page opens on: on a group's page the title the address names (``?title=``; the first title
    without one), seen through the address's view, unless the address names other data (a what-if edit of the
    group's games, an upload); elsewhere the address's own source (``None``: the default)."""
    slug = group_of_path(pathname)
    if slug is None:
        return url_source
    if url_source is not None and {k: v for k, v in url_source.items() if k != "view"} != default_source():
        return url_source
    group = GroupTitle(slug, title_of_query(search)).to_json()
    return with_view(group, view_of(url_source))


def group_shown(source: Any) -> GroupTitle | None:
    """The group title whose own games ``source`` (the browser's JSON) shows; ``None`` for anything else, a what-if
    edit of a group's games included (that is the browser's own)."""
    try:
        typed = parse_source(source)
    except DataError:
        return None
    return typed if isinstance(typed, GroupTitle) else None


def title_of_query(search: Any) -> str | None:
    """The game title a group page's address names (``?title=Catan``), or ``None``."""
    titles = parse_qs(search[1:] if isinstance(search, str) and search.startswith("?") else "").get("title")
    return titles[0][:200] if titles else None
