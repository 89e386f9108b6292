"""Command line: `python -m ragkit data check` and `python -m ragkit eval`.

`eval` runs one retrieval method over the course data or any BEIR-format folder and prints the metrics;
with `--json` the last line is one JSON object (`data`, `method`, `split`, `queries`, `metrics`, `seconds`).
Left out: serving, indexing to disk, and generation.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from ragkit.beir import is_beir_folder, load_beir
from ragkit.corpus import load_documents, load_queries
from ragkit.datacheck import check_data, statistics_markdown
from ragkit.errors import RagkitError
from ragkit.evaluation import DEFAULT_METRICS, per_query_metrics, summarize
from ragkit.pipeline import Pipeline, PipelineConfig
from ragkit.relevance import judgments_from_queries


def load_eval_data(folder: str | Path, split: str):
    """(documents, queries, judgments, config) for course data (a folder with corpus/) or BEIR data.

    >>> docs, queries, judgments, config = load_eval_data("data", "dev")  # doctest: +SKIP
    """
    folder = Path(folder)
    if is_beir_folder(folder):
        docs, queries, judgments = load_beir(folder, split)
        return docs, queries, judgments, PipelineConfig(chunk_size=None)
    if (folder / "corpus").is_dir():
        docs = load_documents(folder / "corpus")
        queries = [q for q in load_queries(folder / "queries.jsonl", split=split) if q.evidence]
        return docs, queries, judgments_from_queries(queries, docs), PipelineConfig()
    raise RagkitError(f"{folder}: not a data folder: expected corpus/ and queries.jsonl (course data) "
                      "or corpus.jsonl, queries.jsonl and qrels/ (BEIR format)")


def run_eval(data: str, method: str, split: str, k: int, chunk_size: int | None = None,
             chunk_overlap: int | None = None) -> dict:
    """Evaluate one method; returns the JSON-ready result.

    >>> run_eval("tests/fixtures/beir_tiny", "dense", "test", 10)["queries"]  # doctest: +SKIP
    3
    """
    started = time.perf_counter()
    docs, queries, judgments, config = load_eval_data(data, split)
    changes = {"method": method}
    if chunk_size is not None and config.chunk_size is not None:
        changes["chunk_size"] = chunk_size
    if chunk_overlap is not None and config.chunk_size is not None:
        changes["chunk_overlap"] = chunk_overlap
    pipe = Pipeline(docs, config)
    pipe.configure(**changes)
    metrics = list(dict.fromkeys([*DEFAULT_METRICS, f"recall@{k}", f"ndcg@{k}", f"mrr@{k}"]))
    depth = max(int(m.split("@")[1]) for m in metrics)
    table = per_query_metrics(pipe.rankings([q.text for q in queries], depth), judgments, metrics)
    means = summarize(table, decimals=4).iloc[0]
    return {"data": str(data), "method": method, "split": split, "queries": int(means["queries"]),
            "metrics": {m: float(means[m]) for m in metrics}, "seconds": round(time.perf_counter() - started, 2)}


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of `python -m ragkit`.

    >>> build_parser().parse_args(["eval", "--method", "bm25"]).method
    'bm25'
    """
    parser = argparse.ArgumentParser(prog="python -m ragkit", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    data = commands.add_parser("data", help="check the course data")
    data.add_argument("action", choices=["check"])
    data.add_argument("--data", default="data", help="data folder (default: data)")
    evaluate = commands.add_parser("eval", help="evaluate a retrieval method")
    evaluate.add_argument("--data", default="data", help="course data folder or a BEIR-format folder")
    evaluate.add_argument("--method", default="dense", help="retrieval method (default: dense)")
    evaluate.add_argument("--split", default="test", help="dev or test (BEIR: the qrels file name)")
    evaluate.add_argument("--k", type=int, default=10, help="extra cut-off for recall, nDCG and MRR")
    evaluate.add_argument("--chunk-size", type=int, help="characters per chunk (course data)")
    evaluate.add_argument("--chunk-overlap", type=int, help="overlap between chunks (course data)")
    evaluate.add_argument("--json", action="store_true", help="end with one JSON line")
    return parser


def print_check(folder: str) -> int:
    """Print the data statistics and every problem; 0 when the data is valid, 1 otherwise.

    >>> print_check("data")  # doctest: +SKIP
    0
    """
    problems, stats = check_data(folder)
    print(statistics_markdown(stats))
    print()
    for problem in problems:
        print(problem)
    print(f"{len(problems)} problems" if problems else "data check passed: 0 problems")
    return 1 if problems else 0


def main(argv: list[str] | None = None) -> int:
    """Run a command; bad input prints one `error: ...` line and returns 2 instead of a traceback.

    >>> main(["eval", "--data", "nowhere"])  # doctest: +SKIP
    2
    """
    args = build_parser().parse_args(argv)
    try:
        if args.command == "data":
            return print_check(args.data)
        if args.k < 1:
            raise RagkitError(f"--k must be at least 1, got {args.k}")
        result = run_eval(args.data, args.method, args.split, args.k, args.chunk_size, args.chunk_overlap)
    except RagkitError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    for name, value in result["metrics"].items():
        print(f"{name:>12}  {value:.4f}")
    print(f"{result['queries']} queries, {result['seconds']} s")
    if args.json:
        print(json.dumps(result))
    return 0
