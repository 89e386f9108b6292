"""The playground's controls and views (notebook 11): which control shows each knob, and what it displays.

`CONTROLS` names the control of every knob of the pipeline's config, grouped by the stage that reads it;
`knob_values` and `control_value` convert between what a control holds and the knob's value.
`language_metrics` averages the metrics per language, in numpy because a slider move waits for it, and
`metrics_html` shows them with the knobs that differ from their defaults. `results_html` shows one query's
units, best first, with their scores; given the query's labels it marks the parts each unit answers (✓), the
units judged not relevant (✗) and those nobody judged (?), and highlights the evidence (`marked_text`): one
header line per result and an excerpt around its evidence (`result_html`, `excerpt`), the whole text a click
away. Left out: styling beyond inline CSS.
"""

from __future__ import annotations

import dataclasses
import html
import re
from collections.abc import Sequence

import numpy as np
import pandas as pd

from ragkit.errors import RagkitError
from ragkit.evaluate.relevance import Judgment, judged_units, ranking_hits

# judged@20 beside failure@20: an unjudged chunk in the top 20 counts as a miss, so it says how far to trust it
METRICS = ("recall@5", "failure@20", "judged@20", "ndcg@10", "mrr@10")
# each knob's control, by stage: (low, high, step) a slider; a tuple of values a menu (empty: the pipeline's
# chunkers); None a text box, empty for None (chunk_size=None, whole documents, is not offered).
# tests/test_playground.py checks this table against ragkit.config.KNOBS
CONTROLS: dict[str, dict[str, tuple | None]] = {
    "chunking": {"chunker": (), "chunk_size": (100, 2000, 50), "chunk_overlap": (0, 400, 25),
                 "semantic_rule": ("gap", "percentile", "std", "iqr", "gradient"), "semantic_amount": None,
                 "semantic_window": (1, 10, 1), "semantic_min_size": (0, 800, 50)},
    "context": {"context": ("none", "headers", "llm", "llm-plain")},
    "embedding": {"encoder": ("minilm", "use-m3", "e5-small")},
    "analysis": {"stemmer": ("none", "snowball"), "stopwords": ("none", "en"),
                 "identifiers": ("whole", "split")},
    "retrieval": {"method": ("dense", "bm25", "hybrid"), "k1": (0.0, 5.0, 0.1), "b": (0.0, 1.0, 0.05),
                  "bm25_idf": ("lucene", "robertson", "okapi")},
    "fusion": {"fusion": ("rrf", "weighted", "minmax", "zscore"), "rrf_k": (0.0, 200.0, 5.0),
               "alpha": (0.0, 1.0, 0.05), "fusion_depth": ("all", 10, 20, 50, 100)},
    "diversify": {"mmr_lambda": (0.0, 1.0, 0.05), "mmr_fetch": (5, 50, 5),
                  "mmr_similarity": ("embedding", "metadata")},
    "rerank": {"rerank": ("none", "maxsim", "ltr", "llm", "cross-encoder"), "rerank_depth": (1, 50, 1),
               "rerank_model": None, "ltr_objective": ("pointwise", "pairwise")},
    "refusal": {"threshold": None, "rewrite": ("none", "llm")},
    "answer": {"k": (1, 20, 1), "order": ("rank", "edges", "middle", "reversed"), "compress": ("none", "query-sentences")},
}
SPECS = {name: spec for group in CONTROLS.values() for name, spec in group.items()}


def knob_values(values: dict) -> dict:
    """Control values as knob values: mmr_lambda 1 is None (λ = 1 re-orders nothing), an empty box or "all" is
    None, a number typed in a box a float (but rerank_model is a folder); slider noise (0.7000000000000001) is
    rounded off. Knob values pass unchanged.

    >>> knob_values({"mmr_lambda": 1.0, "threshold": "", "fusion_depth": "all", "semantic_amount": "2.5"})
    {'mmr_lambda': None, 'threshold': None, 'fusion_depth': None, 'semantic_amount': 2.5}
    """
    knobs = {}
    for name, value in values.items():
        if (name == "mmr_lambda" and value == 1) or (isinstance(value, str) and value.strip() in ("", "all")):
            value = None
        elif name in ("threshold", "semantic_amount") and isinstance(value, str):
            try:
                value = float(value)
            except ValueError:
                raise RagkitError(f"{name}: {value!r} is not a number (empty the box for none)") from None
        knobs[name] = round(value, 6) if isinstance(value, float) else value
    return knobs


