"""The shared memo of callback answers (answer_memo.py, sources/answers.py): identical requests answered once, and
never one user's answer for another's request.

The app is driven through Flask's test client with the callbacks' own request bodies (tests/dash_requests.py).
Expected answers are the app's own answers computed with the memo turned off, in the same test: what is checked is
that the memo changes nothing a user sees, and what it keeps apart.
"""

from __future__ import annotations

import json
import time
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, ClassVar

import pytest

import app as app_module
from layouts.ids import Baseline, Data, Page, Params, Record, Standings
from ratings import Entry, Game, GameHistory
from sources import answers, model
from sources.answers import AnswerMemo, Reads, code_version, encoding_for
from sources.model import Edited, Loaded, Sheet, Upload, keep_history
from sources.store import shared_store
from tests.dash_requests import post
from web import answer_memo

SAMPLE = {"kind": "sample", "name": "poker"}
SETTINGS = {"system": "multielo", "params": {}}
UPDATE = "/_dash-update-component"


@pytest.fixture
def memo() -> Iterator[AnswerMemo]:
    found = answer_memo.process_memo()
    assert found is not None, "app.py installs the answer memo"
    enabled = found.enabled
    found.enabled = True
    yield found
    found.enabled = enabled


@pytest.fixture
def client() -> Any:
    return app_module.server.test_client()


def _history(*games: tuple[str, ...]) -> GameHistory:
    """Games given as players in finishing order (first wins)."""
    return GameHistory(
        [Game(f"g{i}", tuple(Entry(p, place) for place, p in enumerate(order, 1))) for i, order in enumerate(games)]
    )


def _standings(client: Any, source: Any, *, pinned: Any = None, settings: Any = SETTINGS) -> Any:
    values = {f"{Data.SOURCE}.data": source, f"{Params.SETTINGS}.data": settings, f"{Baseline.STORE}.data": pinned}
    values |= {f"{Standings.MIN_GAMES}.value": 0, f"{Page.TABS}.active_tab": "standings"}
    return post(client, Standings.LEADERBOARD, values)


def _rows(response: Any) -> list[dict[str, Any]]:
    """The leaderboard rows of a standings answer (decompressed as a browser would)."""
    assert response.status_code == 200
    data = response.data
    if response.headers.get("Content-Encoding") == "gzip":
        data = zlib.decompress(data, 31)
    return list(json.loads(data)["response"][Standings.LEADERBOARD]["rowData"])


def _players(response: Any) -> set[str]:
    return {str(row.get("player")) for row in _rows(response)}


def test_every_declaration_names_one_server_callback(memo: AnswerMemo) -> None:
    found, problems = answer_memo.memoisable_keys(app_module.app.callback_map)
    assert problems == []
    assert len(found) == len(answer_memo.DECLARED)
    assert set(memo.kinds) == set(found)
    for declared in answer_memo.DECLARED:
        assert declared.why.strip(), f"{declared.output} says why it may be memoised"


def test_the_record_forms_fresh_token_is_never_memoised(memo: AnswerMemo, client: Any) -> None:
    """The record form hands each visitor a fresh submission token (a retry of one user's submission must not be
    mistaken for another's): the same request twice gives two tokens."""
    values = {f"{Data.SOURCE}.data": SAMPLE}
    first, second = (post(client, Record.NAMES_DATA, values) for _ in range(2))
    tokens = [json.loads(r.data)["response"][Record.TOKEN]["data"] for r in (first, second)]
    assert tokens[0] != tokens[1]
    assert answers.HEADER not in first.headers and answers.HEADER not in second.headers
    assert not any(Record.TOKEN in kind for kind in memo.kinds)


def test_a_pages_own_random_ids_are_never_memoised(memo: AnswerMemo) -> None:
    """The settings callback draws each page's own id on its first settings (its older work is stopped by it), and the
    record form draws a submission token: neither callback is declared, and drawing either marks an answer as one
    not to keep, whatever callback draws it."""
    from sources.generations import next_generation
    from sources.record import new_submission_token

    declared = {d.output for d in answer_memo.DECLARED}
    assert f"{Params.SETTINGS}.data" not in declared and f"{Record.TOKEN}.data" not in declared
    for draw in (lambda: next_generation(None), new_submission_token):
        with answers.tracking() as reads:
            draw()
        assert reads.volatile is not None
    with answers.tracking() as reads:
        next_generation({"page": "a" * 32, "n": 3})  # the next number of a known page is not random
    assert reads.volatile is None


