"""Recorded answers: one JSON line per prompt a writer answered, replayed by the prompt's key.

Each line holds `key` (SHA-256 of the prompt), `id` (the query or question), `condition` (where in the grid
the prompt sits, for example `dense k=5 order=rank`), `purpose`, `model`, `response`, and for a model run here
its `seconds`, `prompt_tokens` and `completion_tokens`. A writer's answers live in a folder of their own
(`data/llm/answers/<writer>/`), because two writers answer the same prompts. `record_answers` runs a model over
prompts and appends as it goes, so an interrupted run resumes where it stopped. Left out: concurrent writers to
one file.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from ragkit.corpus import read_jsonl
from ragkit.errors import RagkitError
from ragkit.llm.prompts import prompt_key


def load_answers(folder: str | Path) -> dict[str, dict]:
    """key → recorded line, from every `*.jsonl` in `folder` (a missing folder holds nothing).

    >>> import tempfile; folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / "a.jsonl").write_text('{"key": "k", "id": "q1", "response": "42 [1]."}\\n')
    >>> load_answers(folder)["k"]["response"]
    '42 [1].'
    """
    records: dict[str, dict] = {}
    for path in sorted(Path(folder).glob("*.jsonl")):
        for number, record in read_jsonl(path):
            if not isinstance(record.get("key"), str) or not isinstance(record.get("response"), str):
                raise RagkitError(f"{path}:{number}: a recorded answer needs 'key' and 'response' strings")
            records[record["key"]] = record
    return records


def record_answers(model, items: Iterable[dict], path: str | Path, progress=None) -> int:
    """Answer each item's `prompt` with `model` and append a line to `path`, skipping prompts already there.
    Items carry `prompt`, `id` and `condition`. Returns how many were answered now.

    >>> class Echo:
    ...     model, last_usage = "echo", {}
    ...     def complete(self, prompt, purpose=""): return prompt.upper()
    >>> import tempfile; path = Path(tempfile.mkdtemp()) / "answers.jsonl"
    >>> record_answers(Echo(), [{"prompt": "hi", "id": "q1", "condition": "k=1"}], path), load_answers(path.parent)[prompt_key("hi")]["response"]
    (1, 'HI')
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    done = set(load_answers(path.parent)) if path.parent.is_dir() else set()
    answered = 0
    items = list(items)
    for item in (progress(items) if progress else items):
        key = prompt_key(item["prompt"])
        if key in done:
            continue
        response = model.complete(item["prompt"], purpose="an answer")
        line = {"key": key, "id": item["id"], "condition": item["condition"], "purpose": "an answer",
                "model": model.model, "response": response, **getattr(model, "last_usage", {})}
        with path.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(line, ensure_ascii=False) + "\n")
        done.add(key)
        answered += 1
    return answered
