"""BM25: hand-computed scores, the same scores as bm25s (lucene) and rank_bm25 (BM25Okapi), the pruned top-k path
equal to the numpy path, bad input, widgets."""

import math
import warnings

import bm25s
import numpy as np
import pytest
import rank_bm25
from hypothesis import given, settings
from hypothesis import strategies as st

from ragkit.corpus import Document, Query
from ragkit.embed.model import Encoder
from ragkit.errors import RagkitError
from ragkit.evaluate.relevance import judgments_from_queries
from ragkit.evaluate.tables import per_query_metrics
from ragkit.index import bm25 as bm25_module
from ragkit.index.bm25 import BM25Index, bm25_scores, idf_values, saturated_tf
from ragkit.index.bm25_topk import compiled_kernel, pruned_rankings
from ragkit.pipeline import Pipeline
from ragkit.text.words import tokenize_all
from ragkit.widgets.bm25 import (
    bm25_update,
    curve_widget,
    length_curve,
    mean_recall,
    ranking_table,
    ranking_widget,
    saturation_curve,
)

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


# --- the pruned top-k path (ragkit.index.bm25_topk) equals the numpy path -----------------------------------

KERNELS = [False, pytest.param(True, marks=pytest.mark.skipif(compiled_kernel() is None, reason="numba missing"))]


def plain_rankings(index, query_tokens, k, k1=None, b=None):
    """The numpy path's rule written out: a stable sort of every score, cut at k (equal scores: lower index first)."""
    return np.argsort(-index.scores(query_tokens, k1, b), axis=1, kind="stable")[:, :k]


# the kernel's two ways, forced: (exhaustive_postings, maxscore_words); None: its own choice per query
WAYS = {"chosen": None, "all-postings": (10**12, 10**6), "maxscore": (0, 10**6)}


def pruned(index, query_tokens, k, compiled, k1=None, b=None, ways=None):
    values = index.weight_values(index.k1 if k1 is None else k1, index.b if b is None else b)
    return pruned_rankings(index.tf.indptr, index.tf.indices, values, index.n_docs,
                           [index.term_ids(tokens) for tokens in query_tokens], k, compiled=compiled, ways=ways)


def check_pruned_equals_plain(index, query_tokens, k, compiled, k1=None, b=None, ways=None):
    ranking, done = pruned(index, query_tokens, k, compiled, k1, b, ways)
    expected = plain_rankings(index, query_tokens, k, k1, b)
    for row, tokens in enumerate(query_tokens):
        negative = any(index.weight_values(index.k1 if k1 is None else k1, index.b if b is None else b)[
            index.tf.indptr[i]:index.tf.indptr[i + 1]].min() < 0 for i in index.term_ids(tokens))
        assert done[row] != negative, "the pruned path ranks every query without a negative weight, and only those"
        if done[row]:
            np.testing.assert_array_equal(ranking[row], expected[row], err_msg=f"pruned != plain for {tokens}, k={k}")


@pytest.mark.parametrize("way", sorted(WAYS))
@pytest.mark.parametrize("compiled", KERNELS)
@settings(max_examples=60, deadline=None)
@given(corpus=corpora, query_tokens=queries, k1_b=parameters, idf=st.sampled_from(["lucene", "okapi", "robertson"]),
       k=st.integers(1, 12), copies=st.integers(0, 3))
def test_pruned_rankings_equal_the_numpy_path_on_generated_corpora(compiled, way, corpus, query_tokens, k1_b, idf, k,
                                                                   copies):
    corpus = corpus + corpus[:copies]  # repeated documents: equal scores, to be ordered by index
    index = BM25Index(corpus, *k1_b, idf)
    check_pruned_equals_plain(index, query_tokens, min(k, index.n_docs), compiled, ways=WAYS[way])


