"""Semantic chunking: cut a document where the similarity between neighbouring sentences drops.

Notebook 04 derives it. Sentences (`ragkit.chunk.sentences.sentence_spans`) are embedded with the course
encoder; the similarity of each gap compares the mean vector of the `window` sentences before it with the
`window` after it; a rule of `ragkit.chunk.cut_rules` turns the similarities into a threshold; min and max
size guards then merge crumbs and split giants. Left out: embedding concatenated windows instead of
averaging sentence vectors, and token-based sizes.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ragkit.chunk.base import Chunk
from ragkit.chunk.cut_rules import cut_gaps, rule_signal, rule_threshold
from ragkit.chunk.sections import chunks_from_bounds
from ragkit.chunk.sentences import pack_spans, sentence_spans
from ragkit.corpus import Document
from ragkit.errors import RagkitError


def adjacent_similarities(embeddings: np.ndarray, window: int = 1) -> np.ndarray:
    """Cosine similarity across each of the n − 1 gaps between n unit-length sentence vectors.

    Gap i compares the mean of sentences i − window + 1 … i with the mean of sentences i + 1 … i + window.

    >>> adjacent_similarities(np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]]))
    array([1., 0.])
    """
    embeddings = np.asarray(embeddings, dtype=float)
    if embeddings.ndim != 2 or len(embeddings) < 2:
        raise RagkitError("adjacent similarities need at least two sentence embeddings")
    if not isinstance(window, int) or window < 1:
        raise RagkitError(f"window must be a positive number of sentences, got {window!r}")
    sums = np.vstack([np.zeros(embeddings.shape[1]), np.cumsum(embeddings, axis=0)])
    n, gaps = len(embeddings), np.arange(len(embeddings) - 1)
    left = sums[gaps + 1] - sums[np.maximum(gaps + 1 - window, 0)]
    right = sums[np.minimum(gaps + 1 + window, n)] - sums[gaps + 1]
    left /= np.linalg.norm(left, axis=1, keepdims=True)
    right /= np.linalg.norm(right, axis=1, keepdims=True)
    return np.sum(left * right, axis=1)


def guarded_bounds(text: str, spans: Sequence[tuple[int, int]], similarities: np.ndarray, cuts: Sequence[int],
                   min_size: int = 200, max_size: int = 1000) -> list[tuple[int, int]]:
    """Character spans of the chunks: sentences grouped at the cuts, then merged and split to the guards.

    A group shorter than `min_size` joins the neighbour it is more similar to; a group longer than
    `max_size` is packed into whole sentences of at most `max_size` (`ragkit.chunk.sentences.pack_spans`).

    >>> text = "Keys rotate. Keys expire. Lunch is at noon."
    >>> spans = [(0, 12), (13, 25), (26, 43)]
    >>> [text[s:e] for s, e in guarded_bounds(text, spans, np.array([0.9, 0.1]), [1], min_size=5)]
    ['Keys rotate. Keys expire.', 'Lunch is at noon.']
    """
    if not 0 <= min_size < max_size:
        raise RagkitError(f"need 0 ≤ min_size < max_size, got min_size={min_size}, max_size={max_size}")
    if len(similarities) != max(len(spans) - 1, 0):
        raise RagkitError(f"{len(spans)} sentences need {max(len(spans) - 1, 0)} similarities, got {len(similarities)}")
    edges = [0, *sorted({int(c) + 1 for c in cuts}), len(spans)]
    groups = [[first, last] for first, last in zip(edges, edges[1:], strict=False) if first < last]
    while len(groups) > 1:
        sizes = [spans[last - 1][1] - spans[first][0] for first, last in groups]
        small = int(np.argmin(sizes))
        if sizes[small] >= min_size:
            break
        first, last = groups[small]
        left = similarities[first - 1] if small > 0 else -np.inf
        right = similarities[last - 1] if small < len(groups) - 1 else -np.inf
        other = small - 1 if left >= right else small + 1
        merged = [min(groups[small][0], groups[other][0]), max(groups[small][1], groups[other][1])]
        groups[min(small, other):max(small, other) + 1] = [merged]
    return [bound for first, last in groups for bound in pack_spans(text, spans[first:last], max_size)]


def semantic_chunks(doc: Document, encoder, rule: str = "percentile", amount: float | None = None,
                    window: int = 3, min_size: int = 200, max_size: int = 800) -> list[Chunk]:
    """Chunks of one document cut where adjacent-sentence similarity falls below the rule's threshold.

    >>> from ragkit.embed.model import Encoder  # doctest: +SKIP
    >>> doc = Document("d", "T", "faq", "2025-01-01", "en", "Keys rotate yearly. Keys expire. Lunch is at noon.")
    >>> [c.text for c in semantic_chunks(doc, Encoder(), "gap", min_size=0)]  # doctest: +SKIP
    ['Keys rotate yearly. Keys expire.', 'Lunch is at noon.']
    """
    spans = sentence_spans(doc.text)
    if len(spans) < 3:  # fewer than two similarities: nothing to estimate a threshold from
        return chunks_from_bounds(doc, pack_spans(doc.text, spans, max_size))
    similarities = adjacent_similarities(encoder.encode([doc.text[s:e] for s, e in spans]), window)
    cuts = cut_gaps(rule_signal(similarities, rule), rule_threshold(similarities, rule, amount))
    return chunks_from_bounds(doc, guarded_bounds(doc.text, spans, similarities, cuts, min_size, max_size))
