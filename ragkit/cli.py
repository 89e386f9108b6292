"""Command line: `python -m ragkit data check`, `python -m ragkit eval` and `python -m ragkit contextualize`.

`eval` runs one retrieval method over the course data or any BEIR-format folder and prints the metrics;
with `--json` the last line is one JSON object (`data`, `method`, `split`, `queries`, `metrics`, `seconds`).
Left out: serving, indexing to disk, and generation.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ragkit.config import KNOBS, PipelineConfig, check_value
from ragkit.corpus import load_documents, load_queries
from ragkit.errors import RagkitError
from ragkit.evaluate.beir import is_beir_folder, load_beir
from ragkit.evaluate.datacheck import check_data
from ragkit.evaluate.datastats import statistics_markdown
from ragkit.evaluate.relevance import judgments_from_queries
from ragkit.evaluate.tables import DEFAULT_METRICS, per_query_metrics, summarize
from ragkit.pipeline import Pipeline


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


def run_eval(data: str, method: str | None, split: str, k: int, settings: Sequence[str] = ()) -> dict:
    """Evaluate one configuration; returns the JSON-ready result, with every config field under "config".

    `settings` are `name=value` strings (`parse_setting`), applied after `method`.

    >>> run_eval("tests/fixtures/beir_tiny", "bm25", "test", 10, ["k1=1.2", "b=0.75"])["config"]["k1"]
    1.2
    """
    started = time.perf_counter()
    changes = dict(parse_setting(setting) for setting in settings)  # bad settings fail before any loading
    docs, queries, judgments, config = load_eval_data(data, split)
    if method is not None:
        changes = {"method": method, **changes}
    pipe = Pipeline(docs, config, **changes)
    metrics = list(dict.fromkeys([*DEFAULT_METRICS, f"recall@{k}", f"ndcg@{k}", f"mrr@{k}"]))
    depth = max(int(m.split("@")[1]) for m in metrics)
    table = per_query_metrics(pipe.rankings([q.text for q in queries], depth), judgments, metrics)
    means = summarize(table, decimals=4).iloc[0]
    return {"data": str(data), "method": pipe.config.method, "split": split, "queries": int(means["queries"]),
            "metrics": {m: float(means[m]) for m in metrics}, "config": dataclasses.asdict(pipe.config),
            "seconds": round(time.perf_counter() - started, 2)}


def parse_setting(text: str) -> tuple[str, Any]:
    """A `name=value` setting from the command line, with the value parsed for that field.

    >>> parse_setting("k1=1.2"), parse_setting("chunk_size=none"), parse_setting("fusion=minmax")
    (('k1', 1.2), ('chunk_size', None), ('fusion', 'minmax'))
    """
    name, equals, raw = text.partition("=")
    name, raw = name.strip(), raw.strip()
    if not equals or not name:
        raise RagkitError(f"--set takes name=value (for example k1=1.2), got {text!r}")
    if name not in KNOBS:
        raise RagkitError(f"unknown setting {name!r}; the settings are: {', '.join(KNOBS)}")
    knob = KNOBS[name]
    if knob.optional and raw.lower() in ("none", "null", ""):
        return name, None
    if knob.kind is str:
        return name, check_value(name, raw)
    try:
        number = float(raw)
    except ValueError:
        raise RagkitError(f"{name}={raw!r} is not a number: {name} ({knob.meaning}) takes {knob.allowed()}") from None
    return name, check_value(name, number)


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
    situate = commands.add_parser("contextualize", help="situating contexts for every chunk (notebook 07)")
    situate.add_argument("--data", default="data", help="course data folder (default: data)")
    situate.add_argument("--chunk-size", type=int, default=800, help="characters per chunk (default: 800)")
    situate.add_argument("--chunk-overlap", type=int, default=100, help="overlap (default: 100)")
    evaluate = commands.add_parser("eval", help="evaluate a retrieval method")
    evaluate.add_argument("--data", default="data", help="course data folder or a BEIR-format folder")
    evaluate.add_argument("--method", help="retrieval method: dense, bm25 or hybrid (default: dense)")
    evaluate.add_argument("--split", default="test", help="dev or test (BEIR: the qrels file name)")
    evaluate.add_argument("--k", type=int, default=10, help="extra cut-off for recall, nDCG and MRR")
    evaluate.add_argument("--set", dest="settings", action="append", default=[], metavar="NAME=VALUE",
                          help="any pipeline setting, repeatable: --set k1=1.2 --set b=0.75 (names: "
                               + ", ".join(KNOBS) + ")")
    evaluate.add_argument("--json", action="store_true", help="end with one JSON line")
    return parser


def contextualize(folder: str, chunk_size: int, chunk_overlap: int) -> dict[str, int]:
    """Make sure every chunk of the course data has a situating context: replayed when recorded, asked of the
    configured server otherwise (`RAGKIT_LLM_MODE=record` keeps the new ones). Returns the counts.

    >>> contextualize("data", 800, 100)  # doctest: +SKIP
    {'chunks': 382, 'recorded before': 382, 'written now': 0}
    """
    from tqdm import tqdm

    from ragkit.chunk.context import contextual_texts
    from ragkit.embed.model import show_progress
    from ragkit.llm.client import LanguageModel, load_recordings
    from ragkit.llm.prompts import prompt_key, situate_prompt

    docs = load_documents(Path(folder) / "corpus")
    pipe = Pipeline(docs, chunk_size=chunk_size, chunk_overlap=chunk_overlap)
    model, by_id = LanguageModel(), {doc.doc_id: doc for doc in docs}
    known = load_recordings(model.recordings) if model.recordings.is_dir() else {}
    new = 0
    for chunk in tqdm(pipe.chunks, desc="situating contexts", disable=not show_progress()):
        doc = by_id[chunk.doc_id]
        new += prompt_key(situate_prompt(doc.text, chunk.text, doc.lang)) not in known
        contextual_texts(docs, [chunk], "llm", model)
    return {"chunks": len(pipe.chunks), "recorded before": len(pipe.chunks) - new, "written now": new}


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
        if args.command == "contextualize":
            counts = contextualize(args.data, args.chunk_size, args.chunk_overlap)
            print(", ".join(f"{value} {name}" for name, value in counts.items()))
            return 0
        if args.k < 1:
            raise RagkitError(f"--k must be at least 1, got {args.k}")
        result = run_eval(args.data, args.method, args.split, args.k, args.settings)
    except RagkitError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    for name, value in result["metrics"].items():
        print(f"{name:>12}  {value:.4f}")
    print(f"{result['queries']} queries, {result['seconds']} s")
    if args.json:
        print(json.dumps(result))
    return 0
