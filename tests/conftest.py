"""Shared test fixtures: the course data loaded once (the quiet, offline environment is set in ../conftest.py)."""

from pathlib import Path

import pytest
from helpers import ROOT


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT


@pytest.fixture(scope="session")
def course_docs():
    from ragkit.corpus import load_documents

    return load_documents(ROOT / "data" / "corpus")


@pytest.fixture(scope="session")
def course_queries():
    from ragkit.corpus import load_queries

    return load_queries(ROOT / "data" / "queries.jsonl")


@pytest.fixture(scope="session")
def encoder():
    from ragkit.embed.model import Encoder

    return Encoder()


@pytest.fixture(scope="session")
def course_pipe(course_docs, encoder):
    """The course's default pipeline, as the notebooks build it (`Pipeline(docs)`); derive variants with `.using`."""
    from ragkit.pipeline import Pipeline

    return Pipeline(course_docs, encoder=encoder)


@pytest.fixture(scope="module")
def demo_pipe():
    """The default pipeline over the demo folder's documents (notebook 12)."""
    from ragkit.corpus import load_documents
    from ragkit.pipeline import Pipeline

    return Pipeline(load_documents(ROOT / "data" / "demo-handbook" / "corpus"))


@pytest.fixture
def demo_folder(tmp_path):
    """A copy of the demo labels folder to write verdicts in (the shipped one is never touched)."""
    import shutil

    return Path(shutil.copytree(ROOT / "data" / "demo-handbook", tmp_path / "demo"))


# The slowest files first (warm times measured on 2 cores, longest first), so that pytest-xdist's workers,
# which each take whole files in collection order (`--dist loadfile --no-loadscope-reorder`), finish together
# instead of one of them starting the browser test when the other is done; then the files not named here, under
# 3 s each, in their own order.
SLOWEST_FIRST = ["test_browser.py", "09_rerank_cross_encoder.ipynb", "02_embeddings_and_pooling.ipynb",
                 "01_tokenization.ipynb", "09_rerank.ipynb", "03_similarity_and_vector_search.ipynb",
                 "10_evaluation.ipynb", "test_judging_queries.py", "09_rerank_llm_and_refuse.ipynb", "06_hybrid_search.ipynb",
                 "05_bm25.ipynb", "10_metrics_and_diagnosis.ipynb", "02_multilingual_encoder.ipynb", "07_contextual_retrieval.ipynb",
                 "06_hybrid_search_verdict.ipynb", "03_vector_search_at_scale.ipynb", "05_bm25_measured.ipynb",
                 "02_embeddings_and_pooling_measured.ipynb", "01_tokenization_retrieval.ipynb",
                 "test_vectorstore.py", "test_site.py", "test_notebook_12_own_folder.py", "test_encoders.py", "04_chunking_measured.ipynb", "08_mmr.ipynb", "test_exercises_09.py",
                 "test_encoder_numpy.py", "04_chunking_semantic.ipynb", "11_playground.ipynb", "test_doctests.py",
                 "test_judgments.py", "test_exercises_02.py", "test_exercises_07.py", "test_llm.py",
                 "test_exercises_06.py", "test_rerank.py", "test_bm25.py", "test_exercises_03.py",
                 "12_your_own_data.ipynb", "test_wordpiece.py", "00_rag_in_one_page.ipynb",
                 "test_exercises_05.py"]


def pytest_collection_modifyitems(items):
    rank = {name: position for position, name in enumerate(SLOWEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))  # stable: the rest keep their order
