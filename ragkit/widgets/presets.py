"""The playground's presets: three known pipelines as knob settings, which of them a config still is, and
which settings cannot run offline.

`PRESETS` names naive RAG, seed 003's pipeline and contextual retrieval with the course's variant of the situating
contexts (Anthropic's recipe; its prompt alone, `llm-plain`, has no recorded rerank scores over its first stage);
a knob a preset does not name keeps its default. `matching_preset` lets the preset menu say "custom" once a knob
leaves every preset. `unavailable` says, in one line, why a config needs language-model answers nobody recorded,
`preset_refusals` which presets cannot run on a pipeline's documents (so the menu leaves them out), and
`replay_reason` says a replay miss in the playground's terms. Left out: saving a learner's own setting as a
preset.
"""

from __future__ import annotations

import dataclasses

from ragkit.errors import RagkitError
from ragkit.labels.recordcheck import RECORDED_CHUNKINGS

PRESETS = {  # the knobs not named keep their defaults; top_k: how many results the query box shows
    "naive RAG": {"method": "dense", "chunker": "fixed", "chunk_size": 800, "chunk_overlap": 100,
                  "rerank": "none", "top_k": 5},
    "seed 003's pipeline": {"method": "hybrid", "fusion": "rrf", "rrf_k": 60.0, "fusion_depth": 20,
                            "rerank": "llm", "rerank_depth": 15, "top_k": 7},
    "contextual retrieval (course's variant)": {"method": "hybrid", "context": "llm", "rerank": "llm", "top_k": 20},
}


def preset_settings(config, name: str) -> tuple[dict, int]:
    """Every knob of preset `name` (the defaults of `config`'s class, then the preset's own), and its `top_k`.

    >>> from ragkit.config import PipelineConfig
    >>> knobs, top_k = preset_settings(PipelineConfig(k1=0.9), "naive RAG")
    >>> knobs["method"], knobs["k1"], len(knobs), top_k
    ('dense', 1.5, 32, 5)
    """
    if name not in PRESETS:
        raise RagkitError(f"unknown preset {name!r}; the presets are: {', '.join(PRESETS)}")
    knobs = {**dataclasses.asdict(type(config)()), **PRESETS[name]}
    return knobs, knobs.pop("top_k")


def matching_preset(config, top_k: int, names=PRESETS) -> str:
    """The preset of `names` whose every knob (and `top_k`) `config` still has, or "custom".

    >>> from ragkit.config import PipelineConfig
    >>> knobs, top_k = preset_settings(PipelineConfig(), "naive RAG")
    >>> matching_preset(PipelineConfig(**knobs), top_k), matching_preset(PipelineConfig(**knobs), 6)
    ('naive RAG', 'custom')
    >>> matching_preset(PipelineConfig(**{**knobs, "k1": 1.2}), top_k)
    'custom'
    """
    for name in names:
        knobs, preset_top_k = preset_settings(config, name)
        if top_k == preset_top_k and dataclasses.asdict(config) == knobs:
            return name
    return "custom"


RERANK_MISS = ("rerank=llm: these settings put a chunk without a recorded score in the reranked top (scores "
               "were recorded for the labelled queries' top 15 under hybrid zscore, rrf with fusion_depth 20 "
               "and contextual hybrid, at their default k1, b, alpha and analyzer)")


def unavailable(config) -> str | None:
    """Why `config` cannot run offline (it needs language-model answers that were never recorded), or None.

    >>> from ragkit.config import PipelineConfig
    >>> unavailable(PipelineConfig(context="llm", chunk_size=500))
    'context=llm needs the chunking its situating contexts were recorded for (fixed, 800, 100)'
    >>> unavailable(PipelineConfig(method="hybrid", rerank="llm")) is None
    True
    """
    recorded = config.chunker == "fixed" and (config.chunk_size, config.chunk_overlap) in RECORDED_CHUNKINGS
    chunkings = " or ".join(f"fixed, {size}, {overlap}" for size, overlap in RECORDED_CHUNKINGS)
    if config.context == "llm" and not recorded:
        return f"context=llm needs the chunking its situating contexts were recorded for ({chunkings})"
    first = (config.fusion, config.fusion_depth, config.context) in (
        ("zscore", None, "none"), ("rrf", 20, "none"), ("zscore", None, "llm"))
    if config.rerank == "llm" and not (recorded and first and config.method == "hybrid"
                                       and config.rerank_depth <= 15 and config.mmr_lambda is None):
        return ("rerank=llm replays recorded scores only for the top 15 of hybrid search (fusion zscore, "
                f"or rrf with fusion_depth 20) and of contextual hybrid (zscore), chunked {chunkings}, "
                "without MMR")
    if config.rerank == "cross-encoder" and not config.rerank_model:
        return "rerank=cross-encoder needs a model folder: type its path in rerank_model (none ships)"
    return None


def replay_reason(error: RagkitError) -> str:
    """The refusal's reason in one line; a replay miss deep in the reranker said in the playground's terms."""
    message = " ".join(str(error).split())
    return RERANK_MISS if "(a rerank score" in message else message


def preset_refusals(pipe, queries) -> dict[str, str]:
    """Each preset's reason not to run on `pipe`'s documents, "" when it runs: `unavailable`, then, for a preset
    that asks a language model, one labelled query measured under it, which stops at the first answer nobody
    recorded for these documents (the course's recordings cover the course's chunks only).

    >>> preset_refusals(Pipeline(load_documents("my-folder/corpus")), queries)  # doctest: +SKIP
    {'naive RAG': '', "seed 003's pipeline": 'nothing recorded for this prompt (a rerank score, ...', ...}
    """
    probe, reasons = [query for query in queries if query.evidence][:1], {}
    for name in PRESETS:
        knobs, _ = preset_settings(pipe.config, name)
        reasons[name] = unavailable(pipe.config.updated(**knobs)) or ""
        asks = any(str(knobs[knob]).startswith("llm") for knob in ("context", "rerank", "rewrite"))
        if not reasons[name] and probe and asks:
            try:
                pipe.using(**knobs).evaluate(probe, ["recall@5"])
            except RagkitError as error:
                reasons[name] = replay_reason(error)
    return reasons
