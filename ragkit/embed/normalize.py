"""BERT's normaliser and pre-tokenizer from scratch: text → normalised characters → words.

Notebook 01 derives it step by step for all-MiniLM-L6-v2, before WordPiece (`ragkit.embed.wordpiece`) cuts
the words into pieces; together they give the model's own tokenizer's ids on every chunk and query. Each
normalised character keeps the position of the original character it came from, so words (and their pieces)
map back to the text. Left out: the vocabulary, WordPiece and ids (`ragkit.embed.wordpiece`), speed (the Rust
tokenizer is faster), and Unicode data newer than Python's `unicodedata`.
"""

from __future__ import annotations

import unicodedata

CJK_RANGES = ((0x4E00, 0x9FFF), (0x3400, 0x4DBF), (0x20000, 0x2A6DF), (0x2A700, 0x2B73F), (0x2B740, 0x2B81F),
              (0x2B820, 0x2CEAF), (0xF900, 0xFAFF), (0x2F800, 0x2FA1F))


Chars = list[tuple[str, int]]  # characters, each with the position in the original text it came from


def is_whitespace(char: str) -> bool:
    """Tab, newline, return, or Unicode white space that is not a control character.

    >>> [is_whitespace(c) for c in " \\t\\u3000x"]
    [True, True, True, False]
    """
    return char in "\t\n\r" or (char.isspace() and not unicodedata.category(char).startswith("C"))


def is_control(char: str) -> bool:
    """Control, format and private-use characters, which BERT deletes (tab, newline, return are white space).

    >>> [is_control(c) for c in "\\x00\\u200b\\na"]
    [True, True, False, False]
    """
    return char not in "\t\n\r" and unicodedata.category(char) in ("Cc", "Cf", "Co")


def is_punctuation(char: str) -> bool:
    """BERT's punctuation: every ASCII character that is not a letter, digit or space, and Unicode's P*.

    >>> [is_punctuation(c) for c in "-$/`。a"]
    [True, True, True, True, True, False]
    """
    code = ord(char)
    return 33 <= code <= 47 or 58 <= code <= 64 or 91 <= code <= 96 or 123 <= code <= 126 or \
        unicodedata.category(char).startswith("P")


def is_chinese_char(char: str) -> bool:
    """A CJK ideograph, which BERT makes a word of its own (kana and hangul are not included).

    >>> [is_chinese_char(c) for c in "年a"]
    [True, False]
    """
    return any(low <= ord(char) <= high for low, high in CJK_RANGES)


def canonical_order(chars: Chars) -> Chars:
    """Sort each run of combining marks by combining class, as NFD does after decomposing.

    >>> [hex(ord(c)) for c, _ in canonical_order([("a", 0), ("\\u0301", 1), ("\\u0323", 2)])]
    ['0x61', '0x323', '0x301']
    """
    out, run = [], []
    for item in [*chars, ("", -1)]:
        if item[0] and unicodedata.combining(item[0]):
            run.append(item)
            continue
        out += sorted(run, key=lambda pair: unicodedata.combining(pair[0])) + ([item] if item[0] else [])
        run = []
    return out


def normalize_chars(text: str) -> Chars:
    """BERT's normaliser with origins: delete controls, white space → " ", a space each side of a CJK
    ideograph, strip accents (NFD, then drop Mn, the non-spacing marks), lower-case.

    >>> "".join(c for c, _ in normalize_chars("Café\\u200b\\t年假"))
    'cafe  年  假 '
    """
    spaced: Chars = []
    for i, char in enumerate(text):
        if char in "\x00\ufffd" or is_control(char):
            continue
        spaced += [(" ", i), (char, i), (" ", i)] if is_chinese_char(char) else \
            [(" " if is_whitespace(char) else char, i)]
    decomposed = canonical_order([(c, i) for char, i in spaced for c in unicodedata.normalize("NFD", char)])
    return [(c, i) for char, i in decomposed if unicodedata.category(char) != "Mn" for c in char.lower()]


def normalize(text: str) -> str:
    """The normalised text, without the origins.

    >>> normalize("Crème Brûlée\tTS-999")
    'creme brulee ts-999'
    """
    return "".join(char for char, _ in normalize_chars(text))


def split_words(text: str) -> list[Chars]:
    """Words of the normalised text: white space ends a word and is dropped; punctuation is a word of its own.

    >>> ["".join(c for c, _ in word) for word in split_words("Fix TS-999!")]
    ['fix', 'ts', '-', '999', '!']
    """
    words: list[Chars] = [[]]
    for char, origin in normalize_chars(text):
        if is_whitespace(char) or is_punctuation(char):
            words += [[(char, origin)], []] if is_punctuation(char) else [[]]
        else:
            words[-1].append((char, origin))
    return [word for word in words if word]


def pre_tokenize(text: str) -> list[tuple[str, int, int]]:
    """Each word with the `[start, end)` of the original characters it came from.

    >>> pre_tokenize("Café, TS-999")
    [('cafe', 0, 4), (',', 4, 5), ('ts', 6, 8), ('-', 8, 9), ('999', 9, 12)]
    """
    return [("".join(c for c, _ in word), word[0][1], word[-1][1] + 1) for word in split_words(text)]
