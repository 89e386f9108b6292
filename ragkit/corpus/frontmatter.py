"""Front matter: the block of fields between two `---` lines at the top of a markdown or text file.

The block is read as YAML by PyYAML's `BaseLoader`, which keeps every value as text: a date stays `2024-03-12`
and a version `2.10` stays `2.10` (YAML's own types would make them a date and the number 2.1). So lists
(`tags:` then `- a`), quoted values and comments parse as YAML says. A block YAML refuses but whose lines are
all plain `key: value` pairs is read line by line: the course's own titles, such as `Postmortem: Sync outage`,
hold a second colon, which YAML refuses and static-site generators accept. A UTF-8 byte-order mark before the
first `---` is dropped (editors on Windows write one). The fields a document is made of (`TEXT_FIELDS`) must be
one line of text. Left out: TOML (`+++`) and JSON front matter, and YAML anchors and tags.
"""

from __future__ import annotations

import yaml

from ragkit.errors import RagkitError

TEXT_FIELDS = ("id", "title", "source", "date", "lang", "version")
TEXT_LOADER = getattr(yaml, "CBaseLoader", yaml.BaseLoader)  # libyaml's when the wheel has it: the same, faster
BOM = "\ufeff"


def without_bom(raw: str) -> str:
    """`raw` without the byte-order mark some editors put before the first character.

    >>> without_bom("\\ufeff---\\nid: a")
    '---\\nid: a'
    """
    return raw[1:] if raw.startswith(BOM) else raw


def has_front_matter(raw: str) -> bool:
    """Whether `raw` opens with a `---` line (after a byte-order mark, if any).

    >>> has_front_matter("---\\nid: a\\n---\\nHello"), has_front_matter("# Hello")
    (True, False)
    """
    return without_bom(raw).split("\n", 1)[0].strip() == "---"


def flat_fields(block: str, where: str) -> dict[str, str]:
    """The block read line by line as `key: value` pairs (the value is everything after the first colon).

    >>> flat_fields("title: Postmortem: Sync outage\\nlang: en", "x.md")
    {'title': 'Postmortem: Sync outage', 'lang': 'en'}
    """
    meta = {}
    for number, line in enumerate(block.split("\n"), start=2):
        key, sep, value = line.partition(":")
        if line.strip() and (not sep or not key.strip() or line[0].isspace()):
            raise RagkitError(f"{where}:{number}: front matter line is not 'key: value': {line!r}")
        if line.strip():
            meta[key.strip()] = value.strip()
    return meta


def yaml_fields(block: str, where: str) -> dict:
    """The block read as YAML, every scalar kept as text; a block that is not YAML but plain `key: value`
    lines is read line by line (`flat_fields`); anything else raises a `RagkitError` naming the line.

    >>> yaml_fields("title: Guide\\ntags:\\n  - setup\\n  - cli\\nversion: 2.10", "x.md")
    {'title': 'Guide', 'tags': ['setup', 'cli'], 'version': '2.10'}
    """
    try:
        found = yaml.load(block, Loader=TEXT_LOADER) if block.strip() else {}
    except yaml.YAMLError as error:
        try:
            return flat_fields(block, where)
        except RagkitError:
            mark = getattr(error, "problem_mark", None)
            line = mark.line + 2 if mark is not None else 2  # the block starts on the file's second line
            raise RagkitError(f"{where}:{line}: front matter is not YAML: {getattr(error, 'problem', error)}") from None
    return found if isinstance(found, dict) else flat_fields(block, where)  # not fields: the line that is not


def parse_front_matter(raw: str, where: str = "<text>") -> tuple[dict, str, int]:
    """Split a file into (its front-matter fields, its body, the line number where the body starts).

    >>> parse_front_matter("---\\nid: a\\ntitle: A\\n---\\nHello")
    ({'id': 'a', 'title': 'A'}, 'Hello', 5)
    """
    lines = without_bom(raw).split("\n")
    if lines[0].strip() != "---":
        raise RagkitError(f"{where}:1: no front matter: the file must start with a line '---'")
    end = next((n for n, line in enumerate(lines[1:], start=1) if line.strip() == "---"), None)
    if end is None:
        raise RagkitError(f"{where}:1: front matter is never closed by a line '---'")
    meta = yaml_fields("\n".join(lines[1:end]), where)
    for name in TEXT_FIELDS:
        if meta.get(name) is not None and not isinstance(meta[name], str):
            raise RagkitError(f"{where}: front matter field {name!r} must be one line of text, "
                              f"got a {'list' if isinstance(meta[name], list) else 'mapping'}")
    return meta, "\n".join(lines[end + 1:]), end + 2