def control_value(name: str, value):
    """What the control of knob `name` shows for `value`: `knob_values` inverted.

    >>> control_value("mmr_lambda", None), control_value("fusion_depth", None), control_value("k1", 1.2)
    (1.0, 'all', 1.2)
    >>> control_value("threshold", None), control_value("threshold", 4.0)
    ('', '4.0')
    """
    if SPECS[name] is None:
        return "" if value is None else str(value)
    return value if value is not None else 1.0 if name == "mmr_lambda" else "all"


def language_metrics(table: pd.DataFrame, metrics: Sequence[str] = METRICS) -> pd.DataFrame:
    """Means of `metrics` per language, then over all answerable queries, with the number of queries: the
    figures of `ragkit.evaluate.tables.language_summary`, in a third of its time (a slider move waits for it).

    >>> t = pd.DataFrame({"lang": ["en", "en", "zh"], "answerable": [True] * 3, "recall@5": [1.0, 0.5, 0.0]})
    >>> language_metrics(t, ["recall@5"]).to_dict()
    {'queries': {'en': 2, 'zh': 1, 'all': 3}, 'recall@5': {'en': 0.75, 'zh': 0.0, 'all': 0.5}}
    """
    rows = table[table["answerable"].to_numpy(bool)]
    if rows.empty:
        raise RagkitError("no answerable queries to measure")
    langs, values = rows["lang"].to_numpy(), rows[list(metrics)].to_numpy(float)
    masks = {**{lang: langs == lang for lang in sorted(set(langs))}, "all": np.ones(len(langs), bool)}
    return pd.DataFrame([[int(mask.sum()), *values[mask].mean(axis=0)] for mask in masks.values()],
                        index=list(masks), columns=["queries", *metrics])


CELL = "padding:2px 10px;text-align:right"  # the metrics table's cells: a widget's HTML gets no table styling


def metrics_html(table: pd.DataFrame | None, metrics: Sequence[str] = METRICS, config=None) -> str:
    """A table of `metrics` (3 decimals) by row (language) with the number of queries, its cells padded, and
    the knobs of `config` that differ from their defaults.

    >>> from ragkit.config import PipelineConfig
    >>> table = pd.DataFrame({"queries": [3], "recall@5": [0.5]}, index=["all"])
    >>> metrics_html(table, ["recall@5"], PipelineConfig(k1=1.2)).split("</table>")[1]
    '<p><small>knobs off their defaults: k1=1.2</small></p>'
    """
    def cell(tag: str, text: str) -> str:
        return f"<{tag} style='{CELL}'>{text}</{tag}>"

    head = "".join(cell("th", name) for name in ("", "queries", *metrics))
    rows = "".join("<tr>" + cell("th", html.escape(str(name))) + cell("td", str(int(row["queries"])))
                   + "".join(cell("td", f"{row[metric]:.3f}") for metric in metrics) + "</tr>"
                   for name, row in (table.iterrows() if table is not None else ()))
    shown = f"<table style='border-collapse:collapse'><tr>{head}</tr>{rows}</table>"
    if config is None:
        return shown
    defaults = type(config)()
    changed = ", ".join(f"{name}={value!r}" for name, value in dataclasses.asdict(config).items()
                        if value != getattr(defaults, name)) or "none"
    return f"{shown}<p><small>knobs off their defaults: {html.escape(changed)}</small></p>"


def marked_text(text: str, start: int, spans: Sequence[tuple[int, int]]) -> str:
    """`text`, which starts at character `start` of its document, as HTML, with the parts of the document
    spans `[s, e)` that fall inside it in <mark>.

    >>> marked_text("Keys rotate every 90 days.", 100, [(112, 125), (90, 104)])
    '<mark>Keys</mark> rotate <mark>every 90 days</mark>.'
    """
    pieces, at = [], 0
    for span_start, span_end in sorted(spans):
        begin, end = max(span_start - start, at), min(span_end - start, len(text))
        if begin < end:
            pieces += [html.escape(text[at:begin]), f"<mark>{html.escape(text[begin:end])}</mark>"]
            at = end
    return "".join(pieces) + html.escape(text[at:])


