r"""Why the protein-function targets are missed: label homophily, and where the GAT ensemble loses on yeast.

Runs, on the protocol's own splits (``gatbio.tasks.protein.make_split``, 50% labelled by default, seeds 0-9)
and with the protocol's own members and settings (``experiments/configs/protein_full.yaml`` defaults):

1. **label homophily** of both graphs (:func:`gatbio.metrics.label_homophily`): how much more often a
   neighbour shares a protein's label than a degree-preserving random edge end does;
2. **training data**: LR-NetMF fitted on the 90% of the training proteins the neural models see (the rest is
   their early-stopping part) against all of them, as the protocol fits the logistic regressions;
3. **variance of one neural fit**: GAT and GATv2 from one initialisation (the protocol) against the mean of
   three (seeds s, s + 1000, s + 2000);
4. **the label-prior correction**: the ensembles with the exponent γ chosen on the validation proteins (the
   protocol) against no correction (γ = 0);
5. **the rank-128 truncation**: one-vs-rest logistic regression (as LR-NetMF) on the full rows of the NetMF
   matrix :math:`\log\max(M, 1)` (:func:`gatbio.embed.netmf_matrix`, window 3, rows scaled to unit length)
   instead of their 128-dimensional SVD: what the embedding step leaves out.

Each (dataset, fraction, seed) is written to ``runs/`` as it finishes (an interrupted run resumes); ``diagnostics.md``
holds the means over seeds. 8.3 min for both fractions on a 2-core machine (``--jobs 2``).

Run with ``python experiments/protein_diagnostics.py`` (see there for the options) or :func:`run`.
"""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
import pandas as pd
import torch

from gatbio.metrics import label_homophily
from gatbio.results import (
    atomic_write_text,
    format_mean_std,
    is_done,
    markdown_table,
    over_seeds,
    read_json,
    software,
    summarize,
    write_json,
)
from gatbio.tasks import protein as pr

ROWS_WINDOW = 3  #: NetMF window of the matrix rows in diagnostic 5
BAG = 3  #: initialisations averaged in the "3 inits" rows
#: What the diagnostics run on: the protein-function task's single-graph datasets with node labels
#: (:func:`gatbio.tasks.protein.check`; the 24-graph benchmark, the tissue networks and the pair tables are not).
DATASETS = ("yeast-bu2003", "node2vec-ppi")
LR_MEMBERS = ("lr_prone", "lr_netmf", "knn_prone")  # = protein.ENSEMBLES["lr_ens"]
NEURAL_MEMBERS = ("gat", "gatv2", "mlp")  # gat_ens = LR_MEMBERS + these


def score(y: np.ndarray, proba: np.ndarray, multilabel: bool) -> dict[str, float]:
    """Accuracy (single-label) or Micro-F1 (multi-label, top-k), and Macro-F1, as in the protocol."""
    m = pr.evaluate(y, proba, multilabel)
    key = "micro_f1" if multilabel else "accuracy"
    return {key: m[key], "macro_f1": m["macro_f1"]}


@functools.lru_cache(maxsize=2)
def _setup(dataset: str):
    """Config, graph and embeddings, once per dataset and worker process."""
    import scipy.sparse as sp
    from sklearn.preprocessing import normalize

    from gatbio.embed import netmf_matrix

    cfg = pr.ProteinConfig(dataset=dataset, variants=list(LR_MEMBERS + NEURAL_MEMBERS), attention_example=False)
    data = pr.load_data(dataset)
    inputs = pr.compute_inputs(cfg, data)
    rows = normalize(netmf_matrix(data.edge_index, data.num_nodes, window=ROWS_WINDOW))  # (N, N), ~10% non-zero
    return cfg, data, {**inputs, "rows": sp.csr_matrix(rows)}


