"""Fixed-size chunking: windows of about `size` characters overlapping by `overlap` (notebook 00).

Window ends move back to a space in their last fifth, and the next window starts after a space inside the
overlap, so words are not cut in half. Left out: token-based sizes and windows that follow sentences
(`ragkit.chunk.sentences`).
"""

from __future__ import annotations

from ragkit.chunk.base import Chunk, check_chunk_size
from ragkit.corpus import Document


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
