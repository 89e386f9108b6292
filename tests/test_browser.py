"""The widgets, proven in a real browser: JupyterLab runs a notebook in headless Chromium, a slider moves, and
what the widget shows changes.

nbval ignores widget views and the widget callbacks are unit-tested on their own, so this test does what a
learner does. It copies the widget notebooks to a temporary course folder (the committed notebooks are never
served, so they stay byte-identical), starts JupyterLab from this environment on 127.0.0.1 (a free port, a
token, no browser, offline), opens each notebook in Debian's chromium driven by Playwright, clears the outputs,
runs every cell with JupyterLab's Run All command (notebook 11 whole; 05 and 08 up to their last slider, as
the analysis after it has no widgets and nbval runs it anyway), checks that the widgets rendered live (not as the text
`VBox(children=...` of an untrusted notebook, not disconnected), presses ArrowRight or ArrowLeft on a
slider's handle, and waits for the widget's text or plot to change; the kernel's pipeline must then hold the
slider's value. No errors may reach the browser console. Screenshots go to pytest's tmp folder, and with
RAGKIT_UPDATE_SCREENSHOTS=1 the README's two go to docs/screenshots/.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest
from helpers import stop_process_group

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = Path("/usr/bin/chromium")  # Debian's chromium package: Playwright's own browser download is not used
TOKEN = "ragkit-browser-test"
SCREENSHOTS = ROOT / "docs" / "screenshots"
PLAYGROUND = "11_playground.ipynb"
RUN_TIMEOUT = 240  # seconds for Run All; the notebooks take 20-70 s on 2 cores
STALL = 20  # seconds the kernel may sit idle with cells still unrun before Run All counts as stopped


@dataclass(frozen=True)
class Move:
    """Press `key` `presses` times on the handle of the slider labelled `slider` in the code cell whose code
    contains `code` (or whose output contains the element `has`), then expect what the elements `watch` inside
    that cell show (text and images) to change, and the kernel expression `kernel` to equal the slider's value."""

    slider: str
    presses: int
    watch: str
    what: str  # what should change on screen, for messages
    code: str = ""
    has: str = ""
    kernel: str | None = None
    key: str = "ArrowRight"
    status: str = ""  # an element in the cell that must show no message afterwards


@dataclass(frozen=True)
class Case:
    notebook: str
    moves: tuple[Move, ...]
    docs: str | None  # the name of its README screenshot (of the first move's cell), if it has one
    docs_until: str = ""  # the screenshot ends below this element of the cell ("": the whole cell)
    whole: bool = False  # serve every cell; else the cells up to the last one a move's `code` names


def served(case: Case) -> dict:
    """The notebook as the browser gets it: whole, or cut after the last cell with a slider that moves."""
    notebook = json.loads((ROOT / "notebooks" / case.notebook).read_text())
    marks = [move.code for move in case.moves if move.code]
    if case.whole or not marks:
        return notebook
    last = max(i for i, cell in enumerate(notebook["cells"])
               if cell["cell_type"] == "code" and any(mark in "".join(cell["source"]) for mark in marks))
    notebook["cells"] = notebook["cells"][:last + 1]
    return notebook


RANKING = "ranking_widget(pipe"  # notebook 05's query menu, k1 and b sliders over the live ranking
CASES = [
    Case("05_bm25.ipynb", (
        Move("k1", 3, ".widget-output", "the recall@5 line and the ranking table", code=RANKING,
             kernel="pipe.config.k1"),
        Move("b", 3, ".widget-output", "the recall@5 line and the ranking table", code=RANKING,
             kernel="pipe.config.b"),
        Move("b", 3, ".widget-output", "the length-normalisation curve", code='curve_widget(pipe, "b")',
             kernel="pipe.config.b"),  # k1's saturation curve is the same widget: rendered, not moved
    ), docs="05_bm25_sliders.png"),
    Case("08_mmr.ipynb", (
        Move("λ", 1, ".widget-output", "the relevance-diversity plot and its marked λ", code="mmr_widget(pipe",
             kernel="pipe.config.mmr_lambda"),
    ), docs=None if (ROOT / "notebooks" / PLAYGROUND).exists() else "08_mmr_lambda.png"),
]
if (ROOT / "notebooks" / PLAYGROUND).exists():
    METRICS = ".ragkit-playground-metrics"  # the playground's HTML table of dev metrics; `live` is its pipeline
    CASES.append(Case(PLAYGROUND, (
        Move("k1", 3, METRICS, "the dev metrics table", has=METRICS, kernel="live.config.k1",
             status=".ragkit-playground-status"),
        Move("mmr_lambda", 6, METRICS, "the dev metrics table", has=METRICS, key="ArrowLeft",  # from 1: MMR off
             kernel="live.config.mmr_lambda", status=".ragkit-playground-status"),
    ), docs="11_playground.png", docs_until=METRICS, whole=True))


