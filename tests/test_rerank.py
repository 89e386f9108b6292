"""The rerank stage: MaxSim against a literal loop and sentence-transformers' token vectors, learning to rank (its
pairs against a literal loop, its fits against the loss written out), LLM judgments replayed from their
recordings, the course model reading a query and a passage as one input (against transformers' Python tokenizer
and a numpy forward pass), the cross-encoder plumbing on a tiny random model, rewrite then refuse, and clear
errors on bad input."""

import json

import numpy as np
import pytest

from ragkit.cli import main
from ragkit.corpus import Document
from ragkit.errors import RagkitError
from ragkit.llm.client import load_recordings
from ragkit.llm.prompts import prompt_key, rerank_prompt, rewrite_prompt
from ragkit.pipeline import Pipeline
from ragkit.rank.cross_encoder import cross_encoder_scores, load_cross_encoder
from ragkit.rank.features import FEATURES, identifiers
from ragkit.rank.llm_rerank import parse_score, rewritten_query
from ragkit.rank.ltr import fit_ranker, pairwise_differences
from ragkit.rank.maxsim import maxsim, maxsim_scores


def literal_maxsim(query, chunk):
    """ColBERT's MaxSim written as the loops of its definition, divided by the query's length."""
    total = 0.0
    for q in query:
        total += max(sum(float(a) * float(b) for a, b in zip(q, d, strict=True)) for d in chunk)
    return total / len(query)


def test_maxsim_equals_the_literal_loop():
    rng = np.random.default_rng(0)
    unit = lambda n: (v := rng.normal(size=(n, 8))) / np.linalg.norm(v, axis=1, keepdims=True)  # noqa: E731
    query, chunks = unit(4), [unit(n) for n in (3, 7, 1)]
    loops = [literal_maxsim(query, chunk) for chunk in chunks]
    np.testing.assert_allclose(maxsim_scores(query, chunks), loops, atol=1e-6)
    np.testing.assert_allclose([maxsim(query, chunk) for chunk in chunks], loops, atol=1e-6)


def test_maxsim_is_not_the_mean_of_all_similarities():
    query, chunk = np.array([[1.0, 0.0]]), np.array([[1.0, 0.0], [0.0, 1.0]])
    assert maxsim(query, chunk) == 1.0 and float((query @ chunk.T).mean()) == 0.5


def test_token_vectors_equal_sentence_transformers_token_embeddings(encoder):
    from ragkit.embed.numpy_encoder import NumpyEncoder

    texts = ["How do I revoke an API key?", "年假可以结转到明年吗"]
    ours = NumpyEncoder().token_vectors(texts)
    theirs = encoder.model.encode(texts, output_value="token_embeddings")
    for mine, reference in zip(ours, theirs, strict=True):
        reference = reference.numpy() / np.linalg.norm(reference.numpy(), axis=1, keepdims=True)
        assert mine.shape == reference.shape
        np.testing.assert_allclose(mine.astype(np.float32), reference, atol=2e-3)  # float16 storage


def test_maxsim_errors_on_empty_sides():
    with pytest.raises(RagkitError, match="at least one token vector"):
        maxsim(np.zeros((0, 2)), np.ones((1, 2)))


def test_pairwise_differences_by_hand():
    x = np.array([[3.0, 1.0], [1.0, 1.0], [0.0, 2.0], [9.0, 9.0]])
    diffs = pairwise_differences(x, np.array([1, 0, 0, 1]), np.array([0, 0, 0, 1]))
    assert diffs.tolist() == [[2.0, 0.0], [3.0, -1.0]], "query 1 has no non-relevant candidate: no pair"


