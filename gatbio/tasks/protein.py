r"""Protein function prediction on PPI graphs: config → seeds → data → train → results → summary.

What one run does (:func:`run`), for each labelled fraction f and repetition seed s:

1. split the labelled proteins: a fraction f for training, the rest for test (:func:`gatbio.data.splits.node_split`,
   saved to ``splits/``); a validation part (``val_fraction`` of the *training* proteins) is carved out for early
   stopping and for the realistic threshold, so test labels are never seen;
2. compute node inputs once per graph (NetMF / ProNE / spectral embeddings, PyG encodings: unsupervised,
   from the graph alone, :mod:`gatbio.embed`);
3. run every variant in ``variants`` (:data:`VARIANTS`) on the same split and write one JSON per
   (fraction, seed, variant), ``runs/<dataset>/f<fraction>_s<seed>/<variant>.json`` (finished runs are skipped when the sweep is resumed);
4. summarise mean ± std over seeds (``summary.csv``, ``summary.md``) and plot F1 against the labelled fraction
   (``f1_vs_fraction.png``).

Metrics. Multi-label (node2vec-PPI): the published protocol of node2vec / NetMF / ProNE, each test protein
gets its top-k labels with k its true label count (:func:`gatbio.metrics.f1_top_k`), Micro- and Macro-F1; and
the *realistic* score (``*_thr``) that does not peek at k: one global probability threshold chosen on the
validation proteins (:func:`gatbio.metrics.f1_threshold`). Single-label (yeast): accuracy and Macro-F1.

Variants. Baselines: ``neighbor_vote`` (labels of labelled neighbours), ``label_prop`` (PyG
``LabelPropagation``, Zhou et al. 2004), ``lr_spectral`` / ``lr_netmf`` / ``lr_prone`` (one-vs-rest liblinear
logistic regression on the embedding: the published pipeline), ``knn_prone`` (cosine k-nearest training
proteins in ProNE space, similarity-weighted label vote), ``mlp``, ``gcn`` (PyG ``GCNConv``), ``pyg_gat`` (PyG
``GATConv``). Ours (:class:`gatbio.nn.node_models.GATNodeClassifier` on :class:`gatbio.nn.GATConv`): ``gat``,
``gat_degnorm`` (log-degree factor), ``gat_temp`` (learnt temperature), ``gat_degnorm_temp``, ``gatv2``,
``gat_labels`` (+ label input, label trick). Neural models train on the training proteins minus the
validation part; the logistic regressions and neighbour methods on all training proteins, as in the published
protocol.

Ensembles (:data:`ENSEMBLES`) average their members' probabilities and then apply a **label-prior
correction**, :math:`\tilde p_{il} = p_{il} / \pi_l^{\gamma}` with :math:`\pi_l` the label's frequency among
the training proteins. Ranking labels per protein by :math:`p_{il}` favours frequent labels; dividing by a power
of the prior (a one-parameter form of the Bayes-optimal correction for a balanced metric) recovers rare labels,
which is what Macro-F1 rewards. :math:`\gamma \in \{0, 0.25, 0.5, 0.75, 1\}` is chosen on the validation
proteins with every member refitted *without* them (the same models that give the realistic threshold), by
Macro-F1 (accuracy + Macro-F1 for single-label data), so test labels are never seen. ``gat_ens``
(GAT, GATv2, MLP, LR-ProNE, LR-NetMF, kNN-ProNE) is our GAT-based ensemble; ``lr_ens`` is the same ensemble
without the neural members (a baseline: what the GAT adds; on node2vec-PPI and yeast it is the better one);
``gat_labels+lr`` is ``gat_labels`` + LR-ProNE.
"""

from __future__ import annotations

import copy
import functools
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import torch

from gatbio.config import load_config
from gatbio.metrics import f1_threshold, f1_top_k
from gatbio.parallel import unit_threads
from gatbio.results import (
    UnitStage,
    format_mean_std,
    holds_json,
    is_done,
    markdown_table,
    missing_runs_note,
    mixed_configs_note,
    over_seeds,
    proba_path,
    read_json,
    restore_splits,
    round_stats,
    settings_fingerprint,
    software,
    summarize,
    write_csv,
    write_json,
    write_npz,
)

__all__ = [
    "ProteinConfig", "VARIANTS", "load", "run", "run_quick", "run_unit", "summarize_runs", "plot_f1",
    "node_features", "knn_vote", "choose_prior_power", "make_model", "last_layer_attention",
    "attention_neighbourhood", "early_stopping_split", "predict_unannotated", "check_functions_differ",
    "QUICK_CONFIG", "PREDICT_SETTINGS", "check_predict_data",
]

BASELINES = ("neighbor_vote", "label_prop", "lr_spectral", "lr_netmf", "lr_prone", "knn_prone")
#: GATNodeClassifier options per neural variant (merged over the config's model settings).
NEURAL: dict[str, dict[str, Any]] = {
    "mlp": {"conv": "mlp"},
    "gcn": {"conv": "gcn"},
    "pyg_gat": {"conv": "pyg-gat"},
    "gat": {},
    "gat_degnorm": {"degree_norm": "log"},
    "gat_temp": {"temperature": "learn"},
    "gat_degnorm_temp": {"degree_norm": "log", "temperature": "learn"},
    "gatv2": {"attention": "gatv2"},
    "gat_labels": {"labels": True},
}
#: Ensembles: name → members whose probabilities are averaged (then prior-corrected, see the module docstring).
ENSEMBLES: dict[str, tuple[str, ...]] = {
    "lr_ens": ("lr_prone", "lr_netmf", "knn_prone"),  # baseline: the ensemble without neural members
    "gat_labels+lr": ("gat_labels", "lr_prone"),
    "gat_ens": ("gat", "gatv2", "mlp", "lr_prone", "lr_netmf", "knn_prone"),  # our best model
}
#: Model settings of ``gatbio protein predict`` (one model on a user's graph, trained once): wider and more
#: patient than the sweep's defaults, which are tuned for 90 repetitions on node2vec-PPI; on small label tables
#: (a validation part of a few proteins) the 16-channel model was under-confident.
PREDICT_SETTINGS: dict[str, Any] = {"hidden": 32, "epochs": 100, "eval_every": 4, "patience": 6}
#: Exponents of the label-prior correction tried on the validation proteins.
PRIOR_POWERS = (0.0, 0.25, 0.5, 0.75, 1.0)
VARIANTS = BASELINES + tuple(NEURAL) + tuple(ENSEMBLES)

#: The quick config shipped with the package (``make demo``, notebook test); mirrors protein_quick.yaml.
QUICK_CONFIG: dict[str, Any] = {
    "name": "protein_quick", "fractions": [0.5], "seeds": [0],
    "variants": ["neighbor_vote", "lr_prone", "gat", "gat_labels", "gat_labels+lr"], "epochs": 60,
}


