"""The app's layers import only downwards: ``app -> web -> callbacks -> layouts -> figures``, every one of them may use
``sources -> ratings``, and ``sources`` (the service layer) loads neither Dash, Flask nor plotly.

Read from the source with ``ast`` (every ``import`` statement, including those inside functions), and for ``sources``
and ``ratings`` also by importing each module in a fresh interpreter and looking at ``sys.modules``.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LAYERS = ("app", "web", "callbacks", "layouts", "figures", "sources", "ratings")
#: What each layer may import from the project (besides itself).
ALLOWED: dict[str, set[str]] = {
    "app": {"web", "callbacks", "layouts", "figures", "sources", "ratings"},
    "web": {"callbacks", "layouts", "figures", "sources", "ratings"},
    "callbacks": {"layouts", "figures", "sources", "ratings"},
    "layouts": {"figures", "sources", "ratings"},
    "figures": {"ratings"},
    "sources": {"ratings"},
    "ratings": set(),
}
#: The callbacks' shared adapter module (the browser's JSON to the services), which every feature may use.
SHARED_CALLBACK_MODULES = {"runs", "__init__"}


def _modules(layer: str) -> list[Path]:
    path = ROOT / (f"{layer}.py" if layer == "app" else layer)
    return [path] if path.suffix == ".py" else sorted(path.rglob("*.py"))


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


@pytest.mark.parametrize("layer", LAYERS)
def test_each_layer_imports_only_the_layers_below_it(layer: str) -> None:
    wrong = sorted(
        f"{path.relative_to(ROOT)} imports {name}"
        for path in _modules(layer)
        for name in _imports(path)
        if (top := name.split(".")[0]) in LAYERS and top != layer and top not in ALLOWED[layer]
    )
    assert wrong == []


def test_no_feature_imports_another_features_callbacks() -> None:
    # What several features share lives below the callbacks (sources, layouts, figures) or in the shared adapter
    # module, so a feature's callbacks can be read, moved or removed alone.
    found = set()
    for path in _modules("callbacks"):
        for name in _imports(path):
            parts = name.split(".")
            shared = len(parts) < 2 or parts[1] in SHARED_CALLBACK_MODULES or parts[1] == path.stem
            if parts[0] == "callbacks" and not shared and path.stem != "__init__":
                found.add((path.stem, parts[1]))
    assert sorted(found) == []


@pytest.mark.parametrize(
    ("package", "forbidden"),
    [("sources", ("dash", "flask", "plotly", "werkzeug")), ("ratings", ("dash", "flask", "plotly", "sources"))],
)
def test_the_lower_layers_load_no_web_framework(package: str, forbidden: tuple[str, ...]) -> None:
    modules = [
        ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        for path in _modules(package)
        if ("samples" not in path.parts or path.name == "__init__.py") and "migrations" not in path.parts
    ]
    code = (
        "import importlib, sys\n"
        f"for name in {modules!r}:\n"
        "    importlib.import_module(name)\n"
        f"print(sorted(n for n in sys.modules if n.split('.')[0] in {forbidden!r}))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "[]", f"importing {package} loads {done.stdout.strip()}"
