"""Notebook 05's curve sliders: the axis stays put over the slider's whole range (so that b = 0.25 and b = 0.75
look different), the curves move, the legend sits above the plot and covers no curve, and the widget drives the
pipeline's knob."""

import numpy as np
import pytest

from ragkit.widgets.bm25 import (
    CURVE_SLIDERS,
    curve_figure,
    curve_limits,
    curve_widget,
    length_curve,
    saturation_curve,
)


def legend_clear_of_the_plot(figure) -> bool:
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    renderer = FigureCanvasAgg(figure).get_renderer()
    ax = figure.axes[0]
    legend, plot = ax.get_legend().get_window_extent(renderer), ax.get_window_extent(renderer)
    return legend.y0 >= plot.y1 - 1  # above the axes' box (a pixel of rounding allowed)


def test_the_b_curve_keeps_its_axis_at_every_b():
    figure, move = curve_figure("b", 1.5, 0.25)
    ax = figure.axes[0]
    at_quarter, quarter_line = ax.get_ylim(), ax.lines[1].get_ydata().copy()
    move(1.5, 0.75)
    assert ax.get_ylim() == at_quarter, "b = 0.25 and b = 0.75 on the same axis"
    assert not np.allclose(ax.lines[1].get_ydata(), quarter_line), "the curve itself moved"
    for b in np.arange(0.0, 1.0001, CURVE_SLIDERS["b"][2]):
        move(1.5, float(b))
        low, high = ax.get_ylim()
        weights = length_curve(float(b), 1.5)[1]
        assert ax.get_ylim() == at_quarter and low < weights.min() and weights.max() < high, f"b = {b}: all in view"


def test_the_k1_curve_keeps_its_axis_and_its_ceiling_in_view():
    figure, move = curve_figure("k1", 1.5, 0.75)
    ax = figure.axes[0]
    limits = ax.get_ylim()
    for k1 in np.arange(0.0, CURVE_SLIDERS["k1"][1] + 0.001, 0.5):
        move(float(k1), 0.75)
        assert ax.get_ylim() == limits and saturation_curve(float(k1))[1].max() <= k1 + 1 < limits[1], k1


@pytest.mark.parametrize("k1", [0.0, 0.5, 1.5, 5.0])
def test_the_b_axis_holds_both_ends_of_the_slider(k1):
    low, high = curve_limits("b", k1)
    for b in (0.0, 1.0):
        weights = length_curve(b, k1)[1]
        assert low < weights.min() <= weights.max() < high, (k1, b)


@pytest.mark.parametrize("parameter, k1, b", [("b", 1.5, 1.0), ("b", 0.5, 0.0), ("k1", 0.5, 0.75), ("k1", 5.0, 0.75)])
def test_the_legend_sits_above_the_plot(parameter, k1, b):
    figure, move = curve_figure(parameter, k1, b)
    move(k1, b)
    assert legend_clear_of_the_plot(figure), "the legend covers no curve"
    assert figure.axes[0].get_legend().get_window_extent().y1 <= figure.bbox.y1 + 1, "and stays inside the picture"


def test_the_widget_sets_the_knob_and_redraws():
    from types import SimpleNamespace

    class Pipe:
        config = SimpleNamespace(k1=1.5, b=0.75)

        def configure(self, **knobs):
            self.config = SimpleNamespace(**{**vars(self.config), **knobs})
            return self

    pipe = Pipe()
    slider, image = curve_widget(pipe, "b").children
    before = image.value
    slider.value = 0.25
    assert pipe.config.b == 0.25 and image.value != before and image.value[:4] == b"\x89PNG"


def test_a_curve_it_does_not_draw_is_one_clear_error():
    from types import SimpleNamespace

    from ragkit.errors import RagkitError

    with pytest.raises(RagkitError, match=r"draws k1 or b, not 'B'"):
        curve_widget(SimpleNamespace(config=SimpleNamespace(k1=1.5, b=0.75)), "B")
