"""The pipeline's cost as the collection grows: index build time, build memory and query latency of exact numpy
search (float32 and float16), Chroma's HNSW (embedded, and through a Chroma server) and BM25 (ragkit's, and
bm25s's on the same tokens), for 10,000, 100,000 and 1,000,000 chunks; recall@10 of HNSW against exact search; the growth exponent of each cost; and
the size where exact search stops answering within 50 ms at the 95th percentile on 2 cores.

Run from the repository root:

    .venv/bin/python benchmarks/scale.py                         # 10k, 100k and 1M chunks (`make bench`)
    .venv/bin/python benchmarks/scale.py --sizes 10000 100000    # without the million (a quarter of an hour)
    .venv/bin/python benchmarks/scale.py --methods bm25 bm25s    # BM25 only: its rows replace the recorded ones

The course has 382 chunks; this measures where its choices stop being free. Dense data: 384-dimensional unit
vectors in clusters around 500 topic centres (cosine to their centre about 0.85), queries drawn around the
same centres, as in `benchmarks/hnsw.py`, made in blocks so that a million fit in memory. Text for BM25: the
generated corpora of `benchmarks/bm25.py` (Zipf word frequencies, log-normal lengths around 120 words; a
query is 2 to 8 words of one document), one document per chunk. Each (method, size) runs in a fresh process:
its data are made first, then the high-water mark of resident memory is reset (Linux), so "build memory" is
what building the index added at its peak (for the server, in the server's process). Exact search is a numpy
product of the query with every row (`ragkit.index.exact`; numpy has no float16 matrix product, so the
float16 rows trade a half-size matrix for a slower product), on 2 BLAS threads; the "index" is the matrix. Chroma
keeps its defaults (M 16, `ef_construction` 100, `ef_search` 100, cosine), vectors added 5,000 at a time.
BM25 is `ragkit.index.bm25.BM25Index` (k1 1.5, b 0.75), built from tokens, queried one query at a time with
its default path (compiled when numba is installed) and with its numpy path; bm25s (lucene, k1 1.5, b 0.75,
numba backend, one thread) gets the same token lists. Latencies are wall time of one
query at a time (200 queries after 5 warm-up queries), so other jobs on a shared machine show up in p95.
Growth exponents are least-squares slopes of log cost against log size. Results: a markdown table on stdout,
and with saving on, `benchmarks/results/scale.md`, the log-log plot `benchmarks/results/scale.png` and the raw
rows in `benchmarks/results/scale.json` (`--render` writes the first two again from it).
Left out: filtered search, metadata, embedding the chunks (`benchmarks/encoder.py`), and concurrent queries.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from importlib.metadata import version
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RESULTS = HERE / "results"
sys.path[:0] = [str(ROOT), str(HERE)]

DIMENSIONS, TOPICS, SPREAD, K, GOAL_MS = 384, 500, 0.6, 10, 50.0
METHODS = ("exact float32", "exact float16", "chroma embedded", "chroma server", "bm25", "bm25s")


def embedding_like(n: int, queries: int, seed: int, block: int = 50_000) -> tuple[np.ndarray, np.ndarray]:
    """`n` unit vectors (float32) and `queries` query vectors around the same `TOPICS` random centres, as
    `benchmarks/hnsw.py` makes them, block by block."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(TOPICS, DIMENSIONS))
    centres /= np.linalg.norm(centres, axis=1, keepdims=True)
    out = np.empty((n + queries, DIMENSIONS), dtype=np.float32)
    for start in range(0, n + queries, block):
        count = min(block, n + queries - start)
        noise = rng.normal(size=(count, DIMENSIONS)) * SPREAD / np.sqrt(DIMENSIONS)
        rows = centres[rng.integers(0, TOPICS, size=count)] + noise
        out[start:start + count] = rows / np.linalg.norm(rows, axis=1, keepdims=True)
    return out[:n], out[n:].copy()


def exact_top(vectors: np.ndarray, queries: np.ndarray, block: int = 100_000) -> np.ndarray:
    """Exact top K of every query (cosine; ties by lower index), a block of rows at a time."""
    from ragkit.index.exact import top_k

    best_scores, best = np.full((len(queries), 0), -np.inf, dtype=np.float32), np.zeros((len(queries), 0), int)
    for start in range(0, len(vectors), block):
        scores = queries @ vectors[start:start + block].T
        merged_scores = np.hstack([best_scores, scores])
        merged = np.hstack([best, np.arange(start, start + scores.shape[1])[None, :].repeat(len(queries), 0)])
        keep = top_k(merged_scores, min(K, merged_scores.shape[1]))
        best_scores, best = np.take_along_axis(merged_scores, keep, 1), np.take_along_axis(merged, keep, 1)
    return best


