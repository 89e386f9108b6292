"""Notebook 02's exercise checks accept a right answer computed apart from them (with ragkit's numpy forward pass
and its from-scratch WordPiece, where the checks read sentence-transformers in torch), reject plausible wrong
ones, and give no answer away in their messages (each rejection is read for the right answer)."""

import re

import numpy as np
import pytest
from helpers import exercise_checks, rejection

checks = exercise_checks("embeddings")
SENTENCE = "Rotate the API key before the old token expires."
TEXTS = ["how do I revoke a token?", SENTENCE, "Quarterly revenue grew by twelve percent."]
PAIR = ["dog bites man", "man bites dog"]


def unit(vectors):
    return vectors / np.linalg.norm(vectors, axis=-1, keepdims=True)


@pytest.fixture(scope="module")
def model():
    """ragkit's numpy forward pass: weights, config, and the from-scratch WordPiece tokenizer (256 tokens)."""
    from ragkit.embed.layers import load_config, load_weights
    from ragkit.embed.wordpiece import WordPieceTokenizer

    return {"weights": load_weights(), "config": load_config(), "tokenizer": WordPieceTokenizer()}


def states(model, texts, weights=None, attention=None):
    """Token states of `texts` as one padded batch, and the mask, from ragkit's numpy layers."""
    from ragkit.embed.layers import token_states

    ids, mask = model["tokenizer"].encode_batch(texts)
    return token_states(ids, mask, weights or model["weights"], model["config"], attention), mask


@pytest.fixture(scope="module")
def heads(model):
    """Per layer and head, three shares of the sentence's attention: on the next token, on the previous one,
    and on the next with the last token wrapping round to [CLS]; and on the token itself."""
    attention = []
    states(model, [SENTENCE], attention=attention)
    shares = {"next": [], "previous": [], "wrapped": [], "itself": [], "next, summed": []}
    for layer in attention:
        p = layer[0]
        n = p.shape[-1]
        shares["next"].append([np.mean([p[h, i, i + 1] for i in range(n - 1)]) for h in range(len(p))])
        shares["next, summed"].append([np.sum([p[h, i, i + 1] for i in range(n - 1)]) for h in range(len(p))])
        shares["previous"].append([np.mean([p[h, i, i - 1] for i in range(1, n)]) for h in range(len(p))])
        shares["wrapped"].append([np.mean([p[h, i, (i + 1) % n] for i in range(n)]) for h in range(len(p))])
        shares["itself"].append([np.mean([p[h, i, i] for i in range(n)]) for h in range(len(p))])
    return {name: np.array(values) for name, values in shares.items()}


def best(shares, rank=1):
    """(layer, head, share) of the head with the `rank`-th largest share."""
    layer, head = np.unravel_index(np.argsort(shares, axis=None)[-rank], shares.shape)
    return int(layer), int(head), float(shares[layer, head])


def test_check_next_token_head_accepts_a_right_answer(heads):
    assert checks.check_next_token_head(*best(heads["next"])) == "right"


NEXT_TOKEN_WRONG = {
    "the previous-token head": lambda s: best(s["previous"]),
    "counted from 1": lambda s: (best(s["next"])[0] + 1, best(s["next"])[1] + 1, best(s["next"])[2]),
    "the last token wraps round to [CLS]": lambda s: (*best(s["next"])[:2], s["wrapped"][best(s["next"])[:2]]),
    "the runner-up": lambda s: best(s["next"], rank=2),
    "layer and head swapped": lambda s: (best(s["next"])[1], best(s["next"])[0], best(s["next"])[2]),
    "the sum, not the mean": lambda s: (*best(s["next"])[:2], s["next, summed"][best(s["next"])[:2]]),
    "the weight on the token itself": lambda s: best(s["itself"]),
}


@pytest.mark.parametrize("slip", NEXT_TOKEN_WRONG, ids=list(NEXT_TOKEN_WRONG))
def test_check_next_token_head_rejects_a_wrong_answer_and_gives_nothing_away(heads, slip):
    message = rejection(checks.check_next_token_head, *NEXT_TOKEN_WRONG[slip](heads))
    layer, head, share = best(heads["next"])
    assert f"{share:.3f}" not in message and not re.search(rf"layer {layer}\b|head {head}\b", message), message


@pytest.fixture(scope="module")
def pair(model):
    """The two texts' token states and mask, with the position table, without it, and without the token-type
    table."""
    weights = model["weights"]
    zeroed = {name: {**weights, key: np.zeros_like(weights[key])} for name, key in [
        ("no positions", "embeddings.position_embeddings.weight"),
        ("no token types", "embeddings.token_type_embeddings.weight")]}
    return {"with": states(model, PAIR), **{name: states(model, PAIR, w) for name, w in zeroed.items()}}


def cosine(pair, which="with", pool="mean", scale=True):
    h, mask = pair[which]
    m = mask[:, :, None]
    vectors = (h * m).sum(axis=1) / m.sum(axis=1) if pool == "mean" else h[:, 0]
    vectors = unit(vectors) if scale else vectors
    return float(vectors[0] @ vectors[1])


