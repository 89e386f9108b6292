"""The layers of all-MiniLM-L6-v2 as plain numpy, read straight from its safetensors weights.

Notebook 02 derives them layer by layer: token + position + type embeddings, LayerNorm, six encoder layers
(12-head self-attention with the padding mask, exact-GELU feed-forward, residuals, LayerNorm). `token_states`
runs them on one padded batch of token ids; `ragkit.embed.numpy_encoder` tokenizes, batches and pools
(`ragkit.embed.pooling`). Each step is a matrix product or an array operation. Left out: tokenizing, batching
and pooling (`ragkit.embed.numpy_encoder`), training, dropout, sentence pairs (token type 1), BERT's unused
pooler layer, GPUs, and models other than BERT-style encoders.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
from scipy.special import erf

from ragkit.embed.model import model_path
from ragkit.errors import RagkitError

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
