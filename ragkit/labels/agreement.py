"""How far two judges agree: raw agreement and Cohen's κ on relevant / not relevant, from a shipped file of pairs.

`data/agreement.jsonl` holds one (query, passage) pair a line with both judges' verdicts: `first` is what the
labels say (`relevant` or `not relevant`: a quote, or a passage judged not relevant), `second` is a second,
blind judge's verdict (`yes`, `part`, `no`), and `part` names the slice of the labels it was sampled from
(`rounds 1-2`, `round 3`, `round 4`, `round 5`, `written`, `review`). `relevant` on the second side means `yes`, or
`part` on a query with several parts, as when a round is recorded. `agreement_rows` gives, per slice and over the
whole sample, the pairs, how many agree, raw agreement and κ = (p_o − p_e) / (1 − p_e); a row leaves κ out (NaN)
where one judge gave one label only (the written quotes: the first judge is the writer, who always says
relevant), since κ is then 0 or undefined whatever the other judge does. `weighted` rows weight each pair by how many label
lines its stratum (slice and first verdict) stands for (`stratum_size` over the pairs drawn from it), which
estimates agreement over the whole collection rather than over a sample that over-draws relevant pairs.
Left out: more than two judges (Fleiss' κ), graded labels (weighted κ), and intervals on κ.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

from ragkit.corpus import read_jsonl
from ragkit.errors import RagkitError

FIRST = ("relevant", "not relevant")
SECOND = ("yes", "part", "no")
FIELDS = ("query", "doc", "start", "end", "part", "first", "second", "second_relevant", "stratum_size")


def cohen_kappa(first: Sequence[bool], second: Sequence[bool], weights: Sequence[float] | None = None) -> float:
    """Cohen's κ of two judges' binary labels (optionally each pair weighted); NaN when chance agreement is 1.

    >>> round(cohen_kappa([True, True, False, False], [True, False, False, False]), 3)
    0.5
    >>> cohen_kappa([False, False], [False, False])
    nan
    """
    a, b = np.asarray(first, dtype=bool), np.asarray(second, dtype=bool)
    w = np.ones(len(a)) if weights is None else np.asarray(weights, dtype=float)
    if len(a) != len(b) or len(a) != len(w) or len(a) == 0:
        raise RagkitError(f"κ needs two equally long, non-empty label lists, got {len(a)}, {len(b)} and {len(w)} weights")
    total = w.sum()
    observed = w[a == b].sum() / total
    p_a, p_b = w[a].sum() / total, w[b].sum() / total
    expected = p_a * p_b + (1 - p_a) * (1 - p_b)
    return float("nan") if np.isclose(expected, 1.0) else float((observed - expected) / (1 - expected))


def load_agreement(path: str | Path) -> list[dict]:
    """The pairs of an agreement file, each checked; a bad line is one clear error naming the file and line.

    >>> len(load_agreement("data/agreement.jsonl")) > 500
    True
    """
    path = Path(path)
    if not path.is_file():
        raise RagkitError(f"{path}: no agreement file (pairs with both judges' verdicts, data/README.md)")
    pairs = []
    for number, pair in read_jsonl(path):  # a line that is not a JSON object is one clear error already
        missing = [field for field in FIELDS if field not in pair]
        if missing:
            raise RagkitError(f"{path}:{number}: missing {', '.join(missing)}")
        if pair["first"] not in FIRST or pair["second"] not in SECOND or not isinstance(pair["second_relevant"], bool):
            raise RagkitError(f"{path}:{number}: first must be one of {FIRST}, second one of {SECOND}, "
                              "second_relevant true or false")
        if not isinstance(pair["stratum_size"], int) or pair["stratum_size"] < 1:
            raise RagkitError(f"{path}:{number}: stratum_size must be a positive whole number")
        pairs.append(pair)
    if not pairs:
        raise RagkitError(f"{path}: no pairs")
    return pairs


def agreement_row(name: str, pairs: Sequence[dict], weighted: bool = False) -> dict:
    """One slice's pairs, agreements, raw agreement and κ (weighted by strata when `weighted`).

    >>> pair = {"part": "x", "first": "relevant", "second_relevant": True, "stratum_size": 1}
    >>> agreement_row("x", [pair, {**pair, "first": "not relevant"}])["raw agreement"]
    0.5
    """
    first = [pair["first"] == "relevant" for pair in pairs]
    second = [pair["second_relevant"] for pair in pairs]
    weights = None
    if weighted:
        drawn: dict[tuple[str, str], int] = {}
        for pair in pairs:
            drawn[(pair["part"], pair["first"])] = drawn.get((pair["part"], pair["first"]), 0) + 1
        weights = [pair["stratum_size"] / drawn[(pair["part"], pair["first"])] for pair in pairs]
    w = np.ones(len(pairs)) if weights is None else np.asarray(weights)
    agree = np.asarray(first) == np.asarray(second)
    one_label = len(set(first)) < 2 or len(set(second)) < 2  # κ is 0 or undefined by construction
    return {"slice": name, "pairs": len(pairs), "agree": int(agree.sum()), "raw agreement": float(w[agree].sum() / w.sum()),
            "kappa": float("nan") if one_label else cohen_kappa(first, second, weights)}


def agreement_rows(pairs: Iterable[dict]) -> list[dict]:
    """Rows per part of the labels, per first verdict, for the whole sample, and weighted to the collection.

    >>> rows = agreement_rows(load_agreement("data/agreement.jsonl"))
    >>> rows[-1]["slice"]
    'weighted to the whole collection'
    """
    pairs = list(pairs)
    rows = [agreement_row(part, [p for p in pairs if p["part"] == part])
            for part in dict.fromkeys(p["part"] for p in pairs)]
    rows += [agreement_row(f"first judge said {first}", [p for p in pairs if p["first"] == first]) for first in FIRST]
    rows.append(agreement_row("sample", pairs))
    rows.append(agreement_row("weighted to the whole collection", pairs, weighted=True))
    return rows


def agreement_markdown(rows: Sequence[dict]) -> str:
    """The rows as the Markdown table of data/README.md (κ left blank where it is undefined).

    >>> print(agreement_markdown([{"slice": "x", "pairs": 2, "agree": 1, "raw agreement": 0.5, "kappa": 0.0}]))
    | slice | pairs | agree | raw agreement | Cohen's κ |
    |---|---|---|---|---|
    | x | 2 | 1 | 0.500 | 0.000 |
    """
    lines = ["| slice | pairs | agree | raw agreement | Cohen's κ |", "|---|---|---|---|---|"]
    for row in rows:
        kappa = "" if np.isnan(row["kappa"]) else f"{row['kappa']:.3f}"
        lines.append(f"| {row['slice']} | {row['pairs']:,} | {row['agree']:,} | {row['raw agreement']:.3f} | {kappa} |")
    return "\n".join(lines)
