"""BM25's analyzer: stemming and stop words equal bm25s's (same PyStemmer stemmer, same Lucene list), identifiers
split as Lucene's standard tokenizer splits them, BM25 over analyzed terms equal to bm25s, and clear errors."""

import sys

import bm25s
import numpy as np
import pytest
import Stemmer
from hypothesis import given, settings
from hypothesis import strategies as st

from ragkit.errors import RagkitError
from ragkit.index.bm25 import BM25Index
from ragkit.text.analyzer import JOINERS, LUCENE_ENGLISH_STOP_WORDS, SPLIT_WORD, Analyzer, snowball_stemmer
from ragkit.text.words import WORD, word_tokens

WORDS = ["the", "studies", "study", "studying", "of", "mutations", "mutation", "rotated", "rotate", "keys", "is",
         "boundary", "layer", "layers", "heat", "transfer", "transferred", "an", "and", "flows", "flow", "were"]


def bm25s_terms(texts):
    return bm25s.tokenize(texts, stopwords="en", stemmer=Stemmer.Stemmer("english"), return_ids=False,
                          show_progress=False)


def test_known_answers():
    analyzer = Analyzer("snowball", "en", "split")
    assert analyzer.tokens("Studies of boundary-layer mutations") == ["studi", "boundari", "layer", "mutat"]
    assert Analyzer("snowball", "en", "whole").tokens("boundary-layer") == ["boundary-lay"], \
        "whole identifiers are stemmed as one word"
    assert Analyzer("none", "none", "split").tokens("TS-203 on /v2/sessions") == ["ts", "203", "on", "v2", "sessions"]
    assert Analyzer("snowball", "en", "split").tokens("密钥轮换 studies") == ["密钥", "轮换", "studi"], \
        "Chinese words pass through the English stop list and stemmer unchanged"


def test_stop_list_is_lucenes_and_bm25s_english_list():
    from bm25s.stopwords import STOPWORDS_EN

    assert LUCENE_ENGLISH_STOP_WORDS == set(STOPWORDS_EN) and len(LUCENE_ENGLISH_STOP_WORDS) == 33


@settings(max_examples=100, deadline=None)
@given(st.lists(st.lists(st.sampled_from(WORDS), min_size=1, max_size=12), min_size=1, max_size=5))
def test_stemming_and_stop_words_equal_bm25s(sentences):
    texts = [" ".join(words) for words in sentences]
    ours = Analyzer("snowball", "en").tokens_of_all(texts)
    assert ours == bm25s_terms(texts), "same stop list and the same Snowball stemmer as bm25s"


def one_text_at_a_time(text, stemmer, stopwords, identifiers):
    """The analyzer written plainly: split identifiers, word tokens, stop words out, then each word stemmed."""
    words = word_tokens(JOINERS.sub(" ", text) if identifiers == "split" else text)
    words = [word for word in words if stopwords == "none" or word not in LUCENE_ENGLISH_STOP_WORDS]
    return Stemmer.Stemmer("english").stemWords(words) if stemmer == "snowball" else words


pieces = st.sampled_from(["The", "keys", "TS-203", "/v2/sessions", "rotated", "密钥轮换", "İstanbul", "ΣΑΣ", "a.b_c:d",
                          "x--y", "-lead", "trail/", "Studies", "naïve", "v1.2.3", "学分-计算", "foo/bar-baz", "１２３",
                          "café-au-lait", "of", " ", "\n", ", ", "-", "/", "."])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(pieces, max_size=14).map("".join), min_size=1, max_size=6),
       st.sampled_from(["none", "snowball"]), st.sampled_from(["none", "en"]), st.sampled_from(["whole", "split"]))
def test_fast_paths_give_the_plain_analyzers_tokens(texts, stemmer, stopwords, identifiers):
    """Whole-corpus stemming (each distinct word once) and the no-Chinese shortcut change no token."""
    analyzer = Analyzer(stemmer, stopwords, identifiers)
    expected = [one_text_at_a_time(text, stemmer, stopwords, identifiers) for text in texts]
    assert analyzer.tokens_of_all(texts) == expected
    assert [analyzer.tokens(text) for text in texts] == expected, "one text at a time, the stems remembered"
    assert analyzer.tokens_of_all(texts[::-1]) == expected[::-1]


def test_bm25_over_analyzed_terms_equals_bm25s(course_docs):
    texts = [doc.text for doc in course_docs if doc.lang == "en"][:40]
    queries = ["How do I rotate API keys?", "studies of boundary-layer flows", "TS-203 on the v2 sessions endpoint"]
    analyzer = Analyzer("snowball", "en", "split")
    ours = BM25Index(analyzer.tokens_of_all(texts), k1=1.2, b=0.75).scores(analyzer.tokens_of_all(queries))
    reference = bm25s.BM25(method="lucene", k1=1.2, b=0.75, dtype="float64")
    reference.index(analyzer.tokens_of_all(texts), show_progress=False)
    expected = np.array([reference.get_scores(terms) for terms in analyzer.tokens_of_all(queries)])
    np.testing.assert_allclose(ours, expected, rtol=1e-6, atol=1e-9)


def test_bad_input_is_explained(monkeypatch):
    for kwargs, message in [({"stemmer": "porter"}, "unknown stemmer 'porter'"),
                            ({"stopwords": "fr"}, "unknown stopwords 'fr'"),
                            ({"identifiers": "join"}, "unknown identifiers 'join'")]:
        with pytest.raises(RagkitError, match=message):
            Analyzer(**kwargs)
    monkeypatch.setitem(sys.modules, "Stemmer", None)  # as if PyStemmer were not installed
    with pytest.raises(RagkitError, match="needs the PyStemmer package"):
        snowball_stemmer()
    assert Analyzer("none", "en").tokens("the keys") == ["keys"], "without stemming PyStemmer is not needed"


