"""Where Chroma's HNSW index starts to approximate: recall@10 against exact search, and latency, for a few
`max_neighbors` (M) and `ef_search` settings, on tens of thousands of vectors.

The course corpus has 382 chunks, far too few for an approximate index to miss anything (notebook 03). Real
deployments hold millions. This benchmark builds collections of 384-dimensional unit vectors shaped like
sentence embeddings (clusters around topic centres, so that near neighbours are crowded, which is where HNSW's
greedy graph walk errs) and measures, for 200 queries drawn the same way, how many of the exact top 10 Chroma
returns, and how long a query takes. Results go to `benchmarks/results/hnsw.md`.

Run: `python benchmarks/hnsw.py` (about ten minutes on 2 cores: each setting builds its own index). Left out: memory per setting, and
filtered search, whose recall HNSW can lose differently.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ragkit.index.chroma import chroma_client  # noqa: E402
from ragkit.index.exact import top_k  # noqa: E402

DIMENSIONS, QUERIES, K = 384, 200, 10


def embedding_like(n: int, queries: int, seed: int, topics: int = 500,
                   spread: float = 0.6) -> tuple[np.ndarray, np.ndarray]:
    """`n` unit vectors and `queries` query vectors, all in clusters around the same `topics` random centres
    (cosine to their centre about 0.85), so that every query has near neighbours among the vectors."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(topics, DIMENSIONS))
    centres /= np.linalg.norm(centres, axis=1, keepdims=True)

    def around(count: int) -> np.ndarray:
        noise = rng.normal(size=(count, DIMENSIONS)) * spread / np.sqrt(DIMENSIONS)
        vectors = centres[rng.integers(0, topics, size=count)] + noise
        return (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).astype(np.float32)

    return around(n), around(queries)


def chroma_recall(vectors: np.ndarray, queries: np.ndarray, max_neighbors: int, ef_search: int,
                  folder: str) -> dict:
    """Build one collection with `max_neighbors` and `ef_search`, then measure recall@10 and latency.

    `ef_search` is set when the collection is created: in Chroma 1.5.9 (embedded), `collection.modify`
    stores a new `ef_search` in the configuration, but the index already loaded keeps searching with the old
    one (recall did not move from 0.285 at ef 10 to ef 500 on 10,000 vectors; a new collection at ef 200 gave 0.959).
    """
    client = chroma_client(path=folder)
    exact = top_k(queries @ vectors.T, K)
    ids = [str(i) for i in range(len(vectors))]
    started = time.perf_counter()
    collection = client.create_collection(f"hnsw-m{max_neighbors}-ef{ef_search}", embedding_function=None,
                                          configuration={"hnsw": {"space": "cosine", "max_neighbors": max_neighbors,
                                                                  "ef_construction": 100, "ef_search": ef_search}})
    for start in range(0, len(vectors), 5000):  # Chroma takes at most 5,461 vectors per call
        collection.add(ids=ids[start:start + 5000], embeddings=vectors[start:start + 5000])
    build = time.perf_counter() - started
    found, times = [], []
    for query in queries:
        started = time.perf_counter()
        result = collection.query(query_embeddings=[query], n_results=K)
        times.append(1000 * (time.perf_counter() - started))
        found.append([int(i) for i in result["ids"][0]])
    recall = np.mean([len(set(f) & set(e.tolist())) / K for f, e in zip(found, exact, strict=True)])
    return {"vectors": len(vectors), "M": max_neighbors, "ef_search": ef_search, "recall@10": recall,
            "median ms": statistics.median(times), "build s": build}


def main() -> None:
    rows = []
    for n in (20_000, 50_000):
        vectors, queries = embedding_like(n, QUERIES, seed=1)
        exact_times = []
        for query in queries[:50]:
            started = time.perf_counter()
            top_k((query @ vectors.T)[None, :], K)
            exact_times.append(1000 * (time.perf_counter() - started))
        settings = [(4, 10), (4, 100), (16, 10), (16, 100)] if n < 50_000 else [(4, 10), (16, 10), (16, 100)]
        for max_neighbors, ef_search in settings:
            with tempfile.TemporaryDirectory() as folder:
                row = chroma_recall(vectors, queries, max_neighbors, ef_search, folder)
            rows.append({**row, "exact numpy ms": statistics.median(exact_times)})
            print(" | ".join(f"{key} {value:.3f}" if isinstance(value, float) else f"{key} {value}"
                             for key, value in rows[-1].items()), flush=True)
    lines = ["| vectors | M (max_neighbors) | ef_search | recall@10 vs exact | median query ms | exact numpy ms | "
             "build s |", "|---|---|---|---|---|---|---|"]
    lines += [f"| {r['vectors']:,} | {r['M']} | {r['ef_search']} | {r['recall@10']:.3f} | {r['median ms']:.2f} | "
              f"{r['exact numpy ms']:.2f} | {r['build s']:.1f} |" for r in rows]
    print("\n".join(lines))


if __name__ == "__main__":
    main()