def missing() -> str | None:
    if not CHROMIUM.exists():
        return f"no browser: {CHROMIUM} is missing (install Debian's chromium package, as .ci/run does)"
    if importlib.util.find_spec("playwright") is None:
        return "no browser driver: playwright is not installed (pip install -e '.[test]')"
    return None


# in CI the browser must be there (.ci/run installs it): there a missing one fails the test instead
pytestmark = pytest.mark.skipif(bool(missing()) and not os.environ.get("CI"), reason=str(missing()))

APP = "window.jupyterapp.shell.currentWidget"
READY = f"""name => {{
  const w = window.jupyterapp && {APP};
  const k = w && w.sessionContext && w.sessionContext.session && w.sessionContext.session.kernel;
  return !!(w && w.context && w.context.path.endsWith(name) && w.content && w.content.widgets.length
            && k && k.status === 'idle' && k.connectionStatus === 'connected');
}}"""
STATE = f"""() => {{
  const w = {APP};
  const cells = w.content.widgets.map((cell, index) => [cell, index])  // empty code cells never get a count
    .filter(([c]) => c.model.type === 'code' && c.model.sharedModel.getSource().trim() !== '');
  const errors = cells.flatMap(([c, i]) => c.model.outputs.toJSON().filter(o => o.output_type === 'error')
    .map(o => `cell ${{i + 1}} raised ${{o.ename}}: ${{o.evalue}}\\n${{o.traceback.slice(-3).join('\\n')}}`));
  return {{status: w.sessionContext.session.kernel.status, total: cells.length, errors,
          outputs: cells.reduce((n, [c]) => n + c.model.outputs.length, 0),
          done: cells.filter(([c]) => c.model.executionCount !== null).length,
          first: (cells.find(([c]) => c.model.executionCount === null) || [null, -1])[1] + 1}};
}}"""
VIEWS = f"""() => {{
  const w = {APP}, mime = 'application/vnd.jupyter.widget-view+json';
  const views = w.content.widgets.filter(c => c.model.type === 'code').flatMap(c => {{
    const children = [...c.outputArea.node.children];  // one per output, in the model's order
    return c.model.outputs.toJSON().map((o, i) => [o, children[i]]).filter(([o]) => o.data && o.data[mime])
      .map(([o, child]) => child && child.querySelector('.jp-OutputArea-output'));
  }});
  return {{expected: views.length, views: views.filter(v => v).length,
          live: views.filter(v => v && v.querySelector('.jupyter-widgets')
                              && !v.textContent.includes('Error displaying widget')).length,
          disconnected: w.content.node.querySelectorAll('.jupyter-widgets-disconnected').length,
          reprs: [...w.content.node.querySelectorAll('.jp-OutputArea-output')]
            .map(o => o.innerText).filter(t => /(VBox|HBox|interactive)\\(children=/.test(t))}};
}}"""
SHOWN = """(cell, selector) => [...cell.querySelectorAll(selector)].map(e => e.innerText + ' '
  + [...e.querySelectorAll('img')].map(i => i.src).join(' ')).join('\\n')"""
EXECUTE = f"""async code => {{
  const future = {APP}.sessionContext.session.kernel.requestExecute({{code, store_history: false}});
  let out = '';
  future.onIOPub = m => {{
    if (m.header.msg_type === 'stream') out += m.content.text;
    if (m.header.msg_type === 'error') out += m.content.ename + ': ' + m.content.evalue;
  }};
  await future.done;
  return out.trim();
}}"""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def api(url: str, method: str = "GET"):
    request = urllib.request.Request(url, method=method, headers={"Authorization": f"token {TOKEN}"})
    with urllib.request.urlopen(request, timeout=10) as response:
        body = response.read()
    return json.loads(body) if body else None


