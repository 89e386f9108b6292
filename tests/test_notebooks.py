"""Committed notebooks are executed top to bottom with no unexpected errors, and everything passes ruff.

nbval (configured in pyproject.toml) re-runs every notebook and compares its outputs; these checks catch
what nbval does not: a notebook saved unexecuted or out of order, or an error output nobody meant.
"""

import json
import shutil
import subprocess
import sys

import pytest
from helpers import ROOT

NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))


def test_there_are_notebooks():
    assert NOTEBOOKS, "notebooks/ holds no NN_topic.ipynb"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_is_executed_in_order_without_errors(path):
    notebook = json.loads(path.read_text(encoding="utf-8"))
    code = [cell for cell in notebook["cells"] if cell["cell_type"] == "code"]
    counts = [cell.get("execution_count") for cell in code]
    assert counts == list(range(1, len(code) + 1)), f"{path.name} is not executed top to bottom: {counts}"
    for number, cell in enumerate(code, start=1):
        tags = cell.get("metadata", {}).get("tags", [])
        for output in cell.get("outputs", []):
            if output.get("output_type") == "error":
                assert "raises-exception" in tags, f"{path.name} cell {number} holds an error: {output.get('ename')}"
    first = "".join(notebook["cells"][0]["source"])
    assert first.startswith("# "), f"{path.name} must open with a title"


MAX_CELLS = 65  # past about 60 cells learners lose the thread (issue 36): split a notebook rather than grow it


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_is_short_enough_to_follow(path):
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    assert len(cells) <= MAX_CELLS, f"{path.name} has {len(cells)} cells; cut or split it ({MAX_CELLS} at most)"


@pytest.mark.skipif(shutil.which("ruff") is None and not (ROOT / ".venv/bin/ruff").exists(), reason="ruff missing")
def test_ruff_is_clean():
    done = subprocess.run([sys.executable, "-m", "ruff", "check", "ragkit", "tests", "notebooks", "benchmarks", "site"],
                          capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_opens_unmodified(path):
    # JupyterLab rewrites the kernel name and merges consecutive stream outputs on open; a notebook saved
    # otherwise shows as modified before the learner has done anything (fix: python notebooks/normalize.py)
    sys.path.insert(0, str(ROOT / "notebooks"))
    from normalize import KERNELSPEC, merged_streams

    notebook = json.loads(path.read_text(encoding="utf-8"))
    assert notebook["metadata"].get("kernelspec") == KERNELSPEC, f"{path.name}: kernelspec differs"
    for cell in notebook["cells"]:
        if cell["cell_type"] == "code":
            outputs = json.loads(json.dumps(cell["outputs"]))
            assert merged_streams(outputs) == cell["outputs"], f"{path.name}: consecutive stream outputs"


SAME_ARGUMENT_CHECKS = {"allclose", "isclose", "array_equal", "assert_allclose", "assert_array_equal", "assert_equal"}


def self_comparisons(source: str) -> list[str]:
    """Checks in `source` whose two sides are the same expression (`assert x == x`, `np.allclose(a, a)`):
    they pass whatever the code does."""
    import ast

    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare) and len(node.comparators) == 1:
            # `a.cached is a.cached` checks a cache (two evaluations give one object), so identity is allowed
            if not isinstance(node.ops[0], ast.Is | ast.IsNot) and ast.dump(node.left) == ast.dump(node.comparators[0]):
                found.append(ast.unparse(node))
        elif isinstance(node, ast.Call) and len(node.args) >= 2:
            name = getattr(node.func, "attr", getattr(node.func, "id", ""))
            if name in SAME_ARGUMENT_CHECKS and ast.dump(node.args[0]) == ast.dump(node.args[1]):
                found.append(ast.unparse(node))
    return found


def test_self_comparison_finder_finds_them():
    assert self_comparisons("assert x == x\nnp.testing.assert_allclose(a.b, a.b)\nassert x == y") == [
        "x == x", "np.testing.assert_allclose(a.b, a.b)"]


