"""The course website (`make site`), opened page by page in headless Chromium with the network shut out.

The site is the one `make site` builds into site/_build/html: when that build is newer than every notebook,
the README and every file of site/ (site/build.py's `is_fresh`), the test reuses it (CI builds it just before
the tests); else it runs site/build.py first, into the same ignored folder. It serves the folder on 127.0.0.1
(Python's http.server in a thread) and opens every HTML page in Debian's chromium driven by Playwright, with a
route that aborts and records every request to a host other than 127.0.0.1. On every page: no console error,
no uncaught exception, no failed local request, no external request attempted, every image loaded, every
internal link (a page of the site, with its #anchor) resolving to a file and an element id, every math
element rendered by the site's own MathJax. On every notebook page: as many widget pictures
(`.ragkit-widget-picture`) as the notebook has widget outputs and no live widget view, and as many folded
solutions as the notebook has hidden cells, each one's code hidden until its toggle is clicked (the first
one is clicked and must then show). On the home page: the README's mermaid diagram as its committed picture,
loaded and scaled to the page. Last, a word typed into the search page's box must bring results.

Without a browser, and fast: the committed diagram picture (docs/diagrams/) records the hash of the README's
current mermaid source (else the README's diagram changed and site/render_diagram.py must redraw it), refers
to nothing outside itself, and site/build.py stages the picture in the diagram's place, or a text block and a
warning when the source changed.

Left out: links to other sites (never followed: a link is not a request until clicked), how the pages look
(no screenshot comparison), and the build's own speed (`make site` prints it).
"""

from __future__ import annotations

import functools
import html
import importlib.util
import itertools
import json
import os
import re
import subprocess
import sys
import threading
import time
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from helpers import ROOT, browser_missing, chromium

WIDGET = "application/vnd.jupyter.widget-view+json"
SEARCH_WORD = "reciprocal"  # reciprocal rank fusion: in notebook 06 and the README


