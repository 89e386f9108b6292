"""Semantic chunking: adjacent similarities, cut rules (cut where similarity is LOW), size guards, slider."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from sklearn.metrics.pairwise import cosine_similarity  # noqa: E402

from ragkit.chunk.cut_rules import (  # noqa: E402
    RULES,
    cut_gaps,
    largest_gap_threshold,
    rule_signal,
    rule_threshold,
    similarity_changes,
)
from ragkit.chunk.semantic import adjacent_similarities, guarded_bounds, semantic_chunks
from ragkit.chunk.sentences import sentence_spans  # noqa: E402
from ragkit.corpus import Document  # noqa: E402
from ragkit.errors import RagkitError  # noqa: E402
from ragkit.widgets.semantic import cut_view, plot_similarity_curve, show_view, threshold_slider  # noqa: E402


class TopicEncoder:
    """A stand-in encoder: a sentence's vector points along the topic word it contains."""

    TOPICS = ("key", "lunch", "train")

    def encode(self, texts, desc=""):
        vectors = np.array([[1.0 if topic in text.lower() else 0.0 for topic in self.TOPICS] + [0.3]
                            for text in texts])
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


TWO_TOPICS = ("Keys rotate every year. A key is revoked at once. Old keys stop working. "
              "Lunch is served at noon. The lunch menu changes weekly. Lunch is free on Fridays.")


def make_doc(text: str) -> Document:
    return Document("d", "Title", "faq", "2025-01-01", "en", text)


def seed_estimator(scores):
    """The seed article's `estimateResult`, transcribed line by line (threshold bias +10 % of the gap)."""
    arr = sorted(scores)
    biggest_gap, gap_index = 0, 0
    for i in range(len(arr) - 1):
        if arr[i + 1] - arr[i] > biggest_gap:
            biggest_gap, gap_index = arr[i + 1] - arr[i], i
    boundary, within = arr[:gap_index + 1], arr[gap_index + 1:]
    gap = min(within) - max(boundary)
    midpoint = (min(within) + max(boundary)) / 2
    confidence = "high" if gap >= 0.25 else "medium" if gap >= 0.1 else "low"
    return midpoint + gap * 0.1, len(boundary), gap, confidence


def test_adjacent_similarities_known_answer():
    embeddings = np.array([[1.0, 0.0], [0.6, 0.8], [0.0, 1.0]])
    assert np.allclose(adjacent_similarities(embeddings), [0.6, 0.8]), "gap i is the dot of sentences i and i+1"
    # window 2, gap 0: [1,0] vs mean([0.6,0.8],[0,1]) = [0.3,0.9] -> 0.3/|[0.3,0.9]|
    expected = [0.3 / np.hypot(0.3, 0.9), float(np.dot([1.6, 0.8], [0, 1]) / np.hypot(1.6, 0.8))]
    assert np.allclose(adjacent_similarities(embeddings, window=2), expected), "windows average the vectors"


def test_adjacent_similarities_match_scikit_learn():
    rng = np.random.default_rng(0)
    embeddings = rng.normal(size=(30, 16))
    embeddings /= np.linalg.norm(embeddings, axis=1, keepdims=True)
    reference = np.diag(cosine_similarity(embeddings[:-1], embeddings[1:]))
    assert np.abs(adjacent_similarities(embeddings) - reference).max() < 1e-12, "must equal scikit-learn's cosine"
    left = np.array([embeddings[max(0, i - 2):i + 1].mean(axis=0) for i in range(29)])
    right = np.array([embeddings[i + 1:i + 4].mean(axis=0) for i in range(29)])
    windowed = np.diag(cosine_similarity(left, right))
    assert np.abs(adjacent_similarities(embeddings, window=3) - windowed).max() < 1e-12, \
        "window 3 must equal the cosine of the explicit window means"


@pytest.mark.parametrize("embeddings, window", [(np.ones((1, 3)), 1), (np.ones((3, 3)), 0)])
def test_adjacent_similarities_bad_input(embeddings, window):
    with pytest.raises(RagkitError):
        adjacent_similarities(embeddings, window)


