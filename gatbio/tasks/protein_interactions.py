r"""Protein interaction types (SHS27k): which of 7 modes the interaction of two proteins has.

config → (split type × seed) → split → (graph setting × model) → train → one JSON per run
(``runs/<split>/s<seed>/<graph>/<model>.json``) → summary.

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
  Models without message passing (``seq_mlp``, ``seq_cnn``, ``profile_rule``) do not depend on the graph and run
  under ``train`` only.

Metric (as ``gnn_test.py`` of GNN-PPI): a mode is predicted when its probability exceeds ``threshold`` (0.5);
**micro-F1** over all (test pair × 7 mode) entries (``sklearn.metrics.f1_score(average="micro")``), macro-F1 over
the 7 modes, and micro-F1 on the test subsets BS / ES / NS (both / one / neither of the pair's proteins in a
training pair; :func:`gatbio.data.pair_splits.pair_subsets`).

Models (:mod:`gatbio.nn.pair_models`):

- the recipe (kind ``gat_pairs``, :class:`gatbio.nn.GATConv`): ``gat_region`` (node hold-out supervision, for new
  proteins) and ``gat_ppi`` (mixed node / edge hold-out); ``gat`` is the choice between them **per seed on the
  validation micro-F1** (the row records ``chosen``); ``pyg_gat_region``: PyG's ``GATConv`` in the same recipe.
  Their inputs are rebuilt from message pairs (:class:`gatbio.data.pair_features.PairGraphBuilder`): in the
  ``train`` setting the messages are the fit pairs while training (split every epoch into messages and supervised
  pairs) and validating, and all training pairs when testing; in the ``all`` setting every other pair is an
  edge too, without its modes.
  ``gat_region`` imputes the profile of a protein without message pairs from its 10 most similar sequences
  (homology transfer, :func:`gatbio.data.pair_features.impute_profiles`; label-free similarity). Both add the
  interolog transfer's score as a logit in their decoder (the modes of the message pairs between the two proteins'
  5 closest homologues, :func:`gatbio.data.pair_features.interolog_scores`) and learn the correction.
- ``profile_rule``: no learning, the mean of the two proteins' mode profiles over the known pairs, threshold chosen
  on validation (profiles of the fit pairs), then profiles of all training pairs for the test; an unseen protein
  takes the mean mode vector. ``profile_rule_hom``: the same with the unseen proteins' profiles imputed by homology
  as in ``gat_region``; ``interolog_rule``: the interolog transfer shrunk towards that score, which is
  ``gat_region``'s decoder logit.
- plain GNN-PPI-style encoders over the standardised sequence features ``x``: ``pyg_gat``, ``gin`` (GNN-PPI's
  graph layer), ``gcn``, ``seq_mlp`` (sequence only, PIPR-like), ``gat_plain`` (:class:`gatbio.nn.GATConv`); all
  with GNN-PPI's product decoder. ``seq_cnn``: sequence only, a convolutional encoder learnt over each protein's
  residues (:func:`node_features`), the same decoder.

A config adds variants under ``custom_models`` (``{name: {base: gat_region, degree_norm: null}}``) and new kinds
of model through :func:`gatbio.nn.pair_models.register_pair_model`.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import torch

from gatbio.config import load_config
from gatbio.parallel import unit_threads
from gatbio.results import (
    UnitStage,
    atomic_write_text,
    damage,
    format_mean_std,
    is_done,
    markdown_table,
    missing_runs_note,
    mixed_configs_note,
    over_seeds,
    proba_path,
    read_json,
    round_stats,
    settings_fingerprint,
    software,
    summarize,
    write_csv,
    write_json,
    write_npz,
)

__all__ = ["InteractionsConfig", "load", "check", "run", "run_unit", "summarize_runs", "load_data", "evaluate_pairs",
           "train_model", "predict_interactions", "predict_split", "graph_builder", "model_inputs",
           "fit_and_score", "node_features", "QUICK_CONFIG", "PREDICT_MODEL", "GRAPHS"]

GRAPHS = ("train", "all")
#: The model ``gatbio protein interactions predict`` trains unless told otherwise.
PREDICT_MODEL = "gat"
#: Mirrors experiments/configs/shs27k_quick.yaml (tests/tasks/test_protein_interactions.py checks it); SHS27k is
#: not in ``make demo`` (its quick config alone takes about a minute).
QUICK_CONFIG: dict[str, Any] = {"name": "shs27k_quick", "splits": ["random", "bfs"], "seeds": [0],
                                "models": ["seq_mlp", "profile_rule", "gat_region", "gat_ppi", "gat_mean",
                                           "gat"],
                                "graphs": ["train", "all"], "epochs": 40, "hidden": 32, "val_parts": 4,
                                "features": ["vec5_mean", "aac", "ct"]}


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
    val_parts: int = 1  #: BFS/DFS validation carved as this many regions (gatbio.data.pair_splits.carve_validation)
    max_root_pairs: int = 5  #: BFS/DFS roots are in at most this many pairs (GNN-PPI: 5)
    # inputs
    features: list[str] = field(default_factory=lambda: ["vec5_mean", "vec5_std", "aac", "dpc", "ct"])
    #: a file of one's own per-protein vectors (id, then numbers; e.g. language-model embeddings) appended to the
    #: sequence features of every model but seq_cnn (gatbio.data.sequence.read_protein_features)
    protein_features: str | None = None
    #: truncate sequences to this many residues for the fixed features ``x`` of the plain models (seq_mlp, gcn, gin,
    #: pyg_gat; 0: whole; GNN-PPI: 2000); the recipes' sequence block and k-mer similarities read whole sequences,
    #: and seq_cnn has its own max_len option
    max_len: int = 0
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
    threads: int = 1  #: torch and BLAS threads per worker (results depend on it: gatbio.parallel.unit_threads)
    device: str = "auto"  #: auto, cpu, cuda, cuda:N, mps (gatbio.device)


SETTING_RULES = {
    "seeds": "nonempty; unique; >=0", "test_fraction": "(0, 1)", "val_fraction": "(0, 1)", "max_root_pairs": ">0", "val_parts": ">0",
    "max_len": ">=0", "hidden": ">0", "layers": ">0", "heads": ">0", "dropout": "[0, 1)", "input_dropout": "[0, 1)",
    "attn_dropout": "[0, 1)", "decoder_dropout": "[0, 1)", "epochs": ">0", "lr": ">0", "weight_decay": ">=0",
    "eval_every": ">0", "patience": ">0", "threshold": "(0, 1)", "jobs": ">0", "threads": ">0",
    "splits": "unique",
    "models": "unique",
    "graphs": "unique",
    "features": "unique",
}
#: Keys that never change a finished run's result (which runs, where, how fast).
#: ``custom_models`` is free too: each result stores its model's resolved options, checked when it is reused.
RESUME_FREE_KEYS = ("name", "out_dir", "jobs", "threads", "splits", "seeds", "models", "graphs", "device",
                    "custom_models")
OUTPUTS = ("runs", "splits", "summary.csv", "summary.md")
#: The keys that name a run
RUN_KEYS = ("split", "graph", "model", "seed")
#: What a run file holds (:func:`gatbio.results.is_done`: one without them is redone): its names and its results
#: (a mean's members and a choice's candidates are read back; a file holding only the names counted as finished)
ROW_KEYS = (*RUN_KEYS, "val_micro_f1", "best_epoch", "epochs_run", "seconds", "cpu_seconds")
#: What the summary reads of a run file: its names and its test score
SUMMARY_KEYS = (*RUN_KEYS, "micro_f1")
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
    from gatbio.nn.pair_models import NOT_NETWORKS, check_options, model_options

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
        check_model_name(name, cfg, "config models")
        opts = model_options(name, _settings(cfg), _custom(cfg))  # unknown bases named here
        check_options(name, opts)
        kind = opts.get("kind")
        if kind in ("choice", "mean"):
            among = list(opts.get("among") or [])
            verb = "chooses among" if kind == "choice" else "averages"
            if not among or name in among or len(set(among)) < len(among):
                raise ValueError(f"model {name!r} {verb} {among}: give other models, each once, e.g. "
                                 "among: [gat_region, gat_ppi]")
            # a choice may take a mean of networks; a mean averages networks only (their thresholds are cfg's)
            allowed = ("mean",) if kind == "choice" else ()
            for other in among:
                other_kind = model_options(other, _settings(cfg), _custom(cfg)).get("kind")
                if other_kind in NOT_NETWORKS and other_kind not in allowed:
                    raise ValueError(f"model {name!r}: {other!r} (kind {other_kind}) is not a trained network; "
                                     f"a {kind} takes networks" + (" or means of networks" if allowed else ""))
    if cfg.dataset == "files":
        if not cfg.actions or not cfg.sequences:
            raise ValueError("dataset: files needs actions (a STRING protein.actions file) and sequences (FASTA or "
                             "id<TAB>sequence)")
    elif cfg.dataset not in PAIR_DATASETS:
        raise ValueError(f"config dataset={cfg.dataset!r}: not a dataset with a pair table; use "
                         f"{', '.join(PAIR_DATASETS)} or dataset: files with a STRING protein.actions file")
    elif cfg.actions or cfg.sequences:
        raise ValueError(f"actions / sequences are read with dataset: files, not dataset: {cfg.dataset}")


#: Named datasets (:func:`gatbio.data.load`) with a pair table (``pairs``, ``pair_modes``) and sequences.
PAIR_DATASETS = ("shs27k",)


def input_files(cfg: InteractionsConfig) -> dict[str, str | None]:
    """The files the config names (config key: path), each checked before any work is recorded."""
    return {"actions": cfg.actions, "sequences": cfg.sequences, "embedding": cfg.embedding,
            "protein_features": cfg.protein_features}


def check_model_name(name: str, cfg: InteractionsConfig, what: str) -> None:
    """Refuse a model ``name`` that is neither a preset (:data:`gatbio.nn.pair_models.PAIR_MODELS`) nor a
    ``custom_models`` entry of ``cfg``, with the closest names (``seq_cnnn``: did you mean seq_cnn?), as for
    dataset names; ``what`` says where the name was given (``--model``, ``config models``)."""
    from gatbio.data.sources import unknown_name
    from gatbio.nn.pair_models import PAIR_MODELS

    custom = _custom(cfg)
    if name in PAIR_MODELS or name in custom:
        return
    known = [*PAIR_MODELS, *custom]
    err = unknown_name("model", str(name), known, listing=", ".join(known) + "; or define it under custom_models")
    raise ValueError(f"{what}: {err}") from None


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
def _check_letters(data, embedding, path: str, sequences: str) -> None:
    """Every residue letter of ``data.sequences`` has a row in the amino-acid ``embedding`` (read from ``path``);
    otherwise one line naming the protein, the letters and both files (not a sequence index from deep inside)."""
    from gatbio.data.io import MalformedFileError

    letters = set(embedding)
    for name, seq in zip(data.node_names, data.sequences, strict=True):
        missing = set(seq) - letters
        if missing:
            raise MalformedFileError(path, None, f"protein {name!r} of {sequences} holds {''.join(sorted(missing))!r}, "
                                                 f"which this amino-acid embedding has no row for (its letters: "
                                                 f"{''.join(sorted(letters))}); add a row per letter")


def load_data(cfg: InteractionsConfig, extra_proteins: Mapping[str, str] | None = None):
    """The pair table and standardised sequence features of ``cfg`` (a named dataset, or the files).

    ``extra_proteins``: ``{name: sequence}`` of proteins without any interaction in the network (with the files:
    proteins of ``cfg.sequences`` absent from ``cfg.actions``), added after the network's as isolated nodes
    (features from their sequences, standardised with the others'), so that pairs naming them can be predicted,
    as a BFS/DFS split's test proteins are. Named datasets: SHS27k only."""
    extra_proteins = dict(extra_proteins or {})
    from gatbio.data.sequence import read_aa_embedding, sequence_features

    if cfg.dataset == "files":
        from gatbio.data.io import read_string_actions
        from gatbio.data.ppi import attach_sequences
        from gatbio.data.sequence import read_sequences

        data = read_string_actions(cfg.actions)
        if extra_proteins:  # their sequences as given (a user's --sequences), over cfg.sequences's below
            data.node_names = list(data.node_names) + list(extra_proteins)
            data.num_nodes = len(data.node_names)
        attach_sequences(data, {**read_sequences(cfg.sequences), **extra_proteins}, cfg.sequences)  # theirs as given
        emb = read_aa_embedding(cfg.embedding) if cfg.embedding else None
        if emb is not None:
            _check_letters(data, emb, cfg.embedding, cfg.sequences)
        x, names = sequence_features(data.sequences, list(cfg.features), emb, max_len=cfg.max_len or None)
        data.x, data.feature_names = torch.from_numpy(x), names
    else:
        from gatbio.data import load as load_dataset

        extra = {}
        if extra_proteins:
            if cfg.dataset != "shs27k":
                raise ValueError(f"proteins without interactions can be added to SHS27k or to an interaction "
                                 f"file's network (dataset: files), not to dataset {cfg.dataset!r}")
            extra = {"extra": tuple(extra_proteins.items())}
        if cfg.embedding:
            data = load_dataset(cfg.dataset, features=(), **extra)
            emb = read_aa_embedding(cfg.embedding)
            _check_letters(data, emb, cfg.embedding, f"dataset {cfg.dataset!r}")
            x, names = sequence_features(data.sequences, list(cfg.features), emb, max_len=cfg.max_len or None)
            data.x, data.feature_names = torch.from_numpy(x), names
        else:
            data = load_dataset(cfg.dataset, features=tuple(cfg.features), max_len=cfg.max_len or None, **extra)
    if getattr(data, "pair_modes", None) is None:
        raise ValueError(f"dataset {cfg.dataset!r} has no pair table (pairs, pair_modes): use shs27k or "
                         "dataset: files with a STRING protein.actions file")
    data.protein_features = None
    if cfg.protein_features:
        from gatbio.data.sequence import read_protein_features

        own, own_names = read_protein_features(cfg.protein_features, data.node_names)
        data.protein_features = torch.from_numpy(own)  # (N, F'): raw; gat_pairs models standardise their block
        data.x = torch.cat([data.x.float(), data.protein_features], dim=1)
        data.feature_names = list(data.feature_names) + [f"own:{c}" for c in own_names]
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
#: Sequence blocks and kNN graphs of the gat_pairs recipe, per dataset (label-free; cached per process).
_INPUT_CACHE: dict[tuple, Any] = {}


def graph_builder(data, opts: dict[str, Any], embedding: str | None = None):
    """The :class:`gatbio.data.pair_features.PairGraphBuilder` of a ``gat_pairs`` model on ``data``: its sequence
    block (``seq_features`` of ``data.sequences`` and the config's ``protein_features``, standardised, PCA to
    ``pca``) and its k-mer kNN graph; both label-free, computed once per dataset and setting."""
    from gatbio.data.pair_features import PairGraphBuilder, sequence_block
    from gatbio.data.sequence import read_aa_embedding, sequence_features, sequence_knn_graph

    own = getattr(data, "protein_features", None)  # (N, F') of the config's protein_features, or None
    own_key = None if own is None else hashlib.sha1(own.numpy().tobytes()).hexdigest()
    key = (hash(tuple(data.sequences)), tuple(opts["seq_features"]), opts["pca"], embedding, own_key)
    if key not in _INPUT_CACHE:
        emb = read_aa_embedding(embedding) if embedding else None
        x, _ = sequence_features(data.sequences, list(opts["seq_features"]), emb)
        if own is not None:
            x = np.concatenate([x, own.numpy()], axis=1)
        _INPUT_CACHE[key] = torch.from_numpy(sequence_block(x, opts["pca"]))
    # a network smaller than the neighbour count (a user's few proteins) links each protein to all the others
    knn = min(int(opts["knn"]), len(data.sequences) - 1)
    knn_key = (hash(tuple(data.sequences)), "knn", knn, opts["kmer"])
    if knn and knn_key not in _INPUT_CACHE:
        ei, w = sequence_knn_graph(data.sequences, knn, opts["kmer"])
        _INPUT_CACHE[knn_key] = (torch.from_numpy(ei), torch.from_numpy(w))
    knn_index, knn_weight = _INPUT_CACHE[knn_key] if knn else (None, None)
    return PairGraphBuilder(data.pairs, data.pair_modes, data.pair_score, _INPUT_CACHE[key], knn_index, knn_weight,
                            impute_similarity=_similarity(data, opts) if opts["impute"] else None,
                            impute_neighbors=int(opts["impute"]),
                            profile=bool(opts["profile"]), interactions=bool(opts["interactions"]),
                            edge_type=bool(opts["edge_type"]), edge_modes=bool(opts["edge_modes"]),
                            edge_score=bool(opts["edge_score"]), mode_record=bool(opts["interolog"]),
                            direction=_directions(data) if opts["roles"] else None)


def _directions(data) -> torch.Tensor:
    """``data.pair_direction`` for the ``roles`` block, or a clear error for pairs read without directions."""
    direction = getattr(data, "pair_direction", None)
    if direction is None:
        raise ValueError("roles: true reads the direction of each interaction (a STRING protein.actions file's "
                         "is_directional / a_is_acting columns); these pairs have none: set roles: false")
    return direction


def _similarity(data, opts: dict[str, Any], use: str = "impute") -> torch.Tensor | None:
    """The ``(N, N)`` sequence similarity that :func:`impute_profiles <gatbio.data.pair_features.impute_profiles>`
    (``use="impute"``) or the interolog transfer (``use="interolog"``) reads: TF-IDF ``impute_kmer``-mer cosine
    (``kmer``) or normalised Smith-Waterman scores (``align``, :func:`gatbio.data.sequence.alignment_similarity`), as
    ``impute_similarity`` says (the interologs: ``interolog_similarity`` when set); label-free, cached per process;
    ``None`` without ``impute`` and ``interolog``."""
    from gatbio.data.sequence import alignment_similarity, kmer_similarity

    if not (opts.get("impute") or opts.get("interolog")):
        return None
    how = opts["impute_similarity"]
    if use == "interolog" and opts.get("interolog_similarity"):
        how = opts["interolog_similarity"]
    key = (hash(tuple(data.sequences)), "similarity", how, opts["impute_kmer"] if how == "kmer" else None)
    if key not in _INPUT_CACHE:
        sim = (kmer_similarity(data.sequences, opts["impute_kmer"]) if how == "kmer"
               else alignment_similarity(data.sequences))
        _INPUT_CACHE[key] = torch.from_numpy(sim)
    return _INPUT_CACHE[key]


def _homologues(data, opts: dict[str, Any]) -> tuple[torch.Tensor, torch.Tensor] | None:
    """The interolog transfer's homologue sets (:func:`gatbio.data.pair_features.homologues` of
    :func:`_similarity` for the interologs, ``interolog`` per protein); ``None`` with ``interolog: 0``."""
    from gatbio.data.pair_features import homologues

    if not opts.get("interolog"):
        return None
    return homologues(_similarity(data, opts, "interolog"), int(opts["interolog"]))


def node_features(data, opts: dict[str, Any], embedding: str | None = None) -> torch.Tensor:
    """The node input ``x`` of a model that does not rebuild its inputs: the standardised sequence features
    ``data.x``, or for a ``residue_cnn`` model the residue matrix of ``data.sequences``
    (:func:`gatbio.data.sequence.residue_matrix` with the model's ``max_len``; label-free, cached per process)."""
    from gatbio.nn.pair_models import uses_residues

    if not uses_residues(opts):
        return data.x
    from gatbio.data.sequence import residue_matrix

    key = (hash(tuple(data.sequences)), "residues", opts["max_len"], embedding)
    if key not in _INPUT_CACHE:
        _INPUT_CACHE[key] = torch.from_numpy(residue_matrix(data.sequences, embedding, opts["max_len"]))
    return _INPUT_CACHE[key]


def model_inputs(cfg: InteractionsConfig, data, opts: dict[str, Any], model, known, graph: str):
    """``(x, edge_index, edge_attr)`` of a trained model when the pairs ``known`` are the known interactions
    (their modes are inputs of ``gat_pairs`` models) under a graph setting (``all``: every pair is an edge)."""
    from gatbio.data.pair_splits import message_graph
    from gatbio.nn.pair_models import uses_pair_inputs

    if uses_pair_inputs(opts):
        structure = None if graph == "train" else np.arange(data.pairs.size(0))
        return graph_builder(data, opts, cfg.embedding).build(known, structure)
    attr = _edge_attr(data, getattr(model, "edge_features", None))
    ei, ea = message_graph(data.pairs, known if graph == "train" else None, attr)
    return node_features(data, opts, cfg.embedding), ei, ea


def train_model(cfg: InteractionsConfig, model_name: str, data, fit: list[int], val: list[int], graph: str,
                seed: int, device=None, progress: bool = False, on_epoch: Callable[[int, int], None] | None = None):
    """Build and train ``model_name`` on the ``fit`` pairs (early stopping on ``val``) under a graph setting.
    ``on_epoch``: called after each epoch with (epoch, max epochs) (:func:`gatbio.train.fit_pairs`).

    Returns ``(model, fit result, options)``; the model lives on ``device``. A ``gat_pairs`` model rebuilds its
    inputs from message pairs every epoch (:func:`graph_builder`, its ``supervision`` scheme) and may override the
    config's training settings (:data:`gatbio.nn.pair_models.TRAIN_OPTIONS`).
    """
    from gatbio.data.pair_splits import message_graph
    from gatbio.nn.pair_models import (
        NOT_NETWORKS,
        TRAIN_OPTIONS,
        build_pair_model,
        model_options,
        uses_pair_inputs,
    )
    from gatbio.train import PairTrainConfig, fit_pairs

    opts = model_options(model_name, _settings(cfg), _custom(cfg))
    if opts.get("kind") in NOT_NETWORKS:
        raise ValueError(f"model {model_name!r} (kind {opts['kind']}) is not a network to train")
    train_settings = {k: getattr(cfg, k) for k in TRAIN_OPTIONS}
    train_settings.update({k: opts[k] for k in TRAIN_OPTIONS if k in opts})
    tcfg = PairTrainConfig(**train_settings, threshold=cfg.threshold)
    torch.manual_seed(seed)
    inputs = None
    if uses_pair_inputs(opts):
        builder = graph_builder(data, opts, cfg.embedding)
        structure = None if graph == "train" else np.arange(data.pairs.size(0))
        tcfg.supervision, tcfg.node_fraction = opts["supervision"], opts["node_fraction"]
        tcfg.edge_fraction = opts["edge_fraction"]
        model = build_pair_model(opts, builder.num_features, data.pair_modes.size(1))
        if opts["interolog"]:
            model.set_homologues(*_homologues(data, opts))

        def inputs(msg):
            return builder.build(msg, structure)

        x = ei = ea = None
    else:
        x = node_features(data, opts, cfg.embedding)  # (N, F), or residues (N, L, d + 1)
        model = build_pair_model(opts, x.size(-1), data.pair_modes.size(1))
        attr = _edge_attr(data, getattr(model, "edge_features", None))
        ei, ea = message_graph(data.pairs, fit if graph == "train" else None, attr)
    res = fit_pairs(model, x, ei, data.pairs, data.pair_modes, torch.as_tensor(fit), torch.as_tensor(val),
                    _val_score(cfg.threshold), tcfg, edge_attr=ea, seed=seed, progress=progress,
                    device=cfg.device if device is None else device, inputs=inputs, on_epoch=on_epoch)
    return model, res, opts


#: A ``mean`` model's ``i``-th training of each network starts from seed ``seed + INIT_STRIDE * i``.
INIT_STRIDE = 1000


def fit_and_score(cfg: InteractionsConfig, data, name: str, fit: list[int], val: list[int], known, query: torch.Tensor,
                  graph: str, seed: int, device=None, progress: bool = False,
                  cache: dict | None = None, on_epoch: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """Fit model ``name`` on the ``fit`` pairs (early stopping, or for ``profile_rule`` its threshold, on ``val``)
    and score the ``query`` pairs ``(Q, 2)`` with the pairs ``known`` as the known interactions.

    Returns ``{"proba": (Q, M) array, "val_proba": (V, M) array, "threshold", "val_micro_f1", "best_epoch",
    "epochs_run", "options"}``: ``threshold`` is ``cfg.threshold`` for a network and the validation-chosen one for
    ``profile_rule`` (:func:`gatbio.data.pair_features.choose_threshold` on profiles of the fit pairs; profiles of
    ``known`` for the query); ``val_proba`` scores the validation pairs as early stopping did (messages and
    profiles from the ``fit`` pairs), so ``val_micro_f1`` is its micro-F1.

    A ``mean`` model trains each of its ``among`` networks ``inits`` times (seeds ``seed``, ``seed +``
    :data:`INIT_STRIDE`, ...) and averages their probabilities, on the validation pairs too (its
    ``val_micro_f1`` is the average's). ``cache``: results by ``(name, graph, seed)`` of the same ``fit``, ``val``,
    ``known`` and ``query`` — a network found there is not trained again, and each one trained is added.
    ``on_epoch``: called after each epoch of each network trained, with (epoch, max epochs)
    (:func:`gatbio.train.fit_pairs`).
    """
    from gatbio.data.pair_features import choose_threshold, profile_rule
    from gatbio.nn.pair_models import model_options
    from gatbio.train import predict_pairs

    opts = model_options(name, _settings(cfg), _custom(cfg))
    if cache is not None and (name, graph, seed) in cache:
        return cache[(name, graph, seed)]
    val_t = torch.as_tensor(val)
    if opts.get("kind") == "mean":
        trainings = [(m, seed + INIT_STRIDE * i) for i in range(opts["inits"]) for m in opts["among"]]
        members = [fit_and_score(cfg, data, m, fit, val, known, query, graph, s, device, progress, cache, on_epoch)
                   for m, s in trainings]
        val_proba = np.mean([r["val_proba"] for r in members], axis=0)
        return {"proba": np.mean([r["proba"] for r in members], axis=0), "val_proba": val_proba,
                "threshold": cfg.threshold,
                "val_micro_f1": _val_score(cfg.threshold)(data.pair_modes[val_t].numpy(), val_proba),
                "best_epoch": max(r["best_epoch"] for r in members),
                "epochs_run": max(r["epochs_run"] for r in members), "options": opts,
                "members_val_micro_f1": [round(float(r["val_micro_f1"]), 6) for r in members],
                # each training: [network, seed, wall s, CPU s] (what a choice counts once per network)
                "networks": [[m, s, r["seconds"], r["cpu_seconds"]]
                             for (m, s), r in zip(trainings, members, strict=True)]}
    if opts.get("kind") == "profile_rule":
        hom = {"similarity": _similarity(data, opts), "neighbors": opts["impute"],
               "homologue_sets": _homologues(data, opts), "shrink": opts["interolog_shrink"]}
        val_scores = profile_rule(data.pairs, data.pair_modes, fit, data.pairs[val_t], data.num_nodes, **hom)
        thr, best_val = choose_threshold(data.pair_modes[val_t].numpy(), val_scores)
        return {"proba": profile_rule(data.pairs, data.pair_modes, known, query, data.num_nodes, **hom),
                "val_proba": val_scores, "threshold": thr, "val_micro_f1": best_val, "best_epoch": 0,
                "epochs_run": 0, "options": opts}
    t0, c0 = time.perf_counter(), time.process_time()
    model, res, opts = train_model(cfg, name, data, fit, val, graph, seed, device=device, progress=progress,
                                   on_epoch=on_epoch)
    x, ei, ea = model_inputs(cfg, data, opts, model, fit, graph)
    val_proba = predict_pairs(model, x, ei, data.pairs[val_t], ea).cpu().numpy()
    x, ei, ea = model_inputs(cfg, data, opts, model, known, graph)
    out = {"proba": predict_pairs(model, x, ei, query, ea).cpu().numpy(), "val_proba": val_proba,
           "threshold": cfg.threshold, "val_micro_f1": res.best_val, "best_epoch": res.best_epoch,
           "epochs_run": res.epochs_run, "options": opts,
           "seconds": time.perf_counter() - t0, "cpu_seconds": time.process_time() - c0}
    if cache is not None:
        cache[(name, graph, seed)] = out
    return out


def _mode_columns(modes: list[str], known: list[str], proba: np.ndarray, threshold: float) -> dict[str, Any]:
    """One pair's prediction columns: ``known_modes``, ``predicted`` (modes above ``threshold``, best first; both
    ';'-separated) and ``score_<mode>``."""
    return {"known_modes": ";".join(known),
            "predicted": ";".join(modes[j] for j in np.argsort(-proba) if proba[j] > threshold),
            **{f"score_{m}": round(float(proba[j]), 4) for j, m in enumerate(modes)}}


def _check_options(path: Path, name: str, opts: dict[str, Any], resume: str = "check") -> None:
    """A finished run is reused only when it was made with the same model options (``custom_models`` is a
    resume-free key: adding a model to a results folder is fine, redefining one is refused; an option added since,
    at its value in :data:`gatbio.nn.pair_models.ADDED_OPTIONS`, is the same model), or with ``resume="anyway"``
    (``--resume-anyway``; said on stderr)."""
    import json
    import sys

    from gatbio.nn.pair_models import ADDED_OPTIONS
    from gatbio.results import ResumeConflictError

    old = read_json(path).get("options")
    new = json.loads(json.dumps(opts))
    if old is not None:  # an option added later, at the value that reproduces the stored run, is no difference
        old = {**{k: v for k, v in ADDED_OPTIONS.items() if k in new and k not in old}, **old}
    if old is not None and new != old:
        diff = sorted(k for k in set(old) | set(new) if k not in old or k not in new or old[k] != new[k])
        if resume == "anyway":
            print(f"gatbio: reusing {path} (--resume-anyway), made with other options of model {name!r}: "
                  f"{', '.join(diff)}", file=sys.stderr)
            return
        raise ResumeConflictError(
            f"{path} was made with other options of model {name!r} ({', '.join(diff)}); give the changed model a "
            "new name in custom_models, or pass --restart / --resume-anyway")


def _uses_graph(cfg: InteractionsConfig, name: str) -> bool:
    """Whether model ``name`` passes messages over the graph (else it runs under the train graph only); a choice
    or a mean does when one of its models does."""
    from gatbio.nn.pair_models import model_options, uses_residues

    opts = model_options(name, _settings(cfg), _custom(cfg))
    if opts.get("kind") in ("choice", "mean"):
        return any(_uses_graph(cfg, m) for m in opts["among"])
    if opts.get("kind") == "profile_rule" or uses_residues(opts):
        return False
    return not (opts.get("kind", "encoder") == "encoder" and opts.get("conv") == "mlp")


# ----------------------------------------------------------------------------------------------- one unit
def _paths(cfg: InteractionsConfig, kind: str, seed: int) -> tuple[Path, Path]:
    out = Path(cfg.out_dir)
    return out / "splits" / f"{kind}_s{seed}.json", out / "runs" / kind / f"s{seed}"


def _split(cfg: InteractionsConfig, data, kind: str, seed: int, save: bool) -> tuple[dict, Path]:
    """The (split type, seed) split saved in the results folder, else made now (and saved when ``save``), and
    the unit's runs folder."""
    from gatbio.data.pair_splits import pair_split

    split_path, run_dir = _paths(cfg, kind, seed)
    digest = pairs_digest(data)
    if is_done(split_path):
        sp = read_json(split_path)
        # A split is indices into the pair table it was made from: another table (the input files changed since)
        # would silently train and test on other pairs, or fail on an index. Older splits have no digest.
        if sp.get("num_pairs") != len(data.pairs) or sp.get("pairs_sha256", digest) != digest:
            now = f"{len(data.pairs)}" + (", other pairs" if sp.get("num_pairs") == len(data.pairs) else "")
            raise ValueError(f"{split_path}: made from another pair table ({sp.get('num_pairs')} pairs; the data "
                             f"read now has {now}): the input files changed since these results were made; "
                             "--restart makes them again (or give another out_dir)")
        return sp, run_dir
    sp = pair_split(data.pairs, data.num_nodes, kind, seed, cfg.test_fraction, cfg.val_fraction, cfg.val_split,
                    cfg.max_root_pairs, cfg.val_parts)
    sp["pairs_sha256"] = digest
    _note_sizes(sp, cfg, kind, seed)
    _check_parts(sp, kind, seed)
    if save:
        write_json(split_path, sp)
    return sp, run_dir


def pairs_digest(data) -> str:
    """sha256 of the pair table as protein names, in order (what a saved split's indices point into)."""
    import hashlib

    names = [str(n) for n in data.node_names]
    text = "\n".join(f"{names[a]}\t{names[b]}" for a, b in data.pairs.tolist())
    return hashlib.sha256(text.encode()).hexdigest()


def _check_parts(sp: dict, kind: str, seed: int) -> None:
    """Refuse a split with an empty part (training, validation or test pairs): on a small network GNN-PPI's
    whole-protein walk can take every pair but a handful, and the models would fail later on an empty tensor."""
    sizes = {"training": len(sp["train"]), "validation": len(sp["val"]), "test": len(sp["test"])}
    empty = [part for part, size in sizes.items() if size == 0]
    if empty:
        raise ValueError(f"{kind} split, seed {seed}: no {' and no '.join(empty)} pairs are left of the network's "
                        f"{sp['num_pairs']} (training {sizes['training']}, validation {sizes['validation']}, test "
                        f"{sizes['test']}): the walk takes whole proteins, and on a network this small one protein's "
                        "pairs can be most of it; use a random split ('splits=[random]'), a smaller test_fraction, "
                        "fewer val_parts, or other seeds")


def _note_sizes(sp: dict, cfg: InteractionsConfig, kind: str, seed: int) -> None:
    """Say when GNN-PPI's whole-protein expansion made the test or validation part much larger than asked (small
    networks: one hub protein's pairs can be most of it)."""
    from gatbio.data.tables import note

    n, n_train = sp["num_pairs"], len(sp["train"])
    for part, got, want in (("test", len(sp["test"]), cfg.test_fraction * n),
                            ("validation", len(sp["val"]), cfg.val_fraction * n_train)):
        if got > 1.5 * want + 5:
            fewer = (f"; carved in {sp['val_parts']} of the {cfg.val_parts} val_parts asked, those holding the share "
                     "already" if part == "validation" and sp.get("val_parts", cfg.val_parts) < cfg.val_parts
                     and kind != "random" and cfg.val_split == "same" else "")
            note(f"{kind} split, seed {seed}: the {part} pairs are {got}, for {want:.0f} asked ({got / n:.0%} of the "
                 f"pairs{fewer}): the walk takes whole proteins, and on a network this small one protein's pairs "
                 f"weigh much (fewer val_parts, or a random split, keep closer to the fraction)")


def _write_proba(path: Path, r: dict[str, Any], val: list[int], test: list[int]) -> None:
    """A run's probabilities (float32) with the indices of their pairs in the pair table, written atomically."""
    write_npz(path, val_pairs=np.asarray(val, dtype=np.int64), val_proba=r["val_proba"].astype(np.float32),
              test_pairs=np.asarray(test, dtype=np.int64), test_proba=r["proba"].astype(np.float32))


def _read_proba(path: Path, row: dict[str, Any], val: list[int], test: list[int],
                threshold: float) -> dict[str, Any]:
    """A stored run as :func:`fit_and_score` returns it (probabilities from ``path``, the rest from ``row``);
    ``None`` when ``path`` is damaged (cut short, empty, arrays missing): the caller makes the run again."""
    import zipfile

    try:
        with np.load(path) as z:
            stored = {k: z[k] for k in ("val_pairs", "test_pairs", "test_proba", "val_proba")}
    except (OSError, EOFError, KeyError, ValueError, zipfile.BadZipFile) as err:
        from gatbio.data.tables import note

        note(f"{path}: damaged ({type(err).__name__}: {err}); its run is made again")
        return None
    if not (np.array_equal(stored["val_pairs"], val) and np.array_equal(stored["test_pairs"], test)):
        raise ValueError(f"{path}: its pairs are not this unit's validation / test pairs (a results folder "
                         "mixed with another split?): delete it and its .json to remake the run")
    return {"proba": stored["test_proba"], "val_proba": stored["val_proba"],
            "threshold": row.get("threshold_chosen", threshold), "val_micro_f1": row["val_micro_f1"],
            "best_epoch": row["best_epoch"], "epochs_run": row["epochs_run"], "options": row.get("options"),
            "seconds": row["seconds"], "cpu_seconds": row["cpu_seconds"]}


def run_unit(cfg: InteractionsConfig, kind: str, seed: int, data, resume: str = "check",
             stage: UnitStage | None = None) -> list[dict]:
    """Every (graph, model) of one (split type, seed): one ``<model>.json`` each, and for every model fitted or
    scored a ``<model>.proba.npz`` of its validation and test probabilities; returns the rows written.
    ``resume``: as :func:`run` (``"anyway"`` also reuses runs made with other model options). A ``mean`` reuses
    its networks' runs through their probability files (a run stored without one is made again). ``stage``: told
    which model runs and a network's epoch, for the unit's heartbeat (:func:`gatbio.parallel.parallel_map`'s
    ``heartbeat``)."""
    with unit_threads(cfg.threads):
        return _run_unit(cfg, kind, seed, data, resume, UnitStage(on=False) if stage is None else stage)


def _run_unit(cfg: InteractionsConfig, kind: str, seed: int, data, resume: str, stage: UnitStage) -> list[dict]:
    from gatbio.data.pair_splits import pair_subsets
    from gatbio.device import resolve_device
    from gatbio.nn.pair_models import model_options

    dev = resolve_device(cfg.device)
    sp, run_dir = _split(cfg, data, kind, seed, save=True)
    train, test = sp["train"], sp["test"]
    subsets = pair_subsets(data.pairs, train, test, data.num_nodes)
    y_test = data.pair_modes[torch.as_tensor(test)].numpy()
    test_pairs = data.pairs[torch.as_tensor(test)]
    rows = []
    cache: dict = {}  # fit_and_score results of this unit by (model, graph, seed): a mean's members
    recorded = {"settings_fingerprint": settings_fingerprint(cfg.out_dir),  # the settings the runs are made with
                "split_file": _paths(cfg, kind, seed)[0].relative_to(Path(cfg.out_dir)).as_posix()}

    def one(graph: str, name: str, need_proba: bool = False) -> dict | None:
        """The result of model ``name`` under ``graph`` (made now, or read back when finished); with
        ``need_proba`` its probabilities are put in ``cache`` (read back, or the run made again)."""
        path = run_dir / graph / f"{name}.json"
        opts = model_options(name, _settings(cfg), _custom(cfg))
        why = damage(path, ROW_KEYS)
        if why:  # cut short, or its name keys without its results (hand-edited, or another tool's)
            from gatbio.data.tables import note

            note(f"{path}: {why}; its run is made again")
        elif path.is_file():
            _check_options(path, name, opts, resume)
            row = read_json(path)
            if not need_proba:
                return row
            stored = _read_proba(proba_path(path), row, sp["val"], test, cfg.threshold) \
                if proba_path(path).exists() else None
            if stored is not None:
                cache[(name, graph, seed)] = stored
                return row
        if graph != "train" and not _uses_graph(cfg, name):
            return None
        if opts.get("kind") == "choice":  # per seed, the candidate with the best validation micro-F1
            cands = {c: one(graph, c) for c in opts["among"]}
            chosen = max(opts["among"], key=lambda c: cands[c]["val_micro_f1"])  # first on ties
            row = {k: v for k, v in cands[chosen].items() if k not in ("options", "model", "networks")}
            # time: every network its candidates trained, once (a mean lists its trainings)
            nets = {}
            for c, r in cands.items():
                for n in r.get("networks") or [[c, seed, r["seconds"], r["cpu_seconds"]]]:
                    nets[tuple(n[:2])] = n[2:]
            row.update({**recorded, "model": name, "chosen": chosen,
                        "candidates_val_micro_f1": {c: r["val_micro_f1"] for c, r in cands.items()},
                        "seconds": round(sum(t[0] for t in nets.values()), 3),
                        "cpu_seconds": round(sum(t[1] for t in nets.values()), 3), "options": opts})
        else:
            if opts.get("kind") == "mean":  # its networks' own runs first (or their stored probabilities)
                for m in opts["among"]:
                    one(graph, m, need_proba=True)
            stage(f"{name} under the {graph} graph")
            t0, c0 = time.perf_counter(), time.process_time()
            r = fit_and_score(cfg, data, name, sp["fit"], sp["val"], train, test_pairs, graph, seed, device=dev,
                              cache=cache, on_epoch=stage.on_epoch)
            rule = {"threshold_chosen": r["threshold"]} if opts.get("kind") == "profile_rule" else {}
            seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
            if opts.get("kind") == "mean":  # the time of its networks' trainings (its own: averaging)
                seconds, cpu = (sum(n[k] for n in r["networks"]) for k in (2, 3))
            row = {"dataset": cfg.dataset, "split": kind, "seed": seed, "graph": graph, "model": name,
                   **evaluate_pairs(y_test, r["proba"], r["threshold"], subsets),
                   "val_micro_f1": r["val_micro_f1"], "best_epoch": r["best_epoch"], "epochs_run": r["epochs_run"],
                   **rule, "n_fit": len(sp["fit"]), "n_val": len(sp["val"]), "n_test": len(test),
                   "seconds": round(seconds, 3), "cpu_seconds": round(cpu, 3),
                   "device": str(dev), "threads": cfg.threads, "software": software(), **recorded,
                   "options": r["options"]}
            if opts.get("kind") == "mean":
                row.update({"members_val_micro_f1": r["members_val_micro_f1"],
                            "networks": [[n[0], n[1], round(n[2], 3), round(n[3], 3)] for n in r["networks"]]})
            else:  # what a mean that reuses this run counts for it
                r.update(seconds=row["seconds"], cpu_seconds=row["cpu_seconds"])
            _write_proba(proba_path(path), r, sp["val"], test)  # before the .json, which marks the run done
        write_json(path, row)
        rows.append(row)
        return row

    for graph in cfg.graphs:
        for name in cfg.models:
            one(graph, name)
    return rows


def _runs(cfg: InteractionsConfig) -> list[tuple[str, str]]:
    """The (graph setting, model) runs of each unit: every model on the training graph, and on the all-pairs
    graph the models that read a graph."""
    return [(g, m) for g in cfg.graphs for m in cfg.models if g == "train" or _uses_graph(cfg, m)]


def _unit_done(cfg: InteractionsConfig, kind: str, seed: int, data, resume: str = "check") -> bool:
    """Whether every run of one (split type, seed) is finished, with the checks the unit makes when it reads them
    back: the saved split comes from this pair table, and each run from the same model options (else
    :func:`_check_options` refuses, or says so under ``resume="anyway"``)."""
    from gatbio.nn.pair_models import model_options

    split_path, run_dir = _paths(cfg, kind, seed)
    runs = _runs(cfg)
    if not is_done(split_path) or not all(is_done(run_dir / g / f"{m}.json", ROW_KEYS) for g, m in runs):
        return False
    _split(cfg, data, kind, seed, save=False)  # refuses a split made from other input files
    for g, m in runs:
        _check_options(run_dir / g / f"{m}.json", m, model_options(m, _settings(cfg), _custom(cfg)), resume)
    return True


# ----------------------------------------------------------------------------------------------- the sweep
def run(cfg: InteractionsConfig, summary_only: bool = False, resume: str = "check",
        progress: bool = True) -> str:
    """The whole experiment; returns the printable summary (also ``summary.md``).

    Finished runs in ``cfg.out_dir`` are reused when the stored config has the same result settings; otherwise
    ``resume`` decides (``"check"`` refuses, ``"restart"`` deletes this task's outputs, ``"anyway"`` reuses them;
    :func:`gatbio.results.prepare_out_dir`).
    """
    import dataclasses

    from gatbio.device import announce_device, resolve_device
    from gatbio.parallel import left_to_run, parallel_map
    from gatbio.results import OUT_DIR_KEY, prepare_out_dir, writing_runs

    check(cfg)
    if not summary_only:  # a missing input is named before the folder records this config (a fixed path reruns)
        from gatbio._paths import check_input_file
        from gatbio.data.tables import check_file

        for key, path in input_files(cfg).items():
            if path:
                check_file(check_input_file(path, f"config {key}:"))
    if not summary_only:
        dev = resolve_device(cfg.device)
        announce_device(dev, cfg.device)
        cfg = dataclasses.replace(cfg, device=str(dev))
    prepare_out_dir(cfg.out_dir, cfg, free_keys=RESUME_FREE_KEYS, outputs=OUTPUTS, resume=resume,
                    summary_only=summary_only, inputs=input_files(cfg), key=OUT_DIR_KEY)
    if not summary_only:
        with writing_runs(cfg.out_dir):
            data = load_data(cfg)
            # seed by seed, every split type in each: the first units to end are a fair sample of the rest for the
            # time left (the random splits' fits are the longest: run first, they made it read too long), and an
            # interrupted run holds the first seeds of every split type
            units = left_to_run([(cfg, k, s, data, resume) for s in cfg.seeds for k in cfg.splits], _unit_done,
                                cfg.name, "(split, seed)", cfg.out_dir, progress, keys=ROW_KEYS,
                                files=lambda c, k, s, *_: [_paths(c, k, s)[1] / g / f"{m}.json" for g, m in _runs(c)])
            parallel_map(run_unit, units, jobs=cfg.jobs, desc=f"{cfg.name}: split x seed", progress=progress,
                         heartbeat=lambda c, k, s, *_: f"{c.name}: still running ({k} split, seed {s})")
    return summarize_runs(cfg)


METRICS = ("micro_f1", "macro_f1", "micro_f1_bs", "micro_f1_es", "micro_f1_ns")


def summarize_runs(cfg: InteractionsConfig) -> str:
    """``summary.csv`` (mean / std / n per split, graph, model) and ``summary.md`` (one table per split type)."""
    out = Path(cfg.out_dir)
    files = [_paths(cfg, k, s)[1] / g / f"{m}.json" for k in cfg.splits for s in cfg.seeds for g, m in _runs(cfg)]
    rows = [read_json(p) for p in files if is_done(p, SUMMARY_KEYS)]
    if not rows:
        raise FileNotFoundError(f"no results under {out / 'runs'}: run without --summary-only first")
    notes = [line for line in (missing_runs_note(files, out, SUMMARY_KEYS), mixed_configs_note(out, rows)) if line]
    df = pd.DataFrame(rows)
    for m in METRICS:
        df[m] = pd.to_numeric(df.get(m), errors="coerce")
    order = {v: i for i, v in enumerate(list(cfg.splits) + list(cfg.graphs) + list(cfg.models))}
    df = df.sort_values(["split", "graph", "model"], key=lambda c: c.map(order))
    by = ["split", "graph", "model"]
    summ = summarize(df, by, list(METRICS) + ["seconds"], digits=None)  # rounded once, for display
    write_csv(out / "summary.csv", round_stats(summ, 6))  # 6 digits: a 3-digit display from it rounds once
    table = format_mean_std(summ, by, list(METRICS) + ["seconds"])
    for m in METRICS:  # a subset without test pairs in every run (BS of BFS/DFS splits)
        table.loc[summ[f"{m}_mean"].isna().to_numpy(), m] = "–"
    table["seconds"] = [f"{s:.1f}" for s in summ["seconds_mean"]]
    rules = list(dict.fromkeys(df.loc[df["threshold_chosen"].notna(), "model"])) if "threshold_chosen" in df else []
    at = f"at threshold {cfg.threshold}" + (f" ({', '.join(rules)}: at the threshold chosen on the validation pairs, "
                                            "threshold_chosen in the run files)" if rules else "")
    parts = [f"{cfg.name} on {cfg.dataset}: micro-F1 over (test pair × mode) {at}, {over_seeds(df['seed'])}. "
             "graph: train = messages over training pairs only (leakage-free); all = over "
             "every pair, test pairs included (the published setting, for comparison). BS / ES / NS: test pairs "
             "with both / one / neither protein in a training pair."]
    for k in [s for s in cfg.splits if s in set(table["split"])]:
        parts.append(f"## {k}\n\n{markdown_table(table[table['split'] == k].drop(columns='split'))}")
    text = "\n\n".join(parts + notes)
    atomic_write_text(out / "summary.md", text + "\n")
    return text


# ----------------------------------------------------------------------------------------------- predict
def query_pairs(data, query) -> torch.Tensor:
    """``query`` as :func:`predict_interactions` reads it: a long ``(Q, 2)`` tensor of protein indices, from a
    ``(Q, 2)`` tensor or array, or a list of ``(a, b)`` pairs whose proteins are indices or names of
    ``data.node_names``; anything else is a ``TypeError`` / ``ValueError`` naming ``query`` and the fix (PyG's
    ``(2, Q)`` layout: transpose it; a name not in the network; an index past the last protein)."""
    from gatbio.nn.pair_models import check_pairs

    if isinstance(query, np.ndarray):
        query = torch.from_numpy(query)
    if not isinstance(query, torch.Tensor):
        if isinstance(query, str | bytes) or not hasattr(query, "__iter__"):
            raise TypeError(f"query must be a list of (a, b) pairs or a (Q, 2) tensor; got {type(query).__name__}")
        index = {str(v): i for i, v in enumerate(data.node_names)}
        rows = []
        for pair in query:
            if isinstance(pair, str) or not hasattr(pair, "__len__") or len(pair) != 2:
                hint = (" (for one pair give [(a, b)])" if isinstance(pair, str | int)
                        else " (the (2, Q) layout? give one (a, b) per pair: list(zip(*query)))"
                        if hasattr(pair, "__len__") and len(pair) > 2 else "")
                raise ValueError(f"query: each pair must be two proteins (a, b), indices or names; got {pair!r}{hint}")
            for v in pair:
                if isinstance(v, str) and v not in index:
                    raise ValueError(f"query: protein {v!r} is not in the network ({len(index)} proteins, "
                                     "data.node_names)")
            rows.append([index[v] if isinstance(v, str) else v for v in pair])
        if not rows:
            raise ValueError("query has no pair: give at least one (a, b)")
        query = torch.as_tensor(rows)
    check_pairs(query, data.num_nodes, "query")
    return query.long().cpu()


def predict_interactions(data, query, cfg: InteractionsConfig | None = None,
                         model_name: str = PREDICT_MODEL, seed: int = 0, device=None,
                         progress: bool = False) -> pd.DataFrame:
    """Train ``model_name`` on every pair of ``data`` and predict the modes of the ``query`` pairs.

    A random ``cfg.val_fraction`` of the pairs is held out for early stopping (messages pass over the other pairs
    while training); the final predictions pass messages over every known pair. A ``choice`` (``gat``) keeps the
    candidate with the best micro-F1 on those held-out pairs (its ``mean`` reuses the networks trained for the
    others). ``data``: the output of
    :func:`load_data`. ``query``: long ``(Q, 2)`` protein indices, or a list of ``(a, b)`` pairs of indices or of
    names of ``data.node_names`` (:func:`query_pairs`; checked before any training).

    Returns one row per query pair: ``protein_a``, ``protein_b``, ``known`` (the pair is in the interaction file),
    ``known_modes``, ``predicted`` (modes with a score above the model's threshold, ';'-separated, best first)
    and ``score_<mode>`` for every mode; ``attrs``: ``model`` (the one trained, or a choice's pick), its
    ``val_micro_f1`` and ``threshold`` (``cfg.threshold``, 0.5 as published, for the networks; the profile rules
    choose theirs on the held-out pairs), ``val_pairs`` and ``known_pairs`` (how many pairs were held out, of how
    many), ``seed`` and ``selected`` (what the held-out pairs chose: ``"the epoch"`` or ``"the rule's threshold"``,
    ``" and the model"`` added for a choice). ``val_micro_f1`` is an optimistic figure: the same held-out pairs
    chose the epoch (or the rule's threshold) and a choice's model, and they are a random part of the known pairs,
    whose proteins have other known pairs. A known pair's modes are among its inputs (messages
    pass over every known pair), so its scores mostly repeat them.

    The models train on ``cfg.threads`` threads (torch's and BLAS's, :func:`gatbio.parallel.unit_threads`), as the
    benchmark's units: on several threads the sums' order, hence the scores, changed from one run to the next.
    """
    import sys

    from gatbio.data.pair_splits import carve_validation
    from gatbio.device import resolve_device

    cfg = cfg or InteractionsConfig()
    dev = resolve_device(cfg.device if device is None else device)
    query = query_pairs(data, query)
    n = data.pairs.size(0)
    if n < 2:
        raise ValueError(f"the interaction file has {n} pair(s); need at least 2 to train and validate")
    carve = carve_validation(data.pairs, list(range(n)), data.num_nodes, "random", seed, cfg.val_fraction)
    seen = (data.pair_modes > 0).any(0)  # (7,)
    if not bool(seen.all()):
        unseen = [m for m, s in zip(data.mode_names, seen.tolist(), strict=True) if not s]
        print(f"# note: no known pair has the mode(s) {', '.join(unseen)}: the model cannot learn them, and their "
              "scores say only that", file=sys.stderr)
    from gatbio.nn.pair_models import model_options

    opts = model_options(model_name, _settings(cfg), _custom(cfg))
    held_for = "to choose the rule's threshold" if opts.get("kind") == "profile_rule" else "for early stopping"
    if len(carve["val"]) < 20:
        print(f"# note: {len(carve['val'])} held-out pair(s) of {n} {held_for}"
              + (" and the choice of model" if model_name == "gat" else "")
              + ": with so few known pairs, expect rough predictions", file=sys.stderr)
    if progress:
        print(f"# {model_name} on {len(carve['fit'])} pairs ({len(carve['val'])} held out {held_for}), "
              f"{data.x.size(1)} sequence features per protein", file=sys.stderr, flush=True)
    every = list(range(n))
    best, chosen = None, model_name
    cache: dict = {}  # a choice's mean reuses the networks trained for the other candidates
    # on the config's threads (torch's and BLAS's), as the benchmark's units: on two threads or more SHS27k's sums
    # come in another order from one run to the next, so the same command gave other scores each time
    with unit_threads(cfg.threads):
        for name in opts["among"] if opts.get("kind") == "choice" else [model_name]:
            r = fit_and_score(cfg, data, name, carve["fit"], carve["val"], every, query, "train", seed, device=dev,
                              progress=progress, cache=cache)
            if best is None or r["val_micro_f1"] > best["val_micro_f1"]:  # a choice: the best validation micro-F1
                best, chosen = r, name
    if progress and chosen != model_name:
        print(f"# {model_name}: chose {chosen} (validation micro-F1 {best['val_micro_f1']:.3f})", file=sys.stderr)
    names = [str(n) for n in data.node_names]
    modes = list(data.mode_names)
    lookup = {(int(a), int(b)): i for i, (a, b) in enumerate(data.pairs.tolist())}
    rows = []
    for q, (a, b) in enumerate(query.tolist()):
        i = lookup.get((min(a, b), max(a, b)))
        known = [] if i is None else [m for m, v in zip(modes, data.pair_modes[i].tolist(), strict=True) if v]
        rows.append({"protein_a": names[a], "protein_b": names[b], "known": i is not None,
                     **_mode_columns(modes, known, best["proba"][q], best["threshold"])})
    df = pd.DataFrame(rows)
    df.attrs.update({"val_micro_f1": best["val_micro_f1"], "model": chosen, "threshold": float(best["threshold"]),
                     "val_pairs": len(carve["val"]), "known_pairs": n, "seed": seed,
                     # what they chose for the model that scores (a choice's pick may be a rule: its threshold)
                     "selected": ("the rule's threshold" if model_options(chosen, _settings(cfg), _custom(cfg)).get(
                         "kind") == "profile_rule" else "the epoch")
                     + (" and the model" if opts.get("kind") == "choice" else "")})
    return df


def predict_split(cfg: InteractionsConfig, kind: str, seed: int, model_name: str, graph: str = "train", data=None,
                  device=None) -> pd.DataFrame:
    """Retrain ``model_name`` on one saved split of ``cfg.out_dir`` (``splits/<kind>_s<seed>.json``, made when
    absent) and return its predictions for every **test** pair: ``protein_a``, ``protein_b``, ``subset`` (BS / ES /
    NS), ``known_modes``, ``predicted`` (';'-separated, best first), ``correct`` (predicted set == known set) and
    ``score_<mode>``. What a worked example shows; the numbers equal the run's when run on the same device (on the
    config's ``threads``, as the run).
    ``profile_rule`` is made too; a ``choice`` model (``gat``) is replaced by the model it chose for this
    (split, seed, graph) in the results, or by its first candidate when there is no result (a ``mean`` trains
    each of its networks)."""
    from gatbio.data.pair_splits import SUBSETS, pair_subsets
    from gatbio.nn.pair_models import model_options

    data = load_data(cfg) if data is None else data
    sp, run_dir = _split(cfg, data, kind, seed, save=False)
    opts = model_options(model_name, _settings(cfg), _custom(cfg))
    if opts.get("kind") == "choice":
        done = run_dir / graph / f"{model_name}.json"
        model_name = read_json(done)["chosen"] if is_done(done) else opts["among"][0]
    test = torch.as_tensor(sp["test"])
    with unit_threads(cfg.threads):  # the run's threads: the same sums, so the same model as the run's
        r = fit_and_score(cfg, data, model_name, sp["fit"], sp["val"], sp["train"], data.pairs[test], graph, seed,
                          device=cfg.device if device is None else device)
    threshold = r["threshold"]
    sub = pair_subsets(data.pairs, sp["train"], sp["test"], data.num_nodes)
    names, modes = [str(n) for n in data.node_names], list(data.mode_names)
    rows = []
    for q, (i, (a, b)) in enumerate(zip(sp["test"], data.pairs[test].tolist(), strict=True)):
        known = [m for m, v in zip(modes, data.pair_modes[i].tolist(), strict=True) if v]
        cols = _mode_columns(modes, known, r["proba"][q], threshold)
        rows.append({"pair": int(i), "protein_a": names[a], "protein_b": names[b], "subset": SUBSETS[sub[q]].upper(),
                     **cols, "correct": set(filter(None, cols["predicted"].split(";"))) == set(known)})
    df = pd.DataFrame(rows)
    df.attrs.update({"model": model_name, "threshold": threshold})
    return df
