"""How far each saved SHS27k split's test pairs are from its training pairs in their interaction modes.

BFS/DFS test sets are whole regions of the network; when a region's mix of modes differs from the training pairs'
(label shift), every model that leans on the training profiles suffers. For every split file of a results folder
this prints the fraction of training and test pairs with each mode, the mean number of modes per pair, and the
total-variation distance between the two normalised mode mixes. With ``--scores MODEL ...`` it also prints, per
model, the Spearman rank correlation between that distance and the model's test micro-F1 over the BFS and DFS
splits (``runs/<split>/s<seed>/train/<model>.json``).

Usage::

    python experiments/shs27k_split_modes.py [RESULTS_DIR]     # default results/shs27k_full
    python experiments/shs27k_split_modes.py results/shs27k_full --scores profile_rule gat_region seq_mlp
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import numpy as np
import pandas as pd

if str(Path(__file__).resolve().parent) not in sys.path:  # loaded from elsewhere (tests/conftest.py)
    sys.path.append(str(Path(__file__).resolve().parent))
from _shs27k_common import check_folder, check_split, folder_data, read_json  # noqa: E402


def split_modes(results: Path) -> pd.DataFrame:
    """One row per split file of ``results/splits`` (see the module docstring), on the pair table the folder was
    made from (its config.yaml's dataset; a split of another table is refused)."""
    files = sorted((results / "splits").glob("*.json"))
    if not files:
        raise SystemExit(f"{results}/splits: no split files (run `gatbio protein interactions --config ...` first)")
    splits = {f: read_json(f, results, "split") for f in files}  # a damaged file named before the data load
    folder = folder_data(results)
    data = folder.data
    y = data.pair_modes.numpy().astype(float)  # (P, M)
    rows = []
    for f, sp in splits.items():
        check_split(f, sp, folder)
        tr, te = y[np.asarray(sp["train"])], y[np.asarray(sp["test"])]
        mix_tr, mix_te = tr.sum(0) / tr.sum(), te.sum(0) / te.sum()
        row = {"split": sp["kind"], "seed": sp["seed"], "modes/pair train": tr.sum(1).mean(),
               "modes/pair test": te.sum(1).mean(), "TV distance": 0.5 * np.abs(mix_tr - mix_te).sum()}
        for m, name in enumerate(data.mode_names):
            row[f"{name} train"], row[f"{name} test"] = tr[:, m].mean(), te[:, m].mean()
        rows.append(row)
    return pd.DataFrame(rows).round(3)


def region_scores(results: Path, models: list[str], regions) -> dict[tuple[str, str, int], float]:
    """Each model's test micro-F1 on each BFS/DFS split of ``regions`` (``(split, seed)`` pairs), keyed
    ``(model, split, seed)``: every file read first (a missing or damaged one is named before anything else), then
    the splits counted (:func:`check_regions`: the one check of their number)."""
    regions = list(regions)
    scores = {}
    for m in models:
        for split, seed in regions:
            p = results / "runs" / split / f"s{seed}" / "train" / f"{m}.json"
            if not p.is_file():
                raise SystemExit(f"{p}: no result of model {m!r} for this split")
            scores[m, split, seed] = read_json(p, results, "run")["micro_f1"]
    check_regions(results, len(regions))
    return scores


def shift_correlation(results: Path, models: list[str], table: pd.DataFrame | None = None,
                      scores: dict[tuple[str, str, int], float] | None = None) -> pd.DataFrame:
    """Per model: Spearman's rho (and its p-value) between the splits' TV distance and the model's test micro-F1,
    over the BFS and DFS splits of ``results`` (scipy.stats.spearmanr). ``scores``: what :func:`region_scores`
    gave for these splits (``main`` reads them before the data load); read here without."""
    from scipy.stats import spearmanr

    table = split_modes(results) if table is None else table
    regions = table[table["split"] != "random"]
    keys = list(zip(regions["split"], regions["seed"], strict=True))
    if scores is None or any((m, *k) not in scores for m in models for k in keys):
        scores = region_scores(results, models, keys)
    rows = []
    for m in models:
        f1 = [scores[m, split, seed] for split, seed in keys]
        if len(set(f1)) == 1 or regions["TV distance"].nunique() == 1:  # a rank correlation of a constant: undefined
            print(f"note: {m}: every split's " + ("test micro-F1" if len(set(f1)) == 1 else "TV distance")
                  + " is the same, so no rank correlation is defined (spearman_rho and p left empty)", file=sys.stderr)
            rows.append({"model": m, "splits": len(f1), "spearman_rho": None, "p": None})
            continue
        rho, pval = spearmanr(regions["TV distance"], f1)
        rows.append({"model": m, "splits": len(f1), "spearman_rho": round(float(rho), 2), "p": round(float(pval), 3)})
    return pd.DataFrame(rows)


#: Fewest BFS/DFS splits a rank correlation is computed over (with 2 it is +-1, with fewer not defined: NaN).
MIN_REGIONS = 3
#: The file name of a BFS/DFS split in ``splits/`` (``gatbio.tasks.protein_interactions._paths`` writes
#: ``<split>_s<seed>.json``).
REGION_FILE = re.compile(r"(bfs|dfs)_s(\d+)\.json")


def check_regions(results: Path, n: int) -> None:
    """``--scores`` needs at least :data:`MIN_REGIONS` BFS/DFS splits, else one line that says so."""
    if n < MIN_REGIONS:
        raise SystemExit(f"--scores: {results}/splits holds {n} BFS/DFS split(s); a rank correlation needs at least "
                         f"{MIN_REGIONS}: run more seeds (e.g. seeds=[0,1,2,3,4]) or leave out --scores")


def check_models(results: Path, models: list[str]) -> None:
    """Every model of ``--scores`` has results in ``results/runs/<split>/s<seed>/train/``, else one line that names
    the models there."""
    runs = sorted((results / "runs").glob("*/s*/train/*.json"))
    there = sorted({f.stem for f in runs})
    unknown = [m for m in models if m not in there]
    if unknown:
        raise SystemExit(f"--scores: no result of model(s) {', '.join(map(repr, unknown))} in {results}/runs/*/s*/train; "
                         f"models there: {', '.join(there) or 'none'}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results", nargs="?", type=Path, default=Path("results/shs27k_full"),
                    help="the out_dir of a `gatbio protein interactions` run (default: results/shs27k_full)")
    ap.add_argument("--scores", nargs="+", metavar="MODEL", default=[],
                    help="models whose BFS/DFS micro-F1 is rank-correlated with the TV distance")
    a = ap.parse_args(argv)
    check_folder(a.results)  # a typo or another task's folder: named, not "no split files: run ... first"
    check_models(a.results, a.scores)  # a misspelt model is named before the table, not after it
    scores = None
    if a.scores:  # the BFS/DFS splits' scores (split files <split>_s<seed>.json), read and counted before the data load
        regions = [(m[1], int(m[2])) for f in sorted((a.results / "splits").glob("*.json"))
                   if (m := REGION_FILE.fullmatch(f.name))]
        scores = region_scores(a.results, a.scores, regions)
    table = split_modes(a.results)
    correlation = shift_correlation(a.results, a.scores, table, scores) if a.scores else None
    with pd.option_context("display.width", 250, "display.max_columns", 40):
        print(table.to_string(index=False))
        if correlation is not None:
            print()
            print(correlation.to_string(index=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
