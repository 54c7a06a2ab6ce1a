"""Fit / evaluate loops for node classification (full batch, transductive).

The whole training path, in the order it runs (nanoGPT-style: read top to bottom):

1. :func:`label_matrix` turns known labels into the (N, L) label input (multi-hot / one-hot, zeros elsewhere).
2. :func:`fit` trains with Adam on the ``fit`` nodes, evaluates on ``val`` nodes (carved from the training
   labels by the caller, never from the test nodes), keeps the best state (early stopping with ``patience``).
   With ``label_trick`` each epoch splits the fit nodes at random in two halves: one half's labels are the
   input, the other half are the targets, so a node never sees its own label (Wang et al. 2021).
3. :func:`predict` returns probabilities for every node, with the labels of ``known`` nodes as input.

No argument parsing and no file layout here: :mod:`gatbio.tasks.protein` decides what to run and where to
write. Everything is seeded by ``seed``.

Device: :func:`fit` takes ``device`` (``"auto"``, ``"cpu"``, ``"cuda"``, ... see :func:`gatbio.device.resolve_device`;
default: where the model already is) and moves the model and every tensor there; :func:`predict` computes
where the model is and returns its probabilities there (``.cpu()`` them before ``.numpy()``). The random
half-split of the label trick is drawn on the CPU, so a seed draws the same halves on every device.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import torch
from torch import Tensor

__all__ = ["TrainConfig", "FitResult", "label_matrix", "fit", "predict", "seed_everything", "PairTrainConfig",
           "fit_pairs", "predict_pairs"]


@dataclass
class TrainConfig:
    """Optimiser and stopping settings of :func:`fit`."""

    epochs: int = 200
    lr: float = 0.01
    weight_decay: float = 5e-4
    patience: int = 20  #: evaluations without improvement before stopping
    eval_every: int = 2  #: epochs between validation evaluations
    label_trick: bool = False  #: feed half the fit labels as input, predict the other half
    label_rate: float = 0.5  #: fraction of fit nodes whose labels are input in each epoch


@dataclass
class FitResult:
    best_epoch: int
    best_val: float
    epochs_run: int
    history: list[tuple[int, float, float]] = field(default_factory=list)  #: (epoch, train loss, val score)


def seed_everything(seed: int) -> None:
    """Seed Python-side RNGs used in training (torch, numpy)."""
    torch.manual_seed(seed)
    np.random.seed(seed)


def label_matrix(y: Tensor, known: Tensor, num_classes: int) -> Tensor:
    """(N, L) float label input: rows of ``known`` nodes hold their labels, every other row is zero.

    ``y`` is multi-hot float (N, L) or class ids long (N,) (then one-hot; negative ids stay zero).
    """
    out = torch.zeros(y.size(0), num_classes, device=y.device)
    known = known.to(y.device)
    if y.dim() == 2:
        out[known] = y[known].float()
    else:
        yk = y[known]
        ok = yk >= 0
        out[known[ok], yk[ok]] = 1.0
    return out  # (N, L)


def _forward(model, x, edge_index, y, known, num_classes):
    lab = label_matrix(y, known, num_classes) if model.label_channels else None
    return model(x, edge_index, lab)


def _to(device: torch.device, *tensors: Tensor | None) -> tuple[Tensor | None, ...]:
    return tuple(None if t is None else t.to(device) for t in tensors)


def predict(model: torch.nn.Module, x: Tensor | None, edge_index: Tensor, y: Tensor, known: Tensor) -> Tensor:
    """Probabilities (N, L) in eval mode; ``known`` nodes' labels are the label input (if the model uses it).

    Runs on the model's device (the inputs are moved there) and returns the probabilities on it."""
    from gatbio.device import module_device

    x, edge_index, y, known = _to(module_device(model), x, edge_index, y, known)
    model.eval()
    with torch.no_grad():
        logits = _forward(model, x, edge_index, y, known, model.out_channels)
        return model.predict_proba(logits)


