"""The checks of notebook 01's exercises (tokenization): unknown words (part one, `01_tokenization.ipynb`,
exercise 1), and what truncation costs most, a chunk size that fits and the 128-token limit (part two,
`01_tokenization_retrieval.ipynb`, exercises 1 to 3).

The checks compute their answers with the model's own tokenizer library (`tokenizers`, reading the model's
`tokenizer.json`), not with the notebook's code or ragkit's WordPiece, and they cut the course documents into
chunks themselves (`Pipeline(docs)`: 800 characters, 100 overlap, as the notebook's `pipe`), so a learner's
call needs only the answer. Their tests, with the plausible wrong answers each rejects, are in
`tests/test_exercises_01.py`.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from tokenizers import Tokenizer

from ragkit import Pipeline, PipelineConfig, load_documents
from ragkit.embed.model import model_path

CORPUS = Path(__file__).resolve().parents[2] / "data" / "corpus"
TEXT = "Zoë sent ☕ and 奖金 to José"  # part one's exercise 1: none of its words is tokenized before it
SIZES = range(400, 900, 100)  # part two's exercise 2: the chunk sizes


def library_tokenizer(max_length=256):
    """The model's tokenizer, as `tokenizer.json` describes it, cutting at `max_length` tokens and not padding."""
    tokenizer = Tokenizer.from_file(str(model_path() / "tokenizer.json"))
    tokenizer.enable_truncation(max_length)
    tokenizer.no_padding()
    return tokenizer


def english_chunks(docs, size=800, overlap=100):
    """The English chunks of `docs`, cut into fixed-size windows as the pipeline does."""
    pipe = Pipeline(docs, PipelineConfig(chunk_size=size, chunk_overlap=overlap))
    return [chunk for chunk in pipe.chunks if chunk.lang == "en"]


def characters_lost(text, encoding):
    """Characters of `text` after the last piece its `encoding` kept (trailing white space aside), 0 if nothing
    is cut."""
    return len(text.rstrip()) - encoding.offsets[-2][1] if encoding.overflowing else 0


@cache
def english_cuts(max_length: int) -> tuple[tuple[str, bool, int], ...]:
    """Each English chunk of the course (800 characters, 100 overlap, as the notebook's pipe): its id, whether
    the `max_length`-token limit cuts it, and the characters it loses. Kept per limit, as the course data do
    not change: a learner may answer a check many times."""
    chunks = english_chunks(load_documents(CORPUS))
    encodings = library_tokenizer(max_length).encode_batch([chunk.text for chunk in chunks])
    return tuple((chunk.chunk_id, bool(encoding.overflowing), characters_lost(chunk.text, encoding))
                 for chunk, encoding in zip(chunks, encodings, strict=True))


def check_unknown_words(your_words):
    """Part one, exercise 1: in order, the words of `TEXT` (after normalising and splitting) that become [UNK]."""
    reference = library_tokenizer()
    words = [w for w, _ in reference.pre_tokenizer.pre_tokenize_str(reference.normalizer.normalize_str(TEXT))]
    encoding = reference.encode(TEXT, add_special_tokens=False)
    expected = [words[i] for token, i in zip(encoding.tokens, encoding.word_ids, strict=True) if token == "[UNK]"]
    yours = list(your_words)
    assert "[UNK]" not in yours, "your list holds the [UNK] piece itself, not words"
    assert set(yours) <= set(words), "a word of your list is not a word of the text after normalising and splitting"
    assert set(yours) <= set(expected), "a word of your list does not become [UNK]"
    assert set(expected) <= set(yours), "a word that becomes [UNK] is missing from your list"
    assert yours == expected, "your list does not hold these words once each, in the order of the text"
    return "right"


def check_most_lost(chunk_id, characters):
    """Part two, exercise 1: the English chunk that loses the most characters to the 256-token limit, and how many."""
    lost = {cut_id: lost_here for cut_id, _, lost_here in english_cuts(256)}
    assert chunk_id in lost, "no English chunk of the course has this id"
    assert lost[chunk_id] == max(lost.values()), "another English chunk loses more characters to the 256-token limit"
    assert characters == lost[chunk_id], "this chunk does not lose this many characters to the 256-token limit"
    return "right"


@cache
def english_chunks_cut(size):
    """How many English chunks of `size` characters (50 overlap) the 256-token limit cuts; kept per size."""
    texts = [chunk.text for chunk in english_chunks(load_documents(CORPUS), size, 50)]
    return sum(bool(encoding.overflowing) for encoding in library_tokenizer().encode_batch(texts))


def check_chunk_size(your_size):
    """Part two, exercise 2: the largest of the sizes 400, 500, ..., 800 (50 overlap) at which no English chunk is cut."""
    assert your_size in SIZES, "this is not one of the sizes 400, 500, ..., 800"
    assert english_chunks_cut(your_size) == 0, "at this size the 256-token limit cuts some English chunk"
    assert all(english_chunks_cut(size) > 0 for size in SIZES if size > your_size), \
        "a larger size of the list also leaves every English chunk whole"
    return "right"


def check_limit_128(chunks_cut, characters):
    """Part two, exercise 3: with a limit of 128 tokens, how many English chunks are cut, and how many characters they lose."""
    cut = [lost for _, is_cut, lost in english_cuts(128) if is_cut]
    assert chunks_cut == len(cut), "this is not the number of English chunks that a 128-token limit cuts"
    assert characters == sum(cut), "the chunks a 128-token limit cuts do not lose this many characters in all"
    return "right"
