"""Where ragkit keeps what is expensive to recompute: the cache folder, and the stage cache of a pipeline.

The cache folder is `$RAGKIT_CACHE` when set, else `.cache/` at the root of a source checkout (beside
`pyproject.toml`), else `~/.cache/ragkit`; embeddings (`ragkit.embed.vector_cache`), jieba's dictionary and
the embedded Chroma store live there. `shipped_vectors_dir` is where a source checkout keeps the packed vectors of
the course data (`data/vectors/`), read under the cache. `StageCache` holds a pipeline's in-memory results by key. Left out:
eviction on disk, and sharing in-memory results between processes.
"""

from __future__ import annotations

import os
import tempfile
from collections import Counter, OrderedDict
from collections.abc import Callable
from pathlib import Path

from ragkit.errors import RagkitError


def cache_dir(create: bool = True) -> Path:
    """The cache folder, created (and checked writable) unless `create` is false.

    >>> import os; os.environ["RAGKIT_CACHE"] = "/tmp/ragkit-doctest"
    >>> str(cache_dir())
    '/tmp/ragkit-doctest'
    """
    if os.environ.get("RAGKIT_CACHE"):
        folder = Path(os.environ["RAGKIT_CACHE"]).expanduser()
    else:
        checkout = Path(__file__).resolve().parent.parent
        if (checkout / "pyproject.toml").is_file():
            folder = checkout / ".cache"
        else:
            folder = Path.home() / ".cache" / "ragkit"
    if create:
        try:
            folder.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile(dir=folder):
                pass
        except OSError as error:
            raise RagkitError(
                f"the cache folder {folder} cannot be written ({error.strerror or error}); "
                "set the environment variable RAGKIT_CACHE to a folder you can write"
            ) from None
    return folder


def shipped_vectors_dir() -> Path | None:
    """The folder of shipped vector packs: `$RAGKIT_VECTORS` when set (`none` turns them off, to measure a
    truly cold run), else `data/vectors/` of a source checkout, else None.

    >>> import os; os.environ["RAGKIT_VECTORS"] = "none"
    >>> shipped_vectors_dir() is None
    True
    >>> del os.environ["RAGKIT_VECTORS"]
    """
    chosen = os.environ.get("RAGKIT_VECTORS")
    if chosen:
        return None if chosen.lower() == "none" else Path(chosen).expanduser()
    folder = Path(__file__).resolve().parent.parent / "data" / "vectors"
    return folder if folder.is_dir() else None


class StageCache:
    """What a pipeline's stages computed, by key: kept for good (`stage`: chunks, embeddings, indexes) or
    among the `size` most recent (`recent`: score matrices and evaluations, which a slider makes many of).
    `runs` counts how often each kind of stage really computed, so tests and notebooks can see what a change
    re-ran; `memo` keeps results item by item.

    >>> cache = StageCache(size=1)
    >>> cache.stage(("chunks", 800), lambda: [1, 2]), cache.stage(("chunks", 800), lambda: [3])
    ([1, 2], [1, 2])
    >>> cache.recent(("scores", "a"), lambda: 1), cache.recent(("scores", "b"), lambda: 2), dict(cache.runs)
    (1, 2, {'chunks': 1, 'scores': 2})
    """

    def __init__(self, size: int = 32):
        self.kept: dict[tuple, object] = {}
        self.latest: OrderedDict[tuple, object] = OrderedDict()
        self.size = size
        self.runs: Counter[str] = Counter()
        self.memos: dict[tuple, dict] = {}

    def stage(self, key: tuple, compute: Callable[[], object]):
        """`compute()` once per key; later calls return the same object."""
        if key not in self.kept:
            self.kept[key] = compute()
            self.runs[key[0]] += 1
        return self.kept[key]

    def memo(self, key: tuple) -> dict:
        """The dict kept under `key` for results item by item, such as a reranker's score of each (query,
        chunk) pair, so that a slider move computes only the pairs it has not seen. Per-query results, kept
        apart from the corpus-side stages of `kept`.

        >>> cache = StageCache()
        >>> cache.memo(("llm scores",))["q", 3] = 7.0
        >>> cache.memo(("llm scores",)), cache.kept
        ({('q', 3): 7.0}, {})
        """
        return self.memos.setdefault(key, {})

    def recent(self, key: tuple, compute: Callable[[], object]):
        """`compute()` kept among the most recent results; returns a copy where the result has one (numpy
        arrays, tables), so a caller may change its copy without touching the cache."""
        if key not in self.latest:
            self.latest[key] = compute()
            self.runs[key[0]] += 1
            if len(self.latest) > self.size:
                self.latest.popitem(last=False)
        self.latest.move_to_end(key)
        value = self.latest[key]
        return value.copy() if hasattr(value, "copy") else value
