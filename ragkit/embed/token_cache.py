"""The on-disk cache of token vectors (late interaction, notebook 09): one `.npz` file per list of texts.

Token vectors take about 200 times the room of a pooled vector, and computing them for the course corpus takes
a while on two cores, so they are kept once computed: `vectors` (all tokens of all texts, float16, stacked)
and `lengths` (tokens per text), under the SHA-256 of the model's name and the texts: the chunks' (one list per
chunking and context) and long lists of queries (`ragkit.reranking.query_token_vectors`). Where a file cannot be
written (a full disk, a folder made read-only), the vectors are still returned, with a warning. Left out: sharing
vectors between lists that have texts in common, and eviction.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np


def cached_token_vectors(compute: Callable[[list[str]], list[np.ndarray]], texts: Sequence[str], folder: Path,
                         model_name: str) -> list[np.ndarray]:
    """`compute(texts)`, or what an earlier call saved for the same model and texts.

    >>> import tempfile; folder = Path(tempfile.mkdtemp())
    >>> vectors = cached_token_vectors(lambda t: [np.ones((2, 3), np.float16)] * len(t), ["a", "b"], folder, "m")
    >>> again = cached_token_vectors(lambda t: 1 / 0, ["a", "b"], folder, "m")  # read back, not computed
    >>> [v.shape for v in again]
    [(2, 3), (2, 3)]
    """
    digest = hashlib.sha256("\0".join([model_name, *texts]).encode()).hexdigest()[:24]
    path = Path(folder) / "token-vectors" / f"{digest}.npz"
    if path.is_file():
        with np.load(path) as saved:
            return np.split(saved["vectors"], np.cumsum(saved["lengths"])[:-1])
    vectors = compute(list(texts))
    # written whole, then renamed: a crash leaves no half file, and a process computing the same texts at the same
    # time (two notebooks on two test workers) writes its own partial file instead of renaming this one's away
    partial = path.with_suffix(f".{os.getpid()}.partial.npz")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        np.savez(partial, vectors=np.concatenate(vectors), lengths=np.array([len(v) for v in vectors]))
        partial.replace(path)
    except OSError as error:  # a full disk or a folder made read-only: the vectors are computed, keep them
        with contextlib.suppress(OSError):
            partial.unlink(missing_ok=True)
        warnings.warn(f"token vectors not kept in {path.parent} ({error.strerror or error}); they are computed "
                      "again next time", stacklevel=2)
    return vectors