@pytest.mark.parametrize("objective", ["pointwise", "pairwise"])
def test_ltr_learns_the_informative_feature(objective):
    rng = np.random.default_rng(1)
    groups = np.repeat(np.arange(40), 10)
    noise, signal = rng.normal(size=400), rng.normal(size=400)
    labels = (signal + 0.3 * rng.normal(size=400) > 1).astype(int)
    ranker = fit_ranker(np.c_[noise, signal], labels, groups, ["noise", "signal"], objective)
    assert list(ranker.importances())[0] == "signal"
    assert abs(ranker.importances()["signal"]) > 3 * abs(ranker.importances()["noise"])
    if objective == "pointwise":
        assert ((ranker.scores(np.c_[noise, signal]) >= 0) & (ranker.scores(np.c_[noise, signal]) <= 1)).all()


def test_pairwise_differences_equal_a_loop_over_pairs_within_each_query():
    rng = np.random.default_rng(2)
    x, labels, groups = rng.normal(size=(30, 3)), rng.integers(0, 2, 30), rng.permutation(np.repeat([4, 1, 7], 10))
    pairs = [x[i] - x[j] for g in (1, 4, 7) for i in range(30) for j in range(30)
             if groups[i] == g == groups[j] and labels[i] and not labels[j]]
    np.testing.assert_allclose(pairwise_differences(x, labels, groups), np.array(pairs), atol=1e-12)


@pytest.mark.parametrize("objective", ["pointwise", "pairwise"])
def test_ltr_fits_reach_the_minimum_of_the_loss_written_out(objective):
    from scipy.optimize import minimize
    from scipy.special import expit

    rng = np.random.default_rng(3)
    groups = np.repeat(np.arange(30), 8)
    x = rng.normal(size=(240, 3)) * [1.0, 3.0, 0.5] + [0.0, 2.0, -1.0]
    labels = (x @ [1.0, 0.5, -2.0] + rng.normal(size=240) > 1).astype(int)
    ranker = fit_ranker(x, labels, groups, ["a", "b", "c"], objective)
    standard = (x - x.mean(axis=0)) / x.std(axis=0)
    if objective == "pointwise":  # ½‖w‖² + Σ log(1 + exp(−s (w · x + b))), the intercept not penalised
        signs = np.where(labels > 0, 1.0, -1.0)

        def loss(p):
            margins = signs * (standard @ p[:-1] + p[-1])
            slope = -signs * expit(-margins)
            return 0.5 * p[:-1] @ p[:-1] + np.logaddexp(0, -margins).sum(), np.r_[p[:-1] + standard.T @ slope, slope.sum()]

        fitted, start = np.r_[ranker.weights, ranker.bias], np.zeros(4)
    else:  # RankNet over the pairs within each query, Σ log(1 + exp(−w · d)), plus ¼‖w‖²
        pairs = np.array([standard[i] - standard[j] for i in range(240) for j in range(240)
                          if groups[i] == groups[j] and labels[i] and not labels[j]])

        def loss(w):
            margins = pairs @ w
            return 0.25 * w @ w + np.logaddexp(0, -margins).sum(), 0.5 * w - pairs.T @ expit(-margins)

        fitted, start = ranker.weights, np.zeros(3)
    best = minimize(loss, start, jac=True, method="L-BFGS-B", options={"gtol": 1e-10, "ftol": 1e-15}).x
    np.testing.assert_allclose(fitted, best, atol=5e-3)
    assert loss(fitted)[0] <= loss(best)[0] * (1 + 1e-5)


def test_ltr_needs_both_labels_and_a_known_objective():
    with pytest.raises(RagkitError, match="both relevant and non-relevant"):
        fit_ranker(np.ones((3, 1)), [0, 0, 0], [0, 0, 0], ["x"])
    with pytest.raises(RagkitError, match="unknown learning-to-rank objective"):
        fit_ranker(np.ones((2, 1)), [0, 1], [0, 0], ["x"], "listwise")


