"""One small interface to a language model, `complete(prompt) -> str`, in three modes.

- **replay** (the default, offline): the response recorded for this exact prompt in `data/llm/*.jsonl`, found by
  the prompt's SHA-256 (`ragkit.llm.prompts.prompt_key`); a miss is a clear error that says how to record it.
- **live**: any OpenAI-compatible chat-completions server (Ollama, llama.cpp's server, vLLM, LM Studio, a
  hosted API), through the maintained `openai` client, with a timeout and bounded retries with backoff.
- **record**: live, and every new response appended to a replay file, with the model's name.

Settings come from the environment: `RAGKIT_LLM_MODE`, `RAGKIT_LLM_URL` (for example
http://127.0.0.1:11434/v1), `RAGKIT_LLM_MODEL`, `RAGKIT_LLM_API_KEY`. Left out: streaming, tools, and any
prompt but a single user message.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from ragkit.errors import RagkitError
from ragkit.llm.prompts import prompt_key

MODES = ("replay", "live", "record")
RECORDINGS = Path(__file__).resolve().parent.parent.parent / "data" / "llm"


def load_recordings(folder: str | Path = RECORDINGS) -> dict[str, str]:
    """key → response from every `*.jsonl` file in `folder` (each line: {"key", "response", ...}).

    >>> import tempfile; folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / "a.jsonl").write_text('{"key": "k1", "response": "It is about keys."}\\n')
    >>> load_recordings(folder)
    {'k1': 'It is about keys.'}
    """
    responses: dict[str, str] = {}
    for path in sorted(Path(folder).glob("*.jsonl")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
                responses[record["key"]] = record["response"]
            except (json.JSONDecodeError, KeyError, TypeError):
                raise RagkitError(f"{path}:{number}: not a recorded response (need a JSON object with "
                                  "'key' and 'response')") from None
    return responses


class LanguageModel:
    """`complete(prompt)` by replay, live or record (see the module docstring).

    >>> import tempfile; folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / "a.jsonl").write_text(json.dumps({"key": prompt_key("Hi?"), "response": "Hello."}))
    >>> LanguageModel(recordings=folder).complete("Hi?")
    'Hello.'
    """

    def __init__(self, mode: str | None = None, url: str | None = None, model: str | None = None,
                 api_key: str | None = None, recordings: str | Path = RECORDINGS, record_to: str | None = None,
                 timeout: float = 60.0, retries: int = 2):
        self.mode = mode or os.environ.get("RAGKIT_LLM_MODE", "replay")
        if self.mode not in MODES:
            raise RagkitError(f"unknown language-model mode {self.mode!r}; choose one of {', '.join(MODES)}")
        self.url = url or os.environ.get("RAGKIT_LLM_URL", "")
        self.model = model or os.environ.get("RAGKIT_LLM_MODEL", "")
        self.api_key = api_key or os.environ.get("RAGKIT_LLM_API_KEY", "") or "not-needed"
        self.recordings, self.timeout, self.retries = Path(recordings), timeout, retries
        self.record_to = Path(record_to) if record_to else self.recordings / "recorded.jsonl"
        self._replay: dict[str, str] | None = None
        self._client = None

    def variant(self, name: str) -> LanguageModel:
        """The same model, replaying the recordings in `<recordings>/<name>/` instead: another set of answers to
        the same prompts (`context="llm-plain"`). Live and record modes ask the server as before.

        >>> LanguageModel(recordings="data/llm").variant("plain").recordings.as_posix()
        'data/llm/plain'
        """
        return LanguageModel(self.mode, self.url, self.model, self.api_key, self.recordings / name,
                             self.record_to.parent / name / self.record_to.name, self.timeout, self.retries)

    def complete(self, prompt: str, purpose: str = "a response") -> str:
        """The model's answer to one user message."""
        key = prompt_key(prompt)
        if self.mode == "replay":
            if self._replay is None:
                self._replay = load_recordings(self.recordings)
            if key not in self._replay:
                raise RagkitError(
                    f"nothing recorded for this prompt ({purpose}, key {key[:12]}…) in {self.recordings.name}/: "
                    "record it with a server, RAGKIT_LLM_MODE=record RAGKIT_LLM_URL=... RAGKIT_LLM_MODEL=... "
                    "(see data/llm/README.md)")
            return self._replay[key]
        answer = self._ask(prompt, purpose)
        if self.mode == "record":
            self.record_to.parent.mkdir(parents=True, exist_ok=True)
            with self.record_to.open("a", encoding="utf-8") as handle:
                handle.write(json.dumps({"key": key, "response": answer, "purpose": purpose, "model": self.model},
                                        ensure_ascii=False) + "\n")
        return answer

    def _ask(self, prompt: str, purpose: str) -> str:
        import openai

        if not self.url or not self.model:
            raise RagkitError(f"{self.mode} mode needs a server: set RAGKIT_LLM_URL (for example "
                              "http://127.0.0.1:11434/v1) and RAGKIT_LLM_MODEL")
        if self._client is None:  # openai retries connection errors, timeouts and 5xx with exponential backoff
            self._client = openai.OpenAI(base_url=self.url, api_key=self.api_key, timeout=self.timeout,
                                         max_retries=self.retries)
        try:
            reply = self._client.chat.completions.create(
                model=self.model, messages=[{"role": "user", "content": prompt}], temperature=0)
        except openai.APITimeoutError:
            raise RagkitError(f"the language model at {self.url} did not answer within {self.timeout:g} s "
                              f"({self.retries} retries) while writing {purpose}") from None
        except openai.APIConnectionError:
            raise RagkitError(f"cannot reach a language model server at {self.url}: is it running? "
                              "(RAGKIT_LLM_URL)") from None
        except openai.APIStatusError as error:
            raise RagkitError(f"the language model at {self.url} answered HTTP {error.status_code} while "
                              f"writing {purpose}") from None
        content = reply.choices[0].message.content if reply.choices else None
        if not content:
            raise RagkitError(f"the language model at {self.url} returned an empty answer for {purpose}")
        return content.strip()
