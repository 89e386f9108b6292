"""Query drafts: a language model proposes questions a document answers, for a person to accept, edit or reject.

Writing queries is the slow part of labelling your own documents. `draft_prompt` asks a model, given one whole
document, for a few questions people might search with that the document answers, in the document's language
and in the searchers' words; `parse_drafts` reads its answer as one question a line. A draft is never a label:
it becomes a query only when a person accepts it, and its evidence only comes from judging the pooled passages
(`ragkit.widgets.judging`). `prompt_lines` lists the exact prompts for a set of documents, so that their answers
can be recorded and replayed offline like every other model output (`ragkit.llm.client`). The prompt is the
course's own. Left out: documents longer than `LIMIT` characters (the prompt keeps their beginning), drafting
questions that need several documents, and filtering drafts by quality.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ragkit.corpus import Document
from ragkit.errors import RagkitError
from ragkit.llm.prompts import prompt_key

LIMIT = 6000  # characters of a document the prompt keeps
PURPOSE = "query drafts"
DRAFT = """Here is one document from a collection that people search when they need an answer.

<document title="{title}">
{document}
</document>

Write {n} different questions that someone might type into the collection's search box and that this document \
answers. Write them as people search: short, in their own words rather than the document's, and in the \
document's language. If the document names an exact term, number or code, let one question use it. Do not \
answer the questions.

Answer with the questions only, one per line, without numbers or bullets."""


def draft_prompt(doc: Document, n: int = 3) -> str:
    """The prompt that asks for `n` search questions `doc` answers (its first `LIMIT` characters).

    >>> print(draft_prompt(Document("d", "Leave", "own", "2026-01-05", "en", "Twenty-five days a year."), 2))
    Here is one document from a collection that people search when they need an answer.
    <BLANKLINE>
    <document title="Leave">
    Twenty-five days a year.
    </document>
    <BLANKLINE>
    Write 2 different questions that someone might type into the collection's search box and that this document answers. Write them as people search: short, in their own words rather than the document's, and in the document's language. If the document names an exact term, number or code, let one question use it. Do not answer the questions.
    <BLANKLINE>
    Answer with the questions only, one per line, without numbers or bullets.
    """
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= 10:
        raise RagkitError(f"ask for 1 to 10 drafts per document, got {n!r}")
    return DRAFT.format(title=doc.title, document=doc.text.strip()[:LIMIT], n=n)


def parse_drafts(response: str) -> list[str]:
    """The questions in a model's answer: one a line, numbers, bullets and blank lines dropped, each kept once.

    >>> parse_drafts("1. How many leave days?\\n- how many leave days?\\n\\n* Who approves leave?")
    ['How many leave days?', 'Who approves leave?']
    """
    drafts: dict[str, str] = {}
    for line in str(response).splitlines():
        text = " ".join(re.sub(r"^\s*(?:[-*•]|\d+[.)、])\s*", "", line).split()).strip("\"'“”")
        if text:
            drafts.setdefault(text.casefold(), text)
    return list(drafts.values())


def prompt_lines(docs: Sequence[Document], n: int = 3) -> list[dict]:
    """One record per document: the prompt's key (under which its answer is recorded), the document, the
    purpose and the prompt itself, ready to be written as JSON lines and answered by a model.

    >>> prompt_lines([Document("d", "Leave", "own", "2026-01-05", "en", "Twenty-five days.")])[0]["doc"]
    'd'
    """
    lines = []
    for doc in docs:
        prompt = draft_prompt(doc, n)
        lines.append({"key": prompt_key(prompt), "doc": doc.doc_id, "purpose": PURPOSE, "prompt": prompt})
    return lines


def draft_questions(model, doc: Document, n: int = 3) -> list[str]:
    """`model`'s drafts for `doc` (`model`: a `ragkit.llm.client.LanguageModel`, live or replaying).

    >>> draft_questions(LanguageModel(mode="live"), doc)  # doctest: +SKIP
    ['how many days of leave do I get', ...]
    """
    return parse_drafts(model.complete(draft_prompt(doc, n), purpose=f"{PURPOSE} for {doc.doc_id}"))
