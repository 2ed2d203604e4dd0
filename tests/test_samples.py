"""Tests for the bundled samples: they load, have the promised sizes and tell the promised stories.

The story checks use plain average places computed here from the games, not any rating system.
"""

from __future__ import annotations

import csv
import io
from importlib import resources

import numpy as np
import pytest

from ratings.history import GameHistory, HistoryError
from ratings.io import read_file
from ratings.samples import DEFAULT_SAMPLE, SAMPLES, UnknownSampleError, generate, list_samples, load_sample


def test_catalogue() -> None:
    assert DEFAULT_SAMPLE == "poker"
    assert set(SAMPLES) == {"poker", "racing", "chess", "doubles"}
    assert list_samples()[0].name == "poker"
    for sample in SAMPLES.values():
        assert sample.title and sample.description and "\n" not in sample.description


def test_unknown_sample_lists_valid_names() -> None:
    with pytest.raises(UnknownSampleError) as error:
        load_sample("bridge")
    assert isinstance(error.value, HistoryError)
    text = str(error.value)
    assert "'bridge'" in text and "poker, racing, chess, doubles" in text


def sizes(history: GameHistory) -> np.ndarray:
    return np.diff(history.offsets)


def test_poker_sample() -> None:
    history = load_sample("poker")
    data = resources.files("ratings.samples").joinpath("poker.csv").read_bytes()
    assert read_file(data, filename="poker.csv").shape == "wide"  # kept as a group keeps its sheet
    assert history.n_players == 10 and history.n_games == 150
    assert sizes(history).min() >= 4 and sizes(history).max() <= 8
    assert history.has_dates
    first, last = history.games[0].date, history.games[-1].date
    assert first is not None and last is not None and 700 <= (last - first).days <= 731
    assert any(len(set(g.places)) < len(g.places) for g in history.games), "some nights end in a tie"
    assert history.flat_dnf.any(), "someone leaves early now and then"


def test_racing_sample() -> None:
    history = load_sample("racing")
    assert history.n_players == 150 and history.n_games == 2000
    assert sizes(history).min() >= 2 and sizes(history).max() <= 30
    assert 0.10 <= history.flat_dnf.mean() <= 0.30, "many DNFs"
    assert history.has_dates
    assert read_file(
        resources.files("ratings.samples").joinpath("racing.csv").read_bytes(), filename="r.csv"
    ).shape == ("long")


def test_chess_sample() -> None:
    history = load_sample("chess")
    assert history.n_players == 30 and 1400 <= history.n_games <= 1600
    assert (sizes(history) == 2).all()
    draws = np.mean([g.places == (1, 1) for g in history.games])
    assert 0.15 <= draws <= 0.40
    assert history.has_dates


def test_doubles_sample() -> None:
    history = load_sample("doubles")
    assert history.n_players == 16 and 500 <= history.n_games <= 700
    assert history.team_game.all(), "every match is between two pairs"
    for game in history.games:
        teams = {e.team for e in game.entries}
        assert len(teams) == 2 and sorted(e.place for e in game.entries)[0] == 1
        assert all(sum(e.weight for e in game.entries if e.team == t) == 2.0 for t in teams), "two players' worth"
    substituted = [g for g in history.games if len(g.entries) == 5]
    assert 10 <= len(substituted) <= 80, "now and then a substitute plays half a match"
    assert history.has_dates


def win_rate(history: GameHistory, player: str, lo: float, hi: float) -> float:
    """Share of a player's matches won over a fraction [lo, hi) of the games."""
    n = history.n_games
    won = [e.place == 1 for g in history.games[int(lo * n) : int(hi * n)] for e in g.entries if e.player == player]
    assert won, f"{player} played between {lo} and {hi}"
    return float(np.mean(won))