def test_identifiers_and_scores_parse():
    assert identifiers("is TS-203 still returned by /v2/sessions in 5.3?") == ["ts-203", "/v2/sessions", "5.3"]
    assert identifiers("how do refunds work") == []
    assert identifiers("ended session: how fast do tokens die. see /v2/sessions.") == ["/v2/sessions"], \
        "a word that ends a clause with : or . is no identifier"
    assert parse_score("8") == 8.0 and parse_score("**10**") == 10.0
    for bad in ("eleven", "11", "-1", ""):
        with pytest.raises(RagkitError, match="score from 0 to 10"):
            parse_score(bad)


class Scripted:
    """A language model that answers from a dict of prompt fragments (first match wins) and logs its prompts."""

    def __init__(self, answers):
        self.answers, self.prompts = answers, []

    def complete(self, prompt, purpose="a response"):
        self.prompts.append(prompt)
        return next(answer for fragment, answer in self.answers.items() if fragment in prompt)


DOCS = [Document("keys", "API keys", "api", "2025-01-01", "en", "Rotate API keys every 90 days in the console."),
        Document("leave", "Annual leave", "hr", "2025-01-01", "en", "Annual leave is 25 days; five carry over."),
        Document("quota", "Quotas", "api", "2025-01-01", "en", "TS-203 means the daily quota is used up.")]


def tiny_pipeline(model, **changes):
    return Pipeline(DOCS, method="bm25", chunk_size=None, language_model=model, **changes)


def test_llm_rerank_orders_by_the_models_scores():
    model = Scripted({"Annual leave": "9", "Quotas": "4", "API keys": "1"})
    pipe = tiny_pipeline(model, rerank="llm", rerank_depth=3)
    found = pipe.search("rotate keys", k=3)
    assert [chunk.doc_id for chunk, _ in found] == ["leave", "quota", "keys"]
    assert [score for _, score in found] == [9.0, 4.0, 1.0]
    assert all("Query: rotate keys" in prompt for prompt in model.prompts)
    assert pipe.using(rerank="none").search("rotate keys", k=1)[0][0].doc_id == "keys", "first stage unchanged"


def test_a_slider_move_asks_the_model_only_about_new_pairs():
    model = Scripted({"Annual leave": "9", "Quotas": "4", "API keys": "1"})
    pipe = tiny_pipeline(model, rerank="llm", rerank_depth=2)
    first = [c.doc_id for c in pipe.rankings(["rotate keys"], 3)[0]]
    assert len(model.prompts) == 2
    pipe.configure(k1=0.9)  # new first-stage scores, the same two candidates: nothing new to ask
    assert [c.doc_id for c in pipe.rankings(["rotate keys"], 3)[0]] == first and len(model.prompts) == 2
    pipe.configure(rerank_depth=3)  # one new candidate: one new prompt
    pipe.rankings(["rotate keys"], 3)
    assert len(model.prompts) == 3
    other = tiny_pipeline(Scripted({"": "5"}), rerank="llm", rerank_depth=3)
    other.cache = pipe.cache  # the same cache, another model: its own scores, not the first model's
    assert [score for _, score in other.search("rotate keys", k=3)] == [5.0, 5.0, 5.0]


def test_maxsim_scores_a_query_again_only_when_it_has_new_candidates(monkeypatch):
    import ragkit.reranking as reranking

    calls, real = [], reranking.maxsim_scores
    monkeypatch.setattr(reranking, "maxsim_scores", lambda q, chunks: calls.append(len(chunks)) or real(q, chunks))
    pipe = tiny_pipeline(Scripted({}), rerank="maxsim", rerank_depth=2)
    first = pipe.search("rotate keys", k=3)
    assert calls == [2]
    pipe.configure(k1=0.9)  # the same two candidates: read back
    assert pipe.search("rotate keys", k=3) == first and calls == [2]
    pipe.configure(rerank_depth=3)  # a new candidate: the query is scored again, its old pairs keep their values
    again = dict((chunk.doc_id, score) for chunk, score in pipe.search("rotate keys", k=3))
    assert calls == [2, 3] and all(again[chunk.doc_id] == score for chunk, score in first[:2])


