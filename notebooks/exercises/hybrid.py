"""The checks of notebook 06's exercises (hybrid search): weighted RRF and the keyword score's stop words (part
one, `06_hybrid_search.ipynb`, exercises 1 and 2), routing by language and depth-limited lists (part two,
`06_hybrid_search_verdict.ipynb`, exercises 1 and 2). Each takes the learner's answer first, then `pipe` and
the answerable dev queries `dev`, and raises `AssertionError` saying what is wrong with the answer.

The checks rebuild what they need from the pipeline and ragkit, not from the notebook: dense scores from
`pipe.dense_scores`, BM25 over plain words from `BM25Index`, recall@5 and recall@10 from `per_query_metrics`.
The fusions and the keyword score are written out here as plain loops (reciprocal rank fusion as a dictionary of
sums, the keyword score with Python sets), not taken from `ragkit.rank` or `ragkit.index.keyword`, which the
learner is likely to call. `tests/test_exercises_06.py` shows that each check accepts a right answer computed another way and
rejects plausible wrong ones. Recall means may be given to 3 decimals.
"""

from __future__ import annotations

import numpy as np

from ragkit.evaluate.relevance import judgments_from_queries
from ragkit.evaluate.tables import per_query_metrics
from ragkit.index.bm25 import BM25Index
from ragkit.text.words import tokenize_all, word_tokens

WEIGHTS = [round(0.1 * n, 1) for n in range(1, 11)]   # part one's exercise 1: the sweep 0.1, ..., 1.0
RECALL_TOLERANCE = 5e-4                                # a mean given to 3 decimals passes
SCORES: dict[tuple, object] = {}   # scores and recalls computed once, by the texts of the chunks and queries


def retriever_scores(pipe, dev):
    """The dense and the plain-word BM25 score matrices of the dev queries (one row per query), as the notebook's
    `dense_dev` and `bm25_dev`; kept by the chunks' and queries' texts, so a second check answers at once."""
    key = pipe.score_key("dense"), tuple(chunk.text for chunk in pipe.chunks), tuple(q.text for q in dev)
    if key not in SCORES:
        bm25 = BM25Index(tokenize_all(chunk.text for chunk in pipe.chunks))
        SCORES[key] = (pipe.dense_scores([q.text for q in dev]), bm25.scores(tokenize_all(q.text for q in dev)))
    return SCORES[key]


def ranked_lists(dense_row, bm25_row, depth=None):
    """Each retriever's list of chunk indices, best first (equal scores: lower index first); BM25 returns only
    chunks with a score above 0; `depth` keeps each list's first `depth`."""
    dense_order = sorted(range(len(dense_row)), key=lambda i: (-dense_row[i], i))
    bm25_order = [i for i in sorted(range(len(bm25_row)), key=lambda i: (-bm25_row[i], i)) if bm25_row[i] > 0]
    return dense_order[:depth], bm25_order[:depth]


def rrf_top(lists, weights=(1.0, 1.0), rrf_k=60, k=5):
    """The first `k` chunks of reciprocal rank fusion: each list adds weight / (rrf_k + rank), ranks from 1."""
    fused = {}
    for weight, ranking in zip(weights, lists, strict=True):
        for rank, i in enumerate(ranking, start=1):
            fused[i] = fused.get(i, 0.0) + weight / (rrf_k + rank)
    return sorted(fused, key=lambda i: (-fused[i], i))[:k]


def recall_at(pipe, queries, rankings, k=5):
    """Per-query recall@k (recall@5 unless told) of rankings (lists of chunk indices, best first)."""
    chunks = pipe.chunks
    table = per_query_metrics([[chunks[i] for i in ranking[:k]] for ranking in rankings],
                              judgments_from_queries(queries, pipe.docs), [f"recall@{k}"])
    return table[f"recall@{k}"].to_numpy()


