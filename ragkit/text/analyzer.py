"""BM25's analyzer: word tokens, then optional English stop-word removal and Snowball stemming.

Notebook 05 derives why both matter. Stemming maps "studies"/"study" and "rotated"/"rotate" to one term, so
a query word matches its other forms; stop words ("the", "of", "is") occur everywhere and only add noise to
long queries. Splitting identifiers at - and / (as Lucene's standard tokenizer does) lets "boundary-layer"
match "boundary layer", at the price of TS-203 becoming two terms. The stop list `en` is Lucene's default English set (33 words, the one `bm25s` calls "en" and
Anserini's BEIR baselines use); the stemmer is the Snowball English stemmer ("Porter 2") in C from the
PyStemmer package, the one bm25s uses. Documents and queries go through the same analyzer. Chinese words
come from jieba (`ragkit.text.words`) and pass through both steps unchanged. For speed on large corpora each
distinct word is stemmed once (the analyzer remembers its stems, and `tokens_of_all` stems a corpus's new
words in one `stemWords` call, with the garbage collector paused), a text without Chinese characters skips
the script split, and `tokens_of_all` cuts an ASCII text in C (`bytes.translate`, then `split`) and looks each
distinct piece up once: the same tokens, byte for byte (tests/test_analyzer.py compares them on the course and
Cranfield). Left out: other languages' stemmers and stop lists, lemmatization, synonyms, and n-grams.
"""

from __future__ import annotations

import gc
import re
from collections.abc import Iterable
from itertools import chain

from ragkit.errors import RagkitError
from ragkit.text.words import HAN_RUN, WORD, word_tokens

STEMMERS = ("none", "snowball")
STOPWORD_LISTS = ("none", "en")
IDENTIFIERS = ("whole", "split")
JOINERS = re.compile(r"[-/]")  # where Lucene's standard tokenizer cuts an identifier such as ts-203 or v2/sessions
SPLIT_WORD = re.compile(WORD.pattern.replace(r"\-/", ""))  # `WORD` on a text whose - and / are cut: same words
JOINED = {"whole": "._-/:", "split": "._:"}  # the characters `WORD` and `SPLIT_WORD` allow inside a word


def ascii_table(joiners: str) -> bytes:
    """A `bytes.translate` table: A-Z lower-cased, a-z, 0-9 and the joiners kept, any other byte a space (no word
    of `WORD` or `SPLIT_WORD` can hold it, so it only separates).

    >>> b"Rotate TS-203, now!".translate(ascii_table(JOINED["split"])).split()
    [b'rotate', b'ts', b'203', b'now']
    """
    keep = set(b"abcdefghijklmnopqrstuvwxyz0123456789" + joiners.encode())
    return bytes(c + 32 if 65 <= c <= 90 else c if c in keep else 32 for c in range(256))


LUCENE_ENGLISH_STOP_WORDS = frozenset("""
a an and are as at be but by for if in into is it no not of on or such that the their then there these they this
to was will with
""".split())


def snowball_stemmer():
    """PyStemmer's English Snowball stemmer, or a clear error when the package is missing.

    >>> snowball_stemmer().stemWords(["studies", "rotated", "keys"])
    ['studi', 'rotat', 'key']
    """
    try:
        import Stemmer
    except ImportError:
        raise RagkitError("stemmer='snowball' needs the PyStemmer package: run `pip install PyStemmer` "
                          "(or `make install`), or set stemmer='none'") from None
    return Stemmer.Stemmer("english")


