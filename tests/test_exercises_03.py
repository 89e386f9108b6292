"""Notebook 03's exercise checks (notebooks/exercises/vector_search.py) accept a right answer computed here
another way, reject the plausible wrong ones, and never give the answer away in their messages."""

from types import SimpleNamespace

import numpy as np
import pytest
from helpers import assert_shows_none, exercise_checks, rejection

checks = exercise_checks("vector_search")


def recall5(pipe, queries, rankings):
    """Mean recall@5 of rankings given as chunk indices, one per query."""
    from ragkit.evaluate.relevance import judgments_from_queries
    from ragkit.evaluate.tables import per_query_metrics

    table = per_query_metrics([[pipe.chunks[i] for i in r] for r in rankings], judgments_from_queries(queries, pipe.docs),
                              ["recall@5"])
    return float(table["recall@5"].mean())


def generated_vectors():
    """Notebook 03's section 8, transcribed: 4,000 embedding-like vectors and 100 queries from seed 0."""
    rng = np.random.default_rng(0)
    centres = rng.normal(size=(300, 384))
    centres /= np.linalg.norm(centres, axis=1, keepdims=True)

    def like(n):
        topics = rng.integers(0, len(centres), size=n)
        vectors = centres[topics] + rng.normal(size=(n, 384)) * 0.6 / np.sqrt(384)
        return (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).astype(np.float32)

    return like(4000), like(100)


