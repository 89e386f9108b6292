"""BM25 speed: ragkit's sparse index against bm25s and rank_bm25 on generated corpora of growing size.

Run from the repository root:

    .venv/bin/python benchmarks/bm25.py                   # 1,000, 10,000 and 100,000 documents
    .venv/bin/python benchmarks/bm25.py --sizes 1000 --no-save   # a quick look

Each corpus is generated with a fixed seed: word ids drawn from a Zipf law (exponent 1.07 over 200,000
words, so a few words are everywhere and most are rare, as in text) and document lengths from a log-normal
law (median 120 words, clipped to 5..2,000; SciFact abstracts and course chunks are this size). Each query is
2 to 8 words picked from one random document. All three libraries get the same pre-tokenized lists. For each
size the script times the index build once and the top-10 retrieval of the queries (best of `--repeats`
runs, after a warm-up), and checks that every library returns the same top 10 as ragkit with the same
variant (bm25s lucene against ragkit lucene; rank_bm25 BM25Okapi against ragkit okapi). Two top-10 lists
count as the same when they hold the same documents, or differ only among documents whose ragkit scores tie
the 10th score (relative 1e-5; bm25s scores in float32). Results: a markdown table on stdout, and with
saving on, `benchmarks/results/bm25.md` and the log-log plot `benchmarks/results/bm25_scaling.png`.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from importlib.metadata import version
from pathlib import Path

import numpy as np

os.environ.setdefault("TQDM_DISABLE", "1")

from ragkit.index.bm25 import BM25Index  # noqa: E402
from ragkit.index.exact import top_k  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"
VOCABULARY, ZIPF_EXPONENT, MEDIAN_LENGTH = 200_000, 1.07, 120


NOTES = """Notes:

- All run on one thread. bm25s runs twice: with its default numpy backend, and with its numba backend (its
  documented fast path; `make bench` installs numba, and the row is left out where numba is missing). bm25s
  keeps scores in float32, its default; ragkit uses numpy and scipy in float64.
- Why bm25s with numba is faster than ragkit: its kernel accumulates a query's scores and selects the top 10
  in one compiled loop, while ragkit makes several numpy calls per query (gather the rows, `np.bincount`,
  select), each with a few microseconds of fixed cost. A batched scipy product (all queries × the weight
  matrix at once) was tried and was slower (3,900 against 6,000 queries/s at 10,000 documents), because the
  product materialises every matched (query, document) pair before selecting. Matching numba needs a compiled
  path; ragkit keeps numpy as its reference and teaching code.
- rank_bm25 loops in Python over every document for every query word, so it gets fewer queries
  (`--rank-bm25-queries` up to 10,000 documents, a fifth of that above); ragkit (okapi) is timed on the same
  queries, and "queries timed" says how many.
- Where the time goes: per query, ragkit gathers the stored weights of the query's words (one CSR row each),
  adds them up with `np.bincount` and selects the top 10 among the documents that matched. bm25s gathers the
  same rows, but adds them with `np.add.at`, which is slower per element, and selects among all documents.
  At build time ragkit numbers the words with pandas' hash table and counts in one sparse matrix, while
  bm25s converts and counts every token in Python loops.
