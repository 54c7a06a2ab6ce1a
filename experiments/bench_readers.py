"""Benchmark: gatbio's STRING ``protein.links`` reader vs a bare ``pandas.read_csv`` of the same file.

Writes a synthetic 5,000,000-line STRING ``protein.links`` file into a temporary folder (real STRING-like ids
``9606.ENSP000003xxxxx``, space separated, header ``protein1 protein2 combined_score``, every interaction
listed in both directions as in STRING downloads), then times, side by side, ``repeats`` times each:

- ``pandas.read_csv(path, sep=" ")`` (the bare parse, nothing else), and
- ``gatbio.data.io.read_string_links(path)`` (parse + node index + undirected, merged ``edge_index``).

Prints the medians and their ratio (target: at most 2x).

Usage::

    python experiments/bench_readers.py [--lines 5000000] [--proteins 19000] [--repeats 3] [--seed 0]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from gatbio._options import check_at_least
from gatbio.data.io import read_string_links


def write_links(path: Path, lines: int, proteins: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    ids = np.array([f"9606.ENSP{300000 + 7 * i:011d}" for i in range(proteins)])
    half = lines // 2
    a, b = rng.integers(0, proteins, half), rng.integers(0, proteins, half)
    b = np.where(a == b, (b + 1) % proteins, b)
    score = rng.integers(150, 1000, half)
    # both directions, adjacent, as in STRING's files
    p1 = np.empty(2 * half, dtype=object)
    p2 = np.empty(2 * half, dtype=object)
    p1[0::2], p1[1::2] = ids[a], ids[b]
    p2[0::2], p2[1::2] = ids[b], ids[a]
    s = np.repeat(score, 2)
    body = "\n".join(f"{x} {y} {z}" for x, y, z in zip(p1.tolist(), p2.tolist(), s.tolist(), strict=True))
    path.write_text("protein1 protein2 combined_score\n" + body + "\n")


def timed(fn, repeats: int) -> tuple[float, object]:
    times, out = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lines", type=int, default=5_000_000,
                    help="lines of the synthetic links file (both directions of each pair), >= 2 (default: 5000000)")
    ap.add_argument("--proteins", type=int, default=19_000, help="distinct protein ids, >= 2 (default: 19000)")
    ap.add_argument("--repeats", type=int, default=3, help="timed runs of each reader, the median is kept (default: 3)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the synthetic file (default: 0)")
    args = ap.parse_args(argv)
    check_at_least(ap, args, {"lines": 2, "proteins": 2, "repeats": 1})  # before the file is written
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "9606.protein.links.synthetic.txt"
        t0 = time.perf_counter()
        write_links(path, args.lines, args.proteins, args.seed)
        print(f"wrote {args.lines:,} lines ({path.stat().st_size / 1e6:.0f} MB) in {time.perf_counter() - t0:.1f} s")
        # alternate the two so that machine load affects both alike
        bare_t, ours_t = [], []
        for _ in range(args.repeats):
            t, df = timed(lambda: pd.read_csv(path, sep=" "), 1)
            bare_t.append(t)
            t, data = timed(lambda: read_string_links(path), 1)
            ours_t.append(t)
        bare, ours = statistics.median(bare_t), statistics.median(ours_t)
        print(f"bare pandas.read_csv     : {bare:6.2f} s  (median of {args.repeats}; rows {len(df):,})")
        print(f"gatbio read_string_links : {ours:6.2f} s  (median of {args.repeats}; {data.num_nodes:,} nodes, "
              f"{data.num_edges:,} directed edge entries)")
        print(f"ratio                    : {ours / bare:.2f}x  (target <= 2x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