@pytest.fixture(scope="module")
def nb(course_pipe, course_queries):
    """What the notebook has, and right and wrong answers computed apart from the checks' code."""
    import chromadb
    from chromadb.config import Settings
    from sklearn.metrics.pairwise import cosine_similarity, linear_kernel
    from sklearn.neighbors import NearestNeighbors

    from ragkit.evaluate.refusal import best_threshold, refusal_table, threshold_sweep
    from ragkit.index.exact import exact_search
    from ragkit.index.filters import matches_filters

    pipe = course_pipe
    dev = [q for q in course_queries if q.split == "dev"]
    embeddings = pipe.chunk_embeddings
    query = pipe.embed_queries(["how do I revoke a token?"])[0]
    c = SimpleNamespace(pipe=pipe, dev=dev, embeddings=embeddings, query=query)

    # exercise 1: scikit-learn's dot product and cosine on the stretched vectors, sorted by Python
    def top(scores, k=10):
        return sorted(range(len(scores)), key=lambda i: -scores[i])[:k]

    lengths = np.random.default_rng(0).uniform(0.5, 2, (len(embeddings), 1))
    stretched = embeddings * lengths
    c.right_dot = top(linear_kernel(query[None], stretched)[0])
    c.right_cosine = top(cosine_similarity(query[None], stretched)[0])
    c.unit_dot = top(embeddings @ query)
    c.smallest_dot = top(-(stretched @ query))
    c.cosine_11 = top(cosine_similarity(query[None], stretched)[0], 11)[1:]
    c.other_seed_dot = top(embeddings @ query * np.random.default_rng(1).uniform(0.5, 2, len(embeddings)))
    c.divided_dot = top((embeddings / lengths) @ query)

    # exercise 2: ragkit's exact search and its filter mask
    filtered_zh = [q for q in dev if q.type == "multilingual" and q.filters]
    assert len(filtered_zh) == 8

    def recall_of(queries, filtered, k=5):
        found = [exact_search(e, embeddings, k, pipe.chunks, q.filters if filtered else None)[0][0]
                 for e, q in zip(pipe.embed_queries([q.text for q in queries]), queries, strict=True)]
        return recall5(pipe, queries, found)

    c.right_without, c.right_with = recall_of(filtered_zh, False), recall_of(filtered_zh, True)
    c.all_zh_without = recall_of([q for q in dev if q.type == "multilingual"], False)
    with_filters = [q for q in dev if q.filters]
    c.all_filtered = (recall_of(with_filters, False), recall_of(with_filters, True))
    unfiltered = [exact_search(e, embeddings, 5)[0][0] for e in pipe.embed_queries([q.text for q in filtered_zh])]
    by_id = {doc.doc_id: doc for doc in pipe.docs}
    afterwards = [[i for i in r if matches_filters(by_id[pipe.chunks[i].doc_id], q.filters)]
                  for r, q in zip(unfiltered, filtered_zh, strict=True)]
    c.filtered_afterwards = recall5(pipe, filtered_zh, afterwards)

    # exercise 3: ragkit's sweep and choice on the English dev queries
    thresholds = np.round(np.arange(0.20, 0.801, 0.01), 2)
    table = pipe.evaluate(dev, ["failure@5"])
    top_scores = (pipe.embed_queries([q.text for q in dev]) @ embeddings.T).max(axis=1)
    answerable, failure = table["answerable"].to_numpy(), table["failure@5"].to_numpy()
    en = np.array([q.lang == "en" for q in dev])
    sweep = threshold_sweep(top_scores[en], answerable[en], failure[en], thresholds)
    c.right_threshold = best_threshold(sweep, max_answerable_refused=int(0.10 * answerable[en].sum()))
    c.right_row = refusal_table(top_scores[en], answerable[en], failure[en], c.right_threshold)
    c.base_rate = (~answerable[en]).mean()
    free = best_threshold(sweep)
    c.free = (free, refusal_table(top_scores[en], answerable[en], failure[en], free)["precision"])
    everyone = threshold_sweep(top_scores, answerable, failure, thresholds)
    chosen_all = best_threshold(everyone, max_answerable_refused=int(0.10 * answerable.sum()))
    c.all_languages = (chosen_all, refusal_table(top_scores, answerable, failure, chosen_all)["precision"])

    # exercise 4: collections built here; exact neighbours from scikit-learn
    vectors, queries = generated_vectors()
    client = chromadb.EphemeralClient(settings=Settings(anonymized_telemetry=False))

    def build(m, ef, name):
        if name in [col.name for col in client.list_collections()]:
            client.delete_collection(name)
        hnsw = {"space": "cosine", "max_neighbors": m, "ef_construction": 100, "ef_search": ef}
        collection = client.create_collection(name, embedding_function=None, configuration={"hnsw": hnsw})
        collection.add(ids=[str(i) for i in range(len(vectors))], embeddings=vectors)
        return collection

    neighbours = NearestNeighbors(n_neighbors=10, metric="cosine", algorithm="brute").fit(vectors) \
        .kneighbors(queries, return_distance=False)

    def found(collection):
        ids = collection.query(query_embeddings=queries, n_results=10, include=[])["ids"]
        return [({int(i) for i in row}, set(n.tolist())) for row, n in zip(ids, neighbours, strict=True)]

    def recall(collection):
        return float(np.mean([len(a & b) / 10 for a, b in found(collection)]))

    c.ef20, c.ef10 = build(4, 20, "test-m4-ef20"), build(4, 10, "test-m4-ef10")
    c.modified = build(4, 10, "test-m4-ef10-modified")
    c.modified.modify(configuration={"hnsw": {"ef_search": 20}})  # section 8's trap
    c.right_recall, c.ef10_recall = recall(c.ef20), recall(c.ef10)
    c.modified_recall = recall(c.modified)
    c.perfect_share = float(np.mean([a == b for a, b in found(c.ef20)]))
    yield c
    for collection in (c.ef20, c.ef10, c.modified):
        client.delete_collection(collection.name)


def test_unnormalised_accepts_a_right_answer(nb):
    assert checks.check_unnormalised(nb.right_dot, nb.right_cosine, nb.embeddings, nb.query) == "right"
    assert checks.check_unnormalised(np.array(nb.right_dot), tuple(nb.right_cosine), nb.embeddings, nb.query) == "right"


def test_multilingual_filters_accepts_a_right_answer(nb):
    assert nb.right_with > nb.right_without  # the exercise's point: filters help here too
    assert checks.check_multilingual_filters(nb.right_without, nb.right_with, nb.pipe, nb.dev) == "right"


def test_english_threshold_accepts_a_right_answer(nb):
    assert checks.check_english_threshold(nb.right_threshold, nb.right_row["precision"], nb.pipe, nb.dev) == "right"


def test_ef20_accepts_a_right_answer(nb):
    assert checks.check_ef20(nb.ef20, nb.right_recall) == "right"


def unnormalised(dot, cosine):
    return lambda nb: checks.check_unnormalised(dot(nb), cosine(nb), nb.embeddings, nb.query)


def multilingual(without, with_filters):
    return lambda nb: checks.check_multilingual_filters(without(nb), with_filters(nb), nb.pipe, nb.dev)


