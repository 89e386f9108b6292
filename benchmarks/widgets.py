"""Latency of one widget control change that does not re-chunk, through the shared Pipeline.

Each row calls a widget's own callback (`ragkit.widgets.*`), exactly what a slider move runs, with a value
it has not seen before (so no result comes from the pipeline's cache of recent evaluations), over the dev
queries of the course data; chunks, embeddings and BM25 term statistics are built once beforehand, as in a
notebook. Drawing the plot is not included (matplotlib's time depends on the front end); the playground's rows
(notebook 11) include building its metrics table and results as HTML, which the widget shows as they are.
Prints a markdown table; the recorded result is in benchmarks/results/widgets.md. Goal: p95 under 50 ms on 2
cores.

    .venv/bin/python benchmarks/widgets.py               # 60 moves per control
    .venv/bin/python benchmarks/widgets.py --moves 10    # a quick look
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import platform
import sys
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
os.environ.setdefault("RAGKIT_PROGRESS", "0")

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
GOAL_MS = 50.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=60, help="control changes timed per control")
    args = parser.parse_args(argv)

    from ragkit import Pipeline, load_documents, load_queries
    from ragkit.widgets.bm25 import bm25_update
    from ragkit.widgets.fusion import fusion_update
    from ragkit.widgets.mmr import mmr_update
    from ragkit.widgets.playground import playground_update, preset_settings
    from ragkit.widgets.playground_view import METRICS, metrics_html
    from ragkit.widgets.threshold import threshold_update

    docs = load_documents(ROOT / "data" / "corpus")
    dev = load_queries(ROOT / "data" / "queries.jsonl", split="dev")
    answerable = [query for query in dev if query.evidence]
    pipe = Pipeline(docs)
    pipe.chunk_embeddings, pipe.bm25_index  # noqa: B018 - built once, as a notebook does before its widgets
    steps = np.arange(1, args.moves + 1)
    play: dict = {"values": {}, "last": None, "refused": 0}  # notebook 11: the playground's state

    def playground_setup(preset: str | None = None, **changes) -> None:
        knobs = preset_settings(pipe.config, preset)[0] if preset else dataclasses.asdict(type(pipe.config)())
        play["values"] = {**knobs, **changes}
        play["last"] = playground_update(pipe, dev, play["values"], dev[0].text, 5)

    def playground_move(i, text: str | None = None, **changes) -> None:
        # what the widget's redraw runs: the callback with every control's value, then the metrics' HTML
        play["values"] = {**play["values"], **changes}
        result = playground_update(pipe, dev, play["values"], text or dev[0].text, 5, play["last"])
        play["last"], play["refused"] = result, play["refused"] + bool(result["message"])
        metrics_html(result["metrics"], METRICS, result["config"])

    controls = {  # name -> (setup, one move given its step number)
        "05 ranking: k1": (lambda: pipe.configure(method="bm25"),
                           lambda i: bm25_update(pipe, answerable, int(i) % len(answerable), 0.5 + 0.01 * i, 0.75)),
        "05 ranking: b": (lambda: pipe.configure(method="bm25", k1=1.5),
                          lambda i: bm25_update(pipe, answerable, int(i) % len(answerable), 1.5, 0.2 + 0.005 * i)),
        "06 fusion: rrf_k": (lambda: pipe.configure(method="hybrid", b=0.75),
                             lambda i: fusion_update(pipe, answerable, 5, rrf_k=float(i))),
        "06 fusion: alpha": (lambda: pipe.configure(method="hybrid"),
                             lambda i: fusion_update(pipe, answerable, 5, alpha=float(i) / (args.moves + 1))),
        "06 fusion: fusion menu": (lambda: pipe.configure(method="hybrid", alpha=0.5, rrf_k=60),
                                   lambda i: fusion_update(pipe, answerable, 5,
                                                           fusion=("rrf", "weighted", "minmax", "zscore")[int(i) % 4])),
        "03 threshold": (lambda: pipe.configure(method="dense", fusion="rrf"),
                         lambda i: threshold_update(pipe, dev, 0.2 + 0.5 * float(i) / args.moves)),
        "08 MMR: λ": (lambda: pipe.configure(method="hybrid", fusion="zscore", threshold=None),
                      lambda i: mmr_update(pipe, dev, 0.1 + 0.9 * float(i) / args.moves)),
        "11 playground: k1": (lambda: playground_setup(method="hybrid"),
                              lambda i: playground_move(i, k1=round(0.5 + 0.03 * float(i), 2))),
        "11 playground: mmr_lambda": (lambda: playground_setup(method="hybrid"),
                                      lambda i: playground_move(i, mmr_lambda=0.2 + 0.75 * float(i) / args.moves)),
        "11 playground: alpha": (lambda: playground_setup(method="hybrid"),
                                 lambda i: playground_move(i, alpha=float(i) / (args.moves + 1))),
        "11 playground: query": (lambda: playground_setup(method="hybrid"),
                                 lambda i: playground_move(i, text=dev[int(i) % len(dev)].text)),
        "11 playground: rrf_k, seed 003 (LLM rerank)": (
            lambda: playground_setup("seed 003's pipeline"),
            lambda i: playground_move(i, rrf_k=10.5 + 150.0 * float(i) / args.moves)),
        "11 playground: k1, MaxSim rerank": (lambda: playground_setup(method="hybrid", rerank="maxsim"),
                                             lambda i: playground_move(i, k1=round(0.5 + 0.03 * float(i), 2))),
    }
    rows = []
    load_before = os.getloadavg()[0]
    for name, (setup, move) in controls.items():
        setup()
        move(0)  # warm-up: the first call of a variant fills the caches a notebook would already hold
        times = []
        for i in steps:
            start = time.perf_counter()
            move(i)
            times.append((time.perf_counter() - start) * 1000)
        rows.append((name, float(np.median(times)), float(np.percentile(times, 95)), float(max(times))))
    load_after = os.getloadavg()[0]
    print(f"{len(docs)} documents, {len(pipe.chunks)} chunks, {len(dev)} dev queries ({len(answerable)} answerable), "
          f"{args.moves} moves per control; {os.cpu_count()} cores, python {platform.python_version()}, "
          f"numpy {np.__version__}; load average {load_before:.1f} before, {load_after:.1f} after\n")
    print("| widget: control | p50 ms | p95 ms | max ms | p95 under 50 ms |")
    print("|---|---:|---:|---:|---|")
    for name, p50, p95, worst in rows:
        print(f"| {name} | {p50:.1f} | {p95:.1f} | {worst:.1f} | {'yes' if p95 < GOAL_MS else 'no'} |")
    print(f"\nre-chunked or re-embedded during the moves: {pipe.runs['chunks'] - 1 + pipe.runs['embeddings'] - 1} times; "
          f"playground moves refused (kept the last results): {play['refused']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
