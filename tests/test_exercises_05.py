"""Notebook 05's exercise checks (`notebooks/exercises/bm25.py`): each accepts a right answer computed here apart
from the check's code and the notebook's solution (bm25s for the BM25 scores, a hand-written formula for the tiny
corpus), rejects the plausible wrong answers a learner would give, and no message gives the answer away."""

import math

import bm25s
import numpy as np
import pandas as pd
import pytest
from helpers import exercise_checks, messages_showing, rejection_messages

from ragkit.evaluate.relevance import judgments_from_queries
from ragkit.evaluate.tables import per_query_metrics
from ragkit.index.bm25 import BM25Index
from ragkit.text.words import tokenize_all

checks = exercise_checks("bm25")
K1S, BS = [0.5, 0.9, 1.2, 1.5, 2.0, 3.0], [0.0, 0.25, 0.5, 0.75, 1.0]
TINY = [["windy", "in", "london", "today"], ["windy", "in", "athens"], ["rain", "in", "oslo", "today"]]


@pytest.fixture(scope="module")
def data(course_pipe, course_queries):
    answerable = [q for q in course_queries if q.split == "dev" and q.evidence]
    chunks = course_pipe.chunks
    return {"pipe": course_pipe, "answerable": answerable, "chunks": chunks,
            "chunk_tokens": tokenize_all(chunk.text for chunk in chunks),
            "judgments": judgments_from_queries(answerable, course_pipe.docs)}


def bm25s_scores(corpus_tokens, query_tokens, k1=1.5, b=0.75):
    retriever = bm25s.BM25(method="lucene", k1=k1, b=b, dtype="float64")
    retriever.index(corpus_tokens, show_progress=False)
    return np.array([retriever.get_scores(tokens) for tokens in query_tokens])


def mean_recall(data, scores, k):
    """Mean recall@k of the answerable dev queries ranked by a score matrix (a stable sort: ties, lower index)."""
    top = np.argsort(-scores, axis=1, kind="stable")[:, :k]
    table = per_query_metrics([[data["chunks"][i] for i in row] for row in top], data["judgments"], [f"recall@{k}"])
    return table[f"recall@{k}"].mean()


# --- part one, exercise 1: which document wins for windy today? ---------------------------------------------

QUERY = ["windy", "today"]


def tiny_by_hand(idf_of, words=QUERY):
    """The textbook's BM25 (with k1 + 1) of each tiny document for `words`; `idf_of(N, n)` is the IDF."""
    avgdl = sum(map(len, TINY)) / len(TINY)
    scores = [0.0] * len(TINY)
    for word in words:
        idf = idf_of(len(TINY), sum(word in doc for doc in TINY))
        for d, doc in enumerate(TINY):
            tf = doc.count(word)
            scores[d] += idf * tf * 2.5 / (tf + 1.5 * (0.25 + 0.75 * len(doc) / avgdl))
    return scores


def robertson_idf(N, n):
    return math.log((N - n + 0.5) / (n + 0.5))


ROBERTSON = tiny_by_hand(robertson_idf)
LUCENE = tiny_by_hand(lambda N, n: math.log(1 + (N - n + 0.5) / (n + 0.5)))
RIGHT_WINDY = sorted(range(3), key=lambda d: -ROBERTSON[d])


def test_windy_accepts_the_right_ranking():
    assert RIGHT_WINDY == [2, 1, 0], "by hand: both IDFs are negative, so the document with both words loses most"
    assert checks.check_windy(RIGHT_WINDY) == "right"
    assert checks.check_windy(np.array(RIGHT_WINDY)) == "right"   # the row of `rankings` as it comes
    index = BM25Index(TINY, idf="robertson")
    assert index.rankings([QUERY], k=3)[0].tolist() == RIGHT_WINDY, "ragkit's ranking, as the exercise asks for it"


# For "windy today" the documents' own order, Lucene's order and Robertson's lowest-first all give [0, 1, 2]: one
# wrong answer that three slips reach, listed once (a test below keeps the list free of repeats).
WRONG_WINDY = {
    "Lucene's order (= the documents' own order, = Robertson's lowest first)":
        sorted(range(3), key=lambda d: -LUCENE[d]),
    "windy alone (section 3's table)": sorted(range(3), key=lambda d: -tiny_by_hand(robertson_idf, ["windy"])[d]),
    "today alone": sorted(range(3), key=lambda d: (-tiny_by_hand(robertson_idf, ["today"])[d], d)),
    "a document missing": [2, 1],
    "a document twice": [2, 1, 1],
}


