"""The numpy forward pass of all-MiniLM-L6-v2 (ragkit.embed.numpy_encoder) and pooling (ragkit.embed.pooling).

Known answers on tiny hand-computed inputs; every step against torch or transformers; the whole encoder
against sentence-transformers on course chunks and queries (max abs difference <= 1e-5); the attention
widget's callbacks; and clear errors for bad input.
"""

import math

import matplotlib
import numpy as np
import pytest
import torch

from ragkit.embed.layers import (
    gelu,
    layer_norm,
    load_config,
    load_weights,
    self_attention,
    softmax,
    token_states,
)
from ragkit.embed.numpy_encoder import NumpyEncoder, padded_batch
from ragkit.embed.pooling import cached_pooled, cls_pooling, l2_normalize, max_pooling, mean_pooling
from ragkit.errors import RagkitError
from ragkit.pipeline import Pipeline
from ragkit.widgets.attention import attention_map, attention_widget, show_attention

matplotlib.use("Agg")
TOLERANCE = 1e-5  # the course's bar for "the same embeddings" (DESIGN.md)


@pytest.fixture(scope="module")
def numpy_encoder():
    return NumpyEncoder()


@pytest.fixture(scope="module")
def reference_bert():
    """The transformers BertModel inside sentence-transformers, with eager attention so it returns weights."""
    from ragkit.embed.model import load_model

    model = load_model()
    model[0].auto_model.set_attn_implementation("eager")
    return model


@pytest.fixture(scope="module")
def sample_texts(course_docs, course_queries):
    """64 course texts: the 12 longest chunks (truncated at 256 tokens), 12 others, 40 queries (4 Chinese)."""
    chunks = sorted((chunk.text for chunk in Pipeline(course_docs).chunks), key=len)
    english, chinese = ([q.text for q in course_queries if q.lang == lang] for lang in ("en", "zh"))
    return chunks[-12:] + chunks[:-12:len(chunks) // 12][:12] + english[:36] + chinese[:4]


# --- known answers --------------------------------------------------------------------------------------

def test_layer_norm_known_answer():
    out = layer_norm(np.array([[1.0, 2.0, 3.0]]), np.array([1.0, 1.0, 2.0]), np.array([0.0, 0.0, 1.0]), 1e-12)
    z = math.sqrt(1.5)  # mean 2, biased variance 2/3: (x - 2) / sqrt(2/3)
    np.testing.assert_allclose(out, [[-z, 0.0, 2 * z + 1]], atol=1e-12, err_msg="LayerNorm by hand")


def test_gelu_is_the_exact_erf_form():
    x = np.array([-3.0, -1.0, 0.0, 0.5, 2.0])
    expected = [v * 0.5 * (1 + math.erf(v / math.sqrt(2))) for v in x]
    np.testing.assert_allclose(gelu(x), expected, atol=1e-12, err_msg="GELU must be x·Φ(x) with erf")
    tanh_form = 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))
    assert np.abs(gelu(x) - tanh_form).max() > 1e-5, "the tanh approximation is a different function"


def test_softmax_known_answer_and_no_overflow():
    np.testing.assert_allclose(softmax(np.array([[0.0, math.log(3.0)]])), [[0.25, 0.75]], atol=1e-12)
    big = softmax(np.array([[1000.0, 1000.0, -np.inf]]))
    np.testing.assert_allclose(big, [[0.5, 0.5, 0.0]], atol=1e-12, err_msg="shifted softmax must not overflow")


def test_pooling_known_answers_ignore_padding():
    states = np.array([[[1.0, 5.0], [3.0, -1.0], [100.0, 100.0]]])
    mask = np.array([[1, 1, 0]])
    np.testing.assert_array_equal(cls_pooling(states, mask), [[1.0, 5.0]])
    np.testing.assert_array_equal(mean_pooling(states, mask), [[2.0, 2.0]], err_msg="padding must not count")
    np.testing.assert_array_equal(max_pooling(states, mask), [[3.0, 5.0]], err_msg="padding must not count")
    np.testing.assert_allclose(l2_normalize(np.array([[3.0, 4.0]])), [[0.6, 0.8]], atol=1e-12)
    np.testing.assert_array_equal(l2_normalize(np.zeros((1, 2))), [[0.0, 0.0]], err_msg="zero rows stay zero")


def test_padded_batch():
    ids, mask = padded_batch([[101, 7, 102], [101, 102]])
    np.testing.assert_array_equal(ids, [[101, 7, 102], [101, 102, 0]])
    np.testing.assert_array_equal(mask, [[1, 1, 1], [1, 1, 0]])


# --- each step against torch / transformers ------------------------------------------------------------

