"""What the command line runs: evaluate a configuration, list the units still to judge, write situating contexts,
pack the cached vectors of the course data.

`run_eval` evaluates one configuration of the pipeline on the course data or a BEIR folder, optionally on one
language or query type, with means overall, per type and per language, and judged@10 and judged@20 (how much of the
top 10 and top 20 the judgments cover). `pool_units` lists the top units of a configuration that no judgment covers yet: the work
a judge still has to do before that configuration's numbers can be trusted (`data/README.md`, "Pooled
judgments"). With `rerank="ltr"` both first train the ranker on another split (`trained_pipeline`), or, on a collection
with one judged split, `run_eval` trains one per query fold (`ragkit.evaluate.folds`); with a
`threshold`, `run_eval` also measures refusal on the split's unanswerable queries. Left out: running the judges
(they are people or language models given only query and passage).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence
from pathlib import Path

from ragkit.config import PipelineConfig
from ragkit.corpus import load_documents, load_queries, read_jsonl
from ragkit.errors import RagkitError, check_k
from ragkit.evaluate.beir import is_beir_folder, load_beir, skipped_qrels
from ragkit.evaluate.folds import cross_fitted_rankings
from ragkit.evaluate.nq_retrieval import is_nq_folder, load_nq_retrieval
from ragkit.evaluate.refusal import refusal_measures
from ragkit.evaluate.relevance import judged_units, judgments_from_queries
from ragkit.evaluate.tables import DEFAULT_METRICS, per_query_metrics, summarize
from ragkit.pipeline import Pipeline


def load_eval_data(folder: str | Path, split: str, lang: str | None = None, query_type: str | None = None):
    """(documents, queries, judgments, config) for course data (corpus/), BEIR data or Natural Questions, keeping
    the answerable queries of `split` (`all` for both), and of `lang` and `query_type` when given.
    >>> docs, queries, judgments, config = load_eval_data("data", "dev", lang="zh")  # doctest: +SKIP
    """
    folder = Path(folder)
    public = load_beir if is_beir_folder(folder) else load_nq_retrieval if is_nq_folder(folder) else None
    if public is not None:  # public collections: whole documents as units, queries without a type
        if query_type is not None:
            raise RagkitError(f"{folder}: --type needs queries with a type; "
                              f"{'BEIR' if public is load_beir else 'Natural Questions'} queries carry none")
        docs, queries, judgments = public(folder, split)
        config = PipelineConfig(chunk_size=None)
    elif (folder / "corpus").is_dir():
        docs = load_documents(folder / "corpus")
        queries = [q for q in load_queries(folder / "queries.jsonl", split=None if split == "all" else split)
                   if q.evidence]
        judgments, config = judgments_from_queries(queries, docs), PipelineConfig()
    else:
        raise RagkitError(f"{folder}: not a data folder: expected corpus/ and queries.jsonl (course data), "
                          "corpus.jsonl, queries.jsonl and qrels/ (BEIR format), or questions.jsonl and "
                          "passages.jsonl (Natural Questions, like data/nq-open)")
    for field, wanted in (("lang", lang), ("type", query_type)):
        if wanted is None:
            continue
        present = sorted({getattr(query, field) for query in queries})
        if wanted not in present:
            raise RagkitError(f"no {split} queries with {field} {wanted!r}; the values are {', '.join(present)}")
        keep = [getattr(query, field) == wanted for query in queries]
        queries = [q for q, kept in zip(queries, keep, strict=True) if kept]
        judgments = [j for j, kept in zip(judgments, keep, strict=True) if kept]
    return docs, queries, judgments, config


def default_train_split(data: str | Path) -> str:
    """Where `rerank=ltr` learns by default: dev for course data; a BEIR folder's train qrels, or, when it has
    none (Cranfield), query folds of the evaluated split.

    >>> default_train_split("data"), default_train_split("data/cranfield")
    ('dev', 'folds')
    """
    if not is_beir_folder(data):
        return "folds" if is_nq_folder(data) else "dev"  # Natural Questions has one split
    return "train" if (Path(data) / "qrels" / "train.tsv").is_file() else "folds"


def trained_pipeline(data: str, pipe: Pipeline, split: str, train_split: str | None, evaluating: bool = True):
    """`pipe`, with its learning-to-rank model trained on `train_split` when it reranks with `ltr` (default: dev
    for course data, train for BEIR). Training on the split under evaluation is refused.

    >>> trained_pipeline("data", Pipeline(load_documents("data/corpus")), "test", None).ranker is None
    True
    """
    if pipe.config.rerank != "ltr":
        return pipe
    train_split = train_split or default_train_split(data)
    if train_split == "folds":  # run_eval trains one ranker per fold (ragkit.evaluate.folds)
        return pipe
    if evaluating and train_split == split:
        raise RagkitError(f"rerank=ltr would train and be measured on the same split ({split}): pick another "
                          "with --train-split (course data: dev; BEIR: train)")
    return pipe.train_ranker(*load_eval_data(data, train_split)[1:3])


def run_eval(data: str, method: str | None, split: str, k: int, settings: Sequence[tuple[str, object]] = (),
             lang: str | None = None, query_type: str | None = None, train_split: str | None = None,
             refusal: bool = False) -> dict:
    """Evaluate one configuration; returns the JSON-ready result: the means, `by_type` and `by_lang`, the
    judged shares of the top 10 and top 20, and every config field under "config". `settings` are (name, value) pairs.
    With a `threshold`, or with `refusal`, "refusal" holds refusal precision and recall on all the split's queries.

    >>> run_eval("tests/fixtures/beir_tiny", "bm25", "test", 10, [("k1", 1.2)])["config"]["k1"]
    1.2
    """
    started = time.perf_counter()
    check_k(k)
    docs, queries, judgments, config = load_eval_data(data, split, lang, query_type)
    changes = dict(settings) if method is None else {"method": method, **dict(settings)}
    pipe = trained_pipeline(data, Pipeline(docs, config, **changes), split, train_split)
    # judged@20 beside failure@20: an unjudged chunk in ranks 11-20 counts as a miss, so failure@20 is an upper bound
    metrics = list(dict.fromkeys([*DEFAULT_METRICS, f"recall@{k}", f"ndcg@{k}", f"mrr@{k}", "judged@10", "judged@20"]))
    depth = max(int(m.split("@")[1]) for m in metrics)
    folds = pipe.config.rerank == "ltr" and (train_split or default_train_split(data)) == "folds"
    rankings = (cross_fitted_rankings(pipe, queries, judgments, depth) if folds
                else pipe.rankings([q.text for q in queries], depth))
    table = per_query_metrics(rankings, judgments, metrics)

    def means(by: str) -> dict[str, dict[str, float]]:
        rows = summarize(table, by=by, decimals=4)
        return {str(name): {"queries": int(row["queries"]), **{m: float(row[m]) for m in metrics}}
                for name, row in rows.iterrows()}

    overall = summarize(table, decimals=4).iloc[0]
    result = {"data": str(data), "method": pipe.config.method, "split": split, "lang": lang, "type": query_type,
              "queries": int(overall["queries"]), "metrics": {m: float(overall[m]) for m in metrics},
              "by_type": means("type"), "by_lang": means("lang"), "config": dataclasses.asdict(pipe.config)}
    if is_beir_folder(data):
        result["skipped_qrels"] = skipped_qrels(data, split)
    elif pipe.config.threshold is not None or refusal:
        result["refusal"] = refusal_measures(Path(data) / "queries.jsonl", pipe, split)
    if pipe.ranker is not None:
        result["ltr"] = {"train_split": train_split or default_train_split(data),
                         "importances": pipe.ranker.importances()}
    result["seconds"] = round(time.perf_counter() - started, 2)
    return result


def recorded_translations(data: str | Path) -> dict[str, str]:
    """Query id → its recorded English rendering (`<data>/llm/query-translations.jsonl`), a labelling aid.

    >>> recorded_translations("data")["zh-001"]  # doctest: +SKIP
    'how many days of annual leave ...'
    """
    path = Path(data) / "llm" / "query-translations.jsonl"
    if not path.is_file():
        raise RagkitError(f"{path}: no recorded translations to pool with (see data/llm/README.md)")
    renderings = {}
    for number, record in read_jsonl(path):  # a malformed line is one clear error, not a traceback
        if not isinstance(record.get("query"), str) or not isinstance(record.get("response"), str):
            raise RagkitError(f"{path}:{number}: a rendering needs string fields 'query' and 'response'")
        renderings[record["query"]] = record["response"]
    return renderings


def pool_units(data: str, method: str | None, split: str, depth: int,
               settings: Sequence[tuple[str, object]] = (), translated: bool = False) -> list[dict]:
    """The top-`depth` units of one configuration that no judgment covers yet, one record per (query, unit),
    with what a judge needs (query text, document title and date, passage) and the span to record. With
    `translated`, only the queries that have a recorded English rendering are pooled, retrieved by that
    rendering (a cross-language pool: the judge still reads the original query).

    >>> pool_units("data", "bm25", "dev", 10)[0].keys()  # doctest: +SKIP
    dict_keys(['query', 'text', 'doc', 'title', 'date', 'start', 'end', 'passage'])
    """
    check_k(depth)
    docs, queries, judgments, config = load_eval_data(data, split)
    changes = dict(settings) if method is None else {"method": method, **dict(settings)}
    pipe = trained_pipeline(data, Pipeline(docs, config, **changes), split, None, evaluating=False)
    by_id = {doc.doc_id: doc for doc in docs}
    if translated:
        renderings = recorded_translations(data)
        keep = [query.query_id in renderings for query in queries]
        queries = [q for q, kept in zip(queries, keep, strict=True) if kept]
        judgments = [j for j, kept in zip(judgments, keep, strict=True) if kept]
    texts = [renderings[q.query_id] if translated else q.text for q in queries]
    records = []
    for query, judgment, ranking in zip(queries, judgments, pipe.rankings(texts, depth), strict=True):
        for unit, judged in zip(ranking, judged_units(ranking, judgment), strict=True):
            if not judged:
                doc = by_id[unit.doc_id]
                records.append({"query": query.query_id, "text": query.text, "doc": unit.doc_id, "title": doc.title,
                                "date": doc.date, "start": unit.start, "end": unit.end, "passage": unit.text})
    return records


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
