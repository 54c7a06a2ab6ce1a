r"""Food-web link inference: the GATEWAy benchmark protocol, the new-species protocol, and prediction.

Direction convention: an edge :math:`i \to j` means **j eats i** (prey → predator), as in the GATEWAy files.

Protocols (``protocol`` column of the results)
----------------------------------------------
- ``links`` (the GATEWAy protocol of Van Kleunen et al. 2026, ``gateway_dev/SOURCE.md``): the web's links, in
  file order, are cut into 5 consecutive blocks (:func:`gatbio.data.splits.gateway_folds`); each block in turn
  is held out as test positives, the other 80% is the observed network; the test negatives are **all ordered
  non-links of the full web**. ROC-AUC and average precision per fold; a web's figure is the mean over folds.
- ``species`` (a species new to the web): the species are cut into 5 seeded folds; all links of a fold's
  species are held out; the test pairs are every ordered pair touching one of them. Predictions come from
  the traits and the rest of the web.

Everything a model sees (degrees, trophic levels, message passing, training pairs) is computed from the
observed network of the fold. Models train inside it by cross-fitting (:func:`gatbio.linkpred.inner_splits`):
every observed link is a training positive, with features from the rest of the observed network.

Models (``model`` column)
-------------------------
``gat`` (:class:`gatbio.nn.FoodWebGAT` with traits and the trophic attention bias, early-stopped on an inner
validation mask; one row per seed; in the links protocol a seed ensemble of ``ensemble_seeds`` seeds:
:func:`ensemble_seed_list`), ``no_trophic_bias`` (the same without the bias, ``seeds`` only), ``gat_structure``
(no traits), ``full`` (a logarithmic opinion pool, :func:`pool`: the weighted mean of the seed-averaged
``gat`` logits and the log-odds of ``boosted_stack`` and ``linear_stack``, with fixed weights per protocol,
``pool_weights`` and ``species_pool_weights``), ``structure_only`` (the same with ``gat_structure`` and the two
stacks without traits), ``full_without_gat`` (``full``'s pool without its GAT: what the GAT adds), and the
baselines ``preferential_attachment``, ``jaccard``, ``l3_ra``,
``niche`` (probabilistic niche model), ``boosted_stack`` (gradient boosting on pair features with traits:
degrees, levels, path scores, truncated-SVD scores, trait differences and trait-neighbour scores),
``linear_stack`` (a logistic regression on the same features) and ``boosted_stack_structure`` (without
traits).

Outputs of :func:`benchmark` (``OUT/``): ``webs/<web>.<protocol>.json`` (per fold and seed, with the splits:
held-out blocks of the file's links, ``test_lines`` [lo, hi), 0-based, counted without the cannibal links a folder's
file may hold, whose positions are then ``self_loops_dropped``; species; and for named webs the held-out links by
name),
``per_fold.csv``, ``per_web.csv`` / ``summary.csv`` (links protocol), ``per_web_species.csv`` /
``summary_species.csv``, ``summary_large_sparse.csv`` (connectance ≤ 0.06), ``ablation.csv`` (trophic bias,
paired over webs and seeds), ``ablation_groups.csv`` (the same by web size, connectance and PR-AUC without the
bias: :func:`ablation_groups`), ``config.yaml`` and ``timing.json``.
"""

from __future__ import annotations

import copy
import dataclasses
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp
import torch
import torch.nn.functional as F
from torch_geometric.data import Data

from gatbio import linkpred as lp
from gatbio.data.foodweb import impute_missing
from gatbio.metrics import pr_auc, roc_auc
from gatbio.parallel import unit_threads
from gatbio.results import UnitStage

__all__ = [
    "GATParams", "FoodWebConfig", "QUICK_WEBS", "OUR_MODELS", "BASELINES",
    "read_web_folder", "find_web_folders", "node_inputs", "prepare_traits", "observed_levels",
    "fit_gat", "fit_gat_seeds", "gat_scores", "fold_scores", "ensemble_seed_list", "link_folds", "species_folds", "run_web", "benchmark",
    "summarize_results", "summarize_folder", "predict_missing_links", "explain_web", "run_quick", "quick_config",
]

#: Models that need species traits; on a web without them they are left out (``gat`` becomes ``gat_structure``).
TRAIT_MODELS = ("full", "gat", "no_trophic_bias", "boosted_stack", "linear_stack", "full_without_gat")
#: Our models and the baselines, in table order.
OUR_MODELS = ("full", "structure_only", "gat", "no_trophic_bias", "gat_structure", "full_without_gat")
BASELINES = ("boosted_stack", "linear_stack", "boosted_stack_structure", "l3_ra", "jaccard", "preferential_attachment",
             "niche")
#: The stacks' learners (:func:`gatbio.linkpred.stack_scores`) and the model names they are reported under.
STACK_MODELS = (("hgb", "boosted_stack"), ("logistic", "linear_stack"))
#: A few small GATEWAy webs of different ecosystems for the quick run (``make demo``, the notebook test).
QUICK_WEBS = ("PP2I4_250", "Mosendale Beck_125")


@dataclass
class GATParams:
    """Settings of :class:`gatbio.nn.FoodWebGAT` and its training (:func:`fit_gat`)."""

    hidden_channels: int = 16
    heads: int = 4
    num_layers: int = 2
    dropout: float = 0.0
    attention: str = "gatv2"
    epochs: int = 400  # optimiser steps (the most, with early stopping), each over all cross-fitting masks at once
    # early stopping: train on all masks but the last, score that one (validation BCE) every `eval_every` steps,
    # stop after `patience` evaluations without improvement, then refit on all masks for the best number of steps
    early_stopping: bool = True
    eval_every: int = 10
    patience: int = 3
    val_metric: str = "loss"  # "loss" (validation BCE) or "ap" (validation average precision)
    refit: bool = False  # after early stopping: refit on all masks (True) or keep the best model of the 4 (False)
    lr: float = 0.01
    weight_decay: float = 1e-4
    rounds: int = 1  # rounds of cross-fitting masks cycled through during training
    adjacency_inputs: bool = True  # the observed diet / consumer rows as node inputs
    # train the seeds of a web as one batched model (fit_gat_seeds: torch.func.vmap over the seeds' stacked
    # parameters, one step for all seeds); the same computation as one seed after another, in another summation
    # order. Off by default: each seed then computes over every seed's graphs, 1.3-8x slower on a CPU
    # (experiments/README.md, "Device"); meant for GPUs, where a step on a small web is launch overhead
    batch_seeds: bool = False


@dataclass
class FoodWebConfig:
    """The benchmark config (``experiments/configs/foodweb_*.yaml``; ``key=value`` overrides)."""

    webs: str = ""  # folder of web folders (the gateway_dev/webs layout); empty: <data root>/gateway_dev/webs
    out: str = "results/foodweb"
    only: list[str] = field(default_factory=list)  # web folder names to run (empty: all)
    # named webs of gatbio.data.load (e.g. cheddar/TL84, pajek/baydry) instead of a folder: their links are
    # shuffled once (seeded by split_seed) before the consecutive folds, since their file order is not random
    named: list[str] = field(default_factory=list)
    use_traits: bool = True  # False: structure only, even where a web has traits
    protocols: list[str] = field(default_factory=lambda: ["links", "species"])
    models: list[str] = field(default_factory=lambda: list(OUR_MODELS + BASELINES))
    # new-species protocol: our structure-only models cannot see a species without links, so they are left out;
    # the structural baselines (l3_ra, jaccard, preferential_attachment) stay as the chance reference (0.5 there)
    species_models: list[str] = field(default_factory=lambda: [
        "full", "gat", "no_trophic_bias", "full_without_gat", "boosted_stack", "linear_stack", "l3_ra", "jaccard",
        "preferential_attachment", "niche"])
    n_folds: int = 5
    seeds: list[int] = field(default_factory=lambda: [0, 1, 2])  # GAT seeds, links protocol (bias ablation)
    species_seeds: list[int] = field(default_factory=lambda: [0])  # GAT seeds, species protocol
    # seed ensemble of `gat` in `full` (links protocol): the GAT is trained with `ensemble_seeds` seeds (`seeds`
    # and the next integers) and `full` averages them (see ensemble_seed_list); webs of more than
    # `ensemble_max_species` species (None: no limit) keep `seeds`, to cap the cost on very large webs
    ensemble_seeds: int = 5
    ensemble_max_species: int | None = None
    split_seed: int = 0  # species folds and the cross-fitting splits
    jobs: int = 1
    threads: int = 1  # torch and BLAS threads per worker (gatbio.parallel.unit_threads: results depend on it)
    niche_steps: int = 100
    # weights of `full`'s log-odds pool (`pool`): [GAT (mean of its seeds), boosted stack, linear stack]; links
    # protocol (and `structure_only`), and new-species protocol, where the stack on traits is the strongest member
    # (experiments/README.md, "Pooling the members")
    pool_weights: list[float] = field(default_factory=lambda: [2.0, 1.0, 1.0])
    species_pool_weights: list[float] = field(default_factory=lambda: [0.5, 1.0, 0.0])
    large_sparse_connectance: float = 0.06
    published: str = ""  # web_index.csv with published per-web figures; empty: <webs>/../web_index.csv if present
    # where the GATs train and score: auto (the CPU: food webs are small graphs, whose fits ran 1.9-3.6x slower on
    # an H200 than on 2 CPU cores; gatbio.device.SMALL_GRAPHS_ON_GPU), cpu, cuda, cuda:N, mps (gatbio.device);
    # the stacks, the niche model and the path scores run on the CPU. Stored resolved.
    device: str = "auto"
    gat: GATParams = field(default_factory=GATParams)
    stack: lp.StackParams = field(default_factory=lambda: lp.StackParams(
        max_negatives=5000, max_iter=60, learning_rate=0.1, low_rank=[2, 4, 8, 16], trait_scores=True))


# ----------------------------------------------------------------------------------------------------------
# reading webs
# ----------------------------------------------------------------------------------------------------------


def find_web_folders(webs_dir: str | Path) -> list[Path]:
    """The web folders of ``webs_dir`` (each holds one ``*_edge_list.txt``), sorted by name."""
    from gatbio._paths import check_input_dir

    webs_dir = check_input_dir(webs_dir, what="expected a folder of web folders, like gateway_dev/webs/")
    found = sorted(p for p in webs_dir.iterdir() if p.is_dir() and any(p.glob("*_edge_list.txt")))
    if not found:
        raise FileNotFoundError(f"{webs_dir}: no web folders with a *_edge_list.txt file (layout: "
                                "DIR/<name>_<id>/<id>_edge_list.txt and <id>_node_attr_list.txt)")
    return found