def unit(dataset: str, fraction: float, seed: int, out: Path) -> dict:
    """All diagnostics of one (dataset, fraction, seed) split, on one thread (torch and BLAS, as the protocol's
    ``threads: 1``; :func:`gatbio.parallel.unit_threads`); written to ``out/runs``."""
    from gatbio.parallel import unit_threads

    path = out / "runs" / f"{dataset}_f{pr._frac_tag(fraction)}_s{seed}.json"
    if is_done(path):
        return read_json(path)
    with unit_threads(1):
        result = _unit(dataset, fraction, seed)
    write_json(path, result)
    return result


def _unit(dataset: str, fraction: float, seed: int) -> dict:
    from gatbio.train import predict

    cfg, data, inputs = _setup(dataset)
    ml = pr.is_multilabel(data)
    sp = pr.make_split(data, fraction, seed, cfg.val_fraction)
    train, val, fit_idx = (torch.tensor(sp[k], dtype=torch.long) for k in ("train", "val", "fit"))
    y = data.y.cpu().numpy()
    test, val_np = np.asarray(sp["test"]), np.asarray(sp["val"])
    # member probabilities: "val" = fitted without the validation proteins (scored on them), "test" = as in the
    # protocol (LR / kNN on all training proteins, neural models on the fit part)
    val_p: dict[str, np.ndarray] = {}
    test_p: dict[str, np.ndarray] = {}
    for m in LR_MEMBERS:
        emb = inputs[m.split("_")[1]].cpu().numpy()
        fn = pr.knn_vote if m.startswith("knn") else pr.logistic_regression
        on_fit = fn(emb, y, sp["fit"], ml)
        val_p[m], test_p[m] = on_fit[val_np], fn(emb, y, sp["train"], ml)
        if m == "lr_netmf":
            test_p["lr_netmf (fit part only)"] = on_fit
    test_p[f"lr on netmf matrix rows (T={ROWS_WINDOW})"] = pr.logistic_regression(inputs["rows"], y, sp["train"], ml)
    for m in NEURAL_MEMBERS:
        probas = []
        for b in range(BAG if m != "mlp" else 1):
            model, _ = pr.train_neural(cfg, m, data, inputs["nn"], fit_idx, val, seed + 1000 * b)
            probas.append(predict(model, inputs["nn"], data.edge_index, data.y, train).cpu().numpy())
        test_p[m], val_p[m] = probas[0], probas[0][val_np]
        if len(probas) > 1:
            test_p[f"{m} ({BAG} inits)"] = np.mean(probas, axis=0)
            val_p[f"{m} ({BAG} inits)"] = test_p[f"{m} ({BAG} inits)"][val_np]
    rows = {name: score(y[test], p[test], ml) for name, p in test_p.items()}
    prior_fit, prior_train = pr.label_prior(data.y, fit_idx), pr.label_prior(data.y, train)
    bagged = [f"{m} ({BAG} inits)" if m != "mlp" else m for m in NEURAL_MEMBERS]
    for name, members in (("lr_ens", LR_MEMBERS), ("gat_ens", LR_MEMBERS + NEURAL_MEMBERS),
                          (f"gat_ens ({BAG} inits)", LR_MEMBERS + tuple(bagged))):
        v = np.mean([val_p[m] for m in members], axis=0)
        t = np.mean([test_p[m] for m in members], axis=0)
        gamma = pr.choose_prior_power(y[val_np], v, prior_fit, ml)
        rows[f"{name}, γ on validation"] = {**score(y[test], (t / prior_train**gamma)[test], ml), "gamma": gamma}
        rows[f"{name}, γ = 0"] = score(y[test], t[test], ml)
    return {"dataset": dataset, "seed": seed, "fraction": fraction, "rows": rows, "threads": 1,
            "software": software()}


def homophily_table(datasets: list[str]) -> pd.DataFrame:
    rows = []
    for ds in datasets:
        data = pr.load_data(ds)
        h = label_homophily(data.edge_index, data.y)
        rows.append({"dataset": ds, "neighbour shares the label": round(h["homophily"], 3),
                     "chance (degree-preserving)": round(h["expected"], 3), "lift": round(h["lift"], 2)})
    return pd.DataFrame(rows)


