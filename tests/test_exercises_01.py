"""Notebook 01's exercise checks accept a right answer computed apart from them (with ragkit's from-scratch
WordPiece, where the checks use the model's tokenizer library), reject plausible wrong ones, and give no answer
away in their messages (each rejection is read for the right answer)."""

import pytest
from helpers import exercise_checks, rejection

checks = exercise_checks("tokenization")
TEXT = "Zoë sent ☕ and 奖金 to José"


@pytest.fixture(scope="module")
def vocab():
    from ragkit.embed.wordpiece import load_vocab

    return load_vocab()


@pytest.fixture(scope="module")
def wordpiece_tokenizer(vocab):
    """ragkit's WordPiece at a limit (`wordpiece_tokenizer(128)`), each text cut into pieces once for every
    limit: the pieces do not depend on the limit, which only cuts the encoding, and the fixtures below ask for
    the same chunks' pieces at 256 and at 128 tokens."""
    from ragkit.embed.wordpiece import WordPieceTokenizer

    pieces_by_text = {}

    class PiecesOnce(WordPieceTokenizer):
        def pieces(self, text):
            if text not in pieces_by_text:
                pieces_by_text[text] = super().pieces(text)
            return pieces_by_text[text]

    return lambda max_length=None: PiecesOnce(vocab, max_length)


def unknown_words(words, vocab):
    from ragkit.embed.wordpiece import wordpiece

    return [word for word in words if wordpiece(word, vocab) == ["[UNK]"]]


def library_words(text, **steps):
    """The words of `text` after the tokenizer library's normaliser with only some steps on, then its splitter."""
    from tokenizers.normalizers import BertNormalizer
    from tokenizers.pre_tokenizers import BertPreTokenizer

    options = {"clean_text": True, "handle_chinese_chars": True, "strip_accents": True, "lowercase": True, **steps}
    return [word for word, _ in BertPreTokenizer().pre_tokenize_str(BertNormalizer(**options).normalize_str(text))]


@pytest.fixture(scope="module")
def right_unknown(vocab):
    from ragkit.embed.normalize import pre_tokenize

    return unknown_words([word for word, _, _ in pre_tokenize(TEXT)], vocab)


def test_check_unknown_words_accepts_a_right_answer(right_unknown):
    assert checks.check_unknown_words(right_unknown) == "right"
    assert checks.check_unknown_words(tuple(right_unknown)) == "right", "a tuple will do"


UNKNOWN_WRONG = {
    "not normalised at all": lambda v, r: unknown_words(TEXT.lower().split(), v),
    "no space around CJK": lambda v, r: unknown_words(library_words(TEXT, handle_chinese_chars=False), v),
    "accents kept": lambda v, r: unknown_words(library_words(TEXT, strip_accents=False), v),
    "the pieces, not the words": lambda v, r: ["[UNK]"] * len(r),
    "sorted, not in the order of the text": lambda v, r: sorted(r, reverse=sorted(r) == r),
    "one word left out": lambda v, r: r[1:],
    "every CJK word, known or not": lambda v, r: [w for w in library_words(TEXT) if w in r or "\u4e00" <= w <= "\u9fff"],
}


@pytest.mark.parametrize("slip", UNKNOWN_WRONG, ids=list(UNKNOWN_WRONG))
def test_check_unknown_words_rejects_a_wrong_answer_and_gives_nothing_away(vocab, right_unknown, slip):
    message = rejection(checks.check_unknown_words, UNKNOWN_WRONG[slip](vocab, right_unknown))
    assert not any(word in message for word in right_unknown), message


@pytest.fixture(scope="module")
def english(course_pipe, wordpiece_tokenizer):
    """Each English chunk of the default pipeline: its text and ragkit's WordPiece pieces, with offsets."""
    tokenizer = wordpiece_tokenizer()
    return {c.chunk_id: (c.text, tokenizer.pieces(c.text)) for c in course_pipe.chunks if c.lang == "en"}


def cut_english(english, kept, strip=True):
    """English chunk id → characters after its first `kept` pieces, for the chunks with more pieces."""
    return {i: len(t.rstrip() if strip else t) - p[kept - 1][2] for i, (t, p) in english.items() if len(p) > kept}


def test_check_most_lost_accepts_a_right_answer(english):
    lost = cut_english(english, 254)
    most = max(lost, key=lost.get)
    assert checks.check_most_lost(most, lost[most]) == "right"


def most_pieces(english):
    """The English chunk with the most pieces, and what it loses."""
    most = max(english, key=lambda i: len(english[i][1]))
    return most, cut_english(english, 254)[most]


