"""The vectors shipped in data/vectors/: current for the course data, equal to the model's, never served for
another text, and switched off by RAGKIT_VECTORS=none."""

import os

import numpy as np
import pytest

from ragkit.cache import shipped_vectors_dir
from ragkit.embed.model import MODEL_NAME, Encoder, load_model
from ragkit.embed.vector_cache import EmbeddingCache, pack_cache, text_key
from ragkit.errors import RagkitError


@pytest.fixture(scope="module")
def pack(root):
    folder = root / "data" / "vectors"
    if "RAGKIT_VECTORS" not in os.environ:  # set: a deliberately cold run, or packs kept elsewhere
        assert shipped_vectors_dir() == folder, "a source checkout reads the packs in data/vectors/"
    return EmbeddingCache(root / "no-cache-here", MODEL_NAME, shipped=folder)


@pytest.fixture(scope="module")
def course_texts(course_docs, course_queries):
    from ragkit.pipeline import Pipeline

    pipe = Pipeline(course_docs)
    return [*pipe.indexed_texts, *(q.text for q in course_queries)]


def test_the_pack_holds_the_default_chunks_and_every_query(pack, course_texts):
    missing = pack.lookup(course_texts)[1]
    assert not missing, (f"{len(missing)} of {len(course_texts)} course texts have no shipped vector (first: "
                         f"{course_texts[missing[0]][:60]!r}): the corpus or a chunker changed; run `make clean-cache`,"
                         " `make test`, then `python -m ragkit data pack-vectors` (data/vectors/README.md)")


def test_shipped_vectors_equal_sentence_transformers(pack, course_texts):
    rng = np.random.default_rng(7)
    sample = [course_texts[i] for i in sorted(rng.choice(len(course_texts), size=24, replace=False))]
    sample.append(next(t for t in course_texts if any("\u4e00" <= ch <= "\u9fff" for ch in t)))  # one Chinese
    shipped = np.stack(pack.lookup(sample)[0])
    fresh = load_model().encode(sample, batch_size=8, normalize_embeddings=True)
    difference = np.abs(shipped - fresh).max()
    assert difference <= 1e-5, f"shipped vectors differ from sentence-transformers by {difference:.1e}"


@pytest.mark.parametrize("name", ["use-m3", "e5-small"])
def test_multilingual_packs_hold_the_course_cranfield_and_nq_and_equal_their_packages(root, course_texts, name):
    from ragkit.embed.encoders import ENCODERS, load_embed_function
    from ragkit.evaluate.beir import load_beir
    from ragkit.evaluate.nq_retrieval import load_nq_retrieval

    spec = ENCODERS[name]
    pack = EmbeddingCache(root / "no-cache-here", spec.model_name, shipped=root / "data" / "vectors")
    cranfield, nq = load_beir(root / "data" / "cranfield"), load_nq_retrieval(root / "data" / "nq-open")
    passages = [*course_texts[:-368], *(d.text for d in cranfield[0]), *(d.text for d in nq[0])]
    queries = [*course_texts[-368:], *(q.text for q in cranfield[1]), *(q.text for q in nq[1])]
    keyed = [spec.passage_prefix + t for t in passages] + [spec.query_prefix + t for t in queries]
    missing = pack.lookup(keyed)[1]
    assert not missing, f"{len(missing)} texts lack a shipped {name} vector (data/vectors/README.md)"
    rng = np.random.default_rng(7)
    picks = sorted(rng.choice(len(passages), size=6, replace=False))
    sample = [passages[i] for i in picks] + [queries[0]]
    shipped = np.stack(pack.lookup([keyed[i] for i in picks] + [keyed[len(passages)]])[0])
    embed = load_embed_function(name)
    fresh = np.concatenate([embed(sample[:-1], False), embed(sample[-1:], True)])
    assert np.abs(shipped - fresh).max() <= 1e-5, f"shipped {name} vectors differ from the package's"


def test_numpy_pooling_packs_equal_sentence_transformers_mean(root, course_docs):
    from ragkit.pipeline import Pipeline

    texts = [c.text for c in Pipeline(course_docs).chunks[::97]]
    packs = {p: EmbeddingCache(root / "no-cache-here", f"numpy-{MODEL_NAME}-{p}", shipped=root / "data" / "vectors")
             for p in ("cls", "mean", "max")}
    assert all(not cache.lookup(texts)[1] for cache in packs.values()), "notebook 02's chunks are shipped"
    mean = np.stack(packs["mean"].lookup(texts)[0])
    assert np.abs(mean - load_model().encode(texts, normalize_embeddings=True)).max() <= 1e-5
    cls, top = (np.stack(packs[p].lookup(texts)[0]) for p in ("cls", "max"))
    assert np.abs(cls - mean).max() > 0.05 and np.abs(top - mean).max() > 0.05, "three different poolings"


