"""The package layout follows the data flow: a lower stage never imports a higher one, and modules stay small."""

import ast
import re

import pytest
from helpers import ROOT

PACKAGE = ROOT / "ragkit"
# stages in data-flow order; a module may import its own stage, lower stages and the shared base modules
# (labels come after evaluation: pooling reads its relevance rule; generation after both: its graders read
# evaluation's relevance and intervals)
STAGES = ["text", "llm", "chunk", "embed", "index", "rank", "assemble", "evaluate", "labels", "generate", "widgets"]
BASE = {"errors", "cache", "corpus"}
TOP = {"config", "pipeline", "reranking", "commands", "answering", "cli", "__init__", "__main__"}
MAX_LINES = 220  # "about 200": split a module by idea before it grows past this


def ragkit_imports(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "ragkit":
            yield node.lineno, node.module
        elif isinstance(node, ast.Import):
            yield from ((node.lineno, alias.name) for alias in node.names if alias.name.split(".")[0] == "ragkit")


def part_of(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "ragkit"


MODULES = sorted(PACKAGE.rglob("*.py"))


def test_every_stage_is_a_subpackage_and_nothing_else_sits_on_top():
    found = {path.relative_to(PACKAGE).parts[0].removesuffix(".py") for path in MODULES}
    assert found == set(STAGES) | BASE | TOP, f"unexpected top-level modules: {found - set(STAGES) - BASE - TOP}"


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_lower_stages_never_import_higher_ones(path):
    part = path.relative_to(PACKAGE).parts[0].removesuffix(".py")
    if part in TOP:
        return
    allowed = BASE | (set(STAGES[: STAGES.index(part) + 1]) if part in STAGES else set())
    if part == "errors":
        allowed = set()
    for line, module in ragkit_imports(path):
        target = part_of(module)
        assert target in allowed, (f"{path.relative_to(ROOT)}:{line} imports {module}: stage {part!r} may only "
                                   f"import {sorted(allowed)}")


def test_the_base_modules_import_no_stage():
    for path in [PACKAGE / "cache.py", *sorted((PACKAGE / "corpus").glob("*.py"))]:
        for line, module in ragkit_imports(path):
            assert part_of(module) in {"errors", "cache", "corpus"}, f"{path.relative_to(ROOT)}:{line} imports {module}"


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_modules_are_small_and_say_what_they_leave_out(path):
    text = path.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= MAX_LINES, f"{path.relative_to(ROOT)} has {len(text.splitlines())} lines"
    if path.name != "__init__.py" or text.strip():
        docstring = ast.get_docstring(ast.parse(text)) or ""
        if path.name not in ("__init__.py", "__main__.py"):
            assert "Left out" in docstring, f"{path.relative_to(ROOT)}: the docstring must say what is left out"


def test_the_readme_diagram_names_modules_that_exist():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    diagram = readme.split("```mermaid", 1)[1].split("```", 1)[0]
    named = set(re.findall(r"ragkit/[\w/.]*\w", diagram))
    assert named, "the architecture diagram names the modules"
    for module in named:
        assert (ROOT / module).exists(), f"the README diagram names {module}, which does not exist"


def test_the_readme_names_every_knob():
    from ragkit.config import KNOBS

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    missing = [name for name in KNOBS if f"`{name}`" not in readme]
    assert not missing, f"the README's knob table lacks {missing}"