@pytest.fixture(scope="module")
def stats(course_pipe, wordpiece_tokenizer):
    """ragkit's token table of every chunk, English and Chinese, at the 256- and the 128-token limit."""
    from ragkit.widgets.tokens import token_stats

    return {limit: token_stats(course_pipe.chunks, wordpiece_tokenizer(limit)) for limit in (256, 128)}


def most_of_any_language(stats):
    row = stats[256].sort_values("lost_characters").iloc[-1]
    return row["chunk_id"], row["lost_characters"]


def pieces_dropped(english):
    lost = cut_english(english, 254)
    most = max(lost, key=lost.get)
    return most, len(english[most][1]) - 254


def most_lost_with(english, kept=254, strip=True):
    lost = cut_english(english, kept, strip)
    most = max(lost, key=lost.get)
    return most, lost[most]


MOST_LOST_WRONG = {
    "the chunk with the most pieces": lambda e, s: most_pieces(e),
    "256 pieces kept, not 254": lambda e, s: (most_lost_with(e)[0], cut_english(e, 256)[most_lost_with(e)[0]]),
    "Chinese chunks too": lambda e, s: most_of_any_language(s),
    "pieces dropped, not characters": lambda e, s: pieces_dropped(e),
    "trailing white space counted": lambda e, s: most_lost_with(e, strip=False),
    "the characters kept, not lost": lambda e, s: (most_lost_with(e)[0], e[most_lost_with(e)[0]][1][253][2]),
}


@pytest.mark.parametrize("slip", MOST_LOST_WRONG, ids=list(MOST_LOST_WRONG))
def test_check_most_lost_rejects_a_wrong_answer_and_gives_nothing_away(english, stats, slip):
    message = rejection(checks.check_most_lost, *MOST_LOST_WRONG[slip](english, stats))
    most, lost = most_lost_with(english)
    assert most not in message and str(lost) not in message, message


@pytest.fixture(scope="module")
def right_size(course_docs, wordpiece_tokenizer):
    """The largest size whose English chunks all have at most 254 pieces, by ragkit's WordPiece."""
    from ragkit import Pipeline, PipelineConfig

    tokenizer = wordpiece_tokenizer()

    def fits(size):
        chunks = Pipeline(course_docs, PipelineConfig(chunk_size=size, chunk_overlap=50)).chunks
        return all(len(tokenizer.pieces(c.text)) <= 254 for c in chunks if c.lang == "en")

    return next(size for size in range(800, 300, -100) if fits(size))


def test_check_chunk_size_accepts_a_right_answer(right_size):
    assert checks.check_chunk_size(right_size) == "right"


CHUNK_SIZE_WRONG = {
    "the default 800": lambda r: 800,
    "one step too large": lambda r: r + 100,
    "one step too small": lambda r: r - 100,
    "the smallest size, not the largest": lambda r: 400,
    "a size between the steps": lambda r: r + 50,
    "a size outside the list": lambda r: 900,
}


@pytest.mark.parametrize("slip", CHUNK_SIZE_WRONG, ids=list(CHUNK_SIZE_WRONG))
def test_check_chunk_size_rejects_a_wrong_answer_and_gives_nothing_away(right_size, slip):
    message = rejection(checks.check_chunk_size, CHUNK_SIZE_WRONG[slip](right_size))
    assert str(right_size) not in message, message


def cut_and_lost(english, kept):
    lost = cut_english(english, kept)
    return len(lost), sum(lost.values())


def test_check_limit_128_accepts_a_right_answer(english):
    assert checks.check_limit_128(*cut_and_lost(english, 126)) == "right"


def with_chinese_128(stats):
    return stats[128].truncated.sum(), stats[128].lost_characters.sum()


LIMIT_128_WRONG = {
    "the 256-token figures": lambda e, s: cut_and_lost(e, 254),
    "128 pieces kept, not 126": lambda e, s: cut_and_lost(e, 128),
    "Chinese chunks too": lambda e, s: with_chinese_128(s),
    "right count, characters lost at 256": lambda e, s: (cut_and_lost(e, 126)[0], cut_and_lost(e, 254)[1]),
    "the two swapped": lambda e, s: cut_and_lost(e, 126)[::-1],
    "every chunk's characters, not those lost": lambda e, s: (
        cut_and_lost(e, 126)[0], sum(len(e[i][0].rstrip()) for i in cut_english(e, 126))),
}


@pytest.mark.parametrize("slip", LIMIT_128_WRONG, ids=list(LIMIT_128_WRONG))
def test_check_limit_128_rejects_a_wrong_answer_and_gives_nothing_away(english, stats, slip):
    message = rejection(checks.check_limit_128, *LIMIT_128_WRONG[slip](english, stats))
    cut, lost = cut_and_lost(english, 126)
    assert not any(shown in message for shown in (str(cut), str(lost), f"{lost:,}")), message