@dataclass
class ProteinConfig:
    """One protein-function experiment (YAML in ``experiments/configs/protein_*.yaml``)."""

    name: str = "protein"
    dataset: str = "node2vec-ppi"  #: node2vec-ppi (multi-label) or yeast-bu2003 (single-label)
    fractions: list[float] = field(default_factory=lambda: [0.5])  #: labelled fraction used for training
    seeds: list[int] = field(default_factory=lambda: [0, 1, 2])  #: one repetition (split + init) per seed
    variants: list[str] = field(default_factory=lambda: list(VARIANTS))
    val_fraction: float = 0.1  #: of the training proteins, for early stopping and the realistic threshold
    # node inputs of the neural models (see gatbio.embed.EMBEDDINGS; "id" = learnable node embeddings)
    inputs: list[str] = field(default_factory=lambda: ["prone", "netmf"])
    embed_dim: int = 128
    embed_seed: int = 0
    # model
    hidden: int = 16  #: channels per head (16 x 4 heads: as accurate as 32 x 4 here, half the time)
    heads: int = 4
    layers: int = 2
    dropout: float = 0.5
    input_dropout: float = 0.5
    attn_dropout: float = 0.2
    id_dim: int = 64  #: size of learnable node-ID embeddings when inputs contain "id"
    # training
    epochs: int = 80
    lr: float = 0.01
    weight_decay: float = 5e-4
    patience: int = 8  #: evaluations without improvement
    eval_every: int = 2
    # output
    out_dir: str = "results/protein"
    jobs: int = 1  #: parallel (fraction, seed) units
    threads: int = 1  #: torch and BLAS threads per worker and for the embeddings (results depend on it: gatbio.parallel.unit_threads)
    attention_example: bool = True  #: save one protein's attention neighbourhood (gat_labels or gat, first unit)
    #: also write each run's probabilities beside its result, ``<variant>.proba.npz`` (test_nodes, test_proba,
    #: val_nodes, val_proba as float32; threshold: the realistic one, NaN for single-label data), for metrics of
    #: one's own; off by default (node2vec-PPI: up to 0.63 MB per run, some hundreds of MB for the full sweep).
    #: Turned on for a finished folder, it redoes the runs that lack the file.
    save_proba: bool = False
    #: where the neural models train: auto (a CUDA GPU when available, else the CPU), cpu, cuda, cuda:N, mps
    #: (gatbio.device); embeddings and the scikit-learn baselines run on the CPU. Stored resolved (e.g. cuda:0).
    device: str = "auto"


def load(path: str | Path | None = None, overrides: list[str] | None = None) -> ProteinConfig:
    """Config from YAML + ``key=value`` overrides, checked (unknown variants / inputs / fractions name the fix)."""
    cfg = load_config(ProteinConfig, path, overrides)
    check(cfg)
    return cfg


#: Settings that make no sense, rejected before any work (:func:`gatbio.config.check_settings`).
SETTING_RULES = {
    "fractions": "nonempty; unique", "seeds": "nonempty; unique; >=0", "variants": "nonempty; unique", "val_fraction": "(0, 1)",
    "embed_dim": ">0",
    "embed_seed": ">=0", "hidden": ">0", "heads": ">0", "layers": ">0", "dropout": "[0, 1)", "input_dropout": "[0, 1)",
    "attn_dropout": "[0, 1)", "id_dim": ">0", "epochs": ">0", "lr": ">0", "weight_decay": ">=0", "patience": ">0",
    "eval_every": ">0", "jobs": ">0", "threads": ">0",
    "inputs": "unique",
}

#: Config keys that never change a finished run's result: where and how fast the sweep runs, and which
#: (dataset, fraction, seed, variant) runs it does (each has its own file). A resumed sweep may change these;
#: any other difference is refused (:func:`gatbio.results.prepare_out_dir`).
RESUME_FREE_KEYS = ("name", "out_dir", "jobs", "threads", "dataset", "fractions", "seeds", "variants",
                    "attention_example", "device", "save_proba")

#: Free keys that only say how runs are made: a summary (``--summary-only``) ignores them, and says so when they
#: differ from the folder's config.
SUMMARY_IGNORES = ("jobs", "threads", "attention_example", "save_proba", "device")

#: What :func:`run` writes in ``out_dir`` (``--restart`` deletes exactly these).
OUTPUTS = ("runs", "splits", "summary.csv", "summary.md", "f1_vs_fraction.png", "embedding_time.json",
           "attention_example.json")
#: What a run file holds (:func:`gatbio.results.is_done`: one without them is redone): its names and a result
#: (a file holding only the names was read as finished, and its run left out of the tables for good)
RUN_KEYS = ("fraction", "variant", "seed", "macro_f1")


def check(cfg: ProteinConfig) -> None:
    from gatbio.config import check_settings
    from gatbio.embed import EMBEDDINGS

    check_settings(cfg, SETTING_RULES)

    bad = [v for v in cfg.variants if v not in VARIANTS]
    if bad:
        raise ValueError(f"unknown variant(s) {bad} in 'variants'; choose from {', '.join(VARIANTS)}")
    bad = [k for k in cfg.inputs if k not in EMBEDDINGS + ("id",)]
    if bad or not cfg.inputs:
        raise ValueError(f"'inputs' must be a non-empty list of {', '.join(EMBEDDINGS + ('id',))}; got {cfg.inputs}")
    bad = [f for f in cfg.fractions if not 0 < f < 1]
    if bad or not cfg.fractions:
        raise ValueError(f"'fractions' must be in (0, 1) exclusive, got {cfg.fractions}")
    if not cfg.seeds:
        raise ValueError("'seeds' is empty: give at least one seed, e.g. seeds=[0]")
    if not 0 < cfg.val_fraction < 1:
        raise ValueError(f"val_fraction={cfg.val_fraction} must be in (0, 1)")
    if cfg.dataset not in ("node2vec-ppi", "yeast-bu2003"):
        raise ValueError(f"dataset={cfg.dataset!r}: this task runs node2vec-ppi or yeast-bu2003 "
                         "(the 24-graph PPI benchmark: gatbio.tasks.protein_ppi)")


# ----------------------------------------------------------------------------------------------- data + inputs
def load_data(name: str):
    """The PPI graph with self-loops removed (GATConv adds its own; NetMF/ProNE see the interactions only)."""
    from gatbio.data import load as load_dataset

    return load_dataset(name, self_loops="remove")


def node_features(data, kinds, dim: int = 128, seed: int = 0, standardize: bool = True) -> torch.Tensor | None:
    """Inputs for the neural models: embeddings / encodings of ``kinds`` (minus ``"id"``), or ``None``."""
    from gatbio.embed import node_inputs

    kinds = [k for k in kinds if k != "id"]
    if not kinds:
        return None
    return node_inputs(data.edge_index, data.num_nodes, kinds=kinds, dim=dim, seed=seed, standardize=standardize)


def is_multilabel(data) -> bool:
    return data.y.dim() == 2


