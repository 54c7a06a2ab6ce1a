r"""Protein interaction types (SHS27k): which of 7 modes the interaction of two proteins has.

config → (split type × seed) → split → (graph setting × model) → train → ``results.json`` → summary.

What one run does (:func:`run`):

1. load the interacting pairs and their multi-hot modes (:func:`gatbio.data.io.read_string_actions`, GNN-PPI's
   pair order) and the proteins' sequence features ``x`` (:mod:`gatbio.data.sequence`, standardised per column
   over all proteins: unsupervised);
2. for each split type in ``splits`` (``random``, ``bfs``, ``dfs``) and seed in ``seeds``: GNN-PPI's split of
   ``test_fraction`` of the pairs, seeded, and a validation part carved from the training pairs
   (:func:`gatbio.data.pair_splits.pair_split`; saved under ``splits/``, reused when the sweep resumes);
3. for each graph setting in ``graphs`` and model in ``models``: train on the *fit* pairs (training minus
   validation), early-stop and pick the checkpoint on the **validation** pairs (micro-F1 at ``threshold``; never
   on the test pairs), score the test pairs; one ``runs/<split>/s<seed>/<graph>/<model>.json`` each (written
   atomically; finished runs are skipped when resumed);
4. summarise mean ± std over seeds (``summary.csv``, ``summary.md``: one table per split type).

Graph settings (where messages pass):

- ``train`` (leakage-free; GNN-PPI's "GCT"): while training and choosing the checkpoint, the graph of the fit
  pairs; when scoring the test pairs, the graph of all training pairs (fit + validation: known interactions).
  Test proteins of a BFS/DFS split are then isolated: they are predicted from their own sequence.
- ``all`` (the published setting, "GCA", for comparison only): every pair, test pairs included (their labels
  withheld), in every phase. It tells the model which proteins interact with the test proteins.
  Models without message passing (``seq_mlp``) do not depend on the graph and run under ``train`` only.

Metric (as ``gnn_test.py`` of GNN-PPI): a mode is predicted when its probability exceeds ``threshold`` (0.5);
**micro-F1** over all (test pair × 7 mode) entries (``sklearn.metrics.f1_score(average="micro")``), macro-F1 over
the 7 modes, and micro-F1 on the test subsets BS / ES / NS (both / one / neither of the pair's proteins in a
training pair; :func:`gatbio.data.pair_splits.pair_subsets`).

Models (:mod:`gatbio.nn.pair_models`): ``gat`` (:class:`gatbio.nn.GATConv` encoder), ``pyg_gat``, ``gin``
(GNN-PPI's graph layer), ``gcn``, ``seq_mlp`` (sequence only, PIPR-like); all with GNN-PPI's product decoder.
A config adds variants under ``custom_models`` (``{name: {base: gat, degree_norm: log}}``) and new kinds of model
through :func:`gatbio.nn.pair_models.register_pair_model`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import torch

from gatbio.config import load_config
from gatbio.results import (
    atomic_write_text,
    format_mean_std,
    is_done,
    markdown_table,
    read_json,
    summarize,
    write_csv,
    write_json,
)

__all__ = ["InteractionsConfig", "load", "check", "run", "run_unit", "summarize_runs", "load_data", "evaluate_pairs",
           "train_model", "predict_interactions", "QUICK_CONFIG", "PREDICT_MODEL", "GRAPHS"]

GRAPHS = ("train", "all")
#: The model ``gatbio protein interactions predict`` trains unless told otherwise.
PREDICT_MODEL = "gat"
#: Mirrors experiments/configs/shs27k_quick.yaml (tests, demo).
QUICK_CONFIG: dict[str, Any] = {"name": "shs27k_quick", "splits": ["random", "bfs"], "seeds": [0],
                                "models": ["seq_mlp", "gat"], "graphs": ["train", "all"], "epochs": 40,
                                "hidden": 32, "features": ["vec5_mean", "aac", "ct"]}


@dataclass
class InteractionsConfig:
    """One interaction-type experiment (YAML in ``experiments/configs/shs27k*.yaml``)."""

    name: str = "shs27k"
    dataset: str = "shs27k"  #: a named dataset with a pair table, or "files" (then actions + sequences)
    actions: str | None = None  #: a STRING protein.actions file (dataset: files)
    sequences: str | None = None  #: FASTA or id<TAB>sequence (dataset: files)
    embedding: str | None = None  #: amino-acid embedding file for vec5_* (default: the shs27k vec5_CTC.txt)
    splits: list[str] = field(default_factory=lambda: ["random", "bfs", "dfs"])
    seeds: list[int] = field(default_factory=lambda: [0, 1, 2, 3, 4])
    models: list[str] = field(default_factory=lambda: ["seq_mlp", "gcn", "gin", "pyg_gat", "gat"])
    graphs: list[str] = field(default_factory=lambda: ["train", "all"])
    test_fraction: float = 0.2  #: GNN-PPI: 0.2
    val_fraction: float = 0.1  #: of the training pairs
    val_split: str = "same"  #: same (the split's own rule on the training graph) or random
    max_root_pairs: int = 5  #: BFS/DFS roots are in at most this many pairs (GNN-PPI: 5)
    # inputs
    features: list[str] = field(default_factory=lambda: ["vec5_mean", "vec5_std", "aac", "dpc", "ct"])
    max_len: int = 0  #: truncate sequences to this many residues (0: whole; GNN-PPI: 2000)
    # model settings shared by every model (a preset or custom_models entry overrides them)
    hidden: int = 128
    layers: int = 2
    heads: int = 4
    dropout: float = 0.2
    input_dropout: float = 0.1
    attn_dropout: float = 0.0
    decoder_dropout: float = 0.2
    #: extra models: name → options (``base``: a preset to start from; ``kind``: a registered builder)
    custom_models: dict[str, Any] = field(default_factory=dict)
    # training
    epochs: int = 300
    lr: float = 0.005
    weight_decay: float = 5e-4
    eval_every: int = 5
    patience: int = 10  #: evaluations without improvement
    threshold: float = 0.5  #: decision threshold of every score (GNN-PPI: 0.5)
    # output
    out_dir: str = "results/shs27k"
    jobs: int = 1  #: parallel (split, seed) units
    threads: int = 1  #: torch threads per worker
    device: str = "auto"  #: auto, cpu, cuda, cuda:N, mps (gatbio.device)


SETTING_RULES = {
    "seeds": "nonempty; >=0", "test_fraction": "(0, 1)", "val_fraction": "(0, 1)", "max_root_pairs": ">0",
    "max_len": ">=0", "hidden": ">0", "layers": ">0", "heads": ">0", "dropout": "[0, 1)", "input_dropout": "[0, 1)",
    "attn_dropout": "[0, 1)", "decoder_dropout": "[0, 1)", "epochs": ">0", "lr": ">0", "weight_decay": ">=0",
    "eval_every": ">0", "patience": ">0", "threshold": "(0, 1)", "jobs": ">0", "threads": ">0",
}
#: Keys that never change a finished run's result (which runs, where, how fast).
#: ``custom_models`` is free too: each result stores its model's resolved options, checked when it is reused.
RESUME_FREE_KEYS = ("name", "out_dir", "jobs", "threads", "splits", "seeds", "models", "graphs", "device",
                    "custom_models")
OUTPUTS = ("runs", "splits", "summary.csv", "summary.md")
#: Model settings of the config passed to every model (gatbio.nn.pair_models.MODEL_DEFAULTS keys).
MODEL_SETTINGS = ("hidden", "layers", "heads", "dropout", "input_dropout", "attn_dropout", "decoder_dropout")


def load(path: str | Path | None = None, overrides: list[str] | None = None) -> InteractionsConfig:
    """Config from YAML + ``key=value`` overrides, checked before any work."""
    cfg = load_config(InteractionsConfig, path, overrides)
    check(cfg)
    return cfg


def check(cfg: InteractionsConfig) -> None:
    from gatbio.config import check_settings
    from gatbio.data.pair_splits import PAIR_SPLITS, VAL_SPLITS
    from gatbio.data.sequence import FEATURES
    from gatbio.nn.pair_models import model_options

    check_settings(cfg, SETTING_RULES)
    for key, allowed in (("splits", PAIR_SPLITS), ("graphs", GRAPHS), ("features", FEATURES)):
        values = getattr(cfg, key)
        bad = [v for v in values if v not in allowed]
        if bad or not values:
            raise ValueError(f"config {key}={list(values)}: choose one or more of {', '.join(allowed)}")
    if cfg.val_split not in VAL_SPLITS:
        raise ValueError(f"config val_split={cfg.val_split!r}: choose one of {', '.join(VAL_SPLITS)}")
    if not cfg.models:
        raise ValueError("config models=[]: give at least one model, e.g. models=[gat]")
    for name in cfg.models:
        model_options(name, _settings(cfg), _custom(cfg))  # unknown names and bases named here
    if cfg.dataset == "files":
        if not cfg.actions or not cfg.sequences:
            raise ValueError("dataset: files needs actions (a STRING protein.actions file) and sequences (FASTA or "
                             "id<TAB>sequence)")
    elif cfg.actions or cfg.sequences:
        raise ValueError(f"actions / sequences are read with dataset: files, not dataset: {cfg.dataset}")


def _settings(cfg: InteractionsConfig) -> dict[str, Any]:
    return {k: getattr(cfg, k) for k in MODEL_SETTINGS}


def _custom(cfg: InteractionsConfig) -> dict[str, dict[str, Any]]:
    out = {}
    for name, entry in dict(cfg.custom_models).items():
        if not isinstance(entry, dict):
            raise ValueError(f"custom_models.{name} must be a mapping of options, e.g. {{base: gat, heads: 8}}")
        out[str(name)] = dict(entry)
    return out


# ----------------------------------------------------------------------------------------------- data
def load_data(cfg: InteractionsConfig):
    """The pair table and standardised sequence features of ``cfg`` (a named dataset, or the files)."""
    from gatbio.data.sequence import read_aa_embedding, sequence_features

    if cfg.dataset == "files":
        from gatbio.data.io import read_string_actions
        from gatbio.data.ppi import attach_sequences
        from gatbio.data.sequence import read_sequences

        data = read_string_actions(cfg.actions)
        attach_sequences(data, read_sequences(cfg.sequences), cfg.sequences)
        emb = read_aa_embedding(cfg.embedding) if cfg.embedding else None
        x, names = sequence_features(data.sequences, list(cfg.features), emb, max_len=cfg.max_len or None)
        data.x, data.feature_names = torch.from_numpy(x), names
    else:
        from gatbio.data import load as load_dataset

        if cfg.embedding:
            data = load_dataset(cfg.dataset, features=())
            x, names = sequence_features(data.sequences, list(cfg.features), read_aa_embedding(cfg.embedding),
                                         max_len=cfg.max_len or None)
            data.x, data.feature_names = torch.from_numpy(x), names
        else:
            data = load_dataset(cfg.dataset, features=tuple(cfg.features), max_len=cfg.max_len or None)
    if getattr(data, "pair_modes", None) is None:
        raise ValueError(f"dataset {cfg.dataset!r} has no pair table (pairs, pair_modes): use shs27k or "
                         "dataset: files with a STRING protein.actions file")
    x = data.x.float()
    std = x.std(0, keepdim=True)
    data.x = torch.where(std > 0, (x - x.mean(0, keepdim=True)) / std.clamp_min(1e-12), torch.zeros_like(x))
    return data


def _edge_attr(data, kind: str | None) -> torch.Tensor | None:
    if kind is None:
        return None
    if kind == "score":
        return data.pair_score.float().view(-1, 1)  # (P, 1)
    raise ValueError(f"edge_features={kind!r}: choose none or score")


# ----------------------------------------------------------------------------------------------- metrics
def evaluate_pairs(y_true: np.ndarray, proba: np.ndarray, threshold: float = 0.5,
                   subsets: np.ndarray | None = None) -> dict[str, Any]:
    """Micro-F1 (over pair × mode entries), macro-F1 (over modes) and, with ``subsets`` (0/1/2 per pair: NS, ES,
    BS), micro-F1 per subset and its size; a mode is predicted when its probability exceeds ``threshold``."""
    from sklearn.metrics import f1_score

    from gatbio.data.pair_splits import SUBSETS

    pred = (proba > threshold).astype(int)
    y = y_true.astype(int)
    out: dict[str, Any] = {"micro_f1": float(f1_score(y, pred, average="micro", zero_division=0)),
                           "macro_f1": float(f1_score(y, pred, average="macro", zero_division=0))}
    if subsets is not None:
        for k, name in enumerate(SUBSETS):
            m = subsets == k
            out[f"n_{name}"] = int(m.sum())
            out[f"micro_f1_{name}"] = float(f1_score(y[m], pred[m], average="micro", zero_division=0)) if m.any() \
                else None
    return out


def _val_score(threshold: float):
    def score(y_true: np.ndarray, proba: np.ndarray) -> float:
        return evaluate_pairs(y_true, proba, threshold)["micro_f1"]
    return score


# ----------------------------------------------------------------------------------------------- one model
def train_model(cfg: InteractionsConfig, model_name: str, data, fit: list[int], val: list[int], graph: str,
                seed: int, device=None, progress: bool = False):
    """Build and train ``model_name`` on the ``fit`` pairs (early stopping on ``val``) under a graph setting.

    Returns ``(model, fit result, options)``; the model lives on ``device``.
    """
    from gatbio.data.pair_splits import message_graph
    from gatbio.nn.pair_models import build_pair_model, model_options
    from gatbio.train import PairTrainConfig, fit_pairs

    opts = model_options(model_name, _settings(cfg), _custom(cfg))
    torch.manual_seed(seed)
    model = build_pair_model(opts, data.x.size(1), data.pair_modes.size(1))
    attr = _edge_attr(data, getattr(model, "edge_features", None))
    ei, ea = message_graph(data.pairs, fit if graph == "train" else None, attr)
    tcfg = PairTrainConfig(epochs=cfg.epochs, lr=cfg.lr, weight_decay=cfg.weight_decay, patience=cfg.patience,
                           eval_every=cfg.eval_every, threshold=cfg.threshold)
    res = fit_pairs(model, data.x, ei, data.pairs, data.pair_modes, torch.as_tensor(fit), torch.as_tensor(val),
                    _val_score(cfg.threshold), tcfg, edge_attr=ea, seed=seed, progress=progress,
                    device=cfg.device if device is None else device)
    return model, res, opts


def _check_options(path: Path, name: str, opts: dict[str, Any]) -> None:
    """A finished run is reused only when it was made with the same model options (``custom_models`` is a
    resume-free key: adding a model to a results folder is fine, redefining one is refused)."""
    import json

    from gatbio.results import ResumeConflictError

    old = read_json(path).get("options")
    if old is not None and json.loads(json.dumps(opts)) != old:
        diff = sorted(k for k in set(old) | set(opts) if old.get(k) != opts.get(k))
        raise ResumeConflictError(
            f"{path} was made with other options of model {name!r} ({', '.join(diff)}); give the changed model a "
            "new name in custom_models, or pass --restart / --resume-anyway")


def _uses_graph(opts: dict[str, Any]) -> bool:
    return not (opts.get("kind", "encoder") == "encoder" and opts.get("conv") == "mlp")


# ----------------------------------------------------------------------------------------------- one unit
def _paths(cfg: InteractionsConfig, kind: str, seed: int) -> tuple[Path, Path]:
    out = Path(cfg.out_dir)
    return out / "splits" / f"{kind}_s{seed}.json", out / "runs" / kind / f"s{seed}"


def run_unit(cfg: InteractionsConfig, kind: str, seed: int, data) -> list[dict]:
    """Every (graph, model) of one (split type, seed): one ``results.json`` each; returns the rows written."""
    from gatbio.data.pair_splits import message_graph, pair_split, pair_subsets
    from gatbio.device import resolve_device
    from gatbio.nn.pair_models import model_options
    from gatbio.train import predict_pairs

    torch.set_num_threads(cfg.threads)
    dev = resolve_device(cfg.device)
    split_path, run_dir = _paths(cfg, kind, seed)
    if is_done(split_path):
        sp = read_json(split_path)
    else:
        sp = pair_split(data.pairs, data.num_nodes, kind, seed, cfg.test_fraction, cfg.val_fraction, cfg.val_split,
                        cfg.max_root_pairs)
        write_json(split_path, sp)
    train, test = sp["train"], sp["test"]
    subsets = pair_subsets(data.pairs, train, test, data.num_nodes)
    y_test = data.pair_modes[torch.as_tensor(test)].numpy()
    test_pairs = data.pairs[torch.as_tensor(test)]
    rows = []
    for graph in cfg.graphs:
        for name in cfg.models:
            path = run_dir / graph / f"{name}.json"
            opts = model_options(name, _settings(cfg), _custom(cfg))
            if is_done(path):
                _check_options(path, name, opts)
                continue
            if graph != "train" and not _uses_graph(opts):
                continue
            t0, c0 = time.perf_counter(), time.process_time()
            model, res, opts = train_model(cfg, name, data, sp["fit"], sp["val"], graph, seed, device=dev)
            attr = _edge_attr(data, getattr(model, "edge_features", None))
            ei, ea = message_graph(data.pairs, train if graph == "train" else None, attr)
            proba = predict_pairs(model, data.x, ei, test_pairs, ea).cpu().numpy()
            row = {"dataset": cfg.dataset, "split": kind, "seed": seed, "graph": graph, "model": name,
                   **evaluate_pairs(y_test, proba, cfg.threshold, subsets),
                   "val_micro_f1": res.best_val, "best_epoch": res.best_epoch, "epochs_run": res.epochs_run,
                   "n_fit": len(sp["fit"]), "n_val": len(sp["val"]), "n_test": len(test),
                   "seconds": round(time.perf_counter() - t0, 3), "cpu_seconds": round(time.process_time() - c0, 3),
                   "device": str(dev), "split_file": str(split_path), "options": opts}
            write_json(path, row)
            rows.append(row)
    return rows


# ----------------------------------------------------------------------------------------------- the sweep
def run(cfg: InteractionsConfig, summary_only: bool = False, resume: str = "check") -> str:
    """The whole experiment; returns the printable summary (also ``summary.md``).

    Finished runs in ``cfg.out_dir`` are reused when the stored config has the same result settings; otherwise
    ``resume`` decides (``"check"`` refuses, ``"restart"`` deletes this task's outputs, ``"anyway"`` reuses them;
    :func:`gatbio.results.prepare_out_dir`).
    """
    import dataclasses

    from gatbio.device import announce_device, resolve_device
    from gatbio.parallel import parallel_map
    from gatbio.results import prepare_out_dir

    check(cfg)
    if not summary_only:
        dev = resolve_device(cfg.device)
        announce_device(dev, cfg.device)
        cfg = dataclasses.replace(cfg, device=str(dev))
    prepare_out_dir(cfg.out_dir, cfg, free_keys=RESUME_FREE_KEYS, outputs=OUTPUTS, resume=resume,
                    summary_only=summary_only)
    if not summary_only:
        data = load_data(cfg)
        units = [(cfg, k, s, data) for k in cfg.splits for s in cfg.seeds]
        parallel_map(run_unit, units, jobs=cfg.jobs, desc=f"{cfg.name}: split x seed")
    return summarize_runs(cfg)


METRICS = ("micro_f1", "macro_f1", "micro_f1_bs", "micro_f1_es", "micro_f1_ns")


def summarize_runs(cfg: InteractionsConfig) -> str:
    """``summary.csv`` (mean / std / n per split, graph, model) and ``summary.md`` (one table per split type)."""
    out = Path(cfg.out_dir)
    files = [out / "runs" / k / f"s{s}" / g / f"{m}.json"
             for k in cfg.splits for s in cfg.seeds for g in cfg.graphs for m in cfg.models]
    rows = [read_json(p) for p in files if is_done(p)]
    if not rows:
        raise FileNotFoundError(f"no results under {out / 'runs'}: run without --summary-only first")
    df = pd.DataFrame(rows)
    for m in METRICS:
        df[m] = pd.to_numeric(df.get(m), errors="coerce")
    order = {v: i for i, v in enumerate(list(cfg.splits) + list(cfg.graphs) + list(cfg.models))}
    df = df.sort_values(["split", "graph", "model"], key=lambda c: c.map(order))
    by = ["split", "graph", "model"]
    summ = summarize(df, by, list(METRICS) + ["seconds"])
    write_csv(out / "summary.csv", summ)
    table = format_mean_std(summ, by, list(METRICS) + ["seconds"])
    for m in METRICS:  # a subset without test pairs in every run (BS of BFS/DFS splits)
        table.loc[summ[f"{m}_mean"].isna().to_numpy(), m] = "–"
    table["seconds"] = [f"{s:.1f}" for s in summ["seconds_mean"]]
    parts = [f"{cfg.name} on {cfg.dataset}: micro-F1 over (test pair × mode) at threshold {cfg.threshold}, mean ± std "
             "over seeds (n = runs). graph: train = messages over training pairs only (leakage-free); all = over "
             "every pair, test pairs included (the published setting, for comparison). BS / ES / NS: test pairs "
             "with both / one / neither protein in a training pair."]
    for k in [s for s in cfg.splits if s in set(table["split"])]:
        parts.append(f"## {k}\n\n{markdown_table(table[table['split'] == k].drop(columns='split'))}")
    text = "\n\n".join(parts)
    atomic_write_text(out / "summary.md", text + "\n")
    return text


# ----------------------------------------------------------------------------------------------- predict
def predict_interactions(data, query: torch.Tensor, cfg: InteractionsConfig | None = None,
                         model_name: str = PREDICT_MODEL, seed: int = 0, device=None,
                         progress: bool = False) -> pd.DataFrame:
    """Train ``model_name`` on every pair of ``data`` and predict the modes of the ``query`` pairs.

    A random ``cfg.val_fraction`` of the pairs is held out for early stopping (messages pass over the other pairs
    while training); the final predictions pass messages over every known pair. ``data``: the output of
    :func:`load_data`. ``query``: long ``(Q, 2)`` protein indices.

    Returns one row per query pair: ``protein_a``, ``protein_b``, ``known`` (the pair is in the interaction file),
    ``known_modes``, ``predicted`` (modes with a probability above ``cfg.threshold``, ';'-separated, best first)
    and ``score_<mode>`` for every mode.
    """
    import sys

    from gatbio.data.pair_splits import carve_validation, message_graph
    from gatbio.device import resolve_device
    from gatbio.train import predict_pairs

    cfg = cfg or InteractionsConfig()
    dev = resolve_device(cfg.device if device is None else device)
    n = data.pairs.size(0)
    if n < 2:
        raise ValueError(f"the interaction file has {n} pair(s); need at least 2 to train and validate")
    carve = carve_validation(data.pairs, list(range(n)), data.num_nodes, "random", seed, cfg.val_fraction)
    if progress:
        print(f"# {model_name} on {len(carve['fit'])} pairs ({len(carve['val'])} held out for early stopping), "
              f"{data.x.size(1)} sequence features per protein", file=sys.stderr, flush=True)
    model, res, opts = train_model(cfg, model_name, data, carve["fit"], carve["val"], "train", seed, device=dev,
                                   progress=progress)
    ei, ea = message_graph(data.pairs, None, _edge_attr(data, getattr(model, "edge_features", None)))
    proba = predict_pairs(model, data.x, ei, query, ea).cpu().numpy()  # (Q, M)
    names = [str(n) for n in data.node_names]
    modes = list(data.mode_names)
    lookup = {(int(a), int(b)): i for i, (a, b) in enumerate(data.pairs.tolist())}
    rows = []
    for q, (a, b) in enumerate(query.tolist()):
        i = lookup.get((min(a, b), max(a, b)))
        known = [] if i is None else [m for m, v in zip(modes, data.pair_modes[i].tolist(), strict=True) if v]
        order = [j for j in np.argsort(-proba[q]) if proba[q, j] > cfg.threshold]
        rows.append({"protein_a": names[a], "protein_b": names[b], "known": i is not None,
                     "known_modes": ";".join(known), "predicted": ";".join(modes[j] for j in order),
                     **{f"score_{m}": round(float(proba[q, j]), 4) for j, m in enumerate(modes)}})
    df = pd.DataFrame(rows)
    df.attrs["val_micro_f1"] = res.best_val
    return df
