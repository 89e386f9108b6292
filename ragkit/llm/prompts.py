"""The prompts ragkit sends to a language model, and the key a recorded response is filed under.

`situate_prompt` is Anthropic's contextual-retrieval prompt, verbatim (from their September 2024 write-up and
cookbook): the whole document, the chunk, and the request for a short context that situates the chunk. For a
Chinese document one line is added, asking for the answer in Chinese, so that the context matches the
chunk's language. `prompt_key` is the SHA-256 of the prompt text: a replayed response is found by the exact
prompt that produced it. Left out: prompts for rerank judgments and query rewrites (notebook 09).
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


def prompt_key(prompt: str) -> str:
    """The SHA-256 hex digest of a prompt: the key its recorded response is filed under.

    >>> prompt_key("hello")[:12]
    '2cf24dba5fb0'
    """
    return hashlib.sha256(prompt.encode("utf-8")).hexdigest()
