"""See what the model sees: tokens per chunk, what the 256-token limit cuts off, and tokens coloured by piece.

Notebook 01 uses these to show what WordPiece tokenization means for retrieval (`ragkit.embed.wordpiece` derives the
tokenizer itself). Left out: rendering outside a notebook (the viewer is HTML in an ipywidgets box).
"""

from __future__ import annotations

import html
from collections.abc import Sequence

import pandas as pd

from ragkit.embed.wordpiece import CLS, PREFIX, SEP, UNK, Encoding, WordPieceTokenizer
from ragkit.errors import RagkitError

COLOURS = ("#fde2a8", "#b9e0f7")  # alternating piece backgrounds


def lost_characters(text: str, encoding: Encoding) -> int:
    """How many characters of `text` (trailing white space aside) lie after the last piece the model sees.

    >>> lost_characters("rotate the key now", WordPieceTokenizer(max_length=4).encode("rotate the key now"))
    8
    """
    return len(text.rstrip()) - encoding.offsets[-2][1] if encoding.dropped else 0


def token_stats(chunks: Sequence, tokenizer: WordPieceTokenizer) -> pd.DataFrame:
    """One row per chunk: id, doc, source, lang, characters, pieces before truncation, [UNK] pieces, whether
    the limit cuts it, and the characters it loses.

    >>> from ragkit.chunk.base import Chunk
    >>> stats = token_stats([Chunk("d#0", "d", 0, 8, "Hello 年假", lang="zh")], WordPieceTokenizer())
    >>> stats[["tokens", "unknown", "truncated"]].values.tolist()
    [[3, 1, False]]
    """
    if not len(chunks):
        raise RagkitError("no chunks to count tokens in: the corpus is empty")
    rows = []
    for chunk in chunks:
        pieces = tokenizer.pieces(chunk.text)
        encoding = tokenizer.encode_pieces(pieces)
        rows.append((chunk.chunk_id, chunk.doc_id, chunk.source, chunk.lang, len(chunk.text), len(pieces),
                     [p for p, _, _ in pieces].count(UNK), encoding.dropped > 0, lost_characters(chunk.text, encoding)))
    return pd.DataFrame(rows, columns=["chunk_id", "doc_id", "source", "lang", "characters", "tokens",
                                       "unknown", "truncated", "lost_characters"])


def token_html(text: str, tokenizer: WordPieceTokenizer) -> str:
    """What the model gets, as HTML: a box per token (the piece above, its id below), colours alternating;
    a `##` piece touches the piece before it, pieces next to each other in the text (`ts` `-` `999`) nearly
    touch, words apart in the text are spaced apart; [UNK] is red, [CLS] and [SEP] grey.

    >>> token_html("idempotency", WordPieceTokenizer()).count("<span title=")
    6
    """
    encoding = tokenizer.encode(text)
    boxes, previous_end = [], None
    for number, (token, token_id, (start, end)) in enumerate(zip(encoding.tokens, encoding.ids, encoding.offsets,
                                                                  strict=True)):
        special = token in (CLS, SEP) and end == 0
        colour = "#f4a6a6" if token == UNK else "#e4e4e4" if special else COLOURS[number % 2]
        joined = token.startswith(PREFIX)
        gap = 0 if joined or number == 0 else 2 if start == previous_end and not special else 8
        previous_end = None if special else end
        label = f"<span style='color:#888'>##</span>{html.escape(token[2:])}" if joined else html.escape(token)
        boxes.append(f"<span title='{html.escape(token)}: row {token_id} of the embedding table' style='display:"
                     f"inline-block;text-align:center;background:{colour};padding:2px 3px;margin:0 0 6px {gap}px;"
                     f"font-family:monospace'>{label}<br><small>{token_id}</small></span>")
    note = f"{len(encoding.tokens)} tokens, {encoding.tokens.count(UNK)} [UNK]" + (
        f", {encoding.dropped} more cut off by the {tokenizer.max_length}-token limit" if encoding.dropped else "")
    return f"<div style='line-height:1.3'>{''.join(boxes)}</div><small>{note}</small>"


def token_viewer(tokenizer: WordPieceTokenizer | None = None, text: str = "Error TS-999: idempotency key reused"):
    """A text box wired to `token_html`: type, and see the tokens the model gets.

    >>> token_viewer().children[0].value  # doctest: +SKIP
    'Error TS-999: idempotency key reused'
    """
    import ipywidgets as widgets

    tokenizer = tokenizer or WordPieceTokenizer()
    box = widgets.Textarea(value=text, description="text", layout=widgets.Layout(width="95%"))
    view = widgets.HTML(token_html(text, tokenizer))
    box.observe(lambda change: setattr(view, "value", token_html(change["new"], tokenizer)), names="value")
    return widgets.VBox([box, view])
