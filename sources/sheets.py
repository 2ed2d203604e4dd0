"""Google Sheets as the home of a game group's history: read it (cached, retried, with timeouts) and append to it.

Configuration comes from the environment variables declared in :mod:`sources.settings` (``RATINGS_SHEET``,
``RATINGS_WORKSHEET``, ``GOOGLE_SERVICE_ACCOUNT_JSON``, ``RATINGS_SHEET_*``, ``RATINGS_GOOGLE_ENDPOINT``), read when
:func:`load_settings` is called (never at import).  With a service account the configured sheet is read (and games
are recorded) through the Sheets API as that account; any other sheet, and every sheet without one, through its
public CSV export (which cannot write).

Reads go through :class:`SheetSource`.  A read younger than the cache time is reused; ``read(force=True)``
reads anew.  When Google cannot be reached or refuses (not shared, no such sheet, rate limit, server error,
timeout), the last good copy stays in use and :class:`SheetRead` says why (``stale=True``, ``message``);
:class:`SheetError` is raised only when there is no good copy at all.  The cache is per process: each gunicorn
worker keeps its own copy, which is harmless because a read has no side effects.

Every answer from Google is read in pieces, refused past :data:`MAX_RESPONSE_BYTES` (the upload limit, 10 MB)
and cut off at the deadline however slowly it arrives: a per-read timeout alone lets a server that sends a byte
every two seconds hold a worker forever.  The rows read are bounded like an uploaded file's.

Tests hand in their own ``requests.Session`` or ``gspread.Client``, or point ``RATINGS_GOOGLE_ENDPOINT`` at a local
fake (the app served by gunicorn in a test); production uses Google's real hosts.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import logging
import os
import re
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol
from urllib.parse import urlsplit

import google.auth.exceptions
import gspread
import requests
import urllib3.exceptions
from requests.adapters import HTTPAdapter

from ratings.history import GameHistory, HistoryError
from ratings.io import MAX_BYTES, MAX_SHEET_ROWS, ReadResult, read_table
from ratings.io.cells import shortened
from sources import settings
from sources.cache import LastGoodCache
from sources.forksafe import ForkSafeLock

__all__ = [
    "MAX_RESPONSE_BYTES",
    "SCOPES",
    "BoundedAdapter",
    "GspreadBackend",
    "PublicCsvBackend",
    "RetryPolicy",
    "SheetError",
    "SheetRead",
    "SheetRef",
    "SheetSettings",
    "SheetSource",
    "load_settings",
    "open_configured_source",
    "parse_sheet_ref",
    "service_account_email",
    "sharing_hint",
]

log = logging.getLogger(__name__)

#: OAuth scope for the service account: reading and appending values.
SCOPES = ("https://www.googleapis.com/auth/spreadsheets",)

#: Largest answer read from Google, in bytes (decompressed): the limit of an uploaded file.
MAX_RESPONSE_BYTES = MAX_BYTES

#: The public CSV export of one worksheet (no credentials needed for "anyone with the link" sheets).
EXPORT_URL = "https://docs.google.com/spreadsheets/d/{key}/export"

_KEY_RE = re.compile(r"[A-Za-z0-9_-]{20,128}")
_URL_PATH_RE = re.compile(r"/spreadsheets/d/([A-Za-z0-9_-]+)(?:/.*)?")
_GID_RE = re.compile(r"(?:^|[&#?])gid=([^&#]*)")
#: Largest gid Google gives a worksheet (a 31-bit number).
MAX_GID = 2**31 - 1


class SheetError(Exception):
    """A sheet could not be used; ``message`` is written for the person using the app.

    ``reason`` is a short machine-readable word: ``address``, ``config``, ``not-shared``, ``not-found``,
    ``no-worksheet``, ``not-public``, ``rate-limited``, ``server-error``, ``timeout``, ``network``,
    ``read-only``, ``refused``, ``too-big``, ``bad-answer``.
    """

    def __init__(self, message: str, reason: str = "error", *, retryable: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.reason = reason
        self.retryable = retryable


# ---------------------------------------------------------------------------------------------------- addresses
@dataclass(frozen=True)
class SheetRef:
    """Which sheet and worksheet: a key plus a worksheet name or gid (neither: the first worksheet)."""

    key: str
    worksheet: str | None = None
    gid: int | None = None

    @property
    def cache_key(self) -> tuple[str, str]:
        which = f"gid:{self.gid}" if self.gid is not None else f"name:{self.worksheet or ''}"
        return (self.key, which)

    @property
    def label(self) -> str:
        """How messages name this worksheet."""
        if self.worksheet is not None:
            return f"worksheet '{self.worksheet}'"
        if self.gid is not None:
            return f"worksheet gid {self.gid}"
        return "the first worksheet"

    @property
    def url(self) -> str:
        """The address a person opens in a browser."""
        tail = f"#gid={self.gid}" if self.gid is not None else ""
        return f"https://docs.google.com/spreadsheets/d/{self.key}/edit{tail}"


def parse_sheet_ref(sheet: str, worksheet: str | int | None = None) -> SheetRef:
    """Parse a pasted Google Sheets URL or bare key, and an optional worksheet name or gid.

    Accepted: ``https://docs.google.com/spreadsheets/d/<KEY>/...`` (a ``gid`` in the ``#`` part or the query
    picks the worksheet) or the bare ``<KEY>``.  ``worksheet``, when given, wins over the URL's gid: all digits
    means a gid, anything else a worksheet name.  Anything else raises :class:`SheetError` (reason ``address``).
    """
    text = (sheet or "").strip()
    if not text:
        raise SheetError("No sheet given: paste the sheet's link or its key.", "address")
    gid: int | None = None
    if "/" in text or ":" in text or "." in text:
        candidate = text if "://" in text else "https://" + text
        parts = urlsplit(candidate)
        host = (parts.hostname or "").lower()
        match = _URL_PATH_RE.fullmatch(parts.path)
        if parts.scheme not in ("http", "https") or host != "docs.google.com" or match is None:
            raise SheetError(
                f"'{shortened(text)}' is not a Google Sheets link. Use a link of the form "
                "https://docs.google.com/spreadsheets/d/<key>/edit or just the key.",
                "address",
            )
        key = match.group(1)
        if key == "e" or not _KEY_RE.fullmatch(key):
            raise SheetError(
                f"'{shortened(text)}' does not contain a usable sheet key (links of the form /d/e/... are "
                "'published to the web' links: use the sheet's own /d/<key>/edit link).",
                "address",
            )
        found = _GID_RE.search(parts.fragment) or _GID_RE.search("?" + parts.query)
        if found:
            gid = _gid(found.group(1), text)
    else:
        if not _KEY_RE.fullmatch(text):
            raise SheetError(
                f"'{shortened(text)}' is neither a Google Sheets link nor a sheet key (a key is 20 or more letters, "
                "digits, '-' or '_').",
                "address",
            )
        key = text
    name: str | None = None
    if worksheet is not None and str(worksheet).strip():
        chosen = str(worksheet).strip()
        if chosen.isascii() and chosen.isdigit():
            gid, name = _gid(chosen, chosen), None
        else:
            gid, name = None, chosen
    return SheetRef(key, name, gid)


def _gid(digits: str, text: str) -> int:
    """A worksheet gid: plain ASCII digits, at most :data:`MAX_GID` (``1e9`` is not gid 1)."""
    if not (digits.isascii() and digits.isdigit()) or len(digits) > 10 or int(digits) > MAX_GID:
        raise SheetError(f"The gid in '{shortened(text)}' is not a worksheet number.", "address")
    return int(digits)


# ---------------------------------------------------------------------------------------------------- settings
@dataclass(frozen=True)
class RetryPolicy:
    """Tries for answers 429 and 5xx: ``attempts`` in all, waiting ``first_delay`` then doubling (capped)."""

    attempts: int = 3
    first_delay: float = 0.5
    max_delay: float = 4.0

    def delays(self) -> list[float]:
        """The waits between tries (one fewer than ``attempts``)."""
        return [min(self.first_delay * 2**i, self.max_delay) for i in range(max(self.attempts - 1, 0))]


@dataclass(frozen=True)
class SheetSettings:
    """What the host configured (see the module docstring for the environment variables)."""

    sheet: str | None = None
    worksheet: str | None = None
    service_account_json: str | None = field(default=None, repr=False)
    cache_seconds: float = 60.0
    timeout_seconds: float = 5.0
    retry: RetryPolicy = RetryPolicy()
    deadline_seconds: float = 20.0
    endpoint: str | None = None
    #: the one group whose page may write the configured sheet (RATINGS_SHEET_GROUP), or None
    group: str | None = None

    @property
    def configured(self) -> bool:
        return bool(self.sheet)

    @property
    def can_write(self) -> bool:
        """Only a service account can append; the public CSV export is read-only."""
        return bool(self.service_account_json)

    def is_configured(self, sheet: Any, worksheet: Any) -> bool:
        """Whether ``sheet`` and ``worksheet`` (untrusted: from a request) name the configured sheet and worksheet,
        compared as parsed references (a link and a bare key of one sheet are the same)."""
        if not self.sheet or not isinstance(sheet, str) or not (worksheet is None or isinstance(worksheet, str)):
            return False
        try:
            return parse_sheet_ref(sheet, worksheet).cache_key == parse_sheet_ref(self.sheet, self.worksheet).cache_key
        except SheetError:
            return False

    def group_may_write(self, slug: str) -> bool:
        """Whether the page of group ``slug`` may write the configured sheet: the host named that group
        (RATINGS_SHEET_GROUP), so another group's organisers can never write the sheet of ``/`` or of that group."""
        return self.can_write and self.group is not None and self.group == slug

    def for_sheet(self, sheet: str, worksheet: str | None) -> SheetSettings:
        """These settings pointed at ``sheet``: the service account is used only for the configured sheet, so a
        typed address reads another sheet only through its public link, never as the app's account."""
        own = self.is_configured(sheet, worksheet)
        return replace(
            self, sheet=sheet, worksheet=worksheet, service_account_json=self.service_account_json if own else None
        )


