"""The stages after the first: rerank the best candidates, then refuse or retry with a rewritten query.

`retrieve(pipe, queries, depth)` is what `Pipeline.rankings`, `search` and `evaluate` run: the first stage
(scores, then MMR: `diversified`) gives each query its candidates; `rerank` re-scores the best `rerank_depth` of them (MaxSim,
a learnt ranker, a language model's 0–10 judgments or a cross-encoder) and re-orders them, the rest keep their
order behind; `threshold` refuses a query whose best score (the reranker's when reranking) is below it; with
`rewrite="llm"`, a query under the threshold is first rewritten by the language model and retrieved again,
its new candidates re-scored against the *original* query (as in seed 001's `adaptive_rag`), and refused only
if still under. `train_ranker` fits the learning-to-rank model on labelled queries. Left out: generation, and
reranking with several rerankers in a cascade.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ragkit.corpus import Query
from ragkit.embed.token_cache import cached_token_vectors
from ragkit.errors import RagkitError
from ragkit.evaluate.relevance import ranking_hits
from ragkit.evaluate.runs import cached_judgments
from ragkit.index.exact import top_k
from ragkit.rank.cross_encoder import cross_encoder_scores, load_cross_encoder
from ragkit.rank.features import FEATURES, feature_matrix
from ragkit.rank.llm_rerank import llm_scores, rewritten_query
from ragkit.rank.ltr import fit_ranker
from ragkit.rank.maxsim import maxsim_scores
from ragkit.rank.mmr import mmr_rerank


@dataclass(frozen=True)
class Retrieval:
    """Per query: chunk indices best first (none when refused), their scores, the best score the refusal
    read, whether it refused, and the rewritten query where one was used."""

    indices: list[np.ndarray]
    scores: list[np.ndarray]
    top_scores: np.ndarray
    refused: np.ndarray
    rewrites: tuple[str | None, ...]


def numpy_encoder(pipe):
    """The numpy encoder of notebook 02 (it keeps token vectors), loaded once per pipeline."""
    from ragkit.embed.numpy_encoder import NumpyEncoder

    return pipe.cache.stage(("numpy encoder",), NumpyEncoder)


def chunk_token_vectors(pipe) -> list[np.ndarray]:
    """Token vectors of every indexed text (chunk after its context), cached in memory and on disk."""
    from ragkit.cache import cache_dir

    texts = pipe.indexed_texts
    return pipe.cache.stage(("token vectors", pipe.chunk_key, pipe.config.context), lambda: cached_token_vectors(
        numpy_encoder(pipe).token_vectors, texts, cache_dir(), pipe.model_name))


ON_DISK_FROM = 16  # new query texts in one call from which their token vectors are kept on disk


def query_token_vectors(pipe, texts: list[str]) -> list[np.ndarray]:
    """Token vectors of query texts. A long list (an evaluation's queries: the numpy forward pass over Cranfield's
    225 takes seconds) is kept on disk, since a notebook or test run again asks for the same list; a few new
    queries (one typed in a widget, one query timed in 09b or 10) are computed, so nothing piles up per query and
    a timing still times the forward pass."""
    from ragkit.cache import cache_dir

    if len(texts) < ON_DISK_FROM:
        return numpy_encoder(pipe).token_vectors(texts)
    return cached_token_vectors(numpy_encoder(pipe).token_vectors, texts, cache_dir(), pipe.model_name)


def maxsim_for(pipe, queries: Sequence[str], candidates: Sequence[np.ndarray]) -> list[np.ndarray]:
    """MaxSim of each query with each of its candidates, kept by (query, chunk) in the pipeline's memo: a
    slider move that changes a few candidates scores only the queries that have new ones."""
    memo = pipe.cache.memo(("maxsim scores", pipe.chunk_key, pipe.config.context))
    todo = [n for n, (query, rows) in enumerate(zip(queries, candidates, strict=True))
            if any((query, int(i)) not in memo for i in rows)]
    if todo:
        chunk_vectors = pipe.cache.stage(  # float32 once: converting the stored float16 per query cost half the time
            ("token vectors float32", pipe.chunk_key, pipe.config.context),
            lambda: [vectors.astype(np.float32) for vectors in chunk_token_vectors(pipe)])
        by_text = pipe.cache.memo(("query token vectors", pipe.model_name))
        new_texts = list(dict.fromkeys(queries[n] for n in todo if queries[n] not in by_text))
        if new_texts:
            by_text.update(zip(new_texts, query_token_vectors(pipe, new_texts), strict=True))
        for n in todo:
            rows = candidates[n]
            scores = maxsim_scores(by_text[queries[n]], [chunk_vectors[i] for i in rows])
            for i, score in zip(rows, scores, strict=True):
                memo.setdefault((queries[n], int(i)), float(score))  # the first value stays: no drift by batch
    return [np.array([memo[query, int(i)] for i in rows], dtype=float)
            for query, rows in zip(queries, candidates, strict=True)]


def features_for(pipe, queries: Sequence[str], candidates: Sequence[np.ndarray]) -> list[np.ndarray]:
    """The learning-to-rank features (`ragkit.rank.features`) of each query's candidates."""
    dense, bm25 = pipe.dense_scores(queries), pipe.bm25_scores(queries)
    maxsim, chunks = maxsim_for(pipe, queries, candidates), pipe.chunks
    return [feature_matrix(query, [chunks[i] for i in rows], pipe.docs, dense[n, rows], bm25[n, rows], maxsim[n])
            for n, (query, rows) in enumerate(zip(queries, candidates, strict=True))]


