"""The checks of notebook 04_chunking_measured's exercises (chunking, measured).

Each check chunks and ranks here, with `ragkit`'s chunkers and the pipeline's encoder (vectors read from its
cache) but its own numpy ranking, apart from the notebook's `measure` and from the learner's code; recall
comes from `ragkit`'s evidence-span judgments, which notebook 00 checked. The bootstrap is written out with
the resampling that `paired_bootstrap(..., seed=0)` documents, so that its interval is reproduced exactly.
"""

import numpy as np

from ragkit.chunk.base import chunk_corpus
from ragkit.chunk.fixed import fixed_size_chunks
from ragkit.chunk.sentences import sentence_chunks
from ragkit.evaluate.relevance import judgments_from_queries
from ragkit.evaluate.tables import per_query_metrics

BUDGET = 3000  # characters of context, as in the notebook
CONTEXT = f"recall@{BUDGET} chars"


def ranked(pipe, dev, chunker, size, overlap, depth):
    """The chunks of one chunking and, per dev query, its `depth` best by cosine (a full sort)."""
    chunks = chunk_corpus(pipe.docs, chunker, size=size, overlap=overlap)
    scores = pipe.encoder.encode([q.text for q in dev]) @ pipe.encoder.encode([c.text for c in chunks]).T
    return chunks, [[chunks[i] for i in np.argsort(-row, kind="stable")[:depth]] for row in scores]


def check_dev(dev):
    assert dev and all(q.split == "dev" for q in dev), "`dev` is not the list of dev queries"


def check_sentence_sizes(row_500, row_1200, pipe, dev):
    """Exercise 1: the summary rows of sentence packing at 500 and 1,200 characters."""
    check_dev(dev)
    judgments = judgments_from_queries(dev, pipe.docs)
    for size, row in [(500, row_500), (1200, row_1200)]:
        assert hasattr(row, "keys") and {"chunks", CONTEXT} <= set(row.keys()), \
            f"row_{size} is not a summary row of `measure` (it has no 'chunks' or '{CONTEXT}')"
        chunks, rankings = ranked(pipe, dev, sentence_chunks, size, 0, 20)
        assert row["chunks"] == len(chunks), \
            f"row_{size} does not describe sentence chunks of at most {size} characters: it counts a different number of chunks"
        taken = []
        for ranking in rankings:  # in rank order while the texts fit in the budget, and at least one
            fits = np.cumsum([len(chunk.text) for chunk in ranking]) <= BUDGET
            taken.append(ranking[:max(1, int(fits.sum()))])
        table = per_query_metrics(taken, judgments, ["recall@20"])
        recall = table.loc[table.answerable, "recall@20"].mean()
        # a row rounded to 3 decimals for display is still accepted
        assert abs(row[CONTEXT] - recall) <= 0.0005 + 1e-9, \
            f"row_{size}'s recall in {BUDGET:,} characters is not that of sentence chunks of at most {size} characters"
    return "right"


def check_edge(lang, difference, low, high, real, pipe, dev):
    """Exercise 2: sentence packing's gain in recall@5 over fixed 800/100 on `lang`, its 95 % paired bootstrap
    interval (seed 0) and whether the gain is real."""
    check_dev(dev)
    assert lang in ("en", "zh", "all"), 'lang is not one of "en", "zh" or "all"'
    judgments = judgments_from_queries(dev, pipe.docs)
    recall = {}
    for name, chunker, size, overlap in [("fixed", fixed_size_chunks, 800, 100), ("sentence", sentence_chunks, 800, 0)]:
        table = per_query_metrics(ranked(pipe, dev, chunker, size, overlap, 5)[1], judgments, ["recall@5"])
        keep = table.answerable & ((table.lang == lang) if lang != "all" else True)
        recall[name] = table.loc[keep, "recall@5"].to_numpy(dtype=float)
    gains = recall["sentence"] - recall["fixed"]  # per query, the same queries in the same order
    queries = "all answerable queries" if lang == "all" else f"the answerable {lang} queries"
    assert abs(difference - gains.mean()) < 1e-12, \
        f"difference is not the mean gain in recall@5 of sentence packing over fixed 800/100 on {queries}"
    rows = np.random.default_rng(0).integers(0, len(gains), size=(10_000, len(gains)))  # queries drawn in pairs
    interval = np.percentile(gains[rows].mean(axis=1), [2.5, 97.5])
    assert abs(low - interval[0]) < 1e-12 and abs(high - interval[1]) < 1e-12, \
        "low and high are not the 95 % paired bootstrap interval of that gain (10,000 resamples, seed 0)"
    assert bool(real) == bool(low > 0), "real does not follow from the interval"
    return "right"
