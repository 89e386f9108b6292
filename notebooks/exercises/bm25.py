"""The checks of notebook 05's exercises (BM25). Each takes the learner's answer first, then what the notebook
already has (`pipe`, the answerable dev queries), and raises `AssertionError` saying what is wrong with the answer.

The checks do not use the notebook's own derivations (`bm25_loop`, `weights_by_hand`): the scores they need by
hand (part one, `05_bm25.ipynb`: exercises 1 and 2) are written out here as plain loops over the formula, and the
two recall figures (part two, `05_bm25_measured.ipynb`: exercises 1 and 2) come from ragkit's `BM25Index` and
`per_query_metrics`. `tests/test_exercises_05.py` shows that each check accepts a right answer computed another
way and rejects plausible wrong ones.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ragkit.evaluate.relevance import judgments_from_queries
from ragkit.evaluate.tables import per_query_metrics
from ragkit.index.bm25 import BM25Index
from ragkit.text.words import tokenize_all, word_tokens

TINY = [["windy", "in", "london", "today"], ["windy", "in", "athens"], ["rain", "in", "oslo", "today"]]
K1S, BS = [0.5, 0.9, 1.2, 1.5, 2.0, 3.0], [0.0, 0.25, 0.5, 0.75, 1.0]   # the columns and rows of part two's grid (section 1)
WINDY_QUERY = ["windy", "today"]   # part one's exercise 1: section 3's table scores windy alone
SCORED_WORD, SCORED_CHUNK = "us-west-2", "rb-platform-operations#4"   # part one's exercise 2: no score on screen


def bm25_by_hand(docs, word, idf="lucene", k1=1.5, b=0.75, k1_plus_one=False):
    """The BM25 score of every document in `docs` (token lists) for the one-word query `word`, term by term."""
    n_docs, avgdl = len(docs), sum(len(doc) for doc in docs) / len(docs)
    n_t = sum(word in doc for doc in docs)
    ratio = (n_docs - n_t + 0.5) / (n_t + 0.5)
    weight = math.log(1 + ratio) if idf == "lucene" else math.log(ratio)
    scores = []
    for doc in docs:
        tf = doc.count(word)
        saturated = tf / (tf + k1 * (1 - b + b * len(doc) / avgdl))
        scores.append(weight * saturated * ((k1 + 1) if k1_plus_one else 1))
    return scores


def query_by_hand(docs, words, idf="lucene"):
    """The BM25 score of every document for a query of several words: the sum of each word's scores."""
    return [sum(scores) for scores in zip(*(bm25_by_hand(docs, word, idf) for word in words), strict=True)]


def order_of(scores):
    """Document numbers by decreasing score; equal scores keep the lower number first."""
    return sorted(range(len(scores)), key=lambda d: (-scores[d], d))


def check_windy(ranking):
    """Part one, exercise 1: the three tiny documents by their Robertson BM25 score for `windy today`."""
    yours = [int(d) for d in ranking]
    assert sorted(yours) == [0, 1, 2], "this is not an order of the three documents 0, 1 and 2"
    expected = order_of(query_by_hand(TINY, WINDY_QUERY, idf="robertson"))
    if yours != expected:
        # for windy today, Lucene's order is also the documents' own order and Robertson's lowest first
        assert yours != order_of(query_by_hand(TINY, WINDY_QUERY, idf="lucene")), \
            "this is the order a positive IDF would give (Lucene's, say), not Robertson's scores, best first"
        for word in WINDY_QUERY:
            assert yours != order_of(bm25_by_hand(TINY, word, idf="robertson")), \
                f"this is the order for {word} alone: a query's score adds up the scores of all its words"
        raise AssertionError("this is not the order of the documents' Robertson BM25 scores for windy today, "
                             "best first")
    return "right"


GRIDS: dict[tuple, dict[int, np.ndarray]] = {}   # computed grids, by the chunks and queries they are of


def recall_grids(pipe, answerable):
    """{k: b × k1 table of mean recall@k} for k = 5 and 20, plain-word BM25 over the pipeline's chunks (kept by
    the texts and ids of the chunks and queries, so a second check of the same exercise answers at once)."""
    chunks, queries = pipe.chunks, [q for q in answerable if q.evidence]
    key = tuple((c.chunk_id, c.text) for c in chunks), tuple((q.query_id, q.text) for q in queries)
    if key not in GRIDS:
        GRIDS[key] = grids_of(pipe, chunks, queries)
    return GRIDS[key]


def grids_of(pipe, chunks, queries):
    judgments = judgments_from_queries(queries, pipe.docs)
    index = BM25Index(tokenize_all(chunk.text for chunk in chunks))
    query_tokens = tokenize_all(q.text for q in queries)
    grids = {5: np.zeros((len(BS), len(K1S))), 20: np.zeros((len(BS), len(K1S)))}
    for row, b in enumerate(BS):
        for column, k1 in enumerate(K1S):
            top = np.argsort(-index.scores(query_tokens, k1=k1, b=b), axis=1, kind="stable")[:, :20]
            table = per_query_metrics([[chunks[i] for i in ranking] for ranking in top], judgments,
                                      ["recall@5", "recall@20"])
            for k in grids:
                grids[k][row, column] = table[f"recall@{k}"].mean()
    return grids


