"""The exercise checks of the three rerank notebooks (09: `rerank`, 09b: `cross_encoder`, 09c: `refuse`) accept a
right answer computed apart from them, reject plausible wrong ones, and give no answer away in their messages."""

import json

import numpy as np
import pytest
from helpers import ROOT, computed_once, exercise_checks

rerank = exercise_checks("rerank")
cross_encoder = exercise_checks("cross_encoder")
refuse = exercise_checks("refuse")


@pytest.fixture(scope="module")
def hybrid(course_pipe):
    """The notebooks' `pipe`: the default hybrid, no reranker."""
    return course_pipe.using(method="hybrid")


@pytest.fixture(scope="module")
def split(course_queries):
    def pick(name, answerable=True):
        return [q for q in course_queries if q.split == name and (q.evidence or not answerable)]

    return pick


def raised(call) -> str:
    """The message of the AssertionError that `call()` must raise."""
    with pytest.raises(AssertionError) as error:
        call()
    return str(error.value)


def assert_nothing_given_away(messages, numbers=(), texts=()):
    """No message is empty, and none shows the right numbers (in the usual formats) or texts."""
    for message in messages:
        assert message, "every rejection says what is wrong"
        for number in numbers:
            for shown in {f"{number:.2f}", f"{number:.3f}", f"{number:.1%}", f"{number:g}"}:
                assert shown not in message, f"{message!r} gives away {shown}"
        for text in texts:
            assert text not in message, f"{message!r} gives away {text!r}"
        assert "solution" not in message.lower()


# ---------------------------------------------------------------- 09, exercise 1: seed 001's diagnose


@pytest.fixture(scope="module")
def gaps(hybrid, split):
    """Per query type, the mean of recall@deep − recall@5 over the answerable queries, by hand from the rankings."""
    from ragkit.evaluate.relevance import judgments_from_queries, ranking_hits

    memo = {}

    def compute(context="llm", name="dev", deep=15, method="hybrid"):
        if (context, name, deep, method) not in memo:
            queries = split(name)
            rankings = hybrid.using(context=context, method=method).rankings([q.text for q in queries], deep)
            by_type = {}
            for q, ranking, judgment in zip(queries, rankings, judgments_from_queries(queries, hybrid.docs),
                                            strict=True):
                answered = [len(set().union(*ranking_hits(ranking[:k], judgment))) / len(judgment.part_gains())
                            for k in (5, deep)]
                by_type.setdefault(q.type, []).append(answered[1] - answered[0])
            memo[context, name, deep, method] = {t: float(np.mean(values)) for t, values in by_type.items()}
        return memo[context, name, deep, method]

    return compute


def largest(gap_by_type):
    query_type = max(gap_by_type, key=gap_by_type.get)
    return query_type, gap_by_type[query_type]


def test_check_diagnose_accepts_a_right_answer(gaps, hybrid):
    query_type, gap = largest(gaps())
    assert rerank.check_diagnose(query_type, gap, hybrid) == "right"
    assert rerank.check_diagnose(query_type, round(gap, 3), hybrid) == "right", "three decimals are enough"


DIAGNOSE_WRONG = {
    "the plain hybrid, not the contextual one": lambda g: largest(g(context="none")),
    "recall@20, not @15": lambda g: largest(g(deep=20)),
    "recall@50, not @15 (the ceiling of the table above)": lambda g: largest(g(deep=50)),
    "the right type with its recall@50 gap": lambda g: (largest(g())[0], g(deep=50)[largest(g())[0]]),
    "the dense first stage": lambda g: largest(g(method="dense", context="none")),
    "the right type with the plain hybrid's gap": lambda g: (largest(g())[0], g(context="none")[largest(g())[0]]),
    "the smallest gap": lambda g: min(g().items(), key=lambda item: item[1]),
    "the test split": lambda g: largest(g(name="test")),
    "a percentage, not a share": lambda g: (largest(g())[0], 100 * largest(g())[1]),
    "recall@5 minus recall@15": lambda g: (largest(g())[0], -largest(g())[1]),
    "a type the data does not have": lambda g: ("keywords", largest(g())[1]),
}


