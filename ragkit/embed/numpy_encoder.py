"""all-MiniLM-L6-v2 as a plain numpy forward pass, read straight from its safetensors weights.

Notebook 02 derives it layer by layer (the layers are `ragkit.embed.layers`), then pooling
(`ragkit.embed.pooling`). It gives sentence-transformers' vectors (max abs difference <= 1e-5). Texts are
sorted by length and batched; batches run on separate cores, because numpy's element-wise operations use one
core each. Token ids come from the model's `tokenizer.json` (notebook 01 derives WordPiece). Left out: the
layers themselves (`ragkit.embed.layers`), training, dropout, sentence pairs (token type 1), BERT's unused
pooler layer, GPUs, and models other than BERT-style encoders.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from ragkit.embed.layers import load_config, load_weights, token_states
from ragkit.embed.model import model_path
from ragkit.embed.pooling import POOLINGS, check_pooling, l2_normalize
from ragkit.errors import RagkitError


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

        def keep(rows: np.ndarray, states: np.ndarray, mask: np.ndarray) -> None:
            for pooling in poolings:
                results[pooling][rows] = l2_normalize(POOLINGS[pooling](states, mask))

        self.run_batches(texts, keep)
        return results

    def token_vectors(self, texts: Sequence[str]) -> list[np.ndarray]:
        """Per text, the unit-length vector of each of its tokens before pooling, (tokens, hidden) float16:
        what late interaction (`ragkit.rank.maxsim`) compares. float16 halves the memory; scores move < 1e-3.

        >>> [v.shape for v in NumpyEncoder().token_vectors(["revoke a token", "hi"])]  # [CLS] rev ##oke a token [SEP]
        [(6, 384), (3, 384)]
        """
        texts = list(texts)
        results: list[np.ndarray] = [np.empty(0)] * len(texts)

        def keep(rows: np.ndarray, states: np.ndarray, mask: np.ndarray) -> None:
            for row, text_states, text_mask in zip(rows, states, mask, strict=True):
                results[row] = l2_normalize(text_states[text_mask == 1]).astype(np.float16)

        self.run_batches(texts, keep)
        return results

    def run_batches(self, texts: list[str], keep: Callable[[np.ndarray, np.ndarray, np.ndarray], None]) -> None:
        """Tokenize, sort by length, and run batches on separate cores; `keep(rows, states, mask)` takes each."""
        token_ids = self.token_ids(texts)
        order = np.argsort([-len(ids) for ids in token_ids], kind="stable")  # similar lengths share a batch
        batches = [order[start:start + self.batch_size] for start in range(0, len(order), self.batch_size)]

        def run(rows: np.ndarray) -> None:
            ids, mask = padded_batch([token_ids[row] for row in rows])
            keep(rows, token_states(ids, mask, self.weights, self.config), mask)

        # numpy's element-wise steps use one core: give each core whole batches and one BLAS thread
        with threadpool_limits(limits=1, user_api="blas"), ThreadPoolExecutor(self.threads) as workers:
            list(workers.map(run, batches))

    def encode(self, texts: Sequence[str], pooling: str = "mean") -> np.ndarray:
        """Unit vectors (len(texts), hidden); with mean pooling, sentence-transformers' embeddings."""
        return self.pooled(texts, [pooling])[pooling]
