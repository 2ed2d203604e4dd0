"""Posting crafted callback requests to the app, as a visitor replaying the page's own requests could.

:func:`post` builds the body Dash's renderer would send for the callback whose outputs include ``output_id``,
with the values the test chooses for its inputs and states (anything not given is ``None``).  Pattern-matching
(``ALL``) inputs are sent as empty lists unless given.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["HttpClient", "callback_spec", "post", "session_cookie"]


def _ident(item: dict[str, Any]) -> Any:
    """A dependency's id: a plain string, or a pattern (Dash lists patterns as JSON text)."""
    ident = item["id"]
    return json.loads(ident) if isinstance(ident, str) and ident.startswith("{") else ident


def _key(item: dict[str, Any]) -> str:
    ident = _ident(item)
    return ident if isinstance(ident, str) else json.dumps(ident, sort_keys=True)


def callback_spec(client: Any, output_id: str, trigger: str | None = None) -> dict[str, Any]:
    """The dependency entry of the server callback that writes ``output_id`` (and has ``trigger``, "id.prop", as
    input); callbacks that run in the browser are never posted, so they are skipped."""
    for dep in client.get("/_dash-dependencies").get_json():
        if dep.get("clientside_function"):
            continue
        inputs = {f"{_key(i)}.{i['property']}" for i in dep["inputs"]}
        if f"{output_id}." in dep["output"] and (trigger is None or trigger in inputs):
            return dep
    raise LookupError(output_id)


def _outputs(spec: str, values: dict[str, Any]) -> Any:
    if spec.startswith(".."):
        parts = [p for p in spec.strip(".").split("...") if p]
        return [_output(p, values) for p in parts]
    return _output(spec, values)


def _output(text: str, values: dict[str, Any]) -> Any:
    text = text.split("@")[0]
    ident, _, prop = text.rpartition(".")
    if not ident.startswith("{"):
        return {"id": ident, "property": prop}
    pattern = json.loads(ident)
    if ["ALL"] in pattern.values():
        # a wildcard output names the concrete components: those of the same pattern among the values sent
        key = json.dumps(pattern, sort_keys=True)
        sent = next((v for k, v in values.items() if k.startswith(key + ".")), [])
        return [{"id": item["id"], "property": prop} for item in sent]
    return {"id": pattern, "property": prop}


def _normalise(key: str) -> str:
    """``{"type": ..., "index": ["ALL"]}.value`` written in any key order -> Dash's sorted-JSON form."""
    if key.startswith("{"):
        ident, _, prop = key.rpartition(".")
        return f"{json.dumps(json.loads(ident), sort_keys=True)}.{prop}"
    return key


class HttpClient:
    """The two calls :func:`post` makes, over real HTTP (for an app served by gunicorn)."""

    def __init__(self, base_url: str, timeout: float = 60.0) -> None:
        import requests

        self.base_url = base_url.rstrip("/")
        self.session = requests.Session()
        self.timeout = timeout

    def get(self, path: str) -> Any:
        return _Answer(self.session.get(self.base_url + path, timeout=self.timeout))

    def post(self, path: str, data: str, content_type: str) -> Any:
        headers = {"Content-Type": content_type}
        return _Answer(self.session.post(self.base_url + path, data=data, headers=headers, timeout=self.timeout))


class _Answer:
    def __init__(self, response: Any) -> None:
        self.response = response
        self.status_code = response.status_code
        self.headers = response.headers

    def get_json(self) -> Any:
        return self.response.json()

    def get_data(self, as_text: bool = False) -> Any:
        return self.response.text if as_text else self.response.content


def post(client: Any, output_id: str, values: dict[str, Any], changed: list[str] | None = None) -> Any:
    """POST the callback writing ``output_id``; ``values`` maps ``"id.property"`` to the value sent."""
    dep = callback_spec(client, output_id, changed[0] if changed else None)
    values = {_normalise(k): v for k, v in values.items()}

    def entries(items: list[dict[str, Any]]) -> list[Any]:
        out: list[Any] = []
        for item in items:
            key = f"{_key(item)}.{item['property']}"
            if isinstance(_ident(item), dict):
                out.append(values.get(key, []))
            else:
                out.append({"id": item["id"], "property": item["property"], "value": values.get(key)})
        return out

    body = {
        "output": dep["output"],
        "outputs": _outputs(dep["output"], values),
        "inputs": entries(dep["inputs"]),
        "state": entries(dep["state"]),
        "changedPropIds": changed if changed is not None else [f"{_key(i)}.{i['property']}" for i in dep["inputs"][:1]],
    }
    return client.post(
        "/_dash-update-component", data=json.dumps(body, allow_nan=True), content_type="application/json"
    )


def record_form(
    trigger: str, token: str, pending: Any, source: Any, players: tuple[str, ...] = ("Newbie", "Uma")
) -> dict[str, Any]:
    """The record form's values as the page sends them (``trigger``: ``record-submit`` or ``record-confirm``):
    ``players`` placed 1, 2, ... on 2024-05-22, with submission ``token``, the confirmation ``pending`` and the data
    ``source``."""
    names = [
        {"id": {"index": i, "type": "record-player"}, "property": "value", "value": p} for i, p in enumerate(players)
    ]
    places = [
        {"id": {"index": i, "type": "record-place"}, "property": "value", "value": str(i + 1)}
        for i in range(len(players))
    ]
    return {
        f"{trigger}.n_clicks": 1,
        "record-date.value": "2024-05-22",
        '{"index": ["ALL"], "type": "record-player"}.value': names,
        '{"index": ["ALL"], "type": "record-place"}.value': places,
        "record-token.data": token,
        "record-pending.data": pending,
        "data-source.data": source,
        "edit-store.data": None,
    }


def session_cookie(value: dict[str, Any], *, key: str, age: float = 0.0) -> str:
    """Flask's session cookie holding ``value`` (permanent), signed with ``key`` as Flask signs it (itsdangerous,
    salt 'cookie-session', HMAC-SHA1 key derivation) ``age`` seconds ago: for forged, expired and control cookies."""
    import hashlib
    import time

    from flask.json.tag import TaggedJSONSerializer
    from itsdangerous import TimestampSigner, URLSafeTimedSerializer

    class Signer(TimestampSigner):
        def get_timestamp(self) -> int:
            return int(time.time() - age)

    serializer = URLSafeTimedSerializer(
        key,
        salt="cookie-session",
        serializer=TaggedJSONSerializer(),
        signer=Signer,
        signer_kwargs={"key_derivation": "hmac", "digest_method": hashlib.sha1},
    )
    return serializer.dumps({**value, "_permanent": True})