def load_settings(environ: Mapping[str, str] | None = None) -> SheetSettings:
    """The sheet's settings from ``environ`` (default ``os.environ``, read now), each variable read as
    :data:`sources.settings.VARIABLES` declares it; a bad value is a SheetError naming the variable."""
    env = os.environ if environ is None else environ
    try:

        def read(name: str) -> Any:
            return settings.value(env, name)

        return SheetSettings(
            sheet=read("RATINGS_SHEET"),
            worksheet=read("RATINGS_WORKSHEET"),
            service_account_json=read("GOOGLE_SERVICE_ACCOUNT_JSON"),
            cache_seconds=read("RATINGS_SHEET_CACHE_SECONDS"),
            timeout_seconds=read("RATINGS_SHEET_TIMEOUT_SECONDS"),
            retry=RetryPolicy(
                attempts=read("RATINGS_SHEET_ATTEMPTS"), first_delay=read("RATINGS_SHEET_BACKOFF_SECONDS")
            ),
            deadline_seconds=read("RATINGS_SHEET_DEADLINE_SECONDS"),
            endpoint=_endpoint(read("RATINGS_GOOGLE_ENDPOINT")),
            group=read("RATINGS_SHEET_GROUP"),
        )
    except settings.SettingError as exc:
        raise SheetError(f"{exc}.", "config") from None


