"""The prompts ragkit sends to a language model, and the key a recorded response is filed under.

`situate_prompt` is Anthropic's contextual-retrieval prompt, verbatim (from their September 2024 write-up and
cookbook): the whole document, the chunk, and the request for a short context that situates the chunk. For a
Chinese document one line is added, asking for the answer in Chinese, so that the context matches the
chunk's language. `rerank_prompt` asks for seed 003's 0–10 relevance score of one passage for one query, and
`rewrite_prompt` for a reformulated search query (seed 001's `adaptive_rag`); the seeds name these steps but
give no prompt text, so both prompts are the course's own, as is `translate_prompt` (an English rendering of a
Chinese query, used only to pool passages for judging). `prompt_key` is the SHA-256 of the prompt text: a
replayed response is found by the exact prompt that produced it. Left out: listwise reranking prompts (several
passages in one prompt), few-shot examples, and parsing anything but a leading number.
"""

from __future__ import annotations

import hashlib

SITUATE = """<document>
{document}
</document>
Here is the chunk we want to situate within the whole document
<chunk>
{chunk}
</chunk>
Please give a short succinct context to situate this chunk within the overall document for the purposes of \
improving search retrieval of the chunk. Answer only with the succinct context and nothing else."""
IN_CHINESE = "\n请用中文回答。"
RERANK = """Rate how relevant the passage is to the search query, from 0 (unrelated) to 10 (it fully answers \
the query).

Query: {query}

Passage (from the document "{title}"):
{passage}

Answer with the score only, a whole number from 0 to 10."""
REWRITE = """A search over a company's documents (API reference, security and HR policies, finance reports, \
incident reports, release notes, FAQs; in English and Chinese) found nothing relevant for this query. Rewrite \
it as a search query more likely to find the answer: keep its language, its identifiers, versions and dates, \
and spell out what it asks for.

Query: {query}

Answer with the rewritten query only, on one line."""
TRANSLATE = """Translate this search query, written in Chinese by an employee searching their company's internal \
wiki, into English. Keep its identifiers, numbers, dates and names as they are; keep it as short as the \
original; do not answer it.

Query: {query}

Answer with the English query only, on one line."""


def situate_prompt(document: str, chunk: str, lang: str = "en") -> str:
    """Anthropic's prompt for a chunk's situating context (plus "answer in Chinese" for a Chinese document).

    >>> print(situate_prompt("Doc text.", "text"))
    <document>
    Doc text.
    </document>
    Here is the chunk we want to situate within the whole document
    <chunk>
    text
    </chunk>
    Please give a short succinct context to situate this chunk within the overall document for the purposes of improving search retrieval of the chunk. Answer only with the succinct context and nothing else.
    """
    return SITUATE.format(document=document, chunk=chunk) + (IN_CHINESE if lang == "zh" else "")


def rerank_prompt(query: str, title: str, passage: str) -> str:
    """The course's prompt for a 0–10 relevance score of one passage (seed 003's scale).

    >>> print(rerank_prompt("TS-203 meaning", "API error codes", "TS-203 means the daily quota is used up."))
    ... # doctest: +ELLIPSIS
    Rate how relevant the passage is to the search query, from 0 (unrelated) to 10 (it fully answers the query).
    <BLANKLINE>
    Query: TS-203 meaning
    ...
    Answer with the score only, a whole number from 0 to 10.
    """
    return RERANK.format(query=query, title=title, passage=passage)


def rewrite_prompt(query: str) -> str:
    """The course's prompt for a rewritten search query (seed 001's `rewrite_query`).

    >>> rewrite_prompt("refund?").splitlines()[-3]
    'Query: refund?'
    """
    return REWRITE.format(query=query)


def translate_prompt(query: str) -> str:
    """The course's prompt for an English rendering of a Chinese query: a labelling aid that lets English
    retrieval pool passages for it (`data pool --translated`), never an input to retrieval.

    >>> translate_prompt("年假几天").splitlines()[-3]
    'Query: 年假几天'
    """
    return TRANSLATE.format(query=query)


def prompt_key(prompt: str) -> str:
    """The SHA-256 hex digest of a prompt: the key its recorded response is filed under.

    >>> prompt_key("hello")[:12]
    '2cf24dba5fb0'
    """
    return hashlib.sha256(prompt.encode("utf-8")).hexdigest()
