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


def block_product(json_path: str | None = None, n: int = 3890, h: int = 256, cols: int = 138, repeats: int = 5) -> int:
    """One row-block product of ``_netmf_large`` (float32: ``log(max(L @ R, 1)) @ Q``) in NumPy and in torch, the
    faster of ``repeats`` runs of each, interleaved; prints both and their ratio (torch / NumPy)."""
    rng = np.random.default_rng(0)
    left = rng.uniform(0, 0.05, (n, h)).astype(np.float32)
    right = rng.uniform(0, 1.0, (h, n)).astype(np.float32)
    q = rng.standard_normal((n, cols)).astype(np.float32)
    lt, rt, qt = (torch.from_numpy(v) for v in (left, right, q))

    def numpy_way():
        return np.log(np.maximum(left @ right, 1.0)) @ q

    def torch_way():
        return (lt @ rt).clamp_min_(1.0).log_() @ qt

    np.testing.assert_allclose(numpy_way(), torch_way().numpy(), rtol=1e-3, atol=1e-3)
    times = {"numpy": [], "torch": []}
    for _ in range(repeats):
        for name, fn in (("numpy", numpy_way), ("torch", torch_way)):
            t0 = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - t0)
    best = {k: min(v) for k, v in times.items()}
    row = {"n": n, "rank": h, "columns": cols, "threads": torch.get_num_threads(),
           "numpy_s": round(best["numpy"], 6), "torch_s": round(best["torch"], 6),
           "torch_over_numpy": round(best["torch"] / best["numpy"], 3)}
    print(f"row-block product {n} x {h} x {n}, log, x {cols} columns (float32, best of {repeats}): "
          f"numpy {best['numpy']:.3f} s, torch {best['torch']:.3f} s, torch / numpy {row['torch_over_numpy']}")
    if json_path:
        from gatbio.results import write_json

        write_json(json_path, {"argv": sys.argv[1:], "block_product": row})
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--only", nargs="*", help="a subset of the methods")
    ap.add_argument("--fractions", type=float, nargs="+", default=[0.1, 0.5, 0.9])
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    ap.add_argument("--json", help="write the rows here")
    ap.add_argument("--block", action="store_true",
                    help="instead: one row-block product of the large NetMF (3,890 x 256 x 3,890, log, times 138 "
                         "columns) in NumPy and in torch on the CPU, side by side (why those products run in torch)")
    a = ap.parse_args(argv)
    from gatbio._paths import check_outputs
    from gatbio.device import resolve_device

    if a.block:  # --json checked before the timing too: a folder or an unwritable place was a traceback after it
        ignored = [f"--{k}" for k in ("device", "only", "fractions", "seeds") if getattr(a, k) != ap.get_default(k)]
        try:
            if ignored:
                raise ValueError(f"{', '.join(ignored)}: not used by --block, which times one product on the CPU "
                                 "(leave them out, or run without --block)")
            check_outputs({"--json": a.json})
        except (ValueError, OSError) as err:
            ap.error(str(err))
        return block_product(a.json)
    try:  # every argument checked before any work: one line each, not a traceback after the run
        device = resolve_device(a.device)
        check_outputs({"--json": a.json})
        unknown = sorted(set(a.only or ()) - set(methods(torch.device("cpu"))))
        if unknown:
            raise ValueError(f"--only {unknown}: no such method; choose among {', '.join(methods(torch.device('cpu')))}")
        if not a.seeds or not a.fractions or any(not 0 < f < 1 for f in a.fractions):
            raise ValueError("--seeds and --fractions need one value or more, fractions in (0, 1)")
    except (ValueError, OSError) as err:
        ap.error(str(err))
    data = pr.load_data("node2vec-ppi")
    y = data.y.numpy()
    rows = []
    for name, fn in methods(device).items():
        if a.only and name not in a.only:
            continue
        t0, c0 = time.perf_counter(), time.process_time()
        x = fn(data.edge_index, data.num_nodes).numpy()
        row = {"method": name, "device": str(device), "seconds": round(time.perf_counter() - t0, 2),
               "cpu_seconds": round(time.process_time() - c0, 2)}
        for f in a.fractions:
            row[f"micro_f1@{f}"], row[f"macro_f1@{f}"] = (round(v, 4) for v in score(x, y, f, a.seeds))
        rows.append(row)
        print(row, flush=True)
    if len(rows) > 1:  # side by side, measured in this run: each method's time against the first's
        base = rows[0]
        for row in rows:
            row["seconds_vs_" + base["method"]] = round(row["seconds"] / base["seconds"], 3) if base["seconds"] else None
            print(f"{row['method']:<20} {row['seconds']:8.2f} s   ratio to {base['method']}: "
                  f"{row['seconds_vs_' + base['method']]}", flush=True)
    if a.json:
        from gatbio.results import write_json

        write_json(a.json, {"argv": sys.argv[1:], "rows": rows})
    return 0


if __name__ == "__main__":
    sys.exit(main())
