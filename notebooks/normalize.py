"""Normalise executed notebooks so that opening one in JupyterLab changes nothing, and give every widget a picture.

JupyterLab merges consecutive outputs of one stream and rewrites the kernel's display name when it opens a
notebook, which marks a freshly executed notebook "modified" (and asks to save on close). Run this after
executing notebooks: `python notebooks/normalize.py` (all of them) or with paths. nbval merges streams the
same way before comparing, so the saved outputs stay comparable.

Widgets: JupyterLab draws a saved widget output only in a trusted notebook, and a notebook opened for the first
time is not trusted, so a learner would see `VBox(children=...)` until the cell runs. Each widget output
therefore also gets a `text/html` picture of the widget as last run, drawn from the widget state the
execution saved in the notebook's metadata (sliders with their values, menus, text, HTML and the images and
tables of its outputs), under a line that says to run the cell. JupyterLab shows that picture while the
notebook is untrusted and the live widget once the cell runs; nbval ignores both (widget cells carry
`# NBVAL_IGNORE_OUTPUT`). Left out: widget kinds the course does not use (they draw as nothing).
"""

from __future__ import annotations

import html
import json
import sys
from pathlib import Path

KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
VIEW, STATE = "application/vnd.jupyter.widget-view+json", "application/vnd.jupyter.widget-state+json"
CAPTION = "A picture of this widget as it was last run: run the cell (Run ▸ Run All Cells) to use it."
SLIDERS = {"FloatSliderModel", "IntSliderModel", "FloatLogSliderModel"}


def merged_streams(outputs: list[dict]) -> list[dict]:
    """Consecutive stream outputs of the same name (stdout, stderr) merged into one, as JupyterLab does."""
    merged: list[dict] = []
    for output in outputs:
        previous = merged[-1] if merged else None
        if (output.get("output_type") == "stream" and previous is not None
                and previous.get("output_type") == "stream" and previous.get("name") == output.get("name")):
            text = "".join(previous["text"]) + "".join(output["text"])
            previous["text"] = text.splitlines(keepends=True)
        else:
            merged.append(output)
    return merged


def text(value) -> str:
    """A notebook string field (a string, or a list of lines) as one string."""
    return "".join(value) if isinstance(value, list) else str(value)


def output_picture(output: dict) -> str:
    """One output of an Output widget as HTML: its image, its HTML, or its text."""
    if output.get("output_type") == "stream":
        return f"<pre style='margin:2px 0'>{html.escape(text(output['text']))}</pre>"
    data = output.get("data", {})
    for mime in ("image/png", "image/jpeg"):
        if mime in data:
            return f"<img src='data:{mime};base64,{text(data[mime]).strip()}' style='max-width:100%'>"
    if "text/html" in data:
        return text(data["text/html"])
    return f"<pre style='margin:2px 0'>{html.escape(text(data.get('text/plain', '')))}</pre>"


def labelled(state: dict, body: str, width: str = "") -> str:
    """A control's picture: its description (as ipywidgets lays it out), then `body`."""
    label_width = state.get("style_width") or "80px"
    label = (f"<span style='display:inline-block;min-width:{label_width};text-align:right;margin-right:8px;"
             "white-space:nowrap'>"
             f"{html.escape(state.get('description', ''))}</span>") if state.get("description") else ""
    return f"<div style='display:flex;flex:0 0 auto;align-items:center;margin:2px 0;{width}'>{label}{body}</div>"


def slider_picture(state: dict, width: int) -> str:
    """A slider as a grey track, its handle where the value is, and the readout."""
    low, high, value = state.get("min", 0), state.get("max", 100), state.get("value", 0)
    share = 0 if high == low else max(0.0, min(1.0, (value - low) / (high - low)))
    fmt = state.get("readout_format") or (".2f" if state["_model_name"].startswith("Float") else "d")
    track = max(60, width - 80 - 70)
    return labelled(state, f"<span style='position:relative;display:inline-block;width:{track}px;height:4px;"
                           f"background:#ccc;border-radius:2px;margin:0 8px'><span style='position:absolute;"
                           f"left:{share * 100:.1f}%;top:-5px;margin-left:-7px;width:12px;height:12px;"
                           f"border-radius:50%;background:#fff;border:1px solid #888'></span></span>"
                           f"<span style='margin-left:8px'>{format(value, fmt)}</span>")