def read_web_folder(folder: str | Path, self_loops: str = "remove", say: bool = True) -> Data:
    """One web folder in the GATEWAy layout, as the benchmark reads it: :func:`gatbio.data.foodweb.read_gateway_web`
    (file order kept, file:line validation) with self-loops removed, and said on stderr (cannibalism is not
    predicted, and the folds' ``test_lines`` then count the other links in file order; ``self_loops="keep"``: kept,
    for a caller that says how many it leaves out) and the trait columns exactly as in the file. The positions of
    the cannibal links left out, 0-based among the file's links, are ``data.self_loops_dropped`` (the benchmark
    writes them into its result file, whose ``test_lines`` count the other links).

    ``say=False``: read without a note (the self-loops, missing traits, ...), for a caller that reads the folder
    again: the benchmark reads a web once per protocol and says its notes for the first protocol only.
    """
    import contextlib

    from gatbio.data.foodweb import read_gateway_web
    from gatbio.data.tables import MalformedFileError, data_head, is_number, notes_said_before

    for edges in sorted(Path(folder).glob("*_edge_list.txt"))[:1]:  # species names, not ids: another layout
        head = data_head(edges, lines=1, numbered=True)
        fields = head[0][1].split() if head else []
        if fields and not all(f.lstrip("-").isdigit() for f in fields[:2]) and not is_number(fields[0]):
            raise MalformedFileError(edges, head[0][0], f"expected node ids (whole numbers 0..N-1), found "
                                                        f"{' '.join(fields[:2])!r}: the benchmark reads web folders "
                                                        "in the GATEWAy layout (<id>_edge_list.txt of ids, traits in "
                                                        "<id>_node_attr_list.txt, names in the collection's "
                                                        "node_ids.csv); a web of species names runs with gatbio "
                                                        "foodweb predict FILE")
    with contextlib.nullcontext() if say else notes_said_before():
        data = read_gateway_web(folder, self_loops="keep", add_mass_missing=False)
    loops = data.edge_index[0] == data.edge_index[1]
    if self_loops == "remove" and bool(loops.any()):
        from gatbio.data.tables import note

        if say:
            note(f"{folder}: {int(loops.sum())} cannibalism link(s) (a species eating itself) left out: not "
                 "predicted; the folds (test_lines) count the other links in file order")
        data.edge_index = data.edge_index[:, ~loops]
        if getattr(data, "edge_weight", None) is not None and data.edge_weight.numel() == loops.numel():
            data.edge_weight = data.edge_weight[~loops]
        # where they were (0-based positions among the file's links), for the result file: the folds' test_lines
        # count the other links, so a reader of the saved splits needs them to find the held-out links
        data.self_loops_dropped = torch.nonzero(loops).view(-1).tolist()
    return data


# ----------------------------------------------------------------------------------------------------------
# features
# ----------------------------------------------------------------------------------------------------------


def adjacency_of(edge_index, num_nodes: int) -> sp.csr_matrix:
    """The binary (N, N) adjacency of a prey → predator edge index (2, E) of ids in 0..N-1: anything else is
    refused (:func:`gatbio.data.io.check_edge_index`), never reshaped, which made an (E, 2) array another web."""
    from gatbio.data.io import check_edge_index

    ei = check_edge_index(edge_index, num_nodes)
    return lp.as_adjacency(sp.csr_matrix((np.ones(ei.shape[1]), (ei[0], ei[1])), shape=(num_nodes, num_nodes)))


def observed_levels(A: sp.csr_matrix) -> np.ndarray:
    """MacKay trophic levels (N,) of the observed adjacency (defined for any directed graph: no basal species
    needed; a species without links gets level 1)."""
    from gatbio.ecology import trophic_levels

    r, c = A.nonzero()
    return trophic_levels(torch.from_numpy(np.stack([r, c])).long(), "mackay", num_nodes=A.shape[0]).numpy()


def prepare_traits(x, names: list[str] | None = None) -> tuple[np.ndarray | None, list[str]]:
    """Standardise traits per web; NaN values are imputed by the column median and flagged.

    Fallback for missing traits (documented, tested): a column with NaN gets its median (0 when all NaN)
    and an extra 0/1 column ``<name>_missing``; constant columns are kept (they standardise to 0).
    Returns ``(None, [])`` when ``x`` is None or has no columns.
    """
    if x is None:
        return None, []
    x = np.asarray(torch.as_tensor(x).cpu().numpy() if torch.is_tensor(x) else x, dtype=float)
    if x.ndim != 2 or x.shape[1] == 0:  # a web without trait columns (e.g. cheddar/ChesapeakeBay): structure only
        return None, []
    names = list(names) if names is not None else [f"x{i}" for i in range(x.shape[1])]
    cols, out_names = [], []
    for k in range(x.shape[1]):
        v, bad = impute_missing(x[:, k])
        sd = v.std()
        cols.append((v - v.mean()) / (sd if sd > 0 else 1.0))
        out_names.append(names[k])
        if bad.any():
            cols.append(bad.astype(float))
            out_names.append(f"{names[k]}_missing")
    return np.stack(cols, axis=1), out_names


def node_inputs(A: sp.csr_matrix, levels: np.ndarray, traits: np.ndarray | None, adjacency: bool = True
                ) -> torch.Tensor:
    """Node inputs of the GAT: log(1 + observed out/in degree), trophic level − 1, standardised traits and
    (``adjacency``) the node's rows of the observed adjacency and its transpose (who it eats / who eats it)."""
    k_out, k_in = lp.degrees(A)
    parts = [np.log1p(k_out)[:, None], np.log1p(k_in)[:, None], (levels - 1.0)[:, None]]
    if traits is not None:
        parts.append(traits)
    if adjacency:
        D = A.toarray()
        parts += [D, D.T]
    return torch.tensor(np.concatenate(parts, axis=1), dtype=torch.float)  # (N, F)


# ----------------------------------------------------------------------------------------------------------
# the GAT link predictor: cross-fitted training inside the observed network
# ----------------------------------------------------------------------------------------------------------


def training_masks(A: sp.csr_matrix, traits: np.ndarray | None, params: GATParams, mode: str = "links",
                   seed: int = 0) -> list[tuple]:
    """The cross-fitting masks :func:`fit_gat` cycles through: ``params.rounds`` × 5 splits of
    :func:`gatbio.linkpred.inner_splits`, each as ``(x, edge_index, levels, rows, cols, y)`` tensors with
    inputs, messages and trophic levels from the split's remaining links only."""
    masks = []
    for r in range(params.rounds):
        for s in lp.inner_splits(A, 5, mode, seed * 1000 + r):
            lv = observed_levels(s.A_msg)
            masks.append((
                node_inputs(s.A_msg, lv, traits, params.adjacency_inputs),  # (N, F)
                torch.from_numpy(np.stack(s.A_msg.nonzero())).long(),  # (2, E_msg)
                torch.tensor(lv, dtype=torch.float),  # (N,)
                torch.from_numpy(s.rows).long(), torch.from_numpy(s.cols).long(),  # (P,), (P,)
                torch.tensor(s.y, dtype=torch.float),  # (P,)
            ))
    return masks


def fit_gat(A: sp.csr_matrix, traits: np.ndarray | None, params: GATParams, *, trophic_bias: bool = True,
            mode: str = "links", seed: int = 0, masks: list[tuple] | None = None,
            device: str | torch.device | None = None):
    """Train a :class:`gatbio.nn.FoodWebGAT` inside the observed network ``A``.

    Training uses cross-fitting masks (:func:`training_masks`): in each, a fifth of the observed links
    (``mode="links"``) or all links of a fifth of the species (``mode="species"``) are hidden; the model sees
    the rest (inputs, trophic levels and messages all recomputed) and is trained with binary cross-entropy on
    the hidden links against every observed non-link among the candidate pairs. Each step uses all masks at
    once, so every observed link is a positive in every step. ``masks`` may be passed to share them between
    models. ``device``: where the model trains (:func:`gatbio.device.resolve_device`; ``None``: the CPU); the
    masks are built on the CPU and moved there, and the returned model lives there. Initialisation is seeded
    on the CPU, so a seed starts from the same weights on every device.

    With ``params.early_stopping`` the last mask is the validation mask: training on the others stops once its
    loss has not improved for ``params.patience`` evaluations (at most ``params.epochs`` steps), and the best
    model is kept (``refit=False``) or retrained on all masks for the best number of steps (``refit=True``).
    Without it: ``params.epochs`` steps on all masks. The number of steps thus follows the web, with no per-web
    setting: small webs stop after a few dozen steps, large ones train for hundreds.

    Returns:
        the trained model (eval mode).
    """
    from gatbio.device import resolve_device

    dev = resolve_device("cpu" if device is None else device, small_graphs=True)
    if masks is None:
        masks = training_masks(A, traits, params, mode, seed)
    N = A.shape[0]
    if not params.early_stopping:
        return _train_gat(masks, N, params, trophic_bias, seed, params.epochs, device=dev)[0].eval()
    if len(masks) < 2:
        raise ValueError("early stopping needs at least 2 cross-fitting masks (one is the validation mask)")
    model, losses, best_state = _train_gat(masks[:-1], N, params, trophic_bias, seed, params.epochs, val=masks[-1],
                                           device=dev)
    steps = (int(np.argmin(losses)) + 1) * params.eval_every if losses else params.epochs
    if params.refit:
        model = _train_gat(masks, N, params, trophic_bias, seed, steps, device=dev)[0]
    else:
        model.load_state_dict(best_state)
    model.best_steps = steps  # the early-stopped number of steps
    return model.eval()