def labelled_mask(data) -> torch.Tensor:
    return data.y.sum(1) > 0 if is_multilabel(data) else data.y >= 0


def num_labels(data) -> int:
    return data.y.size(1) if is_multilabel(data) else int(data.y.max()) + 1


# ----------------------------------------------------------------------------------------------- metrics
def evaluate(y_true: np.ndarray, proba: np.ndarray, multilabel: bool, threshold: float | None = None) -> dict:
    """The task's metrics on one set of proteins (see module docstring)."""
    from sklearn.metrics import accuracy_score, f1_score

    if multilabel:
        out = f1_top_k(y_true, proba)
        if threshold is not None:
            thr = f1_threshold(y_true, proba, threshold)
            out.update(micro_f1_thr=thr["micro_f1"], macro_f1_thr=thr["macro_f1"], threshold=threshold)
        return out
    pred = proba.argmax(1)
    return {"accuracy": float(accuracy_score(y_true, pred)),
            "macro_f1": float(f1_score(y_true, pred, average="macro", labels=np.arange(proba.shape[1]),
                                       zero_division=0))}


def val_score(multilabel: bool):
    """Early-stopping score on validation proteins: Macro-F1 (top-k for multi-label, argmax otherwise)."""
    def score(y_true: np.ndarray, proba: np.ndarray) -> float:
        return evaluate(y_true, proba, multilabel)["macro_f1"]
    return score


def choose_threshold(y_val: np.ndarray, proba_val: np.ndarray) -> float:
    """The global probability threshold with the best validation Micro-F1 (grid of 50 quantiles)."""
    grid = np.unique(np.quantile(proba_val, np.linspace(0.5, 0.995, 50)))
    scores = [f1_threshold(y_val, proba_val, t)["micro_f1"] for t in grid]
    return float(grid[int(np.argmax(scores))])


# ----------------------------------------------------------------------------------------------- baselines
def neighbor_vote(data, train_idx: torch.Tensor, n_labels: int) -> np.ndarray:
    """Score of each label = fraction of a protein's labelled neighbours that carry it (ties: label prior)."""
    from torch_geometric.utils import scatter

    from gatbio.train import label_matrix

    y_in = label_matrix(data.y, train_idx, n_labels)  # (N, L)
    src, dst = data.edge_index
    votes = scatter(y_in[src], dst, dim=0, dim_size=data.num_nodes, reduce="sum")  # (N, L)
    known = scatter(labelled_mask_of(train_idx, data.num_nodes)[src].float(), dst, dim=0,
                    dim_size=data.num_nodes, reduce="sum").clamp(min=1)  # (N,)
    prior = y_in[train_idx].mean(0, keepdim=True)  # (1, L), breaks ties and scores isolated proteins
    return (votes / known.unsqueeze(1) + 1e-3 * prior).cpu().numpy()


def labelled_mask_of(idx: torch.Tensor, n: int) -> torch.Tensor:
    m = torch.zeros(n, dtype=torch.bool, device=idx.device)
    m[idx] = True
    return m


def label_propagation(data, train_idx: torch.Tensor, n_labels: int, alpha: float = 0.9,
                      num_layers: int = 20) -> np.ndarray:
    """PyG :class:`~torch_geometric.nn.models.LabelPropagation` (Zhou et al. 2004) from the training labels."""
    from torch_geometric.nn import LabelPropagation

    from gatbio.train import label_matrix

    y_in = label_matrix(data.y, train_idx, n_labels)
    out = LabelPropagation(num_layers=num_layers, alpha=alpha)(y_in, data.edge_index,
                                                              mask=labelled_mask_of(train_idx, data.num_nodes))
    prior = y_in[train_idx].mean(0, keepdim=True)
    return (out + 1e-3 * prior).cpu().numpy()


def logistic_regression(emb: np.ndarray, y: np.ndarray, train_idx: np.ndarray, multilabel: bool) -> np.ndarray:
    """One-vs-rest liblinear logistic regression (C=1), as in the DeepWalk/node2vec/NetMF/ProNE protocol."""
    import warnings

    from sklearn.linear_model import LogisticRegression
    from sklearn.multiclass import OneVsRestClassifier

    clf = OneVsRestClassifier(LogisticRegression(solver="liblinear"))
    if multilabel:
        with warnings.catch_warnings():
            # a label no training protein has (small fractions): OvR predicts it never, which is what we want
            warnings.filterwarnings("ignore", message="Label not .* is present in all training examples")
            clf.fit(emb[train_idx], y[train_idx])
        return clf.predict_proba(emb)
    n = int(y.max()) + 1
    clf.fit(emb[train_idx], y[train_idx])
    proba = np.zeros((emb.shape[0], n))
    proba[:, clf.classes_] = clf.predict_proba(emb)
    return proba


def knn_vote(emb: np.ndarray, y: np.ndarray, train_idx, multilabel: bool, k: int = 20,
             sharpness: float = 5.0) -> np.ndarray:
    """Label scores from the ``k`` nearest training proteins in embedding space (cosine distance d), each
    weighted by exp(-sharpness · d); proteins with an all-zero embedding (isolated) get the label prior."""
    from sklearn.neighbors import NearestNeighbors

    train_idx = np.asarray(train_idx)
    y_train = y[train_idx].astype(float) if multilabel else np.eye(int(y.max()) + 1)[y[train_idx]]  # (n, L)
    nn = NearestNeighbors(n_neighbors=min(k, len(train_idx)), metric="cosine").fit(emb[train_idx])
    dist, idx = nn.kneighbors(emb)  # (N, k) each
    w = np.exp(-sharpness * dist)  # (N, k)
    scores = (w[:, :, None] * y_train[idx]).sum(1) / w.sum(1, keepdims=True)  # (N, L)
    prior = y_train.mean(0, keepdims=True)  # (1, L)
    scores[~np.any(emb, axis=1)] = prior  # isolated: no neighbourhood in embedding space
    return scores + 1e-3 * prior


def label_prior(y: torch.Tensor, idx: torch.Tensor) -> np.ndarray:
    """Frequency of each label among proteins ``idx`` (multi-hot or class ids), floored at 1/(n+1)."""
    yi = y[idx].cpu().numpy()
    freq = yi.mean(0) if yi.ndim == 2 else np.bincount(yi, minlength=int(y.max()) + 1) / len(yi)
    return np.maximum(freq, 1.0 / (len(yi) + 1))


def choose_prior_power(y_val: np.ndarray, proba_val: np.ndarray, prior: np.ndarray, multilabel: bool) -> float:
    """The exponent γ of the label-prior correction p / prior^γ with the best validation score (see module doc)."""
    def score(g: float) -> float:
        m = evaluate(y_val, proba_val / prior**g, multilabel)
        return m["macro_f1"] if multilabel else m["macro_f1"] + m["accuracy"]
    scores = [score(g) for g in PRIOR_POWERS]
    return float(PRIOR_POWERS[int(np.argmax(scores))])  # first maximum: the smallest correction


