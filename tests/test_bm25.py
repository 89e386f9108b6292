"""BM25: hand-computed scores, the same scores as bm25s (lucene) and rank_bm25 (BM25Okapi), bad input, widgets."""

import math
import warnings

import bm25s
import numpy as np
import pytest
import rank_bm25
from hypothesis import given, settings
from hypothesis import strategies as st

from ragkit.bm25 import BM25Index, bm25_scores, idf_values, saturated_tf
from ragkit.bm25_widgets import (
    curve_widget,
    length_curve,
    mean_recall,
    ranking_table,
    ranking_widget,
    saturation_curve,
)
from ragkit.chunking import Chunk
from ragkit.errors import RagkitError
from ragkit.evaluation import per_query_metrics
from ragkit.pipeline import Pipeline
from ragkit.relevance import Judgment, Target, judgments_from_queries
from ragkit.words import tokenize_all

RTOL = 1e-6  # the design's tolerance against the reference libraries
ATOL = 1e-9  # scores that are zero up to rounding (positive and negative IDFs cancelling)


def bm25s_scores(corpus_tokens, query_tokens, k1, b, method="lucene"):
    """bm25s's full score vectors, in float64 (its default float32 would not hold rtol 1e-6)."""
    retriever = bm25s.BM25(method=method, k1=k1, b=b, dtype="float64")
    retriever.index(corpus_tokens, show_progress=False)
    return np.array([retriever.get_scores(tokens) for tokens in query_tokens])


def okapi_scores(corpus_tokens, query_tokens, k1, b):
    reference = rank_bm25.BM25Okapi(corpus_tokens, k1=k1, b=b)
    return np.array([reference.get_scores(tokens) for tokens in query_tokens])


@pytest.fixture(scope="module")
def course(course_docs, course_queries, encoder):
    pipe = Pipeline(course_docs, encoder=encoder)
    chunk_tokens = tokenize_all(chunk.text for chunk in pipe.chunks)
    query_tokens = tokenize_all(query.text for query in course_queries)
    return pipe, chunk_tokens, query_tokens


# --- known answers ---------------------------------------------------------------------------------------

def test_idf_variants_on_three_documents():
    df = np.array([1, 2, 3])
    robertson = [math.log(2.5 / 1.5), math.log(1.5 / 2.5), math.log(0.5 / 3.5)]
    np.testing.assert_allclose(idf_values(df, 3, "robertson"), robertson, rtol=1e-12,
                               err_msg="Robertson IDF is log((N - n + 0.5) / (n + 0.5))")
    np.testing.assert_allclose(idf_values(df, 3, "lucene"), np.log1p(np.exp(robertson)), rtol=1e-12,
                               err_msg="Lucene IDF is log(1 + (N - n + 0.5) / (n + 0.5))")
    floor = 0.25 * np.mean(robertson)
    np.testing.assert_allclose(idf_values(df, 3, "okapi"), [robertson[0], floor, floor], rtol=1e-12,
                               err_msg="okapi floors negative IDFs to 0.25 × the mean IDF (negative here)")
    assert (idf_values(np.arange(1, 101), 100, "lucene") > 0).all(), "Lucene IDF must stay positive"


def test_scores_by_hand():
    corpus = [["a", "b"], ["b", "c", "c"], ["d"]]
    k1, b, avgdl = 1.2, 0.75, 2.0
    idf_c = math.log(1 + (3 - 1 + 0.5) / (1 + 0.5))
    expected = idf_c * 2 / (2 + k1 * (1 - b + b * 3 / avgdl))  # "c" twice in a 3-word document
    scores = bm25_scores(corpus, [["c"]], k1=k1, b=b)
    assert scores.shape == (1, 3), "one row per query, one column per document"
    assert scores[0, 1] == pytest.approx(expected, rel=1e-12), "lucene BM25 of 'c' in document 1"
    assert scores[0, 0] == scores[0, 2] == 0, "documents without the word score 0"
    robertson = BM25Index(corpus, k1, b, "robertson").scores([["c"]])[0, 1]
    assert robertson == pytest.approx(math.log(2.5 / 1.5) * 2 * (k1 + 1) / (2 + k1 * 1.375), rel=1e-12), \
        "the textbook formula keeps the (k1 + 1) factor"


def test_saturation_and_length_curves():
    tf, weights = saturation_curve(1.2, tf_max=50)
    assert (np.diff(weights) > 0).all() and weights[-1] < 2.2, "weight grows with tf but stays below k1 + 1"
    assert saturation_curve(0.0, tf_max=5)[1].tolist() == [0, 1, 1, 1, 1, 1], "k1 = 0: only presence counts"
    ratios, weights = length_curve(1.0, k1=1.5, tf=3)
    assert (np.diff(weights) < 0).all(), "b = 1: longer chunks get a lower weight for the same tf"
    assert np.ptp(length_curve(0.0)[1]) == 0, "b = 0: length does not matter"
    assert saturated_tf(1, 1.5, 0.75, 1.0) == pytest.approx(1.0), "tf = 1 in an average chunk weighs 1 (× IDF)"