def english(answer):
    return lambda nb: checks.check_english_threshold(*answer(nb), nb.pipe, nb.dev)


WRONG = {
    "check_unnormalised": {
        "dot product of the unit vectors": unnormalised(lambda nb: nb.unit_dot, lambda nb: nb.right_cosine),
        "the smallest dot products": unnormalised(lambda nb: nb.smallest_dot, lambda nb: nb.right_cosine),
        "cosine not divided by the lengths": unnormalised(lambda nb: nb.right_dot, lambda nb: nb.right_dot),
        "cosine top 11 without the best": unnormalised(lambda nb: nb.right_dot, lambda nb: nb.cosine_11),
        "lengths from another seed": unnormalised(lambda nb: nb.other_seed_dot, lambda nb: nb.right_cosine),
        "vectors divided by the lengths": unnormalised(lambda nb: nb.divided_dot, lambda nb: nb.right_cosine),
        "best last": unnormalised(lambda nb: nb.right_dot[::-1], lambda nb: nb.right_cosine),
        "top 9": unnormalised(lambda nb: nb.right_dot[:9], lambda nb: nb.right_cosine),
    },
    "check_multilingual_filters": {
        "the two swapped": multilingual(lambda nb: nb.right_with, lambda nb: nb.right_without),
        "all multilingual queries without filters": multilingual(lambda nb: nb.all_zh_without, lambda nb: nb.right_with),
        "every dev query with filters": multilingual(lambda nb: nb.all_filtered[0], lambda nb: nb.all_filtered[1]),
        "top 5 first, filtered afterwards": multilingual(lambda nb: nb.right_without, lambda nb: nb.filtered_afterwards),
        "a percentage": multilingual(lambda nb: 100 * nb.right_without, lambda nb: 100 * nb.right_with),
    },
    "check_english_threshold": {
        "chosen on every language": english(lambda nb: nb.all_languages),
        "no limit on refusals": english(lambda nb: nb.free),
        "refusal recall": english(lambda nb: (nb.right_threshold, nb.right_row["recall"])),
        "the base rate": english(lambda nb: (nb.right_threshold, nb.base_rate)),
        "precision as a percentage": english(lambda nb: (nb.right_threshold, 100 * nb.right_row["precision"])),
        "a threshold off the grid": english(lambda nb: (nb.right_threshold + 0.005, nb.right_row["precision"])),
    },
    "check_ef20": {
        "ef_search 10": lambda nb: checks.check_ef20(nb.ef10, nb.ef10_recall),
        "a count, not a share": lambda nb: checks.check_ef20(nb.ef20, 1000 * nb.right_recall),
        "share of queries with all 10": lambda nb: checks.check_ef20(nb.ef20, nb.perfect_share),
        "a percentage": lambda nb: checks.check_ef20(nb.ef20, 100 * nb.right_recall),
        "modify() to 20 after creating with 10": lambda nb: checks.check_ef20(nb.modified, nb.modified_recall),
    },
}
CASES = [(check, slip) for check, slips in WRONG.items() for slip in slips]


def test_the_slips_are_wrong_answers(nb):
    # each slip must differ from the right answer, or its test proves nothing
    assert nb.all_languages[1] != nb.right_row["precision"] and nb.free[0] != nb.right_threshold
    assert nb.filtered_afterwards != nb.right_with
    assert nb.all_filtered[0] != nb.right_without and nb.perfect_share != nb.right_recall


def giveaways(nb, check):
    """What a message must not contain: the right answer's numbers, as a learner would print them."""
    def numbers(*values):
        return [f"{v:{form}}" for v in values for form in (".2f", ".3f", ".1%", "")]

    def pairs(ranking):
        return [f"{a}, {b}" for a, b in zip(ranking, ranking[1:], strict=False)]

    return {"check_unnormalised": pairs(nb.right_dot) + pairs(nb.right_cosine),
            "check_multilingual_filters": numbers(nb.right_without, nb.right_with),
            "check_english_threshold": numbers(nb.right_threshold, nb.right_row["precision"]),
            "check_ef20": numbers(nb.right_recall)}[check]


@pytest.mark.parametrize(("check", "slip"), CASES, ids=[f"{check}: {slip}" for check, slip in CASES])
def test_check_rejects_a_wrong_answer_without_giving_the_answer_away(nb, check, slip):
    assert_shows_none(rejection(WRONG[check][slip], nb), giveaways(nb, check))
