"""Notebook 13's answer viewer: `k` and `order` over the recorded answers, with the answer, its citations and its grade.

The controls set the pipeline's answer knobs (`pipe.configure(k=..., order=...)`, and the retrieval preset of
the chosen pipeline); `answer_update`, a plain, unit-tested function, builds the prompt the pipeline gives now,
finds the recorded answer to exactly that prompt, and grades it (`ragkit.generate.grade`): right or wrong
against the answer keys, refused or not, which passages it cites and whether they hold evidence. A
combination nobody recorded says so instead of answering. `live_answer_html` is the playground's "answer"
button: the current query answered live (by the local model) under the pipeline's config, with its citations
and times. Left out: streaming the answer as it is written, and editing the prompt.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence

from ragkit.evaluate.relevance import Judgment
from ragkit.generate.answer import ORDERS
from ragkit.generate.grade import cited, correct, evidence_numbers, refuses
from ragkit.generate.grid import K_VALUES
from ragkit.llm.prompts import prompt_key


def answer_update(pipe, query, judgment: Judgment, keys: Mapping[str, list[list[str]]], records: Mapping[str, dict],
                  k: int, order: str) -> dict:
    """The viewer's callback: configure `k` and `order`, build the prompt, and grade the recorded answer.

    >>> state = answer_update(pipe, query, judgment, keys, records, 5, "rank")  # doctest: +SKIP
    >>> sorted(state)  # doctest: +SKIP
    ['answer', 'cited', 'correct', 'evidence', 'k', 'order', 'query', 'recorded', 'refused', 'shown']
    """
    pipe.configure(k=k, order=order)
    prompt, shown = pipe.answer_prompt(query.text)
    record = records.get(prompt_key(prompt))
    evidence = evidence_numbers(shown, judgment)
    state = {"query": query.query_id, "k": k, "order": order, "shown": [c.chunk_id for c in shown],
             "evidence": evidence, "recorded": record is not None, "answer": "", "cited": [], "correct": None,
             "refused": None}
    if record is not None:
        text = record["response"]
        state.update(answer=text, cited=cited(text), refused=refuses(text),
                     correct=correct(text, keys[query.query_id]) if query.query_id in keys else None)
    return state


def answer_html(state: dict, titles: Sequence[str] = ()) -> str:
    """The answer, its grade and the passages shown (cited ones marked, evidence ones starred), as HTML.

    >>> print(answer_html({"query": "q", "k": 1, "order": "rank", "shown": ["a#0"], "evidence": [1], "recorded": True,
    ...                    "answer": "Yes [1].", "cited": [1], "correct": True, "refused": False}))  # doctest: +ELLIPSIS
    <div class="ragkit-answer"><p><b>right</b> ...
    """
    if not state["recorded"]:
        return ('<div class="ragkit-answer"><p><b>not recorded</b>: nobody answered this prompt. The recorded grid '
                f"holds k in {', '.join(map(str, K_VALUES))} in rank order and the four orders at k = 10.</p></div>")
    grade = ("refused" if state["refused"] and state["correct"] is None else
             "right" if state["correct"] else "refused (the query has an answer)" if state["refused"] else "wrong")
    rows = "".join(
        f"<li>[{n}] {html.escape(chunk_id)}{' ★ evidence' if n in state['evidence'] else ''}"
        f"{' — cited' if n in state['cited'] else ''}</li>" for n, chunk_id in enumerate(state["shown"], start=1))
    precision = (sum(n in state["evidence"] for n in state["cited"]) / len(state["cited"])) if state["cited"] else None
    cites = (f"cites {', '.join(f'[{n}]' for n in state['cited'])}; {precision:.0%} of them hold evidence"
             if precision is not None else "cites nothing")
    return (f'<div class="ragkit-answer"><p><b>{grade}</b> · {cites} · k = {state["k"]}, order = {state["order"]}</p>'
            f'<blockquote style="white-space: pre-wrap">{html.escape(state["answer"])}</blockquote>'
            f'<ol style="list-style: none">{rows}</ol></div>')


def answer_widget(pipe, queries: Sequence, judgments: Sequence[Judgment], keys, records, value: int = 0):
    """A query menu, a `k` slider (the recorded values) and an `order` menu over `pipe`'s recorded answers.

    >>> answer_widget(best, test_queries, judgments, keys, records)  # doctest: +SKIP
    """
    import ipywidgets as widgets

    menu = widgets.Dropdown(options=[(f"{q.query_id}: {q.text}", i) for i, q in enumerate(queries)], value=value,
                            description="query", layout={"width": "560px"})
    k = widgets.SelectionSlider(options=list(K_VALUES), value=pipe.config.k if pipe.config.k in K_VALUES else 5,
                                description="k", continuous_update=False)
    order = widgets.Dropdown(options=list(ORDERS), value=pipe.config.order, description="order")
    view = widgets.HTML()

    def show(_=None) -> None:
        index = menu.value
        view.value = answer_html(answer_update(pipe, queries[index], judgments[index], keys, records, k.value,
                                               order.value))

    for control in (menu, k, order):
        control.observe(show, names="value")
    show()
    return widgets.VBox([menu, widgets.HBox([k, order]), view])


def live_answer_html(pipe, query: str, model) -> str:
    """The playground's answer: `pipe.answer(query, model)` as HTML, with the passages shown (cited ones marked)
    and retrieval and generation times; an error (no model installed, a prompt too long) as one line.

    >>> class Echo:
    ...     mode, model = "live", "echo"
    ...     def complete(self, prompt, purpose=""): return "It is in [1]."
    >>> "cited" in live_answer_html(pipe, "TS-105 after refresh", Echo())  # doctest: +SKIP
    True
    """
    from ragkit.errors import RagkitError

    try:
        reply = pipe.answer(query, model)
    except RagkitError as error:
        return f'<div class="ragkit-answer"><b>no answer</b>: {html.escape(str(error))}</div>'
    rows = "".join(f"<li>[{n}] {html.escape(chunk.chunk_id)}{' — cited' if n in reply.cited else ''}</li>"
                   for n, chunk in enumerate(reply.shown, start=1))
    timing = (f"retrieval {reply.usage.get('retrieval_seconds', 0) * 1000:.0f} ms, generation {reply.seconds:.1f} s"
              f" ({html.escape(getattr(model, 'model', 'a model'))})")
    return (f'<div class="ragkit-answer"><p><b>answer</b> · k = {pipe.config.k}, order = {pipe.config.order} · '
            f"{timing}{' · refused' if reply.refused else ''}</p>"
            f'<blockquote style="white-space: pre-wrap">{html.escape(reply.text)}</blockquote>'
            f'<ol style="list-style: none">{rows}</ol></div>')
