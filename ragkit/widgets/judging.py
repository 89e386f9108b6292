"""Notebook 12's judging widget: label your own documents by judging a blind, pooled top 10, one key per passage.

Type a query (Enter pools it: the top 10 of dense, BM25 and hybrid retrieval, merged and shuffled), read each
passage, select the words that answer it, and press a key or a button: answers, partly answers (naming the part),
does not answer, skip. A query's type is set in a menu; a query the documents do not answer is marked so (it is
then scored as refusal), and one typed by mistake is removed. When a verdict contradicts an earlier judge's, the
widget shows theirs and asks: replace it, or keep both (marked). The files it did not load, and the fields it
derived, are listed when it opens. `judging` only wires ipywidgets to the callbacks of
`ragkit.widgets.judging_session`, which record each verdict in the folder's files at once, and to the two browser
hooks of `ragkit.widgets.judging_view`. Reopened, it resumes at the next unjudged passage. Left out: undo, and
judging several queries side by side.
"""

from __future__ import annotations

from pathlib import Path

from ragkit.errors import RagkitError
from ragkit.labels.datacheck import QUERY_TYPES
from ragkit.labels.folder import derivation_notes, folder_documents, skipped_notes
from ragkit.labels.pool import progress_line, snap_quote
from ragkit.labels.record import ConflictingVerdict
from ragkit.widgets.judging_session import (
    judge,
    key_verdict,
    not_answered,
    open_session,
    remove,
    resolve,
    set_type,
    start_query,
)
from ragkit.widgets.judging_view import KEYS, ROOT, keys_html, passage_html, query_html, status_html


def judging(pipe, folder: str | Path, judge_name: str = "", prefix: str = "q"):
    """The widget: a query box (Enter pools it), the passage, four verdict buttons, a quote box filled by
    selecting words in the passage, a keys box, the progress line and a message line.

    >>> judging(Pipeline(load_documents("my-folder/corpus")), "my-folder", "Ana")  # doctest: +SKIP
    """
    import ipywidgets as widgets

    session, wide = open_session(pipe, folder), {"description_width": "initial"}
    notes = skipped_notes(folder_documents(folder)[1]) + derivation_notes(list(session.docs.values()))
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
    buttons = [widgets.Button(description=f"{label} ({k})", layout={"width": "auto"}) for k, label in KEYS.items()]
    kinds = widgets.Dropdown(description="type", options=[("as guessed", "")] + [
        (kind, kind) for kind in QUERY_TYPES if kind != "unanswerable"], style=wide)
    unanswered, removing = (widgets.Button(description=text, layout={"width": "auto"}) for text in
                            ("not answered in these documents", "remove this query (no verdicts yet)"))
    replacing, keeping = (widgets.Button(description=text, layout={"width": "auto"}) for text in
                          ("replace theirs with mine", "keep both, mark the disagreement"))
    conflict = widgets.HBox([replacing, keeping], layout={"display": "none"})
    for widget, name_ in ((quote, "quote"), (key, "key"), (passage, "passage"), (progress, "progress"),
                          (status, "message"), (box, "query"), (query, "shown"), (kinds, "type"),
                          (unanswered, "unanswered"), (removing, "remove"), (replacing, "replace"), (keeping, "keep")):
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
        conflict.layout.display = "flex" if session.pending else "none"

    def act(verdict: str, chosen: int | None = None) -> None:
        try:
            done = judge(session, verdict, name.value, quote.value, part.value if chosen is None else chosen)
        except ConflictingVerdict as error:
            theirs = "; ".join(f"{e['judge']} judged it {e['verdict']}" for e in error.earlier)
            draw(f"a disagreement: {theirs}; you say {verdict}. Replace theirs with yours, or keep both?")
            return
        except RagkitError as error:
            draw(str(error))
            return
        quote.value = ""
        draw(done, good=True)

    def call(action, *args) -> None:  # a button's callback: what it did, or why it was refused, on the message line
        try:
            done = action(session, *args)
        except RagkitError as error:
            draw(str(error))
            return
        quote.value = ""
        draw(done, good=True)

    def start(change) -> None:
        try:
            start_query(session, change["new"], parts.value, kinds.value or None, prefix)
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

    kinds.observe(lambda change: call(set_type, change["new"]) if change["new"] and session.query else None,
                  names="value")
    unanswered.on_click(lambda _button: call(not_answered))
    removing.on_click(lambda _button: call(remove))
    replacing.on_click(lambda _button: call(resolve, "replace"))
    keeping.on_click(lambda _button: call(resolve, "keep both"))
    box.observe(start, names="value")
    key.observe(pressed, names="value")
    quote.observe(snapped, names="value")
    for button, verdict in zip(buttons, KEYS.values(), strict=True):
        button.on_click(lambda _button, verdict=verdict: act(verdict))
    draw("; ".join(notes[:3]) + (f"; and {len(notes) - 3} more" if len(notes) > 3 else ""), None)
    keys = widgets.HTML(keys_html())
    view = widgets.VBox([box, parts, widgets.HBox([kinds, unanswered, removing]), query, passage,
                         widgets.HBox(buttons), widgets.HBox([part, name]), quote, keys, key, progress, status,
                         conflict])
    view.add_class(ROOT)
    return view
