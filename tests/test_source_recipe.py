"""README's recipe for a new data source: one registered class in ``sources/model.py`` (and its test) is enough for
the page to take its address in the data card, read it, name it, share it in a link and read the link back.

The class below is a throwaway kind defined only here (games typed in the address itself, ``games:Ann>Bob;Cy>Ann``):
nothing else in the app names it, so everything the test sees comes from the recipe's one class.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, ClassVar

import pytest

import app as app_module
from layouts.ids import Data, Page
from ratings import Entry, Game, GameHistory
from sources import model
from sources.links import share_text
from sources.model import Loaded, address_label, source_at, source_from_query
from sources.reading import describe_source
from tests.dash_requests import post


@dataclass(frozen=True)
class Typed:
    """Games typed in the address: ``games:`` then games separated by ``;``, players in order by ``>``."""

    text: str
    kind: ClassVar[str] = "typed-games"
    memo: ClassVar[str] = "fixed"  # the content is the address itself
    link_holds: ClassVar[str] = "the games themselves"
    address_label: ClassVar[str] = "typed games"
    address_example: ClassVar[str] = "games:Ann>Bob;Bob>Cy"

    @property
    def key(self) -> str:
        return f"typed:{self.text}"

    @property
    def label(self) -> str:
        return f"typed games {self.text}"

    @property
    def address(self) -> str:
        return f"games:{self.text}"

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "text": self.text}

    def query(self) -> list[tuple[str, str]]:
        return [("typed", self.text)]

    @classmethod
    def from_json(cls, value: dict[str, Any]) -> Typed:
        return cls(str(value.get("text", ""))[:200])

    @classmethod
    def from_query(cls, pairs: dict[str, str]) -> dict[str, Any] | None:
        return cls(pairs["typed"]).to_json() if pairs.get("typed") else None

    @classmethod
    def from_address(cls, text: str) -> Typed | None:
        return cls(text[len("games:") :]) if text.startswith("games:") else None

    def load(self, *, force: bool = False) -> Loaded:
        games = [
            Game(f"g{i}", tuple(Entry(name, place) for place, name in enumerate(part.split(">"), 1)))
            for i, part in enumerate(self.text.split(";"), 1)
        ]
        return Loaded(GameHistory(games), self.key, self.label)


@pytest.fixture
def registered() -> Iterator[None]:
    kinds = dict(model._KINDS)
    model.source_kind(Typed)
    yield
    model._KINDS.clear()
    model._KINDS.update(kinds)


def test_one_registered_class_is_read_named_and_linked(registered: None) -> None:
    at = source_at("  games:Ann>Bob;Cy>Ann ")
    assert at == {"kind": "typed-games", "text": "Ann>Bob;Cy>Ann"}
    assert model.read_source(at).history.players == ("Ann", "Bob", "Cy")
    assert describe_source(at) == "typed games Ann>Bob;Cy>Ann"
    assert share_text(at).startswith("The link holds the games themselves, ")
    assert source_from_query({"typed": "Ann>Bob"}) == {"kind": "typed-games", "text": "Ann>Bob"}
    assert address_label() == "typed games or Google Sheet"  # the Sheet takes any address the others leave, last
    assert source_at("https://docs.google.com/spreadsheets/d/abc/edit")["kind"] == "sheet"


def test_the_data_cards_address_box_loads_it(registered: None) -> None:
    client = app_module.server.test_client()
    values = {f"{Data.SHEET_URL}.value": "games:Ann>Bob;Bob>Cy;Ann>Cy", f"{Page.LOCATION}.pathname": "/"}
    answer = post(client, Data.SOURCE, values, changed=[f"{Data.SHEET_LOAD}.n_clicks"])
    assert answer.status_code == 200
    response = json.loads(answer.get_data(as_text=True))["response"]
    assert response[Data.SOURCE]["data"]["kind"] == "typed-games"
    assert response[Data.SHEET_URL]["value"] == "games:Ann>Bob;Bob>Cy;Ann>Cy"  # the box shows what was read
    assert "3 games" in json.dumps(response[Data.SUMMARY]["children"])


def test_without_the_class_the_address_is_offered_to_the_sheet_which_says_what_it_takes() -> None:
    at = source_at("games:Ann>Bob")
    assert at["kind"] == "sheet"
    with pytest.raises(model.DataError) as caught:
        model.read_source(at)
    assert "is not a Google Sheets link" in " ".join(caught.value.messages)