def test_largest_gap_known_answer_and_confidence():
    estimate = largest_gap_threshold(np.array([0.82, 0.31, 0.78, 0.35, 0.8]))
    assert estimate.boundary_scores.tolist() == [0.31, 0.35], "the low cluster is the boundary cluster"
    assert estimate.within_topic_scores.tolist() == [0.78, 0.8, 0.82]
    assert estimate.gap == pytest.approx(0.43) and estimate.midpoint == pytest.approx(0.565), "gap and midpoint"
    assert estimate.threshold == pytest.approx(0.565 - 0.043), "bias moves the threshold down (fewer cuts)"
    assert estimate.confidence == "high", "a gap of 0.43 is high confidence"
    assert largest_gap_threshold(np.array([0.3, 0.45, 0.5, 0.52])).confidence == "medium", "gap 0.15: medium"
    assert largest_gap_threshold(np.array([0.3, 0.35, 0.38, 0.4])).confidence == "low", "gap 0.05: low"


def test_largest_gap_equals_the_seed_when_configured_like_it():
    rng = np.random.default_rng(1)
    for _ in range(50):
        scores = rng.uniform(-0.1, 0.9, size=rng.integers(2, 40))
        threshold, n_boundary, gap, confidence = seed_estimator(scores.tolist())
        ours = largest_gap_threshold(scores, bias=-0.1, max_boundary_share=1.0)
        assert ours.threshold == pytest.approx(threshold, abs=1e-12), "same threshold as the seed's code"
        assert (len(ours.boundary_scores), ours.confidence) == (n_boundary, confidence), "same clusters"
        assert ours.gap == pytest.approx(gap, abs=1e-12)


def test_largest_gap_top_tail_trap_is_avoided_by_the_share_limit():
    scores = np.array([0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.95])  # one near-duplicate pair at the top
    seed_like = largest_gap_threshold(scores, max_boundary_share=1.0)
    assert len(seed_like.boundary_scores) == 7, "searching every gap puts 7 of 8 gaps in the boundary cluster"
    limited = largest_gap_threshold(scores, max_boundary_share=0.5)
    assert len(limited.boundary_scores) <= 4, "the share limit keeps the boundary cluster at most half"
    with pytest.raises(RagkitError, match="bias"):
        largest_gap_threshold(scores, bias=0.6)
    with pytest.raises(RagkitError, match="max_boundary_share"):
        largest_gap_threshold(scores, max_boundary_share=0)


def test_rule_thresholds_known_answers():
    scores = np.array([0.9, 0.8, 0.2, 0.7, 0.85, 0.75])
    assert rule_threshold(scores, "percentile", 10) == pytest.approx(np.percentile(scores, 10))
    assert rule_threshold(scores, "std", 1.0) == pytest.approx(scores.mean() - scores.std())
    q1, q3 = np.percentile(scores, [25, 75])
    assert rule_threshold(scores, "iqr", 1.5) == pytest.approx(q1 - 1.5 * (q3 - q1)), "Tukey's low fence"
    assert similarity_changes(scores).tolist() == pytest.approx([0, -0.1, -0.6, 0.5, 0.15, -0.1])
    assert rule_threshold(scores, "gradient", 10) == pytest.approx(np.percentile(similarity_changes(scores), 10))
    for rule in RULES:
        cuts = cut_gaps(rule_signal(scores, rule), rule_threshold(scores, rule))
        assert cuts.tolist() == [2], f"{rule}: the one deep dip (gap 2) is the one cut"


@pytest.mark.parametrize("rule, amount", [("median", None), ("percentile", 120), ("gradient", -1), ("std", -1)])
def test_bad_rules_are_explained(rule, amount):
    with pytest.raises(RagkitError):
        rule_threshold(np.array([0.1, 0.5, 0.9]), rule, amount)


def test_cut_where_similarity_is_low_not_high():
    similarities = np.array([0.8, 0.75, 0.1, 0.85, 0.7])
    assert cut_gaps(similarities, 0.5).tolist() == [2], "cut only the low-similarity gap"
    distances = 1 - similarities
    backwards = np.flatnonzero(distances < np.percentile(distances, 95))
    assert len(backwards) == 4, "reading a distance threshold backwards cuts almost every gap"


