"""Cross-encoder reranking, for a reader who has one on disk: query and passage read together by one model.

A bi-encoder embeds query and passage apart and compares vectors; a cross-encoder reads "[CLS] query [SEP]
passage [SEP]" through every layer and outputs one relevance logit, so it sees which words of the passage
answer which words of the query (and costs one forward pass per candidate). No weights ship with the course:
`rerank_model` names a folder in the sentence-transformers / Hugging Face format (for example a saved
cross-encoder/ms-marco-MiniLM-L6-v2), loaded offline. Notebook 09b builds this input for the course's own
model (`ragkit.embed.pairs`) and trains a small head on its output; a model trained on pairs plugs in here.
Left out: downloading models, GPUs, batching across queries, and training.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ragkit.errors import RagkitError


def load_cross_encoder(folder: str | Path | None):
    """The cross-encoder saved in `folder`, loaded offline, or a clear error.

    >>> load_cross_encoder("/no/such/folder")
    Traceback (most recent call last):
    ...
    ragkit.errors.RagkitError: rerank=cross-encoder needs rerank_model, a folder with a saved cross-encoder (config.json and weights); /no/such/folder has none
    """
    problem = ("rerank=cross-encoder needs rerank_model, a folder with a saved cross-encoder (config.json and "
               "weights); ")
    if not folder:
        raise RagkitError(problem + "set it with configure(rerank_model=...) or --set rerank_model=PATH")
    if not (Path(folder) / "config.json").is_file():
        raise RagkitError(problem + f"{folder} has none")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # a local folder: never reach for the hub
    from sentence_transformers import CrossEncoder

    try:
        return CrossEncoder(str(folder), device="cpu", local_files_only=True)
    except (OSError, ValueError) as error:
        raise RagkitError(f"cannot load a cross-encoder from {folder}: {str(error).splitlines()[0]}") from None


def cross_encoder_scores(model, query: str, passages: Sequence[str]) -> np.ndarray:
    """The model's raw relevance logit for each (query, passage) pair: higher is more relevant.

    >>> cross_encoder_scores(load_cross_encoder(folder), "TS-203?", ["quota", "holidays"]).shape  # doctest: +SKIP
    (2,)
    """
    if not passages:
        return np.zeros(0)
    import torch

    scores = model.predict([(query, passage) for passage in passages], show_progress_bar=False,
                           activation_fn=torch.nn.Identity(), convert_to_numpy=True)
    return np.asarray(scores, dtype=float).reshape(len(passages))
