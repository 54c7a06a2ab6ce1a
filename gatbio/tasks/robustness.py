r"""The hub-robustness sweep: how much do a trained model's predictions depend on a few hubs?

For each dataset, model and seed, the model is **trained once on the clean graph** and then evaluated,
without retraining, on perturbed copies of the graph (:mod:`gatbio.robustness`): the top 0–20 % nodes by
degree, betweenness or PageRank removed, the same number of random nodes removed (the control), Gaussian
noise on the hubs' input features, or each of the hubs' links dropped with probability 1/2. Not retraining is deliberate: the
question is how much *deployed* predictions lean on hubs (a hub missing from the next release of a PPI
database, a species lost from a web), and a retrained model would mix that with the training noise.

Two tasks, each reusing the project's own models and protocol:

- ``protein``: multi-label protein function on node2vec-PPI (:mod:`gatbio.tasks.protein`), micro-F1 of the
  top-k protocol on the surviving test proteins;
- ``foodweb``: directed link prediction on food webs (:mod:`gatbio.tasks.foodweb`), PR-AUC on the held-out
  pairs whose two species survive; beside it, the ecological robustness R50 of each web under the same
  removal orders (:func:`gatbio.robustness.r50`).

The drop at fraction :math:`f` is measured against the same model's clean score **on the same evaluation
items** (``clean`` in the results), so removing hubs that happen to be easy or hard test nodes does not
masquerade as robustness. Attention diagnostics (:mod:`gatbio.metrics`) of the last attention layer are
saved with every point: the Jensen–Shannon divergence of each unperturbed node's attention, the entropy
ratio and the attention mass on hubs, and the prediction flip rate among unperturbed nodes.

Results, in ``out_dir``:

- ``runs/<task>/<dataset>/<model>/seed<s>/<perturbation>.json``: one curve each (a row per fraction: ``score``,
  ``clean``, ``drop``, ``relative``, ``flip_rate``, ``js_attention``, ...); a resumed sweep skips existing files and
  retrains only what is missing. A user's web is named by its absolute path, ``/`` written ``__``;
- ``splits/<task>/<dataset>/seed<s>.json``: the split each run was trained and scored on;
- ``config.yaml`` and ``fingerprint.json`` (the settings, checked on resume), ``timing.json``;
- from :mod:`gatbio.tasks.robustness_summary`: ``summary/curves.csv`` (mean ± std over seeds per fraction),
  ``summary/auc.csv`` (area under each degradation curve), ``summary/headline.csv`` and
  ``summary/headline_verdict.csv`` (drop and flip rate under degree removal and feature noise at 5 %, or at the
  largest fraction when 0.05 is not swept, against ``pyg_gat``), ``summary/r50.csv`` and
  ``summary/extinction_curves.csv`` (food webs, node-removal orders), ``summary/summary.txt`` (what the command
  prints), ``figures/curves_<dataset>.png`` and ``figures/extinctions.png``.
"""

from __future__ import annotations

import functools
import math
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import Tensor
from torch_geometric.data import Data

from gatbio import metrics
from gatbio.config import config_to_dict, load_config
from gatbio.parallel import left_to_run, parallel_map, unit_threads
from gatbio.results import (
    UnitStage,
    atomic_write_text,
    holds_json,
    is_done,
    machine,
    missing_runs_note,
    mixed_configs_note,
    restore_splits,
    seed_ranges,
    settings_fingerprint,
    software,
    write_csv,
    write_json,
)
from gatbio.robustness import (
    PERTURBATIONS,
    Perturbation,
    extinction_curve,
    node_count,
    perturb,
    r50,
    rank_nodes,
    remove_nodes,
)

__all__ = [
    "MODELS",
    "ProteinSettings",
    "FoodwebSettings",
    "RobustnessConfig",
    "load",
    "run",
    "summarize",
    "run_quick",
    "r50_table",
    "QUICK_CONFIG",
]

#: The model variants compared: name → options of the attention layer. ``pyg_gat`` is PyG's own
#: ``GATConv`` (vanilla GAT, the reference), ``gcn`` a GCN baseline without attention; the others are
#: :class:`gatbio.nn.GATConv` with degree normalisation and/or temperature.
MODELS: dict[str, dict[str, Any]] = {
    "pyg_gat": {"conv": "pyg_gat"},
    "gat_log": {"degree_norm": "log"},
    "gat_sym": {"degree_norm": "sym"},
    "gat_t0.5": {"temperature": 0.5},
    "gat_t2": {"temperature": 2.0},
    "gat_tlearn": {"temperature": "learn"},
    "gat_log_tlearn": {"degree_norm": "log", "temperature": "learn"},
    "gatv2": {"attention": "gatv2"},
    "gcn": {"conv": "gcn"},
}

#: The quick config (``make demo``, the notebook test), shipped with the package so that it runs from a plain
#: install; ``experiments/configs/robustness_quick.yaml`` is the same config as a file (a test keeps them equal).
QUICK_CONFIG: dict[str, Any] = {
    "name": "robustness_quick", "out_dir": "results/robustness_quick",
    "models": ["pyg_gat", "gat_log", "gat_t2", "gcn"], "perturbations": ["degree", "random", "feature_noise"],
    "fractions": [0.0, 0.05, 0.2], "seeds": [0], "betweenness_k": 64, "r50_random_orders": 5, "jobs": 1,
    "protein": {"dataset": "node2vec-ppi", "dim": 32, "hidden": 8, "heads": 2, "epochs": 40},
    "foodweb": {"webs": ["cheddar/Benguela"], "epochs": 50, "rounds": 1},
}


@dataclass
class ProteinSettings:
    """Protein function on a PPI graph, with the protein task's model (:class:`gatbio.nn.GATNodeClassifier`),
    inputs (:func:`gatbio.tasks.protein.node_features`), split and training loop (:func:`gatbio.train.fit`)."""

    enabled: bool = True
    dataset: str = "node2vec-ppi"
    inputs: list[str] = field(default_factory=lambda: ["prone"])
    dim: int = 64
    hidden: int = 16
    heads: int = 4
    layers: int = 2
    dropout: float = 0.5
    input_dropout: float = 0.5
    attn_dropout: float = 0.2
    linear_skip: bool = True  # the protein model's linear skip from inputs to logits
    epochs: int = 100
    lr: float = 0.01
    weight_decay: float = 5e-4
    patience: int = 6
    eval_every: int = 4
    train: float = 0.5  # labelled fraction for training (its validation part carved out of it)
    val_fraction: float = 0.1


@dataclass
class FoodwebSettings:
    """Directed link prediction on food webs, with the food-web task's predictor
    (:class:`gatbio.nn.FoodWebGAT`), inputs and cross-fitted training (:mod:`gatbio.tasks.foodweb`)."""

    enabled: bool = True
    webs: list[str] = field(default_factory=lambda: ["cheddar/YthanEstuary", "cheddar/Benguela", "cheddar/TL84"])
    hidden: int = 16
    heads: int = 4
    layers: int = 2
    dropout: float = 0.1
    epochs: int = 100
    lr: float = 0.02
    weight_decay: float = 1e-4
    rounds: int = 2              # rounds of cross-fitting masks cycled through during training
    adjacency_inputs: bool = True
    test: float = 0.2
    val: float = 0.1
    negatives: str = "degree"    # held-out non-links: "degree"-matched (harder) or "uniform"


