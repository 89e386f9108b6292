"""The attention heatmap of notebook 02, and a widget with layer and head sliders.

`attention_map` and `plot_attention` are plain functions (unit-tested); `attention_widget` only wires
ipywidgets to them. Left out: attention rollout and head averaging.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ragkit.errors import RagkitError


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
    """A text box and layer and head sliders over `show_attention`.

    >>> from ragkit.embed.numpy_encoder import NumpyEncoder
    >>> [child.description for child in attention_widget(NumpyEncoder()).children[:3]]  # doctest: +SKIP
    ['text', 'layer', 'head']
    """
    import ipywidgets as widgets
    import matplotlib.pyplot as plt

    def update(text: str, layer: int, head: int) -> None:
        show_attention(encoder, text, layer, head)
        plt.show()

    return widgets.interactive(
        update, text=widgets.Text(value=text, description="text", continuous_update=False),
        layer=widgets.IntSlider(value=0, min=0, max=encoder.config["num_hidden_layers"] - 1, description="layer"),
        head=widgets.IntSlider(value=0, min=0, max=encoder.config["num_attention_heads"] - 1, description="head"))
