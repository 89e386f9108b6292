"""Notebook 11's playground: every knob has a control, the callback measures what the pipeline's own evaluation
measures, combinations without recordings are refused in one line with the last good results kept, a new
chunking reports progress, and the widget drives the pipeline."""

import html
import re
import zlib

import numpy as np
import pandas as pd
import pytest

from ragkit.config import KNOBS, PipelineConfig
from ragkit.corpus import Document, Evidence, Query
from ragkit.errors import RagkitError
from ragkit.evaluate.relevance import judgments_from_queries, ranking_hits
from ragkit.evaluate.tables import language_summary
from ragkit.widgets.playground import (
    PRESETS,
    RERANK_MISS,
    build_stages,
    playground,
    playground_update,
    preset_refusals,
    preset_settings,
    unavailable,
)
from ragkit.widgets.playground_layout import (
    LOADING,
    PRESET_MENU,
    WIDTHS,
    control_kind,
    control_rows,
    model_load_needed,
    progress_line,
)
from ragkit.widgets.playground_view import (
    CELL,
    CONTROLS,
    METRICS,
    control_value,
    excerpt,
    knob_values,
    language_metrics,
    marked_text,
    metrics_html,
    result_html,
    results_html,
)


@pytest.fixture(scope="module")
def course(course_docs, course_queries, encoder):
    from ragkit.pipeline import Pipeline

    return Pipeline(course_docs, encoder=encoder, method="hybrid"), [q for q in course_queries if q.split == "dev"]


def summary(pipe, queries):
    """The pipeline's own evaluation of the answerable queries, summarised by ragkit's language_summary."""
    table = pipe.evaluate([q for q in queries if q.evidence], list(METRICS))
    return language_summary(table, decimals=None)


# ---- the controls: one per knob, in the knob's stage, with the knob's values

def test_every_knob_has_one_control_in_its_stage():
    names = [name for group in CONTROLS.values() for name in group]
    assert sorted(names) == sorted(KNOBS) and len(names) == len(set(names)), "one control per knob, no others"
    for stage, group in CONTROLS.items():
        assert all(KNOBS[name].stage == stage for name in group), stage


def test_menus_offer_the_knobs_choices_and_sliders_stay_in_range():
    defaults = PipelineConfig()
    for group in CONTROLS.values():
        for name, spec in group.items():
            knob = KNOBS[name]
            if spec and isinstance(spec[0], str) and knob.choices:
                assert set(spec) == set(knob.choices), name
            elif spec and isinstance(spec[0], str):  # a menu of numbers, "all" for None
                assert spec[0] == "all" and knob.optional and all(knob.low <= v <= knob.high for v in spec[1:]), name
            elif spec and not isinstance(spec[0], str):
                low, high, step = spec
                assert knob.low <= low < high <= knob.high and step > 0, name
                assert isinstance(step, float) == (knob.kind is float), f"{name}: a float knob needs a FloatSlider"
                default = getattr(defaults, name)
                assert default is None or low <= default <= high, f"{name}: its default is off the slider"
            else:
                assert spec is None and knob.optional or name == "chunker", f"{name}: a text box means optional"


@pytest.mark.parametrize("config", [PipelineConfig(), *[PipelineConfig(**preset_settings(PipelineConfig(), name)[0])
                                                         for name in PRESETS],
    PipelineConfig(threshold=0.4, semantic_amount=2.5, rerank_model="/m", fusion_depth=50, mmr_lambda=0.7)])
def test_control_values_turn_back_into_the_same_knobs(config):
    values = {name: control_value(name, getattr(config, name)) for name in KNOBS}
    assert knob_values(values) == {name: getattr(config, name) for name in KNOBS}
    assert PipelineConfig(**knob_values(values)) == config


