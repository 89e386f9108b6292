"""The checks of notebook 08's exercises (MMR). Each takes the learner's answer first, then what the notebook
already has (`pipe`), and raises `AssertionError` saying what is wrong with the answer.

The checks do not use the notebook's own `mmr_by_hand`, nor ragkit's `mmr_select`: the MMR picks they need are
written out here as a plain loop over the formula (`mmr_loop`), and exercise 1's corpus, query and candidates
are rebuilt from `pipe` itself. `tests/test_exercises_08.py` shows that each check accepts a right answer
computed another way and rejects plausible wrong ones.
"""

from __future__ import annotations

import numpy as np

LAMBDA, FETCH, TOP = 0.7, 20, 6          # exercise 1: MMR at λ = 0.7 over the 20 best, a top 6
ORIGINALS, QUERY_CHARACTERS = 30, 80     # the first 30 chunks, then an exact copy of each; the query's length


def mmr_loop(relevance, similarity, lambda_, k):
    """MMR's picks by the formula: the most relevant first, then the largest λ · relevance − (1 − λ) ·
    redundancy, where redundancy is the highest similarity to the picks so far; ties keep the earlier one."""
    picked = [max(range(len(relevance)), key=lambda c: (relevance[c], -c))]
    while len(picked) < min(k, len(relevance)):
        values = {c: lambda_ * relevance[c] - (1 - lambda_) * max(similarity[c][p] for p in picked)
                  for c in range(len(relevance)) if c not in picked}
        picked.append(max(values, key=lambda c: (values[c], -c)))
    return picked


def copies_exercise(pipe):
    """Exercise 1's texts (30 chunks, then their copies), each one's cosine to the query, and the vectors."""
    texts = [chunk.text for chunk in pipe.chunks[:ORIGINALS]] * 2
    vectors = np.asarray(pipe.encoder.encode(texts), dtype=float)
    return texts, cosines(pipe, vectors, texts[0][:QUERY_CHARACTERS]), vectors


def cosines(pipe, vectors, query):
    """Each text's cosine to the query text (the vectors have unit length)."""
    return vectors @ np.asarray(pipe.encoder.encode([query])[0], dtype=float)


def by_score(texts, scores):
    """The texts best first (equal scores: the earlier text first)."""
    return [texts[i] for i in sorted(range(len(texts)), key=lambda i: (-scores[i], i))]


def mmr_top(texts, scores, vectors, lambda_=LAMBDA, fetch=FETCH, rescaled=True):
    """The texts MMR puts in the top 6 from the `fetch` best candidates (relevance min-max rescaled or raw)."""
    best = sorted(range(len(texts)), key=lambda i: (-scores[i], i))[:fetch]
    relevance = [float(scores[i]) for i in best]
    if rescaled:
        low, high = min(relevance), max(relevance)
        relevance = [(r - low) / (high - low) if high > low else 1.0 for r in relevance]
    candidates = vectors[best]
    similarity = (candidates @ candidates.T).tolist()
    return [texts[best[p]] for p in mmr_loop(relevance, similarity, lambda_, TOP)]


def check_duplicates(plain_top6, mmr_top6, pipe):
    texts, scores, vectors = copies_exercise(pipe)
    for name, answer in [("no-MMR", plain_top6), ("MMR", mmr_top6)]:
        assert len(answer) == TOP, f"the {name} list holds {len(answer)} items, not a top {TOP}"
        assert all(isinstance(text, str) and text in texts for text in answer), \
            f"the {name} list holds something that is not the text of one of the {2 * ORIGINALS} chunks"
    by_cosine = by_score(texts, scores)[:TOP]
    full_scores = cosines(pipe, vectors, texts[0])   # a slip: the whole first text as the query
    other_query = "for another query than the exercise's: its text is not built as the exercise says"
    if list(plain_top6) != by_cosine:
        assert list(plain_top6) != by_score(texts, full_scores)[:TOP], f"the no-MMR list is ranked {other_query}"
        assert sorted(plain_top6) != sorted(by_cosine), "the no-MMR list holds the six best texts, but not best first"
        raise AssertionError("the no-MMR list leaves out a text whose cosine to the query is as high as, or "
                             "higher than, one it keeps")
    expected = mmr_top(texts, scores, vectors)
    if list(mmr_top6) == expected:
        return "right"
    yours = list(mmr_top6)
    assert yours != by_cosine, "the MMR list is the no-MMR list: MMR re-ordered nothing"
    slips = [(mmr_top(texts, scores, vectors, lambda_=1 - LAMBDA),
              "it gives λ's weight to redundancy and the rest to relevance: the two roles are swapped")]
    slips += [(mmr_top(texts, scores, vectors, lambda_=other), f"it is MMR's at another λ than {LAMBDA}")
              for other in [0.1, 0.2, 0.4, 0.5, 0.6, 0.9]]
    slips += [(mmr_top(texts, scores, vectors, rescaled=False),
               "it uses the raw cosine as relevance, not the pipeline's relevance rescaled over the candidates")]
    slips += [(mmr_top(texts, scores, vectors, fetch=fetch), f"it was picked from {fetch} candidates, not the {FETCH} best")
              for fetch in [TOP, 10, 2 * ORIGINALS]]
    slips += [(mmr_top(texts, full_scores, vectors), f"it is ranked {other_query}")]
    found = list(dict.fromkeys(message for picks, message in slips if picks == yours))
    assert not found, "the MMR list is wrong: " + "; or ".join(found)
    assert sorted(yours) != sorted(expected), "the MMR list holds MMR's six texts, but not in the order MMR picks them"
    raise AssertionError(f"the MMR list is not what MMR at λ = {LAMBDA} picks from the {FETCH} best candidates")


def library_mmr(relevance, similarity, lambda_, k):
    """The library's rule as it documents it: λ weighs the redundancy, 1 − λ the relevance."""
    return mmr_loop(relevance, similarity, 1 - lambda_, k) if len(relevance) else []


def check_inverted(inverted):
    rng = np.random.default_rng(1)
    cases = []
    for _ in range(50):
        vectors = rng.normal(size=(6, 4))
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        cases.append((rng.random(6), vectors @ vectors.T, float(rng.random())))
    k = 4
    answers = [[int(p) for p in inverted(rel, sim, lam, k)] for rel, sim, lam in cases]
    expected = [library_mmr(rel, sim, lam, k) for rel, sim, lam in cases]
    if answers == expected:
        return "right"
    lengths = {len(answer) for answer in answers}
    assert lengths == {k}, f"asked for {k} picks, the function returned {' or '.join(map(str, sorted(lengths)))} picks"
    assert answers != [mmr_loop(rel, sim, lam, k) for rel, sim, lam in cases], \
        "the function picks as ragkit's λ would, but the library's λ is defined the other way round"
    assert [sorted(a) for a in answers] != [sorted(e) for e in expected], \
        "the function picks the library's candidates, but not in the library's order"
    assert all(answer[0] == int(np.argmax(rel)) for answer, (rel, _, _) in zip(answers, cases, strict=True)), \
        "the first pick is not always the most relevant candidate, as it is in the library"
    wrong = sum(answer != right for answer, right in zip(answers, expected, strict=True))
    raise AssertionError(f"the function's picks differ from the library's in {wrong} of {len(cases)} random cases")