def test_guarded_bounds_merge_small_and_split_large():
    text = "Aa. Bb. Cc. Dd. Ee."
    spans = sentence_spans(text)
    similarities = np.array([0.2, 0.9, 0.1, 0.3])
    pieces = [text[s:e] for s, e in guarded_bounds(text, spans, similarities, [0, 2, 3], min_size=6, max_size=100)]
    assert pieces == ["Aa. Bb. Cc.", "Dd. Ee."], "a crumb joins the neighbour it is more similar to"
    pieces = [text[s:e] for s, e in guarded_bounds(text, spans, similarities, [], min_size=0, max_size=7)]
    assert pieces == ["Aa. Bb.", "Cc. Dd.", "Ee."], "a group over max_size is packed into whole sentences"
    with pytest.raises(RagkitError, match="min_size"):
        guarded_bounds(text, spans, similarities, [], min_size=10, max_size=10)
    with pytest.raises(RagkitError, match="similarities"):
        guarded_bounds(text, spans, similarities[:2], [])


def test_semantic_chunks_cut_at_the_topic_change():
    doc = make_doc(TWO_TOPICS)
    for rule in ("gap", "percentile", "std", "iqr"):
        chunks = semantic_chunks(doc, TopicEncoder(), rule, min_size=0, max_size=500)
        assert [c.text[:4] for c in chunks] == ["Keys", "Lunc"], f"{rule}: one cut, between keys and lunch"
        assert all(c.text == doc.text[c.start:c.end] for c in chunks), "chunks are exact slices"
    tiny = semantic_chunks(make_doc("One sentence only."), TopicEncoder())
    assert [c.text for c in tiny] == ["One sentence only."], "too few sentences: one chunk"


def test_semantic_chunks_with_the_course_model(encoder):
    chunks = semantic_chunks(make_doc(TWO_TOPICS), encoder, "gap", min_size=0, max_size=500)
    assert [c.text[:4] for c in chunks] == ["Keys", "Lunc"], "the real model also cuts between keys and lunch"


def test_semantic_chunking_of_a_corpus():
    from ragkit.chunk.base import chunk_corpus

    with pytest.raises(RagkitError, match="corpus is empty"):
        chunk_corpus([], semantic_chunks, encoder=TopicEncoder())
    chunks = chunk_corpus([make_doc(TWO_TOPICS)], semantic_chunks, encoder=TopicEncoder(), rule="gap", min_size=0)
    assert len(chunks) == 2, "the corpus-level call cuts like the per-document call"


def test_cut_view_is_the_slider_callback():
    spans = sentence_spans(TWO_TOPICS)
    similarities = adjacent_similarities(TopicEncoder().encode([TWO_TOPICS[s:e] for s, e in spans]))
    view = cut_view(TWO_TOPICS, spans, similarities, 0.5, min_size=0, max_size=500)
    assert view["cuts"] == [2] and view["borders"] == [2], "one cut at the topic change, kept by the guards"
    assert sum(view["sizes"]) == len(TWO_TOPICS) - 1, "the sizes add up to the text minus the space at the cut"
    everything = cut_view(TWO_TOPICS, spans, similarities, 1.01, min_size=0, max_size=500)
    assert everything["cuts"] == list(range(5)), "a threshold above every similarity cuts every gap"
    guarded = cut_view(TWO_TOPICS, spans, similarities, 1.01, min_size=60, max_size=500)
    assert len(guarded["sizes"]) < 6 and min(guarded["sizes"]) >= 60, "min_size merges the crumbs"


