"""Late interaction (ColBERT's MaxSim): compare every query token with every chunk token, keep each query
token's best match.

A pooled embedding squeezes a chunk into one vector before the query is known; late interaction keeps one
unit vector per token (`ragkit.embed.numpy_encoder.NumpyEncoder.token_vectors`) and scores at query time:

    MaxSim(q, d) = Σ_i max_j  q_i · d_j        (i over query tokens, j over chunk tokens)

`maxsim_scores` divides by the number of query tokens, so a score is a mean cosine in [-1, 1] whatever the
query's length (the order of chunks for one query is unchanged) and one refusal threshold fits all queries.
Notebook 09 derives it with a literal loop first. all-MiniLM-L6-v2 was trained for mean-pooled vectors, not
for MaxSim: this is late interaction on an encoder not trained for it. Left out: ColBERT's trained
projection to 128 dimensions, its [Q]/[D] markers and query padding with [MASK], compression of token
vectors, and an index over token vectors (we score only the candidates of a first stage).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ragkit.errors import RagkitError


def maxsim(query_vectors: np.ndarray, chunk_vectors: np.ndarray) -> float:
    """Mean over query tokens of the best cosine with any chunk token (rows are unit vectors).

    >>> q = np.array([[1.0, 0.0], [0.0, 1.0]])
    >>> d = np.array([[1.0, 0.0], [0.6, 0.8]])
    >>> maxsim(q, d)  # token 1 matches d[0] (1.0), token 2 matches d[1] (0.8)
    0.9
    """
    if len(query_vectors) == 0 or len(chunk_vectors) == 0:
        raise RagkitError("MaxSim needs at least one token vector on each side")
    similarities = np.asarray(query_vectors, np.float32) @ np.asarray(chunk_vectors, np.float32).T
    return round(float(similarities.max(axis=1).mean()), 7)


def maxsim_scores(query_vectors: np.ndarray, chunks: Sequence[np.ndarray]) -> np.ndarray:
    """`maxsim` of one query with each chunk, in one matrix product over the chunks' stacked tokens.

    >>> q = np.array([[1.0, 0.0]])
    >>> maxsim_scores(q, [np.array([[0.0, 1.0]]), np.array([[0.6, 0.8], [1.0, 0.0]])]).tolist()
    [0.0, 1.0]
    """
    if not len(chunks):
        return np.zeros(0)
    lengths = np.array([len(vectors) for vectors in chunks])
    if len(query_vectors) == 0 or (lengths == 0).any():
        raise RagkitError("MaxSim needs at least one token vector on each side")
    similarities = np.asarray(query_vectors, np.float32) @ np.concatenate(chunks).astype(np.float32, copy=False).T
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    best = np.maximum.reduceat(similarities, starts, axis=1)  # (query tokens, chunks): each chunk's best token
    return best.mean(axis=0).astype(np.float64)


def token_memory(chunks: Sequence[np.ndarray]) -> int:
    """Bytes the token vectors take (a pooled index keeps one vector per chunk instead).

    >>> token_memory([np.zeros((10, 384), np.float16)])
    7680
    """
    return int(sum(vectors.nbytes for vectors in chunks))
