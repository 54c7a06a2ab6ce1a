"""The SHS27k result tables of experiments/README.md, from a results folder: one markdown table per split type with,
per model, micro-F1 on the leakage-free graph (mean ± std over seeds), macro-F1, micro-F1 on the BS / ES / NS test
subsets, micro-F1 with the all-pairs graph, and the mean wall / CPU seconds per fit (leakage-free graph; for a
``choice`` model such as ``gat`` the sum of its candidates).

``--per-seed SPLIT`` prints instead one row per seed of that split type: each model's micro-F1 (leakage-free
graph), and for a ``choice`` model the candidate it chose with the candidates' validation micro-F1.

``--compare OTHER`` sets the folder's summary beside another run's of the same benchmark (e.g. the same config on
a GPU): OTHER is a results folder, its ``summary.csv``, or the tables the command printed (``summary.md`` or a log
holding them; where a device sends back only the log). Per split, graph and model: both micro-F1 means, their
difference and that difference in units of the seeds' spread (the two stds' root mean square; none where a side has a
single seed, ``± –``); then the largest differences.

Usage::

    python experiments/shs27k_tables.py results/shs27k_full
    python experiments/shs27k_tables.py results/shs27k_full --per-seed bfs
    python experiments/shs27k_tables.py results/shs27k_full --compare experiments/gpu_runs/2026-11-26-h200/shs27k_interactions.log
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
from _shs27k_common import check_folder, read_json  # noqa: E402


def load_runs(results: Path) -> pd.DataFrame:
    """Every ``runs/<split>/s<seed>/<graph>/<model>.json`` of ``results``, one row each (a damaged one: one line
    that names it)."""
    rows = [read_json(p, results, "run") for p in sorted((results / "runs").glob("*/s*/*/*.json"))]
    if not rows:
        raise SystemExit(f"{results}/runs: no results (run `gatbio protein interactions --config ...` first)")
    return pd.DataFrame(rows)


def _ms(v: pd.Series) -> str:
    """``mean ± std`` (sample std) as summary.md writes it: ``± –`` for a single run, ``–`` for none."""
    v = pd.to_numeric(v, errors="coerce").dropna()
    if v.empty:
        return "–"
    return f"{v.mean():.3f} ± " + (f"{v.std(ddof=1):.3f}" if len(v) > 1 else "–")


def _mean(v: pd.Series, digits: int = 0) -> str:
    v = pd.to_numeric(v, errors="coerce").dropna()
    return "–" if v.empty else f"{v.mean():.{digits}f}"


#: The columns of a run that the tables read (a run without one: ``–``).
COLUMNS = ["micro_f1", "macro_f1", "micro_f1_bs", "micro_f1_es", "micro_f1_ns", "seconds", "cpu_seconds"]


def read_config(results: Path) -> tuple[dict | None, str | None]:
    """``(results/config.yaml as a mapping, None)``, ``(None, why it cannot be read)``, or ``(None, None)`` when
    there is no such file."""
    import yaml

    cfg = results / "config.yaml"
    if not cfg.is_file():
        return None, None
    try:
        doc = yaml.safe_load(cfg.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as err:
        return None, (str(err).splitlines()[0] if str(err) else type(err).__name__)
    return (doc, None) if isinstance(doc, dict) else (None, f"a YAML {type(doc).__name__}, not a mapping")


def unlisted_runs(results: Path, df: pd.DataFrame) -> str | None:
    """A note when the runs on disk cover seeds or split types that ``results/config.yaml`` does not list (an
    earlier run with other ``seeds`` / ``splits``): the tables average every run on disk, ``summary.csv`` only
    the config's; ``None`` when they agree or the config does not say."""
    doc, _ = read_config(results)
    if doc is None:
        return None
    extra = []
    for key, col in (("seeds", "seed"), ("splits", "split")):
        listed = doc.get(key)
        if not isinstance(listed, list) or col not in df:
            continue
        listed = {str(v) for v in listed}
        more = sorted({v for v in df[col].dropna() if str(v) not in listed}, key=lambda v: (str(type(v)), v))
        if more:
            extra.append(f"{key} {' '.join(map(str, more))}")
    if not extra:
        return None
    return (f"note: {results}/runs holds {' and '.join(extra)}, which {results}/config.yaml does not list: these "
            "tables average every run on disk, summary.csv only the config's (move those runs aside to match it)")


