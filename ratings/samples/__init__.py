"""Bundled sample histories, made by this project's seeded simulation (see ``generate.py``).

>>> from ratings.samples import load_sample
>>> load_sample("chess").n_players
30
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources

from ratings.history import GameHistory, HistoryError, Problem
from ratings.io.files import BY_INPUT, FROM_LIMITS, read_file
from ratings.io.limits import HOSTED, Limits

__all__ = [
    "DEFAULT_SAMPLE",
    "SAMPLES",
    "Sample",
    "UnknownSampleError",
    "list_samples",
    "load_history",
    "load_sample",
]


@dataclass(frozen=True)
class Sample:
    """A bundled sample: its name (as in ``sample:NAME``), a title, a one-line description and its file."""

    name: str
    title: str
    description: str
    filename: str


SAMPLES: dict[str, Sample] = {
    s.name: s
    for s in (
        Sample(
            "poker",
            "Poker night",
            "Ten friends, 150 evenings over two years, one row per night: Marta dominates, newcomer Jonas rises, "
            "Priya slumps and recovers.",
            "poker.csv",
        ),
        Sample(
            "racing",
            "Racing community",
            "About 150 racers and 2,000 races of 2-30 entrants with many DNFs: Vexa dominates, Nova rises fast, "
            "Brick slumps, Orion fades.",
            "racing.csv",
        ),
        Sample(
            "chess",
            "Chess club",
            "Thirty members and about 1,500 games over three years, draws included: Abena leads, the junior Anders "
            "improves, Beatriz slumps.",
            "chess.csv",
        ),
        Sample(
            "doubles",
            "Doubles club",
            "Sixteen table-tennis players, about 600 doubles matches over two years with partners drawn at random, "
            "now and then a substitute for half a match: Ana leads, Yuki joins late and rises, Hugo slumps.",
            "doubles.csv",
        ),
    )
}

#: The sample shown first.
DEFAULT_SAMPLE = "poker"


class UnknownSampleError(HistoryError, KeyError):
    """Raised for a sample name that is not bundled; the message lists the valid names."""

    def __str__(self) -> str:  # KeyError would otherwise quote the message
        return ValueError.__str__(self)


def list_samples() -> list[Sample]:
    """The bundled samples, the default first."""
    return sorted(SAMPLES.values(), key=lambda s: s.name != DEFAULT_SAMPLE)


@functools.cache
def load_sample(name: str = DEFAULT_SAMPLE) -> GameHistory:
    """Load a bundled sample by name; an unknown name raises :class:`UnknownSampleError` listing valid names."""
    sample = SAMPLES.get(name.strip().lower())
    if sample is None:
        valid = ", ".join(SAMPLES)
        raise UnknownSampleError([Problem(f"there is no sample called '{name}'; the samples are: {valid}")])
    data = resources.files(__name__).joinpath(sample.filename).read_bytes()
    return read_file(data, filename=sample.filename).history


def load_history(
    spec: str,
    *,
    cpu_seconds: float | None | str = FROM_LIMITS,
    limits: Limits | None | str = BY_INPUT,
    progress: Callable[[int, int], None] | None = None,
) -> GameHistory:
    """Load a history from ``sample:NAME`` (a bundled sample), ``-`` (CSV on standard input) or a file path.

    ``limits`` and ``cpu_seconds`` as for :func:`ratings.io.read_file`: by default a path is a trusted local file
    (no caps) and standard input is held to the hosted limits (:data:`ratings.io.limits.HOSTED`); ``progress`` is
    handed to the reader.

    Here rather than in :mod:`ratings.io` because it knows both the samples and the readers (the samples are
    read with the readers, so the readers must not know the samples); the command line reads its history
    argument with it.
    """
    if spec.startswith("sample:"):
        return load_sample(spec.split(":", 1)[1])
    if spec == "-":
        bound = HOSTED if limits == BY_INPUT else limits
        assert bound is None or isinstance(bound, Limits)
        data = sys.stdin.buffer.read(-1 if bound is None else bound.max_bytes + 1)
        return read_file(data, filename="stdin.csv", cpu_seconds=cpu_seconds, limits=bound).history
    return read_file(spec, cpu_seconds=cpu_seconds, limits=limits, progress=progress).history