def load_builder():
    """site/build.py as a module (site/ is not a package, and its name is the standard library's)."""
    spec = importlib.util.spec_from_file_location("ragkit_site_build", ROOT / "site" / "build.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


builder = load_builder()


def missing() -> str | None:
    if browser_missing():
        return browser_missing()
    if not builder.is_fresh() and importlib.util.find_spec("jupyter_book") is None:
        return "the site is not built and jupyter-book is missing: run `make site` (it installs the site extra)"
    return None


# in CI the browser and the site's packages must be there (.ci/run installs them): there a missing one fails
needs_site = pytest.mark.skipif(bool(missing()) and not os.environ.get("CI"), reason=str(missing()))


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002  (the base class's name)
        pass


@pytest.fixture(scope="module")
def site() -> Path:
    """The built site's folder: `make site`'s when it is fresh, else built now into the same folder."""
    if not builder.is_fresh():
        started = time.perf_counter()
        done = subprocess.run([sys.executable, str(ROOT / "site" / "build.py")], cwd=ROOT, capture_output=True,
                              text=True, timeout=600)
        assert done.returncode == 0, f"site/build.py failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
        print(f"built the site in {time.perf_counter() - started:.0f} s")
    assert builder.is_fresh()
    return builder.HTML


@pytest.fixture(scope="module")
def server(site):
    """The site served on 127.0.0.1 at a free port, until the module's tests end."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(QuietHandler, directory=str(site)))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


class Browser:
    """One headless page whose every request outside 127.0.0.1 is aborted and recorded."""

    def __init__(self, browser) -> None:
        self.context = browser.new_context()
        self.external: list[str] = []
        self.problems: list[str] = []
        self.context.route("**/*", self.route)
        self.page = self.context.new_page()
        self.page.on("console", lambda m: m.type == "error" and self.problems.append(f"console error: {m.text}"))
        self.page.on("pageerror", lambda e: self.problems.append(f"page error: {e}"))
        self.page.on("requestfailed", lambda r: urlsplit(r.url).hostname == "127.0.0.1"
                     and self.problems.append(f"request failed: {r.url} ({r.failure})"))
        self.page.on("response", lambda r: r.status >= 400
                     and self.problems.append(f"HTTP {r.status}: {r.url}"))

    def route(self, route) -> None:
        if urlsplit(route.request.url).hostname == "127.0.0.1":
            route.continue_()
        else:
            self.external.append(route.request.url)
            route.abort()



@pytest.fixture(scope="module")
def browser(server):
    with chromium() as opened:
        yield Browser(opened)


# In the page, once loaded: every image loaded (lazy ones made eager first), math typeset, the links, the
# widget pictures and views, and the folded solutions with whether their code shows.
LOOK = """async () => {
  const images = [...document.images];
  images.forEach(i => { i.loading = 'eager'; });
  await Promise.all(images.map(i => i.complete ? null : new Promise(r => { i.onload = i.onerror = r; })));
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) await MathJax.startup.promise;
  const maths = [...document.querySelectorAll('.math')];
  const folded = [...document.querySelectorAll('.cell.tag_hide-cell')];
  return {
    broken: images.filter(i => !i.complete || i.naturalWidth === 0).map(i => i.getAttribute('src').slice(0, 120)),
    images: images.length,
    links: [...document.querySelectorAll('a[href]')].map(a => a.href),
    maths: maths.length,
    unrendered: maths.filter(m => !m.querySelector('mjx-container')).map(m => m.textContent.slice(0, 80)),
    pictures: document.querySelectorAll('.ragkit-widget-picture').length,
    views: document.querySelectorAll('script[type="application/vnd.jupyter.widget-view+json"]').length,
    folded: folded.length,
    shown: folded.filter(c => c.querySelector('.cell_input').checkVisibility()).length,
    diagrams: [...document.querySelectorAll('img.ragkit-diagram')].map(i => ({
      src: i.getAttribute('src'), alt: i.alt, natural: i.naturalWidth, width: i.getBoundingClientRect().width,
      room: i.closest('article, main, body').getBoundingClientRect().width})),
    mermaidText: [...document.querySelectorAll('pre')].filter(p => p.textContent.trim().startsWith('flowchart')).length,
  };
}"""


def pages(site: Path) -> list[str]:
    """Every HTML page of the site, relative to its folder (the theme's own files left out)."""
    return sorted(p.relative_to(site).as_posix() for p in site.rglob("*.html")
                  if not p.relative_to(site).parts[0].startswith("_"))


def notebook_counts(name: str) -> tuple[int, int]:
    """The widget outputs and the hidden (solution) cells of notebooks/`name`.ipynb."""
    cells = json.loads((ROOT / "notebooks" / f"{name}.ipynb").read_text())["cells"]
    widgets = sum(WIDGET in output.get("data", {}) for cell in cells for output in cell.get("outputs", []))
    hidden = sum(bool(cell.get("metadata", {}).get("jupyter", {}).get("source_hidden")) for cell in cells)
    return widgets, hidden


@functools.cache
def ids(path: Path) -> frozenset[str]:
    text = path.read_text(errors="replace")
    return frozenset(html.unescape(m) for m in re.findall(r"""\s(?:id|name)=["']([^"']+)["']""", text))


def broken_link(site: Path, base: str, href: str) -> str | None:
    """Why the site-internal `href` does not resolve (None: it does, or it leads off the site)."""
    parts = urlsplit(href)
    if parts.scheme not in ("http", "https") or f"{parts.scheme}://{parts.netloc}" != base:
        return None
    path = site / unquote(parts.path).lstrip("/")
    if parts.path.endswith("/"):
        path = path / "index.html"
    if not path.is_file():
        return f"{href}: no such file"
    anchor = unquote(parts.fragment)
    if anchor and path.suffix == ".html" and anchor not in ids(path):
        return f"{href}: no element with id {anchor!r}"
    return None


def home_diagram_problems(look: dict) -> list[str]:
    """What is wrong with the README's diagram on the home page: it must be the committed picture (not the
    mermaid text), with an alt text, loaded, and scaled down to the width of the page's text."""
    expected = len(builder.mermaid_sources((ROOT / "README.md").read_text()))
    problems = []
    if len(look["diagrams"]) != expected or look["mermaidText"]:
        problems.append(f"index.html: {len(look['diagrams'])} diagram pictures and {look['mermaidText']} mermaid "
                        f"text blocks, expected {expected} pictures (the README's mermaid blocks) and no text")
    for diagram in look["diagrams"]:
        if not diagram["src"].endswith(".svg") or len(diagram["alt"]) < 40 or not diagram["natural"]:
            problems.append(f"index.html: the diagram picture is not a loaded SVG with an alt text: {diagram}")
        elif not 0 < diagram["width"] <= diagram["room"] + 1:
            problems.append(f"index.html: the diagram picture is wider than the page's text: {diagram}")
    return problems


def load_renderer():
    """site/render_diagram.py as a module (for its check of references outside the SVG; nothing is drawn)."""
    spec = importlib.util.spec_from_file_location("ragkit_render_diagram", ROOT / "site" / "render_diagram.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_diagram_picture_is_drawn_from_the_readme():
    """The README's mermaid block has a committed picture drawn from exactly its source: else the site would
    show the diagram as text (changing the diagram in the README needs a redraw and a commit of the SVG)."""
    sources = builder.mermaid_sources((ROOT / "README.md").read_text())
    drawn = builder.diagrams()
    assert sources, "README.md holds no mermaid block: the site has no diagram to show"
    for source in sources:
        assert builder.source_hash(source) in drawn, (
            f"the README's mermaid diagram changed since its picture was drawn (recorded: "
            f"{sorted(drawn) or 'no picture in docs/diagrams/'}; README: {builder.source_hash(source)}): redraw it "
            f"with `python site/render_diagram.py PATH/TO/mermaid.min.js` (see its docstring) and commit the SVG")


def test_the_diagram_pictures_are_self_contained():
    """Each committed diagram picture is well-formed SVG, sized, and refers to nothing outside itself: no URL
    but the SVG namespace (no web font, image or stylesheet), so the offline site shows it whole."""
    import xml.etree.ElementTree as ElementTree

    renderer = load_renderer()
    pictures = sorted(builder.DIAGRAMS.glob("*.svg"))
    assert pictures, f"no SVG in {builder.DIAGRAMS.relative_to(ROOT)}"
    for svg in pictures:
        text = svg.read_text()
        root = ElementTree.fromstring(text)
        assert root.tag == "{http://www.w3.org/2000/svg}svg" and root.get("viewBox") and root.get("width"), svg
        assert "http" not in renderer.NAMESPACE.sub("", text).lower(), f"{svg.name}: a URL other than the namespace"
        assert not renderer.external_references(text), (svg.name, renderer.external_references(text)[:5])
        assert "<foreignObject" not in text, f"{svg.name}: HTML labels, which an <img> of an SVG may not draw"


def test_the_site_stages_the_picture_only_for_the_source_it_was_drawn_from():
    """site/build.py puts the committed picture in the mermaid block's place, and stages the SVG; a changed
    source stays a text block and is reported with the script that redraws it."""
    readme = (ROOT / "README.md").read_text()
    source = builder.mermaid_sources(readme)[0]
    stager = builder.Stager()
    staged = stager.rewrite(readme, ROOT / "README.md")
    assert "```{image} docs/diagrams/" in staged and "```mermaid" not in staged and not stager.stale
    assert any(name.startswith("docs/diagrams/") and name.endswith(".svg") for name in stager.files)
    changed = builder.Stager()
    staged = changed.rewrite(readme.replace(source, source + "    extra --> box\n"), ROOT / "README.md")
    assert "```{image}" not in staged and "```text\nflowchart" in staged
    assert len(changed.stale) == 1 and "site/render_diagram.py" in changed.stale[0]


@needs_site
def test_the_notebooks_are_the_course_pages_in_order(site):
    """Every notebook is a page in the sidebar of the home page, in course order: the README's course map, which
    each notebook's "Next" link (where it has one) agrees with; and the run page is there."""
    course_map = (ROOT / "README.md").read_text().split("\n## Course map", 1)[1].split("\n## ", 1)[0]
    names = list(dict.fromkeys(re.findall(r"\(notebooks/([0-9][^)]*)\.ipynb\)", course_map)))
    assert sorted(names) == sorted(p.stem for p in (ROOT / "notebooks").glob("[0-9]*.ipynb")), \
        "the README's course map must list every notebook once"
    home = (site / "index.html").read_text()
    sidebar = home[:home.find('href="notebooks/')] + home[home.find('href="notebooks/'):].split("</nav>", 1)[0]
    positions = [sidebar.find(f'href="notebooks/{name}.html"') for name in names]
    assert all(p >= 0 for p in positions), [n for n, p in zip(names, positions, strict=True) if p < 0]
    assert positions == sorted(positions), "the sidebar does not list the notebooks in the course map's order"
    for here, after in itertools.pairwise(names):
        text = "".join("".join(cell["source"]) for cell in
                       json.loads((ROOT / "notebooks" / f"{here}.ipynb").read_text())["cells"])
        following = re.findall(r"\*\*Next\*\*[^\n]*?([0-9][0-9]_[a-z0-9_]+)\.ipynb", text)
        assert not following or following[0] == after, f"{here}'s Next is {following[0]}, the sidebar's {after}"
    assert 'href="run.html"' in home and "make lab" in re.sub(r"<[^>]+>", "", (site / "run.html").read_text())


@needs_site
def test_every_page_in_a_browser_offline(site, server, browser):
    """Each page: no console error, no external request, images loaded, internal links resolve, math typeset,
    widget pictures and folded solutions as many as in the notebook, and a solution unfolds when clicked."""
    page, failures, math_pages, opened = browser.page, [], 0, pages(site)
    assert len(opened) >= 30, opened
    for relative in opened:
        browser.problems.clear()
        browser.external.clear()
        page.goto(f"{server}/{relative}", wait_until="load")
        look = page.evaluate(LOOK)
        seen = [f"{relative}: {problem}" for problem in browser.problems]
        seen += [f"{relative}: a request outside 127.0.0.1: {url}" for url in browser.external]
        seen += [f"{relative}: image not loaded: {src}" for src in look["broken"]]
        seen += [f"{relative}: math not rendered: {text}" for text in look["unrendered"]]
        seen += [f"{relative}: link {why}" for href in look["links"]
                 if (why := broken_link(site, server, href))]
        math_pages += look["maths"] > 0
        if relative == "index.html":
            seen += home_diagram_problems(look)
        if relative.startswith("notebooks/"):
            widgets, hidden = notebook_counts(Path(relative).stem)
            if (look["pictures"], look["views"]) != (widgets, 0):
                seen.append(f"{relative}: {look['pictures']} widget pictures and {look['views']} live views, "
                            f"expected {widgets} pictures (the notebook's widget outputs) and no view")
            if (look["folded"], look["shown"]) != (hidden, 0):
                seen.append(f"{relative}: {look['folded']} folded solutions of which {look['shown']} show, "
                            f"expected {hidden} (the notebook's hidden cells), none showing")
            elif hidden:
                first = page.locator(".cell.tag_hide-cell").first
                first.locator("summary").click()
                if not first.locator(".cell_input").is_visible():
                    seen.append(f"{relative}: the first solution does not show when its toggle is clicked")
        failures += seen
    assert not failures, "\n".join(failures[:60])
    assert math_pages >= 5, f"only {math_pages} pages with math: MathJax may not have run"


@needs_site
def test_search_finds_a_word(server, browser):
    """A word typed into the search page's box lists pages that contain it (Sphinx's own index, no server)."""
    page = browser.page
    browser.problems.clear()
    browser.external.clear()
    page.goto(f"{server}/search.html", wait_until="load")
    box = page.locator("input[name='q']:visible").first
    box.fill(SEARCH_WORD)
    box.press("Enter")
    page.wait_for_url(re.compile(rf"search\.html\?q={SEARCH_WORD}"))
    page.wait_for_function("document.querySelectorAll('#search-results li').length > 0", timeout=30_000)
    results = page.locator("#search-results li").all_inner_texts()
    assert any("hybrid" in text.lower() for text in results), results[:10]
    assert not browser.problems, browser.problems
    assert not browser.external, browser.external
