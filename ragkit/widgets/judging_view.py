"""What the judging widget shows: the query, one passage, the progress line, and its two browser hooks.

The passage is shown as it is in the document (white space kept, nothing rendered), with its document's title
and date and nothing else: no method, no rank, no score. The only JavaScript in the course's widgets lives here,
as two inline handlers: releasing the mouse over the passage copies the browser's selection into the quote box,
and a key pressed in the keys box is forwarded to a hidden text box (with a counter, so each press is a change),
where Python reads it. Both hand their text to an ipywidgets box and fire its `input` event, so the kernel
receives it through ipywidgets' own messages. Left out: highlighting inside the passage, and rendering markdown.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

from ragkit.chunk.base import Chunk
from ragkit.corpus import Document, Query

ROOT = "ragkit-judging"  # the widget's CSS class; the hooks look for their boxes inside it
KEYS = {"a": "answers", "p": "partly answers", "n": "does not answer", "s": "skip"}  # 1-9: partly answers part N
_FORWARD = ("var box=this.closest('.{root}').querySelector('.{root}-{target} {tag}');"
            "box.value={value};box.dispatchEvent(new Event('input',{{bubbles:true}}));")
SELECT_HOOK = ("var s=window.getSelection().toString();if(!s.trim())return;"
               + _FORWARD.format(root=ROOT, target="quote", tag="textarea", value="s"))
KEY_HOOK = ("if(event.ctrlKey||event.metaKey||event.altKey||event.key.length!==1)return;"
            "event.preventDefault();event.stopPropagation();"
            + _FORWARD.format(root=ROOT, target="key", tag="input", value="event.key+' '+Date.now()"))


KEYS_HINT = "a answers · p partly (1–9: part N) · n does not answer · s skip"
KEYS_PLACEHOLDER = "click here, then press a key"


def keys_html() -> str:
    """The keys box: click it, then judge with one key per passage (the hook forwards each key). The keys are
    listed above the box, as text that wraps, not as its placeholder, and the box is never wider than the
    widget, so no width cuts off either of them.

    >>> shown = keys_html(); 'class="ragkit-judging-keys"' in shown, f"keys: {KEYS_HINT}</div>" in shown
    (True, True)
    """
    size = len(KEYS_PLACEHOLDER) + 4  # characters: the placeholder, whole, with room to spare
    return (f'<div style="white-space:normal;line-height:1.4">keys: {KEYS_HINT}</div>'
            f'<input class="{ROOT}-keys" type="text" size="{size}" '
            f'style="width:100%;max-width:{size + 2}ch;box-sizing:border-box" placeholder="{KEYS_PLACEHOLDER}" '
            f'aria-label="judging keys: {KEYS_HINT}" onkeydown="{html.escape(KEY_HOOK)}">')


def query_html(query: Query | None, parts: Sequence[str]) -> str:
    """The query being judged and the parts it asks for, numbered as the keys 1-9 name them.

    >>> query_html(None, [])
    '<i>no query yet: type one below and press Enter</i>'
    """
    if query is None:
        return "<i>no query yet: type one below and press Enter</i>"
    listed = "".join(f"<li>{html.escape(part)}</li>" for part in parts) if len(parts) > 1 else ""
    return (f"<b>{html.escape(query.query_id)}</b> ({query.split}, {query.lang}, {query.type}): "
            f"<b>{html.escape(query.text)}</b>" + (f"<ol>{listed}</ol>" if listed else ""))


def passage_html(unit: Chunk | None, doc: Document | None, position: int, pooled: int) -> str:
    """One pooled passage as the judge sees it: its place in the shuffled pool, its document's title and date
    (marked when derived), and its text as it is; the mouse-up hook turns a selection into the quote.

    >>> doc = Document("d", "Leave", "own", "2026-01-05", "en", "Twenty-five days.")
    >>> "Twenty-five days." in passage_html(Chunk("d#0", "d", 0, 17, "Twenty-five days."), doc, 0, 3)
    True
    """
    if unit is None or doc is None:
        return "<i>nothing left to judge for this query: every pooled passage is judged (or skipped)</i>"
    derived = " (derived)" if "date" in doc.derived else ""
    head = (f"passage {position + 1} of {pooled} · <b>{html.escape(doc.title)}</b> · "
            f"{html.escape(doc.date or 'undated')}{derived}")
    style = ("white-space:pre-wrap;border:1px solid #bbb;padding:6px;font-family:inherit;"
             "max-height:24em;overflow:auto;user-select:text")
    return (f"<div>{head}</div><div class='{ROOT}-text' style='{style}' "
            f'onmouseup="{html.escape(SELECT_HOOK)}">{html.escape(unit.text)}</div>')


def status_html(message: str, good: bool | None = False) -> str:
    """One line of feedback: green when something was recorded, red when something was refused, grey for a note.

    >>> status_html("recorded", good=True)
    "<span style='color:#175'>recorded</span>"
    """
    color = {True: "#175", False: "#a33", None: "#555"}[good]
    return f"<span style='color:{color}'>{html.escape(message)}</span>" if message else ""