def test_the_wrong_windy_answers_are_distinct_and_the_three_slips_meet():
    assert len({tuple(r) for r in WRONG_WINDY.values()}) == len(WRONG_WINDY)
    lucene = WRONG_WINDY["Lucene's order (= the documents' own order, = Robertson's lowest first)"]
    assert lucene == [0, 1, 2] == sorted(range(3), key=lambda d: ROBERTSON[d])


@pytest.mark.parametrize("ranking", WRONG_WINDY.values(), ids=WRONG_WINDY.keys())
def test_windy_rejects(ranking):
    assert ranking != RIGHT_WINDY
    with pytest.raises(AssertionError):
        checks.check_windy(ranking)


def test_windy_messages_do_not_give_the_ranking_away():
    for message in rejection_messages([lambda r=r: checks.check_windy(r) for r in WRONG_WINDY.values()]):
        assert "2, 1, 0" not in message and "[2" not in message, message


# --- part two, exercise 1: the grid at recall@20 ------------------------------------------------------------

@pytest.fixture(scope="module")
def grids(data):
    """{k: the b × k1 grid of mean recall@k}, from bm25s's scores of the plain words."""
    query_tokens = tokenize_all(q.text for q in data["answerable"])
    values = {5: {}, 10: {}, 20: {}}
    for k1 in K1S:
        for k in values:
            values[k][k1] = {}
        for b in BS:
            scores = bm25s_scores(data["chunk_tokens"], query_tokens, k1, b)
            for k in values:
                values[k][k1][b] = mean_recall(data, scores, k)
    return {k: pd.DataFrame(grid).rename_axis(index="b", columns="k1") for k, grid in values.items()}


def test_grid20_accepts_the_right_grid(data, grids):
    assert checks.check_grid20(grids[20], data["pipe"], data["answerable"]) == "right"


def stemmed_grid20(data):
    """The learner's loop run on the pipeline's default analyzer (stemmed, identifiers split), not plain words."""
    from ragkit.widgets.bm25 import mean_recall as widget_recall

    stemmed = data["pipe"].using(method="bm25")
    return pd.DataFrame({k1: {b: widget_recall(stemmed.configure(k1=k1, b=b), data["answerable"], k=20)
                              for b in BS} for k1 in K1S})


WRONG_GRID20 = {
    "recall@5 again": lambda grids, data: grids[5],
    "k1 and b swapped": lambda grids, data: grids[20].T,
    "configure forgotten: the default everywhere": lambda grids, data: pd.DataFrame(
        grids[20].loc[0.75, 1.5], index=grids[20].index, columns=grids[20].columns),
    "recall@10 not recall@20": lambda grids, data: grids[10],
    "the default analyzer, not plain words": lambda grids, data: stemmed_grid20(data),
}


@pytest.fixture(scope="module")
def wrong_grids(grids, data):
    return {name: make(grids, data) for name, make in WRONG_GRID20.items()}


@pytest.mark.parametrize("name", WRONG_GRID20, ids=WRONG_GRID20.keys())
def test_grid20_rejects(name, wrong_grids, data):
    with pytest.raises(AssertionError):
        checks.check_grid20(wrong_grids[name], data["pipe"], data["answerable"])


def test_grid20_messages_do_not_give_the_values_away(wrong_grids, grids, data):
    told = rejection_messages([lambda g=g: checks.check_grid20(g, data["pipe"], data["answerable"])
                               for g in wrong_grids.values()])
    right_values = {f"{value:.3f}" for value in grids[20].to_numpy().ravel()}
    assert not messages_showing(told, *right_values), told


# --- part two, exercise 2: stop words -----------------------------------------------------------------------

@pytest.fixture(scope="module")
def stop_words(data):
    stop_chunks = tokenize_all((chunk.text for chunk in data["chunks"]), stop_words=True)
    stop_queries = tokenize_all((q.text for q in data["answerable"]), stop_words=True)
    plain_queries = tokenize_all(q.text for q in data["answerable"])
    stop_scores = bm25s_scores(stop_chunks, stop_queries)
    kept_scores = bm25s_scores(data["chunk_tokens"], plain_queries)
    return {"index": BM25Index(stop_chunks), "recall": mean_recall(data, stop_scores, 5),
            "kept index": BM25Index(data["chunk_tokens"]), "kept recall": mean_recall(data, kept_scores, 5),
            "recall@10": mean_recall(data, stop_scores, 10), "stop chunks": stop_chunks}


def test_stop_words_accepts_the_right_answer(data, stop_words):
    assert checks.check_stop_words(stop_words["index"], stop_words["recall"], data["pipe"],
                                   data["answerable"]) == "right"
    assert checks.check_stop_words(stop_words["index"], np.float64(stop_words["recall"]), data["pipe"],
                                   data["answerable"]) == "right"


