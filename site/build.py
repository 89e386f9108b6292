"""Build the course website (`make site`): stage the committed notebooks and the README, then run Jupyter Book.

The site is a Jupyter Book 1 (Sphinx, MyST-NB) built into site/_build/html, which git ignores. Nothing is
executed: every notebook page shows the outputs that are committed and that nbval checks, and each widget shows
the picture of its last state that notebooks/normalize.py stored beside it (site/_config.yml ranks that
text/html above the widget view, so no widget JavaScript is needed). notebooks/ and README.md are never
modified; this script writes a staging copy in site/_build/source:

- the home page, index.md, is README.md (so the README's first screen and the site's are the same), with its
  mermaid diagram shown as the picture committed in docs/diagrams/ (no diagram JavaScript: site/render_diagram.py
  drew it once, by hand, and recorded in it the SHA-256 of the mermaid source it was drawn from; a diagram whose
  source no committed picture was drawn from stays a text block, with a warning naming that script), its dollar
  amounts escaped (MyST would read the text between two of them as math), and its links checked one by one: links to notebooks,
  to the README's own sections and to the web stay; a link to a markdown file of the repository stays and that
  file becomes a page of the site's appendix, with the images it shows; a link to any other file of the
  repository (a .py module, a .jsonl file, a folder) keeps its text and loses the link, because the site has no
  page for it and names no repository host;
- the notebooks, in course order (the README's course map, `course_order`), each with a note under its title (the page is the notebook
  as CI checked it; its widgets, if any, are pictures; a link to the page on running it with `make lab`), with
  its solution cells (metadata
  `jupyter.source_hidden`, set by normalize.py) tagged `hide-cell`, so they are folded until clicked, its
  markdown cells' attachments as image files (MyST-NB does not read attachments), and without the widgets'
  saved state (only widget JavaScript would read it);
- the pages in site/ (run.md), site/_config.yml, and site/_toc.yml with an "Appendix" part appended: the
  benchmark results and data sheets (APPENDIX) and any other markdown file the staged pages link to.

A file is rewritten only when its staged content changes, so a second build re-reads only what changed. Left
out: executing notebooks, a PDF, live widgets (Binder, thebe), and any page for files that are not markdown.

Usage: `python site/build.py` (prints the folder of the built site and the time it took).
"""

from __future__ import annotations

import copy
import json
import os
import re
import shutil
import sys
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
SITE = ROOT / "site"
OUT = SITE / "_build"
STAGE = OUT / "source"
HTML = OUT / "html"
STAMP = HTML / ".ragkit-site-built"  # written last: the site in HTML is complete and as new as this file
NOTEBOOKS = "notebooks/[0-9]*.ipynb"
APPENDIX = ["benchmarks/README.md", "benchmarks/results/*.md", "data/README.md", "data/llm/README.md"]
IMAGES = {".png", ".jpg", ".jpeg", ".gif", ".svg"}
DIAGRAMS = ROOT / "docs" / "diagrams"  # mermaid diagrams drawn by site/render_diagram.py, one SVG each
DRAWN_FROM = re.compile(r"mermaid source sha256: ([0-9a-f]{64})")  # what render_diagram.py records in the SVG
NOTE = (":::{{note}}\nThis page is the notebook as the course's CI executed and checked it{widgets}{solutions}. "
        "To {sliders}run the code yourself, [run the course on your machine]({run}) with `make lab`.\n:::")

FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})(.*)$")
CURRENCY = re.compile(r"(?<![\\$])\$(\d[\d,]*(?:\.\d+)?)(?=\s+[A-Za-z(]|[,.;:)](?:\s|$))", re.M)
LINK = re.compile(r"(!?)\[((?:[^\[\]]|\[[^\]]*\])*)\]\(<?([^)\s>]+)>?(\s+\"[^\"]*\")?\)")


def sources() -> list[Path]:
    """Every file the site is built from (notebooks, README, appendix pages and their images, site/): the built
    site is fresh when its stamp is newer than all of them."""
    files = sorted(ROOT.glob(NOTEBOOKS)) + [ROOT / "README.md"]
    files += [p for p in SITE.rglob("*") if p.is_file() and OUT not in p.parents and "__pycache__" not in p.parts]
    for pattern in APPENDIX:
        files += sorted(ROOT.glob(pattern))
    files += sorted((ROOT / "docs" / "screenshots").glob("*.png")) + sorted(DIAGRAMS.glob("*.svg"))
    files += [p for p in (ROOT / "benchmarks" / "results").glob("*") if p.suffix in IMAGES]
    return files