@pytest.mark.parametrize("path", [*NOTEBOOKS, *sorted((ROOT / "tests").glob("test_*.py"))], ids=lambda p: p.name)
def test_no_check_compares_a_value_with_itself(path):
    if path.suffix == ".ipynb":
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        sources = ["".join(cell["source"]) for cell in cells if cell["cell_type"] == "code"]
    else:
        sources = [path.read_text(encoding="utf-8")]
    found = [check for source in sources for check in self_comparisons(source)
             if "self_comparisons" not in source]  # this file's own examples
    assert not found, f"{path.name}: checks that cannot fail: {found}"


def exercise_block(cells: list[dict]) -> list[dict] | None:
    """The cells between a notebook's "## Exercises" heading and its "### Solutions" heading (None: no exercises)."""
    headings = ["".join(cell["source"]).split("\n")[0].strip() if cell["cell_type"] == "markdown" else ""
                for cell in cells]
    if "## Exercises" not in headings:
        return None
    start = headings.index("## Exercises")
    end = headings.index("### Solutions", start)
    return cells[start + 1:end]


def imported_checks(cells: list[dict]) -> set[str]:
    """The names a notebook imports from its exercise checks (`from exercises.topic import check_a, check_b`)."""
    import ast

    names = set()
    for cell in cells:
        if cell["cell_type"] == "code":
            for node in ast.walk(ast.parse("\n".join(line for line in "".join(cell["source"]).splitlines()
                                                     if not line.startswith(("%", "!"))))):
                if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("exercises."):
                    names |= {alias.name for alias in node.names}
    return names


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_exercises_give_nothing_away_and_their_checks_are_tested(path):
    # a learner reads top to bottom: no right answer, wrong answer or check code may sit between the
    # exercises and the solutions; the proof that each check rejects wrong answers lives in tests/
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    block = exercise_block(cells)
    if block is None:
        return
    for cell in block:
        source = "".join(cell["source"])
        if cell["cell_type"] == "code":
            assert "def check_" not in source and "wrong_answers" not in source and "right answer" not in source, \
                f"{path.name}: an exercise cell computes or defines what the checks accept:\n{source[:200]}"
    checks = imported_checks(block)
    assert checks, f"{path.name}: its exercises import no checks from notebooks/exercises/"
    tests = "".join(test.read_text(encoding="utf-8")
                    for test in (ROOT / "tests").glob(f"test_exercises_{path.name[:2]}*.py"))
    untested = sorted(name for name in checks if name not in tests)
    assert not untested, f"{path.name}: checks with no wrong-answer test in tests/test_exercises_*: {untested}"


@pytest.mark.parametrize("path", [p for p in NOTEBOOKS if p.name >= "07"], ids=lambda p: p.name)
def test_later_notebooks_stay_short_enough_to_read_in_a_sitting(path):
    # about 60 cells: 09 at 105 and 10 at 82 were split after a learner's pass lost the thread in them
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    assert len(cells) <= 62, f"{path.name} has {len(cells)} cells: split it by topic"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_solutions_are_folded_code_and_outputs(path):
    # a learner reading top to bottom must not meet a solution or its printed answer before trying
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    headings = ["".join(cell["source"]).lstrip() if cell["cell_type"] == "markdown" else "" for cell in cells]
    starts = [i for i, heading in enumerate(headings) if heading.startswith("### Solutions")]
    for cell in cells[starts[0] + 1:] if starts else []:
        if cell["cell_type"] == "code":
            folded = cell["metadata"].get("jupyter", {})
            assert folded.get("source_hidden") and folded.get("outputs_hidden"), \
                f"{path.name}: a solution cell is not folded (python notebooks/normalize.py folds them)"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_pictures_travel_with_the_notebook(path):
    """A picture in the prose is an attachment or a data URI: `make lab` serves workbook/, a copy of the
    notebooks, so a path to a file elsewhere in the repository (../benchmarks/...) is a 404 for a learner."""
    import re

    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    links = [link for cell in cells if cell["cell_type"] == "markdown"
             for link in re.findall(r"!\[[^\]]*\]\(([^)\s]+)|<img [^>]*src=['\"]([^'\"]+)", "".join(cell["source"]))]
    outside = [src for pair in links for src in (pair if isinstance(pair, tuple) else (pair,))
               if src and not src.startswith(("attachment:", "data:image/"))]
    assert not outside, f"{path.name}: pictures that do not travel with the notebook: {outside}"
