"""After the encoder: pool a text's token vectors into one unit vector, and look at its attention.

Notebook 02 derives and compares three poolings over the same token states of the numpy encoder
(`ragkit.encoder_numpy`): the [CLS] token's vector, the mean over real tokens (what all-MiniLM-L6-v2 was
trained with, and what sentence-transformers computes), and the element-wise maximum over real tokens.
Padding never counts: `mask` is 1 for real tokens and 0 for padding. Pooled vectors of many texts can be
kept in ragkit's embedding cache. The notebook's attention heatmap and its widget live here too. Left out:
weighted and attention pooling, mean-sqrt-length pooling, Matryoshka truncation, attention rollout.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ragkit.cache import EmbeddingCache, cache_dir
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
    on disk under `model_name` and the pooling's name.

    >>> import tempfile; from ragkit.encoder_numpy import NumpyEncoder
    >>> cached_pooled(NumpyEncoder(), ["a key"], ["cls"], tempfile.mkdtemp())["cls"].shape
    (1, 384)
    """
    texts = list(texts)
    if not texts:
        return encoder.pooled(texts, poolings)
    caches = {check_pooling(p): EmbeddingCache(cache_folder or cache_dir(), f"{model_name}-{p}") for p in poolings}
    missing = sorted({i for cache in caches.values() for i in cache.lookup(texts)[1]})
    if missing:
        todo = list(dict.fromkeys(texts[i] for i in missing))
        new = encoder.pooled(todo, list(caches))
        for pooling, cache in caches.items():
            cache.save(todo, new[pooling])
    return {pooling: np.stack(cache.lookup(texts)[0]) for pooling, cache in caches.items()}


def attention_map(encoder, text: str, layer: int, head: int) -> tuple[list[str], np.ndarray]:
    """The word pieces of `text` and where each looks in head `head` of layer `layer` (both from 0): a
    (pieces × pieces) matrix whose row i is token i's attention over all tokens (each row sums to 1).

    >>> from ragkit.encoder_numpy import NumpyEncoder
    >>> tokens, probabilities = attention_map(NumpyEncoder(), "rotate the key", layer=0, head=0)
    >>> tokens, probabilities.shape
    (['[CLS]', 'rotate', 'the', 'key', '[SEP]'], (5, 5))
    """
    layers, heads = encoder.config["num_hidden_layers"], encoder.config["num_attention_heads"]
    if not 0 <= layer < layers or not 0 <= head < heads:
        raise RagkitError(f"layer must be 0-{layers - 1} and head 0-{heads - 1}, got layer {layer} and head {head}")
    attention: list[np.ndarray] = []
    encoder.states([text], attention)
    return encoder.tokenizer.encode(text).tokens, attention[layer][0, head]


def plot_attention(tokens: Sequence[str], probabilities: np.ndarray, ax=None, title: str = ""):
    """A heatmap of one attention matrix: rows are the tokens that look, columns the tokens looked at.

    >>> plot_attention(["[CLS]", "hi", "[SEP]"], np.eye(3)).get_xlabel()
    'attended token'
    """
    import matplotlib.pyplot as plt

    if ax is None:
        side = 0.32 * len(tokens) + 1.5
        _, ax = plt.subplots(figsize=(side + 1, side))
    image = ax.imshow(probabilities, cmap="viridis", vmin=0, vmax=1)
    ax.set_xticks(range(len(tokens)), tokens, rotation=90)
    ax.set_yticks(range(len(tokens)), tokens)
    ax.set(xlabel="attended token", ylabel="token", title=title)
    ax.figure.colorbar(image, ax=ax, fraction=0.046, label="attention")
    return ax


def show_attention(encoder, text: str, layer: int, head: int):
    """The widget's callback: the heatmap of `attention_map(encoder, text, layer, head)`; returns its axes."""
    return plot_attention(*attention_map(encoder, text, layer, head), title=f"layer {layer}, head {head}")


def attention_widget(encoder, text: str = "Rotate the API key after the incident."):
    """A text box and layer and head sliders over `show_attention`.

    >>> from ragkit.encoder_numpy import NumpyEncoder
    >>> [child.description for child in attention_widget(NumpyEncoder()).children[:3]]  # doctest: +SKIP
    ['text', 'layer', 'head']
    """
    import ipywidgets as widgets
    import matplotlib.pyplot as plt

    def update(text: str, layer: int, head: int) -> None:
        show_attention(encoder, text, layer, head)
        plt.show()

    return widgets.interactive(
        update, text=widgets.Text(value=text, description="text", continuous_update=False),
        layer=widgets.IntSlider(value=0, min=0, max=encoder.config["num_hidden_layers"] - 1, description="layer"),
        head=widgets.IntSlider(value=0, min=0, max=encoder.config["num_attention_heads"] - 1, description="head"))