# ----------------------------------------------------------------------------------------------- neural models
def make_model(cfg: ProteinConfig, variant: str, in_channels: int, n_labels: int, num_nodes: int,
               multilabel: bool):
    """The :class:`~gatbio.nn.node_models.GATNodeClassifier` of a neural ``variant``."""
    from gatbio.nn.node_models import GATNodeClassifier

    opts = dict(NEURAL[variant])
    labels = opts.pop("labels", False)
    use_id = "id" in cfg.inputs
    return GATNodeClassifier(
        in_channels, n_labels, hidden_channels=cfg.hidden, heads=cfg.heads, num_layers=cfg.layers,
        dropout=cfg.dropout, input_dropout=cfg.input_dropout, attn_dropout=cfg.attn_dropout,
        label_channels=n_labels if labels else 0, num_nodes=num_nodes if use_id else None,
        embedding_dim=cfg.id_dim if use_id else 0, task="multilabel" if multilabel else "multiclass", **opts)


def train_neural(cfg: ProteinConfig, variant: str, data, x, fit_idx, val_idx, seed: int, progress: bool = False,
                 device: str | torch.device | None = None, on_epoch: Callable[[int, int], None] | None = None):
    """Train one neural variant; returns (model, fit result). ``progress``: a bar over the epochs on stderr.
    ``device``: where to train (default ``cfg.device``); the returned model lives there. ``on_epoch``: called
    after each epoch with (epoch, max epochs) (:func:`gatbio.train.fit`)."""
    from gatbio.train import TrainConfig, fit

    torch.manual_seed(seed)
    multilabel = is_multilabel(data)
    model = make_model(cfg, variant, 0 if x is None else x.size(1), num_labels(data), data.num_nodes, multilabel)
    tcfg = TrainConfig(epochs=cfg.epochs, lr=cfg.lr, weight_decay=cfg.weight_decay, patience=cfg.patience,
                       eval_every=cfg.eval_every, label_trick=bool(model.label_channels))
    res = fit(model, x, data.edge_index, data.y, fit_idx, val_idx, val_score(multilabel), tcfg, seed=seed,
              progress=progress, device=cfg.device if device is None else device, on_epoch=on_epoch)
    return model, res


# ----------------------------------------------------------------------------------------------- one unit
def _frac_tag(frac: float) -> str:
    """A fraction as written in file names: two decimals (``0.10``, the folders of earlier runs), or every digit
    it needs (``0.125``, ``0.005``) so that no two fractions share a folder."""
    return f"{frac:.2f}" if round(frac, 2) == frac else f"{frac:.12g}"


def _paths(cfg: ProteinConfig, frac: float, seed: int) -> tuple[Path, Path]:
    out = Path(cfg.out_dir)
    tag = f"f{_frac_tag(frac)}_s{seed}"
    return out / "splits" / f"{cfg.dataset}_{tag}.json", out / "runs" / cfg.dataset / tag


def _run_done(cfg: ProteinConfig, path: Path) -> bool:
    """Whether the run file ``path`` holds a result (and, with ``save_proba``, its probabilities are there)."""
    return is_done(path, RUN_KEYS) and (not cfg.save_proba or proba_path(path).is_file())


def check_fractions(cfg: ProteinConfig, data) -> None:
    """Each labelled fraction leaves proteins to fit on (after the validation part) and to test on: said before
    any embedding is computed, naming the key, not a numpy error (or an empty training set) later."""
    labelled = int(labelled_mask(data).sum())
    for frac in cfg.fractions:
        n_train = int(round(frac * labelled))
        n_val = max(1, int(round(cfg.val_fraction * n_train)))
        if n_train - n_val < 1 or labelled - n_train < 1:
            raise ValueError(f"config fractions: {frac} of the {labelled} labelled proteins of {cfg.dataset} is "
                             f"{n_train} to train on ({n_val} of them validation) and {labelled - n_train} to test: "
                             f"give a fraction that leaves both (between about {2 / labelled:.2g} and "
                             f"{1 - 1 / labelled:.4g})")


def make_split(data, frac: float, seed: int, val_fraction: float) -> dict:
    """Labelled proteins → train (fraction ``frac``) / test; the validation part is carved from train."""
    from gatbio.data.splits import node_split

    sp = node_split(data.num_nodes, train=frac, val=0.0, seed=seed, labeled=labelled_mask(data))
    # node_split rounds train and test sizes separately and can drop one labelled protein (e.g. 20 + 20 of
    # 41); the published protocol tests on every protein that is not training, so test = the rest.
    sp["test"] = sorted(set(torch.nonzero(labelled_mask(data)).view(-1).tolist()) - set(sp["train"]))
    rng = np.random.default_rng(10_000 + seed)
    train = np.array(sp["train"])
    n_val = max(1, int(round(val_fraction * len(train))))
    val = np.sort(rng.choice(train, size=n_val, replace=False))
    sp["val"] = val.tolist()
    sp["fit"] = sorted(set(sp["train"]) - set(sp["val"]))
    sp["protocol"] = (f"{frac:.0%} of labelled proteins train (incl. a {val_fraction:.0%} validation part "
                      "for early stopping / thresholds), the rest test")
    return sp


def run_unit(cfg: ProteinConfig, frac: float, seed: int, inputs: dict[str, torch.Tensor | None],
             stage: UnitStage | None = None) -> list[dict]:
    """All variants of one (fraction, seed): one ``<variant>.json`` each; returns the result dicts.

    The neural variants train on ``cfg.device`` (their inputs are moved there once); everything else, and every
    probability that is scored or written, is on the CPU. ``stage``: told which variant runs and a network's
    epoch, for the unit's heartbeat (:func:`gatbio.parallel.parallel_map`'s ``heartbeat``)."""
    with unit_threads(cfg.threads):
        return _run_unit(cfg, frac, seed, inputs, UnitStage(on=False) if stage is None else stage)


