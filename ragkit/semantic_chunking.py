"""Semantic chunking: cut a document where the similarity between neighbouring sentences drops.

Notebook 04 derives it. Sentences (`ragkit.chunkers.sentence_spans`) are embedded with the course encoder;
the similarity of each gap compares the mean vector of the `window` sentences before it with the `window`
after it. A cut rule turns the similarities into a threshold, and the document is cut where the similarity
is BELOW it (a topic change); min and max size guards then merge crumbs and split giants. Rules: the
largest-gap estimator with a confidence, percentile, standard deviation, interquartile range (Tukey's low
fence) and gradient (the fall from the previous gap). Left out: embedding concatenated windows instead of
averaging sentence vectors, thresholds learnt across documents, and token-based sizes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ragkit.chunkers import chunks_from_bounds, pack_spans, sentence_spans
from ragkit.chunking import Chunk
from ragkit.corpus import Document
from ragkit.errors import RagkitError

RULES = ("gap", "percentile", "std", "iqr", "gradient")
DEFAULT_AMOUNTS = {"gap": 0.1, "percentile": 10.0, "std": 1.0, "iqr": 0.5, "gradient": 10.0}


@dataclass(frozen=True)
class GapEstimate:
    """The largest-gap estimator: two clusters of similarities split at their largest gap."""

    threshold: float
    boundary_scores: np.ndarray  # the low cluster: gaps that look like topic changes
    within_topic_scores: np.ndarray
    boundary_mean: float
    within_topic_mean: float
    gap: float
    midpoint: float
    confidence: str  # "high" (gap ≥ 0.25), "medium" (≥ 0.1) or "low"


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


def largest_gap_threshold(similarities: np.ndarray, bias: float = 0.1,
                          max_boundary_share: float = 0.5) -> GapEstimate:
    """Sort the similarities, split them at their largest gap, and put the threshold inside that gap.

    The threshold is the gap's midpoint moved `bias` × gap towards the boundary cluster (fewer cuts; the
    seed's +10 % moved it up, which admits more). Only splits whose boundary cluster holds at most
    `max_boundary_share` of the gaps are considered; 1.0 searches every gap, as the seed does.

    >>> estimate = largest_gap_threshold(np.array([0.8, 0.2, 0.85, 0.75]))
    >>> round(estimate.threshold, 3), round(estimate.gap, 3), estimate.confidence
    (0.42, 0.55, 'high')
    """
    scores = np.sort(check_similarities(similarities, minimum=2))
    if not -0.5 < bias < 0.5:
        raise RagkitError(f"bias must be in (-0.5, 0.5) so the threshold stays inside the gap, got {bias}")
    if not 0 < max_boundary_share <= 1:
        raise RagkitError(f"max_boundary_share must be in (0, 1], got {max_boundary_share}")
    candidates = max(1, min(len(scores) - 1, int(max_boundary_share * len(scores))))
    split = int(np.argmax(np.diff(scores)[:candidates])) + 1
    boundary, within = scores[:split], scores[split:]
    gap = float(within.min() - boundary.max())
    midpoint = float(within.min() + boundary.max()) / 2
    confidence = "high" if gap >= 0.25 else "medium" if gap >= 0.1 else "low"
    return GapEstimate(midpoint - bias * gap, boundary, within, float(boundary.mean()), float(within.mean()),
                       gap, midpoint, confidence)


def similarity_changes(similarities: np.ndarray) -> np.ndarray:
    """How much each gap's similarity rose (+) or fell (−) from the previous gap; the first gap gets 0.

    >>> similarity_changes(np.array([0.9, 0.4, 0.5]))
    array([ 0. , -0.5,  0.1])
    """
    similarities = check_similarities(similarities, minimum=1)
    return np.diff(similarities, prepend=similarities[0])


def rule_threshold(similarities: np.ndarray, rule: str = "percentile", amount: float | None = None) -> float:
    """The threshold of one cut rule; cut where `rule_signal` is below it.

    gap: `largest_gap_threshold` with bias `amount`; percentile: the `amount`-th percentile; std: mean −
    `amount` standard deviations; iqr: first quartile − `amount` × IQR; gradient: the `amount`-th
    percentile of `similarity_changes`.

    >>> round(rule_threshold(np.array([0.9, 0.8, 0.2, 0.7, 0.85]), "std", 1.0), 3)
    0.436
    """
    scores = check_similarities(similarities, minimum=2)
    if rule not in RULES:
        raise RagkitError(f"unknown cut rule {rule!r}; choose one of {', '.join(RULES)}")
    amount = DEFAULT_AMOUNTS[rule] if amount is None else amount
    if rule in ("percentile", "gradient") and not 0 <= amount <= 100:
        raise RagkitError(f"a percentile must be between 0 and 100, got {amount}")
    if rule in ("std", "iqr") and amount < 0:
        raise RagkitError(f"the {rule} rule needs a non-negative amount, got {amount}")
    if rule == "gap":
        return largest_gap_threshold(scores, amount).threshold
    if rule == "percentile":
        return float(np.percentile(scores, amount))
    if rule == "std":
        return float(scores.mean() - amount * scores.std())
    if rule == "iqr":
        q1, q3 = np.percentile(scores, [25, 75])
        return float(q1 - amount * (q3 - q1))
    return float(np.percentile(similarity_changes(scores), amount))


def rule_signal(similarities: np.ndarray, rule: str) -> np.ndarray:
    """What a rule compares with its threshold: the similarities, or their changes for "gradient".

    >>> rule_signal(np.array([0.9, 0.4]), "gradient")
    array([ 0. , -0.5])
    """
    return similarity_changes(similarities) if rule == "gradient" else check_similarities(similarities, 1)


def cut_gaps(signal: np.ndarray, threshold: float) -> np.ndarray:
    """Indices of the gaps to cut: where the signal (similarity) is LOW, strictly below the threshold.

    >>> cut_gaps(np.array([0.9, 0.3, 0.8, 0.1]), 0.5)
    array([1, 3])
    """
    return np.flatnonzero(np.asarray(signal) < threshold)


def guarded_bounds(text: str, spans: Sequence[tuple[int, int]], similarities: np.ndarray, cuts: Sequence[int],
                   min_size: int = 200, max_size: int = 1000) -> list[tuple[int, int]]:
    """Character spans of the chunks: sentences grouped at the cuts, then merged and split to the guards.

    A group shorter than `min_size` joins the neighbour it is more similar to; a group longer than
    `max_size` is packed into whole sentences of at most `max_size` (`ragkit.chunkers.pack_spans`).

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

    >>> from ragkit.embedding import Encoder  # doctest: +SKIP
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


