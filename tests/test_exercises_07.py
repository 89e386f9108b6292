"""Notebook 07's exercise checks accept a right answer computed apart from them, reject plausible wrong ones, and
give no answer away in their messages."""

import json
import math

import numpy as np
import pytest
from helpers import ROOT, exercise_checks

checks = exercise_checks("contextual")
PRICES = {"input": 0.25, "cache write": 0.30, "cache read": 0.03, "output": 1.25}  # the notebook's example prices


@pytest.fixture(scope="module")
def failure20(course_pipe, course_queries):
    """Mean failure@20 by hand: per query, 1 − the share of its parts that its top 20 answers; memoised."""
    from ragkit.evaluate.relevance import judgments_from_queries, ranking_hits

    memo = {}

    def compute(context, lang="all", method="bm25", split="test", depth=20, metric="failure"):
        key = (context, lang, method, split, depth, metric)
        if key not in memo:
            chosen = [q for q in course_queries if q.split == split and q.evidence and lang in ("all", q.lang)]
            rankings = course_pipe.using(method=method, context=context).rankings([q.text for q in chosen], depth)
            values = []
            for judgment, ranking in zip(judgments_from_queries(chosen, course_pipe.docs), rankings, strict=True):
                parts = set().union(*judgment.target_parts())
                answered = len(set().union(*ranking_hits(ranking, judgment)) & parts) / len(parts)
                values.append(1 - answered if metric == "failure" else answered)
            memo[key] = float(np.mean(values))
        return memo[key]

    return compute


@pytest.fixture(scope="module")
def usd(course_pipe):
    """The cost in millionths of a dollar from arrays, with token counts made here (notebook 01's WordPiece, with
    no length limit) from the recorded files themselves: a cached document is written once and read n − 1 times;
    `contexts` picks the recorded set ("llm" the course's variant, "plain" Anthropic's method), and `reads`,
    `output` and `padded` let a wrong answer change one term (`padded`: every count raised to 128, as the
    model's tokenizer.json pads a shorter text)."""
    from ragkit.embed.wordpiece import WordPieceTokenizer

    tokenizer = WordPieceTokenizer(max_length=10**6)
    docs, chunks = course_pipe.docs, course_pipe.chunks

    def context_counts(path):
        lines = (ROOT / "data" / "llm" / path).read_text(encoding="utf-8").splitlines()
        return np.array([len(tokenizer.encode(json.loads(line)["response"]).ids) for line in lines])

    counts = {"doc": np.array([len(tokenizer.encode(d.text).ids) for d in docs]),
              "chunk": np.array([len(tokenizer.encode(c.text).ids) for c in chunks]),
              "llm": context_counts("situating-contexts.jsonl"),
              "plain": context_counts("plain/situating-contexts.jsonl")}
    n = np.array([sum(c.doc_id == d.doc_id for c in chunks) for d in docs])

    def compute(minimum, contexts="llm", reads=lambda n: n - 1, output=True, padded=False):
        doc, chunk, context = (np.maximum(counts[k], 128) if padded else counts[k] for k in ("doc", "chunk", contexts))
        fixed = chunk.sum() * PRICES["input"] + output * n.sum() * int(context.mean()) * PRICES["output"]
        cached = doc * (PRICES["cache write"] + PRICES["cache read"] * reads(n))
        return fixed + np.where(doc >= minimum, cached, doc * n * PRICES["input"]).sum()

    return compute


def test_the_counts_are_not_padded(usd):
    """The right answer is not the one with counts padded to 128, a slip the notebook itself once made."""
    assert abs(usd(math.inf) / usd(1024) - usd(math.inf, padded=True) / usd(1024, padded=True)) > 0.05


@pytest.mark.parametrize("lang", ["all", "en", "zh"])
def test_check_bm25_accepts_a_right_answer(failure20, course_pipe, lang):
    assert checks.check_bm25(failure20("none", lang), failure20("llm", lang), lang, course_pipe) == "right"
    rounded = round(failure20("none", lang), 3), round(failure20("llm", lang), 3)
    assert checks.check_bm25(*rounded, lang, course_pipe) == "right", "three decimals are enough"


BM25_WRONG = {
    "the two swapped": lambda f: (f("llm"), f("none"), "all"),
    "dense, not BM25": lambda f: (f("none", method="dense"), f("llm", method="dense"), "all"),
    "hybrid, not BM25": lambda f: (f("none", method="hybrid"), f("llm", method="hybrid"), "all"),
    "the dev split": lambda f: (f("none", split="dev"), f("llm", split="dev"), "all"),
    "English for Chinese": lambda f: (f("none", "en"), f("llm", "en"), "zh"),
    "all queries for English": lambda f: (f("none"), f("llm"), "en"),
    "headers, not the model's contexts": lambda f: (f("none"), f("headers"), "all"),
    "Anthropic's prompt alone (llm-plain)": lambda f: (f("none"), f("llm-plain"), "all"),
    "failure@5, not @20": lambda f: (f("none", depth=5), f("llm", depth=5), "all"),
    "recall@20, not failure@20": lambda f: (f("none", metric="recall"), f("llm", metric="recall"), "all"),
    "a percentage, not a share": lambda f: (100 * f("none"), 100 * f("llm"), "all"),
}


@pytest.mark.parametrize("slip", BM25_WRONG, ids=list(BM25_WRONG))
def test_check_bm25_rejects_a_wrong_answer(failure20, course_pipe, slip):
    no_context, contextual, lang = BM25_WRONG[slip](failure20)
    with pytest.raises(AssertionError):
        checks.check_bm25(no_context, contextual, lang, course_pipe)


