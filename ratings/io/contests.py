"""Contest files in the layout of the Elo-MMR authors' data sets (Ebtekar and Liu, "Elo-MMR: A Rating System for
Massive Multiplayer Competitions", WWW 2021; their ``multi-skill`` crate reads contests so): one JSON object per
contest,

    {"name": "Round 1", "time_seconds": 1262304000, "standings": [["ann", 0, 0], ["bob", 1, 2], ["cid", 1, 2]]}

where each standing is ``[player, lo, hi]`` and ``lo..hi`` is the 0-based range of places the player shares with
everyone tied with them (``bob`` and ``cid`` above tie for places 2-3).  Here a standing's place is ``lo + 1``, the
competition-style place the other readers give a tie (:mod:`ratings.io.places`).  A file holds one contest or a
list of them; a folder holds one file per contest (``*.json``).  Contests are replayed in the order of their
``time_seconds`` (files of a folder with equal times in the natural order of their names: ``2.json`` before
``10.json``), and each game's date is the UTC day of its time.  Names are read by the one rule for names
(:func:`ratings.io.names.clean_name`).  The history is built from arrays (no object per result).
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from ratings.history import GameHistory, HistoryError, Problem
from ratings.io.names import _merge_names, clean_name

__all__ = ["is_contest_input", "read_contests"]

_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)


def is_contest_input(file: Any, filename: str | None) -> bool:
    """Whether ``file`` (a path, or bytes named ``filename``) is a folder or a ``.json`` file."""
    if isinstance(file, (str, os.PathLike)):
        return os.path.isdir(file) or os.fspath(file).lower().endswith(".json")
    return isinstance(file, (bytes, bytearray)) and str(filename or "").lower().endswith(".json")


def _natural(name: str) -> list[Any]:
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name)]


def read_contests(
    file: str | os.PathLike[str] | bytes,
    filename: str | None = None,
    *,
    max_bytes: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> GameHistory:
    """A history from a contest file (a path or its bytes) or a folder of them; :class:`HistoryError` saying which
    file, contest and standing is wrong.  ``max_bytes`` bounds each file (and bytes) read."""
    if isinstance(file, (bytes, bytearray)):
        sources = [(filename or "contests.json", bytes(file))]
        _check_size(sources[0][0], len(file), max_bytes)
        contests = [c for c in _contests_of(*sources[0])]
    else:
        path = Path(file)
        if path.is_dir():
            paths = sorted((p for p in path.iterdir() if p.suffix.lower() == ".json"), key=lambda p: _natural(p.name))
            if not paths:
                raise HistoryError(
                    [
                        Problem(
                            f"'{path}' is a folder with no .json files (a folder is read as contest files in the "
                            "Elo-MMR layout)"
                        )
                    ]
                )
        else:
            paths = [path]
        contests = []
        for k, one in enumerate(paths):
            try:
                size = one.stat().st_size
                _check_size(one.name, size, max_bytes)
                data = one.read_bytes()
            except OSError as exc:
                raise HistoryError([Problem(f"the file '{one}' cannot be read: {exc.strerror or exc}")]) from None
            contests.extend(_contests_of(one.name, data))
            if progress is not None:
                progress(k + 1, len(paths))
    return _history(contests)


def _check_size(name: str, size: int, max_bytes: int | None) -> None:
    if max_bytes is not None and size > max_bytes:
        raise HistoryError(
            [
                Problem(
                    f"the file is {size / 1e6:.1f} MB; this reader accepts files up to "
                    f"{max_bytes / (1024 * 1024):g} MB",
                    source=name,
                )
            ]
        )


def _contests_of(source: str, data: bytes) -> list[tuple[str, dict[str, Any], int]]:
    """The contests of one file as (source, contest, index in the file)."""
    try:
        value = json.loads(data.decode("utf-8-sig"))
    except UnicodeDecodeError:
        raise HistoryError([Problem("the file is not UTF-8 text (JSON is)", source=source)]) from None
    except json.JSONDecodeError as exc:
        raise HistoryError(
            [Problem(f"the file is not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})", source=source)]
        ) from None
    items = value if isinstance(value, list) else [value]
    out = []
    for k, item in enumerate(items):
        if not isinstance(item, dict) or not isinstance(item.get("standings"), list):
            where = f"contest {k + 1} of the file" if isinstance(value, list) else "the file"
            raise HistoryError(
                [
                    Problem(
                        f"{where} is not a contest (an object with a 'standings' list of [player, lo, hi])",
                        None,
                        None,
                        source,
                    )
                ]
            )
        out.append((source, item, k))
    return out


def _history(contests: list[tuple[str, dict[str, Any], int]]) -> GameHistory:
    problems: list[Problem] = []
    timed = []
    for index, (source, contest, k) in enumerate(contests):
        name = contest.get("name")
        label = clean_name(name) if name is not None and clean_name(name) else f"{source} #{k + 1}"
        seconds = contest.get("time_seconds")
        if seconds is not None and (isinstance(seconds, bool) or not isinstance(seconds, (int, float))):
            problems.append(Problem(f"contest '{label}': time_seconds {seconds!r} is not a number", source=source))
            seconds = None
        timed.append((seconds is None, seconds or 0, index, source, contest, label))
    if problems:
        raise HistoryError(problems)
    timed.sort(key=lambda t: t[:3])  # by time (contests without one last, in file order), then as listed
    ids: list[str] = []
    dates: list[dt.date | None] = []
    sizes: list[int] = []
    codes: list[np.ndarray] = []  # each contest's standings as codes of spellings
    place_codes: list[np.ndarray] = []
    labels: list[tuple[str, str]] = []  # each contest's (source, label), for messages
    spellings: dict[str, int] = {}  # a cleaned name -> its code
    counts: list[int] = []
    seen_ids: dict[str, int] = {}
    for _, seconds, _, source, contest, label in timed:
        game_id = label
        if game_id in seen_ids:
            seen_ids[label] += 1
            game_id = f"{label} ({seen_ids[label]})"
        else:
            seen_ids[game_id] = 1
        standings = contest["standings"]
        who = np.empty(len(standings), dtype=np.int32)
        place = np.empty(len(standings), dtype=np.int32)
        good = True
        for i, standing in enumerate(standings):
            where = f"contest '{label}', standing {i + 1}"
            if (
                not isinstance(standing, list)
                or len(standing) < 3
                or not all(isinstance(x, int) and not isinstance(x, bool) for x in standing[1:3])
            ):
                problems.append(Problem(f"{where}: {str(standing)[:60]} is not [player, lo, hi]", source=source))
                good = False
                continue
            raw, lo, hi = standing[0], standing[1], standing[2]
            player = clean_name(raw) if isinstance(raw, (str, int)) else ""
            if not player:
                problems.append(Problem(f"{where}: the player has no name", source=source))
                good = False
                continue
            if not 0 <= lo <= hi < len(standings):
                problems.append(
                    Problem(
                        f"{where}: places {lo}..{hi} are not a range of the contest's {len(standings)} places "
                        "(0-based, lo <= hi)",
                        source=source,
                    )
                )
                good = False
                continue
            code = spellings.setdefault(player, len(spellings))
            if code == len(counts):
                counts.append(0)
            counts[code] += 1
            who[i], place[i] = code, lo + 1
        if not good:
            continue
        ids.append(game_id)
        dates.append(None if contest.get("time_seconds") is None else (_EPOCH + dt.timedelta(seconds=seconds)).date())
        sizes.append(len(standings))
        codes.append(who)
        place_codes.append(place)
        labels.append((source, label))
    if problems:
        raise HistoryError(problems)
    if not ids:
        raise HistoryError([Problem("there are no contests")])
    # spellings equal up to case and spacing are one player, by the readers' one rule (the most frequent wins)
    texts = list(spellings)
    mapping, warnings = _merge_names(t for t, n in zip(texts, counts, strict=True) for _ in range(n))
    canonical: dict[str, int] = {}
    to_player = np.array([canonical.setdefault(mapping[t], len(canonical)) for t in texts], dtype=np.int32)
    for k, who in enumerate(codes):
        who[:] = to_player[who]
        unique, count = np.unique(who, return_counts=True)
        if len(unique) < len(who):
            source, label = labels[k]
            twice = list(canonical)[int(unique[np.argmax(count > 1)])]
            problems.append(Problem(f"contest '{label}': player '{twice}' appears twice", source=source))
    if problems:
        raise HistoryError(problems)
    offsets = np.zeros(len(ids) + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    flat_player = np.concatenate(codes)
    places = np.concatenate(place_codes)
    return GameHistory.from_columns(ids, dates, offsets, flat_player, places, list(canonical), warnings)
