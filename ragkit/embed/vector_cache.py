"""The on-disk embedding cache: vectors by (model, text), in `.npz` shards, over an optional shipped pack.

Each shard holds two arrays, `keys` (SHA-1 hex digests of model name and text) and `vectors`; nothing is
pickled. The folder is `ragkit.cache.cache_dir()`. A pack (`pack_cache`) is all of one model's shards in one
read-only file, `<model>.npz`: the course ships the vectors of its own data that way (`data/vectors/`), so a
first run reads them instead of spending a quarter of an hour embedding. A key names the exact text and
model, so a pack can never serve a vector for a changed text: that text is simply computed. Left out:
eviction, and locking between processes that write the same shard at once (the last one wins, and both
wrote the same vectors).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ragkit.errors import RagkitError


def text_key(model_name: str, text: str) -> str:
    """The cache key of one text under one model: a SHA-1 hex digest.

    >>> text_key("m", "hello")[:12]
    '8c173b749d4b'
    """
    return hashlib.sha1(f"{model_name}\0{text}".encode()).hexdigest()


class EmbeddingCache:
    """Vectors by (model, text), loaded from and saved to `.npz` shards in one folder.

    >>> import tempfile, numpy as np
    >>> cache = EmbeddingCache(tempfile.mkdtemp(), "toy")
    >>> cache.save(["a"], np.ones((1, 3), dtype=np.float32))
    >>> cache.lookup(["a", "b"])[1]
    [1]
    """

    def __init__(self, folder: str | Path, model_name: str, shipped: str | Path | None = None):
        self.folder = Path(folder) / "embeddings" / model_name.replace("/", "_")
        self.model_name = model_name
        self.vectors: dict[str, np.ndarray] = {}
        packed = [Path(shipped) / f"{model_name.replace('/', '_')}.npz"] if shipped is not None else []
        shards = sorted(self.folder.glob("*.npz")) if self.folder.is_dir() else []
        for shard in [path for path in packed if path.is_file()] + shards:
            try:
                with np.load(shard, allow_pickle=False) as data:
                    self.vectors.update(zip(data["keys"].astype(str).tolist(), data["vectors"], strict=True))
            except (OSError, ValueError, KeyError):
                continue  # a damaged shard or pack only costs its vectors being computed again

    def lookup(self, texts: Sequence[str]) -> tuple[list[np.ndarray | None], list[int]]:
        """The cached vector of each text (or None) and the positions of the texts that are missing."""
        found = [self.vectors.get(text_key(self.model_name, text)) for text in texts]
        return found, [i for i, vector in enumerate(found) if vector is None]

    def save(self, texts: Sequence[str], vectors: np.ndarray) -> None:
        """Store vectors for texts, as one new shard."""
        keys = [text_key(self.model_name, text) for text in texts]
        self.vectors.update(zip(keys, vectors, strict=True))
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            name = hashlib.sha1("".join(keys).encode()).hexdigest()[:16]
            shard = self.folder / f"shard-{name}.npz"
            partial = self.folder / f"shard-{name}.{os.getpid()}.partial.npz"  # one per process: see token_cache
            np.savez(partial, keys=np.array(keys), vectors=np.asarray(vectors, dtype=np.float32))
            partial.replace(shard)
        except OSError as error:
            raise RagkitError(
                f"cannot write the embedding cache in {self.folder} ({error.strerror or error}); "
                "set RAGKIT_CACHE to a folder you can write"
            ) from None


def pack_cache(folder: str | Path, model_name: str, out: str | Path, keep: bool = True) -> int:
    """Write every vector cached for `model_name` under `folder` as one pack, `out/<model>.npz` (keys sorted,
    so the same vectors give the same file); returns how many vectors it holds. With `keep`, the vectors of
    the pack it replaces stay in it: the cache holds only what was computed beside the shipped pack, so
    re-packing without them would throw the shipped vectors away.

    >>> import tempfile, numpy as np
    >>> cache, out = tempfile.mkdtemp(), tempfile.mkdtemp()
    >>> EmbeddingCache(cache, "toy").save(["a", "b"], np.eye(2, dtype=np.float32))
    >>> pack_cache(cache, "toy", out), EmbeddingCache(tempfile.mkdtemp(), "toy", shipped=out).lookup(["b"])[1]
    (2, [])
    """
    vectors = EmbeddingCache(folder, model_name, shipped=out if keep else None).vectors
    if not EmbeddingCache(folder, model_name).vectors:
        raise RagkitError(f"nothing cached for {model_name} under {Path(folder) / 'embeddings'}: run the "
                          "notebooks or the tests first")
    keys = sorted(vectors)
    Path(out).mkdir(parents=True, exist_ok=True)
    target = Path(out) / f"{model_name.replace('/', '_')}.npz"
    np.savez(target, keys=np.array(keys, dtype="S40"), vectors=np.stack([vectors[k] for k in keys]))
    return len(keys)