def excerpt(text: str, start: int, spans: Sequence[tuple[int, int]], width: int = 240) -> str:
    """About `width` characters of `text` as one line of HTML (white space collapsed, evidence in <mark>): from
    a little before the first evidence span inside it, else from the beginning; "…" marks a cut.

    >>> excerpt("Intro. " * 40 + "Keys rotate every 90 days.", 0, [(292, 305)], width=60)
    '… Keys rotate <mark>every 90 days</mark>.'
    >>> excerpt("Keys rotate every 90 days. " * 20, 0, [], width=40)
    'Keys rotate every 90 days. Keys rotate …'
    """
    inside = sorted(s - start for s, e in spans if s - start < len(text) and e - start > 0)
    begin = max(0, inside[0] - width // 4) if inside else 0
    end = min(len(text), begin + width)
    if begin > 0 and 0 <= text.find(" ", begin, begin + 20):
        begin = text.find(" ", begin, begin + 20) + 1
    if end < len(text) and text.rfind(" ", begin, end) > begin:
        end = text.rfind(" ", begin, end)
    body = re.sub(r"\s+", " ", marked_text(text[begin:end], start + begin, spans)).strip()
    return ("… " if begin else "") + body + (" …" if end < len(text) else "")


def result_html(rank: int, unit, score: str, verdict: str, spans: Sequence[tuple[int, int]]) -> str:
    """One result: a header line (rank, id, score, verdict), an excerpt with the evidence marked, and the whole
    text (blank lines dropped) when the excerpt is clicked.

    >>> from ragkit.chunk.base import Chunk
    >>> shown = result_html(1, Chunk("keys#0", "keys", 0, 26, "Keys rotate every 90 days."), "0.812",
    ...                     "✓ part 1", [(12, 25)])
    >>> shown.count("<mark>every 90 days</mark>"), "<b>1. keys#0</b> · 0.812 · <b style" in shown
    (2, True)
    """
    colour = "#1a7f37" if verdict.startswith("✓") else "#b42318" if verdict.startswith("✗") else "#999"
    whole = re.sub(r"\n\s*\n", "\n", marked_text(unit.text, unit.start, spans)).strip()
    return (f"<div class='ragkit-result' style='border-left:3px solid {colour};padding-left:6px;margin:4px 0;"
            f"line-height:1.35'><div><b>{rank}. {html.escape(unit.chunk_id)}</b> · {score}"
            + (f" · <b style='color:{colour}'>{verdict}</b>" if verdict else "")
            + f"</div><details><summary style='cursor:pointer;font-size:90%'>{excerpt(unit.text, unit.start, spans)}"
            f"</summary><div style='white-space:pre-line;font-size:90%;margin:2px 0 6px'>{whole}</div></details>"
            "</div>")


def results_html(pipe, text: str, k: int, judgment: Judgment | None = None) -> str:
    """The pipeline's top `k` units for `text` as compact HTML under a line naming the query (a parent of
    parent-child chunking keeps its best child's rank and score): `result_html` each, with its verdict and
    its evidence marked when the query's `judgment` is given.

    >>> results_html(pipe, "TS-203 meaning", 3, judgments_from_queries(dev[:1], docs)[0])  # doctest: +SKIP
    """
    found, rows = pipe.retrieve([text], k), {}
    head = f"<div class='ragkit-results-query' style='color:#555'>results for: <b>{html.escape(text)}</b></div>"
    if found.refused[0]:
        return f"{head}<p>Refused: the best score, {found.top_scores[0]:.3f}, is below the threshold.</p>"
    for index, score in zip(found.indices[0], found.scores[0], strict=True):
        unit = pipe.rank_chunks([[index]])[0][0]
        rows.setdefault(unit.chunk_id, (unit, f"score {score:.3f}" if np.isfinite(score) else "not reranked"))
    units = [unit for unit, _ in rows.values()]
    hits, judged = (ranking_hits(units, judgment), judged_units(units, judgment)) if judgment else ([], [])
    boxes = [head] + ([f"<p>Rewritten as: {html.escape(found.rewrites[0])}</p>"] if found.rewrites[0] else [])
    for rank, (unit, score) in enumerate(rows.values(), start=1):
        verdict = "" if judgment is None else (
            "✓ part " + "+".join(str(part + 1) for part in sorted(hits[rank - 1])) if hits[rank - 1] else
            "✗ judged not relevant" if judged[rank - 1] else "? not judged")
        spans = [(target.start, target.end) for target in (judgment.targets if judgment else ())
                 if target.doc_id == unit.doc_id and target.end is not None]
        boxes.append(result_html(rank, unit, score, verdict, spans))
    return "".join(boxes)