def test_layer_norm_gelu_softmax_equal_torch():
    x = np.random.default_rng(0).standard_normal((4, 7, 384)).astype(np.float32)
    gamma, beta = np.float32(1.5), np.float32(-0.25)
    t = torch.from_numpy(x)
    reference = torch.nn.functional.layer_norm(t, (384,), torch.full((384,), 1.5), torch.full((384,), -0.25), 1e-12)
    assert np.abs(layer_norm(x, gamma, beta, 1e-12) - reference.numpy()).max() <= 1e-5, "LayerNorm vs torch"
    assert np.abs(gelu(x) - torch.nn.functional.gelu(t).numpy()).max() <= 1e-6, "GELU vs torch (exact form)"
    assert np.abs(softmax(x) - torch.softmax(t, dim=-1).numpy()).max() <= 1e-6, "softmax vs torch"


def test_token_states_and_attention_equal_transformers(reference_bert, numpy_encoder):
    texts = ["Rotate the API key after the incident.", "a key", "年假怎么申请"]
    batch = reference_bert.tokenizer(texts, padding=True, return_tensors="pt")
    with torch.no_grad():
        reference = reference_bert[0].auto_model(**batch, output_attentions=True)
    ids, mask = batch["input_ids"].numpy(), batch["attention_mask"].numpy()
    attention = []
    states = token_states(ids, mask, numpy_encoder.weights, numpy_encoder.config, attention)
    real = mask[:, :, None].astype(bool)
    difference = np.abs(np.where(real, states - reference.last_hidden_state.numpy(), 0)).max()
    assert difference <= TOLERANCE, f"token states of real tokens differ from transformers by {difference:.1e}"
    assert len(attention) == 6, "one attention array per layer"
    for layer, (ours, theirs) in enumerate(zip(attention, reference.attentions, strict=True)):
        assert np.abs(ours - theirs.numpy()).max() <= TOLERANCE, f"attention of layer {layer} differs"


def test_self_attention_ignores_padding(numpy_encoder):
    x = np.random.default_rng(1).standard_normal((1, 5, 384)).astype(np.float32)
    padded = np.concatenate([x, np.full((1, 3, 384), 7.0, np.float32)], axis=1)
    alone, _ = self_attention(x, np.ones((1, 5)), numpy_encoder.weights, 2, 12)
    with_pad, probabilities = self_attention(padded, np.array([[1] * 5 + [0] * 3]), numpy_encoder.weights, 2, 12)
    assert np.abs(with_pad[:, :5] - alone).max() <= 1e-5, "padding must not change the real tokens' outputs"
    assert probabilities[..., 5:].max() == 0.0, "no token may attend to padding"
    np.testing.assert_allclose(probabilities.sum(-1), 1.0, atol=1e-5, err_msg="attention rows sum to 1")


# --- the whole encoder against sentence-transformers ----------------------------------------------------

def test_embeddings_equal_sentence_transformers(numpy_encoder, encoder, sample_texts):
    ids = numpy_encoder.token_ids(sample_texts)
    assert max(len(i) for i in ids) == 256 and min(len(i) for i in ids) < 20, "long (truncated) and short texts"
    order = np.argsort([-len(i) for i in ids], kind="stable")
    lengths = {len(ids[order[start]]) for start in range(0, len(ids), numpy_encoder.batch_size)}
    assert len(lengths) >= 5, f"batches must be padded to different lengths, got {sorted(lengths)}"
    ours = numpy_encoder.encode(sample_texts)
    reference = encoder.encode(sample_texts)  # sentence-transformers (cached on disk by text hash)
    difference = np.abs(ours - reference).max()
    assert difference <= TOLERANCE, f"max |numpy - sentence-transformers| = {difference:.1e} > {TOLERANCE}"
    assert ours.dtype == np.float32 and ours.shape == (64, 384)


def test_order_batching_and_threads_do_not_change_vectors(numpy_encoder, sample_texts):
    texts = sample_texts[12::3]  # no 256-token chunks: keep the test fast
    base = numpy_encoder.encode(texts)
    reversed_rows = numpy_encoder.encode(texts[::-1])[::-1]
    assert np.abs(base - reversed_rows).max() <= 1e-6, "row i must embed text i whatever the order"
    one_by_one = np.vstack([numpy_encoder.encode([text]) for text in texts[:4]])
    assert np.abs(base[:4] - one_by_one).max() <= TOLERANCE, "a text alone equals the text in a padded batch"
    single = NumpyEncoder(batch_size=3, threads=1).encode(texts)
    assert np.abs(base - single).max() <= TOLERANCE, "threads and batch size must not change vectors"


def test_pooled_gives_three_unit_poolings_from_one_pass(numpy_encoder):
    texts = ["how do I revoke a token?", "Quarterly revenue grew 12%."]
    pooled = numpy_encoder.pooled(texts)
    assert list(pooled) == ["cls", "mean", "max"]
    states, mask = numpy_encoder.states(texts)
    for name, pool in [("cls", cls_pooling), ("mean", mean_pooling), ("max", max_pooling)]:
        np.testing.assert_allclose(pooled[name], l2_normalize(pool(states, mask)), atol=1e-6, err_msg=name)
        np.testing.assert_allclose(np.linalg.norm(pooled[name], axis=1), 1.0, atol=1e-5, err_msg=name)
    np.testing.assert_allclose(pooled["mean"], numpy_encoder.encode(texts), atol=1e-7)


