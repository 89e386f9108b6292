"""The checks of notebook 00's exercises (RAG in one page): smaller chunks, the hardest paraphrase, and how
much of a prompt is context.

Each check takes the learner's answer, then the notebook's `pipe`, and builds the rest from ragkit and the
course data: the dev queries and their judgments, and rankings computed here with numpy alone (dot products of
unit vectors), so that a check trusts neither the learner's code nor the pipeline's ranking. The checks read
only the pipeline's documents, chunks and vectors, under the chunking each exercise names, whatever knobs
`pipe` holds. Their tests, with the plausible wrong answers each rejects, are in `tests/test_exercises_00.py`.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import numpy as np

from ragkit import PipelineConfig, load_queries
from ragkit.assemble.prompt import build_prompt
from ragkit.evaluate.relevance import covers, judgments_from_queries

QUERIES = Path(__file__).resolve().parents[2] / "data" / "queries.jsonl"
QUERY = "how do I revoke a token?"  # the notebook's `query`, which exercise 3 asks about


def words(text):
    """The set of lower-cased words of a text (runs of letters, digits and underscores)."""
    return set(re.findall(r"\w+", text.lower()))


def naive(pipe, size=800, overlap=100):
    """`pipe` with every knob at its default but the fixed-size chunking: the naive RAG of the notebook."""
    return pipe.using(**dataclasses.asdict(PipelineConfig(chunk_size=size, chunk_overlap=overlap)))


def dev_judgments(pipe):
    """The dev queries and their judgments over the pipeline's documents."""
    dev = load_queries(QUERIES, split="dev")
    return dev, judgments_from_queries(dev, pipe.docs)


def top_by_hand(pipeline, texts, k):
    """Each text's k best chunks, ranked with numpy alone: dot products of unit vectors, largest first."""
    chunks, scores = pipeline.chunks, pipeline.embed_queries(texts) @ pipeline.chunk_embeddings.T
    return [[chunks[i] for i in np.argsort(-row, kind="stable")[:k]] for row in scores]


def answered_parts(ranking, judgment):
    """The parts of the query whose quotes some chunk of the ranking covers (half a quote or more)."""
    return set().union(*(parts for parts, target in zip(judgment.target_parts(), judgment.targets, strict=True)
                         if any(covers(chunk, target) for chunk in ranking)))


def failure20_by_hand(pipeline, dev, judgments):
    """failure@20 per language: the mean share of each answerable dev query's parts missing from its top 20."""
    missed = {"en": [], "zh": []}
    for q, judgment, top20 in zip(dev, judgments, top_by_hand(pipeline, [q.text for q in dev], 20), strict=True):
        if judgment.answerable:
            missed[q.lang].append(1 - len(answered_parts(top20, judgment)) / len(judgment.part_gains()))
    return {"en": np.mean(missed["en"]), "zh": np.mean(missed["zh"]), "all": np.mean(missed["en"] + missed["zh"])}


def check_chunk_size(your_summary, your_changes, pipe):
    """Exercise 1: `your_summary`, a `language_summary` with failure@20 for 500-character chunks with no
    overlap; `your_changes`, {"en": ..., "zh": ...}, each "up" or "down" against 800 characters, 100 overlap."""
    dev, judgments = dev_judgments(pipe)
    small, before = (failure20_by_hand(naive(pipe, *sizes), dev, judgments) for sizes in [(500, 0), (800, 100)])
    for lang in ["en", "zh", "all"]:
        try:
            yours = float(your_summary.loc[lang, "failure@20"])
        except (KeyError, TypeError, AttributeError):
            raise AssertionError(f"your summary has no failure@20 for {lang!r}") from None
        assert abs(yours - small[lang]) < 5e-4 + 1e-9, \
            f"{lang}: this is not the dev failure@20 of 500-character chunks with no overlap"
    for lang in ["en", "zh"]:
        assert your_changes.get(lang) in ("up", "down"), f"{lang}: a change is 'up' or 'down'"
        change = "up" if round(small[lang], 3) > round(before[lang], 3) else "down"
        assert your_changes[lang] == change, \
            f"{lang}: failure@20 does not move that way from 800-character chunks to 500-character ones"
    return "right"


def check_hardest_paraphrase(your_query_id, your_words, pipe):
    """Exercise 2: the dev paraphrase query with the lowest MRR@10 (ties: the first by id), and the set of its
    words that its evidence documents never use."""
    dev, judgments = dev_judgments(pipe)
    base = naive(pipe)
    by_id = {q.query_id: q for q in dev}
    assert your_query_id in by_id, "no dev query has this id"
    assert by_id[your_query_id].type == "paraphrase", "this dev query is not a paraphrase query"
    pairs = [(q, j) for q, j in zip(dev, judgments, strict=True) if q.type == "paraphrase" and j.answerable]
    tops = top_by_hand(base, [q.text for q, _ in pairs], 10)
    mrr = {q.query_id: next((1 / rank for rank, chunk in enumerate(top, start=1) if answered_parts([chunk], j)), 0.0)
           for (q, j), top in zip(pairs, tops, strict=True)}
    hardest = min(mrr, key=lambda query_id: (mrr[query_id], query_id))
    assert your_query_id == hardest, \
        "another dev paraphrase query has a lower MRR@10, or an equal MRR@10 and an earlier id"
    query = by_id[hardest]
    evidence_docs = {item.doc for item in query.evidence}
    evidence_words = set().union(*(words(doc.text) for doc in pipe.docs if doc.doc_id in evidence_docs))
    missing, yours = words(query.text) - evidence_words, set(your_words)
    assert yours <= words(query.text), "a word of your set is not a word of the query"
    assert not yours & evidence_words, "a word of your set appears in the query's evidence documents"
    assert missing <= yours, "your set leaves out a word of the query that its evidence documents never use"
    return "right"


def check_context_chars(your_chars, your_share, pipe):
    """Exercise 3: `your_chars`, {1: ..., 10: ...}, the characters of the stripped chunk texts that naive RAG
    pastes into the prompt for `query` with k=1 and k=10; `your_share`, their share of the k=10 prompt."""
    tops = {k: top_by_hand(naive(pipe), [QUERY], k)[0] for k in (1, 10)}
    expected = {k: sum(len(chunk.text.strip()) for chunk in top) for k, top in tops.items()}
    for k in (1, 10):
        assert k in your_chars, f"your answer has no count for k={k}"
        assert your_chars[k] == expected[k], f"k={k}: the chunk texts do not add up to this many characters"
    assert 0 <= your_share <= 1, "a share lies between 0 and 1; this does not"
    share = expected[10] / len(build_prompt(QUERY, tops[10]))
    assert abs(your_share - share) < 5e-4 + 1e-9, \
        "this is not the share of the k=10 prompt's characters that its chunk texts make up, to 3 decimals"
    return "right"