def test_control_values_by_hand():
    assert knob_values({"mmr_lambda": 1.0, "fusion_depth": "all", "threshold": " ", "rerank_model": ""}) == {
        "mmr_lambda": None, "fusion_depth": None, "threshold": None, "rerank_model": None}
    assert knob_values({"alpha": 0.30000000000000004, "threshold": "4", "rerank_model": "3"}) == {
        "alpha": 0.3, "threshold": 4.0, "rerank_model": "3"}, "a folder named 3 stays a name"
    assert knob_values({"mmr_lambda": 0.95})["mmr_lambda"] == 0.95
    with pytest.raises(RagkitError, match="threshold: 'high' is not a number"):
        knob_values({"threshold": "high"})


def test_presets_are_the_pipelines_they_name():
    (naive, naive_k), (seed, seed_k), (anthropic, _) = (preset_settings(PipelineConfig(k1=0.9, rerank="maxsim"),
                                                                        name) for name in PRESETS)
    assert (naive["method"], naive["chunker"], naive["chunk_size"], naive["chunk_overlap"], naive["rerank"],
            naive_k) == ("dense", "fixed", 800, 100, "none", 5)
    assert (seed["method"], seed["fusion"], seed["rrf_k"], seed["fusion_depth"], seed["rerank"],
            seed["rerank_depth"], seed_k) == ("hybrid", "rrf", 60.0, 20, "llm", 15, 7)
    assert (anthropic["method"], anthropic["context"], anthropic["rerank"]) == ("hybrid", "llm", "llm")
    assert sorted(naive) == sorted(KNOBS), "a preset sets every knob, and nothing else"
    assert naive["k1"] == seed["k1"] == 1.5, "a preset starts from the defaults, not from the current config"
    with pytest.raises(RagkitError, match="unknown preset 'fast'"):
        preset_settings(PipelineConfig(), "fast")


# ---- which combinations can run offline

@pytest.mark.parametrize("changes, reason", [
    ({"context": "llm", "chunk_size": 500}, "context=llm needs the chunking"),
    ({"context": "llm", "chunker": "sentence"}, "context=llm needs the chunking"),
    ({"rerank": "llm", "method": "dense"}, "rerank=llm replays recorded scores only"),
    ({"rerank": "llm", "method": "hybrid", "rerank_depth": 20}, "rerank=llm replays"),
    ({"rerank": "llm", "method": "hybrid", "mmr_lambda": 0.7}, "rerank=llm replays"),
    ({"rerank": "llm", "method": "hybrid", "fusion": "rrf"}, "rerank=llm replays"),
    ({"rerank": "llm", "method": "hybrid", "context": "headers"}, "rerank=llm replays"),
    ({"rerank": "llm", "method": "hybrid", "chunk_size": 500}, "rerank=llm replays"),
    ({"rerank": "cross-encoder"}, "needs a model folder"),
    ({"rerank": "llm", "method": "hybrid"}, None),
    ({"rerank": "llm", "method": "hybrid", "fusion": "rrf", "fusion_depth": 20, "rerank_depth": 10}, None),
    ({"rerank": "llm", "method": "hybrid", "context": "llm"}, None),
    ({"rerank": "ltr", "chunker": "semantic"}, None),
])
def test_unavailable_names_what_was_not_recorded(changes, reason):
    found = unavailable(PipelineConfig(**changes))
    assert found is None if reason is None else reason in found
    assert found is None or "\n" not in found, "one line"


def test_what_unavailable_refuses_really_fails_and_the_presets_really_run(course):
    pipe, dev = course
    answerable = [q for q in dev if q.evidence]
    with pytest.raises(RagkitError, match="nothing recorded"):
        pipe.using(rerank="llm", method="dense").evaluate(answerable, ["recall@5"])
    for name in PRESETS:
        assert unavailable(PipelineConfig(**preset_settings(pipe.config, name)[0])) is None, name


# ---- the numbers

def test_language_metrics_equal_language_summary(course):
    pipe, dev = course
    table = pipe.evaluate(dev, list(METRICS))  # unanswerable queries included: both must skip them
    ours, reference = language_metrics(table), language_summary(table, decimals=None)
    assert list(ours.index) == list(reference.index) == ["en", "zh", "all"]
    assert ours["queries"].tolist() == reference["queries"].tolist()
    np.testing.assert_allclose(ours[list(METRICS)].to_numpy(float), reference[list(METRICS)].to_numpy(float),
                               rtol=0, atol=1e-12)