def test_pages_with_their_own_change_numbers_share_the_standings_answer(memo: AnswerMemo, client: Any) -> None:
    """Every page sends its own change number (a random page id) with the standings request; it only decides whether
    the work is still wanted, so pages otherwise alike share one answer, and a superseded request is never kept."""
    settings = {"system": "multielo", "params": {"k": 27.75}}
    source = {"kind": "sample", "name": "chess"}
    pages = [{"page": letter * 32, "n": 1} for letter in "abc"]

    def standings(generation: Any, settings: Any = settings) -> Any:
        values = {f"{Data.SOURCE}.data": source, f"{Params.SETTINGS}.data": settings}
        values |= {f"{Standings.GENERATION}.data": generation, f"{Page.TABS}.active_tab": "standings"}
        return post(client, Standings.LEADERBOARD, values | {f"{Standings.MIN_GAMES}.value": 0})

    memo.enabled = False
    computed = [standings(page) for page in pages[:2]]
    assert computed[0].data == computed[1].data, "the change number changes nothing in the answer"
    memo.enabled = True
    kept, hit = standings(pages[0]), standings(pages[1])
    assert kept.headers.get(answers.HEADER) == "kept" and hit.headers.get(answers.HEADER) == "hit"
    assert json.loads(hit.data) == json.loads(computed[0].data)
    from sources.generations import Generation, announce

    announce(Generation((pages[2]["page"], 5)))  # page c has moved on: its change 1 is stale
    other = {"system": "multielo", "params": {"k": 28.25}}
    assert standings(pages[2], other).status_code == 204  # nothing computed, nothing kept
    fresh = standings({"page": "d" * 32, "n": 1}, other)
    assert fresh.status_code == 200 and fresh.headers.get(answers.HEADER) == "kept"


def test_declared_callbacks_answer_the_same_request_the_same_way(memo: AnswerMemo, client: Any) -> None:
    """Each declared callback, computed twice for the same request with the memo off, gives the same bytes: a
    callback that drew on randomness or the clock would fail here (the record form's token does)."""
    values = {
        f"{Data.SOURCE}.data": SAMPLE,
        f"{Params.SETTINGS}.data": SETTINGS,
        f"{Params.SYSTEM}.value": "multielo",
        f"{Page.LOCATION}.search": "?sample=poker",
        f"{Standings.MIN_GAMES}.value": 0,
    }
    memo.enabled = False
    for declared in answer_memo.DECLARED:
        first, second = (post(client, declared.component, values) for _ in range(2))
        assert first.status_code == second.status_code, declared.output
        assert first.data == second.data, f"{declared.output} answers one request two ways"
    memo.enabled = True
    token_body = {f"{Data.SOURCE}.data": SAMPLE}
    memo.enabled = False
    assert post(client, Record.NAMES_DATA, token_body).data != post(client, Record.NAMES_DATA, token_body).data


def test_a_memoised_answer_is_the_computed_one(memo: AnswerMemo, client: Any) -> None:
    source = {"kind": "sample", "name": "chess"}
    settings = {"system": "multielo", "params": {"k": 23.5}}
    memo.enabled = False
    computed = _standings(client, source, settings=settings)
    memo.enabled = True
    kept = _standings(client, source, settings=settings)
    hit = _standings(client, source, settings=settings)
    assert kept.headers.get(answers.HEADER) == "kept"
    assert hit.headers.get(answers.HEADER) == "hit"
    assert json.loads(hit.data) == json.loads(kept.data) == json.loads(computed.data)


def test_a_hit_is_sent_compressed_as_kept(memo: AnswerMemo, client: Any) -> None:
    source = {"kind": "sample", "name": "racing"}
    body = {f"{Data.SOURCE}.data": source, f"{Params.SETTINGS}.data": {"system": "multielo", "params": {"k": 21.5}}}
    values = body | {f"{Standings.MIN_GAMES}.value": 0}
    post(client, Standings.LEADERBOARD, values)  # kept, in the test client's encoding (none)
    plain = post(client, Standings.LEADERBOARD, values)
    assert plain.headers.get(answers.HEADER) == "hit" and "Content-Encoding" not in plain.headers
    dep = {"Accept-Encoding": "gzip"}
    first = client.post(UPDATE, data=_body_of(client, values), content_type="application/json", headers=dep)
    again = client.post(UPDATE, data=_body_of(client, values), content_type="application/json", headers=dep)
    assert first.headers.get("Content-Encoding") == again.headers.get("Content-Encoding") == "gzip"
    assert again.headers.get(answers.HEADER) == "hit"
    assert zlib.decompress(again.data, 31) == plain.data
    assert encoding_for("gzip, deflate, br, zstd") == "zstd" and encoding_for("identity") == ""


def _body_of(client: Any, values: dict[str, Any]) -> str:
    """The body tests/dash_requests.post sends for the standings callback with ``values``."""
    sent: list[str] = []

    class Recorder:
        def get(self, path: str) -> Any:
            return client.get(path)

        def post(self, path: str, data: str, content_type: str) -> Any:
            sent.append(data)
            return None

    post(Recorder(), Standings.LEADERBOARD, values)
    return sent[0]