def check_grid20(grid20, pipe, answerable):
    """Part two, exercise 1: the b × k1 grid of dev recall@20, plain-word BM25."""
    assert isinstance(grid20, pd.DataFrame), "grid20 is not a table (a pandas DataFrame) like `grid`"
    assert list(grid20.index) == BS and list(grid20.columns) == K1S, \
        "grid20's rows and columns are not the b and k1 values of `grid`"
    yours = grid20.to_numpy(dtype=float)
    grids = recall_grids(pipe, answerable)
    expected, at_5 = grids[20], grids[5]
    assert not np.allclose(yours, at_5, rtol=0, atol=1e-9), \
        "every cell equals recall@5 at the same setting: the cut-off is not 20"
    assert (yours >= at_5 - 1e-9).all(), "some cells are below recall@5 at the same setting, which a deeper " \
        "cut-off cannot give"
    assert np.ptp(yours) > 0 or np.ptp(expected) == 0, "every cell holds the same recall: the cells do not " \
        "follow their own k1 and b"
    wrong = np.abs(yours - expected) > 1e-9
    if wrong.any():
        row, column = np.argwhere(wrong)[0]
        raise AssertionError(f"{wrong.sum()} of the {wrong.size} cells are not recall@20 of plain-word BM25 at "
                             f"their setting, the first at b = {BS[row]}, k1 = {K1S[column]}")
    return "right"


STOP_WORD_REFERENCES: dict[tuple, tuple] = {}   # as GRIDS, by the chunks and queries they are of


def stop_word_reference(pipe, answerable):
    """BM25 over the pipeline's chunks without stop words: its vocabulary, its scores for the answerable queries
    (without stop words) and the mean recall@5 of its top 5 (kept as `recall_grids` keeps its grids)."""
    chunks, queries = pipe.chunks, [q for q in answerable if q.evidence]
    key = tuple((c.chunk_id, c.text) for c in chunks), tuple((q.query_id, q.text) for q in queries)
    if key not in STOP_WORD_REFERENCES:
        reference = BM25Index(tokenize_all((chunk.text for chunk in chunks), stop_words=True))
        scores = reference.scores(tokenize_all((q.text for q in queries), stop_words=True))
        top = np.argsort(-scores, axis=1, kind="stable")[:, :5]
        table = per_query_metrics([[chunks[i] for i in ranking] for ranking in top],
                                  judgments_from_queries(queries, pipe.docs), ["recall@5"])
        STOP_WORD_REFERENCES[key] = reference.vocab.keys(), scores, table["recall@5"].mean()
    return STOP_WORD_REFERENCES[key]


def check_stop_words(your_index, your_recall, pipe, answerable):
    """Part two, exercise 2: BM25 without the course's stop words, and its dev recall@5."""
    assert isinstance(your_index, BM25Index), "your_index is not a BM25Index"
    assert "the" not in your_index.vocab, "the index keeps stop words: it holds 'the'"
    chunks, queries = pipe.chunks, [q for q in answerable if q.evidence]
    vocabulary, scores, recall = stop_word_reference(pipe, answerable)
    assert your_index.vocab.keys() == vocabulary and your_index.n_docs == len(chunks), \
        "this index was not built from the course chunks' word tokens without stop words"
    query_tokens = tokenize_all((q.text for q in queries), stop_words=True)
    assert np.allclose(your_index.scores(query_tokens), scores, rtol=1e-12, atol=1e-12), \
        "this index scores the chunks otherwise than BM25 with k1 = 1.5, b = 0.75 (the defaults)"
    assert abs(float(your_recall) - recall) < 1e-9, \
        "your_recall is not the mean recall@5 of this index's top 5 over the answerable dev queries"
    return "right"


CHUNK_WORDS: dict[tuple[str, ...], list[list[str]]] = {}   # the chunks' word tokens, by the chunks' texts


def check_score(your_score, pipe):
    """Part one, exercise 2: the Lucene BM25 score of `SCORED_WORD` in `SCORED_CHUNK` (k1 = 1.5, b = 0.75)."""
    assert isinstance(your_score, int | float | np.number), "your_score is not a number"
    texts = tuple(chunk.text for chunk in pipe.chunks)
    if texts not in CHUNK_WORDS:
        CHUNK_WORDS[texts] = [word_tokens(text) for text in texts]
    docs = CHUNK_WORDS[texts]
    number = next(n for n, chunk in enumerate(pipe.chunks) if chunk.chunk_id == SCORED_CHUNK)
    expected = bm25_by_hand(docs, SCORED_WORD)[number]
    if math.isclose(your_score, expected, rel_tol=1e-9):
        return "right"
    assert not math.isclose(your_score, bm25_by_hand(docs, SCORED_WORD, k1_plus_one=True)[number], rel_tol=1e-9), \
        "this score carries the textbook's (k1 + 1) factor, which Lucene's form leaves out"
    assert not math.isclose(your_score, bm25_by_hand(docs, SCORED_WORD, b=0.0)[number], rel_tol=1e-9), \
        "this score ignores the chunk's length, as b = 0 would"
    assert not math.isclose(your_score, bm25_by_hand(docs, SCORED_WORD, idf="robertson")[number], rel_tol=1e-9), \
        "this score uses Robertson's IDF, not Lucene's"
    assert not any(math.isclose(your_score, score, rel_tol=1e-9) for score in bm25_by_hand(docs, SCORED_WORD)), \
        f"this is the score of another chunk, not of {SCORED_CHUNK}"
    raise AssertionError(f"this is not the Lucene BM25 score of {SCORED_WORD} in {SCORED_CHUNK} (k1 = 1.5, b = 0.75)")
