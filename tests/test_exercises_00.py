"""Notebook 00's exercise checks accept a right answer computed apart from them (with the pipeline's own ranking
and ragkit's metric tables, where the checks rank with numpy and count parts by hand), reject plausible wrong
ones, and give no answer away in their messages (each rejection is read for the right answer)."""

import re

import pytest
from helpers import exercise_checks, rejection

checks = exercise_checks("rag_in_one_page")
QUERY = "how do I revoke a token?"  # the notebook's `query`


def words(text):
    return set(re.findall(r"\w+", text.lower()))


@pytest.fixture(scope="module")
def course(course_pipe, course_queries):
    """What the notebook has by the exercises, computed once: the dev queries, the metric table of naive RAG
    (800 characters, 100 overlap) and its summary by language."""
    from ragkit.evaluate.relevance import judgments_from_queries
    from ragkit.evaluate.tables import language_summary, per_query_metrics

    dev = [q for q in course_queries if q.split == "dev"]
    judgments = judgments_from_queries(dev, course_pipe.docs)
    table = per_query_metrics(course_pipe.rankings([q.text for q in dev], depth=20), judgments,
                              ["failure@5", "failure@20", "mrr@10"])
    return {"dev": dev, "table": table, "by_lang": language_summary(table)}


@pytest.fixture(scope="module")
def summary(course_pipe, course_queries):
    """`language_summary` of failure@5 and failure@20 of 500-character chunks with no overlap, for a split and a
    ranking depth; memoised."""
    from ragkit.evaluate.relevance import judgments_from_queries
    from ragkit.evaluate.tables import language_summary, per_query_metrics

    memo = {}

    def compute(split="dev", depth=20):  # 500 characters, no overlap
        key = (split, depth)
        if key not in memo:
            chosen = [q for q in course_queries if q.split == split]
            rankings = course_pipe.using(chunk_size=500, chunk_overlap=0).rankings(
                [q.text for q in chosen], depth=depth)
            memo[key] = language_summary(per_query_metrics(
                rankings, judgments_from_queries(chosen, course_pipe.docs), ["failure@5", "failure@20"]))
        return memo[key]

    return compute


def right_changes(summary, course):
    return {lang: "up" if summary().loc[lang, "failure@20"] > course["by_lang"].loc[lang, "failure@20"] else "down"
            for lang in ["en", "zh"]}


def test_check_chunk_size_accepts_a_right_answer(summary, course, course_pipe):
    assert checks.check_chunk_size(summary(), right_changes(summary, course), course_pipe) == "right"


def flipped(changes):
    return {lang: {"up": "down", "down": "up"}[change] for lang, change in changes.items()}


CHUNK_SIZE_WRONG = {
    "the 800-character table": lambda s, c: (c["by_lang"], right_changes(s, c)),
    "failure@5 for failure@20": lambda s, c: (s().assign(**{"failure@20": s()["failure@5"]}), right_changes(s, c)),
    "changes read backwards": lambda s, c: (s(), flipped(right_changes(s, c))),
    "the test split": lambda s, c: (s(split="test"), right_changes(s, c)),
    "ranked 10 deep, not 20": lambda s, c: (s(depth=10), right_changes(s, c)),
    "changes as words other than up and down": lambda s, c: (
        s(), {lang: {"up": "higher", "down": "lower"}[change] for lang, change in right_changes(s, c).items()}),
}


@pytest.mark.parametrize("slip", CHUNK_SIZE_WRONG, ids=list(CHUNK_SIZE_WRONG))
def test_check_chunk_size_rejects_a_wrong_answer_and_gives_nothing_away(summary, course, course_pipe, slip):
    message = rejection(checks.check_chunk_size, *CHUNK_SIZE_WRONG[slip](summary, course), course_pipe)
    assert not any(f"{summary().loc[lang, 'failure@20']:.3f}" in message for lang in ["en", "zh", "all"]), message
    named = {change for change in ("up", "down") if re.search(rf"\b{change}\b", message)}
    assert len(named) != 1, f"{message!r} names one direction"


@pytest.fixture(scope="module")
def hardest(course, course_pipe):
    """The hardest paraphrase from the metric table (lowest MRR@10, ties by id), and the words of its text that
    its evidence documents never use."""
    rows = course["table"][course["table"]["type"] == "paraphrase"].sort_values(["mrr@10", "query_id"])
    query = next(q for q in course["dev"] if q.query_id == rows["query_id"].iloc[0])
    evidence = [doc for doc in course_pipe.docs if doc.doc_id in {item.doc for item in query.evidence}]
    return {"query": query, "rows": rows, "evidence": evidence,
            "missing": words(query.text) - set().union(*(words(doc.text) for doc in evidence))}


def test_check_hardest_paraphrase_accepts_a_right_answer(hardest, course_pipe):
    answer = hardest["query"].query_id, hardest["missing"]
    assert checks.check_hardest_paraphrase(*answer, course_pipe) == "right"
    assert checks.check_hardest_paraphrase(answer[0], sorted(answer[1]), course_pipe) == "right", "a list will do"