@pytest.mark.parametrize("slip", DIAGNOSE_WRONG, ids=list(DIAGNOSE_WRONG))
def test_check_diagnose_rejects_a_wrong_answer_and_gives_nothing_away(gaps, hybrid, slip):
    message = raised(lambda: rerank.check_diagnose(*DIAGNOSE_WRONG[slip](gaps), hybrid))
    query_type, gap = largest(gaps())
    assert_nothing_given_away([message], [gap], [query_type])


# ---------------------------------------------------------------- 09, exercise 2: MaxSim without [CLS] and [SEP]


@pytest.fixture(scope="module")
def ops021(hybrid, course_pipe, course_queries):
    """ops-021's token vectors, its hybrid top 15's token vectors and chunk ids (and its dense top 15's)."""
    from ragkit.reranking import candidates, chunk_token_vectors, numpy_encoder

    query = next(q for q in course_queries if q.query_id == "ops-021")
    vectors = chunk_token_vectors(hybrid)
    found = {}
    for name, pipe in (("hybrid", hybrid), ("dense", course_pipe.using(method="dense"))):
        rows = candidates(pipe.using(rerank="none"), [query.text], 15)[0][0]
        found[name] = ([vectors[i].astype(np.float64) for i in rows], [hybrid.chunks[i].chunk_id for i in rows])
    return numpy_encoder(hybrid).token_vectors([query.text])[0].astype(np.float64), found


def maxsim(query, chunks, axis=1, reduce="max"):
    # the matrix form: every query token against every chunk token, the best per query token, then the mean
    products = [query @ chunk.T for chunk in chunks]
    return [float(p.max(axis=axis).mean() if reduce == "max" else p.mean()) for p in products]


def top3(scores, ids):
    return [ids[i] for i in np.argsort(-np.asarray(scores), kind="stable")[:3]]


def right_without_special(ops021):
    query, found = ops021
    chunks, ids = found["hybrid"]
    scores = maxsim(query[1:-1], chunks)
    return scores, top3(scores, ids)


@pytest.fixture(scope="module")
def remembered_without_special(hybrid):
    """rerank.without_special_answer computed once for this module: the tests below call the check 18 times, and
    each call ranks ops-021's candidates and encodes the query again."""
    return computed_once(rerank.without_special_answer, hybrid, key=lambda: ())


@pytest.fixture
def without_special_once(remembered_without_special, monkeypatch):
    monkeypatch.setattr(rerank, "without_special_answer", remembered_without_special)


def test_check_without_special_accepts_a_right_answer(ops021, hybrid, without_special_once):
    scores, best = right_without_special(ops021)
    assert rerank.check_without_special(scores, best, hybrid) == "right"
    assert rerank.check_without_special(np.round(scores, 4), tuple(best), hybrid) == "right"


def without_special_slip(ops021, slip):
    query, found = ops021
    chunks, ids = found["hybrid"]
    right, best = right_without_special(ops021)
    return {
        "nothing dropped": lambda: (maxsim(query, chunks), top3(maxsim(query, chunks), ids)),
        "only [CLS] dropped": lambda: (maxsim(query[1:], chunks), top3(maxsim(query[1:], chunks), ids)),
        "only [SEP] dropped": lambda: (maxsim(query[:-1], chunks), top3(maxsim(query[:-1], chunks), ids)),
        "the sum, not the mean": lambda: (list(np.multiply(right, len(query) - 2)), best),
        "every pair's mean, no max": lambda: (maxsim(query[1:-1], chunks, reduce="mean"),
                                              top3(maxsim(query[1:-1], chunks, reduce="mean"), ids)),
        "each chunk token's best query token": lambda: (maxsim(query[1:-1], chunks, axis=0),
                                                        top3(maxsim(query[1:-1], chunks, axis=0), ids)),
        "the old top 3": lambda: (right, top3(maxsim(query, chunks), ids)),
        "the top 3 worst first": lambda: (right, best[::-1]),
        "the three lowest scores": lambda: (right, [ids[i] for i in np.argsort(right, kind="stable")[:3]]),
        "12 scores, not 15": lambda: (right[:12], best),
        "the dense first stage's candidates": lambda: (maxsim(query[1:-1], found["dense"][0]),
                                                       top3(maxsim(query[1:-1], found["dense"][0]), found["dense"][1])),
        "scores rounded to 3 decimals": lambda: (list(np.round(right, 3)), best),
        "the right scores sorted best first": lambda: (sorted(right, reverse=True), best),
    }[slip]()