def stemmed_index(data):
    from ragkit.text.analyzer import Analyzer

    analyzer = Analyzer("snowball", "en", "split")
    return BM25Index([analyzer.tokens(chunk.text) for chunk in data["chunks"]])


WRONG_STOP_WORDS = {
    "stop words kept": lambda s, data: (s["kept index"], s["kept recall"]),
    "the other index's recall": lambda s, data: (s["index"], s["kept recall"]),
    "recall@10 not recall@5": lambda s, data: (s["index"], s["recall@10"]),
    "Lucene's stop list and stemming (the pipeline's analyzer)": lambda s, data: (stemmed_index(data), s["recall"]),
    "k1 = 1.2, b = 0.5": lambda s, data: (BM25Index(s["stop chunks"], k1=1.2, b=0.5), s["recall"]),
    "a percentage": lambda s, data: (s["index"], 100 * s["recall"]),
}


@pytest.mark.parametrize("make", WRONG_STOP_WORDS.values(), ids=WRONG_STOP_WORDS.keys())
def test_stop_words_rejects(make, data, stop_words):
    index, recall = make(stop_words, data)
    with pytest.raises(AssertionError):
        checks.check_stop_words(index, recall, data["pipe"], data["answerable"])


def test_stop_words_messages_do_not_give_the_recall_away(data, stop_words):
    told = rejection_messages([lambda make=make: checks.check_stop_words(*make(stop_words, data), data["pipe"],
                                                                         data["answerable"])
                               for make in WRONG_STOP_WORDS.values()])
    right = stop_words["recall"]
    assert not messages_showing(told, f"{right:.3f}", f"{right:.2f}"), told


# --- part one, exercise 2: a score by hand ------------------------------------------------------------------

WORD, CHUNK = "us-west-2", "rb-platform-operations#4"


@pytest.fixture(scope="module")
def scores(data):
    chunk = next(n for n, c in enumerate(data["chunks"]) if c.chunk_id == CHUNK)
    lucene = bm25s_scores(data["chunk_tokens"], [[WORD]])[0]
    tokens, lengths = data["chunk_tokens"], np.array([len(tokens) for tokens in data["chunk_tokens"]])
    n_t, N, tf = sum(WORD in doc for doc in tokens), len(tokens), tokens[chunk].count(WORD)
    assert tf > 1, "the word occurs more than once: saturation matters"

    def by_hand(idf, length_ratio, count=tf):
        return idf * count / (count + 1.5 * (0.25 + 0.75 * length_ratio))

    lucene_idf = math.log(1 + (N - n_t + 0.5) / (n_t + 0.5))
    characters = np.array([len(c.text) for c in data["chunks"]])
    return {"right": lucene[chunk], "best chunk": lucene.max(),
            "robertson": by_hand(math.log((N - n_t + 0.5) / (n_t + 0.5)), lengths[chunk] / lengths.mean()),
            "no length": by_hand(lucene_idf, 1.0),
            "counted once": by_hand(lucene_idf, lengths[chunk] / lengths.mean(), count=1),
            "characters": by_hand(lucene_idf, characters[chunk] / characters.mean()),
            "log10": by_hand(math.log10(1 + (N - n_t + 0.5) / (n_t + 0.5)), lengths[chunk] / lengths.mean())}


def test_score_accepts_the_right_score(data, scores):
    assert checks.check_score(scores["right"], data["pipe"]) == "right"
    assert checks.check_score(float(scores["right"]), data["pipe"]) == "right"


WRONG_SCORES = {
    "the textbook's (k1 + 1) factor": lambda s: 2.5 * s["right"],
    "length ignored (b = 0)": lambda s: s["no length"],
    "the best chunk's score, not this one's": lambda s: s["best chunk"],
    "the word counted once, not as often as it occurs": lambda s: s["counted once"],
    "Robertson's IDF, not Lucene's": lambda s: s["robertson"],
    "lengths in characters, not words": lambda s: s["characters"],
    "a base-10 logarithm": lambda s: s["log10"],
}


@pytest.mark.parametrize("make", WRONG_SCORES.values(), ids=WRONG_SCORES.keys())
def test_score_rejects(make, data, scores):
    assert not math.isclose(make(scores), scores["right"], rel_tol=1e-9)
    with pytest.raises(AssertionError):
        checks.check_score(make(scores), data["pipe"])


def test_score_messages_do_not_give_the_score_away(data, scores):
    told = rejection_messages([lambda make=make: checks.check_score(make(scores), data["pipe"])
                               for make in WRONG_SCORES.values()])
    right = scores["right"]
    assert not messages_showing(told, f"{right:.2f}", f"{right:.1f}"), told
