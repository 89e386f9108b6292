"""WordPiece from scratch: known answers on tiny cases, and the model's own tokenizer as the reference.

The reference is `tokenizers.Tokenizer` loaded from the model's `tokenizer.json`, truncating at 256 tokens
the way sentence-transformers does (and sentence-transformers itself on a batch). Random text for the property
test is drawn from characters Unicode 3.2 already had with today's category: Python's `unicodedata` (14.0)
and the Rust tokenizer's tables differ on some characters added or re-classified since then.
"""

import re
import unicodedata

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragkit.chunk.base import Chunk
from ragkit.embed.normalize import (
    canonical_order,
    is_control,
    is_punctuation,
    is_whitespace,
    normalize_chars,
    pre_tokenize,
)
from ragkit.embed.wordpiece import WordPieceTokenizer, load_vocab, max_seq_length, wordpiece
from ragkit.errors import RagkitError
from ragkit.widgets.tokens import lost_characters, token_html, token_stats, token_viewer


def stable(char: str) -> bool:
    """Unicode 3.2 had this character, with the category it has today."""
    old = unicodedata.ucd_3_2_0.category(char)
    return old != "Cn" and old == unicodedata.category(char)


STABLE = [chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF and stable(chr(c))]
BMP_STABLE = [c for c in STABLE if ord(c) < 0x10000]


@pytest.fixture(scope="module")
def tokenizer():
    return WordPieceTokenizer()


@pytest.fixture(scope="module")
def reference():
    from tokenizers import Tokenizer

    from ragkit.embed.model import model_path

    tokenizer = Tokenizer.from_file(str(model_path() / "tokenizer.json"))
    tokenizer.enable_truncation(max_length=256)  # sentence-transformers: truncation=True, max_length=256
    tokenizer.no_padding()  # tokenizer.json pads every text to 128; one text at a time needs none
    return tokenizer


def normalized(text):
    return "".join(char for char, _ in normalize_chars(text))


# --- known answers -------------------------------------------------------------------------------------------

def test_greedy_longest_match_first_on_a_toy_vocabulary():
    vocab = {"un": 0, "una": 1, "##aff": 2, "##able": 3, "##ffable": 4, "[UNK]": 5}
    assert wordpiece("unaffable", vocab) == ["una", "##ffable"], "the longest prefix wins, even if it leads elsewhere"
    assert wordpiece("unx", vocab) == ["[UNK]"], "one unmatchable rest makes the whole word [UNK]"
    assert wordpiece("", vocab) == [], "an empty word has no pieces"


def test_words_over_100_characters_are_unknown(tokenizer):
    assert tokenizer.tokenize("a" * 100) != ["[UNK]"], "100 characters is still tried"
    assert tokenizer.tokenize("a" * 101) == ["[UNK]"], "101 characters is one [UNK]"


def test_special_tokens_written_in_the_text_stay_whole(tokenizer):
    assert tokenizer.tokenize("x[UNK]y [MASK] [unk]") == ["x", "[UNK]", "y", "[MASK]", "[", "un", "##k", "]"], \
        "exact special tokens are cut out before normalising; lower-case ones are ordinary text"


def test_cleaning_accents_case_and_chinese():
    assert normalized("Crème\tBrûlée\x00\u200b") == "creme brulee", "accents stripped, tab → space, controls gone"
    assert normalized("年假") == " 年  假 ", "each ideograph gets a space on each side"
    assert [w for w, _, _ in pre_tokenize("申请年假 API")] == ["申", "请", "年", "假", "api"], "one word per ideograph"
    assert is_whitespace("\u3000") and not is_whitespace("\x0b"), "ideographic space is white space; \\v is control"
    assert is_control("\u200b") and not is_control("\n"), "zero-width space is deleted; newline is white space"


def test_ascii_symbols_are_punctuation_even_when_unicode_says_symbol():
    for char in "$+<=>^`|~":
        assert unicodedata.category(char)[0] == "S" and is_punctuation(char), f"{char!r} splits words in BERT"
    assert not is_punctuation("€"), "a non-ASCII symbol (Sc) is not punctuation"
    assert [w for w, _, _ in pre_tokenize("a+b=c")] == ["a", "+", "b", "=", "c"], "symbols become words"