@pytest.mark.parametrize("way", sorted(WAYS))
@pytest.mark.parametrize("compiled", KERNELS)
def test_pruned_rankings_equal_the_numpy_path_on_a_zipf_corpus(compiled, way):
    """Thousands of documents, so that both ways and every branch run: MaxScore's pool, its lookups, rows skipped,
    galloping and whole rows for the candidates, every posting added up, near ties summed again."""
    rng = np.random.default_rng(5)
    n_docs, n_queries = (3000, 300) if compiled else (600, 40)
    probabilities = 1.0 / np.arange(1, 3001) ** 1.07
    words = rng.choice(3000, size=n_docs * 40, p=probabilities / probabilities.sum())
    corpus = [[f"w{i}" for i in words[j * 40:j * 40 + rng.integers(3, 40)]] for j in range(n_docs)]
    corpus += corpus[:n_docs // 10]
    query_tokens = [[*(corpus[rng.integers(n_docs)][j] for j in range(rng.integers(1, 4))),
                     *(f"w{i}" for i in rng.integers(0, 60, rng.integers(0, 6))), "unseen"] for _ in range(n_queries)]
    for idf, k1, b in [("lucene", None, None), ("lucene", 0.5, 0.3), ("okapi", None, None), ("robertson", 2.0, 1.0)]:
        index = BM25Index(corpus, 1.2, 0.75, idf)
        for k in (1, 10, 60):
            check_pruned_equals_plain(index, query_tokens, k, compiled, k1, b, WAYS[way])


@pytest.mark.parametrize("compiled", KERNELS)
def test_pruned_rankings_edge_cases(compiled):
    index = BM25Index([["a", "b"], ["b"], ["c"], ["a", "a"], ["d"], ["b"]])
    ranking, done = pruned(index, [["a"], ["zzz"], ["a", "zzz", "a"], ["b", "c"]], 5, compiled)
    assert done.all(), "positive weights: every query ranked by the pruned path"
    assert ranking.tolist() == plain_rankings(index, [["a"], ["zzz"], ["a", "zzz", "a"], ["b", "c"]], 5).tolist()
    assert ranking[0].tolist() == [3, 0, 1, 2, 4], "k beyond the matches: the others follow, lowest index first"
    assert ranking[1].tolist() == [0, 1, 2, 3, 4], "unknown words only: every score is 0, lowest index first"
    robertson = BM25Index([["a"], ["a"], ["a", "b"]], idf="robertson")  # "a" in all 3 documents: negative IDF
    assert pruned(robertson, [["a"], ["b"]], 2, compiled)[1].tolist() == [False, True], \
        "a negative weight leaves the query to the numpy path"


@pytest.mark.parametrize("compiled", KERNELS)
def test_pruned_rankings_refuse_a_k_the_documents_cannot_fill(compiled):
    index = BM25Index([["a", "b"], ["b"]])
    assert pruned(index, [["a"]], 2, compiled)[0].tolist() == [[0, 1]]
    for k in (3, 4):  # the compiled loop used to make up document indices beyond the 2
        with pytest.raises(RagkitError, match=f"k={k} is larger than the number of documents \\(2\\)"):
            pruned(index, [["a"]], k, compiled)
    for k in (0, -1, 1.5):
        with pytest.raises(RagkitError, match="k must be a positive integer"):
            pruned(index, [["a"]], k, compiled)


@pytest.mark.parametrize("compiled", KERNELS)
def test_pruned_rankings_leave_a_row_with_any_negative_weight_to_numpy(compiled):
    # BM25's rows share their IDF's sign; a row given directly may mix signs, its largest weight positive
    dense = np.array([[-1.0, 1.0, 2.0, 0.0], [0.0, 0.5, 0.0, 0.25]])
    indptr, indices, values = np.array([0, 3, 5]), np.array([0, 1, 2, 1, 3]), np.array([-1.0, 1.0, 2.0, 0.5, 0.25])
    ranking, done = pruned_rankings(indptr, indices, values, 4, [[0], [1], [1, 0]], 4, compiled=compiled)
    assert done.tolist() == [False, True, False], "a negative weight in any row of the query leaves it to numpy"
    assert ranking[1].tolist() == np.argsort(-dense[1], kind="stable").tolist() == [1, 3, 0, 2]


@pytest.mark.parametrize("compiled", KERNELS)
@pytest.mark.parametrize("indices", [[2, 0, 1, 3], [0, 2, 1, 3], [0, 0, 1, 3], [0, 1, 2, 4]],
                         ids=["unsorted", "unsorted-end", "repeated", "beyond-n_docs"])
def test_pruned_rankings_refuse_rows_whose_document_indices_do_not_increase(compiled, indices):
    indptr, values = np.array([0, 3, 4]), np.array([1.0, 2.0, 3.0, 1.0])
    ranking, done = pruned_rankings(indptr, np.array([0, 1, 2, 0]), values, 4, [[0, 1]], 2, compiled=compiled)
    assert ranking.tolist() == [[2, 0]] and done.all(), "a row may start below where the one before it ended"
    with pytest.raises(RagkitError, match="document indices must increase .* below n_docs=4"):
        pruned_rankings(indptr, np.array(indices), values, 4, [[0, 1]], 2, compiled=compiled)


def test_rankings_are_the_same_with_and_without_numba(monkeypatch):
    rng = np.random.default_rng(9)
    corpus = [list(rng.choice(list("abcdefghij"), size=rng.integers(1, 12))) for _ in range(300)]
    query_tokens = [list(rng.choice(list("abcdefghijz"), size=rng.integers(1, 6))) for _ in range(50)]
    for idf in ("lucene", "robertson"):
        index = BM25Index(corpus + corpus[:30], idf=idf)
        fast = index.rankings(query_tokens, 10, k1=0.9, b=0.4)
        monkeypatch.setattr(bm25_module, "compiled_kernel", lambda: None)  # as if numba were not installed
        np.testing.assert_array_equal(index.rankings(query_tokens, 10, k1=0.9, b=0.4), fast)
        np.testing.assert_array_equal(fast, plain_rankings(index, query_tokens, 10, 0.9, 0.4))
        monkeypatch.undo()


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


# --- widget callbacks: they drive the shared pipeline ------------------------------------------------------

def recall_of_a_fresh_index(chunk_tokens, chunks, queries, docs, k1, b, k=5):
    """recall@k of a full stable sort of scores from an index built anew with (k1, b): independent of the
    pipeline's cached statistics and its re-weighting."""
    scores = BM25Index(chunk_tokens, k1, b).scores(tokenize_all(q.text for q in queries))
    rankings = [[chunks[i] for i in row] for row in np.argsort(-scores, axis=1, kind="stable")[:, :k]]
    return per_query_metrics(rankings, judgments_from_queries(queries, docs), [f"recall@{k}"])[f"recall@{k}"].mean()


def test_bm25_update_configures_the_pipeline_and_the_recall_follows(course, course_docs, course_queries):
    pipe, chunk_tokens, _ = course
    dev = [q for q in course_queries if q.split == "dev" and q.evidence]
    shown = next(i for i, q in enumerate(dev) if q.query_id == "api-001")
    bm25 = pipe.using(method="bm25", stemmer="none", stopwords="none", identifiers="whole")  # the plain words
    seen = []
    for k1, b in [(1.2, 0.5), (0.3, 1.0)]:
        recall, table = bm25_update(bm25, dev, shown, k1, b)
        assert (bm25.config.k1, bm25.config.b) == (k1, b), "the callback sets the pipeline's knobs"
        expected = recall_of_a_fresh_index(chunk_tokens, bm25.chunks, dev, course_docs, k1, b)
        assert recall == pytest.approx(expected, abs=1e-12), \
            f"the widget's recall must equal recall@5 of a freshly built k1={k1}, b={b} index"
        assert table["rank"].tolist() == [1, 2, 3, 4, 5] and table["score"].is_monotonic_decreasing
        fresh = BM25Index(chunk_tokens, k1, b).scores(tokenize_all([dev[shown].text]))[0]
        assert table["chunk"].tolist() == [bm25.chunks[i].chunk_id for i in np.argsort(-fresh, kind="stable")[:5]], \
            "the table is the pipeline's ranking under the new k1, b"
        seen.append(recall)
    assert seen[0] != seen[1], "a different k1, b gives a different recall on the dev queries"
    assert "yes" in table["relevant"].tolist(), "the top 5 for 'TS-203 meaning' hold the evidence"
    assert pipe.config.k1 == 1.5, "a variant made with `using` leaves the original pipeline as it was"


def test_widgets_wire_controls_to_the_pipeline(course, course_queries):
    import matplotlib

    matplotlib.use("Agg")
    pipe, _, _ = course
    bm25 = pipe.using(method="bm25")
    dev = [q for q in course_queries if q.split == "dev" and q.evidence]
    k1_slider, k1_image = curve_widget(bm25, "k1").children
    b_slider, b_image = curve_widget(bm25, "b").children
    pictures = k1_image.value, b_image.value
    k1_slider.value = 0.5
    b_slider.value = 0.25
    assert (bm25.config.k1, bm25.config.b) == (0.5, 0.25), "the curve sliders set the pipeline's k1 and b"
    assert (k1_image.value, b_image.value) != pictures and b_image.value != pictures[1], "the curves redraw"
    assert all(int(s.layout.width.removesuffix("px")) >= 400 for s in (k1_slider, b_slider)), "long sliders"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        before = mean_recall(bm25, dev)
        box = ranking_widget(bm25, dev)
        box.children[1].children[0].value = 3.0
        box.children[1].children[1].value = 1.0
    assert (bm25.config.k1, bm25.config.b) == (3.0, 1.0), "the ranking sliders set the pipeline's k1 and b"
    assert mean_recall(bm25, dev) != before, "and the recall the widget shows moves with them"
    assert len(box.children) == 3, "query menu, sliders, output"


def test_ranking_table_of_an_unanswerable_query(tmp_path):
    docs = [Document("a", "A", "faq", "2025-01-01", "en", "alpha"), Document("b", "B", "faq", "2025-01-01", "en", "beta")]
    pipe = Pipeline(docs, encoder=Encoder(cache_folder=tmp_path), method="bm25", chunk_size=None)
    table = ranking_table(pipe, Query("q", "beta", "en", "unanswerable", "dev", (), ""), k=2)
    assert table["chunk"].tolist() == ["b#0", "a#0"] and set(table["relevant"]) == {""}, "no evidence, no marks"
