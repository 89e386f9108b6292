"""Your own documents as a repository holds them (`ragkit.corpus`): subfolders, YAML front matter with lists and a
byte-order mark, titles outside code blocks, site-generator markup cleaned, HTML and PDF read by their libraries,
and every file not loaded named once with its reason, in `data check --own` and the eval command too."""

import json
import re

import pytest
from helpers import ROOT
from own_folder import PDF_LINES, SKIPPED, build_folder

from ragkit.cli import main
from ragkit.corpus import load_documents, parse_front_matter, read_folder
from ragkit.corpus.markup import clean_markup, first_heading
from ragkit.errors import RagkitError
from ragkit.labels.owncheck import check_own_data


@pytest.fixture
def folder(tmp_path):
    return build_folder(tmp_path / "lumen-docs")


def test_a_nested_folder_loads_with_ids_from_paths_and_names_what_it_skips(folder):
    docs, skipped = read_folder(folder / "corpus")
    by_id = {doc.doc_id: doc for doc in docs}
    assert sorted(by_id) == ["guide/install.md", "guide/install.txt", "index", "reference/api", "reference/handbook"]
    assert [s.path for s in skipped] == SKIPPED, "each file not loaded is named once"
    assert re.fullmatch(r"cannot read \.docx: ragkit reads .*\.pdf", skipped[1].reason)
    assert skipped[2].reason.startswith("not a readable PDF")
    assert [by_id[i].source for i in ("guide/install.md", "reference/api")] == ["guide", "reference"]
    assert by_id["index"].source == "lumen-docs", "a top-level file: the labels folder's name"


def test_front_matter_is_yaml_after_a_byte_order_mark_and_the_title_is_not_a_comment_in_code(folder):
    index = {doc.doc_id: doc for doc in load_documents(folder / "corpus")}["index"]
    assert (index.title, index.date, index.derived) == ("Lumen documentation", "2026-03-02", ("id", "source", "lang"))
    assert index.text.startswith("```sh\n# install the command-line tool first"), "the body starts after the block"
    install = {doc.doc_id: doc for doc in load_documents(folder / "corpus")}["guide/install.md"]
    assert install.title == "Installing Lumen"
    assert first_heading("```\n# not a title\n```\n\n    # nor this\n\n# Title\n") == "Title"
    meta, body, line = parse_front_matter("\ufeff---\ntags:\n  - a\n  - b\nversion: 2.10\ndate: 2024-03-12\n---\nx")
    assert (meta, body, line) == ({"tags": ["a", "b"], "version": "2.10", "date": "2024-03-12"}, "x", 8)
    with pytest.raises(RagkitError, match=r"x\.md: front matter field 'title' must be one line of text, got a list"):
        parse_front_matter("---\ntitle:\n  - a\n---\nx", "x.md")
    with pytest.raises(RagkitError, match=r"x\.md:3: front matter is not YAML"):
        parse_front_matter("---\nid: a\n  - b: [\n---\nx", "x.md")


def test_site_generator_markup_is_cleaned_and_code_and_placeholders_stay(folder):
    docs = {doc.doc_id: doc for doc in load_documents(folder / "corpus")}
    install = docs["guide/install.md"].text
    for markup in ("!!!", ":::", "<div", "<!--", "show_source", "lumen.catalogue"):
        assert markup not in install, markup
    assert "Warning: Python version\nLumen needs Python 3.10 or newer." in install, "the admonition's text, unindented"
    assert "`lumen init <folder>`" in install, "inline code and a placeholder in angle brackets are kept"
    assert clean_markup("```html\n<div>kept</div>\n```\n<b>bold</b> and <token>") == \
        "```html\n<div>kept</div>\n```\nbold and <token>"
    assert clean_markup(":::note Heads up\nText.\n:::\n<Tabs>x</Tabs>\nimport A from 'a'", jsx=True) == \
        "Note: Heads up\nText.\nx"


def test_html_keeps_the_main_content_and_pdf_its_text_layer(folder):
    docs = {doc.doc_id: doc for doc in load_documents(folder / "corpus")}
    api, handbook = docs["reference/api"], docs["reference/handbook"]
    assert (api.title, api.date) == ("Server API", "2026-05-14")
    assert api.text.startswith("# The Lumen server\n\nStart the server with lumen serve. It listens on port 8642")
    assert "Home" not in api.text and "Copyright" not in api.text, "menus and footers are not the page's text"
    assert "- Tokens expire after ninety days." in api.text
    assert (handbook.title, handbook.date) == ("Team handbook", "2026-01-10")
    assert handbook.text.split("\n") == PDF_LINES


def test_the_course_documents_have_nothing_to_clean():
    """The cleaning must not move a character of the course's documents: their evidence quotes are offsets."""
    for path in sorted([*(ROOT / "data" / "corpus").glob("*.md"), *(ROOT / "data" / "demo-handbook" / "corpus").glob("*")]):
        raw = path.read_text(encoding="utf-8")
        body = parse_front_matter(raw)[1] if raw.startswith("---") else raw
        assert clean_markup(body) == body, path.name


def test_data_check_and_eval_name_every_file_not_loaded(folder, capsys):
    (folder / "queries.jsonl").write_text(json.dumps({
        "id": "q-001", "text": "Which port does the server use?", "lang": "en", "type": "keyword", "split": "test",
        "parts": ["Which port does the server use?"], "evidence": [{"doc": "reference/api", "quote":
        "It listens on port 8642 by default", "parts": [0], "origin": "pooled", "judge": "me"}], "answer": ""}) + "\n")
    problems, notes, _ = check_own_data(folder)
    named = [note.split(": ")[1] for note in notes if note.startswith("not loaded: ")]
    assert problems == [] and named == [f"corpus/{p}" for p in SKIPPED], notes
    assert main(["eval", "--data", str(folder), "--method", "bm25", "--split", "all", "--json"]) == 0
    out, err = capsys.readouterr()
    assert [line.split(": ")[2] for line in err.splitlines() if line.startswith("warning: not loaded")] == \
        [f"corpus/{p}" for p in SKIPPED]
    assert len(json.loads(out.splitlines()[-1])["warnings"]) == 3


def test_eval_warns_when_the_labels_fail_data_check(folder, capsys):
    """A query type the check refuses would be scored as a group of its own without a word."""
    (folder / "queries.jsonl").write_text(json.dumps({
        "id": "q-001", "text": "Which port?", "lang": "en", "type": "keywrd", "split": "test", "evidence": [
            {"doc": "reference/api", "quote": "It listens on port 8642", "origin": "pooled"}], "answer": ""}) + "\n")
    assert main(["eval", "--data", str(folder), "--method", "bm25", "--split", "all"]) == 0
    err = capsys.readouterr().err
    assert re.search(r"warning: the labels fail `data check --own` \(\d problems; the first: .*type 'keywrd' is not "
                     r"one of .*\): the figures below use them as they are", err), err
