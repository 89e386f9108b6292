"""The checks of notebook 03's exercises (similarity and vector search).

Each check recomputes its answer here, apart from the notebook's code and from the learner's: dot products
and cosines written out, the metadata filters transcribed key by key, the threshold choice as a literal loop,
and the generated vectors of 03_vector_search_at_scale (section 1) drawn again from their seed, with an HNSW index built here for
comparison. What they take from `ragkit` (the pipeline's chunks and vectors, recall@5 from the evidence spans)
the notebook has checked against references already.
"""

import uuid

import numpy as np

from ragkit.evaluate.relevance import judgments_from_queries
from ragkit.evaluate.tables import per_query_metrics

THRESHOLDS = np.round(np.arange(0.20, 0.801, 0.01), 2)  # section 8's sweep (03_similarity_and_vector_search)


def as_indices(found, name):
    """A learner's ranking as a list of ints (a list, tuple or numpy array of 10 chunk indices)."""
    found = np.asarray(found).ravel()
    assert len(found) == 10, f"{name} holds {len(found)} indices; the exercise asks for 10"
    assert np.issubdtype(found.dtype, np.integer), f"{name} holds {found.dtype} values, not chunk indices"
    return [int(i) for i in found]


def check_unnormalised(dot_top10, cosine_top10, embeddings, query_embedding):
    """Exercise 1: the top 10 by dot product and by cosine once every chunk vector has a random length."""
    embeddings, query = np.asarray(embeddings, dtype=float), np.asarray(query_embedding, dtype=float)
    assert np.allclose(np.linalg.norm(embeddings, axis=1), 1, atol=1e-4), \
        "`embeddings` are not unit vectors: give the check the chunk embeddings, not the scaled ones"
    lengths = np.random.default_rng(0).uniform(0.5, 2, len(embeddings))
    scaled = embeddings * lengths[:, None]
    dots = scaled @ query  # q · (s c) for every chunk vector c stretched to length s
    cosines = dots / (np.linalg.norm(scaled, axis=1) * np.linalg.norm(query))
    for name, found, score in [("dot_top10", dot_top10, dots), ("cosine_top10", cosine_top10, cosines)]:
        measure = "dot product" if name == "dot_top10" else "cosine"
        found = as_indices(found, name)
        assert all(0 <= i < len(embeddings) for i in found), f"{name} holds numbers that are not chunk indices"
        assert len(set(found)) == 10, f"{name} names a chunk more than once"
        best = np.argsort(-score, kind="stable")[:10].tolist()
        if set(found) == set(best):
            assert found == best, f"{name} is not in decreasing order of the {measure}"
            continue
        unit_order = np.argsort(-(embeddings @ query), kind="stable")[:10].tolist()
        dot_order = np.argsort(-dots, kind="stable")[:10].tolist()
        assert not (name == "dot_top10" and found == unit_order), \
            "dot_top10 ranks the chunks as if every vector still had length 1"
        assert not (name == "cosine_top10" and found == dot_order), \
            "cosine_top10 changes with the vectors' lengths, which a cosine ignores"
        raise AssertionError(f"{name} is not the 10 chunks with the largest {measure} against the scaled vectors")
    return "right"


def passes(doc, filters):
    """Whether a document passes a query's metadata filters (section 6), key by key."""
    for key, value in filters.items():
        if key == "date_from" and not (doc.date and doc.date >= value):
            return False
        if key == "date_to" and not (doc.date and doc.date <= value):
            return False
        if key == "exclude" and doc.doc_id in value.split(","):
            return False
        if key in ("version", "source", "lang") and str(getattr(doc, key) or "") != value:
            return False
    return True


def mean_recall_at_5(pipe, queries, filtered):
    """Mean recall@5 of exact search over `pipe`'s chunks, with or without each query's filters."""
    chunks, by_id = pipe.chunks, {doc.doc_id: doc for doc in pipe.docs}
    scores = pipe.embed_queries([q.text for q in queries]) @ np.asarray(pipe.chunk_embeddings).T
    rankings = []
    for query, row in zip(queries, scores, strict=True):
        keep = [not filtered or passes(by_id[chunk.doc_id], query.filters) for chunk in chunks]
        order = [i for i in np.argsort(-row, kind="stable") if keep[i]][:5]
        rankings.append([chunks[i] for i in order])
    table = per_query_metrics(rankings, judgments_from_queries(queries, pipe.docs), ["recall@5"])
    return float(table["recall@5"].mean())


def check_multilingual_filters(without, with_filters, pipe, dev):
    """Exercise 2: mean recall@5 of the multilingual dev queries that carry filters, without and with them."""
    queries = [q for q in dev if q.type == "multilingual" and q.filters]
    assert queries, "`dev` holds no multilingual queries with filters: give the check the dev queries"
    for name, value, filtered in [("without", without, False), ("with_filters", with_filters, True)]:
        assert 0 <= value <= 1, f"{name} is not a mean recall (a share between 0 and 1)"
        where = "with each query's filters" if filtered else "without filters"
        assert abs(value - mean_recall_at_5(pipe, queries, filtered)) < 1e-9, \
            f"{name} is not the mean recall@5 of exact search {where} over the multilingual dev queries " \
            "that carry filters"
    return "right"