#: The hosts whose requests RATINGS_GOOGLE_ENDPOINT redirects (the Sheets API and the CSV export).
GOOGLE_HOSTS = ("https://sheets.googleapis.com", "https://docs.google.com")


def _endpoint(value: str | None) -> str | None:
    text = (value or "").strip().rstrip("/")
    if not text:
        return None
    if not re.fullmatch(r"https?://[A-Za-z0-9.\-\[\]:]+", text):
        raise config_error(f"RATINGS_GOOGLE_ENDPOINT={text!r} is not of the form http(s)://host[:port]")
    return text


def routed(url: str, endpoint: str | None) -> str:
    """``url`` sent to ``endpoint`` instead when it is one of :data:`GOOGLE_HOSTS` (scheme and host replaced)."""
    if endpoint:
        for host in GOOGLE_HOSTS:
            if url == host or url.startswith(host + "/"):
                return endpoint + url[len(host) :]
    return url


#: What a visitor is told when the host's Google set-up is at fault; the details go to the server's log only
#: (they name the service account, the configuration variable and Google's raw answer).
CONFIG_MESSAGE = (
    "The app's access to Google Sheets is not set up correctly, so the sheet cannot be read this way. "
    "The host can see why in the server's log."
)


def config_error(detail: str) -> SheetError:
    """A SheetError for the host's configuration: logged in full, shown to the visitor as :data:`CONFIG_MESSAGE`."""
    log.error("Google Sheets configuration problem: %s", detail)
    return SheetError(CONFIG_MESSAGE, "config")