@dataclass
class RobustnessConfig:
    """The sweep: models × perturbations × fractions × seeds, on the enabled tasks."""

    name: str = "robustness"
    out_dir: str = "results/robustness"
    models: list[str] = field(default_factory=lambda: list(MODELS))
    perturbations: list[str] = field(default_factory=lambda: list(PERTURBATIONS))
    fractions: list[float] = field(default_factory=lambda: [0.0, 0.01, 0.02, 0.05, 0.1, 0.2])
    seeds: list[int] = field(default_factory=lambda: [0, 1, 2, 3, 4])
    sigma: float = 1.0            # feature noise, in per-feature standard deviations
    edge_drop_p: float = 0.5      # probability that each hub link is dropped (about that share)
    betweenness_k: int = 256      # betweenness sample size (sources); a graph of at most this many nodes is exact
    hub_fraction: float = 0.05    # "hubs" for the attention-mass diagnostic: the top 5 % by degree
    r50_random_orders: int = 20   # random removal orders per web for the R50 control
    jobs: int = 1
    threads: int = 1              # torch and BLAS threads per job (gatbio.parallel.unit_threads: results depend on it)
    # where models train and run: auto (a CUDA GPU when available, else the CPU; the food webs' jobs on the CPU:
    # small graphs), cpu, cuda, cuda:N, mps (gatbio.device); graphs are perturbed and scored on the CPU. Stored
    # resolved (the protein jobs'; each run's JSON has its own).
    device: str = "auto"
    protein: ProteinSettings = field(default_factory=ProteinSettings)
    foodweb: FoodwebSettings = field(default_factory=FoodwebSettings)


#: Settings that make no sense, rejected before any work (:func:`gatbio.config.check_settings`).
SETTING_RULES = {
    "models": "nonempty; unique", "perturbations": "nonempty; unique", "seeds": "nonempty; unique; >=0", "sigma": ">=0",
    "edge_drop_p": "[0, 1]", "betweenness_k": ">0", "hub_fraction": "(0, 1]", "r50_random_orders": ">0",
    "jobs": ">0", "threads": ">0",
    "protein.dim": ">0", "protein.hidden": ">0", "protein.heads": ">0", "protein.layers": ">0",
    "protein.dropout": "[0, 1)", "protein.input_dropout": "[0, 1)", "protein.attn_dropout": "[0, 1)",
    "protein.epochs": ">0", "protein.lr": ">0", "protein.weight_decay": ">=0", "protein.patience": ">0",
    "protein.eval_every": ">0", "protein.train": "(0, 1)", "protein.val_fraction": "(0, 1)",
    "foodweb.hidden": ">0", "foodweb.heads": ">0", "foodweb.layers": ">0", "foodweb.dropout": "[0, 1)",
    "foodweb.epochs": ">0", "foodweb.lr": ">0", "foodweb.weight_decay": ">=0", "foodweb.rounds": ">0",
    "foodweb.test": "(0, 1)", "foodweb.val": "(0, 1)",
    "fractions": "unique",
    "foodweb.webs": "unique", "protein.inputs": "unique",
}

#: Config keys that never change a finished run's result: where and how fast the sweep runs, and which
#: (task, dataset, model, seed, perturbation) curves it computes (each has its own file); ``r50_random_orders``
#: is used by the summary only. Any other difference is refused on resume (:func:`gatbio.results.prepare_out_dir`).
RESUME_FREE_KEYS = ("name", "out_dir", "jobs", "threads", "models", "perturbations", "seeds", "r50_random_orders",
                    "protein.enabled", "protein.dataset", "foodweb.enabled", "foodweb.webs")

#: What :func:`run` writes in ``out_dir`` (``--restart`` deletes exactly these).
OUTPUTS = ("runs", "splits", "summary", "figures", "timing.json")
#: What a run file holds (:func:`gatbio.results.is_done`: one without them is redone)
RUN_KEYS = ("task", "dataset", "model", "seed", "perturbation", "metric", "curve")
#: Of those, the ones that must not be empty: a file with the run's names and ``"curve": []`` is no result
RUN_FILLED = ("curve",)


def _validate(cfg: RobustnessConfig) -> RobustnessConfig:
    from gatbio.config import check_settings

    check_settings(cfg, SETTING_RULES)
    if cfg.foodweb.negatives not in ("degree", "uniform"):
        raise ValueError(f"config foodweb.negatives={cfg.foodweb.negatives!r}: expected 'degree' or 'uniform'")
    bad = [m for m in cfg.models if m not in MODELS]
    if bad:
        raise ValueError(f"config models: unknown model {bad[0]!r}; choose from {', '.join(MODELS)}")
    bad = [p for p in cfg.perturbations if p not in PERTURBATIONS]
    if bad:
        raise ValueError(f"config perturbations: unknown perturbation {bad[0]!r}; "
                         f"choose from {', '.join(PERTURBATIONS)}")
    for f in cfg.fractions:
        if not 0.0 <= f <= 1.0:
            raise ValueError(f"config fractions: {f} is outside [0, 1]; give fractions of nodes, e.g. 0.05 for 5%")
    if not cfg.fractions or min(cfg.fractions) != 0.0:
        raise ValueError("config fractions: include 0.0, the unperturbed point every curve starts from")
    if max(cfg.fractions) == 0.0:
        raise ValueError(f"config fractions={[float(f) for f in cfg.fractions]}: perturbs nothing; add a fraction "
                         "above 0, e.g. [0.0, 0.05]")
    removals = [p for p in cfg.perturbations if PERTURBATIONS[p][0] is remove_nodes]
    if removals and max(cfg.fractions) >= 1.0:
        raise ValueError(f"config fractions: {max(cfg.fractions)} removes every node under perturbation "
                         f"{removals[0]!r}, leaving nothing to score; node removals take fractions in [0, 1)")
    if not cfg.seeds:
        raise ValueError("config seeds: give at least one seed")
    if not (cfg.protein.enabled or cfg.foodweb.enabled):
        raise ValueError("config: enable at least one task (protein.enabled or foodweb.enabled)")
    if cfg.protein.enabled:
        from gatbio.embed import EMBEDDINGS

        if not cfg.protein.inputs:
            raise ValueError(f"config protein.inputs=[]: is empty; give at least one of {', '.join(EMBEDDINGS)}, "
                             "e.g. [prone]")
        for kind in cfg.protein.inputs:
            if kind == "id":
                raise ValueError("config protein.inputs: 'id' is not an input of this sweep (its inputs are fixed "
                                 f"embeddings, perturbed by feature noise); choose from {', '.join(EMBEDDINGS)}")
            if kind not in EMBEDDINGS:
                raise ValueError(f"config protein.inputs: unknown input {kind!r}; choose from {', '.join(EMBEDDINGS)}")
    if cfg.foodweb.enabled and cfg.foodweb.val + cfg.foodweb.test >= 1:
        raise ValueError(f"config foodweb.val={cfg.foodweb.val:g} and foodweb.test={cfg.foodweb.test:g} hold out "
                         f"{cfg.foodweb.val + cfg.foodweb.test:g} of each web's links, leaving none to train on: their "
                         "sum must be below 1, e.g. foodweb.val=0.1 foodweb.test=0.2")
    if cfg.foodweb.enabled and not cfg.foodweb.webs:
        raise ValueError("config foodweb.webs=[]: is empty; give at least one web (e.g. [cheddar/Benguela]), or set "
                         "foodweb.enabled=false")
    if cfg.protein.enabled:
        cfg.protein.dataset = _dataset_name(cfg.protein.dataset, "protein.dataset")
    if cfg.foodweb.enabled:
        webs = [_dataset_name(w, "foodweb.webs") for w in cfg.foodweb.webs]
        from gatbio.data.sources import refuse_same_names

        refuse_same_names(cfg.foodweb.webs, webs, "foodweb.webs")
        cfg.foodweb.webs = webs
    cfg.fractions = sorted(set(float(f) for f in cfg.fractions))
    return cfg


