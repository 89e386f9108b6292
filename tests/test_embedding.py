"""The model loads offline from its package, matches sentence-transformers, and the cache is used."""

import os
import sys

import numpy as np
import pytest

from ragkit.cache import cache_dir
from ragkit.embed.model import Encoder, load_model, model_path
from ragkit.embed.vector_cache import EmbeddingCache
from ragkit.errors import RagkitError


def test_model_comes_from_the_installed_package():
    path = model_path()
    assert (path / "model.safetensors").is_file() and (path / "vocab.txt").is_file()


def test_missing_model_package_says_what_to_install():
    with pytest.raises(RagkitError, match="pip install no-such-model-package"):
        model_path("no_such_model_package")


def test_loading_sets_the_hub_offline():
    model = load_model()
    assert os.environ["HF_HUB_OFFLINE"] == "1"
    vector = model.encode(["offline"], normalize_embeddings=True)
    assert vector.shape == (1, 384)


def test_encoder_equals_sentence_transformers_and_caches(tmp_path):
    texts = ["how do I revoke a token?", "Token invalidation is performed via /v2/sessions.", "年假怎么申请"]
    reference = load_model().encode(texts, normalize_embeddings=True)
    encoder = Encoder(cache_folder=tmp_path)
    first = encoder.encode(texts)
    np.testing.assert_allclose(first, reference, atol=1e-6, err_msg="encoder must equal sentence-transformers")
    np.testing.assert_allclose(np.linalg.norm(first, axis=1), 1.0, atol=1e-5)
    assert encoder.computed == 3
    again = Encoder(cache_folder=tmp_path)  # a new process would start like this
    np.testing.assert_array_equal(again.encode(texts), first)
    assert again.computed == 0, "a second run must come from the on-disk cache"
    assert again._model is None, "a fully cached run must not even load the model"
    shards = list((tmp_path / "embeddings").rglob("*.npz"))
    assert shards and all(s.suffix == ".npz" for s in shards)
    with np.load(shards[0], allow_pickle=False) as data:  # not pickle: loads with pickling disabled
        assert data["vectors"].shape[1] == 384


def test_bad_texts_are_refused(tmp_path):
    with pytest.raises(RagkitError, match="must be a string"):
        Encoder(cache_folder=tmp_path).encode(["ok", None])
    assert Encoder(cache_folder=tmp_path).encode([]).shape == (0, 384)


def test_cache_folder_moves_with_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGKIT_CACHE", str(tmp_path / "elsewhere"))
    assert cache_dir() == tmp_path / "elsewhere" and (tmp_path / "elsewhere").is_dir()


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX permissions")
def test_unwritable_cache_folder_is_explained(tmp_path, monkeypatch):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        monkeypatch.setenv("RAGKIT_CACHE", str(locked / "cache"))
        if os.geteuid() == 0:  # root ignores permissions; a file where the folder should be fails for everyone
            monkeypatch.setenv("RAGKIT_CACHE", str(tmp_path / "file"))
            (tmp_path / "file").write_text("not a folder")
        with pytest.raises(RagkitError, match="set the environment variable RAGKIT_CACHE"):
            cache_dir()
    finally:
        locked.chmod(0o700)


def test_unwritable_embedding_shard_is_explained(tmp_path):
    (tmp_path / "embeddings").write_text("a file, not a folder")
    cache = EmbeddingCache(tmp_path, "toy")
    with pytest.raises(RagkitError, match="cannot write the embedding cache"):
        cache.save(["a"], np.ones((1, 3), dtype=np.float32))


def test_damaged_shard_is_recomputed_not_fatal(tmp_path):
    folder = tmp_path / "embeddings" / "toy"
    folder.mkdir(parents=True)
    (folder / "shard-broken.npz").write_bytes(b"not a zip file")
    cache = EmbeddingCache(tmp_path, "toy")
    assert cache.lookup(["a"])[1] == [0]
