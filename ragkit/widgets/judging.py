"""Notebook 12's judging widget: label your own documents by judging a blind, pooled top 10, one key per passage.

Type a query (Enter pools it: the top 10 of dense, BM25 and hybrid retrieval, merged and shuffled), read each
passage, select the words that answer it, and press a key or a button: answers, partly answers (naming the part),
does not answer, skip. `judging` only wires ipywidgets to the callbacks of `ragkit.widgets.judging_session`, which
record each verdict in the folder's files at once, and to the two browser hooks of `ragkit.widgets.judging_view`.
Reopened, it resumes at the next unjudged passage. Left out: undo, and judging several queries side by side.
"""

from __future__ import annotations

from pathlib import Path

from ragkit.errors import RagkitError
from ragkit.labels.folder import derivation_notes
from ragkit.labels.pool import progress_line, snap_quote
from ragkit.widgets.judging_session import judge, key_verdict, open_session, start_query
from ragkit.widgets.judging_view import KEYS, ROOT, keys_html, passage_html, query_html, status_html


def judging(pipe, folder: str | Path, judge_name: str = "", prefix: str = "q"):
    """The widget: a query box (Enter pools it), the passage, four verdict buttons, a quote box filled by
    selecting words in the passage, a keys box, the progress line and a message line.

    >>> judging(Pipeline(load_documents("my-folder/corpus")), "my-folder", "Ana")  # doctest: +SKIP
    """
    import ipywidgets as widgets

    session, wide = open_session(pipe, folder), {"description_width": "initial"}
    notes = derivation_notes(list(session.docs.values()))
    box = widgets.Text(description="query", continuous_update=False, style=wide, layout={"width": "95%"},
                       placeholder="type a question your users would ask, then Enter")
    parts = widgets.Textarea(description="parts (optional)", rows=2, style=wide, layout={"width": "95%"},
                             placeholder="what the query asks, one part per line (empty: one part)")
    name = widgets.Text(judge_name, description="judge", style=wide)
    query, passage, progress, status = (widgets.HTML() for _ in range(4))
    quote = widgets.Textarea(description="quote", rows=2, style=wide, layout={"width": "95%"},
                             placeholder="select the answering words in the passage (or paste them)")
    part = widgets.Dropdown(description="part", options=[("1", 0)], style=wide)
    key = widgets.Text(layout={"display": "none"})
    buttons = [widgets.Button(description=f"{label} ({k})") for k, label in KEYS.items()]
    for widget, name_ in ((quote, "quote"), (key, "key"), (passage, "passage"), (progress, "progress"),
                          (status, "message"), (box, "query"), (query, "shown")):
        widget.add_class(f"{ROOT}-{name_}")

    def draw(message: str = "", good: bool | None = False) -> None:
        query.value = query_html(session.query, session.parts)
        part.options = [(f"{i + 1}: {text[:40]}", i) for i, text in enumerate(session.parts)] or [("1", 0)]
        doc = session.docs.get(session.unit.doc_id) if session.unit else None
        passage.value = passage_html(session.unit, doc, session.position or 0, len(session.units)) \
            if session.query else ""  # no query yet: nothing pooled, and nothing to say "all judged" about
        progress.value = progress_line(session.progress, len(session.skipped)) if session.query else \
            f"{len(session.docs)} documents" + (f"; {len(notes)} with derived fields" if notes else "")
        status.value = status_html(message, good)

    def act(verdict: str, chosen: int | None = None) -> None:
        try:
            done = judge(session, verdict, name.value, quote.value, part.value if chosen is None else chosen)
        except RagkitError as error:
            draw(str(error))
            return
        quote.value = ""
        draw(done, good=True)

    def start(change) -> None:
        try:
            start_query(session, change["new"], parts.value, None, prefix)
        except RagkitError as error:
            draw(str(error))
            return
        draw(f"judging {session.query.query_id}", good=True)

    def snapped(change) -> None:  # say at once whether the selection can be a quote
        if change["new"].strip() and session.unit is not None:
            try:
                found = snap_quote(session.unit.text, change["new"])
                status.value = status_html(f"quote: {len(found)} characters of the passage, exact", True)
            except RagkitError as error:
                status.value = status_html(f"quote refused: {error}")

    def pressed(change) -> None:
        if change["new"]:
            try:
                act(*key_verdict(change["new"][0]))
            except RagkitError as error:
                draw(str(error))

    box.observe(start, names="value")
    key.observe(pressed, names="value")
    quote.observe(snapped, names="value")
    for button, verdict in zip(buttons, KEYS.values(), strict=True):
        button.on_click(lambda _button, verdict=verdict: act(verdict))
    draw("; ".join(notes[:3]) + (f"; and {len(notes) - 3} more" if len(notes) > 3 else ""), None)
    keys = widgets.HTML(keys_html())
    view = widgets.VBox([box, parts, query, passage, widgets.HBox(buttons), widgets.HBox([part, name]), quote,
                         keys, key, progress, status])
    view.add_class(ROOT)
    return view
