"""Ratings and history CSV downloads: content, spreadsheet safety, file names, the callbacks as functions."""

from __future__ import annotations

import csv
import io

import pytest

import figures
from callbacks import downloads
from callbacks.runs import history_for
from layouts.leaderboard import leaderboard_view
from ratings import GameHistory, create
from ratings.io import read_file
from ratings.samples import load_sample
from sources import edits
from sources.reading import file_stem, history_csv

EVIL = '=HYPERLINK("http://x","y")'
RECORDS = [
    {"game": "g1", "date": "2024-03-01", "player": "Ann", "place": 1},
    {"game": "g1", "date": "2024-03-01", "player": EVIL, "place": 2},
    {"game": "g2", "date": "2024-03-08", "player": "+Bo", "place": 1},
    {"game": "g2", "date": "2024-03-08", "player": "@Cy", "place": 2},
]


def parse(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text)))


def test_ratings_csv_is_the_leaderboard_by_hand() -> None:
    # Multiplayer Elo defaults (K=32, D=400, start 1000); one game between equals: +-16 (Cunningham 2021, eq. 7).
    history = GameHistory.from_records(RECORDS[:2])
    rows = parse(figures.ratings_csv(create("multielo").rate(history)))
    assert rows[0] == ["rank", "player", "rating (Elo points)", "games", "wins", "average place", "last change"]
    assert rows[1] == ["1", "Ann", "1016", "1", "1", "1", "16"]
    # the formula-like name starts with an apostrophe; the negative number stays a number
    assert rows[2] == ["2", "'" + EVIL, "984", "1", "0", "2", "-16"]


def test_no_cell_of_either_csv_can_start_a_formula() -> None:
    # OWASP "CSV injection": cells beginning with = + - @ (or tab / carriage return) run as formulas.
    history = GameHistory.from_records(RECORDS)
    rating_cells = [c for row in parse(figures.ratings_csv(create("multielo").rate(history)))[1:] for c in row]
    names = {c for c in rating_cells if not c.lstrip("-").replace(".", "", 1).isdigit()}
    assert names == {"Ann", "'" + EVIL, "'+Bo", "'@Cy"}
    source = edits.edited_source(history, {"kind": "sample", "name": "poker"})
    cells = [c for row in parse(history_csv(source))[1:] for c in row]
    assert not any(c.startswith(("=", "+", "@")) for c in cells)


def test_history_csv_reads_back_as_the_same_games() -> None:
    history = GameHistory.from_records(RECORDS)
    source = edits.edited_source(history, {"kind": "sample", "name": "poker"})
    again = read_file(history_csv(source).encode(), filename="history.csv").history
    assert again.to_records() == history_for(source).to_records()


def test_ratings_csv_follows_the_scale_and_filter() -> None:
    history = GameHistory.from_records(RECORDS)
    run = create("multielo").rate(history)
    scale = figures.Scale(offset=0.0, factor=2.0, unit="double points")
    rows = parse(figures.ratings_csv(run, min_games=2, scale=scale))
    assert rows[0][2] == "rating (double points)"
    assert rows[1:] == []  # nobody has played two games


@pytest.mark.parametrize("box", [None, -1, 0, 2.5, 40, 1e15])
def test_the_ratings_csv_lists_the_players_the_leaderboard_lists(box) -> None:
    # The minimum-games box read once for both (figures.min_games_of): at 1e15 the leaderboard listed
    # everybody (an absurd number is no filter) while the "Ratings CSV" button, reading the box its own way, listed
    # nobody.  Poker: every player has at least 38 games, Luis 38 and the others 51 or more (the leaderboard).
    source, current = {"kind": "sample", "name": "poker"}, {"system": "multielo", "params": {}}
    run = create("multielo").rate(load_sample("poker"))
    shown = leaderboard_view(run, min_games=box, offset=None, factor=None, baseline=None)
    sent = downloads.on_ratings_csv(1, source, current, box, None, None)
    assert [r[1] for r in parse(sent["content"])[1:]] == [r["player"] for r in shown.rows]
    assert len(shown.rows) == (9 if box == 40 else 10)


def test_file_stem() -> None:
    assert file_stem({"kind": "sample", "name": "poker"}, "multielo") == "sample-poker-multielo"
    assert file_stem({"kind": "upload", "id": "0" * 32, "filename": "Club Night.xlsx"}) == "upload-club-night-xlsx"
    assert file_stem(None) == "unknown-source"


def test_the_download_callbacks_send_csv_files() -> None:
    source = {"kind": "sample", "name": "poker"}
    sent = downloads.on_ratings_csv(1, source, {"system": "multielo", "params": {}}, 1, None, None)
    assert sent["filename"] == "ratings-sample-poker-multielo.csv"
    assert sent["content"].startswith("rank,player,rating (Elo points)")
    history = downloads.on_history_csv(1, source)
    assert history["filename"] == "history-sample-poker.csv"
    assert history["content"].startswith("game,date,player,place\n")
    from dash.exceptions import PreventUpdate

    with pytest.raises(PreventUpdate):
        downloads.on_history_csv(1, None)


def test_png_file_names_say_the_data_and_the_system() -> None:
    from layouts.downloads import PNG_CHARTS, png_configs

    configs = png_configs({"kind": "sample", "name": "poker"}, "multielo")
    assert len(configs) == len(PNG_CHARTS)
    names = [c["toImageButtonOptions"]["filename"] for c in configs]
    assert names[0] == "rating-trajectories-sample-poker-Multiplayer-Elo"
    assert all(n.endswith("-sample-poker-Multiplayer-Elo") for n in names)
    assert configs[0]["responsive"] is True and configs[0]["showSendToCloud"] is False
    plain = png_configs({"kind": "sample", "name": "chess"}, "trueskill")
    assert plain[3]["toImageButtonOptions"]["filename"] == "win-probabilities-sample-chess-TrueSkill"
    unknown = png_configs(None, "no-such-system")[0]["toImageButtonOptions"]["filename"]
    assert unknown == "rating-trajectories-unknown-source"
