"""BM25 speed: ragkit's sparse index against bm25s and rank_bm25 on generated corpora of growing size.

Run from the repository root:

    .venv/bin/python benchmarks/bm25.py                   # 1,000, 10,000 and 100,000 documents
    .venv/bin/python benchmarks/bm25.py --sizes 1000 --no-save   # a quick look

Each corpus is generated with a fixed seed: word ids drawn from a Zipf law (exponent 1.07 over 200,000
words, so a few words are everywhere and most are rare, as in text) and document lengths from a log-normal
law (median 120 words, clipped to 5..2,000; SciFact abstracts and course chunks are this size). Each query is
2 to 8 words picked from one random document. All three libraries get the same pre-tokenized lists. For each
size the script times the index build once and the top-10 retrieval of the queries (best of `--repeats`
runs after a warm-up, the libraries taking turns run by run so that a burst of load on a shared machine hits
them alike; CPU time of the process by default, `--clock wall` for wall time), and checks that every library
returns the same top 10 as ragkit with the same variant (bm25s lucene against ragkit lucene; rank_bm25
BM25Okapi against ragkit okapi). Two top-10 lists count as the same when they hold the same documents, or
differ only among documents whose ragkit scores tie the 10th score (relative 1e-5; bm25s scores in float32).
ragkit runs twice when numba is installed: its default path (`ragkit.index.bm25_topk`, compiled) and the
numpy path that notebook 05 teaches, which must return identical rankings. Results: a markdown table on
stdout, and with saving on, `benchmarks/results/bm25.md` and the log-log plot
`benchmarks/results/bm25_scaling.png`.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from contextlib import contextmanager
from importlib.metadata import version
from pathlib import Path

import numpy as np

os.environ.setdefault("TQDM_DISABLE", "1")

from ragkit.index import bm25 as bm25_module  # noqa: E402
from ragkit.index.bm25 import BM25Index  # noqa: E402
from ragkit.index.exact import top_k  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"
VOCABULARY, ZIPF_EXPONENT, MEDIAN_LENGTH = 200_000, 1.07, 120


NOTES = """Notes:

- All run on one thread. bm25s runs twice: with its default numpy backend, and with its numba backend (its
  documented fast path, one thread). bm25s keeps scores in float32, its default; ragkit scores in float64.
  `make bench` installs numba (the `bench` extra); without it the numba rows are left out and ragkit takes
  its numpy path, the one notebook 05 derives (the "numpy path" row times it here with numba installed).
- How ragkit overtakes a compiled brute force: bm25s with numba adds up every posting of every query word and
  then selects among all documents; ragkit's compiled path (`ragkit.index.bm25_topk`, MaxScore) reads the
  rows of the rare words first and stops reading whole rows once the bounds of the words left cannot lift an
  unseen document into the top 10. On these corpora a query's words hold about 1.8 × N postings (the common
  words are in almost every document); ragkit adds up 7–12 % of them (10,000 and 100,000 documents) and reads
  only the document ids of another 5–8 %, to pick out the candidates. The rankings are those of the numpy
  path, ties included (the table checks it; `tests/test_bm25.py` checks it on generated corpora).
- Pure numpy and scipy did not get there. Measured on the same corpora, one thread, before choosing (queries
  per second at 10,000 and 100,000 documents, CPU time; bm25s with numba about 33,000 and 4,000 in those
  measurements, and the numpy path is the row above): blocks of 64 queries as one sparse product Q × W with
  float32 CSR weights, then `argpartition` per row, 10,000 and 820 (float64 weights: 8,300 and 610; CSC:
  4,900 and 320; blocks of 256: 9,300 and 720); query-term-first sums with `np.add.reduceat` after a sort,
  3,300 and 310; the same MaxScore pruning written as numpy calls per query, 3,800 and 890 (it reads a tenth
  of the postings, but pays a few microseconds for each of its 20 or so numpy calls a query). So the
  compiled path is an optional extra, and the numpy path stays what the course teaches and what runs
  without numba.
