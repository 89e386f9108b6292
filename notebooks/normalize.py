"""Normalise executed notebooks so that opening one in JupyterLab changes nothing.

JupyterLab merges consecutive outputs of one stream and rewrites the kernel's display name when it opens a
notebook, which marks a freshly executed notebook "modified" (and asks to save on close). Run this after
executing notebooks: `python notebooks/normalize.py` (all of them) or with paths. nbval merges streams the
same way before comparing, so the saved outputs stay comparable.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}


def merged_streams(outputs: list[dict]) -> list[dict]:
    """Consecutive stream outputs of the same name (stdout, stderr) merged into one, as JupyterLab does."""
    merged: list[dict] = []
    for output in outputs:
        previous = merged[-1] if merged else None
        if (output.get("output_type") == "stream" and previous is not None
                and previous.get("output_type") == "stream" and previous.get("name") == output.get("name")):
            text = "".join(previous["text"]) + "".join(output["text"])
            previous["text"] = text.splitlines(keepends=True)
        else:
            merged.append(output)
    return merged


def normalize(path: Path) -> bool:
    """Normalise one notebook in place; True when it changed."""
    before = path.read_text(encoding="utf-8")
    notebook = json.loads(before)
    notebook["metadata"]["kernelspec"] = dict(KERNELSPEC)
    for cell in notebook["cells"]:
        if cell["cell_type"] == "code":
            cell["outputs"] = merged_streams(cell["outputs"])
    after = json.dumps(notebook, indent=1, ensure_ascii=False) + "\n"
    if after != before:
        path.write_text(after, encoding="utf-8")
    return after != before


if __name__ == "__main__":
    paths = [Path(p) for p in sys.argv[1:]] or sorted(Path(__file__).parent.glob("[0-9][0-9]_*.ipynb"))
    for path in paths:
        print(f"{path.name}: {'normalised' if normalize(path) else 'already normal'}")
