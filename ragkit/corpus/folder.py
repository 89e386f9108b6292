"""A folder of documents as people keep them: subfolders, markdown with or without front matter, text, HTML, PDF.

`read_folder` walks a folder and its subfolders in sorted order and reads every file of a format in `FORMATS`
(`ragkit.corpus.convert` for HTML and PDF, `ragkit.corpus.markup` to clean markdown); each file it does not load
comes back as a `Skipped` with its reason: a format it cannot read, a file that is not UTF-8 text or not a
readable PDF, front matter that does not parse, no text. A document's id is its path under the folder without
the suffix (`guide/install`), with the suffix when two files differ only there (`faq.md`, `faq.txt`). Fields the
front matter lacks are derived (`derived_fields`) and named in the document's `derived`. Two documents with one
id (from front matter) stop the folder with one line naming the later file. Left out: Word and other office
formats, archives, fetching anything over the network, and hidden files and folders (`.git/`: named, not read).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from ragkit.corpus.convert import html_text, pdf_text
from ragkit.corpus.frontmatter import has_front_matter, parse_front_matter, without_bom
from ragkit.corpus.markup import clean_markup, first_heading
from ragkit.corpus.records import REQUIRED_FIELDS, Document
from ragkit.errors import RagkitError

FORMATS = {".md": "markdown", ".markdown": "markdown", ".mdx": "mdx", ".txt": "text", ".rst": "text",
           ".html": "html", ".htm": "html", ".pdf": "pdf"}


@dataclass(frozen=True)
class Skipped:
    """A file of the folder that was not loaded: its path under the folder and why."""

    path: str
    reason: str

    def __str__(self) -> str:
        return f"{self.path}: {self.reason}"


def derived_fields(path: Path, meta: dict, body: str, title: str = "", source: str = "",
                   doc_id: str = "") -> dict[str, str]:
    """The `REQUIRED_FIELDS` that `meta` lacks, derived: `id` the given one else the file's name without its suffix, `title` the
    given one (an HTML or PDF title) else the first `# ` heading outside code blocks else the name, `source` the
    given one else the folder's name, `date` a YYYY-MM-DD in the file's name (else '': undated, and a date filter
    leaves the document out), `lang` `zh` when a quarter or more of its letters are Chinese characters, else `en`.

    >>> derived_fields(Path("notes/2026-01-05-leave.txt"), {}, "```\\n# not this\\n```\\n# Annual leave\\nDays.")
    {'id': '2026-01-05-leave', 'title': 'Annual leave', 'source': 'notes', 'date': '2026-01-05', 'lang': 'en'}
    """
    dated = re.search(r"(?<!\d)(\d{4})-(\d{2})-(\d{2})(?!\d)", path.name)
    found = {"id": lambda: doc_id or path.stem,
             "title": lambda: title or first_heading(body) or path.stem.replace("-", " ").replace("_", " "),
             "source": lambda: source or path.parent.resolve().name or "own",
             "date": lambda: dated.group(0) if dated else "",
             "lang": lambda: "zh" if 4 * sum("\u4e00" <= c <= "\u9fff" for c in body) >= sum(
                 c.isalpha() for c in body) > 0 else "en"}
    return {name: found[name]() for name in REQUIRED_FIELDS if not meta.get(name)}  # only what is missing


def document_from_file(path: str | Path, derive: bool = False, doc_id: str = "", source: str = "") -> Document:
    """Read one document of a format in `FORMATS`; raise a `RagkitError` of one line naming the file on a
    problem. With `derive`, front matter is optional and a missing field is derived (`derived_fields`; `doc_id`
    and `source`, when given, are used for a missing id and source).

    >>> document_from_file("data/corpus/api-sessions-v2.md").source  # doctest: +SKIP
    'api-reference'
    """
    kind = FORMATS.get((path := Path(path)).suffix.lower())
    if kind is None:
        raise RagkitError(f"{path}: cannot read {path.suffix or 'a file without a suffix'}: ragkit reads "
                          f"{', '.join(FORMATS)}")
    title, meta, body = "", {}, ""
    try:
        if kind == "pdf":
            title, day, body = pdf_text(path)
            meta = {"date": day} if day else {}
        else:
            raw = without_bom(path.read_text(encoding="utf-8"))
            if kind == "html":
                title, day, body = html_text(raw)
                meta = {"date": day} if re.fullmatch(r"\d{4}-\d{2}-\d{2}", day) else {}
            elif derive and not has_front_matter(raw):
                body = raw
            else:
                meta, body, _ = parse_front_matter(raw, str(path))
    except UnicodeDecodeError as error:
        raise RagkitError(f"{path}: not UTF-8 text ({error.reason} at byte {error.start}): save it as UTF-8") from None
    except OSError as error:
        raise RagkitError(f"{path}: cannot read the document: {error.strerror or error}") from None
    if kind in ("markdown", "mdx"):
        body = clean_markup(body, jsx=kind == "mdx")
    if not body.strip():
        raise RagkitError(f"{path}: no text" + (" after its front matter" if meta else ""))
    derived = derived_fields(path, meta, body, title, source, doc_id) if derive else {}
    meta = {**meta, **derived}
    if missing := [name for name in REQUIRED_FIELDS if not meta.get(name) and not (derive and name == "date")]:
        raise RagkitError(f"{path}:1: front matter lacks {', '.join(missing)}")
    return Document(meta["id"], meta["title"], meta["source"], meta["date"], meta["lang"], body,
                    meta.get("version") or None, str(path), tuple(derived))


def document_ids(paths: list[Path]) -> dict[Path, str]:
    """Each relative path's id: the path without its suffix, or with it when another file differs only there.

    >>> document_ids([Path("faq.md"), Path("faq.txt"), Path("guide/install.md")])
    {PosixPath('faq.md'): 'faq.md', PosixPath('faq.txt'): 'faq.txt', PosixPath('guide/install.md'): 'guide/install'}
    """
    stems = [path.with_suffix("").as_posix() for path in paths]
    return {path: stem if stems.count(stem) == 1 else path.as_posix() for path, stem in zip(paths, stems, strict=True)}


def folder_files(folder: Path) -> tuple[list[Path], list[Skipped]]:
    """The files under `folder` (relative, sorted), and each hidden file or folder, which is named and not read."""
    files, hidden = [], []
    for top, subfolders, names in os.walk(folder):
        here = Path(top).relative_to(folder)
        hidden += [Skipped(f"{(here / name).as_posix()}/", "a hidden folder: not read") for name in subfolders
                   if name.startswith(".")]
        subfolders[:] = sorted(name for name in subfolders if not name.startswith("."))
        hidden += [Skipped((here / name).as_posix(), "a hidden file: not read") for name in names if name.startswith(".")]
        files += [here / name for name in names if not name.startswith(".")]
    return sorted(files), sorted(hidden, key=lambda skipped: skipped.path)


def read_folder(folder: str | Path, derive: bool = True) -> tuple[list[Document], list[Skipped]]:
    """Every document under `folder` and its subfolders, sorted by id, and every file not loaded with its reason;
    with `derive`, a field the front matter lacks (or all, without front matter) is derived (`derived_fields`).

    >>> docs, skipped = read_folder("data/demo-handbook/corpus")
    >>> len(docs), docs[0].doc_id, skipped
    (16, 'code-review', [])
    """
    if not (folder := Path(folder)).is_dir():
        raise RagkitError(f"{folder}: no such corpus folder")
    paths, skipped = folder_files(folder)
    named = folder.resolve().parent.name if folder.name == "corpus" else folder.resolve().name
    docs, seen = [], {}
    for path, doc_id in document_ids(paths).items():
        try:
            doc = document_from_file(folder / path, derive, doc_id, path.parts[0] if len(path.parts) > 1 else named)
        except RagkitError as error:  # the reason without the file's name, which `Skipped` holds
            reason = str(error).removeprefix(str(folder / path))
            line = re.match(r":(\d+): (.*)", reason, flags=re.DOTALL)
            skipped.append(Skipped(path.as_posix(), f"line {line[1]}: {line[2]}" if line else reason.lstrip(": ")))
            continue
        if doc.doc_id in seen:
            raise RagkitError(f"{doc.path}: id {doc.doc_id!r} is already used by {seen[doc.doc_id]}: give one of "
                              "them another id in its front matter")
        seen[doc.doc_id] = doc.path
        docs.append(doc)
    return sorted(docs, key=lambda doc: doc.doc_id), sorted(skipped, key=lambda skipped: skipped.path)


def load_documents(folder: str | Path, derive: bool = True) -> list[Document]:
    """Every document `read_folder` loads from `folder`; a folder with none raises a `RagkitError` that says
    why each file was skipped.

    >>> len(load_documents("data/corpus")) >= 60
    True
    """
    docs, skipped = read_folder(folder, derive)
    if not docs:
        reasons = "; ".join(map(str, skipped[:3])) + (f"; and {len(skipped) - 3} more" if len(skipped) > 3 else "")
        raise RagkitError(f"{folder}: no document ragkit can read ({', '.join(FORMATS)})" +
                          (f": {reasons}" if reasons else ": the folder is empty"))
    return docs
