"""A local fake of the few Google endpoints the app uses, served over real HTTP on 127.0.0.1.

It speaks just enough of the Sheets API v4 for gspread's ``open_by_key``, ``worksheet`` / ``get_worksheet_by_id``
/ ``sheet1``, ``get_all_values`` and ``append_rows``, plus the public CSV export URL:

====================================================================  ====================================
``GET  /v4/spreadsheets/<key>``                                       spreadsheet metadata (sheets, ids)
``GET  /v4/spreadsheets/<key>/values/<range>``                        a worksheet's values (strings)
``POST /v4/spreadsheets/<key>/values/<range>:append``                 append rows after the last used row
``GET  /spreadsheets/d/<key>/export?format=csv&gid=<gid>``            CSV of one worksheet (public sheets)
====================================================================  ====================================

Usage (the dashboard's tests may reuse it)::

    from tests.sheets_server import FakeSheets, routed_session

    with FakeSheets() as fake:
        fake.add_spreadsheet("KEY", {"Games": [["date", "1st", "2nd"], ["2024-01-05", "Ann", "Bob"]]})
        session = routed_session(fake.base_url)            # sends Google hosts to the fake, with a dummy token
        client = gspread.Client(auth=None, session=session)  # gspread never knows the difference
        fake.plan(429, times=1)                            # the next request answers 429 once
        fake.plan("slow", seconds=2.0)                     # the next request waits 2 s before answering
        fake.plan("drip", seconds=0.5)                     # the next answer's body comes one byte every 0.5 s
        fake.plan("huge", size=50 * 2**20)                 # the next answer is 50 MB of blank lines
        fake.requests                                      # every request seen: (method, path, query)
        fake.bodies, fake.authorized                       # JSON bodies of POSTs; whether each request had a token
        fake.settled(5.0)                                  # every request so far answered (a slow append applied)

API requests without an ``Authorization`` header get 401 (so the CSV path provably sends no credentials);
``add_spreadsheet(..., shared=False)`` answers 403 like a sheet not shared with the service account;
unknown keys answer 404; ``public=False`` makes the CSV export redirect to a sign-in page as Google does;
``POST /token`` is the service accounts' sign-in (point a test key's ``token_uri`` at it): it grants an access token
only to a key registered with ``accept_key(key_id, public_key)`` whose JWT signature (RS256) verifies, and refuses
every other sign-in as Google does a deleted key.
"""

from __future__ import annotations

import csv
import io
import json
import re
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

import requests

__all__ = ["Clock", "FakeSheets", "RoutedSession", "routed_session"]

GOOGLE_HOSTS = ("https://sheets.googleapis.com", "https://docs.google.com")


