"""The `Chunk` record every chunker returns, and what all chunkers share.

A chunk is a span `[start, end)` of one document's body with that document's metadata, so relevance can be
judged from evidence spans whatever the chunking (`ragkit.evaluate.relevance`). `chunk_corpus` runs any
per-document chunker over a corpus; `whole_document_chunks` makes each document one unit (the BEIR
convention). Left out: token-based sizes (sizes are in characters) and chunk ids that survive re-chunking.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
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


def chunk_corpus(docs: Sequence[Document], chunker: Callable[..., list[Chunk]], **params) -> list[Chunk]:
    """`chunker(doc, **params)` over every document, in order; a clear error when nothing comes out.

    >>> docs = [Document("a", "A", "faq", "2025-01-01", "en", "One. Two.")]
    >>> from ragkit.chunk.sentences import sentence_chunks
    >>> [c.text for c in chunk_corpus(docs, sentence_chunks, size=5)]
    ['One.', 'Two.']
    """
    chunks = [chunk for doc in docs for chunk in chunker(doc, **params)]
    if not chunks:
        raise RagkitError("the corpus is empty: there is no text to chunk")
    return chunks


def whole_document_chunks(docs: Sequence[Document]) -> list[Chunk]:
    """One unit per document, covering its whole text (the BEIR convention).

    >>> whole_document_chunks([Document("d", "T", "x", "", "en", "abc")])[0].end
    3
    """
    return [Chunk(f"{d.doc_id}#0", d.doc_id, 0, len(d.text), d.text, d.title, d.source, d.date, d.lang, d.version)
            for d in docs]
