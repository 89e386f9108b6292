"""Notebook 11's playground: one `Pipeline`, every knob, the dev metrics and one query's results, live.

A control change calls `playground_update`, a plain function: it refuses, with a one-line reason, a
combination that needs language-model answers nobody recorded (`unavailable`, from `ragkit.widgets.presets`),
calls `pipe.configure(...)`,
builds a new chunking with a progress callback (`build_stages`), trains the learnt ranker once if
`rerank="ltr"` asks for it, and measures recall@5, failure@20, nDCG@10 and MRR@10 per language. On a
`RagkitError` it restores the config, keeps the last good figures and says which value each control must show
again, so that a refused change never blocks the next one; the results always belong to the query shown (or
are empty). `playground` only wires ipywidgets to these functions, to the presets of `ragkit.widgets.presets`
and to the controls and views of `ragkit.widgets.playground_view`, laid out in rows that each repeat their
stage's label, and saying so when a query first needs the embedding model loaded (both from
`ragkit.widgets.playground_layout`). Its "answer it" button has the local model answer the query shown under
the current knobs (`live_answer_html`). Left out: saving a setting, and figures on the test split.
"""

from __future__ import annotations

import html
import time
from collections.abc import Callable, Sequence

from ragkit.chunk.sentences import sentence_spans
from ragkit.corpus import Query
from ragkit.errors import RagkitError
from ragkit.evaluate.runs import cached_judgments
from ragkit.widgets.answers import live_answer_html
from ragkit.widgets.playground_layout import (
    LOADING,
    PRESET_MENU,
    WIDTHS,
    control_kind,
    control_rows,
    model_load_needed,
    progress_line,
)
from ragkit.widgets.playground_view import (
    CONTROLS,
    METRICS,
    control_value,
    knob_values,
    language_metrics,
    metrics_html,
    results_html,
)
from ragkit.widgets.presets import (  # noqa: F401 - RERANK_MISS: part of this module's interface
    PRESETS,
    RERANK_MISS,
    matching_preset,
    preset_refusals,
    preset_settings,
    replay_reason,
    unavailable,
)


def build_stages(pipe, progress: Callable[[int, int], None] | None = None, batch_size: int = 32) -> bool:
    """Build what the configured chunking needs (chunks, context, embeddings, BM25 statistics), embedding in
    batches and calling `progress(done, total)` after each (sentences first, for semantic chunking); False
    when it was all built already.

    >>> build_stages(pipe.configure(chunk_size=600, chunk_overlap=50), print)  # doctest: +SKIP
    32 482
    """
    if ("embeddings", pipe.chunk_key, pipe.config.context, pipe.model_name) in pipe.cache.kept:
        return False

    def embed(texts: list[str]) -> None:  # the encoder keeps the vectors on disk, where the stage finds them
        for start in range(0, len(texts), batch_size):
            pipe.encoder.encode(texts[start:start + batch_size])
            if progress is not None:
                progress(min(start + batch_size, len(texts)), len(texts))

    if pipe.config.chunker == "semantic" and pipe.config.chunk_size is not None:  # it embeds sentences first
        embed([doc.text[start:end] for doc in pipe.docs for start, end in sentence_spans(doc.text)])
    embed(pipe.indexed_texts)
    _ = pipe.chunk_embeddings, pipe.bm25_index
    return True


def playground_update(pipe, queries: Sequence[Query], values: dict, text: str, k: int = 5,
                      last: dict | None = None, progress: Callable[[int, int], None] | None = None) -> dict:
    """The playground's callback: `pipe.configure(**knob_values(values))`, then "metrics" (`language_metrics`
    of the answerable `queries`), "results" (`results_html` of `text`'s top "top_k" under the config shown,
    judged when `text` is one of `queries`), "config", "controls" (the control value of every knob in `values`,
    so that a refused change is put back on screen) and "message", one line ("" when all went well). A refused
    change restores the config and keeps `last`'s figures; results that cannot be computed are emptied, never
    left stale. A `top_k` in `values` (a preset's) replaces `k` only if the change is not refused.

    >>> playground_update(pipe, dev, {"method": "dense", "rerank": "llm"}, "TS-203")  # doctest: +SKIP
    {..., 'message': 'kept the last results: rerank=llm replays recorded scores only for the top 15 ...'}
    """
    answerable, previous, messages = [query for query in queries if query.evidence], pipe.config, []
    result = {"metrics": None, "config": previous, **(last or {}), "results": "", "top_k": k}
    values, wanted = {name: value for name, value in values.items() if name != "top_k"}, values.get("top_k", k)
    try:
        knobs = knob_values(values)
        problem = unavailable(previous.updated(**knobs))
        if problem:
            raise RagkitError(problem)
        build_stages(pipe.configure(**knobs), progress)
        if pipe.config.rerank == "ltr" and getattr(pipe.ranker, "objective", "") != pipe.config.ltr_objective:
            pipe.train_ranker(answerable)  # once per objective, when first asked for: it takes a while
        result.update(metrics=language_metrics(pipe.evaluate(answerable, METRICS)), config=pipe.config, top_k=wanted)
    except RagkitError as error:
        pipe.config = previous  # the config whose figures are shown
        messages.append("kept the last results: " + replay_reason(error))
    try:
        labelled = [n for n, query in enumerate(queries) if query.text == text.strip()]
        judgment = cached_judgments(pipe, queries)[labelled[0]] if labelled else None
        result["results"] = results_html(pipe, text, result["top_k"], judgment)
    except RagkitError as error:
        messages.append("no results for this query: " + replay_reason(error))
    if not messages and pipe.config.rerank == "ltr":
        messages.append("rerank=ltr was trained on these same dev queries: its figures are optimistic")
    result["controls"] = {name: control_value(name, getattr(pipe.config, name)) for name in values
                          if hasattr(pipe.config, name)}
    return {**result, "message": "; ".join(messages)}


