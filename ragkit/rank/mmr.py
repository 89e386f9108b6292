"""Maximal Marginal Relevance (Carbonell & Goldstein, 1998): re-rank candidates for relevance and novelty.

Notebook 08 derives it. From a candidate list, MMR picks one chunk at a time: the one that maximises
λ · relevance(chunk) − (1 − λ) · redundancy(chunk), where redundancy is the chunk's highest similarity to the
chunks already picked. λ = 1 is pure relevance (the input order, exactly), λ = 0 pure novelty after the first
pick, which is always the most relevant candidate (as in LangChain's implementation; at λ = 0 the formula alone
would tie every candidate). Ties go to the earlier candidate. Relevance is the first-stage score, min-max
rescaled to [0, 1] over the candidates, so that λ does not depend on the units of dense, BM25 or hybrid scores
(LangChain and seed 000 use the raw cosine instead, which differs only for non-dense retrievers). Similarity is
the cosine of the chunks' embeddings, or seed 000's metadata approximation (1 for two chunks of the same
document, 0 otherwise); it stays raw, so its spread differs from query to query while relevance always spans
[0, 1]. `mmr_rerank(..., rescale_redundancy=True)` rescales the candidates' pairwise similarities to [0, 1]
too (notebook 08 measures it; the pipeline does not use it). Left out: relevance measured by a reranker
(notebook 09), and similarity to the query of anything but the candidates.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ragkit.errors import RagkitError, check_k


def check_lambda(lambda_: float) -> float:
    """λ as a float, or a clear error unless it is a number in [0, 1].

    >>> check_lambda(0.7)
    0.7
    """
    if isinstance(lambda_, bool) or not isinstance(lambda_, int | float | np.number) or not 0 <= lambda_ <= 1:
        raise RagkitError(f"MMR's lambda must be between 0 (pure novelty) and 1 (pure relevance), got {lambda_!r}")
    return float(lambda_)


def rescale(scores: np.ndarray) -> np.ndarray:
    """Scores min-max rescaled to [0, 1] along the last axis (one row per query); a constant row: all 1.

    >>> rescale(np.array([2.0, 4.0, 3.0])).tolist()
    [0.0, 1.0, 0.5]
    """
    scores = np.asarray(scores, dtype=float)
    low, high = scores.min(axis=-1, keepdims=True), scores.max(axis=-1, keepdims=True)
    return np.where(high > low, (scores - low) / np.where(high > low, high - low, 1.0), 1.0)


def mmr_select(relevance: np.ndarray, similarity: np.ndarray, lambda_: float, k: int | None = None) -> np.ndarray:
    """Positions of the candidates in MMR order (the first `k`; all by default).

    `relevance` holds one score per candidate, `similarity` the candidates' pairwise similarities (a
    candidate's redundancy is its highest similarity to the picks so far). Both may
    carry a leading axis of queries (relevance (q, n), similarity (q, n, n)): every query is then picked in the
    same numpy steps, which is what makes a λ slider fast.

    >>> relevance = np.array([1.0, 0.9, 0.5])
    >>> similarity = np.array([[1.0, 0.95, 0.1], [0.95, 1.0, 0.2], [0.1, 0.2, 1.0]])
    >>> mmr_select(relevance, similarity, lambda_=1.0).tolist(), mmr_select(relevance, similarity, 0.5).tolist()
    ([0, 1, 2], [0, 2, 1])
    """
    lambda_ = check_lambda(lambda_)
    relevance = np.asarray(relevance, dtype=float)
    similarity = np.asarray(similarity, dtype=float)
    single = relevance.ndim == 1
    relevance, similarity = np.atleast_2d(relevance), similarity[None] if single else similarity
    queries, n = relevance.shape
    if similarity.shape != (queries, n, n):
        raise RagkitError(f"need an {n} x {n} similarity matrix for {n} candidates, got {similarity.shape[-2:]}")
    if k is not None:
        check_k(k)
    k = n if k is None else min(k, n)
    rows = np.arange(queries)
    picked = np.zeros((queries, k), dtype=int)
    closest = np.zeros((queries, n))  # each candidate's redundancy: its highest similarity to the picks so far
    available = np.ones((queries, n), dtype=bool)
    for step in range(k):
        # the first pick is the most relevant candidate whatever λ (at λ = 0 the formula would tie them all)
        marginal = relevance if step == 0 else lambda_ * relevance - (1 - lambda_) * closest
        best = np.argmax(np.where(available, marginal, -np.inf), axis=1)  # ties: the earlier candidate
        picked[:, step] = best
        available[rows, best] = False
        chosen = similarity[rows, best]
        closest = chosen if step == 0 else np.maximum(closest, chosen)
    return picked[0] if single else picked


def metadata_similarity(doc_ids: Sequence[str]) -> np.ndarray:
    """Seed 000's approximation: 1 for two chunks of the same document, 0 otherwise (for a batch of lists,
    give a 2-D array of ids).

    >>> metadata_similarity(["a", "b", "a"]).tolist()
    [[1.0, 0.0, 1.0], [0.0, 1.0, 0.0], [1.0, 0.0, 1.0]]
    """
    ids = np.asarray(doc_ids)
    return (ids[..., :, None] == ids[..., None, :]).astype(float)


def rescaled_pairs(similarity: np.ndarray) -> np.ndarray:
    """Pairwise similarities min-max rescaled to [0, 1] over each matrix's off-diagonal pairs (for a batch, per
    query); the diagonal is 1, and a matrix whose pairs are all equal is left as it is.

    >>> rescaled_pairs(np.array([[1.0, 0.2, 0.6], [0.2, 1.0, 0.4], [0.6, 0.4, 1.0]])).round(2).tolist()
    [[1.0, 0.0, 1.0], [0.0, 1.0, 0.5], [1.0, 0.5, 1.0]]
    """
    similarity = np.asarray(similarity, dtype=float)
    off = ~np.eye(similarity.shape[-1], dtype=bool)
    pairs = similarity[..., off]  # (queries, n·(n − 1)) or (n·(n − 1),)
    low, high = pairs.min(axis=-1, keepdims=True), pairs.max(axis=-1, keepdims=True)
    rescaled = np.ones_like(similarity)
    rescaled[..., off] = np.where(high > low, (pairs - low) / np.where(high > low, high - low, 1.0), pairs)
    return rescaled


def mmr_rerank(rankings: np.ndarray, scores: np.ndarray, embeddings: np.ndarray | None, doc_ids: Sequence[str],
               lambda_: float, fetch: int, rescale_redundancy: bool = False) -> np.ndarray:
    """Rankings (queries × chunk indices, best first) with each query's first `fetch` re-ordered by MMR; the
    rest keep their order. `scores` are the first-stage scores (queries × chunks); `embeddings` (None: use
    metadata) the chunks' unit vectors; `rescale_redundancy` puts the candidates' similarities on relevance's
    [0, 1] scale (`rescaled_pairs`).

    >>> mmr_rerank(np.array([[0, 1, 2, 3]]), np.array([[1.0, 0.9, 0.5, 0.1]]), None, ["a", "a", "b", "c"], 0.5, 3)
    array([[0, 2, 1, 3]])
    """
    rankings = np.atleast_2d(rankings)
    head = rankings[:, :fetch]
    if embeddings is None:
        similarity = metadata_similarity(np.asarray(list(doc_ids))[head])
    else:
        vectors = embeddings[head]  # (queries, fetch, dimensions)
        similarity = vectors @ vectors.transpose(0, 2, 1)
    if rescale_redundancy and head.shape[1] > 1:
        similarity = rescaled_pairs(similarity)
    relevance = rescale(np.take_along_axis(np.atleast_2d(scores), head, axis=1))
    order = mmr_select(relevance, similarity, lambda_)
    return np.concatenate([np.take_along_axis(head, order, axis=1), rankings[:, fetch:]], axis=1)
