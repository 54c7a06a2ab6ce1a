r"""Summaries of a hub-robustness sweep: degradation curves, their areas, the headline table, figures.

Input: the per-run JSON files written by :func:`gatbio.tasks.robustness.run` (one per dataset / model / seed
/ perturbation, each holding the curve over fractions). Output: tidy tables (mean ± std over seeds) and
figures. Everything here is a pure function of the result files, so a summary can be remade at any time
(``gatbio robustness --config FILE --summary-only``) and the notebook calls the same functions.

Definitions (per dataset, model, perturbation and seed; :math:`f` the fraction of nodes perturbed):

- ``score(f)``: micro-F1 (protein function) or PR-AUC (food-web links) on the evaluated items that survive
  the perturbation; ``clean(f)``: the same model's score on the **same** items on the clean graph, so the
  drop :math:`\Delta(f) = \mathrm{clean}(f) - \mathrm{score}(f)` measures only the effect of the perturbation
  (not the change of evaluation set when hubs are removed).
- ``relative(f) = score(f) / clean(f)``; the **area under the degradation curve** is the trapezoidal mean
  of ``relative`` over the swept fractions, :math:`\frac{1}{f_{max}}\int_0^{f_{max}} \mathrm{relative}(f)\,df`
  (1 = no degradation at any fraction).
- confidence intervals: the Student-t 95 % interval of the mean over seeds.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from gatbio.results import is_done, read_json

__all__ = [
    "load_runs",
    "read_runs",
    "with_pooled_webs",
    "attention_table",
    "curve_table",
    "auc_table",
    "headline_table",
    "headline_verdict",
    "VARIANTS",
    "mean_ci",
    "plot_curves",
    "plot_extinctions",
]

#: Per-fraction columns of a run file that are averaged in the curve table.
CURVE_METRICS = ("score", "clean", "drop", "relative", "flip_rate", "js_attention")


def read_runs(out_dir: str | Path, select: dict[str, set] | None = None) -> list[dict]:
    """The run files under ``out_dir/runs``, read, in path order; with ``select`` (``{"dataset": {...}, "model":
    {...}, ...}``, keys among task, dataset, model, seed, perturbation) only the runs whose values are in those
    sets: a folder resumed with fewer webs, models or seeds than it once ran keeps their files, which the tables of
    the current config leave out (said on stderr)."""
    # a damaged or empty file is no result (the summary says how many of the config's runs lack one)
    from gatbio.tasks.robustness import RUN_FILLED, RUN_KEYS

    runs = [read_json(p) for p in sorted(Path(out_dir).glob("runs/**/*.json")) if is_done(p, RUN_KEYS, RUN_FILLED)]
    kept = [r for r in runs if not select or all(r[k] in allowed for k, allowed in select.items())]
    if len(kept) < len(runs):
        from gatbio.data.tables import note

        note(f"{Path(out_dir) / 'runs'}: {len(runs) - len(kept)} run file(s) of webs, datasets, models, seeds or "
             "perturbations that this config does not name are left out of the summary (they stay on disk)")
    return kept


def load_runs(out_dir: str | Path, select: dict[str, set] | None = None, runs: list[dict] | None = None
              ) -> pd.DataFrame:
    """All per-fraction rows of all run files under ``out_dir/runs`` as one long DataFrame (``select``: only
    those runs, :func:`read_runs`; ``runs``: the run files already read so, not with ``select``)."""
    if runs is not None and select is not None:  # one of them: select would be silently ignored
        raise ValueError("load_runs: give select (to read the run files) or runs (already read), not both")
    rows = []
    for run in read_runs(out_dir, select) if runs is None else runs:
        meta = {k: run[k] for k in ("task", "dataset", "model", "seed", "perturbation", "metric")}
        for r in run["curve"]:
            rows.append({**meta, **r})
    if not rows:
        raise FileNotFoundError(f"no run results under {Path(out_dir) / 'runs'}: run the sweep first "
                                "(gatbio robustness --config FILE)")
    df = pd.DataFrame(rows)
    for c in CURVE_METRICS:
        if c in df:
            df[c] = pd.to_numeric(df[c], errors="coerce")
    return df


def attention_table(out_dir: str | Path, select: dict[str, set] | None = None) -> pd.DataFrame:
    """Clean-graph attention diagnostics per (dataset, model): entropy ratio and hub attention mass
    (with its uniform-attention reference), mean and std over seeds. Models without attention give NaN.
    ``select``: only those runs (:func:`read_runs`)."""
    rows = {}
    for run in read_runs(out_dir, select):
        key = (run["task"], run["dataset"], run["model"], run["seed"])
        rows[key] = {"task": key[0], "dataset": key[1], "model": key[2], "seed": key[3],
                     **{k: (np.nan if v is None else v) for k, v in run["clean_attention"].items()}}
    df = pd.DataFrame(list(rows.values()))
    if df.empty:
        raise FileNotFoundError(f"no run results under {Path(out_dir) / 'runs'}")
    cols = ["entropy_ratio", "hub_mass", "hub_mass_uniform"]
    g = df.groupby(["task", "dataset", "model"], sort=False)[cols]
    return g.mean().add_suffix("_mean").join(g.std(ddof=1).add_suffix("_std")).reset_index()


#: The dataset name of the pooled food webs (:func:`with_pooled_webs`), ``foodwebs (mean of 4)``, as a pattern.
POOLED = r"foodwebs \(mean of \d+\)"


def with_pooled_webs(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` with the food webs pooled: the mean over webs per (model, seed, perturbation, fraction), as the
    dataset ``foodwebs (mean of N)``; a frame that holds them already is returned as it is. The tables pool
    the frame they are given (``pool_webs=True``); a summary pools it once and gives them that, so that the note
    below is said once.

    Each pooled value is the mean over the webs that have one there (a web without a run file, or with a NaN value,
    is left out of that point only); when some points cover fewer webs than the label's count, a note on stderr
    says which metrics and how many webs, since such points average other webs than the rest."""
    fw = df[df["task"] == "foodweb"]
    if fw.empty or fw["dataset"].astype(str).str.fullmatch(POOLED).any():
        return df
    keys = ["task", "model", "seed", "perturbation", "metric", "fraction"]
    g = fw.groupby(keys, sort=False)[[c for c in CURVE_METRICS if c in fw]]
    pooled = g.mean().reset_index()
    webs = fw["dataset"].nunique()
    label = f"foodwebs (mean of {webs})"
    pooled["dataset"] = label
    counts = g.count()  # (points, metrics): webs with a value at each point (one run per web and point)
    short = []
    for c in counts:
        have = counts[c][counts[c] > 0]  # a metric no web has at a point (js_attention of a GCN) is NaN there
        few = have[have < webs]
        if len(few):
            span = f"{few.min()}" if few.min() == few.max() else f"{few.min()} to {few.max()}"
            short.append(f"{c} at {len(few)} of {len(have)} points ({span} webs)")
    if short:
        from gatbio.data.tables import note

        note(f"{label}: some pooled points average fewer webs (a web without a value there is left out, so they "
             f"average other webs than the rest): {'; '.join(short)}; resume the sweep so that every web has its "
             "runs, or compare those points with care")
    return pd.concat([df, pooled], ignore_index=True)