def check_english_threshold(threshold, precision, pipe, dev):
    """Exercise 3: section 8's threshold choice made on the English dev queries alone."""
    english = [q for q in dev if q.lang == "en"]
    assert english, "`dev` holds no English queries: give the check the dev queries"
    best_cosine = (pipe.embed_queries([q.text for q in english]) @ np.asarray(pipe.chunk_embeddings).T).max(axis=1)
    unanswerable = np.array([not q.evidence for q in english])
    limit = int(0.10 * (~unanswerable).sum())  # answerable English queries that may be refused
    f1, scores = {}, {}
    for t in THRESHOLDS:
        refused = best_cosine < t
        caught = int((refused & unanswerable).sum())
        p = caught / refused.sum() if refused.any() else 0.0
        scores[float(t)] = (p, int((refused & ~unanswerable).sum()), caught)
        if caught > 0 and scores[float(t)][1] <= limit:
            r = caught / unanswerable.sum()
            f1[float(t)] = 2 * p * r / (p + r)
    best = max(f1.values())
    chosen = min(t for t, value in f1.items() if value == best)  # a tie keeps the lower threshold
    assert any(abs(threshold - t) < 1e-9 for t in scores), "threshold is not one of the swept `thresholds`"
    at = scores[min(scores, key=lambda t: abs(t - threshold))]
    assert at[1] <= limit, "this threshold refuses more answerable English queries than the limit allows"
    assert at[2] > 0, "this threshold refuses no unanswerable English query"
    assert abs(threshold - chosen) < 1e-9, \
        "another threshold within the limit has a higher refusal F1 on the English dev queries, or the same F1 " \
        "at a lower threshold"
    assert 0 <= precision <= 1, "precision is not a share between 0 and 1"
    assert abs(precision - scores[chosen][0]) < 1e-9, \
        "precision is not the refusal precision of this threshold on the English dev queries"
    return "right"


def embedding_like(n, centres, rng, spread=0.6):
    """Section 8's generator: `n` unit vectors, each a random centre plus Gaussian noise of length ~`spread`."""
    topics = rng.integers(0, len(centres), size=n)
    noise = rng.normal(size=(n, centres.shape[1])) * spread / np.sqrt(centres.shape[1])
    vectors = centres[topics] + noise
    return (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).astype(np.float32)


def generated():
    """The 4,000 generated vectors and 100 queries of 03_vector_search_at_scale, section 1 (seed 0), and 1,000 fresh queries (seed 1)."""
    rng = np.random.default_rng(0)
    centres = rng.normal(size=(300, 384))
    centres /= np.linalg.norm(centres, axis=1, keepdims=True)
    vectors = embedding_like(4000, centres, rng)
    queries = embedding_like(100, centres, rng)
    return vectors, queries, embedding_like(1000, centres, np.random.default_rng(1))


def recall_at_10(collection, queries, vectors):
    """Mean share of each query's exact top 10 (the 10 largest cosines, in any order) that `collection` returns."""
    exact = np.argpartition(-(queries @ vectors.T), 10, axis=1)[:, :10]
    found = collection.query(query_embeddings=queries, n_results=10, include=[])["ids"]
    return float(np.mean([len({int(i) for i in f} & set(e.tolist())) / 10 for f, e in zip(found, exact, strict=True)]))


def reference_recall(vectors, queries):
    """recall@10 on `queries` of an index built here with M = 4 and ef_search = 20, in memory, then dropped."""
    import chromadb
    from chromadb.config import Settings

    client = chromadb.EphemeralClient(settings=Settings(anonymized_telemetry=False))
    name = f"check-ef20-{uuid.uuid4().hex}"
    hnsw = {"space": "cosine", "max_neighbors": 4, "ef_construction": 100, "ef_search": 20}
    collection = client.create_collection(name, embedding_function=None, configuration={"hnsw": hnsw})
    try:
        for start in range(0, len(vectors), 5000):
            collection.add(ids=[str(i) for i in range(start, min(start + 5000, len(vectors)))],
                           embeddings=vectors[start:start + 5000])
        return recall_at_10(collection, queries, vectors)
    finally:
        client.delete_collection(name)


def check_ef20(collection, recall):
    """03_vector_search_at_scale, exercise 1: a collection of the generated vectors with M = 4 and ef_search = 20, and its recall@10."""
    hnsw = collection.configuration["hnsw"]
    assert (hnsw["max_neighbors"], hnsw["ef_search"]) == (4, 20), \
        "the collection's configuration does not say M = 4 and ef_search = 20"
    vectors, queries, fresh = generated()
    assert collection.count() == len(vectors), "the collection does not hold the 4,000 generated vectors"
    sample = collection.get(ids=["0", "1234", "3999"], include=["embeddings"])
    stored = dict(zip(sample["ids"], sample["embeddings"], strict=True))
    assert all(key in stored and np.allclose(stored[key], vectors[int(key)], atol=1e-6) for key in ("0", "1234", "3999")), \
        "the collection does not hold the generated vectors of section 1 (vector search at scale) under their row numbers"
    assert 0 <= recall <= 1, "recall is not a share between 0 and 1"
    assert abs(recall - recall_at_10(collection, queries, vectors)) < 1e-9, \
        "recall is not this collection's recall@10 against exact search on the 100 generated queries"
    # on 1,000 fresh queries, 15 builds with ef_search = 20 spread over 0.035, and ef_search = 10 searches about
    # 0.15 lower
    assert abs(recall_at_10(collection, fresh, vectors) - reference_recall(vectors, fresh)) < 0.06, \
        "the configuration says ef_search = 20, but the loaded index does not search like one built with it"
    return "right"
