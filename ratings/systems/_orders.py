"""Ties and did-not-finish for Kerby's single-rating models (Kerby 2025, section 4).

Kerby 2025: Brent Kerby, "Multiplayer generalizations of Elo rating system", expository note,
2025; section numbers are the note's.

A game is read from the worst performance upwards, the orientation of Kerby 2025 section 3.2
(``X_1 < X_2 < ... < X_n``): first the DNF group, whose internal order is unobserved
(censored: the likelihood only says that every DNF performed below every finisher), then
the finishers' tie groups from the last place to the first.

Players who share a place without a DNF drew, and are rewarded as in chess: their update
is the average, over the orderings of the tied group, of the log-likelihood gradient of
the resulting strict order.  :func:`tie_orderings` lists those orderings (with weights):

- a group of at most :data:`EXACT_GROUP` players contributes all of its orderings;
- a larger group contributes a design of orderings (:data:`DESIGN_SAMPLES` of them, fewer when
  the row budget is smaller: :func:`design_ordering`): the players in rating order, rotated by
  evenly spaced shifts, each rotation followed by its reverse, so that every player's mean
  position in the design is the middle of the group, every pair appears in both relative
  orders equally often, and with as many rotations as players every player holds every
  position equally often.  Taken in the players' rating order (the index breaks exact ties),
  the result is deterministic and does not depend on how players are labelled;
  :func:`symmetrize` then gives equally rated tied players the mean of their updates, as the
  exact average would by symmetry.  Rotations rather than random draws, so that the compiled
  kernel (:mod:`ratings.kernels.thurstonian`) computes the very same design.  Its error is that
  of a sample of orderings: a player's update varies with its position in the group, and the
  design covers the positions evenly but not every arrangement of the others.

The Thurstonian model averages a game beyond its row budget differently (each group through its own segment of the
chain, its orderings enumerated or sampled: :func:`ratings.systems.thurstonian.tie_segments`), and walks these designs
only where its scaled rows cannot hold the segments; its samples are shuffles drawn by :func:`shuffled` from
:func:`next_draw`, a generator whose integers the compiled kernel reproduces.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

__all__ = [
    "DESIGN_SAMPLES",
    "EXACT_GROUP",
    "MAX_ROWS",
    "SAME_RATING",
    "SHUFFLE_MODULUS",
    "SHUFFLE_MULTIPLIER",
    "SHUFFLE_SEED",
    "Split",
    "design_ordering",
    "design_samples",
    "design_size",
    "group_orderings",
    "group_seed",
    "next_draw",
    "shuffled",
    "split_game",
    "symmetrize",
    "tie_orderings",
]

#: Largest tied group whose orderings are enumerated exactly (5! = 120 orderings).
EXACT_GROUP = 5
#: Orderings sampled for a group larger than EXACT_GROUP.
DESIGN_SAMPLES = 120
#: Largest number of joint orderings of several tied groups enumerated exactly (Thurstonian).
MAX_ROWS = 120
#: Ratings this close (natural scale) count as equal when tied players' updates are symmetrised.
SAME_RATING = 1e-12
#: The sampled orderings' generator: Park and Miller's minimal standard ("Random number generators: good ones
#: are hard to find", CACM 1988), ``x <- 48271 x mod (2^31 - 1)``.  Its products stay below 2^47, so Python's
#: integers and the compiled kernel's int64 draw the very same sequence; its quality is ample for shuffling
#: groups of tens of players (its period is 2^31 - 2).
SHUFFLE_MODULUS = 2_147_483_647
SHUFFLE_MULTIPLIER = 48_271
#: Seed of a group's orderings (the group's first position in the finishing order is added, so that two groups
#: of one game draw different orderings).
SHUFFLE_SEED = 20_261_128


class Split:
    """A game's participants arranged worst first: the DNF set and the finishers' tie groups."""

    def __init__(self, dnf: np.ndarray, groups: list[np.ndarray]) -> None:
        self.dnf = dnf
        self.groups = groups

    @property
    def finishers(self) -> int:
        return sum(len(g) for g in self.groups)

    @property
    def has_ties(self) -> bool:
        return any(len(g) > 1 for g in self.groups)


def split_game(ranks: np.ndarray, dnf: np.ndarray) -> Split:
    """Indices of the DNFs and of each group of finishers sharing a place, worst group first."""
    ranks = np.asarray(ranks)
    dnf = np.asarray(dnf, dtype=bool)
    finished = np.flatnonzero(~dnf)
    order = finished[np.argsort(-ranks[finished], kind="stable")]  # worst first, index order within a place
    # Cut where the place changes (a plain loop: games are small, and numpy's split costs more per call).
    places = ranks[order].tolist()
    groups = []
    start = 0
    for j in range(1, len(places) + 1):
        if j == len(places) or places[j] != places[start]:
            groups.append(order[start:j])
            start = j
    return Split(np.flatnonzero(dnf), groups)


def group_orderings(
    group: np.ndarray, ratings: np.ndarray, samples: int = DESIGN_SAMPLES
) -> tuple[list[tuple[int, ...]], bool]:
    """Orderings (worst first) of one tied group, and whether they are all of them."""
    m = len(group)
    if m <= EXACT_GROUP:
        return [tuple(int(p) for p in perm) for perm in itertools.permutations(group.tolist())], True
    # In rating order (the index breaks exact ties; symmetrize() removes that dependence).
    base = [int(p) for p in group[np.lexsort((group, ratings[group]))]]
    return [design_ordering(base, t, samples) for t in range(design_size(samples))], False


def next_draw(state: int) -> int:
    """The generator's next state (and draw): ``48271 state mod (2^31 - 1)``, for ``state`` in ``[1, 2^31 - 2]``."""
    return state * SHUFFLE_MULTIPLIER % SHUFFLE_MODULUS


