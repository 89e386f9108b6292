"""Notebook 07's before/after view: one query's ranking with and without contexts, and the caching arithmetic.

`before_after` is the widget's callback, a plain function over the shared pipeline (each column a variant made
with `pipe.using(context=...)`); `caching_cost` is the prompt-caching arithmetic of Anthropic's write-up, with
the prices as inputs. Left out: live calls to a model (the contexts are recorded: `ragkit.llm`).
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from ragkit.corpus import Query
from ragkit.evaluate.relevance import judgments_from_queries, ranking_hits

CONTEXTS = ("none", "headers", "llm")


def before_after(pipe, query: Query, k: int = 5, contexts: Sequence[str] = CONTEXTS) -> pd.DataFrame:
    """The top `k` chunks of one query under each `context`, marked ✓ where a chunk covers an evidence quote.

    >>> before_after(pipe, dev[0]).columns.tolist()  # doctest: +SKIP
    ['none', 'headers', 'llm']
    """
    judgment = judgments_from_queries([query], pipe.docs)[0]
    columns = {}
    for context in contexts:
        ranking = pipe.using(context=context).rankings([query.text], k)[0]
        columns[context] = [("✓ " if hit else "  ") + chunk.chunk_id
                            for chunk, hit in zip(ranking, ranking_hits(ranking, judgment), strict=True)]
    return pd.DataFrame(columns, index=pd.RangeIndex(1, k + 1, name="rank"))


def caching_cost(document_tokens: Sequence[int], chunk_tokens: Sequence[Sequence[int]], context_tokens: int,
                 prices: dict[str, float]) -> dict[str, float]:
    """Tokens and cost of writing one context per chunk when each document is cached once and read back for
    its other chunks. `prices` are per million tokens: input, cache write, cache read, output.

    >>> cost = caching_cost([1000], [[100, 100]], 50, {"input": 1, "cache write": 1.25, "cache read": 0.1,
    ...                                                 "output": 5})
    >>> cost["calls"], cost["cache write tokens"], cost["cache read tokens"], round(cost["cost"], 6)
    (2, 1000, 1000, 0.00205)
    """
    calls = sum(len(chunks) for chunks in chunk_tokens)
    written = sum(document_tokens)  # each document's prompt prefix is written to the cache once
    read = sum(tokens * (len(chunks) - 1) for tokens, chunks in zip(document_tokens, chunk_tokens, strict=True))
    fresh = sum(sum(chunks) for chunks in chunk_tokens)  # each chunk is sent once, uncached
    output = calls * context_tokens
    cost = (written * prices["cache write"] + read * prices["cache read"] + fresh * prices["input"]
            + output * prices["output"]) / 1e6
    return {"calls": calls, "cache write tokens": written, "cache read tokens": read, "uncached input tokens": fresh,
            "output tokens": output, "cost": cost, "cost per million document tokens": cost / written * 1e6}