def model_order(results: Path, present) -> list[str]:
    """The models of ``present`` in the order of ``results/config.yaml``'s ``models``, then those it does not list
    (alphabetically): a rerun with fewer models rewrites config.yaml, and the runs of the others are still there
    (they were left out of the tables). A config.yaml that cannot be read gives the alphabetical order, with a
    note."""
    present = sorted(set(present))
    cfg = results / "config.yaml"
    if not cfg.is_file():
        return present
    doc, why = read_config(results)
    if why is not None:
        print(f"note: {cfg}: not readable as a config ({why}): models in alphabetical order", file=sys.stderr)
    listed = doc.get("models") if isinstance(doc, dict) else None
    listed = [str(m) for m in listed] if isinstance(listed, list) else []
    return [m for m in dict.fromkeys(listed) if m in present] + [m for m in present if m not in listed]


def tables(results: Path) -> str:
    df = load_runs(results)
    note = unlisted_runs(results, df)
    if note:
        print(note, file=sys.stderr)
    models = model_order(results, df["model"])  # the config's order of models, else alphabetical
    parts = []
    for split in ("random", "bfs", "dfs"):
        part = df[df["split"] == split]
        if part.empty:
            continue
        tr = part[part["graph"] == "train"]
        sizes = tr.reindex(columns=["seed", "n_bs", "n_es", "n_ns", "n_test"]).groupby("seed").first()
        n = {c: _mean(sizes[c]) for c in sizes}  # (half to even); – without training-graph runs
        lines = [f"#### {split} (test pairs per seed, mean: BS {n['n_bs']}, ES {n['n_es']}, NS {n['n_ns']}, of "
                 f"{n['n_test']})", "",
                 "| model | micro-F1 (train graph) | macro-F1 | BS | ES | NS | micro-F1 (all-pairs graph) | "
                 "s / fit (cpu s) |", "|---|---|---|---|---|---|---|---|"]
        for m in models:
            t = tr[tr["model"] == m].reindex(columns=COLUMNS)
            a = part[(part["graph"] == "all") & (part["model"] == m)]
            if t.empty and a.empty:
                continue
            cells = [_ms(t["micro_f1"]), _ms(t["macro_f1"]), _ms(t["micro_f1_bs"]), _ms(t["micro_f1_es"]),
                     _ms(t["micro_f1_ns"]), _ms(a["micro_f1"]) if len(a) else "– (no graph)",
                     "–" if t.empty else f"{_mean(t['seconds'])} ({_mean(t['cpu_seconds'])})"]
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


KEYS = ["split", "graph", "model"]


