"""The page's callback graph has no loop between two callbacks.

Dash's renderer holds a requested callback while any running callback could, through the graph, still change one
of its inputs (``getReadyCallbacks`` in dash-renderer).  Callbacks on a loop can each change the others' inputs, so
they wait on one another; the renderer breaks that deadlock only when nothing else is pending.  If the loop is
requested while another callback is in flight (a busy server, a quick second click), the renderer never sends them:
the Season's boxes and the address once kept "last=20" after *Whole history* because the data store's readers were on
the loop data store -> sample dropdown -> data store.  A callback whose output is one of its own inputs is not a loop
(the renderer does not re-run it for its own output).
"""

from __future__ import annotations

import json
from collections import defaultdict
from typing import Any

from dash._utils import split_callback_id


def _prop(ident: Any, prop: str) -> str:
    text = ident if isinstance(ident, str) else json.dumps(ident, sort_keys=True)
    return f"{text}.{prop.split('@')[0]}"


def _graph(callback_map: dict[str, Any]) -> dict[str, set[str]]:
    """Callback -> the callbacks that one of its outputs is an input of (itself excluded)."""
    outputs: dict[str, list[str]] = {}
    readers: dict[str, list[str]] = defaultdict(list)
    for key, spec in callback_map.items():
        parts = split_callback_id(key)
        parts = parts if isinstance(parts, list) else [parts]
        outputs[key] = [_prop(_id(p["id"]), p["property"]) for p in parts]
        for entry in spec["inputs"]:
            readers[_prop(entry["id"], entry["property"])].append(key)
    return {key: {r for out in outs for r in readers[out] if r != key} for key, outs in outputs.items()}


def _id(text: str) -> Any:
    return json.loads(text) if text.startswith("{") else text


def _loops(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one callback (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(component)
    return found


def test_the_loop_finder_finds_a_loop_of_two_and_ignores_a_callback_feeding_itself() -> None:
    graph = _graph(
        {
            "store.data": {"inputs": [{"id": "dropdown", "property": "value"}]},
            "..dropdown.value...dropdown.placeholder..": {"inputs": [{"id": "store", "property": "data"}]},
            "box.value@abc": {"inputs": [{"id": "box", "property": "value"}]},
            "other.children": {"inputs": [{"id": "store", "property": "data"}]},
        }
    )
    assert [sorted(loop) for loop in _loops(graph)] == [["..dropdown.value...dropdown.placeholder..", "store.data"]]


def test_the_pages_callbacks_form_no_loop() -> None:
    import app

    loops = _loops(_graph(app.app.callback_map))
    assert loops == [], "callbacks on a loop (Dash's renderer can stall on it): " + "; ".join(
        " <-> ".join(loop) for loop in loops
    )