def _dataset_name(name: str, key: str) -> str:
    """Config ``key``'s dataset ``name`` in the registry's spelling (:func:`gatbio.data.sources.resolve_name`, as
    :func:`gatbio.data.load` takes it: ``cheddar/tl84`` is ``cheddar/TL84``), so that run files, splits and a
    resumed folder know a dataset by one name. In ``foodweb.webs``, a name that is no dataset but an existing file
    or folder is the user's own web (read as ``gatbio trophic`` reads it, :func:`load_web`), known by its absolute
    path. An unknown name: a one-line ValueError naming ``key``."""
    from gatbio.data import dataset_names
    from gatbio.data.foodweb import check_gateway_name
    from gatbio.data.sources import registry_spelling

    if check_gateway_name(name, key):
        return name
    spelt = registry_spelling(name)
    if not check_gateway_name(spelt, key) and spelt not in dataset_names(expand=True):
        own = Path(name).expanduser()
        if key == "foodweb.webs" and (own.exists() or own.is_absolute()):
            # (an absolute path is kept even when it is gone: a results folder's saved config names its webs so,
            # and its summary needs no web file; reading a missing one says so then)
            return str(own.resolve())
        files = f"; or the path of a food-web file or folder of yours (no such file here){_looked_for(own)}" \
            if key == "foodweb.webs" else ""
        raise ValueError(f"config {key}: unknown dataset {name!r}; e.g. node2vec-ppi, cheddar/YthanEstuary, "
                         f"gateway/11 (all names: gatbio datasets --members){files}")
    return spelt


def _looked_for(path: Path) -> str:
    """Where a missing relative web file was looked for, and the config file's folder when it is there
    (:func:`gatbio._paths.missing_file_hint`: a relative path of a config is read from the current folder, not the
    config's): ``": looked for /cwd/web.txt: ...; web.txt is in the folder of the config file ..."``, or ``""``."""
    from gatbio._paths import missing_file_hint

    said = missing_file_hint(path)
    return f": {said}" if said else ""


def load_web(name: str) -> Data:
    """A food web of a sweep: a dataset of the registry (:func:`gatbio.data.load`), or a user's food-web file or
    folder named by its absolute path (:func:`_dataset_name`), read by
    :func:`gatbio.ecology.commands.read_foodweb_file` (an edge list, CSV, Pajek file, GATEWAy or cheddar folder;
    prey -> predator)."""
    if Path(name).is_absolute():
        from gatbio.ecology.commands import read_foodweb_file

        return read_foodweb_file(name)
    from gatbio.data import load

    return load(name)


def load(path: str | Path | dict | None = None, overrides: list[str] | None = None) -> RobustnessConfig:
    """The sweep config from a YAML file and ``key=value`` overrides, validated."""
    return _validate(load_config(RobustnessConfig, path, overrides))


def _slug(name: str) -> str:
    return name.replace("/", "__")


# --------------------------------------------------------------------------------------------------
# models and attention capture


def _is_attention_layer(module: torch.nn.Module) -> bool:
    from torch_geometric.nn import GATConv as PyGGATConv
    from torch_geometric.nn import GATv2Conv

    from gatbio.nn import GATConv

    return isinstance(module, (GATConv, PyGGATConv, GATv2Conv))


@torch.no_grad()
def forward_with_attention(model: torch.nn.Module, call) -> tuple[Tensor, tuple[Tensor, Tensor] | None]:
    """Run ``call()`` (a forward pass of ``model``) and also return the last attention layer's attention.

    A forward pre-hook records the inputs of the last attention layer (in module order); the layer is then
    run once more on them with ``return_attention_weights=True``. This works for any model built from
    :class:`gatbio.nn.GATConv` or PyG's ``GATConv`` / ``GATv2Conv`` without the model having to expose its
    attention; a model without attention (GCN) gives ``None``. The last layer is the informative one: in the
    first layer, the logits of an edge depend only on its two endpoints' inputs, so removing other nodes
    leaves the (renormalised) attention on the surviving edges unchanged unless the layer normalises by
    degree.
    """
    layers = [m for m in model.modules() if _is_attention_layer(m)]
    layer = layers[-1] if layers else None
    if layer is None:
        return call(), None
    seen: dict[str, Any] = {}

    def hook(_mod, args, kwargs):
        if "args" not in seen:
            seen["args"], seen["kwargs"] = args, dict(kwargs)

    handle = layer.register_forward_pre_hook(hook, with_kwargs=True)
    try:
        out = call()
    finally:
        handle.remove()
    if "args" not in seen:
        return out, None
    kwargs = {**seen["kwargs"], "return_attention_weights": True}
    _, (ei, alpha) = layer(*seen["args"], **kwargs)
    return out, (ei.detach(), alpha.detach())


def _attention_stats(att, hubs: Tensor, num_nodes: int) -> dict[str, float]:
    """Mean entropy ratio over nodes and heads, and the attention mass on ``hubs``, of one attention map."""
    if att is None:
        return {"entropy_ratio": float("nan"), "hub_mass": float("nan"), "hub_mass_uniform": float("nan")}
    ei, alpha = att
    ratio = metrics.attention_entropy_ratio(ei, alpha, num_nodes)
    mass = metrics.hub_attention_mass(ei, alpha, hubs, num_nodes)
    return {"entropy_ratio": float(np.nanmean(ratio.cpu().numpy())) if (~torch.isnan(ratio)).any() else float("nan"),
            "hub_mass": mass["mass"], "hub_mass_uniform": mass["uniform"]}


class _NoAttnBias(torch.nn.Module):
    """Wraps a PyG layer that has no ``attn_bias`` argument (PyG ``GATConv``, ``GCNConv``) so that it can
    stand in for :class:`gatbio.nn.GATConv` inside a model; an actual bias is refused, not ignored."""

    def __init__(self, conv: torch.nn.Module, attention: bool) -> None:
        super().__init__()
        self.conv = conv
        self.attention = attention

    def reset_parameters(self) -> None:
        self.conv.reset_parameters()

    def forward(self, x, edge_index, edge_attr=None, size=None, return_attention_weights=None, *, attn_bias=None):
        if attn_bias is not None:
            raise ValueError(f"{self.conv.__class__.__name__} takes no attn_bias: build the model without an "
                             "attention bias (e.g. FoodWebGAT(trophic_bias=False)) to compare layer variants")
        if not self.attention:
            out = self.conv(x, edge_index)
            return (out, (edge_index, None)) if return_attention_weights else out
        return self.conv(x, edge_index, edge_attr=edge_attr, size=size,
                         return_attention_weights=return_attention_weights)


def make_variant(conv: torch.nn.Module, name: str) -> torch.nn.Module:
    """A fresh layer of variant ``name`` (see :data:`MODELS`) with the shape and settings of ``conv``.

    ``conv`` is a :class:`gatbio.nn.GATConv` of an existing model; the new layer keeps its channels, heads,
    concat, dropout, self-loop and residual settings. All of our variants score with ``attention="gat"``
    (as vanilla GAT does) unless the variant itself sets ``attention``.
    """
    if name not in MODELS:
        raise ValueError(f"unknown model {name!r}; choose from {', '.join(MODELS)}")
    opts = dict(MODELS[name])
    kind = opts.pop("conv", "gatbio")
    common = dict(heads=conv.heads, concat=conv.concat, negative_slope=conv.negative_slope, dropout=conv.dropout,
                  add_self_loops=conv.add_self_loops, edge_dim=conv.edge_dim, bias=conv.bias is not None,
                  residual=conv.residual)
    if kind == "pyg_gat":
        from torch_geometric.nn import GATConv as PyGGATConv

        return _NoAttnBias(PyGGATConv(conv.in_channels, conv.out_channels, **common), attention=True)
    if kind == "gcn":
        from torch_geometric.nn import GCNConv

        width = conv.out_channels * (conv.heads if conv.concat else 1)
        return _NoAttnBias(GCNConv(conv.in_channels, width, add_self_loops=conv.add_self_loops), attention=False)
    from gatbio.nn import GATConv

    opts.setdefault("attention", "gat")
    return GATConv(conv.in_channels, conv.out_channels, **common, **opts)