def test_repeated_and_unknown_query_words():
    index = BM25Index([["a", "b"], ["b", "c"]])
    once, twice = index.scores([["a"], ["a", "a"]])
    np.testing.assert_allclose(twice, 2 * once, rtol=1e-12, err_msg="a repeated query word counts twice")
    assert not index.scores([["zzz"]]).any(), "a word outside the vocabulary matches nothing"
    assert index.scores([]).shape == (0, 2), "no queries: an empty score matrix"


def test_rankings_equal_top_k_of_scores_and_break_ties_by_index():
    rng = np.random.default_rng(3)
    corpus = [list(rng.choice(list("abcdefgh"), size=rng.integers(1, 9))) for _ in range(60)]
    queries = [list(rng.choice(list("abcdefghz"), size=3)) for _ in range(20)]
    for idf in ("lucene", "robertson", "okapi"):
        index = BM25Index(corpus, idf=idf)
        expected = np.argsort(-index.scores(queries), axis=1, kind="stable")[:, :10]
        np.testing.assert_array_equal(index.rankings(queries, 10), expected,
                                      err_msg=f"rankings must be a stable full sort of the scores, cut at 10 ({idf})")
    assert BM25Index([["a"], ["a"], ["b"]]).rankings([["a"]], 3).tolist() == [[0, 1, 2]], "ties: lower index first"
    tied = BM25Index([["b"], *[["a"]] * 12]).rankings([["a"]], 10)
    assert tied.tolist() == [list(range(1, 11))], "ties at the cut also keep the lower indices"


def test_an_exact_identifier_ranks_the_chunks_that_name_it(course):
    pipe, chunk_tokens, _ = course
    top = BM25Index(chunk_tokens).rankings([["ts-203", "meaning"]], 3)[0]
    assert all("TS-203" in pipe.chunks[i].text for i in top), "BM25's top 3 for 'TS-203 meaning' must name TS-203"


# --- references --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("k1, b", [(1.5, 0.75), (1.2, 0.3), (2.0, 1.0), (0.5, 0.0)])
def test_same_scores_as_bm25s_lucene_on_the_course(course, k1, b):
    _, chunk_tokens, query_tokens = course
    ours = BM25Index(chunk_tokens, k1, b, "lucene").scores(query_tokens)
    np.testing.assert_allclose(ours, bm25s_scores(chunk_tokens, query_tokens, k1, b), rtol=RTOL, atol=ATOL,
                               err_msg=f"ragkit lucene must equal bm25s lucene on the course chunks (k1={k1}, b={b})")


@pytest.mark.parametrize("k1, b", [(1.5, 0.75), (1.2, 0.3)])
def test_same_scores_as_rank_bm25_okapi_on_the_course(course, k1, b):
    _, chunk_tokens, query_tokens = course
    ours = BM25Index(chunk_tokens, k1, b, "okapi").scores(query_tokens)
    np.testing.assert_allclose(ours, okapi_scores(chunk_tokens, query_tokens, k1, b), rtol=RTOL, atol=ATOL,
                               err_msg=f"ragkit okapi must equal rank_bm25 BM25Okapi (k1={k1}, b={b})")


words = st.sampled_from(["api", "key", "ts-203", "token", "rotate", "密钥", "quota", "the", "a"])
corpora = st.lists(st.lists(words, min_size=1, max_size=12), min_size=1, max_size=12)
queries = st.lists(st.lists(st.one_of(words, st.just("unseen")), min_size=1, max_size=5), min_size=1, max_size=4)
parameters = st.tuples(st.floats(0.05, 3.0), st.floats(0.0, 1.0))


@settings(max_examples=60, deadline=None)
@given(corpora, queries, parameters)
def test_same_scores_as_both_libraries_on_generated_corpora(corpus, query_tokens, k1_b):
    k1, b = k1_b
    np.testing.assert_allclose(BM25Index(corpus, k1, b, "lucene").scores(query_tokens),
                               bm25s_scores(corpus, query_tokens, k1, b), rtol=RTOL, atol=ATOL,
                               err_msg="lucene must equal bm25s on a generated corpus")
    np.testing.assert_allclose(BM25Index(corpus, k1, b, "okapi").scores(query_tokens),
                               okapi_scores(corpus, query_tokens, k1, b), rtol=RTOL, atol=ATOL,
                               err_msg="okapi must equal rank_bm25 on a generated corpus (negative IDFs included)")


def test_robertson_is_bm25s_robertson_times_k1_plus_1_when_idfs_are_positive():
    corpus = [["a", "x"], ["b", "y"], ["c", "x"], ["d"], ["e", "y"]]  # every word in fewer than half
    ours = BM25Index(corpus, 1.2, 0.75, "robertson").scores([["x", "a"], ["y"]])
    reference = bm25s_scores(corpus, [["x", "a"], ["y"]], 1.2, 0.75, method="robertson") * 2.2
    np.testing.assert_allclose(ours, reference, rtol=RTOL, err_msg="robertson = bm25s robertson × (k1 + 1)")


