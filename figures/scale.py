"""The display scale: ``shown = offset + factor * rating``.

It turns Kerby's natural-scale ratings into familiar points (and is the identity for other systems), so every axis
and column can say which scale it uses.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ratings import RatingRun
from ratings.numerics import without_noise
from ratings.params import parse_number

__all__ = ["NATURAL_SCALE", "Scale", "min_games_of", "scale_for", "scale_of"]

#: The ``RatingRun.scale`` of the systems whose ratings live around 0-3 (Kerby's models).
NATURAL_SCALE = "natural scale"


@dataclass(frozen=True)
class Scale:
    """How ratings are shown: ``shown = offset + factor * rating``, with a unit label for axes."""

    offset: float = 0.0
    factor: float = 1.0
    unit: str = "rating"

    def value(self, rating: Any) -> Any:
        """A rating (or array of ratings) on the shown scale."""
        return self.offset + self.factor * np.asarray(rating, dtype=float)

    def change(self, delta: Any) -> Any:
        """A rating change on the shown scale (the offset cancels)."""
        return self.factor * np.asarray(delta, dtype=float)

    def change_between(self, before: Any, after: Any) -> Any:
        """The change from ``before`` to ``after`` (ratings or arrays of them) on the shown scale, with a difference
        that is only rounding (:func:`ratings.numerics.without_noise` of the two ratings) shown as 0."""
        before, after = np.asarray(before, dtype=float), np.asarray(after, dtype=float)
        return self.change(without_noise(after - before, np.maximum(np.abs(before), np.abs(after))))


def scale_for(run: RatingRun, offset: float | None = None, factor: float | None = None) -> Scale:
    """The display scale of ``run``: natural-scale ratings become ``offset + factor * r`` points."""
    if run.scale != NATURAL_SCALE:
        return Scale(unit=run.scale)
    off = 1500.0 if offset is None else float(offset)
    fac = 200.0 if factor is None else float(factor)
    if off == 0.0 and fac == 1.0:
        return Scale(unit=NATURAL_SCALE)
    return Scale(off, fac, f"points = {off:g} + {fac:g} × natural-scale rating")


def _number(value: Any, default: float) -> float:
    """A finite number from a box's value (untrusted), else ``default``."""
    try:
        number = parse_number(value)
    except ValueError:
        return default
    return number if abs(number) < 1e12 else default


def min_games_of(value: Any) -> int:
    """The "minimum games to be listed" box's value (untrusted) as the leaderboard and its CSV both read it: a whole
    number of at least 0 (a fraction counts down; a blank, a word or an absurd number lists everybody)."""
    return max(0, int(_number(value, 0)))


def scale_of(run: RatingRun, offset: Any, factor: Any) -> Scale:
    """The display scale from the two boxes (blank boxes fall back to 1500 and 200)."""
    return scale_for(run, _number(offset, 1500.0), _number(factor, 200.0))
