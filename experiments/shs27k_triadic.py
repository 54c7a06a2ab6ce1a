"""Triadic closure for SHS27k interaction types: does the neighbourhood a pair shares add to the interolog rule?

For a pair (a, b) whose proteins both have training pairs, the common neighbours w (a - w and w - b are training
pairs) carry modes too: the *triadic score* is the mean over w of (modes(a, w) + modes(w, b)) / 2. On random splits
93 % of test pairs have both proteins in training pairs, so if the shared neighbourhood says something the
homologues do not, it shows there. The score is blended with the interolog rule (``interolog_rule``'s score:
TF-IDF 4-mer homologues, 5 per protein, profiles imputed from 10) where a pair has common neighbours:
``(1 - w) s_rule + w s_triad`` with ``w = beta * c / (c + k)`` for ``c`` common neighbours (``k = 0``: ``w = beta``
wherever ``c > 0``), ``beta``, ``k`` and the threshold chosen on the validation pairs (fit pairs as the known
ones), then scored on the test pairs (all training pairs known). Same splits as the benchmark (``pair_split``,
seeds 0-4, validation in 4 regions for BFS/DFS). No learning; leakage-free (training pairs only).

Usage::

    python experiments/shs27k_triadic.py                  # random splits, seeds 0-4 (about 15 s)
    python experiments/shs27k_triadic.py --kinds random bfs
"""

from __future__ import annotations

import argparse

import numpy as np
import torch


def triadic_scores(pairs: np.ndarray, modes: np.ndarray, known: list[int], query: np.ndarray, num_nodes: int
                   ) -> tuple[np.ndarray, np.ndarray]:
    """``(scores (Q, M), common neighbour counts (Q,))`` of the query pairs over the known pairs (module docstring);
    a pair without common neighbours scores 0."""
    m = modes.shape[1]
    adj = np.zeros((num_nodes, num_nodes), dtype=bool)
    mode_of = np.zeros((num_nodes, num_nodes, m))
    for e in known:
        a, b = pairs[e]
        adj[a, b] = adj[b, a] = True
        mode_of[a, b] = mode_of[b, a] = np.maximum(mode_of[a, b], modes[e])  # a repeated pair: its union
    out, count = np.zeros((len(query), m)), np.zeros(len(query))
    for i, (a, b) in enumerate(query):
        w = np.flatnonzero(adj[a] & adj[b])
        if len(w):
            out[i], count[i] = (mode_of[a, w] + mode_of[w, b]).mean(0) / 2, len(w)
    return out, count


def blend(rule: np.ndarray, triad: np.ndarray, count: np.ndarray, beta: float, k: int) -> np.ndarray:
    w = beta * count / (count + k) if k else beta * (count > 0)
    return (1 - w[:, None]) * rule + w[:, None] * triad


def main(argv: list[str] | None = None) -> int:
    from sklearn.metrics import f1_score

    import gatbio.data as gd
    from gatbio.data.pair_features import homologues, profile_rule
    from gatbio.data.pair_splits import pair_split
    from gatbio.data.sequence import kmer_similarity

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="Prints its table on standard output and writes no file (redirect to keep "
                                        "it);\nthe SHS27k dataset is read from the data root (GATBIO_DATA).")
    ap.add_argument("--kinds", nargs="+", default=["random"], choices=["random", "bfs", "dfs"],
                    help="split types, each once (default: random)")
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4],
                    help="split seeds, each once, >= 0 (default: 0 1 2 3 4)")
    args = ap.parse_args(argv)
    shown = " ".join(map(str, args.seeds))
    if any(s < 0 for s in args.seeds):  # numpy's default_rng refuses them deep inside the split
        ap.error(f"--seeds {shown}: give seeds >= 0")
    if len(set(args.seeds)) < len(args.seeds):  # a repeated seed would count its split twice in the mean
        ap.error(f"--seeds {shown}: each seed once")
    if len(set(args.kinds)) < len(args.kinds):
        ap.error(f"--kinds {' '.join(args.kinds)}: each split type once")

    d = gd.load("shs27k", features=())
    pairs, n = d.pairs.numpy(), d.num_nodes
    y = (d.pair_modes > 0).numpy().astype(float)
    sim = torch.as_tensor(kmer_similarity(d.sequences, 4))
    hom = homologues(sim, 5)
    grid = [(beta, k, t) for beta in (0, .1, .2, .3, .4, .5, .6) for k in (0, 1, 3) for t in (.35, .4, .45, .5)]

    def f1(truth, score, t):
        return f1_score(truth, score > t, average="micro")

    print("split  seed  test pairs with a common neighbour  (beta, k, threshold)  test micro-F1: rule  with triads  "
          "difference")
    diffs = []
    for kind in args.kinds:
        for seed in args.seeds:
            sp = pair_split(pairs, n, kind, seed, val_parts=1 if kind == "random" else 4)
            val, test = np.asarray(sp["val"]), np.asarray(sp["test"])
            rule_v = profile_rule(pairs, y, sp["fit"], pairs[val], n, sim, 10, hom)
            rule_t = profile_rule(pairs, y, sp["train"], pairs[test], n, sim, 10, hom)
            tri_v, c_v = triadic_scores(pairs, y, sp["fit"], pairs[val], n)
            tri_t, c_t = triadic_scores(pairs, y, sp["train"], pairs[test], n)
            t0 = max((.35, .4, .45, .5), key=lambda t: f1(y[val], rule_v, t))  # the rule alone, its own threshold
            beta, k, t = max(grid, key=lambda g: f1(y[val], blend(rule_v, tri_v, c_v, g[0], g[1]), g[2]))
            base, ours = f1(y[test], rule_t, t0), f1(y[test], blend(rule_t, tri_t, c_t, beta, k), t)
            diffs.append(ours - base)
            print(f"{kind:6} {seed:4}  {(c_t > 0).mean():34.2f}  {str((beta, k, t)):>20}  {base:19.3f}  {ours:11.3f}  "
                  f"{ours - base:+.3f}")
    print(f"mean difference {np.mean(diffs):+.4f} ± {np.std(diffs, ddof=1) if len(diffs) > 1 else 0:.4f} "
          f"({sum(x > 0 for x in diffs)} of {len(diffs)} ahead)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