def _epochs(n: int, progress: bool):
    """Epochs 1..n, under a tqdm bar when ``progress`` (the early-stopping loops of :func:`fit` and
    :func:`fit_pairs`)."""
    epochs = range(1, n + 1)
    if progress:
        from tqdm.auto import tqdm

        return tqdm(epochs, desc="training (early stopping)", unit="epoch", leave=False)
    return epochs


def _score(score_fn: Callable[[np.ndarray, np.ndarray], float], y_val: np.ndarray, proba: np.ndarray) -> float:
    """``score_fn(y_val, proba)``, or NaN (no improvement) when the model's probabilities are NaN: the weights
    diverged, and the best state so far is the one to keep (a metric refused the NaN with advice to fill them)."""
    if not np.isfinite(proba).all():
        return float("nan")
    return float(score_fn(y_val, proba))


def _check_scored(best_val: float, history: list[tuple[int, float, float]], what: str) -> None:
    """A ``ValueError`` when no validation score was finite: the best state stayed the initial (untrained) weights,
    returned with ``best_val=-inf`` (written to the run file) as if training had happened."""
    if np.isfinite(best_val):
        return
    if not history:  # TrainConfig(epochs=0): nothing was trained or evaluated (the last epoch always is)
        raise ValueError("no epoch was trained, so no validation evaluation was made: TrainConfig epochs must be at "
                         "least 1")
    seen = ", ".join(f"{s} at epoch {e}" for e, _, s in history[:3]) + (", ..." if len(history) > 3 else "")
    raise ValueError(f"score_fn gave no finite score on the validation {what} in {len(history)} evaluation(s) "
                     f"({seen}), so no trained state was better than the initial weights: use a "
                     f"score defined on the validation {what} (ROC-AUC needs both classes there), or if the loss "
                     "diverged (NaN), a lower lr")


