"""How BM25's analyzer and its k1, b change retrieval quality: the measurement behind ragkit's BM25 defaults.

Sweeps stemmer × stopwords × identifiers × (k1, b) with the shared Pipeline on the course dev split (recall@5
and failure@20, for English, Chinese and all queries) and, when given a BEIR-format folder, on its test queries
(nDCG@10, recall@100, documents as units). Only dev is used to choose; the test split is the notebooks'
verdict. Prints markdown tables; the recorded result is in benchmarks/results/analyzer.md.

    .venv/bin/python benchmarks/analyzer.py                                  # course dev split only
    .venv/bin/python benchmarks/analyzer.py --beir data/cranfield            # and Cranfield, shipped in data/
"""

from __future__ import annotations

import argparse
import itertools
import os
import sys
from pathlib import Path

os.environ.setdefault("RAGKIT_PROGRESS", "0")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
ANALYZERS = list(itertools.product(["none", "snowball"], ["none", "en"], ["whole", "split"]))
PARAMETERS = [(0.9, 0.4), (1.2, 0.75), (1.5, 0.75), (2.0, 0.75)]


def course_table() -> pd.DataFrame:
    from ragkit import Pipeline, load_documents, load_queries

    docs = load_documents(ROOT / "data" / "corpus")
    dev = [q for q in load_queries(ROOT / "data" / "queries.jsonl", split="dev") if q.evidence]
    lang = np.array([q.lang for q in dev])
    pipe, rows = Pipeline(docs, method="bm25"), []
    for (stemmer, stopwords, identifiers), (k1, b) in itertools.product(ANALYZERS, PARAMETERS):
        table = pipe.using(stemmer=stemmer, stopwords=stopwords, identifiers=identifiers, k1=k1, b=b).evaluate(
            dev, ["recall@5", "failure@20"])
        row = {"stemmer": stemmer, "stopwords": stopwords, "identifiers": identifiers, "k1": k1, "b": b}
        for name, mask in (("en", lang == "en"), ("zh", lang == "zh"), ("all", np.ones(len(dev), bool))):
            row[f"recall@5 {name}"] = table["recall@5"][mask].mean()
        row["failure@20 all"] = table["failure@20"].mean()
        rows.append(row)
    return pd.DataFrame(rows)


def beir_table(folder: str) -> pd.DataFrame:
    from ragkit import Pipeline, per_query_metrics, summarize
    from ragkit.commands import load_eval_data

    docs, queries, judgments, config = load_eval_data(folder, "test")
    pipe, rows = Pipeline(docs, config, method="bm25"), []
    for (stemmer, stopwords, identifiers), (k1, b) in itertools.product(ANALYZERS, PARAMETERS):
        variant = pipe.using(stemmer=stemmer, stopwords=stopwords, identifiers=identifiers, k1=k1, b=b)
        means = summarize(per_query_metrics(variant.rankings([q.text for q in queries], 100), judgments,
                                            ["ndcg@10", "recall@100"]), decimals=4).iloc[0]
        rows.append({"stemmer": stemmer, "stopwords": stopwords, "identifiers": identifiers, "k1": k1, "b": b,
                     "nDCG@10": means["ndcg@10"], "recall@100": means["recall@100"]})
    return pd.DataFrame(rows)


def markdown(table: pd.DataFrame) -> str:
    """A DataFrame as a markdown table (pandas' own needs the optional `tabulate` package)."""
    def cell(column: str, value) -> str:
        return f"{value:.4f}" if "@" in column else f"{value:g}" if isinstance(value, float) else str(value)

    lines = ["| " + " | ".join(table.columns) + " |", "|" + "---|" * len(table.columns)]
    lines += ["| " + " | ".join(cell(c, v) for c, v in zip(table.columns, row, strict=True)) + " |"
              for row in table.itertuples(index=False)]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--beir", help="a BEIR-format folder to measure on as well (its test qrels)")
    args = parser.parse_args(argv)
    course = course_table()
    print(f"course dev split, BM25 over 800-character chunks, {len(ANALYZERS) * len(PARAMETERS)} settings\n")
    print(markdown(course.sort_values("recall@5 all", ascending=False)))
    if args.beir:
        beir = beir_table(args.beir)
        print(f"\n{Path(args.beir).name}, test queries, documents as units\n")
        print(markdown(beir.sort_values("nDCG@10", ascending=False)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
