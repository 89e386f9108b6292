"""Seed 003's keyword score: hand-computed cases, the per-pair loop, scipy's Jaccard, Chinese, bad input."""

import numpy as np
import pytest
from scipy.spatial.distance import cdist

from ragkit.errors import RagkitError
from ragkit.index.keyword import KeywordIndex, jaccard, keyword_score, keyword_scores
from ragkit.text.words import tokenize_all, word_tokens


def test_known_answers_by_hand():
    assert jaccard(["a", "b"], ["b", "c"]) == 1 / 3, "one shared word of three distinct"
    assert jaccard([], []) == 0.0, "two empty sets have nothing in common"
    # {rotate, api, keys} vs {api, keys, expire}: 2 shared of 4 -> 0.5, plus 0.1 x 2 matched words
    assert keyword_score(["rotate", "api", "keys"], ["api", "keys", "expire", "keys"]) == pytest.approx(0.7), \
        "Jaccard 0.5 + 0.1 x 2"
    scores = keyword_scores([["a", "b"], ["c"], []], [["a", "c"], ["z"]])
    np.testing.assert_allclose(scores, [[1 / 3 + 0.1, 0.5 + 0.1, 0.0], [0.0, 0.0, 0.0]], atol=1e-12,
                               err_msg="matrix form, by hand; an unknown word matches nothing")


def test_repeated_words_count_once():
    assert keyword_scores([["keys", "keys", "api"]], [["keys", "keys"]]).tolist() == [[pytest.approx(0.6)]], \
        "sets, not counts: {keys} vs {keys, api} is 0.5 + 0.1"


def random_token_lists(rng, n, vocabulary=30, longest=12):
    return [[f"w{j}" for j in rng.integers(0, vocabulary, size=rng.integers(0, longest))] for _ in range(n)]


def test_matrix_form_equals_the_per_pair_loop():
    rng = np.random.default_rng(0)
    corpus = random_token_lists(rng, 40)
    queries = [tokens or ["w0"] for tokens in random_token_lists(rng, 15)]
    expected = np.array([[keyword_score(q, d) for d in corpus] for q in queries])
    np.testing.assert_allclose(KeywordIndex(corpus).scores(queries), expected, atol=1e-12,
                               err_msg="sparse matrix form must equal the set loop")
    expected_bonus0 = np.array([[jaccard(q, d) for d in corpus] for q in queries])
    np.testing.assert_allclose(KeywordIndex(corpus).scores(queries, bonus=0), expected_bonus0, atol=1e-12,
                               err_msg="bonus 0 leaves plain Jaccard")


def test_jaccard_equals_scipy():
    rng = np.random.default_rng(1)
    corpus = [tokens or ["w1"] for tokens in random_token_lists(rng, 25)]
    queries = [tokens or ["w2"] for tokens in random_token_lists(rng, 10)]
    vocabulary = sorted({w for tokens in corpus + queries for w in tokens})

    def as_bool(token_lists):
        return np.array([[w in set(tokens) for w in vocabulary] for tokens in token_lists])

    reference = 1 - cdist(as_bool(queries), as_bool(corpus), metric="jaccard")
    np.testing.assert_allclose(keyword_scores(corpus, queries, bonus=0), reference, atol=1e-12,
                               err_msg="Jaccard must equal 1 - scipy's Jaccard distance on 0/1 vectors")


def test_chinese_words_match_through_jieba():
    chunks = ["员工每年享有十五天带薪年假。", "API keys expire after ninety days."]
    scores = keyword_scores(tokenize_all(chunks), [word_tokens("带薪年假有几天")])
    assert scores[0, 0] > 0 and scores[0, 1] == 0, f"a Chinese query must match the Chinese chunk: {scores}"


def test_on_course_chunks_equals_the_loop(course_docs, course_queries):
    from ragkit.chunk.base import chunk_corpus
    from ragkit.chunk.fixed import fixed_size_chunks

    chunks = chunk_corpus(course_docs[:15], fixed_size_chunks, size=800, overlap=100)
    corpus = tokenize_all(chunk.text for chunk in chunks)
    queries = tokenize_all(q.text for q in course_queries[:12])
    expected = np.array([[keyword_score(q, d) for d in corpus] for q in queries])
    np.testing.assert_allclose(KeywordIndex(corpus).scores(queries), expected, atol=1e-12,
                               err_msg="course chunks: matrix form must equal the loop")


def test_bad_input_is_explained():
    with pytest.raises(RagkitError, match="corpus is empty"):
        KeywordIndex([])
    with pytest.raises(RagkitError, match="lists of words"):
        KeywordIndex(["a plain string"])
    index = KeywordIndex([["a"]])
    with pytest.raises(RagkitError, match="lists of words"):
        index.scores(["a"])
    with pytest.raises(RagkitError, match="no words"):
        index.scores([["a"], []])
    for bonus in [-0.1, float("nan"), float("inf"), True, "0.1"]:
        with pytest.raises(RagkitError, match="bonus"):
            KeywordIndex([["a"]], bonus=bonus)
        with pytest.raises(RagkitError, match="bonus"):
            index.scores([["a"]], bonus=bonus)
