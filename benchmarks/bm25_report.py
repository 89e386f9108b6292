"""The report of `benchmarks/bm25.py`: its tables, the goals checked against them, its notes and its plot.

Nothing runs when this file is run on its own (`benchmarks/run_all.py` runs every script in the folder).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

NOTES = """Notes:

- All run on one thread. bm25s runs twice: with its default numpy backend, and with its numba backend (its
  documented fast path, one thread). bm25s keeps scores in float32, its default; ragkit scores in float64.
  `make bench` installs numba (the `bench` extra); without it the numba rows are left out and ragkit takes
  its numpy path, the one notebook 05 derives (the "numpy path" row times it here with numba installed).
- How ragkit's default path answers faster than a compiled brute force. bm25s with numba, for each query,
  allocates a score per document, adds up every posting of every query word (a word repeated in the query is
  read again), and then keeps the best k with a heap over all documents. ragkit ranks the whole batch in one
  compiled call (`ragkit.index.bm25_topk`) that chooses, query by query, between two exact ways.
  (1) Queries with few postings, and queries of more than 12 distinct words (long queries: there the bounds
  of the words not yet read stay large, so pruning skips little and costs its bookkeeping), add up every
  posting: a repeated word's row once, times its count; document indices read unsigned (no negative-index
  check in the loop); the best k found by counting, 64 documents at a time, those that can enter (a loop the
  compiler vectorizes) and reading only those blocks; the scores kept for the next query reset in one pass.
  (2) Other queries use MaxScore: rows read whole, highest bound first, with a pool of the 2k documents with
  the best partial scores; when the rows left are long enough to repay it, the pooled documents' other rows
  are looked up, and the k-th best of these full scores bounds the k-th best score from below; once the
  bounds of the rows left add up to less than it, only the candidates that can still reach it get the other
  rows (by galloping while they are few, by adding the whole row while they are many). Sums made in another
  order than np.bincount's differ in the last bits, so wherever two of the best k + 1 scores are within 1e-12
  of the largest possible score, those documents are summed again in the query's word order, as np.bincount
  adds: the rankings are those of the numpy path, ties included (the table checks it; `tests/test_bm25.py`
  and `tests/test_bm25_batch.py` check it on generated corpora, the course corpus and Cranfield).
- Real text differs from the generated corpora in the way that matters here: its queries are longer (6 to 61
  terms on average against 5), and their words are less unequal (a generated query's words are either very
  rare or in almost every document, the inequality MaxScore feeds on). On it the earlier version of the
  compiled path (MaxScore for every query, each query's threshold found from partial scores, a pass over the
  documents seen at every check) answered 0.57× (Cranfield), 0.82× (course), 1.36× and 0.34× (package docs,
  short and long queries) as many queries per second as bm25s with numba on the same tokens. Long queries
  gain most from reading a repeated word's row once and from not paying a heap over every document.
- Pure numpy and scipy did not get there. Measured on the generated corpora, one thread (queries per second
  at 10,000 and 100,000 documents, CPU time; bm25s with numba about 33,000 and 4,000 in those measurements):
  blocks of 64 queries as one sparse product Q × W with float32 CSR weights, then `argpartition` per row,
  10,000 and 820; query-term-first sums with `np.add.reduceat` after a sort, 3,300 and 310; the same MaxScore
  pruning written as numpy calls per query, 3,800 and 890 (a few microseconds for each of its 20 or so numpy
  calls a query). So the compiled path is an optional extra, and the numpy path stays what the course
  teaches and what runs without numba.
- rank_bm25 loops in Python over every document for every query word, so it gets fewer queries
  (`--rank-bm25-queries` up to 10,000 documents, a fifth of that above), on the generated corpora only;
  ragkit (okapi) is timed on the same queries, and "queries timed" says how many.
