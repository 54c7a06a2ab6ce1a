"""The SHS27k result tables of experiments/README.md, from a results folder: one markdown table per split type with,
per model, micro-F1 on the leakage-free graph (mean ± std over seeds), macro-F1, micro-F1 on the BS / ES / NS test
subsets, micro-F1 with the all-pairs graph, and the mean wall / CPU seconds per fit (leakage-free graph; for a
``choice`` model such as ``gat`` the sum of its candidates).

``--per-seed SPLIT`` prints instead one row per seed of that split type: each model's micro-F1 (leakage-free
graph), and for a ``choice`` model the candidate it chose with the candidates' validation micro-F1.

Usage::

    python experiments/shs27k_tables.py results/shs27k_full
    python experiments/shs27k_tables.py results/shs27k_full --per-seed bfs
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import pandas as pd


def load_runs(results: Path) -> pd.DataFrame:
    """Every ``runs/<split>/s<seed>/<graph>/<model>.json`` of ``results``, one row each."""
    rows = [json.loads(p.read_text()) for p in sorted((results / "runs").glob("*/s*/*/*.json"))]
    if not rows:
        raise SystemExit(f"{results}/runs: no results (run `gatbio protein interactions --config ...` first)")
    return pd.DataFrame(rows)


def _ms(v: pd.Series) -> str:
    v = pd.to_numeric(v, errors="coerce").dropna()
    return "–" if v.empty else f"{v.mean():.3f} ± {v.std(ddof=1) if len(v) > 1 else 0.0:.3f}"


def tables(results: Path) -> str:
    df = load_runs(results)
    cfg = results / "config.yaml"  # the config's order of models, else alphabetical
    if cfg.is_file():
        from omegaconf import OmegaConf

        models = list(OmegaConf.load(cfg).get("models", []))
    else:
        models = sorted(df["model"].unique())
    parts = []
    for split in ("random", "bfs", "dfs"):
        part = df[df["split"] == split]
        if part.empty:
            continue
        tr = part[part["graph"] == "train"]
        n = tr.groupby("seed")[["n_bs", "n_es", "n_ns", "n_test"]].first().mean().round().astype(int)
        lines = [f"#### {split} (test pairs per seed, mean: BS {n.n_bs}, ES {n.n_es}, NS {n.n_ns}, of {n.n_test})", "",
                 "| model | micro-F1 (train graph) | macro-F1 | BS | ES | NS | micro-F1 (all-pairs graph) | "
                 "s / fit (cpu s) |", "|---|---|---|---|---|---|---|---|"]
        for m in models:
            t = tr[tr["model"] == m]
            if t.empty:
                continue
            a = part[(part["graph"] == "all") & (part["model"] == m)]
            cells = [_ms(t["micro_f1"]), _ms(t["macro_f1"]), _ms(t["micro_f1_bs"]), _ms(t["micro_f1_es"]),
                     _ms(t["micro_f1_ns"]), _ms(a["micro_f1"]) if len(a) else "– (no graph)",
                     f"{np.mean(t['seconds']):.0f} ({np.mean(t['cpu_seconds']):.0f})"]
            lines.append(f"| `{m}` | " + " | ".join(cells) + " |")
        parts.append("\n".join(lines))
    return "\n\n".join(parts)


def per_seed(results: Path, split: str) -> pd.DataFrame:
    """One row per seed of ``split``: each model's micro-F1 (train graph); a choice model's ``chosen`` candidate and
    the candidates' validation micro-F1 (``val <candidate>``)."""
    df = load_runs(results)
    tr = df[(df["split"] == split) & (df["graph"] == "train")]
    if tr.empty:
        raise SystemExit(f"{results}: no {split!r} results")
    out = tr.pivot(index="seed", columns="model", values="micro_f1").round(3)
    if "chosen" in tr:
        for _, r in tr[tr["chosen"].notna()].iterrows():
            out.loc[r["seed"], f"{r['model']} chose"] = r["chosen"]
            for c, v in r["candidates_val_micro_f1"].items():
                out.loc[r["seed"], f"val {c}"] = round(v, 3)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results", type=Path)
    ap.add_argument("--per-seed", metavar="SPLIT", choices=["random", "bfs", "dfs"], default=None)
    a = ap.parse_args(argv)
    if a.per_seed:
        with pd.option_context("display.width", 250, "display.max_columns", None):
            print(per_seed(a.results, a.per_seed).to_string())
    else:
        print(tables(a.results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