def right_ratios(usd):
    return usd(math.inf) / usd(1024), usd(math.inf, "plain") / usd(0, "plain")


def test_check_saving_accepts_a_right_answer(usd, course_pipe):
    minimum, plain = right_ratios(usd)
    assert checks.check_saving(minimum, plain, course_pipe, PRICES) == "right"
    assert checks.check_saving(round(minimum, 2), round(plain, 2), course_pipe, PRICES) == "right"
    assert checks.check_saving(minimum + 0.0049, plain - 0.0049, course_pipe, PRICES) == "right", "within 0.005"


def test_the_answers_are_not_on_screen(usd):
    """The notebook's bill shows every document cached, the 2,048 minimum and no caching for the course's contexts:
    neither answer is a ratio of two of those costs, at two decimals or at the three the table prints."""
    shown = [usd(0), usd(2048), usd(math.inf)]
    readable = {a / b for a in shown for b in shown if a > b}
    readable |= {round(a / 1e6, 3) / round(b / 1e6, 3) for a in shown for b in shown if a > b}
    for answer in right_ratios(usd):
        assert all(abs(answer - value) > 0.01 for value in readable)


SAVING_WRONG = {
    "one decimal, not two": lambda usd: (round(usd(math.inf) / usd(1024), 1), usd(math.inf, "plain") / usd(0, "plain")),
    "the ratios inverted": lambda usd: (usd(1024) / usd(math.inf), usd(0, "plain") / usd(math.inf, "plain")),
    "the 2,048 minimum, not 1,024": lambda usd: (usd(math.inf) / usd(2048), usd(math.inf, "plain") / usd(0, "plain")),
    "the two swapped": lambda usd: (usd(math.inf, "plain") / usd(0, "plain"), usd(math.inf) / usd(1024)),
    "the course's contexts, as on screen": lambda usd: (usd(math.inf) / usd(1024), usd(math.inf) / usd(0)),
    "Anthropic's contexts for both": lambda usd: (usd(math.inf, "plain") / usd(1024, "plain"),
                                                  usd(math.inf, "plain") / usd(0, "plain")),
    "the 1,024 minimum for both": lambda usd: (usd(math.inf) / usd(1024), usd(math.inf, "plain") / usd(1024, "plain")),
    "every document cached for both": lambda usd: (usd(math.inf) / usd(0), usd(math.inf, "plain") / usd(0, "plain")),
    "the output tokens left out": lambda usd: (usd(math.inf, output=False) / usd(1024, output=False),
                                               usd(math.inf, "plain", output=False) / usd(0, "plain", output=False)),
    "each chunk reads its document from the cache": lambda usd: (
        usd(math.inf) / usd(1024, reads=lambda n: n), usd(math.inf, "plain") / usd(0, "plain", reads=lambda n: n)),
    "the saving as a share, not a ratio": lambda usd: (1 - usd(1024) / usd(math.inf),
                                                       1 - usd(0, "plain") / usd(math.inf, "plain")),
    "the saving in dollars, not a ratio": lambda usd: ((usd(math.inf) - usd(1024)) / 1e6,
                                                       (usd(math.inf, "plain") - usd(0, "plain")) / 1e6),
    "token counts padded to 128": lambda usd: (usd(math.inf, padded=True) / usd(1024, padded=True),
                                               usd(math.inf, "plain", padded=True) / usd(0, "plain", padded=True)),
}


def test_check_saving_names_a_swap_and_a_value_below_one(usd, course_pipe):
    minimum, plain = right_ratios(usd)
    with pytest.raises(AssertionError, match="other question"):
        checks.check_saving(plain, minimum, course_pipe, PRICES)
    dollars = (usd(math.inf) - usd(1024)) / 1e6, (usd(math.inf, "plain") - usd(0, "plain")) / 1e6
    with pytest.raises(AssertionError, match="times cheaper") as raised:
        checks.check_saving(*dollars, course_pipe, PRICES)
    assert "larger" not in str(raised.value), "a dollar saving is not a cache that makes the bill larger"


@pytest.mark.parametrize("slip", SAVING_WRONG, ids=list(SAVING_WRONG))
def test_check_saving_rejects_a_wrong_answer(usd, course_pipe, slip):
    with pytest.raises(AssertionError):
        checks.check_saving(*SAVING_WRONG[slip](usd), course_pipe, PRICES)


def test_no_message_gives_the_answer_away(failure20, usd, course_pipe):
    messages = []
    for slip in BM25_WRONG.values():
        no_context, contextual, lang = slip(failure20)
        with pytest.raises(AssertionError) as raised:
            checks.check_bm25(no_context, contextual, lang, course_pipe)
        messages.append((str(raised.value), [failure20(c, lang) for c in ("none", "llm")]))
    for slip in SAVING_WRONG.values():
        with pytest.raises(AssertionError) as raised:
            checks.check_saving(*slip(usd), course_pipe, PRICES)
        messages.append((str(raised.value), list(right_ratios(usd))))
    for message, answers in messages:
        assert message, "every rejection says what is wrong"
        for answer in answers:
            for shown in {f"{answer:.2f}", f"{answer:.3f}", f"{answer:.1%}", f"{answer:g}"}:
                assert shown not in message, f"{message!r} gives away {shown}"
        assert "solution" not in message.lower()