def test_long_query_lists_keep_their_token_vectors_on_disk_and_a_few_queries_do_not(monkeypatch, tmp_path):
    import ragkit.reranking as reranking

    monkeypatch.setenv("RAGKIT_CACHE", str(tmp_path))
    pipe, encoded = tiny_pipeline(Scripted({}), rerank="maxsim"), []
    encoder = reranking.numpy_encoder(pipe)
    real = encoder.token_vectors
    monkeypatch.setattr(encoder, "token_vectors", lambda texts: encoded.append(len(texts)) or real(texts))
    few = ["rotate keys", "revoke a token"]
    many = [f"question number {n} about keys" for n in range(reranking.ON_DISK_FROM)]
    reranking.query_token_vectors(pipe, few)
    assert not (tmp_path / "token-vectors").exists(), "a few queries (one typed, one timed) are not written"
    first = reranking.query_token_vectors(pipe, many)
    again = reranking.query_token_vectors(pipe, many)  # another run asking for the same list: read back
    assert encoded == [2, len(many)] and all(np.array_equal(a, b) for a, b in zip(first, again, strict=True))
    assert len(list((tmp_path / "token-vectors").glob("*.npz"))) == 1


def test_maxsim_over_a_long_query_list_reads_its_token_vectors_back_from_disk(monkeypatch, tmp_path):
    import ragkit.reranking as reranking

    monkeypatch.setenv("RAGKIT_CACHE", str(tmp_path))
    queries = [f"how often do I rotate key number {n}" for n in range(reranking.ON_DISK_FROM)]
    rows = [np.arange(len(DOCS))] * len(queries)
    first = reranking.maxsim_for(tiny_pipeline(Scripted({}), rerank="maxsim"), queries, rows)
    again_pipe = tiny_pipeline(Scripted({}), rerank="maxsim")  # a new run: nothing in memory
    monkeypatch.setattr(reranking.numpy_encoder(again_pipe), "token_vectors", lambda texts: 1 / 0)
    again = reranking.maxsim_for(again_pipe, queries, rows)  # chunks and queries alike: read back from disk
    assert all(np.array_equal(a, b) for a, b in zip(first, again, strict=True))


def test_ltr_features_parse_a_querys_filters_once_for_all_its_candidates(monkeypatch):
    import ragkit.rank.features as features

    calls, real = [], features.parse_filters
    monkeypatch.setattr(features, "parse_filters", lambda text, docs: calls.append(text) or real(text, docs))
    chunks = tiny_pipeline(Scripted({})).chunks
    scores = np.zeros(len(chunks))
    matrix = features.feature_matrix("keys in 2025", chunks, DOCS, scores, scores, scores)
    assert calls == ["keys in 2025"] and matrix.shape == (len(chunks), len(FEATURES))
    one_by_one = [features.pair_features("keys in 2025", chunk, DOCS) for chunk in chunks]
    assert matrix[:, FEATURES.index("filter_match")].tolist() == [row["filter_match"] for row in one_by_one]


def test_token_vectors_that_cannot_be_written_are_still_returned_with_a_warning(tmp_path):
    from ragkit.embed.token_cache import cached_token_vectors

    (tmp_path / "token-vectors").write_text("a file where the folder should be")
    with pytest.warns(UserWarning, match="not kept in"):
        vectors = cached_token_vectors(lambda texts: [np.ones((2, 3), np.float16)] * len(texts), ["a", "b"],
                                       tmp_path, "m")
    assert [v.shape for v in vectors] == [(2, 3), (2, 3)]


def test_rerank_depth_keeps_the_tail_in_first_stage_order():
    model = Scripted({"API keys": "0", "": "5"})
    pipe = tiny_pipeline(model, rerank="llm", rerank_depth=1)
    assert [c.doc_id for c in pipe.rankings(["rotate keys every 90 days"], 3)[0]][0] == "keys"
    assert len(model.prompts) == 1, "only the head of rerank_depth candidates is sent to the model"


