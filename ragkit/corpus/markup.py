"""Markdown as a site generator leaves it: its title, and the markup that is not text cleaned before indexing.

`first_heading` finds the first level-1 heading with a markdown parser (markdown-it-py, CommonMark), so a `# `
line inside a code block (a shell comment, a Python comment) is never taken for the title. `clean_markup`
removes what documentation sites add around the text, outside fenced code blocks and inline code: MkDocs
admonitions (`!!! note "Title"`, `???`) become their title and unindented text; mkdocstrings stubs
(`::: package.module.Class` and its indented options), which a site expands into a reference page, go, since
the file holds no text of that page; Docusaurus and Pandoc `:::` fences go and their text stays; raw HTML tags
(`<div>`, `<details>`, comments, scripts) go and their text stays; MDX `import`/`export` lines and JSX components
(`<Tabs>`) go; Jekyll and Hugo template tags (`{% ... %}`, `{{< ... >}}`) go. A placeholder in angle brackets
that is not an HTML tag (`<token>`, `<job-id>`) stays. Left out: rendering markdown (emphasis, links and tables
stay as written, which both retrieval methods read well), expanding the stubs, and reStructuredText
directives (`.rst` files are read as text).
"""

from __future__ import annotations

import re

HTML_TAGS = frozenset(
    "a abbr b big blockquote br button caption center cite code dd del details dfn div dl dt em figcaption figure "
    "font footer h1 h2 h3 h4 h5 h6 header hr i iframe img input ins kbd label li mark nav ol p picture pre q s "
    "samp section small source span strike strong sub summary sup table tbody td tfoot th thead tr tt u ul "
    "var video wbr".split())
_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
_ADMONITION = re.compile(r'^(?:!!!|\?\?\?\+?)\s+([\w-]+)(?:\s+"([^"]*)")?\s*$')
_STUB = re.compile(r"^:::\s+[\w.]+\s*$")
_COLON_FENCE = re.compile(r"^:{3,}\s*(?:\{[^}]*\}|([\w-]+)(.*))?\s*$")
_MDX_LINE = re.compile(r"^(?:import\s.+\sfrom\s+['\"].+['\"]|export\s.+);?\s*$")
_TEMPLATE = re.compile(r"\{%.*?%\}|\{\{[<%].*?[>%]\}\}")
_BLOCKS = re.compile(r"<!--.*?-->|<(script|style)\b[^>]*>.*?</\1\s*>", re.DOTALL | re.IGNORECASE)
_INLINE_CODE = re.compile(r"(`+)(?:.+?)\1")


def first_heading(body: str) -> str:
    """The text of the first level-1 heading outside code blocks ('' when there is none).

    >>> first_heading("```sh\\n# install it\\npip install x\\n```\\n# Getting started\\nText")
    'Getting started'
    """
    from markdown_it import MarkdownIt

    tokens = MarkdownIt("commonmark").parse(body)
    for opening, inline in zip(tokens, tokens[1:], strict=False):
        if opening.type == "heading_open" and opening.tag == "h1":
            return inline.content.strip()
    return ""


def _without_tags(text: str, jsx: bool) -> str:
    """`text` (no code in it) without HTML tags, JSX components (`jsx`) and template tags; their text stays."""
    def tag(match: re.Match) -> str:
        name = match.group(1)
        return "" if name.lower() in HTML_TAGS or (jsx and name[0].isupper()) else match.group(0)

    return _TEMPLATE.sub("", re.sub(r"</?([A-Za-z][\w.-]*)(?:\s[^<>]*)?/?>", tag, text))


def _clean_line(line: str, jsx: bool) -> str:
    """One line outside fenced code, cleaned everywhere but inside its inline code spans."""
    pieces, at = [], 0
    for match in _INLINE_CODE.finditer(line):
        pieces += [_without_tags(line[at:match.start()], jsx), match.group(0)]
        at = match.end()
    return "".join([*pieces, _without_tags(line[at:], jsx)])


def clean_markup(body: str, jsx: bool = False) -> str:
    """`body` without the markup a documentation site adds (see the module's docstring); code is kept as it is.
    `jsx`: the file is MDX, so capitalised tags are components and `import`/`export` lines are code.

    >>> print(clean_markup('!!! warning "Data loss"\\n    Back up first.\\n\\n::: mylib.Client\\n    options: {}\\nEnd <b>now</b>.'))
    Warning: Data loss
    Back up first.
    <BLANKLINE>
    End now.
    """
    out, fence, indented, drop = [], None, False, False
    for line in _BLOCKS.sub("", body).split("\n"):
        if fence is not None or _FENCE.match(line):  # inside fenced code, or its opening line: kept as it is
            opening = _FENCE.match(line)
            if fence is None:
                fence = opening.group(1)[0] * len(opening.group(1))
            elif line.strip().startswith(fence) and not line.strip().strip(fence[0]):
                fence = None
            out.append(line[4:] if indented and line.startswith("    ") else line)
            continue
        if (indented or drop) and (line.startswith("    ") or not line.strip()):
            if not drop:
                out.append(line[4:])
            continue
        indented = drop = False
        if admonition := _ADMONITION.match(line):
            kind, title = admonition.group(1), admonition.group(2)
            out.append(f"{kind.capitalize()}: {title}" if title else f"{kind.capitalize()}:")
            indented = True
        elif _STUB.match(line):
            drop = True  # the stub and its indented options: a reference page the file does not hold
        elif colon := _COLON_FENCE.match(line):
            if colon.group(1):
                out.append(f"{colon.group(1).capitalize()}:{colon.group(2).rstrip()}")
        elif not (jsx and _MDX_LINE.match(line)):
            out.append(_clean_line(line, jsx))
    cleaned = "\n".join(out)
    return cleaned if cleaned == body else re.sub(r"\n{3,}", "\n\n", cleaned)  # where markup went, no gaps
