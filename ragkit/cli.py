"""Command line: `python -m ragkit data check|pool|record|agreement|pack-vectors`, `python -m ragkit eval`, `python -m ragkit answer` and `python -m ragkit contextualize`.

`eval` runs one retrieval method over the course data, a labels folder of your own or any BEIR-format folder and
prints the metrics; with `--json` the last line is one JSON object (`data`, `method`, `split`, `lang`, `type`,
`queries`, `metrics`, `by_type`, `by_lang`, `config`, `seconds`, `warnings`: files not loaded and labels that fail
`data check --own`, also printed first; `refusal` when the split has unanswerable queries or a threshold is set).
`data pool` prints the top units of a method not judged yet, one JSON a line (`ragkit.commands`); `data record
--judgments FILE` applies and journals (`verdicts.jsonl`) a judge's verdicts on them (`ragkit.labels.record`); `data
agreement` recomputes two judges' agreement (`ragkit.labels.agreement`); `data check --own` checks a labels folder
of your own (`ragkit.labels.owncheck`). `answer` grades a configuration's answers, replayed or live
(`ragkit.answering`); with `--json` its last line is one JSON object. Left out: serving, indexing to disk.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from ragkit.answering import MODELS, check_answer_records, run_answer
from ragkit.commands import contextualize, pool_units, run_eval
from ragkit.config import KNOBS, check_value
from ragkit.embed.model import pack_vectors
from ragkit.errors import RagkitError
from ragkit.generate.nq import CONDITIONS
from ragkit.generate.report import WRITERS, interval_text
from ragkit.labels.agreement import agreement_markdown, agreement_rows, load_agreement
from ragkit.labels.datacheck import check_data
from ragkit.labels.datastats import statistics_markdown
from ragkit.labels.files import JOURNAL
from ragkit.labels.owncheck import HINT, SKIPPED, check_own_data, course_only, eval_warnings, unanswerable_in
from ragkit.labels.record import read_verdicts, record_verdicts


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
    data = commands.add_parser("data", help="check the course data, list what is still to judge, pack vectors")
    data.add_argument("action", choices=["check", "pool", "record", "agreement", "pack-vectors"],
                      help="check: validate; pool: unjudged top units; record: apply a judge's verdicts; agreement: "
                      "the second judging's agreement and kappa; pack-vectors: cached embeddings into <data>/vectors")
    data.add_argument("--data", default="data", help="data folder (default: data)")
    data.add_argument("--own", action="store_true", help="check: a labels folder of your own (corpus/ and its "
                      "subfolders, queries.jsonl beside it), without the course's minimum sizes")
    data.add_argument("--method", help="pool: retrieval method (default: dense)")
    data.add_argument("--split", default="all", help="pool: dev, test or all (default: all)")
    data.add_argument("--depth", type=int, default=10, help="pool: how many top units per query (default: 10)")
    data.add_argument("--set", dest="settings", action="append", default=[], metavar="NAME=VALUE",
                      help="pool: any pipeline setting, repeatable")
    data.add_argument("--judgments", metavar="FILE", help="record: JSON lines, a pooled unit plus verdict "
                      "(yes, part, no), quote (yes, part) and judge")
    data.add_argument("--replace", action="store_true", help="record: a verdict may replace an earlier one the "
                      "other way (a resolving judgment); every verdict applied is journalled in verdicts.jsonl")
    data.add_argument("--fresh", action="store_true", help="pack-vectors: pack the cache alone, dropping what the "
                      "packs held (after make clean-cache)")
    data.add_argument("--translated", action="store_true", help="pool: retrieve with the recorded English "
                      "rendering of each Chinese query")
    situate = commands.add_parser("contextualize", help="situating contexts for every chunk (notebook 07)")
    situate.add_argument("--data", default="data", help="course data folder (default: data)")
    situate.add_argument("--chunk-size", type=int, default=800, help="characters per chunk (default: 800)")
    situate.add_argument("--chunk-overlap", type=int, default=100, help="overlap (default: 100)")
    evaluate = commands.add_parser("eval", help="evaluate a retrieval method")
    evaluate.add_argument("--data", default="data", help="course data folder or a BEIR-format folder")
    evaluate.add_argument("--method", help="retrieval method: dense, bm25 or hybrid (default: dense)")
    evaluate.add_argument("--split", default="test", help="dev, test or all (BEIR: the qrels file name)")
    evaluate.add_argument("--lang", help="only queries in this language (en or zh)")
    evaluate.add_argument("--type", dest="query_type", help="only queries of this type (keyword, multi, ...)")
    evaluate.add_argument("--train-split", help="rerank=ltr: the split to train on, or folds (5 folds of the "
                          "evaluated split; default: dev; BEIR: train, else folds)")
    evaluate.add_argument("--k", type=int, default=10, help="extra cut-off for recall, nDCG and MRR")
    evaluate.add_argument("--set", dest="settings", action="append", default=[], metavar="NAME=VALUE", help="any "
                          "pipeline setting, repeatable: --set k1=1.2 --set b=0.75 (names: " + ", ".join(KNOBS) + ")")
    evaluate.add_argument("--json", action="store_true", help="end with one JSON line")
    answer = commands.add_parser("answer", help="grade a configuration's answers (recorded by default)")
    answer.add_argument("--data", default="data", help="course data folder, or data/nq-open (Natural Questions)")
    answer.add_argument("--split", default="test", help="course data: dev or test (default: test)")
    answer.add_argument("--lang", help="course data: only queries in this language (en or zh)")
    answer.add_argument("--set", dest="settings", action="append", default=[], metavar="NAME=VALUE",
                        help="course data: any pipeline setting, the answer stage's k, order, compress included")
    answer.add_argument("--condition", default="position-1", choices=CONDITIONS,
                        help="Natural Questions: where the answering passage is (default: position-1)")
    answer.add_argument("--writer", default="claude", choices=WRITERS, help="whose recorded answers to replay")
    answer.add_argument("--model", default="recorded", choices=MODELS, help="recorded (replay, offline), "
                        "local (SmolLM2 on the CPU, live) or server (RAGKIT_LLM_URL, live)")
    answer.add_argument("--limit", type=int, help="only the first N queries or questions")
    answer.add_argument("--json", action="store_true", help="end with one JSON line")
    return parser


def print_check(folder: str, own: bool = False) -> int:
    """Print the data statistics and every problem; 0 when the data is valid, 1 otherwise. With `own`, a labels
    folder of your own (`ragkit.labels.owncheck`): what was derived for its documents, and what is not checked,
    come first as notes. Without it, failing the course's minimum sizes or front matter ends with a hint of `--own`.

    >>> print_check("data/demo-handbook", own=True)  # doctest: +ELLIPSIS
    | documents | characters | words | sources | Chinese documents | queries |
    ...
    note: incident-response.md: no front matter: id 'incident-response', ...
    ...
    data check passed: 0 problems
    0
    """
    if own:
        problems, notes, stats = check_own_data(folder)
    else:  # the course's check, then its answer keys and recorded answers (notebook 13)
        (problems, stats), (answer_problems, notes) = check_data(folder), check_answer_records(folder)
        problems += answer_problems
    print(statistics_markdown(stats))
    print()
    for note in [*notes, *([SKIPPED] if own else [])]:
        print(f"note: {note}")
    for problem in problems:
        print(problem)
    hint = f"; {HINT}" if not own and course_only(problems) else ""
    print(f"{len(problems)} problems{hint}" if problems else "data check passed: 0 problems")
    return int(bool(problems))


def main(argv: list[str] | None = None) -> int:
    """Run a command; bad input prints one `error: ...` line and returns 2 instead of a traceback.

    >>> main(["eval", "--data", "nowhere"])  # doctest: +SKIP
    2
    """
    args = build_parser().parse_args(argv)
    try:
        settings = [parse_setting(setting) for setting in getattr(args, "settings", [])]  # fail before loading
        if args.command == "data" and args.own and args.action != "check":
            raise RagkitError("--own goes with data check only")
        if args.command == "data" and args.action == "check":
            return print_check(args.data, args.own)
        if args.command == "data" and args.action == "record":
            if not args.judgments:
                raise RagkitError("data record needs --judgments FILE (JSON lines of verdicts)")
            lines = [(where, {**line, "resolution": "replace"} if args.replace else line)
                     for where, line in read_verdicts(args.judgments)]  # journalled as applied: a replay redoes it
            done = record_verdicts(args.data, lines, args.replace, journal=JOURNAL)
            print(", ".join(f"{value} {name}" for name, value in done.items()))
            return 0
        if args.command == "data" and args.action == "agreement":
            print(agreement_markdown(agreement_rows(load_agreement(Path(args.data) / "agreement.jsonl"))))
            return 0
        if args.command == "data" and args.action == "pack-vectors":
            for name, count in pack_vectors(Path(args.data) / "vectors", keep=not args.fresh).items():
                print(f"{name}: {count} vectors")
            return 0
        if args.command == "data":
            if args.depth < 1:
                raise RagkitError(f"--depth must be at least 1, got {args.depth}")
            units = pool_units(args.data, args.method, args.split, args.depth, settings, args.translated)
            for unit in units:
                print(json.dumps(unit, ensure_ascii=False))
            print(f"{len(units)} units to judge ({len({u['query'] for u in units})} queries)", file=sys.stderr)
            return 0
        if args.command == "contextualize":
            counts = contextualize(args.data, args.chunk_size, args.chunk_overlap)
            print(", ".join(f"{value} {name}" for name, value in counts.items()))
            return 0
        if args.command == "answer":
            result = run_answer(args.data, args.split, settings, args.writer, args.model, args.lang,
                                args.condition, args.limit)
            for name, entry in result["metrics"].items():
                print(f"{name:>18}  {interval_text(entry)}")
            print(f"{result.get('queries', result.get('questions'))} queries, answers by {result['writer']}, "
                  f"{result['seconds']} s")
            if args.json:
                print(json.dumps(result, ensure_ascii=False))
            return 0
        if args.k < 1:
            raise RagkitError(f"--k must be at least 1, got {args.k}")
        for line in (warnings := eval_warnings(args.data)):
            print(f"warning: {line}", file=sys.stderr)
        result = {**run_eval(args.data, args.method, args.split, args.k, settings, args.lang, args.query_type,
                             args.train_split, refusal=unanswerable_in(args.data, args.split) > 0), "warnings": warnings}
    except RagkitError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    for name, value in result["metrics"].items():
        print(f"{name:>12}  {value:.4f}")
    if "refusal" in result:
        print("refusal: " + ", ".join(f"{name} {value:g}" for name, value in result["refusal"].items()) + ("" if
              result["config"]["threshold"] is not None else " (no threshold: nothing refused; --set threshold=T)"))
    if "ltr" in result:
        print(f"ltr trained on {result['ltr']['train_split']}; weights: " +
              ", ".join(f"{name} {weight:+.2f}" for name, weight in result["ltr"]["importances"].items()))
    print(f"{result['queries']} queries, {result['seconds']} s")
    if args.json:
        print(json.dumps(result))
    return 0