WITHOUT_SPECIAL_WRONG = ["nothing dropped", "only [CLS] dropped", "only [SEP] dropped", "the sum, not the mean",
                         "every pair's mean, no max", "each chunk token's best query token", "the old top 3",
                         "the top 3 worst first", "the three lowest scores", "12 scores, not 15",
                         "the dense first stage's candidates", "scores rounded to 3 decimals",
                         "the right scores sorted best first"]


@pytest.mark.parametrize("slip", WITHOUT_SPECIAL_WRONG)
def test_check_without_special_rejects_a_wrong_answer_and_gives_nothing_away(ops021, hybrid, without_special_once,
                                                                            slip):
    message = raised(lambda: rerank.check_without_special(*without_special_slip(ops021, slip), hybrid))
    scores, best = right_without_special(ops021)
    assert_nothing_given_away([message], scores[:3], best)


def test_check_without_special_tells_rounding_and_order_apart(ops021, hybrid, without_special_once):
    messages = {slip: raised(lambda s=slip: rerank.check_without_special(*without_special_slip(ops021, s), hybrid))
                for slip in ["scores rounded to 3 decimals", "the right scores sorted best first", "nothing dropped"]}
    assert len(set(messages.values())) == 3, "rounding, order and a wrong score each get their own message"


# ---------------------------------------------------------------- 09b: a head on the passage alone