@settings(max_examples=30, deadline=None)
@given(corpora, queries, parameters)
def test_changing_k1_and_b_equals_rebuilding(corpus, query_tokens, k1_b):
    k1, b = k1_b
    for idf in ("lucene", "okapi"):
        np.testing.assert_allclose(BM25Index(corpus, idf=idf).scores(query_tokens, k1=k1, b=b),
                                   BM25Index(corpus, k1, b, idf).scores(query_tokens), rtol=1e-12, atol=1e-12,
                                   err_msg="re-weighting with new k1, b must equal a fresh index")


# --- bad input ---------------------------------------------------------------------------------------------

def test_bad_input_is_explained():
    with pytest.raises(RagkitError, match="corpus is empty"):
        BM25Index([])
    with pytest.raises(RagkitError, match="no words"):
        BM25Index([[], []])
    with pytest.raises(RagkitError, match="list of token lists"):
        BM25Index(["rotate keys", "expire"])
    for k1, b in [(-0.1, 0.75), (float("nan"), 0.75), (1.5, 1.1), (1.5, -0.2), ("1", 0.5)]:
        with pytest.raises(RagkitError, match="k1 must|b must"):
            BM25Index([["a"]], k1, b)
    with pytest.raises(RagkitError, match="unknown IDF"):
        BM25Index([["a"]], idf="bm25+")
    index = BM25Index([["a"], ["b"]])
    with pytest.raises(RagkitError, match="no word tokens"):
        index.scores([[]])
    with pytest.raises(RagkitError, match="list of token lists"):
        index.scores(["a", "b"])
    with pytest.raises(RagkitError, match="b must"):
        index.scores([["a"]], b=2.0)
    with pytest.raises(RagkitError, match="positive integer"):
        index.rankings([["a"]], 0)
    with pytest.raises(RagkitError, match="larger than the number of documents"):
        index.rankings([["a"]], 3)


# --- widget callbacks --------------------------------------------------------------------------------------

def test_ranking_table_and_mean_recall_on_the_course(course, course_docs, course_queries):
    pipe, chunk_tokens, _ = course
    dev = [q for q in course_queries if q.split == "dev" and q.evidence]
    judgments = judgments_from_queries(dev, course_docs)
    index = BM25Index(chunk_tokens)
    query = next(i for i, q in enumerate(dev) if q.query_id == "api-001")
    table = ranking_table(index, pipe.chunks, tokenize_all([dev[query].text])[0], 1.5, 0.75, 5, judgments[query])
    assert table["rank"].tolist() == [1, 2, 3, 4, 5], "five rows, best first"
    assert "yes" in table["relevant"].tolist(), "the top 5 for 'TS-203 meaning' hold the evidence"
    assert table["score"].is_monotonic_decreasing, "scores are sorted"
    tokens = tokenize_all(q.text for q in dev)
    ours = mean_recall(index, pipe.chunks, tokens, judgments, 1.2, 0.5, k=5)
    full_sort = np.argsort(-BM25Index(chunk_tokens, 1.2, 0.5).scores(tokens), axis=1, kind="stable")[:, :5]
    expected = per_query_metrics([[pipe.chunks[i] for i in row] for row in full_sort], judgments, ["recall@5"])
    assert ours == pytest.approx(expected["recall@5"].mean(), abs=1e-12), \
        "the slider's recall must equal recall@5 of a full sort of freshly built k1=1.2, b=0.5 scores"
    assert 0 <= ours <= 1, "recall is a share"


def test_widgets_wire_controls_to_the_callbacks(course, course_docs, course_queries):
    import matplotlib

    matplotlib.use("Agg")
    pipe, chunk_tokens, _ = course
    dev = [q for q in course_queries if q.split == "dev" and q.evidence][:10]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Agg cannot "show" a figure; the widget still redraws
        for parameter in ("k1", "b"):
            box = curve_widget(parameter)
            box.children[0].value = 0.5
        box = ranking_widget(BM25Index(chunk_tokens), pipe.chunks, dev, judgments_from_queries(dev, course_docs))
        box.children[1].children[0].value = 2.0
    assert len(box.children) == 3, "query menu, sliders, output"


def test_ranking_table_without_judgment():
    chunks = [Chunk("a#0", "a", 0, 5, "a"), Chunk("b#0", "b", 0, 5, "b")]
    table = ranking_table(BM25Index([["a"], ["b"]]), chunks, ["b"], 1.5, 0.75, k=2)
    assert table["chunk"].tolist() == ["b#0", "a#0"] and set(table["relevant"]) == {""}, "no judgment, no marks"
    judgment = Judgment("q", "keyword", "dev", (Target("a", 0, 1),))
    assert mean_recall(BM25Index([["a"], ["b"]]), chunks, [["b"]], [judgment], 1.5, 0.75, k=1) == 0.0, \
        "the wrong chunk first: recall@1 is 0"
