"""The checks of notebook 07's exercises (contextual retrieval): contextual BM25 alone, and what the cache saves
in two cases the notebook does not show (a 1,024-token cache minimum; Anthropic's method's longer contexts).

Each check takes the learner's answer, then the notebook's `pipe` (the default pipeline: 800-character chunks,
100 overlap), and recomputes what it needs from ragkit: the test queries from the course data, BM25's
failure@20 from `pipe.using(...)`, the token counts from the model's tokenizer (whole texts: neither cut at
nor padded to the 128 tokens its `tokenizer.json` asks for). The cost is written out as a literal loop here,
apart from the notebook's `bill`, so that a check never trusts the learner's code.
"""

from __future__ import annotations

import math
from functools import cache, lru_cache
from pathlib import Path

from exercises.answers import number

DATA = Path(__file__).resolve().parents[2] / "data"
SLICES = ("all", "en", "zh")


@cache
def answerable_test_queries(lang: str) -> list:
    """The answerable test queries of one slice ("all", "en" or "zh")."""
    from ragkit.corpus import load_queries

    return [q for q in load_queries(DATA / "queries.jsonl", split="test")
            if q.evidence and lang in ("all", q.lang)]


def check_bm25(none_failure20, contextual_failure20, lang="all", pipe=None):
    """BM25's mean failure@20 on the `lang` test queries, without contexts and with the recorded ones."""
    assert lang in SLICES, f"lang {lang!r} is none of the slices {', '.join(SLICES)}"
    assert pipe is not None, "the check needs the notebook's pipe"
    given = number(none_failure20, "the value without contexts"), number(contextual_failure20, "the value with them")
    assert all(0 <= value <= 1 for value in given), "a failure rate lies between 0 and 1"
    queries = answerable_test_queries(lang)
    expected = [pipe.using(method="bm25", context=context).evaluate(queries, ["failure@20"])["failure@20"].mean()
                for context in ("none", "llm")]
    if abs(given[0] - expected[1]) < 5.1e-4 and abs(given[1] - expected[0]) < 5.1e-4 and given[0] != given[1]:
        raise AssertionError("the two values belong to the other context each")
    assert abs(given[0] - expected[0]) < 5.1e-4, \
        f"the value without contexts is not BM25's failure@20 over the {lang!r} test queries (to 3 decimals)"
    assert abs(given[1] - expected[1]) < 5.1e-4, \
        f"the value with contexts is not BM25's failure@20 with context='llm' over the {lang!r} test queries"
    return "right"


def token_counts(pipe, context: str = "llm") -> tuple[list[int], list[list[int]], int]:
    """Tokens per document, per chunk of each document (in document order), and in a recorded context of the
    `context` set (the mean over all chunks, rounded down), counted with the course model's WordPiece tokenizer."""
    documents = wordpiece_counts(tuple(doc.text for doc in pipe.docs))
    per_chunk = dict(zip([c.chunk_id for c in pipe.chunks], wordpiece_counts(tuple(c.text for c in pipe.chunks)),
                         strict=True))
    chunks = [[per_chunk[c.chunk_id] for c in pipe.chunks if c.doc_id == doc.doc_id] for doc in pipe.docs]
    contextual = pipe.using(context=context)
    contexts = wordpiece_counts(tuple(text[:len(text) - len(c.text)].removesuffix("\n\n")
                                      for text, c in zip(contextual.indexed_texts, contextual.chunks, strict=True)))
    return list(documents), chunks, int(sum(contexts) / len(contexts))


@lru_cache(maxsize=8)
def wordpiece_counts(texts: tuple[str, ...]) -> tuple[int, ...]:
    """Tokens in each of `texts` by the course model's WordPiece tokenizer, whole. Kept by the texts themselves
    (a count depends on nothing else), so that answering the saving check again does not re-encode the corpus."""
    from tokenizers import Tokenizer

    from ragkit.embed.model import model_path

    tokenizer = Tokenizer.from_file(str(model_path() / "tokenizer.json"))
    tokenizer.no_truncation()
    tokenizer.no_padding()  # the file pads every shorter text to 128 tokens
    return tuple(len(encoding.ids) for encoding in tokenizer.encode_batch(list(texts)))


def cost(minimum: float, counts: tuple, prices: dict) -> float:
    """Dollars for writing every context when documents of at least `minimum` tokens are cached."""
    documents, chunks, context_tokens = counts
    total = 0.0
    for tokens, its_chunks in zip(documents, chunks, strict=True):
        for position, chunk in enumerate(its_chunks):
            if tokens < minimum:
                total += tokens * prices["input"]
            elif position == 0:
                total += tokens * prices["cache write"]
            else:
                total += tokens * prices["cache read"]
            total += chunk * prices["input"] + context_tokens * prices["output"]
    return total / 1e6


def check_saving(minimum_1024_ratio, plain_contexts_ratio, pipe=None, prices=None):
    """How many times cheaper than no caching writing the contexts is: with a 1,024-token cache minimum (the
    course's variant's contexts), and with every document cached for Anthropic's method's contexts
    (`context="llm-plain"`). Each is accepted within 0.005 of the exact ratio (two decimals are enough)."""
    assert pipe is not None and prices is not None, "the check needs the notebook's pipe and prices"
    given = number(minimum_1024_ratio, "the first ratio"), number(plain_contexts_ratio, "the second ratio")
    assert all(value > 0 for value in given), "a ratio of two costs is positive"
    assert all(value >= 1 for value in given), \
        "a value below 1 cannot say how many times cheaper caching makes the bill"
    course, plain = token_counts(pipe, "llm"), token_counts(pipe, "llm-plain")
    expected = (cost(math.inf, course, prices) / cost(1024, course, prices),
                cost(math.inf, plain, prices) / cost(0, plain, prices))
    if abs(given[0] - expected[1]) < 5.1e-3 and abs(given[1] - expected[0]) < 5.1e-3:
        raise AssertionError("the two ratios belong to the other question each")
    assert abs(given[0] - expected[0]) < 5.1e-3, \
        "the first ratio is not the saving with a 1,024-token cache minimum and the course's contexts (within 0.005)"
    assert abs(given[1] - expected[1]) < 5.1e-3, \
        "the second ratio is not the saving with every document cached and Anthropic's method's contexts (within 0.005)"
    return "right"
