"""The answer stage as the pipeline's last step: `answer_prompt(query)` and `answer(query, model)` on `Pipeline`.

`AnswerStage` is mixed into `ragkit.pipeline.Pipeline`: it reads the pipeline's rankings, its analyzer's terms
and the answer knobs of its config (`k`, `order`, `compress`), and times retrieval apart from generation (seed
000). Left out: answering many queries at once (`ragkit.generate.report` does that for grading).
"""

from __future__ import annotations

import time

import numpy as np

from ragkit.chunk.base import Chunk
from ragkit.generate.answer import Answer, answer, answer_prompt
from ragkit.index.exact import top_k


class AnswerStage:
    """What a pipeline adds to answer a query (needs `config`, `chunks`, `rankings` and `terms`).

    >>> pipe.using(k=3, order="edges").answer_prompt("TS-105 after refresh")[1][0].doc_id  # doctest: +SKIP
    'api-error-codes'
    """

    def answer_prompt(self, query: str) -> tuple[str, list[Chunk]]:
        """(prompt, passages shown) for one query under the answer knobs `k`, `order` and `compress`."""
        top_k(np.zeros((1, len(self.chunks))), self.config.k)  # k larger than the corpus: the usual clear error
        ranked = self.rankings([query], self.config.k)[0]
        return answer_prompt(query, ranked, self.config.k, self.config.order, self.config.compress, self.terms)

    def answer(self, query: str, model) -> Answer:
        """Retrieve, assemble and ask `model` (`complete(prompt)`: recorded, server or local); timed apart."""
        started = time.perf_counter()
        prompt, shown = self.answer_prompt(query)
        retrieval_seconds = time.perf_counter() - started
        reply = answer(model, query, shown, prompt)
        reply.usage["retrieval_seconds"] = round(retrieval_seconds, 4)
        return reply
