"""The designed grid of answer prompts over the course's test queries: `k`, passage order, one hard distractor.

For a pipeline and each query: `k` ∈ {1, 3, 5, 10, 20} in rank order; at `k` = 10 the four orders; at `k` = 5
the same five passages plus one **hard distractor** appended (seed 001: "appending a single highly-similar but
WRONG chunk can flip a previously-correct answer"): the chunk most similar to the query under dense retrieval
that the labels judged not to answer it and that is not already shown. `grid_items` lists every prompt with
its query id and condition, which is what a writer answers and what replay looks up; `grade_grid` grades the
recorded answers of every cell. Left out: compression in
the grid (notebook 13 measures what it keeps without a model) and other pipelines than the ones you pass.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from ragkit.chunk.base import Chunk
from ragkit.evaluate.relevance import Judgment, ranking_hits, unit_is_judged
from ragkit.generate.answer import ORDERS, answer_prompt
from ragkit.generate.grade import citation_scores, cited, correct, evidence_numbers, refuses
from ragkit.llm.prompts import prompt_key

K_VALUES = (1, 3, 5, 10, 20)
ORDER_K = 10
DISTRACTOR_K = 5


def conditions() -> list[tuple[int, str, bool]]:
    """(k, order, with a hard distractor) of every cell of the grid.

    >>> len(conditions()), conditions()[-1]
    (9, (5, 'rank', True))
    """
    return ([(k, "rank", False) for k in K_VALUES] + [(ORDER_K, order, False) for order in ORDERS[1:]]
            + [(DISTRACTOR_K, "rank", True)])


def condition_name(pipeline: str, k: int, order: str, distractor: bool) -> str:
    """The label a recorded answer carries, for example `best k=5 order=rank +distractor`.

    >>> condition_name("dense", 10, "edges", False)
    'dense k=10 order=edges'
    """
    return f"{pipeline} k={k} order={order}" + (" +distractor" if distractor else "")


def hard_distractor(chunks: Sequence[Chunk], similarities: np.ndarray, judgment: Judgment,
                    shown: Sequence[Chunk]) -> Chunk | None:
    """The most similar chunk (by `similarities`, one per chunk) that the labels judged and that answers no
    part of the query, among the chunks not shown; None when there is none.

    >>> from ragkit.evaluate.relevance import Target
    >>> chunks = [Chunk("a#0", "a", 0, 5, "aaaaa"), Chunk("b#0", "b", 0, 5, "bbbbb")]
    >>> judgment = Judgment("q", "keyword", "test", (Target("a", 0, 5),), not_relevant=(Target("b", 0, 5),))
    >>> hard_distractor(chunks, np.array([0.9, 0.5]), judgment, shown=[]).chunk_id
    'b#0'
    """
    shown_ids = {chunk.chunk_id for chunk in shown}
    for index in np.argsort(-np.asarray(similarities), kind="stable"):
        chunk = chunks[index]
        if chunk.chunk_id in shown_ids or not unit_is_judged(chunk, judgment):
            continue
        if not ranking_hits([chunk], judgment)[0]:
            return chunk
    return None


def grid_items(pipeline: str, queries: Sequence, rankings: Sequence[Sequence[Chunk]], chunks: Sequence[Chunk],
               similarities: np.ndarray, judgments: Sequence[Judgment]) -> list[dict]:
    """Every prompt of the grid for one pipeline: dicts with `id`, `condition`, `prompt` and `shown` (chunk ids).
    `rankings` are the pipeline's rankings (at least 20 deep), `similarities` the dense scores, one row per query.

    >>> grid_items("dense", [], [], [], np.zeros((0, 0)), [])
    []
    """
    items = []
    for query, ranking, row, judgment in zip(queries, rankings, similarities, judgments, strict=True):
        for k, order, distractor in conditions():
            ranked = list(ranking[:k])
            if distractor:
                extra = hard_distractor(chunks, row, judgment, ranked)
                if extra is None:
                    continue
                ranked.append(extra)
            prompt, shown = answer_prompt(query.text, ranked, len(ranked), order)
            items.append({"id": query.query_id, "condition": condition_name(pipeline, k, order, distractor),
                          "prompt": prompt, "shown": [chunk.chunk_id for chunk in shown]})
    return items


def grade_grid(items: Sequence[dict], records: Mapping[str, dict], queries: Sequence, judgments: Sequence[Judgment],
               keys: Mapping[str, list[list[str]]], chunks: Sequence[Chunk]) -> pd.DataFrame:
    """One row per grid prompt that has a recorded answer: the query's language and type, the cell (`pipeline`,
    `k`, `order`, `distractor`), and the grades (`correct` is NaN for an unanswerable query).

    >>> grade_grid([], {}, [], [], {}, []).empty
    True
    """
    by_id = {query.query_id: (query, judgment) for query, judgment in zip(queries, judgments, strict=True)}
    chunk_by_id = {chunk.chunk_id: chunk for chunk in chunks}
    rows = []
    for item in items:
        record = records.get(prompt_key(item["prompt"]))
        if record is None:
            continue
        query, judgment = by_id[item["id"]]
        shown = [chunk_by_id[chunk_id] for chunk_id in item["shown"]]
        evidence = evidence_numbers(shown, judgment)
        pipeline, k, order = item["condition"].split()[:3]
        text = record["response"]
        rows.append({"id": query.query_id, "lang": query.lang, "type": query.type, "answerable": bool(query.evidence),
                     "pipeline": pipeline, "k": int(k[2:]), "order": order[6:],
                     "distractor": item["condition"].endswith("+distractor"),
                     "correct": float(correct(text, keys[query.query_id])) if query.evidence else np.nan,
                     "refused": float(refuses(text)), "evidence shown": len(evidence) > 0,
                     **citation_scores(cited(text), evidence, len(shown)), "answer": text})
    return pd.DataFrame(rows)
