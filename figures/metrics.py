"""How well a run predicts the group's own results: one row per metric of :mod:`ratings.metrics`, beside a baseline."""

from __future__ import annotations

import math
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from ratings.metrics import Evaluation

__all__ = ["BETTER", "METRICS", "metrics_rows"]

#: (field, name, which way is better, what it counts) for each metric of ``ratings.metrics``.
#: Named by what they count, so that "fewer"/"more" reads the right way to a lay user (a "Kendall tau" where
#: lower is better reads backwards to anyone who knows it as a correlation); the technical name follows.
METRICS = (
    (
        "kendall_tau",
        "Pairs called wrong (Kendall tau distance)",
        "lower",
        "share of pairs of players where the higher-rated one finished behind (0.5 for equal ratings)",
    ),
    (
        "pair_inversion",
        "Opponents called right (pair inversion)",
        "higher",
        "share of opponents whose result against the player the ratings called right",
    ),
    (
        "rank_deviation",
        "Places off (rank deviation)",
        "lower",
        "how far the actual places were from the rating order, 0 (none) to 1",
    ),
)
#: The "better when" column: what a better value looks like, in words.
BETTER: Mapping[str, str] = MappingProxyType({"lower": "fewer is better", "higher": "more is better"})


def metrics_rows(current: Evaluation, baseline: Evaluation | None = None) -> list[dict[str, Any]]:
    """One row per metric: value now, the baseline's, which way is better and whether now beats the baseline."""
    rows = []
    for key, name, better, meaning in METRICS:
        now = float(getattr(current, key))
        base = float(getattr(baseline, key)) if baseline is not None else None
        verdict = None
        if base is not None and not (math.isnan(now) or math.isnan(base)):
            verdict = "same" if now == base else "better" if (now < base) == (better == "lower") else "worse"
        rows.append(
            {"metric": name, "now": now, "baseline": base, "better": better, "meaning": meaning, "verdict": verdict}
        )
    return rows