def memory_kb(field: str, pid: int | str = "self") -> int:
    """VmRSS (now) or VmHWM (peak) of a process, in kB, from /proc (0 where there is none)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def reset_peak(pid: int | str = "self") -> int:
    """Reset the process's resident-memory high-water mark (Linux); returns its resident memory now, in kB."""
    try:
        Path(f"/proc/{pid}/clear_refs").write_text("5")
    except OSError:
        pass
    return memory_kb("VmRSS", pid)


def latencies(search, queries) -> dict:
    """p50 and p95 in milliseconds of `search(query)` over the queries, after 5 warm-up queries."""
    for query in queries[:5]:
        search(query)
    times = []
    for query in queries:
        started = time.perf_counter()
        search(query)
        times.append(1000 * (time.perf_counter() - started))
    return {"p50_ms": float(np.percentile(times, 50)), "p95_ms": float(np.percentile(times, 95))}


def measure_exact(n: int, queries: int, dtype: str) -> dict:
    from ragkit.index.exact import top_k

    vectors, query_vectors = embedding_like(n, queries, seed=n)
    before = reset_peak()
    started = time.perf_counter()
    matrix = vectors.astype(dtype)  # the index is the matrix itself (a copy, as a store would hold it)
    build = time.perf_counter() - started
    memory = memory_kb("VmHWM") - before
    del vectors
    return {"build_s": build, "memory_mb": memory / 1024,
            **latencies(lambda q: top_k(matrix @ q.astype(dtype), K), query_vectors)}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_server(folder: str) -> tuple[subprocess.Popen, str]:
    """A Chroma server on loopback (the `chroma` command beside this Python), and its address."""
    from ragkit.errors import RagkitError
    from ragkit.index.chroma import chroma_client

    port = free_port()
    server = subprocess.Popen([str(Path(sys.executable).parent / "chroma"), "run", "--path", folder, "--host",
                               "127.0.0.1", "--port", str(port)], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, env={**os.environ, "ANONYMIZED_TELEMETRY": "False"})
    deadline = time.monotonic() + 60
    while True:
        try:
            chroma_client(url=f"http://127.0.0.1:{port}")
            return server, f"http://127.0.0.1:{port}"
        except RagkitError:
            if server.poll() is not None or time.monotonic() > deadline:
                server.kill()
                raise RuntimeError("the chroma server did not start") from None
            time.sleep(0.25)


def measure_chroma(n: int, queries: int, server: bool) -> dict:
    from ragkit.index.chroma import chroma_client

    vectors, query_vectors = embedding_like(n, queries, seed=n)
    exact = exact_top(vectors, query_vectors)
    folder = tempfile.mkdtemp(prefix="ragkit-scale-")
    process = None
    try:
        if server:
            process, url = start_server(folder)
            client, pid = chroma_client(url=url), process.pid
        else:
            client, pid = chroma_client(path=folder), "self"
        before = reset_peak(pid)
        started = time.perf_counter()
        collection = client.create_collection("scale", embedding_function=None, configuration={"hnsw": {
            "space": "cosine", "max_neighbors": 16, "ef_construction": 100, "ef_search": 100}})
        for start in range(0, n, 5000):  # Chroma takes at most 5,461 vectors per call
            collection.add(ids=[str(i) for i in range(start, min(start + 5000, n))],
                           embeddings=vectors[start:start + 5000])
        build = time.perf_counter() - started
        memory = memory_kb("VmHWM", pid) - before
        found = []

        def search(query):
            found.append([int(i) for i in collection.query(query_embeddings=[query], n_results=K)["ids"][0]])

        timing = latencies(search, query_vectors)
        found = found[-len(query_vectors):]
        recall = np.mean([len(set(f) & set(e.tolist())) / K for f, e in zip(found, exact, strict=True)])
        disk = sum(path.stat().st_size for path in Path(folder).rglob("*") if path.is_file())
        return {"build_s": build, "memory_mb": memory / 1024, **timing, "recall": float(recall),
                "disk_mb": disk / 2**20}
    finally:
        if process is not None:
            process.terminate()
            process.wait(timeout=60)
        shutil.rmtree(folder, ignore_errors=True)