def with_variant(model: torch.nn.Module, name: str) -> torch.nn.Module:
    """``model`` with every :class:`gatbio.nn.GATConv` replaced by a fresh layer of variant ``name``.

    This is how the sweep reuses the protein and food-web models unchanged: same architecture, only the
    attention layer differs between the compared variants. Returns the same (modified) model object.
    """
    from gatbio.nn import GATConv

    targets = [(parent, child_name, child) for parent in model.modules()
               for child_name, child in parent.named_children() if isinstance(child, GATConv)]
    if not targets:
        raise ValueError(f"{model.__class__.__name__} has no gatbio.nn.GATConv layer to replace")
    for parent, child_name, child in targets:
        setattr(parent, child_name, make_variant(child, name))
    return model


# --------------------------------------------------------------------------------------------------
# the two tasks: a clean problem, a model fitted once on it, and evaluation on perturbed copies


def _mean_over(values: Tensor, mask: Tensor) -> float:
    v = values.reshape(values.size(0), -1)[mask]  # (n, H)
    v = v[~torch.isnan(v)]
    return float(v.mean()) if v.numel() else float("nan")


class _Problem:
    """One dataset and seed: the clean graph, the split, and how to fit and score a model on it."""

    task: str
    metric: str
    name: str
    data: Data  # the graph the perturbations act on (what the model passes messages over), on the CPU
    device: torch.device  # where the model trains and runs; forward() returns its outputs on the CPU

    def fit(self, model_name: str,
            on_epoch: Callable[[int, int], None] | None = None) -> tuple[torch.nn.Module, dict]:
        """Train ``model_name``; ``on_epoch``: called after each epoch with (epoch, max epochs) (a heartbeat's
        line: :attr:`gatbio.results.UnitStage.on_epoch`), changing nothing in the training."""
        raise NotImplementedError

    def forward(self, model, data: Data) -> tuple[Tensor, Any]:
        raise NotImplementedError

    def items(self, pert: Perturbation | None) -> tuple[Any, Any, Tensor]:
        """(items in the perturbed graph's ids, the same items in clean ids, unaffected mask over them)."""
        raise NotImplementedError

    def score(self, out: Tensor, items) -> float:
        raise NotImplementedError

    def predictions(self, out: Tensor, items) -> np.ndarray:
        raise NotImplementedError

    def split_dict(self) -> dict:
        raise NotImplementedError

    def evaluate(self, model, clean_out: Tensor, clean_att, pert: Perturbation) -> dict[str, float]:
        """Score on the perturbed graph, the clean score on the same items, flip rate and attention shift."""
        items_new, items_old, unaffected = self.items(pert)
        if unaffected.numel() == 0:  # no evaluation item survives (e.g. every test protein or pair removed)
            nan = float("nan")
            return {"score": nan, "clean": nan, "drop": nan, "relative": nan, "flip_rate": nan, "n_items": 0,
                    "n_affected": pert.num_affected, "js_attention": nan, "entropy_ratio": nan}
        out, att = self.forward(model, pert.data)
        score, clean = self.score(out, items_new), self.score(clean_out, items_old)
        flips = metrics.flip_rate(self.predictions(clean_out, items_old), self.predictions(out, items_new),
                                  mask=unaffected)
        row = {"score": score, "clean": clean, "drop": clean - score,
               "relative": score / clean if clean > 0 else float("nan"),
               "flip_rate": flips, "n_items": int(unaffected.numel()), "n_affected": pert.num_affected}
        if att is not None and clean_att is not None and pert.data.num_nodes > 0:
            js = metrics.attention_js_divergence(*clean_att, *att, node_map=pert.node_map,
                                                 num_nodes=pert.data.num_nodes)  # (N', H)
            row["js_attention"] = _mean_over(js, pert.unaffected_mask())
            ratio = metrics.attention_entropy_ratio(*att, pert.data.num_nodes)
            row["entropy_ratio"] = _mean_over(ratio, torch.ones(ratio.size(0), dtype=torch.bool))
        else:
            row["js_attention"] = row["entropy_ratio"] = float("nan")
        return row


# --------------------------------------------------------------------------------------------------
# the sweep

def _perturb_kwargs(cfg: RobustnessConfig, name: str) -> dict[str, Any]:
    """The config values that perturbation ``name`` takes."""
    if name == "feature_noise":
        return {"sigma": cfg.sigma}
    if name == "edge_drop":
        return {"p": cfg.edge_drop_p}
    return {}


def _datasets(cfg: RobustnessConfig) -> list[tuple[str, str]]:
    out = []
    if cfg.protein.enabled:
        out.append(("protein", cfg.protein.dataset))
    if cfg.foodweb.enabled:
        out += [("foodweb", w) for w in cfg.foodweb.webs]
    return out


def _run_path(out_dir: Path, task: str, dataset: str, model: str, seed: int, pert: str) -> Path:
    return out_dir / "runs" / task / _slug(dataset) / model / f"seed{seed}" / f"{pert}.json"


def _make_problem(task: str, dataset: str, seed: int, cfg: RobustnessConfig) -> _Problem:
    from gatbio.device import resolve_device

    device = resolve_device(cfg.device)
    if task == "protein":
        return _ProteinProblem(dataset, seed, cfg.protein, device)
    return _FoodwebProblem(dataset, seed, cfg.foodweb, device)


def _largest_fraction_leaving_a_node(n: int) -> float:
    """The largest fraction of 4 decimals whose node count (``node_count``: halves round up) is below ``n``: below
    (n - 1/2) / n, e.g. 0.9827 of 29 nodes removes 28."""
    return round(math.ceil((n - 0.5) / n * 1e4) / 1e4 - 1e-4, 4)


def _check_leaves_a_node(cfg: RobustnessConfig, dataset: str, n: int) -> None:
    """Refuse a largest fraction whose node removal rounds to all ``n`` nodes of ``dataset``."""
    removal = [p for p in cfg.perturbations if PERTURBATIONS[p][0] is remove_nodes]
    if removal and node_count(max(cfg.fractions), n) >= n:
        raise ValueError(f"config fractions: {max(cfg.fractions)} of {dataset}'s {n} nodes rounds to all {n} "
                         f"under perturbation {removal[0]!r}, leaving nothing to score; give fractions of at "
                         f"most {_largest_fraction_leaving_a_node(n):g} for this graph")


def _check_node_counts(cfg: RobustnessConfig) -> None:
    """:func:`_check_leaves_a_node` for every dataset of ``cfg`` before any work, so that a web late in the sweep
    does not stop it after earlier datasets' runs are written. Below a fraction of 1/2 no graph rounds to all of
    its nodes, and nothing is loaded."""
    if max(cfg.fractions) < 0.5 or not any(PERTURBATIONS[p][0] is remove_nodes for p in cfg.perturbations):
        return
    for _, dataset in _datasets(cfg):  # (a protein dataset's name is never a path: load_web loads it too)
        _check_leaves_a_node(cfg, dataset, int(load_web(dataset).num_nodes))


def _protein_data(dataset: str) -> Data:
    """The protein dataset of the sweep (:func:`gatbio.tasks.protein.load_data`), refused without multi-label
    targets."""
    from gatbio.tasks import protein

    raw = protein.load_data(dataset)
    if raw.y is None or raw.y.dim() != 2:
        raise ValueError(f"dataset {dataset!r} has no multi-label targets y (N, L): the protein task of the "
                         "robustness sweep needs one, e.g. protein.dataset=node2vec-ppi")
    return raw


