"""Plots that update in place: each widget draws one matplotlib figure once and, on a move, changes its artists'
data and sends the new pixels to the same image.

A figure made by `new_figure` belongs to no pyplot manager, so nothing shows it twice or keeps it open;
`figure_png` draws it to PNG bytes (fast compression: a slider move waits for it; optionally redrawing only the
artists that move over the rest, drawn once) and `figure_image` shows them in an ipywidgets `Image`, whose
picture `show_figure` replaces after each move. Compared with clearing an `Output` and drawing a new figure, a
move creates, lays out and closes nothing, and the page swaps one image.
`SLIDER` is the layout of the sliders whose drag should be fine-grained. Left out: interactive canvases (zoom
and pan, as ipympl gives), vector output, and high-DPI screens (the pictures are 100 dpi).
"""

from __future__ import annotations

import io
from collections.abc import Callable, Sequence

SLIDER = {"width": "480px"}  # a slider's layout: its track about 330 px, so that one pixel of drag is a small step
DPI = 100


def new_figure(width: float, height: float):
    """A matplotlib figure of `width` × `height` inches that no pyplot window or notebook backend knows about.

    >>> new_figure(6, 3).get_size_inches().tolist()
    [6.0, 3.0]
    """
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), dpi=DPI)


def figure_png(figure, moving: Callable[[], Sequence] | None = None) -> bytes:
    """The figure drawn by Agg and encoded as PNG with light compression: what `savefig` gives, without its
    layout pass (a second draw) and its slower default compression, for a slider move waits for it. With
    `moving` (a function giving the artists a move changes), the rest is drawn once and kept on the figure's
    canvas, and each call draws only those artists over it (blitting: after changing anything else, set
    `figure.canvas.still = None`).

    >>> figure = new_figure(2, 1); line = figure.subplots().plot([0, 1])[0]
    >>> first = figure_png(figure, lambda: [line]); line.set_ydata([1, 0])
    >>> first[:8], figure_png(figure, lambda: [line]) != first
    (b'\\x89PNG\\r\\n\\x1a\\n', True)
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from PIL import Image

    canvas = figure.canvas if isinstance(figure.canvas, FigureCanvasAgg) else FigureCanvasAgg(figure)
    if moving is None:
        canvas.draw()
    else:
        if getattr(canvas, "still", None) is None:  # the first call: everything but the moving artists
            for artist in moving():
                artist.set_animated(True)
            canvas.draw()
            canvas.still = canvas.copy_from_bbox(figure.bbox)
        canvas.restore_region(canvas.still)
        for artist in moving():
            figure.draw_artist(artist)
    buffer = io.BytesIO()
    Image.frombuffer("RGBA", canvas.get_width_height(), canvas.buffer_rgba(), "raw", "RGBA", 0, 1).save(
        buffer, format="png", compress_level=1)
    return buffer.getvalue()


def figure_image(figure, moving: Callable[[], Sequence] | None = None):
    """An ipywidgets `Image` showing `figure` (`figure_png`), as wide as the figure is.

    >>> figure_image(new_figure(2, 1)).layout.width
    '200px'
    """
    import ipywidgets as widgets

    return widgets.Image(value=figure_png(figure, moving), format="png",
                         layout={"width": f"{round(figure.get_figwidth() * DPI)}px"})


def show_figure(image, figure, moving: Callable[[], Sequence] | None = None) -> None:
    """Put the figure's current pixels (`figure_png`) in the `Image` widget, after its artists changed.

    >>> image = figure_image(new_figure(2, 1)); show_figure(image, new_figure(3, 1)); image.layout.width
    '300px'
    """
    image.value = figure_png(figure, moving)
    image.layout.width = f"{round(figure.get_figwidth() * DPI)}px"
