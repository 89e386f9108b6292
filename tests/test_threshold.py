"""The "no answer" threshold: known answers, scikit-learn as the reference, and the widget's callback."""

import math
import re

import matplotlib
import numpy as np
import pytest
from sklearn.metrics import precision_score, recall_score

from ragkit.errors import RagkitError
from ragkit.evaluate.refusal import best_threshold, refusal_table, threshold_summary, threshold_sweep
from ragkit.rank.refuse import refusals
from ragkit.widgets.figures import figure_png
from ragkit.widgets.threshold import (
    NOTHING_REFUSED,
    refusal_line,
    threshold_figure,
    threshold_update,
    threshold_widget,
)

matplotlib.use("Agg")

# Four queries: two unanswerable (top scores 0.30 and 0.55), two answerable (0.40 and 0.70).
TOP = [0.30, 0.40, 0.55, 0.70]
ANSWERABLE = [False, True, False, True]
FAILURE = [math.nan, 1.0, math.nan, 0.5]


def random_case(seed=0, n=200):
    rng = np.random.default_rng(seed)
    answerable = rng.random(n) < 0.8
    top = np.clip(rng.normal(0.5, 0.1, n) + 0.05 * answerable, -1, 1)
    failure = np.where(answerable, rng.integers(0, 3, n) / 2, np.nan)
    return top, answerable, failure


def test_refuse_strictly_below_the_threshold():
    assert refusals(TOP, 0.40).tolist() == [True, False, False, False], "a score equal to the threshold is answered"
    assert refusals(TOP, -1.0).tolist() == [False] * 4, "threshold -1 never refuses"


def test_refusal_table_by_hand():
    row = refusal_table(TOP, ANSWERABLE, FAILURE, 0.5)
    # refused: 0.30 (right) and 0.40 (wrong); answered: 0.55 (wrong) and 0.70 (right)
    expected = {"threshold": 0.5, "refused": 2, "answerable refused": 1, "precision": 0.5, "recall": 0.5,
                "f1": 0.5, "accuracy": 0.5, "answered failure@5": 0.5}
    assert row == pytest.approx(expected), f"hand-computed refusal table at 0.5, got {row}"
    nothing = refusal_table(TOP, ANSWERABLE, FAILURE, 0.1)
    assert math.isnan(nothing["precision"]) and nothing["recall"] == 0, "no refusals: precision undefined"
    assert nothing["answered failure@5"] == pytest.approx(0.75), "all answerable answered: mean failure@5"
    everything = refusal_table(TOP, ANSWERABLE, FAILURE, 0.9)
    assert math.isnan(everything["answered failure@5"]), "nothing answered: failure@5 of the answered is NaN"


@pytest.mark.parametrize("threshold", [0.35, 0.45, 0.5, 0.55, 0.6])
def test_precision_and_recall_equal_scikit_learn(threshold):
    top, answerable, failure = random_case()
    row = refusal_table(top, answerable, failure, threshold)
    refused = top < threshold
    unanswerable = ~answerable
    assert row["precision"] == pytest.approx(precision_score(unanswerable, refused), abs=1e-12), "precision"
    assert row["recall"] == pytest.approx(recall_score(unanswerable, refused), abs=1e-12), "recall"
    answered = answerable & ~refused
    assert row["answered failure@5"] == pytest.approx(failure[answered].mean(), abs=1e-12), "failure@5"


def test_sweep_is_monotone_and_best_threshold_respects_the_limit():
    top, answerable, failure = random_case(1)
    thresholds = np.round(np.arange(0.2, 0.81, 0.02), 2)
    sweep = threshold_sweep(top, answerable, failure, thresholds)
    assert len(sweep) == len(thresholds), "one row per threshold"
    assert (np.diff(sweep["refused"]) >= 0).all(), "raising the threshold never refuses fewer queries"
    assert (np.diff(sweep["recall"]) >= 0).all(), "raising the threshold never lowers refusal recall"
    best = best_threshold(sweep)
    assert sweep.loc[sweep["threshold"] == best, "f1"].item() == pytest.approx(sweep["f1"].max()), "max F1"
    limited = best_threshold(sweep, max_answerable_refused=5)
    assert sweep.loc[sweep["threshold"] == limited, "answerable refused"].item() <= 5, "the limit holds"
    assert limited <= best, "a limit on wrong refusals can only lower the chosen threshold"