def read_summary(path: Path) -> pd.DataFrame:
    """``split, graph, model, micro_f1_mean, micro_f1_std`` from a results folder, its ``summary.csv``, or the
    markdown tables ``gatbio protein interactions`` prints (``## <split>`` then ``| graph | model | n | micro_f1
    | ...`` rows of ``mean ± std``)."""
    if path.is_dir():
        path = path / "summary.csv"
    if not path.is_file():
        raise SystemExit(f"{path}: no such file (a results folder, its summary.csv, or the printed summary)")
    if path.suffix == ".csv":
        try:
            df = pd.read_csv(path)
        except (ValueError, UnicodeDecodeError) as err:  # pandas' EmptyDataError and ParserError are ValueErrors
            why = str(err).splitlines()[0] if str(err) else type(err).__name__
            raise SystemExit(f"{path}: not a summary.csv of this benchmark ({why}; a results folder, its "
                             "summary.csv, or the printed summary)") from None
        missing = [c for c in KEYS + ["micro_f1_mean", "micro_f1_std"] if c not in df]
        if missing:
            raise SystemExit(f"{path}: not a summary.csv of this benchmark (no column {', '.join(missing)})")
        return df[KEYS + ["micro_f1_mean", "micro_f1_std"]]
    rows, split, cols = [], None, None
    for n, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
        line = line.strip()
        if line.startswith("## "):
            split, cols = line[3:].strip(), None
        elif line.startswith("|") and split is not None:
            cells = [c.strip() for c in line.strip("|").split("|")]
            if cols is None:
                cols = cells
            elif not set(line) <= set("|-: ") and {"graph", "model", "micro_f1"} <= set(cols):
                if len(cells) != len(cols):
                    raise SystemExit(f"{path}:{n}: {len(cells)} cells under a header of {len(cols)}")
                r = dict(zip(cols, cells, strict=True))
                try:
                    # "(n=3)": the statistic is over fewer runs than the row's (others' values undefined)
                    mean, std = re.sub(r"\s*\(n=\d+\)$", "", r["micro_f1"]).split("±")
                    mean, std = float(mean), np.nan if std.strip() == "–" else float(std)  # –: a single run
                except ValueError:
                    raise SystemExit(f"{path}:{n}: micro_f1 {r['micro_f1']!r} is not 'mean ± std' (or 'mean ± –' "
                                     "for a single run)") from None
                rows.append({"split": split, "graph": r["graph"], "model": r["model"], "micro_f1_mean": mean,
                             "micro_f1_std": std})
    if not rows:
        raise SystemExit(f"{path}: no summary table (## <split> then | graph | model | n | micro_f1 | ... rows)")
    return pd.DataFrame(rows)


def compare(results: Path, other: Path) -> pd.DataFrame:
    """This folder's summary beside ``other``'s, per (split, graph, model) present in both: ``delta`` = other −
    this, ``z`` = delta / sqrt((std² + std_other²) / 2)."""
    a, b = read_summary(results), read_summary(other)
    d = a.merge(b, on=KEYS, suffixes=("", "_other"))
    if d.empty:
        raise SystemExit(f"{results} and {other} share no (split, graph, model) row")
    d["delta"] = d["micro_f1_mean_other"] - d["micro_f1_mean"]
    spread = np.sqrt((d["micro_f1_std"] ** 2 + d["micro_f1_std_other"] ** 2) / 2)
    d["z"] = d["delta"] / spread.where(spread > 0)
    return d.round(4)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results", type=Path, help="the out_dir of a `gatbio protein interactions` run")
    ap.add_argument("--per-seed", metavar="SPLIT", choices=["random", "bfs", "dfs"], default=None,
                    help="instead: one row per seed of this split type (random, bfs or dfs)")
    ap.add_argument("--compare", metavar="OTHER", type=Path, default=None,
                    help="another run's results folder, summary.csv, or printed summary tables")
    a = ap.parse_args(argv)
    check_folder(a.results)  # a typo or another task's folder: named, not "no results: run ... first"
    if a.compare:
        d = compare(a.results, a.compare)
        with pd.option_context("display.width", 250, "display.max_columns", None, "display.max_rows", None):
            print(d.to_string(index=False))
        big = d.loc[d["delta"].abs().idxmax()]
        zmax = d["z"].abs().max()  # NaN where every row has a single run on one side (no std)
        print(f"\n{len(d)} rows; largest |delta| {abs(big['delta']):.3f} ({big['split']} {big['graph']} {big['model']}); "
              f"largest |z| {'–' if pd.isna(zmax) else f'{zmax:.2f}'}; |delta| per split, train graph: "
              + ", ".join(f"{k} {v:.3f}" for k, v in d[d["graph"] == "train"].groupby("split", sort=False)["delta"]
                          .apply(lambda x: x.abs().max()).items()))
    elif a.per_seed:
        with pd.option_context("display.width", 250, "display.max_columns", None):
            print(per_seed(a.results, a.per_seed).to_string())
    else:
        print(tables(a.results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
