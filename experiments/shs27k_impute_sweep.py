"""How the no-learning rule's homology settings were chosen: the profile rule over a grid, on the saved SHS27k
splits of a results folder (on the pair table the folder was made from: its config.yaml's dataset; a split of
another table is refused).

- **Imputation** (default): a protein with no training pair (every protein of a BFS/DFS test region) has no label
  profile. The plain rule gives it the mean mode vector; with imputation it takes the similarity-weighted mean
  profile of its ``n`` most similar proteins that have training pairs, by the TF-IDF ``k``-mer cosine of the
  sequences (:func:`gatbio.data.pair_features.impute_profiles`); with parasail installed, also by the normalised
  Smith-Waterman score (``kmer`` column ``align``, :func:`gatbio.data.sequence.alignment_similarity`). Grid: ``k``
  x ``n``.
- **Interologs** (``--interolog``): the imputed rule (4-mers, 10 neighbours: the imputation's choice) plus the
  interolog transfer from the known pairs between the two proteins' ``h`` closest homologues, shrunk towards the
  rule by the pseudo-weight ``lambda`` (:func:`gatbio.data.pair_features.interolog_scores`). Grid: similarity x
  ``h`` x ``lambda``.

For each setting this prints the rule's micro-F1 on the **validation** pairs (profiles of the fit pairs; the
threshold chosen there, as ``profile_rule`` does), which is what chose the setting, and on the test pairs (profiles
of all training pairs, that threshold), mean over the seeds (``test_std``: their std with ``ddof=0``, the population
std, not the sample std of ``shs27k_tables.py`` / ``shs27k_paired.py``).

``--coverage`` prints instead how often the recipe's interolog setting applies: the fraction of test pairs with at
least one interolog among the training pairs, per split type and test subset (ES, NS), mean over the seeds.

``--oracle`` prints a **ceiling**, not a model: the two rules scoring each test pair with the modes of *every other*
pair known (leave-one-out over the whole network, test pairs included, so it reads test labels), at the threshold
that is best on the test pairs: the profile rule (each protein's profile over all its other pairs) and the interolog
rule (the recipe's setting over all other pairs, shrunk towards that profile score). What the rules could reach if
no protein were new.

Usage::

    python experiments/shs27k_impute_sweep.py [RESULTS_DIR]               # default results/shs27k_full (its splits/)
    python experiments/shs27k_impute_sweep.py [RESULTS_DIR] --interolog
    python experiments/shs27k_impute_sweep.py [RESULTS_DIR] --coverage --splits random bfs dfs
    python experiments/shs27k_impute_sweep.py [RESULTS_DIR] --oracle --splits random bfs dfs
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pandas as pd

if str(Path(__file__).resolve().parent) not in sys.path:  # loaded from elsewhere (tests/conftest.py)
    sys.path.append(str(Path(__file__).resolve().parent))
from _shs27k_common import check_folder, check_split, folder_data, read_json  # noqa: E402

KMERS = (2, 3, 4, 5, 6)
NEIGHBORS = (0, 1, 3, 5, 10, 20)  # 0: no imputation (the plain rule)
INTEROLOG_KMERS = (3, 4, 5)
HOMOLOGUES = (1, 2, 3, 5, 10, 20)  # per protein
SHRINKS = (0.01, 0.03, 0.1, 0.3, 1.0)


def _similarities(data, kmers) -> dict:
    from gatbio.data.sequence import kmer_similarity

    sims = {k: kmer_similarity(data.sequences, k) for k in kmers}
    try:
        from gatbio.data.sequence import alignment_similarity

        sims["align"] = alignment_similarity(data.sequences, progress=True)
    except ImportError:
        print("(parasail is not installed: no alignment rows)")
    return sims


def _settings(sims, interolog: bool):
    """``(columns, profile_rule keyword arguments)`` of each setting of the grid."""
    import torch

    from gatbio.data.pair_features import homologues

    if not interolog:
        yield {"kmer": "-", "neighbors": 0}, {}  # the plain rule (no imputation)
        for k in sims:
            for nb in NEIGHBORS:
                if nb:
                    yield {"kmer": k, "neighbors": nb}, {"similarity": sims[k], "neighbors": nb}
        return
    impute = {"similarity": torch.as_tensor(sims[4]), "neighbors": 10}
    yield {"kmer": "-", "homologues": 0, "shrink": "-"}, impute
    for k in sims:
        for h in HOMOLOGUES:
            sets = homologues(sims[k], h)
            for lam in SHRINKS:
                yield {"kmer": k, "homologues": h, "shrink": lam}, {**impute, "homologue_sets": sets, "shrink": lam}


def sweep(results: Path, kinds=("bfs", "dfs"), interolog: bool = False) -> pd.DataFrame:
    """One row per (split type, setting): validation and test micro-F1 of the profile rule, mean over the seeds."""
    from gatbio.data.pair_features import choose_threshold, profile_rule
    from gatbio.tasks.protein_interactions import evaluate_pairs

    data, splits = _data_and_splits(results, kinds)
    pairs, y, n = data.pairs.numpy(), data.pair_modes.numpy(), data.num_nodes
    sims = _similarities(data, INTEROLOG_KMERS if interolog else KMERS)
    rows = []
    for cols, kw in _settings(sims, interolog):
        for kind, sps in splits.items():
            val, test = [], []
            for sp in sps:
                fit, v, tr, te = (np.asarray(sp[s]) for s in ("fit", "val", "train", "test"))
                thr, f_val = choose_threshold(y[v], profile_rule(pairs, y, fit, pairs[v], n, **kw))
                scores = profile_rule(pairs, y, tr, pairs[te], n, **kw)
                val.append(f_val)
                test.append(evaluate_pairs(y[te], scores, thr)["micro_f1"])
            rows.append({"split": kind, **cols, "seeds": len(sps), "val_micro_f1": np.mean(val),
                         "test_micro_f1": np.mean(test), "test_std": np.std(test)})
    return pd.DataFrame(rows)


def _split_files(results: Path, kinds, folder=None) -> dict[str, list[dict]]:
    """The saved splits of each kind (``splits/<kind>_s<seed>.json``); a damaged file stops with one line. With
    ``folder`` (:func:`_shs27k_common.folder_data`), each is checked to index that pair table."""
    splits = {}
    for kind in kinds:
        files = sorted((results / "splits").glob(f"{kind}_s*.json"))
        if not files:
            raise SystemExit(f"{results}/splits: no {kind} split files (run `gatbio protein interactions` first)")
        splits[kind] = [read_json(f, results, "split") for f in files]
        if folder is not None:
            for f, sp in zip(files, splits[kind], strict=True):
                check_split(f, sp, folder)
    return splits


def _data_and_splits(results: Path, kinds):
    """The pair table the folder was made from (its config.yaml's dataset) and its splits, checked to index it."""
    folder = folder_data(results)
    return folder.data, _split_files(results, kinds, folder)


def coverage(results: Path, kinds=("bfs", "dfs")) -> pd.DataFrame:
    """Per split type: the fraction of test pairs (all, ES, NS) with at least one interolog among the training pairs,
    for the recipe's setting (``GAT_PAIRS_DEFAULTS``: ``interolog`` homologues by ``impute_kmer``-mer similarity)."""
    import torch

    from gatbio.data.pair_features import homologues, interolog_scores
    from gatbio.data.pair_splits import SUBSETS, pair_subsets
    from gatbio.data.sequence import kmer_similarity
    from gatbio.nn.pair_models import GAT_PAIRS_DEFAULTS

    data, splits = _data_and_splits(results, kinds)
    pairs, y, n = data.pairs, data.pair_modes.float(), data.num_nodes
    index, weight = homologues(kmer_similarity(data.sequences, GAT_PAIRS_DEFAULTS["impute_kmer"]),
                               GAT_PAIRS_DEFAULTS["interolog"])
    rows = []
    for kind, sps in splits.items():
        hits = {"all": [], "es": [], "ns": []}
        for sp in sps:
            tr, te = torch.as_tensor(sp["train"]), torch.as_tensor(sp["test"])
            _, den = interolog_scores(pairs[tr], y[tr], pairs[te], index, weight)
            hit, sub = (den > 0).numpy(), pair_subsets(pairs, sp["train"], sp["test"], n)
            hits["all"].append(hit.mean())
            for name in ("es", "ns"):
                m = sub == SUBSETS.index(name)
                if m.any():
                    hits[name].append(hit[m].mean())
        rows.append({"split": kind, "seeds": len(sps),
                     **{f"with interolog ({k})": np.mean(v) if v else np.nan for k, v in hits.items()}})
    return pd.DataFrame(rows)


def oracle_scores(pairs, modes, query_idx, index, weight, shrink: float):
    """``(profile, interolog)`` scores ``(Q, M)`` of the pairs ``query_idx`` with every other pair's modes known
    (leave-one-out: the scored pair is removed from its proteins' profiles and from its own interologs)."""
    import torch

    from gatbio.data.pair_features import interolog_edges, interolog_prior

    p, y = torch.as_tensor(pairs).long(), torch.as_tensor(modes).double()
    n, q = index.size(0), torch.as_tensor(query_idx).long()
    total = torch.zeros(n, y.size(1), dtype=y.dtype).index_add_(0, p[:, 0], y).index_add_(0, p[:, 1], y)
    deg = torch.zeros(n, dtype=y.dtype).index_add_(0, p[:, 0], torch.ones(len(p), dtype=y.dtype))
    deg.index_add_(0, p[:, 1], torch.ones(len(p), dtype=y.dtype))
    a, b, yq = p[q, 0], p[q, 1], y[q]
    prof = [(total[v] - yq) / (deg[v] - 1).clamp(min=1)[:, None] for v in (a, b)]  # (Q, M) each, without the pair
    rule = (prof[0] + prof[1]) / 2
    ev = interolog_edges(p, y, p[q], index, weight.double())
    c, d = index[a[ev.dst], ev.rank_a], index[b[ev.dst], ev.rank_b]
    own = ((c == a[ev.dst]) & (d == b[ev.dst])) | ((c == b[ev.dst]) & (d == a[ev.dst]))  # the scored pair itself
    keep = ~own
    num = torch.zeros_like(rule).index_add_(0, ev.dst[keep], ev.weight[keep, None] * ev.modes[ev.src[keep]])
    den = torch.zeros(len(q), dtype=y.dtype).index_add_(0, ev.dst[keep], ev.weight[keep])
    return rule.numpy(), interolog_prior(num, den, rule, shrink).numpy()


def oracle(results: Path, kinds=("bfs", "dfs")) -> pd.DataFrame:
    """Per split type: the ceiling of the profile rule and of the interolog rule (module docstring, ``--oracle``),
    micro-F1 at the best threshold on the test pairs, mean and std over the seeds (``ddof=0``: :data:`STD_NOTE`)."""
    import torch

    from gatbio.data.pair_features import choose_threshold, homologues
    from gatbio.data.sequence import kmer_similarity
    from gatbio.nn.pair_models import GAT_PAIRS_DEFAULTS

    data, splits = _data_and_splits(results, kinds)
    sim = torch.as_tensor(kmer_similarity(data.sequences, GAT_PAIRS_DEFAULTS["impute_kmer"])).float()
    index, weight = homologues(sim, GAT_PAIRS_DEFAULTS["interolog"])
    y = data.pair_modes.numpy()
    rows = []
    for kind, sps in splits.items():
        got = {"profile rule": [], "interolog rule": []}
        for sp in sps:
            te = np.asarray(sp["test"])
            scores = oracle_scores(data.pairs, y, te, index, weight, GAT_PAIRS_DEFAULTS["interolog_shrink"])
            for name, sc in zip(got, scores, strict=True):
                got[name].append(choose_threshold(y[te], sc)[1])
        rows.append({"split": kind, "seeds": len(sps),
                     **{f"{k} (every other pair known)": f"{np.mean(v):.3f} ± {np.std(v):.3f}" for k, v in got.items()}})
    return pd.DataFrame(rows)


#: What ``test_std`` and the oracle's ``±`` are: numpy's default, kept so that the figures experiments/README.md
#: quotes stay reproducible (shs27k_tables.py and shs27k_paired.py give the sample std, ddof=1, larger by
#: sqrt(n / (n - 1)): 1.118 for 5 seeds).
STD_NOTE = "std over the seeds (ddof=0, population; shs27k_tables.py / shs27k_paired.py give the sample std, ddof=1)"


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="Prints its tables on standard output and writes no file (redirect to keep "
                                        "them);\nRESULTS_DIR is only read.")
    ap.add_argument("results", nargs="?", default="results/shs27k_full", type=Path, metavar="RESULTS_DIR",
                    help="the out_dir of a `gatbio protein interactions` run, read for its splits/ and config.yaml "
                         "(default: results/shs27k_full)")
    ap.add_argument("--interolog", action="store_true", help="sweep the interolog transfer instead of the imputation")
    ap.add_argument("--splits", nargs="+", default=["bfs", "dfs"], choices=["random", "bfs", "dfs"],
                    help="split types to score (default: bfs dfs)")
    what = ap.add_mutually_exclusive_group()  # one table per call (--oracle won silently over --coverage)
    what.add_argument("--coverage", action="store_true", help="how often the recipe's interolog setting applies")
    what.add_argument("--oracle", action="store_true",
                      help="the rules' ceiling with every other pair's modes known (reads test labels: not a model)")
    args = ap.parse_args(argv)
    if args.interolog and (args.coverage or args.oracle):
        ap.error(f"--interolog chooses the sweep; --{'coverage' if args.coverage else 'oracle'} prints another "
                 "table, which it does not change: give one of them")
    check_folder(args.results)  # a typo or another task's folder: named, not "no split files: run ... first"
    _split_files(args.results, tuple(args.splits))  # a wrong folder is named now, not after minutes of alignment
    if args.oracle:
        table = oracle(args.results, tuple(args.splits))
        print("micro-F1 mean ± " + STD_NOTE)
        with pd.option_context("display.width", 160):
            print(table.to_string(index=False))
        return
    if args.coverage:
        print(coverage(args.results, tuple(args.splits)).round(3).to_string(index=False))
        return
    df = sweep(args.results, tuple(args.splits), args.interolog)
    print("val_micro_f1, test_micro_f1: means over the seeds; test_std: " + STD_NOTE)
    with pd.option_context("display.max_rows", None, "display.width", 120):
        print(df.round(3).to_string(index=False))
    best = df.loc[df.groupby("split")["val_micro_f1"].idxmax()]
    print("\nbest on validation, per split type:\n" + best.round(3).to_string(index=False))
    keys = ["kmer", "homologues", "shrink"] if args.interolog else ["kmer", "neighbors"]
    both = df.groupby(keys, sort=False)["val_micro_f1"].mean()
    kmers = both[[k != "align" for k in both.index.get_level_values(0)]]
    base = both.iloc[0]  # the first setting: no imputation / no interologs

    def named(idx) -> str:
        return ", ".join(f"{k} {v}" for k, v in zip(keys, idx, strict=True))

    print(f"\nbest mean validation micro-F1 over the split types, k-mers: {named(kmers.idxmax())} "
          f"({kmers.max():.3f}; without: {base:.3f})")
    if "align" in both.index.get_level_values(0):
        al = both[[k == "align" for k in both.index.get_level_values(0)]]
        print(f"alignment: best at {named(al.idxmax())} ({al.max():.3f})")


if __name__ == "__main__":
    main()