def _run_unit(cfg: ProteinConfig, frac: float, seed: int, inputs: dict[str, torch.Tensor | None],
              stage: UnitStage) -> list[dict]:
    from gatbio.device import resolve_device

    dev = resolve_device(cfg.device)
    data = load_data(cfg.dataset)
    multilabel = is_multilabel(data)
    split_path, run_dir = _paths(cfg, frac, seed)
    sp = make_split(data, frac, seed, cfg.val_fraction)
    if not is_done(split_path):  # none yet, or damaged (empty, cut short): the seed's split, made again
        write_json(split_path, sp)
    elif not holds_json(split_path, sp):  # the saved split is the one the runs used (as the robustness sweep checks)
        raise ValueError(f"{split_path}: the saved split differs from the one this code and data give for fraction "
                         f"{frac} seed {seed} (hand-edited, or the data or the split code changed since the folder's "
                         "runs): rerun with --restart to redo them on the new split")
    train, val, fit_idx, test = (torch.tensor(sp[k], dtype=torch.long) for k in ("train", "val", "fit", "test"))
    y_np = data.y.cpu().numpy()
    probas: dict[str, np.ndarray] = {}
    results = []
    todo = [v for v in cfg.variants if not _run_done(cfg, run_dir / f"{v}.json")]
    needed = set(todo) | {m for v in todo if v in ENSEMBLES for m in ENSEMBLES[v]}
    att_variant = next((v for v in ("gat_labels", "gat") if v in needed), None)  # whose attention is saved
    val_np = np.asarray(sp["val"])
    y_val = y_np[val_np]
    val_probas: dict[str, np.ndarray] = {}  # each variant refitted without the validation proteins, on them
    seconds: dict[str, float] = {}
    cpu: dict[str, float] = {}  # process CPU time: what the variant costs on a machine nobody else is using
    recorded = {"settings_fingerprint": settings_fingerprint(cfg.out_dir),  # the settings the runs are made with
                "split": split_path.relative_to(Path(cfg.out_dir)).as_posix()}  # in the results folder
    for variant in [v for v in VARIANTS if v in needed]:  # members before ensembles
        stage(variant)
        t0, c0 = time.perf_counter(), time.process_time()
        extra: dict[str, Any] = {}
        if variant in ("neighbor_vote", "label_prop"):
            fn = neighbor_vote if variant == "neighbor_vote" else label_propagation
            val_proba = fn(data, fit_idx, num_labels(data))[val_np]
            proba = fn(data, train, num_labels(data))
        elif variant.startswith("lr_") and variant not in ENSEMBLES:
            emb = inputs[variant[3:]].cpu().numpy()
            val_proba = logistic_regression(emb, y_np, sp["fit"], multilabel)[val_np]
            proba = logistic_regression(emb, y_np, sp["train"], multilabel)
        elif variant == "knn_prone":
            emb = inputs["prone"].cpu().numpy()
            val_proba = knn_vote(emb, y_np, sp["fit"], multilabel)[val_np]
            proba = knn_vote(emb, y_np, sp["train"], multilabel)
        elif variant in NEURAL:
            x_nn = None if inputs["nn"] is None else inputs["nn"].to(dev)
            model, res = train_neural(cfg, variant, data, x_nn, fit_idx, val, seed, device=dev,
                                      on_epoch=stage.on_epoch)
            from gatbio.train import predict

            proba = predict(model, x_nn, data.edge_index, data.y, train).cpu().numpy()
            if model.label_channels:  # validation proteins scored with only the fit proteins' labels as input
                val_proba = predict(model, x_nn, data.edge_index, data.y, fit_idx).cpu().numpy()[val_np]
            else:
                val_proba = proba[val_np]
            extra = {"best_epoch": res.best_epoch, "epochs_run": res.epochs_run, "val_macro_f1": res.best_val}
            if cfg.attention_example and variant == att_variant and frac == cfg.fractions[0] \
                    and seed == cfg.seeds[0]:
                ex = attention_neighbourhood(model, data, x_nn, train, test, proba)
                write_json(Path(cfg.out_dir) / "attention_example.json", ex)
        else:  # ensemble: mean of the members, then the label-prior correction chosen on validation
            members = ENSEMBLES[variant]
            prior_fit, prior_train = label_prior(data.y, fit_idx), label_prior(data.y, train)
            val_mean = np.mean([val_probas[m] for m in members], axis=0)
            gamma = choose_prior_power(y_val, val_mean, prior_fit, multilabel)
            val_proba = val_mean / prior_fit**gamma
            proba = np.mean([probas[m] for m in members], axis=0) / prior_train**gamma
            extra = {"members": list(members), "prior_power": gamma}
            t0 -= sum(seconds[m] for m in members)  # an ensemble costs its members' time too
            c0 -= sum(cpu[m] for m in members)
        thr = choose_threshold(y_val, val_proba) if multilabel else None
        val_probas[variant], probas[variant] = val_proba, proba
        seconds[variant], cpu[variant] = time.perf_counter() - t0, time.process_time() - c0
        if variant not in todo:
            continue
        row = {"dataset": cfg.dataset, "fraction": frac, "seed": seed, "variant": variant,
               **evaluate(y_np[sp["test"]], proba[sp["test"]], multilabel, thr),
               "n_train": len(sp["train"]), "n_test": len(sp["test"]),
               "seconds": round(seconds[variant], 3), "cpu_seconds": round(cpu[variant], 3),
               "device": str(dev) if variant in NEURAL or variant in ENSEMBLES else "cpu",
               "threads": cfg.threads, "software": software(), **recorded, **extra}
        if cfg.save_proba:  # before the run file, which marks the run as finished
            test_np = np.asarray(sp["test"])
            write_npz(proba_path(run_dir / f"{variant}.json"), test_nodes=test_np,
                      test_proba=proba[test_np].astype(np.float32), val_nodes=val_np,
                      val_proba=val_proba.astype(np.float32), threshold=np.float64(np.nan if thr is None else thr))
        write_json(run_dir / f"{variant}.json", row)
        results.append(row)
    return results


def compute_inputs(cfg: ProteinConfig, data) -> dict[str, torch.Tensor | None]:
    """Embeddings once per graph: raw ones for the logistic regressions, standardised ones for the networks (each
    embedding computed once: the networks' input standardises the same raw matrix, per kind, as
    :func:`node_features` would)."""
    from gatbio.embed import node_inputs, standardize_columns

    members = set(cfg.variants) | {m for v in cfg.variants for m in ENSEMBLES.get(v, ())}
    out: dict[str, torch.Tensor | None] = {}
    for kind in ("spectral", "netmf", "prone"):
        if f"lr_{kind}" in members or f"knn_{kind}" in members:
            out[kind] = node_inputs(data.edge_index, data.num_nodes, kinds=[kind], dim=cfg.embed_dim,
                                    seed=cfg.embed_seed)
    kinds = [k for k in cfg.inputs if k != "id"]
    if not kinds:
        out["nn"] = None
    else:
        out["nn"] = torch.cat([standardize_columns(out[k]) if k in out else
                               node_inputs(data.edge_index, data.num_nodes, kinds=[k], dim=cfg.embed_dim,
                                           seed=cfg.embed_seed, standardize=True) for k in kinds], dim=1)
    return out