def service_account_info(text: str) -> dict[str, Any]:
    """Parse the service-account JSON text; a SheetError (details logged) if it is not a service-account key."""
    try:
        info = json.loads(text)
    except json.JSONDecodeError as exc:
        raise config_error(
            f"GOOGLE_SERVICE_ACCOUNT_JSON is not valid JSON (line {exc.lineno}, column {exc.colno}): paste the "
            "whole content of the key file."
        ) from None
    if not isinstance(info, dict) or info.get("type") != "service_account" or not info.get("client_email"):
        raise config_error(
            'GOOGLE_SERVICE_ACCOUNT_JSON is not a service-account key (it needs "type": "service_account" and '
            'a "client_email").'
        )
    return info


def service_account_email(settings: SheetSettings) -> str | None:
    """The e-mail address to share the sheet with, or None without a service account."""
    if not settings.service_account_json:
        return None
    return str(service_account_info(settings.service_account_json)["client_email"])


def sharing_hint(email: str | None) -> str:
    """One sentence telling the user how to give the app access to a private sheet (never naming the account:
    anyone can paste any address, and the account's address is the host's to give)."""
    if email:
        return (
            "Share the sheet with this app's Google service account (ask the host for its address; Viewer to read, "
            "Editor to record games), or make it readable by anyone with the link."
        )
    return "Share the sheet as 'Anyone with the link can view' (Share > General access)."


# ---------------------------------------------------------------------------------------------------- backends
class Backend(Protocol):
    writable: bool

    def fetch(self, ref: SheetRef) -> list[list[str]]: ...

    def append(self, ref: SheetRef, rows: Sequence[Sequence[Any]]) -> None: ...


def _status_error(status: int, ref: SheetRef, *, email: str | None, public: bool, writing: bool = False) -> SheetError:
    """Plain words for an HTTP status from Google."""
    if status == 429:
        return SheetError(
            "Google Sheets is limiting how often the app may read (HTTP 429).", "rate-limited", retryable=True
        )
    if status >= 500:
        return SheetError(f"Google Sheets had a server error (HTTP {status}).", "server-error", retryable=True)
    if status == 404:
        return SheetError(
            f"There is no Google Sheet with the key {ref.key} (HTTP 404): check the link, or whether the sheet "
            "was deleted.",
            "not-found",
        )
    if status in (401, 403):
        if public:
            return SheetError(
                f"The sheet {ref.key} is not shared publicly (HTTP {status}). " + sharing_hint(None), "not-public"
            )
        if writing:
            return SheetError(
                f"The app may not write to the sheet {ref.key} (HTTP {status}). Share the sheet with this app's "
                "Google service account as Editor to record games (ask the host for its address).",
                "not-shared",
            )
        return SheetError(
            f"The app may not open the sheet {ref.key} (HTTP {status}). " + sharing_hint(email or "configured"),
            "not-shared",
        )
    return SheetError(f"Google Sheets refused the request (HTTP {status}).", "refused")


def _network_error(exc: requests.RequestException, timeout: float | None) -> SheetError:
    if isinstance(exc, requests.Timeout):
        return SheetError(f"Google Sheets did not answer within {timeout:g} seconds.", "timeout")
    return SheetError(f"Could not reach Google Sheets ({type(exc).__name__}).", "network")


# ---------------------------------------------------------------------------------------------------- transport
_BUDGET = threading.local()  # .deadline: (monotonic time, seconds) of the read running in this thread
_PIECE = 65_536


def _too_big_error(limit: int) -> SheetError:
    return SheetError(
        f"The sheet is too large for this app: Google's answer is over {limit / (1024 * 1024):g} MB (the most "
        "this app reads, as for an uploaded file).",
        "too-big",
    )


def _deadline_error(seconds: float) -> SheetError:
    return SheetError(f"Google Sheets did not finish answering within {seconds:g} seconds.", "timeout")


