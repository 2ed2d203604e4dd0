"""Finishing-place probabilities for an upcoming game.

Plackett-Luce orders have an exact answer (a dynamic programme over subsets of the
players, exact for small fields); any model that can sample performances gets a
fixed-seed Monte Carlo estimate.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

__all__ = ["EXACT_LIMIT", "plackett_luce_places", "monte_carlo_places", "places_from_orders"]

#: Largest field for which the exact subset dynamic programme is used.
EXACT_LIMIT = 10
#: Samples drawn by the Monte Carlo estimates.
SAMPLES = 20_000
SEED = 20_211


def plackett_luce_places(log_weights: np.ndarray, *, worst_first: bool = False) -> np.ndarray:
    """Place probabilities of a Plackett-Luce order with weights ``exp(log_weights)``.

    The order is built by drawing players one at a time with probability proportional to
    their weight among those not yet drawn: the first drawn takes first place, or last
    place when ``worst_first`` (Kerby's exponential model picks the first eliminated).
    Returns ``P[i, j]`` = probability that player ``i`` takes place ``j + 1``.
    Exact for up to :data:`EXACT_LIMIT` players, Monte Carlo (Gumbel-max sampling,
    fixed seed) beyond.
    """
    logw = np.asarray(log_weights, dtype=float)
    n = len(logw)
    if n == 0:
        return np.zeros((0, 0))
    if n > EXACT_LIMIT:
        rng = np.random.default_rng(SEED)
        keys = logw[None, :] + rng.gumbel(size=(SAMPLES, n))
        order = np.argsort(-keys, axis=1)  # draw order: first drawn first
        probs = places_from_orders(order, n)
        return probs[:, ::-1] if worst_first else probs
    w = np.exp(logw - logw.max())
    full = (1 << n) - 1
    # mass[S] = probability that the first |S| draws are exactly the set S.
    mass = np.zeros(1 << n)
    mass[0] = 1.0
    subset_weight = np.zeros(1 << n)
    for s in range(1, 1 << n):
        low = s & -s
        subset_weight[s] = subset_weight[s ^ low] + w[low.bit_length() - 1]
    total = subset_weight[full]
    probs = np.zeros((n, n))
    for s in range(1 << n):
        if mass[s] == 0.0 or s == full:
            continue
        remaining = total - subset_weight[s]
        drawn = bin(s).count("1")
        for i in range(n):
            bit = 1 << i
            if s & bit:
                continue
            p = mass[s] * w[i] / remaining
            mass[s | bit] += p
            probs[i, drawn] += p
    return probs[:, ::-1] if worst_first else probs


def places_from_orders(order: np.ndarray, n: int) -> np.ndarray:
    """Turn sampled orders (row: player indices best first) into place frequencies."""
    samples = order.shape[0]
    probs = np.zeros((n, n))
    for place in range(n):
        probs[:, place] = np.bincount(order[:, place], minlength=n) / samples
    return probs


def monte_carlo_places(sample: Callable[[np.random.Generator, int], np.ndarray], n: int) -> np.ndarray:
    """Place probabilities from ``sample(rng, count)``, which returns ``(count, n)`` performances.

    Higher performance is better; the generator is seeded, so the answer is repeatable.
    """
    rng = np.random.default_rng(SEED)
    performances = sample(rng, SAMPLES)
    order = np.argsort(-performances, axis=1, kind="stable")
    return places_from_orders(order, n)
