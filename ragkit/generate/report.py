"""Grade a configuration's answers over labelled queries: what `python -m ragkit answer` prints.

`course_answers` builds each query's prompt under the pipeline's config, finds the writer's recorded answer for
that exact prompt (or asks a live model), and grades it: correctness against the answer keys, citations against
the passages that hold evidence, refusal on unanswerable queries. `nq_answers` does the same for the Natural
Questions subset under one condition (the answering passage's position, closed-book or gold-only), graded by the
people's short answers. `summary` gives means with 95 % bootstrap intervals. Left out: grading configurations
nobody recorded (a replay miss is an error that names what is recorded), and model-judged grades.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from ragkit.errors import RagkitError
from ragkit.evaluate.leaderboard import bootstrap_means
from ragkit.generate.answer import answer_prompt
from ragkit.generate.grade import citation_scores, cited, correct, evidence_numbers, refuses
from ragkit.generate.nq import context_passages, load_nq, nq_prompt
from ragkit.generate.recording import load_answers
from ragkit.llm.prompts import prompt_key

ANSWERS = Path(__file__).resolve().parent.parent.parent / "data" / "llm" / "answers"
WRITERS = ("claude", "smollm2")


def replayed(prompts: Sequence[str], writer: str, folder: str | Path = ANSWERS, what: str = "") -> list[dict]:
    """The recorded answer lines of `writer` for `prompts`, in order; one clear error when any is missing.

    >>> replayed([], "claude")
    []
    """
    if writer not in WRITERS:
        raise RagkitError(f"unknown writer {writer!r}; the recorded writers are {', '.join(WRITERS)}")
    records = load_answers(Path(folder) / writer)
    missing = [prompt for prompt in prompts if prompt_key(prompt) not in records]
    if missing:
        nq = what.startswith(" (nq")
        recorded = sorted({r.get("condition", "?") for r in records.values() if r.get("id", "").startswith("nq-") == nq})
        raise RagkitError(f"{len(missing)} of {len(prompts)} prompts{what} have no recorded answer from {writer}; "
                          f"recorded: {'; '.join(recorded) or 'nothing'} (or answer live: --model local)")
    return [records[prompt_key(prompt)] for prompt in prompts]


def grade_rows(ids: Sequence[str], answers: Sequence[str], parts: Sequence[list | None],
               evidence_numbers: Sequence[list[int]], shown: Sequence[int]) -> pd.DataFrame:
    """One row per answer: `correct` (NaN when unanswerable), `refused`, `answerable`, citation scores.

    >>> grade_rows(["q1", "q2"], ["90 days [1].", "I do not know."], [[["90 days"]], None], [[1], []], [3, 3])[["correct", "refused"]].values.tolist()
    [[1.0, 0.0], [nan, 1.0]]
    """
    rows = []
    for query_id, text, keys, evidence, count in zip(ids, answers, parts, evidence_numbers, shown, strict=True):
        rows.append({"id": query_id, "answerable": keys is not None, "refused": float(refuses(text)),
                     "correct": float(correct(text, keys)) if keys is not None else math.nan,
                     **citation_scores(cited(text), evidence, count)})
    return pd.DataFrame(rows)


def summary(rows: pd.DataFrame) -> dict[str, dict[str, float]]:
    """Means with 95 % bootstrap intervals: correctness and citations over answerable queries, refusal precision
    and recall over all (`ragkit.evaluate.metrics.refusal_scores`; intervals from the same resamples).

    >>> rows = grade_rows(["a", "b", "c"], ["x [1]", "y", "no answer in the sources"], [[["x"]], [["z"]], None], [[1], [1], []], [1, 1, 1])
    >>> summary(rows)["correctness"]["mean"], summary(rows)["refusal_recall"]["mean"]
    (0.5, 1.0)
    """
    answerable = rows[rows["answerable"]]
    result = {}
    for name, column in (("correctness", "correct"), ("citation_precision", "citation_precision"),
                         ("citation_recall", "citation_recall")):
        values = answerable[column].dropna().to_numpy(dtype=float)
        if len(values):
            mean, low, high = (float(x[0]) for x in bootstrap_means(values))
            result[name] = {"mean": mean, "low": low, "high": high, "n": int(len(values))}
    refused, unanswerable = rows["refused"].to_numpy(bool), ~rows["answerable"].to_numpy(bool)
    right = (refused & unanswerable).astype(float)
    for name, mask in (("refusal_precision", refused), ("refusal_recall", unanswerable)):
        if mask.any():
            mean, low, high = (float(x[0]) for x in bootstrap_means(right[mask]))
            result[name] = {"mean": mean, "low": low, "high": high, "n": int(mask.sum())}
    return result


def course_answers(pipe, queries: Sequence, judgments: Sequence, keys: dict[str, list[list[str]]],
                   writer: str = "claude", model=None, folder: str | Path = ANSWERS) -> pd.DataFrame:
    """Grade `pipe`'s configured answers (replayed from `writer`, or from a live `model`) on `queries`.

    >>> course_answers(None, [], [], {}).empty
    True
    """
    if not queries:
        return pd.DataFrame()
    config = pipe.config
    rankings = pipe.rankings([q.text for q in queries], config.k)
    built = [answer_prompt(q.text, ranked, config.k, config.order, config.compress, pipe.terms)
             for q, ranked in zip(queries, rankings, strict=True)]
    if model is None:
        texts = [line["response"] for line in replayed([prompt for prompt, _ in built], writer, folder,
                                                        f" (k={config.k}, order={config.order})")]
    else:
        texts = [model.complete(prompt, purpose=f"an answer to {q.query_id}") for q, (prompt, _) in
                 zip(queries, built, strict=True)]
    evidence = [evidence_numbers(shown, judgment) for (_, shown), judgment in zip(built, judgments, strict=True)]
    rows = grade_rows([q.query_id for q in queries], texts, [keys.get(q.query_id) if q.evidence else None
                                                            for q in queries], evidence, [len(s) for _, s in built])
    rows.insert(1, "lang", [q.lang for q in queries])
    rows.insert(2, "type", [q.type for q in queries])
    rows["answer"] = texts
    return rows


def nq_answers(condition: str, writer: str = "claude", folder: str | Path = "data/nq-open", limit: int | None = None,
               model=None, answers: str | Path = ANSWERS) -> pd.DataFrame:
    """Grade one condition's answers to the Natural Questions subset (the first `limit` questions).

    >>> nq_answers("position-1", limit=0).empty
    True
    """
    questions, passages = load_nq(folder)
    questions = questions[:limit] if limit is not None else questions
    if not questions:
        return pd.DataFrame()
    shown = [context_passages(q, passages, condition) for q in questions]
    prompts = [nq_prompt(q["question"], s) for q, s in zip(questions, shown, strict=True)]
    if model is None:
        texts = [line["response"] for line in replayed(prompts, writer, answers, f" (nq, {condition})")]
    else:
        texts = [model.complete(prompt, purpose=f"an answer to {q['id']}") for q, prompt in
                 zip(questions, prompts, strict=True)]
    gold = [[n for n, p in enumerate(s, start=1) if p["id"] == q["gold"]] for q, s in zip(questions, shown, strict=True)]
    rows = grade_rows([q["id"] for q in questions], texts, [[q["answers"]] for q in questions], gold,
                      [len(s) for s in shown])
    rows["answer"] = texts
    return rows


def interval_text(entry: dict[str, float]) -> str:
    """`0.812 (0.750 to 0.869, n=159)`.

    >>> interval_text({"mean": 0.5, "low": 0.25, "high": 0.75, "n": 4})
    '0.500 (0.250 to 0.750, n=4)'
    """
    return f"{entry['mean']:.3f} ({entry['low']:.3f} to {entry['high']:.3f}, n={entry['n']})"