def playground(pipe, queries: Sequence[Query], top_k: int = 5):
    """Every knob of `pipe` as a control by stage, presets, a query box offering the labelled `queries`, and
    the metrics and the query's results, redrawn by `playground_update` on every change.

    >>> playground(pipe.using(method="hybrid"), dev)  # doctest: +SKIP
    """
    import ipywidgets as widgets

    wide, controls = {"description_width": "initial"}, {}
    for name, spec in ((name, spec) for group in CONTROLS.values() for name, spec in group.items()):
        value, kind = control_value(name, getattr(pipe.config, name)), control_kind(spec)
        common = {"description": name, "style": wide, "value": value, "layout": {"width": f"{WIDTHS[kind]}px"}}
        if kind == "text":
            controls[name] = widgets.Text(continuous_update=False, **common)
        elif kind == "slider":
            slider = widgets.FloatSlider if isinstance(spec[2], float) else widgets.IntSlider
            controls[name] = slider(min=spec[0], max=spec[1], step=spec[2], continuous_update=False, **common)
        else:
            controls[name] = widgets.Dropdown(options=spec or sorted(pipe.chunkers), **common)
    refusals = preset_refusals(pipe, queries)  # presets needing answers nobody recorded for these documents
    offered = [name for name in PRESETS if not refusals[name]]
    preset = widgets.Dropdown(options=["custom", *offered], description="preset", layout=PRESET_MENU)
    left_out = widgets.HTML("<small style='color:#555'>not offered here (no recorded language-model answers for "
                            f"these documents): {html.escape(', '.join(sorted(set(PRESETS) - set(offered))))}"
                            "</small>" if len(offered) < len(PRESETS) else "")
    pick = widgets.Dropdown(options=[(f"{q.query_id}: {q.text}", q.text) for q in queries],
                            description="dev query", layout={"width": "95%"})
    box = widgets.Text(pick.value, description="query", continuous_update=False, layout={"width": "95%"})
    k = widgets.IntSlider(top_k, min=1, max=20, description="top_k", continuous_update=False)
    bar = widgets.IntProgress(description="re-chunking", style=wide, layout={"visibility": "hidden"})
    status, metrics, results, answered = widgets.HTML(), widgets.HTML(), widgets.HTML(), widgets.HTML()
    ask = widgets.Button(description="answer it (local model)", layout={"width": "220px"},
                         tooltip="SmolLM2-135M on this CPU answers the query under the knobs above (a few seconds)")
    for widget, name in ((status, "status"), (metrics, "metrics"), (results, "results"), (bar, "progress"),
                         (answered, "answer")):
        widget.add_class(f"ragkit-playground-{name}")  # names a browser test can find
    state = {"last": None, "quiet": False, "first": (0.0, 0), "done": 0}

    def progress(done: int, total: int) -> None:  # the count, and the time left at the rate timed so far
        if not 0 < state["done"] < done or total != bar.max:  # a new pass (semantic: sentences, then chunks)
            state["first"] = (time.perf_counter(), done)
        state["done"], bar.layout.visibility, bar.max, bar.value = done, "visible", total, done
        bar.description = progress_line(done, total, state["first"], time.perf_counter())

    def quietly(changes: dict) -> None:  # put controls to the values the pipeline holds, without a redraw
        state["quiet"] = True
        for name, value in changes.items():
            if name in controls and controls[name].value != value:
                controls[name].value = value
        k.value = changes.get("top_k", k.value)
        preset.value = matching_preset(pipe.config, k.value, offered)
        state["quiet"] = False

    def redraw(_change=None, values: dict | None = None) -> None:
        if state["quiet"]:
            return
        values = values or {name: control.value for name, control in controls.items()}
        status.value = f"<i>{LOADING if model_load_needed(pipe, box.value) else 'working…'}</i>"
        result = playground_update(pipe, queries, values, box.value, k.value, state["last"], progress)
        state["last"], state["done"], bar.layout.visibility = result, 0, "hidden"
        line = html.escape(result["message"])
        quietly({**result["controls"], "top_k": result["top_k"]})
        metrics.value = metrics_html(result["metrics"], METRICS, result["config"])
        results.value = result["results"]
        status.value = f"<div style='white-space:normal;overflow-wrap:anywhere;color:#a33'>{line}</div>"

    def apply(change) -> None:  # a preset's knobs and top_k, at once; a refused preset changes no control
        if change["new"] in PRESETS and not state["quiet"]:
            knobs, top_k = preset_settings(pipe.config, change["new"])
            redraw(values={**{name: control_value(name, knobs[name]) for name in controls}, "top_k": top_k})

    def answer_now(_button=None) -> None:  # the model loads on the first click, and only then
        from ragkit.generate.local import LocalModel
        answered.value = "<i>answering…</i>"
        state["model"] = state.get("model") or LocalModel(max_tokens=96)
        answered.value = live_answer_html(pipe, box.value, state["model"])

    ask.on_click(answer_now)
    pick.observe(lambda change: setattr(box, "value", change["new"]), names="value")
    for control in (*controls.values(), box, k):
        control.observe(redraw, names="value")
    preset.observe(apply, names="value")
    redraw()
    rows = [widgets.HBox([widgets.HTML(f"<b>{stage}</b>", layout={"width": "92px", "flex": "0 0 92px"}),
                          *[controls[name] for name in names]]) for stage, names in control_rows()]
    return widgets.VBox([widgets.HBox([preset, bar]), left_out, *rows, status, metrics, pick, box, k, results, ask,
                         answered])
