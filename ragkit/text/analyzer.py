"""BM25's analyzer: word tokens, then optional English stop-word removal and Snowball stemming.

Notebook 05 derives why both matter. Stemming maps "studies"/"study" and "rotated"/"rotate" to one term, so
a query word matches its other forms; stop words ("the", "of", "is") occur everywhere and only add noise to
long queries. Splitting identifiers at - and / (as Lucene's standard tokenizer does) lets "boundary-layer"
match "boundary layer", at the price of TS-203 becoming two terms. The stop list `en` is Lucene's default English set (33 words, the one `bm25s` calls "en" and
Anserini's BEIR baselines use); the stemmer is the Snowball English stemmer ("Porter 2") in C from the
PyStemmer package, the one bm25s uses. Documents and queries go through the same analyzer. Chinese words
come from jieba (`ragkit.text.words`) and pass through both steps unchanged. Left out: other languages'
stemmers and stop lists, lemmatization, synonyms, and n-grams.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ragkit.errors import RagkitError
from ragkit.text.words import word_tokens

STEMMERS = ("none", "snowball")
STOPWORD_LISTS = ("none", "en")
IDENTIFIERS = ("whole", "split")
JOINERS = re.compile(r"[-/]")  # where Lucene's standard tokenizer cuts an identifier such as ts-203 or v2/sessions
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
        self._stem = snowball_stemmer().stemWords if stemmer == "snowball" else None
        self._stop = LUCENE_ENGLISH_STOP_WORDS if stopwords == "en" else frozenset()

    def tokens(self, text: str) -> list[str]:
        """The BM25 terms of one text."""
        if self.identifiers == "split":  # cutting the text at - and / cuts every identifier there
            text = JOINERS.sub(" ", text)
        words = word_tokens(text)
        if self._stop:
            words = [word for word in words if word not in self._stop]
        return self._stem(words) if self._stem is not None else words

    def tokens_of_all(self, texts: Iterable[str]) -> list[list[str]]:
        """`tokens` of every text.

        >>> Analyzer(stopwords="en").tokens_of_all(["the key", "密钥轮换"])
        [['key'], ['密钥', '轮换']]
        """
        return [self.tokens(text) for text in texts]
