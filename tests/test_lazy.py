"""``ratings.lazy.lazy_module``: a module imported on first use, whole for every thread that reads it meanwhile (the
threaded web workers' callbacks did: a group's first page load asked for ``sources.groups.pages`` from several
callbacks at once, and one found it half-filled)."""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import pytest

from ratings.lazy import lazy_module

SLOW_MODULE = """
import time
time.sleep(0.3)  # a module whose code takes a while to run (SQLAlchemy's import, say)
ANSWER = 42
"""


def test_threads_reading_a_module_while_it_is_first_imported_all_find_it_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "slow_module_for_lazy_test.py").write_text(SLOW_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "slow_module_for_lazy_test", raising=False)
    module = lazy_module("slow_module_for_lazy_test")
    assert "slow_module_for_lazy_test" not in sys.modules  # nothing ran yet
    start = threading.Barrier(8)
    found: list[object] = []

    def read() -> None:
        start.wait()
        try:
            found.append(module.ANSWER)
        except Exception as exc:  # what a half-filled module gives: AttributeError or ImportError
            found.append(exc)

    threads = [threading.Thread(target=read) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert found == [42] * 8
    from slow_module_for_lazy_test import ANSWER  # an ordinary import finds the same module, whole

    assert ANSWER == 42
    monkeypatch.delitem(sys.modules, "slow_module_for_lazy_test")


def test_a_name_no_module_has_is_an_import_error_at_once() -> None:
    with pytest.raises(ImportError, match="no_such_module_anywhere"):
        lazy_module("no_such_module_anywhere")
