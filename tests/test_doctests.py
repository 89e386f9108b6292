"""Every worked example in ragkit's docstrings runs and gives what it shows."""

import doctest
import importlib
import pkgutil

import pytest

import ragkit

MODULES = sorted(name.removeprefix("ragkit.") for _, name, is_package in pkgutil.walk_packages(
    ragkit.__path__, prefix="ragkit.") if not name.endswith("__main__") and not is_package)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name, root, monkeypatch, tmp_path):
    monkeypatch.chdir(root)  # examples read data/ relative to the repository root
    monkeypatch.setenv("RAGKIT_CACHE", str(root / ".cache"))
    module = importlib.import_module(f"ragkit.{name}")
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{result.failed} docstring examples of ragkit.{name} fail"