def test_rewrite_then_refuse_judges_the_new_candidates_against_the_original_query():
    model = Scripted({"found nothing relevant": "TS-203 daily quota", "Quotas": "8", "": "1"})
    pipe = tiny_pipeline(model, rerank="llm", rerank_depth=1, threshold=5.0)
    assert pipe.search("how often to rotate keys", k=1) == [], "under the threshold and no rewrite: refused"
    found = pipe.using(rewrite="llm").retrieve(["how often to rotate keys"], 1)
    assert found.rewrites == ("TS-203 daily quota",) and not found.refused[0]
    assert found.top_scores[0] == 8.0
    judged = [p for p in model.prompts if "Quotas" in p]
    assert judged and all("Query: how often to rotate keys" in p for p in judged), "judged on the original query"
    still = tiny_pipeline(Scripted({"found nothing relevant": "holidays", "": "1"}), rerank="llm", rerank_depth=1,
                          threshold=5.0, rewrite="llm")
    assert still.retrieve(["how often to rotate keys"], 1).refused[0], "still under after the rewrite: refused"


def test_rewritten_query_takes_the_first_line_without_labels():
    assert rewritten_query(Scripted({"": "\n  Rewritten query: 'annual leave carry over'\nwhy: ..."}), "x") == \
        "annual leave carry over"
    with pytest.raises(RagkitError, match="empty rewrite"):
        rewritten_query(Scripted({"": "  \n"}), "x")


def test_threshold_range_follows_the_reranker():
    pipe = tiny_pipeline(Scripted({"": "1"}))
    with pytest.raises(RagkitError, match="rerank='llm' scores lie between 0 and 10"):
        pipe.configure(rerank="llm", threshold=11)
    with pytest.raises(RagkitError, match="rerank='maxsim' scores lie between -1 and 1"):
        pipe.configure(rerank="maxsim", threshold=2)
    with pytest.raises(RagkitError, match="rerank"):
        pipe.configure(rerank="colbert")
    assert pipe.config.rerank == "none", "a rejected change leaves the config as it was"
    assert pipe.configure(rerank="llm", threshold=4).config.threshold == 4.0


def test_ltr_without_training_and_cross_encoder_without_a_model_are_clear_errors():
    with pytest.raises(RagkitError, match="needs a trained ranker"):
        tiny_pipeline(Scripted({})).configure(rerank="ltr").search("keys", 2)
    with pytest.raises(RagkitError, match="needs rerank_model"):
        tiny_pipeline(Scripted({})).configure(rerank="cross-encoder").search("keys", 2)
    with pytest.raises(RagkitError, match="has none"):
        load_cross_encoder("/nonexistent/cross-encoder")


def test_recorded_judgments_replay_offline(course_docs, course_queries):
    recordings = load_recordings()
    pipe = Pipeline(course_docs, method="hybrid", rerank="llm")
    query = next(q for q in course_queries if q.query_id == "api-001")
    found = pipe.search(query.text, k=3)
    chunk = found[0][0]
    recorded = recordings[prompt_key(rerank_prompt(query.text, chunk.title, chunk.text))]
    assert found[0][1] == float(recorded) and found[0][1] >= found[1][1] >= found[2][1]
    rewrites = [json.loads(line) for line in open("data/llm/query-rewrites.jsonl", encoding="utf-8")]
    texts = {q.query_id: q.text for q in course_queries}
    assert all(r["key"] == prompt_key(rewrite_prompt(texts[r["query"]])) for r in rewrites)


def test_ltr_on_the_course_data_uses_the_features_it_names(course_docs, course_queries):
    dev = [q for q in course_queries if q.split == "dev" and q.evidence]
    pipe = Pipeline(course_docs, method="hybrid", rerank="ltr").train_ranker(dev)
    assert set(pipe.ranker.importances()) == set(FEATURES)
    assert len(pipe.search("TS-203 meaning", k=5)) == 5