def _check_inputs(cfg: RobustnessConfig) -> None:
    """Read the datasets of ``cfg`` before anything is written, and split each food web's links as its runs will
    (:func:`_split_of`, first seed): a missing dataset, a missing or malformed web file, or a web with too few links
    for ``foodweb.val`` and ``foodweb.test`` stops the sweep here, not after ``out_dir`` was made (and earlier
    datasets' runs written). A dataset that is missing while ``out_dir`` exists is left to the runs, which read it only if
    they still need it. The datasets are loaded once per process (:func:`gatbio.data.load` keeps them), and food
    webs are small: this costs little. Only the first seed's split is made here."""
    from gatbio.data.tables import notes_said_before

    # A results folder that exists may hold every run of a dataset that is not here any more (a folder moved to
    # another machine to finish its food webs): its runs read the data only if they still need it.
    resuming = Path(cfg.out_dir).is_dir()
    if cfg.protein.enabled:
        try:  # notes said here: the runs of this process get the dataset from gatbio.data.load's cache, silently
            _protein_data(cfg.protein.dataset)
        except FileNotFoundError:  # DatasetNotFoundError included
            if not resuming:
                raise
    for web in cfg.foodweb.webs if cfg.foodweb.enabled else ():
        with notes_said_before():  # a web file is read again by its runs, which say its notes
            try:
                _split_of(cfg, "foodweb", web, cfg.seeds[0])
            except FileNotFoundError:
                if not resuming:
                    raise
            except ValueError as err:  # the split's own messages, which name neither the web nor the config keys
                if "links are too few" in str(err):
                    fix = "give a web with more links, or other foodweb.val / foodweb.test fractions"
                elif "could not draw" in str(err):  # too few non-links for the held-out links' negatives
                    fix = ("hold out fewer links (foodweb.val / foodweb.test)"
                           + (", or draw them with foodweb.negatives=uniform" if cfg.foodweb.negatives == "degree"
                              else ""))
                else:
                    raise
                raise ValueError(f"config foodweb.webs: {web}: {err}; {fix}") from None


def _job(cfg: RobustnessConfig, task: str, dataset: str, seed: int, stage: UnitStage | None = None) -> dict:
    """Fit every model that still has missing results on one (dataset, seed), and write its curves. ``stage``: told
    which model runs and its epoch, for the unit's heartbeat (:func:`gatbio.parallel.parallel_map`'s
    ``heartbeat``)."""
    with unit_threads(max(1, cfg.threads)):
        return _job_body(cfg, task, dataset, seed, UnitStage(on=False) if stage is None else stage)


def _split_path(out_dir: Path, task: str, dataset: str, seed: int) -> Path:
    return out_dir / "splits" / task / _slug(dataset) / f"seed{seed}.json"


def _split_of(cfg: RobustnessConfig, task: str, dataset: str, seed: int) -> dict:
    """The saved split of one (dataset, seed), as its problem makes it (:meth:`_Problem.split_dict`) without
    computing the problem's inputs: a protein graph's labelled split, a food web's link split."""
    if task == "protein":
        from gatbio.tasks import protein

        s = cfg.protein
        return protein.make_split(protein.load_data(dataset), s.train, seed, s.val_fraction)
    from gatbio.data.splits import link_split

    s = cfg.foodweb
    return link_split(load_web(dataset), val=s.val, test=s.test, seed=seed, negatives=s.negatives).to_dict()


def _restore_splits(cfg: RobustnessConfig, units: list[tuple[str, str, int]]) -> list[Path]:
    """The saved split of each finished (task, dataset, seed) unit of ``units``, written again where it is missing
    or damaged (:func:`gatbio.results.restore_splits`; :func:`_split_of`). Returns their paths."""
    return restore_splits("robustness", cfg.out_dir, {
        _split_path(Path(cfg.out_dir), task, dataset, seed): functools.partial(_split_of, cfg, task, dataset, seed)
        for task, dataset, seed in units})


def _todo_models(cfg: RobustnessConfig, task: str, dataset: str, seed: int) -> list[str]:
    """The models of one (dataset, seed) with a perturbation still to run."""
    out_dir = Path(cfg.out_dir)
    return [m for m in cfg.models
            if not all(is_done(_run_path(out_dir, task, dataset, m, seed, p), RUN_KEYS, RUN_FILLED)
                       for p in cfg.perturbations)]


# A protein (dataset, seed) unit costs about 10 food-web ones: in the full sweep of 2026-11-27 (2 CPU cores, 9
# models each) node2vec-PPI's took 175-317 s (median 206 s), the 4 Cheddar webs' 16-44 s (median 21 s).
UNIT_COST = {"protein": 10.0, "foodweb": 1.0}


def _unit_costs(items: list[tuple], left: dict[tuple, list[str]]) -> list[float]:
    """Each (dataset, seed) unit's expected cost, for the progress's time left: its task's :data:`UNIT_COST` per
    model still to fit (``left[task, dataset, seed]``: a resumed unit may have fewer). Counting units, the protein
    units, run first and about 10x longer, made each food-web unit left look as long as one of them."""
    return [UNIT_COST[task] * max(len(left[task, dataset, seed]), 1) for _c, task, dataset, seed in items]


def _check_saved_split(out_dir: Path, task: str, dataset: str, seed: int, split: dict) -> Path:
    """Write the (dataset, seed) split where it is not saved yet; else refuse a saved one that differs from
    ``split``: the folder's runs were made on the saved one. Returns the split's path."""
    split_path = _split_path(out_dir, task, dataset, seed)
    if not is_done(split_path):
        write_json(split_path, split)
    elif not holds_json(split_path, split):  # the saved split is the one the runs used
        raise ValueError(f"{split_path}: the saved split differs from the one this code and data give for "
                         f"{dataset} seed {seed} (the data or the split code changed since the folder's runs): "
                         "rerun with --restart to redo them on the new split")
    return split_path


def _job_body(cfg: RobustnessConfig, task: str, dataset: str, seed: int, stage: UnitStage) -> dict:
    out_dir = Path(cfg.out_dir)
    todo = _todo_models(cfg, task, dataset, seed)
    if not todo:
        return {"dataset": dataset, "seed": seed, "fitted": 0, "seconds": 0.0}
    t_start = time.perf_counter()
    problem = _make_problem(task, dataset, seed, cfg)
    n = int(problem.data.num_nodes)
    _check_leaves_a_node(cfg, dataset, n)
    split_path = _check_saved_split(out_dir, task, dataset, seed, problem.split_dict())
    clean = problem.data
    # Perturbed graphs depend on (dataset, seed) only: built once, shared by every model (paired comparison).
    # Rankings once per kind (betweenness is the slow one), then every fraction is a prefix of them.
    rankings = {by: rank_nodes(clean, by, seed=seed, k=cfg.betweenness_k)
                for by in {PERTURBATIONS[p][1] for p in cfg.perturbations} | {"degree"}}
    perts = {(p, f): perturb(clean, p, f, seed=seed, order=rankings[PERTURBATIONS[p][1]],
                             **_perturb_kwargs(cfg, p))
             for p in cfg.perturbations for f in cfg.fractions}
    # The nodes that removing hub_fraction by degree removes (the same rounding, the same seeded tie order).
    hubs = rankings["degree"][: max(1, node_count(cfg.hub_fraction, n))]
    fp = settings_fingerprint(out_dir)  # the settings the runs are made with
    for model_name in todo:
        stage(model_name)
        torch.manual_seed(seed)
        t0 = time.perf_counter()
        model, fit_info = problem.fit(model_name, on_epoch=stage.on_epoch)
        fit_info["fit_seconds"] = round(time.perf_counter() - t0, 2)
        model.eval()
        clean_out, clean_att = problem.forward(model, clean)
        att_stats = _attention_stats(clean_att, hubs, n)
        for p in cfg.perturbations:
            path = _run_path(out_dir, task, dataset, model_name, seed, p)
            if is_done(path, RUN_KEYS, RUN_FILLED):
                continue
            curve = [{"fraction": f, **problem.evaluate(model, clean_out, clean_att, perts[(p, f)])}
                     for f in cfg.fractions]
            write_json(path, {
                "task": task, "dataset": dataset, "model": model_name, "seed": seed, "perturbation": p,
                "metric": problem.metric, "layer": MODELS[model_name], "perturb_kwargs": _perturb_kwargs(cfg, p),
                "device": str(problem.device), "threads": cfg.threads, "software": software(),
                "retrained": False, "split": split_path.relative_to(out_dir).as_posix(), "fit": fit_info,
                "settings_fingerprint": fp,
                "clean_attention": att_stats, "curve": curve,
            })
    return {"dataset": dataset, "seed": seed, "fitted": len(todo),
            "seconds": round(time.perf_counter() - t_start, 1)}