def test_users_with_different_uploads_never_get_each_others_answers(memo: AnswerMemo, client: Any) -> None:
    alice = Upload(keep_history(_history(("Ann", "Bob"), ("Ann", "Cy"), ("Bob", "Cy"))), "group.csv")
    bob = Upload(keep_history(_history(("Dee", "Eve"), ("Eve", "Fay"), ("Fay", "Dee"))), "group.csv")
    answers_of = {}
    for user in (alice, bob, alice, bob):
        response = _standings(client, user.to_json())
        answers_of.setdefault(user.id, []).append(response)
    assert all(_players(r) == {"Ann", "Bob", "Cy"} for r in answers_of[alice.id])
    assert all(_players(r) == {"Dee", "Eve", "Fay"} for r in answers_of[bob.id])
    assert answers_of[alice.id][1].headers.get(answers.HEADER) == "hit"  # the same user's own answer, again


def test_users_with_different_edits_never_get_each_others_answers(memo: AnswerMemo, client: Any) -> None:
    base = Upload(keep_history(_history(("Ann", "Bob"), ("Bob", "Cy"))), "base.csv")
    one = Edited.of(keep_history(_history(("Ann", "Bob"), ("Bob", "Cy"), ("Cy", "Ann"))), base)
    two = Edited.of(keep_history(_history(("Ann", "Bob"), ("Bob", "Cy"), ("Ann", "Gus"))), base)
    for _ in range(2):
        assert _players(_standings(client, one.to_json())) == {"Ann", "Bob", "Cy"}
        assert _players(_standings(client, two.to_json())) == {"Ann", "Bob", "Cy", "Gus"}


def test_users_with_different_baselines_never_get_each_others_answers(memo: AnswerMemo, client: Any) -> None:
    source = {"kind": "sample", "name": "poker"}
    pins = [
        {"source": source, "system": "pairwise-elo", "params": {}},
        {"source": source, "system": "glicko2", "params": {}},
    ]
    memo.enabled = False
    computed = [json.loads(_standings(client, source, pinned=pin).data) for pin in pins]
    assert computed[0] != computed[1], "two baselines draw two different answers"
    memo.enabled = True
    for _ in range(2):
        for pin, expected in zip(pins, computed, strict=True):
            assert json.loads(_standings(client, source, pinned=pin).data) == expected