def test_language_metrics_by_hand():
    table = pd.DataFrame({"lang": ["en", "zh", "en", "zh"], "answerable": [True, True, True, False],
                          "recall@5": [1.0, 0.5, 0.0, np.nan]})
    assert language_metrics(table, ["recall@5"]).to_dict() == {"queries": {"en": 2, "zh": 1, "all": 3},
                                                               "recall@5": {"en": 0.5, "zh": 0.5, "all": 0.5}}
    with pytest.raises(RagkitError, match="no answerable queries"):
        language_metrics(table.assign(answerable=False), ["recall@5"])


def test_update_configures_the_pipeline_and_measures_it(course):
    pipe, dev = course
    pipe = pipe.using()
    result = playground_update(pipe, dev, {"k1": 1.2, "b": 0.6, "mmr_lambda": 1.0}, dev[0].text, 5)
    assert result["message"] == "" and (pipe.config.k1, pipe.config.b, pipe.config.mmr_lambda) == (1.2, 0.6, None)
    reference = summary(pipe.using(k1=1.2, b=0.6), dev)
    np.testing.assert_allclose(result["metrics"][list(METRICS)].to_numpy(float),
                               reference[list(METRICS)].to_numpy(float), rtol=0, atol=1e-12)
    moved = playground_update(pipe, dev, {"k1": 0.5}, dev[0].text, 5, result)
    assert not moved["metrics"].equals(result["metrics"]), "k1 moves the hybrid's figures"


def test_a_refused_combination_keeps_the_last_good_results(course):
    pipe, dev = course
    pipe = pipe.using()
    good = playground_update(pipe, dev, {"k1": 1.3}, dev[0].text, 5)
    config = pipe.config
    refused = playground_update(pipe, dev, {"context": "llm", "chunk_size": 500}, dev[0].text, 5, good)
    assert refused["message"].startswith("kept the last results: context=llm needs the chunking")
    assert "\n" not in refused["message"]
    assert pipe.config == config and pipe.config.chunk_size == 800, "the config is put back"
    assert refused["metrics"] is good["metrics"] and refused["results"] == good["results"]
    bad = playground_update(pipe, dev, {"chunk_size": 100, "chunk_overlap": 100}, dev[0].text, 5, good)
    assert "chunk_overlap=100 must be smaller than chunk_size=100" in bad["message"] and pipe.config == config


def test_a_replay_miss_is_caught_and_the_config_restored(course):
    pipe, dev = course
    pipe = pipe.using()
    seed = preset_settings(pipe.config, "seed 003's pipeline")[0]
    good = playground_update(pipe, dev, seed, dev[0].text, 7)
    assert good["message"] == "" and pipe.config.rerank == "llm"
    config = pipe.config
    missed = playground_update(pipe, dev, {**seed, "k1": 1.2}, dev[0].text, 7, good)  # moves unrecorded chunks in
    assert missed["message"] == f"kept the last results: {RERANK_MISS}" and pipe.config == config
    assert missed["metrics"] is good["metrics"]
    free = playground_update(pipe, dev, {**seed, "rrf_k": 30.0}, "which keys rotate on tuesdays", 7, good)
    assert free["message"] == f"no results for this query: {RERANK_MISS}", "no scores for free text"
    assert pipe.config.rrf_k == 30.0, "the metrics were measured, so the new config stays"
    np.testing.assert_allclose(free["metrics"]["recall@5"].to_numpy(float),
                               summary(pipe.using(), dev)["recall@5"].to_numpy(float), rtol=0, atol=1e-12)
    assert free["results"] == "", "no results rather than another query's results"


