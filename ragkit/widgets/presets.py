"""The playground's presets: three known pipelines as knob settings, and which of them a config still is.

`PRESETS` names naive RAG, seed 003's pipeline and Anthropic's contextual retrieval; a knob a preset does not
name keeps its default. `matching_preset` lets the preset menu say "custom" once a knob leaves every preset.
Left out: saving a learner's own setting as a preset.
"""

from __future__ import annotations

import dataclasses

from ragkit.errors import RagkitError

PRESETS = {  # the knobs not named keep their defaults; top_k: how many results the query box shows
    "naive RAG": {"method": "dense", "chunker": "fixed", "chunk_size": 800, "chunk_overlap": 100,
                  "rerank": "none", "top_k": 5},
    "seed 003's pipeline": {"method": "hybrid", "fusion": "rrf", "rrf_k": 60.0, "fusion_depth": 20,
                            "rerank": "llm", "rerank_depth": 15, "top_k": 7},
    "Anthropic's contextual retrieval": {"method": "hybrid", "context": "llm", "rerank": "llm", "top_k": 20},
}


def preset_settings(config, name: str) -> tuple[dict, int]:
    """Every knob of preset `name` (the defaults of `config`'s class, then the preset's own), and its `top_k`.

    >>> from ragkit.config import PipelineConfig
    >>> knobs, top_k = preset_settings(PipelineConfig(k1=0.9), "naive RAG")
    >>> knobs["method"], knobs["k1"], len(knobs), top_k
    ('dense', 1.5, 28, 5)
    """
    if name not in PRESETS:
        raise RagkitError(f"unknown preset {name!r}; the presets are: {', '.join(PRESETS)}")
    knobs = {**dataclasses.asdict(type(config)()), **PRESETS[name]}
    return knobs, knobs.pop("top_k")


def matching_preset(config, top_k: int) -> str:
    """The preset whose every knob (and `top_k`) `config` still has, or "custom".

    >>> from ragkit.config import PipelineConfig
    >>> knobs, top_k = preset_settings(PipelineConfig(), "naive RAG")
    >>> matching_preset(PipelineConfig(**knobs), top_k), matching_preset(PipelineConfig(**knobs), 6)
    ('naive RAG', 'custom')
    >>> matching_preset(PipelineConfig(**{**knobs, "k1": 1.2}), top_k)
    'custom'
    """
    for name in PRESETS:
        knobs, preset_top_k = preset_settings(config, name)
        if top_k == preset_top_k and dataclasses.asdict(config) == knobs:
            return name
    return "custom"
