"""Retrieval against generation time: the course's best pipeline and SmolLM2-135M on the CPU (seed 000's split).

For test queries, the best pipeline (contextual hybrid, LLM rerank of the top 50, replayed) retrieves the top k and
the local model (`ragkit.generate.local.LocalModel`, temperature 0, at most 64 new tokens) answers notebook 00's
prompt. Per k: median retrieval milliseconds (the query's scores are computed before, as in a warm service),
median generation seconds, median prompt and written tokens, and prompt tokens per second of generation (the
medians' ratio; the 64 written tokens are included in the time). Prints a markdown table; the recorded result is
in benchmarks/results/answer.md.

    .venv/bin/python benchmarks/answer.py --queries 6 --threads 2   # as recorded
    .venv/bin/python benchmarks/answer.py --queries 2 --k 1 5       # a quick look
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")

ROOT = Path(__file__).resolve().parent.parent


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=6, help="answerable test queries, the first N")
    parser.add_argument("--k", type=int, nargs="+", default=[1, 5, 20], help="passages in the prompt")
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1, help="CPU threads for the model")
    args = parser.parse_args(argv)

    from ragkit import Pipeline, load_documents, load_queries
    from ragkit.answering import GRID_PIPELINES
    from ragkit.generate.local import LocalModel

    docs = load_documents(ROOT / "data" / "corpus")
    queries = [q for q in load_queries(ROOT / "data" / "queries.jsonl", split="test") if q.evidence][:args.queries]
    best = Pipeline(docs).using(**GRID_PIPELINES["best"])
    best.rankings([q.text for q in queries], 50)  # warm the caches: retrieval is timed per query below
    started = time.perf_counter()
    model = LocalModel(max_tokens=64, threads=args.threads)
    model.complete("Say yes.")
    load = time.perf_counter() - started
    rows = []
    for k in args.k:
        timings = []
        for query in queries:
            reply = best.using(k=k).answer(query.text, model)
            timings.append((reply.usage["retrieval_seconds"] * 1000, reply.seconds, reply.usage["prompt_tokens"],
                            reply.usage["completion_tokens"]))
        rows.append((k, *(statistics.median(column) for column in zip(*timings, strict=True))))
    print(f"{platform.processor() or platform.machine()}, {args.threads} threads, {len(queries)} test queries; "
          f"model loaded and warmed in {load:.2f} s")
    print("\n| k | retrieval ms | generation s | prompt tokens | written tokens | prompt tokens per second |")
    print("|---|---|---|---|---|---|")
    for k, retrieval, generation, prompt_tokens, completion in rows:
        print(f"| {k} | {retrieval:.1f} | {generation:.2f} | {prompt_tokens:.0f} | {completion:.0f} | "
              f"{prompt_tokens / generation:.0f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
