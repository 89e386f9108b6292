"""The pool a judge reads for one query, and the evidence quote a selection makes.

`pool_for` merges the top 10 of dense, BM25 and hybrid retrieval (the pipeline's own variants), keeps each chunk
once, sorts them by place in the corpus and shuffles them with a seed drawn from the query text, so the order is
the same every time the query is opened and says nothing about which method found a passage, or how high. `pool_progress` counts what is judged
(`ragkit.evaluate.relevance.judged_units`: a passage covering a quote, or lying mostly inside passages judged not
relevant) and judged@10 of each method; `next_unjudged` is where judging resumes. `snap_quote` turns a browser
selection into an exact substring of the passage, or refuses it. Left out: pooling deeper than a method's top
10, other methods (add their variants to `METHODS`), and checking that a quote really answers the query.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence

from ragkit.chunk.base import Chunk
from ragkit.corpus import Document, Query
from ragkit.errors import RagkitError
from ragkit.evaluate.relevance import judged_units, judgments_from_queries

METHODS = ("dense", "bm25", "hybrid")
QUOTE_MIN = 20  # characters, as the judging instructions of data/README.md ask


def pool_for(pipe, text: str, depth: int = 10, seed: int = 12) -> tuple[list[Chunk], dict[str, list[Chunk]]]:
    """(the pooled chunks in their shuffled order, each method's top `depth`) for one query text.

    >>> units, tops = pool_for(pipe, "Who sets the alarm?")  # doctest: +SKIP
    >>> {unit.chunk_id for unit in units} == {unit.chunk_id for top in tops.values() for unit in top}  # doctest: +SKIP
    True
    """
    tops = {method: pipe.using(method=method).rankings([text], depth)[0] for method in METHODS}
    units = sorted({unit.chunk_id: unit for method in METHODS for unit in tops[method]}.values(),
                   key=lambda unit: (unit.doc_id, unit.start))  # the pool's order depends on the pool alone
    random.Random(f"{seed}:{' '.join(text.split())}").shuffle(units)
    return units, tops


def pool_progress(units: Sequence[Chunk], tops: dict[str, list[Chunk]], query: Query,
                  docs: Sequence[Document]) -> dict:
    """What is judged so far: `judged` (one flag per pooled unit), `done` and `pooled` counts, and `judged@10`
    of each method (the share of its top 10 that is judged).

    >>> doc = Document("d", "T", "own", "2026-01-01", "en", "Keys rotate yearly. Tokens expire daily.")
    >>> unit = Chunk("d#0", "d", 0, 19, "Keys rotate yearly.")
    >>> pool_progress([unit], {"bm25": [unit]}, Query("q", "keys?", "en", "keyword", "dev", (), ""), [doc])["done"]
    0
    """
    judgment = judgments_from_queries([query], docs)[0]
    flags = judged_units(list(units), judgment)
    return {"judged": flags, "done": sum(flags), "pooled": len(flags),
            "judged@10": {method: sum(judged_units(top[:10], judgment)) / max(len(top[:10]), 1)
                          for method, top in tops.items()}}


def progress_line(progress: dict, skipped: int = 0) -> str:
    """The progress as one line.

    >>> progress_line({"done": 3, "pooled": 12, "judged@10": {"dense": 0.3, "bm25": 0.2, "hybrid": 0.25}}, 1)
    'judged 3 / 12 pooled · judged@10 dense 0.30 · bm25 0.20 · hybrid 0.25 · skipped 1'
    """
    methods = " · ".join(f"{method} {value:.2f}" for method, value in progress["judged@10"].items())
    return f"judged {progress['done']} / {progress['pooled']} pooled · judged@10 {methods}" + \
        (f" · skipped {skipped}" if skipped else "")


def next_unjudged(judged: Sequence[bool], skipped: Sequence[str] = (), ids: Sequence[str] = ()) -> int | None:
    """The position of the first pooled unit neither judged nor skipped (skips last only for this session).

    >>> next_unjudged([True, False, False], skipped=["b"], ids=["a", "b", "c"]), next_unjudged([True])
    (2, None)
    """
    left = [i for i, flag in enumerate(judged) if not flag and (not ids or ids[i] not in set(skipped))]
    return left[0] if left else None


def snap_quote(passage: str, selection: str, minimum: int = QUOTE_MIN) -> str:
    """The exact substring of `passage` that `selection` names: itself when it occurs as it is (less surrounding
    white space), else the place where its words occur with any white space between them. A selection found
    nowhere, or in several places, is refused with one line: never a quote the passage does not hold.

    >>> snap_quote("Keys rotate\\nevery 90 days. Tokens expire.", " Keys rotate every 90  days. ")
    'Keys rotate\\nevery 90 days.'
    """
    words = str(selection).split()
    if not words:
        raise RagkitError("no quote: select the words of the passage that answer the query")
    wanted = str(selection).strip()
    places = [wanted] * passage.count(wanted) or [m.group() for m in re.finditer(r"\s+".join(map(re.escape, words)),
                                                                                 passage)]
    if not places:
        raise RagkitError(f"the selection is not in this passage, even with other spacing: {wanted[:50]!r}")
    if len(places) > 1:  # which of them was meant, nobody can tell: refused rather than guessed
        raise RagkitError(f"the selection occurs {len(places)} times in this passage: select a longer quote")
    found = places[0]
    if len(found) < minimum:
        raise RagkitError(f"a quote needs at least {minimum} characters (data/README.md), this one has {len(found)}: "
                          "select the whole sentence")
    return found
