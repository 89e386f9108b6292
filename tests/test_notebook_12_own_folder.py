"""Notebook 12 on a folder of your own, by its one `FOLDER = ...` line: run top to bottom with no labels at all, then
again after a few verdicts, it stops nowhere, checks the demo's figures only on the demo, and measures what was
judged (the eval command's table, the replayed journal, "± at n" with n the answerable queries)."""

import json

import nbformat
import pytest
from helpers import ROOT
from nbclient import NotebookClient
from own_folder import build_folder

from ragkit import Pipeline, load_documents
from ragkit.labels.own_queries import add_query, set_query_type
from ragkit.labels.verdicts import record_verdict

NOTEBOOK = ROOT / "notebooks" / "12_your_own_data.ipynb"
ANSWERS = {"Which port does the Lumen server listen on?": "It listens on port 8642 by default",
           "How many days of unused leave carry over?": "Unused leave: up to five days carry over",
           "Which Python version does Lumen need?": "Lumen needs Python 3.10 or newer"}


def run_on(folder) -> list[str]:
    """Every code cell's text output, in order, after running notebook 12 with `FOLDER` set to `folder`."""
    notebook = nbformat.reads(NOTEBOOK.read_text(encoding="utf-8"), as_version=4)
    cell = next(c for c in notebook.cells if c.cell_type == "code" and "FOLDER = Path(" in c.source)
    cell.source = cell.source.replace('FOLDER = Path("../data/demo-handbook")', f"FOLDER = Path({str(folder)!r})")
    assert str(folder) in cell.source, "the notebook's one line that names the folder"
    NotebookClient(notebook, timeout=300, resources={"metadata": {"path": str(NOTEBOOK.parent)}}).execute()
    return ["".join(output.get("text", "") + str(output.get("data", {}).get("text/plain", ""))
                    for output in c.get("outputs", [])) for c in notebook.cells if c.cell_type == "code"]


@pytest.fixture
def notebook_env(monkeypatch):
    monkeypatch.setenv("PYTHONPATH", str(NOTEBOOK.parent))  # the kernel finds the exercise checks, as in make lab
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")


def test_notebook_12_runs_on_a_new_folder_from_no_labels_to_verdicts(tmp_path, notebook_env):
    folder = build_folder(tmp_path / "lumen-docs")
    empty = "\n".join(run_on(folder))
    assert "5 documents" in empty and "0 queries" in empty and "not loaded: corpus/notes/plan.docx" in empty
    assert "no verdicts yet" in empty and "not the demo folder" in empty
    chunks = Pipeline(load_documents(folder / "corpus")).chunks
    for text, quote in ANSWERS.items():
        query = add_query(folder, text)
        unit = next(unit for unit in chunks if quote in unit.text)
        start = unit.text.index(quote)
        record_verdict(folder, query, unit.doc_id, unit.start, unit.end, "answers", "tester",
                       unit.text[start:start + len(quote) + 10])
        other = next(u for u in chunks if u.doc_id != unit.doc_id)
        record_verdict(folder, query, other.doc_id, other.start, other.end, "does not answer", "tester")
    set_query_type(folder, add_query(folder, "Does Lumen run on Windows XP?")["id"], "unanswerable")
    labelled = "\n".join(run_on(folder))
    assert "4 queries, 3 with evidence" in labelled
    assert "6 verdicts replayed" in labelled and "the replayed files equal the folder's" in labelled
    assert "± at 3 queries" in labelled, "the half-width is labelled with the number of queries it was computed on"
    assert "recall@1" in labelled and "hybrid" in labelled, "the eval command's table"
    assert json.loads((folder / "queries.jsonl").read_text(encoding="utf-8").splitlines()[-1])["type"] == "unanswerable"
