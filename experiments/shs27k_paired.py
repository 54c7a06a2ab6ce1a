"""Paired differences between models of one SHS27k results folder: each model minus a reference model on the same
split type and seed (micro-F1 on the test pairs, or another metric of the results: ``--metric`` macro_f1, or
micro_f1_bs / micro_f1_es / micro_f1_ns on the test pairs with both / one / neither protein in a training pair, or
val_micro_f1 on the validation pairs), as the ablation and the model comparisons of experiments/README.md
report them.

For every split type and model this prints the mean ± standard deviation over seeds of ``model - reference``
(``± –`` for a single seed, ``–`` for none), the number of seeds where the model is ahead, the number of seeds
paired, and the per-seed differences. Seeds with a result of only one of the two are left out (their number is
printed: ``left_out``).

``--against OTHER`` pairs each model with the *same* model of another results folder instead (same split type and
seed: folders made with the same splits, e.g. one setting such as ``protein_features`` changed): ``model here -
model there``. Two folders whose saved splits differ (``splits/<split>_s<seed>.json``: another pair table, or other
test pairs) are refused: their differences would mix models with test sets.

Usage::

    python experiments/shs27k_paired.py results/shs27k_ablation --ref gat_region
    python experiments/shs27k_paired.py results/shs27k_full --ref gat_region --models profile_rule pyg_gat_region gat
    python experiments/shs27k_paired.py results/shs27k_seq_cnn --ref seq_mlp --metric micro_f1_ns
    python experiments/shs27k_paired.py results/shs27k_protein_features --against results/shs27k_full
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pandas as pd

if str(Path(__file__).resolve().parent) not in sys.path:  # loaded from elsewhere (tests/conftest.py)
    sys.path.append(str(Path(__file__).resolve().parent))
from _shs27k_common import check_folder, read_json  # noqa: E402

#: The metrics of a run that ``--metric`` takes (test micro-F1, macro-F1, micro-F1 on the BS / ES / NS subsets,
#: and micro-F1 on the validation pairs: the figure a choice may be made on, which experiments/README.md quotes).
METRICS = ("micro_f1", "macro_f1", "micro_f1_bs", "micro_f1_es", "micro_f1_ns", "val_micro_f1")


def runs(results: Path, graph: str = "train", metric: str = "micro_f1") -> pd.DataFrame:
    """``split, seed, model, <metric>`` of every ``runs/<split>/s<seed>/<graph>/<model>.json``."""
    if metric not in METRICS:
        raise SystemExit(f"--metric {metric!r}: not a metric of the results; choose {', '.join(METRICS)}")
    rows = []
    for p in sorted((results / "runs").glob(f"*/s*/{graph}/*.json")):
        r = read_json(p, results, "run")
        if metric not in r:
            raise SystemExit(f"{p}: no {metric!r} (metrics: micro_f1, macro_f1, micro_f1_bs / _es / _ns, val_micro_f1)")
        value = np.nan if r[metric] is None else r[metric]  # a subset without pairs (BS of a BFS split): None
        rows.append({"split": r["split"], "seed": r["seed"], "model": r["model"], metric: value})
    if not rows:
        raise SystemExit(f"{results}/runs: no {graph!r} results (run `gatbio protein interactions --config ...`)")
    return pd.DataFrame(rows)


def paired(results: Path, ref: str, models: list[str] | None = None, graph: str = "train",
           metric: str = "micro_f1") -> pd.DataFrame:
    """One row per (split type, model), differences of ``metric``: ``delta_mean``, ``delta_std`` (over seeds, ddof 1), ``ahead`` (seeds with
    a positive difference), ``seeds`` and ``per_seed`` (the differences in seed order)."""
    df = runs(results, graph, metric)
    wide = df.pivot_table(index=["split", "seed"], columns="model", values=metric, dropna=False)
    if ref not in wide:
        raise SystemExit(f"{results}: no results of the reference model {ref!r}; models: {', '.join(wide.columns)}")
    out = []
    for split, part in wide.groupby(level="split", sort=False):
        for m in models or [c for c in wide.columns if c != ref]:
            if m not in part:
                raise SystemExit(f"{results}: no results of model {m!r}; models: {', '.join(wide.columns)}")
            d = (part[m] - part[ref]).dropna()
            out.append(_row(split, m, ref, d, _left_out(df, df, split, m, ref)))
    return pd.DataFrame(out)


def _left_out(a: pd.DataFrame, b: pd.DataFrame, split: str, model_a: str, model_b: str) -> int:
    """The seeds of ``split`` with a result of ``model_a`` in the runs ``a`` or of ``model_b`` in ``b``, not both:
    left out of the differences (a run whose metric is None, such as BS on a BFS split, is there: not left out)."""
    def seeds(df: pd.DataFrame, model: str) -> set:
        return set(df.loc[(df["split"] == split) & (df["model"] == model), "seed"])

    return len(seeds(a, model_a) ^ seeds(b, model_b))


def _row(split: str, model: str, ref: str, d: pd.Series, left_out: int) -> dict:
    """One row of the table: the differences ``d`` (seed order) and the seeds left out."""
    return {"split": split, "model": model, "ref": ref, "delta_mean": d.mean() if len(d) else np.nan,
            "delta_std": d.std(ddof=1) if len(d) > 1 else np.nan, "ahead": int((d > 0).sum()),
            "seeds": len(d), "left_out": left_out, "per_seed": [round(v, 3) for v in d.tolist()]}


def delta_text(mean: float, std: float) -> str:
    """``+0.012 ± 0.004``; ``± –`` for a single seed (no std, as the tables write it), ``–`` for none."""
    if pd.isna(mean):
        return "–"
    return f"{mean:+.3f} ± " + ("–" if pd.isna(std) else f"{std:.3f}")


def across(results: Path, other: Path, models: list[str] | None = None, graph: str = "train",
           metric: str = "micro_f1") -> pd.DataFrame:
    """As :func:`paired`, each model of ``results`` minus the same model of ``other`` (``ref`` names the folder)."""
    here, there = runs(results, graph, metric), runs(other, graph, metric)
    both = here.merge(there, on=["split", "seed", "model"], suffixes=("", "_other"))
    for split, seed in dict.fromkeys(zip(both["split"], both["seed"], strict=True)):
        same_split(results, other, split, seed)
    names = models or list(dict.fromkeys(here["model"]))
    missing = [m for m in names if m not in set(both["model"])]
    if missing:
        raise SystemExit(f"{other}: no results of {missing} on the splits and seeds of {results}")
    out = []
    for (split, m), part in both[both["model"].isin(names)].groupby(["split", "model"], sort=False):
        d = (part[metric] - part[f"{metric}_other"]).dropna()
        out.append(_row(split, m, f"{m} of {other}", d, _left_out(here, there, split, m, m)))
    return pd.DataFrame(out)


def same_split(results: Path, other: Path, split: str, seed: int) -> None:
    """One line unless ``splits/<split>_s<seed>.json`` of both folders are the same split: made from the same pair
    table (``pairs_sha256``, or ``num_pairs`` where one has no digest) with the same test pairs."""
    name = f"{split}_s{seed}.json"
    a, b = results / "splits" / name, other / "splits" / name
    for p in (a, b):
        if not p.is_file():
            raise SystemExit(f"{p}: no such file: the two folders' splits cannot be compared (--against pairs "
                             "folders made with the same splits)")
    sa, sb = read_json(a, results, "split"), read_json(b, other, "split")
    digests = sa.get("pairs_sha256"), sb.get("pairs_sha256")
    table = digests if None not in digests else (sa.get("num_pairs"), sb.get("num_pairs"))
    if table[0] != table[1]:
        raise SystemExit(f"{b}: made from another pair table than {a}: --against pairs folders made with the same "
                         "splits of the same data")
    if sorted(sa.get("test") or []) != sorted(sb.get("test") or []):
        raise SystemExit(f"{b}: other test pairs than {a}: --against pairs folders made with the same splits "
                         "(same split settings and seeds)")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results", type=Path, help="the out_dir of a `gatbio protein interactions` run")
    ref = ap.add_mutually_exclusive_group(required=True)
    ref.add_argument("--ref", help="the reference model (differences are model - ref)")
    ref.add_argument("--against", type=Path, help="another results folder (differences are model - same model there)")
    ap.add_argument("--models", nargs="+", default=None, help="models to compare (default: all others)")
    ap.add_argument("--graph", default="train", choices=["train", "all"],
                    help="the runs' message-passing graph, runs/<split>/s<seed>/<graph>/ (default: train)")
    ap.add_argument("--metric", default="micro_f1", choices=METRICS,
                    help="the metric of the results to compare (default: micro_f1)")
    a = ap.parse_args(argv)
    check_folder(a.results)  # a typo or another task's folder: named, not "no results: run ... first"
    if a.against is not None:
        check_folder(a.against, "--against")
    table = (across(a.results, a.against, a.models, a.graph, a.metric) if a.against is not None
             else paired(a.results, a.ref, a.models, a.graph, a.metric))
    table["delta"] = [delta_text(m, s) for m, s in zip(table.delta_mean, table.delta_std, strict=True)]
    with pd.option_context("display.width", 200, "display.max_colwidth", 60):
        print(table[["split", "model", "ref", "delta", "ahead", "seeds", "left_out", "per_seed"]]
              .to_string(index=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