@pytest.fixture(scope="module")
def passage_alone(hybrid, split):
    """Mean nDCG@10 (or another metric) of each query's top 15 re-ordered by a logistic regression on the
    candidates' own embeddings (or on the pairs' [CLS] pooler outputs), trained on the dev candidates; the keywords
    vary the slips."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from ragkit.embed.pairs import PairEncoder
    from ragkit.evaluate.relevance import judgments_from_queries, ranking_hits
    from ragkit.evaluate.tables import per_query_metrics
    from ragkit.reranking import candidates

    plain = hybrid.using(rerank="none")
    data = {}
    for name in ("dev", "test"):
        queries = split(name)
        data[name] = (queries, candidates(plain, [q.text for q in queries], 20)[0],
                      judgments_from_queries(queries, plain.docs))
    vectors = plain.chunk_embeddings.astype(np.float64)
    pair_rows = {}
    models, memo = {}, {}

    def features(name, pair, row, n):
        if not pair:
            return vectors[row]
        if name not in pair_rows:  # the pairs of every query's top 15, in order, as the notebook's pair head reads them
            queries, rows, _ = data[name]
            pair_rows[name] = PairEncoder().features([(q.text, plain.indexed_texts[i])
                                                      for q, r in zip(queries, rows, strict=True) for i in r[:15]],
                                                     "pooler").astype(np.float64)
        return pair_rows[name][15 * n:15 * n + len(row)]

    def fitted(scale, C, tol, pair):
        if (scale, C, tol, pair) not in models:
            _, rows, judgments = data["dev"]
            x = np.vstack([features("dev", pair, row[:15], n) for n, row in enumerate(rows)])
            y = [bool(hit) for row, judgment in zip(rows, judgments, strict=True)
                 for hit in ranking_hits([plain.chunks[i] for i in row[:15]], judgment)]
            model = LogisticRegression(C=C, solver="newton-cholesky", tol=tol)
            models[scale, C, tol, pair] = (make_pipeline(StandardScaler(), model) if scale else model).fit(x, y)
        return models[scale, C, tol, pair]

    def compute(on="test", scale=True, order=-1, depth=15, metric="ndcg@10", rerank=True, C=1.0, tol=1e-10,
                pair=False):
        key = (on, scale, order, depth, metric, rerank, C, tol, pair)
        if key not in memo:
            model = fitted(scale, C, tol, pair)
            _, rows, judgments = data[on]
            rankings = []
            for n, row in enumerate(rows):
                head = row[:depth]
                if rerank:
                    probability = model.predict_proba(features(on, pair and depth == 15, head, n))[:, 1]
                    head = head[np.argsort(order * probability, kind="stable")]
                rankings.append([plain.chunks[i] for i in np.r_[head, row[depth:]]])
            memo[key] = float(per_query_metrics(rankings, judgments, [metric])[metric].mean())
        return memo[key]

    return compute


@pytest.fixture(scope="module")
def passage_expected(hybrid):
    return cross_encoder.passage_alone_ndcg(hybrid)


@pytest.fixture(scope="module")
def passage_slips(hybrid):
    return cross_encoder.slip_ndcgs(hybrid)


def test_check_passage_alone_accepts_a_right_answer(passage_alone, passage_expected, hybrid, monkeypatch):
    assert abs(passage_alone() - passage_expected) < 1e-9, "the check's own answer is the one computed here"
    # passage_expected is the check's own computation: reuse it rather than fitting the head once per call
    monkeypatch.setattr(cross_encoder, "passage_alone_ndcg", lambda pipe: passage_expected)
    assert cross_encoder.check_passage_alone(passage_alone(), hybrid) == "right"
    assert cross_encoder.check_passage_alone(round(passage_alone(), 3), hybrid) == "right"


def test_the_slips_the_check_names_are_the_ones_computed_here(passage_alone, passage_slips):
    computed = {"hybrid": [passage_alone(rerank=False)], "pair head": [passage_alone(pair=True, C=0.01)],
                "other C": [passage_alone(C=C) for C in (0.001, 0.01, 0.1, 10.0)],
                "loose tol": [passage_alone(tol=1e-4)]}
    assert computed.keys() == passage_slips.keys()
    for name, values in computed.items():
        assert np.allclose(values, passage_slips[name], rtol=0, atol=1e-9), name
        assert all(abs(value - passage_alone()) > 1e-3 for value in values), f"{name} is not told apart at 3 decimals"


PASSAGE_WRONG = {
    "the dev split": (lambda f: f(on="dev"), None),
    "the hybrid's own order": (lambda f: f(rerank=False), "hybrid"),
    "the head that reads the pair": (lambda f: f(pair=True, C=0.01), "pair head"),
    "the pair head's C, 0.01": (lambda f: f(C=0.01), "other C"),
    "C = 0.1": (lambda f: f(C=0.1), "other C"),
    "scikit-learn's default tolerance": (lambda f: f(tol=1e-4), "loose tol"),
    "lowest probability first": (lambda f: f(order=1), None),
    "all 20 re-ordered, not 15": (lambda f: f(depth=20), None),
    "recall@5, not nDCG@10": (lambda f: f(metric="recall@5"), None),
    "MRR@10, not nDCG@10": (lambda f: f(metric="mrr@10"), None),
    "not standardised": (lambda f: f(scale=False), None),
    "a percentage": (lambda f: 100 * f(), None),
}


@pytest.mark.parametrize("slip", PASSAGE_WRONG, ids=list(PASSAGE_WRONG))
def test_check_passage_alone_rejects_a_wrong_answer_and_gives_nothing_away(passage_alone, passage_expected,
                                                                           passage_slips, hybrid, monkeypatch, slip):
    monkeypatch.setattr(cross_encoder, "passage_alone_ndcg", lambda pipe: passage_expected)
    monkeypatch.setattr(cross_encoder, "slip_ndcgs", lambda pipe: passage_slips)
    answer, named = PASSAGE_WRONG[slip]
    message = raised(lambda: cross_encoder.check_passage_alone(answer(passage_alone), hybrid))
    if named:
        assert message == cross_encoder.SLIPS[named], "the check names this slip"
    assert_nothing_given_away([message], [passage_expected], ["1.0", "1e-10", "tol="])


# ---------------------------------------------------------------- 09c, exercise 1: a stricter cut


@pytest.fixture(scope="module")
def agreement(hybrid, split):
    """The share judged relevant above a cut and the AUC over the judged candidates, from the recorded scores file
    read pair by pair (since the depth-20 judging of 2026-12-07 every dev candidate is judged, so counting unjudged
    ones as not relevant would change nothing)."""
    from sklearn.metrics import roc_auc_score

    from ragkit.evaluate.relevance import judged_units, judgments_from_queries, ranking_hits
    from ragkit.reranking import candidates

    lines = (ROOT / "data" / "llm" / "rerank-scores.jsonl").read_text(encoding="utf-8").splitlines()
    recorded = {(r["query"], r["chunk"]): float(r["response"]) for r in map(json.loads, lines)}
    plain = hybrid.using(rerank="none")
    memo = {}

    def compute(name="dev", cut=7, strict=False, of_relevant=False):
        key = (name, cut, strict, of_relevant)
        if key not in memo:
            queries = split(name)
            rows = candidates(plain, [q.text for q in queries], 15)[0]
            scores, labels = [], []
            for q, row, judgment in zip(queries, rows, judgments_from_queries(queries, plain.docs), strict=True):
                chunks = [plain.chunks[i] for i in row]
                for chunk, hit, known in zip(chunks, ranking_hits(chunks, judgment), judged_units(chunks, judgment),
                                             strict=True):
                    if known:
                        scores.append(recorded[q.query_id, chunk.chunk_id])
                        labels.append(bool(hit))
            scores, labels = np.array(scores), np.array(labels)
            above = scores > cut if strict else scores >= cut
            share = above[labels].mean() if of_relevant else labels[above].mean()
            memo[key] = float(share), float(roc_auc_score(labels, scores))
        return memo[key]

    return compute


@pytest.fixture(scope="module")
def remembered_judged_scores(hybrid):
    """refuse.judged_scores, each split's computed once for this module: check_agreement ranks, scores and judges
    every dev candidate on each answer, and the tests below give it eight."""
    return computed_once(refuse.judged_scores, hybrid, key=lambda split="dev": split)


@pytest.fixture
def judged_scores_once(remembered_judged_scores, monkeypatch):
    monkeypatch.setattr(refuse, "judged_scores", remembered_judged_scores)


def test_check_agreement_accepts_a_right_answer(agreement, hybrid, judged_scores_once):
    share, auc = agreement()
    assert refuse.check_agreement(share, auc, hybrid) == "right"
    assert refuse.check_agreement(round(share, 3), round(auc, 3), hybrid) == "right"


AGREEMENT_WRONG = {
    "the test split": lambda f: f(name="test"),
    "a cut at 5": lambda f: f(cut=5),
    "strictly above 7": lambda f: f(strict=True),
    "of the relevant, the share scored 7 or more": lambda f: f(of_relevant=True),
    "the AUC inverted": lambda f: (f()[0], 1 - f()[1]),
    "a percentage": lambda f: (100 * f()[0], f()[1]),
    "the two swapped": lambda f: (f()[1], f()[0]),
}


@pytest.mark.parametrize("slip", AGREEMENT_WRONG, ids=list(AGREEMENT_WRONG))
def test_check_agreement_rejects_a_wrong_answer_and_gives_nothing_away(agreement, hybrid, judged_scores_once, slip):
    message = raised(lambda: refuse.check_agreement(*AGREEMENT_WRONG[slip](agreement), hybrid))
    assert_nothing_given_away([message], agreement())


# ---------------------------------------------------------------- 09c, exercise 2: refuse no answerable query


@pytest.fixture(scope="module")
def refusals(hybrid, split):
    """Per (threshold, rewrite, split, language): answerable queries refused, all refusals, refusal precision,
    recall and F1, by hand from the pipeline's refusals ("all" keeps every language)."""
    memo = {}

    def compute(threshold, rewrite, name, lang="en"):
        if (threshold, rewrite, name, lang) not in memo:
            queries = [q for q in split(name, answerable=False) if lang in (q.lang, "all")]
            found = hybrid.using(rerank="llm", threshold=threshold, rewrite=rewrite).retrieve([q.text for q in queries], 5)
            refused, answerable = np.asarray(found.refused), np.array([bool(q.evidence) for q in queries])
            right = int((refused & ~answerable).sum())
            precision = right / refused.sum() if refused.sum() else float("nan")
            recall = right / (~answerable).sum()
            f1 = 2 * precision * recall / (precision + recall) if precision + recall > 0 else float("nan")
            memo[threshold, rewrite, name, lang] = {"answerable refused": int((refused & answerable).sum()),
                                                    "refused": int(refused.sum()),
                                                    "precision": precision, "recall": recall, "f1": f1}
        return memo[threshold, rewrite, name, lang]

    return compute


