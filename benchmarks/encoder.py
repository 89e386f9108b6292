"""Throughput of the numpy encoder (ragkit.embed.numpy_encoder) and of sentence-transformers (torch), side by side.

Both embed the course chunks (chunk size 800, overlap 100) in the same process, with the same number of
threads, after a warm-up, in alternating rounds so that a busy machine slows both alike; each figure is the
median over the rounds. Prints a markdown table; the recorded result is in benchmarks/results/encoder.md.

    .venv/bin/python benchmarks/encoder.py                  # all chunks, all cores, 3 rounds
    .venv/bin/python benchmarks/encoder.py --limit 64 --rounds 1   # a quick look
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=None, help="embed only the first N chunks")
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1, help="threads for both encoders")
    parser.add_argument("--rounds", type=int, default=3, help="timed rounds per encoder (median reported)")
    args = parser.parse_args(argv)

    import torch

    from ragkit import Pipeline, load_documents
    from ragkit.embed.model import load_model
    from ragkit.embed.numpy_encoder import NumpyEncoder

    torch.set_num_threads(args.threads)
    texts = [chunk.text for chunk in Pipeline(load_documents(ROOT / "data" / "corpus")).chunks][:args.limit]
    model = load_model()
    runs = {  # name -> (batch size, function of texts returning unit vectors)
        "numpy (ragkit.embed.numpy_encoder)": (8, NumpyEncoder(batch_size=8, threads=args.threads).encode),
        "numpy, batches of 32": (32, NumpyEncoder(batch_size=32, threads=args.threads).encode),
        "torch (sentence-transformers)": (32, lambda t: model.encode(t, batch_size=32, normalize_embeddings=True)),
        "torch, batches of 8": (8, lambda t: model.encode(t, batch_size=8, normalize_embeddings=True)),
    }
    for _, encode in runs.values():  # warm-up: weights in memory, kernels and thread pools started
        encode(texts[:16])
    seconds: dict[str, list[float]] = {name: [] for name in runs}
    vectors: dict[str, np.ndarray] = {}
    load_before = os.getloadavg()[0]
    for _ in range(args.rounds):
        for name, (_, encode) in runs.items():
            start = time.perf_counter()
            vectors[name] = encode(texts)
            seconds[name].append(time.perf_counter() - start)
    load_after = os.getloadavg()[0]

    names = list(runs)
    difference = float(np.abs(vectors[names[0]] - vectors[names[2]]).max())
    rate = {name: len(texts) / statistics.median(times) for name, times in seconds.items()}
    print(f"{len(texts)} chunks, {args.threads} threads, {args.rounds} rounds, {os.cpu_count()} cores, "
          f"python {platform.python_version()}, numpy {np.__version__}, torch {torch.__version__}; "
          f"load average {load_before:.1f} before, {load_after:.1f} after")
    print(f"max |numpy - torch| over all vectors: {difference:.1e}\n")
    print("| encoder | batch | texts/s (median) | seconds per round |")
    print("|---|---:|---:|---|")
    for name, (batch, _) in runs.items():
        print(f"| {name} | {batch} | {rate[name]:.1f} | {', '.join(f'{s:.1f}' for s in seconds[name])} |")
    print(f"\nnumpy / torch throughput, each at its default batch size: {rate[names[0]] / rate[names[2]]:.2f}; "
          f"numpy / the faster torch: {rate[names[0]] / max(rate[names[2]], rate[names[3]]):.2f} (goal: at least 0.50)")
    return 0 if difference <= 1e-5 else 1


if __name__ == "__main__":
    sys.exit(main())