@pytest.mark.parametrize("refused", [{"k1": 1.6}, {"threshold": "abc"}], ids=["unrecorded k1", "not a number"])
def test_a_refused_change_puts_its_control_back_and_the_next_query_is_answered(course, refused):
    pipe, dev = course
    pipe = pipe.using()
    seed, top_k = preset_settings(pipe.config, "seed 003's pipeline")
    shown = {name: control_value(name, value) for name, value in seed.items()}
    good = playground_update(pipe, dev, shown, dev[0].text, top_k)
    config = pipe.config
    moved = playground_update(pipe, dev, {**shown, **refused}, dev[0].text, top_k, good)
    assert moved["message"].startswith("kept the last results: ") and pipe.config == config
    name = next(iter(refused))
    assert moved["controls"][name] == shown[name], "the control shows what the pipeline holds again"
    assert moved["controls"] == shown
    other = playground_update(pipe, dev, moved["controls"], dev[5].text, top_k, moved)
    assert other["message"] == "" and other["results"] != good["results"]
    assert other["results"] == results_html(pipe, dev[5].text, top_k, judgments_from_queries([dev[5]], pipe.docs)[0]), \
        "the results and their marks belong to the query shown"


# ---- what the playground shows

def test_marked_text_by_hand():
    assert marked_text("a <b> & c", 10, [(12, 15)]) == "a <mark>&lt;b&gt;</mark> &amp; c"
    assert marked_text("abcdef", 0, [(1, 3), (2, 5), (8, 9)]) == "a<mark>bc</mark><mark>de</mark>f", "overlaps"
    assert marked_text("abcdef", 100, [(0, 101), (105, 200)]) == "<mark>a</mark>bcde<mark>f</mark>"
    assert marked_text("abc", 0, []) == "abc"


def test_results_mark_the_evidence_the_labels_know(course):
    pipe, dev = course
    pipe = pipe.using()
    query = next(q for q in dev if q.query_id == "api-001")
    judgment = judgments_from_queries([query], pipe.docs)[0]
    shown = results_html(pipe, query.text, 5, judgment)
    ranking = pipe.rankings([query.text], 5)[0]
    hits = ranking_hits(ranking, judgment)
    assert shown.count("✓ part") == sum(1 for hit in hits if hit) > 0
    ids = re.findall(r"<b>\d+\. ([^<]+)</b>", shown)
    assert ids == [chunk.chunk_id for chunk in ranking], "the pipeline's own top 5, in order"
    quotes = [e.quote for e in query.evidence]
    marks = [re.sub("&amp;", "&", mark) for mark in re.findall(r"<mark>(.*?)</mark>", shown, flags=re.S)]
    assert marks and all(any(mark in quote for quote in quotes) for mark in marks), "only evidence is marked"
    assert any(mark in quotes for mark in marks), "a quote the chunk holds whole is marked whole"
    assert "<mark>" not in results_html(pipe, query.text, 5), "a free-text query has no labels to mark"
    refused = results_html(pipe.using(threshold=50.0), query.text, 5)
    assert "<p>Refused" in refused and f"results for: <b>{query.text}</b>" in refused


def test_excerpt_by_hand():
    text = "Intro line.\n\n" + "filler " * 60 + "Keys rotate every 90 days.\n\nMore text follows here. " * 5
    at = text.index("every")
    shown = excerpt(text, 1000, [(1000 + at, 1000 + at + 13)], width=80)
    assert shown.startswith("… ") and shown.endswith(" …") and "<mark>every 90 days</mark>" in shown
    assert shown.index("<mark>") < 40, "the evidence comes early in the excerpt, after a little context"
    assert "\n" not in shown and "  " not in shown, "white space collapsed: one line"
    assert excerpt("a\n\nb", 0, []) == "a b", "a short text whole, no cut marks"
    assert excerpt("x " * 200, 0, [(0, 1)], width=20) == "<mark>x</mark> x x x x x x x x x …", "cut at a word"
    assert excerpt("ab", 0, [(5, 9)]) == "ab", "evidence outside the text: from the beginning"