def course_order() -> list[str]:
    """The notebooks in course order: as the README's course map lists them (file names alone would put 04's
    measured part before its semantic one); a notebook the map leaves out follows, by name."""
    readme = (ROOT / "README.md").read_text()
    course_map = readme.split("\n## Course map", 1)[-1].split("\n## ", 1)[0]
    listed = list(dict.fromkeys(re.findall(r"\]\((notebooks/[0-9][^)#]*\.ipynb)\)", course_map)))
    names = [path.relative_to(ROOT).as_posix() for path in sorted(ROOT.glob(NOTEBOOKS))]
    return [name for name in listed if name in names] + [name for name in names if name not in listed]


def is_fresh() -> bool:
    """Whether site/_build/html holds a complete build newer than every source file."""
    return STAMP.exists() and STAMP.stat().st_mtime >= max(p.stat().st_mtime for p in sources())


def outside_code(text: str):
    """The markdown text in pieces, each with whether it is inside a fenced code block (links there stay)."""
    piece, fence, pieces = [], None, []
    for line in text.splitlines(keepends=True):
        match = FENCE.match(line)
        if match and (fence is None or (match.group(2)[0] == fence[0] and len(match.group(2)) >= len(fence)
                                         and not match.group(3).strip())):
            if fence is None:
                pieces.append(("".join(piece), False))
                piece, fence = [line], match.group(2)
            else:
                piece.append(line)
                pieces.append(("".join(piece), True))
                piece, fence = [], None
        else:
            piece.append(line)
    pieces.append(("".join(piece), fence is not None))
    return pieces


def mermaid_source(piece: str) -> str | None:
    """The diagram source of a fenced code block (`piece`, fences included) when it is a mermaid block: the lines
    between its fences, exactly as written. None for any other block."""
    lines = piece.splitlines(keepends=True)
    opening = FENCE.match(lines[0]) if lines else None
    if opening is None or opening.group(3).strip() != "mermaid":
        return None
    closed = len(lines) > 1 and FENCE.match(lines[-1]) is not None
    return "".join(lines[1:-1] if closed else lines[1:])


def mermaid_sources(text: str) -> list[str]:
    """The source of every mermaid block of the markdown `text`, in order."""
    return [source for piece, code in outside_code(text) if code and (source := mermaid_source(piece)) is not None]


def source_hash(source: str) -> str:
    """The SHA-256 (hex) of a mermaid source: what a picture drawn from it records."""
    import hashlib

    return hashlib.sha256(source.encode()).hexdigest()


def drawn_from(svg: Path) -> str | None:
    """The hash of the mermaid source that the committed picture `svg` records it was drawn from."""
    match = DRAWN_FROM.search(svg.read_text(errors="replace"))
    return match.group(1) if match else None


def diagrams() -> dict[str, Path]:
    """The committed diagram pictures by the hash of the mermaid source each was drawn from."""
    return {digest: svg for svg in sorted(DIAGRAMS.glob("*.svg")) if (digest := drawn_from(svg))}


def alt_text(source: str) -> str:
    """A description of a flowchart for its picture's alt text: each node's label, in order of appearance."""
    labels = {}
    for name, label in re.findall(r"(\w+)\[\"([^\"]*)\"\]", source):
        parts = [part.strip() for part in re.split(r"<br\s*/?>", label) if part.strip()]
        labels.setdefault(name, f"{parts[0]} ({', '.join(parts[1:])})" if len(parts) > 1 else " ".join(parts))
    return "Flowchart of how the package is laid out; its boxes, each with its module or folder: " + "; ".join(
        labels.values())


def currency(text: str) -> str:
    """`text` with each dollar amount ("$1.84 per million", "$2.05.") escaped, so that MyST's dollar math does
    not read the text between two amounts as a formula; math such as `$0.5$` or `$1 + $` stays, and so does
    anything inside inline code."""
    parts = re.split(r"(`+[^`]*`+)", text)
    return "".join(part if i % 2 else CURRENCY.sub(r"\\$\1", part) for i, part in enumerate(parts))