def r50_table(webs: list[str], orders: list[str], seeds: list[int], random_orders: int = 20,
              k: int | None = None) -> tuple[Any, Any]:
    """R50 of each web (all its links) under each removal order, with and without protected basal species.

    The species are ranked on the whole web, as ecologists rank them; the model curves rank them on the graph the
    model passes messages over (its training links), so at a given fraction the two may remove different species.

    Targeted orders are repeated over ``seeds`` (they differ only in how ties are broken); ``random`` uses
    ``random_orders`` seeded permutations. Returns ``(table, curves)``: R50 mean ± std per (web, order,
    protect_basal), and the extinction curves (one row per step) for the figures.
    """
    import pandas as pd

    rows, curve_rows = [], []
    for web in webs:
        data = load_web(web)
        for order in orders:
            order_seeds = range(random_orders) if order == "random" else seeds
            for seed in order_seeds:
                ranking = rank_nodes(data, order, seed=seed, k=k)
                for protect in (False, True):
                    rows.append({"web": web, "order": order, "seed": seed, "protect_basal": protect,
                                 "r50": r50(data, order=ranking, protect_basal=protect)})
                removed, lost = extinction_curve(data, order=ranking)
                curve_rows += [{"web": web, "order": order, "seed": seed, "removed": a, "lost": b}
                               for a, b in zip(removed, lost, strict=True)]
    df = pd.DataFrame(rows)
    g = df.groupby(["web", "order", "protect_basal"], sort=False)["r50"]
    table = pd.concat([g.mean().rename("r50_mean"), g.std(ddof=1).rename("r50_std"), g.size().rename("n")],
                      axis=1).reset_index()
    return table, pd.DataFrame(curve_rows)


def run_selection(cfg: RobustnessConfig) -> dict[str, set]:
    """The runs ``cfg`` names (datasets, models, seeds, perturbations), as :func:`robustness_summary.load_runs`'s
    ``select``: a folder resumed with fewer of them keeps the other files, which its summaries leave out."""
    return {"dataset": {d for _, d in _datasets(cfg)}, "model": set(cfg.models), "seed": set(cfg.seeds),
            "perturbation": set(cfg.perturbations)}


def summarize(cfg: RobustnessConfig) -> str:
    """Write the summary tables and figures of the sweep in ``cfg.out_dir``; return a printable summary."""
    import pandas as pd

    from gatbio.tasks import robustness_summary as rs

    out_dir = Path(cfg.out_dir)
    runs = rs.read_runs(out_dir, select=run_selection(cfg))
    df = rs.load_runs(out_dir, runs=runs)
    incomplete = missing_runs_note([_run_path(out_dir, task, dataset, m, seed, pert) for task, dataset in _datasets(cfg)
                                    for m in cfg.models for seed in cfg.seeds for pert in cfg.perturbations], out_dir,
                                   RUN_KEYS, RUN_FILLED)
    pooled = rs.with_pooled_webs(df)  # once for every table: its note said once
    curves, auc = rs.curve_table(pooled, pool_webs=False), rs.auc_table(pooled, pool_webs=False)
    at = 0.05 if 0.05 in cfg.fractions else max(cfg.fractions)
    head = pd.concat([rs.headline_table(pooled, fraction=at, value=v, pool_webs=False) for v in ("drop", "flip_rate")],
                     ignore_index=True)
    write_csv(out_dir / "summary" / "curves.csv", curves)
    write_csv(out_dir / "summary" / "auc.csv", auc)
    write_csv(out_dir / "summary" / "headline.csv", head)
    write_csv(out_dir / "summary" / "headline_verdict.csv", rs.headline_verdict(head))
    (out_dir / "figures").mkdir(parents=True, exist_ok=True)
    for dataset in dict.fromkeys(curves["dataset"]):
        name = re.sub(r"[^A-Za-z0-9_.-]+", "_", dataset).strip("_")
        rs.plot_curves(curves, dataset, "relative", out_dir / "figures" / f"curves_{name}.png")
    # Seeds per row: one count for all in a finished sweep, said once; where they differ (an interrupted sweep
    # summarised) each table gives its rows' n, as the CSVs do (one count said for all misstated the others).
    counts = pd.concat([auc["n"], head["n"]])
    most, uneven = int(counts.max()), counts.nunique() > 1
    ids = seed_ranges(df["seed"])
    seeds = f"{int(counts.min())} to {most} of seeds {ids} (each row's n below)" if uneven else f"{most} seeds ({ids})"
    lines = [f"hub robustness: {df['model'].nunique()} models x {df['perturbation'].nunique()} perturbations x "
             f"{df['fraction'].nunique()} fractions x {seeds} -> {out_dir}"]
    lines += [line for line in (incomplete, mixed_configs_note(out_dir, runs)) if line]
    orders = [p for p in cfg.perturbations if p in ("degree", "betweenness", "pagerank", "random")]
    if not (cfg.foodweb.enabled and orders):  # no R50 this time: an earlier summary's would pass for this one's
        for stale in (out_dir / "summary" / "r50.csv", out_dir / "summary" / "extinction_curves.csv",
                      out_dir / "figures" / "extinctions.png"):
            stale.unlink(missing_ok=True)
    if cfg.foodweb.enabled and not orders:
        lines += ["R50: none (it follows the node-removal perturbations, which this sweep does not run)"]
    if cfg.foodweb.enabled and orders:
        table, ext = r50_table(cfg.foodweb.webs, orders, cfg.seeds, cfg.r50_random_orders, cfg.betweenness_k)
        write_csv(out_dir / "summary" / "r50.csv", table)
        write_csv(out_dir / "summary" / "extinction_curves.csv", ext)
        rs.plot_extinctions(ext, out_dir / "figures" / "extinctions.png")
        r = table[~table["protect_basal"]].pivot(index="web", columns="order", values="r50_mean")
        lines += ["R50 (fraction of species removed before half are lost):", r.round(3).to_string()]
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        if head.empty:
            lines += ["headline: none (it compares models under the degree and feature_noise perturbations at "
                      f"{at:.0%}, which this sweep does not run)"]
        for value in ("drop", "flip_rate") if not head.empty else ():
            h = head[head["value"] == value]
            show = h[["dataset", "perturbation", "model", "clean", "mean", "ci_low", "ci_high", "ratio"]
                     + (["n"] if uneven else [])]
            lines += [f"{value} at {at:.0%} (mean, 95% CI over seeds; ratio = / pyg_gat):",
                      show.round(4).to_string(index=False)]
        verdict = rs.headline_verdict(head)
        if not verdict.empty:
            v = verdict.copy()
            for col, digits in (("vanilla", 4), ("best", 4), ("ratio", 2)):
                v[f"{col}_ci"] = [f"[{a:.{digits}f}, {b:.{digits}f}]"
                                  for a, b in zip(v[f"{col}_ci_low"], v[f"{col}_ci_high"], strict=True)]
            cols = ["dataset", "perturbation", "value", "vanilla", "vanilla_ci", "best", "best_mean", "best_ci",
                    "ratio", "ratio_ci", "target_met"]
            if uneven:  # the two rows of the headline table it compares
                n_of = head.set_index(["task", "dataset", "perturbation", "value", "model"])["n"]
                where = list(zip(v["task"], v["dataset"], v["perturbation"], v["value"], strict=True))
                v["vanilla_n"] = [n_of[(*w, "pyg_gat")] for w in where]
                v["best_n"] = [n_of[(*w, best)] for w, best in zip(where, v["best"], strict=True)]
                cols += ["vanilla_n", "best_n"]
            lines += ["headline (target: the best variant's value <= 50% of vanilla GAT's):",
                      v[cols].round(4).to_string(index=False)]
        pivot = {"index": ["dataset", "model"], "columns": "perturbation", "sort": False}
        area = auc.pivot_table(values="auc_mean", **pivot).round(3)
        if uneven:  # a cell over fewer seeds than the most says how many
            n = auc.pivot_table(values="n", **pivot).reindex_like(area)
            area = area.astype(str) + n.map(lambda k: f" (n={k:.0f})" if k < most else "")
        lines += ["area under the degradation curve (1 = no degradation"
                  + (f"; over {most} seeds where no n= says fewer):" if uneven else "):"), area.to_string()]
    text = "\n".join(lines)
    atomic_write_text(out_dir / "summary" / "summary.txt", text + "\n")
    return text