def test_one_result_is_one_header_line_an_excerpt_and_the_whole_text_on_a_click():
    from ragkit.chunk.base import Chunk

    unit = Chunk("keys#2", "keys", 50, 120, "## Keys\n\n\nRotate <them> every 90 days.\n\nOld keys stop.")
    shown = result_html(2, unit, "score 0.812", "✗ judged not relevant", [(74, 87)])
    header = re.search(r"<div><b>2\. keys#2</b> · score 0.812 · <b style='color:#b42318'>✗ judged not relevant</b>"
                       r"</div>", shown)
    assert header, shown
    summary = re.search(r"<summary[^>]*>(.*?)</summary>", shown).group(1)
    assert summary == "## Keys Rotate &lt;them&gt; <mark>every 90 days</mark>. Old keys stop."
    whole = re.search(r"white-space:pre-line[^>]*>(.*?)</div>", shown, flags=re.S).group(1)
    assert whole == "## Keys\nRotate &lt;them&gt; <mark>every 90 days</mark>.\nOld keys stop.", "no blank lines"
    assert "✓" not in result_html(1, unit, "score 1.000", "", []) and "#999" in result_html(1, unit, "s", "", [])


def test_twenty_results_stay_compact(course):
    pipe, dev = course
    query = next(q for q in dev if q.query_id == "api-001")
    shown = results_html(pipe.using(), query.text, 20, judgments_from_queries([query], pipe.docs)[0])
    assert shown.count("class='ragkit-result'") == 20 and shown.count("<summary") == 20
    summaries = re.findall(r"<summary[^>]*>(.*?)</summary>", shown)
    assert all(len(html.unescape(re.sub(r"<[^>]+>", "", text))) <= 245 for text in summaries), "two lines at most"
    assert "pre-wrap" not in shown, "no raw double-spaced text"
    assert shown.startswith(f"<div class='ragkit-results-query' style='color:#555'>results for: <b>{query.text}")


# ---- the layout

def test_control_rows_hold_every_control_once_under_its_stage_and_fit_the_notebook():
    rows = control_rows()
    assert [name for _, names in rows for name in names] == [name for g in CONTROLS.values() for name in g]
    for stage, names in rows:
        assert names and all(name in CONTROLS[stage] for name in names), "each row names its own stage"
        assert sum(WIDTHS[control_kind(CONTROLS[stage][name])] for name in names) <= 880, names
    assert [stage for stage, _ in rows].count("chunking") > 1, "chunking's seven controls take several rows"
    assert control_rows({"s": {"a": None, "b": None, "c": None}}, room=500) == [("s", ["a", "b"]), ("s", ["c"])]


def test_the_model_load_is_said_only_when_a_query_needs_it(tmp_path):
    from types import SimpleNamespace

    from ragkit.embed.model import Encoder

    cold = Encoder(cache_folder=tmp_path)  # nothing cached, the model not loaded
    pipe = SimpleNamespace(encoder=cold, config=SimpleNamespace(method="dense"))
    assert model_load_needed(pipe, "how do I rotate keys")
    cold.cache.save(["how do I rotate keys"], np.ones((1, 384), np.float32))
    assert not model_load_needed(pipe, " how do I rotate  keys "), "a cached query needs no model"
    assert not model_load_needed(SimpleNamespace(encoder=cold, config=SimpleNamespace(method="bm25")), "new words")
    cold._model = object()
    assert not model_load_needed(pipe, "new words"), "the model is loaded already"
    assert not model_load_needed(SimpleNamespace(encoder=HashEncoder(), config=pipe.config), "x"), "no model"


def td(text: str, tag: str = "td") -> str:
    """A cell of the metrics table as metrics_html writes it."""
    return f"<{tag} style='{CELL}'>{text}</{tag}>"


def test_metrics_html_shows_three_decimals_and_the_knobs_moved():
    table = pd.DataFrame({"queries": [2, 1], "recall@5": [0.12345, 1.0]}, index=["en", "all"])
    shown = metrics_html(table, ["recall@5"], PipelineConfig(method="bm25", k1=0.9))
    assert td("0.123") in shown and td("1.000") in shown and td("en", "th") + td("2") in shown
    assert "method=&#x27;bm25&#x27;, k1=0.9" in shown and "b=" not in shown
    assert "knobs off their defaults: none" in metrics_html(table, ["recall@5"], PipelineConfig())


