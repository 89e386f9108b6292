"""The checks of notebook 02's exercises (embeddings and pooling): the next-token head, what positions change,
forgetting the mask, and truncation.

The checks compute their answers with the reference, sentence-transformers running the model in torch (its BERT
network's attention weights and token vectors, its pooled vectors and its tokenizer), never with the notebook's
numpy layers or ragkit's encoder; they hold the notebook's texts and cut the course documents into chunks
themselves (`Pipeline(docs)`: 800 characters, 100 overlap, as the notebook's `pipe`), so a learner's call
needs only the answer. Their tests, with the plausible wrong answers each rejects, are in
`tests/test_exercises_02.py`.
"""

from __future__ import annotations

from contextlib import contextmanager
from functools import cache
from pathlib import Path

import numpy as np
import torch

from ragkit import Pipeline, load_documents
from ragkit.embed.model import load_model

CORPUS = Path(__file__).resolve().parents[2] / "data" / "corpus"
SENTENCE = "Rotate the API key before the old token expires."  # the notebook's `sentence`
TEXTS = ["how do I revoke a token?", SENTENCE, "Quarterly revenue grew by twelve percent."]  # its `texts`
PAIR = ["dog bites man", "man bites dog"]  # exercise 2's texts


@contextmanager
def one_thread():
    """torch on one thread while a check runs (its inputs are a few short texts: more threads only wait on each
    other), then as it was."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)


def reference_outputs(texts):
    """The reference's last token vectors and every layer's attention weights for `texts`, run as one batch
    padded to the longest text (at most 256 tokens each, as the model runs)."""
    reference = load_model()
    bert = reference[0].auto_model
    bert.set_attn_implementation("eager")  # the plain attention code, which returns its weights
    features = reference.tokenizer(texts, padding=True, truncation=True, max_length=reference.max_seq_length,
                                   return_tensors="pt")
    with torch.no_grad(), one_thread():
        out = bert(input_ids=features["input_ids"], attention_mask=features["attention_mask"],
                   output_hidden_states=True, output_attentions=True)
    return out.hidden_states[-1].numpy(), [layer.numpy() for layer in out.attentions]


def unit(vectors):
    """Each row scaled to length 1."""
    return vectors / np.linalg.norm(vectors, axis=-1, keepdims=True)


# What each check compares with depends only on the model and on the texts and course data above, none of
# which changes while a notebook runs: each is computed once, not on every answer.


@cache
def next_token_shares() -> np.ndarray:
    """Per layer and head, the reference's mean attention weight on the next token for `SENTENCE`."""
    _, attention = reference_outputs([SENTENCE])
    return np.array([[np.diagonal(a[0, h], offset=1).mean() for h in range(a.shape[1])] for a in attention])


@cache
def pair_cosine() -> float:
    """The cosine of the reference's mean-pooled unit vectors of the two texts of `PAIR`."""
    with one_thread():
        pair = load_model().encode(PAIR, normalize_embeddings=True, show_progress_bar=False)
    return float(pair[0] @ pair[1])


@cache
def unmasked_vectors() -> np.ndarray:
    """For each text of `TEXTS`, the mean of its reference token vectors over every position of the padded batch,
    scaled to length 1."""
    last, _ = reference_outputs(TEXTS)
    return unit(last.mean(axis=1))


@cache
def chunk_token_counts() -> tuple[int, ...]:
    """Tokens in each course chunk (800 characters, 100 overlap), [CLS] and [SEP] included, none cut off."""
    chunks = Pipeline(load_documents(CORPUS)).chunks
    tokenizer = load_model().tokenizer
    return tuple(len(ids) for ids in tokenizer([c.text for c in chunks], truncation=False, verbose=False)["input_ids"])


def check_next_token_head(layer, head, share):
    """Exercise 1: the head (layer and head counted from 0) whose mean weight on the next token is largest for
    `sentence`, and that mean weight."""
    shares = next_token_shares()
    assert 0 <= layer < shares.shape[0] and 0 <= head < shares.shape[1], "the model has no such layer or head"
    assert shares[layer, head] == shares.max(), "another head puts a larger mean weight on the next token"
    assert abs(share - shares.max()) <= 1e-4, "this is not that head's mean weight on the next token"
    return "right"


def check_positions(cosine_without, cosine_with):
    """Exercise 2: the cosine of the mean-pooled unit vectors of "dog bites man" and "man bites dog", without
    the position table and with it."""
    assert abs(cosine_without - 1) <= 1e-5, "without positions: this is not the cosine of the two mean-pooled vectors"
    assert abs(cosine_with - pair_cosine()) <= 1e-5, \
        "with positions: this is not the cosine of the two mean-pooled vectors"
    return "right"


def check_unmasked(vectors):
    """Exercise 3: for each text of `texts`, the mean of its token vectors over every position of the padded
    batch, padding included, scaled to length 1."""
    expected = unmasked_vectors()
    assert np.shape(vectors) == expected.shape, "your array is not one row of 384 numbers per text of `texts`"
    vectors = np.asarray(vectors, dtype=np.float64)
    assert np.abs(np.linalg.norm(vectors, axis=1) - 1).max() <= 1e-5, "these rows are not unit vectors"
    close = np.abs(vectors[:, None] - expected[None]).max(axis=2) <= 1e-5  # close[i, j]: your row i is row j
    in_order = np.diagonal(close).all()
    assert in_order or not close.any(axis=0).all(), "the rows are not in the order of `texts`"
    assert in_order, "some row is not its text's mean over every position of the padded batch"
    return "right"


def check_truncation(over_128, over_256):
    """Exercise 4: how many course chunks are longer than 128 tokens, and than 256, [CLS] and [SEP] included."""
    counts = chunk_token_counts()
    assert over_256 == sum(n > 256 for n in counts), "this is not the number of chunks longer than 256 tokens"
    assert over_128 == sum(n > 128 for n in counts), "this is not the number of chunks longer than 128 tokens"
    return "right"