- rank_bm25 loops in Python over every document for every query word, so it gets fewer queries
  (`--rank-bm25-queries` up to 10,000 documents, a fifth of that above); ragkit (okapi) is timed on the same
  queries, and "queries timed" says how many.
- The analyzer: ragkit's stems each distinct word once per corpus (one PyStemmer `stemWords` call over the
  new words, PyStemmer's own cache switched off because it thrashes on a large vocabulary), splits a text
  without Chinese characters with one regular expression, and pauses Python's garbage collector while it
  makes millions of strings and lists (at 100,000 documents the collections took 40 % of the time);
  bm25s.tokenize also stems distinct words once but builds its vocabulary and ids in Python loops. Both give the same tokens (compared up to 10,000 documents
  here; `tests/test_analyzer.py` compares them on generated texts).
- At build time ragkit numbers the words with pandas' hash table and counts in one sparse matrix, while bm25s
  converts and counts every token in Python loops.
- The machine is shared: a load average above its 2 cores means other jobs ran at the same time. Times are
  the process's CPU time by default (other jobs' turns on the cores are not counted; `--clock wall` for wall
  time), the best of `--repeats` runs, with the libraries taking turns run by run. Absolute numbers still
  move by tens of percent between runs under load (shared caches); compare the ratios."""


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


CLOCKS = {"cpu": time.process_time, "wall": time.perf_counter}
clock = CLOCKS["cpu"]  # set by --clock


def seconds(function, repeats: int = 1) -> tuple[float, object]:
    """Best time of `repeats` calls, and the last result."""
    return interleaved({"f": function}, repeats)["f"]


def interleaved(functions: dict, repeats: int) -> dict:
    """{name: (best time, last result)}: the functions take turns, `repeats` rounds."""
    best, results = dict.fromkeys(functions, float("inf")), {}
    for _ in range(repeats):
        for name, function in functions.items():
            start = clock()
            results[name] = function()
            best[name] = min(best[name], clock() - start)
    return {name: (best[name], results[name]) for name in functions}


@contextmanager
def numpy_path():
    """ragkit's BM25 as if numba were not installed: the numpy path of notebook 05."""
    saved = bm25_module.compiled_kernel
    bm25_module.compiled_kernel = lambda: None
    try:
        yield
    finally:
        bm25_module.compiled_kernel = saved


def has_numba() -> bool:
    """Whether numba is installed (`make bench` installs it; the course itself does not need it)."""
    try:
        import numba  # noqa: F401
    except ImportError:
        return False
    return True