def test_the_metrics_table_has_padded_cells():
    table = pd.DataFrame({"queries": [2], "recall@5": [0.5], "mrr@10": [0.25]}, index=["en"])
    shown = metrics_html(table, ["recall@5", "mrr@10"])
    cells = re.findall(r"<(t[hd])( style='[^']*')?>", shown)
    assert len(cells) == 8 and all("padding:" in style for _, style in cells), "no two figures run together"
    assert "border-collapse:collapse" in shown


def test_the_progress_line_never_says_zero_seconds_before_it_can_time_a_batch():
    assert progress_line(32, 480, (100.0, 32), 100.0).endswith("timing the first batches…")
    assert "0 s" not in progress_line(32, 480, (100.0, 32), 100.02)
    assert progress_line(64, 480, (100.0, 32), 101.0).endswith("about 13 s left"), "32 texts a second, 416 left"
    assert progress_line(470, 480, (100.0, 32), 113.0).endswith("under a second left")
    assert progress_line(480, 480, (100.0, 32), 114.0).endswith("building the indexes…"), "the index build follows"
    assert not any(re.search(r"\b0 s left", progress_line(done, 480, (100.0, 32), 100.0 + done / 32))
                   for done in range(32, 481, 32))


# ---- a new chunking, and the learnt ranker

DOCS = [Document("keys", "API keys", "api", "2025-01-01", "en", "Rotate API keys every 90 days in the console. "
                 "Old keys stop working a day later."),
        Document("leave", "Annual leave", "hr", "2025-01-01", "en", "Annual leave is 25 days; five carry over."),
        Document("quota", "Quotas", "api", "2025-01-01", "en", "TS-203 means the daily quota is used up.")]
QUERIES = [Query(f"q{n}", text, "en", "keyword", "dev", (Evidence(doc, quote),), "") for n, (text, doc, quote) in
           enumerate([("how often to rotate keys", "keys", "every 90 days"),
                      ("annual leave days", "leave", "Annual leave is 25 days"),
                      ("TS-203", "quota", "daily quota is used up")])]


class HashEncoder:
    """Unit vectors from a hash of each text, and a log of each call's size: all a pipeline asks of an encoder."""

    model_name = "hash"

    def __init__(self):
        self.calls = []

    def encode(self, texts, desc=""):
        self.calls.append(len(texts))
        vectors = np.array([np.random.default_rng(zlib.crc32(text.encode())).normal(size=8) for text in texts])
        return vectors.reshape(len(texts), 8) / np.linalg.norm(vectors.reshape(len(texts), 8), axis=1, keepdims=True)


@pytest.fixture()
def tiny():
    from ragkit.pipeline import Pipeline

    return Pipeline(DOCS, encoder=HashEncoder(), method="hybrid", chunk_size=40, chunk_overlap=10)