def mean_ci(values: Sequence[float], level: float = 0.95) -> tuple[float, float, float, int]:
    """Mean, lower and upper bound of the Student-t ``level`` interval of the mean, and n (NaNs dropped)."""
    v = np.asarray(values, dtype=float)
    v = v[~np.isnan(v)]
    n = v.size
    if n == 0:
        return float("nan"), float("nan"), float("nan"), 0
    m = float(v.mean())
    if n == 1:
        return m, float("nan"), float("nan"), 1
    half = float(stats.t.ppf(0.5 + level / 2, n - 1) * v.std(ddof=1) / np.sqrt(n))
    return m, m - half, m + half, n


def curve_table(df: pd.DataFrame, pool_webs: bool = True) -> pd.DataFrame:
    """Mean and std over seeds of each curve metric, per (dataset, model, perturbation, fraction).

    ``<metric>_n`` is the number of seeds behind ``<metric>_mean`` (NaN values left out: a seed whose perturbation
    left no item to score has none), and ``n`` that of ``score`` (of the metric with most values, without one)."""
    if pool_webs:
        df = with_pooled_webs(df)
    keys = ["task", "dataset", "model", "perturbation", "fraction"]
    metrics = [c for c in CURVE_METRICS if c in df]
    g = df.groupby(keys, sort=False)[metrics]
    counts = g.count()  # non-NaN values per metric (g.size() counted the rows, NaN included)
    n = counts["score"] if "score" in counts else counts.max(axis=1)
    out = (g.mean().add_suffix("_mean").join(g.std(ddof=1).add_suffix("_std")).join(counts.add_suffix("_n"))
           .join(n.rename("n")))
    return out.reset_index().sort_values(keys, kind="stable").reset_index(drop=True)