def analyzer_rows(n_docs: int, repeats: int) -> list[dict]:
    """Seconds to analyze the corpus as text (word tokens, Snowball stemming, Lucene's stop words) with ragkit's
    analyzer and with bm25s's tokenizer and the same PyStemmer stemmer: the part of indexing that comes first.
    Up to 10,000 documents the two token lists are also compared."""
    import bm25s
    import Stemmer

    from ragkit.text.analyzer import Analyzer

    docs, _ = generated_corpus(n_docs, 1, seed=n_docs)
    rng = np.random.default_rng(n_docs)
    endings = np.array(["", "s", "ing", "ed", "ly"])  # so that the stemmer has work to do
    texts = [" ".join(word + ending for word, ending in zip(doc, endings[rng.integers(0, 5, len(doc))],
                                                            strict=True)) for doc in docs]
    timed = interleaved({
        "ragkit Analyzer": lambda: Analyzer("snowball", "en", "split").tokens_of_all(texts),
        "bm25s.tokenize": lambda: bm25s.tokenize(texts, stopwords="en", stemmer=Stemmer.Stemmer("english"),
                                                 show_progress=False)}, repeats)
    same = ""
    if n_docs <= 10_000:
        theirs = bm25s.tokenize(texts, stopwords="en", stemmer=Stemmer.Stemmer("english"), return_ids=False,
                                show_progress=False)
        same = "yes" if timed["ragkit Analyzer"][1] == theirs else "NO"
    return [{"docs": n_docs, "library": name, "seconds": time_, "same": same if name.startswith("ragkit") else ""}
            for name, (time_, _) in timed.items()]


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
        print(f"  {library:28} build {build:7.2f} s   {n / query_seconds:9.1f} queries/s   {checked}", flush=True)

    def build_bm25s(backend):
        retriever = bm25s.BM25(method="lucene", k1=1.5, b=0.75, backend=backend)
        retriever.index(docs, show_progress=False)
        return retriever

    def numpy_rankings():
        with numpy_path():
            return index.rankings(queries, 10)

    builds = {"ragkit": seconds(lambda: BM25Index(docs, 1.5, 0.75, "lucene")),
              "bm25s": seconds(lambda: build_bm25s("numpy"))}
    index, retriever = builds["ragkit"][1], builds["bm25s"][1]
    searches = {"ragkit": lambda: index.rankings(queries, 10),
                "bm25s": lambda: retriever.retrieve(queries, k=10, show_progress=False)}
    if has_numba():  # ragkit's compiled path, and bm25s's numba backend (its documented fast path), one thread
        builds["bm25s numba"] = seconds(lambda: build_bm25s("numba"))
        fast = builds["bm25s numba"][1]
        searches["ragkit numpy"] = numpy_rankings
        searches["bm25s numba"] = lambda: fast.retrieve(queries, k=10, show_progress=False, n_threads=1)
    index.rankings(queries[:20], 10)  # warm-ups (numba compiles or loads its kernels here)
    retriever.retrieve(queries[:20], k=10, show_progress=False)
    if "bm25s numba" in searches:
        fast.retrieve(queries[:20], k=10, show_progress=False, n_threads=1)
    timed = interleaved(searches, repeats)
    ours = timed["ragkit"][1]
    row("ragkit (lucene)", builds["ragkit"][0], timed["ragkit"][0], len(queries), "reference")
    if "ragkit numpy" in timed:
        same = np.array_equal(timed["ragkit numpy"][1], ours)
        row("ragkit (lucene, numpy path)", builds["ragkit"][0], timed["ragkit numpy"][0], len(queries),
            f"{'identical' if same else 'NOT identical'} rankings")
    for name, library in [("bm25s", "bm25s (lucene)"), ("bm25s numba", "bm25s (numba)")]:
        if name in timed:
            identical, tied = same_top_k(index, queries, ours, timed[name][1].documents)
            row(library, builds[name][0], timed[name][0], len(queries), f"{identical + tied}/{len(queries)} same"
                f"{f' ({tied} by ties)' if tied else ''}")

    if with_rank_bm25:
        subset = queries[:rank_bm25_queries]
        build, okapi = seconds(lambda: BM25Index(docs, 1.5, 0.75, "okapi"))
        build_reference, reference = seconds(lambda: rank_bm25.BM25Okapi(docs, k1=1.5, b=0.75))
        okapi.rankings(subset[:5], 10)
        timed = interleaved({"ours": lambda: okapi.rankings(subset, 10),
                             "theirs": lambda: [top_k(reference.get_scores(q), 10) for q in subset]}, 1)
        row("ragkit (okapi)", build, timed["ours"][0], len(subset), "reference")
        identical, tied = same_top_k(okapi, subset, timed["ours"][1], timed["theirs"][1])
        row("rank_bm25 (Okapi)", build_reference, timed["theirs"][0], len(subset),
            f"{identical + tied}/{len(subset)} same{f' ({tied} by ties)' if tied else ''}")
    return rows


def markdown(rows: list[dict]) -> str:
    lines = ["| documents | library | index build (s) | queries/s | queries timed | same top-10 as ragkit |",
             "|---:|---|---:|---:|---:|---|"]
    for r in rows:
        lines.append(f"| {r['docs']:,} | {r['library']} | {r['build_s']:.2f} | {r['qps']:,.0f} | {r['queries']:,} "
                     f"| {r['top10']} |")
    return "\n".join(lines)


