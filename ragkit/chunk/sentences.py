"""Sentence chunking: whole sentences packed into chunks of at most `size` characters (notebook 04).

A sentence ends after . ! ? (and closing quotes or brackets) before whitespace, after 。！？, or at a line
end. Left out: abbreviation-aware splitting ("e.g. " ends a sentence here) and languages with other
sentence marks.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ragkit.chunk.base import Chunk, check_chunk_size
from ragkit.chunk.fixed import window_bounds
from ragkit.chunk.sections import chunks_from_bounds
from ragkit.corpus import Document

# A sentence ends after . ! ? (and closing quotes or brackets) before whitespace, after 。！？, or at a line end.
SENTENCE_END = re.compile(r"[.!?][\"'”’)\]]*(?=\s|$)|[。！？][”’」』）)]*|\n")


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """`[start, end)` of every sentence (or markdown line), without the whitespace around it.

    >>> text = "Keys rotate. Every 90 days!\\n# 密钥\\n每年轮换。立即生效"
    >>> [text[s:e] for s, e in sentence_spans(text)]
    ['Keys rotate.', 'Every 90 days!', '# 密钥', '每年轮换。', '立即生效']
    """
    cuts = [0, *(match.end() for match in SENTENCE_END.finditer(text)), len(text)]
    spans = []
    for start, end in zip(cuts, cuts[1:], strict=False):
        piece = text[start:end]
        if piece.strip():
            left = start + len(piece) - len(piece.lstrip())
            spans.append((left, start + len(piece.rstrip())))
    return spans


def pack_spans(text: str, spans: Sequence[tuple[int, int]], size: int, overlap: int = 0) -> list[tuple[int, int]]:
    """Greedily pack consecutive spans into windows of at most `size` characters.

    Each window after the first repeats the previous window's last spans that fit in `overlap` characters.
    A span longer than `size` is cut into fixed-size windows of its own.

    >>> text = "One. Two two. Three three three."
    >>> [text[s:e] for s, e in pack_spans(text, sentence_spans(text), size=18)]
    ['One. Two two.', 'Three three three.']
    >>> [text[s:e] for s, e in pack_spans(text, sentence_spans(text), size=14)]
    ['One. Two two.', 'Three three th', 'ree.']
    """
    check_chunk_size(size, overlap)
    windows: list[tuple[int, int]] = []
    i = 0
    while i < len(spans):
        start, end = spans[i]
        if end - start > size:  # one long sentence: fixed windows inside it
            windows.extend((start + a, start + b) for a, b in window_bounds(end - start, size, 0, text[start:end]))
            i += 1
            continue
        j = i + 1
        while j < len(spans) and spans[j][1] - start <= size:
            j += 1
        windows.append((start, spans[j - 1][1]))
        if j >= len(spans):
            break
        back = j  # step back over the spans that fit in the overlap, but always move forward
        while back - 1 > i and spans[j - 1][1] - spans[back - 1][0] <= overlap:
            back -= 1
        i = back
    return windows


def sentence_chunks(doc: Document, size: int = 800, overlap: int = 0) -> list[Chunk]:
    """Whole sentences packed into chunks of at most `size` characters, repeating up to `overlap` of them.

    >>> doc = Document("d", "T", "faq", "2025-01-01", "en", "Keys rotate. Tokens expire. 密钥每年轮换。")
    >>> [c.text for c in sentence_chunks(doc, size=27)]
    ['Keys rotate. Tokens expire.', '密钥每年轮换。']
    """
    return chunks_from_bounds(doc, pack_spans(doc.text, sentence_spans(doc.text), size, overlap))