def measure_bm25(n: int, queries: int) -> dict:
    from bm25 import generated_corpus, numpy_path

    from ragkit.index.bm25 import BM25Index
    from ragkit.index.bm25_topk import compiled_kernel

    docs, query_tokens = generated_corpus(n, queries, seed=n)
    before = reset_peak()
    started = time.perf_counter()
    index = BM25Index(docs, 1.5, 0.75, "lucene")
    build = time.perf_counter() - started
    memory = memory_kb("VmHWM") - before
    del docs
    row = {"build_s": build, "memory_mb": memory / 1024,
           **latencies(lambda q: index.rankings([q], K), query_tokens)}
    if compiled_kernel() is not None:  # the default path above was compiled: time the numpy path too
        with numpy_path():
            row["numpy"] = latencies(lambda q: index.rankings([q], K), query_tokens)
    return row


def measure_bm25s(n: int, queries: int) -> dict:
    """bm25s (lucene, numba backend) on the same token lists as `measure_bm25`, one query at a time, one thread."""
    import bm25s
    from bm25 import generated_corpus

    docs, query_tokens = generated_corpus(n, queries, seed=n)
    before = reset_peak()
    started = time.perf_counter()
    retriever = bm25s.BM25(method="lucene", k1=1.5, b=0.75, backend="numba")
    retriever.index(docs, show_progress=False)
    build = time.perf_counter() - started
    memory = memory_kb("VmHWM") - before
    del docs
    return {"build_s": build, "memory_mb": memory / 1024, **latencies(
        lambda q: retriever.retrieve([q], k=K, show_progress=False, n_threads=1), query_tokens)}


def measure(method: str, n: int, queries: int) -> dict:
    if method.startswith("exact"):
        return measure_exact(n, queries, method.split()[1])
    if method.startswith("chroma"):
        return measure_chroma(n, queries, server=method.endswith("server"))
    return measure_bm25s(n, queries) if method == "bm25s" else measure_bm25(n, queries)


def run_one(method: str, n: int, queries: int, timeout: float) -> dict:
    """`measure` in a fresh process (its own memory high-water mark); 2 BLAS threads for exact search."""
    threads = "2" if method.startswith("exact") else "1"
    env = {**os.environ, "OMP_NUM_THREADS": threads, "OPENBLAS_NUM_THREADS": threads, "MKL_NUM_THREADS": threads,
           "NUMBA_NUM_THREADS": threads,
           "TQDM_DISABLE": "1", "ANONYMIZED_TELEMETRY": "False",
           "MALLOC_MMAP_THRESHOLD_": "65536"}  # large blocks mapped and unmapped: freed memory leaves the count
    started = time.perf_counter()
    try:
        done = subprocess.run([sys.executable, __file__, "--one", method, str(n), "--queries", str(queries)],
                              capture_output=True, text=True, env=env, timeout=timeout, cwd=ROOT)
        lines = done.stdout.strip().splitlines()
        row = json.loads(lines[-1]) if done.returncode == 0 and lines else {"error": done.stderr.strip()[-300:]}
    except subprocess.TimeoutExpired:
        row = {"error": f"did not finish within {timeout:.0f} s"}
    row.update(method=method, n=n, wall_s=time.perf_counter() - started)
    print(f"  {method:16} {n:>9,}  " + ", ".join(f"{key} {value:.3g}" for key, value in row.items()
                                                 if isinstance(value, float)) + f" {row.get('error', '')}",
          flush=True)
    return row


def exponent(sizes, values) -> float | None:
    """Least-squares slope of log(value) against log(size): the cost grows as size^slope."""
    pairs = [(s, v) for s, v in zip(sizes, values, strict=True) if v is not None and v > 0]
    if len(pairs) < 2:
        return None
    x, y = np.log([p[0] for p in pairs]), np.log([p[1] for p in pairs])
    return float(np.polyfit(x, y, 1)[0])