SETTINGS = [(t, r) for t in (2, 3, 4, 5, 6) for r in ("none", "llm")]


def chosen(refusals, name="dev", lang="en", limit=0, by="f1"):
    allowed = [s for s in SETTINGS if refusals(*s, name, lang)["answerable refused"] <= limit
               and not np.isnan(refusals(*s, name, lang)[by])]
    return max(allowed, key=lambda s: refusals(*s, name, lang)[by])


def on_test(refusals, setting, lang="en"):
    row = refusals(*setting, "test", lang)
    return row["f1"], row["answerable refused"]


@pytest.fixture(scope="module")
def remembered_refusal(hybrid):
    """refuse.refusal, each setting's on each query list computed once for this module: check_stricter_rule
    evaluates all ten settings on every answer, more than the pipe keeps among its recent results, and the tests
    below give it 15 answers."""
    return computed_once(refuse.refusal, hybrid, key=lambda threshold, rewrite, queries: (
        threshold, rewrite, tuple(q.query_id for q in queries)))


@pytest.fixture
def refusal_once(remembered_refusal, monkeypatch):
    monkeypatch.setattr(refuse, "refusal", remembered_refusal)


def test_check_stricter_rule_accepts_a_right_answer(refusals, hybrid, refusal_once):
    threshold, rewrite = chosen(refusals)
    f1, count = on_test(refusals, (threshold, rewrite))
    assert refuse.check_stricter_rule(threshold, rewrite, f1, count, hybrid) == "right"
    assert refuse.check_stricter_rule(threshold, rewrite, round(f1, 3), float(count), hybrid) == "right"