# ----------------------------------------------------------------------------------------------- the sweep
def run(cfg: ProteinConfig, summary_only: bool = False, resume: str = "check",
        progress: bool = True) -> str:
    """The whole experiment; returns the printable summary table (also written to ``summary.md``).

    Finished runs in ``cfg.out_dir`` are reused when the stored config has the same result settings; otherwise
    ``resume`` decides: ``"check"`` refuses (naming the differing keys), ``"restart"`` deletes this task's
    outputs first, ``"anyway"`` reuses them (:func:`gatbio.results.prepare_out_dir`).
    """
    import dataclasses

    from gatbio.device import announce_device, resolve_device
    from gatbio.parallel import left_to_run, parallel_map
    from gatbio.results import OUT_DIR_KEY, prepare_out_dir, writing_runs

    check(cfg)
    if not summary_only:  # the device this run uses, checked before any work and stored resolved in config.yaml
        dev = resolve_device(cfg.device)
        announce_device(dev, cfg.device)
        cfg = dataclasses.replace(cfg, device=str(dev))
    out = prepare_out_dir(cfg.out_dir, cfg, free_keys=RESUME_FREE_KEYS, outputs=OUTPUTS, resume=resume,
                          summary_only=summary_only, key=OUT_DIR_KEY, summary_ignores=SUMMARY_IGNORES)

    def run_files(f, s):  # a (fraction, seed) unit's result files, one per variant
        return [_paths(cfg, f, s)[1] / f"{v}.json" for v in cfg.variants]

    with writing_runs(out):
        todo = [] if summary_only else left_to_run(
            # seed by seed, every fraction in each: the first units to end are a fair sample of the
            # rest for the time left, and an interrupted sweep holds the first seeds of every fraction
            [(f, s) for s in cfg.seeds for f in cfg.fractions],
            lambda f, s: all(_run_done(cfg, p) for p in run_files(f, s)),
            cfg.name, "(fraction, seed)", out, progress, files=run_files, keys=RUN_KEYS)
        if not summary_only:
            _restore_splits(cfg, [(f, s) for s in cfg.seeds for f in cfg.fractions if (f, s) not in todo])
        if todo:  # a finished sweep resumed: no embedding is computed again
            data = load_data(cfg.dataset)
            check_fractions(cfg, data)
            t0 = time.perf_counter()
            with unit_threads(cfg.threads):  # the embeddings' SVDs sum differently on more threads
                inputs = compute_inputs(cfg, data)
            write_json(out / "embedding_time.json", {"seconds": round(time.perf_counter() - t0, 3)})
            parallel_map(run_unit, [(cfg, f, s, inputs) for f, s in todo], jobs=cfg.jobs,
                         desc=f"{cfg.name}: fraction x seed", progress=progress,
                         heartbeat=lambda c, f, s, _: f"{c.name}: still running (fraction {f}, seed {s})")
    return summarize_runs(cfg)


def _restore_splits(cfg: ProteinConfig, units: list[tuple[float, int]]) -> list[Path]:
    """The saved split of each finished (fraction, seed) unit of ``units``, written again where it is missing or
    damaged (:func:`gatbio.results.restore_splits`; :func:`make_split`, the data read once). Returns their paths."""
    data = functools.cache(lambda: load_data(cfg.dataset))  # read when a split is missing

    def split(frac: float, seed: int) -> Callable[[], dict]:
        return lambda: make_split(data(), frac, seed, cfg.val_fraction)

    return restore_splits(cfg.name, cfg.out_dir, {_paths(cfg, f, s)[0]: split(f, s) for f, s in units})


def _metrics(cfg: ProteinConfig) -> list[str]:
    if cfg.dataset == "yeast-bu2003":
        return ["accuracy", "macro_f1"]
    return ["macro_f1", "micro_f1", "macro_f1_thr", "micro_f1_thr"]


def summarize_runs(cfg: ProteinConfig) -> str:
    """``summary.csv`` (mean/std/n), ``summary.md`` (mean ± std) and the F1 figure from the run files."""
    out = Path(cfg.out_dir)
    files = [_paths(cfg, f, s)[1] / f"{v}.json" for f in cfg.fractions for s in cfg.seeds for v in cfg.variants]
    rows = [read_json(p) for p in files if is_done(p, RUN_KEYS)]
    if not rows:
        raise FileNotFoundError(f"no results under {out / 'runs'}: run without --summary-only first")
    incomplete = missing_runs_note(files, out, RUN_KEYS)
    df = pd.DataFrame(rows)
    metrics = [m for m in _metrics(cfg) if m in df.columns]
    order = {v: i for i, v in enumerate(VARIANTS)}
    df = df.sort_values(["fraction", "variant"], key=lambda c: c.map(order) if c.name == "variant" else c)
    summ = summarize(df, ["fraction", "variant"], metrics + ["seconds"], digits=None)  # rounded once, for display
    write_csv(out / "summary.csv", round_stats(summ, 6))  # 6 digits: a 3-digit display from it rounds once
    table = format_mean_std(summ, ["fraction", "variant"], metrics)
    text = f"{cfg.name} on {cfg.dataset} ({over_seeds(df['seed'])})\n\n{markdown_table(table)}"
    for line in (incomplete, mixed_configs_note(out, rows)):
        if line:
            text += f"\n\n{line}"
    from gatbio.results import atomic_write_text

    atomic_write_text(out / "summary.md", text + "\n")
    if len(cfg.fractions) > 1:
        plot_f1(summ, out / "f1_vs_fraction.png", metrics[:2], cfg.dataset)
    return text


def plot_f1(summ: pd.DataFrame, path: Path, metrics: list[str], title: str = "") -> None:
    """F1 (mean ± std over seeds) against the labelled fraction, one line per variant, one panel per metric.

    Drawn on its own Agg canvas (:mod:`gatbio.plot`), not with ``pyplot``: called from a notebook it left the
    session's backend switched to Agg (``matplotlib.use``), and inline figures stopped showing."""
    from gatbio.plot import _new_figure, save_figure

    fig = _new_figure((6 * len(metrics), 4.5))
    axes = fig.subplots(1, len(metrics), squeeze=False)
    counts = [summ[c] for c in summ.columns if c == "n" or c.endswith("_n")]  # runs per point (fewer: NaN runs)
    lo = int(min(c.min() for c in counts)) if counts and len(summ) else None
    hi = int(max(c.max() for c in counts)) if counts and len(summ) else None
    for ax, m in zip(axes[0], metrics, strict=True):
        for v, g in summ.groupby("variant", sort=False):
            style = "-" if v.startswith("gat") else "--"
            ax.errorbar(g["fraction"], g[f"{m}_mean"], yerr=g[f"{m}_std"], label=v, linestyle=style,
                        marker="o", ms=3, capsize=2)
        ax.set_xlabel("labelled fraction")
        over = "" if not hi or hi < 2 else f" (mean ± std over {lo if lo == hi else f'{lo}–{hi}'} seeds)"
        ax.set_ylabel(m.replace("_", "-") + over)
        ax.set_title(f"{title}: {m}")
        ax.grid(alpha=0.3)
    axes[0][-1].legend(fontsize=7, ncol=2)
    save_figure(fig, path, dpi=120)  # atomic: a killed run leaves no truncated image


def run_quick(out_dir: str | Path = "results/demo/protein", device: str = "auto") -> str:
    """The quick config (node2vec-PPI, 50% labelled, one seed, five variants): for ``make demo`` (≤ 2 min)."""
    cfg = load(None, [f"{k}={v}" for k, v in QUICK_CONFIG.items() if k != "variants"]
               + [f"variants=[{','.join(QUICK_CONFIG['variants'])}]", f"out_dir={out_dir}", f"device={device}"])
    return run(cfg)


