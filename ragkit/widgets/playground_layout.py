"""How notebook 11's playground lays out its controls, and what it says while a query loads the model.

`control_kind` names the control a `CONTROLS` spec asks for and `WIDTHS` its width; `control_rows` packs each
stage's controls into rows that fit a notebook, every row under its stage's name (a wrapped row of a flexbox
would lose it); `model_load_needed` tells the playground to say "loading the embedding model" rather than
"working…" before a free-text query's first embedding; `progress_line` is the re-chunking bar's text, its time
left measured from the batches timed so far. Left out: layouts for narrow screens (the rows keep
their width and the notebook scrolls).
"""

from __future__ import annotations

from ragkit.widgets.playground_view import CONTROLS

WIDTHS = {"slider": 380, "menu": 250, "text": 250}  # px: two sliders and a label fit a 960 px notebook
LOADING = "loading the embedding model, about 10 s…"
PRESET_MENU = {"width": "420px"}  # the longest preset's name, whole, after the menu's label


def control_kind(spec: tuple | None) -> str:
    """The kind of control a `CONTROLS` spec asks for: "text" (None), "slider" (low, high, step) or "menu".

    >>> control_kind(None), control_kind((0.0, 5.0, 0.1)), control_kind(("rrf", "zscore")), control_kind(())
    ('text', 'slider', 'menu', 'menu')
    """
    return "text" if spec is None else "slider" if spec and not isinstance(spec[0], str) else "menu"


def control_rows(controls: dict[str, dict] = CONTROLS, room: int = 880) -> list[tuple[str, list[str]]]:
    """The controls in rows of at most `room` px (`WIDTHS` each), stage by stage, each row with its stage's
    name: a stage that needs two rows names itself on both.

    >>> control_rows({"fusion": {"fusion": ("rrf",), "rrf_k": (0.0, 200.0, 5.0), "alpha": (0.0, 1.0, 0.05)}})
    [('fusion', ['fusion', 'rrf_k']), ('fusion', ['alpha'])]
    """
    rows: list[tuple[str, list[str]]] = []
    for stage, group in controls.items():
        used = room
        for name, spec in group.items():
            width = WIDTHS[control_kind(spec)]
            if used + width > room:
                rows.append((stage, []))
                used = 0
            rows[-1][1].append(name)
            used += width
    return rows


def model_load_needed(pipe, text: str) -> bool:
    """Whether answering `text` will first load the embedding model (about 10 s): the method reads dense
    scores, the model is not loaded yet, and no vector of `text` is cached (the labelled queries' are).

    >>> from ragkit.embed.model import Encoder
    >>> from types import SimpleNamespace
    >>> pipe = SimpleNamespace(encoder=Encoder(), config=SimpleNamespace(method="hybrid"))
    >>> model_load_needed(pipe, "a question nobody asked before, 7f3a"), model_load_needed(pipe, "  ")
    (True, False)
    """
    encoder = pipe.encoder
    if pipe.config.method == "bm25" or getattr(encoder, "_model", True) is not None or not text.strip():
        return False
    query = " ".join(text.split())
    return bool(encoder.missing([query], queries=True) if hasattr(encoder, "missing") else
                encoder.cache.lookup([query])[1])


def progress_line(done: int, total: int, first: tuple[float, int], now: float) -> str:
    """The re-chunking bar's text after `done` of `total` texts are embedded, `first` being the (time, done) of
    this pass's first report: the time left at the rate since then, none before a second report can time a
    batch, and the index build once every text is embedded (it takes a few seconds more).

    >>> progress_line(32, 320, (10.0, 32), 10.0), progress_line(96, 320, (10.0, 32), 12.0)
    ('re-chunking: 32/320 embedded, timing the first batches…', 're-chunking: 96/320 embedded, about 7 s left')
    >>> progress_line(320, 320, (10.0, 32), 19.0)
    're-chunking: 320/320 embedded, building the indexes…'
    """
    head = f"re-chunking: {done}/{total} embedded, "
    if done >= total:
        return head + "building the indexes…"
    started, first_done = first
    if done <= first_done or now <= started:
        return head + "timing the first batches…"
    left = (now - started) / (done - first_done) * (total - done)
    return head + (f"about {left:.0f} s left" if left >= 1 else "under a second left")
