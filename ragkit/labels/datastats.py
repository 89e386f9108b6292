"""Count what is in the course data: documents, characters and words per source, queries per type and split.

`data_statistics` gives the tables printed in `data/README.md` (`statistics_markdown` writes them as
markdown); `ragkit.labels.datacheck` computes them while it checks the data. The command line is
`python -m ragkit data check --data data`. Left out: checking the data against its contract
(`ragkit.labels.datacheck`), tokens as the model counts them (notebook 01), and judging the prose.
"""

from __future__ import annotations

import re

import pandas as pd

WORD = re.compile(r"[A-Za-z0-9_]+|[\u4e00-\u9fff]")


def word_count(text: str) -> int:
    """Words for the statistics table: runs of letters/digits, and each Chinese character on its own.

    >>> word_count("Rotate keys every 90 days. 密钥轮换")
    9
    """
    return len(WORD.findall(text))


def data_statistics(docs: dict[str, dict], records: list[dict]) -> dict:
    """Tables of documents, characters and words per source and language, and queries per type and split.

    >>> data_statistics({"d": {"meta": {"source": "faq", "lang": "en"}, "body": "two words"}}, [])["totals"]["words"]
    2
    """
    rows = [{"source": d["meta"].get("source"), "lang": d["meta"].get("lang"), "documents": 1,
             "characters": len(d["body"]), "words": word_count(d["body"])} for d in docs.values()]
    corpus = pd.DataFrame(rows, columns=["source", "lang", "documents", "characters", "words"])
    by_source = corpus.groupby(["source", "lang"])[["documents", "characters", "words"]].sum()
    queries = pd.DataFrame([{"type": r.get("type"), "split": r.get("split")} for r in records], columns=["type", "split"])
    by_type = pd.crosstab(queries["type"], queries["split"], margins=True, margins_name="total") if len(queries) else queries
    totals = {"documents": len(docs), "characters": int(corpus["characters"].sum()),
              "words": int(corpus["words"].sum()), "sources": corpus["source"].nunique(),
              "zh_documents": int((corpus["lang"] == "zh").sum()), "queries": len(records)}
    return {"totals": totals, "by_source": by_source, "by_type": by_type}


def statistics_markdown(stats: dict) -> str:
    """The statistics as the markdown tables that `data/README.md` carries (a test keeps them equal).

    >>> problems, stats = check_data("data")  # doctest: +SKIP
    >>> print(statistics_markdown(stats))  # doctest: +SKIP
    """
    totals = stats["totals"]
    lines = ["| documents | characters | words | sources | Chinese documents | queries |", "|---|---|---|---|---|---|",
             f"| {totals['documents']} | {totals['characters']:,} | {totals['words']:,} | {totals['sources']} | "
             f"{totals['zh_documents']} | {totals['queries']} |", "",
             "| source | lang | documents | characters | words |", "|---|---|---|---|---|"]
    for (source, lang), row in stats["by_source"].iterrows():
        lines.append(f"| {source} | {lang} | {row['documents']} | {row['characters']:,} | {row['words']:,} |")
    lines += ["", "| query type | dev | test | total |", "|---|---|---|---|"]
    for kind, row in stats["by_type"].iterrows():
        lines.append(f"| {kind} | {row.get('dev', 0)} | {row.get('test', 0)} | {row['total']} |")
    return "\n".join(lines)