def fit_gat_seeds(A: sp.csr_matrix, traits: np.ndarray | None, params: GATParams, seeds: list[int], *,
                  trophic_bias: bool = True, mode: str = "links", masks: dict[int, list[tuple]] | None = None,
                  device: str | torch.device | None = None) -> list:
    """:func:`fit_gat` for several seeds at once: ``[fit_gat(..., seed=s) for s in seeds]``, trained as one
    batched model.

    Why: a food web has 12-250 species, so one seed's training step is a few small kernels and a GPU mostly
    waits for Python and kernel launches; K seeds in one step pay that overhead once. How: the seeds' models
    (each initialised as :func:`fit_gat` does, from its own seed) are stacked with
    :func:`torch.func.stack_module_state` and run with :func:`torch.func.vmap` over one graph, the disjoint union
    of every seed's cross-fitting masks (the layer cannot be vmapped over graphs of different sizes); seed k's
    model gets its own inputs on its block and zeros elsewhere, and only its block's pairs enter its loss, so
    the seeds do not interact. One Adam over the stacked parameters is K independent Adams (it acts element by
    element). Early stopping is per seed: a seed keeps its parameters at its lowest validation loss and stops
    counting after ``params.patience`` evaluations without improvement, as in :func:`fit_gat`; the step stops
    when every seed has. The cost: each seed computes over all K seeds' graphs (K times the arithmetic, in the
    layer's reference path, which vmap supports), which a GPU absorbs on webs this small and a CPU does not.

    Equal to :func:`fit_gat` up to floating-point summation order, and what that means: after one step the
    parameters agree to about 1e-4, but training amplifies such differences (Adam divides by the gradients'
    size, so near-zero gradients turn rounding into full steps): by the end of training logits differ by up to
    0.9 (dev web F2P4_190) or 5 (PlotA_135), as :func:`fit_gat`'s own move when it gets the same masks in reverse
    order (0.06 on F2P4_190) or runs on two threads instead of one. The fold's PR-AUC is what agrees (to 5e-4 on
    four dev webs, ``experiments/bench_batch_seeds.py``).

    Falls back to :func:`fit_gat` one seed after another where the batched run would differ from it: dropout
    (random masks are drawn differently under vmap), ``params.refit`` (each seed refits for its own number of
    steps), or a single seed. ``masks``: ``{seed: training_masks(...)}`` to share; built when missing.

    Returns:
        the trained models (eval mode, on ``device``), in the order of ``seeds``, each with ``best_steps``
        when early stopping is on.
    """
    from torch.func import functional_call, stack_module_state, vmap

    from gatbio.device import resolve_device
    from gatbio.nn import GATConv
    from gatbio.nn.link_models import FoodWebGAT

    dev = resolve_device("cpu" if device is None else device, small_graphs=True)
    masks = dict(masks or {})
    for s in seeds:
        if s not in masks:
            masks[s] = training_masks(A, traits, params, mode, s)
    if len(seeds) < 2 or params.dropout > 0 or params.refit:
        return [fit_gat(A, traits, params, trophic_bias=trophic_bias, mode=mode, seed=s, masks=masks[s], device=dev)
                for s in seeds]
    if params.early_stopping and any(len(masks[s]) < 2 for s in seeds):
        raise ValueError("early stopping needs at least 2 cross-fitting masks (one is the validation mask)")
    N, K = A.shape[0], len(seeds)
    models = []
    for s in seeds:  # initialised exactly as _train_gat does
        torch.manual_seed(s)
        models.append(FoodWebGAT(masks[s][0][0].size(1), params.hidden_channels, params.heads, params.num_layers,
                                 params.dropout, trophic_bias=trophic_bias, attention=params.attention).to(dev))
    stacked, buffers = stack_module_state(models)  # {name: (K, ...)} leaves that require grad
    base = _BlockForward(copy.deepcopy(models[0]).to("meta"), N)  # run with each seed's tensors (functional_call)
    for m in base.modules():
        if isinstance(m, GATConv):
            m.impl = "reference"  # vmap cannot run the fused path's autograd Functions

    def union(per_seed: list[list[tuple]]) -> tuple[torch.Tensor, ...]:
        """The disjoint union of every seed's masks: inputs (K, T, F) zero outside a seed's block, messages
        (2, E), levels (K, T), flat pair indices (K, P_max) into (T/N, N, N) with targets and a 0/1 weight."""
        blocks = [_stack_masks(ms, N) for ms in per_seed]  # x (B_k N, F), ei, lv (B_k, N), idx (P_k,), y (P_k,)
        sizes = [b[2].size(0) for b in blocks]  # B_k
        offsets = np.concatenate([[0], np.cumsum(sizes)])  # in blocks of N nodes
        T, P = int(offsets[-1]) * N, max(b[3].numel() for b in blocks)
        x = torch.zeros(K, T, blocks[0][0].size(1))
        lv = torch.zeros(K, T)
        idx = torch.zeros(K, P, dtype=torch.long)
        y, w = torch.zeros(K, P), torch.zeros(K, P)
        for k, (xb, _, lvb, ib, yb) in enumerate(blocks):
            o = int(offsets[k])
            x[k, o * N:(o + sizes[k]) * N] = xb
            lv[k, o * N:(o + sizes[k]) * N] = lvb.reshape(-1)
            idx[k, :ib.numel()], y[k, :ib.numel()], w[k, :ib.numel()] = ib + o * N * N, yb, 1.0
        ei = torch.cat([b[1] + int(offsets[k]) * N for k, b in enumerate(blocks)], dim=1)  # (2, E)
        return tuple(t.to(dev) for t in (x, ei, lv, idx, y, w))

    def seed_logits(p, b, x, ei, lv, idx):  # one seed's logits of its pairs (P_max,)
        state = {**{f"model.{n}": t for n, t in p.items()}, **{f"model.{n}": t for n, t in b.items()}}
        return functional_call(base, state, (x, ei, lv)).reshape(-1)[idx]

    def seed_loss(p, b, x, ei, lv, idx, y, w):  # one seed: the mean BCE over its real pairs
        bce = F.binary_cross_entropy_with_logits(seed_logits(p, b, x, ei, lv, idx), y, reduction="none")
        return (bce * w).sum() / w.sum()

    train = union([masks[s][:-1] if params.early_stopping else masks[s] for s in seeds])
    val = union([masks[s][-1:] for s in seeds]) if params.early_stopping else None
    opt = torch.optim.Adam(list(stacked.values()), lr=params.lr, weight_decay=params.weight_decay, foreach=True)
    batched_loss = vmap(seed_loss, in_dims=(0, 0, 0, None, 0, 0, 0, 0))
    losses: list[list[float]] = [[] for _ in seeds]
    best: list[dict | None] = [None] * K
    stopped = [False] * K
    for step in range(1, params.epochs + 1):
        base.train()
        opt.zero_grad()
        batched_loss(stacked, buffers, *train).sum().backward()  # the seeds' gradients do not mix
        opt.step()
        if val is not None and step % params.eval_every == 0:
            base.eval()
            with torch.no_grad():
                if params.val_metric == "loss":
                    v = batched_loss(stacked, buffers, *val).tolist()  # (K,)
                else:  # minus the average precision of each seed's real pairs
                    logits = vmap(seed_logits, in_dims=(0, 0, 0, None, 0, 0))(stacked, buffers, *val[:4]).cpu()
                    y_v, w_v = val[4].cpu(), val[5].cpu() > 0
                    v = [-pr_auc(y_v[k][w_v[k]].numpy(), logits[k][w_v[k]].numpy()) for k in range(K)]
            for k in range(K):
                if stopped[k]:
                    continue
                losses[k].append(v[k])
                if int(np.argmin(losses[k])) == len(losses[k]) - 1:
                    best[k] = {n: t[k].detach().clone() for n, t in stacked.items()}
                elif len(losses[k]) - 1 - int(np.argmin(losses[k])) >= params.patience:
                    stopped[k] = True
            if all(stopped):
                break
    out = []
    for k, model in enumerate(models):
        state = best[k] if val is not None and best[k] is not None else \
            {n: t[k].detach().clone() for n, t in stacked.items()}
        model.load_state_dict({**state, **{n: t[k] for n, t in buffers.items()}})
        if val is not None:
            model.best_steps = (int(np.argmin(losses[k])) + 1) * params.eval_every if losses[k] else params.epochs
        out.append(model.eval())
    return out


class _BlockForward(torch.nn.Module):
    """A :class:`~gatbio.nn.FoodWebGAT` on a union of graphs of ``N`` nodes each: encode all T nodes, decode
    block by block into (T/N, N, N) logits (never the (T, T) matrix across blocks)."""

    def __init__(self, model: torch.nn.Module, N: int) -> None:
        super().__init__()
        self.model, self.N = model, N

    def forward(self, x: torch.Tensor, edge_index: torch.Tensor, levels: torch.Tensor) -> torch.Tensor:
        z = self.model.encode(x, edge_index, levels)  # (T, W)
        return self.model.decode(z.view(-1, self.N, z.size(-1)), levels.view(-1, self.N))  # (T/N, N, N)


def _stack_masks(masks: list[tuple], N: int) -> tuple[torch.Tensor, ...]:
    """The graphs of several masks side by side (block-diagonal): inputs (B*N, F), messages, levels (B, N),
    flat target indices into (B, N, N) and targets."""
    x = torch.cat([m[0] for m in masks])  # (B*N, F)
    ei = torch.cat([m[1] + b * N for b, m in enumerate(masks)], dim=1)  # (2, sum E_msg)
    lv = torch.stack([m[2] for m in masks])  # (B, N)
    idx = torch.cat([b * N * N + m[3] * N + m[4] for b, m in enumerate(masks)])  # (P,) into (B, N, N)
    y = torch.cat([m[5] for m in masks])  # (P,)
    return x, ei, lv, idx, y


def _batch_logits(model, batch: tuple[torch.Tensor, ...], N: int) -> torch.Tensor:
    x, ei, lv, idx, _ = batch
    z = model.encode(x, ei, lv.reshape(-1)).view(lv.size(0), N, -1)  # (B, N, W)
    return model.decode(z, lv).reshape(-1)[idx]  # (P,)


def _train_gat(masks: list[tuple], N: int, params: GATParams, trophic_bias: bool, seed: int, steps: int,
               val: tuple | None = None, device: torch.device | None = None) -> tuple[Any, list[float], dict | None]:
    """``steps`` full-batch Adam steps on ``masks``. With ``val`` (a mask): the validation losses every
    ``params.eval_every`` steps, stopping after ``params.patience`` evaluations without improvement, and the
    parameters at the lowest one. Returns ``(model, validation losses, best parameters or None)``; the model
    and the parameters live on ``device`` (default: the CPU)."""
    from gatbio.nn.link_models import FoodWebGAT

    dev = torch.device("cpu") if device is None else device
    torch.manual_seed(seed)
    model = FoodWebGAT(masks[0][0].size(1), params.hidden_channels, params.heads, params.num_layers,
                       params.dropout, trophic_bias=trophic_bias, attention=params.attention).to(dev)
    # All masks in one step: their graphs side by side, so each step sees every observed link as a target
    # once and the per-step overhead (which dominates on webs this small) is paid once.
    batch = tuple(t.to(dev) for t in _stack_masks(masks, N))
    val_batch = tuple(t.to(dev) for t in _stack_masks([val], N)) if val is not None else None
    opt = torch.optim.Adam(model.parameters(), lr=params.lr, weight_decay=params.weight_decay, foreach=True)
    losses: list[float] = []
    best_state = None
    for step in range(1, steps + 1):
        model.train()
        opt.zero_grad()
        loss = F.binary_cross_entropy_with_logits(_batch_logits(model, batch, N), batch[4])
        loss.backward()
        opt.step()
        if val_batch is not None and step % params.eval_every == 0:
            model.eval()
            with torch.no_grad():
                v = _batch_logits(model, val_batch, N)
                losses.append(float(F.binary_cross_entropy_with_logits(v, val_batch[4])) if params.val_metric == "loss"
                              else -pr_auc(val_batch[4].cpu().numpy(), v.cpu().numpy()))
            if int(np.argmin(losses)) == len(losses) - 1:
                best_state = {k: t.detach().clone() for k, t in model.state_dict().items()}
            elif len(losses) - 1 - int(np.argmin(losses)) >= params.patience:
                break
    if val_batch is not None and best_state is None:  # fewer steps than one evaluation period
        best_state = {k: t.detach().clone() for k, t in model.state_dict().items()}
    return model, losses, best_state


def gat_scores(model, A: sp.csr_matrix, traits: np.ndarray | None, params: GATParams) -> np.ndarray:
    """(N, N) logits of a trained model with inputs and messages from the whole observed network ``A``
    (computed where the model lives, returned as a NumPy array)."""
    from gatbio.device import module_device

    dev = module_device(model)
    lv = observed_levels(A)
    with torch.no_grad():
        s = model(node_inputs(A, lv, traits, params.adjacency_inputs).to(dev),
                  torch.from_numpy(np.stack(A.nonzero())).long().to(dev), torch.tensor(lv, dtype=torch.float).to(dev))
    return s.cpu().numpy().astype(np.float64)


# ----------------------------------------------------------------------------------------------------------
# folds and scores
# ----------------------------------------------------------------------------------------------------------


def link_folds(data: Data, n_folds: int = 5) -> list[dict[str, Any]]:
    """The GATEWAy folds as ``{"fold", "observed" (2, E_obs), "test" (N, N) bool mask, "split"}``.

    ``test`` marks the evaluated pairs: the held-out links and every non-link of the full web. ``split``
    (saved with the results) is the held-out block of file lines.
    """
    from gatbio.data.splits import gateway_folds

    n = data.num_nodes
    full = adjacency_of(data.edge_index, n).toarray() > 0
    out = []
    for f in gateway_folds(data, n_folds):
        A_obs = adjacency_of(f.train_edge_index, n).toarray() > 0
        test = ~A_obs
        np.fill_diagonal(test, False)
        E = data.edge_index.size(1)
        bounds = np.array_split(np.arange(E), n_folds)[f.fold]
        out.append({"fold": f.fold, "observed": f.train_edge_index, "test": test, "truth": full,
                    "split": {"test_lines": [int(bounds[0]), int(bounds[-1]) + 1]}})
    return out