def _read_body(response: requests.Response, limit: int, deadline: float, seconds: float) -> bytes:
    """The whole body of a streamed response, read in pieces; stops past ``limit`` bytes or the deadline.

    Each piece is one socket read (``read1``), so a slow drip is noticed between bytes, not after a full buffer.
    """
    declared = response.headers.get("Content-Length", "")
    if declared.isascii() and declared.isdigit() and int(declared) > limit:
        raise _too_big_error(limit)
    raw = response.raw
    parts: list[bytes] = []
    size = 0
    while True:
        if time.monotonic() > deadline:
            raise _deadline_error(seconds)
        try:
            piece = raw.read1(_PIECE, decode_content=True)
        except (urllib3.exceptions.ReadTimeoutError, TimeoutError):
            if time.monotonic() > deadline:
                raise _deadline_error(seconds) from None
            raise SheetError("Google Sheets stopped sending its answer part-way.", "timeout") from None
        except (urllib3.exceptions.HTTPError, OSError) as exc:
            raise SheetError(f"Could not reach Google Sheets ({type(exc).__name__}).", "network") from None
        if not piece:
            return b"".join(parts)
        size += len(piece)
        if size > limit:
            raise _too_big_error(limit)
        parts.append(piece)


class BoundedAdapter(HTTPAdapter):
    """A requests transport that reads every answer in pieces, refusing it past ``max_bytes`` (decompressed)
    and cutting it off at a deadline.

    The deadline is the one of the :class:`SheetSource` read running in this thread, else ``deadline_seconds``
    from the start of this request.  Mounted on the sessions of both backends (gspread's included), so every
    request of a read is bounded without gspread knowing.
    """

    def __init__(
        self, max_bytes: int = MAX_RESPONSE_BYTES, deadline_seconds: float = 20.0, endpoint: str | None = None
    ) -> None:
        super().__init__()
        self.max_bytes = max_bytes
        self.deadline_seconds = deadline_seconds
        self.endpoint = endpoint

    def send(
        self,
        request: requests.PreparedRequest,
        stream: bool = False,
        timeout: float | tuple[float, float] | tuple[float, None] | None = None,
        verify: bool | str = True,
        cert: bytes | str | tuple[bytes | str, bytes | str] | None = None,
        proxies: Mapping[str, str] | None = None,
    ) -> requests.Response:
        """Send ``request`` and read its whole answer within the bounds (``stream`` is ignored: always read)."""
        budget: tuple[float, float] | None = getattr(_BUDGET, "deadline", None)
        deadline, seconds = budget or (time.monotonic() + self.deadline_seconds, self.deadline_seconds)
        if time.monotonic() > deadline:
            raise _deadline_error(seconds)
        if self.endpoint and request.url:
            request.url = routed(request.url, self.endpoint)
        response = super().send(request, stream=True, timeout=timeout, verify=verify, cert=cert, proxies=proxies)
        try:
            body = _read_body(response, self.max_bytes, deadline, seconds)
        except BaseException:
            response.close()  # drop the connection: the rest of the answer is never read
            raise
        response._content = body  # what requests keeps after reading a non-streamed answer
        setattr(response, "_content_consumed", True)  # noqa: B010 (a private attribute the stubs omit)
        response.raw.release_conn()
        return response


def _bounded(session: requests.Session, deadline_seconds: float, endpoint: str | None = None) -> requests.Session:
    """``session`` with :class:`BoundedAdapter` serving http and https (once)."""
    if not isinstance(session.get_adapter("https://docs.google.com"), BoundedAdapter):
        adapter = BoundedAdapter(deadline_seconds=deadline_seconds, endpoint=endpoint)
        session.mount("https://", adapter)
        session.mount("http://", adapter)
    return session


def _within_deadline(action: Callable[[], Any], seconds: float) -> Any:
    """Run ``action`` (which talks to Google) and return its result, or raise a timeout SheetError at the deadline.

    The action runs in a helper thread so that the caller is answered on time whatever the network does; the
    helper, told the deadline through :data:`_BUDGET`, stops reading at its next piece and ends by itself.
    """
    deadline = time.monotonic() + seconds
    box: dict[str, Any] = {}

    def work() -> None:
        _BUDGET.deadline = (deadline, seconds)
        try:
            box["value"] = action()
        except BaseException as exc:  # handed to the caller below
            box["error"] = exc

    helper = threading.Thread(target=work, name="sheet-read", daemon=True)
    helper.start()
    helper.join(seconds)
    if helper.is_alive():
        raise _deadline_error(seconds)
    if "error" in box:
        raise box["error"]
    return box["value"]


def _remaining() -> float | None:
    """Seconds left before the deadline of the read running in this thread (None outside a read)."""
    budget: tuple[float, float] | None = getattr(_BUDGET, "deadline", None)
    return None if budget is None else budget[0] - time.monotonic()