def lowest_of_any_type(course):
    table = course["table"]
    return table[table["answerable"]].sort_values(["mrr@10", "query_id"])["query_id"].iloc[0]


def last_of_the_tied(hardest):
    rows = hardest["rows"]
    return rows[rows["mrr@10"] == rows["mrr@10"].iloc[0]]["query_id"].iloc[-1]


def missing_from_top3(hardest, course_pipe):
    top3 = course_pipe.rankings([hardest["query"].text], depth=3)[0]
    return words(hardest["query"].text) - set().union(*(words(chunk.text) for chunk in top3))


HARDEST_WRONG = {
    "the highest MRR@10": lambda h, c, p: (h["rows"]["query_id"].iloc[-1], h["missing"]),
    "not only paraphrases": lambda h, c, p: (lowest_of_any_type(c), h["missing"]),
    "the last of the tied, not the first": lambda h, c, p: (last_of_the_tied(h), h["missing"]),
    "words missing from the quotes, not the documents": lambda h, c, p: (
        h["query"].query_id, words(h["query"].text) - set().union(*(words(i.quote) for i in h["query"].evidence))),
    "words missing from the top 3 chunks": lambda h, c, p: (h["query"].query_id, missing_from_top3(h, p)),
    "words missing from the first evidence document only": lambda h, c, p: (
        h["query"].query_id, words(h["query"].text) - words(h["evidence"][0].text)),
    "the words the documents do use": lambda h, c, p: (
        h["query"].query_id, words(h["query"].text) - h["missing"]),
    "one word left out": lambda h, c, p: (h["query"].query_id, set(sorted(h["missing"])[1:])),
}


@pytest.mark.parametrize("slip", HARDEST_WRONG, ids=list(HARDEST_WRONG))
def test_check_hardest_paraphrase_rejects_a_wrong_answer_and_gives_nothing_away(hardest, course, course_pipe, slip):
    message = rejection(checks.check_hardest_paraphrase, *HARDEST_WRONG[slip](hardest, course, course_pipe),
                        course_pipe)
    assert hardest["query"].query_id not in message, message
    assert not any(re.search(rf"\b{word}\b", message) for word in hardest["missing"]), message


@pytest.fixture(scope="module")
def context(course_pipe):
    """Chunk characters from the pipeline's own ranking, and the prompts `naive_rag` would build."""
    from ragkit.assemble.prompt import build_prompt

    tops = {k: course_pipe.rankings([QUERY], depth=k)[0] for k in (1, 5, 10)}
    chars = {k: sum(len(chunk.text.strip()) for chunk in top) for k, top in tops.items()}
    prompts = {k: build_prompt(QUERY, top) for k, top in tops.items()}
    return {"chars": chars, "prompts": prompts, "share": round(chars[10] / len(prompts[10]), 3),
            "unstripped": sum(len(chunk.text) for chunk in tops[10])}


def test_check_context_chars_accepts_a_right_answer(context, course_pipe):
    chars = {k: context["chars"][k] for k in (1, 10)}
    assert checks.check_context_chars(chars, context["share"], course_pipe) == "right"
    assert checks.check_context_chars(chars, context["chars"][10] / len(context["prompts"][10]), course_pipe) \
        == "right", "an unrounded share will do"


CONTEXT_WRONG = {
    "the whole prompt": lambda c: ({k: len(c["prompts"][k]) for k in (1, 10)}, c["share"]),
    "naive_rag's default k=5": lambda c: ({1: c["chars"][1], 10: c["chars"][5]}, c["share"]),
    "the nominal chunk size": lambda c: ({1: 800, 10: 8000}, c["share"]),
    "k=1's share": lambda c: ({1: c["chars"][1], 10: c["chars"][10]}, round(c["chars"][1] / len(c["prompts"][1]), 3)),
    "unstripped texts": lambda c: ({1: c["chars"][1], 10: c["chars"][10]},
                                   round(c["unstripped"] / len(c["prompts"][10]), 3)),
    "a percentage": lambda c: ({1: c["chars"][1], 10: c["chars"][10]}, 100 * c["share"]),
    "two decimals, not three": lambda c: ({1: c["chars"][1], 10: c["chars"][10]},
                                          round(c["chars"][10] / len(c["prompts"][10]), 2)),
    "chunk texts over the rest of the prompt": lambda c: (
        {1: c["chars"][1], 10: c["chars"][10]}, round(c["chars"][10] / (len(c["prompts"][10]) - c["chars"][10]), 3)),
    "k=1 and k=10 swapped": lambda c: ({1: c["chars"][10], 10: c["chars"][1]}, c["share"]),
}


@pytest.mark.parametrize("slip", CONTEXT_WRONG, ids=list(CONTEXT_WRONG))
def test_check_context_chars_rejects_a_wrong_answer_and_gives_nothing_away(context, course_pipe, slip):
    message = rejection(checks.check_context_chars, *CONTEXT_WRONG[slip](context), course_pipe)
    shown = {str(context["chars"][1]), str(context["chars"][10]), f"{context['share']:.3f}",
             f"{100 * context['share']:.1f}"}
    assert not any(number in message for number in shown), message
