"""How the homology imputation of label profiles was set: the profile rule over a grid of k-mer lengths and
neighbour counts, on the saved SHS27k splits of a results folder.

A protein with no training pair (every protein of a BFS/DFS test region) has no label profile. The plain rule gives
it the mean mode vector; with imputation it takes the similarity-weighted mean profile of its ``n`` most similar
proteins that have training pairs, by the TF-IDF ``k``-mer cosine of the sequences
(:func:`gatbio.data.pair_features.impute_profiles`); with parasail installed, also by the normalised
Smith-Waterman score (``kmer`` column ``align``, :func:`gatbio.data.sequence.alignment_similarity`). For each
(``k``, ``n``) this prints the rule's micro-F1 on
the **validation** pairs (profiles of the fit pairs; the threshold chosen there, as ``profile_rule`` does), which is
what chose the setting, and on the test pairs (profiles of all training pairs, that threshold), mean over the seeds.

Usage::

    python experiments/shs27k_impute_sweep.py [RESULTS_DIR]    # default results/shs27k_full (its splits/)
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import pandas as pd

KMERS = (2, 3, 4, 5, 6)
NEIGHBORS = (0, 1, 3, 5, 10, 20)  # 0: no imputation (the plain rule)


def sweep(results: Path, kinds=("bfs", "dfs")) -> pd.DataFrame:
    """One row per (split type, k, n): validation and test micro-F1 of the profile rule, mean over the seeds."""
    import gatbio.data as gd
    from gatbio.data.pair_features import choose_threshold, profile_rule
    from gatbio.data.sequence import kmer_similarity
    from gatbio.tasks.protein_interactions import evaluate_pairs

    data = gd.load("shs27k", features=())
    pairs, y, n = data.pairs.numpy(), data.pair_modes.numpy(), data.num_nodes
    sims = {k: kmer_similarity(data.sequences, k) for k in KMERS}
    try:
        from gatbio.data.sequence import alignment_similarity

        sims["align"] = alignment_similarity(data.sequences, progress=True)
    except ImportError:
        print("(parasail is not installed: no alignment rows)")
    rows = []
    for kind in kinds:
        files = sorted((results / "splits").glob(f"{kind}_s*.json"))
        if not files:
            raise SystemExit(f"{results}/splits: no {kind} split files (run `gatbio protein interactions` first)")
        for k in sims:
            for nb in NEIGHBORS:
                if nb == 0 and k != KMERS[0]:
                    continue  # the plain rule does not depend on k
                val, test = [], []
                for f in files:
                    sp = json.loads(f.read_text())
                    fit, v, tr, te = (np.asarray(sp[s]) for s in ("fit", "val", "train", "test"))
                    thr, f_val = choose_threshold(y[v], profile_rule(pairs, y, fit, pairs[v], n, sims[k], nb))
                    scores = profile_rule(pairs, y, tr, pairs[te], n, sims[k], nb)
                    val.append(f_val)
                    test.append(evaluate_pairs(y[te], scores, thr)["micro_f1"])
                rows.append({"split": kind, "kmer": k if nb else "-", "neighbors": nb, "seeds": len(files),
                             "val_micro_f1": np.mean(val), "test_micro_f1": np.mean(test),
                             "test_std": np.std(test)})
    return pd.DataFrame(rows)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("results", nargs="?", default="results/shs27k_full", type=Path)
    args = ap.parse_args(argv)
    df = sweep(args.results)
    with pd.option_context("display.max_rows", None, "display.width", 120):
        print(df.round(3).to_string(index=False))
    best = df.loc[df.groupby("split")["val_micro_f1"].idxmax()]
    print("\nbest on validation, per split type:\n" + best.round(3).to_string(index=False))
    both = df.groupby(["kmer", "neighbors"], sort=False)["val_micro_f1"].mean()
    kmers = both[[k in KMERS for k in both.index.get_level_values(0)]]
    k, nb = kmers.idxmax()
    print(f"\nbest mean validation micro-F1 over the split types, k-mers (the default kept): kmer {k}, neighbors "
          f"{nb} ({kmers.max():.3f}; no imputation: {both.loc[('-', 0)]:.3f})")
    if "align" in both.index.get_level_values(0):
        al = both.loc["align"]
        print(f"alignment: best at neighbors {al.idxmax()} ({al.max():.3f}; at 10: {al.loc[10]:.3f})")


if __name__ == "__main__":
    main()
