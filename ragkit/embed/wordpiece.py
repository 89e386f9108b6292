"""BERT's tokenizer from scratch: a text's words → WordPiece pieces → ids, over the model's vocabulary.

Notebook 01 derives it step by step for all-MiniLM-L6-v2 (its `vocab.txt`, its 256-token limit) and proves it
gives the model's own tokenizer's ids on every chunk and query. The words come from `ragkit.embed.normalize`,
each normalised character with the position of the original character it came from, so pieces map back to the
text (to colour them, and to measure what the limit cuts off). Left out: normalising and splitting into words
(`ragkit.embed.normalize`), training a vocabulary, sentence pairs (token type 1), overflow windows with a
stride, decoding, and speed (the Rust tokenizer is faster).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ragkit.embed.normalize import split_words
from ragkit.errors import RagkitError

UNK, CLS, SEP, PAD, PREFIX = "[UNK]", "[CLS]", "[SEP]", "[PAD]", "##"


SPECIAL = re.compile(r"\[(?:PAD|UNK|CLS|SEP|MASK)\]")  # kept whole when written in the text, as HF does


MAX_WORD_CHARS = 100  # a longer word becomes one [UNK] without trying WordPiece


def _model_file(name: str, folder: str | Path | None) -> Path:
    """A file of the model folder (default: the installed model's), or a clear error."""
    from ragkit.embed.model import model_path

    path = Path(folder if folder is not None else model_path()) / name
    if not path.is_file():
        raise RagkitError(f"the model folder has no {name}: {path}")
    return path


def load_vocab(folder: str | Path | None = None) -> dict[str, int]:
    """Token → id from `vocab.txt`: one token a line, the id is the line number from 0.

    >>> vocab = load_vocab()
    >>> len(vocab), vocab["[PAD]"], vocab["[UNK]"], vocab["[CLS]"], vocab["[SEP]"]
    (30522, 0, 100, 101, 102)
    """
    tokens = _model_file("vocab.txt", folder).read_text(encoding="utf-8").removesuffix("\n").split("\n")
    return {token: i for i, token in enumerate(tokens)}


def max_seq_length(folder: str | Path | None = None) -> int:
    """The model's token limit (special tokens included), from `sentence_bert_config.json`.

    >>> max_seq_length()
    256
    """
    return int(json.loads(_model_file("sentence_bert_config.json", folder).read_text())["max_seq_length"])


def wordpiece(word: str, vocab: dict[str, int]) -> list[str]:
    """Greedy longest-match-first: take the longest vocabulary entry that starts the rest of the word (with
    `##` after the first piece); if some rest matches nothing, or the word is over 100 characters: [UNK].

    >>> vocab = {"un": 0, "##aff": 1, "##able": 2, "a": 3}
    >>> wordpiece("unaffable", vocab), wordpiece("unafx", vocab)
    (['un', '##aff', '##able'], ['[UNK]'])
    """
    if len(word) > MAX_WORD_CHARS:
        return [UNK]
    pieces, start = [], 0
    while start < len(word):
        end = next((end for end in range(len(word), start, -1)
                    if (PREFIX if start else "") + word[start:end] in vocab), None)
        if end is None:
            return [UNK]
        pieces.append((PREFIX if start else "") + word[start:end])
        start = end
    return pieces


@dataclass(frozen=True)
class Encoding:
    """One text ready for the model; `offsets` are `[start, end)` in the text, `dropped` counts cut pieces."""

    tokens: list[str]
    ids: list[int]
    attention_mask: list[int]
    offsets: list[tuple[int, int]]
    dropped: int


class WordPieceTokenizer:
    """BERT's uncased tokenizer over the model's vocabulary, truncating at `max_length` tokens.

    >>> tokenizer = WordPieceTokenizer()
    >>> tokenizer.tokenize("Idempotency keys")
    ['id', '##em', '##pot', '##ency', 'keys']
    >>> tokenizer.encode("Idempotency keys").ids
    [101, 8909, 6633, 11008, 11916, 6309, 102]
    """

    def __init__(self, vocab: dict[str, int] | None = None, max_length: int | None = None):
        self.vocab = vocab if vocab is not None else load_vocab()
        self.max_length = max_length if max_length is not None else max_seq_length()
        if isinstance(self.max_length, bool) or not isinstance(self.max_length, int) or self.max_length < 2:
            raise RagkitError(f"max_length must be an integer ≥ 2 (room for [CLS] and [SEP]), got {self.max_length!r}")
        missing = [token for token in (UNK, CLS, SEP, PAD) if token not in self.vocab]
        if missing:
            raise RagkitError(f"the vocabulary lacks the special tokens {missing}")

    def pieces(self, text: str) -> list[tuple[str, int, int]]:
        """Every piece of `text` with its `[start, end)` in `text`; no special tokens added, no truncation.
        A special token written in the text ("[SEP]") is one piece, cut out before normalising."""
        if not isinstance(text, str):
            raise RagkitError(f"the text to tokenize must be a string, got {type(text).__name__}")
        out, start = [], 0
        for match in [*SPECIAL.finditer(text), None]:
            end = match.start() if match else len(text)
            for word in split_words(text[start:end]):
                position = 0  # in the word's normalised characters
                for piece in wordpiece("".join(c for c, _ in word), self.vocab):
                    length = len(word) if piece == UNK else len(piece) - len(PREFIX) * piece.startswith(PREFIX)
                    out.append((piece, start + word[position][1], start + word[position + length - 1][1] + 1))
                    position += length
            if match:
                out.append((match.group(), match.start(), match.end()))
                start = match.end()
        return out

    def tokenize(self, text: str) -> list[str]:
        """The pieces of `text`, as strings."""
        return [piece for piece, _, _ in self.pieces(text)]

    def encode(self, text: str) -> Encoding:
        """[CLS], the first `max_length - 2` pieces, [SEP]; with ids, attention mask and offsets."""
        return self.encode_pieces(self.pieces(text))

    def encode_pieces(self, pieces: list[tuple[str, int, int]]) -> Encoding:
        """`encode` for pieces already cut (`self.pieces(text)`)."""
        kept = pieces[: self.max_length - 2]
        tokens = [CLS, *(piece for piece, _, _ in kept), SEP]
        offsets = [(0, 0), *((start, end) for _, start, end in kept), (0, 0)]
        return Encoding(tokens, [self.vocab[t] for t in tokens], [1] * len(tokens), offsets, len(pieces) - len(kept))

    def encode_batch(self, texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """Ids and attention masks, padded with [PAD] (id 0, mask 0) to the longest text: shape (n, longest).

        >>> ids, mask = WordPieceTokenizer().encode_batch(["hi", "hello there"])
        >>> ids.tolist(), mask.tolist()
        ([[101, 7632, 102, 0], [101, 7592, 2045, 102]], [[1, 1, 1, 0], [1, 1, 1, 1]])
        """
        if isinstance(texts, str) or not len(texts):
            raise RagkitError("encode_batch needs a non-empty list of texts")
        encodings = [self.encode(text) for text in texts]
        ids = np.full((len(texts), max(len(e.ids) for e in encodings)), self.vocab[PAD], dtype=np.int64)
        mask = np.zeros_like(ids)
        for row, encoding in enumerate(encodings):
            ids[row, : len(encoding.ids)], mask[row, : len(encoding.ids)] = encoding.ids, 1
        return ids, mask