def rerank_scores(pipe, queries: Sequence[str], candidates: Sequence[np.ndarray]) -> list[np.ndarray]:
    """The configured reranker's score of each query's candidates (chunk indices)."""
    config, chunks = pipe.config, pipe.chunks
    if config.rerank == "maxsim":
        return maxsim_for(pipe, queries, candidates)
    if config.rerank == "ltr":
        if pipe.ranker is None or pipe.ranker.objective != config.ltr_objective:
            raise RagkitError("rerank='ltr' needs a trained ranker: call pipe.train_ranker(queries) on labelled "
                              f"training queries ({config.ltr_objective}); the eval command trains on --train-split")
        return [pipe.ranker.scores(rows) for rows in features_for(pipe, queries, candidates)]
    if config.rerank == "llm":  # kept by (query, chunk): a slider move asks the model only about new candidates
        memo = pipe.cache.memo(("llm scores", pipe.chunk_key, config.context, pipe.language_model))
        for query, rows in zip(queries, candidates, strict=True):
            new = [int(i) for i in rows if (query, int(i)) not in memo]
            if new:
                scores = llm_scores(pipe.language_model, query, [chunks[i] for i in new])
                memo.update({(query, i): score for i, score in zip(new, scores, strict=True)})
        return [np.array([memo[query, int(i)] for i in rows], dtype=float)
                for query, rows in zip(queries, candidates, strict=True)]
    model = pipe.cache.stage(("cross-encoder", config.rerank_model), lambda: load_cross_encoder(config.rerank_model))
    return [cross_encoder_scores(model, query, [pipe.indexed_texts[i] for i in rows])
            for query, rows in zip(queries, candidates, strict=True)]


def diversified(pipe, scores: np.ndarray, depth: int) -> list[np.ndarray]:
    """Per query (row of `scores`), the indices of its best `depth` chunks after MMR (`mmr_lambda`)."""
    config = pipe.config
    fetch = config.mmr_fetch if config.mmr_lambda is not None else 0
    best = top_k(scores, min(max(depth, fetch), scores.shape[1]))
    if config.mmr_lambda is not None:  # the diversify stage: re-order each query's first mmr_fetch
        vectors = pipe.chunk_embeddings if config.mmr_similarity == "embedding" else None
        best = mmr_rerank(best, scores, vectors, [chunk.doc_id for chunk in pipe.chunks], config.mmr_lambda, fetch)
    return [row[:depth] for row in best]