def test_bad_input_is_explained():
    for bad in [1.5, -2, "0.4", None, True]:
        with pytest.raises(RagkitError, match="between -1 and 1"):
            refusals(TOP, bad)
    with pytest.raises(RagkitError, match="one entry per query"):
        refusal_table(TOP, ANSWERABLE[:3], FAILURE, 0.4)
    with pytest.raises(RagkitError, match="at least one query"):
        refusal_table([], [], [], 0.4)
    with pytest.raises(RagkitError, match="needs its failure@5"):
        refusal_table(TOP, ANSWERABLE, [math.nan] * 4, 0.4)
    with pytest.raises(RagkitError, match="at least one threshold"):
        threshold_sweep(TOP, ANSWERABLE, FAILURE, [])
    sweep = threshold_sweep(TOP, ANSWERABLE, FAILURE, [0.1, 0.5])
    with pytest.raises(RagkitError, match="no column"):
        best_threshold(sweep, by="speed")
    with pytest.raises(RagkitError, match="within the limits"):
        best_threshold(threshold_sweep(TOP, ANSWERABLE, FAILURE, [0.9]), max_answerable_refused=0)
    with pytest.raises(RagkitError, match="0 or more"):
        best_threshold(sweep, max_answerable_refused=-1)


def test_summary_and_figure_the_widget_shows():
    sweep = threshold_sweep(TOP, ANSWERABLE, FAILURE, [0.1, 0.3, 0.5, 0.7])
    text = threshold_summary(refusal_table(TOP, ANSWERABLE, FAILURE, 0.5), total=4)
    assert text.startswith("threshold 0.50: refuses 2 of 4 queries (1 answerable)"), text
    assert "precision 0.500, recall 0.500" in text, text
    figure = threshold_figure(sweep, 0.5)
    lines = figure.axes[0].lines
    assert [line.get_label() for line in lines[:2]] == ["refusal precision", "refusal recall"], "two curves"
    assert list(lines[2].get_xdata()) == [0.5, 0.5], "the vertical line marks the threshold"
    matplotlib.pyplot.close(figure)
    with_base = threshold_figure(sweep, 0.5, base_rate=0.5).axes[0].lines
    assert list(with_base[3].get_ydata()) == [0.5, 0.5], "the dotted line marks the precision of random refusal"
    matplotlib.pyplot.close("all")


@pytest.fixture(scope="module")
def course_case(course_docs, course_queries, encoder):
    """The course pipeline (dense) and the dev queries, with each query's top cosine and failure@5 computed
    apart from the pipeline: vectors from the encoder, a full stable sort, the metric functions."""
    from ragkit.evaluate.relevance import judgments_from_queries
    from ragkit.evaluate.tables import per_query_metrics
    from ragkit.pipeline import Pipeline

    pipe = Pipeline(course_docs, encoder=encoder)
    dev = [q for q in course_queries if q.split == "dev"]
    scores = encoder.encode([q.text for q in dev]) @ encoder.encode([c.text for c in pipe.chunks]).T
    rankings = [[pipe.chunks[i] for i in row] for row in np.argsort(-scores, axis=1, kind="stable")[:, :5]]
    failure = per_query_metrics(rankings, judgments_from_queries(dev, course_docs), ["failure@5"])["failure@5"]
    return pipe, dev, scores.max(axis=1), np.array([bool(q.evidence) for q in dev]), failure.to_numpy()


def test_threshold_update_sets_the_pipeline_and_the_numbers_follow(course_case):
    pipe, dev, top, answerable, failure = course_case
    pipe = pipe.using()
    for threshold in (0.3, 0.45):
        row = threshold_update(pipe, dev, threshold)
        assert pipe.config.threshold == threshold, "the slider's callback sets the pipeline's threshold"
        expected = refusal_table(top, answerable, failure, threshold)
        assert row["refused"] == int((top < threshold).sum()) == expected["refused"], "refusals follow the threshold"
        for key in ("answerable refused", "precision", "recall", "answered failure@5"):
            assert row[key] == pytest.approx(expected[key], abs=1e-6, nan_ok=True), key
    assert row["refused"] > threshold_update(pipe, dev, 0.3)["refused"], "a higher threshold refuses more"
    refused = {query.query_id for query, ranking in zip(dev, pipe.rankings([q.text for q in dev], 5), strict=True)
               if not ranking}
    assert len(refused) == int((top < 0.3).sum()), "the pipeline returns nothing for a refused query"