def test_okapi_over_analyzed_terms_equals_rank_bm25(course_docs):
    import rank_bm25

    analyzer = Analyzer("snowball", "none", "split")
    corpus = analyzer.tokens_of_all(doc.text for doc in course_docs if doc.lang == "en")
    queries = analyzer.tokens_of_all(["rotating API keys", "boundary-layer studies", "refunds for annual plans"])
    reference = rank_bm25.BM25Okapi(corpus, k1=1.5, b=0.75)
    np.testing.assert_allclose(BM25Index(corpus, 1.5, 0.75, "okapi").scores(queries),
                               np.array([reference.get_scores(q) for q in queries]), rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("data", ["tests/fixtures/beir_tiny", "data"])
def test_the_published_bm25_setting_runs_from_the_command_line(root, capsys, data):
    import json

    from ragkit.cli import main

    settings = ["--set", "stemmer=snowball", "--set", "stopwords=en", "--set", "k1=1.2", "--set", "b=0.75"]
    assert main(["eval", "--data", str(root / data), "--method", "bm25", "--split", "test" if "beir" in data
                 else "dev", *settings, "--json"]) == 0
    config = json.loads(capsys.readouterr().out.strip().splitlines()[-1])["config"]
    assert (config["stemmer"], config["stopwords"], config["k1"], config["b"]) == ("snowball", "en", 1.2, 0.75)


def test_split_words_are_words_that_no_longer_join_at_hyphens_and_slashes():
    """SPLIT_WORD is WORD with - and / taken out of its joiners: if WORD stopped joining at them, the rewrite would
    do nothing and identifiers="split" would quietly equal "whole"."""
    assert SPLIT_WORD.pattern != WORD.pattern
    assert WORD.findall("ts-203 v2/sessions") == ["ts-203", "v2/sessions"]
    assert SPLIT_WORD.findall("ts-203 v2/sessions sync.max_batch") == ["ts", "203", "v2", "sessions", "sync.max_batch"]


ASCII_PIECES = st.sampled_from(["a..b", "...", "e.g.", "::", "A_B", "x.", ".y", "Tab\t", "ROTATE", "sync.max_batch",
                                "ts-203", "v2/sessions", "__init__", "a:b:", "1.5e-3", "x/", "/y", "(keys)", "'s", "-"])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(ASCII_PIECES | pieces | st.text(st.characters(max_codepoint=127), max_size=6), max_size=12)
                .map("".join), min_size=1, max_size=6),
       st.sampled_from(["none", "snowball"]), st.sampled_from(["none", "en"]), st.sampled_from(["whole", "split"]))
def test_the_ascii_shortcut_gives_the_plain_analyzers_tokens(texts, stemmer, stopwords, identifiers):
    """`tokens_of_all` cuts ASCII texts with bytes.translate and split, and looks each piece up once: every
    character that is not a letter, a digit or a joiner must separate, and every piece give the regex's words."""
    analyzer = Analyzer(stemmer, stopwords, identifiers)
    expected = [one_text_at_a_time(text, stemmer, stopwords, identifiers) for text in texts]
    assert analyzer.tokens_of_all(texts) == expected
    assert analyzer.tokens_of_all(texts + texts[:1]) == expected + expected[:1], "pieces remembered from before"


def course_and_cranfield_texts(root):
    import json

    texts = [path.read_text(encoding="utf-8") for path in sorted((root / "data" / "corpus").glob("*.md"))]
    for name in ("data/queries.jsonl", "data/cranfield/queries.jsonl", "data/cranfield/corpus.jsonl"):
        records = [json.loads(line) for line in (root / name).read_text(encoding="utf-8").splitlines() if line.strip()]
        texts += [f"{record.get('title', '')}\n{record['text']}" for record in records]
    return texts


@pytest.mark.parametrize("stemmer,stopwords,identifiers", [("snowball", "none", "split"), ("snowball", "en", "split"),
                                                           ("none", "none", "whole"), ("snowball", "en", "whole")])
def test_every_course_and_cranfield_text_keeps_its_tokens(root, stemmer, stopwords, identifiers):
    """Every result of the course rests on these tokens: the faster `tokens_of_all` must give, byte for byte, what
    the analyzer written plainly gives, on the course's documents and queries and on Cranfield."""
    texts = course_and_cranfield_texts(root)
    expected = [one_text_at_a_time(text, stemmer, stopwords, identifiers) for text in texts]
    analyzer = Analyzer(stemmer, stopwords, identifiers)
    assert analyzer.tokens_of_all(texts) == expected
    assert [analyzer.tokens(text) for text in texts[:200]] == expected[:200]


def test_an_empty_stem_stays_a_token(monkeypatch):
    """`tokens_of_all` reads "" as "no token" in C; a stem that came out empty must still be a token, as `tokens`
    keeps it (Snowball gives none, but the shortcut must not depend on it)."""
    analyzer = Analyzer("snowball", "en", "split")
    stem = analyzer._stem
    monkeypatch.setattr(analyzer, "_stem", lambda words: ["" if word in ("keys", "a.b") else s
                                                          for word, s in zip(words, stem(words), strict=True)])
    texts = ["The keys rotate", "a.b keys.", "rotate the a.b", "no keys here"]
    assert analyzer.tokens_of_all(texts) == [analyzer.tokens(text) for text in texts] == [
        ["", "rotat"], ["", ""], ["rotat", ""], ["", "here"]]  # "no" is a stop word