def test_a_pack_serves_only_its_exact_texts_and_can_be_turned_off(tmp_path, monkeypatch):
    cache_folder, out = tmp_path / "cache", tmp_path / "packs"
    EmbeddingCache(cache_folder, "toy").save(["a key"], np.ones((1, 3), dtype=np.float32))
    assert pack_cache(cache_folder, "toy", out) == 1
    served = EmbeddingCache(tmp_path / "empty", "toy", shipped=out)
    assert served.lookup(["a key", "a key ", "A key"])[1] == [1, 2], "only the exact text is served"
    assert text_key("toy", "a key") in served.vectors
    (out / "toy.npz").write_bytes(b"damaged")
    assert EmbeddingCache(tmp_path / "empty", "toy", shipped=out).lookup(["a key"])[1] == [0], "ignored, not fatal"
    monkeypatch.setenv("RAGKIT_VECTORS", "none")
    assert shipped_vectors_dir() is None
    monkeypatch.setenv("RAGKIT_CACHE", str(tmp_path / "cold"))
    assert Encoder().cache.vectors == {}, "RAGKIT_VECTORS=none: a truly cold cache"
    with pytest.raises(RagkitError, match="nothing cached for toy"):
        pack_cache(tmp_path / "empty", "toy", out)


def test_pack_vectors_on_an_empty_cache_exits_with_one_line(tmp_path, monkeypatch, capsys):
    from ragkit.cli import main

    monkeypatch.setenv("RAGKIT_CACHE", str(tmp_path / "empty"))
    assert main(["data", "pack-vectors", "--data", str(tmp_path)]) == 2
    error = capsys.readouterr().err
    assert error.startswith("error: nothing cached for all-MiniLM-L6-v2") and "Traceback" not in error
    assert not (tmp_path / "vectors").exists(), "nothing written"


def test_re_packing_keeps_the_shipped_vectors_and_writes_nothing_when_a_model_is_missing(tmp_path):
    from ragkit.embed.model import MODEL_NAME, PACKED_MODELS, pack_vectors

    cache, out = tmp_path / "cache", tmp_path / "vectors"
    EmbeddingCache(tmp_path / "first", MODEL_NAME).save(["shipped text"], np.ones((1, 384), dtype=np.float32))
    pack_cache(tmp_path / "first", MODEL_NAME, out)
    EmbeddingCache(cache, MODEL_NAME).save(["new text"], np.zeros((1, 384), dtype=np.float32))
    before = (out / f"{MODEL_NAME}.npz").read_bytes()
    with pytest.raises(RagkitError, match="nothing cached for use-multilingual-v3"):  # the first model lacking vectors
        pack_vectors(out, cache)
    assert (out / f"{MODEL_NAME}.npz").read_bytes() == before, "a refused re-pack leaves the packs as they were"
    for name in PACKED_MODELS[1:]:
        EmbeddingCache(cache, name).save(["new text"], np.zeros((1, 384), dtype=np.float32))
    assert pack_vectors(out, cache)[MODEL_NAME] == 2, "the shipped vector stays beside the new one"
    assert pack_vectors(out, cache, keep=False)[MODEL_NAME] == 1, "keep=False packs the cache alone"


def test_pair_packs_hold_notebook_09b_pairs_and_equal_the_model(root, course_docs, course_queries, tmp_path):
    # notebook 09b reads each dev and test query's hybrid top 15 as pairs; computing them takes minutes cold
    from ragkit.embed.pairs import PairEncoder
    from ragkit.pipeline import Pipeline
    from ragkit.reranking import candidates

    pipe = Pipeline(course_docs, method="hybrid")
    dev = [q for q in course_queries if q.split == "dev"][:2]
    rows = candidates(pipe, [q.text for q in dev], 20)[0]
    pairs = [(q.text, pipe.indexed_texts[i]) for q, row in zip(dev, rows, strict=True) for i in row[:2]]
    keys = [f"{query}\0{passage}" for query, passage in pairs]
    fresh = PairEncoder(cache_folder=tmp_path).pooled(pairs)
    for pooling in ("mean", "pooler"):
        pack = EmbeddingCache(root / "no-cache-here", f"pairs-{MODEL_NAME}-{pooling}-256",
                              shipped=root / "data" / "vectors")
        found, missing = pack.lookup(keys)
        assert not missing, f"{len(missing)} of notebook 09b's pairs are not shipped ({pooling})"
        assert np.abs(np.stack(found) - fresh[pooling]).max() <= 1e-4, f"shipped {pooling} pairs differ"