def crossing(sizes, p95s, goal: float = GOAL_MS) -> str:
    """Where a power law through the measured p95s passes `goal` ms (interpolated between the sizes that
    bracket it, else extrapolated from the fit)."""
    pairs = sorted((s, v) for s, v in zip(sizes, p95s, strict=True) if v)
    if len(pairs) < 2:
        return "not enough sizes"
    if all(v <= goal for _, v in pairs):
        fit = np.polyfit(np.log([s for s, _ in pairs]), np.log([v for _, v in pairs]), 1)
        where = np.exp((np.log(goal) - fit[1]) / fit[0]) if fit[0] > 0 else float("inf")
        return f"meets {goal:.0f} ms at every size measured; the fit crosses it near {where:,.0f} chunks"
    for (s0, v0), (s1, v1) in zip(pairs, pairs[1:], strict=False):
        if v0 <= goal < v1:
            slope = np.log(v1 / v0) / np.log(s1 / s0)
            return f"stops meeting {goal:.0f} ms near {s0 * (goal / v0) ** (1 / slope):,.0f} chunks (between the sizes)"
    return f"misses {goal:.0f} ms already at {pairs[0][0]:,} chunks"


def tables(rows: list[dict]) -> list[str]:
    lines = ["| chunks | method | build (s) | build memory (MB) | query p50 (ms) | query p95 (ms) | recall@10 vs exact |"
             " notes |", "|---:|---|---:|---:|---:|---:|---:|---|"]
    for r in rows:
        if "error" in r:
            lines.append(f"| {r['n']:,} | {r['method']} | | | | | | failed: {r['error']} |")
            continue
        notes = [f"on disk {r['disk_mb']:,.0f} MB" if "disk_mb" in r else "",
                 f"numpy path p50 {r['numpy']['p50_ms']:.2f}, p95 {r['numpy']['p95_ms']:.2f} ms" if "numpy" in r else ""]
        recall = f"{r['recall']:.3f}" if "recall" in r else ""
        lines.append(f"| {r['n']:,} | {r['method']} | {r['build_s']:.2f} | {r['memory_mb']:,.0f} | {r['p50_ms']:.2f} "
                     f"| {r['p95_ms']:.2f} | {recall} | {'; '.join(x for x in notes if x)} |")
    lines += ["", "Growth exponents (cost ∝ chunks^e, fitted over the sizes measured):", "",
              "| method | build time | build memory | query p50 | query p95 |", "|---|---:|---:|---:|---:|"]
    for method in dict.fromkeys(r["method"] for r in rows):
        mine = [r for r in rows if r["method"] == method and "error" not in r]
        sizes = [r["n"] for r in mine]
        cells = [exponent(sizes, [r[key] for r in mine]) for key in ("build_s", "memory_mb", "p50_ms", "p95_ms")]
        lines.append(f"| {method} | " + " | ".join("" if c is None else f"{c:.2f}" for c in cells) + " |")
    lines.append("")
    for method in ("exact float32", "exact float16"):
        mine = [r for r in rows if r["method"] == method and "error" not in r]
        if mine:
            lines.append(f"- {method}: {crossing([r['n'] for r in mine], [r['p95_ms'] for r in mine])} "
                         f"(p95 on 2 BLAS threads).")
    return lines