def run(cfg: RobustnessConfig, summary_only: bool = False, progress: bool = True, resume: str = "check") -> str:
    """Run the sweep (resuming: finished runs are skipped), then write and return the summary.

    ``resume``: what to do when ``out_dir`` holds runs of a config with other result settings: ``"check"``
    refuses (naming the keys), ``"restart"`` deletes this task's outputs first, ``"anyway"`` reuses them
    (:func:`gatbio.results.prepare_out_dir`).
    """
    import dataclasses

    from gatbio.device import announce_device, resolve_device
    from gatbio.results import OUT_DIR_KEY, prepare_out_dir, writing_runs

    cfg = _validate(cfg)
    job_cfg = {}
    if not summary_only:  # the devices this run uses, checked before any work and stored resolved
        # food webs are small graphs: under auto their jobs run on the CPU (gatbio.device.SMALL_GRAPHS_ON_GPU;
        # on an H200 this sweep's food-web jobs took 18-24 s against 5-8 s on 2 CPU cores); each run's JSON
        # records the device it ran on, config.yaml the first task's (the protein jobs' when there are any)
        devices = {task: resolve_device(cfg.device, small_graphs=task == "foodweb") for task, _ in _datasets(cfg)}
        for task, dev in devices.items():
            announce_device(dev, cfg.device, small_graphs=task == "foodweb")
        job_cfg = {task: dataclasses.replace(cfg, device=str(dev)) for task, dev in devices.items()}
        cfg = next(iter(job_cfg.values()))
        _check_node_counts(cfg)
        _check_inputs(cfg)  # before out_dir is made: data that cannot be read or split leave no folder behind
    out_dir = prepare_out_dir(cfg.out_dir, cfg, free_keys=RESUME_FREE_KEYS, outputs=OUTPUTS, resume=resume,
                              summary_only=summary_only, key=OUT_DIR_KEY)
    if not summary_only:
        with writing_runs(out_dir):
            items = [(job_cfg[task], task, dataset, seed) for task, dataset in _datasets(cfg) for seed in cfg.seeds]
            # the models each unit still has to fit, read once: what is done and what the rest costs
            left = {(task, dataset, seed): _todo_models(c, task, dataset, seed) for c, task, dataset, seed in items}
            todo = left_to_run(items, lambda c, task, dataset, seed: not left[task, dataset, seed],
                               "robustness", "(dataset, seed)", out_dir, progress, keys=RUN_KEYS, filled=RUN_FILLED,
                               files=lambda c, task, dataset, seed: [_run_path(out_dir, task, dataset, m, seed, p)
                                                                     for m in c.models for p in c.perturbations])
            _restore_splits(cfg, [(task, dataset, seed) for _c, task, dataset, seed in items
                                  if not left[task, dataset, seed]])
            for _c, task, dataset, seed in items:  # a user's web file may have changed since its finished runs (a
                # registered dataset's files are checked by their sha256): they are kept only for the split they used
                if not left[task, dataset, seed] and Path(dataset).is_absolute():
                    _check_saved_split(out_dir, task, dataset, seed, _split_of(cfg, task, dataset, seed))
            host = machine(calibrate=bool(todo))  # before the workers start
            t0 = time.perf_counter()
            done = parallel_map(_job, todo, jobs=cfg.jobs, desc="robustness (dataset, seed)", progress=progress,
                                costs=_unit_costs(todo, left),
                                heartbeat=lambda c, task, dataset, seed: f"robustness: still running ({dataset}, "
                                                                         f"seed {seed})")
            # seconds and jobs: this call's (a resumed call's units finished before are not in them)
            write_json(out_dir / "timing.json", {"seconds": round(time.perf_counter() - t0, 1), "jobs": done,
                                                 "units": len(items), "units_computed_this_call": len(todo),
                                                 "machine": host, "config": config_to_dict(cfg)})
    return summarize(cfg)


def run_quick(out_dir: str | Path, device: str = "auto", overrides: tuple[str, ...] = ()) -> str:
    """The quick config on real data (``make demo``): a few models, seeds and webs in about a minute.
    ``overrides``: more ``key=value`` settings, e.g. ``("foodweb.dropout=0",)``."""
    cfg = load(QUICK_CONFIG, [f"out_dir={Path(out_dir) / 'robustness'}", f"device={device}", *overrides])
    return run(cfg, progress=False)


class _ProteinProblem(_Problem):
    """Multi-label protein function on a PPI graph; items are the test proteins, metric micro-F1 (top-k)."""

    task, metric = "protein", "micro_f1"

    def __init__(self, dataset: str, seed: int, s: ProteinSettings, device: torch.device | None = None) -> None:
        from gatbio.tasks import protein

        self.name, self.seed, self.s = dataset, seed, s
        self.device = torch.device("cpu") if device is None else device
        raw = _protein_data(dataset)
        n = int(raw.num_nodes)
        # Inputs are structural embeddings of the clean graph (no labels involved), fixed for the perturbed
        # copies: a perturbation changes what the model aggregates, not the embedding space it was trained in.
        x = protein.node_features(raw, s.inputs, dim=s.dim, seed=seed)  # (N, F)
        self.split = protein.make_split(raw, s.train, seed, s.val_fraction)
        test = torch.zeros(n, dtype=torch.bool)
        test[torch.tensor(self.split["test"], dtype=torch.long)] = True
        self.data = Data(x=x, y=raw.y.float(), edge_index=raw.edge_index, num_nodes=n, test_mask=test)

    def split_dict(self) -> dict:
        return self.split

    def fit(self, model_name: str, on_epoch: Callable[[int, int], None] | None = None):
        from gatbio.nn.node_models import GATNodeClassifier
        from gatbio.tasks.protein import val_score
        from gatbio.train import TrainConfig, fit

        s, d = self.s, self.data
        opts = dict(MODELS[model_name])
        conv = {"pyg_gat": "pyg-gat", "gcn": "gcn"}.get(opts.pop("conv", ""), "gatbio")
        if conv == "gatbio":
            opts.setdefault("attention", "gat")
        model = GATNodeClassifier(d.x.size(1), d.y.size(1), hidden_channels=s.hidden, heads=s.heads,
                                  num_layers=s.layers, dropout=s.dropout, input_dropout=s.input_dropout,
                                  attn_dropout=s.attn_dropout, linear_skip=s.linear_skip, conv=conv, **opts)
        tcfg = TrainConfig(epochs=s.epochs, lr=s.lr, weight_decay=s.weight_decay, patience=s.patience,
                           eval_every=s.eval_every)
        fit_idx = torch.tensor(self.split["fit"], dtype=torch.long)
        val_idx = torch.tensor(self.split["val"], dtype=torch.long)
        res = fit(model, d.x, d.edge_index, d.y, fit_idx, val_idx, val_score(True), tcfg, seed=self.seed,
                  device=self.device, on_epoch=on_epoch)
        return model, {"best_epoch": res.best_epoch, "epochs_run": res.epochs_run, "val_macro_f1": res.best_val}

    def forward(self, model, data: Data):
        x, ei = data.x.to(self.device), data.edge_index.to(self.device)
        return _cpu(*forward_with_attention(model, lambda: model(x, ei)))

    def items(self, pert):
        test_new = pert.data.test_mask.nonzero().view(-1)  # (T',) in the perturbed graph
        test_old = pert.kept[test_new]  # the same proteins in clean ids
        unaffected = pert.unaffected_mask()[test_new]
        return (test_new, pert.data.y), (test_old, self.data.y), unaffected

    def score(self, out, items):
        idx, y = items
        return metrics.f1_top_k(y[idx], out[idx])["micro_f1"] if idx.numel() else float("nan")

    def predictions(self, out, items):
        idx, y = items
        return metrics.top_k_predictions(out[idx], y[idx].sum(1))


