"""Review a language model's query drafts: accept one (as written or edited) or reject it.

A draft is a question a model proposed for one document (`ragkit.llm.drafts`). `review_draft` is the callback:
accepting adds the text, as the person left it, to the folder's queries with `ragkit.labels.own_queries.add_query`:
a query to judge, with no evidence, so its labels still come only from judging its pooled passages; rejecting
records nothing in the folder. `drafts_widget` only wires one row per draft to it, a document at a time. Left out: remembering
rejections across sessions, and drafting (see `ragkit.llm.drafts`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ragkit.errors import RagkitError
from ragkit.labels.own_queries import add_query

ACTIONS = ("accept", "reject")


def review_draft(folder: str | Path, text: str, action: str, prefix: str = "q") -> str:
    """Apply a person's decision on one draft; returns the line the widget shows.

    >>> review_draft("data/demo-handbook", "how long is the code freeze", "reject")
    'rejected: nothing written'
    """
    if action not in ACTIONS:
        raise RagkitError(f"a draft is accepted or rejected, got {action!r}")
    if action == "reject":
        return "rejected: nothing written"
    record = add_query(folder, text, prefix=prefix)
    return f"accepted as {record['id']}: judge its pool in the judging widget (type or reopen it there)"


def drafts_widget(folder: str | Path, drafts: dict[str, Sequence[str]], prefix: str = "q"):
    """A menu of the documents with drafts and, under it, one row per draft of the chosen document: an editable
    text box, accept and reject buttons, and what was done. A document's rows are made when it is first chosen and
    then kept, so a decision stays shown when you come back to it (and a saved notebook holds only what was seen).

    >>> drafts_widget("my-folder", {"leave": ["how many leave days do I get"]})  # doctest: +SKIP
    """
    import ipywidgets as widgets

    if not drafts:
        return widgets.VBox([widgets.HTML("<i>no drafts</i>")])

    def rows_of(doc_id: str) -> list:
        rows = []
        for question in drafts[doc_id]:
            box = widgets.Text(question, layout={"width": "60%"})
            buttons = [widgets.Button(description=action, layout={"width": "80px"}) for action in ACTIONS]
            said = widgets.HTML()

            def decide(button, box=box, said=said, buttons=buttons) -> None:
                try:
                    said.value = review_draft(folder, box.value, button.description, prefix)
                except RagkitError as error:
                    said.value = f"<span style='color:#a33'>{error}</span>"
                    return
                for other in (box, *buttons):
                    other.disabled = True

            for button in buttons:
                button.on_click(decide)
            rows.append(widgets.HBox([box, *buttons, said]))
        return rows

    menu = widgets.Dropdown(options=[(f"{doc_id} ({len(questions)} drafts)", doc_id)
                                     for doc_id, questions in drafts.items()], description="document")
    made: dict[str, list] = {}
    view = widgets.VBox()

    def show(_change=None) -> None:
        if menu.value not in made:
            made[menu.value] = rows_of(menu.value)
        view.children = [menu, *made[menu.value]]

    menu.observe(show, names="value")
    show()
    return view