class Stager:
    """Collects the staged files (relative path -> bytes) and the markdown files still to stage."""

    def __init__(self) -> None:
        self.files: dict[str, bytes] = {}
        self.pages: list[str] = []  # appendix pages, in the order met
        self.unlinked: list[str] = []
        self.stale: list[str] = []  # mermaid blocks that no committed picture was drawn from
        self.drawn = diagrams()

    def rewrite(self, text: str, source: Path) -> str:
        """`text`, markdown from the repository file `source`, with its links made to work on the site."""

        def link(match: re.Match) -> str:
            bang, label, target = match.group(1), match.group(2), match.group(3)
            if re.match(r"^(#|[a-z][a-z0-9+.-]*:)", target, re.IGNORECASE):  # anchor, web, mailto, attachment
                return match.group(0)
            path, _, anchor = target.partition("#")
            resolved = (source.parent / path).resolve()
            if ROOT in resolved.parents and resolved.relative_to(ROOT).as_posix() in self.files:
                return match.group(0)  # staged already (a notebook's attachment)
            if ROOT not in resolved.parents or not resolved.is_file():
                return self.unlink(match, source, label, bang)
            relative = resolved.relative_to(ROOT).as_posix()
            if resolved == ROOT / "README.md":
                home = os.path.relpath(ROOT / "index.md", source.parent)
                return match.group(0).replace(f"({target}", f"({home}" + (f"#{anchor}" if anchor else ""), 1)
            if resolved.suffix == ".ipynb" and resolved in ROOT.glob(NOTEBOOKS):
                return match.group(0)
            if resolved.suffix == ".md":
                self.page(relative)
                return match.group(0)
            if resolved.suffix.lower() in IMAGES:
                self.files[relative] = resolved.read_bytes()
                return match.group(0)
            return self.unlink(match, source, label, bang)

        pieces = []
        for piece, code in outside_code(text):
            if code and (diagram := mermaid_source(piece)) is not None:
                piece = self.diagram(piece, diagram, source)
            pieces.append(piece if code else currency(LINK.sub(link, piece)))
        return "".join(pieces)

    def diagram(self, piece: str, diagram: str, source: Path) -> str:
        """The mermaid block `piece` of `source` as its committed picture (an image scaled to the page width, a
        link to its full size), staged beside the page like the markdown's images; a text block, the same
        source, when no committed picture was drawn from exactly this source."""
        svg = self.drawn.get(source_hash(diagram))
        if svg is None:
            self.stale.append(f"{source.relative_to(ROOT)}: a mermaid diagram that no picture in "
                              f"{DIAGRAMS.relative_to(ROOT)}/ was drawn from is shown as text: redraw it with "
                              f"site/render_diagram.py")
            return re.sub(r"^(\s*(?:`{3,}|~{3,}))mermaid\s*$", r"\1text", piece, count=1, flags=re.M)
        relative = svg.relative_to(ROOT).as_posix()
        self.files[relative] = svg.read_bytes()
        indent = FENCE.match(piece.splitlines()[0]).group(1)
        alt = alt_text(diagram).replace("\n", " ")
        lines = [f"```{{image}} {os.path.relpath(svg, source.parent)}", f":alt: {alt}", ":width: 100%",
                 ":class: ragkit-diagram", "```"]
        return "".join(f"{indent}{line}\n" for line in lines)

    def unlink(self, match: re.Match, source: Path, label: str, bang: str) -> str:
        self.unlinked.append(f"{source.relative_to(ROOT)}: {match.group(3)}")
        return "" if bang else label

    def page(self, relative: str) -> None:
        if relative not in self.pages:
            self.pages.append(relative)

    def stage(self) -> None:
        for name in ("_config.yml", "run.md"):
            self.files[name] = (SITE / name).read_bytes()
        for pattern in APPENDIX:  # first, so the appendix lists them in this order
            for path in sorted(ROOT.glob(pattern)):
                self.page(path.relative_to(ROOT).as_posix())
        self.files["index.md"] = self.rewrite((ROOT / "README.md").read_text(), ROOT / "README.md").encode()
        for screenshot in sorted((ROOT / "docs" / "screenshots").glob("*.png")):
            self.files[screenshot.relative_to(ROOT).as_posix()] = screenshot.read_bytes()
        for notebook in sorted(ROOT.glob(NOTEBOOKS)):
            self.files[notebook.relative_to(ROOT).as_posix()] = self.notebook(notebook)
        done = 0
        while done < len(self.pages):  # pages found while staging others are staged too
            relative = self.pages[done]
            self.files[relative] = self.rewrite((ROOT / relative).read_text(), ROOT / relative).encode()
            done += 1
        toc = yaml.safe_load((SITE / "_toc.yml").read_text())
        course = next(part for part in toc["parts"] if part["caption"] == "The course")
        course["chapters"] = [{"file": name.removesuffix(".ipynb")} for name in course_order()]
        toc["parts"].append({"caption": "Appendix: results and data sheets",
                             "chapters": [{"file": page.removesuffix(".md")} for page in self.pages]})
        self.files["_toc.yml"] = yaml.safe_dump(toc, sort_keys=False).encode()

    def notebook(self, path: Path) -> bytes:
        """The notebook as the site shows it: links rewritten, the note under its title, solutions folded."""
        notebook = json.loads(path.read_text())
        notebook["metadata"].pop("widgets", None)  # the widgets' saved state: only widget JavaScript reads it
        for cell in notebook["cells"]:
            if cell["cell_type"] == "markdown":
                cell["source"] = self.rewrite(self.attachments(cell, path), path)
            elif cell.get("metadata", {}).get("jupyter", {}).get("source_hidden"):
                tags = cell["metadata"].setdefault("tags", [])
                tags.extend(tag for tag in ["hide-cell"] if tag not in tags)
        widgets = sum("application/vnd.jupyter.widget-view+json" in output.get("data", {})
                      for cell in notebook["cells"] for output in cell.get("outputs", []))
        hidden = sum("hide-cell" in cell.get("metadata", {}).get("tags", []) for cell in notebook["cells"])
        note = {"cell_type": "markdown", "metadata": {}, "id": "ragkit-site-note", "source": NOTE.format(
            widgets="; each widget is a picture of its last state" if widgets else "",
            solutions=", and the worked solutions are folded until you click them" if hidden else "",
            sliders="move the sliders and " if widgets else "",
            run=os.path.relpath(ROOT / "run.md", path.parent))}
        title = next((i for i, cell in enumerate(notebook["cells"]) if cell["cell_type"] == "markdown"), -1)
        notebook["cells"].insert(title + 1, copy.deepcopy(note))
        return json.dumps(notebook, indent=1, ensure_ascii=False).encode()

    def attachments(self, cell: dict, path: Path) -> str:
        """The markdown cell's source with each `attachment:NAME` image staged as a file beside the notebook
        (MyST-NB does not read cell attachments) and its link pointing there."""
        import base64

        source = "".join(cell["source"])
        for name, data in cell.pop("attachments", {}).items():
            mime = next((m for m in data if m.startswith("image/")), None)
            if mime is None:
                continue
            staged = f"{path.stem}_{name}"
            self.files[f"{path.parent.relative_to(ROOT).as_posix()}/_attachments/{staged}"] = base64.b64decode(data[mime])
            source = source.replace(f"attachment:{name}", f"_attachments/{staged}")
        return source

    def write(self) -> None:
        """Make STAGE hold exactly the staged files, rewriting only those whose content changed."""
        STAGE.mkdir(parents=True, exist_ok=True)
        for relative, content in self.files.items():
            target = STAGE / relative
            if not target.exists() or target.read_bytes() != content:
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(content)
        for path in sorted(STAGE.rglob("*"), reverse=True):
            if path.is_file() and path.relative_to(STAGE).as_posix() not in self.files:
                path.unlink()
            elif path.is_dir() and not any(path.iterdir()):
                path.rmdir()


def build() -> Path:
    """Stage and build; returns the folder of the built site. Raises if Sphinx fails."""
    from jupyter_book.sphinx import build_sphinx

    started = time.perf_counter()
    stager = Stager()
    stager.stage()
    stager.write()
    for line in stager.unlinked:
        print(f"site: not a page of the site, shown as text: {line}")
    for line in stager.stale:
        print(f"site: warning: {line}")
    STAMP.unlink(missing_ok=True)
    result = build_sphinx(STAGE, HTML, path_config=str(STAGE / "_config.yml"), doctreedir=OUT / ".doctrees",
                          noconfig=True,
                          confoverrides={"external_toc_path": (STAGE / "_toc.yml").as_posix(), "latex_individualpages": False}, builder="html", quiet=True,
                          keep_going=True, jobs=1)
    if isinstance(result, Exception) or result:
        raise RuntimeError(f"the site build failed: {result}")
    shutil.copy2(STAGE / "_toc.yml", OUT / "_toc.yml")  # the toc as built, for reading
    STAMP.write_text("")
    print(f"site: built {HTML.relative_to(ROOT)}/index.html in {time.perf_counter() - started:.0f} s")
    return HTML


if __name__ == "__main__":
    sys.exit(0 if build() else 1)