def _csv_rows(body: bytes) -> list[list[str]]:
    """The rows of a CSV export, refused past MAX_SHEET_ROWS rows (blank ones included)."""
    text = body.decode("utf-8-sig", errors="replace")
    rows: list[list[str]] = []
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        for row in reader:
            if len(rows) >= MAX_SHEET_ROWS:
                raise SheetError(
                    f"The sheet is too large for this app: it has more than {MAX_SHEET_ROWS:,} rows, blank rows "
                    "included.",
                    "too-big",
                )
            rows.append(row)
    except csv.Error as exc:
        raise SheetError(
            f"Google's CSV export of the sheet cannot be read (row {reader.line_num}: {exc}).", "bad-answer"
        ) from None
    return rows


class GspreadBackend:
    """Read and append through the Sheets API with a gspread client (a service account in production)."""

    writable = True

    def __init__(
        self,
        client: gspread.Client,
        *,
        email: str | None = None,
        timeout: float | None = 5.0,
        deadline_seconds: float = 20.0,
        endpoint: str | None = None,
    ) -> None:
        self.client = client
        self.email = email
        self.timeout = timeout
        client.set_timeout(timeout)
        _bounded(client.http_client.session, deadline_seconds, endpoint)

    def _worksheet(self, ref: SheetRef) -> gspread.Worksheet:
        spreadsheet = self.client.open_by_key(ref.key)
        try:
            if ref.worksheet is not None:
                return spreadsheet.worksheet(ref.worksheet)
            if ref.gid is not None:
                return spreadsheet.get_worksheet_by_id(ref.gid)
            return spreadsheet.sheet1
        except gspread.WorksheetNotFound:
            names = ", ".join(f"'{w.title}'" for w in spreadsheet.worksheets())
            raise SheetError(f"The sheet has no {ref.label} (its worksheets are: {names}).", "no-worksheet") from None

    def _call(self, ref: SheetRef, action: Callable[[], Any], *, writing: bool = False) -> Any:
        try:
            return action()
        except SheetError:
            raise
        except gspread.SpreadsheetNotFound:
            raise _status_error(404, ref, email=self.email, public=False) from None
        except PermissionError:  # gspread's open_by_key turns a 403 into the builtin PermissionError
            raise _status_error(403, ref, email=self.email, public=False) from None
        except gspread.exceptions.APIError as exc:
            status = exc.response.status_code
            raise _status_error(status, ref, email=self.email, public=False, writing=writing) from None
        except requests.RequestException as exc:
            raise _network_error(exc, self.timeout) from None
        except google.auth.exceptions.TransportError:
            raise SheetError("Could not reach Google to sign in the service account.", "network") from None
        except google.auth.exceptions.GoogleAuthError as exc:
            raise config_error(
                f"Google refused to sign in {self.email or 'the service account'} ({shortened(str(exc), 300)}). Check "
                "GOOGLE_SERVICE_ACCOUNT_JSON: the key may have been deleted or disabled in the Google Cloud console."
            ) from None

    def fetch(self, ref: SheetRef) -> list[list[str]]:
        """All cells of the worksheet as strings, header first, rows as the API gives them (not padded).

        Not gspread's ``get_all_values``: it pads every row to the widest, so one far cell in a long sheet
        would make millions of empty strings.
        """
        values = self._call(ref, lambda: self._worksheet(ref).get(pad_values=False))
        if len(values) > MAX_SHEET_ROWS:
            raise SheetError(
                f"The sheet is too large for this app: it has more than {MAX_SHEET_ROWS:,} rows, blank rows included.",
                "too-big",
            )
        return [list(row) for row in values]

    def append(self, ref: SheetRef, rows: Sequence[Sequence[Any]]) -> None:
        """Append ``rows`` after the last used row in ONE call; values are stored as given (RAW: no formulas)."""
        self._call(
            ref,
            lambda: self._worksheet(ref).append_rows(
                [list(r) for r in rows], value_input_option=gspread.utils.ValueInputOption.raw
            ),
            writing=True,
        )