def semantic_chunk_documents(docs: Sequence[Document], encoder, **params) -> list[Chunk]:
    """`semantic_chunks` of every document, embedding all sentences in one batch first (one progress bar).

    >>> chunks = semantic_chunk_documents(load_documents("data/corpus"), Encoder(), rule="gap")  # doctest: +SKIP
    >>> max(chunk.end - chunk.start for chunk in chunks) <= 800  # doctest: +SKIP
    True
    """
    if not docs:
        raise RagkitError("the corpus is empty: there is no text to chunk")
    encoder.encode([doc.text[s:e] for doc in docs for s, e in sentence_spans(doc.text)], desc="sentences")
    chunks = [chunk for doc in docs for chunk in semantic_chunks(doc, encoder, **params)]
    if not chunks:
        raise RagkitError("the corpus is empty: there is no text to chunk")
    return chunks


def check_similarities(similarities: np.ndarray, minimum: int) -> np.ndarray:
    """The similarities as a 1-D float array of at least `minimum` finite values, or a clear error.

    >>> check_similarities([0.5, 0.25], minimum=2)
    array([0.5 , 0.25])
    """
    scores = np.asarray(similarities, dtype=float)
    if scores.ndim != 1 or len(scores) < minimum or not np.isfinite(scores).all():
        raise RagkitError(f"need a 1-D array of at least {minimum} finite similarities, got shape {scores.shape}")
    return scores
