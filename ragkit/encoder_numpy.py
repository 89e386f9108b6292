"""all-MiniLM-L6-v2 as a plain numpy forward pass, read straight from its safetensors weights.

Notebook 02 derives it layer by layer: token + position + type embeddings, LayerNorm, six encoder layers
(12-head self-attention with the padding mask, exact-GELU feed-forward, residuals, LayerNorm), then pooling
(`ragkit.pooling`). It gives sentence-transformers' vectors (max abs difference <= 1e-5). Texts are sorted by
length and batched; each step is a matrix product or an array operation; batches run on separate cores,
because numpy's element-wise operations use one core each. Token ids come from the model's `tokenizer.json`
(notebook 01 derives WordPiece). Left out: training, dropout, sentence pairs (token type 1), BERT's unused
pooler layer, GPUs, and models other than BERT-style encoders.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
from scipy.special import erf
from threadpoolctl import threadpool_limits

from ragkit.embedding import model_path
from ragkit.errors import RagkitError
from ragkit.pooling import POOLINGS, check_pooling, l2_normalize

Weights = dict[str, np.ndarray]


def layer_norm(x: np.ndarray, gamma: np.ndarray, beta: np.ndarray, eps: float) -> np.ndarray:
    """Each vector (last axis) shifted to mean 0 and scaled to variance 1, then times `gamma` plus `beta`.

    >>> layer_norm(np.array([[1.0, 3.0]]), np.ones(2), np.zeros(2), eps=1e-12)
    array([[-1.,  1.]])
    """
    centred = x - x.mean(axis=-1, keepdims=True)
    variance = np.mean(centred * centred, axis=-1, keepdims=True)  # the biased variance, as torch
    return centred / np.sqrt(variance + eps) * gamma + beta


def gelu(x: np.ndarray) -> np.ndarray:
    """GELU in BERT's exact form x·Φ(x) = x/2·(1 + erf(x/√2)), not the tanh approximation.

    >>> gelu(np.array([-1.0, 0.0, 1.0])).round(4)
    array([-0.1587,  0.    ,  0.8413])
    """
    y = x * np.asarray(1 / math.sqrt(2), dtype=x.dtype)  # one new array, then in-place steps (faster)
    erf(y, out=y)
    y *= 0.5
    y += 0.5
    y *= x
    return y


def softmax(scores: np.ndarray) -> np.ndarray:
    """Softmax over the last axis, after subtracting the row maximum so that `exp` cannot overflow.

    >>> softmax(np.array([[0.0, np.log(3.0)]])).round(3)
    array([[0.25, 0.75]])
    """
    shifted = scores - scores.max(axis=-1, keepdims=True)
    np.exp(shifted, out=shifted)  # in place: big temporary arrays cost more than the arithmetic
    shifted /= shifted.sum(axis=-1, keepdims=True)
    return shifted


def load_weights(folder: str | Path | None = None) -> Weights:
    """Every tensor of the model's `model.safetensors`, as numpy arrays under their BERT names.

    >>> load_weights()["embeddings.word_embeddings.weight"].shape
    (30522, 384)
    """
    from safetensors.numpy import load_file

    path = Path(folder or model_path()) / "model.safetensors"
    if not path.is_file():
        raise RagkitError(f"no model weights at {path}: give the folder of a BERT-style sentence-transformers model")
    return load_file(str(path))


def load_config(folder: str | Path | None = None) -> dict:
    """`config.json` of the model, plus `max_length` (tokens kept per text) from `sentence_bert_config.json`.

    >>> config = load_config(); config["num_attention_heads"], config["layer_norm_eps"], config["max_length"]
    (12, 1e-12, 256)
    """
    folder = Path(folder or model_path())
    if not (folder / "config.json").is_file():
        raise RagkitError(f"no config.json in {folder}: give the folder of a BERT-style sentence-transformers model")
    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    sbert = folder / "sentence_bert_config.json"
    config["max_length"] = json.loads(sbert.read_text(encoding="utf-8"))["max_seq_length"] if sbert.is_file() else 512
    return config


def linear(x: np.ndarray, weights: Weights, name: str) -> np.ndarray:
    """The dense layer `name`: x·Wᵀ + b over the last axis, computed as one 2-D matrix product (the fastest).

    >>> linear(np.ones((2, 3, 384), np.float32), load_weights(), "encoder.layer.0.intermediate.dense").shape
    (2, 3, 1536)
    """
    weight = weights[name + ".weight"]
    product = x.reshape(-1, x.shape[-1]) @ weight.T + weights[name + ".bias"]
    return product.reshape(*x.shape[:-1], weight.shape[0])


def self_attention(x: np.ndarray, mask: np.ndarray, weights: Weights, layer: int,
                   heads: int) -> tuple[np.ndarray, np.ndarray]:
    """Multi-head self-attention of one layer: output (batch, length, hidden) and attention probabilities
    (batch, heads, length, length). No token attends to padding (`mask` 0).

    >>> x = np.zeros((1, 3, 384), np.float32)
    >>> [a.shape for a in self_attention(x, np.array([[1, 1, 0]]), load_weights(), 0, 12)]
    [(1, 3, 384), (1, 12, 3, 3)]
    """
    w = f"encoder.layer.{layer}.attention."
    batch, length, hidden = x.shape
    size = hidden // heads

    def split(name: str) -> np.ndarray:  # project, then cut the hidden axis into `heads` pieces of `size`
        projected = linear(x, weights, f"{w}self.{name}").reshape(batch, length, heads, size)
        return np.ascontiguousarray(projected.transpose(0, 2, 1, 3))

    query, key, value = split("query") / np.float32(math.sqrt(size)), split("key"), split("value")
    scores = query @ key.transpose(0, 1, 3, 2)  # (batch, heads, length, length)
    scores += np.where(mask[:, None, None, :] > 0, 0, np.finfo(np.float32).min).astype(x.dtype)
    probabilities = softmax(scores)
    context = (probabilities @ value).transpose(0, 2, 1, 3).reshape(batch, length, hidden)
    return linear(context, weights, f"{w}output.dense"), probabilities


def encoder_layer(x: np.ndarray, mask: np.ndarray, weights: Weights, layer: int,
                  config: dict) -> tuple[np.ndarray, np.ndarray]:
    """One layer: attention, residual, LayerNorm, feed-forward (GELU), residual, LayerNorm; and the attention.

    >>> encoder_layer(np.zeros((1, 3, 384), np.float32), np.ones((1, 3)), load_weights(), 0, load_config())[0].shape
    (1, 3, 384)
    """
    w, eps = f"encoder.layer.{layer}.", config["layer_norm_eps"]
    attended, probabilities = self_attention(x, mask, weights, layer, config["num_attention_heads"])
    x = layer_norm(x + attended, weights[w + "attention.output.LayerNorm.weight"],
                   weights[w + "attention.output.LayerNorm.bias"], eps)
    out = linear(gelu(linear(x, weights, w + "intermediate.dense")), weights, w + "output.dense")
    x = layer_norm(x + out, weights[w + "output.LayerNorm.weight"], weights[w + "output.LayerNorm.bias"], eps)
    return x, probabilities


def token_states(ids: np.ndarray, mask: np.ndarray, weights: Weights, config: dict,
                 attention: list[np.ndarray] | None = None) -> np.ndarray:
    """Contextual token vectors (batch, length, hidden) of a padded batch of token ids (every type id 0).
    Pass a list as `attention` to collect each layer's attention probabilities.

    >>> ids = np.array([[101, 7592, 102]]); token_states(ids, np.ones_like(ids), load_weights(), load_config()).shape
    (1, 3, 384)
    """
    e = "embeddings."  # token rows + position rows + the row of token type 0, then LayerNorm
    x = (weights[e + "word_embeddings.weight"][ids] + weights[e + "position_embeddings.weight"][:ids.shape[1]]
         + weights[e + "token_type_embeddings.weight"][0])
    x = layer_norm(x, weights[e + "LayerNorm.weight"], weights[e + "LayerNorm.bias"], config["layer_norm_eps"])
    for layer in range(config["num_hidden_layers"]):
        x, probabilities = encoder_layer(x, mask, weights, layer, config)
        if attention is not None:
            attention.append(probabilities)
    return x


def padded_batch(token_ids: Sequence[Sequence[int]]) -> tuple[np.ndarray, np.ndarray]:
    """Token ids padded with 0 ([PAD]) to the longest in the batch, and the mask (1 real, 0 padding).

    >>> padded_batch([[101, 7592, 102], [101, 102]])[1]
    array([[1, 1, 1],
           [1, 1, 0]])
    """
    mask = np.zeros((len(token_ids), max(len(ids) for ids in token_ids)), dtype=np.int64)
    ids = mask.copy()
    for row, text_ids in enumerate(token_ids):
        ids[row, :len(text_ids)], mask[row, :len(text_ids)] = text_ids, 1
    return ids, mask


class NumpyEncoder:
    """Embeds texts with the numpy forward pass: tokenize, sort by length, batch, run, pool, normalise.

    >>> NumpyEncoder().encode(["how do I revoke a token?"]).shape
    (1, 384)
    """

    # batches of 8 keep temporary arrays small: faster than 32 here (benchmarks/results/encoder.md)
    def __init__(self, folder: str | Path | None = None, batch_size: int = 8, threads: int | None = None):
        from tokenizers import Tokenizer

        threads = threads if threads is not None else (os.cpu_count() or 1)
        for name, value in (("batch_size", batch_size), ("threads", threads)):
            if not isinstance(value, int) or value < 1:
                raise RagkitError(f"{name} must be a positive integer, got {value!r}")
        folder = Path(folder or model_path())
        self.config, self.weights = load_config(folder), load_weights(folder)
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tokenizer.enable_truncation(self.config["max_length"])  # the file says 128; the model uses 256
        self.tokenizer.no_padding()  # we pad each batch to its own longest text
        self.batch_size, self.threads = batch_size, threads

    def token_ids(self, texts: Sequence[str]) -> list[list[int]]:
        """WordPiece ids of each text, [CLS] first and [SEP] last, at most `max_length` of them."""
        for number, text in enumerate(texts):
            if not isinstance(text, str) or not text.strip():
                raise RagkitError(f"text {number} is empty or not a string: every text needs some words")
        return [encoding.ids for encoding in self.tokenizer.encode_batch(list(texts))]

    def states(self, texts: Sequence[str], attention: list | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Token states (n, length, hidden) and mask of a few `texts`, run as one padded batch."""
        ids, mask = padded_batch(self.token_ids(texts))
        with threadpool_limits(limits=1, user_api="blas"):  # small products: threads cost more than they save
            return token_states(ids, mask, self.weights, self.config, attention), mask

    def pooled(self, texts: Sequence[str], poolings: Sequence[str] = tuple(POOLINGS)) -> dict[str, np.ndarray]:
        """For each pooling, unit vectors (len(texts), hidden) float32, all from one forward pass."""
        poolings, texts = [check_pooling(pooling) for pooling in poolings], list(texts)
        results = {pooling: np.zeros((len(texts), self.config["hidden_size"]), np.float32) for pooling in poolings}
        token_ids = self.token_ids(texts)
        order = np.argsort([-len(ids) for ids in token_ids], kind="stable")  # similar lengths share a batch
        batches = [order[start:start + self.batch_size] for start in range(0, len(order), self.batch_size)]

        def run(rows: np.ndarray) -> None:
            ids, mask = padded_batch([token_ids[row] for row in rows])
            states = token_states(ids, mask, self.weights, self.config)
            for pooling in poolings:
                results[pooling][rows] = l2_normalize(POOLINGS[pooling](states, mask))

        # numpy's element-wise steps use one core: give each core whole batches and one BLAS thread
        with threadpool_limits(limits=1, user_api="blas"), ThreadPoolExecutor(self.threads) as workers:
            list(workers.map(run, batches))
        return results

    def encode(self, texts: Sequence[str], pooling: str = "mean") -> np.ndarray:
        """Unit vectors (len(texts), hidden); with mean pooling, sentence-transformers' embeddings."""
        return self.pooled(texts, [pooling])[pooling]
