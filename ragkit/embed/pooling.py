"""After the encoder: pool a text's token vectors into one unit vector.

Notebook 02 derives and compares three poolings over the same token states of the numpy encoder
(`ragkit.embed.numpy_encoder`): the [CLS] token's vector, the mean over real tokens (what all-MiniLM-L6-v2
was trained with, and what sentence-transformers computes), and the element-wise maximum over real tokens.
Padding never counts: `mask` is 1 for real tokens and 0 for padding. Left out: weighted and attention
pooling, mean-sqrt-length pooling, Matryoshka truncation.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ragkit.cache import cache_dir, shipped_vectors_dir
from ragkit.embed.vector_cache import EmbeddingCache
from ragkit.errors import RagkitError


def cls_pooling(states: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The vector of the first token ([CLS]) of each text.

    >>> cls_pooling(np.array([[[1.0, 2.0], [3.0, 4.0]]]), np.array([[1, 1]]))
    array([[1., 2.]])
    """
    return states[:, 0]


def mean_pooling(states: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The mean of each text's real token vectors (padding excluded), as sentence-transformers computes it.

    >>> mean_pooling(np.array([[[1.0, 2.0], [3.0, 4.0], [9.0, 9.0]]]), np.array([[1, 1, 0]]))
    array([[2., 3.]])
    """
    weights = mask.astype(states.dtype)
    summed = np.einsum("bld,bl->bd", states, weights)
    return summed / np.maximum(weights.sum(axis=1, keepdims=True), 1e-9)


def max_pooling(states: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The largest value of each dimension over each text's real tokens (padding excluded).

    >>> max_pooling(np.array([[[1.0, 5.0], [3.0, 4.0], [9.0, 9.0]]]), np.array([[1, 1, 0]]))
    array([[3., 5.]])
    """
    return np.where(mask[:, :, None] > 0, states, -np.inf).max(axis=1)


POOLINGS = {"cls": cls_pooling, "mean": mean_pooling, "max": max_pooling}


def check_pooling(pooling: str) -> str:
    """The pooling name, or a clear error naming the choices.

    >>> check_pooling("mean")
    'mean'
    """
    if pooling not in POOLINGS:
        raise RagkitError(f"unknown pooling {pooling!r}; choose one of {', '.join(POOLINGS)}")
    return pooling


def l2_normalize(embeddings: np.ndarray) -> np.ndarray:
    """Each row divided by its Euclidean length (rows of zeros stay zero), so dot product = cosine.

    >>> l2_normalize(np.array([[3.0, 4.0], [0.0, 0.0]]))
    array([[0.6, 0.8],
           [0. , 0. ]])
    """
    norms = np.linalg.norm(embeddings, axis=-1, keepdims=True)
    return embeddings / np.maximum(norms, 1e-12)


def cached_pooled(encoder, texts: Sequence[str], poolings: Sequence[str] = tuple(POOLINGS),
                  cache_folder: str | Path | None = None,
                  model_name: str = "numpy-all-MiniLM-L6-v2") -> dict[str, np.ndarray]:
    """`encoder.pooled(texts, poolings)` (a `NumpyEncoder`), computing only the vectors not already cached
    on disk under `model_name` and the pooling's name (or shipped, with the default cache folder).

    >>> import tempfile; from ragkit.embed.numpy_encoder import NumpyEncoder
    >>> cached_pooled(NumpyEncoder(), ["a key"], ["cls"], tempfile.mkdtemp())["cls"].shape
    (1, 384)
    """
    texts = list(texts)
    if not texts:
        return encoder.pooled(texts, poolings)
    folder, shipped = (cache_folder, None) if cache_folder else (cache_dir(), shipped_vectors_dir())
    caches = {check_pooling(p): EmbeddingCache(folder, f"{model_name}-{p}", shipped) for p in poolings}
    missing = sorted({i for cache in caches.values() for i in cache.lookup(texts)[1]})
    if missing:
        todo = list(dict.fromkeys(texts[i] for i in missing))
        new = encoder.pooled(todo, list(caches))
        for pooling, cache in caches.items():
            cache.save(todo, new[pooling])
    return {pooling: np.stack(cache.lookup(texts)[0]) for pooling, cache in caches.items()}