@dataclass
class Lab:
    url: str
    log: Path


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """JupyterLab from this environment, serving copies of the notebooks (and the data beside them)."""
    if missing():
        pytest.fail(f"in CI the browser test must run: {missing()}")
    folder = tmp_path_factory.mktemp("browser")
    course = folder / "course"
    (course / "notebooks").mkdir(parents=True)
    for case in CASES:
        (course / "notebooks" / case.notebook).write_text(json.dumps(served(case), ensure_ascii=False))
    (course / "data").symlink_to(ROOT / "data", target_is_directory=True)  # the notebooks read ../data
    (course / "notebooks" / "exercises").symlink_to(ROOT / "notebooks" / "exercises", target_is_directory=True)
    settings = {  # no news or update prompts (offline), and every cell in the page
        "apputils-extension/notification": {"fetchNews": "false", "checkForUpdates": False},
        "notebook-extension/tracker": {"windowingMode": "none"},
    }
    for name, values in settings.items():
        path = folder / "settings" / "@jupyterlab" / f"{name}.jupyterlab-settings"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values))
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "RAGKIT_PROGRESS": "0",
           "HF_HUB_DISABLE_PROGRESS_BARS": "1", "JUPYTER_CONFIG_DIR": str(folder / "config"),
           "JUPYTER_DATA_DIR": str(folder / "share"), "JUPYTER_RUNTIME_DIR": str(folder / "runtime")}
    port, log = free_port(), folder / "lab.log"
    command = [sys.executable, "-m", "jupyter", "lab", "--no-browser", "--allow-root", f"--port={port}",
               "--ServerApp.port_retries=0",  # this port or fail, never quietly the next one
               "--ServerApp.ip=127.0.0.1", f"--ServerApp.token={TOKEN}", f"--ServerApp.root_dir={course}",
               "--LabApp.extension_manager=readonly", "--LabApp.news_url=None",
               "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
               "--LabApp.expose_app_in_browser=True", f"--LabApp.user_settings_dir={folder / 'settings'}",
               f"--LabApp.workspaces_dir={folder / 'workspaces'}"]
    with log.open("w") as output:
        server = subprocess.Popen(command, cwd=course, env=env, stdout=output, stderr=subprocess.STDOUT,
                                  start_new_session=True)
    try:
        url = f"http://127.0.0.1:{port}"
        for _ in range(240):  # bounded: at most about 60 s
            time.sleep(0.25)
            try:
                api(f"{url}/api/status")
                break
            except OSError:
                assert server.poll() is None, f"JupyterLab exited with {server.returncode}:\n{log.read_text()}"
        else:
            pytest.fail(f"JupyterLab did not answer on {url} within 60 s:\n{log.read_text()}")
        yield Lab(url, log)
    finally:
        stop_process_group(server, grace=20)


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    args = ["--disable-dev-shm-usage"] + (["--no-sandbox"] if os.geteuid() == 0 else [])  # root: no sandbox
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=args, timeout=60_000)
        yield chromium
        chromium.close()


def open_notebook(page, lab: Lab, notebook: str) -> None:
    """Open the notebook in a fresh workspace and wait until its kernel is idle."""
    workspace = re.sub(r"\W", "-", notebook)
    page.goto(f"{lab.url}/lab/workspaces/{workspace}/tree/notebooks/{notebook}?reset&token={TOKEN}",
              timeout=90_000)
    try:
        page.wait_for_function(READY, arg=notebook, timeout=120_000, polling=500)
    except Exception:
        dialogs = page.locator(".jp-Dialog").all_inner_texts()
        pytest.fail(f"{notebook} did not open with an idle kernel within 120 s; dialogs: {dialogs}; "
                    f"server log:\n{lab.log.read_text()[-3000:]}")
    page.evaluate("window.jupyterapp.shell.collapseLeft()")  # the notebook at full width, for the screenshots