def test_canonical_order_sorts_marks_by_combining_class():
    marks = [("a", 0), ("\u0301", 1), ("\u0323", 2), ("b", 3)]  # acute (230) before dot below (220)
    assert [i for _, i in canonical_order(marks)] == [0, 2, 1, 3], "the mark of lower class comes first"


def test_ids_special_tokens_and_offsets(tokenizer):
    encoding = tokenizer.encode("Idempotency keys")
    assert encoding.tokens == ["[CLS]", "id", "##em", "##pot", "##ency", "keys", "[SEP]"], encoding.tokens
    assert encoding.ids == [101, 8909, 6633, 11008, 11916, 6309, 102], "ids are vocab.txt line numbers"
    assert encoding.attention_mask == [1] * 7, "every real token is attended to"
    assert encoding.offsets[1:-1] == [(0, 2), (2, 4), (4, 7), (7, 11), (12, 16)], "pieces map back to the text"
    vocab = load_vocab()
    assert len(vocab) == 30522 and vocab["[PAD]"] == 0 and max_seq_length() == 256, "the model's vocab and limit"


def test_truncation_keeps_254_pieces_and_reports_what_is_lost(tokenizer):
    text = " ".join(["rotate"] * 300) + " end"
    encoding = tokenizer.encode(text)
    assert len(encoding.ids) == 256 and encoding.tokens[-1] == "[SEP]", "cut at 256 tokens, [SEP] kept"
    assert encoding.dropped == 301 - 254, "pieces beyond the limit are counted"
    assert lost_characters(text, encoding) == len(text) - (254 * 7 - 1), "characters after the last kept piece"
    assert lost_characters("short", tokenizer.encode("short")) == 0, "nothing lost when nothing is cut"


def test_padding_a_batch(tokenizer):
    ids, mask = tokenizer.encode_batch(["hi", "hello there", ""])
    assert ids.tolist() == [[101, 7632, 102, 0], [101, 7592, 2045, 102], [101, 102, 0, 0]], ids.tolist()
    assert mask.tolist() == [[1, 1, 1, 0], [1, 1, 1, 1], [1, 1, 0, 0]], "padding is masked out"


def test_bad_input_is_explained(tokenizer):
    with pytest.raises(RagkitError, match="must be a string"):
        tokenizer.encode(None)
    for bad in [1, 0, True, 3.5]:
        with pytest.raises(RagkitError, match="max_length must be an integer"):
            WordPieceTokenizer(max_length=bad)
    with pytest.raises(RagkitError, match="lacks the special tokens"):
        WordPieceTokenizer(vocab={"a": 0})
    with pytest.raises(RagkitError, match="non-empty list"):
        tokenizer.encode_batch([])
    with pytest.raises(RagkitError, match="non-empty list"):
        tokenizer.encode_batch("one text")
    with pytest.raises(RagkitError, match="corpus is empty"):
        token_stats([], tokenizer)
    with pytest.raises(RagkitError, match="has no vocab.txt"):
        load_vocab("/nonexistent-model-folder")


# --- the table and the display (widget callbacks) ------------------------------------------------------------

def test_token_stats_counts_pieces_unknowns_and_truncation():
    tiny = WordPieceTokenizer(max_length=4)
    chunks = [Chunk("a#0", "a", 0, 9, "Hello 年假", source="hr", lang="zh"),
              Chunk("b#0", "b", 0, 17, "rotate the key now", source="ops", lang="en")]
    stats = token_stats(chunks, tiny)
    assert stats["tokens"].tolist() == [3, 4], "pieces before truncation"
    assert stats["unknown"].tolist() == [1, 0], "假 is not in the vocabulary"
    assert stats["truncated"].tolist() == [True, True] and stats["lost_characters"].tolist() == [1, 8], stats


