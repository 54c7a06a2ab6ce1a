"""Would a threshold chosen on validation beat the published 0.5? The learnt models' probabilities of an SHS27k
results folder (``<model>.proba.npz`` beside each result: validation and test pairs; scored on the pair table the
folder was made from, its config.yaml's dataset), thresholded four ways:

- ``fixed``: 0.5 for every mode, as published and as the tables report;
- ``global``: one threshold for all modes, the best validation micro-F1 on a grid 0.20-0.80
  (:func:`gatbio.data.pair_features.choose_threshold`, as ``profile_rule`` chooses its own);
- ``per_mode``: one threshold per mode, each the best validation micro-F1 with the others held (two sweeps over the
  modes, from 0.5);
- ``sets``: no threshold; each pair gets the most likely of the mode combinations that the fitting pairs have
  (the pairs neither in validation nor in test), the modes' probabilities read as independent, plus ``lambda``
  times the log of the combination's frequency among the fitting pairs, ``lambda`` in 0, 0.25, 0.5, 1 chosen on
  validation. Modes come in a few fixed combinations (catalysis with reaction and binding, ...): this decoding never
  predicts a combination that no training pair has.

For each split type and model it prints the test micro-F1 of each way, mean over the seeds, and the paired
difference to ``fixed`` with the number of seeds ahead. Every choice reads only the validation pairs.

The no-learning rules (``profile_rule``, ``interolog_rule``: kind ``profile_rule``) are not compared: they choose
their own threshold on validation (``threshold_chosen`` in their results, what the tables report), so 0.5 is not
their published figure.

Usage::

    python experiments/shs27k_thresholds.py results/shs27k_full
    python experiments/shs27k_thresholds.py results/shs27k_full --models gat_region gat_ppi gat_mean --graph train
"""

from __future__ import annotations

import argparse
import sys
import zipfile
import zlib
from pathlib import Path

import numpy as np
import pandas as pd

if str(Path(__file__).resolve().parent) not in sys.path:  # loaded from elsewhere (tests/conftest.py)
    sys.path.append(str(Path(__file__).resolve().parent))
from _shs27k_common import check_indices, check_split, folder_data, read_json, rerun_hint  # noqa: E402

GRID = np.round(np.linspace(0.2, 0.8, 25), 3)
LAMBDAS = (0.0, 0.25, 0.5, 1.0)
MODELS = ("gat_region", "gat_ppi", "gat_mean")  # the learnt recipes (--models' default)