def test_plot_and_slider_redraw():
    similarities = np.array([0.9, 0.2, 0.8])
    view = {"threshold": 0.5, "cuts": [1], "borders": [1], "sizes": [10, 10]}
    fig, ax = plt.subplots()
    plot_similarity_curve(ax, similarities, {"gap": 0.5, "percentile": 0.3}, view, title="t")
    assert len(ax.lines) == 4, "curve, two rule lines and the slider's threshold"
    cuts, borders = ax.collections
    assert cuts.get_offsets().tolist() == [[1.0, 0.2]] and len(borders.get_segments()) == 1
    show_view(ax, similarities, {"threshold": 0.85, "cuts": [1, 2], "borders": [], "sizes": [20]}, "moved")
    assert list(ax.lines[3].get_ydata()) == [0.85, 0.85] and ax.get_title() == "moved"
    assert cuts.get_offsets().tolist() == [[1.0, 0.2], [2.0, 0.8]] and borders.get_segments() == []
    assert "threshold 0.85" in [text.get_text() for text in ax.get_legend().get_texts()]
    assert len(ax.lines) == 4 and len(ax.collections) == 2, "moved in place: nothing drawn twice"
    plt.close(fig)
    slider_box = threshold_slider(make_doc(TWO_TOPICS), TopicEncoder(), min_size=0)
    slider, image = slider_box.children
    before = image.value
    slider.value = 0.95
    assert image.value != before and image.value[:4] == b"\x89PNG", "a move gives the plot new pixels"
    assert int(slider.layout.width.removesuffix("px")) >= 400, "a long slider: a drag moves it in small steps"
    plt.close("all")


def test_strategies_plug_into_the_pipeline_registry():
    from ragkit.chunk.base import chunk_corpus
    from ragkit.chunk.sentences import sentence_chunks
    from ragkit.config import PipelineConfig
    from ragkit.pipeline import Pipeline

    docs = [make_doc("# Keys\n" + TWO_TOPICS + "\n# Trains\nThe train leaves at six. Trains are late.")]
    pipe = Pipeline(docs, PipelineConfig(chunk_size=300, chunk_overlap=0, semantic_min_size=0), encoder=TopicEncoder())
    pipe.register_chunker("sentence-no-overlap", lambda docs, config, encoder: chunk_corpus(
        docs, sentence_chunks, size=config.chunk_size, overlap=0), fields=("chunk_size",))
    for name in ("sentence", "structure", "parent-child", "semantic", "sentence-no-overlap"):
        pipe.configure(chunker=name, chunk_size=60 if name == "parent-child" else 300, chunk_overlap=0)
        chunks = pipe.chunks
        assert chunks and all(c.text == docs[0].text[c.start:c.end] for c in chunks), f"{name}: exact chunks"
        assert pipe.chunk_embeddings.shape[0] == len(chunks), f"{name}: one embedding per chunk"
    pipe.configure(chunker="semantic", chunk_size=300, semantic_rule="gap", semantic_window=1)
    assert [c.text[:4] for c in pipe.chunks] == ["# Ke", "Lunc", "# Tr"], "the semantic knobs reach the chunker"


def legend_beside_the_plot(ax) -> bool:
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    renderer = FigureCanvasAgg(ax.figure).get_renderer()
    legend, plot = ax.get_legend().get_window_extent(renderer), ax.get_window_extent(renderer)
    return legend.x0 >= plot.x1 and legend.x1 <= ax.figure.bbox.x1 + 1


def test_the_legend_covers_no_line_or_cut():
    similarities = np.array([0.9, 0.05, 0.8, 0.1, 0.85])
    fig, ax = plt.subplots(figsize=(9, 3.2))
    plot_similarity_curve(ax, similarities, {"gap": 0.1, "percentile": 0.05})
    fig.tight_layout()
    assert legend_beside_the_plot(ax), "the rules' threshold lines run under no legend"
    fig, ax = plt.subplots(figsize=(9, 3.2))
    for threshold in (-0.2, 0.07, 0.5, 1.0):  # the slider's whole range: the threshold line never meets the legend
        view = {"threshold": threshold, "cuts": [1, 3], "borders": [1], "sizes": [10, 10]}
        if not ax.lines:
            plot_similarity_curve(ax, similarities, None, view, "t")
            fig.tight_layout()
        show_view(ax, similarities, view, "t")
        assert legend_beside_the_plot(ax), threshold
    plt.close("all")
