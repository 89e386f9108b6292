"""The attention heatmap of notebook 02, and a widget with layer and head sliders.

`attention_map` and `plot_attention` are plain functions (unit-tested); `attention_widget` only wires
ipywidgets to them: it runs the encoder once per text, keeping every layer's attention, so that a layer or
head move only gives the heatmap new data (`ragkit.widgets.figures`). Left out: attention rollout and head
averaging.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ragkit.errors import RagkitError
from ragkit.widgets.figures import new_figure, show_figure


def attention_map(encoder, text: str, layer: int, head: int) -> tuple[list[str], np.ndarray]:
    """The word pieces of `text` and where each looks in head `head` of layer `layer` (both from 0): a
    (pieces × pieces) matrix whose row i is token i's attention over all tokens (each row sums to 1).

    >>> from ragkit.embed.numpy_encoder import NumpyEncoder
    >>> tokens, probabilities = attention_map(NumpyEncoder(), "rotate the key", layer=0, head=0)
    >>> tokens, probabilities.shape
    (['[CLS]', 'rotate', 'the', 'key', '[SEP]'], (5, 5))
    """
    layers, heads = encoder.config["num_hidden_layers"], encoder.config["num_attention_heads"]
    if not 0 <= layer < layers or not 0 <= head < heads:
        raise RagkitError(f"layer must be 0-{layers - 1} and head 0-{heads - 1}, got layer {layer} and head {head}")
    attention: list[np.ndarray] = []
    encoder.states([text], attention)
    return encoder.tokenizer.encode(text).tokens, attention[layer][0, head]


def plot_attention(tokens: Sequence[str], probabilities: np.ndarray, ax=None, title: str = ""):
    """A heatmap of one attention matrix: rows are the tokens that look, columns the tokens looked at.

    >>> plot_attention(["[CLS]", "hi", "[SEP]"], np.eye(3)).get_xlabel()
    'attended token'
    """
    import matplotlib.pyplot as plt

    if ax is None:
        side = 0.32 * len(tokens) + 1.5
        _, ax = plt.subplots(figsize=(side + 1, side))
    image = ax.imshow(probabilities, cmap="viridis", vmin=0, vmax=1)
    ax.set_xticks(range(len(tokens)), tokens, rotation=90)
    ax.set_yticks(range(len(tokens)), tokens)
    ax.set(xlabel="attended token", ylabel="token", title=title)
    ax.figure.colorbar(image, ax=ax, fraction=0.046, label="attention")
    return ax


def show_attention(encoder, text: str, layer: int, head: int):
    """The widget's callback: the heatmap of `attention_map(encoder, text, layer, head)`; returns its axes."""
    return plot_attention(*attention_map(encoder, text, layer, head), title=f"layer {layer}, head {head}")


def attention_widget(encoder, text: str = "Rotate the API key after the incident."):
    """A text box and layer and head sliders over the heatmap of `plot_attention`, redrawn in place.

    >>> from ragkit.embed.numpy_encoder import NumpyEncoder
    >>> [child.description for child in attention_widget(NumpyEncoder()).children[:3]]  # doctest: +SKIP
    ['text', 'layer', 'head']
    """
    import ipywidgets as widgets

    box = widgets.Text(value=text, description="text", continuous_update=False, layout={"width": "480px"})
    layer = widgets.IntSlider(value=0, min=0, max=encoder.config["num_hidden_layers"] - 1, description="layer")
    head = widgets.IntSlider(value=0, min=0, max=encoder.config["num_attention_heads"] - 1, description="head")
    image, shown = widgets.Image(format="png"), {}

    def draw(_change=None) -> None:
        if shown.get("text") != box.value:  # a new text: run the encoder once, a figure sized to its tokens
            attention: list[np.ndarray] = []
            encoder.states([box.value], attention)
            side = 0.32 * len(encoder.tokenizer.encode(box.value).tokens) + 1.5
            figure = new_figure(side + 1, side)
            plot_attention(encoder.tokenizer.encode(box.value).tokens, attention[layer.value][0, head.value],
                           figure.subplots())
            figure.tight_layout()
            shown.update(text=box.value, attention=attention, figure=figure)
        ax = shown["figure"].axes[0]
        ax.images[0].set_data(shown["attention"][layer.value][0, head.value])
        ax.set_title(f"layer {layer.value}, head {head.value}")
        show_figure(image, shown["figure"], lambda: [ax.images[0], ax.title])  # labels and colour bar kept

    for control in (box, layer, head):
        control.observe(draw, names="value")
    draw()
    return widgets.VBox([box, layer, head, image])
