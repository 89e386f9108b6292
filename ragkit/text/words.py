"""Word tokens for lexical retrieval (BM25, keyword scores): lower-cased words, Chinese cut by jieba.

A sub-word tokenizer (notebook 01) serves the embedding model; BM25 needs whole words, because it counts how
often a query's words occur in a chunk. English: lower-case, keep runs of letters, digits and the joiners
inside identifiers (`TS-999`, `/v2/sessions`, `sync.max_batch_size` stay one token each), optional stop
words. Chinese: jieba's word segmentation, its dictionary cache kept inside ragkit's cache folder and its
log silenced. Left out: stemming, and languages other than English and Chinese.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable

from ragkit.cache import cache_dir

HAN_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")


# A word: letters or digits, with ., -, _, / or : allowed inside (not at the ends) to keep identifiers whole.
WORD = re.compile(r"[a-z0-9]+(?:[._\-/:][a-z0-9]+)*")


ENGLISH_STOP_WORDS = frozenset("""
a an and are as at be by can do does for from has have how i if in into is it its of on or our so that the
their then there these this to was were what when where which who why will with you your
""".split())


CHINESE_STOP_WORDS = frozenset("的 了 和 是 在 也 就 都 而 及 与 或 一个 我 你 他 她 它 我们 吗 呢 吧 啊 怎么 什么 如何 哪些 多少".split())


def load_jieba():
    """jieba, initialised once per process with its cache in ragkit's cache folder and its log quiet.

    >>> load_jieba().lcut("第二课堂学分")[:1]
    ['第二课堂']
    """
    import jieba

    jieba.setLogLevel(logging.WARNING)  # its first load logs differently from later loads
    if jieba.dt.tmp_dir is None:
        jieba.dt.tmp_dir = str(cache_dir() / "jieba")
        (cache_dir() / "jieba").mkdir(exist_ok=True)
    return jieba


def split_scripts(text: str) -> list[tuple[bool, str]]:
    """Cut text into runs of Chinese (True) and other (False) characters.

    >>> split_scripts("API 密钥 rotation")
    [(False, 'API '), (True, '密钥'), (False, ' rotation')]
    """
    runs: list[tuple[bool, str]] = []
    end = 0
    for match in HAN_RUN.finditer(text):  # one regular-expression pass, not a Python loop over characters
        if match.start() > end:
            runs.append((False, text[end:match.start()]))
        runs.append((True, match.group()))
        end = match.end()
    if end < len(text):
        runs.append((False, text[end:]))
    return runs


def word_tokens(text: str, stop_words: bool = False) -> list[str]:
    """The word tokens of `text`; with `stop_words=True`, common function words are dropped.

    >>> word_tokens("How do I fix TS-999 on /v2/sessions?")
    ['how', 'do', 'i', 'fix', 'ts-999', 'on', 'v2/sessions']
    >>> word_tokens("How do I fix TS-999?", stop_words=True)
    ['fix', 'ts-999']
    >>> word_tokens("培训学分怎么计算")
    ['培训', '学分', '怎么', '计算']
    """
    tokens: list[str] = []
    for is_han, run in split_scripts(text):
        if is_han:
            tokens.extend(word for word in load_jieba().lcut(run) if word.strip())
        else:
            tokens.extend(WORD.findall(run.lower()))
    if stop_words:
        tokens = [t for t in tokens if t not in ENGLISH_STOP_WORDS and t not in CHINESE_STOP_WORDS]
    return tokens


def tokenize_all(texts: Iterable[str], stop_words: bool = False) -> list[list[str]]:
    """`word_tokens` of every text.

    >>> tokenize_all(["Rotate keys", "密钥轮换"])
    [['rotate', 'keys'], ['密钥', '轮换']]
    """
    return [word_tokens(text, stop_words) for text in texts]