- The analyzer: ragkit's stems each distinct word once per corpus (one PyStemmer `stemWords` call over the
  new words), splits a text without Chinese characters with one regular expression, and pauses Python's
  garbage collector while it makes millions of strings and lists; bm25s.tokenize also stems distinct words
  once but builds its vocabulary and ids in Python loops. An ASCII text ragkit cuts in C (`bytes.translate`
  then `split`) and looks each distinct piece up once in the word pattern, the stop list and the stemmer
  (the same tokens, byte for byte: `tests/test_analyzer.py` compares them on every course and Cranfield
  text). Given the same word pattern both give the same tokens; texts with Chinese characters are left out of
  this comparison (55 of the course's 382 chunks, a few dozen package passages), because ragkit cuts Chinese
  into words with jieba, work the pattern does not do.
- At build time ragkit numbers the words with pandas' hash table a block of about a million tokens at a time
  and lays out the (word, document) counts with one counting sort (`ragkit.index.bm25_build`), while bm25s
  converts and counts every token in Python loops; `benchmarks/scale.py` measures the memory of both.
- The machine is shared: a load average above its 2 cores means other jobs ran at the same time. Times are
  the process's CPU time by default (other jobs' turns on the cores are not counted; `--clock wall` for wall
  time), the best of `--repeats` runs, with the libraries taking turns run by run. Absolute numbers still
  move by tens of percent between runs under load (shared caches); compare the ratios."""


def markdown(rows: list[dict]) -> str:
    lines = ["| corpus | documents | queries timed | terms per query | library | index build (s) | queries/s "
             "| same top-10 as ragkit |", "|---|---:|---:|---:|---|---:|---:|---|"]
    for r in rows:
        lines.append(f"| {r['corpus']} | {r['docs']:,} | {r['queries']:,} | {r['terms']:.1f} | {r['library']} "
                     f"| {r['build_s']:.2f} | {r['qps']:,.0f} | {r['top10']} |")
    return "\n".join(lines)


def _agrees(text: str) -> bool:
    if text in ("reference", "identical rankings"):
        return True
    return "/" in text and text.split("/")[0] == text.split("/")[1].split()[0]


def verdict(rows: list[dict], analysis: list[dict]) -> list[str]:
    """The goals, checked against the measured rows."""
    qps = {(r["corpus"], r["docs"], r["library"]): r["qps"] for r in rows}
    lines = []
    for corpus, n in dict.fromkeys((r["corpus"], r["docs"]) for r in rows):
        name, ours = f"{corpus} ({n:,} documents)", qps[(corpus, n, "ragkit (lucene)")]
        ratio = ours / qps[(corpus, n, "bm25s (lucene)")]
        line = f"- {name}: ragkit answers {ratio:.1f}× as many queries per second as bm25s"
        if (corpus, n, "bm25s (numba)") in qps:
            numba = qps[(corpus, n, "bm25s (numba)")]
            line += (f", {ours / numba:.2f}× bm25s with numba ({'met' if ours >= numba else 'NOT met'}); its numpy "
                     f"path {qps[(corpus, n, 'ragkit (lucene, numpy path)')] / numba:.2f}×")
        if (corpus, n, "rank_bm25 (Okapi)") in qps:
            okapi = qps[(corpus, n, "ragkit (okapi)")] / qps[(corpus, n, "rank_bm25 (Okapi)")]
            goal = f" (goal ≥ 50×: {'met' if okapi >= 50 else 'NOT met'})" if n == 10_000 else ""
            line += f"; ragkit (okapi) {okapi:,.0f}× rank_bm25{goal}"
        lines.append(line + ".")
    for corpus, n in dict.fromkeys((r["corpus"], r["docs"]) for r in analysis):
        times = {r["library"]: r["seconds"] for r in analysis if (r["corpus"], r["docs"]) == (corpus, n)}
        ratio = times["bm25s.tokenize"] / times["ragkit Analyzer"]
        lines.append(f"- {corpus} ({n:,} texts without Chinese): the analyzer is {ratio:.1f}× as fast as bm25s.tokenize "
                     f"({'met' if ratio >= 1 else f'NOT met: {1 - ratio:.0%} slower'}).")
    same = all(_agrees(r["top10"]) for r in rows)
    lines.append(f"- Same top-10 as ragkit for every query and library: {'yes' if same else 'NO'}.")
    tokens = {r["same"] for r in analysis if r["same"]}  # "yes", or how many texts agree where some differ
    if tokens:
        lines.append(f"- Same tokens as bm25s.tokenize on every text compared: {'yes' if tokens == {'yes'} else 'NO'}.")
    return lines


def plot(rows: list[dict], path: Path) -> None:
    """Queries per second against size (generated corpora), and ragkit's ratio to bm25s-numba on every corpus."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2), gridspec_kw={"width_ratios": [1, 1.3]})
    generated = [r for r in rows if r["corpus"] == "generated"]
    for library in dict.fromkeys(r["library"] for r in generated):
        mine = [r for r in generated if r["library"] == library]
        left.plot([r["docs"] for r in mine], [r["qps"] for r in mine], "o-", label=library)
    left.set(xscale="log", yscale="log", xlabel="documents (generated corpora)", ylabel="queries per second (top 10)",
             title="Query throughput (higher is better)")
    left.legend(fontsize=7)
    left.grid(True, which="both", alpha=0.3)
    qps = {(r["corpus"], r["docs"], r["library"]): r["qps"] for r in rows}
    keys = [key for key in dict.fromkeys((r["corpus"], r["docs"]) for r in rows) if (*key, "bm25s (numba)") in qps]
    labels = [f"{corpus}\n{n:,}" for corpus, n in keys]
    for offset, library in ((-0.2, "ragkit (lucene)"), (0.2, "ragkit (lucene, numpy path)")):
        right.bar(np.arange(len(keys)) + offset, [qps[(*key, library)] / qps[(*key, "bm25s (numba)")] for key in keys],
                  width=0.4, label=library)
    right.axhline(1.0, color="grey", linestyle=":", label="bm25s (numba)")
    right.set_xticks(np.arange(len(keys)), labels, fontsize=6, rotation=30, ha="right")
    right.set(ylabel="queries/s ÷ bm25s-numba's", title="Against bm25s with numba, every corpus")
    right.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
