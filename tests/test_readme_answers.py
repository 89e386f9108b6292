"""The README's answer tables say what `python -m ragkit answer` replays (course rows and Natural Questions)."""

import re

import pytest
from helpers import ROOT

from ragkit.answering import run_answer
from ragkit.errors import RagkitError
from ragkit.generate.report import nq_answers

BEST = [("context", "llm"), ("method", "hybrid"), ("rerank", "llm"), ("rerank_depth", 50)]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def row(label: str) -> list[str]:
    line = next(line for line in README.splitlines() if line.startswith(f"| {label} |"))
    return [cell.strip() for cell in line.strip("|").split("|")][1:]


@pytest.mark.parametrize("label, settings", [
    ("naive dense, k=5", [("k", 5)]),
    ("best, k=10, best passages at both edges", [*BEST, ("k", 10), ("order", "edges")]),
])
def test_course_answer_rows(label, settings, monkeypatch):
    monkeypatch.chdir(ROOT)
    result = run_answer("data", "test", settings)
    metrics, by_lang = result["metrics"], result["by_lang"]
    right, citations, refusals = row(label)
    numbers = [float(x) for x in re.findall(r"\d\.\d{3}", right)]
    assert numbers == [round(by_lang["en"]["correctness"]["mean"], 3), round(by_lang["zh"]["correctness"]["mean"], 3),
                       round(metrics["correctness"]["mean"], 3), round(metrics["correctness"]["low"], 3),
                       round(metrics["correctness"]["high"], 3)]
    assert citations == (f"{metrics['citation_precision']['mean']:.3f} / {metrics['citation_recall']['mean']:.3f}")
    assert refusals == f"{metrics['refusal_precision']['mean']:.3f} / {metrics['refusal_recall']['mean']:.3f}"


def test_natural_questions_rows(monkeypatch):
    monkeypatch.chdir(ROOT)
    conditions = ["position-1", "position-5", "position-10", "position-15", "position-20", "closed-book", "gold-only"]
    shown = row("Claude, recorded (300 questions)")
    for condition, cell in zip(conditions, shown, strict=True):
        assert cell == f"{nq_answers(condition, 'claude')['correct'].mean() * 100:.1f}", condition
    small = row("SmolLM2-135M on the CPU, local (first 100)")
    assert [cell != "–" for cell in small] == [True, False, True, False, True, False, False]
    for condition, cell in zip(conditions, small, strict=True):
        if cell == "–":  # a dash must mean that nothing was recorded for that condition
            with pytest.raises(RagkitError, match="no recorded answer from smollm2"):
                nq_answers(condition, "smollm2", limit=100)
        else:
            assert cell == f"{nq_answers(condition, 'smollm2', limit=100)['correct'].mean() * 100:.1f}", condition