def _area(group: pd.DataFrame) -> float:
    g = group.sort_values("fraction")
    f, r = g["fraction"].to_numpy(float), g["relative"].to_numpy(float)
    ok = ~np.isnan(r)
    f, r = f[ok], r[ok]
    if f.size < 2 or f[-1] <= f[0]:
        return float("nan")
    return float(np.trapezoid(r, f) / (f[-1] - f[0]))


def auc_table(df: pd.DataFrame, pool_webs: bool = True) -> pd.DataFrame:
    """Area under each degradation curve (mean relative score over the swept fractions), mean ± std over seeds.

    One row per (dataset, model, perturbation): ``auc_mean``, ``auc_std``, ``n`` seeds, and ``clean``, the
    mean clean score at fraction 0. ``n`` counts the seeds with an area, those that ``auc_mean`` averages: a seed
    whose curve has fewer than two fractions with a score (its area is NaN) is not counted.
    """
    if pool_webs:
        df = with_pooled_webs(df)
    keys = ["task", "dataset", "model", "perturbation"]
    per_seed = (df.groupby(keys + ["seed"], sort=False)[["fraction", "relative"]]
                .apply(_area).rename("auc").reset_index())
    clean = df[df["fraction"] == 0].groupby(keys, sort=False)["clean"].mean().rename("clean")
    g = per_seed.groupby(keys, sort=False)["auc"]
    out = pd.concat([g.mean().rename("auc_mean"), g.std(ddof=1).rename("auc_std"), g.count().rename("n")], axis=1)
    return out.join(clean).reset_index()


def headline_table(df: pd.DataFrame, fraction: float = 0.05, perturbations: Sequence[str] = ("degree", "feature_noise"),
                   reference: str = "pyg_gat", value: str = "drop", pool_webs: bool = True) -> pd.DataFrame:
    """``value`` at ``fraction`` per model (mean, 95 % CI over seeds) and its ratio to the ``reference`` model.

    ``value`` is ``"drop"`` (clean score − perturbed score on the same items) or ``"flip_rate"`` (share of
    unperturbed items whose prediction changed). ``ratio`` is mean / mean of ``reference`` (vanilla GAT; NaN
    when that is not positive); the target of the robustness study is a degree-normalised or
    temperature-controlled variant with ``ratio <= 0.5``. ``ratio_ci_*`` is a paired percentile bootstrap
    over seeds (2,000 resamples, a generator seeded 0 afresh for each model's pair: a pair's interval does not
    depend on which other models, webs or datasets the sweep holds) on the seeds both models share.

    Returns one row per (dataset, perturbation, model): ``value``, ``clean``, ``mean``, ``ci_low``,
    ``ci_high``, ``n``, ``ratio``, ``ratio_ci_low``, ``ratio_ci_high``.
    """
    if pool_webs:
        df = with_pooled_webs(df)
    at = df[np.isclose(df["fraction"], fraction) & df["perturbation"].isin(list(perturbations))]
    rows = []
    for (task, dataset, pert), grp in at.groupby(["task", "dataset", "perturbation"], sort=False):
        ref = grp[grp["model"] == reference].set_index("seed")[value]
        ref_mean = float(ref.mean()) if len(ref) else float("nan")
        for model, g in grp.groupby("model", sort=False):
            m, lo, hi, n = mean_ci(g[value])
            row = {"task": task, "dataset": dataset, "perturbation": pert, "model": model, "fraction": fraction,
                   "value": value, "clean": float(g["clean"].mean()), "mean": m, "ci_low": lo, "ci_high": hi,
                   "n": n, "ratio": m / ref_mean if ref_mean > 0 else float("nan"),
                   "ratio_ci_low": float("nan"), "ratio_ci_high": float("nan")}
            mine = g.set_index("seed")[value]
            both = mine.index.intersection(ref.index)
            if len(both) >= 2 and ref_mean > 0:
                a, b = mine.loc[both].to_numpy(float), ref.loc[both].to_numpy(float)
                idx = np.random.default_rng(0).integers(0, len(both), size=(2000, len(both)))
                with np.errstate(divide="ignore", invalid="ignore"):
                    boots = a[idx].mean(1) / b[idx].mean(1)
                finite = np.isfinite(boots)
                dropped = int((~finite).sum())
                if dropped:  # a resample whose reference mean is 0 (or a NaN value): no ratio; said, not hidden
                    from gatbio.data.tables import note

                    note(f"headline {dataset} / {pert} / {model} ({value} at {fraction:g}): {dropped} of {boots.size} "
                         f"bootstrap resamples have no finite ratio to {reference} (its mean over the resampled seeds "
                         "is 0, or a value is NaN) and are left out of ratio_ci; "
                         + (f"the interval rests on the other {boots.size - dropped}" if finite.any() else
                            "no interval is left"))
                boots = boots[finite]
                if boots.size:
                    row["ratio_ci_low"], row["ratio_ci_high"] = np.percentile(boots, [2.5, 97.5]).tolist()
            rows.append(row)
    return pd.DataFrame(rows, columns=HEADLINE_COLUMNS)