def run_all(page, notebook: str) -> None:
    """Clear every output (Edit menu), then Run All Cells (Run menu); wait until every code cell ran."""
    page.get_by_role("menuitem", name="Edit", exact=True).click()
    page.locator('li[data-command="editmenu:clear-all"]').click()
    page.wait_for_function(f"() => ({STATE})().outputs === 0", timeout=30_000)
    state = page.evaluate(STATE)
    assert state["done"] == 0, f"clearing the outputs left {state['done']} execution counts: {state}"
    page.get_by_role("menuitem", name="Run", exact=True).click()
    page.locator('li[data-command="runmenu:run-all"]').click()
    start = time.monotonic()
    idle_since = None
    while True:
        time.sleep(0.5)
        state, now = page.evaluate(STATE), time.monotonic()
        if state["errors"]:
            pytest.fail(f"{notebook}: Run All stopped at an error:\n" + strip_ansi(state["errors"][0]))
        assert state["status"] not in ("dead", "unknown"), f"{notebook}: the kernel died: {state}"
        if state["done"] == state["total"] and state["status"] == "idle":
            return
        idle_since = (idle_since or now) if state["status"] == "idle" else None
        assert idle_since is None or now - idle_since < STALL, (
            f"{notebook}: Run All stopped without an error; first cell not run: {state['first']} ({state})")
        assert now - start < RUN_TIMEOUT, (
            f"{notebook}: Run All did not finish in {RUN_TIMEOUT} s: {state['done']} of {state['total']} code "
            f"cells ran")


def strip_ansi(text: str) -> str:
    return re.sub(r"\x1b\[[0-9;]*m", "", text)


def check_widgets_render(page, notebook: str, when: str) -> None:
    """Every widget output is a live widget view: none shows as text, failed, or disconnected."""
    deadline = time.monotonic() + 30
    while True:
        views = page.evaluate(VIEWS)
        if views["live"] == views["views"] == views["expected"] or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    assert views["expected"] > 0, f"{notebook}: no widget outputs after Run All"
    assert views["live"] == views["views"] == views["expected"], (
        f"{notebook} {when}: expected {views['expected']} widgets drawn on screen, found {views['views']} widget "
        f"outputs of which {views['live']} rendered (the rest show 'Error displaying widget' or nothing)")
    assert not views["reprs"], f"{notebook} {when}: widgets shown as text, not drawn: {views['reprs'][:2]}"
    assert views["disconnected"] == 0, f"{notebook} {when}: {views['disconnected']} widgets are disconnected"


def shown(cell, move: Move) -> str:
    return cell.evaluate(SHOWN, move.watch)


def digest(text: str) -> str:
    """What the screen showed, short enough for a message: the text, and a hash for the images."""
    words = re.sub(r"data:image/\S+", lambda m: f"<image {hashlib.sha1(m[0].encode()).hexdigest()[:8]}>", text)
    return words if len(words) < 700 else words[:700] + "…"


