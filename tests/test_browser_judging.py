"""Notebook 12's judging widget in a real browser: judge ten passages by keyboard, select a quote, find the verdicts
in the folder's files, and resume at the next unjudged passage after the page and the kernel start again.

JupyterLab serves a temporary course folder: notebook 12's title, setup and judging widget, and the data with a
copy of the demo folder, so the shipped files are never touched; ragkit's cache folder (where the widget's
working copy of the demo lives) is temporary too. Chromium is Debian's, driven by Playwright, with the helpers of
`tests/test_browser.py`. The selection is made as a reader's drag leaves it: a range over the passage's words,
then the mouse button released over the passage.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import ROOT, stop_process_group
from test_browser import CHROMIUM, TOKEN, Lab, api, free_port, missing, open_notebook, run_all

NOTEBOOK = "12_your_own_data.ipynb"
WIDGET = "judging(pipe.using()"  # the cell with the judging widget
SETUP = "DEMO = Path("  # the cell that loads the demo folder: the browser gets the title, this cell and the widget
QUERY = "where are the spare laptops kept"
pytestmark = pytest.mark.skipif(bool(missing()) and not os.environ.get("CI"), reason=str(missing()))

SELECT = """sentence => {
  const text = document.querySelector('.ragkit-judging .ragkit-judging-text');
  const start = text.textContent.indexOf(sentence);
  const range = document.createRange();
  range.setStart(text.firstChild, start);
  range.setEnd(text.firstChild, start + sentence.length);
  window.getSelection().removeAllRanges();
  window.getSelection().addRange(range);
  text.dispatchEvent(new MouseEvent('mouseup', {bubbles: true}));
}"""


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    """A course folder for JupyterLab: notebook 12's setup and widget, the data with a copy of the demo folder."""
    folder = tmp_path_factory.mktemp("judging")
    course = folder / "course"
    (course / "notebooks").mkdir(parents=True)
    notebook = json.loads((ROOT / "notebooks" / NOTEBOOK).read_text(encoding="utf-8"))
    notebook["cells"] = [cell for number, cell in enumerate(notebook["cells"]) if number == 0
                         or any(mark in "".join(cell["source"]) for mark in (SETUP, WIDGET))]
    assert len(notebook["cells"]) == 3, "the title, the setup and the widget"
    (course / "notebooks" / NOTEBOOK).write_text(json.dumps(notebook, ensure_ascii=False), encoding="utf-8")
    (course / "data").mkdir()
    for entry in (ROOT / "data").iterdir():
        if entry.name == "demo-handbook":
            shutil.copytree(entry, course / "data" / entry.name)
        else:
            (course / "data" / entry.name).symlink_to(entry, target_is_directory=entry.is_dir())
    return folder


@pytest.fixture(scope="module")
def judging_lab(course):
    """JupyterLab from this environment on 127.0.0.1, serving the temporary course, with a temporary cache."""
    if missing():
        pytest.fail(f"in CI the browser test must run: {missing()}")
    settings = course / "settings" / "@jupyterlab" / "apputils-extension" / "notification.jupyterlab-settings"
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps({"fetchNews": "false", "checkForUpdates": False}))
    tracker = course / "settings" / "@jupyterlab" / "notebook-extension" / "tracker.jupyterlab-settings"
    tracker.parent.mkdir(parents=True)
    tracker.write_text(json.dumps({"windowingMode": "none"}))
    cache = course / "cache"  # the working copy goes here; the embeddings and jieba's dictionary are shared
    cache.mkdir()
    shared = Path(os.environ.get("RAGKIT_CACHE") or ROOT / ".cache")
    for name in ("embeddings", "jieba"):
        if (shared / name).is_dir():
            (cache / name).symlink_to(shared / name, target_is_directory=True)
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "RAGKIT_PROGRESS": "0",
           "HF_HUB_DISABLE_PROGRESS_BARS": "1", "RAGKIT_CACHE": str(cache),
           "JUPYTER_CONFIG_DIR": str(course / "config"), "JUPYTER_DATA_DIR": str(course / "share"),
           "JUPYTER_RUNTIME_DIR": str(course / "runtime")}
    port, log = free_port(), course / "lab.log"
    command = [sys.executable, "-m", "jupyter", "lab", "--no-browser", "--allow-root", f"--port={port}",
               "--ServerApp.port_retries=0", "--ServerApp.ip=127.0.0.1", f"--ServerApp.token={TOKEN}",
               f"--ServerApp.root_dir={course / 'course'}", "--LabApp.extension_manager=readonly",
               "--LabApp.news_url=None", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
               "--LabApp.expose_app_in_browser=True", f"--LabApp.user_settings_dir={course / 'settings'}",
               f"--LabApp.workspaces_dir={course / 'workspaces'}"]
    with log.open("w") as output:
        server = subprocess.Popen(command, cwd=course / "course", env=env, stdout=output, stderr=subprocess.STDOUT,
                                  start_new_session=True)
    try:
        url = f"http://127.0.0.1:{port}"
        for _ in range(240):
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
def chromium():
    from playwright.sync_api import sync_playwright

    args = ["--disable-dev-shm-usage"] + (["--no-sandbox"] if os.geteuid() == 0 else [])  # root: no sandbox
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=args, timeout=60_000)
        yield browser
        browser.close()