def verdict(rows: list[dict], analysis: list[dict]) -> list[str]:
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
                         f"numba ({'met' if ratio >= 1 else f'NOT met: {1 - ratio:.0%} slower'}); its numpy path "
                         f"{qps[(n, 'ragkit (lucene, numpy path)')] / qps[(n, 'bm25s (numba)')]:.2f}×.")
        if (n, "rank_bm25 (Okapi)") in qps:
            ratio = qps[(n, "ragkit (okapi)")] / qps[(n, "rank_bm25 (Okapi)")]
            goal = f" (goal ≥ 50×: {'met' if ratio >= 50 else 'NOT met'})" if n == 10_000 else ""
            lines.append(f"- {n:,} documents: ragkit (okapi) is {ratio:,.0f}× faster than rank_bm25{goal}.")
        times = {r["library"]: r["seconds"] for r in analysis if r["docs"] == n}
        if times:
            ratio = times["bm25s.tokenize"] / times["ragkit Analyzer"]
            lines.append(f"- {n:,} documents: the analyzer is {ratio:.1f}× as fast as bm25s.tokenize "
                         f"({'met' if ratio >= 1 else f'NOT met: {1 - ratio:.0%} slower'}).")

    def agrees(text: str) -> bool:
        return text in ("reference", "identical rankings") or ("/" in text and text.split("/")[0] == text.split(
            "/")[1].split()[0])

    same = all(agrees(r["top10"]) for r in rows)
    lines.append(f"- Same top-10 as ragkit for every query and library: {'yes' if same else 'NO'}.")
    tokens = {r["same"] for r in analysis if r["same"]}
    if tokens:
        lines.append(f"- Same tokens as bm25s.tokenize (checked up to 10,000 documents): {'yes' if tokens == {'yes'} else 'NO'}.")
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
    parser.add_argument("--repeats", type=int, default=5, help="timed runs per library, taking turns; the best counts")
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="cpu",
                        help="cpu: the process's CPU time (default; steadier on a shared machine), or wall time")
    parser.add_argument("--no-save", action="store_true", help="print only; do not write benchmarks/results")
    args = parser.parse_args(argv)
    global clock
    clock = CLOCKS[args.clock]
    command = "python benchmarks/bm25.py " + " ".join(sys.argv[1:] if argv is None else argv)
    started, loads = time.perf_counter(), [os.getloadavg()[0]]
    rows, analysis = [], []
    for n_docs in args.sizes:
        print(f"{n_docs:,} documents", flush=True)
        n_rank = args.rank_bm25_queries if n_docs <= 10_000 else max(10, args.rank_bm25_queries // 5)
        rows += run_size(n_docs, args.queries, n_rank, args.repeats, n_docs <= args.rank_bm25_max)
        analysis += analyzer_rows(n_docs, args.repeats)
        loads.append(os.getloadavg()[0])
    total = time.perf_counter() - started
    machine = (f"{platform.system()} {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; "
               f"load average (1 min) at the start and after each size: {', '.join(f'{x:.1f}' for x in loads)}; "
               f"times: {'CPU time of the process' if args.clock == 'cpu' else 'wall time'}, best of {args.repeats}; "
               + ", ".join(f"{p} {version(p)}" for p in ["numpy", "scipy", "bm25s", "rank-bm25", "PyStemmer"]
                           + (["numba"] if has_numba() else [])))
    analysis_table = ["| documents | analyzer (Snowball, Lucene stop words) | seconds | same tokens as bm25s |",
                      "|---:|---|---:|---|"] + [
        f"| {r['docs']:,} | {r['library']} | {r['seconds']:.2f} | {r['same']} |" for r in analysis]
    report = "\n".join([markdown(rows), "", *verdict(rows, analysis), "", "Analyzing the same corpora as text first "
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