def move_slider(page, notebook: str, move: Move):
    """Press the keys on the slider's handle; wait until what the cell shows changed and settled. Returns the
    cell."""
    cells = page.locator(".jp-CodeCell")
    cell = cells.filter(has_text=move.code) if move.code else cells.filter(has=page.locator(move.has))
    assert cell.count() == 1, f"{notebook}: expected one cell with {move.code or move.has}, found {cell.count()}"
    label = page.locator(".widget-label", has_text=re.compile(rf"^{re.escape(move.slider)}$"))
    slider = cell.locator(".widget-slider").filter(has=label)
    assert slider.count() == 1, f"{notebook}: expected one slider labelled {move.slider!r} in the cell"
    cell.scroll_into_view_if_needed()
    readout = slider.locator(".widget-readout")
    start, before = readout.inner_text(), shown(cell, move)
    assert before.strip(), f"{notebook}: {move.what} is not on screen before the slider moves"
    handle = slider.locator(".noUi-handle")
    handle.focus()
    for _ in range(move.presses):
        handle.press(move.key)
    deadline, last, steady = time.monotonic() + 60, None, 0
    while time.monotonic() < deadline:  # changed, and the same for 1 s with the kernel idle
        time.sleep(0.25)
        now = shown(cell, move)
        idle = page.evaluate(f"() => {APP}.sessionContext.session.kernel.status") == "idle"
        steady = steady + 1 if now == last and now != before and idle else 0
        last = now
        if steady >= 4:
            break
    end = readout.inner_text()
    assert end != start, f"{notebook}: pressing {move.key} {move.presses}× on {move.slider} left it at {start}"
    assert last != before, (f"{notebook}: after {move.slider} moved from {start} to {end}, expected {move.what} "
                            f"to change on screen; it still shows:\n{digest(last)}")
    assert steady >= 4, f"{notebook}: {move.what} kept changing for 60 s after {move.slider} moved to {end}"
    if move.kernel:  # the slider reached the pipeline in the kernel
        value = page.evaluate(EXECUTE, f"print({move.kernel})")
        assert re.fullmatch(r"-?[\d.]+(e-?\d+)?", value) and abs(float(value) - float(end)) < 1e-6, (
            f"{notebook}: the slider {move.slider} shows {end}, but the kernel's {move.kernel} is {value}")
    if move.status:
        message = cell.locator(move.status).inner_text().strip()
        assert not message, f"{notebook}: after {move.slider} moved to {end} the widget says: {message}"
    return cell


@pytest.mark.parametrize("case", CASES, ids=[case.notebook.removesuffix(".ipynb") for case in CASES])
def test_sliders_redraw_the_widgets_in_a_browser(case, lab, browser, tmp_path):
    """Run All, every widget drawn live, each slider move redraws its widget and reaches the kernel."""
    page = browser.new_page(viewport={"width": 1280, "height": 1400})
    page.set_default_timeout(30_000)
    problems, cells, clock = [], [], [time.monotonic()]
    page.on("console", lambda m: problems.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
    page.on("pageerror", lambda error: problems.append(f"page error: {error}"))
    try:
        open_notebook(page, lab, case.notebook)
        clock.append(time.monotonic())
        run_all(page, case.notebook)
        clock.append(time.monotonic())
        check_widgets_render(page, case.notebook, "after Run All")
        for number, move in enumerate(case.moves):
            cell = move_slider(page, case.notebook, move)
            cell.screenshot(path=tmp_path / f"{number}-{move.slider}.png")
            cells.append(cell)
        check_widgets_render(page, case.notebook, "after the sliders moved")
        assert not problems, f"{case.notebook}: errors in the browser:\n" + "\n".join(problems[:10])
        clock.append(time.monotonic())
        if case.docs:
            page.evaluate(f"{APP}.content.activeCellIndex = 0")  # no active-cell bar and toolbar in the picture
            photograph(page, cells[0], case.docs_until, tmp_path / case.docs)
            if os.environ.get("RAGKIT_UPDATE_SCREENSHOTS") == "1":
                SCREENSHOTS.mkdir(parents=True, exist_ok=True)
                shutil.copy(tmp_path / case.docs, SCREENSHOTS / case.docs)
        steps = ", ".join(f"{name} {b - a:.0f} s" for name, a, b in
                          zip(["opened", "Run All", f"{len(case.moves)} slider moves"], clock[:-1], clock[1:],
                              strict=True))
        print(f"{case.notebook}: {steps}; screenshots in {tmp_path}")
    finally:
        with contextlib.suppress(Exception):  # what the page showed last, also after a failure
            page.screenshot(path=tmp_path / "page.png")
        page.close()
        with contextlib.suppress(OSError):  # free the kernel for the next notebook
            for session in api(f"{lab.url}/api/sessions") or []:
                api(f"{lab.url}/api/sessions/{session['id']}", method="DELETE")


def photograph(page, cell, until: str, path: Path) -> None:
    """A screenshot of the cell, down to the bottom of the element `until` inside it (all of it: "")."""
    if not until:
        cell.screenshot(path=path)
        return
    cell.evaluate("node => node.scrollIntoView({block: 'start'})")
    top, end = cell.bounding_box(), cell.locator(until).bounding_box()
    page.screenshot(path=path, clip={"x": top["x"], "y": top["y"], "width": top["width"],
                                     "height": end["y"] + end["height"] - top["y"]})
