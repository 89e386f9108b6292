"""Exact top-k and cosine scores, against numpy's full sort and scikit-learn."""

import numpy as np
import pytest
from sklearn.metrics.pairwise import cosine_similarity

from ragkit.errors import RagkitError
from ragkit.index.exact import cosine_scores, top_k


def unit_rows(rng, n, d=8):
    x = rng.normal(size=(n, d))
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def test_cosine_equals_scikit_learn_on_unit_vectors():
    rng = np.random.default_rng(0)
    queries, chunks = unit_rows(rng, 5), unit_rows(rng, 40)
    np.testing.assert_allclose(cosine_scores(queries, chunks), cosine_similarity(queries, chunks), atol=1e-12)


@pytest.mark.parametrize("k", [1, 5, 40])
def test_top_k_equals_a_full_sort(k):
    scores = np.random.default_rng(k).random((6, 40))
    expected = np.argsort(-scores, axis=1, kind="stable")[:, :k]
    np.testing.assert_array_equal(top_k(scores, k), expected)


def test_ties_keep_the_lower_index_first():
    assert top_k(np.array([0.5, 0.9, 0.5, 0.9, 0.1]), 4).tolist() == [1, 3, 0, 2]


def test_bad_k_and_shapes_are_explained():
    scores = np.zeros(3)
    with pytest.raises(RagkitError, match="larger than the number of chunks"):
        top_k(scores, 4)
    for bad in [0, -1, 2.5, True]:
        with pytest.raises(RagkitError, match="positive integer"):
            top_k(scores, bad)
    with pytest.raises(RagkitError, match="corpus is empty"):
        cosine_scores(np.ones((1, 4)), np.zeros((0, 4)))
    with pytest.raises(RagkitError, match="same model"):
        cosine_scores(np.ones((1, 4)), np.ones((2, 3)))