def summary(results: list[dict]) -> str:
    """One mean ± std table per (dataset, fraction), rows in the order the units wrote them."""
    parts = []
    for ds, frac in dict.fromkeys((r["dataset"], r["fraction"]) for r in results):
        df = pd.DataFrame([{"model": name, **vals} for r in results if (r["dataset"], r["fraction"]) == (ds, frac)
                           for name, vals in r["rows"].items()])
        metrics = [c for c in ("accuracy", "micro_f1", "macro_f1") if c in df.columns]
        table = format_mean_std(summarize(df, ["model"], metrics, digits=None), ["model"], metrics)
        seeds = [r["seed"] for r in results if (r["dataset"], r["fraction"]) == (ds, frac)]
        parts.append(f"### {ds}, {frac:.0%} labelled ({over_seeds(seeds)})\n\n{markdown_table(table)}")
    return "\n\n".join(parts)


def check(datasets, seeds, jobs: int, out: str | Path, fractions) -> list[str]:
    """The arguments of :func:`run`, checked before any work: datasets of :data:`DATASETS`, each once; seeds >= 0,
    each once; at least one job, labelled fractions in (0, 1) and a writable ``out``.

    Returns:
        the datasets in the registry's spelling (:func:`gatbio.data.sources.resolve_name`, as
        :func:`gatbio.data.load` takes them: ``YEAST-BU2003`` is ``yeast-bu2003``), what :func:`run` is given, so
        that the run files of a dataset have one name and an interrupted run resumes whichever case it is given in.
    """
    from gatbio._paths import check_output_dir
    from gatbio.data.sources import UnknownDatasetError, resolve_name, unknown_name

    spelt = []
    for ds in datasets:
        try:
            name = resolve_name(ds)
        except UnknownDatasetError:
            raise unknown_name("dataset", ds, list(DATASETS)) from None
        if name not in DATASETS:
            raise ValueError(f"--datasets {ds}: not a dataset these diagnostics run on (single-graph protein-function "
                             f"datasets with node labels: {', '.join(DATASETS)})")
        spelt.append(name)
    if len(set(spelt)) < len(spelt):
        raise ValueError(f"--datasets {' '.join(datasets)}: give each dataset once")
    if not seeds or any(s < 0 for s in seeds):
        raise ValueError(f"--seeds {list(seeds)}: give one or more seeds >= 0")
    if len(set(seeds)) < len(seeds):  # a repeated seed is the same split: it would count twice in the means
        raise ValueError(f"--seeds {' '.join(map(str, seeds))}: give each seed once")
    if jobs < 1:
        raise ValueError(f"--jobs {jobs}: give at least 1")
    if not fractions or any(not 0 < f < 1 for f in fractions):
        raise ValueError(f"--fractions {list(fractions)}: each labelled fraction must be in (0, 1)")
    if len(set(fractions)) < len(fractions):
        raise ValueError(f"--fractions {' '.join(map(str, fractions))}: give each fraction once")
    check_output_dir(out, "--out")
    return spelt


def run(datasets=("yeast-bu2003", "node2vec-ppi"), seeds=tuple(range(10)), jobs: int = 2,
        out: str | Path = "results/protein_diagnostics", fractions=(0.5,)) -> str:
    """All diagnostics; returns the markdown also written to ``out/diagnostics.md``. The arguments are checked first
    (:func:`check`: a dataset in another case, ``YEAST-BU2003``, is run and its files named as ``yeast-bu2003``)."""
    from gatbio.parallel import parallel_map

    datasets = check(datasets, seeds, jobs, out, fractions)
    out = Path(out)
    hom = homophily_table(list(datasets))
    results = parallel_map(unit, [(ds, f, s, out) for ds in datasets for f in fractions for s in seeds],
                           jobs=jobs, desc="protein diagnostics: dataset x fraction x seed")
    text = f"## Label homophily\n\n{markdown_table(hom)}\n\n{summary(results)}\n"
    atomic_write_text(out / "diagnostics.md", text)
    return text