def test_cached_pooled_computes_each_text_once(numpy_encoder, tmp_path):
    class Counting:
        def __init__(self):
            self.texts = []

        def pooled(self, texts, poolings):
            self.texts += texts
            return numpy_encoder.pooled(texts, poolings)

    counting = Counting()
    first = cached_pooled(counting, ["a key", "a lock", "a key"], ["cls", "max"], tmp_path)
    again = cached_pooled(counting, ["a lock", "a key"], ["cls", "max"], tmp_path)
    assert counting.texts == ["a key", "a lock"], "duplicates and cached texts must not be recomputed"
    np.testing.assert_array_equal(again["max"], first["max"][[1, 0]])
    assert first["cls"].shape == (3, 384)
    assert cached_pooled(counting, [], ["mean"], tmp_path)["mean"].shape == (0, 384)


# --- the attention widget's callbacks ------------------------------------------------------------------

def test_attention_map(numpy_encoder):
    tokens, probabilities = attention_map(numpy_encoder, "Rotate the API key.", layer=5, head=11)
    assert tokens == ["[CLS]", "rotate", "the", "api", "key", ".", "[SEP]"]
    assert probabilities.shape == (7, 7), "one row and one column per token"
    np.testing.assert_allclose(probabilities.sum(axis=1), 1.0, atol=1e-5, err_msg="each row is a distribution")


def test_show_attention_draws_the_heatmap(numpy_encoder):
    ax = show_attention(numpy_encoder, "a key", layer=1, head=3)
    assert [label.get_text() for label in ax.get_xticklabels()] == ["[CLS]", "a", "key", "[SEP]"]
    assert ax.get_title() == "layer 1, head 3"
    assert ax.images[0].get_array().shape == (4, 4)
    matplotlib.pyplot.close("all")


def test_attention_widget_wires_text_layer_and_head(numpy_encoder):
    widget = attention_widget(numpy_encoder, "a key")
    text, layer, head, image = widget.children
    assert (text.value, layer.max, head.max) == ("a key", 5, 11), "sliders cover 6 layers and 12 heads"
    pictures = [bytes(image.value)]
    for control, value in ((layer, 4), (head, 7), (text, "rotate the key")):
        control.value = value
        pictures.append(bytes(image.value))
    assert len(set(pictures)) == 4, "each move redraws the heatmap"
    matplotlib.pyplot.close("all")


def test_the_widget_shows_the_heatmap_of_the_layer_and_head_chosen(numpy_encoder, monkeypatch):
    from ragkit.widgets import attention

    drawn = []
    monkeypatch.setattr(attention, "show_figure", lambda image, figure, moving=None: drawn.append(
        (figure.axes[0].get_title(), figure.axes[0].images[0].get_array().copy())))
    widget = attention.attention_widget(numpy_encoder, "a key")
    widget.children[1].value = 2
    widget.children[2].value = 5
    _, expected = attention_map(numpy_encoder, "a key", layer=2, head=5)
    assert drawn[-1][0] == "layer 2, head 5" and np.array_equal(drawn[-1][1], expected), "the chosen head's map"
    calls = len(drawn)
    widget.children[1].value = 3
    assert len(drawn) == calls + 1 and np.array_equal(drawn[-1][1], attention_map(numpy_encoder, "a key", 3, 5)[1])


# --- bad input ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("texts", [[""], ["ok", "   "], ["ok", None]])
def test_empty_or_non_string_texts_are_refused(numpy_encoder, texts):
    with pytest.raises(RagkitError, match="empty or not a string"):
        numpy_encoder.encode(texts)


def test_bad_parameters_are_refused(numpy_encoder):
    with pytest.raises(RagkitError, match="unknown pooling 'sum'"):
        numpy_encoder.encode(["ok"], pooling="sum")
    with pytest.raises(RagkitError, match="batch_size must be a positive integer"):
        NumpyEncoder(batch_size=0)
    with pytest.raises(RagkitError, match="threads must be a positive integer"):
        NumpyEncoder(threads=0)
    with pytest.raises(RagkitError, match="layer must be 0-5 and head 0-11"):
        attention_map(numpy_encoder, "ok", layer=6, head=0)
    with pytest.raises(RagkitError, match="layer must be 0-5 and head 0-11"):
        attention_map(numpy_encoder, "ok", layer=0, head=-1)


def test_a_folder_without_a_model_is_refused(tmp_path):
    with pytest.raises(RagkitError, match="no config.json"):
        NumpyEncoder(tmp_path)
    with pytest.raises(RagkitError, match="no model weights"):
        load_weights(tmp_path)


def test_no_texts_give_no_vectors(numpy_encoder):
    assert numpy_encoder.encode([]).shape == (0, 384)


def test_config_and_weights_come_from_the_model_folder():
    config, weights = load_config(), load_weights()
    assert (config["hidden_size"], config["num_hidden_layers"], config["max_length"]) == (384, 6, 256)
    assert len([name for name in weights if name.endswith("attention.self.query.weight")]) == 6