@pytest.fixture(scope="module")
def pair_encoder(tmp_path_factory):
    from ragkit.embed.pairs import PairEncoder

    return PairEncoder(cache_folder=tmp_path_factory.mktemp("pair-cache"))


PAIRS = [("TS-203 meaning", "TS-203 means the daily quota is used up; it resets at midnight UTC."),
         ("年假可以结转吗", "年假：每年15天，最多可结转5天到下一年。"),
         ("how long is the pip", " ".join(["A performance improvement plan lasts sixty days."] * 60))]


def test_pair_ids_equal_transformers_python_tokenizer(pair_encoder):
    from transformers import BertTokenizer

    from ragkit.embed.model import model_path

    reference = BertTokenizer(str(model_path() / "vocab.txt"))  # WordPiece in Python, from the vocabulary alone
    for query, passage in PAIRS:
        theirs = reference(query, passage, truncation="longest_first", max_length=256)
        assert pair_encoder.pair_ids(query, passage) == (theirs["input_ids"], theirs["token_type_ids"])
    ids, types = pair_encoder.pair_ids(*PAIRS[2])
    assert len(ids) == 256 and ids[-1] == 102 and types.count(0) == len(pair_encoder.pair_ids(PAIRS[2][0], "x")[0]) - 2


def test_pair_features_equal_a_numpy_forward_pass_with_token_types(pair_encoder):
    from ragkit.embed.layers import encoder_layer, layer_norm, load_config, load_weights

    weights, config = load_weights(), load_config()
    pooled = pair_encoder.pooled(PAIRS[:2])
    for n, pair in enumerate(PAIRS[:2]):
        ids, types = (np.array(v) for v in pair_encoder.pair_ids(*pair))
        e = "embeddings."
        x = (weights[e + "word_embeddings.weight"][ids] + weights[e + "position_embeddings.weight"][:len(ids)]
             + weights[e + "token_type_embeddings.weight"][types])
        states = layer_norm(x, weights[e + "LayerNorm.weight"], weights[e + "LayerNorm.bias"], 1e-12)[None]
        for layer in range(6):
            states = encoder_layer(states, np.ones((1, len(ids))), weights, layer, config)[0]
        mean = states[0].mean(axis=0)
        np.testing.assert_allclose(pooled["mean"][n], mean / np.linalg.norm(mean), atol=1e-4)
        pooler = np.tanh(weights["pooler.dense.weight"] @ states[0, 0] + weights["pooler.dense.bias"])
        np.testing.assert_allclose(pooled["pooler"][n], pooler, atol=1e-4)


def test_pair_features_are_cached_by_pair_and_pooling(pair_encoder):
    first = pair_encoder.features(PAIRS[:2], "mean")
    computed = pair_encoder.computed
    again = pair_encoder.features(PAIRS[1::-1], "mean")  # the same pairs, the other way round: read back
    assert pair_encoder.computed == computed
    np.testing.assert_array_equal(again, first[::-1])
    assert pair_encoder.features(PAIRS[:1], "pooler").shape == (1, 384) and pair_encoder.computed == computed, \
        "one forward pass cached both poolings"
    swapped = pair_encoder.features([PAIRS[0][::-1]], "mean")  # query and passage swapped: another pair
    assert pair_encoder.computed == computed + 1 and not np.allclose(swapped[0], first[0], atol=1e-3)


def test_pair_encoder_errors_are_clear(pair_encoder):
    from ragkit.embed.pairs import PairEncoder

    with pytest.raises(RagkitError, match="pair 1 needs a query and a passage"):
        pair_encoder.features([PAIRS[0], ("only a query",)])
    with pytest.raises(RagkitError, match="pair 0 needs a query and a passage"):
        pair_encoder.pair_ids("", "a passage")
    with pytest.raises(RagkitError, match="unknown pooling 'cls'"):
        pair_encoder.features(PAIRS[:1], "cls")
    with pytest.raises(RagkitError, match="max_length"):
        PairEncoder(max_length=4)
    assert pair_encoder.features([], "mean").shape == (0, 384)