def fit(
    model: torch.nn.Module,
    x: Tensor | None,
    edge_index: Tensor,
    y: Tensor,
    fit_idx: Tensor,
    val_idx: Tensor,
    score_fn: Callable[[np.ndarray, np.ndarray], float],
    cfg: TrainConfig | None = None,
    seed: int = 0,
    progress: bool = False,
    device: str | torch.device | None = None,
    on_epoch: Callable[[int, int], None] | None = None,
) -> FitResult:
    """Train ``model`` in place on ``fit_idx``; early-stop on ``score_fn(y_val, proba_val)`` (higher is better).

    The best state (by validation score; of equal scores the first) is loaded back into ``model`` before returning;
    a ``ValueError`` when no validation score is finite (NaN), rather than untrained weights. ``device``: where to
    train (:func:`gatbio.device.resolve_device`; ``None``: where ``model`` is); the model is moved there and
    stays there. ``score_fn`` gets NumPy arrays (moved to the CPU).

    ``on_epoch``: called as ``on_epoch(epoch, cfg.epochs)`` after each epoch (its step and, when due, its
    evaluation), the last one before an early stop included (e.g. :attr:`gatbio.results.UnitStage.on_epoch`, for
    a heartbeat's line); it changes no number, random draw or stopping decision.
    """
    from gatbio.device import module_device, resolve_device

    cfg = cfg or TrainConfig()
    dev = module_device(model) if device is None else resolve_device(device)
    model.to(dev)
    x, edge_index, y, fit_idx, val_idx = _to(dev, x, edge_index, y, fit_idx, val_idx)
    if len(fit_idx) == 0 or len(val_idx) == 0:
        raise ValueError(f"fit needs training and validation nodes, got {len(fit_idx)} and {len(val_idx)}")
    seed_everything(seed)
    gen = torch.Generator().manual_seed(seed)
    opt = torch.optim.Adam(model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
    y_val = y[val_idx].cpu().numpy()
    best_val, best_epoch, best_state, bad = -np.inf, 0, copy.deepcopy(model.state_dict()), 0
    history = []
    epochs = _epochs(cfg.epochs, progress)
    epoch, stop = 0, False
    for epoch in epochs:
        model.train()
        if cfg.label_trick and model.label_channels:
            take = (torch.rand(len(fit_idx), generator=gen) < cfg.label_rate).to(dev)  # drawn on the CPU
            known, target = fit_idx[take], fit_idx[~take]  # labels in / labels predicted
        else:
            known, target = fit_idx[:0], fit_idx
        opt.zero_grad()
        logits = _forward(model, x, edge_index, y, known, model.out_channels)  # (N, L)
        loss = model.loss(logits[target], y[target])
        loss.backward()
        opt.step()
        if epoch % cfg.eval_every == 0 or epoch == cfg.epochs:
            proba = predict(model, x, edge_index, y, fit_idx)[val_idx].cpu().numpy()
            score = _score(score_fn, y_val, proba)
            history.append((epoch, loss.item(), score))
            if score > best_val:
                best_val, best_epoch, best_state, bad = score, epoch, copy.deepcopy(model.state_dict()), 0
            else:
                bad += 1
                stop = bad >= cfg.patience
        if on_epoch is not None:
            on_epoch(epoch, cfg.epochs)
        if stop:
            break
    _check_scored(best_val, history, "nodes")
    model.load_state_dict(best_state)
    return FitResult(best_epoch=best_epoch, best_val=best_val, epochs_run=epoch, history=history)


# --------------------------------------------------------------------------------------------------------
# pair classification (protein interaction types): full batch over the training pairs
# --------------------------------------------------------------------------------------------------------

@dataclass
class PairTrainConfig:
    """Optimiser and stopping settings of :func:`fit_pairs`."""

    epochs: int = 300
    lr: float = 0.005
    weight_decay: float = 5e-4
    patience: int = 10  #: evaluations without improvement before stopping
    eval_every: int = 5  #: epochs between validation evaluations
    threshold: float = 0.5  #: a mode is predicted when its probability exceeds this (GNN-PPI: 0.5)
    #: per-epoch split of the fit pairs into messages / supervised pairs (needs ``inputs`` unless ``"none"``;
    #: :func:`gatbio.data.pair_features.supervision_split`)
    supervision: str = "none"
    node_fraction: float = 0.2  #: ``node`` supervision: fraction of proteins hidden per epoch
    edge_fraction: float = 0.3  #: ``edge`` supervision: fraction of fit pairs supervised per epoch


def predict_pairs(model: torch.nn.Module, x: Tensor, edge_index: Tensor, pairs: Tensor,
                  edge_attr: Tensor | None = None) -> Tensor:
    """Mode probabilities ``(P, M)`` of ``pairs`` in eval mode, on the model's device (inputs moved there); pairs
    out of ``0..N - 1`` are refused, naming the index (:func:`gatbio.nn.pair_models.check_pairs`), before any work."""
    from gatbio.device import module_device
    from gatbio.nn.pair_models import check_pairs

    check_pairs(pairs, x.size(0))  # decode alone checks the shape only (no read-back in the training loop)

    x, edge_index, pairs, edge_attr = _to(module_device(model), x, edge_index, pairs, edge_attr)
    model.eval()
    with torch.no_grad():
        return torch.sigmoid(model.decode(model.encode(x, edge_index, edge_attr), pairs))


def fit_pairs(
    model: torch.nn.Module,
    x: Tensor,
    edge_index: Tensor,
    pairs: Tensor,
    y: Tensor,
    fit_idx: Tensor,
    val_idx: Tensor,
    score_fn: Callable[[np.ndarray, np.ndarray], float],
    cfg: PairTrainConfig | None = None,
    edge_attr: Tensor | None = None,
    seed: int = 0,
    progress: bool = False,
    device: str | torch.device | None = None,
    inputs: Callable[[np.ndarray], tuple[Tensor, Tensor, Tensor | None]] | None = None,
    on_epoch: Callable[[int, int], None] | None = None,
) -> FitResult:
    """Train a pair classifier in place on the pairs ``fit_idx``; early-stop on ``score_fn(y_val, proba_val)``.

    Each epoch encodes every protein over ``edge_index`` (the message-passing graph: give the graph of the fit
    pairs for a leakage-free run) and takes one Adam step on the BCE loss of all fit pairs (full batch). Every
    ``eval_every`` epochs the validation pairs are scored; the best state is loaded back before returning.
    ``model`` provides ``encode(x, edge_index, edge_attr)``, ``decode(h, pairs)`` and ``loss(logits, target)``
    (:class:`gatbio.nn.pair_models.PairClassifier`).

    ``inputs``: a function ``message pair indices -> (x, edge_index, edge_attr)`` (e.g.
    :meth:`gatbio.data.pair_features.PairGraphBuilder.build`) that replaces ``x``, ``edge_index`` and ``edge_attr``.
    Each epoch the fit pairs are split by ``cfg.supervision`` into messages and supervised pairs (drawn by
    ``np.random.default_rng([seed, 2])`` on the CPU): the inputs are built from the messages, the loss is taken on
    the supervised pairs, so with ``node``/``edge``/``mix`` a supervised pair never reaches its own inputs. The
    validation pairs are scored on inputs built from all fit pairs (never from the validation pairs).

    ``on_epoch``: called as ``on_epoch(epoch, cfg.epochs)`` after each epoch, as in :func:`fit`; it changes no
    number, random draw or stopping decision.
    """
    from gatbio.data.pair_features import supervision_split
    from gatbio.device import module_device, resolve_device

    cfg = cfg or PairTrainConfig()
    if inputs is None and cfg.supervision != "none":
        raise ValueError(f"supervision={cfg.supervision!r} rebuilds the inputs every epoch: pass inputs=")
    dev = module_device(model) if device is None else resolve_device(device)
    model.to(dev)
    fit_np = np.asarray(torch.as_tensor(fit_idx).cpu(), dtype=np.int64)
    if inputs is not None:
        x, edge_index, edge_attr = inputs(fit_np)  # validation inputs: messages = all fit pairs
    x, edge_index, pairs, y, edge_attr = _to(dev, x, edge_index, pairs, y, edge_attr)
    fit_idx, val_idx = _to(dev, fit_idx, val_idx)
    if len(fit_idx) == 0 or len(val_idx) == 0:
        raise ValueError(f"fit_pairs needs training and validation pairs, got {len(fit_idx)} and {len(val_idx)}")
    seed_everything(seed)
    sup_rng = np.random.default_rng([seed, 2])
    pairs_np = pairs.cpu().numpy()
    opt = torch.optim.Adam(model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
    fit_pairs_, y_fit = pairs[fit_idx], y[fit_idx].float()
    val_pairs, y_val = pairs[val_idx], y[val_idx].cpu().numpy()
    best_val, best_epoch, best_state, bad = -np.inf, 0, copy.deepcopy(model.state_dict()), 0
    history = []
    epochs = _epochs(cfg.epochs, progress)
    epoch, stop = 0, False
    for epoch in epochs:
        model.train()
        opt.zero_grad()
        if inputs is None:
            logits = model.decode(model.encode(x, edge_index, edge_attr), fit_pairs_)  # (P_fit, M)
            loss = model.loss(logits, y_fit)
        else:
            msg, sup = supervision_split(fit_np, pairs_np, cfg.supervision, sup_rng, cfg.node_fraction,
                                         cfg.edge_fraction)
            xe, eie, eae = _to(dev, *inputs(msg))
            sup_t = torch.as_tensor(sup, device=dev)
            logits = model.decode(model.encode(xe, eie, eae), pairs[sup_t])  # (P_sup, M)
            loss = model.loss(logits, y[sup_t].float())
        loss.backward()
        opt.step()
        if epoch % cfg.eval_every == 0 or epoch == cfg.epochs:
            proba = predict_pairs(model, x, edge_index, val_pairs, edge_attr).cpu().numpy()
            score = _score(score_fn, y_val, proba)
            history.append((epoch, loss.item(), score))
            if score > best_val:
                best_val, best_epoch, best_state, bad = score, epoch, copy.deepcopy(model.state_dict()), 0
            else:
                bad += 1
                stop = bad >= cfg.patience
        if on_epoch is not None:
            on_epoch(epoch, cfg.epochs)
        if stop:
            break
    _check_scored(best_val, history, "pairs")
    model.load_state_dict(best_state)
    return FitResult(best_epoch=best_epoch, best_val=best_val, epochs_run=epoch, history=history)