class Clock:
    """A monotonic clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class RoutedSession(requests.Session):
    """A requests Session that sends requests for the Google hosts to another base URL (the local fake).

    Nothing else changes: gspread and the CSV reader build their usual https://... URLs and this session
    rewrites only the scheme and host part.
    """

    def __init__(self, base_url: str, token: str | None = "dummy") -> None:
        super().__init__()
        self.base_url = base_url.rstrip("/")
        if token is not None:
            self.headers["Authorization"] = f"Bearer {token}"

    def request(self, method: str | bytes, url: str | bytes, *args: Any, **kwargs: Any) -> requests.Response:
        text = url.decode() if isinstance(url, bytes) else url
        for host in GOOGLE_HOSTS:
            if text.startswith(host):
                text = self.base_url + text[len(host) :]
                break
        return super().request(method, text, *args, **kwargs)


def routed_session(base_url: str, *, token: str | None = "dummy") -> RoutedSession:
    """A session routed to ``base_url``; ``token=None`` sends no Authorization header (anonymous)."""
    return RoutedSession(base_url, token)


@dataclass
class _Worksheet:
    title: str
    sheet_id: int
    values: list[list[Any]]


@dataclass
class _Spreadsheet:
    key: str
    title: str
    sheets: list[_Worksheet]
    shared: bool = True
    public: bool = True


@dataclass
class _Instruction:
    action: int | str  # an HTTP status, "slow", "drip" or "huge"
    times: int
    seconds: float = 0.0
    match: str | None = None
    size: int = 0
    declared: bool = False


@dataclass
class FakeSheets:
    """The fake server: spreadsheets in memory, a log of requests and a plan of misbehaviours."""

    spreadsheets: dict[str, _Spreadsheet] = field(default_factory=dict)
    requests: list[tuple[str, str, dict[str, list[str]]]] = field(default_factory=list)
    bodies: list[Any] = field(default_factory=list)
    authorized: list[bool] = field(default_factory=list)
    signing_keys: dict[str, Any] = field(default_factory=dict)
    _plan: list[_Instruction] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    #: Requests received and not yet answered (a ``slow`` one counts until its work is done and its answer sent).
    _open: int = 0
    _answered: threading.Condition = field(default_factory=threading.Condition)
    _server: ThreadingHTTPServer | None = None
    _thread: threading.Thread | None = None

    # ------------------------------------------------------------------ set-up
    def add_spreadsheet(
        self,
        key: str,
        worksheets: dict[str, list[list[Any]]],
        *,
        title: str = "Game nights",
        shared: bool = True,
        public: bool = True,
        first_gid: int = 0,
    ) -> None:
        """Store a spreadsheet; worksheets get gids ``first_gid``, ``first_gid + 1000``, ... in the given order."""
        sheets = [
            _Worksheet(name, first_gid + 1000 * i, [list(row) for row in rows])
            for i, (name, rows) in enumerate(worksheets.items())
        ]
        with self._lock:
            self.spreadsheets[key] = _Spreadsheet(key, title, sheets, shared, public)

    def values(self, key: str, title: str) -> list[list[Any]]:
        """The stored cells of one worksheet (a copy)."""
        with self._lock:
            return [list(r) for r in self._find(self.spreadsheets[key], title=title).values]

    def plan(
        self,
        action: int | str,
        *,
        times: int = 1,
        seconds: float = 0.0,
        match: str | None = None,
        size: int = 0,
        declared: bool = False,
    ) -> None:
        """Misbehave on the next ``times`` requests whose path contains ``match`` (any request if None).

        ``action`` is an HTTP status to answer (403, 404, 429, 500, ...), ``"slow"`` to sleep ``seconds``
        before answering normally, ``"drip"`` to answer normally but send the body one byte every ``seconds``
        (headers at once, with the true Content-Length), or ``"huge"`` to answer 200 with ``size`` bytes of
        blank lines (CSV) or of empty rows (JSON), with a Content-Length only if ``declared``.
        """
        with self._lock:
            self._plan.append(_Instruction(action, times, seconds, match, size, declared))

    def settled(self, timeout: float) -> bool:
        """Wait until every request received so far has been answered (a ``slow`` append applied); whether it was
        within ``timeout`` seconds."""
        with self._answered:
            return self._answered.wait_for(lambda: self._open == 0, timeout)

    def accept_key(self, key_id: str, public_key: Any) -> None:
        """Let the service-account key ``key_id`` (its ``private_key_id``) sign in; ``public_key`` verifies it."""
        with self._lock:
            self.signing_keys[key_id] = public_key

    def count(self, contains: str = "") -> int:
        """How many requests had ``contains`` in their path."""
        with self._lock:
            return sum(1 for _, path, _ in self.requests if contains in path)

    # ------------------------------------------------------------------ lifecycle
    @property
    def base_url(self) -> str:
        assert self._server is not None, "the server is not running"
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def start(self) -> FakeSheets:
        fake = self

        class Handler(_Handler):
            owner = fake

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, name="fake-sheets", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> FakeSheets:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ------------------------------------------------------------------ internals
    def _next_instruction(self, path: str) -> _Instruction | None:
        with self._lock:
            for item in self._plan:
                if item.match is None or item.match in path:
                    item.times -= 1
                    if item.times <= 0:
                        self._plan.remove(item)
                    return item
        return None

    @staticmethod
    def _find(spreadsheet: _Spreadsheet, *, title: str | None = None, gid: int | None = None) -> _Worksheet:
        for sheet in spreadsheet.sheets:
            if (title is not None and sheet.title == title) or (gid is not None and sheet.sheet_id == gid):
                return sheet
        raise KeyError(title if title is not None else gid)


def _sheet_title(range_text: str) -> str:
    """The worksheet title of an A1 range such as ``'Game ''nights'''!A1:C3`` or ``Sheet1``."""
    if range_text.startswith("'"):
        end = range_text.find("'!")
        title = range_text[1:end] if end >= 0 else range_text[1:].rstrip("'")
        return title.replace("''", "'")
    return range_text.split("!", 1)[0]


def _trimmed(values: list[list[Any]]) -> list[list[str]]:
    """Values as the Sheets API returns them: strings, trailing empty cells and rows left out."""
    out = [[("" if v is None else str(v)) for v in row] for row in values]
    for row in out:
        while row and row[-1] == "":
            row.pop()
    while out and not out[-1]:
        out.pop()
    return out


def _error(code: int, message: str, status: str) -> dict[str, Any]:
    return {"error": {"code": code, "message": message, "status": status}}


_STATUS_WORDS = {
    403: ("The caller does not have permission", "PERMISSION_DENIED"),
    404: ("Requested entity was not found.", "NOT_FOUND"),
    429: ("Quota exceeded for quota metric 'Read requests'", "RESOURCE_EXHAUSTED"),
    500: ("Internal error encountered.", "INTERNAL"),
    503: ("The service is currently unavailable.", "UNAVAILABLE"),
}


class _Handler(BaseHTTPRequestHandler):
    owner: FakeSheets
    drip: float = 0.0  # seconds between body bytes of this answer ("drip")
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # answer small requests without the 40 ms delayed-ACK stall on loopback
    wbufsize = 1 << 16  # headers and body leave in one write

    def log_message(self, format: str, *args: Any) -> None:  # quiet test output
        pass

    def _send(self, status: int, body: Any, content_type: str = "application/json", headers: Any = ()) -> None:
        data = (json.dumps(body) if content_type == "application/json" else str(body)).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            for name, value in headers:
                self.send_header(name, value)
            self.end_headers()
            if self.drip:
                self.wfile.flush()
                for i in range(len(data)):
                    time.sleep(self.drip)
                    self.wfile.write(data[i : i + 1])
                    self.wfile.flush()
            else:
                self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout tests)
            self.wfile = io.BytesIO()

    def _send_huge(self, size: int, declared: bool, json_body: bool) -> None:
        """``size`` bytes of blank lines (or a JSON list of empty rows), streamed without holding them."""
        head, piece, tail = (b'{"range":"A1","values":[', b"[],", b"[]]}") if json_body else (b"", b"\r\n", b"")
        block = piece * (65_536 // len(piece))
        self.close_connection = True
        try:
            self.send_response(200)
            self.send_header("Content-Type", "application/json" if json_body else "text/csv")
            if declared:
                self.send_header("Content-Length", str(size))
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(head)
            left = size - len(head) - len(tail)
            while left > 0:
                chunk = block[: min(len(block), left)]
                self.wfile.write(chunk)
                left -= len(chunk)
            self.wfile.write(tail)
        except (BrokenPipeError, ConnectionResetError):  # the client stopped reading (size tests)
            self.wfile = io.BytesIO()  # what is left in the buffer goes nowhere (no traceback on the final flush)

    def _body(self) -> Any:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        if "json" not in self.headers.get("Content-Type", ""):
            return raw.decode("utf-8", errors="replace") if raw else None
        return json.loads(raw) if raw else None

    def do_GET(self) -> None:
        self._dispatch("GET")

    def do_POST(self) -> None:
        self._dispatch("POST")

    def _dispatch(self, method: str) -> None:
        fake = self.owner
        with fake._answered:
            fake._open += 1
        try:
            self._serve(method)
        finally:
            with fake._answered:
                fake._open -= 1
                fake._answered.notify_all()

    def _serve(self, method: str) -> None:
        parts = urlsplit(self.path)
        path = unquote(parts.path)
        query = parse_qs(parts.query)
        body = self._body() if method == "POST" else None
        fake = self.owner
        with fake._lock:
            fake.requests.append((method, path, query))
            fake.authorized.append(bool(self.headers.get("Authorization")))
            if body is not None:
                fake.bodies.append(body)
        instruction = fake._next_instruction(path)
        self.drip = 0.0
        if instruction is not None:
            if instruction.action == "slow":
                time.sleep(instruction.seconds)
            elif instruction.action == "drip":
                self.drip = instruction.seconds
            elif instruction.action == "huge":
                self._send_huge(instruction.size, instruction.declared, path.startswith("/v4/"))
                return
            else:
                code = int(instruction.action)
                message, status = _STATUS_WORDS.get(code, ("Error", "UNKNOWN"))
                self._send(code, _error(code, message, status))
                return
        if path.startswith("/v4/spreadsheets/"):
            self._api(method, path[len("/v4/spreadsheets/") :], query, body)
        elif m := re.fullmatch(r"/spreadsheets/d/([^/]+)/export", path):
            self._export(m.group(1), query)
        elif path == "/token":  # a service-account sign-in (a key's token_uri pointed here)
            self._token(body)
        else:
            self._send(404, _error(404, "No such endpoint in the fake", "NOT_FOUND"))

    def _token(self, body: Any) -> None:
        """Grant a token to a registered key whose JWT verifies (RFC 7523 bearer grant), refuse anything else."""
        import base64

        from cryptography.exceptions import InvalidSignature
        from cryptography.hazmat.primitives import hashes
        from cryptography.hazmat.primitives.asymmetric import padding

        refused = {"error": "invalid_grant", "error_description": "Invalid JWT Signature."}
        assertion = (parse_qs(body or "").get("assertion") or [""])[0]
        parts = assertion.split(".")
        if len(parts) != 3:
            self._send(400, refused)
            return

        def unb64(text: str) -> bytes:
            return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))

        try:
            header = json.loads(unb64(parts[0]))
            key = self.owner.signing_keys.get(str(header.get("kid")))
            if key is None:
                raise InvalidSignature
            key.verify(unb64(parts[2]), f"{parts[0]}.{parts[1]}".encode(), padding.PKCS1v15(), hashes.SHA256())
        except (InvalidSignature, ValueError):
            self._send(400, refused)
            return
        self._send(
            200, {"access_token": f"fake-access-{time.monotonic_ns()}", "expires_in": 3600, "token_type": "Bearer"}
        )

    def _api(self, method: str, rest: str, query: dict[str, list[str]], body: Any) -> None:
        if not self.headers.get("Authorization", "").startswith("Bearer "):
            self._send(401, _error(401, "Request is missing required authentication credential.", "UNAUTHENTICATED"))
            return
        key, _, tail = rest.partition("/")
        fake = self.owner
        with fake._lock:
            spreadsheet = fake.spreadsheets.get(key)
            if spreadsheet is None:
                self._send(404, _error(404, *_STATUS_WORDS[404]))
                return
            if not spreadsheet.shared:
                self._send(403, _error(403, *_STATUS_WORDS[403]))
                return
            if method == "GET" and not tail:
                self._send(200, self._metadata(spreadsheet))
                return
            if tail.startswith("values/"):
                range_text = tail[len("values/") :]
                appending = range_text.endswith(":append")
                if appending:
                    range_text = range_text[: -len(":append")]
                try:
                    sheet = FakeSheets._find(spreadsheet, title=_sheet_title(range_text))
                except KeyError:
                    self._send(400, _error(400, f"Unable to parse range: {range_text}", "INVALID_ARGUMENT"))
                    return
                if method == "GET" and not appending:
                    values = _trimmed(sheet.values)
                    answer: dict[str, Any] = {"range": range_text, "majorDimension": "ROWS"}
                    if values:
                        answer["values"] = values
                    self._send(200, answer)
                    return
                if method == "POST" and appending:
                    self._append(spreadsheet, sheet, query, body)
                    return
        self._send(404, _error(404, "No such endpoint in the fake", "NOT_FOUND"))

    def _append(self, spreadsheet: _Spreadsheet, sheet: _Worksheet, query: dict[str, list[str]], body: Any) -> None:
        option = (query.get("valueInputOption") or [""])[0]
        if option not in ("RAW", "USER_ENTERED"):
            self._send(400, _error(400, "valueInputOption is required", "INVALID_ARGUMENT"))
            return
        rows = body.get("values") if isinstance(body, dict) else None
        if not isinstance(rows, list) or not all(isinstance(r, list) for r in rows):
            self._send(400, _error(400, "values must be a list of rows", "INVALID_ARGUMENT"))
            return
        used = len(_trimmed(sheet.values))
        del sheet.values[used:]
        first = used + 1
        sheet.values.extend(list(r) for r in rows)
        width = max((len(r) for r in rows), default=0)
        self._send(
            200,
            {
                "spreadsheetId": spreadsheet.key,
                "updates": {
                    "spreadsheetId": spreadsheet.key,
                    "updatedRange": f"'{sheet.title}'!A{first}:{chr(64 + max(width, 1))}{first + len(rows) - 1}",
                    "updatedRows": len(rows),
                    "updatedColumns": width,
                    "updatedCells": sum(len(r) for r in rows),
                },
            },
        )

    @staticmethod
    def _metadata(spreadsheet: _Spreadsheet) -> dict[str, Any]:
        return {
            "spreadsheetId": spreadsheet.key,
            "properties": {"title": spreadsheet.title, "locale": "en_GB", "timeZone": "Europe/London"},
            "sheets": [
                {
                    "properties": {
                        "sheetId": sheet.sheet_id,
                        "title": sheet.title,
                        "index": index,
                        "sheetType": "GRID",
                        "gridProperties": {
                            "rowCount": max(1000, len(sheet.values)),
                            "columnCount": max(26, max((len(r) for r in sheet.values), default=0)),
                        },
                    }
                }
                for index, sheet in enumerate(spreadsheet.sheets)
            ],
            "spreadsheetUrl": f"https://docs.google.com/spreadsheets/d/{spreadsheet.key}/edit",
        }

    def _export(self, key: str, query: dict[str, list[str]]) -> None:
        fake = self.owner
        with fake._lock:
            spreadsheet = fake.spreadsheets.get(key)
            if spreadsheet is None:
                self._send(404, "<html>Sorry, the file you have requested does not exist.</html>", "text/html")
                return
            if not spreadsheet.public:
                location = "https://accounts.google.com/ServiceLogin?continue=" + key
                self._send(302, "<html>Moved</html>", "text/html", [("Location", location)])
                return
            gid_text = (query.get("gid") or [""])[0]
            try:  # no gid: the first worksheet, as Google does
                sheet = FakeSheets._find(spreadsheet, gid=int(gid_text)) if gid_text else spreadsheet.sheets[0]
            except (KeyError, ValueError):
                self._send(400, "<html>Bad gid</html>", "text/html")
                return
            buffer = io.StringIO()
            csv.writer(buffer, lineterminator="\r\n").writerows(_trimmed(sheet.values))
            self._send(200, buffer.getvalue(), "text/csv")