def species_folds(data: Data, n_folds: int = 5, seed: int = 0) -> list[dict[str, Any]]:
    """New-species folds: species in ``n_folds`` seeded groups; a group's links are all held out; ``test``
    marks every ordered pair (i ≠ j) touching a held-out species."""
    n = data.num_nodes
    if n < n_folds:
        raise ValueError(f"{getattr(data, 'name', 'web')}: {n} species cannot be cut into {n_folds} folds")
    full = adjacency_of(data.edge_index, n).toarray() > 0
    perm = np.random.default_rng(seed).permutation(n)
    ei = data.edge_index.cpu().numpy()
    out = []
    for f, held in enumerate(np.array_split(perm, n_folds)):
        out_mask = np.zeros(n, dtype=bool)
        out_mask[held] = True
        keep = ~(out_mask[ei[0]] | out_mask[ei[1]])
        test = out_mask[:, None] | out_mask[None, :]
        np.fill_diagonal(test, False)
        out.append({"fold": f, "observed": data.edge_index[:, torch.from_numpy(keep)], "test": test, "truth": full,
                    "split": {"held_out_species": sorted(int(i) for i in held)}})
    return out


def ensemble_seed_list(seeds: list[int], num_nodes: int, cfg: FoodWebConfig) -> list[int]:
    """The seeds of ``gat`` (those ``full`` averages) on a web of ``num_nodes`` species: ``seeds`` followed by the
    next integers up to ``cfg.ensemble_seeds`` seeds, or ``seeds`` alone on a web of more than
    ``cfg.ensemble_max_species`` species (when that is set).

    Why: a single GAT's PR-AUC varies by several points between seeds (random initialisation and the seed's
    cross-fitting splits; on the 57 dev webs the per-web standard deviation of ``gat − no_trophic_bias`` over
    3 seeds has a median of 0.029), and averaging seeds removes much of that variance
    (``experiments/README.md``, "Seed ensemble").
    """
    seeds = list(seeds)
    too_large = cfg.ensemble_max_species is not None and num_nodes > cfg.ensemble_max_species
    if too_large or len(seeds) >= cfg.ensemble_seeds:
        return seeds
    extra = [max(seeds, default=-1) + 1 + k for k in range(cfg.ensemble_seeds - len(seeds))]
    return seeds + extra


def check_pool_weights(weights: list[float], key: str = "pool weights") -> None:
    """``weights`` must be ``[GAT, boosted stack, linear stack]``: 3 non-negative numbers."""
    if len(weights) != 3 or min(weights) < 0:
        raise ValueError(f"{key} must be 3 non-negative numbers [GAT, boosted stack, linear stack], got {list(weights)}")


def pool(gat_logits: np.ndarray | None, stacks: dict[str, np.ndarray], weights: list[float]) -> np.ndarray:
    """``full``'s logarithmic opinion pool (:func:`gatbio.linkpred.log_odds_pool`) of the GAT's logits and the
    log-odds of the stacks' probabilities (``stacks``: ``{"hgb": ..., "logistic": ...}``), with ``weights``
    ``[GAT, boosted stack, linear stack]``; ``gat_logits=None``: the stacks alone (``full_without_gat``).

    Why log-odds and not ranks: a rank average ties a pair one member is sure of with a pair both find
    likely; the pool keeps each member's confidence. On the dev webs it beat the rank average on most webs
    (``experiments/README.md``, "Pooling the members").
    """
    check_pool_weights(weights)
    logits, kept = [], []
    for member, w, is_probability in ((gat_logits, weights[0], False), (stacks.get("hgb"), weights[1], True),
                                      (stacks.get("logistic"), weights[2], True)):
        if w > 0 and member is not None:  # a member with weight 0 is left out (and need not be computed)
            logits.append(lp.log_odds(member) if is_probability else member)
            kept.append(w)
    if not logits:
        raise ValueError(f"pool weights {weights} leave no member to pool")
    return lp.log_odds_pool(logits, kept)


def fold_scores(A: sp.csr_matrix, traits: np.ndarray | None, cfg: FoodWebConfig, mode: str, seeds: list[int],
                info: dict[str, float] | None = None, gat_seeds: list[int] | None = None, progress=None,
                structure_seeds: list[int] | None = None) -> dict[str, list[np.ndarray]]:
    """Every requested model's (N, N) scores on one observed network: ``{model: [scores per seed]}``.

    ``gat`` is trained with ``gat_seeds`` (default ``seeds``; the benchmark passes :func:`ensemble_seed_list`),
    ``no_trophic_bias`` with ``seeds``, ``gat_structure`` with ``structure_seeds`` (default: the first seed, as
    the benchmark; :func:`predict_missing_links` passes all); ``full`` pools the mean logits of every ``gat`` seed
    with both stacks, ``structure_only`` those of every ``gat_structure`` seed (:func:`pool`).

    The GATs train and score on ``cfg.device``; every returned score is a NumPy array.

    ``full`` and ``structure_only`` use ``cfg.pool_weights`` (``cfg.species_pool_weights`` in the species
    protocol); the early-stopped steps of each GAT's first seed (``<model>_steps``) go into ``info`` when it is
    given. ``progress``: an optional ``tqdm`` bar, reset to the number of stacks and GATs to fit and advanced
    after each."""
    want = set(cfg.models)
    need = set(want)
    if want & {"full", "full_without_gat"}:
        need |= {"boosted_stack", "linear_stack"}
    if "full" in want:
        need |= {"gat"}
    if "structure_only" in want:
        need |= {"gat_structure", "boosted_stack_structure"}
    from gatbio.device import resolve_device

    dev = resolve_device(cfg.device, small_graphs=True)
    gat_seeds = list(seeds) if gat_seeds is None else list(gat_seeds)
    gat_runs = (("gat", traits, True, gat_seeds), ("no_trophic_bias", traits, False, seeds),
                ("gat_structure", None, True, list(seeds[:1] if structure_seeds is None else structure_seeds)))
    learners = tuple(k for k, name in STACK_MODELS if name in need)
    if progress is not None:
        progress.reset(total=bool(learners) + ("boosted_stack_structure" in need)
                       + sum(len(sds) for name, _, _, sds in gat_runs if name in need))
    out: dict[str, list[np.ndarray]] = {}
    struct = lp.structure_scores(A) if need & {"l3_ra", "jaccard", "preferential_attachment"} else {}
    for name in ("l3_ra", "jaccard", "preferential_attachment"):
        if name in need:
            out[name] = [struct[name]]
    if "niche" in need:
        out["niche"] = [lp.probabilistic_niche(A, cfg.niche_steps, init=observed_levels(A))]
    stacks: dict[str, np.ndarray] = {}
    if learners:  # one feature table for both learners
        stacks = lp.stack_scores(A, observed_levels, traits, mode, cfg.stack, cfg.split_seed, learners)
        out.update({name: [stacks[k]] for k, name in STACK_MODELS if k in stacks})
        _advance(progress, "stacks")
    stacks_structure: dict[str, np.ndarray] = {}
    if "boosted_stack_structure" in need:
        struct_learners = ("hgb", "logistic") if "structure_only" in want else ("hgb",)
        stacks_structure = lp.stack_scores(A, observed_levels, None, mode, cfg.stack, cfg.split_seed, struct_learners)
        out["boosted_stack_structure"] = [stacks_structure["hgb"]]
        _advance(progress, "structure stacks")
    masks: dict[tuple, list] = {}  # shared by the models of one seed (same cross-fitting splits)
    info = {} if info is None else info
    for name, tr, bias, sds in gat_runs:
        if name not in need:
            continue
        out[name] = []
        for s in sds:
            key = (tr is None, s)
            if key not in masks:
                masks[key] = training_masks(A, tr, cfg.gat, mode, s)
        if cfg.gat.batch_seeds:  # every seed in one batched model (fit_gat_seeds): the same models
            models = fit_gat_seeds(A, tr, cfg.gat, list(sds), trophic_bias=bias, mode=mode,
                                   masks={s: masks[(tr is None, s)] for s in sds}, device=dev)
        else:
            models = (fit_gat(A, tr, cfg.gat, trophic_bias=bias, mode=mode, seed=s, masks=masks[(tr is None, s)],
                              device=dev) for s in sds)
        for s, model in zip(sds, models, strict=True):
            out[name].append(gat_scores(model, A, tr, cfg.gat))
            if s == sds[0] and hasattr(model, "best_steps"):
                info[f"{name}_steps"] = model.best_steps
            _advance(progress, f"{name} seed {s}")

    w = cfg.species_pool_weights if mode == "species" else cfg.pool_weights
    if "full" in want:
        out["full"] = [pool(np.mean(out["gat"], axis=0), stacks, w)]
    if "full_without_gat" in want:  # full's pool without its GAT: what the GAT adds
        out["full_without_gat"] = [pool(None, stacks, w)]
    if "structure_only" in want:
        out["structure_only"] = [pool(np.mean(out["gat_structure"], axis=0), stacks_structure, cfg.pool_weights)]
    return {k: v for k, v in out.items() if k in want}


def _win_rate(per_web: pd.DataFrame) -> float:
    """The share of webs whose PR-AUC beats the published ``full`` model's, over the webs that have a published
    figure (a user's own web has none: not a loss); NaN when none has."""
    has = per_web["published_full_pr_auc"].notna()
    if not has.any():
        return float("nan")
    return float((per_web["pr_auc"][has] > per_web["published_full_pr_auc"][has]).mean())


def _advance(progress, done: str) -> None:
    if progress is not None:
        progress.set_postfix_str(done, refresh=False)
        progress.update()


def run_web(folder: str | Path, out_dir: str | Path, cfg: FoodWebConfig, protocol: str = "links",
            say: bool | None = None, stage: UnitStage | None = None) -> str:
    """Run one protocol (every fold, model and seed) on one web folder; write
    ``OUT/webs/<web>.<protocol>.json`` atomically (rows per fold, model and seed, plus the splits).

    A (web, protocol) whose result file exists is skipped (resume). Returns the result path. ``say``: whether the
    web folder's notes (its cannibal links, missing traits, ...) are said; the benchmark reads a web once per
    protocol and says them once, for the first of its units it runs (``None``: for the config's first protocol).
    ``stage``: told which fold runs, for the unit's heartbeat (:func:`gatbio.parallel.parallel_map`'s
    ``heartbeat``).
    """
    with unit_threads(cfg.threads):
        return _run_web(folder, out_dir, cfg, protocol, say, UnitStage(on=False) if stage is None else stage)


def _web_name(source: str | Path) -> str:
    """The name a web's result files carry: a folder's name, or a named web with '/' as '__' (``cheddar__TL84``)."""
    return Path(source).name if Path(source).is_dir() else str(source).replace("/", "__")


def _result_path(out_dir: str | Path, source: str | Path, protocol: str) -> Path:
    """``OUT/webs/<web>.<protocol>.json``: the result file of one (web, protocol) unit."""
    return Path(out_dir) / "webs" / f"{_web_name(source)}.{protocol}.json"


