"""BM25's batch ranking on real text: the compiled default path (`ragkit.index.bm25_topk`) returns the numpy path's
rankings, ties included, on the course corpus and on Cranfield, through both of its ways (every posting added up,
and MaxScore), with short and long queries; the block-by-block build equals a one-block build."""

import json

import numpy as np
import pytest

from ragkit.index import bm25 as bm25_module
from ragkit.index import bm25_build
from ragkit.index.bm25 import BM25Index
from ragkit.index.bm25_topk import compiled_kernel, pruned_rankings
from ragkit.text.analyzer import Analyzer

COMPILED = [False, pytest.param(True, marks=pytest.mark.skipif(compiled_kernel() is None, reason="numba missing"))]


@pytest.fixture(scope="module")
def cranfield(root):
    """Cranfield's documents and queries as stemmed, stop-listed tokens, and long queries: its first 60 abstracts."""
    folder = root / "data" / "cranfield"
    records = [json.loads(line) for line in (folder / "corpus.jsonl").read_text(encoding="utf-8").splitlines()]
    texts = [f"{r['title']}\n{r['text']}".strip() for r in records if (r["title"] + r["text"]).strip()]
    queries = [json.loads(line)["text"] for line in (folder / "queries.jsonl").read_text(encoding="utf-8").splitlines()]
    analyzer = Analyzer("snowball", "en", "split")
    docs = analyzer.tokens_of_all(texts)
    return docs + docs[:40], analyzer.tokens_of_all(queries), docs[:60]  # 40 documents twice: ties to order


@pytest.fixture(scope="module")
def course(course_docs, course_queries):
    """The course's default chunks and all its labelled queries under the pipeline's analyzer (no stop list)."""
    from ragkit.pipeline import Pipeline

    analyzer = Analyzer("snowball", "none", "split")
    chunks = analyzer.tokens_of_all(chunk.text for chunk in Pipeline(course_docs).chunks)
    return chunks, analyzer.tokens_of_all(query.text for query in course_queries)


def numpy_rankings(index, queries, k, k1=None, b=None):
    saved = bm25_module.compiled_kernel
    bm25_module.compiled_kernel = lambda: None
    try:
        return index.rankings(queries, k, k1, b)
    finally:
        bm25_module.compiled_kernel = saved


def kernel_rankings(index, queries, k, compiled, ways):
    values = index.weight_values(index.k1, index.b)
    return pruned_rankings(index.tf.indptr, index.tf.indices, values, index.n_docs,
                           [index.term_ids(q) for q in queries], k, compiled=compiled, ways=ways)


WAYS = {"exhaustive": (10**12, 10**6), "maxscore": (0, 10**6)}  # (exhaustive_postings, maxscore_words)


@pytest.mark.parametrize("way", sorted(WAYS))
@pytest.mark.parametrize("compiled", COMPILED)
def test_both_ways_rank_as_numpy_does(cranfield, course, way, compiled):
    """Every query through one way: all postings added up, or MaxScore (a one-word query always adds up)."""
    docs, queries, long_queries = cranfield
    for corpus, query_sets in ((docs, (queries[:120], long_queries[:30])), (course[0], (course[1],))):
        index = BM25Index(corpus)
        for query_tokens in query_sets:
            for k in (1, 10, 37):
                ranking, done = kernel_rankings(index, query_tokens, k, compiled, WAYS[way])
                assert done.all()
                np.testing.assert_array_equal(ranking, numpy_rankings(index, query_tokens, k),
                                              err_msg=f"{way} (compiled={compiled}) != numpy at k={k}")


def test_the_default_path_ranks_as_numpy_does(cranfield, course):
    """`rankings` as a user calls it, with whichever path is installed: equal to numpy's, ties included."""
    docs, queries, long_queries = cranfield
    for corpus, query_tokens in ((docs, queries + long_queries), (course[0], course[1])):
        for idf, k1, b in (("lucene", None, None), ("lucene", 0.9, 0.4), ("okapi", None, None), ("robertson", 2.0, 1)):
            index = BM25Index(corpus, 1.5, 0.75, idf)
            for k in (1, 10, 50, len(corpus)):
                np.testing.assert_array_equal(index.rankings(query_tokens, k, k1, b),
                                              numpy_rankings(index, query_tokens, k, k1, b),
                                              err_msg=f"default path != numpy path ({idf}, k1={k1}, b={b}, k={k})")


def test_unknown_words_and_bad_queries(course):
    index = BM25Index(course[0])
    ranking = index.rankings([["zzz-unknown"], ["zzz-unknown", *course[1][0]]], 5)
    assert ranking[0].tolist() == [0, 1, 2, 3, 4], "no known word: every score is 0, lowest index first"
    np.testing.assert_array_equal(ranking[1], index.rankings([course[1][0]], 5)[0])
    assert index.rankings([], 3).shape == (0, 3)
    from ragkit.errors import RagkitError

    for bad, message in [("keys", "list of token lists"), ([["keys"], "keys"], "list of token lists"),
                         ([["keys"], []], "no word tokens")]:
        with pytest.raises(RagkitError, match=message):
            index.rankings(bad, 3)


def test_the_block_by_block_build_equals_one_block(cranfield, monkeypatch):
    docs = cranfield[0]
    whole = BM25Index(docs)
    monkeypatch.setattr(bm25_build, "BLOCK_TOKENS", 5_000)  # 30 or so blocks
    monkeypatch.setattr(bm25_module, "WEIGHT_VALUES", 7_000)
    blocks = BM25Index(docs)
    assert blocks.vocab == whole.vocab and list(blocks.vocab) == list(whole.vocab), "same words, numbered in order"
    for name in ("indptr", "indices", "data"):
        np.testing.assert_array_equal(getattr(blocks.tf, name), getattr(whole.tf, name))
    np.testing.assert_array_equal(blocks.weights.data, whole.weights.data)
    assert blocks.tf.data.dtype == np.int32 and blocks.tf.indices.dtype == np.int32, "compact counts and indices"
    first = next(iter(whole.vocab))
    assert whole.tf[whole.vocab[first], 0] == docs[0].count(first), "counts are term frequencies"
    weights = whole.idf[np.repeat(np.arange(len(whole.vocab)), whole.df)] * bm25_module.saturated_tf(
        whole.tf.data, 1.5, 0.75, whole.doc_lengths[whole.tf.indices] / whole.avgdl, scaled=False)
    np.testing.assert_array_equal(whole.weights.data, weights, err_msg="the weights of the formula, to the last bit")