@pytest.fixture(scope="module")
def tiny_cross_encoder(tmp_path_factory):
    """A randomly initialised two-layer BERT cross-encoder with the course model's vocabulary."""
    import torch
    from transformers import AutoTokenizer, BertConfig, BertForSequenceClassification

    from ragkit.embed.model import model_path

    torch.manual_seed(0)
    folder = tmp_path_factory.mktemp("cross-encoder")
    config = BertConfig(vocab_size=30522, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=64, num_labels=1, max_position_embeddings=512)
    BertForSequenceClassification(config).eval().save_pretrained(folder)
    AutoTokenizer.from_pretrained(str(model_path())).save_pretrained(folder)
    return folder


def test_cross_encoder_scores_are_the_models_logits(tiny_cross_encoder):
    import torch
    from transformers import AutoTokenizer, BertForSequenceClassification

    model = load_cross_encoder(tiny_cross_encoder)
    passages = ["Rotate API keys every 90 days.", "Annual leave is 25 days."]
    ours = cross_encoder_scores(model, "how often to rotate keys", passages)
    tokenizer = AutoTokenizer.from_pretrained(str(tiny_cross_encoder))
    reference = BertForSequenceClassification.from_pretrained(str(tiny_cross_encoder)).eval()
    batch = tokenizer(["how often to rotate keys"] * 2, passages, padding=True, return_tensors="pt")
    with torch.no_grad():
        logits = reference(**batch).logits[:, 0].numpy()
    np.testing.assert_allclose(ours, logits, atol=1e-5)
    assert ours[0] != ours[1]


def test_cross_encoder_reranks_through_the_pipeline(tiny_cross_encoder):
    pipe = tiny_pipeline(Scripted({}), rerank="cross-encoder", rerank_model=str(tiny_cross_encoder), rerank_depth=3)
    found = pipe.search("rotate keys", k=3)
    scores = [score for _, score in found]
    assert scores == sorted(scores, reverse=True) and len(set(scores)) == 3


def test_eval_reranks_on_a_beir_folder(root, tmp_path, capsys, tiny_cross_encoder):
    import shutil

    data = tmp_path / "beir"
    shutil.copytree(root / "tests/fixtures/beir_tiny", data)
    # a train split: the test queries' own qrels under another name would hide nothing; use q1 and q2 only
    lines = (data / "qrels/test.tsv").read_text().splitlines()
    (data / "qrels/train.tsv").write_text("\n".join([lines[0], *[row for row in lines[1:] if row.split("\t")[0]
                                                                  in ("q1", "q2")]]) + "\n")
    for settings in (["--set", "rerank=maxsim"], ["--set", "rerank=ltr", "--train-split", "train"],
                     ["--set", "rerank=cross-encoder", "--set", f"rerank_model={tiny_cross_encoder}"]):
        assert main(["eval", "--data", str(data), "--method", "bm25", "--json", *settings]) == 0
        result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
        assert result["queries"] == 4 and 0 <= result["metrics"]["ndcg@10"] <= 1
    assert result["config"]["rerank"] == "cross-encoder"
    assert main(["eval", "--data", str(data), "--method", "bm25", "--set", "rerank=ltr", "--train-split", "test"]) == 2
    assert "same split" in capsys.readouterr().err


def test_eval_reports_refusal_and_rewrites_on_the_course_data(root, capsys):
    assert main(["eval", "--data", str(root / "data"), "--method", "hybrid", "--split", "test", "--json",
                 "--set", "rerank=llm", "--set", "threshold=4", "--set", "rewrite=llm"]) == 0
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    refusal = result["refusal"]
    assert refusal["unanswerable"] == 22 and refusal["rewritten"] > 0
    assert 0 < refusal["recall"] <= 1 and refusal["precision"] > 0.5
