"""Would a threshold chosen on validation beat the published 0.5? The learnt models' probabilities of an SHS27k
results folder (``<model>.proba.npz`` beside each result: validation and test pairs), thresholded three ways:

- ``fixed``: 0.5 for every mode, as published and as the tables report;
- ``global``: one threshold for all modes, the best validation micro-F1 on a grid 0.20-0.80
  (:func:`gatbio.data.pair_features.choose_threshold`, as ``profile_rule`` chooses its own);
- ``per_mode``: one threshold per mode, each the best validation micro-F1 with the others held (two sweeps over the
  modes, from 0.5).

For each split type and model it prints the test micro-F1 of each way, mean over the seeds, and the paired
difference to ``fixed`` with the number of seeds ahead. Every choice reads only the validation pairs.

Usage::

    python experiments/shs27k_thresholds.py results/shs27k_full
    python experiments/shs27k_thresholds.py results/shs27k_full --models gat_region gat_ppi gat_mean --graph train
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd

GRID = np.round(np.linspace(0.2, 0.8, 25), 3)


def per_mode_thresholds(y: np.ndarray, p: np.ndarray, grid=GRID, sweeps: int = 2) -> np.ndarray:
    """``(M,)`` thresholds, each mode's the best micro-F1 of ``(y, p > t)`` with the others held, ``sweeps`` times."""
    from sklearn.metrics import f1_score

    t = np.full(y.shape[1], 0.5)
    for _ in range(sweeps):
        for m in range(y.shape[1]):
            scores = []
            for v in grid:
                t[m] = v
                scores.append(f1_score(y, p > t, average="micro", zero_division=0))
            t[m] = grid[int(np.argmax(scores))]
    return t


def compare(results: Path, models, graph: str = "train") -> pd.DataFrame:
    """One row per (split type, model, seed): test micro-F1 at 0.5, at the global and at the per-mode threshold."""
    import gatbio.data as gd
    from gatbio.data.pair_features import choose_threshold
    from gatbio.tasks.protein_interactions import evaluate_pairs

    y = gd.load("shs27k", features=()).pair_modes.numpy()
    rows = []
    for model in models:
        files = sorted((results / "runs").glob(f"*/s*/{graph}/{model}.proba.npz"))
        if not files:
            raise SystemExit(f"{results}/runs/*/s*/{graph}: no {model}.proba.npz (a learnt model of that run?)")
        for f in files:
            z = np.load(f)
            yv, pv, yt, pt = y[z["val_pairs"]], z["val_proba"], y[z["test_pairs"]], z["test_proba"]
            t_glob, _ = choose_threshold(yv, pv, GRID)
            t_mode = per_mode_thresholds(yv, pv)
            rows.append({"split": f.parts[-4], "seed": int(f.parts[-3][1:]), "model": model,
                         "fixed": evaluate_pairs(yt, pt, 0.5)["micro_f1"],
                         "global": evaluate_pairs(yt, pt, t_glob)["micro_f1"],
                         "per_mode": evaluate_pairs(yt, (pt > t_mode).astype(float), 0.5)["micro_f1"]})
    return pd.DataFrame(rows)


def summary(df: pd.DataFrame) -> pd.DataFrame:
    out = []
    for (split, model), g in df.groupby(["split", "model"], sort=False):
        row = {"split": split, "model": model, "seeds": len(g), "fixed": f"{g['fixed'].mean():.3f}"}
        for way in ("global", "per_mode"):
            d = g[way] - g["fixed"]
            row[way] = f"{g[way].mean():.3f}"
            row[f"{way} - fixed"] = f"{d.mean():+.3f} ± {d.std(ddof=0):.3f} ({int((d > 0).sum())}/{len(d)})"
        out.append(row)
    return pd.DataFrame(out)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("results", nargs="?", default="results/shs27k_full", type=Path)
    ap.add_argument("--models", nargs="+", default=["gat_region", "gat_ppi", "gat_mean"])
    ap.add_argument("--graph", default="train", choices=["train", "all"])
    args = ap.parse_args(argv)
    print(summary(compare(args.results, args.models, args.graph)).to_string(index=False))


if __name__ == "__main__":
    main()
