"""The checks of notebook 04's exercises (chunking: `04_chunking.ipynb` and `04_chunking_semantic.ipynb`).

Each check recomputes its answer from `ragkit` (the sentences, their window similarities and the size
guards, which the notebook derived and checked against these functions), apart from the learner's code: the
percentile is numpy's, the std rule's threshold is written out, and the quotes are matched to the chunks
here.
"""

import numpy as np

from ragkit.chunk.base import chunk_corpus
from ragkit.chunk.semantic import adjacent_similarities, guarded_bounds
from ragkit.chunk.sentences import sentence_chunks, sentence_spans
from ragkit.evaluate.relevance import judgments_from_queries

WINDOW = 3  # sentences on each side of a gap, as in the notebook


def similarities(doc, encoder):
    """A document's sentence spans and the window similarity across each gap between them."""
    spans = sentence_spans(doc.text)
    return spans, adjacent_similarities(encoder.encode([doc.text[start:end] for start, end in spans]), WINDOW)


def as_count(value, name):
    """A learner's count as an int."""
    assert float(value) == int(value), f"{name} is not a whole number"
    return int(value)


def check_more_cuts(n_cuts, n_chunks, ops, encoder):
    """Exercise 1: the gaps below the 20th percentile of the runbook's similarities, and the chunks left after
    the guards."""
    spans, values = similarities(ops, encoder)
    cuts = np.flatnonzero(values < np.percentile(values, 20))
    assert as_count(n_cuts, "n_cuts") == len(cuts), \
        "n_cuts is not the number of gaps whose similarity is below the 20th-percentile threshold"
    chunks = guarded_bounds(ops.text, spans, values, cuts, min_size=200, max_size=800)
    if as_count(n_chunks, "n_chunks") != len(chunks):
        assert n_chunks != len(cuts) + 1, "n_chunks counts the sentence groups before the size guards"
        raise AssertionError("n_chunks is not the number of chunks left after both guards (min_size=200, max_size=800)")
    return "right"


def check_backwards(cuts, one_sentence_share, ops, encoder):
    """Exercise 2: the std rule read backwards (cut above its threshold), and the share of one-sentence chunks."""
    spans, values = similarities(ops, encoder)
    threshold = values.mean() - np.sqrt(np.mean((values - values.mean()) ** 2))  # mean − 1 standard deviation
    above = [i for i, value in enumerate(values) if value > threshold]
    below = [i for i, value in enumerate(values) if value < threshold]
    cuts = np.asarray(cuts).ravel()
    assert cuts.dtype != bool, "cuts holds True/False values, not the numbers of the gaps"
    cuts = sorted(int(i) for i in cuts)
    assert cuts != below, "these are the gaps the std rule cuts when it is read the right way round"
    assert cuts == above, "cuts are not the gaps whose similarity is above the std rule's threshold"
    bounds = guarded_bounds(ops.text, spans, values, above, 0, len(ops.text))
    single = np.mean([bound in spans for bound in bounds])  # a chunk that is exactly one sentence's span
    assert 0 <= one_sentence_share <= 1, "one_sentence_share is not a share between 0 and 1"
    assert abs(one_sentence_share - single) < 1e-9, \
        "one_sentence_share is not the share of the unguarded chunks that hold exactly one sentence"
    return "right"


def check_sentence_quotes(share, docs, dev):
    """04_chunking, exercise 1: the share of dev evidence quotes whole in one sentence chunk of at most 500 characters."""
    assert dev and all(q.split == "dev" for q in dev), "`dev` is not the list of dev queries"
    spans = {}
    for chunk in chunk_corpus(docs, sentence_chunks, size=500, overlap=0):
        spans.setdefault(chunk.doc_id, []).append((chunk.start, chunk.end))
    targets = [target for judgment in judgments_from_queries(dev, docs) for target in judgment.targets]
    whole = np.mean([any(start <= t.start and t.end <= end for start, end in spans.get(t.doc_id, []))
                     for t in targets])
    assert 0 <= share <= 1, "share is not a share between 0 and 1"
    assert abs(share - whole) < 1e-9, \
        "share is not the share of dev evidence quotes that lie whole in one sentence chunk of at most 500 characters"
    return "right"
