"""Time from a slider move to the redrawn trajectories chart, in headless Chromium, on the racing sample.

Run: ``.venv/bin/python benchmarks/browser_latency.py [system] [parameter] [moves]``
(default: multielo, k, 10 moves).  The app is served from a thread (werkzeug, like the browser tests);
each move is one key press on the slider thumb (a committed slider change, as a mouse release is), and
the time is measured inside the page from the key press to plotly's next ``plotly_afterplot`` of the
trajectories chart.  Prints every move and the median.
"""

from __future__ import annotations

import json
import logging
import statistics
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.browser.conftest import CHROMIUM, FLAGS  # noqa: E402


def main() -> None:
    system = sys.argv[1] if len(sys.argv) > 1 else "multielo"
    name = sys.argv[2] if len(sys.argv) > 2 else "k"
    moves = int(sys.argv[3]) if len(sys.argv) > 3 else 10
    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    from playwright.sync_api import sync_playwright
    from werkzeug.serving import make_server

    import app as app_module

    server = make_server("127.0.0.1", 0, app_module.server, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_port}/?sample=racing&system={system}"
    slider = f"[id='{json.dumps({'name': name, 'type': 'param-slider'}, separators=(',', ':'))}'] [role=slider]"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        page = browser.new_page(viewport={"width": 1366, "height": 900})
        started = time.perf_counter()
        page.goto(url)
        page.wait_for_selector("#standings-trajectories .js-plotly-plot .scatterlayer .trace", timeout=60_000)
        page.wait_for_function("() => !document.querySelector('[data-dash-is-loading]')", timeout=60_000)
        print(f"first load of the racing sample ({system}): {time.perf_counter() - started:.2f} s")
        page.evaluate(
            """() => {
                const gd = document.querySelector('#standings-trajectories .js-plotly-plot');
                window.__plots = [];
                gd.on('plotly_afterplot', () => window.__plots.push(performance.now()));
            }"""
        )
        timings = []
        for i in range(moves):
            page.wait_for_timeout(300)
            t0 = page.evaluate("() => { window.__plots = []; return performance.now(); }")
            page.locator(slider).press("ArrowRight" if i % 2 == 0 else "ArrowLeft")
            page.wait_for_function("() => window.__plots.length > 0", timeout=60_000)
            page.wait_for_function("() => !document.querySelector('[data-dash-is-loading]')", timeout=60_000)
            done = page.evaluate("() => window.__plots[0]")
            timings.append(done - t0)
            print(f"move {i + 1}: {done - t0:.0f} ms")
        browser.close()
    server.shutdown()
    print(f"slider move -> redrawn chart on racing ({system}, {name}): median {statistics.median(timings):.0f} ms, ")
    print(f"  min {min(timings):.0f} ms, max {max(timings):.0f} ms over {moves} moves")


if __name__ == "__main__":
    main()
