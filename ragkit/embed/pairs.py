"""A query and a passage read as one input by the course model: what a cross-encoder reads (notebook 09b).

A bi-encoder embeds the query and the passage apart; a cross-encoder reads "[CLS] query [SEP] passage [SEP]"
as one sequence, so every layer lets the query's tokens attend to the passage's. Token type 0 marks the
query's part ([CLS], the query, the first [SEP]) and token type 1 the passage's (the passage and the last
[SEP]); the model adds a learnt vector for each type to every token's embedding. `PairEncoder` runs
all-MiniLM-L6-v2 (from its installed package, offline) on such pairs and returns one pooled output per pair:
`mean`, the mean of the pair's token vectors (the pooling the model was trained with), or `pooler`, BERT's
pooler output, tanh(W · [CLS] vector + b) (what a BERT cross-encoder's classification head reads). The model
was trained to embed one text, not to judge pairs, so these are features for a small trained head, not scores.
A pair costs a forward pass of up to 256 tokens, so features are cached on disk by (model, pooling, query,
passage) in the embedding cache's shards (`ragkit.embed.vector_cache`), a shard every few hundred pairs, so
an interrupted run keeps what it computed; the pairs of notebook 09b ship in `data/vectors/`, as the course's
vectors do. Left out: fine-tuning the encoder (only a head is trained), text
beyond `max_length` tokens (the longer side is cut first: the passage, almost always), GPUs, other models.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ragkit.cache import cache_dir, shipped_vectors_dir
from ragkit.embed.model import MODEL_NAME, model_path, show_progress
from ragkit.embed.vector_cache import EmbeddingCache
from ragkit.errors import RagkitError

POOLED = ("mean", "pooler")
SHARD = 256  # pairs per cache shard


def check_pairs(pairs: Sequence) -> list[tuple[str, str]]:
    """The pairs as a list of (query, passage) tuples, or one clear error naming the first bad one.

    >>> check_pairs([("TS-203?", "TS-203 means the daily quota is used up.")])
    [('TS-203?', 'TS-203 means the daily quota is used up.')]
    >>> check_pairs([("TS-203?", "")])
    Traceback (most recent call last):
    ragkit.errors.RagkitError: pair 0 needs a query and a passage, each a non-empty string
    """
    checked = []
    for number, pair in enumerate(pairs):
        if (not isinstance(pair, tuple | list) or len(pair) != 2
                or not all(isinstance(text, str) and text.strip() for text in pair)):
            raise RagkitError(f"pair {number} needs a query and a passage, each a non-empty string")
        checked.append((pair[0], pair[1]))
    return checked


class PairEncoder:
    """Pooled outputs of (query, passage) pairs, read as "[CLS] query [SEP] passage [SEP]", cached on disk.

    >>> import tempfile
    >>> encoder = PairEncoder(cache_folder=tempfile.mkdtemp())
    >>> encoder.pair_ids("TS-203?", "quota")  # [CLS] ts - 203 ? [SEP] quota [SEP]
    ([101, 24529, 1011, 18540, 1029, 102, 20563, 102], [0, 0, 0, 0, 0, 0, 1, 1])
    >>> encoder.features([("TS-203?", "TS-203 means the daily quota is used up.")], "mean").shape
    (1, 384)
    """

    def __init__(self, folder: str | Path | None = None, max_length: int = 256, batch_size: int = 16,
                 cache_folder: str | Path | None = None):
        from tokenizers import Tokenizer

        if not isinstance(max_length, int) or max_length < 8:
            raise RagkitError(f"max_length must be an integer of at least 8 tokens, got {max_length!r}")
        self.folder = Path(folder or model_path())
        self.tokenizer = Tokenizer.from_file(str(self.folder / "tokenizer.json"))
        self.tokenizer.enable_truncation(max_length, strategy="longest_first")  # cut the longer side first
        self.tokenizer.no_padding()
        self.max_length, self.batch_size = max_length, batch_size
        self.cache_folder = Path(cache_folder) if cache_folder is not None else None
        self._model = None
        self.computed = 0  # pairs run through the model (not served from the cache)

    @property
    def model(self):
        """The course model as a transformers `BertModel` with its pooler, loaded by path with the hub off."""
        if self._model is None:
            os.environ["HF_HUB_OFFLINE"] = "1"
            os.environ["TRANSFORMERS_OFFLINE"] = "1"
            from transformers import AutoModel
            from transformers.utils import logging

            logging.disable_progress_bar()  # the weights load in a blink: no bar in saved outputs
            self._model = AutoModel.from_pretrained(str(self.folder), local_files_only=True).eval()
        return self._model

    def pair_ids(self, query: str, passage: str) -> tuple[list[int], list[int]]:
        """Token ids of "[CLS] query [SEP] passage [SEP]" and their token types (0: query part, 1: passage)."""
        (query, passage), = check_pairs([(query, passage)])
        encoding = self.tokenizer.encode(query, passage)
        return encoding.ids, encoding.type_ids

    def pooled(self, pairs: Sequence, bar=None) -> dict[str, np.ndarray]:
        """Both pooled outputs of every pair, computed now (no cache): {"mean": (n, 384), "pooler": (n, 384)};
        `bar`, a progress bar, advances by each batch's pairs."""
        import torch

        pairs = check_pairs(pairs)
        encodings = self.tokenizer.encode_batch(pairs)
        order = np.argsort([-len(e.ids) for e in encodings], kind="stable")  # similar lengths share a batch
        out = {pooling: np.zeros((len(pairs), self.model.config.hidden_size), np.float32) for pooling in POOLED}
        batches = [order[start:start + self.batch_size] for start in range(0, len(order), self.batch_size)]
        for rows in batches:
            width = max(len(encodings[row].ids) for row in rows)
            ids, types, mask = (torch.zeros((len(rows), width), dtype=torch.long) for _ in range(3))
            for n, row in enumerate(rows):
                length = len(encodings[row].ids)
                ids[n, :length] = torch.tensor(encodings[row].ids)
                types[n, :length], mask[n, :length] = torch.tensor(encodings[row].type_ids), 1
            with torch.inference_mode():
                result = self.model(input_ids=ids, token_type_ids=types, attention_mask=mask)
            weights = mask.unsqueeze(-1).float()
            mean = (result.last_hidden_state * weights).sum(1) / weights.sum(1)
            out["mean"][rows] = torch.nn.functional.normalize(mean, dim=1).numpy()
            out["pooler"][rows] = result.pooler_output.numpy()
            if bar is not None:
                bar.update(len(rows))
        self.computed += len(pairs)
        return out

    def features(self, pairs: Sequence, pooling: str = "mean") -> np.ndarray:
        """One pooled output per pair, (len(pairs), 384) float32: read from the cache, else computed and saved."""
        if pooling not in POOLED:
            raise RagkitError(f"unknown pooling {pooling!r} for pairs; choose one of {', '.join(POOLED)}")
        pairs = check_pairs(pairs)
        shipped = None if self.cache_folder else shipped_vectors_dir()  # the course data's pairs ship in data/vectors
        caches = {name: EmbeddingCache(self.cache_folder or cache_dir(), f"pairs-{MODEL_NAME}-{name}-{self.max_length}",
                                       shipped=shipped) for name in POOLED}
        keys = [f"{query}\0{passage}" for query, passage in pairs]  # \0: no text holds it, so no two pairs collide
        found, missing = caches[pooling].lookup(keys)
        todo = list(dict.fromkeys(keys[i] for i in missing))
        bar = progress_bar(len(todo)) if len(todo) > 4 * self.batch_size else None
        for start in range(0, len(todo), SHARD):
            part = todo[start:start + SHARD]
            new = self.pooled([tuple(key.split("\0", 1)) for key in part], bar)
            for name in POOLED:  # one forward pass gives both poolings: keep both
                caches[name].save(part, new[name])
        if bar is not None:
            bar.close()
        if todo:
            found, _ = caches[pooling].lookup(keys)
        return np.stack(found).astype(np.float32) if pairs else np.zeros((0, 384), np.float32)


def progress_bar(total: int):
    """A progress bar over `total` pairs, or None when bars are off (`RAGKIT_PROGRESS=0`, as in the tests).

    >>> bar = progress_bar(3)
    >>> bar is None or bar.total == 3
    True
    """
    if not show_progress():
        return None
    from tqdm.auto import tqdm

    return tqdm(total=total, desc="pairs", unit="pair")