#: Columns of :func:`headline_table` (also when no run matches: a sweep without degree or feature-noise
#: perturbations has no headline, and later steps still find the columns they select).
HEADLINE_COLUMNS = ["task", "dataset", "perturbation", "model", "fraction", "value", "clean", "mean", "ci_low",
                    "ci_high", "n", "ratio", "ratio_ci_low", "ratio_ci_high"]
#: Columns of :func:`headline_verdict`.
VERDICT_COLUMNS = ["task", "dataset", "perturbation", "value", "vanilla", "vanilla_ci_low", "vanilla_ci_high",
                   "best", "best_mean", "best_ci_low", "best_ci_high", "ratio", "ratio_ci_low", "ratio_ci_high",
                   "target_met"]

#: The degree-normalised or temperature-controlled variants the headline target is about.
VARIANTS = ("gat_log", "gat_sym", "gat_t0.5", "gat_t2", "gat_tlearn", "gat_log_tlearn")


def headline_verdict(head: pd.DataFrame, reference: str = "pyg_gat", target: float = 0.5) -> pd.DataFrame:
    """Per (dataset, perturbation, value) of a :func:`headline_table`: vanilla GAT's mean with its CI, the best
    variant (smallest mean among :data:`VARIANTS`), its mean and ratio with their intervals, and the verdict.

    ``target_met`` is ``"undefined"`` when vanilla GAT does not degrade significantly (the lower bound of its
    95 % interval is not above 0: there is nothing to halve), else ``"yes"`` when the ratio's bootstrap upper
    bound is within ``target``, ``"point only"`` when only the mean ratio is, and ``"no"`` otherwise."""
    rows = []
    if head.empty:
        return pd.DataFrame(rows, columns=VERDICT_COLUMNS)
    for (task, dataset, pert, value), g in head.groupby(["task", "dataset", "perturbation", "value"], sort=False):
        ref = g[g["model"] == reference]
        # a variant without a value (NaN mean: no seed gave one) cannot be the best; with none left there is no
        # verdict (idxmin over all-NaN means raised "Encountered all NA values" and stopped the whole summary)
        var = g[g["model"].isin(VARIANTS) & g["mean"].notna()]
        if ref.empty or var.empty:
            continue
        ref, best = ref.iloc[0], var.loc[var["mean"].idxmin()]
        ratio, hi = best["ratio"], best["ratio_ci_high"]
        if not ref["ci_low"] > 0:
            met = "undefined"
        elif np.isfinite(hi) and hi <= target:
            met = "yes"
        elif ratio <= target:
            met = "point only"
        else:
            met = "no"
        rows.append({"task": task, "dataset": dataset, "perturbation": pert, "value": value,
                     "vanilla": ref["mean"], "vanilla_ci_low": ref["ci_low"], "vanilla_ci_high": ref["ci_high"],
                     "best": best["model"], "best_mean": best["mean"], "best_ci_low": best["ci_low"],
                     "best_ci_high": best["ci_high"], "ratio": ratio, "ratio_ci_low": best["ratio_ci_low"],
                     "ratio_ci_high": hi, "target_met": met})
    return pd.DataFrame(rows, columns=VERDICT_COLUMNS)


