"""Posting crafted callback requests to the app, as a visitor replaying the page's own requests could.

:func:`post` builds the body Dash's renderer would send for the callback whose outputs include ``output_id``,
with the values the test chooses for its inputs and states (anything not given is ``None``).  Pattern-matching
(``ALL``) inputs are sent as empty lists unless given.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["callback_spec", "post"]


def _key(item: dict[str, Any]) -> str:
    ident = item["id"]
    return ident if isinstance(ident, str) else json.dumps(ident, sort_keys=True)


def callback_spec(client: Any, output_id: str) -> dict[str, Any]:
    """The dependency entry of the callback that writes ``output_id`` (the first such)."""
    for dep in client.get("/_dash-dependencies").get_json():
        if f"{output_id}." in dep["output"]:
            return dep
    raise LookupError(output_id)


def _outputs(spec: str) -> Any:
    if spec.startswith(".."):
        parts = [p for p in spec.strip(".").split("...") if p]
        return [_output(p) for p in parts]
    return _output(spec)


def _output(text: str) -> dict[str, Any]:
    text = text.split("@")[0]
    ident, _, prop = text.rpartition(".")
    return {"id": json.loads(ident) if ident.startswith("{") else ident, "property": prop}


def post(client: Any, output_id: str, values: dict[str, Any], changed: list[str] | None = None) -> Any:
    """POST the callback writing ``output_id``; ``values`` maps ``"id.property"`` to the value sent."""
    dep = callback_spec(client, output_id)

    def entries(items: list[dict[str, Any]]) -> list[Any]:
        out: list[Any] = []
        for item in items:
            key = f"{_key(item)}.{item['property']}"
            if isinstance(item["id"], dict):
                out.append(values.get(key, []))
            else:
                out.append({"id": item["id"], "property": item["property"], "value": values.get(key)})
        return out

    body = {
        "output": dep["output"],
        "outputs": _outputs(dep["output"]),
        "inputs": entries(dep["inputs"]),
        "state": entries(dep["state"]),
        "changedPropIds": changed if changed is not None else [f"{_key(i)}.{i['property']}" for i in dep["inputs"][:1]],
    }
    return client.post(
        "/_dash-update-component", data=json.dumps(body, allow_nan=True), content_type="application/json"
    )