def plot(rows: list[dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(13, 3.9))
    for method in dict.fromkeys(r["method"] for r in rows):
        mine = [r for r in rows if r["method"] == method and "error" not in r]
        sizes = [r["n"] for r in mine]
        for axis, key in zip(axes, ("p95_ms", "build_s", "memory_mb"), strict=True):
            axis.plot(sizes, [max(r[key], 1e-3) for r in mine], "o-", label=method)
        if mine and "numpy" in mine[0]:
            axes[0].plot(sizes, [r["numpy"]["p95_ms"] for r in mine], "o--", label="bm25 (numpy path)")
    axes[0].axhline(GOAL_MS, color="grey", linestyle=":", label=f"{GOAL_MS:.0f} ms")
    titles = ("Query latency, p95 (ms)", "Index build time (s)", "Build memory (MB)")
    for axis, title in zip(axes, titles, strict=True):
        axis.set(xscale="log", yscale="log", xlabel="chunks", title=title)
        axis.grid(True, which="both", alpha=0.3)
    axes[0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


NOTES = """Notes:

- Latencies are wall time, one query at a time, on a machine that other jobs share: p50 is the steadier
  figure, p95 also counts the moments another job held a core (the load averages are in the machine line),
  so compare p95s between rows of one run rather than with another machine.
- Exact search reads every row for every query, so its time grows with the rows; past a few hundred
  thousand rows the matrix no longer fits in the processor's caches and each query pays for memory
  bandwidth. float16 halves the matrix, but numpy has no float16 matrix product (BLAS has none), so the
  product runs in numpy's own loops, many times slower (converting blocks of rows to float32 before a BLAS
  product was no faster here): float16 saves memory, not time, unless a library with half-precision kernels
  does the product.
- Chroma's HNSW answers in about the same time at every size (a walk over a graph, not a scan), and pays at
  build time: every vector added is a graph search, with the defaults' 100 candidates. At the defaults its
  recall@10 against exact search falls as the collection grows (the same `ef_search` covers a smaller share
  of a larger graph); `benchmarks/hnsw.py` shows how M and `ef_search` move it. The server adds an HTTP round
  trip per query; its memory is the server process's.
- BM25's query time grows slowly because the compiled path skips most postings (`ragkit.index.bm25_topk`);
  the numpy path reads them all. Its build counts the tokens a block of about a million at a time
  (`ragkit.index.bm25_build`): what it keeps between blocks is one int32 word id and one int32 count per
  distinct (word, document) pair, laid out word by word at the end by one counting sort, then the float64
  weights computed a few million at a time. Before, one object array of all tokens, pandas' int64 codes of it,
  a float64 sparse matrix and its transpose took 9.6 GB at a million documents. bm25s turns every token into
  an id in Python loops, which costs it more memory and time on the same tokens.
- `make bench` runs this with the million; the million alone takes about half an hour on 2 cores (Chroma's
  two builds are most of it), the two smaller sizes a few minutes."""


def summary(rows: list[dict]) -> list[str]:
    """A few readings of the table, computed from it."""
    ok = {(r["method"], r["n"]): r for r in rows if "error" not in r}
    sizes = sorted({n for _, n in ok})
    if not sizes:
        return []
    largest, lines = sizes[-1], ["What it says:", ""]
    recalls = [f"{n:,}: " + " / ".join(f"{ok[(m, n)]['recall']:.3f}" for m in ("chroma embedded", "chroma server")
                                       if (m, n) in ok) for n in sizes if ("chroma embedded", n) in ok]
    if recalls:
        lines.append(f"- Chroma's recall@10 against exact search at its defaults (embedded / server): "
                     f"{'; '.join(recalls)}.")
    if ("exact float32", largest) in ok and ("chroma embedded", largest) in ok:
        exact, hnsw = ok[("exact float32", largest)], ok[("chroma embedded", largest)]
        lines.append(f"- At {largest:,} chunks a query takes {exact['p50_ms']:.1f} ms by exact float32 search and "
                     f"{hnsw['p50_ms']:.1f} ms in Chroma (p50), which took {hnsw['build_s'] / 60:.1f} min to build "
                     f"against {exact['build_s']:.1f} s to copy the matrix.")
    per_million = [f"{m} {ok[(m, largest)]['memory_mb'] * 1e6 / largest / 1024:.1f} GB"
                   for m in METHODS if (m, largest) in ok]
    lines.append(f"- Build memory per million chunks, at {largest:,}: {', '.join(per_million)}.")
    if ("bm25", largest) in ok and "numpy" in ok[("bm25", largest)]:
        bm25 = ok[("bm25", largest)]
        lines.append(f"- BM25 at {largest:,} chunks: p50 {bm25['p50_ms']:.2f} ms compiled, "
                     f"{bm25['numpy']['p50_ms']:.2f} ms on the numpy path.")
    for n in sizes:
        if ("bm25", n) in ok and ("bm25s", n) in ok:
            ours, theirs = ok[("bm25", n)], ok[("bm25s", n)]
            lines.append(f"- BM25 build memory at {n:,} chunks, same tokens: ragkit {ours['memory_mb']:,.0f} MB, bm25s "
                         f"{theirs['memory_mb']:,.0f} MB ({ours['memory_mb'] / theirs['memory_mb']:.2f}×; "
                         f"{'met' if ours['memory_mb'] <= theirs['memory_mb'] else 'NOT met'}); build "
                         f"{ours['build_s']:.1f} s against {theirs['build_s']:.1f} s; p50 {ours['p50_ms']:.2f} ms against "
                         f"{theirs['p50_ms']:.2f} ms a query.")
    return lines


def report(data: dict) -> str:
    rows = data["rows"]
    updates = [f"Rows measured again later ({', '.join(update['methods'])}; command `{update['command'].strip()}`): "
               f"{update['machine']}; time per size: {'; '.join(update['per_size'])}." for update in data.get("updates", [])]
    return "\n".join([*tables(rows), "", *summary(rows), "", f"Machine: {data['machine']}. Time per size: "
                      f"{'; '.join(data['per_size'])}; whole run {data['total_min']:.0f} min.", *updates, "", NOTES])


def merged(measured: dict, methods: list[str]) -> dict:
    """The recorded results with the rows of `methods` measured now in place of the recorded ones (a run of some
    methods only updates those; the other methods' rows, machine and times stay as recorded)."""
    path = RESULTS / "scale.json"
    if set(methods) >= set(METHODS) or not path.exists():
        return measured
    data = json.loads(path.read_text(encoding="utf-8"))
    fresh = {(row["method"], row["n"]) for row in measured["rows"]}
    rows = [row for row in data["rows"] if (row["method"], row["n"]) not in fresh] + measured["rows"]
    data["rows"] = sorted(rows, key=lambda row: (row["n"], METHODS.index(row["method"])))
    data["updates"] = [update for update in data.get("updates", []) if not set(update["methods"]) <= set(methods)]
    data["updates"].append({key: measured[key] for key in ("command", "machine", "per_size")} | {"methods": methods})
    return data


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--methods", nargs="+", default=list(METHODS), choices=METHODS)
    parser.add_argument("--queries", type=int, default=200, help="queries timed per method and size")
    parser.add_argument("--timeout", type=float, default=4 * 3600, help="seconds allowed per method and size")
    parser.add_argument("--no-save", action="store_true", help="print only; do not write benchmarks/results")
    parser.add_argument("--render", action="store_true",
                        help="measure nothing: write scale.md and scale.png again from results/scale.json")
    parser.add_argument("--one", nargs=2, metavar=("METHOD", "SIZE"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        print(json.dumps(measure(args.one[0], int(args.one[1]), args.queries)))
        return 0
    if args.render:
        data = json.loads((RESULTS / "scale.json").read_text(encoding="utf-8"))
    else:
        methods = [m for m in args.methods if m != "chroma server" or (Path(sys.executable).parent / "chroma").exists()]
        started, loads, rows, per_size = time.perf_counter(), [os.getloadavg()[0]], [], []
        for n in sorted(args.sizes):
            print(f"{n:,} chunks", flush=True)
            size_started = time.perf_counter()
            rows += [run_one(method, n, args.queries, args.timeout) for method in methods]
            per_size.append(f"{n:,}: {(time.perf_counter() - size_started) / 60:.1f} min")
            loads.append(os.getloadavg()[0])
        machine = (f"{platform.system()} {platform.machine()}, {os.cpu_count()} cores, "
                   f"{os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES') / 2**30:.0f} GB RAM, Python "
                   f"{platform.python_version()}; load average (1 min) at the start and after each size: "
                   f"{', '.join(f'{x:.1f}' for x in loads)}; numpy {version('numpy')}, chromadb {version('chromadb')}, "
                   f"bm25s {version('bm25s')}" + (f", numba {version('numba')}" if _has("numba") else ""))
        data = {"command": "python benchmarks/scale.py " + " ".join(sys.argv[1:] if argv is None else argv),
                "machine": machine, "per_size": per_size, "total_min": (time.perf_counter() - started) / 60,
                "rows": rows}
        if not args.no_save:
            data = merged(data, methods)
    print("\n" + report(data))
    if not args.no_save:
        RESULTS.mkdir(exist_ok=True)
        if not args.render:
            (RESULTS / "scale.json").write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
        plot(data["rows"], RESULTS / "scale.png")
        (RESULTS / "scale.md").write_text(
            f"# The pipeline's cost from 10,000 to 1,000,000 chunks\n\nCommand (from the repository root): "
            f"`{data['command'].strip()}`\n\n{__doc__[__doc__.index('The course has'):].split('Results:')[0].strip()}"
            f"\n\n{report(data)}\n\n![query latency, build time and memory against the number of chunks](scale.png)\n",
            encoding="utf-8")
    return 0


def _has(module: str) -> bool:
    try:
        __import__(module)
    except ImportError:
        return False
    return True


if __name__ == "__main__":
    sys.exit(main())
