"""HTML and PDF documents as text, by two well-kept libraries: Beautiful Soup and pypdf.

`html_text` reads a page with Beautiful Soup (Python's own `html.parser`, so no compiled parser is needed) and
keeps its main content (`<main>`, `<article>` or `role="main"` when the page has one: a documentation site's
menus and footers would otherwise sit in every page's chunks), drops scripts, styles and navigation, and writes
headings as markdown `#` lines and every block on its own line, so the structure chunker still sees sections.
`pdf_text` extracts each page's text with pypdf and joins the pages with a blank line. Both give (title, date,
text): the page's `<title>` (else its first `<h1>`) and a `date` meta tag; the PDF's title and creation date.
A file either library cannot read raises a `RagkitError` of one line. Left out: OCR (a scanned PDF has no text
layer: it is refused, with that reason), PDF layout (columns, tables) beyond what pypdf extracts, and
JavaScript-rendered pages.
"""

from __future__ import annotations

import re
from pathlib import Path

from ragkit.errors import RagkitError

DROPPED = ("script", "style", "noscript", "template", "svg", "nav", "footer", "form", "button")
BLOCKS = ("p", "div", "section", "article", "pre", "table", "ul", "ol", "blockquote", "dl", "dt", "dd", "tr",
          "figure", "header", "main", "aside")
DATE_METAS = ("date", "dcterms.date", "dc.date", "article:published_time", "last-modified")


def html_text(raw: str) -> tuple[str, str, str]:
    """(title, date, text) of an HTML page: its main content as lines, headings as `#` lines.

    >>> html_text("<html><title>Setup</title><nav>Home</nav><main><h1>Install</h1><p>Run\\n  make.</p></main>")
    ('Setup', '', '# Install\\n\\nRun make.')
    """
    from bs4 import BeautifulSoup, Comment

    soup = BeautifulSoup(raw, "html.parser")
    title = " ".join((soup.title.get_text() if soup.title else "").split())
    date = next((str(meta.get("content", ""))[:10] for meta in soup.find_all("meta")
                 if str(meta.get("name") or meta.get("property") or "").lower() in DATE_METAS), "")
    for tag in soup.find_all(DROPPED):
        tag.decompose()
    for comment in soup.find_all(string=lambda piece: isinstance(piece, Comment)):
        comment.extract()
    root = soup.find("main") or soup.find("article") or soup.find(attrs={"role": "main"}) or soup.body or soup
    for piece in root.find_all(string=True):  # white space in the source is layout, except inside <pre>
        if piece.find_parent("pre") is None:
            piece.replace_with(re.sub(r"\s+", " ", str(piece)))
    for tag in root.find_all(True):
        if tag.name in ("h1", "h2", "h3", "h4", "h5", "h6"):
            tag.insert_before(f"\n\n{'#' * int(tag.name[1])} ")
            tag.insert_after("\n\n")
        elif tag.name == "br":
            tag.replace_with("\n")
        elif tag.name == "li":
            tag.insert_before("\n- ")
        elif tag.name in BLOCKS:
            tag.insert_before("\n\n")
            tag.insert_after("\n\n")
        elif tag.name in ("td", "th"):
            tag.insert_after(" ")
    lines = [line.rstrip() if line.startswith(" " * 4) else line.strip() for line in root.get_text().split("\n")]
    text = re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()
    heading = re.search(r"^# (.+)$", text, flags=re.MULTILINE)
    return title or (heading.group(1).strip() if heading else ""), date, text


def pdf_text(path: str | Path) -> tuple[str, str, str]:
    """(title, date, text) of a PDF file: its metadata's title and creation date, and every page's text.

    >>> pdf_text("handbook.pdf")[0]  # doctest: +SKIP
    'Employee handbook'
    """
    import logging

    from pypdf import PdfReader

    quiet, logging.getLogger("pypdf").disabled = logging.getLogger("pypdf").disabled, True  # its warnings: ours
    try:
        reader = PdfReader(str(path))
        if reader.is_encrypted and not reader.decrypt(""):
            raise RagkitError(f"{path}: the PDF is encrypted: save it without a password first")
        text = "\n\n".join((page.extract_text() or "").strip() for page in reader.pages).strip()
        info = reader.metadata or {}
    except RagkitError:
        raise
    except Exception as error:  # pypdf raises many kinds on a damaged file; the reader needs only which file
        raise RagkitError(f"{path}: not a readable PDF ({type(error).__name__}: {error})") from None
    finally:
        logging.getLogger("pypdf").disabled = quiet
    if not text:
        raise RagkitError(f"{path}: the PDF has no text layer (a scanned document?): run OCR on it first")
    created = re.match(r"D:(\d{4})(\d{2})(\d{2})", str(info.get("/CreationDate") or ""))
    title = " ".join(str(info.get("/Title") or "").split())
    return title, "-".join(created.groups()) if created else "", text