class Analyzer:
    """Turns a text into BM25 terms: `word_tokens`, identifiers split (or kept whole), stop words dropped,
    the rest stemmed.

    >>> Analyzer(stemmer="snowball", stopwords="en").tokens("The keys are rotated; rotate the key yearly")
    ['key', 'rotat', 'rotat', 'key', 'year']
    >>> Analyzer().tokens("The keys are rotated: TS-203 on /v2/sessions")
    ['the', 'keys', 'are', 'rotated', 'ts-203', 'on', 'v2/sessions']
    >>> Analyzer(identifiers="split").tokens("TS-203 on /v2/sessions")
    ['ts', '203', 'on', 'v2', 'sessions']
    """

    def __init__(self, stemmer: str = "none", stopwords: str = "none", identifiers: str = "whole"):
        for name, value, choices in (("stemmer", stemmer, STEMMERS), ("stopwords", stopwords, STOPWORD_LISTS),
                                     ("identifiers", identifiers, IDENTIFIERS)):
            if value not in choices:
                raise RagkitError(f"unknown {name} {value!r}; choose one of {', '.join(choices)}")
        self.stemmer, self.stopwords, self.identifiers = stemmer, stopwords, identifiers
        self._stem = None
        if stemmer == "snowball":
            snowball = snowball_stemmer()
            snowball.maxCacheSize = 0  # its own cache thrashes on a large corpus; `stems` keeps one of its own
            self._stem = snowball.stemWords
        self._stop = LUCENE_ENGLISH_STOP_WORDS if stopwords == "en" else frozenset()
        self._stems: dict[str, str] = {}  # word -> stem, every word stemmed so far (grows with the vocabulary)
        word = SPLIT_WORD if identifiers == "split" else WORD
        self._bytes_word, self._table = re.compile(word.pattern.encode()), ascii_table(JOINED[identifiers])
        self._pieces: dict[bytes, str] = {}  # a piece of ASCII text -> its one token, or "" (see `tokens_of_all`)
        self._multi: dict[bytes, tuple[str, ...]] = {}  # a piece of ASCII text -> its tokens, when not one

    def words(self, text: str) -> list[str]:
        """The word tokens of one text, identifiers split or whole, stop words dropped (not yet stemmed).

        >>> Analyzer(stopwords="en", identifiers="split").words("The TS-203 keys")
        ['ts', '203', 'keys']
        """
        if text.isascii() or not HAN_RUN.search(text):  # no Chinese: one regular expression over the text
            words = (SPLIT_WORD if self.identifiers == "split" else WORD).findall(text.lower())
        else:  # cutting the text at - and / cuts every identifier there
            words = word_tokens(JOINERS.sub(" ", text) if self.identifiers == "split" else text)
        return [word for word in words if word not in self._stop] if self._stop else words

    def stems(self, token_lists: list[list[str]]) -> list[list[str]]:
        """Every list's words stemmed; the words not met before are stemmed together, once each.

        >>> Analyzer("snowball").stems([["keys", "rotated"], ["keys"]])
        [['key', 'rotat'], ['key']]
        """
        if self._stem is None:
            return token_lists
        known = self._stems
        new = list(set(chain.from_iterable(token_lists)).difference(known))
        known.update(zip(new, self._stem(new), strict=True))
        return [list(map(known.__getitem__, words)) for words in token_lists]

    def tokens(self, text: str) -> list[str]:
        """The BM25 terms of one text.

        >>> Analyzer("snowball", identifiers="split").tokens("Rotated TS-203 keys")
        ['rotat', 'ts', '203', 'key']
        """
        return self.stems([self.words(text)])[0]

    def tokens_of_all(self, texts: Iterable[str]) -> list[list[str]]:
        """`tokens` of every text. An ASCII text is cut by one `bytes.translate` (letters lower-cased, every byte
        that cannot be in a word made a space) and `split`, in C; each distinct piece is looked up once in the
        regular expression, the stop list and the stemmer, and remembered with its tokens.

        >>> Analyzer(stopwords="en").tokens_of_all(["The key: keys.", "密钥轮换"])
        [['key', 'keys'], ['密钥', '轮换']]
        """
        enabled = gc.isenabled()
        gc.disable()  # millions of new strings and lists, no cycles: collections would only walk them again
        try:
            texts = list(texts)
            pieces = [text.encode().translate(self._table).split() if text.isascii() else None for text in texts]
            others = self.stems([self.words(texts[i]) for i, cut in enumerate(pieces) if cut is None])
            self._learn(set(chain.from_iterable(cut for cut in pieces if cut is not None)).difference(
                self._pieces, self._multi))
            token, others = self._pieces.__getitem__, iter(others)
            return [next(others) if cut is None else list(filter(None, map(token, cut)))  # in C: "" is no token
                    if self._multi.keys().isdisjoint(cut) else self._piece_by_piece(cut) for cut in pieces]
        finally:
            if enabled:
                gc.enable()

    def _piece_by_piece(self, cut: list[bytes]) -> list[str]:
        """The tokens of a text holding a piece of several tokens (or of one empty stem)."""
        return [token for piece in cut for token in (self._multi[piece] if piece in self._multi else filter(
            None, (self._pieces[piece],)))]

    def _learn(self, pieces: set[bytes]) -> None:
        """Remembers the tokens of new pieces of ASCII text: one token (or "" for none) in `_pieces`, more in
        `_multi` (as "a..b" gives "a" and "b")."""
        plain = [piece for piece in pieces if piece.isalnum()]  # no joiner: the piece is one word (most are)
        words = list(map(bytes.decode, plain))
        stems = self._stem(words) if self._stem is not None else words
        self._pieces.update(zip(plain, ["" if word in self._stop else stem for word, stem in zip(words, stems, strict=True)],
                                strict=True))
        if "" in stems:  # a stem with no letters ("" is taken to mean no token): none seen, kept exact anyway
            self._multi.update((piece, ("",)) for piece, word, stem in zip(plain, words, stems, strict=True)
                               if not stem and word not in self._stop)
        joined = {piece: [word for word in map(bytes.decode, self._bytes_word.findall(piece)) if word not in self._stop]
                  for piece in pieces if not piece.isalnum()}
        for piece, tokens in zip(joined, self.stems(list(joined.values())), strict=True):
            if len(tokens) <= 1 and all(tokens):
                self._pieces[piece] = tokens[0] if tokens else ""
            else:
                self._multi[piece] = tuple(tokens)