def label_sets(y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows of ``y`` (``(S, M)`` 0/1) and the log of each one's frequency among the rows."""
    sets, counts = np.unique(np.asarray(y, dtype=np.int64), axis=0, return_counts=True)
    return sets, np.log(counts / counts.sum())


def decode_sets(p: np.ndarray, sets: np.ndarray, log_prior: np.ndarray, lam: float = 0.0) -> np.ndarray:
    """``(n, M)`` 0/1: for each row of ``p`` the row of ``sets`` of highest
    ``sum_m [s_m log p_m + (1 - s_m) log(1 - p_m)] + lam * log_prior``."""
    q = np.clip(np.asarray(p, dtype=np.float64), 1e-6, 1 - 1e-6)
    score = np.log(q) @ sets.T + np.log1p(-q) @ (1 - sets).T + lam * log_prior[None, :]
    return sets[score.argmax(axis=1)]


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


def proba_files(results: Path, models, graph: str = "train") -> dict[str, list[Path]]:
    """Each model's ``runs/<split>/s<seed>/<graph>/<model>.proba.npz`` files; a folder that is not a results
    folder, or a model without such files, stops with one line."""
    if not results.exists():
        raise SystemExit(f"{results}: no such folder (give the out_dir of a `gatbio protein interactions` run)")
    if not results.is_dir():
        raise SystemExit(f"{results}: is a file, not a results folder")
    if not (results / "runs").is_dir():
        raise SystemExit(f"{results}: not a results folder of `gatbio protein interactions` (no runs/ in it)")
    found = {m: sorted((results / "runs").glob(f"*/s*/{graph}/{m}.proba.npz")) for m in models}
    for model, files in found.items():
        if not files:
            there = sorted({f.name[:-len(".proba.npz")] for f in (results / "runs").glob(f"*/s*/{graph}/*.proba.npz")})
            raise SystemExit(f"{results}/runs/*/s*/{graph}: no {model}.proba.npz (a learnt model of that run?); "
                             f"models with probabilities there: {', '.join(there) or 'none'}")
        for f in files:  # a rule's tables figure is at the threshold it chose, not at 0.5
            run = f.with_name(f"{model}.json")
            row = read_json(run, results, "run") if run.is_file() else {}
            if "threshold_chosen" in row or (row.get("options") or {}).get("kind") == "profile_rule":
                raise SystemExit(f"--models {model}: a no-learning rule (kind profile_rule) that chooses its own "
                                 f"threshold on validation (threshold_chosen {row.get('threshold_chosen')} in {run}), "
                                 "which is what the tables report, not 0.5: this script compares thresholds for the "
                                 "learnt models' probabilities; leave it out")
    return found


def read_proba(path: Path, results: Path) -> dict[str, np.ndarray]:
    """The four arrays of a ``<model>.proba.npz``; a damaged file (cut short, not an npz, an array missing) stops
    with one line that names it."""
    keys = ("val_pairs", "val_proba", "test_pairs", "test_proba")
    try:
        with np.load(path) as z:
            missing = [k for k in keys if k not in z.files]
            if not missing:
                return {k: z[k] for k in keys}
            why = f"no {', '.join(missing)} in it"
    except (ValueError, EOFError, zipfile.BadZipFile, zlib.error):  # numpy: "pickled (object) data" for a non-archive
        why = "not an npz archive: cut short or damaged?"
    except OSError as err:
        why = err.strerror or str(err)
    hint = rerun_hint(results).replace("delete it", f"delete it and its {path.name[:-len('.proba.npz')]}.json")
    raise SystemExit(f"{path}: not a readable probability file ({why}): {hint}")


def compare(results: Path, models, graph: str = "train") -> pd.DataFrame:
    """One row per (split type, model, seed): test micro-F1 at 0.5, at the global and at the per-mode threshold, and
    decoded to the likeliest mode combination (with the ``lambda`` chosen on validation)."""
    from gatbio.data.pair_features import choose_threshold
    from gatbio.tasks.protein_interactions import evaluate_pairs

    found = proba_files(results, models, graph)  # every name checked before the data load and the sweeps
    folder = folder_data(results)  # the pair table the folder was made from
    y = folder.data.pair_modes.numpy()
    checked = set()
    rows = []
    for model, files in found.items():
        for f in files:
            split = results / "splits" / f"{f.parts[-4]}_{f.parts[-3]}.json"
            if split.is_file() and split not in checked:  # the indices below point into the split's pair table
                check_split(split, read_json(split, results, "split"), folder)
                checked.add(split)
            z = read_proba(f, results)
            check_indices(f, "val_pairs", z["val_pairs"], folder)
            check_indices(f, "test_pairs", z["test_pairs"], folder)
            yv, pv, yt, pt = y[z["val_pairs"]], z["val_proba"], y[z["test_pairs"]], z["test_proba"]
            t_glob, _ = choose_threshold(yv, pv, GRID)
            t_mode = per_mode_thresholds(yv, pv)
            fit = np.ones(len(y), dtype=bool)
            fit[z["val_pairs"]] = fit[z["test_pairs"]] = False
            sets, log_prior = label_sets(y[fit])
            lam = max(LAMBDAS, key=lambda v: evaluate_pairs(yv, decode_sets(pv, sets, log_prior, v), 0.5)["micro_f1"])
            rows.append({"split": f.parts[-4], "seed": int(f.parts[-3][1:]), "model": model,
                         "fixed": evaluate_pairs(yt, pt, 0.5)["micro_f1"],
                         "global": evaluate_pairs(yt, pt, t_glob)["micro_f1"],
                         "per_mode": evaluate_pairs(yt, (pt > t_mode).astype(float), 0.5)["micro_f1"],
                         "sets": evaluate_pairs(yt, decode_sets(pt, sets, log_prior, lam), 0.5)["micro_f1"],
                         "lambda": lam})
    return pd.DataFrame(rows)


def summary(df: pd.DataFrame) -> pd.DataFrame:
    out = []
    for (split, model), g in df.groupby(["split", "model"], sort=False):
        row = {"split": split, "model": model, "seeds": len(g), "fixed": f"{g['fixed'].mean():.3f}"}
        for way in ("global", "per_mode", "sets"):
            d = g[way] - g["fixed"]
            row[way] = f"{g[way].mean():.3f}"
            row[f"{way} - fixed"] = f"{d.mean():+.3f} ± {d.std(ddof=0):.3f} ({int((d > 0).sum())}/{len(d)})"
        out.append(row)
    return pd.DataFrame(out)


def main(argv=None) -> None:
    from gatbio.cli import plain_text

    ap = argparse.ArgumentParser(description=plain_text(__doc__), formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results", nargs="?", default="results/shs27k_full", type=Path,
                    help="an SHS27k results folder of gatbio protein interactions (default: results/shs27k_full)")
    ap.add_argument("--models", nargs="+", default=list(MODELS), metavar="MODEL",
                    help="learnt models whose <model>.proba.npz files to read, not the rules that choose their own "
                         "threshold (default: " + " ".join(MODELS) + ")")
    ap.add_argument("--graph", default="train", choices=["train", "all"],
                    help="the runs' message-passing graph, runs/<split>/s<seed>/<graph>/ (default: train)")
    args = ap.parse_args(argv)
    table = summary(compare(args.results, args.models, args.graph))
    print(table.to_string(index=False))
    print("(X - fixed: the paired difference, mean ± std over the seeds with ddof=0 (population), and the seeds "
          "ahead)")


if __name__ == "__main__":
    main()
