"""Benchmark: NetMF dense vs the large-graph NetMF (and ProNE) on node2vec-PPI, time and quality side by side.

On one graph (node2vec-PPI, 3,890 proteins, 50 labels; self-loops removed as in the protein task) computes

- ``netmf-dense``: the exact N x N NetMF (``method="dense"``, SciPy, what ``netmf`` runs up to 8,000 nodes),
- ``netmf-dense-torch``: the same in torch on ``--device`` (float64),
- ``netmf-large``: the bounded-memory rank-256 NetMF (``method="large"``, what ``netmf`` runs above 8,000 nodes),
  its row-block products in torch on ``--device``,
- ``prone``,

each timed (wall and CPU seconds of this process), and scores each with the published protocol: one-vs-rest
liblinear logistic regression on ``--fractions`` of the labelled proteins, top-k Micro/Macro-F1 on the rest,
mean over ``--seeds``. Prints a table and writes ``--json``.

Usage::

    python experiments/bench_embed.py [--device cpu] [--fractions 0.1 0.5 0.9] [--seeds 0 1 2] [--json FILE]
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np
import torch

from gatbio import embed
from gatbio.tasks import protein as pr


def methods(device: torch.device) -> dict:
    def dense_torch(ei, n):
        return embed._netmf_dense_torch(embed.adjacency(ei, n), 10, 1.0, 128, 0, device).float().cpu()

    return {
        "netmf-dense": lambda ei, n: embed.netmf(ei, n, method="dense"),
        "netmf-dense-torch": dense_torch,
        "netmf-large": lambda ei, n: embed.netmf(ei, n, method="large", device=device),
        "prone": lambda ei, n: embed.prone(ei, n),
    }


def score(x: np.ndarray, y: np.ndarray, fraction: float, seeds: list[int]) -> tuple[float, float]:
    labelled = np.flatnonzero(y.sum(1) > 0)
    micro, macro = [], []
    for seed in seeds:
        perm = np.random.default_rng(seed).permutation(labelled)
        cut = int(fraction * len(perm))
        proba = pr.logistic_regression(x, y, perm[:cut], True)
        m = pr.evaluate(y[perm[cut:]], proba[perm[cut:]], True)
        micro.append(m["micro_f1"])
        macro.append(m["macro_f1"])
    return float(np.mean(micro)), float(np.mean(macro))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--only", nargs="*", help="a subset of the methods")
    ap.add_argument("--fractions", type=float, nargs="+", default=[0.1, 0.5, 0.9])
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    ap.add_argument("--json", help="write the rows here")
    a = ap.parse_args(argv)
    data = pr.load_data("node2vec-ppi")
    y = data.y.numpy()
    rows = []
    for name, fn in methods(torch.device(a.device)).items():
        if a.only and name not in a.only:
            continue
        t0, c0 = time.perf_counter(), time.process_time()
        x = fn(data.edge_index, data.num_nodes).numpy()
        row = {"method": name, "device": a.device, "seconds": round(time.perf_counter() - t0, 2),
               "cpu_seconds": round(time.process_time() - c0, 2)}
        for f in a.fractions:
            row[f"micro_f1@{f}"], row[f"macro_f1@{f}"] = (round(v, 4) for v in score(x, y, f, a.seeds))
        rows.append(row)
        print(row, flush=True)
    if a.json:
        from gatbio.results import write_json

        write_json(a.json, {"argv": sys.argv[1:], "rows": rows})
    return 0


if __name__ == "__main__":
    sys.exit(main())
