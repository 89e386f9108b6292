"""Write label files safely: a lock on the labels folder, and whole-file replacement through a temporary file.

`write_jsonl` writes a JSON-lines file to a temporary file beside it and renames it over the old one, so a crash
of the kernel or of the process leaves the old file or the new one, never half of one. `folder_lock` holds the folder's own
`flock` while a writer reads, changes and replaces its files, so two writers at once (two judging widgets, or a
widget and `python -m ragkit data record`) take turns and neither loses the other's lines; readers take it
shared. `append_jsonl` adds lines to a journal. Left out: surviving a power cut (that needs `fsync`, which costs
about 15 ms a file), locks on systems without `fcntl` (Windows) or on network file systems that ignore `flock`,
and a timeout (a writer holds the lock for milliseconds).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import stat
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path

from ragkit.errors import RagkitError

JOURNAL = "verdicts.jsonl"  # a labels folder's journal: every verdict in the order it was made


@contextlib.contextmanager
def folder_lock(folder: str | Path, shared: bool = False) -> Iterator[None]:
    """Hold an exclusive (with `shared`, a shared) lock on a folder: one writer at a time, and no reader while
    one writes. The lock is the folder's own, so no lock file is left behind; closing releases it.

    >>> with folder_lock("data", shared=True):
    ...     pass
    """
    try:
        handle = os.open(folder, os.O_RDONLY)
    except OSError as error:
        raise RagkitError(f"{folder}: cannot open the labels folder: {error.strerror}") from None
    try:
        fcntl.flock(handle, fcntl.LOCK_SH if shared else fcntl.LOCK_EX)
        yield
    finally:
        os.close(handle)


def jsonl_text(records: Sequence[dict]) -> str:
    """One JSON object a line, non-ASCII characters kept as they are.

    >>> jsonl_text([{"q": "年假"}, {"n": 1}])
    '{"q": "年假"}\\n{"n": 1}\\n'
    """
    return "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records)


def write_jsonl(path: str | Path, records: Sequence[dict]) -> None:
    """Replace `path` whole with `records`, one JSON object a line, through a temporary file beside it (not at
    all when it holds them already).

    >>> import tempfile; path = Path(tempfile.mkdtemp()) / "q.jsonl"
    >>> write_jsonl(path, [{"id": "q1"}]); path.read_text()
    '{"id": "q1"}\\n'
    """
    path, text = Path(path), jsonl_text(records)
    if path.is_file() and path.read_text(encoding="utf-8") == text:
        return  # unchanged: nothing to replace
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:  # the new file keeps the old one's permissions (a temporary file starts readable by its owner only)
        os.chmod(temporary, stat.S_IMODE(path.stat().st_mode) if path.exists() else 0o644)
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def append_jsonl(path: str | Path, records: Sequence[dict]) -> None:
    """Append `records` to `path`, one JSON object a line (hold the folder's lock).

    >>> import tempfile; path = Path(tempfile.mkdtemp()) / "log.jsonl"
    >>> append_jsonl(path, [{"a": 1}]); append_jsonl(path, [{"a": 2}]); path.read_text()
    '{"a": 1}\\n{"a": 2}\\n'
    """
    with Path(path).open("a", encoding="utf-8") as out:
        out.write(jsonl_text(records))
