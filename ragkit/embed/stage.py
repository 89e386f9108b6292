"""The pipeline's embedding stage: which encoder the `encoder` knob names, and the query vectors it gives.

`EmbeddingStage` is a mixin of `ragkit.pipeline.Pipeline` (as `ragkit.generate.stage.AnswerStage` is): the
pipeline keeps one `Encoder` per knob value in `encoders`, each loaded on first use and caching its vectors on
disk beside the first one's, so moving the knob back and forth embeds nothing twice. An encoder passed to the
pipeline serves its own name (its `name`), and a stand-in without one serves the config's encoder. Left out:
mixing encoders in one index (cosines from two models are not comparable).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ragkit.embed.model import Encoder
from ragkit.errors import check_query


def take_encoder(encoder, changes: dict, default: str) -> tuple[dict, dict]:
    """(encoders by knob value, config changes) from the pipeline's `encoder` argument: an object, or a name.

    >>> take_encoder("e5-small", {}, "minilm")
    ({}, {'encoder': 'e5-small'})
    """
    if isinstance(encoder, str):  # the `encoder` knob given by name, like any other knob
        return {}, {**changes, "encoder": encoder}
    return ({} if encoder is None else {getattr(encoder, "name", default): encoder}), changes


class EmbeddingStage:
    """The encoder the config names, its model name and the query vectors (mixed into `Pipeline`)."""

    @property
    def encoder(self) -> Encoder:
        """The encoder the config names (`ragkit.embed.encoders`), loaded once, cached beside the first one.

        >>> from ragkit import Pipeline, load_documents
        >>> Pipeline(load_documents("data/corpus"), encoder="use-m3").encoder.dimensions
        512
        """
        name = self.config.encoder
        if name not in self.encoders:
            folder = next((getattr(e, "cache_folder", None) for e in self.encoders.values()), None)
            self.encoders[name] = Encoder(name, cache_folder=folder)
        return self.encoders[name]

    @property
    def model_name(self) -> str:
        """The configured encoder's model (in embedding and score keys)."""
        return getattr(self.encoder, "model_name", type(self.encoder).__name__)

    def embed_queries(self, queries: Sequence[str]) -> np.ndarray:
        """Unit vectors, one row per query (e5 reads "query: " first; a stand-in encoder reads them as passages).

        >>> from ragkit import Pipeline, load_documents
        >>> Pipeline(load_documents("data/corpus"), encoder="e5-small").embed_queries(["年假"]).shape
        (1, 384)
        """
        encoder, queries = self.encoder, [check_query(query) for query in queries]
        return encoder.encode_queries(queries) if hasattr(encoder, "encode_queries") else encoder.encode(queries)
