"""Numerical helpers shared by the systems: normal and logistic functions, computed stably.

One module, so that every system uses the same careful versions (as trueskill's
``backends.py`` does).
"""

from __future__ import annotations

import numpy as np

from ratings.lazy import lazy_module

#: scipy.special, loaded on first use (:mod:`ratings.lazy`).
special = lazy_module("scipy.special")

__all__ = [
    "LOG_SQRT_2PI",
    "NOISE",
    "counted",
    "log_norm_cdf",
    "log_sum_exp",
    "logistic",
    "mills_ratio",
    "norm_cdf",
    "norm_pdf",
    "norm_ppf",
    "number",
    "signed",
    "without_noise",
]

LOG_SQRT_2PI = 0.5 * np.log(2.0 * np.pi)


def norm_pdf(x: np.ndarray | float) -> np.ndarray:
    """Standard normal density."""
    x = np.asarray(x, dtype=float)
    return np.exp(-0.5 * x * x - LOG_SQRT_2PI)


def norm_cdf(x: np.ndarray | float) -> np.ndarray:
    """Standard normal distribution function."""
    return special.ndtr(np.asarray(x, dtype=float))


def norm_ppf(p: np.ndarray | float) -> np.ndarray:
    """Inverse of :func:`norm_cdf`."""
    return special.ndtri(np.asarray(p, dtype=float))


def log_norm_cdf(x: np.ndarray | float) -> np.ndarray:
    """log Phi(x), accurate far into the lower tail."""
    return special.log_ndtr(np.asarray(x, dtype=float))


def mills_ratio(x: np.ndarray | float) -> np.ndarray:
    """phi(x) / Phi(x) without underflow (tends to -x as x -> -inf)."""
    x = np.asarray(x, dtype=float)
    return np.exp(-0.5 * x * x - LOG_SQRT_2PI - special.log_ndtr(x))


def logistic(x: np.ndarray | float) -> np.ndarray:
    """1 / (1 + exp(-x)) without overflow."""
    return special.expit(np.asarray(x, dtype=float))


def log_sum_exp(values: np.ndarray, axis: int = -1) -> np.ndarray:
    """log(sum(exp(values))) along ``axis``, shifted by the maximum so nothing overflows.

    A lean version of ``scipy.special.logsumexp`` (whose array-API dispatch costs tens of
    microseconds per call, which matters inside a per-game update); rows that are all
    ``-inf`` give ``-inf``.
    """
    values = np.asarray(values, dtype=float)
    top = np.max(values, axis=axis, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):
        return np.squeeze(top, axis=axis) + np.log(np.sum(np.exp(values - top), axis=axis))


#: A change no larger than this share of the numbers it was computed from is floating-point rounding, not a change.
#: A double carries about 16 significant digits and a replay's rounding stays many orders of magnitude below 1e-9 of
#: the ratings (an uncertainty settling at its limit of 80 moves by 1.4e-14, one unit in the last place), while no
#: display shows a rating to more than 5 significant digits, so nothing visible is lost.
NOISE = 1e-9


def without_noise(change: np.ndarray | float, magnitude: np.ndarray | float) -> np.ndarray:
    """``change`` with every entry no larger than :data:`NOISE` times ``magnitude`` (the largest number it was
    computed from or is shown beside: the rating before and after, the other terms of its table) set to 0.

    >>> without_noise([80.00000000000006 - 80.00000000000007, 0.5], 80.0).tolist()
    [0.0, 0.5]
    """
    change = np.asarray(change, dtype=float)
    return np.where(np.abs(change) <= NOISE * np.abs(np.asarray(magnitude, dtype=float)), 0.0, change)


def number(value: float, digits: int = 5, *, sign: bool = False) -> str:
    """A number as the page shows it: ``digits`` significant digits, thousands separated, a minus sign (−) for
    negatives, and a large value in full (``1,000,028``, never ``1e+06``); a small one keeps its exponent
    (``8.131e−05``).  ``sign`` puts ``+`` before a positive value."""
    plus = "+" if sign else ""
    text = f"{value:{plus},.{digits}g}"
    if "e+" in text:  # digits run out before the units: the whole number instead (9999.7 to four digits too)
        text = f"{value:{plus},.0f}"
    return text.replace("-", "−")


def counted(n: int, word: str, plural: str | None = None) -> str:
    """``"1 game"``, ``"2 games"``, ``"1,234 games"``: a count, thousands separated as :func:`number` writes
    them, with its noun in the right number (``plural`` where adding an s is wrong)."""
    return f"{n:,} {word if n == 1 else (plural or word + 's')}"


def signed(value: float) -> str:
    """A change with its sign and at most four significant digits: ``+12.3``, ``−0.0412``, ``+13,333``, ``0``."""
    text = number(value, 4, sign=True)
    return "0" if text in ("+0", "−0") else text
