"""Your own labels folder: its documents, what was derived or skipped in reading them, and its labels.

A labels folder is laid out as the course's `data/`: documents in `corpus/` (and its subfolders: markdown, text,
HTML or PDF, front matter optional; `ragkit.corpus.read_folder` derives what is missing, `derivation_notes` says
what it did, and `skipped_notes` names every file it did not load, with the reason), labels beside it in
`queries.jsonl` and `judgments.jsonl`, and the journal of verdicts `verdicts.jsonl`. `open_folder` turns every
problem with the folder into one line; `working_copy` copies a folder to judge in. Writing queries is
`ragkit.labels.own_queries`, recording verdicts `ragkit.labels.verdicts`. Left out: folders elsewhere than on disk.
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from pathlib import Path

from ragkit.cache import cache_dir
from ragkit.corpus import Document, Query, Skipped, load_queries, read_folder
from ragkit.errors import RagkitError
from ragkit.labels.files import folder_lock

HOW = {"id": "its path under corpus/ without the suffix", "title": "its HTML or PDF title, else its first '# ' "
       "heading outside code, else its name", "source": "its first folder under corpus/, else the labels folder's "
       "name", "date": "a YYYY-MM-DD in its name, else none (undated)",
       "lang": "its characters (zh: a quarter or more Chinese)"}


def corpus_of(folder: str | Path) -> Path:
    """The documents' folder of a labels folder, `<folder>/corpus/`, or a `RagkitError` of one line.

    >>> corpus_of("data/demo-handbook").name
    'corpus'
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise RagkitError(f"{folder}: no such folder")
    if not (folder / "corpus").is_dir():
        held = len([*folder.glob("*.md"), *folder.glob("*.txt")])
        raise RagkitError(f"{folder}: no corpus/ folder" + (f" (it holds {held} documents itself)" if held else "") +
                          ": the documents go in corpus/ inside the folder you pick, the labels beside it, as in data/")
    return folder / "corpus"


def folder_documents(folder: str | Path) -> tuple[list[Document], list[Skipped]]:
    """The documents of a labels folder (`<folder>/corpus/`) and the files not loaded, each with its reason; a
    folder with no document, or labels that do not parse, raise a `RagkitError` of one line.

    >>> docs, skipped = folder_documents("data/demo-handbook")
    >>> len(docs), skipped
    (16, [])
    """
    docs, skipped = read_folder(corpus_of(folder))
    if not docs:
        raise RagkitError(f"{corpus_of(folder)}: no document ragkit can read" +
                          (f": {'; '.join(map(str, skipped[:3]))}" if skipped else ": the folder is empty"))
    labelled_queries(folder)  # labels that do not parse: one line, file and line number
    return docs, skipped


def open_folder(folder: str | Path) -> list[Document]:
    """The documents of a labels folder (`folder_documents` without the skipped files).

    >>> len(open_folder("data/demo-handbook"))
    16
    """
    return folder_documents(folder)[0]


def skipped_notes(skipped: Sequence[Skipped]) -> list[str]:
    """One line per file the folder holds but that was not loaded: its path under corpus/ and why.

    >>> skipped_notes([Skipped("notes/plan.docx", "cannot read .docx")])
    ['not loaded: corpus/notes/plan.docx: cannot read .docx']
    """
    return [f"not loaded: corpus/{skipped}" for skipped in skipped]


def derivation_notes(docs: Sequence[Document]) -> list[str]:
    """One line per document whose front matter lacked fields: what each was derived as (`HOW` says from what).

    >>> derivation_notes([Document("faq", "FAQ", "own", "2026-01-02", "en", "", path="c/faq.txt", derived=("id",))])
    ["faq.txt: no id in front matter: id 'faq'"]
    """
    notes = []
    for doc in (doc for doc in docs if doc.derived):
        lacks = "no front matter" if len(doc.derived) == len(HOW) else f"no {', '.join(doc.derived)} in front matter"
        values = ", ".join("undated" if name == "date" and not doc.date else
                           f"{name} {getattr(doc, 'doc_id' if name == 'id' else name)!r}" for name in doc.derived)
        notes.append(f"{doc.path.rsplit('/corpus/', 1)[-1] if '/corpus/' in doc.path else Path(doc.path).name}: "
                     f"{lacks}: {values}")
    return notes


def working_copy(source: str | Path, target: str | Path | None = None) -> Path:
    """A copy of the labels folder `source` to judge in (default: `own-data/<its name>` in ragkit's cache folder),
    made only when it is missing: verdicts never change the original, and reopening finds the copy's verdicts.

    >>> working_copy("data/demo-handbook").name  # doctest: +SKIP
    'demo-handbook'
    """
    source = Path(source)
    target = Path(target) if target is not None else cache_dir() / "own-data" / source.resolve().name
    if not target.exists():
        open_folder(source)
        shutil.copytree(source, target)
    return target


def labelled_queries(folder: str | Path) -> list[Query]:
    """The folder's queries with their judgments, read under a shared lock (none yet: an empty list).

    >>> [q.query_id for q in labelled_queries("data/demo-handbook")][:2]
    ['hb-001', 'hb-002']
    """
    folder = Path(folder)
    with folder_lock(folder, shared=True):
        return load_queries(folder / "queries.jsonl") if (folder / "queries.jsonl").exists() else []