def stricter_slip(refusals, split, slip):
    best = chosen(refusals)
    f1, count = on_test(refusals, best)
    with_limit = chosen(refusals, limit=int(0.10 * sum(q.lang == "en" for q in split("dev"))))
    return {
        "section 3's rule, at most 10%": lambda: (*with_limit, *on_test(refusals, with_limit)),
        "all queries, not English ones": lambda: (*chosen(refusals, lang="all"),
                                                  *on_test(refusals, chosen(refusals, lang="all"), "all")),
        "Chinese queries, not English ones": lambda: (*chosen(refusals, lang="zh"),
                                                      *on_test(refusals, chosen(refusals, lang="zh"), "zh")),
        "the dev F1, not the test F1": lambda: (*best, refusals(*best, "dev", "en")["f1"], count),
        "no rewrite": lambda: (best[0], "none", *on_test(refusals, (best[0], "none"))),
        "chosen on test": lambda: (*chosen(refusals, "test"), *on_test(refusals, chosen(refusals, "test"))),
        "precision, not F1": lambda: (*best, refusals(*best, "test", "en")["precision"], count),
        "recall, not F1": lambda: (*best, refusals(*best, "test", "en")["recall"], count),
        "the promise taken as kept": lambda: (*best, f1, 0),
        "every refusal counted, not the answerable ones": lambda: (*best, f1, refusals(*best, "test", "en")["refused"]),
        "answerable queries refused on all test queries": lambda: (*best, f1, refusals(*best, "test", "all")["answerable refused"]),
        "rewrite as True": lambda: (best[0], True, f1, count),
        "the seed's scale, 0.4": lambda: (best[0] / 10, best[1], f1, count),
    }[slip]()


STRICTER_WRONG = ["section 3's rule, at most 10%", "all queries, not English ones", "Chinese queries, not English ones",
                  "the dev F1, not the test F1", "no rewrite", "chosen on test", "precision, not F1", "recall, not F1",
                  "the promise taken as kept", "every refusal counted, not the answerable ones",
                  "answerable queries refused on all test queries", "rewrite as True", "the seed's scale, 0.4"]


@pytest.mark.parametrize("slip", STRICTER_WRONG)
def test_check_stricter_rule_rejects_a_wrong_answer_and_gives_nothing_away(refusals, split, hybrid, refusal_once,
                                                                           slip):
    message = raised(lambda: refuse.check_stricter_rule(*stricter_slip(refusals, split, slip), hybrid))
    best = chosen(refusals)
    f1, count = on_test(refusals, best)   # the count is one digit, so it is looked for in words ("F1" holds a 1)
    assert_nothing_given_away([message], [f1], [f"threshold {best[0]}", f"{best[0]} ", f"{count} answerable",
                                                f"refuses {count}", f"refused {count}"])