def shown(page, name: str) -> str:
    return page.locator(f".ragkit-judging .ragkit-judging-{name}").first.inner_text()


def wait_for_change(page, name: str, before: str, what: str) -> str:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        now = shown(page, name)
        if now != before:
            return now
        time.sleep(0.1)
    pytest.fail(f"{what}: the {name} line still shows {before!r} after 30 s")


def records(path: Path, query: str) -> list[dict]:
    lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    return [record for record in map(json.loads, lines) if record.get("query", record.get("id")) == query]


def test_judging_by_keyboard_writes_the_files_and_resumes_after_a_restart(judging_lab, course, chromium, tmp_path):
    page = chromium.new_page(viewport={"width": 1280, "height": 1400})
    page.set_default_timeout(30_000)
    problems, clock = [], [time.monotonic()]
    page.on("console", lambda m: problems.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
    page.on("pageerror", lambda error: problems.append(f"page error: {error}"))
    copy = course / "cache" / "own-data" / "demo-handbook"  # the widget's working copy of the demo folder
    try:
        open_notebook(page, judging_lab, NOTEBOOK)
        run_all(page, NOTEBOOK)
        clock.append(time.monotonic())
        box = page.locator(".ragkit-judging .ragkit-judging-query input")
        box.fill(QUERY)
        box.press("Enter")
        page.wait_for_function("() => /passage 1 of/.test(document.querySelector('.ragkit-judging-passage')"
                               ".innerText)", timeout=60_000)
        keys, judged = page.locator(".ragkit-judging .ragkit-judging-keys"), []
        for number in range(10):
            passage, progress = shown(page, "text"), shown(page, "progress")
            judged.append(passage)
            key = "n"
            if number == 2:  # select a line from the middle of the passage (not its overlap with a neighbour)
                lines = [line.strip() for line in passage.splitlines()
                         if len(line.strip()) >= 30 and passage.count(line.strip()) == 1]
                sentence = min(lines, key=lambda line: abs(passage.index(line) - len(passage) / 2))
                page.evaluate(SELECT, sentence)
                page.wait_for_function("s => document.querySelector('.ragkit-judging-quote textarea').value === s",
                                       arg=sentence)
                page.wait_for_function("() => /quote: \\d+ characters/.test("
                                       "document.querySelector('.ragkit-judging-message').innerText)")
                quote, key = sentence, "a"
            keys.click()
            page.keyboard.press(key)
            wait_for_change(page, "progress", progress, f"pressing {key} on passage {number + 1}")
        next_passage, progress = shown(page, "text"), shown(page, "progress")
        clock.append(time.monotonic())
        assert next_passage not in judged
        query = records(copy / "queries.jsonl", "q-001")
        assert len(query) == 1 and query[0]["text"] == QUERY
        assert [(e["quote"], e["origin"], e["judge"]) for e in query[0]["evidence"]] == [(quote, "pooled", "you")]
        assert len(records(copy / "judgments.jsonl", "q-001")) == 9
        assert [r["verdict"] for r in records(copy / "verdicts.jsonl", "q-001")] == ["no", "no", "yes"] + ["no"] * 7
        for name in ("queries.jsonl", "judgments.jsonl", "verdicts.jsonl"):
            assert (ROOT / "data" / "demo-handbook" / name).read_bytes() == \
                (course / "course" / "data" / "demo-handbook" / name).read_bytes(), "the demo folder is untouched"

        for session in api(f"{judging_lab.url}/api/sessions") or []:  # the kernel stops; a new one starts
            api(f"{judging_lab.url}/api/sessions/{session['id']}", method="DELETE")
        page.reload()
        open_notebook(page, judging_lab, NOTEBOOK)
        run_all(page, NOTEBOOK)
        clock.append(time.monotonic())
        page.wait_for_function("() => /q-001/.test(document.querySelector('.ragkit-judging-shown').innerText)")
        assert shown(page, "text") == next_passage, "reopened, the widget resumes at the next unjudged passage"
        assert shown(page, "progress") == progress
        assert not problems, "errors in the browser:\n" + "\n".join(problems[:10])
        steps = ", ".join(f"{name} {b - a:.0f} s" for name, a, b in zip(
            ["opened and ran", "pooled and judged 10", "restarted and ran again"], clock, clock[1:], strict=False))
        print(f"{NOTEBOOK}: {steps}")
    finally:
        with contextlib.suppress(Exception):
            page.screenshot(path=tmp_path / "page.png")
        page.close()
        with contextlib.suppress(OSError):
            for session in api(f"{judging_lab.url}/api/sessions") or []:
                api(f"{judging_lab.url}/api/sessions/{session['id']}", method="DELETE")