def test_token_html_boxes_colours_and_escaping(tokenizer):
    page = token_html("idempotency <b>", tokenizer)
    assert page.count("<span title=") == 9, "a box per token: [CLS] 4 pieces < b > [SEP]"
    margins = re.findall(r"margin:0 0 6px (\d+)px", page)
    assert margins == ["0", "8", "0", "0", "0", "8", "2", "2", "8"], f"## pieces touch, < b > nearly: {margins}"
    assert "<b>" not in page and "&lt;" in page, "text is escaped, never rendered as HTML"
    assert "#f4a6a6" in token_html("年假", tokenizer), "[UNK] is red"
    assert "more cut off by the 4-token limit" in token_html("a b c", WordPieceTokenizer(max_length=4)), "cut shown"


def test_token_viewer_wires_the_text_box_to_token_html(tokenizer):
    viewer = token_viewer(tokenizer, text="TS-999")
    box, view = viewer.children
    assert view.value == token_html("TS-999", tokenizer), "the initial view"
    box.value = "idempotency key"
    assert view.value == token_html("idempotency key", tokenizer), "typing updates the view"


# --- the reference --------------------------------------------------------------------------------------------

def test_identical_ids_on_every_chunk_and_query(course_docs, course_queries, tokenizer, reference):
    from ragkit.pipeline import Pipeline

    texts = [chunk.text for chunk in Pipeline(course_docs).chunks] + [query.text for query in course_queries]
    ours = [tokenizer.encode(text) for text in texts]
    theirs = reference.encode_batch(texts)
    ids_wrong = [i for i, (a, b) in enumerate(zip(ours, theirs, strict=True)) if a.ids != b.ids]
    assert not ids_wrong, f"{len(ids_wrong)} of {len(texts)} texts get other ids, e.g. {texts[ids_wrong[0]][:80]!r}"
    offsets_wrong = [i for i, (a, b) in enumerate(zip(ours, theirs, strict=True)) if a.offsets != b.offsets]
    assert not offsets_wrong, f"{len(offsets_wrong)} texts get other offsets"
    assert any(e.dropped for e in ours), "some chunks exceed 256 tokens, so truncation is exercised"


def test_padded_batch_equals_sentence_transformers(course_docs, tokenizer):
    from ragkit.embed.model import load_model

    texts = ["how do I revoke a token?", "年假怎么申请", course_docs[0].text]  # the last one is truncated
    features = load_model().tokenize(texts)
    ids, mask = tokenizer.encode_batch(texts)
    np.testing.assert_array_equal(ids, features["input_ids"].numpy(), err_msg="ids as sentence-transformers")
    np.testing.assert_array_equal(mask, features["attention_mask"].numpy(), err_msg="mask as sentence-transformers")


def test_every_stable_bmp_character_alone(tokenizer, reference):
    texts = [f"a{char}b" for char in BMP_STABLE]
    theirs = reference.encode_batch(texts)
    wrong = [t for t, r in zip(texts, theirs, strict=True) if tokenizer.encode(t).ids != r.ids]
    assert not wrong, f"{len(wrong)} characters tokenize differently, e.g. {[hex(ord(t[1])) for t in wrong[:5]]}"


CHARS = st.one_of(st.characters(max_codepoint=0x17F), st.sampled_from(STABLE), st.sampled_from(" \t\n-/#.年假"))
SPECIALS = st.sampled_from(["[UNK]", "[SEP]", "[MASK]", "[pad]"])  # the model's tokenizer keeps [UNK] etc. whole
TEXT = st.lists(st.one_of(st.text(alphabet=CHARS, max_size=30), SPECIALS), max_size=5).map("".join)


@settings(max_examples=400, deadline=None)
@given(TEXT)
def test_random_unicode_gets_the_reference_ids_and_offsets(tokenizer, reference, text):
    ours, theirs = tokenizer.encode(text), reference.encode(text)
    assert ours.ids == theirs.ids, f"ids differ on {text!r}: {ours.tokens} vs {theirs.tokens}"
    assert ours.offsets == theirs.offsets, f"offsets differ on {text!r}"
    assert ours.attention_mask == theirs.attention_mask, "every token is attended to"
