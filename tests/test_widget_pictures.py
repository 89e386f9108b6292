"""Before a notebook runs, each widget shows a picture of its last state, not `VBox(children=...)`:
`notebooks/normalize.py` draws it as HTML from the widget state saved in the notebook, and the committed
notebooks carry it (tests/test_browser.py shows that JupyterLab displays it in an untrusted notebook)."""

import base64
import json
import re
import sys

import pytest
from helpers import ROOT

sys.path.insert(0, str(ROOT / "notebooks"))
from normalize import CAPTION, STATE, VIEW, add_pictures, normalize, widget_picture  # noqa: E402

NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
PNG = base64.b64encode(b"\x89PNG\r\n\x1a\nfake").decode()


def model(name: str, layout: str = "", **state) -> dict:
    return {"model_name": name, "state": {"_model_name": name, "layout": f"IPY_MODEL_{layout}" if layout else "",
                                          **state}}


MODELS = {
    "box": model("VBoxModel", children=["IPY_MODEL_k1", "IPY_MODEL_menu", "IPY_MODEL_row", "IPY_MODEL_out",
                                        "IPY_MODEL_image", "IPY_MODEL_bar"]),
    "k1": model("FloatSliderModel", "wide", description="k1", min=0.0, max=5.0, value=1.5, readout_format=".2f"),
    "wide": model("LayoutModel", width="480px"),
    "menu": model("DropdownModel", description="query", _options_labels=["q1: keys", "q2: <leave>"], index=1),
    "row": model("HBoxModel", children=["IPY_MODEL_html", "IPY_MODEL_top"]),
    "html": model("HTMLModel", value="<b>recall@5 0.849</b>"),
    "top": model("IntSliderModel", description="top_k", min=1, max=20, value=20),
    "out": model("OutputModel", outputs=[{"output_type": "stream", "name": "stdout", "text": "a < b\n"},
                                         {"output_type": "display_data", "data": {"image/png": PNG}}]),
    "image": {**model("ImageModel", format="png"), "buffers": [{"path": ["value"], "encoding": "base64",
                                                                 "data": PNG}]},
    "bar": model("IntProgressModel", "hidden", description="re-chunking", value=3, max=10),
    "hidden": model("LayoutModel", visibility="hidden"),
}


def test_a_picture_shows_each_control_with_its_value():
    picture = widget_picture("IPY_MODEL_box", MODELS)
    assert re.search(r">k1</span><span style='position:relative;display:inline-block;width:330px.*?left:30\.0%.*?"
                     r"<span style='margin-left:8px'>1\.50</span>", picture), "the slider, its handle at 1.5 of 5"
    assert "left:100.0%" in picture and ">20</span>" in picture, "an int slider at its end, read out as an int"
    assert "q2: &lt;leave&gt; ▾" in picture, "the menu shows its chosen option, escaped"
    assert "<b>recall@5 0.849</b>" in picture, "an HTML widget shows its HTML"
    assert "<pre style='margin:2px 0'>a &lt; b\n</pre>" in picture, "an Output widget's printed text"
    assert picture.count(f"data:image/png;base64,{PNG}") == 2, "an Output's image and an Image widget's bytes"
    assert "re-chunking" not in picture, "a hidden widget is not drawn"
    assert widget_picture("IPY_MODEL_gone", MODELS) == "", "a model the notebook did not save draws as nothing"


def notebook_with(outputs: list[dict]) -> dict:
    return {"metadata": {"widgets": {STATE: {"state": MODELS, "version_major": 2, "version_minor": 0}}},
            "cells": [{"cell_type": "code", "source": "", "outputs": outputs}]}


def test_widget_outputs_get_the_picture_and_other_outputs_stay():
    view = {"output_type": "display_data", "metadata": {},
            "data": {VIEW: {"model_id": "box", "version_major": 2, "version_minor": 0}, "text/plain": "VBox()"}}
    unknown = {**view, "data": {VIEW: {"model_id": "elsewhere"}, "text/plain": "VBox()"}}
    text = {"output_type": "stream", "name": "stdout", "text": "hello\n"}
    notebook = notebook_with([view, unknown, text])
    add_pictures(notebook)
    shown, kept, plain = notebook["cells"][0]["outputs"]
    assert shown["data"]["text/html"].startswith("<div class='ragkit-widget-picture'")
    assert CAPTION in shown["data"]["text/html"] and widget_picture("box", MODELS) in shown["data"]["text/html"]
    assert shown["data"]["text/plain"] == "VBox()" and VIEW in shown["data"], "the live widget stays first choice"
    assert "text/html" not in kept["data"] and plain == text, "no state, no picture; other outputs untouched"


def test_normalising_twice_changes_nothing_the_second_time(tmp_path):
    path = tmp_path / "nb.ipynb"
    notebook = notebook_with([{"output_type": "display_data", "metadata": {},
                               "data": {VIEW: {"model_id": "box"}, "text/plain": "VBox()"}}])
    path.write_text(json.dumps({**notebook, "nbformat": 4, "nbformat_minor": 5}))
    assert normalize(path) and not normalize(path)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_every_widget_of_a_committed_notebook_has_its_current_picture(path):
    notebook = json.loads(path.read_text(encoding="utf-8"))
    views = [output for cell in notebook["cells"] if cell["cell_type"] == "code" for output in cell["outputs"]
             if VIEW in output.get("data", {})]
    models = notebook["metadata"].get("widgets", {}).get(STATE, {}).get("state", {})
    missing = [output["data"][VIEW]["model_id"] for output in views if output["data"][VIEW]["model_id"] not in models]
    assert not missing, f"{path.name}: widget outputs without saved state (execute the notebook with nbconvert)"
    # a saved model naming one that was not saved (a closed child still listed by its box) makes JupyterLab log
    # "widget model not found" when the notebook opens: caught here, not only in the browser test
    dangling = sorted(set(re.findall(r"IPY_MODEL_([0-9a-f]{32})", json.dumps(models))) - set(models))
    assert not dangling, f"{path.name}: saved widgets refer to {len(dangling)} unsaved ones: execute it again"
    drawn = json.loads(json.dumps(notebook))
    add_pictures(drawn)
    assert drawn == notebook, f"{path.name}: a widget picture is missing or stale: python notebooks/normalize.py"


def test_a_selection_slider_shows_its_chosen_label_where_its_handle_is():
    models = {"s": model("SelectionSliderModel", description="k", _options_labels=["1", "3", "5", "10", "20"], index=3)}
    picture = widget_picture("IPY_MODEL_s", models)
    assert ">10</span>" in picture and "left:75.0%" in picture and ">k</span>" in picture
