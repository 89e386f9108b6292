"""Loading documents and queries: the happy path and every kind of broken file."""

import json

import pytest

from ragkit.corpus import document_from_file, load_documents, load_queries, parse_front_matter
from ragkit.errors import RagkitError

GOOD = "---\nid: a\ntitle: A page\nsource: faq\ndate: 2025-01-02\nlang: en\n---\n# A\nBody text.\n"


def test_front_matter_parses_fields_and_body():
    meta, body, line = parse_front_matter(GOOD)
    assert meta == {"id": "a", "title": "A page", "source": "faq", "date": "2025-01-02", "lang": "en"}
    assert body == "# A\nBody text.\n"
    assert line == 8


@pytest.mark.parametrize("content, message", [
    ("# Just markdown\n", r"x\.md:1: no front matter"),
    ("---\nid: x\n", "never closed"),
    ("---\nid x\n---\nbody", r"x\.md:2: front matter line is not 'key: value'"),
    ("---\nid: x\ntitle: X\n---\nbody", "lacks source, date, lang"),
])
def test_broken_front_matter_names_the_file_and_line(tmp_path, content, message):
    path = tmp_path / "x.md"
    path.write_text(content)
    with pytest.raises(RagkitError, match=message):
        document_from_file(path)


def test_binary_file_is_a_clear_error(tmp_path):
    path = tmp_path / "x.md"
    path.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(RagkitError, match="x.md: not UTF-8 text"):
        document_from_file(path)


def test_empty_or_missing_corpus_folder(tmp_path):
    with pytest.raises(RagkitError, match="no document ragkit can read.*the folder is empty"):
        load_documents(tmp_path)
    with pytest.raises(RagkitError, match="no such corpus folder"):
        load_documents(tmp_path / "nope")


def test_duplicate_ids_are_refused(tmp_path):
    (tmp_path / "a.md").write_text(GOOD)
    (tmp_path / "b.md").write_text(GOOD)
    with pytest.raises(RagkitError, match="already used"):
        load_documents(tmp_path)


def test_queries_malformed_line_names_file_and_line(tmp_path):
    path = tmp_path / "q.jsonl"
    good = json.dumps({"id": "q1", "text": "hello", "type": "keyword", "split": "dev", "evidence": []})
    path.write_text(good + "\n{not json\n")
    with pytest.raises(RagkitError, match=r"q\.jsonl:2: not valid JSON"):
        load_queries(path)


def test_queries_unknown_split_lists_the_splits(tmp_path):
    path = tmp_path / "q.jsonl"
    path.write_text(json.dumps({"id": "q1", "text": "hello", "type": "keyword", "split": "dev"}) + "\n")
    with pytest.raises(RagkitError, match=r"no queries in split 'train'; the splits are \['dev'\]"):
        load_queries(path, split="train")


def test_course_corpus_loads(course_docs, course_queries):
    assert len(course_docs) >= 60
    assert {q.split for q in course_queries} == {"dev", "test"}