def widget_picture(model_id: str, models: dict) -> str:
    """The widget `model_id` as static HTML, from the saved widget state `models` (model id: model)."""
    model = models.get(model_id.removeprefix("IPY_MODEL_"))
    if model is None:
        return ""
    state, name = model["state"], model["state"].get("_model_name", model.get("model_name", ""))
    layout = models.get(str(state.get("layout", "")).removeprefix("IPY_MODEL_"), {}).get("state", {})
    if layout.get("visibility") == "hidden" or layout.get("display") == "none":
        return ""
    style = models.get(str(state.get("style", "")).removeprefix("IPY_MODEL_"), {}).get("state", {})
    state = {**state, "style_width": "" if style.get("description_width") in (None, "") else "0"}
    width = layout.get("width") or ""
    pixels = int(width[:-2]) if width.endswith("px") and width[:-2].isdigit() else 300
    children = "".join(widget_picture(child, models) for child in state.get("children", []))
    box = f"width:{width};" if width else ""
    if name in ("VBoxModel", "BoxModel", "GridBoxModel"):
        return f"<div style='display:flex;flex-direction:column;{box}'>{children}</div>"
    if name == "HBoxModel":
        return f"<div style='display:flex;flex-flow:row wrap;align-items:center;gap:4px;{box}'>{children}</div>"
    if name in SLIDERS:
        return slider_picture(state, pixels)
    if name == "SelectionSliderModel":  # a slider over labelled options: its handle at the chosen option's index
        labels, index = state.get("_options_labels", []), state.get("index", 0) or 0
        return slider_picture({**state, "min": 0, "max": max(len(labels) - 1, 0), "value": index,
                               "_model_name": "IntSliderModel"}, pixels).replace(
            f"<span style='margin-left:8px'>{index}</span>",
            f"<span style='margin-left:8px'>{html.escape(labels[index] if index < len(labels) else '')}</span>")
    field = "border:1px solid #bbb;padding:2px 6px;background:#fff;flex:1;min-height:1.3em;white-space:nowrap"
    if name == "DropdownModel":
        labels, index = state.get("_options_labels", []), state.get("index")
        chosen = labels[index] if isinstance(index, int) and index < len(labels) else ""
        return labelled(state, f"<span style='{field}'>{html.escape(chosen)} ▾</span>", f"width:{pixels}px")
    if name in ("TextModel", "TextareaModel"):
        return labelled(state, f"<span style='{field};white-space:pre-wrap;overflow-wrap:anywhere'>{html.escape(state.get('value', ''))}"
                               "</span>", f"width:{pixels}px" if width or name == "TextModel" else "")
    if name in ("HTMLModel", "HTMLMathModel"):
        return labelled(state, f"<div style='min-width:{width or 0}'>{state.get('value', '')}</div>")
    if name in ("ButtonModel", "ToggleButtonModel"):
        return (f"<span style='border:1px solid #bbb;border-radius:2px;background:#eee;padding:2px 10px;"
                f"white-space:nowrap;{box}'>{html.escape(state.get('description', ''))}</span>")
    if name == "LabelModel":
        return labelled(state, html.escape(state.get("value", "")))
    if name == "OutputModel":
        return "".join(output_picture(output) for output in state.get("outputs", []))
    if name == "ImageModel":
        data = next((b["data"] for b in model.get("buffers", []) if b.get("path") == ["value"]), "")
        size = f"width:{width}" if width else "max-width:100%"
        return f"<img src='data:image/{state.get('format', 'png')};base64,{data}' style='{size}'>" if data else ""
    if name in ("IntProgressModel", "FloatProgressModel"):
        share = (state.get("value", 0) - state.get("min", 0)) / max(state.get("max", 100) - state.get("min", 0), 1)
        return labelled(state, f"<span style='display:inline-block;width:160px;height:10px;background:#eee'><span "
                               f"style='display:block;width:{share * 100:.0f}%;height:100%;background:#2196f3'>"
                               "</span></span>")
    return children


def add_pictures(notebook: dict) -> None:
    """Give every widget output whose state the notebook saved a `text/html` picture of it (`widget_picture`)."""
    models = notebook["metadata"].get("widgets", {}).get(STATE, {}).get("state", {})
    for cell in notebook["cells"]:
        for output in cell.get("outputs", []) if cell["cell_type"] == "code" else []:
            view = output.get("data", {}).get(VIEW)
            if view is None or view.get("model_id") not in models:
                continue
            picture = widget_picture(view["model_id"], models)
            output["data"]["text/html"] = (
                f"<div class='ragkit-widget-picture' style='border-left:3px solid #ddd;padding-left:8px'>"
                f"<div style='color:#777;font-size:90%;margin-bottom:4px'>{html.escape(CAPTION)}</div>"
                f"{picture}</div>")


def collapse_solutions(notebook: dict) -> None:
    """Fold every cell under the "### Solutions" heading, code and outputs alike: a learner reading top to bottom
    meets a solution only by opening it."""
    solving = False
    for cell in notebook["cells"]:
        if cell["cell_type"] == "markdown":
            solving = solving or text(cell["source"]).lstrip().startswith("### Solutions")
        elif solving:
            cell["metadata"]["jupyter"] = {**cell["metadata"].get("jupyter", {}), "source_hidden": True,
                                           "outputs_hidden": True}


def normalize(path: Path) -> bool:
    """Normalise one notebook in place; True when it changed."""
    before = path.read_text(encoding="utf-8")
    notebook = json.loads(before)
    notebook["metadata"]["kernelspec"] = dict(KERNELSPEC)
    for cell in notebook["cells"]:
        if cell["cell_type"] == "code":
            cell["outputs"] = merged_streams(cell["outputs"])
    add_pictures(notebook)
    collapse_solutions(notebook)
    after = json.dumps(notebook, indent=1, ensure_ascii=False) + "\n"
    if after != before:
        path.write_text(after, encoding="utf-8")
    return after != before


if __name__ == "__main__":
    paths = [Path(p) for p in sys.argv[1:]] or sorted(Path(__file__).parent.glob("[0-9][0-9]_*.ipynb"))
    for path in paths:
        print(f"{path.name}: {'normalised' if normalize(path) else 'already normal'}")
