"""The command line `python -m ratings`: a few runs in a subprocess, the rest in-process.

Expected ratings come from the classic two-player Elo formula written out here
(Cunningham 2021: with two players multiplayer Elo is classic Elo, R' = R + K (S - E),
E = 1 / (1 + 10^((R_opp - R) / D))), not from the package.

Sources: Cunningham 2021: Danny Cunningham, "Developing a Generalized Elo Rating System for Multiplayer Games", Towards
Data Science, 2021 (equation numbers are the article's).
"""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from ratings import SYSTEM_NAMES, create, get_system
from ratings.cli import MAX_PROBLEMS, main
from ratings.samples import SAMPLES, load_history

ROOT = Path(__file__).resolve().parent.parent

# Two-player games only, so the expected values follow from classic Elo (K=32, D=400).
ELO_CSV = """game,date,player,place
g1,2024-03-01,Ann,1
g1,2024-03-01,Bob,2
g2,2024-03-02,Ann,1
g2,2024-03-02,Cid,2
g3,2024-03-03,Bob,1
g3,2024-03-03,Cid,DNF
"""


def classic_elo(r: float, opponent: float, score: float, k: float = 32.0, d: float = 400.0) -> float:
    return r + k * (score - 1.0 / (1.0 + 10.0 ** ((opponent - r) / d)))


def elo_expected() -> dict[str, float]:
    # g1: 1000 v 1000, Ann wins: E = 1/2 -> Ann 1016, Bob 984.
    ann, bob, cid = classic_elo(1000, 1000, 1), classic_elo(1000, 1000, 0), 1000.0
    assert (ann, bob) == (1016.0, 984.0)
    # g2: Ann (1016) beats Cid (1000).
    ann, cid = classic_elo(ann, cid, 1), classic_elo(cid, ann, 0)
    # g3: Bob finishes, Cid does not: a DNF is below every finisher, so Bob wins.
    bob, cid = classic_elo(bob, cid, 1), classic_elo(cid, bob, 0)
    return {"Ann": ann, "Bob": bob, "Cid": cid}


@pytest.fixture
def elo_csv(tmp_path: Path) -> Path:
    path = tmp_path / "games.csv"
    path.write_text(ELO_CSV)
    return path


def cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ratings", *args],
        cwd=ROOT,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def run_main(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(args), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def rows(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


# ---------------------------------------------------------------- end to end, in a subprocess
def test_rate_prints_the_leaderboard_as_csv(elo_csv: Path) -> None:
    done = cli("rate", str(elo_csv))
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert done.stdout.splitlines()[0] == "player,rating,games,wins,average_place"
    table = rows(done.stdout)
    expected = elo_expected()
    assert [r["player"] for r in table] == sorted(expected, key=lambda p: -expected[p])
    for r in table:
        assert float(r["rating"]) == pytest.approx(expected[r["player"]], rel=1e-12)
    # Ann: 2 games, 2 wins, places 1 and 1.  Bob: places 2, 1.  Cid: 2, then DNF = position 2.
    counts = {r["player"]: (r["games"], r["wins"], float(r["average_place"])) for r in table}
    assert counts == {"Ann": ("2", "2", 1.0), "Bob": ("2", "1", 1.5), "Cid": ("2", "0", 2.0)}


def test_rate_trajectory(elo_csv: Path) -> None:
    done = cli("rate", str(elo_csv), "--trajectory")
    assert done.returncode == 0, done.stderr
    table = rows(done.stdout)
    assert list(table[0])[:7] == ["game", "date", "player", "place", "rating_before", "rating_after", "change"]
    assert [(r["game"], r["date"], r["player"], r["place"]) for r in table] == [
        ("g1", "2024-03-01", "Ann", "1"),
        ("g1", "2024-03-01", "Bob", "2"),
        ("g2", "2024-03-02", "Ann", "1"),
        ("g2", "2024-03-02", "Cid", "2"),
        ("g3", "2024-03-03", "Bob", "1"),
        ("g3", "2024-03-03", "Cid", "DNF"),
    ]
    # Game 1 from the hand derivation in elo_expected: 1000 -> 1016 and 1000 -> 984.
    assert [(float(r["rating_before"]), float(r["rating_after"])) for r in table[:2]] == [
        (1000.0, 1016.0),
        (1000.0, 984.0),
    ]
    final = elo_expected()
    assert float(table[4]["rating_after"]) == pytest.approx(final["Bob"], rel=1e-12)
    assert float(table[5]["rating_after"]) == pytest.approx(final["Cid"], rel=1e-12)
    for r in table:
        change = float(r["rating_after"]) - float(r["rating_before"])
        assert float(r["change"]) == pytest.approx(change, abs=1e-9)


def test_evaluate_json(tmp_path: Path) -> None:
    # Hand derivation (also in tests/test_metrics.py): g1 A beats B from equal ratings
    # (tau 0.5; with equal ratings at random, pair inversion 0.5, rank deviation 0.5 each); then A (1016)
    # loses to B (984): tau 1, inversion 0, deviation 1.  Tau 1.5/2, inversion 1/4, deviation 3/4.
    path = tmp_path / "two.csv"
    path.write_text("game,player,place\ng1,A,1\ng1,B,2\ng2,A,2\ng2,B,1\n")
    everyone = ["--min-prior-games", "0", "--burn-in", "0"]
    done = cli("evaluate", str(path), "--json", *everyone, "--equal-ratings", "half")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert set(result) == {
        "kendall_tau",
        "pair_inversion",
        "rank_deviation",
        "pairs",
        "games",
        "scored_games",
        "scored_entries",
        "log_loss",
    }
    assert result["kendall_tau"] == pytest.approx(0.75, rel=1e-12)
    assert result["pair_inversion"] == pytest.approx(0.25, rel=1e-12)
    assert result["rank_deviation"] == pytest.approx(0.75, rel=1e-12)
    assert (result["pairs"], result["games"], result["scored_games"], result["scored_entries"]) == (2, 2, 2, 4)
    # The authors' count of equal ratings (the default): g1 predicted, inversion 1 and deviation 0 each.
    result = json.loads(cli("evaluate", str(path), "--json", *everyone).stdout)
    assert (result["pair_inversion"], result["rank_deviation"]) == (0.5, 0.5)
    # The paper's defaults: nobody has 5 earlier games, so those two have nothing to score.
    result = json.loads(cli("evaluate", str(path), "--json").stdout)
    assert (result["pair_inversion"], result["scored_games"], result["kendall_tau"]) == (None, 0, 0.75)


def test_systems_lists_every_system_and_parameter() -> None:
    done = cli("systems")
    assert done.returncode == 0, done.stderr
    blocks = done.stdout.split("\n\n")
    assert len(blocks) == len(SYSTEM_NAMES)
    for name, block in zip(SYSTEM_NAMES, blocks, strict=True):
        cls = get_system(name)
        assert block.startswith(f"{name}: {cls.title}")
        lines = block.splitlines()[1:]
        listed = [line.split()[0] for line in lines if not line.startswith("  rule on ")]
        assert listed == [spec.name for spec in cls.parameters()]
        for spec in cls.parameters():
            assert spec.help in block
            assert spec.kind in ("choice", "bool") or f"valid {spec.valid.notation()}" in block
        for rule in getattr(cls.Params, "RULES", ()):  # the rules between parameters are listed too
            assert f"  rule on {', '.join(rule.names)}: {rule.says}" in lines


def test_history_on_standard_input() -> None:
    done = cli("rate", "-", stdin=ELO_CSV)
    assert done.returncode == 0, done.stderr
    expected = elo_expected()
    assert {r["player"]: pytest.approx(float(r["rating"])) for r in rows(done.stdout)} == expected


def test_error_in_a_subprocess_is_one_line_without_traceback(tmp_path: Path) -> None:
    done = cli("rate", str(tmp_path / "missing.csv"))
    assert done.returncode == 2
    assert done.stdout == ""
    assert len(done.stderr.splitlines()) == 1
    assert "missing.csv" in done.stderr and "Traceback" not in done.stderr


# ---------------------------------------------------------------- in-process
def test_rate_reads_samples() -> None:
    code, out, err = run_main("rate", "sample:poker")
    assert code == 0, err
    table = rows(out)
    history = load_history("sample:poker")
    assert sorted(r["player"] for r in table) == sorted(history.players)
    ratings = [float(r["rating"]) for r in table]
    assert ratings == sorted(ratings, reverse=True)


def test_samples_listing() -> None:
    code, out, _ = run_main("samples")
    assert code == 0
    lines = out.splitlines()
    assert len(lines) == len(SAMPLES)
    for sample, line in zip(SAMPLES.values(), lines, strict=True):
        assert line.split()[0] == f"sample:{sample.name}"
        assert line.endswith(sample.description)


def test_extras_follow_the_standard_columns(elo_csv: Path) -> None:
    name = next((n for n in SYSTEM_NAMES if get_system(n).extra_series), None)
    if name is None:
        pytest.skip("no registered system reports extra series")
    extras = list(get_system(name).extra_series)
    code, out, err = run_main("rate", str(elo_csv), "--system", name)
    assert code == 0, err
    assert out.splitlines()[0].split(",") == ["player", "rating", "games", "wins", "average_place", *extras]
    code, out, err = run_main("rate", str(elo_csv), "--system", name, "--trajectory")
    assert code == 0, err
    assert out.splitlines()[0].split(",")[7:] == [f"{e}_{w}" for e in extras for w in ("before", "after")]


def test_numbers_keep_full_precision(elo_csv: Path) -> None:
    code, out, _ = run_main("rate", str(elo_csv), "--set", "k=17.3")
    assert code == 0
    printed = {r["player"]: float(r["rating"]) for r in rows(out)}
    run = create("multielo", k=17.3).rate(load_history(str(elo_csv)))
    assert printed == dict(zip(run.players, map(float, run.final), strict=True))  # repr round-trips exactly


def test_evaluate_human_readable(tmp_path: Path) -> None:
    path = tmp_path / "two.csv"
    path.write_text("game,player,place\ng1,A,1\ng1,B,2\ng2,A,2\ng2,B,1\n")
    code, out, _ = run_main(
        "evaluate", str(path), "--min-prior-games", "0", "--burn-in", "0", "--equal-ratings", "half"
    )
    assert code == 0
    assert "Kendall tau     0.7500" in out
    assert "pair inversion  25.00%" in out
    assert "rank deviation  75.00%" in out
    assert "2 pairs in 2 games" in out and "4 entries in 2 games" in out


@pytest.mark.parametrize(
    ("args", "fragments"),
    [
        (["rate", "{csv}", "--system", "no-such"], ["unknown rating system 'no-such'", "multielo"]),
        (["evaluate", "{csv}", "--set", "no_such=1"], ["no parameter 'no_such'", "multielo", "k, d"]),
        (["rate", "{csv}", "--set", "k=abc"], ["--set k=abc", "'abc' is not a number"]),
        (["rate", "{csv}", "--set", "k=-1"], ["parameter 'k'", "from 0 to 10000, got -1", "--set k=-1"]),
        (["rate", "{csv}", "--set", "k"], ["--set expects NAME=VALUE", "'k'"]),
        (["rate", "{dir}/missing.csv"], ["no readable file", "missing.csv"]),
        (["rate", "{dir}"], ["is a folder"]),
        (["rate", "sample:no-such"], ["no sample called 'no-such'", "poker"]),
    ],
)
def test_user_errors_exit_2_with_one_line(tmp_path: Path, elo_csv: Path, args: list[str], fragments: list[str]) -> None:
    argv = [a.format(csv=elo_csv, dir=tmp_path) for a in args]
    code, out, err = run_main(*argv)
    assert code == 2
    assert out == ""
    assert err.startswith("ratings: error: ")
    assert len(err.splitlines()) == 1
    for fragment in fragments:
        assert fragment in err


def test_a_bad_file_lists_every_problem_one_per_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.csv"
    path.write_text(
        "game,date,player,place\ng1,2024-01-05,Ann,1\ng1,2024-01-05,Bob,second\ng2,2024-01-0123,Ann,1\n"
        "g2,2024-01-06,Cid,-4\ng3,,,2\n"
    )
    code, out, err = run_main("rate", str(path))
    assert code == 2 and out == ""
    # One line per problem, each saying file, row (header = row 1), column and what, in row order.
    assert err.splitlines() == [
        "ratings: error: bad.csv, row 3, column 'place': place 'second' is not a whole number (1 is the best place) "
        "or DNF (player 'Bob')",
        "ratings: error: bad.csv, row 4, column 'date': '2024-01-0123' is not a date this reader understands "
        "(write it as YYYY-MM-DD, e.g. 2024-03-31)",
        "ratings: error: bad.csv, row 5, column 'place': place -4 is not positive (1 is the best place) (player 'Cid')",
        "ratings: error: bad.csv, row 6, column 'player': place '2' in game 'g3' has no player name",
    ]


def test_problems_past_the_cap_are_counted(tmp_path: Path) -> None:
    path = tmp_path / "many.csv"
    path.write_text("game,player,place\n" + "".join(f"g{i},P{i},x{i}\n" for i in range(130)))
    code, _, err = run_main("rate", str(path))
    lines = err.splitlines()
    assert code == 2 and len(lines) == MAX_PROBLEMS + 1 == 101
    assert lines[0].startswith("ratings: error: many.csv, row 2, column 'place': place 'x0'")
    assert lines[99].startswith("ratings: error: many.csv, row 101, column 'place': place 'x99'")
    assert lines[-1] == "ratings: error: and 30 more problems"


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2  # no command
    assert main(["rate"]) == 2  # no history
    assert main(["systems", "--no-such-option"]) == 2
    assert "usage:" in capsys.readouterr().err
    assert main(["--help"]) == 0


def test_none_turns_optional_parameters_off(elo_csv: Path) -> None:
    _, default, _ = run_main("rate", str(elo_csv))
    _, with_dummy, _ = run_main("rate", str(elo_csv), "--set", "dummy=900")
    assert with_dummy != default
    # The later --set wins: the dummy set above is turned off again, and so is the floor.
    code, out, err = run_main("rate", str(elo_csv), "--set", "dummy=900", "--set", "dummy=none", "--set", "floor=None")
    assert code == 0, err
    assert out == default
    # And with a floor of 990, Bob (984 after g1 by the hand derivation) is held at 990.
    code, out, _ = run_main("rate", str(elo_csv), "--set", "floor=990", "--trajectory")
    assert code == 0
    assert [float(r["rating_after"]) for r in rows(out)[:2]] == [1016.0, 990.0]


def knot_systems() -> list[str]:
    return [n for n in SYSTEM_NAMES if "eta_knots" in {s.name for s in get_system(n).parameters()}]


@pytest.mark.parametrize("name", knot_systems())
def test_list_parameters_are_comma_separated(elo_csv: Path, name: str) -> None:
    args = ["--system", name, "--set", "eta_knots=0,1,2", "--set", "eta_values=0.6,0.13,0.09"]
    code, out, err = run_main("rate", str(elo_csv), *args)
    assert code == 0, err
    run = create(name, eta_knots=(0.0, 1.0, 2.0), eta_values=(0.6, 0.13, 0.09)).rate(load_history(str(elo_csv)))
    assert {r["player"]: float(r["rating"]) for r in rows(out)} == dict(zip(run.players, run.final, strict=True))
    _, default, _ = run_main("rate", str(elo_csv), "--system", name)
    assert out != default
    # Knots without values is refused by the system, reported in one line.
    code, _, err = run_main("rate", str(elo_csv), "--system", name, "--set", "eta_knots=0,1,2")
    assert code == 2 and len(err.splitlines()) == 1 and "eta_" in err
    code, _, err = run_main("rate", str(elo_csv), "--system", name, "--set", "eta_knots=0,a")
    assert code == 2 and "comma-separated numbers" in err


def test_formula_like_names_are_neutralised(tmp_path: Path) -> None:
    path = tmp_path / "names.csv"
    path.write_text("game,player,place\ng1,=SUM(A1),1\ng1,Bob,2\n")
    code, out, _ = run_main("rate", str(path))
    assert code == 0
    assert [r["player"] for r in rows(out)] == ["'=SUM(A1)", "Bob"]


@pytest.mark.parametrize("name", SYSTEM_NAMES)
def test_every_registered_system_runs_from_the_command_line(elo_csv: Path, name: str) -> None:
    code, out, err = run_main("rate", str(elo_csv), "--system", name)
    assert code == 0, err
    table = rows(out)
    assert sorted(r["player"] for r in table) == ["Ann", "Bob", "Cid"]
    ratings = [float(r["rating"]) for r in table]
    assert ratings == sorted(ratings, reverse=True)
    code, out, err = run_main("evaluate", str(elo_csv), "--system", name, "--json")
    assert code == 0, err
    assert json.loads(out)["pairs"] == 3  # one pair per two-player game


def test_wide_shape_file(tmp_path: Path) -> None:
    # The same three games as ELO_CSV, one row per game (ratings.io's wide shape).
    path = tmp_path / "wide.csv"
    path.write_text("date,1st,2nd,DNF\n2024-03-01,Ann,Bob,\n2024-03-02,Ann,Cid,\n2024-03-03,Bob,,Cid\n")
    code, out, err = run_main("rate", str(path))
    assert code == 0, err
    assert {r["player"]: pytest.approx(float(r["rating"])) for r in rows(out)} == elo_expected()


def test_option_dates_follow_the_readers_date_rule(elo_csv: Path) -> None:
    # --from reads a date as the file readers do: 2024-03-02 and 2 March 2024 agree; a date with extra digits
    # and one that could be day or month first are refused, saying why.
    _, iso, _ = run_main("evaluate", str(elo_csv), "--from", "2024-03-02", "--json")
    _, words, _ = run_main("evaluate", str(elo_csv), "--from", "2 March 2024", "--json")
    assert json.loads(iso) == json.loads(words) and json.loads(iso)["first_game"] == 2
    code, _, err = run_main("evaluate", str(elo_csv), "--from", "2024-03-0123")
    assert code == 2 and "'2024-03-0123' is not a date this reader understands" in err
    code, _, err = run_main("evaluate", str(elo_csv), "--from", "03/02/2024")
    assert code == 2 and "can be read day/month or month/day" in err