- The machine is shared: a load average above its 2 cores means other jobs ran at the same time, and
  absolute numbers move by tens of percent from run to run. Compare the ratios, and use `--repeats` to
  tighten them."""


def generated_corpus(n_docs: int, n_queries: int, seed: int = 0) -> tuple[list[list[str]], list[list[str]]]:
    """Documents and queries as token lists: Zipf word frequencies, log-normal lengths, queries from documents."""
    rng = np.random.default_rng(seed)
    words = [f"w{i}" for i in range(VOCABULARY)]
    probabilities = 1.0 / np.arange(1, VOCABULARY + 1) ** ZIPF_EXPONENT
    lengths = np.clip(rng.lognormal(np.log(MEDIAN_LENGTH), 0.6, n_docs).astype(int), 5, 2000)
    ids = rng.choice(VOCABULARY, size=int(lengths.sum()), p=probabilities / probabilities.sum())
    tokens = [words[i] for i in ids.tolist()]
    bounds = np.concatenate([[0], np.cumsum(lengths)]).tolist()
    docs = [tokens[bounds[i]:bounds[i + 1]] for i in range(n_docs)]
    queries = []
    for _ in range(n_queries):
        doc = docs[rng.integers(n_docs)]
        queries.append([doc[j] for j in rng.integers(0, len(doc), rng.integers(2, 9))])
    return docs, queries


def seconds(function, repeats: int = 1) -> tuple[float, object]:
    """Best wall time of `repeats` calls, and the last result."""
    best, result = float("inf"), None
    for _ in range(repeats):
        start = time.perf_counter()
        result = function()
        best = min(best, time.perf_counter() - start)
    return best, result


def has_numba() -> bool:
    """Whether numba is installed (`make bench` installs it; the course itself does not need it)."""
    try:
        import numba  # noqa: F401
    except ImportError:
        return False
    return True


def analyzer_rows(n_docs: int, repeats: int) -> list[dict]:
    """Seconds to analyze the corpus as text (word tokens, Snowball stemming, Lucene's stop words) with ragkit's
    analyzer and with bm25s's tokenizer and the same PyStemmer stemmer: the part of indexing that comes first."""
    import bm25s
    import Stemmer

    from ragkit.text.analyzer import Analyzer

    docs, _ = generated_corpus(n_docs, 1, seed=n_docs)
    rng = np.random.default_rng(n_docs)
    endings = np.array(["", "s", "ing", "ed", "ly"])  # so that the stemmer has work to do
    texts = [" ".join(word + ending for word, ending in zip(doc, endings[rng.integers(0, 5, len(doc))],
                                                            strict=True)) for doc in docs]
    ours, _ = seconds(lambda: Analyzer("snowball", "en", "split").tokens_of_all(texts), repeats)
    theirs, _ = seconds(lambda: bm25s.tokenize(texts, stopwords="en", stemmer=Stemmer.Stemmer("english"),
                                               show_progress=False), repeats)
    return [{"docs": n_docs, "library": "ragkit Analyzer", "seconds": ours},
            {"docs": n_docs, "library": "bm25s.tokenize", "seconds": theirs}]


def same_top_k(index: BM25Index, queries: list[list[str]], ours: np.ndarray, theirs: np.ndarray) -> tuple[int, int]:
    """(identical lists, lists that differ only among documents tied at the cut) under ragkit's scores."""
    identical = tied = 0
    for tokens, mine, other in zip(queries, ours, theirs, strict=True):
        if set(mine.tolist()) == set(np.asarray(other).tolist()):
            identical += 1
            continue
        scores = index.query_scores(tokens)
        mine_scores, other_scores = np.sort(scores[mine])[::-1], np.sort(scores[np.asarray(other)])[::-1]
        tied += bool(np.allclose(mine_scores, other_scores, rtol=1e-5, atol=1e-9))
    return identical, tied


def run_size(n_docs: int, n_queries: int, rank_bm25_queries: int, repeats: int, with_rank_bm25: bool) -> list[dict]:
    """Build and query all libraries on one generated corpus; one result row per library."""
    import bm25s
    import rank_bm25

    docs, queries = generated_corpus(n_docs, n_queries, seed=n_docs)
    rows = []

    def row(library, build, query_seconds, n, checked=""):
        rows.append({"docs": n_docs, "library": library, "build_s": build, "qps": n / query_seconds,
                     "queries": n, "top10": checked})
        print(f"  {library:16} build {build:7.2f} s   {n / query_seconds:9.1f} queries/s   {checked}", flush=True)

    build, index = seconds(lambda: BM25Index(docs, 1.5, 0.75, "lucene"))
    index.rankings(queries[:20], 10)  # warm-up
    query_seconds, ours = seconds(lambda: index.rankings(queries, 10), repeats)
    row("ragkit (lucene)", build, query_seconds, len(queries), "reference")

    def build_bm25s():
        retriever = bm25s.BM25(method="lucene", k1=1.5, b=0.75)
        retriever.index(docs, show_progress=False)
        return retriever

    build, retriever = seconds(build_bm25s)
    retriever.retrieve(queries[:20], k=10, show_progress=False)
    query_seconds, found = seconds(lambda: retriever.retrieve(queries, k=10, show_progress=False), repeats)
    identical, tied = same_top_k(index, queries, ours, found.documents)
    row("bm25s (lucene)", build, query_seconds, len(queries), f"{identical + tied}/{len(queries)} same"
        f"{f' ({tied} by ties)' if tied else ''}")

    if has_numba():  # bm25s's documented fast path: its numba backend, on one thread like the others
        def build_numba():
            fast = bm25s.BM25(method="lucene", k1=1.5, b=0.75, backend="numba")
            fast.index(docs, show_progress=False)
            return fast

        build, fast = seconds(build_numba)
        fast.retrieve(queries[:20], k=10, show_progress=False, n_threads=1)  # warm-up: compiles the kernels
        query_seconds, found = seconds(lambda: fast.retrieve(queries, k=10, show_progress=False, n_threads=1),
                                       repeats)
        identical, tied = same_top_k(index, queries, ours, found.documents)
        row("bm25s (numba)", build, query_seconds, len(queries), f"{identical + tied}/{len(queries)} same"
            f"{f' ({tied} by ties)' if tied else ''}")

    if with_rank_bm25:
        subset = queries[:rank_bm25_queries]
        build, okapi = seconds(lambda: BM25Index(docs, 1.5, 0.75, "okapi"))
        query_seconds, ours_okapi = seconds(lambda: okapi.rankings(subset, 10), repeats)
        row("ragkit (okapi)", build, query_seconds, len(subset), "reference")
        build, reference = seconds(lambda: rank_bm25.BM25Okapi(docs, k1=1.5, b=0.75))
        query_seconds, found = seconds(lambda: [top_k(reference.get_scores(q), 10) for q in subset])
        identical, tied = same_top_k(okapi, subset, ours_okapi, found)
        row("rank_bm25 (Okapi)", build, query_seconds, len(subset), f"{identical + tied}/{len(subset)} same"
            f"{f' ({tied} by ties)' if tied else ''}")
    return rows


def markdown(rows: list[dict]) -> str:
    lines = ["| documents | library | index build (s) | queries/s | queries timed | same top-10 as ragkit |",
             "|---:|---|---:|---:|---:|---|"]
    for r in rows:
        lines.append(f"| {r['docs']:,} | {r['library']} | {r['build_s']:.2f} | {r['qps']:,.0f} | {r['queries']:,} "
                     f"| {r['top10']} |")
    return "\n".join(lines)


def verdict(rows: list[dict]) -> list[str]:
    """The goals, checked against the measured rows."""
    qps = {(r["docs"], r["library"]): r["qps"] for r in rows}
    lines = []
    for n in sorted({r["docs"] for r in rows}):
        ratio = qps[(n, "ragkit (lucene)")] / qps[(n, "bm25s (lucene)")]
        lines.append(f"- {n:,} documents: ragkit answers {ratio:.1f}× as many queries per second as bm25s "
                     f"({'met' if ratio >= 1 else f'NOT met: {1 - ratio:.0%} slower'}).")
        if (n, "bm25s (numba)") in qps:
            ratio = qps[(n, "ragkit (lucene)")] / qps[(n, "bm25s (numba)")]
            lines.append(f"- {n:,} documents: ragkit answers {ratio:.2f}× as many queries per second as bm25s with "
                         f"numba ({'met' if ratio >= 1 else f'NOT met: {1 - ratio:.0%} slower'}).")
        if (n, "rank_bm25 (Okapi)") in qps:
            ratio = qps[(n, "ragkit (okapi)")] / qps[(n, "rank_bm25 (Okapi)")]
            goal = f" (goal ≥ 50×: {'met' if ratio >= 50 else 'NOT met'})" if n == 10_000 else ""
            lines.append(f"- {n:,} documents: ragkit (okapi) is {ratio:,.0f}× faster than rank_bm25{goal}.")
    same = all(r["top10"] == "reference" or r["top10"].split("/")[0] == r["top10"].split("/")[1].split()[0]
               for r in rows)
    lines.append(f"- Same top-10 as ragkit for every query and library: {'yes' if same else 'NO'}.")
    return lines


def plot(rows: list[dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.8))
    for library in dict.fromkeys(r["library"] for r in rows):
        mine = [r for r in rows if r["library"] == library]
        sizes = [r["docs"] for r in mine]
        left.plot(sizes, [r["qps"] for r in mine], "o-", label=library)
        right.plot(sizes, [r["build_s"] for r in mine], "o-", label=library)
    left.set(xscale="log", yscale="log", xlabel="documents", ylabel="queries per second (top 10)",
             title="Query throughput (higher is better)")
    right.set(xscale="log", yscale="log", xlabel="documents", ylabel="seconds",
              title="Index build time (lower is better)")
    left.legend(fontsize=8)
    left.grid(True, which="both", alpha=0.3)
    right.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000, 10_000, 100_000])
    parser.add_argument("--queries", type=int, default=1_000, help="queries for ragkit and bm25s")
    parser.add_argument("--rank-bm25-queries", type=int, default=100, help="queries for rank_bm25 (it is slow)")
    parser.add_argument("--rank-bm25-max", type=int, default=100_000, help="largest corpus given to rank_bm25")
    parser.add_argument("--repeats", type=int, default=3, help="query runs per library; the best counts")
    parser.add_argument("--no-save", action="store_true", help="print only; do not write benchmarks/results")
    args = parser.parse_args(argv)
    command = "python benchmarks/bm25.py " + " ".join(sys.argv[1:] if argv is None else argv)
    started = time.perf_counter()
    rows, analysis = [], []
    for n_docs in args.sizes:
        print(f"{n_docs:,} documents", flush=True)
        n_rank = args.rank_bm25_queries if n_docs <= 10_000 else max(10, args.rank_bm25_queries // 5)
        rows += run_size(n_docs, args.queries, n_rank, args.repeats, n_docs <= args.rank_bm25_max)
        analysis += analyzer_rows(n_docs, args.repeats)
    total = time.perf_counter() - started
    machine = (f"{platform.system()} {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
               f"load average at the end {os.getloadavg()[0]:.1f}; " + ", ".join(
                   f"{p} {version(p)}" for p in ["numpy", "scipy", "bm25s", "rank-bm25", "PyStemmer"] + (["numba"] if has_numba() else [])))
    analysis_table = ["| documents | analyzer (Snowball, Lucene stop words) | seconds |", "|---:|---|---:|"] + [
        f"| {r['docs']:,} | {r['library']} | {r['seconds']:.2f} |" for r in analysis]
    report = "\n".join([markdown(rows), "", *verdict(rows), "", "Analyzing the same corpora as text first "
                        "(stemming the words; the index build above starts from tokens):", "",
                        *analysis_table, "", f"Machine: {machine}. Whole run: {total:.0f} s.", "", NOTES])
    print("\n" + report)
    if not args.no_save:
        RESULTS.mkdir(exist_ok=True)
        plot(rows, RESULTS / "bm25_scaling.png")
        (RESULTS / "bm25.md").write_text(
            f"# BM25 speed: ragkit vs bm25s vs rank_bm25\n\nCommand (from the repository root): `{command.strip()}`"
            f"\n\n{__doc__[__doc__.index('Each corpus'):].split('Results:')[0].strip()}\n\n{report}\n\n"
            "![queries per second and build time against corpus size](bm25_scaling.png)\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