class _FoodwebProblem(_Problem):
    """Directed link prediction on a food web; items are the held-out pairs, metric PR-AUC."""

    task, metric = "foodweb", "pr_auc"

    def __init__(self, dataset: str, seed: int, s: FoodwebSettings, device: torch.device | None = None) -> None:
        from gatbio.data.splits import link_split, observed_graph

        self.name, self.seed, self.s = dataset, seed, s
        self.device = torch.device("cpu") if device is None else device
        from gatbio.tasks.foodweb import adjacency_of, node_inputs, observed_levels, prepare_traits

        web = load_web(dataset)
        self.fold = link_split(web, val=s.val, test=s.test, seed=seed, negatives=s.negatives)
        observed = observed_graph(web, self.fold)  # message passing and features see training links only
        n = int(web.num_nodes)
        self.A = adjacency_of(observed.edge_index, n)
        self.traits, _ = prepare_traits(getattr(web, "x", None), getattr(web, "trait_names", None))
        levels = observed_levels(self.A)  # (N,)
        x = node_inputs(self.A, levels, self.traits, s.adjacency_inputs)  # (N, F), fixed under perturbations
        self.data = Data(x=x, levels=torch.tensor(levels, dtype=torch.float),
                         edge_index=torch.from_numpy(np.stack(self.A.nonzero())).long(), num_nodes=n)
        pairs = torch.cat([self.fold.test_pos, self.fold.test_neg], dim=1)  # (2, P)
        labels = torch.cat([torch.ones(self.fold.test_pos.size(1)), torch.zeros(self.fold.test_neg.size(1))])
        self.pairs, self.labels = pairs, labels

    def split_dict(self) -> dict:
        return self.fold.to_dict()

    def fit(self, model_name: str, on_epoch: Callable[[int, int], None] | None = None):
        model, loss = _fit_foodweb(self.A, self.traits, self.s, model_name, self.seed, self.device,
                                   on_epoch=on_epoch)
        with torch.no_grad():
            d = self.data
            out = model(d.x.to(self.device), d.edge_index.to(self.device), d.levels.to(self.device)).cpu()  # (N, N)
        val = torch.cat([self.fold.val_pos, self.fold.val_neg], 1)
        lab = torch.cat([torch.ones(self.fold.val_pos.size(1)), torch.zeros(self.fold.val_neg.size(1))])
        return model, {"epochs": self.s.epochs, "train_loss": loss, "val_pr_auc": metrics.pr_auc(lab, out[val[0], val[1]])}

    def forward(self, model, data: Data):
        x, ei, lv = (t.to(self.device) for t in (data.x, data.edge_index, data.levels))
        return _cpu(*forward_with_attention(model, lambda: model(x, ei, lv)))

    def items(self, pert):
        mapped = pert.node_map[self.pairs]  # (2, P), -1 where a species was removed
        keep = (mapped >= 0).all(0)
        hit = torch.zeros(pert.node_map.numel(), dtype=torch.bool)
        hit[pert.affected] = True
        unaffected = ~(hit[self.pairs[0]] | hit[self.pairs[1]])[keep]
        return (mapped[:, keep], self.labels[keep]), (self.pairs[:, keep], self.labels[keep]), unaffected

    def score(self, out, items):
        pairs, labels = items
        return metrics.pr_auc(labels, out[pairs[0], pairs[1]])

    def predictions(self, out, items):
        pairs, _ = items
        return (out[pairs[0], pairs[1]] > 0).cpu().numpy()


# --------------------------------------------------------------------------------------------------
# models and training loops of the two tasks


def _cpu(out: Tensor, att: tuple[Tensor, Tensor] | None) -> tuple[Tensor, tuple[Tensor, Tensor] | None]:
    """A forward pass's output and attention, moved to the CPU (where perturbations are scored)."""
    return out.cpu(), None if att is None else (att[0].cpu(), att[1].cpu())


def _fit_foodweb(A, traits, s: FoodwebSettings, model_name: str, seed: int, device: torch.device | None = None,
                 on_epoch: Callable[[int, int], None] | None = None) -> tuple[torch.nn.Module, float]:
    """Train :class:`gatbio.nn.FoodWebGAT` with its attention layers replaced by variant ``model_name``.

    The cross-fitting of :func:`gatbio.tasks.foodweb.fit_gat` (same masks, inputs and loss), with one
    difference: the model is built here so that its layers can be swapped before training (``fit_gat``
    builds its own). No trophic attention bias: PyG's ``GATConv`` and GCN take none, and the comparison
    is about the layers. The masks are built on the CPU and moved to ``device`` (default: the CPU), where the
    returned model lives; the model is initialised on the CPU, so a seed starts from the same weights everywhere.
    ``on_epoch``: called after each epoch with (epoch counted from 1, ``s.epochs``), changing nothing.
    """
    from gatbio.linkpred import inner_splits
    from gatbio.nn.link_models import FoodWebGAT
    from gatbio.tasks.foodweb import node_inputs, observed_levels

    torch.manual_seed(seed)
    masks = []
    for r in range(s.rounds):
        for split in inner_splits(A, 5, "links", seed * 1000 + r):
            lv = observed_levels(split.A_msg)
            masks.append((node_inputs(split.A_msg, lv, traits, s.adjacency_inputs),  # (N, F)
                          torch.from_numpy(np.stack(split.A_msg.nonzero())).long(),  # (2, E_msg)
                          torch.tensor(lv, dtype=torch.float),  # (N,)
                          torch.from_numpy(split.rows).long(), torch.from_numpy(split.cols).long(),
                          torch.tensor(split.y, dtype=torch.float)))
    model = FoodWebGAT(masks[0][0].size(1), s.hidden, s.heads, s.layers, s.dropout, trophic_bias=False,
                       attention="gat")
    model = with_variant(model, model_name)
    dev = torch.device("cpu") if device is None else device
    model.to(dev)
    masks = [tuple(t.to(dev) for t in m) for m in masks]
    opt = torch.optim.Adam(model.parameters(), lr=s.lr, weight_decay=s.weight_decay)
    model.train()
    loss = torch.zeros((), device=dev)
    for epoch in range(s.epochs):
        x, ei, lv, rows, cols, y = masks[epoch % len(masks)]
        opt.zero_grad()
        loss = torch.nn.functional.binary_cross_entropy_with_logits(model(x, ei, lv)[rows, cols], y)  # (P,)
        loss.backward()
        opt.step()
        if on_epoch is not None:
            on_epoch(epoch + 1, s.epochs)
    return model.eval(), loss.item()