def top_of(scores, k=5):
    """The first `k` (5 unless told) chunk indices of each row of a score matrix (equal scores: lower index
    first)."""
    return np.argsort(-np.asarray(scores, dtype=float), axis=1, kind="stable")[:, :k]


def routed_top10(pipe, dev):
    """Each dev query's top 10 routed by language: BM25's for the Chinese queries, RRF's of dense search and BM25
    for the English ones; kept as `retriever_scores` keeps its scores."""
    key = ("routed", pipe.score_key("dense"), tuple(chunk.text for chunk in pipe.chunks), tuple(q.text for q in dev))
    if key not in SCORES:
        dense, bm25 = retriever_scores(pipe, dev)
        SCORES[key] = np.array([top_of(bm25[row:row + 1], k=10)[0].tolist() if q.lang == "zh"
                                else rrf_top(ranked_lists(dense[row], bm25[row]), k=10) for row, q in enumerate(dev)])
    return SCORES[key]


def routing_recall10(pipe, dev):
    """The mean recall@10 of `routed_top10` over all dev queries, kept the same way."""
    key = ("routed recall@10", pipe.score_key("dense"), tuple(chunk.text for chunk in pipe.chunks),
           tuple(q.text for q in dev))
    if key not in SCORES:
        SCORES[key] = recall_at(pipe, dev, routed_top10(pipe, dev), k=10).mean()
    return SCORES[key]


def check_routed(routed, routed_recall10, pipe, dev):
    dense, bm25 = retriever_scores(pipe, dev)
    assert np.shape(routed) == bm25.shape, "routed does not have one row per dev query and one column per chunk"
    chinese = np.array([q.lang == "zh" for q in dev])
    expected = routed_top10(pipe, dev)
    yours = top_of(routed, k=10)
    assert np.array_equal(yours[chinese], expected[chinese]), \
        "the top 10 of some Chinese dev queries is not BM25's top 10"
    assert np.array_equal(yours[~chinese], expected[~chinese]), \
        "the top 10 of some English dev queries is not the RRF top 10 of dense search and BM25 (constant 60)"
    assert abs(float(routed_recall10) - routing_recall10(pipe, dev)) < RECALL_TOLERANCE, \
        "routed_recall10 is not the mean recall@10 of this routing over all dev queries (each query counted once)"
    return "right"


def multilingual_recalls(pipe, dev):
    """{w: mean dev recall@5 of the multilingual queries under weighted RRF (w for dense search, 1 for BM25)},
    kept as `retriever_scores` keeps its scores."""
    key = ("multilingual", pipe.score_key("dense"), tuple(chunk.text for chunk in pipe.chunks),
           tuple(q.text for q in dev))
    if key not in SCORES:
        SCORES[key] = weighted_sweep(pipe, dev)
    return SCORES[key]


def weighted_sweep(pipe, dev):
    dense, bm25 = retriever_scores(pipe, dev)
    rows = [row for row, q in enumerate(dev) if q.type == "multilingual"]
    lists = [ranked_lists(dense[row], bm25[row]) for row in rows]
    queries = [dev[row] for row in rows]
    return {w: recall_at(pipe, queries, [rrf_top(pair, weights=(w, 1.0)) for pair in lists]).mean() for w in WEIGHTS}


def check_weighted(w, recall, pipe, dev):
    by_w = multilingual_recalls(pipe, dev)
    matches = [x for x in WEIGHTS if abs(float(w) - x) < 1e-9]
    assert matches, "w is not one of the weights 0.1, 0.2, ..., 1.0 of the sweep"
    w, best = matches[0], max(by_w.values())
    assert by_w[w] == best, "this w does not give the highest recall@5 of the multilingual dev queries"
    assert w == min(x for x in WEIGHTS if by_w[x] == best), \
        "this w ties for the highest recall, but it is not the lowest such w"
    assert abs(float(recall) - by_w[w]) < RECALL_TOLERANCE, \
        "recall is not the mean recall@5 of the multilingual dev queries at this w"
    return "right"