def test_check_positions_accepts_a_right_answer(pair):
    assert checks.check_positions(cosine(pair, "no positions"), cosine(pair)) == "right"


POSITIONS_WRONG = {
    "the two swapped": lambda p: (cosine(p), cosine(p, "no positions")),
    "the token-type table zeroed instead": lambda p: (cosine(p, "no token types"), cosine(p)),
    "[CLS] pooling, not mean": lambda p: (cosine(p, "no positions", "cls"), cosine(p, pool="cls")),
    "not scaled to length 1": lambda p: (cosine(p, "no positions", scale=False), cosine(p, scale=False)),
    "cosine distance, not cosine": lambda p: (1 - cosine(p, "no positions"), 1 - cosine(p)),
}


@pytest.mark.parametrize("slip", POSITIONS_WRONG, ids=list(POSITIONS_WRONG))
def test_check_positions_rejects_a_wrong_answer_and_gives_nothing_away(pair, slip):
    message = rejection(checks.check_positions, *POSITIONS_WRONG[slip](pair))
    assert f"{cosine(pair):.3f}" not in message and not re.search(r"\b1(\.0+)?\b", message), message


@pytest.fixture(scope="module")
def batch(model):
    return states(model, TEXTS)


def test_check_unmasked_accepts_a_right_answer(batch):
    h, _ = batch
    assert checks.check_unmasked(unit(h.mean(axis=1))) == "right"
    assert checks.check_unmasked(unit(h.mean(axis=1)).tolist()) == "right", "nested lists will do"


def library_vectors():
    from ragkit.embed.model import load_model

    return load_model().encode(TEXTS, normalize_embeddings=True, show_progress_bar=False)


UNMASKED_WRONG = {
    "the mask used after all": lambda h, m: unit((h * m[:, :, None]).sum(axis=1) / m.sum(axis=1, keepdims=True)),
    "the library's masked vectors": lambda h, m: library_vectors(),
    "not scaled to length 1": lambda h, m: h.mean(axis=1),
    "rows sorted by length": lambda h, m: unit(h.mean(axis=1))[np.argsort(-m.sum(axis=1), kind="stable")],
    "the [CLS] vectors": lambda h, m: unit(h[:, 0]),
    "max over every position": lambda h, m: unit(h.max(axis=1)),
    "the shortest text alone": lambda h, m: unit(h.mean(axis=1))[m.sum(axis=1).argmin()][None],
}


@pytest.mark.parametrize("slip", UNMASKED_WRONG, ids=list(UNMASKED_WRONG))
def test_check_unmasked_rejects_a_wrong_answer_and_gives_nothing_away(batch, slip):
    message = rejection(checks.check_unmasked, UNMASKED_WRONG[slip](*batch))
    assert not any(text in message for text in TEXTS) and "longest" not in message, message


@pytest.fixture(scope="module")
def lengths(model, course_pipe):
    """Per course chunk: its pieces by ragkit's from-scratch WordPiece (which never truncates), its tokens as
    the model's 256-token tokenizer keeps them, and its words."""
    from tokenizers import Tokenizer

    from ragkit.embed.model import model_path

    texts = [chunk.text for chunk in course_pipe.chunks]
    stored = Tokenizer.from_file(str(model_path() / "tokenizer.json"))  # as stored: cut and pad at 128
    pieces = [model["tokenizer"].pieces(text) for text in texts]  # cut once: `encode` would cut them again
    return {"pieces": np.array([len(cut) for cut in pieces]),
            "kept at 256": np.array([len(model["tokenizer"].encode_pieces(cut).ids) for cut in pieces]),
            "stored": np.array([len(e.ids) for e in stored.encode_batch(texts)]),
            "words": np.array([len(text.split()) for text in texts])}


def over(counts):
    return tuple(int((counts > limit).sum()) for limit in (128, 256))


def test_check_truncation_accepts_a_right_answer(lengths):
    assert checks.check_truncation(*over(lengths["pieces"] + 2)) == "right"


TRUNCATION_WRONG = {
    "already cut at 256": lambda n: over(n["kept at 256"]),
    "cut at 128 as stored": lambda n: over(n["stored"]),
    "no [CLS] and [SEP]": lambda n: over(n["pieces"]),
    "words, not tokens": lambda n: over(n["words"]),
    "the two swapped": lambda n: over(n["pieces"] + 2)[::-1],
}


@pytest.mark.parametrize("slip", TRUNCATION_WRONG, ids=list(TRUNCATION_WRONG))
def test_check_truncation_rejects_a_wrong_answer_and_gives_nothing_away(lengths, slip):
    message = rejection(checks.check_truncation, *TRUNCATION_WRONG[slip](lengths))
    assert not any(re.search(rf"\b{count}\b", message) for count in over(lengths["pieces"] + 2)), message