def _web_digest(source: str | Path) -> str | None:
    """sha256 of the files a web folder is read from (its edge list and node table: names and contents, in name
    order; a note or a picture beside them does not count); None for a named web (its files are checked against
    the registry's sha256 when loaded)."""
    import hashlib

    folder = Path(source)
    if not folder.is_dir():
        return None
    h = hashlib.sha256()
    for f in sorted(p for pattern in ("*_edge_list.txt", "*_node_attr_list.txt") for p in folder.glob(pattern)):
        h.update(f.name.encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()


def _same_web(path: Path, source: str | Path) -> bool:
    """True when the finished result ``path`` was made from the web folder ``source`` as it is now (or records no
    digest: made before they were recorded); else a ValueError: the web's files changed since, and reusing the
    result would credit it to a web it was not computed on (``webs`` may point elsewhere on a resume)."""
    from gatbio.results import read_json

    stored = read_json(path).get("web_sha256")
    if stored is None or stored == _web_digest(source):
        return True
    raise ValueError(f"{path}: made from another version of the web {source} (its files changed since: sha256 "
                     f"{stored[:12]}... then, {str(_web_digest(source))[:12]}... now); --restart makes the folder's "
                     "results again, or give another --out")


def _run_web(folder: str | Path, out_dir: str | Path, cfg: FoodWebConfig, protocol: str, say: bool | None,
             stage: UnitStage) -> str:
    from gatbio.device import resolve_device
    from gatbio.results import is_done, settings_fingerprint, software, write_json

    out_dir = Path(out_dir)
    is_named = isinstance(folder, str) and not Path(folder).is_dir()
    web = _web_name(folder)
    path = _result_path(out_dir, folder, protocol)
    if is_done(path, RECORD_KEYS) and _same_web(path, folder):
        return str(path)
    t0 = time.time()
    if is_named:
        from gatbio.data import load

        data = load(folder)
        keep = data.edge_index[0] != data.edge_index[1]  # cannibalism is not predicted
        perm = torch.from_numpy(np.random.default_rng(cfg.split_seed).permutation(int(keep.sum())))
        data = Data(edge_index=data.edge_index[:, keep][:, perm], num_nodes=data.num_nodes,
                    node_names=data.node_names, name=folder)
    else:  # read once per protocol: its cannibal links said once, by the first of the web's units that runs
        data = read_web_folder(folder, say=protocol not in cfg.protocols[1:] if say is None else say)
    if not cfg.use_traits:
        data.x = None
    if data.num_edges < cfg.n_folds:
        raise ValueError(f"{folder}: {data.num_edges} links cannot be cut into {cfg.n_folds} folds: leave the web "
                         f"out (only=[...] naming the others, or move its folder) or give n_folds <= {data.num_edges}")
    traits, trait_names = prepare_traits(getattr(data, "x", None), getattr(data, "trait_names", None))
    n, L = data.num_nodes, data.num_edges
    if traits is None:  # models that need traits fall back to their structure-only twins
        cfg = dataclasses.replace(cfg, models=[m for m in cfg.models if m not in TRAIT_MODELS]
                                  + ["gat_structure"] * ("gat_structure" not in cfg.models and "gat" in cfg.models))
    if protocol == "links":
        folds, seeds, models = link_folds(data, cfg.n_folds), list(cfg.seeds), list(cfg.models)
        gat_seeds = ensemble_seed_list(seeds, n, cfg)
        if is_named:  # test_lines count the shuffled links, not the file's: the held-out links by name too
            names = [str(v) for v in data.node_names]
            for f in folds:
                lo, hi = f["split"]["test_lines"]
                f["split"]["test_links"] = [[names[a], names[b]] for a, b in data.edge_index[:, lo:hi].t().tolist()]
    elif protocol == "species":
        folds, seeds = species_folds(data, cfg.n_folds, cfg.split_seed), list(cfg.species_seeds)
        models = [m for m in cfg.species_models if m in cfg.models]
        gat_seeds = seeds
    else:
        raise ValueError(f"unknown protocol {protocol!r}: use 'links' and/or 'species'")
    seeds_of = {"gat": gat_seeds, "no_trophic_bias": seeds, "gat_structure": seeds[:1]}  # the rows' seed column
    rows, fold_seconds, fold_info = [], [], []
    for k_fold, f in enumerate(folds, 1):
        stage(f"fold {k_fold} of {len(folds)}")
        A = adjacency_of(f["observed"], n)
        t1 = time.time()
        info: dict[str, float] = {}
        scores = fold_scores(A, traits, dataclasses.replace(cfg, models=models), protocol, seeds, info, gat_seeds)
        fold_info.append(info)
        y = f["truth"][f["test"]]
        for model, per_seed in scores.items():
            for k, s in enumerate(per_seed):
                seed = seeds_of[model][k] if model in seeds_of else -1
                rows.append({"web": web, "protocol": protocol, "fold": f["fold"], "model": model,
                             "seed": seed, "roc_auc": roc_auc(y, s[f["test"]]), "pr_auc": pr_auc(y, s[f["test"]]),
                             "n_pos": int(y.sum()), "n_neg": int((~y).sum())})
        fold_seconds.append(time.time() - t1)
    write_json(path, {"web": web, "protocol": protocol, "web_sha256": _web_digest(folder), "num_nodes": n,
                      "num_links": L,
                      "connectance": L / (n * (n - 1)), "traits": trait_names,
                      "device": str(resolve_device(cfg.device, small_graphs=True)),
                      "threads": cfg.threads, "software": software(), "seconds": time.time() - t0,
                      "settings_fingerprint": settings_fingerprint(out_dir),  # the settings it was made with
                      "fold_seconds": fold_seconds, "ensemble_weights": fold_info,
                      "splits": [f["split"] for f in folds], "rows": rows,
                      **({"link_order": f"cannibal links dropped, the others shuffled by split_seed {cfg.split_seed} "
                                        "(test_lines count them in that order; test_links: prey, predator)"}
                         if is_named else {}),
                      # a folder's cannibal links are left out before the folds: test_lines count the other links
                      **({"link_order": "the file's links in order, without its cannibal links (self_loops_dropped: "
                                        "their 0-based positions among the file's links); test_lines count the "
                                        "other links",
                          "self_loops_dropped": data.self_loops_dropped}
                         if not is_named and getattr(data, "self_loops_dropped", None) else {})})
    return str(path)


# ----------------------------------------------------------------------------------------------------------
# the benchmark
# ----------------------------------------------------------------------------------------------------------


def _published(cfg: FoodWebConfig, webs_dir: Path | None, webs: list[str] | None = None) -> pd.DataFrame | None:
    """The published per-web figures (``cfg.published``, else ``<webs_dir>/../web_index.csv``) indexed by web
    folder name; ``None`` when there are none. With ``webs`` (the webs of the links protocol), a note on stderr
    says when the file is missing or holds none of them: the summary tables then have no ``published_*`` rows and
    no ``win_rate_vs_published`` (say so, rather than silently leave them out)."""
    from gatbio.data.tables import note

    if not cfg.published and webs_dir is None:
        return None
    path = Path(cfg.published) if cfg.published else webs_dir.parent / "web_index.csv"
    lost = "the summary tables have no published_* rows and no win_rate_vs_published"
    if not path.is_file():
        if webs:
            how = ("check the config's published" if cfg.published else
                   "give the GATEWAy webs folder, whose parent holds web_index.csv, with --webs")
            note(f"published reference figures not found: no file {path}; {lost} ({how})")
        return None
    idx = pd.read_csv(path)
    if "data_dir" not in idx.columns:
        raise ValueError(f"{path}: expected a 'data_dir' column naming the web folders")
    idx = idx.set_index("data_dir")
    if webs and not idx.index.isin(webs).any():
        note(f"none of the {len(webs)} webs of the results is in {path}: {lost}")
    return idx


#: The keys of a per-web result file (:func:`run_web`) and of each of its rows that :func:`summarize_results` reads.
#: Its ``rows`` may be empty and the web still done: every model of the config left out on it (trait models on a
#: web without traits).
RECORD_KEYS = ("web", "protocol", "num_nodes", "num_links", "connectance", "rows")
ROW_KEYS = ("web", "protocol", "fold", "model", "seed", "roc_auc", "pr_auc")


def read_web_result(path: str | Path) -> dict[str, Any]:
    """One per-web result file of :func:`run_web`, checked: a file that is not valid JSON, or lacks a key the
    summary reads, is one ``ValueError`` naming the file (and line, or the missing key) and how to redo it."""
    import json

    from gatbio.results import read_json

    redo = "delete it and rerun gatbio foodweb benchmark on this folder to redo that web"
    try:
        rec = read_json(path)
    except json.JSONDecodeError as err:
        raise ValueError(f"{err} ({redo})") from None
    what = "not a per-web result of gatbio foodweb benchmark"
    if not isinstance(rec, dict):
        raise ValueError(f"{path}: {what}: expected a JSON object with keys {', '.join(RECORD_KEYS)}, found a "
                         f"{type(rec).__name__} ({redo})")
    missing = [k for k in RECORD_KEYS if k not in rec]
    if missing:
        raise ValueError(f"{path}: {what}: no key{'s' * (len(missing) > 1)} {', '.join(map(repr, missing))} ({redo})")
    if not isinstance(rec["rows"], list):
        raise ValueError(f"{path}: {what}: 'rows' is a {type(rec['rows']).__name__}, not a list ({redo})")
    for k, row in enumerate(rec["rows"]):
        lacks = [c for c in ROW_KEYS if c not in row] if isinstance(row, dict) else list(ROW_KEYS)
        if lacks:
            raise ValueError(f"{path}: {what}: row {k} of 'rows' has no key{'s' * (len(lacks) > 1)} "
                             f"{', '.join(map(repr, lacks))} ({redo})")
    return rec


def _web_folders(cfg: FoodWebConfig, webs_dir: Path) -> list[Path]:
    """The web folders a config runs (none for named webs, ``cfg.named``): those of ``webs_dir`` (``cfg.webs``) or
    of the GATEWAy collection, kept to ``cfg.only`` (a name there that is no folder: a ValueError)."""
    folders = [] if cfg.named else find_web_folders(webs_dir) if cfg.webs else _gateway_web_folders()
    if cfg.only and not cfg.named:
        names = {p.name for p in folders}
        unknown = [w for w in cfg.only if w not in names]
        if unknown:
            raise ValueError(f"only={unknown}: no such web folder in {webs_dir}")
        folders = [p for p in folders if p.name in set(cfg.only)]
    return folders


def unfinished_note(out_dir: str | Path, cfg: FoodWebConfig, webs_dir: Path) -> str | None:
    """For ``foodweb summarize`` of a folder whose benchmark was interrupted: ``None`` when every (web, protocol)
    unit of its config has a result, else a note (:func:`gatbio.results.missing_runs_note`) saying how many have
    none and that rerunning the benchmark finishes them (the tables leave them out)."""
    from gatbio.results import current_config_file, missing_runs_note

    sources = [str(p) for p in _web_folders(cfg, webs_dir)] + [_named_source(n) for n in cfg.named]
    files = [_result_path(Path(out_dir), src, protocol) for protocol in cfg.protocols for src in sources]
    return missing_runs_note(files, out_dir, RECORD_KEYS,
                             finish="rerun the benchmark with the folder's config (gatbio foodweb benchmark --config "
                                    f"{current_config_file(out_dir)}) to finish them")


def summarize_results(out_dir: str | Path, webs_dir: str | Path | None = None, cfg: FoodWebConfig | None = None
                      ) -> dict[str, pd.DataFrame]:
    """Read ``OUT/webs/*.json`` and write the per-web and summary tables (see the module docstring); a folder
    resumed with ``--resume-anyway`` after its settings changed is said to mix configurations (a note)."""
    from gatbio.results import mixed_configs_note, write_csv

    cfg = cfg or FoodWebConfig()
    out_dir = Path(out_dir)
    files = sorted((out_dir / "webs").glob("*.json"))
    if not files:
        raise FileNotFoundError(f"{out_dir}/webs: no per-web results to summarise")
    recs = [read_web_result(p) for p in files]
    mixed_configs_note(out_dir, recs)
    fold = pd.DataFrame([r for rec in recs for r in rec["rows"]])
    if fold.empty:  # every model of the config was left out on every web (e.g. trait models on webs without traits)
        raise ValueError(f"{out_dir}/webs: the per-web results hold no model scores: every model of the config was "
                         "left out on these webs (models that need traits, on webs without them); add a "
                         "structure-only model (structure_only, l3_ra, ...)")
    meta = pd.DataFrame([{k: rec[k] for k in ("web", "num_nodes", "num_links", "connectance")}
                         for rec in recs]).drop_duplicates("web").set_index("web")
    link_webs = sorted({rec["web"] for rec in recs if rec["protocol"] == "links" and rec["rows"]})
    pub = _published(cfg, Path(webs_dir) if webs_dir is not None else None, link_webs)
    tables: dict[str, pd.DataFrame] = {"per_fold": fold}
    # a web's figure: mean over folds (and seeds)
    per_web = (fold.groupby(["protocol", "web", "model"], sort=False)[["roc_auc", "pr_auc"]].mean().reset_index())
    per_web = per_web.join(meta[["num_nodes", "num_links", "connectance"]], on="web")
    if pub is not None:
        for k in ("full_pr_auc", "full_roc_auc", "struc_pr_auc"):
            per_web[f"published_{k}"] = per_web["web"].map(pub[k]) if k in pub.columns else np.nan
    order = {m: i for i, m in enumerate(OUR_MODELS + BASELINES)}

    def summary(df: pd.DataFrame, with_published: bool = True) -> pd.DataFrame:
        g = df.groupby("model")
        s = pd.DataFrame({"n_webs": g["web"].nunique(), "median_roc_auc": g["roc_auc"].median(),
                          "mean_roc_auc": g["roc_auc"].mean(), "median_pr_auc": g["pr_auc"].median(),
                          "mean_pr_auc": g["pr_auc"].mean()})
        if with_published and "published_full_pr_auc" in df.columns:
            s["win_rate_vs_published"] = g.apply(_win_rate,
                                                 include_groups=False)
        s = s.reset_index()
        s = s.iloc[np.argsort([order.get(m, 99) for m in s["model"]], kind="stable")]
        if with_published and pub is not None:  # the published models as reference rows (same webs)
            webs = df["web"].unique()
            p = pub.loc[pub.index.intersection(webs)]
            for name, pre in (("published_full", "full"), ("published_structure", "struc"),
                              ("published_traits", "attr")):
                if f"{pre}_pr_auc" in p.columns and len(p):
                    s.loc[len(s)] = {"model": name, "n_webs": len(p), "median_roc_auc": p[f"{pre}_roc_auc"].median(),
                                     "mean_roc_auc": p[f"{pre}_roc_auc"].mean(),
                                     "median_pr_auc": p[f"{pre}_pr_auc"].median(),
                                     "mean_pr_auc": p[f"{pre}_pr_auc"].mean()}
        return s.round(4)

    for protocol, suffix in (("links", ""), ("species", "_species")):
        d = per_web[per_web["protocol"] == protocol].drop(columns="protocol")
        if len(d) == 0:
            continue
        tables[f"per_web{suffix}"] = d
        tables[f"summary{suffix}"] = summary(d, with_published=protocol == "links")
        if protocol == "links":
            sparse = d[d["connectance"] <= cfg.large_sparse_connectance]
            if len(sparse):
                tables["summary_large_sparse"] = summary(sparse)
    # trophic-bias ablation: paired over webs, per seed (mean over folds), for each protocol
    ab = []
    for protocol, w in _bias_pairs(fold):
        diff_seed = (w["gat"] - w["no_trophic_bias"]).groupby("seed")
        per_web_diff = (w["gat"] - w["no_trophic_bias"]).groupby("web").mean()
        med_gap = w.groupby("seed").apply(lambda x: x["gat"].median() - x["no_trophic_bias"].median())
        ab.append({"protocol": protocol, "n_webs": per_web_diff.size, "n_seeds": diff_seed.ngroups,
                   "median_pr_auc_gat": w.groupby("web")["gat"].mean().median(),
                   "median_pr_auc_no_bias": w.groupby("web")["no_trophic_bias"].mean().median(),
                   "median_gap_mean_over_seeds": med_gap.mean(), "median_gap_std_over_seeds": med_gap.std(ddof=1),
                   "paired_diff_median": per_web_diff.median(), "paired_diff_mean": per_web_diff.mean(),
                   "paired_diff_q25": per_web_diff.quantile(0.25), "paired_diff_q75": per_web_diff.quantile(0.75),
                   "webs_improved": float((per_web_diff > 0).mean())})
    if ab:
        tables["ablation"] = pd.DataFrame(ab).round(4)
        tables["ablation_groups"] = ablation_groups(fold, meta, cfg)
    for name, df in tables.items():
        write_csv(out_dir / f"{name}.csv", df)
    return tables


def _bias_pairs(fold: pd.DataFrame):
    """Per protocol, ``(protocol, w)`` with ``w`` the PR-AUC (mean over folds) of ``gat`` and ``no_trophic_bias``
    indexed by (web, seed), on the seeds both models have (``gat``'s extra ensemble seeds have no twin)."""
    for protocol, d in fold[fold["model"].isin(["gat", "no_trophic_bias"])].groupby("protocol"):
        w = d.groupby(["web", "seed", "model"])["pr_auc"].mean().unstack("model")
        if {"gat", "no_trophic_bias"} <= set(w.columns) and not w.dropna().empty:
            yield protocol, w.dropna()


def ablation_groups(fold: pd.DataFrame, meta: pd.DataFrame, cfg: FoodWebConfig) -> pd.DataFrame:
    """Where the trophic bias helps: the paired per-web difference ``gat − no_trophic_bias`` (PR-AUC, mean
    over folds and the seeds both models share) by web size, connectance and baseline PR-AUC (``no_trophic_bias``),
    per protocol, with the median seed-to-seed spread of the per-web difference for scale."""
    out = []
    for protocol, w in _bias_pairs(fold):
        per_seed = (w["gat"] - w["no_trophic_bias"]).groupby("web")
        diff = pd.DataFrame({"diff": per_seed.mean(), "seed_std": per_seed.std(ddof=1),
                             "base": w["no_trophic_bias"].groupby("web").mean()})
        diff = diff.join(meta[["num_nodes", "connectance"]])
        groups = {"species": (diff["num_nodes"], [0, 30, 60, 100, np.inf]),
                  "connectance": (diff["connectance"], [0, cfg.large_sparse_connectance, 0.1, 0.2, 1.0]),
                  "pr_auc_without_bias": (diff["base"], [0, 0.6, 0.8, 0.9, 1.0])}
        for by, (col, bins) in groups.items():
            for interval, g in diff.groupby(pd.cut(col, bins), observed=True):
                out.append({"protocol": protocol, "by": by, "group": str(interval), "n_webs": len(g),
                            "paired_diff_median": g["diff"].median(), "paired_diff_mean": g["diff"].mean(),
                            "webs_improved": float((g["diff"] > 0).mean()),
                            "seed_std_median": g["seed_std"].median()})
    return pd.DataFrame(out).round(4)


#: Settings that make no sense, rejected before any work (:func:`gatbio.config.check_settings`).
SETTING_RULES = {
    "protocols": "nonempty; unique", "models": "nonempty; unique", "n_folds": "[2, inf)", "seeds": "nonempty; unique; >=0",
    "species_seeds": "nonempty; unique; >=0",
    "ensemble_seeds": ">0", "ensemble_max_species": ">0", "split_seed": ">=0", "jobs": ">0", "threads": ">0",
    "niche_steps": ">0", "large_sparse_connectance": "(0, 1]",
    "gat.hidden_channels": ">0", "gat.heads": ">0", "gat.num_layers": ">0", "gat.dropout": "[0, 1)",
    "gat.epochs": ">0", "gat.eval_every": ">0", "gat.patience": ">0", "gat.lr": ">0", "gat.weight_decay": ">=0",
    "gat.rounds": ">0", "stack.n_splits": "[2, inf)", "stack.max_negatives": ">0", "stack.max_iter": ">0",
    "stack.learning_rate": ">0", "stack.max_leaf_nodes": "[2, inf)", "stack.min_samples_leaf": ">0",
    "stack.l2_regularization": ">=0", "stack.low_rank": ">0",
    "only": "unique",
    "named": "unique",
    "species_models": "unique",
}

#: Config keys that never change a finished (web, protocol) result: where and how fast the benchmark runs,
#: which webs and protocols it does (each has its own file), and settings only the summary tables use. A resumed
#: benchmark may change these; any other difference is refused (:func:`gatbio.results.prepare_out_dir`).
RESUME_FREE_KEYS = ("out", "jobs", "threads", "webs", "only", "named", "protocols", "published",
                    "large_sparse_connectance")

#: What :func:`benchmark` writes in ``out`` (``--restart`` deletes exactly these).
OUTPUTS = ("webs", "timing.json", "per_fold.csv", "per_web.csv", "per_web_species.csv", "summary.csv",
           "summary_species.csv", "summary_large_sparse.csv", "ablation.csv", "ablation_groups.csv")


def check(cfg: FoodWebConfig) -> None:
    """Reject a config that makes no sense, before any work (the CLI and the Python API both call this), and set
    ``cfg.named`` in the registry's spelling (:func:`gatbio.data.sources.resolve_name`: ``cheddar/tl84`` is
    ``cheddar/TL84``), so that result files, progress and a resumed folder know a web by one name."""
    from gatbio.config import check_settings

    check_settings(cfg, SETTING_RULES)
    bad = [m for m in cfg.models + cfg.species_models if m not in OUR_MODELS + BASELINES]
    if bad:
        raise ValueError(f"unknown model(s) {bad}; choose from {list(OUR_MODELS + BASELINES)}")
    check_pool_weights(cfg.pool_weights, "pool_weights")
    check_pool_weights(cfg.species_pool_weights, "species_pool_weights")
    for protocol in cfg.protocols:
        if protocol not in ("links", "species"):
            raise ValueError(f"unknown protocol {protocol!r}: use 'links' and/or 'species'")
    if "species" in cfg.protocols and not [m for m in cfg.species_models if m in cfg.models]:
        raise ValueError(f"config species_models={cfg.species_models}: the new-species protocol runs the models in "
                         f"both species_models and models ({cfg.models}), and none is; add one, or drop 'species' "
                         "from protocols")
    if not cfg.use_traits and not [m for m in cfg.models if m not in TRAIT_MODELS or m == "gat"]:
        raise ValueError(f"config models={cfg.models} with use_traits=false: every one of them needs traits; add a "
                         "structure-only model (structure_only, gat_structure, boosted_stack_structure, l3_ra, ...)")
    if cfg.gat.val_metric not in ("loss", "ap"):
        raise ValueError(f"gat.val_metric={cfg.gat.val_metric!r}: expected 'loss' or 'ap'")
    if cfg.named:
        from gatbio.data import dataset_names
        from gatbio.data.foodweb import check_gateway_name
        from gatbio.data.sources import refuse_same_names, registry_spelling, unknown_name

        known = [n for n in dataset_names(expand=True) if n.split("/")[0] in ("gateway", "cheddar", "pajek")]
        spelt = []
        for name in cfg.named:
            web = name if check_gateway_name(name, "named") else registry_spelling(name)
            if not check_gateway_name(web, "named") and web not in known:
                raise unknown_name("web in 'named'", name, known, listing="gatbio datasets --members cheddar")
            spelt.append(web)
        refuse_same_names(cfg.named, spelt, "named")
        cfg.named = spelt


def benchmark(cfg: FoodWebConfig, progress: bool = True, resume: str = "check", summary_only: bool = False
              ) -> dict[str, pd.DataFrame]:
    """Run :func:`run_web` on every web folder of ``cfg.webs`` (parallel over webs, resumable), then
    :func:`summarize_results`. Returns the tables.

    ``resume``: what to do when ``cfg.out`` holds results of a config with other result settings: ``"check"``
    refuses (naming the keys), ``"restart"`` deletes this task's outputs first, ``"anyway"`` reuses them
    (:func:`gatbio.results.prepare_out_dir`). ``summary_only``: run nothing, only remake the tables of the
    folder's results, from its own config (:func:`summarize_folder`; settings of ``cfg`` that differ from it are
    said, as a summary ignores them), but with ``cfg.webs`` where it is set (where the web folders are now: they
    may have moved since the run).
    """
    from gatbio.device import announce_device, resolve_device
    from gatbio.parallel import left_to_run, parallel_map
    from gatbio.results import is_done, machine, prepare_out_dir, write_json, writing_runs

    check(cfg)
    if summary_only:
        if resume != "check":
            raise ValueError(f"summary_only trains nothing: resume={resume!r} (which deletes or reuses runs) does not "
                             "apply")
        if (Path(cfg.out) / "config.yaml").is_file():  # settings other than the folder's: a summary ignores them
            prepare_out_dir(cfg.out, cfg, free_keys=RESUME_FREE_KEYS, outputs=OUTPUTS, summary_only=True,
                            key="--out (config out)")
        return summarize_folder(cfg.out, cfg.webs or None, key="--out (config out)", webs_key="--webs (config webs)")
    spec = cfg.device
    # before any work; stored resolved in config.yaml and each web's file; auto means the CPU (small graphs)
    dev = resolve_device(spec, small_graphs=True)
    cfg = dataclasses.replace(cfg, device=str(dev))
    webs_dir = Path(cfg.webs) if cfg.webs else _default_webs_dir()
    folders = _web_folders(cfg, webs_dir)
    out_dir = prepare_out_dir(cfg.out, cfg, free_keys=RESUME_FREE_KEYS, outputs=OUTPUTS, resume=resume,
                              key="--out (config out)")
    announce_device(dev, spec, small_graphs=True)  # with the small-graph note on a GPU
    # The links protocol first (its units cost 5-10x a web's new-species unit). In one process, smallest webs
    # first: an interrupted run has most webs done. In parallel, largest first: a large web started last keeps
    # the other workers idle while it runs (on an H200 machine's 16 CPU cores the 6 largest webs' links units were
    # still running after 300 s, started last). Largest first is no cure for work above a worker's share: run so
    # on that machine it still had small units left after 420 s, the largest unit alone taking 380 s
    # (experiments/gpu_runs/2026-11-27-h200; the model of 2026-11-26e-h200/schedule.py had put it at 329 s).
    folders.sort(key=_edge_list_size, reverse=cfg.jobs != 1)
    sources = [str(p) for p in folders] + [_named_source(n) for n in cfg.named]
    items = [(src, out_dir, cfg, protocol) for protocol in cfg.protocols for src in sources]
    # Units with a result from an earlier call are left out before the pool starts (run_web would skip them), so
    # that progress counts and times only this call's work.
    # (a finished unit of a web whose files changed since is refused here, before any work: _same_web)
    def finished(src, out, c, protocol):
        return is_done(p := _result_path(out, src, protocol), RECORD_KEYS) and _same_web(p, src)

    with writing_runs(out_dir):
        todo = left_to_run(items, finished, "food webs", "(web, protocol)", out_dir, progress,
                           files=lambda src, out, c, protocol: [_result_path(out, src, protocol)], keys=RECORD_KEYS)
        host = machine(calibrate=bool(todo))  # before the workers start: what the machine gave at the start
        t0 = time.time()
        # a web's notes are said by the first of its units that runs (on a resume, its first protocol may be done)
        first: dict[str, int] = {}
        for k, (src, *_) in enumerate(todo):
            first.setdefault(src, k)
        todo = [(*item, first[item[0]] == k) for k, item in enumerate(todo)]
        parallel_map(run_web, todo, jobs=cfg.jobs, desc="food webs", progress=progress, costs=_unit_costs(todo),
                     heartbeat=lambda src, out, c, protocol, say: f"food webs: still running ({_web_name(src)}, "
                                                                  f"{protocol})")
        wall = time.time() - t0
    # The tables cover every result of the folder, so that they agree with each other (a call with fewer webs or
    # protocols than the folder holds says so: the tables are not only this call's).
    names = {_web_name(src) for src in sources}
    recs = [read_web_result(p) for p in sorted((out_dir / "webs").glob("*.json"))]
    others = sum(1 for r in recs if r["web"] not in names or r["protocol"] not in cfg.protocols)
    if others:
        from gatbio.data.tables import note

        note(f"{out_dir}: the tables cover every result of the folder, {others} of them from webs or protocols this "
             f"call did not run ({len(items)} web x protocol run(s) here)")
    tables = summarize_results(out_dir, webs_dir, cfg)
    write_json(out_dir / "timing.json", {
        "wall_seconds_this_call": wall, "jobs": cfg.jobs, "runs": len(items), "runs_computed_this_call": len(todo),
        "compute_seconds_all_runs": sum(r.get("seconds", 0.0) for r in recs),
        "compute_seconds_by_protocol": {p: sum(r.get("seconds", 0.0) for r in recs if r["protocol"] == p)
                                        for p in dict.fromkeys(r["protocol"] for r in recs)},
        "machine": host,
    })
    return tables


def summarize_folder(out_dir: str | Path, webs: str | Path | None = None, key: str = "OUT",
                     webs_key: str = "--webs") -> dict[str, pd.DataFrame]:
    """The tables of a benchmark's results folder (``gatbio foodweb summarize OUT``, ``--summary-only``), from the
    folder's own config (``config.yaml``; the defaults without one): :func:`summarize_results`, after a note on the
    (web, protocol) units of that config without a result (:func:`unfinished_note`). ``webs``: where the web
    folders are (for the published reference rows), else the config's, else the GATEWAy webs under the data root.
    A benchmark writing in the folder, or the results of another task, are refused; ``key`` and ``webs_key`` name
    the folder and ``webs`` in messages."""
    from gatbio._paths import check_input_dir
    from gatbio.config import load_config
    from gatbio.results import refuse_busy, stored_task

    check_input_dir(out_dir, key, "the results folder of gatbio foodweb benchmark")
    refuse_busy(out_dir, key)  # a benchmark writing there makes its tables at its end
    if webs is not None:
        check_input_dir(webs, webs_key, "a folder of web folders, like gateway_dev/webs/, for the published "
                                        "reference rows")
    other = stored_task(Path(out_dir))
    if other is not None and other != FoodWebConfig.__name__:  # its config.yaml would be refused key by key
        raise ValueError(f"{out_dir} holds results of another task ({other}), not of gatbio foodweb benchmark: "
                         "give the folder of a food-web benchmark")
    cfg_path = Path(out_dir) / "config.yaml"
    cfg = load_config(FoodWebConfig, cfg_path if cfg_path.is_file() else None)
    webs = webs or cfg.webs or _default_webs_dir()
    if cfg_path.is_file():  # the config says which (web, protocol) units the folder should hold
        try:
            unfinished_note(out_dir, cfg, Path(webs))
        except (ValueError, OSError):  # the webs moved since: the tables still summarise what is there
            pass
    return summarize_results(out_dir, webs, cfg)


def _unit_costs(items: Sequence[tuple]) -> list[float] | None:
    """Each (web, protocol) unit's expected cost, for the progress's time left (``None``, the count's estimate,
    when a named web has no folder to size). Fitted on the 114 units of the benchmark of 2026-11-27: a unit's
    seconds grow about as the square root of its edge list's size (the links protocol's as the power 0.38, the
    new species' as 0.57), and a new-species unit costs about a quarter of a links unit of the same web; with
    these costs the time left was within 0.9-1.4x of the truth from the second unit on, against 4-11x too long
    counting units (the largest run first)."""
    sizes = [_edge_list_size(Path(src)) for src, *_ in items]
    if any(s is None for s in sizes):
        return None
    return [max(s, 1) ** 0.5 * (1.0 if item[3] == "links" else 0.25) for s, item in zip(sizes, items, strict=True)]


def _edge_list_size(folder: Path) -> int | None:
    """Bytes of a web folder's edge list (what orders the webs and sizes their units); ``None`` for a named web."""
    edges = next(folder.glob("*_edge_list.txt"), None) if folder.is_dir() else None
    return None if edges is None else edges.stat().st_size


def _named_source(name: str) -> str:
    """What :func:`run_web` reads for a ``named`` web: a GATEWAy web (``gateway/<id>`` or ``gateway/<folder>``) is
    its folder under the data root when present (file order, traits and published figures, as the protocol reads
    it); any other name, or a GATEWAy web whose files are absent (then :func:`gatbio.data.load` names the missing
    files and how to download them), is loaded by name."""
    from gatbio.data.foodweb import gateway_web_folder
    from gatbio.data.sources import UnknownDatasetError

    if not name.startswith("gateway/"):
        return name
    try:
        folder = _default_webs_dir() / gateway_web_folder(name.split("/", 1)[1])
    except UnknownDatasetError:
        return name
    return str(folder) if folder.is_dir() else name


def _default_webs_dir() -> Path:
    from gatbio.data import data_root

    return data_root() / "gateway_dev" / "webs"


def _gateway_web_folders() -> list[Path]:
    """The web folders of the GATEWAy webs under the data root (``webs`` left empty), for :func:`benchmark`.

    A data root that does not exist is refused as such; webs that are not there say how to get them (``gatbio
    datasets --download gateway``, the root to set, or ``--webs``), which a bare ``no such folder`` did not.
    """
    from gatbio.data.sources import check_data_root, elsewhere_hint, fetch_hint, root_label

    root = check_data_root()  # GATBIO_DATA naming a file, or a folder that does not exist: one line
    webs_dir = _default_webs_dir()
    how = (f"{fetch_hint('gateway', root, what='them')}; {elsewhere_hint(root, what='them')}, or give --webs DIR "
           "(config webs)")
    if not webs_dir.exists():
        raise FileNotFoundError(f"{root_label(root)}: no GATEWAy webs (no folder {webs_dir}): {how}")
    try:
        return find_web_folders(webs_dir)
    except FileNotFoundError as err:  # the folder, without a web folder in it (a download cut short)
        raise FileNotFoundError(f"{err}; {how}") from None


# ----------------------------------------------------------------------------------------------------------
# prediction for a user's web
# ----------------------------------------------------------------------------------------------------------


def predict_missing_links(data: Data, top: int = 20, cfg: FoodWebConfig | None = None, seeds: list[int] | None = None,
                          traits: np.ndarray | None = None, trait_names: list[str] | None = None,
                          progress: bool = False, device: str | torch.device | None = None) -> pd.DataFrame:
    """The ``top`` most likely missing links of a web (pairs that are not links), best first.

    Uses the best model available: ``full`` with traits (``data.x`` or ``traits``), ``structure_only``
    otherwise, trained on the whole web; ``seeds`` (default ``cfg.seeds``) are the GAT seeds either model averages
    (the CLI passes 5, as the benchmark's ``full``; the benchmark's ``structure_only`` trains one; an int is one
    seed). Columns: ``rank, resource, consumer, score, resource_level, consumer_level, model`` (score: the pooled
    log-odds of :func:`pool`, higher is likelier, not a calibrated probability; levels: MacKay trophic levels of
    the web; model: ``full`` or ``structure_only``). ``progress``: a progress bar on stderr, one step per fitted
    stack or GAT seed. ``device``: where the GATs train (default ``cfg.device``; :mod:`gatbio.device`).

    The arguments are checked before any training: ``data.edge_index`` (2, E) of whole-number ids, one name per
    species in ``data.node_names``, one trait row per species, an integer ``top`` and at least one integer seed.

    The ranking does not depend on the order of the file's rows: the species are numbered by name first (the
    GAT's inputs include each species' adjacency row, and the folds follow the link order, so a file's order
    would otherwise choose which random draws each species gets). Renaming species can reorder them, which
    changes those draws as another seed would: the ranking is stable up to the spread between seeds, which
    averaging over ``seeds`` (five by default) narrows. The models train on ``cfg.threads`` threads (torch's and
    BLAS's, :func:`gatbio.parallel.unit_threads`), as the benchmark's webs, so that the list does not depend on the
    machine's core count.
    """
    cfg = cfg or FoodWebConfig()
    if device is not None:
        cfg = dataclasses.replace(cfg, device=str(device))
    n = data.num_nodes
    x = traits if traits is not None else getattr(data, "x", None)
    names = trait_names if trait_names is not None else getattr(data, "trait_names", None)
    use = _check_predict_args(data, n, top, list(cfg.seeds) if seeds is None else seeds, x,
                              "traits" if traits is not None else "data.x", names)
    node_names = list(getattr(data, "node_names", None) or [str(k) for k in range(n)])
    if getattr(data, "node_names", None) and len(node_names) == n and len(set(node_names)) == n:
        perm = np.argsort(np.asarray(node_names, dtype=object), kind="stable")  # new index -> old index
        rank = np.empty(n, dtype=np.int64)
        rank[perm] = np.arange(n)  # old index -> new index
        node_names = [node_names[k] for k in perm]
        edge_index = torch.from_numpy(rank)[data.edge_index.cpu().long()]  # checked: whole numbers
        data = Data(edge_index=edge_index, num_nodes=n, **({"name": data.name} if "name" in data else {}))
        if x is not None:
            x = x[perm] if isinstance(x, np.ndarray) else x[torch.from_numpy(perm)]
    if data.num_edges == 0:
        raise ValueError(f"{getattr(data, 'name', 'the web')} has no links: nothing to learn from")
    A = adjacency_of(data.edge_index, n)
    if A.nnz and A.nnz == n * (n - 1):  # no candidate pair: say so before any training
        raise ValueError(f"{getattr(data, 'name', 'the web')}: every pair of its {n} species is already a link "
                         f"({A.nnz} links, both ways): there is no missing link to predict")
    if A.nnz < 5:
        raise ValueError(f"{getattr(data, 'name', 'the web')} has only {A.nnz} link{'' if A.nnz == 1 else 's'} "
                         "(other than self-loops); "
                         "at least 5 are needed to cross-fit the models")
    tr, _ = prepare_traits(x, names)
    model = "full" if tr is not None else "structure_only"
    cfg = dataclasses.replace(cfg, models=[model])
    from tqdm.auto import tqdm

    # on cfg.threads (torch's and BLAS's), as the benchmark's webs: the scores depend on the thread count (the top
    # score of a 155-species web moved by 0.04 to 0.17 between 1, 2 and 4 threads), so the machine's core count
    # chose the list
    with tqdm(desc="training", unit="model", disable=not progress, leave=False, delay=0.5) as bar, \
            unit_threads(cfg.threads):
        # every seed for either model: one GAT's ranking depends on its start
        s = fold_scores(A, tr, cfg, "links", use, progress=bar, structure_seeds=use)[model][0]
    cand = ~(A.toarray() > 0)
    np.fill_diagonal(cand, False)
    if names is not None and "living" in list(names) and x is not None:  # a flow web's compartments (Pajek/SCOR)
        dead = np.flatnonzero(np.asarray(x, dtype=float)[:, list(names).index("living")] == 0)
        if len(dead):  # detritus eats nothing: arcs into it are egestion and mortality, not feeding links
            from gatbio.data.tables import note

            cand[:, dead] = False
            note(f"{len(dead)} non-living compartment(s) ({', '.join(node_names[k] for k in dead[:3])}"
                 f"{', ...' if len(dead) > 3 else ''}) are not offered as consumers: they eat nothing (arcs into "
                 "detritus are egestion and mortality); they stay resources (detritivory)")
    i, j = np.nonzero(cand)
    if top > len(i):
        from gatbio.data.tables import note

        note(f"top {top}: the web has {len(i)} pairs of species that are not links; all of them are listed")
    order = np.argsort(-s[i, j], kind="stable")[:top]
    lv = observed_levels(A)
    return pd.DataFrame({
        "rank": np.arange(1, len(order) + 1),
        "resource": [node_names[k] for k in i[order]], "consumer": [node_names[k] for k in j[order]],
        "score": s[i[order], j[order]].round(6),
        "resource_level": lv[i[order]].round(4), "consumer_level": lv[j[order]].round(4),
        "model": model,
    })


def _check_predict_args(data: Data, n: int, top, seeds, x, x_what: str, trait_names) -> list[int]:
    """:func:`predict_missing_links`'s arguments, checked before minutes of training (an IndexError at the end,
    or a ranking of another graph, before): one ValueError / TypeError naming the argument, what was given and
    the fix. Returns the seeds as a list (an int is one seed)."""
    from gatbio.data.io import check_edge_index

    check_edge_index(data.edge_index, n, "data.edge_index")
    node_names = getattr(data, "node_names", None)
    if node_names is not None and len(node_names) != n:
        raise ValueError(f"data.node_names has {len(node_names)} names for the web's {n} species "
                         "(data.num_nodes): give one name per species, in node order")
    if x is not None and np.ndim(x) == 2 and len(x) != n:
        raise ValueError(f"{x_what} has {len(x)} rows for the web's {n} species: give one row per species, in "
                         "node order (NaN for a missing value)")
    if x is not None and np.ndim(x) == 2 and trait_names is not None and len(trait_names) != np.shape(x)[1]:
        raise ValueError(f"trait_names has {len(trait_names)} name{'' if len(trait_names) == 1 else 's'} for "
                         f"{np.shape(x)[1]} trait columns: one name per column")
    if isinstance(top, bool) or not isinstance(top, int | np.integer):
        raise TypeError(f"top={top!r}: expected an integer, the number of links to list (e.g. top=20)")
    if top < 1:
        raise ValueError(f"top={top}: must be at least 1 (the number of links to list)")
    seeds = [seeds] if isinstance(seeds, int | np.integer) and not isinstance(seeds, bool) else seeds
    if isinstance(seeds, str) or not hasattr(seeds, "__iter__"):
        raise TypeError(f"seeds={seeds!r}: expected a list of integer GAT seeds, e.g. seeds=[0, 1, 2]")
    seeds = list(seeds)
    if not seeds:
        raise ValueError("seeds=[]: give at least one GAT seed, e.g. seeds=[0] (or None for cfg.seeds)")
    if any(isinstance(k, bool) or not isinstance(k, int | np.integer) for k in seeds):
        raise TypeError(f"seeds={seeds!r}: the GAT seeds are integers, e.g. seeds=[0, 1, 2]")
    return [int(k) for k in seeds]


def explain_web(data: Data, params: GATParams | None = None, top: int = 10, seed: int = 0,
                device: str | torch.device | None = None) -> dict[str, Any]:
    """Train the GAT (traits when the web has them, trophic bias on) on a whole web and return what the
    notebook draws: ``levels`` (N,) MacKay trophic levels, ``edge_index`` (2, E) observed links,
    ``attention`` (E,) first-layer attention of each consumer over its prey (mean over heads; sums to 1 per
    consumer), ``missing``: a DataFrame of the ``top`` highest-scoring non-links (``resource, consumer,
    score`` as node indices and probabilities) and ``node_names``. ``device``: where the GAT trains (default:
    the CPU); everything returned is on the CPU."""
    from gatbio.device import resolve_device

    dev = resolve_device("cpu" if device is None else device, small_graphs=True)
    params = params or GATParams()
    n = data.num_nodes
    A = adjacency_of(data.edge_index, n)
    traits, _ = prepare_traits(getattr(data, "x", None), getattr(data, "trait_names", None))
    model = fit_gat(A, traits, params, trophic_bias=True, seed=seed, device=dev)
    lv = observed_levels(A)
    ei = torch.from_numpy(np.stack(A.nonzero())).long()  # (2, E)
    lv_t = torch.tensor(lv, dtype=torch.float, device=dev)
    with torch.no_grad():
        z, att = model.encode(node_inputs(A, lv, traits, params.adjacency_inputs).to(dev), ei.to(dev), lv_t,
                              return_attention_weights=True)
        prob = torch.sigmoid(model.decode(z, lv_t)).cpu().numpy()  # (N, N)
    _, _, att_ei, alpha = next(a for a in att if a[0] == 0 and a[1] == "prey")
    att_ei, alpha = att_ei.cpu(), alpha.cpu()
    assert torch.equal(att_ei, ei)  # no self-loops were added: one weight per observed link
    cand = ~(A.toarray() > 0)
    np.fill_diagonal(cand, False)
    i, j = np.nonzero(cand)
    order = np.argsort(-prob[i, j], kind="stable")[:top]
    return {"levels": lv, "edge_index": ei.cpu().numpy(), "attention": alpha.mean(1).cpu().numpy(),
            "missing": pd.DataFrame({"resource": i[order], "consumer": j[order], "score": prob[i[order], j[order]]}),
            "node_names": list(getattr(data, "node_names", None) or [str(k) for k in range(n)])}


def run_quick(out_dir: str | Path, device: str = "auto") -> str:
    """The quick benchmark (``experiments/configs/foodweb_quick.yaml``): 2 small GATEWAy webs, both protocols,
    one GAT seed, for ``make demo`` and the notebook test. Returns a short printable summary."""
    cfg = dataclasses.replace(quick_config(out_dir), device=device)
    tables = benchmark(cfg, progress=False)
    s = tables["summary"].set_index("model")
    lines = [f"{len(cfg.only)} GATEWAy webs, links protocol, median PR-AUC / ROC-AUC (results in {cfg.out}):"]
    for m in ("full", "structure_only", "gat", "no_trophic_bias", "l3_ra", "published_full"):
        if m in s.index:
            lines.append(f"  {m:<16} {s.loc[m, 'median_pr_auc']:.3f} / {s.loc[m, 'median_roc_auc']:.3f}")
    if "summary_species" in tables:
        sp_ = tables["summary_species"].set_index("model")
        lines.append(f"  new-species protocol, full: PR-AUC {sp_.loc['full', 'median_pr_auc']:.3f}")
    return "\n".join(lines)


def quick_config(out_dir: str | Path) -> FoodWebConfig:
    """The quick config in code (a pip-installed gatbio has no experiments/ folder)."""
    return FoodWebConfig(out=str(out_dir), only=list(QUICK_WEBS), seeds=[0], species_seeds=[0])
