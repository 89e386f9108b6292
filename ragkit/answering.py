"""What `python -m ragkit answer` runs: a configuration's answers, graded, over the course data or Natural Questions.

Course data (a folder with `corpus/`): the pipeline under `--set` (retrieval knobs and the answer stage's `k`,
`order`, `compress`) answers every query of the split, replayed from a writer's recordings by default, and
the answers are graded against `answer-keys.jsonl` (`ragkit.generate.report`). Natural Questions (a folder
with `questions.jsonl` and `passages.jsonl`): one `condition` (the answering passage at position 1, 5, 10, 15
or 20 of 20, `closed-book` or `gold-only`). `model="local"` answers live with SmolLM2 on the CPU, `"server"`
with an OpenAI-compatible server (`RAGKIT_LLM_URL`, `RAGKIT_LLM_MODEL`). The recorded course grid covers two
pipelines: naive dense retrieval (the default config) and the course's best (`context=llm`, `method=hybrid`,
`rerank=llm`, `rerank_depth=50`). Left out: choosing a configuration (notebook 13 compares them).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path

from ragkit.config import PipelineConfig
from ragkit.corpus import load_documents, load_queries, read_jsonl
from ragkit.errors import RagkitError
from ragkit.evaluate.relevance import judgments_from_queries
from ragkit.generate.grid import grid_items
from ragkit.generate.keys import check_answer_keys, load_answer_keys
from ragkit.generate.nq import CONDITIONS, context_passages, load_nq, nq_prompt
from ragkit.generate.recording import load_answers
from ragkit.generate.report import course_answers, nq_answers, summary
from ragkit.llm.prompts import prompt_key
from ragkit.pipeline import Pipeline

MODELS = ("recorded", "local", "server")
COMPLETE = ("claude",)  # writers whose recordings must cover the whole grid and every Natural Questions condition
# the two pipelines of the recorded grid: naive dense retrieval, and the course's best on test (README's table)
GRID_PIPELINES = {"dense": {}, "best": {"context": "llm", "method": "hybrid", "rerank": "llm", "rerank_depth": 50}}


def live_model(model: str, max_tokens: int = 96):
    """The model that answers live: SmolLM2 on the CPU, or the server the environment names.

    >>> live_model("recorded") is None
    True
    """
    if model not in MODELS:
        raise RagkitError(f"unknown model {model!r}; choose one of {', '.join(MODELS)}")
    if model == "local":
        from ragkit.generate.local import LocalModel
        return LocalModel(max_tokens=max_tokens)
    if model == "server":
        from ragkit.llm.client import LanguageModel
        return LanguageModel(mode="live")
    return None


def run_answer(data: str | Path, split: str = "test", settings: Sequence[tuple] = (), writer: str = "claude",
               model: str = "recorded", lang: str | None = None, condition: str = "position-1",
               limit: int | None = None) -> dict:
    """Graded answers of one configuration: metrics with intervals, per language for course data.

    >>> result = run_answer("data", settings=[("k", 5)])  # doctest: +SKIP
    >>> sorted(result["metrics"])  # doctest: +SKIP
    ['citation_precision', 'citation_recall', 'correctness', 'refusal_precision', 'refusal_recall']
    """
    started, data = time.perf_counter(), Path(data)
    live = live_model(model)
    if limit is not None and limit < 1:
        raise RagkitError(f"--limit must be at least 1, got {limit}")
    if (data / "questions.jsonl").is_file() and (data / "passages.jsonl").is_file():
        if settings:
            raise RagkitError("--set applies to course data; Natural Questions takes --condition")
        if condition not in CONDITIONS:
            raise RagkitError(f"unknown condition {condition!r}; choose one of {', '.join(CONDITIONS)}")
        rows = nq_answers(condition, writer, data, limit, live)
        return {"data": str(data), "condition": condition, "writer": writer if live is None else live.model,
                "questions": len(rows), "metrics": summary(rows), "seconds": round(time.perf_counter() - started, 2)}
    if not (data / "corpus").is_dir():
        raise RagkitError(f"{data}: not a data folder: expected corpus/ and queries.jsonl (course data) or "
                          "questions.jsonl and passages.jsonl (Natural Questions)")
    if split not in ("dev", "test"):
        raise RagkitError(f"--split must be dev or test, got {split!r}")
    docs = load_documents(data / "corpus")
    queries = load_queries(data / "queries.jsonl", split=split)
    if lang is not None:
        queries = [q for q in queries if q.lang == lang]
        if not queries:
            raise RagkitError(f"no {split} queries in language {lang!r}")
    queries = queries[:limit] if limit is not None else queries
    config = PipelineConfig().updated(**dict(settings))
    pipe = Pipeline(docs, config)
    if config.rerank == "ltr":
        pipe.train_ranker(load_queries(data / "queries.jsonl", split="dev"))
    rows = course_answers(pipe, queries, judgments_from_queries(queries, docs),
                          load_answer_keys(data / "answer-keys.jsonl"), writer, live)
    by_lang = {code: summary(rows[rows["lang"] == code]) for code in sorted(set(rows["lang"]))}
    return {"data": str(data), "split": split, "lang": lang, "writer": writer if live is None else live.model,
            "queries": len(rows), "metrics": summary(rows), "by_lang": by_lang,
            "config": {name: getattr(config, name) for name in ("method", "context", "rerank", "rerank_depth",
                                                                 "k", "order", "compress")},
            "seconds": round(time.perf_counter() - started, 2)}


def course_grid(data: str | Path = "data", split: str = "test") -> list[dict]:
    """Every prompt of the recorded grid (`ragkit.generate.grid`) for both pipelines of `GRID_PIPELINES`.

    >>> len(course_grid())  # doctest: +SKIP
    3214
    """
    data = Path(data)
    docs, queries = load_documents(data / "corpus"), load_queries(data / "queries.jsonl", split=split)
    judgments, texts = judgments_from_queries(queries, docs), [q.text for q in queries]
    pipe = Pipeline(docs)
    similarities = pipe.dense_scores(texts)
    items = []
    for name, changes in GRID_PIPELINES.items():
        variant = pipe.using(**changes)
        items += grid_items(name, queries, variant.rankings(texts, 20), variant.chunks, similarities, judgments)
    return items


def check_answer_records(data: str | Path = "data") -> tuple[list[str], list[str]]:
    """(problems, notes) of the answer keys and every recorded answer: each line's provenance (`model`), a
    non-empty response, one line per (question, condition), and its key equal to the key of the prompt that
    its condition builds today (so a change to retrieval or to the prompt shows here). Notes count the answers.

    >>> problems, notes = check_answer_records("data")  # doctest: +SKIP
    """
    data, problems, notes = Path(data), [], []
    if (data / "answer-keys.jsonl").is_file():
        problems += check_answer_keys(data / "answer-keys.jsonl", load_queries(data / "queries.jsonl"))
    writers = sorted(p for p in (data / "llm" / "answers").glob("*") if p.is_dir())
    if not writers:
        return problems, notes
    questions, passages = load_nq(data / "nq-open")
    by_id = {q["id"]: q for q in questions}
    grid = {(item["id"], item["condition"]): prompt_key(item["prompt"]) for item in course_grid(data)}
    for folder in writers:
        seen: dict[tuple[str, str], str] = {}
        load_answers(folder)  # every line has a key and a response, or one clear error
        for key, record in ((r["key"], r) for path in sorted(folder.glob("*.jsonl")) for _, r in read_jsonl(path)):
            where = f"{folder.relative_to(data)}: {record.get('id')} {record.get('condition')}"
            pair = (record.get("id"), record.get("condition"))
            if not record.get("model") or not record["response"].strip():
                problems.append(f"{where}: needs a non-empty 'model' (who wrote it) and 'response'")
            if pair in seen:
                problems.append(f"{where}: answered twice")
            seen[pair] = key
            if str(pair[0]).startswith("nq-"):
                question = by_id.get(pair[0])
                expected = (prompt_key(nq_prompt(question["question"], context_passages(question, passages, pair[1])))
                            if question and pair[1] in CONDITIONS else None)
            else:
                expected = grid.get(pair)
            if expected is None:
                problems.append(f"{where}: no such question or condition in the grid")
            elif expected != key:
                problems.append(f"{where}: its key is not the key of the prompt this condition builds now")
        nq = sum(1 for pair in seen if str(pair[0]).startswith("nq-"))
        notes.append(f"{folder.name}: {len(seen) - nq} course answers, {nq} Natural Questions answers")
        if folder.name in COMPLETE:  # a prompt shared by two cells is answered once and serves both
            keys = set(seen.values())
            missing = sum(key not in keys for key in set(grid.values()))
            missing_nq = len(questions) * len(CONDITIONS) - nq
            if missing or missing_nq:
                problems.append(f"{folder.relative_to(data)}: {missing} grid prompts and {missing_nq} Natural "
                                "Questions prompts have no recorded answer")
    return problems, notes
