"""Draw the README's mermaid diagram once, by hand, into the SVG that the course website shows (a development
tool: `make site` and the tests never run it, and the site loads no diagram JavaScript).

The site (site/build.py) shows the README's mermaid block as docs/diagrams/pipeline.svg only while the SVG
records the SHA-256 of exactly that block's source (an XML comment, `mermaid source sha256: HEX`), and
tests/test_site.py fails when they differ: after changing the diagram in the README, run this script again and
commit the new SVG.

It renders with mermaid's own JavaScript in headless Chromium (Debian's, driven by Playwright, as the browser
tests launch it; every network request is refused), with labels as SVG text rather than HTML, deterministic
ids, and a white background, then makes the picture stand alone: its size set to its viewBox (so that
`width: 100%` scales it), the source hash and mermaid's version recorded, and checked to be well-formed XML
with no reference outside itself (no URL but the SVG namespace, no external font, image or stylesheet).

Usage, from the repository root, with a mermaid.min.js from npm installed in a folder outside the repository
(DIR below), and Playwright and Debian's chromium as for the browser tests:

    (cd DIR && npm install mermaid@11)
    .venv/bin/python site/render_diagram.py DIR/node_modules/mermaid/dist/mermaid.min.js

Options: `--out PATH` (default docs/diagrams/pipeline.svg). The README must hold exactly one mermaid block.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "diagrams" / "pipeline.svg"
ID = "pipeline"  # the SVG's id, which mermaid prefixes to every id and CSS rule inside it
# labels as SVG <text> (an <img> of an SVG with HTML labels in <foreignObject> is not drawn everywhere), wrapped
# only at the source's <br/>; the font measured here is DejaVu Sans when installed, wider than the fallbacks, so
# the labels fit their boxes wherever the picture is shown
CONFIG = {
    "startOnLoad": False, "securityLevel": "strict", "theme": "default", "deterministicIds": True,
    "deterministicIDSeed": ID, "htmlLabels": False, "markdownAutoWrap": False,
    "fontFamily": "'DejaVu Sans', Verdana, Arial, sans-serif",
    "themeVariables": {"fontFamily": "'DejaVu Sans', Verdana, Arial, sans-serif"},
    "flowchart": {"htmlLabels": False, "wrappingWidth": 600},
}
NAMESPACE = re.compile(r'\s+xmlns(?::\w+)?="http://www\.w3\.org/(?:2000/svg|1999/xlink)"')


def load_builder():
    """site/build.py as a module: it finds the README's mermaid block and hashes it as the site build does."""
    spec = importlib.util.spec_from_file_location("ragkit_site_build", ROOT / "site" / "build.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def external_references(svg: str) -> list[str]:
    """What in `svg` points outside it: any URL but the SVG (and XLink) namespace, a link or url() that is not
    to an #id inside, an @import or an @font-face. Empty for a self-contained picture."""
    text = NAMESPACE.sub("", svg)
    found = re.findall(r"[a-z][a-z0-9+.-]*://[^\s\"'<>)]*", text, re.IGNORECASE)
    found += re.findall(r"""(?:href|src)\s*=\s*["'](?!#)[^"']*["']""", text, re.IGNORECASE)
    found += re.findall(r"""url\(\s*["']?(?!#)[^)]*\)""", text, re.IGNORECASE)
    found += re.findall(r"@import[^;]*|@font-face", text, re.IGNORECASE)
    return found + ["http"] * (not found and "http" in text.lower())


def render(mermaid_js: Path, source: str) -> tuple[str, str]:
    """The SVG that mermaid draws from `source` in headless Chromium, and mermaid's version."""
    sys.path.insert(0, str(ROOT / "tests"))
    from helpers import chromium

    with chromium() as browser:
        page = browser.new_page()
        page.route("**/*", lambda route: route.abort())  # offline: the page loads nothing
        page.set_content("<!doctype html><html><body></body></html>")
        page.add_script_tag(content=mermaid_js.read_text())
        svg = page.evaluate("""async ([id, source, config]) => {
            mermaid.initialize(config);
            return (await mermaid.render(id, source)).svg;
        }""", [ID, source, CONFIG])
    package = mermaid_js.resolve().parent.parent / "package.json"  # dist/mermaid.min.js in the npm package
    version = json.loads(package.read_text()).get("version", "?") if package.is_file() else "?"
    return svg, version


def standalone(svg: str, digest: str, version: str) -> str:
    """mermaid's <svg> as a file: sized to its viewBox, on white, with the source hash and version recorded."""
    opening = re.match(r"<svg\b[^>]*>", svg)
    if opening is None:
        raise SystemExit("mermaid returned no <svg> element")
    tag = opening.group(0)
    x, y, width, height = re.search(r'viewBox="([^"]+)"', tag).group(1).split()
    tag = re.sub(r'\s(?:width|height)="[^"]*"', "", tag)
    tag = re.sub(r'\sstyle="max-width:[^"]*"', "", tag)
    tag = tag.replace("<svg", f'<svg width="{width}" height="{height}"', 1)
    note = (f"<!-- Drawn by site/render_diagram.py with mermaid {version} from the mermaid block of README.md; "
            f"mermaid source sha256: {digest} -->")
    background = f'<rect x="{x}" y="{y}" width="{width}" height="{height}" style="fill:#ffffff"/>'
    return f"{tag}\n{note}\n{background}{svg[opening.end():]}\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("mermaid_js", type=Path, help="mermaid's dist/mermaid.min.js (npm install mermaid)")
    parser.add_argument("--out", type=Path, default=OUT, help=f"the SVG to write ({OUT.relative_to(ROOT)})")
    args = parser.parse_args()
    builder = load_builder()
    sources = builder.mermaid_sources((ROOT / "README.md").read_text())
    if len(sources) != 1:
        raise SystemExit(f"README.md holds {len(sources)} mermaid blocks; this script draws exactly one")
    digest = builder.source_hash(sources[0])
    svg, version = render(args.mermaid_js, sources[0])
    svg = standalone(svg, digest, version)
    ElementTree.fromstring(svg)  # well-formed XML, as a standalone .svg must be
    if external := external_references(svg):
        raise SystemExit(f"the SVG refers outside itself: {json.dumps(external[:5])}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(svg)
    size = [round(float(v)) for v in re.match(r'<svg width="([^"]+)" height="([^"]+)"', svg).groups()]
    shown = args.out.resolve().relative_to(ROOT) if ROOT in args.out.resolve().parents else args.out
    print(f"wrote {shown} ({len(svg.encode()) // 1024} KiB, {size[0]}x{size[1]} px, mermaid {version}, "
          f"source sha256 {digest[:12]}...)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
