"""The widgets, proven in a real browser: JupyterLab runs a notebook in headless Chromium, a control moves, and
what the widget shows changes.

nbval ignores widget views and the widget callbacks are unit-tested on their own, so this test does what a
learner does, for every notebook with widgets. It copies the notebooks to a temporary course folder (the
committed notebooks are never served, so they stay byte-identical), starts JupyterLab from this environment on
127.0.0.1 (a free port, a token, no browser, offline), and opens each notebook in Debian's chromium driven by
Playwright. Before anything runs, each widget must show the picture of its last state that
notebooks/normalize.py saved (not the text `VBox(children=...`), and opening must leave the notebook
unmodified. Then it clears the outputs and runs every cell with JupyterLab's Run All command: notebook 11
whole; the others cut to their widget cells and the cells those need (a def-use slice: nbval runs every cell
anyway, and this keeps the test short). It checks that the widgets rendered live (not as text, not
disconnected), moves each widget's controls (arrow keys on a slider's handle, a menu's option, text typed in a
box) and waits for the widget's text or plot to change; the kernel's pipeline must then hold the control's
value. In the playground it also takes the recovery path: a preset, a refused move whose control goes back to
the pipeline's value with the reason shown, then another query whose results must follow. No errors may reach
the browser console. Screenshots go to pytest's tmp folder, and with RAGKIT_UPDATE_SCREENSHOTS=1 the README's go
to docs/screenshots/.

Last, in the same JupyterLab and page, notebook 12's judging widget: ten passages judged by keyboard, a quote
selected, the verdicts found in the files of the widget's working copy, and the widget resuming at the next
unjudged passage after the kernel and the page start again (the section at the end of this file).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from helpers import browser_missing, chromium, stop_process_group

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "notebooks"))
from normalize import CAPTION  # noqa: E402  the line above a widget's picture

ROOT = Path(__file__).resolve().parent.parent
TOKEN = "ragkit-browser-test"
SCREENSHOTS = ROOT / "docs" / "screenshots"
PLAYGROUND = "11_playground.ipynb"
RUN_TIMEOUT = 240  # seconds for Run All; the notebooks take 20-70 s on 2 cores
STALL = 20  # seconds the kernel may sit idle with cells still unrun before Run All counts as stopped
POLL = 0.1  # seconds between looks at the page while waiting
STEADY = 4  # polls in a row that a move's result must stay the same with the kernel idle


@dataclass(frozen=True)
class Move:
    """Move the control labelled `slider` in the code cell whose code contains `code` (or whose output contains
    the element `has`): a slider by pressing `key` `presses` times on its handle, a menu (`control="menu"`) by
    choosing its option `value` (or its option number `presses`), a text box (`control="text"`) by typing
    `value` and Enter. Then expect what the elements `watch` inside that cell show (text and images) to change,
    and the kernel expression `kernel` to print `expect` (default: the control's value as shown). A `refused`
    move must instead leave `watch` as it was, show `refused` in the `status` element and put the control back
    to its value before the move. `shows`, a kernel expression (`{value}`: the value chosen), prints lines that
    must each appear in what `watch` shows afterwards."""

    slider: str
    presses: int
    watch: str
    what: str  # what should change on screen, for messages
    code: str = ""
    has: str = ""
    kernel: str | None = None
    key: str = "ArrowRight"
    status: str = ""  # an element in the cell that must show no message afterwards (or the refusal)
    control: str = "slider"  # "slider", "menu" or "text"
    value: str = ""
    expect: str | None = None
    refused: str = ""
    shows: str = ""


@dataclass(frozen=True)
class Case:
    notebook: str
    moves: tuple[Move, ...]
    docs: str | None  # the name of its README screenshot (of the first move's cell), if it has one
    docs_until: str = ""  # the screenshot ends below this element of the cell ("": the whole cell)
    whole: bool = False  # serve every cell; else the cells up to the last one a move's `code` names


def cell_names(source: str) -> tuple[set[str], set[str]]:
    """The names a code cell defines at the notebook's top level (assigned, imported, def, class; not the local
    names of its functions and comprehensions) and the names it reads anywhere."""
    import ast

    tree = ast.parse("\n".join(line for line in source.splitlines() if not line.lstrip().startswith(("%", "!"))))
    defined: set[str] = set()
    read: set[str] = set()

    def visit(node, top: bool) -> None:
        if isinstance(node, ast.Name):
            if isinstance(node.ctx, ast.Load):
                read.add(node.id)
            elif isinstance(node.ctx, ast.Store) and top:
                defined.add(node.id)
            return
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            defined.update([node.name] if top else [])
            top = False
        elif isinstance(node, ast.Lambda | ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp):
            top = False
        elif isinstance(node, ast.Import | ast.ImportFrom) and top:
            defined.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
        for child in ast.iter_child_nodes(node):
            visit(child, top)

    visit(tree, True)
    return defined, read


def served(case: Case) -> dict:
    """The notebook as the browser gets it: whole, or its widget cells (those a move's `code` names) and the
    code cells they need: walking back from the last widget cell, each cell that defines a name a later kept
    cell reads before defining it (a def-use slice; nbval runs every cell anyway, and this keeps the browser
    test short)."""
    notebook = json.loads((ROOT / "notebooks" / case.notebook).read_text())
    marks = [move.code for move in case.moves if move.code]
    if case.whole or not marks:
        return notebook
    cells, kept, needed = notebook["cells"], [], set()
    for cell in reversed(cells):
        if cell["cell_type"] != "code":
            continue
        defined, read = cell_names("".join(cell["source"]))
        if any(mark in "".join(cell["source"]) for mark in marks) or (kept and defined & needed):
            kept.insert(0, cell)
            needed = (needed - defined) | read
    notebook["cells"] = cells[:1] + kept  # the title, then the cells that run
    return notebook


RANKING = "ranking_widget(pipe"  # notebook 05's query menu, k1 and b sliders over the live ranking
IMAGE, HTML = ".widget-image", ".widget-html"  # a plot drawn in place (ragkit.widgets.figures), an HTML view
CASES = [
    Case("01_tokenization_retrieval.ipynb", (
        Move("text", 0, HTML, "the tokens the model gets", code="token_viewer(tokenizer)", control="text",
             value="Rotate the key after TS-999"),
    ), docs=None),
    Case("02_embeddings_and_pooling.ipynb", (
        Move("layer", 2, IMAGE, "the attention heatmap", code="attention_widget(encoder"),
        Move("head", 3, IMAGE, "the attention heatmap", code="attention_widget(encoder"),
        Move("text", 0, IMAGE, "the attention heatmap", code="attention_widget(encoder", control="text",
             value="Revoke the old token."),
    ), docs=None),
    Case("03_similarity_and_vector_search.ipynb", (
        Move("threshold", 2, f"{HTML}, {IMAGE}", "the refusal figures and the threshold line",
             code="threshold_widget(pipe, dev", kernel="pipe.config.threshold"),
    ), docs="03_threshold.png"),
    Case("04_chunking_semantic.ipynb", (
        Move("threshold", 3, IMAGE, "the similarity curve's cuts", code="threshold_slider(ops"),
    ), docs=None),
    Case("05_bm25.ipynb", (
        Move("k1", 2, IMAGE, "the saturation curve", code='curve_widget(pipe, "k1")', kernel="pipe.config.k1"),
        Move("b", 3, IMAGE, "the length-normalisation curve", code='curve_widget(pipe, "b")',
             kernel="pipe.config.b"),
    ), docs=None),
    Case("05_bm25_measured.ipynb", (
        Move("k1", 3, ".widget-output", "the recall@5 line and the ranking table", code=RANKING,
             kernel="pipe.config.k1"),
        Move("b", 3, ".widget-output", "the recall@5 line and the ranking table", code=RANKING,
             kernel="pipe.config.b"),
        Move("query", 2, ".widget-output", "the ranking table", code=RANKING, control="menu"),
    ), docs="05_bm25_sliders.png"),
    Case("06_hybrid_search.ipynb", (
        Move("rrf_k", 2, IMAGE, "the fusion bars", code="fusion_explorer(pipe", kernel="pipe.config.rrf_k"),
        Move("alpha (dense)", 2, IMAGE, "the fusion bars", code="fusion_explorer(pipe", kernel="pipe.config.alpha"),
        Move("fusion", 0, IMAGE, "the fusion bars", code="fusion_explorer(pipe", control="menu", value="rrf",
             kernel="pipe.config.fusion"),
    ), docs="06_fusion.png"),
    Case("07_contextual_retrieval.ipynb", (
        Move("query", 3, ".widget-output", "the before/after rankings", code="picker = widgets.Dropdown",
             control="menu"),
    ), docs=None),
    Case("08_mmr.ipynb", (
        Move("λ", 1, IMAGE, "the relevance-diversity plot and its marked λ", code="mmr_widget(pipe",
             kernel="pipe.config.mmr_lambda"),
    ), docs=None if (ROOT / "notebooks" / PLAYGROUND).exists() else "08_mmr_lambda.png"),
    Case("09_rerank_llm_and_refuse.ipynb", (
        Move("threshold", 2, f"{HTML}, {IMAGE}", "the refusal figures and the threshold line",
             code='threshold_widget(pipe.using(rerank="llm")'),
    ), docs="09_llm_threshold.png"),
    Case("13_from_retrieval_to_answers.ipynb", (  # k from 5 to 10, then the edges order: both recorded
        Move("k", 1, HTML, "the graded answer", code="answer_widget(best", kernel="best.config.k"),
        Move("order", 0, HTML, "the graded answer", code="answer_widget(best", control="menu", value="edges",
             kernel="best.config.order"),
        Move("query", 2, HTML, "the graded answer", code="answer_widget(best", control="menu"),
    ), docs="13_answers.png"),
]
if (ROOT / "notebooks" / PLAYGROUND).exists():
    METRICS = ".ragkit-playground-metrics"  # the playground's HTML table of dev metrics; `live` is its pipeline
    STATUS, RESULTS = ".ragkit-playground-status", ".ragkit-playground-results"
    SEED_TOP_K = 7  # the results seed 003's preset shows
    CASES.append(Case(PLAYGROUND, (
        Move("encoder", 0, METRICS, "the dev metrics table", has=METRICS, control="menu", value="e5-small",
             kernel="live.config.encoder", status=STATUS),  # its vectors are shipped: no model loads
        Move("k1", 3, METRICS, "the dev metrics table", has=METRICS, kernel="live.config.k1", status=STATUS),
        Move("mmr_lambda", 6, METRICS, "the dev metrics table", has=METRICS, key="ArrowLeft",  # from 1: MMR off
             kernel="live.config.mmr_lambda", status=STATUS),
        # the recovery path: a refused move puts its control back, and the next query's results follow
        Move("preset", 0, METRICS, "the dev metrics table", has=METRICS, control="menu", value="seed 003's pipeline",
             kernel="live.config.rerank", expect="llm", status=STATUS),
        Move("k1", 1, METRICS, "the dev metrics table", has=METRICS, kernel="live.config.k1", status=STATUS,
             refused="rerank=llm"),  # no recorded language-model scores for the chunks this k1 brings in
        Move("dev query", 5, RESULTS, "the results", has=METRICS, control="menu", status=STATUS,
             shows="q = {value!r}.split(': ', 1)[1]\n"  # the option's label is "id: text"
                   f"print('\\n'.join([q] + [c.chunk_id for c in live.rankings([q], {SEED_TOP_K})[0]]))"),
    ), docs="11_playground.png", docs_until=METRICS, whole=True))


def missing() -> str | None:
    return browser_missing()


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
PICTURES = f"""caption => {{
  const w = {APP}, mime = 'application/vnd.jupyter.widget-view+json';
  const outputs = w.content.widgets.filter(c => c.model.type === 'code').flatMap(c => {{
    const children = [...c.outputArea.node.children];
    return c.model.outputs.toJSON().map((o, i) => [o, children[i]]);
  }}).filter(([o]) => o.data && o.data[mime] && o.data['text/html']);
  const html = o => [].concat(o.data['text/html']).join('');
  const images = outputs.flatMap(([o, child]) => child ? [...child.querySelectorAll('img')] : []);
  return {{expected: outputs.length, shown: outputs.filter(([o, c]) => c && c.innerText.includes(caption)).length,
          saved: outputs.reduce((n, [o]) => n + (html(o).match(/<img /g) || []).length, 0), images: images.length,
          loaded: images.filter(i => i.complete && i.naturalWidth > 0).length,
          reprs: outputs.filter(([o, c]) => c && /(VBox|HBox)\\(children=/.test(c.innerText)).length,
          dirty: w.context.model.dirty}};
}}"""
SHOWN = """(cell, selector) => [...cell.querySelectorAll(selector)].map(e => e.innerText + ' '
  + [e, ...e.querySelectorAll('img')].filter(i => i.tagName === 'IMG').map(i => i.src).join(' ')).join('\\n')"""
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


def api(url: str, method: str = "GET", body: dict | None = None):
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method, headers={"Authorization": f"token {TOKEN}"})
    with urllib.request.urlopen(request, timeout=10) as response:
        body = response.read()
    return json.loads(body) if body else None


@dataclass
class Lab:
    url: str
    log: Path
    course: Path  # the folder it serves: notebooks/ and data/
    cache: Path | None  # ragkit's cache folder (RAGKIT_CACHE) of its kernels; None: this process's


@contextlib.contextmanager
def lab_server(folder: Path, notebooks: dict[str, dict], copied: tuple[str, ...] = (), cache: Path | None = None):
    """JupyterLab from this environment in `folder`, serving `notebooks` (name: notebook) beside the course
    data, until the block ends. The data's entries named in `copied` are served as copies (what a notebook writes
    there never reaches the shipped files), the rest as links; `cache` is ragkit's cache folder for the kernels
    (default: the one this process would use). The redraw benchmark (benchmarks/redraw.py) uses it too."""
    course = folder / "course"
    (course / "notebooks").mkdir(parents=True)
    for name, notebook in notebooks.items():
        (course / "notebooks" / name).write_text(json.dumps(notebook, ensure_ascii=False))
    if copied:  # the notebooks read ../data
        (course / "data").mkdir()
        for entry in (ROOT / "data").iterdir():
            if entry.name in copied:
                shutil.copytree(entry, course / "data" / entry.name)
            else:
                (course / "data" / entry.name).symlink_to(entry, target_is_directory=entry.is_dir())
    else:
        (course / "data").symlink_to(ROOT / "data", target_is_directory=True)
    (course / "notebooks" / "exercises").symlink_to(ROOT / "notebooks" / "exercises", target_is_directory=True)
    settings = {  # no news or update prompts (offline), and every cell in the page
        "@jupyterlab/apputils-extension/notification": {"fetchNews": "false", "checkForUpdates": False},
        "@jupyterlab/notebook-extension/tracker": {"windowingMode": "none"},
        # widget state not saved, whatever the environment's overrides.json says: `make lab` (and so
        # tests/test_lab.py) writes saveState true there, which would let opening a notebook mark it modified
        # before `check_pictures` looks; `save_widget_state` turns it on for the save-and-reopen check only
        "@jupyter-widgets/jupyterlab-manager/plugin": {"saveState": False},
    }
    for name, values in settings.items():
        path = folder / "settings" / f"{name}.jupyterlab-settings"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values))
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "RAGKIT_PROGRESS": "0",
           "HF_HUB_DISABLE_PROGRESS_BARS": "1", "JUPYTER_CONFIG_DIR": str(folder / "config"),
           "JUPYTER_DATA_DIR": str(folder / "share"), "JUPYTER_RUNTIME_DIR": str(folder / "runtime")}
    if cache is not None:
        env["RAGKIT_CACHE"] = str(cache)
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
                if server.poll() is not None:
                    raise RuntimeError(f"JupyterLab exited with {server.returncode}:\n{log.read_text()}") from None
        else:
            raise RuntimeError(f"JupyterLab did not answer on {url} within 60 s:\n{log.read_text()}")
        yield Lab(url, log, course, cache)
    finally:
        stop_process_group(server, grace=20)




SHARED_CACHE = ("embeddings", "jieba", "token-vectors", "chroma")  # the folders ragkit keeps in its cache


def cache_without_own_data(folder: Path) -> Path:
    """A ragkit cache folder in `folder` that links to every folder of the shared one (the embeddings, jieba's
    dictionary, the token vectors, the Chroma store: the notebooks find and add to them as they would there) but
    `own-data`, the working copies of a learner's data folders, which starts empty here: the judging test finds
    only its own verdicts there, and never touches those of notebook 12 run elsewhere."""
    from ragkit.cache import cache_dir

    shared = cache_dir(create=False).resolve()  # absolute: the links must hold from another folder
    cache = folder / "cache"
    cache.mkdir()
    present = {entry.name for entry in shared.iterdir() if entry.is_dir()} if shared.is_dir() else set()
    for name in sorted((present | set(SHARED_CACHE)) - {"own-data"}):
        (shared / name).mkdir(parents=True, exist_ok=True)  # made there, so what a notebook computes is kept
        (cache / name).symlink_to(shared / name, target_is_directory=True)
    return cache


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """JupyterLab from this environment, serving copies of the notebooks (the cases' and the judging test's)
    beside the data, with a copy of the demo folder that the judging widget reads, and a cache of its own for
    the widget's working copy."""
    if missing():
        pytest.fail(f"in CI the browser test must run: {missing()}")
    folder = tmp_path_factory.mktemp("browser")
    notebooks = {case.notebook: served(case) for case in CASES} | {JUDGED: judging_slice()}
    try:
        with lab_server(folder, notebooks, copied=("demo-handbook",), cache=cache_without_own_data(folder)) as lab:
            yield lab
    except RuntimeError as error:
        pytest.fail(str(error))


@pytest.fixture(scope="module")
def browser():
    with chromium() as browser:
        yield browser


@pytest.fixture(scope="module")
def pages(browser):
    """One JupyterLab page for the notebooks in turn (`pages.get()`); after a failure, `pages.drop()` closes it and
    the next notebook gets a fresh page."""

    class Pages:
        page = None

        def get(self):
            if self.page is None:
                self.page = browser.new_page(viewport={"width": 1280, "height": 1400})
                self.page.set_default_timeout(30_000)
            return self.page

        def drop(self):
            with contextlib.suppress(Exception):
                self.page.close()
            self.page = None

    yield (held := Pages())
    if held.page is not None:
        held.drop()


def start_kernel(lab: Lab, notebook: str) -> threading.Thread:
    """Start the notebook's kernel now, in the background: JupyterLab opening the notebook later joins this session
    instead of starting a kernel then, so the next notebook's kernel starts while this one is driven."""

    def start() -> None:
        with contextlib.suppress(OSError):  # then JupyterLab starts it when the notebook opens, as usual
            api(f"{lab.url}/api/sessions", "POST", {"path": f"notebooks/{notebook}", "name": notebook,
                                                    "type": "notebook", "kernel": {"name": "python3"}})

    thread = threading.Thread(target=start, daemon=True)
    thread.start()
    return thread


def open_notebook(page, lab: Lab, notebook: str, in_place: bool = False) -> None:
    """Open the notebook in a fresh workspace and wait until its kernel is idle. `in_place`: if the page already
    shows JupyterLab, close what it shows and open the notebook there (JupyterLab's start-up, about 2 s, once)."""
    if in_place and page.evaluate("() => !!window.jupyterapp"):
        page.evaluate("""async path => {
          for (const widget of [...window.jupyterapp.shell.widgets('main')]) widget.dispose();  // no save prompt
          await window.jupyterapp.commands.execute('docmanager:open', {path});
        }""", f"notebooks/{notebook}")
    else:
        workspace = re.sub(r"\W", "-", notebook)
        page.goto(f"{lab.url}/lab/workspaces/{workspace}/tree/notebooks/{notebook}?reset&token={TOKEN}",
                  timeout=90_000)
    wait_until_open(page, lab, notebook)


def wait_until_open(page, lab: Lab, notebook: str) -> None:
    """Wait until the page shows the notebook with an idle kernel; then show it at full width."""
    try:
        page.wait_for_function(READY, arg=notebook, timeout=120_000, polling=int(POLL * 1000))
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
        time.sleep(POLL)
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
        time.sleep(POLL)
    assert views["expected"] > 0, f"{notebook}: no widget outputs after Run All"
    assert views["live"] == views["views"] == views["expected"], (
        f"{notebook} {when}: expected {views['expected']} widgets drawn on screen, found {views['views']} widget "
        f"outputs of which {views['live']} rendered (the rest show 'Error displaying widget' or nothing)")
    assert not views["reprs"], f"{notebook} {when}: widgets shown as text, not drawn: {views['reprs'][:2]}"
    assert views["disconnected"] == 0, f"{notebook} {when}: {views['disconnected']} widgets are disconnected"


def check_pictures(page, notebook: str) -> int:
    """Before anything runs, every widget output that carries a picture (notebooks/normalize.py) shows it:
    the caption, and its images loaded, no `VBox(children=...` text; and opening the notebook changed nothing.
    Returns how many pictures there are."""
    caption = CAPTION.split(":")[0]
    deadline = time.monotonic() + 20
    while True:
        seen = page.evaluate(PICTURES, caption)
        if seen["shown"] == seen["expected"] and seen["loaded"] == seen["images"] == seen["saved"]:
            break
        assert time.monotonic() < deadline, f"{notebook}: the widget pictures did not all show before running: {seen}"
        time.sleep(POLL)
    assert not seen["reprs"], f"{notebook}: {seen['reprs']} widget outputs show as text before running"
    assert not page.evaluate("(command) => window.jupyterapp.commands.isToggled(command)", SAVE_WIDGET_STATE), \
        f"{notebook}: opened with widget state saving on (the server's user settings must turn it off)"
    assert not seen["dirty"], f"{notebook}: opening it marked it modified (run notebooks/normalize.py)"
    return seen["expected"]


def shown(cell, move: Move) -> str:
    return cell.evaluate(SHOWN, move.watch)


def digest(text: str) -> str:
    """What the screen showed, short enough for a message: the text, and a hash for the images."""
    words = re.sub(r"data:image/\S+", lambda m: f"<image {hashlib.sha1(m[0].encode()).hexdigest()[:8]}>", text)
    return words if len(words) < 700 else words[:700] + "…"


CONTROLS = {"slider": ".widget-slider", "menu": ".widget-dropdown", "text": ".widget-text, .widget-textarea"}


def control_in(page, notebook: str, move: Move):
    """The cell of the move, and the control in it labelled `move.slider`."""
    cells = page.locator(".jp-CodeCell")
    cell = cells.filter(has_text=move.code) if move.code else cells.filter(has=page.locator(move.has))
    assert cell.count() == 1, f"{notebook}: expected one cell with {move.code or move.has}, found {cell.count()}"
    label = page.locator(".widget-label", has_text=re.compile(rf"^{re.escape(move.slider)}$"))
    control = cell.locator(CONTROLS[move.control]).filter(has=label)
    assert control.count() == 1, f"{notebook}: expected one {move.control} labelled {move.slider!r} in the cell"
    return cell, control


def control_value(control, move: Move) -> str:
    """What the control shows: a slider's readout, a menu's chosen option, a text box's text."""
    if move.control == "slider":
        return control.locator(".widget-readout").inner_text()
    if move.control == "menu":
        return control.locator("select").evaluate("s => s.options[s.selectedIndex].text").replace("\xa0", " ")
    return control.locator("input, textarea").input_value()


def operate(control, move: Move) -> str:
    """Move the control; returns the value chosen (a menu's option label, the text typed, or "")."""
    if move.control == "slider":
        handle = control.locator(".noUi-handle")
        handle.focus()
        for _ in range(move.presses):
            handle.press(move.key)
        return ""
    if move.control == "menu":
        select = control.locator("select")
        chosen = select.select_option(label=move.value.replace(" ", "\xa0")) if move.value else \
            select.select_option(index=move.presses)
        label = select.evaluate("(s, v) => [...s.options].find(o => o.value === v).text", chosen[0])
        return label.replace("\xa0", " ")  # ipywidgets shows a menu's spaces as no-break spaces
    box = control.locator("input, textarea")
    box.fill(move.value)
    box.press("Enter" if move.control == "text" and box.evaluate("e => e.tagName") == "INPUT" else "End")
    return move.value


def move_slider(page, notebook: str, move: Move):
    """Move the control; wait until what the cell shows changed (a refused move: until the status says why) and
    settled, then check the control, the kernel and the status. Returns the cell."""
    cell, control = control_in(page, notebook, move)
    cell.scroll_into_view_if_needed()
    start, before = control_value(control, move), shown(cell, move)
    assert before.strip(), f"{notebook}: {move.what} is not on screen before {move.slider} moves"
    chosen = operate(control, move)
    deadline, last, steady = time.monotonic() + 60, None, 0

    def done(now: str) -> bool:
        if move.refused:
            return move.refused in cell.locator(move.status).inner_text()
        return now != before

    while time.monotonic() < deadline:  # changed, and the same for STEADY polls with the kernel idle
        time.sleep(POLL)
        now = shown(cell, move)
        idle = page.evaluate(f"() => {APP}.sessionContext.session.kernel.status") == "idle"
        steady = steady + 1 if now == last and done(now) and idle else 0
        last = now
        if steady >= STEADY:
            break
    end = control_value(control, move)
    if move.refused:
        message = cell.locator(move.status).inner_text().strip()
        assert move.refused in message, f"{notebook}: after {move.slider} moved, expected a refusal; the status " \
                                        f"says: {message!r}"
        assert end == start, f"{notebook}: {move.slider} was refused but shows {end}, not the pipeline's {start}"
        assert last == before, f"{notebook}: a refused {move.slider} changed {move.what}:\n{digest(last)}"
        assert steady >= STEADY, f"{notebook}: {move.what} kept changing for 60 s after {move.slider} was refused"
    else:
        assert end != start, f"{notebook}: moving {move.slider} ({move.control}) left it at {start}"
        assert last != before, (f"{notebook}: after {move.slider} moved from {start} to {end}, expected {move.what} "
                                f"to change on screen; it still shows:\n{digest(last)}")
        assert steady >= STEADY, f"{notebook}: {move.what} kept changing for 60 s after {move.slider} moved to {end}"
    if move.kernel:  # the control reached the pipeline in the kernel (a refused one: the pipeline kept its value)
        value = page.evaluate(EXECUTE, f"print({move.kernel})")
        if move.expect is not None:
            assert value == move.expect, f"{notebook}: after {move.slider} moved, {move.kernel} is {value}"
        elif move.control == "slider":
            assert re.fullmatch(r"-?[\d.]+(e-?\d+)?", value) and abs(float(value) - float(end)) < 1e-6, (
                f"{notebook}: the slider {move.slider} shows {end}, but the kernel's {move.kernel} is {value}")
        else:
            assert value == end, f"{notebook}: {move.slider} shows {end}, but the kernel's {move.kernel} is {value}"
    if move.status and not move.refused:
        message = cell.locator(move.status).inner_text().strip()
        assert not message, f"{notebook}: after {move.slider} moved to {end} the widget says: {message}"
    if move.shows:  # what the kernel computes for the value chosen is what the screen shows
        expected = page.evaluate(EXECUTE, move.shows.format(value=chosen)).splitlines()
        assert len(expected) > 1, f"{notebook}: the check {move.shows!r} printed {expected}"
        missing = [line for line in expected if line not in last]
        assert not missing, (f"{notebook}: after {move.slider} chose {chosen!r}, {move.what} lack {missing}; "
                             f"they show:\n{digest(last)}")
    return cell


def watch_errors(page) -> tuple[list[str], Callable[[], None]]:
    """The list that collects the page's console errors and uncaught exceptions from now on, and the function
    that stops collecting (the page serves the next test too)."""
    problems: list[str] = []

    def console(message):
        if message.type == "error":
            problems.append(f"console {message.type}: {message.text}")

    def error(exception):
        problems.append(f"page error: {exception}")

    page.on("console", console)
    page.on("pageerror", error)

    def stop() -> None:
        page.remove_listener("console", console)
        page.remove_listener("pageerror", error)

    return problems, stop


@pytest.mark.parametrize("case", CASES, ids=[case.notebook.removesuffix(".ipynb") for case in CASES])
def test_sliders_redraw_the_widgets_in_a_browser(case, lab, pages, tmp_path, request):
    """Pictures before running, then Run All, every widget drawn live, each move redraws its widget and reaches
    the kernel; closing the notebook logs no error either."""
    if not sessions_of(lab, case.notebook):  # not started while the previous notebook ran (the first, or -k)
        start_kernel(lab, case.notebook).join()
    following = next_notebook(request)
    if following:
        start_kernel(lab, following)
    page, passed = pages.get(), False
    (problems, stop_watching), cells, clock = watch_errors(page), [], [time.monotonic()]
    try:
        open_notebook(page, lab, case.notebook, in_place=True)
        if check_pictures(page, case.notebook):
            page.locator(".jp-CodeCell").filter(has_text=CAPTION.split(":")[0]).first.screenshot(
                path=tmp_path / "before-running.png")
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
        page.screenshot(path=tmp_path / "page.png")
        if case.notebook == PLAYGROUND:
            reopen_after_saving(page, lab, case.notebook)
        close_notebook(page, lab, case.notebook)  # an error while it closes is this notebook's, not the next one's
        assert not problems, f"{case.notebook}: errors in the browser on closing it:\n" + "\n".join(problems[:10])
        steps = ", ".join(f"{name} {b - a:.0f} s" for name, a, b in
                          zip(["opened", "Run All", f"{len(case.moves)} slider moves"], clock[:-1], clock[1:],
                              strict=True))
        print(f"{case.notebook}: {steps}; screenshots in {tmp_path}")
        passed = True
    finally:
        stop_watching()
        if not passed:  # what the page showed last; the next notebook starts from a fresh page, not from this one
            with contextlib.suppress(Exception):
                page.screenshot(path=tmp_path / "page.png")
            pages.drop()
            with contextlib.suppress(OSError):
                for session in sessions_of(lab, case.notebook):
                    api(f"{lab.url}/api/sessions/{session['id']}", method="DELETE")


SAVE_WIDGET_STATE = "@jupyter-widgets/jupyterlab-manager:saveWidgetState"  # the setting make lab turns on


def save_widget_state(page, on: bool) -> None:
    """Turn JupyterLab's "Save Widget State Automatically" on or off in the page (the server starts with it off:
    with it on, restoring a notebook's saved widgets marks the notebook modified, which `check_pictures` forbids
    for what normalize.py writes)."""
    page.evaluate("async ([command, on]) => { const c = window.jupyterapp.commands;"
                  " if (c.isToggled(command) !== on) await c.execute(command); }", [SAVE_WIDGET_STATE, on])
    page.wait_for_function("([command, on]) => window.jupyterapp.commands.isToggled(command) === on",
                           arg=[SAVE_WIDGET_STATE, on])


def reopen_after_saving(page, lab: Lab, notebook: str) -> None:
    """A learner's notebook saved with live widgets (JupyterLab autosaves it), closed, its kernel stopped, then
    opened again: with widget state saved, as `make lab` sets it, every widget shows, and none as "Error
    displaying widget: model not found" (what a learner saw before)."""
    save_widget_state(page, True)
    try:
        save_and_reopen(page, lab, notebook)
    finally:
        save_widget_state(page, False)


def save_and_reopen(page, lab: Lab, notebook: str) -> None:
    """Save the notebook shown, close it, wait for its kernel to stop, open it again and look at its widgets."""
    page.evaluate(f"() => {APP}.context.save()")
    page.wait_for_function(f"() => !{APP}.context.model.dirty", timeout=30_000)
    close_notebook(page, lab, notebook)
    deadline = time.monotonic() + 30
    while sessions_of(lab, notebook) and time.monotonic() < deadline:
        time.sleep(POLL)
    open_notebook(page, lab, notebook, in_place=True)
    time.sleep(2)  # the saved widget state is restored as the notebook opens
    shown = page.evaluate(f"() => {APP}.node.innerText")
    assert "Error displaying widget" not in shown, f"{notebook} reopened after a save: a widget shows an error"
    assert page.locator(METRICS).count() > 0 and page.locator(METRICS).first.is_visible(), \
        f"{notebook} reopened after a save: the playground's metrics table is not shown"


def sessions_of(lab: Lab, notebook: str) -> list[dict]:
    """The server's kernel sessions of the notebook."""
    return [session for session in api(f"{lab.url}/api/sessions") or [] if session["path"].endswith(notebook)]


def next_notebook(request) -> str | None:
    """The notebook of the next selected browser test, if any (with -k, not simply the next in CASES): the next
    case's, or after the last case the judging test's."""
    items, judging = request.session.items, test_judging_a_folder_of_your_own_in_the_browser
    for item in items[items.index(request.node) + 1:]:
        if item.path != request.node.path:  # the session also holds other files' items, notebook cells
            continue
        kind = getattr(item, "originalname", None)
        if kind == request.node.originalname and hasattr(item, "callspec"):
            return item.callspec.params["case"].notebook
        if kind == judging.__name__:
            return JUDGED
    return None


def close_notebook(page, lab: Lab, notebook: str) -> None:
    """Close the notebook in the page (no save prompt) and stop its kernel in the background (the server takes
    about a second); give the page a moment to log errors."""
    page.evaluate("() => { for (const w of [...window.jupyterapp.shell.widgets('main')]) w.dispose(); }")

    def stop() -> None:
        with contextlib.suppress(OSError):
            for session in sessions_of(lab, notebook):
                api(f"{lab.url}/api/sessions/{session['id']}", method="DELETE")

    threading.Thread(target=stop, daemon=True).start()
    time.sleep(0.25)


def photograph(page, cell, until: str, path: Path) -> None:
    """A screenshot of the cell, down to the bottom of the element `until` inside it (all of it: "")."""
    if not until:
        cell.screenshot(path=path)
        return
    cell.evaluate("node => node.scrollIntoView({block: 'start'})")
    top, end = cell.bounding_box(), cell.locator(until).bounding_box()
    page.screenshot(path=path, clip={"x": top["x"], "y": top["y"], "width": top["width"],
                                     "height": end["y"] + end["height"] - top["y"]})


# Notebook 12's judging widget on a folder of your own: a documentation folder as a repository holds it
# (`tests/own_folder.py`: subfolders, YAML front matter, HTML, a PDF, three files it cannot load), labelled in the
# browser: the files not loaded are named, a query gets its type from the menu, its pool is judged by keyboard
# (one quote selected), a second judge's contradicting verdict is shown and replaced, a query is marked not
# answered in these documents, and after the page and the kernel start again the widget resumes at the next
# unjudged passage; the eval command then scores the folder, refusal included. It runs after the cases, in the
# same JupyterLab and page (a file of its own would run on another pytest-xdist worker, with a server, a browser
# and a JupyterLab start-up of its own). The server serves notebook 12's title, its `FOLDER` line (pointed at the
# folder), its setup and its judging widget; ragkit's cache folder is the server's own (`lab`). The selection is
# made as a reader's drag leaves it: a range over the passage's words, then the mouse button released over it.

JUDGED = "12_your_own_data.ipynb"
JUDGING_WIDGET = "judging(pipe.using()"  # the cell with the judging widget
JUDGING_FOLDER = 'FOLDER = Path("../data/demo-handbook")'  # the notebook's one line that names the folder
JUDGING_SETUP = "IS_DEMO = "  # the setup cell: the browser gets the title, the folder line, it and the widget
OWN_FOLDER = "lumen-docs"  # built by the test in the served data folder
PORT_QUERY, LEAVE_QUERY = "which port does the server listen on", "how many days of leave carry over"
NOT_ANSWERED = "does lumen run on windows xp"
SELECT_QUOTE = """sentence => {
  const text = document.querySelector('.ragkit-judging .ragkit-judging-text');
  const start = text.textContent.indexOf(sentence);
  const range = document.createRange();
  range.setStart(text.firstChild, start);
  range.setEnd(text.firstChild, start + sentence.length);
  window.getSelection().removeAllRanges();
  window.getSelection().addRange(range);
  text.dispatchEvent(new MouseEvent('mouseup', {bubbles: true}));
}"""


def judging_slice() -> dict:
    """Notebook 12 as the browser gets it: the title, the folder line (the test's folder), the setup and the widget."""
    notebook = json.loads((ROOT / "notebooks" / JUDGED).read_text(encoding="utf-8"))
    notebook["cells"] = [cell for number, cell in enumerate(notebook["cells"]) if number == 0 or any(
        mark in "".join(cell["source"]) for mark in (JUDGING_FOLDER, JUDGING_SETUP, JUDGING_WIDGET))]
    folder_cell = next(cell for cell in notebook["cells"] if JUDGING_FOLDER in "".join(cell["source"]))
    folder_cell["source"] = [line.replace(JUDGING_FOLDER, f'FOLDER = Path("../data/{OWN_FOLDER}")')
                             for line in folder_cell["source"]]
    return notebook


def judging_shows(page, part: str) -> str:
    """What the judging widget's `part` (text, progress, ...) shows."""
    return page.locator(f".ragkit-judging .ragkit-judging-{part}").first.inner_text()


def wait_until_changed(page, part: str, before: str, what: str) -> str:
    """Wait until the judging widget's `part` shows something other than `before`; returns it."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        now = judging_shows(page, part)
        if now != before:
            return now
        time.sleep(0.1)
    pytest.fail(f"{what}: the {part} line still shows {before!r} after 30 s")


def wait_for_message(page, pattern: str) -> str:
    """Wait until the widget's message line matches the regular expression `pattern`; returns the line."""
    page.wait_for_function("p => new RegExp(p).test(document.querySelector('.ragkit-judging-message').innerText)",
                           arg=pattern, timeout=30_000)
    return judging_shows(page, "message")


def records(path: Path, query: str) -> list[dict]:
    """The records of a JSON-lines file that belong to the query (by `query`, or a query's own `id`)."""
    lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    return [record for record in map(json.loads, lines) if record.get("query", record.get("id")) == query]


def ask(page, text: str) -> None:
    """Type a query in the widget and press Enter; wait for its pool's first passage."""
    box = page.locator(".ragkit-judging .ragkit-judging-query input")
    box.fill(text)
    box.press("Enter")
    page.wait_for_function(f"() => /{re.escape(text)}/i.test(document.querySelector('.ragkit-judging-shown')"
                           ".innerText) && /passage 1 of/.test(document.querySelector('.ragkit-judging-passage')"
                           ".innerText)", timeout=60_000)


def answering_line(passage: str, words: str) -> str | None:
    """The passage's line that holds `words` (to select as the quote), if any."""
    return next((line.strip() for line in passage.splitlines() if words in line and passage.count(line.strip()) == 1
                 and len(line.strip()) >= 20), None)


def judge_by_key(page, answer: str, limit: int = 30) -> list[str]:
    """Judge the pool shown by keyboard: the line holding `answer` is selected and answers, the rest do not."""
    keys, judged = page.locator(".ragkit-judging .ragkit-judging-keys"), []
    while "nothing left to judge" not in judging_shows(page, "passage") and len(judged) < limit:
        passage, progress = judging_shows(page, "text"), judging_shows(page, "progress")
        quote, key = answering_line(passage, answer), "n"
        if quote:
            page.evaluate(SELECT_QUOTE, quote)
            page.wait_for_function("s => document.querySelector('.ragkit-judging-quote textarea').value === s",
                                   arg=quote)
            wait_for_message(page, r"quote: \d+ characters")
            key = "a"
        keys.click()
        page.keyboard.press(key)
        wait_until_changed(page, "progress", progress, f"pressing {key} on passage {len(judged) + 1}")
        judged.append(key)
    return judged


def test_judging_a_folder_of_your_own_in_the_browser(lab, pages, tmp_path):
    """A nested documentation folder labelled through the widget: files not loaded named, a type set, a pool
    judged by keyboard, a disagreement with another judge resolved, a query marked not answered, a reload
    resumed, every verdict in the folder's files and journal, and the eval command scoring it, refusal included."""
    from own_folder import SKIPPED, build_folder

    from ragkit import Pipeline, load_documents
    from ragkit.cli import main
    from ragkit.labels.verdicts import record_verdict, replay_journal

    served_cells = json.loads((lab.course / "notebooks" / JUDGED).read_text(encoding="utf-8"))["cells"]
    assert len(served_cells) == 4, "the title, the folder line, the setup and the widget"
    folder = build_folder(lab.course / "data" / OWN_FOLDER)
    page, passed = pages.get(), False
    (problems, stop_watching), clock = watch_errors(page), [time.monotonic()]
    try:
        open_notebook(page, lab, JUDGED, in_place=True)  # its kernel started while the last case ran
        run_all(page, JUDGED)
        clock.append(time.monotonic())
        opening = wait_for_message(page, "not loaded")
        assert [f"corpus/{name}" in opening for name in SKIPPED] == [True] * 3, opening

        page.locator(".ragkit-judging .ragkit-judging-type select").select_option("keyword")
        ask(page, PORT_QUERY)
        assert "q-001 (" in judging_shows(page, "shown") and "keyword" in judging_shows(page, "shown")
        verdicts = judge_by_key(page, "8642")
        assert verdicts.count("a") == 1, verdicts
        port = records(folder / "queries.jsonl", "q-001")[0]
        assert port["type"] == "keyword" and [e["judge"] for e in port["evidence"]] == ["you"]
        assert "8642" in port["evidence"][0]["quote"] and port["evidence"][0]["doc"] == "reference/api"

        ask(page, LEAVE_QUERY)  # another judge records a verdict on the passage this widget shows
        shown = judging_shows(page, "text")
        unit = next(u for u in Pipeline(load_documents(folder / "corpus")).chunks if u.text.split() == shown.split())
        theirs = "does not answer" if "carry over" in shown else "answers"
        record_verdict(folder, {"id": "q-002"}, unit.doc_id, unit.start, unit.end, theirs, "Ana",
                       next(line.strip() for line in unit.text.split("\n") if len(line.strip()) >= 20))
        mine = answering_line(shown, "carry over")
        if mine:
            page.evaluate(SELECT_QUOTE, mine)
            wait_for_message(page, r"quote: \d+ characters")
        page.locator(".ragkit-judging .ragkit-judging-keys").click()
        page.keyboard.press("a" if mine else "n")
        said = wait_for_message(page, "a disagreement: Ana judged it")
        assert ("no" if mine else "yes") in said, said
        page.locator(".ragkit-judging .ragkit-judging-replace").click()
        wait_for_message(page, "replacing Ana")
        assert records(folder / "verdicts.jsonl", "q-002")[-1]["resolution"] == "replace"
        next_passage, progress = judging_shows(page, "text"), judging_shows(page, "progress")

        ask(page, NOT_ANSWERED)
        page.locator(".ragkit-judging .ragkit-judging-unanswered").click()
        wait_for_message(page, "q-003 marked not answered in these documents")
        assert records(folder / "queries.jsonl", "q-003")[0]["type"] == "unanswerable"
        clock.append(time.monotonic())

        for session in sessions_of(lab, JUDGED):  # the kernel stops; a new one starts
            api(f"{lab.url}/api/sessions/{session['id']}", method="DELETE")
        page.reload()  # JupyterLab put the notebook in the page's address: the reloaded page opens it again
        wait_until_open(page, lab, JUDGED)
        run_all(page, JUDGED)
        clock.append(time.monotonic())
        page.wait_for_function("() => /q-002/.test(document.querySelector('.ragkit-judging-shown').innerText)")
        assert judging_shows(page, "text") == next_passage, "reopened, it resumes the answerable query left unjudged"
        assert judging_shows(page, "progress") == progress
        assert not problems, "errors in the browser:\n" + "\n".join(problems[:10])

        replay_journal(folder, tmp_path / "replayed")
        for name in ("queries.jsonl", "judgments.jsonl", "verdicts.jsonl"):
            assert (tmp_path / "replayed" / name).read_bytes() == (folder / name).read_bytes(), name
        result = tmp_path / "eval.json"
        with open(result, "w") as out, contextlib.redirect_stdout(out):
            assert main(["eval", "--data", str(folder), "--method", "hybrid", "--split", "all", "--json"]) == 0
        scored = json.loads(result.read_text().splitlines()[-1])
        answered = sum(bool(records(folder / "queries.jsonl", query)[0]["evidence"]) for query in ("q-001", "q-002"))
        assert (scored["refusal"]["unanswerable"], scored["refusal"]["queries"]) == (1, answered + 1), \
            "refusal is scored on the answered queries and the one marked not answered (not on one still judged)"
        assert [line.split(": ")[1] for line in scored["warnings"]] == [f"corpus/{name}" for name in SKIPPED]
        steps = ", ".join(f"{name} {b - a:.0f} s" for name, a, b in zip(
            ["opened and ran", "labelled three queries", "restarted and ran again"], clock, clock[1:], strict=False))
        print(f"{JUDGED}: {steps}")
        passed = True
    finally:
        stop_watching()
        with contextlib.suppress(Exception):
            page.screenshot(path=tmp_path / "page.png")
        if not passed:  # the next test of this module, if any, starts from a fresh page
            pages.drop()
        with contextlib.suppress(OSError):
            for session in sessions_of(lab, JUDGED):
                api(f"{lab.url}/api/sessions/{session['id']}", method="DELETE")