# ----------------------------------------------------------------------------------------------- explanations
def last_layer_attention(model, data, x, known: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Attention of the model's last GAT layer (heads averaged), with ``known`` proteins' labels as input.

    Returns ``(edge_index (2, E'), alpha (E',))`` on the CPU (the model runs where it lives); the edges include
    the self-loops the layer adds.
    """
    from gatbio.device import module_device
    from gatbio.train import label_matrix

    dev = module_device(model)
    model.eval()
    with torch.no_grad():
        lab = label_matrix(data.y.to(dev), known.to(dev), model.out_channels) if model.label_channels else None
        _, att = model(None if x is None else x.to(dev), data.edge_index.to(dev), lab, return_attention_weights=True)
    ei, alpha = att[-1]  # (2, E'), (E', H)
    return ei.cpu(), alpha.mean(1).cpu()


def attention_neighbourhood(model, data, x, known: torch.Tensor, nodes: torch.Tensor, proba: np.ndarray,
                            top: int = 10, node: int | None = None) -> dict:
    """One protein's attended neighbours in the last GAT layer (heads averaged), with its labels.

    Picks ``node`` or, by default, the test protein with the most neighbours among ``nodes``.
    """

    ei, alpha = last_layer_attention(model, data, x, known)  # (2, E'), (E',)
    if node is None:
        deg = torch.bincount(data.edge_index[1], minlength=data.num_nodes)
        node = int(nodes[deg[nodes].argmax()])
    sel = (ei[1] == node).nonzero().view(-1)
    order = sel[alpha[sel].argsort(descending=True)][:top]
    names = list(getattr(data, "node_names", range(data.num_nodes)))
    lnames = list(getattr(data, "label_names", range(model.out_channels)))

    def labels_of(i: int) -> list[str]:
        yi = data.y[i]
        return [lnames[j] for j in (yi > 0).nonzero().view(-1).tolist()] if yi.dim() else [lnames[int(yi)]]

    return {
        "protein": str(names[node]), "index": node,
        "true_labels": labels_of(node),
        "top_predicted": [lnames[j] for j in np.argsort(-proba[node])[:5]],
        "neighbours": [{"protein": str(names[int(ei[0, e])]), "attention": float(alpha[e]),
                        "self": int(ei[0, e]) == node,
                        "known_labels": labels_of(int(ei[0, e])) if bool((known == ei[0, e]).any()) else []}
                       for e in order.tolist()],
    }


def check_functions_differ(data, labels: str = "the label table") -> None:
    """A ``ValueError`` naming ``labels`` when every annotated protein of ``data`` (multi-hot ``y`` (N, L)) has the
    same functions, e.g. a table of one function: there is nothing to tell apart, so nothing to learn or predict."""
    known = data.y[labelled_mask(data)].bool()
    if len(known) < 2 or bool((known != known[0]).any()):
        return
    names = [str(data.label_names[j]) for j in known[0].nonzero().view(-1).tolist()]
    if len(names) == 1:
        which, need = f"the one function {names[0]!r}", "at least two functions"
    else:
        which, need = f"the same functions ({'; '.join(names)})", "proteins that differ in their functions"
    raise ValueError(f"{labels}: all {len(known)} annotated proteins have {which}, so there is nothing to tell "
                     f"apart and nothing to predict; give a label table with {need}")


def check_predict_data(data):
    """``data`` as :func:`predict_unannotated` reads it, or a ``ValueError`` / ``TypeError`` naming what is wrong
    and the fix: ``y`` a tensor with one row per protein, multi-hot (N, L) of 0 / 1, or class ids (N,) in
    ``-1..L-1`` (then returned as a shallow copy of ``data`` with their one-hot rows, said on stderr); ``node_names``
    one per protein and ``label_names`` one per function (L)."""
    import sys

    n = data.num_nodes
    y, names, lnames = (getattr(data, k, None) for k in ("y", "node_names", "label_names"))
    if not isinstance(y, torch.Tensor):
        raise TypeError("data.y must be a torch tensor, multi-hot (N, L) with an all-zero row for each unannotated "
                        f"protein; got {type(y).__name__}" + ("" if y is None else " (use torch.as_tensor(data.y))"))
    if names is None or lnames is None:
        missing = " and ".join(k for k, v in (("node_names", names), ("label_names", lnames)) if v is None)
        raise ValueError(f"data has no {missing}: the predictions name each protein (data.node_names, one per "
                         "protein) and each function (data.label_names, one per column of y)")
    if y.dim() not in (1, 2) or y.size(0) != n:
        raise ValueError(f"data.y has shape {tuple(y.shape)} but the graph has {n} proteins (data.num_nodes): give "
                         "one row per protein, multi-hot (N, L) with an all-zero row for each unannotated one")
    if len(names) != n:
        raise ValueError(f"data.node_names has {len(names)} names but the graph has {n} proteins: one per protein")
    if y.dim() == 1:  # class ids, -1 = unannotated (yeast-bu2003)
        if y.is_floating_point() or (len(y) and not -1 <= int(y.min()) <= int(y.max()) < len(lnames)):
            raise ValueError(f"data.y is one value per protein (dtype {y.dtype}): as class ids it must be integers "
                             f"in 0..{len(lnames) - 1} (one per data.label_names) or -1 for unannotated; or give "
                             "multi-hot (N, L)")
        print(f"# note: data.y holds class ids with -1 for unannotated: read as one-hot functions ({n}, "
              f"{len(lnames)}), each scored on its own", file=sys.stderr)
        data = copy.copy(data)  # the caller's data keeps its y
        data.y = torch.nn.functional.one_hot(y.long().clamp_min(0), len(lnames)).float() * (y >= 0).unsqueeze(1)
    elif y.size(1) != len(lnames):
        raise ValueError(f"data.label_names has {len(lnames)} names but data.y has {y.size(1)} columns: one name "
                         "per function")
    elif not bool(((y == 0) | (y == 1)).all()):
        raise ValueError("data.y must be multi-hot: 1 where a protein has a function, else 0 (all-zero row: "
                         "unannotated)")
    return data


def early_stopping_split(data, seed: int = 0) -> tuple[torch.Tensor, torch.Tensor, list[str]]:
    """The annotated proteins of ``data`` (multi-hot ``y`` (N, L)) split for :func:`predict_unannotated`:
    ``(fit, val, unlearnt)``, sorted indices. A tenth of them (at least one) is held out for early stopping, drawn
    with ``seed``; a protein whose hold-out would leave one of its functions without any training protein is
    passed over (the next of the draw taken instead), so that a function of one or few proteins is learnt (a
    function whose proteins were all held out was never a training target, and its scores meant nothing). When no
    protein can be held out so, the draw's first is, and ``unlearnt`` names the functions left without a training
    protein."""
    y = data.y.bool().cpu().numpy()  # (N, L)
    if y.ndim != 2:
        raise ValueError(f"data.y has shape {tuple(y.shape)}: early_stopping_split takes multi-hot labels (N, L); "
                         "class ids (N,) with -1 for unannotated are converted by predict_unannotated")
    known = np.flatnonzero(y.any(1))
    perm = np.random.default_rng(seed).permutation(known)
    n_val = max(1, len(perm) // 10)
    left = y.sum(0)  # (L,) annotated proteins of each function not held out (unannotated rows are all zero)
    val: list[int] = []
    for i in perm:  # without a function at risk this is perm[:n_val], the draw's first proteins
        if len(val) == n_val:
            break
        if (left[y[i]] > 1).all():
            val.append(int(i))
            left -= y[i]
    if not val:  # every protein is the last of one of its functions: hold out the draw's first anyway
        val = [int(perm[0])]
        left -= y[perm[0]]
    lnames = list(getattr(data, "label_names", range(y.shape[1])))
    unlearnt = [str(lnames[j]) for j in np.flatnonzero((left == 0) & y.any(0))]
    fit = np.setdiff1d(known, val)
    return torch.from_numpy(fit), torch.from_numpy(np.sort(np.asarray(val, dtype=np.int64))), unlearnt


def predict_unannotated(data, cfg: ProteinConfig | dict | None = None, top: int = 5, explain_top: int = 5,
                        seed: int = 0, progress: bool = False, device: str | torch.device | None = None
                        ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Train ``gat_labels`` on every annotated protein of ``data`` and predict the others.

    ``data`` has ``edge_index``, ``node_names``, multi-hot ``y`` (N, L) (all-zero rows = unannotated) and
    ``label_names``; class ids ``y`` (N,) with ``-1`` for unannotated (``gatbio.data.load("yeast-bu2003")``) are
    read as their one-hot (N, L) rows, with a note on stderr (each function is then scored on its own, as for a
    label table). A tenth of the annotated proteins is held out for early stopping, each function keeping a
    training protein where it can (:func:`early_stopping_split`; one that cannot is named on stderr). ``data`` is
    checked (:func:`check_predict_data`) and ``cfg`` read (a ``dict`` of :class:`ProteinConfig` settings is taken
    over :data:`PREDICT_SETTINGS`) before any work. Returns
    ``(predictions, explanations)``: one row per unannotated protein with its ``top`` labels and scores and an
    ``isolated`` flag (no interaction with another protein, self-loops not counting: no input but the network's,
    so the same scores for each), and one row per (protein, attended
    neighbour) with the last layer's attention (heads averaged). ``progress``: say on stderr what runs, with a
    bar over the training epochs. ``device``: where the model trains (default ``cfg.device``, see
    :mod:`gatbio.device`); the tables are computed on the CPU.
    """
    from gatbio.config import check_settings
    from gatbio.device import resolve_device

    if isinstance(cfg, Mapping):  # through the config loader: unknown keys and wrong types are named
        cfg = load_config(ProteinConfig, {**PREDICT_SETTINGS, **cfg}, name="cfg")
    elif cfg is not None and not isinstance(cfg, ProteinConfig):
        raise TypeError(f"cfg must be a ProteinConfig, a dict of its settings or None; got {type(cfg).__name__}")
    cfg = cfg or ProteinConfig(**PREDICT_SETTINGS)
    check_settings(cfg, SETTING_RULES)
    data = check_predict_data(data)
    dev = resolve_device(cfg.device if device is None else device)
    if top < 1 or explain_top < 1:
        raise ValueError(f"top={top}, explain_top={explain_top}: give positive numbers of functions / neighbours")
    known_mask = labelled_mask(data)
    known = known_mask.nonzero().view(-1)
    if len(known) < 2:
        raise ValueError(f"the label table annotates {len(known)} protein(s) of the graph; need at least 2 "
                         "labelled proteins to train")
    if known_mask.all():
        raise ValueError("every protein in the graph is annotated: nothing to predict")
    check_functions_differ(data)
    fit_idx, val, unlearnt = early_stopping_split(data, seed)
    if unlearnt:
        from gatbio.data.tables import first_few, note

        note(f"{len(unlearnt)} function(s) have all their annotated proteins among the {len(val)} held out for early "
             f"stopping ({first_few([repr(n) for n in unlearnt], 3)}): the model never sees them in training, so "
             "their scores mean little. Every annotated protein is the last of one of its functions, so another "
             "seed would only lose another function: annotate more proteins with them")
    if progress:
        import sys

        print(f"# node inputs ({', '.join(cfg.inputs)}) of {data.num_nodes} proteins, then gat_labels on "
              f"{len(fit_idx)} annotated proteins ({len(val)} held out for early stopping)", file=sys.stderr, flush=True)
    x = node_features(data, cfg.inputs, min(cfg.embed_dim, max(2, data.num_nodes - 2)), cfg.embed_seed)
    x = None if x is None else x.to(dev)
    model, _ = train_neural(cfg, "gat_labels", data, x, fit_idx, val, seed, progress=progress, device=dev)
    from gatbio.train import predict

    proba = predict(model, x, data.edge_index, data.y, known).cpu().numpy()
    ei = data.edge_index
    deg = torch.bincount(ei[1][ei[0] != ei[1]], minlength=data.num_nodes).cpu().numpy()  # a self-loop: no neighbour
    names = [str(n) for n in data.node_names]
    lnames = [str(n) for n in data.label_names]
    unknown = (~known_mask).nonzero().view(-1).tolist()
    rows = []
    for i in unknown:
        order = np.argsort(-proba[i])[:top]
        rows.append({"protein": names[i], "isolated": bool(deg[i] == 0),
                     "top_functions": ";".join(lnames[j] for j in order),
                     "scores": ";".join(f"{proba[i, j]:.4f}" for j in order)})
    ei, alpha = last_layer_attention(model, data, x, known)  # (2, E'), (E',)
    dst, src = ei[1].cpu().numpy(), ei[0].cpu().numpy()  # (E',)
    df = pd.DataFrame({"protein": [names[j] for j in dst], "neighbour": [names[j] for j in src],
                       "attention": alpha.cpu().numpy(), "_dst": dst, "_src": src})
    df = df[df["_dst"].isin(set(unknown)) & (df["_dst"] != df["_src"])]  # attention paid by unannotated proteins
    df = df.sort_values(["_dst", "attention"], ascending=[True, False]).groupby("_dst").head(explain_top)
    df["top_prediction"] = [lnames[int(np.argmax(proba[i]))] for i in df["_dst"]]
    ymat = data.y.cpu().numpy()
    df["neighbour_known_labels"] = [";".join(lnames[j] for j in np.nonzero(ymat[i])[0]) for i in df["_src"]]
    explain = df.drop(columns=["_dst", "_src"]).reset_index(drop=True)
    return pd.DataFrame(rows), explain
