"""The on-disk embedding cache: vectors by (model, text), in `.npz` shards.

Each shard holds two arrays, `keys` (SHA-1 hex digests of model name and text) and `vectors`; nothing is
pickled. The folder is `ragkit.cache.cache_dir()`. Left out: eviction, and locking between processes that
write the same shard at once (the last one wins, and both wrote the same vectors).
"""

from __future__ import annotations

import hashlib
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

    def __init__(self, folder: str | Path, model_name: str):
        self.folder = Path(folder) / "embeddings" / model_name.replace("/", "_")
        self.model_name = model_name
        self.vectors: dict[str, np.ndarray] = {}
        if self.folder.is_dir():
            for shard in sorted(self.folder.glob("*.npz")):
                try:
                    with np.load(shard, allow_pickle=False) as data:
                        self.vectors.update(zip(data["keys"].tolist(), data["vectors"], strict=True))
                except (OSError, ValueError, KeyError):
                    continue  # a damaged shard only costs its vectors being computed again

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
            partial = self.folder / f"shard-{name}.partial.npz"
            np.savez(partial, keys=np.array(keys), vectors=np.asarray(vectors, dtype=np.float32))
            partial.replace(shard)
        except OSError as error:
            raise RagkitError(
                f"cannot write the embedding cache in {self.folder} ({error.strerror or error}); "
                "set RAGKIT_CACHE to a folder you can write"
            ) from None
