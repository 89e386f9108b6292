"""Cut documents into chunks that remember where they came from.

Every chunk keeps its document id and the character offsets `[start, end)` of its text in the document body,
so relevance can be judged from evidence spans whatever the chunking (`ragkit.relevance`). This module holds
the naive strategy of notebook 00, fixed-size windows with overlap. Left out here: sentence, heading-aware,
parent-child and semantic chunking (notebook 04) and token-based sizes (sizes are in characters).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ragkit.corpus import Document
from ragkit.errors import RagkitError


@dataclass(frozen=True)
class Chunk:
    """A span `[start, end)` of one document's body, with that document's metadata."""

    chunk_id: str
    doc_id: str
    start: int
    end: int
    text: str
    title: str = ""
    source: str = ""
    date: str = ""
    lang: str = ""
    version: str | None = None


def check_chunk_size(size: int, overlap: int) -> None:
    """Raise `RagkitError` unless 1 ≤ size and 0 ≤ overlap < size.

    >>> check_chunk_size(800, 100)
    """
    if not isinstance(size, int) or size < 1:
        raise RagkitError(f"chunk size must be a positive number of characters, got {size!r}")
    if not isinstance(overlap, int) or not 0 <= overlap < size:
        raise RagkitError(f"overlap must be at least 0 and smaller than the chunk size ({size}), got {overlap!r}")


def window_bounds(length: int, size: int, overlap: int, text: str = "") -> list[tuple[int, int]]:
    """Character windows of at most `size` covering `[0, length)`, each starting `overlap` before the last end.

    When `text` is given, a window's end moves back to the last whitespace in its final fifth, and the next
    window starts after a whitespace inside the overlap, so that words are not cut in half.

    >>> window_bounds(10, 4, 1)
    [(0, 4), (3, 7), (6, 10)]
    >>> window_bounds(11, 6, 0, "alpha beta.")
    [(0, 6), (6, 11)]
    """
    check_chunk_size(size, overlap)
    bounds: list[tuple[int, int]] = []
    start = 0
    while start < length:
        end = min(start + size, length)
        if text and end < length:
            cut = max(text.rfind(" ", end - size // 5, end), text.rfind("\n", end - size // 5, end))
            if cut > start + overlap:
                end = cut + 1
        bounds.append((start, end))
        if end >= length:
            break
        next_start = end - overlap
        if text and overlap and not text[next_start - 1].isspace():
            spaces = [i for i in (text.find(" ", next_start, end), text.find("\n", next_start, end)) if i >= 0]
            next_start = min(spaces) + 1 if spaces else next_start
        start = max(next_start, start + 1)
    return bounds


def fixed_size_chunks(doc: Document, size: int = 800, overlap: int = 100) -> list[Chunk]:
    """Cut one document into windows of about `size` characters overlapping by `overlap`.

    >>> from ragkit.corpus import Document
    >>> doc = Document("d1", "T", "faq", "2025-01-01", "en", "one two three four five six")
    >>> [c.text for c in fixed_size_chunks(doc, size=15, overlap=6)]
    ['one two three ', 'three four five', 'five six']
    """
    chunks = []
    for number, (start, end) in enumerate(window_bounds(len(doc.text), size, overlap, doc.text)):
        text = doc.text[start:end]
        if not text.strip():
            continue
        chunks.append(Chunk(
            chunk_id=f"{doc.doc_id}#{number}", doc_id=doc.doc_id, start=start, end=end, text=text,
            title=doc.title, source=doc.source, date=doc.date, lang=doc.lang, version=doc.version,
        ))
    return chunks


def chunk_documents(docs: Iterable[Document], size: int = 800, overlap: int = 100) -> list[Chunk]:
    """Fixed-size chunks of every document, in document order.

    >>> from ragkit.corpus import Document
    >>> docs = [Document("a", "A", "faq", "2025-01-01", "en", "x" * 25)]
    >>> [c.chunk_id for c in chunk_documents(docs, size=10, overlap=0)]
    ['a#0', 'a#1', 'a#2']
    """
    check_chunk_size(size, overlap)
    chunks = [chunk for doc in docs for chunk in fixed_size_chunks(doc, size, overlap)]
    if not chunks:
        raise RagkitError("the corpus is empty: there is no text to chunk")
    return chunks