def test_a_sheets_new_copy_is_never_answered_with_the_old_one(
    memo: AnswerMemo, client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Google Sheet's shared copy changes (a game recorded, a refresh): an answer drawn from the old copy is not
    served once the shared copy is another, nor after the copy's time to live."""
    monkeypatch.setattr(Sheet, "ttl", 3600.0)
    sheet = Sheet("https://docs.google.com/spreadsheets/d/answer-memo-test-sheet", "Games")
    old = keep_history(_history(("Ann", "Bob"), ("Bob", "Cy")))
    new = keep_history(_history(("Ann", "Bob"), ("Bob", "Cy"), ("Cy", "Dan")))
    pointer = f"pointer:{sheet.key}"
    shared_store().put(pointer, json.dumps([old, time.time()]).encode())
    first = _standings(client, sheet.to_json())
    assert _players(first) == {"Ann", "Bob", "Cy"}
    assert _standings(client, sheet.to_json()).headers.get(answers.HEADER) == "hit"
    shared_store().put(pointer, json.dumps([new, time.time()]).encode())
    assert _players(_standings(client, sheet.to_json())) == {"Ann", "Bob", "Cy", "Dan"}
    # and an answer whose copy is past its time to live is not served (the copy's deadline is checked on a hit)
    shared_store().put(pointer, json.dumps([old, time.time()]).encode())
    kept = _standings(client, sheet.to_json())
    assert kept.headers.get(answers.HEADER) == "kept"  # the pointer was written anew (a new read): recomputed
    name = memo.name(*_kind_and_body(client, sheet.to_json()))
    assert name is not None
    assert memo.find(name, "") is not None
    later = time.time() + Sheet.ttl + 1
    monkeypatch.setattr(answers.time, "time", lambda: later)
    assert memo.find(name, "") is None


def _kind_and_body(client: Any, source: Any) -> tuple[str, dict[str, Any]]:
    values = {f"{Data.SOURCE}.data": source, f"{Params.SETTINGS}.data": SETTINGS}
    values |= {f"{Standings.MIN_GAMES}.value": 0, f"{Page.TABS}.active_tab": "standings"}
    body = json.loads(_body_of(client, values))
    return body["output"], body


def test_an_answer_that_met_an_error_is_not_kept(
    memo: AnswerMemo, client: Any, failing_replay: dict[str, object]
) -> None:
    source = {"kind": "sample", "name": "chess"}
    failed = _standings(client, source, settings=failing_replay)
    assert failed.status_code == 200 and Page.ERROR in failed.get_data(as_text=True)  # the error banner
    assert answers.HEADER not in failed.headers
    assert answers.HEADER not in _standings(client, source, settings=failing_replay).headers


def test_an_answer_that_wrote_to_the_store_is_not_kept() -> None:
    with answers.tracking() as reads:
        keep_history(_history(("Ann", "Bob")))
    assert reads.volatile is not None
    memo = AnswerMemo([], "v")
    assert memo.keep("answer:x", b"{}", "", reads) is False
    assert memo.keep("answer:y", b"{}", "", Reads()) is True


def test_a_source_that_does_not_say_why_its_answers_may_be_kept_has_them_computed_every_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A new kind of source that forgets to declare its ``memo`` is safe: every answer that read it is computed anew;
    so is an answer of a "tracked" source (a group's title) whose read noted nothing to check."""

    @dataclass(frozen=True)
    class Changing:
        name: str
        kind: ClassVar[str] = "changing"

        @classmethod
        def from_json(cls, value: dict[str, Any]) -> Changing:
            return cls(str(value["name"]))

        def load(self, *, force: bool = False) -> Loaded:
            return Loaded(_history(("Ann", "Bob")), "changing:x", "x")

    monkeypatch.setitem(model._KINDS, "changing", Changing)
    with answers.tracking() as reads:
        model.read_source({"kind": "changing", "name": "x"})
    assert reads.volatile is not None and "changing" in reads.volatile
    with answers.tracking() as reads:
        model.read_source({"kind": "sample", "name": "poker"})  # bundled with the code: may be kept
    assert reads.volatile is None
    monkeypatch.setattr(model.GroupTitle, "load", Changing.load)  # a read noting nothing, without a database
    with answers.tracking() as reads:
        model.read_source(model.GroupTitle("club"))
    assert reads.volatile is not None and "group source that noted nothing" in reads.volatile


def test_undeclared_and_oversized_requests_have_no_name(memo: AnswerMemo) -> None:
    kind = next(iter(memo.kinds))
    assert memo.name(kind, {"output": kind}) is not None
    assert memo.name("record-names-data.data", {"output": "x"}) is None
    assert memo.name(kind, {"output": kind}, size=answers.MAX_BODY + 1) is None
    assert memo.name(kind, {"output": kind, "inputs": ["x" * answers.MAX_BODY]}) is None


def test_the_code_version_follows_the_code_and_the_settings(tmp_path: Any) -> None:
    (tmp_path / "app.py").write_text("one")
    (tmp_path / "ratings").mkdir()
    (tmp_path / "ratings" / "sample.csv").write_text("a")
    before = code_version(tmp_path, {})
    assert code_version(tmp_path, {}) == before
    assert code_version(tmp_path, {"RATINGS_SAMPLE": "chess"}) != before
    (tmp_path / "ratings" / "sample.csv").write_text("b")
    assert code_version(tmp_path, {}) != before


@pytest.mark.slow
def test_under_the_procfiles_workers_a_repeated_request_is_answered_from_the_memo(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """Through gunicorn as the Procfile runs it (web.serving.ThreadWorker finds the answer on arrival): the same request
    over and over, on two workers, gets the computed answer from the memo; the record form's token stays fresh."""
    from tests.dash_requests import HttpClient
    from tests.servers import gunicorn

    env = {"RATINGS_STORE_DIR": str(tmp_path_factory.mktemp("answers-store"))}
    with gunicorn(env, tmp_path_factory.mktemp("answers-logs"), workers=2) as url:
        http = HttpClient(url)
        values = {f"{Data.SOURCE}.data": SAMPLE, f"{Params.SETTINGS}.data": SETTINGS}
        values |= {f"{Standings.MIN_GAMES}.value": 0, f"{Page.TABS}.active_tab": "standings"}
        answered = [post(http, Standings.LEADERBOARD, values) for _ in range(6)]
        assert all(a.status_code == 200 for a in answered)
        assert answered[0].response.headers.get(answers.HEADER) == "kept"
        assert all(a.response.headers.get(answers.HEADER) == "hit" for a in answered[1:])
        assert all(json.loads(a.get_data()) == json.loads(answered[0].get_data()) for a in answered[1:])
        tokens = {
            json.loads(post(http, Record.NAMES_DATA, {f"{Data.SOURCE}.data": SAMPLE}).get_data())["response"][
                Record.TOKEN
            ]["data"]
            for _ in range(4)
        }
        assert len(tokens) == 4