def test_a_new_chunking_reports_progress_and_a_knob_move_rebuilds_nothing(tiny):
    steps = []
    assert build_stages(tiny, lambda done, total: steps.append((done, total)), batch_size=2)
    chunks = len(tiny.chunks)
    assert steps == [(min(done, chunks), chunks) for done in range(2, chunks + 2, 2)], "one step per batch"
    assert tiny.encoder.calls[:-1] == [2] * (chunks // 2) + [chunks % 2] * (chunks % 2), "embedded in batches"
    assert not build_stages(tiny.configure(k1=0.9), steps.append), "nothing to build for a k1 move"
    runs = dict(tiny.runs)
    playground_update(tiny, QUERIES, {"k1": 1.1, "alpha": 0.3}, "keys", 3, progress=steps.append)
    assert tiny.runs["chunks"] == runs["chunks"] and tiny.runs["embeddings"] == runs["embeddings"]
    result = playground_update(tiny, QUERIES, {"chunk_size": 60, "chunk_overlap": 0}, "keys", 3,
                               progress=lambda done, total: steps.append((done, total)))
    assert result["message"] == "" and steps[-1] == (len(tiny.chunks), len(tiny.chunks)) != (chunks, chunks)


def test_ltr_is_trained_once_when_first_asked_for(tiny):
    assert tiny.ranker is None
    first = playground_update(tiny, QUERIES, {"rerank": "ltr", "ltr_objective": "pointwise"}, "keys", 3)
    ranker = tiny.ranker
    assert ranker is not None and ranker.objective == "pointwise" and "optimistic" in first["message"]
    playground_update(tiny, QUERIES, {"k1": 0.8}, "keys", 3, first)
    assert tiny.ranker is ranker, "not trained again"
    playground_update(tiny, QUERIES, {"ltr_objective": "pairwise"}, "keys", 3, first)
    assert tiny.ranker is not ranker and tiny.ranker.objective == "pairwise"


# ---- the widget

def find(widget, description):
    if getattr(widget, "description", None) == description:
        return widget
    return next((found for child in getattr(widget, "children", ()) if (found := find(child, description))), None)


def with_class(widget, name):
    if name in getattr(widget, "_dom_classes", ()):
        return widget
    return next((found for child in getattr(widget, "children", ()) if (found := with_class(child, name))), None)


def test_the_widget_drives_the_pipeline(course):
    pipe, dev = course
    pipe = pipe.using()
    ui = playground(pipe, dev)
    assert all(find(ui, name) is not None for name in KNOBS), "every knob's control is described by its name"
    metrics, status = with_class(ui, "ragkit-playground-metrics"), with_class(ui, "ragkit-playground-status")
    shown = metrics.value
    assert td("0.843") in shown, "the default hybrid's recall@5 on all dev queries"
    assert list(find(ui, "preset").options) == ["custom", *PRESETS], "the course's recordings cover every preset"
    menu = find(ui, "preset")
    assert menu.layout.width == PRESET_MENU["width"]
    # about 7 px a character at JupyterLab's 13 px font, plus the label "preset" and the arrow: 8 px a character
    # and 100 px more keep the longest preset's name whole
    assert int(menu.layout.width.removesuffix("px")) >= 8 * max(map(len, menu.options)) + 100
    find(ui, "k1").value = 1.0
    assert pipe.config.k1 == 1.0 and metrics.value != shown
    find(ui, "mmr_lambda").value = 0.7
    assert pipe.config.mmr_lambda == 0.7
    find(ui, "mmr_lambda").value = 1.0
    assert pipe.config.mmr_lambda is None, "λ = 1 is MMR off"
    find(ui, "preset").value = "naive RAG"
    assert (pipe.config.method, pipe.config.k1, find(ui, "method").value) == ("dense", 1.5, "dense")
    naive = metrics.value
    assert td("0.602") in naive, "naive RAG's recall@5 on all dev queries"
    find(ui, "rerank").value = "llm"
    assert "rerank=llm replays recorded scores only" in status.value and metrics.value == naive
    assert pipe.config.rerank == "none", "the config whose figures are shown"
    assert find(ui, "rerank").value == "none", "the refused menu is put back to the pipeline's value"
    find(ui, "top_k").value = 6
    assert status.value.endswith("></div>") and metrics.value == naive, "a good change: no message"
    find(ui, "dev query").value = dev[3].text
    assert find(ui, "query").value == dev[3].text
    results = with_class(ui, "ragkit-playground-results")
    find(ui, "preset").value = "seed 003's pipeline"
    assert find(ui, "preset").value == "seed 003's pipeline" and pipe.config.rerank == "llm"
    assert find(ui, "top_k").value == 7, "a preset that runs sets its top_k"
    find(ui, "k1").value = 1.6  # no recorded LLM scores for this setting: refused
    assert "rerank=llm" in status.value and "white-space:normal" in status.value, "the reason wraps"
    assert find(ui, "k1").value == 1.5 == pipe.config.k1, "the slider is put back to the pipeline's value"
    before = results.value
    find(ui, "dev query").value = dev[6].text
    assert results.value != before and status.value.endswith("></div>"), "other controls stay live"
    find(ui, "rrf_k").value = 40.0
    assert find(ui, "preset").value == "custom", "a knob left the preset"
    said = []
    status.observe(lambda change: said.append(change["new"]), names="value")
    find(ui, "method").value = "hybrid"
    assert LOADING not in "".join(said), "a labelled query's vector is shipped: no model to load"
    needs = model_load_needed(pipe, "which keys rotate on tuesdays")
    find(ui, "query").value = "which keys rotate on tuesdays"
    assert (LOADING in "".join(said)) == needs, "the model load is said when the query needs it"
    labels = [row.children[0].value for row in ui.children[1:] if isinstance(getattr(row, "children", [None])[0],
                                                                            type(status))]
    assert labels.count("<b>chunking</b>") > 1 and labels[-1] == "<b>answer</b>", "every row names its stage"


# ---- presets on documents the course's recordings do not cover (notebook 12)

def test_a_refused_preset_changes_neither_the_knobs_nor_top_k(tiny):
    seed, seed_k = preset_settings(tiny.config, "seed 003's pipeline")
    good = playground_update(tiny, QUERIES, {"k1": 1.1}, "keys", 3)
    config = tiny.config
    refused = playground_update(tiny, QUERIES, {**seed, "top_k": seed_k}, "keys", 3, good)
    assert refused["message"].startswith("kept the last results: ") and tiny.config == config
    assert refused["top_k"] == 3 != seed_k, "top_k stays where it was"
    assert refused["results"].count("class='ragkit-result'") == 3, "the results keep the shown top_k"
    ran = playground_update(tiny, QUERIES, {**preset_settings(tiny.config, "naive RAG")[0], "top_k": 2}, "keys", 3)
    assert ran["message"] == "" and ran["top_k"] == 2 and ran["results"].count("class='ragkit-result'") == 2


def test_presets_without_recordings_for_these_documents_are_not_offered(tiny):
    reasons = preset_refusals(tiny, QUERIES)
    assert reasons["naive RAG"] == "" and all(reasons[name] for name in PRESETS if name != "naive RAG"), reasons
    assert all("\n" not in reason for reason in reasons.values()), "one line each"
    ui = playground(tiny, QUERIES, top_k=3)
    assert list(find(ui, "preset").options) == ["custom", "naive RAG"]
    note = ui.children[1].value
    assert "not offered here" in note and all(html.escape(name) in note for name in PRESETS if name != "naive RAG")


def test_a_preset_refused_in_the_widget_puts_every_control_and_top_k_back(tiny, monkeypatch):
    import ragkit.widgets.playground as module

    monkeypatch.setattr(module, "preset_refusals", lambda pipe, queries: dict.fromkeys(PRESETS, ""))
    ui = playground(tiny, QUERIES, top_k=3)  # offers every preset, as if the probe had passed
    config, status = tiny.config, with_class(ui, "ragkit-playground-status")
    find(ui, "preset").value = "seed 003's pipeline"  # no rerank scores for these documents: refused
    assert "kept the last results" in status.value and tiny.config == config
    assert find(ui, "top_k").value == 3, "a refused preset leaves top_k where it was"
    assert (find(ui, "method").value, find(ui, "rerank").value) == (config.method, config.rerank)
    assert find(ui, "preset").value == "custom"


def test_the_judging_keys_box_shows_its_keys_whole():
    # notebook 12's judging widget (it lives beside its playground): the box's hint fits the box, and the keys are
    # listed as text beside it, where no width of the box can cut them off
    from ragkit.widgets.judging_view import KEY_HOOK, KEYS, ROOT, keys_html

    shown = keys_html()
    box = re.search(r"<input ([^>]*)>", shown).group(1)
    size, placeholder = int(re.search(r'size="(\d+)"', box).group(1)), re.search(r'placeholder="([^"]*)"', box).group(1)
    assert len(placeholder) < size, "the placeholder is not clipped by the box"
    widest = int(re.search(r"max-width:(\d+)ch", box).group(1))
    assert widest >= len(placeholder), "the box's largest width still shows the whole placeholder"
    assert f'class="{ROOT}-keys"' in box and f'onkeydown="{html.escape(KEY_HOOK)}"' in box, "class and hook kept"
    outside = re.sub(r"<[^>]+>", " ", shown)
    assert all(f"{key} {label}" in outside for key, label in KEYS.items() if key != "p"), "every key, on screen"
    assert "p partly" in outside and "1–9: part N" in outside
