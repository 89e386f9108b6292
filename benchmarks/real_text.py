"""Real text for the BM25 benchmarks: Cranfield and the course corpus from `data/`, and the docstrings and
documentation files of the installed Python packages, split into passages, with held-out queries.

Everything is deterministic: files are read in sorted order, duplicates keep their first occurrence, and the
held-out docstrings are drawn with a fixed seed. Nothing is downloaded.

- Cranfield (`data/cranfield`): 1,398 abstracts (title and text; the two empty documents left out) and its
  225 queries, written by the papers' authors.
- Course (`data/corpus`, `data/queries.jsonl`): the 382 chunks of the course's default pipeline (800
  characters, 100 overlap) and the 368 labelled queries, English and Chinese.
- Package docs: every docstring (a triple-quoted string that opens a module, a class or a function body,
  found by a regular expression; 95 % of what `ast` finds, 20 times faster) of every `.py` file in the
  virtualenv's site-packages and Python's standard library, and every `.md` and `.rst` file in site-packages.
  Texts are deduplicated, then a draw with seed 0 holds out docstrings (those with a summary line of 3 to 16
  words and at least 40 words in all): a held-out docstring's summary line is a short query, and its first
  120 words are a long query, the "find passages like this one" kind; no held-out docstring is indexed. Every
  other text is cut at blank lines into paragraphs, packed into passages of at most 120 words (a longer
  paragraph is cut into windows of 120), and passages under 8 words and repeated passages are dropped.

Left out: relevance judgments for the package-docs queries (this measures speed and agreement, not quality).
"""

from __future__ import annotations

import inspect
import json
import re
import sysconfig
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
PASSAGE_WORDS, MIN_WORDS = 120, 8
DOCSTRING = re.compile(r'(?:\A|:[ \t]*\r?\n)(?:[ \t]*(?:#[^\n]*)?\r?\n)*[ \t]*[rRuU]?("""|\'\'\')(.*?)\1', re.S)
PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n")


def cranfield() -> tuple[list[str], list[str]]:
    """Cranfield's documents (title and text) and its 225 query texts."""
    folder = ROOT / "data" / "cranfield"
    docs = []
    for line in (folder / "corpus.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        text = f"{record.get('title', '')}\n{record.get('text', '')}".strip()
        if text:
            docs.append(text)
    queries = [json.loads(line)["text"] for line in (folder / "queries.jsonl").read_text(encoding="utf-8").splitlines()]
    return docs, queries


def course() -> tuple[list[str], list[str]]:
    """The course pipeline's default chunks and the texts of the 368 labelled queries."""
    from ragkit import Pipeline, load_documents

    chunks = Pipeline(load_documents(ROOT / "data" / "corpus")).chunks
    queries = [json.loads(line)["text"] for line in (ROOT / "data" / "queries.jsonl").read_text(
        encoding="utf-8").splitlines() if line.strip()]
    return [chunk.text for chunk in chunks], queries


def source_files() -> list[Path]:
    """The `.py` files of site-packages and the standard library, then site-packages' `.md` and `.rst`, sorted."""
    packages, standard = Path(sysconfig.get_paths()["purelib"]), Path(sysconfig.get_paths()["stdlib"])
    roots = [packages] if standard in packages.parents or standard == packages else [packages, standard]
    files = [path for root in roots for path in sorted(root.rglob("*.py")) if path.is_file()]
    return files + sorted(path for path in packages.rglob("*") if path.suffix in (".md", ".rst") and path.is_file())


def texts_of(path: Path) -> list[str]:
    """The docstrings of a `.py` file (cleaned of their indentation), or the whole text of a documentation file."""
    text = path.read_bytes().decode("utf-8", "replace")
    if path.suffix != ".py":
        return [text]
    return [inspect.cleandoc(match.group(2)) for match in DOCSTRING.finditer(text)]


def passages_of(text: str) -> list[str]:
    """Paragraphs packed into passages of at most PASSAGE_WORDS words (long paragraphs cut into windows)."""
    passages, words = [], []
    for paragraph in PARAGRAPH_BREAK.split(text):
        tokens = paragraph.split()
        if words and len(words) + len(tokens) > PASSAGE_WORDS:
            passages.append(" ".join(words))
            words = []
        while len(tokens) > PASSAGE_WORDS:
            passages.append(" ".join(tokens[:PASSAGE_WORDS]))
            tokens = tokens[PASSAGE_WORDS:]
        words += tokens
    if words:
        passages.append(" ".join(words))
    return [passage for passage in passages if len(passage.split()) >= MIN_WORDS]


def package_docs(held_out: int = 3000, seed: int = 0) -> tuple[list[str], list[str], list[str], int]:
    """(passages, short queries, long queries, files read) from the installed packages' documentation."""
    texts = list(dict.fromkeys(text for path in source_files() for text in texts_of(path) if text.strip()))
    rng = np.random.default_rng(seed)
    short, long, hidden = [], [], set()
    for i in rng.permutation(len(texts)).tolist():
        if len(short) >= held_out:
            break
        if not texts[i].startswith((" ", "#", "..")) and "\n" in texts[i]:  # docstrings with a summary line
            summary, words = texts[i].split("\n", 1)[0].split(), texts[i].split()
            if 3 <= len(summary) <= 16 and len(words) >= 40:
                short.append(" ".join(summary))
                long.append(" ".join(words[:120]))
                hidden.add(i)
    passages = dict.fromkeys(p for i, text in enumerate(texts) if i not in hidden for p in passages_of(text))
    return list(passages), short, long, len(source_files())