def candidates(pipe, queries: Sequence[str], depth: int,
               judged_as: Sequence[str] | None = None) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Each query's best `depth` chunk indices (after MMR, reranked when configured) with their scores; the
    reranker scores them for `judged_as` (default: the queries themselves; the original query after a rewrite)."""
    scores = pipe.scores(queries)
    config = pipe.config
    wanted = max(depth, config.rerank_depth) if config.rerank != "none" else depth
    rows = diversified(pipe, scores, wanted)
    if config.rerank == "none":
        return rows, [row_scores[row] for row_scores, row in zip(scores, rows, strict=True)]
    heads = [row[:config.rerank_depth] for row in rows]
    new = rerank_scores(pipe, judged_as or queries, heads)
    orders = [np.argsort(-head_scores, kind="stable") for head_scores in new]  # ties keep first-stage order
    reranked = [np.r_[head[order], row[len(head):]][:depth] for head, order, row in zip(heads, orders, rows,
                                                                                        strict=True)]
    # chunks behind the reranked head keep their first-stage order, below every reranked one
    return reranked, [np.r_[s[o], np.full(max(0, len(r) - len(s)), -np.inf)][:len(r)]
                      for s, o, r in zip(new, orders, reranked, strict=True)]


def retrieve(pipe, queries: Sequence[str], depth: int) -> Retrieval:
    """Candidates, rerank, then refusal (with a rewrite first when `rewrite="llm"`), for each query."""
    config, queries = pipe.config, list(queries)
    indices, scores = candidates(pipe, queries, depth)
    top = np.array([float(row[0]) if len(row) else -np.inf for row in scores])
    rewrites: list[str | None] = [None] * len(queries)
    if config.threshold is None:
        return Retrieval(indices, scores, top, np.zeros(len(queries), dtype=bool), tuple(rewrites))
    if config.rewrite == "llm":
        for n in np.flatnonzero(top < config.threshold):  # seed 001: reformulate and retry, judged on the original
            rewrites[n] = rewritten_query(pipe.language_model, queries[n])
            (row,), (row_scores,) = candidates(pipe, [rewrites[n]], depth, judged_as=[queries[n]])
            best = float(row_scores[0]) if len(row_scores) else -np.inf
            if best >= config.threshold:
                indices[n], scores[n], top[n] = row, row_scores, best
    refused = top < config.threshold
    indices = [row[:0] if no else row for row, no in zip(indices, refused, strict=True)]
    scores = [row[:0] if no else row for row, no in zip(scores, refused, strict=True)]
    return Retrieval(indices, scores, top, refused, tuple(rewrites))


def train_ranker(pipe, queries: Sequence[Query], judgments: Sequence | None = None):
    """Fit the learning-to-rank model (`ltr_objective`) on each labelled query's first-stage candidates
    (`rerank_depth` of them): a candidate is relevant when it answers a part of the query. `judgments`
    (default: from the queries' evidence) give the labels, for example a BEIR folder's qrels."""
    if not queries:
        raise RagkitError("learning to rank needs labelled training queries; got none")
    first = pipe.using(rerank="none", threshold=None, rewrite="none")
    texts = [query.text for query in queries]
    rows = candidates(first, texts, pipe.config.rerank_depth)[0]
    judgments, chunks = judgments or cached_judgments(pipe, queries), pipe.chunks
    labels = [[bool(hit) for hit in ranking_hits([chunks[i] for i in row], judgment)]
              for row, judgment in zip(rows, judgments, strict=True)]
    features = features_for(first, texts, rows)
    groups = np.concatenate([np.full(len(row), n) for n, row in enumerate(rows)])
    return fit_ranker(np.vstack(features), np.concatenate(labels).astype(int), groups, FEATURES,
                      pipe.config.ltr_objective)