def group_seed(start: int) -> int:
    """First state of the generator for the tied group starting at position ``start`` of the finishing order."""
    return (SHUFFLE_SEED + start) % (SHUFFLE_MODULUS - 1) + 1


def shuffled(base: list[int], state: int) -> tuple[list[int], int]:
    """A uniformly drawn ordering of ``base`` (Fisher-Yates, from the last position down: position ``i`` takes the
    element at ``draw mod (i + 1)``), and the generator's state after it.  The kernel shuffles the same way."""
    out = list(base)
    for i in range(len(out) - 1, 0, -1):
        state = next_draw(state)
        j = state % (i + 1)
        out[i], out[j] = out[j], out[i]
    return out, state


def design_samples(sizes: list[int], max_rows: int) -> int:
    """Orderings allowed to a large group's design, given the tied groups' ``sizes`` and the row budget.

    At least the rows the groups' orderings are walked in anyway (the largest small group's ``m!``), so that a
    large group's design costs no extra order, and at most :data:`DESIGN_SAMPLES`.
    """
    walked = max((math.factorial(m) for m in sizes if m <= EXACT_GROUP), default=1)
    return min(DESIGN_SAMPLES, max(2, max_rows, walked))


def design_size(samples: int) -> int:
    """Orderings in the design of a group larger than :data:`EXACT_GROUP` when ``samples`` are allowed (even)."""
    return 2 * (samples // 2)


def design_ordering(base: list[int], t: int, samples: int) -> tuple[int, ...]:
    """Ordering ``t`` (worst first) of the design of ``samples`` orderings of a group listed in rating order.

    Rotation ``t // 2`` of ``samples // 2`` evenly spaced ones (shift ``(t // 2) m // (samples // 2)``), reversed
    for odd ``t``.  The compiled kernel builds the same ordering from the same integers.
    """
    m = len(base)
    shift = (t // 2) * m // (samples // 2)
    rotated = tuple(base[(i + shift) % m] for i in range(m))
    return rotated[::-1] if t % 2 else rotated


def tie_orderings(split: Split, ratings: np.ndarray, max_rows: int = MAX_ROWS) -> tuple[np.ndarray, np.ndarray, bool]:
    """Worst-first orders of the finishers to average over, their weights, and whether it is exact.

    Returns ``(rows, weights, exact)`` with ``rows`` of shape ``(T, finishers)`` and weights
    summing to 1: the draw-rewarded gradient is ``sum_t weights[t] * gradient(rows[t])``.

    The product of the groups' orderings is enumerated when it has at most ``max_rows`` rows;
    otherwise the groups' orderings are walked in step (row ``t`` takes ordering ``t mod |D_k|``
    of group ``k``), a deterministic approximation that still averages each group over its own
    orderings (the interactions between groups' orderings are what it leaves out: see
    :mod:`ratings.systems.thurstonian` for the measured error).  A large group's design has
    :func:`design_samples` orderings.  (Plackett-Luce, whose log-likelihood is a sum of one term
    per position, averages each group separately and exactly instead.)
    """
    samples = design_samples([len(g) for g in split.groups], max_rows)
    designs = []
    exact = True
    for group in split.groups:
        orderings, full = group_orderings(group, ratings, samples=samples)
        designs.append(orderings)
        exact &= full
    sizes = [len(d) for d in designs]
    if all(s == 1 for s in sizes):
        return np.array([[p for d in designs for p in d[0]]], dtype=int), np.ones(1), exact
    if math.prod(sizes) <= max_rows:
        combos = list(itertools.product(*designs))
    else:
        exact = False
        combos = [tuple(d[t % len(d)] for d in designs) for t in range(max(sizes))]
    table = np.array([[p for part in combo for p in part] for combo in combos], dtype=int)
    return table, np.full(len(table), 1.0 / len(table)), exact


def symmetrize(gradient: np.ndarray, ratings: np.ndarray, split: Split) -> np.ndarray:
    """Give players tied in the same group with equal ratings the mean of their updates.

    Equal means within :data:`SAME_RATING` of the lowest of a run of ratings (sorted): two players
    who drew from equal ratings may come out a rounding apart, and exact equality would then let
    that last bit decide whether a later sampled design is symmetrised (an update difference of
    order 1e-5).
    """
    out = gradient.copy()
    for group in split.groups:
        if len(group) < 2:
            continue
        values = ratings[group]
        order = np.argsort(values, kind="stable")
        start = 0
        for j in range(1, len(order) + 1):
            if j == len(order) or values[order[j]] - values[order[start]] > SAME_RATING:
                if j - start > 1:
                    same = group[order[start:j]]
                    out[same] = gradient[same].mean()
                start = j
    return out