class PublicCsvBackend:
    """Read an "anyone with the link" sheet through its CSV export, without credentials.  Cannot write."""

    writable = False

    def __init__(
        self,
        session: requests.Session | None = None,
        *,
        timeout: float | None = 5.0,
        deadline_seconds: float = 20.0,
        endpoint: str | None = None,
    ) -> None:
        self.session = _bounded(session or requests.Session(), deadline_seconds, endpoint)
        self.timeout = timeout

    def fetch(self, ref: SheetRef) -> list[list[str]]:
        if ref.worksheet is not None:
            raise SheetError(
                f"Without a service account the worksheet must be given by its gid, not its name ('{ref.worksheet}'):"
                " open the worksheet in the browser and copy the number after 'gid=' in the address.",
                "config",
            )
        params = {"format": "csv"}
        if ref.gid is not None:  # without a gid Google exports the first worksheet, whatever its gid
            params["gid"] = str(ref.gid)
        try:
            response = self.session.get(
                EXPORT_URL.format(key=ref.key), params=params, timeout=self.timeout, allow_redirects=False
            )
        except requests.RequestException as exc:
            raise _network_error(exc, self.timeout) from None
        status = response.status_code
        content_type = response.headers.get("Content-Type", "")
        if 300 <= status < 400 or (status == 200 and "text/html" in content_type):
            # Google sends a sign-in page (or a redirect to one) for sheets that are not public.
            raise _status_error(403, ref, email=None, public=True)
        if status == 400:
            raise SheetError(f"The sheet has no {ref.label} (HTTP 400).", "no-worksheet")
        if status != 200:
            raise _status_error(status, ref, email=None, public=True)
        return _csv_rows(response.content)

    def append(self, ref: SheetRef, rows: Sequence[Sequence[Any]]) -> None:
        raise SheetError(
            "This sheet is read through its public link, which cannot write. To record games into the sheet, "
            "the host must configure a Google service account and share the sheet with it as Editor; "
            "until then, recorded games stay in this browser session and can be downloaded as CSV.",
            "read-only",
        )


# ---------------------------------------------------------------------------------------------------- reading
@dataclass(frozen=True)
class SheetRead:
    """A read of the sheet: the history, the raw rows, and whether it is a fresh or a kept copy."""

    history: GameHistory
    rows: list[list[str]]
    result: ReadResult
    fetched_at: dt.datetime
    stale: bool = False
    message: str | None = None

    @property
    def shape(self) -> str:
        return self.result.shape

    @property
    def warnings(self) -> Sequence[str]:
        return tuple(str(w) for w in self.result.warnings)


_DEFAULT_CACHE: LastGoodCache[SheetRead] = LastGoodCache()


class SheetSource:
    """One worksheet, read through a backend with caching, retries and a last good copy."""

    def __init__(
        self,
        ref: SheetRef,
        backend: Backend,
        *,
        cache: LastGoodCache[SheetRead] | None = None,
        cache_seconds: float = 60.0,
        retry: RetryPolicy = RetryPolicy(),
        sleep: Callable[[float], None] = time.sleep,
        skip_bad_rows: bool = False,
        deadline_seconds: float = 20.0,
    ) -> None:
        self.ref = ref
        self.backend = backend
        self.cache = _DEFAULT_CACHE if cache is None else cache
        self.cache_seconds = cache_seconds
        self.retry = retry
        self.sleep = sleep
        self.skip_bad_rows = skip_bad_rows
        self.deadline_seconds = deadline_seconds

    @property
    def writable(self) -> bool:
        return self.backend.writable

    def _with_retries(self, action: Callable[[], Any], *, only: str | None = None) -> Any:
        """Run ``action``, trying again after retryable errors (only those of reason ``only`` if given)."""
        delays = self.retry.delays()
        tries = 0
        while True:
            tries += 1
            try:
                return action()
            except SheetError as exc:
                again = exc.retryable and (only is None or exc.reason == only)
                left = _remaining()
                out_of_time = left is not None and tries <= len(delays) and delays[tries - 1] >= left
                if not again or tries > len(delays) or out_of_time:
                    if again and tries > 1:
                        raise SheetError(f"{exc.message} Tried {tries} times.", exc.reason) from None
                    raise
                self.sleep(delays[tries - 1])

    def fetch_rows(self) -> list[list[str]]:
        """Read the worksheet now (with retries, no cache, within the deadline); raises SheetError."""
        rows: list[list[str]] = _within_deadline(
            lambda: self._with_retries(lambda: self.backend.fetch(self.ref)), self.deadline_seconds
        )
        return rows

    def append_rows(self, rows: Sequence[Sequence[Any]]) -> None:
        """Append rows in one call and mark the cached copy due for refresh.

        Only a 429 is retried: Google refused that request before doing anything.  After a server error or a
        timeout the rows may or may not have been written, so the error says so instead of appending twice.
        """
        if not self.backend.writable:
            self.backend.append(self.ref, rows)  # raises the read-only explanation
        try:
            _within_deadline(
                lambda: self._with_retries(lambda: self.backend.append(self.ref, rows), only="rate-limited"),
                self.deadline_seconds,
            )
        except SheetError as exc:
            if exc.reason in ("server-error", "timeout", "network"):
                raise SheetError(
                    f"{exc.message} The game may or may not have been written: reload the sheet before recording "
                    "it again (a repeated submit of the same game is recognised and not added twice).",
                    exc.reason,
                ) from None
            raise
        finally:
            self.cache.expire(self.ref.cache_key)

    def read(self, *, force: bool = False) -> SheetRead:
        """The worksheet's history: cached if young enough (unless ``force``), else read anew.

        When a new read fails (or the sheet's content has problems) and an earlier good copy exists, that
        copy is returned with ``stale=True`` and a ``message`` saying why; with no good copy, SheetError (or
        HistoryError for content problems) is raised.
        """
        key = self.ref.cache_key
        if not force:
            fresh = self.cache.fresh(key, self.cache_seconds)
            if fresh is not None:
                return fresh
        try:
            rows = self.fetch_rows()
            result = read_table(rows, source=self.ref.label, skip_bad_rows=self.skip_bad_rows)
        except (SheetError, HistoryError) as exc:
            kept = self.cache.get(key)
            if kept is None:
                if isinstance(exc, SheetError):
                    raise SheetError(
                        f"{exc.message} No earlier copy of this sheet has been read, so there is nothing to show "
                        "from it yet.",
                        exc.reason,
                    ) from None
                raise
            why = exc.message if isinstance(exc, SheetError) else f"The sheet now has problems: {exc}"
            when = kept.value.fetched_at.strftime("%H:%M:%S UTC")
            stale = replace(kept.value, stale=True, message=f"{why} Showing the copy read at {when}.")
            # Keep serving the old copy (with the reason) for one cache period instead of asking Google again
            # on every callback while it is failing; read(force=True) still tries at once.
            self.cache.put(key, stale)
            return stale
        read = SheetRead(result.history, rows, result, dt.datetime.now(dt.UTC))
        self.cache.put(key, read)
        return read


