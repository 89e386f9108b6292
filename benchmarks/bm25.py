"""BM25 speed: ragkit's sparse index against bm25s and rank_bm25, on real text and on generated corpora.

Run from the repository root:

    .venv/bin/python benchmarks/bm25.py                   # real text, then 1,000, 10,000 and 100,000 generated
    .venv/bin/python benchmarks/bm25.py --sizes --corpora cranfield course --no-save   # a quick look

Real text (`benchmarks/real_text.py` assembles it, offline and deterministically): Cranfield from `data/`
(1,398 abstracts, its 225 queries); the course corpus (the 382 chunks of the default pipeline, its 368
labelled queries, English and Chinese); and the docstrings and documentation files of the installed Python
packages and standard library, cut into passages of at most 120 words (over 100,000), with two query sets
held out from it: short queries (a docstring's summary line, 3 to 16 words) and long ones (the first 40 to
120 words of the same docstrings). Every text, document or query, goes through one analyzer: ragkit's
`Analyzer("snowball", "en", "split")` (word tokens, identifiers split at - and /, Lucene's 33 English stop
words, Snowball stemming); all libraries get these same token lists, and a query left without tokens is left
out (the table counts the queries timed). Generated corpora: word ids drawn with a fixed seed from a Zipf law
(exponent 1.07 over 200,000 words) and document lengths from a log-normal law (median 120 words, clipped to
5..2,000); each query is 2 to 8 words picked from one random document. For each corpus the script times the
index build once and the top-10 retrieval of the queries (best of `--repeats` runs after a warm-up, the
libraries taking turns run by run so that a burst of load on a shared machine hits them alike; CPU time of the
process by default, `--clock wall` for wall time; one thread for all: bm25s's `n_threads=1`, and
NUMBA_NUM_THREADS=1), and checks that every library returns the same top 10 as ragkit with the same variant
(bm25s lucene against ragkit lucene; rank_bm25 BM25Okapi against ragkit okapi, generated corpora only). Two
top-10 lists count as the same when they hold the same documents, or differ only among documents whose ragkit
scores tie the 10th score (relative 1e-5; bm25s scores in float32). ragkit runs twice when numba is installed:
its default path (`ragkit.index.bm25_topk`, compiled) and the numpy path that notebook 05 teaches, which must
return identical rankings. The analyzer is timed on the same texts against `bm25s.tokenize` given the same
word pattern, stop words and stemmer. Results: markdown tables on stdout, and with saving on,
`benchmarks/results/bm25.md` and the plot `benchmarks/results/bm25_scaling.png`.
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

os.environ.setdefault("TQDM_DISABLE", "1")
os.environ.setdefault("NUMBA_NUM_THREADS", "1")  # one thread for every library
sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402
import real_text  # noqa: E402
from bm25_report import NOTES, markdown, plot, verdict  # noqa: E402

from ragkit.index import bm25 as bm25_module  # noqa: E402
from ragkit.index.bm25 import BM25Index  # noqa: E402
from ragkit.index.exact import top_k  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"
VOCABULARY, ZIPF_EXPONENT, MEDIAN_LENGTH = 200_000, 1.07, 120
CORPORA = ("cranfield", "course", "package-docs")


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


def analyzer_rows(corpus: str, texts: list[str], repeats: int, compare: bool = True) -> list[dict]:
    """Seconds to analyze texts (word tokens, identifiers split, Lucene's stop words, Snowball stemming) with
    ragkit's analyzer and with bm25s's tokenizer given the same word pattern and the same PyStemmer stemmer:
    the part of indexing that comes first. Texts with Chinese characters are left out: ragkit cuts them into
    words with jieba, which the pattern cannot do, so the two would not do the same work. With `compare`, the
    token lists are compared too."""
    import bm25s
    import Stemmer

    from ragkit.text.analyzer import SPLIT_WORD, Analyzer
    from ragkit.text.words import HAN_RUN

    texts = [text for text in texts if not HAN_RUN.search(text)]

    def theirs(ids: bool = True):
        return bm25s.tokenize(texts, token_pattern=SPLIT_WORD.pattern, stopwords="en", return_ids=ids,
                              stemmer=Stemmer.Stemmer("english"), show_progress=False)

    timed = interleaved({"ragkit Analyzer": lambda: Analyzer("snowball", "en", "split").tokens_of_all(texts),
                         "bm25s.tokenize": theirs}, repeats)
    same = ""
    if compare:
        differ = sum(a != b for a, b in zip(timed["ragkit Analyzer"][1], theirs(False), strict=True))
        same = "yes" if not differ else f"{len(texts) - differ:,} of {len(texts):,} texts"
    return [{"corpus": corpus, "docs": len(texts), "library": name, "seconds": time_,
             "same": same if name.startswith("ragkit") else ""} for name, (time_, _) in timed.items()]


def generated_texts(n_docs: int) -> list[str]:
    """The generated corpus of that size as text, with English endings so that the stemmer has work to do."""
    docs, _ = generated_corpus(n_docs, 1, seed=n_docs)
    rng = np.random.default_rng(n_docs)
    endings = np.array(["", "s", "ing", "ed", "ly"])
    return [" ".join(word + ending for word, ending in zip(doc, endings[rng.integers(0, 5, len(doc))], strict=True))
            for doc in docs]


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


def run_corpus(corpus: str, docs: list[list[str]], queries: list[list[str]], repeats: int,
               rank_bm25_queries: int = 0) -> list[dict]:
    """Build and query every library on one corpus of token lists; one result row per library."""
    import bm25s
    import rank_bm25

    rows, terms = [], float(np.mean([len(q) for q in queries]))

    def row(library, build, query_seconds, n, checked=""):
        rows.append({"corpus": corpus, "docs": len(docs), "library": library, "build_s": build,
                     "qps": n / query_seconds, "queries": n, "terms": terms, "top10": checked})
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
                "bm25s": lambda: retriever.retrieve(queries, k=10, show_progress=False, n_threads=1)}
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

    if rank_bm25_queries:
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


def real_corpora(names: list[str], n_queries: int) -> tuple[list[tuple[str, list[str], list[str]]], list[str]]:
    """(corpus label, document texts, query texts) for each real collection asked for, and a line on each."""
    corpora = []
    if "cranfield" in names:
        corpora.append(("Cranfield", *real_text.cranfield()))
    if "course" in names:
        corpora.append(("course", *real_text.course()))
    if "package-docs" in names:
        passages, short, long, files = real_text.package_docs(held_out=n_queries)
        corpora += [("package docs, short queries", passages, short), ("package docs, long queries", passages, long)]
    lines = [f"- {label}: {len(docs):,} documents, {len(queries):,} queries as texts" for label, docs, queries in corpora]
    if "package-docs" in names:
        lines.append(f"- package docs: the passages come from {files:,} files of this Python's site-packages and "
                     f"standard library; {len(short):,} docstrings held out (seed 0) for the queries")
    return corpora, lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[1_000, 10_000, 100_000],
                        help="generated corpora (none: real text only)")
    parser.add_argument("--corpora", nargs="*", default=list(CORPORA), choices=CORPORA, help="real text")
    parser.add_argument("--queries", type=int, default=1_000, help="queries for ragkit and bm25s (generated)")
    parser.add_argument("--real-queries", type=int, default=1_000, help="short and long queries (package docs)")
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
    from ragkit.text.analyzer import Analyzer

    corpora, corpus_lines = real_corpora(args.corpora, args.real_queries)
    for corpus, doc_texts, query_texts in corpora:
        print(f"{corpus}: {len(doc_texts):,} documents", flush=True)
        if not corpus.endswith("long queries"):  # the long queries' documents are the short ones'
            analysis += analyzer_rows(corpus.split(",")[0], doc_texts, args.repeats)
        analyzer = Analyzer("snowball", "en", "split")
        docs, queries = analyzer.tokens_of_all(doc_texts), [q for q in analyzer.tokens_of_all(query_texts) if q]
        rows += run_corpus(corpus, docs, queries, args.repeats)
        loads.append(os.getloadavg()[0])
    for n_docs in args.sizes:
        print(f"generated, {n_docs:,} documents", flush=True)
        docs, queries = generated_corpus(n_docs, args.queries, seed=n_docs)
        n_rank = args.rank_bm25_queries if n_docs <= 10_000 else max(10, args.rank_bm25_queries // 5)
        rows += run_corpus("generated", docs, queries, args.repeats, n_rank if n_docs <= args.rank_bm25_max else 0)
        analysis += analyzer_rows("generated", generated_texts(n_docs), args.repeats, compare=n_docs <= 10_000)
        loads.append(os.getloadavg()[0])
    total = time.perf_counter() - started
    machine = (f"{platform.system()} {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; "
               f"load average (1 min) at the start and after each corpus: {', '.join(f'{x:.1f}' for x in loads)}; "
               f"times: {'CPU time of the process' if args.clock == 'cpu' else 'wall time'}, best of {args.repeats}; "
               + ", ".join(f"{p} {version(p)}" for p in ["numpy", "scipy", "bm25s", "rank-bm25", "PyStemmer"]
                           + (["numba"] if has_numba() else [])))
    analysis_table = ["| corpus | texts without Chinese | analyzer (Snowball, Lucene stop words, split) | seconds | same "
                      "tokens as bm25s |", "|---|---:|---|---:|---|"] + [
        f"| {r['corpus']} | {r['docs']:,} | {r['library']} | {r['seconds']:.2f} | {r['same']} |" for r in analysis]
    report = "\n".join([markdown(rows), "", *verdict(rows, analysis), "", "Analyzing the same texts first (the index "
                        "build above starts from tokens; texts with Chinese characters left out, since ragkit cuts "
                        "them into words with jieba and bm25s's pattern cannot):", "", *analysis_table, "",
                        f"Machine: {machine}. Whole run: {total:.0f} s.", "", NOTES])
    if corpus_lines:
        report += ("\n\nHow the real text was built (`benchmarks/real_text.py`):\n\n" + real_text.__doc__.strip()
                   + "\n\n" + "\n".join(corpus_lines))
    print("\n" + report)
    if not args.no_save:
        RESULTS.mkdir(exist_ok=True)
        plot(rows, RESULTS / "bm25_scaling.png")
        (RESULTS / "bm25.md").write_text(
            f"# BM25 speed: ragkit vs bm25s vs rank_bm25\n\nCommand (from the repository root): `{command.strip()}`"
            f"\n\n{__doc__[__doc__.index('Real text'):].split('Results:')[0].strip()}\n\n{report}\n\n"
            "![queries per second against corpus size](bm25_scaling.png)\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