#: Resolution of the saved figures (pixels per inch).
DPI = 120


def _figure(size: tuple[float, float], path: str | Path | None):
    """A figure for a plot: pyplot's (shown inline in a notebook) when it is not written to ``path``, else one
    outside pyplot (:func:`gatbio.plot._new_figure`)."""
    if path is None:
        import matplotlib.pyplot as plt

        return plt.figure(figsize=size)
    from gatbio.plot import _new_figure

    return _new_figure(size, dpi=DPI, layout=None)  # tight_layout, as the notebook's figures


def _save(fig, path: str | Path) -> None:
    """Write ``fig`` atomically (:func:`gatbio.plot.save_figure`: a killed run leaves no truncated image) and
    close it, also when writing fails."""
    import matplotlib.pyplot as plt

    from gatbio.plot import save_figure

    try:
        save_figure(fig, path, dpi=DPI)
    finally:
        plt.close(fig)  # nothing to do for a figure outside pyplot


def plot_curves(curves: pd.DataFrame, dataset: str, metric_name: str = "score", path: str | Path | None = None):
    """Degradation curves of one dataset: one panel per perturbation, one line (± std band) per model."""
    d = curves[curves["dataset"] == dataset]
    if d.empty:  # matplotlib said "Number of columns must be a positive integer, not 0"
        have = ", ".join(map(repr, dict.fromkeys(curves["dataset"]))) or "none"
        raise ValueError(f"dataset={dataset!r} is not in the curve table; datasets it has: {have}")
    perts = list(dict.fromkeys(d["perturbation"]))
    fig = _figure((3.2 * len(perts), 3.0), path)
    axes = fig.subplots(1, len(perts), sharey=True, squeeze=False)
    for ax, pert in zip(axes[0], perts, strict=True):
        for model, g in d[d["perturbation"] == pert].groupby("model", sort=False):
            g = g.sort_values("fraction")
            x, y, s = 100 * g["fraction"], g[f"{metric_name}_mean"], g[f"{metric_name}_std"].fillna(0)
            ax.plot(x, y, marker="o", ms=3, label=model, lw=1.8 if model == "pyg_gat" else 1.0)
            ax.fill_between(x, y - s, y + s, alpha=0.12)
        ax.set_title(pert)
        ax.set_xlabel("% nodes perturbed")
    axes[0][0].set_ylabel({"relative": "score / clean score (same items)"}.get(metric_name, metric_name))
    axes[0][-1].legend(fontsize=6, loc="lower left")
    fig.suptitle(dataset, fontsize=9)
    fig.tight_layout()
    if path is not None:
        _save(fig, path)
    return fig


def plot_extinctions(curves: pd.DataFrame, path: str | Path | None = None):
    """Secondary-extinction curves (fraction lost vs fraction removed) of each web, one panel per order."""
    orders = list(dict.fromkeys(curves["order"]))
    fig = _figure((3.2 * len(orders), 3.0), path)
    axes = fig.subplots(1, len(orders), sharey=True, squeeze=False)
    for ax, order in zip(axes[0], orders, strict=True):
        for web, g in curves[(curves["order"] == order) & (curves["seed"] == curves["seed"].min())].groupby("web"):
            ax.plot(g["removed"], g["lost"], lw=1, label=web)
        ax.axhline(0.5, color="k", lw=0.5, ls="--")
        ax.plot([0, 1], [0, 1], color="grey", lw=0.5, ls=":")
        ax.set_title(order)
        ax.set_xlabel("fraction removed")
    axes[0][0].set_ylabel("fraction lost (primary + secondary)")
    axes[0][-1].legend(fontsize=6)
    fig.tight_layout()
    if path is not None:
        _save(fig, path)
    return fig