def union_counts(pipe, dev):
    """Per dev query, the chunks in dense search's top 20 or BM25's (scoring above 0), kept as `retriever_scores`
    keeps its scores."""
    key = ("depth 20", pipe.score_key("dense"), tuple(chunk.text for chunk in pipe.chunks), tuple(q.text for q in dev))
    if key not in SCORES:
        dense, bm25 = retriever_scores(pipe, dev)
        SCORES[key] = np.array([len(set(dense_top) | set(bm25_top))
                                for dense_top, bm25_top in (ranked_lists(dense[row], bm25[row], depth=20)
                                                            for row in range(len(dev)))])
    return SCORES[key]


def check_depth_counts(counts, pipe, dev):
    expected = union_counts(pipe, dev)
    counts = np.asarray(counts)
    assert counts.shape == (len(dev),), "counts does not hold one count per dev query"
    assert (counts <= 40).all(), "some counts exceed 40, more than two lists of 20 chunks can hold"
    assert not (counts == 40).all() or (expected == 40).all(), "every count is 40: the counts do not depend on " \
        "the query"
    wrong = np.flatnonzero(counts != expected)
    if len(wrong):
        raise AssertionError(f"{len(wrong)} counts are not the number of chunks with a fused score above 0, "
                             f"the first for query {dev[wrong[0]].query_id}")
    return "right"


def keyword_scores(dev, pipe, chunk_stop_words=False, query_stop_words=False, bonus=0.1):
    """Section 5's keyword score of every dev query against every chunk: |Q ∩ D| / |Q ∪ D| + bonus · |Q ∩ D|
    over the word sets, each side with or without its stop words (kept, as `retriever_scores` keeps its own)."""
    key = ("keyword", tuple(chunk.text for chunk in pipe.chunks), tuple(q.text for q in dev), chunk_stop_words,
           query_stop_words, bonus)
    if key not in SCORES:
        SCORES[key] = keyword_loop(dev, pipe, chunk_stop_words, query_stop_words, bonus)
    return SCORES[key]


def keyword_loop(dev, pipe, chunk_stop_words, query_stop_words, bonus):
    chunk_sets = [set(word_tokens(chunk.text, chunk_stop_words)) for chunk in pipe.chunks]
    scores = np.zeros((len(dev), len(chunk_sets)))
    for row, q in enumerate(dev):
        query_set = set(word_tokens(q.text, query_stop_words))
        for column, chunk_set in enumerate(chunk_sets):
            shared, either = len(query_set & chunk_set), len(query_set | chunk_set)
            scores[row, column] = (shared / either if either else 0.0) + bonus * shared
    return scores


def same(scores, reference):
    return np.shape(scores) == reference.shape and np.abs(np.asarray(scores, dtype=float) - reference).max() < 1e-12


def check_keyword_stop_words(kept_scores, kept_recall, pipe, dev):
    expected = keyword_scores(dev, pipe)
    assert np.shape(kept_scores) == expected.shape, \
        "kept_scores does not have one row per dev query and one column per chunk"
    if not same(kept_scores, expected):
        for stop_words, told in [((True, True), "these are the scores with stop words dropped, as in section 5"),
                                 ((False, True), "stop words are kept in the chunks but dropped from the queries"),
                                 ((True, False), "stop words are kept in the queries but dropped from the chunks")]:
            assert not same(kept_scores, keyword_scores(dev, pipe, *stop_words)), told
        assert not same(kept_scores, keyword_scores(dev, pipe, bonus=0.0)), \
            "these scores have no bonus for the shared words"
        raise AssertionError("kept_scores are not section 5's keyword scores with stop words kept")
    expected_recall = recall_at(pipe, dev, top_of(expected)).mean()
    assert abs(float(kept_recall) - expected_recall) < RECALL_TOLERANCE, \
        "kept_recall is not the mean recall@5 over all dev queries of the rankings these scores give"
    return "right"