def expected_line(top, answerable, failure, threshold):
    """The widget's line, rebuilt from the independently computed refusal table and counts."""
    row = refusal_table(top, answerable, failure, threshold)
    return refusal_line({**row, "queries": len(top), "answerable": int(np.sum(answerable))})


def test_refusal_line_says_which_queries_it_refuses():
    row = {"threshold": 0.36, "queries": 187, "answerable": 165, "refused": 14, "answerable refused": 12,
           "precision": 0.143, "recall": 0.091, "accuracy": 0.829, "answered failure@5": 0.397}
    assert refusal_line(row).startswith("threshold 0.36: refuses 14 of the 187 queries: 2 of the 22 unanswerable "
                                        "ones and 12 of the 165 answerable ones; refusal precision 0.143, recall")
    everything = {**row, "refused": 186, "answerable refused": 164}
    assert "refuses 186 of the 187 queries: 22 of the 22 unanswerable ones and 164 of the 165 answerable ones" \
        in refusal_line(everything), "no doubt left whether 164 counts the answerable queries or those refused"


def test_refusal_line_says_nothing_was_refused_instead_of_nan():
    row = expected_line(TOP, ANSWERABLE, FAILURE, 0.1)  # every top score is above 0.1: nothing refused
    assert "refuses 0 of the 4 queries" in row and f"refusal precision {NOTHING_REFUSED}, recall 0.000" in row, row
    assert not re.search(r"\bnan\b", row, re.IGNORECASE), "an undefined precision is said in words, not as nan"
    some = expected_line(TOP, ANSWERABLE, FAILURE, 0.5)
    assert "refusal precision 0.500" in some and NOTHING_REFUSED not in some, "a defined precision is printed"


def test_the_legend_covers_no_curve_or_threshold_line():
    sweep = threshold_sweep(TOP, ANSWERABLE, FAILURE, [0.1, 0.3, 0.5, 0.7])
    for figure in (threshold_figure(sweep, 0.3, base_rate=0.5), threshold_figure(sweep, 0.7)):
        figure.canvas.draw()
        ax = figure.axes[0]
        legend, plot, whole = ax.get_legend().get_window_extent(), ax.get_window_extent(), figure.bbox
        assert legend.x0 >= plot.x1, "the legend sits right of the plot, not over its data"
        assert legend.x1 <= whole.x1 and legend.y0 >= whole.y0, "and inside the picture, not cut off"
        assert [text.get_text() for text in ax.get_legend().get_texts()][:2] == ["refusal precision", "refusal recall"]
    matplotlib.pyplot.close("all")


def test_widget_drives_the_pipeline(course_case):
    pipe, dev, top, answerable, failure = course_case
    pipe = pipe.using()
    thresholds = [0.1, 0.3, 0.5, 0.7]
    widget = threshold_widget(pipe, dev, thresholds, value=0.3)
    slider, numbers, image = widget.children
    assert numbers.value == expected_line(top, answerable, failure, 0.3), "initial text"
    before = image.value
    slider.value = 0.5
    assert pipe.config.threshold == 0.5, "the slider sets the pipeline's threshold"
    assert numbers.value == expected_line(top, answerable, failure, 0.5), "after a move"
    assert image.value != before and image.value[:4] == b"\x89PNG", "the plot's pixels change in place"
    assert (slider.min, slider.max) == (0.1, 0.7), "the slider spans the swept thresholds"
    assert not (top < 0.1).any(), "the course's dev queries all have a top cosine of 0.1 or more"
    slider.value = 0.1
    assert numbers.value == expected_line(top, answerable, failure, 0.1) and NOTHING_REFUSED in numbers.value
    assert not re.search(r"\bnan\b", numbers.value, re.IGNORECASE), "nothing refused: said in words, not as nan"
    assert int(slider.layout.width.removesuffix("px")) >= 400, "a long slider: a drag moves it in small steps"


def test_the_widget_moves_the_threshold_line_of_the_figure_it_drew():
    sweep = threshold_sweep(TOP, ANSWERABLE, FAILURE, [0.1, 0.3, 0.5, 0.7])
    figure = threshold_figure(sweep, 0.3)
    line = next(line for line in figure.axes[0].lines if line.get_label() == "_threshold")
    assert list(line.get_xdata()) == [0.3, 0.3]
    drawn = figure_png(figure)
    line.set_xdata([0.5, 0.5])
    assert figure_png(figure) != drawn, "moving the line changes the picture"
    assert "_threshold" not in [text.get_text() for text in figure.axes[0].get_legend().get_texts()]
    matplotlib.pyplot.close("all")