def test_doubles_tells_its_story() -> None:
    history = load_sample("doubles")
    assert win_rate(history, "Ana", 0.0, 1.0) > 0.65  # the club's best, whoever her partner
    assert history.games[0].players.count("Yuki") == 0
    assert win_rate(history, "Yuki", 0.8, 1.0) > win_rate(history, "Yuki", 0.3, 0.5) + 0.2
    slump = win_rate(history, "Hugo", 0.45, 0.6)
    assert slump < win_rate(history, "Hugo", 0.0, 0.3) - 0.15 and slump < win_rate(history, "Hugo", 0.85, 1.0) - 0.15


def mean_place(history: GameHistory, player: str, lo: float, hi: float) -> float:
    """Average finishing place of a player (DNF counted as last) over a fraction [lo, hi) of the games."""
    n = history.n_games
    places = []
    for game in history.games[int(lo * n) : int(hi * n)]:
        for entry in game.entries:
            if entry.player == player:
                places.append(entry.place if entry.place is not None else len(game.entries))
    assert places, f"{player} played between {lo} and {hi}"
    return float(np.mean(places))


def test_poker_tells_its_story() -> None:
    history = load_sample("poker")
    # The rising newcomer: joins after the start and finishes far better at the end than at first.
    assert history.games[0].players.count("Jonas") == 0
    assert mean_place(history, "Jonas", 0.75, 1.0) < mean_place(history, "Jonas", 0.3, 0.5) - 1.0
    # The slump: worse in the middle than before and after.
    before, during, after = (mean_place(history, "Priya", a, b) for a, b in ((0, 0.3), (0.45, 0.65), (0.85, 1)))
    assert during > before + 0.8 and during > after + 0.8
    # The dominant veteran: better than the table average over the first half.
    assert mean_place(history, "Marta", 0.0, 0.5) < 3.0


def relative_place(history: GameHistory, player: str, lo: float, hi: float) -> float:
    """Average of (place - 1) / (entrants - 1) over a fraction of the games: 0 always first, 1 always last."""
    n = history.n_games
    values = []
    for game in history.games[int(lo * n) : int(hi * n)]:
        for entry in game.entries:
            if entry.player == player:
                place = entry.place if entry.place is not None else len(game.entries)
                values.append((place - 1) / (len(game.entries) - 1))
    assert values, f"{player} played between {lo} and {hi}"
    return float(np.mean(values))


def test_racing_tells_its_story() -> None:
    history = load_sample("racing")
    assert set(generate.RACING_STORY) <= set(history.players)
    assert relative_place(history, "Vexa", 0.0, 1.0) < 0.3  # dominant throughout
    assert relative_place(history, "Nova", 0.8, 1.0) < relative_place(history, "Nova", 0.25, 0.4) - 0.3
    slump = relative_place(history, "Brick", 0.4, 0.6)
    assert slump > relative_place(history, "Brick", 0.0, 0.25) + 0.15
    assert slump > relative_place(history, "Brick", 0.8, 1.0) + 0.15
    assert relative_place(history, "Orion", 0.8, 1.0) > relative_place(history, "Orion", 0.0, 0.2) + 0.3


def test_chess_tells_its_story() -> None:
    history = load_sample("chess")
    assert relative_place(history, "Abena", 0.0, 1.0) < 0.2  # the champion
    assert relative_place(history, "Anders", 0.8, 1.0) < relative_place(history, "Anders", 0.2, 0.4) - 0.2
    slump = relative_place(history, "Beatriz", 0.5, 0.7)
    assert slump > relative_place(history, "Beatriz", 0.0, 0.35) + 0.2
    assert slump > relative_place(history, "Beatriz", 0.85, 1.0) + 0.2


def test_generator_is_deterministic_and_matches_committed_files() -> None:
    # Snapshot check: the committed files are what the seeded generator writes today.
    root = resources.files("ratings.samples")
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows(generate.poker_rows())
    assert root.joinpath("poker.csv").read_text(encoding="utf-8") == buffer.getvalue()
    from ratings.io import write_csv

    assert root.joinpath("chess.csv").read_text(encoding="utf-8") == write_csv(generate.chess_history(), "long")
    assert root.joinpath("doubles.csv").read_text(encoding="utf-8") == write_csv(generate.doubles_history(), "long")
    assert generate.poker_rows() == generate.poker_rows()