_CLIENTS: dict[tuple[str, str], gspread.Client] = {}
_CLIENTS_LOCK = ForkSafeLock()


def _service_account_client(info: dict[str, Any]) -> gspread.Client:
    """One gspread client per key and process, so its access token is reused across callbacks."""
    key = (str(info.get("client_email")), str(info.get("private_key_id")))
    with _CLIENTS_LOCK:
        client = _CLIENTS.get(key)
        if client is None:
            try:
                client = gspread.service_account_from_dict(info, scopes=list(SCOPES))
            except (ValueError, KeyError, TypeError) as exc:
                raise config_error(f"GOOGLE_SERVICE_ACCOUNT_JSON could not be used as a key: {exc}") from None
            _CLIENTS[key] = client
        return client


def open_configured_source(
    settings: SheetSettings | None = None,
    *,
    session: requests.Session | None = None,
    client: gspread.Client | None = None,
    cache: LastGoodCache[SheetRead] | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> SheetSource | None:
    """The sheet the host configured, or None when RATINGS_SHEET is unset.

    With ``GOOGLE_SERVICE_ACCOUNT_JSON`` the Sheets API is used as that account (``client`` replaces the
    account's client, for tests); without it, the public CSV export through ``session``.
    """
    settings = load_settings() if settings is None else settings
    if not settings.sheet:
        return None
    ref = parse_sheet_ref(settings.sheet, settings.worksheet)
    backend: Backend
    if settings.service_account_json:
        info = service_account_info(settings.service_account_json)
        if client is None:
            client = _service_account_client(info)
        backend = GspreadBackend(
            client,
            email=str(info["client_email"]),
            timeout=settings.timeout_seconds,
            deadline_seconds=settings.deadline_seconds,
            endpoint=settings.endpoint,
        )
    else:
        backend = PublicCsvBackend(
            session,
            timeout=settings.timeout_seconds,
            deadline_seconds=settings.deadline_seconds,
            endpoint=settings.endpoint,
        )
    return SheetSource(
        ref,
        backend,
        cache=cache,
        cache_seconds=settings.cache_seconds,
        retry=settings.retry,
        sleep=sleep,
        deadline_seconds=settings.deadline_seconds,
    )
