"""Who may write a group's games, and where (issue 29): the pure rule of :mod:`sources.access`.

The end-to-end checks (a forged confirm, a visitor, the organiser, cross-site requests, limits) are in
tests/test_write_rights.py, through gunicorn and the local stand-in for Google.
"""

from __future__ import annotations

import pytest

from sources.access import ASK_FOR_SECRET, RECORDING_OFF, organiser_mark, rights, secret_matches, write_target
from sources.sheets import SheetError, SheetSettings

KEY = "1AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdEF"
OTHER = "1ZyXwVuTsRqPoNmLkJiHgFeDcBa9876543210zyxwVU"
GROUP = SheetSettings(sheet=KEY, worksheet="Games", service_account_json="{}")


@pytest.mark.parametrize(
    ("given", "expected"),
    [("open sesame", True), ("open sesame ", False), ("Open sesame", False), ("", False), (None, False), (7, False)],
)
def test_the_secret_matches_only_itself(given: object, expected: bool) -> None:
    assert secret_matches(given, "open sesame") is expected


def test_no_configured_secret_matches_nothing() -> None:
    assert not secret_matches("", None) and not secret_matches("anything", "")


def test_the_cookie_mark_is_neither_the_secret_nor_valid_under_another_key_or_secret() -> None:
    mark = organiser_mark("app key", "open sesame")
    assert "open sesame" not in mark and len(mark) == 64
    assert rights(mark=mark, secret_key="app key", admin_secret="open sesame", local=False).organiser
    # a new SECRET_KEY or a new organisers' secret signs every organiser out
    assert not rights(mark=mark, secret_key="other key", admin_secret="open sesame", local=False).may_record
    assert not rights(mark=mark, secret_key="app key", admin_secret="new secret", local=False).may_record


@pytest.mark.parametrize("mark", [None, "", "0" * 64, 12, ["x"]])
def test_a_visitor_is_asked_for_the_secret(mark: object) -> None:
    now = rights(mark=mark, secret_key="app key", admin_secret="open sesame", local=True)
    assert (now.may_record, now.organiser, now.can_sign_in, now.message) == (False, False, True, ASK_FOR_SECRET)


def test_without_a_secret_only_a_local_server_records() -> None:
    hosted = rights(mark=None, secret_key="k", admin_secret=None, local=False)
    assert (hosted.may_record, hosted.can_sign_in, hosted.message) == (False, False, RECORDING_OFF)
    assert "RATINGS_ADMIN_SECRET" in hosted.message
    assert rights(mark=None, secret_key="k", admin_secret=None, local=True).may_record


@pytest.mark.parametrize(
    "source",
    [
        {"kind": "sheet", "url": KEY, "worksheet": "Games"},
        {"kind": "sheet", "url": f"https://docs.google.com/spreadsheets/d/{KEY}/edit#gid=0", "worksheet": "Games"},
    ],
)
def test_the_configured_sheet_is_the_target_whatever_its_spelling(source: dict[str, object]) -> None:
    assert write_target(source, GROUP) == (KEY, "Games")


@pytest.mark.parametrize(
    "source",
    [
        {"kind": "sheet", "url": OTHER, "worksheet": "Games"},
        {"kind": "sheet", "url": KEY, "worksheet": "Other"},
        {"kind": "sheet", "url": KEY},
        {"kind": "sheet", "url": KEY, "worksheet": ["Games"]},
        {"kind": "sheet", "url": "https://evil.example/spreadsheets/d/" + KEY, "worksheet": "Games"},
        {"kind": "sample", "name": "poker"},
        None,
        "a string",
    ],
)
def test_any_other_sheet_named_by_a_request_is_refused(source: object) -> None:
    with pytest.raises(SheetError) as error:
        write_target(source, GROUP)
    assert "only into the group's own sheet" in error.value.message


def test_no_configured_sheet_no_target() -> None:
    with pytest.raises(SheetError, match="RATINGS_SHEET is not set"):
        write_target({"kind": "sheet", "url": KEY}, SheetSettings())


def test_the_service_account_reads_only_the_configured_sheet() -> None:
    assert GROUP.for_sheet(KEY, "Games").service_account_json == "{}"
    assert GROUP.for_sheet(OTHER, "Games").service_account_json is None
    assert GROUP.for_sheet(KEY, "Other").service_account_json is None


@pytest.mark.parametrize(
    ("address", "expected"),
    [
        ("127.0.0.1", True),
        ("::1", True),
        ("localhost", True),
        ("127.8.0.1", True),
        ("0.0.0.0", False),
        ("10.0.0.5", False),
        ("example.org", False),
        ("", False),
        (None, False),
    ],
)
def test_one_rule_for_this_machine(address: str | None, expected: bool) -> None:
    from sources.access import is_loopback

    assert is_loopback(address) is expected
