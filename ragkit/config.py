"""Every knob of the pipeline, in one frozen config, with the range each one accepts.

`PipelineConfig` holds one field per parameter of every stage, under the names that the notebooks, the widgets and
`python -m ragkit eval --set name=value` share. `KNOBS` says, for each field, its stage, its type and the values it
accepts; `check_config` (and `--set`) use it, so an unknown name lists the valid ones and a bad value names the
allowed range. `STAGES` groups the fields by the stage that reads them (the pipeline's caches follow it). The answer
knobs (`k`, `order`, `compress`) shape the prompt, not the ranking. Left out: the models' own settings.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any

from ragkit.embed.encoders import ENCODERS
from ragkit.errors import RagkitError
from ragkit.generate.answer import COMPRESSIONS, ORDERS


@dataclass(frozen=True)
class Knob:
    """What one config field accepts: a kind (str, int, float), choices or a [low, high] range, None or not."""

    stage: str
    kind: type
    choices: tuple[str, ...] = ()
    low: float = -math.inf
    high: float = math.inf
    optional: bool = False
    meaning: str = ""

    def allowed(self) -> str:
        bounds = [f">= {self.low:g}"] * (self.low > -math.inf) + [f"<= {self.high:g}"] * (self.high < math.inf)
        text = ("one of " + ", ".join(self.choices) if self.choices else "a name" if self.kind is str else
                f"{'an integer' if self.kind is int else 'a number'} {' and '.join(bounds)}".strip())
        return text + (", or None" if self.optional else "")


KNOBS: dict[str, Knob] = {
    "chunker": Knob("chunking", str, meaning="chunking strategy (fixed, sentence, structure, parent-child, semantic)"),
    "chunk_size": Knob("chunking", int, low=1, optional=True, meaning="characters per chunk; None: whole documents"),
    "chunk_overlap": Knob("chunking", int, low=0, meaning="characters shared by neighbouring chunks"),
    "semantic_rule": Knob("chunking", str, ("gap", "percentile", "std", "iqr", "gradient"),
                          meaning="semantic chunking: the rule that sets the cut threshold"),
    "semantic_amount": Knob("chunking", float, optional=True, meaning="semantic chunking: the rule's amount "
                            "(None: the rule's default)"),
    "semantic_window": Knob("chunking", int, low=1, high=20, meaning="semantic chunking: sentences per side"),
    "semantic_min_size": Knob("chunking", int, low=0, meaning="semantic chunking: smallest chunk in characters"),
    "context": Knob("context", str, ("none", "headers", "llm", "llm-plain"), meaning="what the indexes read before "
                    "each chunk: nothing, its title and section, or a language model's situating context (llm: "
                    "writers told what to name; llm-plain: Anthropic's prompt alone)"),
    "encoder": Knob("embedding", str, tuple(ENCODERS), meaning="dense retrieval's encoder: minilm (English), "
                    "use-m3 (USE multilingual v3) or e5-small (multilingual-e5-small, read with its prefixes)"),
    "stemmer": Knob("analysis", str, ("none", "snowball"), meaning="BM25 analyzer: Snowball stemming of words"),
    "stopwords": Knob("analysis", str, ("none", "en"), meaning="BM25 analyzer: drop Lucene's 33 English stop words"),
    "identifiers": Knob("analysis", str, ("whole", "split"), meaning="BM25 analyzer: keep TS-203 or v2/sessions "
                        "whole, or split them at - and /"),
    "method": Knob("retrieval", str, ("dense", "bm25", "hybrid"), meaning="first-stage retriever"),
    "k1": Knob("retrieval", float, low=0, high=10, meaning="BM25 term-frequency saturation"),
    "b": Knob("retrieval", float, low=0, high=1, meaning="BM25 length normalisation"),
    "bm25_idf": Knob("retrieval", str, ("lucene", "robertson", "okapi"), meaning="BM25 IDF variant"),
    "fusion": Knob("fusion", str, ("rrf", "weighted", "minmax", "zscore"), meaning="how hybrid fuses dense and BM25"),
    "rrf_k": Knob("fusion", float, low=0, high=1000, meaning="RRF constant: 1 / (rrf_k + rank)"),
    "alpha": Knob("fusion", float, low=0, high=1, meaning="dense weight of weighted and score fusion"),
    "fusion_depth": Knob("fusion", int, low=1, optional=True, meaning="fuse only each list's top n; None: all"),
    "mmr_lambda": Knob("diversify", float, low=0, high=1, optional=True, meaning="MMR: 1 pure relevance, 0 pure "
                       "novelty; None: off"),
    "mmr_fetch": Knob("diversify", int, low=1, meaning="MMR: how many of the best candidates it re-orders"),
    "mmr_similarity": Knob("diversify", str, ("embedding", "metadata"), meaning="MMR: chunk similarity by cosine "
                           "of embeddings, or 1 for the same document"),
    "rerank": Knob("rerank", str, ("none", "maxsim", "ltr", "llm", "cross-encoder"), meaning="second stage: "
                   "re-score the best rerank_depth candidates (late interaction, learnt ranker, a language model's "
                   "0-10 judgments, a cross-encoder)"),
    "rerank_depth": Knob("rerank", int, low=1, high=1000, meaning="first-stage candidates the reranker re-scores"),
    "rerank_model": Knob("rerank", str, optional=True, meaning="cross-encoder: the folder of a saved model"),
    "ltr_objective": Knob("rerank", str, ("pointwise", "pairwise"), meaning="learning to rank: one candidate at "
                          "a time, or pairs of candidates of one query"),
    "threshold": Knob("refusal", float, optional=True, meaning="refuse when the best score (the reranker's if "
                      "any) is below it; None: off"),
    "rewrite": Knob("refusal", str, ("none", "llm"), meaning="under the threshold, retry once with a language "
                    "model's rewrite of the query before refusing"),
    "k": Knob("answer", int, low=1, high=50, meaning="answer stage: how many of the best passages the prompt shows"),
    "order": Knob("answer", str, ORDERS, meaning="answer stage: passage order (best first, at both ends, ...)"),
    "compress": Knob("answer", str, COMPRESSIONS, meaning="answer stage: passages whole, or their query sentences"),
}
# the range of each reranker's scores, where it has one (a refusal threshold must lie inside)
SCORE_RANGES = {"maxsim": (-1.0, 1.0), "llm": (0.0, 10.0)}


@dataclass(frozen=True, repr=False)
class PipelineConfig:
    """Every knob of the pipeline (see `KNOBS` for what each accepts); printed grouped by stage.

    >>> PipelineConfig(chunk_size=400, chunk_overlap=50).chunker
    'fixed'
    >>> print(PipelineConfig(method="bm25", k1=0.9))  # doctest: +ELLIPSIS
    PipelineConfig(
      chunking:  chunker='fixed', chunk_size=800, chunk_overlap=100, ...
      retrieval: method='bm25', k1=0.9, b=0.75, bm25_idf='lucene'
      ...
      answer:    k=5, order='rank', compress='none'
    )
    """

    chunker: str = "fixed"
    chunk_size: int | None = 800
    chunk_overlap: int = 100
    semantic_rule: str = "percentile"
    semantic_amount: float | None = None
    semantic_window: int = 3
    semantic_min_size: int = 200
    context: str = "none"
    encoder: str = "minilm"
    stemmer: str = "snowball"
    stopwords: str = "none"
    identifiers: str = "split"
    method: str = "dense"
    k1: float = 1.5
    b: float = 0.75
    bm25_idf: str = "lucene"
    fusion: str = "zscore"
    rrf_k: float = 60
    alpha: float = 0.5
    fusion_depth: int | None = None
    mmr_lambda: float | None = None
    mmr_fetch: int = 20
    mmr_similarity: str = "embedding"
    rerank: str = "none"
    rerank_depth: int = 15
    rerank_model: str | None = None
    ltr_objective: str = "pairwise"  # chosen on dev in notebook 09 (cross-fitted nDCG@10 0.772 against 0.763)
    threshold: float | None = None
    rewrite: str = "none"
    k: int = 5  # seed 001's top 5; notebook 13 measures k from 1 to 20
    order: str = "rank"
    compress: str = "none"

    def __post_init__(self) -> None:
        check_config(self)

    def __repr__(self) -> str:
        lines = [f"  {stage + ':':10} " + ", ".join(f"{name}={getattr(self, name)!r}" for name in names)
                 for stage, names in STAGES.items()]
        return "PipelineConfig(\n" + "\n".join(lines) + "\n)"

    def updated(self, **changes) -> PipelineConfig:
        """A copy with `changes`, every name and value checked (`PipelineConfig().updated(k1=1.2).k1` is 1.2)."""
        unknown = sorted(set(changes) - set(KNOBS))
        if unknown:
            raise RagkitError(f"unknown setting {unknown[0]!r}; the settings are: {', '.join(KNOBS)}")
        return dataclasses.replace(self, **changes)

    def values(self, names: tuple[str, ...]) -> tuple:
        """The values of some fields, in order: a cache key for the stage that reads them."""
        return tuple(getattr(self, name) for name in names)


MMR_FIELDS = ("mmr_lambda", "mmr_fetch", "mmr_similarity")
ANALYZER_FIELDS = ("stemmer", "stopwords", "identifiers")  # in the order `ragkit.text.analyzer.Analyzer` takes them
# the fusion fields each fusion reads (the pipeline's caches follow them)
FUSION_FIELDS = {"rrf": ("rrf_k", "fusion_depth"), "weighted": ("alpha", "fusion_depth"),
                 "minmax": ("alpha", "fusion_depth"), "zscore": ("alpha", "fusion_depth")}
BM25_FIELDS = (*ANALYZER_FIELDS, "bm25_idf", "k1", "b")
# the fields each method's scores read, given the config (a hybrid reads only its own fusion's fields)
SCORING_FIELDS = {"dense": lambda config: ("context",), "bm25": lambda config: ("context", *BM25_FIELDS),
                  "hybrid": lambda config: ("context", *BM25_FIELDS, "fusion", *FUSION_FIELDS[config.fusion])}
STAGES: dict[str, tuple[str, ...]] = {stage: tuple(name for name, knob in KNOBS.items() if knob.stage == stage)
                                      for stage in dict.fromkeys(knob.stage for knob in KNOBS.values())}


def check_value(name: str, value: Any) -> Any:
    """`value` for field `name` (an int where a float is expected becomes a float), or a clear error.

    >>> check_value("b", 1)
    1.0
    >>> check_value("b", 2)
    Traceback (most recent call last):
    ...
    ragkit.errors.RagkitError: b=2 is out of range: b (BM25 length normalisation) takes a number >= 0 and <= 1
    """
    if name not in KNOBS:
        raise RagkitError(f"unknown setting {name!r}; the settings are: {', '.join(KNOBS)}")
    knob = KNOBS[name]
    problem = f"{name}={value!r} is out of range: {name} ({knob.meaning}) takes {knob.allowed()}"
    if value is None:
        if knob.optional:
            return None
        raise RagkitError(problem)
    if knob.kind is str:
        if not isinstance(value, str) or not value or (knob.choices and value not in knob.choices):
            raise RagkitError(problem)
        return value
    if isinstance(value, bool) or not isinstance(value, int | float) or (knob.kind is int and value != int(value)):
        raise RagkitError(problem)
    if not math.isfinite(value) or not knob.low <= value <= knob.high:
        raise RagkitError(problem)
    return int(value) if knob.kind is int else float(value)


def check_config(config: PipelineConfig) -> None:
    """Check every field and the rules between fields; values are normalised in place (1 → 1.0).

    >>> PipelineConfig(chunk_size=100, chunk_overlap=100)
    Traceback (most recent call last):
    ...
    ragkit.errors.RagkitError: chunk_overlap=100 must be smaller than chunk_size=100
    """
    for field in dataclasses.fields(config):
        object.__setattr__(config, field.name, check_value(field.name, getattr(config, field.name)))
    if config.chunk_size is not None and config.chunk_overlap >= config.chunk_size:
        raise RagkitError(f"chunk_overlap={config.chunk_overlap} must be smaller than chunk_size={config.chunk_size}")
    ranges = {**SCORE_RANGES, "none": (-1.0, 1.0) if config.method == "dense" else (-math.inf, math.inf),
              "ltr": (0.0, 1.0) if config.ltr_objective == "pointwise" else (-math.inf, math.inf)}
    low, high = ranges.get(config.rerank, (-math.inf, math.inf))
    if config.threshold is not None and not low <= config.threshold <= high:
        scores = f"rerank={config.rerank!r} scores lie" if config.rerank != "none" else \
            "the dense method scores by cosine, which lies"
        raise RagkitError(f"threshold={config.threshold} is out of range: {scores} between {low:g} and {high:g}")
