"""Metrics on one input contract: scores are (n_items, n_classes) or (n_items,) arrays, truth likewise.

Classification (protein function): :func:`f1_top_k` is the protocol of node2vec / NetMF / ProNE (each test
node is given its k highest-scoring labels, k = its true label count); :func:`f1_threshold` is the
realistic score that does not peek at k. Link prediction (food webs): :func:`roc_auc` and
:func:`pr_auc` (average precision), both from scikit-learn; for (n, L) label matrices, the mean over the labels
where the score is defined (their docstrings).

Undefined values are NaN and never enter a mean unannounced: :func:`roc_auc` of a label without positives or
without negatives and :func:`pr_auc` of a label without positives are left out of the label mean (scikit-learn's
``average="macro"`` makes the whole mean NaN, or counts a meaningless value); Macro-F1 counts a label with no true
and no predicted item as 0 (scikit-learn's ``zero_division=0``), as documented in :func:`micro_macro_f1`.
"""

from __future__ import annotations

import numpy as np
from sklearn.metrics import average_precision_score, roc_auc_score

__all__ = [
    "top_k_predictions", "micro_macro_f1", "f1_top_k", "f1_threshold", "roc_auc", "pr_auc",  # scores
    "attention_entropy", "attention_entropy_ratio", "hub_attention_mass", "attention_js_divergence",  # attention
    "flip_rate", "label_homophily",
]


def _as_numpy(a) -> np.ndarray:
    if hasattr(a, "detach"):
        a = a.detach().cpu().numpy()
    return np.asarray(a)


def _same_shape(y_true: np.ndarray, other: np.ndarray, other_name: str, ndims: tuple[int, ...] = (2,)) -> None:
    """A ``ValueError`` naming both shapes unless ``y_true`` and ``other`` have the same shape of ``ndims``
    dimensions (else NumPy broadcast a (L,) row against an (n, L) matrix without a word, or failed deep inside)."""
    if y_true.shape != other.shape or y_true.ndim not in ndims:
        want = " or ".join({1: "(n,)", 2: "(n, L)"}[d] for d in ndims)
        hint = "; for one binary label pass y_true[:, None] and " + f"{other_name}[:, None]" \
            if ndims == (2,) and y_true.ndim == 1 else ""
        raise ValueError(f"y_true and {other_name} must have the same shape {want}; got {y_true.shape} and "
                         f"{other.shape}{hint}")


def _check_no_nan(scores: np.ndarray, name: str = "scores") -> None:
    """A ``ValueError`` saying how many NaN ``scores`` there are and where the first is: a NaN has no rank
    (argsort put it last, a threshold never selected it, scikit-learn refused it without saying where)."""
    if not np.issubdtype(scores.dtype, np.inexact):
        return
    nan = np.isnan(scores)
    if not nan.any():
        return
    first = np.argwhere(nan)[0]
    where = f"row {first[0]}, column {first[1]}" if scores.ndim == 2 else f"index {first[0]}" if scores.ndim else ""
    raise ValueError(f"{name} has {int(nan.sum())} NaN value(s) (the first at {where}): every item needs a finite "
                     f"score; drop those items or fill them (e.g. np.nan_to_num({name}, nan=0.0)) first")


def _check_binary(y_true: np.ndarray) -> None:
    """A ``ValueError`` unless ``y_true`` holds binary labels, 0/1 or booleans (or scikit-learn's -1/1, positive
    1): class ids 0/1/2 reached scikit-learn's 'multiclass format is not supported'."""
    if y_true.dtype == bool:
        return
    values = np.unique(y_true)
    if np.isin(values, (0, 1)).all() or np.isin(values, (-1, 1)).all():
        return
    shown = ", ".join(str(v) for v in values[:6]) + (", ..." if len(values) > 6 else "")
    raise ValueError(f"y_true must hold binary labels 0/1 (or booleans), got the values {shown}: for class ids, "
                     "pass one column per class (y_true == c) with that class's scores")


def _check_01(a: np.ndarray, name: str) -> None:
    """A ``ValueError`` unless ``a`` holds 0/1 (or booleans): ``astype(bool)`` read any nonzero value as 1, so
    probabilities passed as ``pred`` (0.2 -> 1) or -1/1 labels (-1 -> 1) gave an F1 without a word."""
    if a.dtype == bool:
        return
    bad = ~((a == 0) | (a == 1))
    if not bad.any():
        return
    first = np.argwhere(bad)[0]
    value = a[tuple(first)].item()
    at = ", ".join(str(int(i)) for i in first)
    if name == "pred" and np.issubdtype(a.dtype, np.floating):
        hint = "scores? threshold them first, f1_threshold(y_true, scores, 0.5), or use f1_top_k(y_true, scores)"
    elif np.isin(a[bad], (-1,)).all():
        hint = f"for -1/1 labels pass {name} == 1"
    else:
        hint = "one column per label, 1 where the item has it"
    raise ValueError(f"{name} must hold binary 0/1 (or booleans); it has {int(bad.sum())} other value(s), the first "
                     f"{value!r} at [{at}]: {hint}")


def _check_finite_threshold(threshold: np.ndarray) -> None:
    if np.issubdtype(threshold.dtype, np.inexact) and np.isnan(threshold).any():
        raise ValueError("threshold is NaN: no score is at or above it; give a number (one per label, or one for "
                         "all)")


def _finite_ranks(scores: np.ndarray) -> np.ndarray:
    """``scores`` with ``inf`` / ``-inf`` replaced by ranks that keep every order and tie (ROC-AUC and average
    precision depend on nothing else); finite scores are returned unchanged. scikit-learn refused infinite scores
    ("Input contains infinity"), though a saturated logit or log-odds ranks first (or last) as it should."""
    if not np.issubdtype(scores.dtype, np.inexact) or np.isfinite(scores).all():
        return scores
    from scipy.stats import rankdata

    return rankdata(scores, method="dense").reshape(scores.shape)  # one ranking: each column keeps its order


def top_k_predictions(scores, k) -> np.ndarray:
    """Binary matrix with the ``k[i]`` highest-scoring labels of row ``i`` set to 1 (of tied scores, the first
    columns; NaN scores are refused)."""
    scores = _as_numpy(scores)
    k = _as_numpy(k).astype(int)
    if scores.ndim != 2 or k.shape != (scores.shape[0],):
        raise ValueError(f"scores must be (n, L) and k (n,), got {scores.shape} and {k.shape}")
    _check_no_nan(scores)
    order = np.argsort(-scores, axis=1, kind="stable")
    pred = np.zeros_like(scores, dtype=np.int8)
    ranks = np.empty_like(order)
    rows = np.arange(scores.shape[0])[:, None]
    ranks[rows, order] = np.arange(scores.shape[1])[None, :]
    pred[ranks < k[:, None]] = 1
    return pred


def micro_macro_f1(y_true, pred) -> dict[str, float]:
    """Micro- and macro-F1 of binary (n, L) predictions; a label with no true and no predicted item scores 0.

    The same numbers as ``sklearn.metrics.f1_score(average=..., zero_division=0)`` (tested), computed from the
    per-label counts in one pass: sklearn's input validation made it 2.5 ms per call, and threshold search
    calls it 50 times per model. Both inputs hold 0/1 (or booleans): scores or -1/1 labels are refused.
    """
    y_true, pred = _as_numpy(y_true), _as_numpy(pred)
    _same_shape(y_true, pred, "pred")
    _check_01(y_true, "y_true")
    _check_01(pred, "pred")
    return _f1_counts(y_true.astype(bool), pred.astype(bool))


def _f1_counts(y_true: np.ndarray, pred: np.ndarray) -> dict[str, float]:
    """:func:`micro_macro_f1` of two checked boolean (n, L) arrays."""
    tp = (y_true & pred).sum(axis=0)  # (L,)
    wrong = (y_true ^ pred).sum(axis=0)  # (L,) false positives + false negatives
    denom = 2 * tp + wrong
    per_label = np.divide(2 * tp, denom, out=np.zeros(len(tp)), where=denom > 0)
    total = 2 * tp.sum() + wrong.sum()
    return {"micro_f1": float(2 * tp.sum() / total) if total else 0.0, "macro_f1": float(per_label.mean())}


def f1_top_k(y_true, scores) -> dict[str, float]:
    """Micro- and macro-F1 when each item gets its top-k labels, k = its true label count.

    This is the evaluation of DeepWalk/node2vec/NetMF/ProNE on multi-label node classification.
    """
    y_true, scores = _as_numpy(y_true), _as_numpy(scores)
    _same_shape(y_true, scores, "scores")
    _check_01(y_true, "y_true")
    y_true = y_true.astype(bool)
    return _f1_counts(y_true, top_k_predictions(scores, y_true.sum(axis=1)).astype(bool))


def f1_threshold(y_true, scores, threshold) -> dict[str, float]:
    """Micro- and macro-F1 with a fixed threshold (scalar or one per label (L,)); at least one label per item.

    A label is predicted where its score is at or above its threshold (``>=``); an item with no such label is
    given its highest-scoring one (the first of tied ones). NaN scores are refused."""
    y_true, scores = _as_numpy(y_true), _as_numpy(scores)
    _same_shape(y_true, scores, "scores")
    _check_01(y_true, "y_true")
    _check_no_nan(scores)
    threshold = _as_numpy(threshold)
    if threshold.shape not in ((), (1,), (scores.shape[1],)):
        raise ValueError(f"threshold must be a scalar or one per label ({scores.shape[1]},); got shape "
                         f"{threshold.shape}")
    _check_finite_threshold(threshold)
    pred = scores >= threshold
    empty = pred.sum(axis=1) == 0
    pred[empty, np.argmax(scores[empty], axis=1)] = True
    return _f1_counts(y_true.astype(bool), pred)


def _label_mean(metric, y_true, scores, defined, average: str | None) -> float | np.ndarray:
    """``metric`` of each column of (n, L) inputs where ``defined(column)``, NaN elsewhere; their mean over the
    defined labels (``average="macro"``; NaN if none) or the (L,) array (``average=None``)."""
    if average not in ("macro", None):
        raise ValueError(f"average={average!r}: choose 'macro' (the mean over the labels where it is defined) or "
                         "None (one value per label)")
    per_label = np.array([float(metric(y_true[:, j], scores[:, j])) if defined(y_true[:, j]) else np.nan
                          for j in range(y_true.shape[1])])
    if average is None:
        return per_label
    return float(np.nanmean(per_label)) if np.isfinite(per_label).any() else float("nan")


def roc_auc(y_true, scores, average: str | None = "macro") -> float | np.ndarray:
    """ROC-AUC (scikit-learn's ``roc_auc_score``; tied scores count one half); NaN when only one class is present.

    ``y_true`` (0/1 or booleans; -1/1 too) and ``scores`` (no NaN; ``inf`` and ``-inf`` rank first and last) are
    (n,) or both (n, L) (one binary label per column): other labels (class ids) and NaN scores are refused with a
    message. For (n, L) it is computed per
    label and averaged over the labels that have both classes among the items: a label without positives (or
    without negatives) has no ROC-AUC and is **left out of the mean**, where scikit-learn's ``average="macro"``
    makes the whole mean NaN; NaN when no label has both. ``average=None`` returns the (L,) per-label values
    instead, NaN for the undefined ones.
    """
    y_true, scores = _as_numpy(y_true), _as_numpy(scores)
    _same_shape(y_true, scores, "scores", (1, 2))
    _check_binary(y_true)
    _check_no_nan(scores)
    scores = _finite_ranks(scores)
    if y_true.ndim == 2:
        return _label_mean(roc_auc_score, y_true, scores, lambda y: len(np.unique(y)) == 2, average)
    if len(np.unique(y_true)) < 2:
        return float("nan")
    return float(roc_auc_score(y_true, scores))


def pr_auc(y_true, scores, average: str | None = "macro") -> float | np.ndarray:
    """PR-AUC as average precision (scikit-learn's ``average_precision_score``: precision at each distinct score
    weighted by the recall gained there, no interpolation); NaN when there is no positive (a 1 or ``True``).

    ``y_true`` (0/1 or booleans; -1/1 too) and ``scores`` (no NaN; ``inf`` and ``-inf`` rank first and last) are
    (n,) or both (n, L); other labels and NaN scores are refused with a message. For (n, L) it is computed per label and averaged over the
    labels with at least one positive: a label without positives has no average precision and is **left out of the
    mean** (scikit-learn's ``average="macro"`` counts a value for it with a warning, 'recall is set to one'); NaN
    when no label has a positive. ``average=None`` returns the (L,) per-label values instead, NaN for the
    undefined ones.
    """
    y_true, scores = _as_numpy(y_true), _as_numpy(scores)
    _same_shape(y_true, scores, "scores", (1, 2))
    _check_binary(y_true)
    _check_no_nan(scores)
    scores = _finite_ranks(scores)
    if y_true.ndim == 2:
        return _label_mean(average_precision_score, y_true, scores, lambda y: bool((y == 1).any()), average)
    if not (y_true == 1).any():
        return float("nan")
    return float(average_precision_score(y_true, scores))


# --------------------------------------------------------------------------------------------------
# Attention diagnostics (hub robustness). Attention follows the GATConv contract: ``edge_index`` (2, E) with
# edges source → target, ``alpha`` (E,) or (E, H). The diagnostics read each target's weights as a distribution
# over its incoming edges, renormalised to sum to one (:func:`_shares`): softmax attention already does, but
# ``degree_norm="sym"`` rescales it by sqrt(d_i / d_j) afterwards, so its raw weights sum to 0.6-1.4 per target,
# and an entropy or a hub mass of those would not be comparable with the other layers'.


def _attention_inputs(edge_index, alpha, num_nodes):
    import torch

    alpha = torch.as_tensor(alpha).detach().double()
    if alpha.dim() == 1:
        alpha = alpha.unsqueeze(-1)  # (E, 1)
    edge_index = torch.as_tensor(edge_index).long()
    if edge_index.dim() != 2 or edge_index.size(0) != 2 or alpha.size(0) != edge_index.size(1):
        raise ValueError(f"edge_index must be (2, E) and alpha (E,) or (E, H) with the same E, "
                         f"got {tuple(edge_index.shape)} and {tuple(alpha.shape)}")
    n = int(num_nodes) if num_nodes is not None else int(edge_index.max()) + 1 if edge_index.numel() else 0
    return edge_index, alpha, n


def _shares(alpha, target, n: int):
    """``alpha`` (E, H) renormalised to sum to one over the edges of each ``target`` (E,) (of ``n`` nodes)."""
    from torch_geometric.utils import scatter

    return alpha / scatter(alpha, target, dim=0, dim_size=n, reduce="sum")[target].clamp(min=1e-300)


def attention_entropy(edge_index, alpha, num_nodes: int | None = None):
    r"""Entropy of each target's attention, :math:`H_i = -\sum_{j \in \mathcal{N}(i)} \alpha_{ij} \ln \alpha_{ij}`.

    Weights that do not sum to one (``degree_norm="sym"``) are renormalised per target first.

    Returns a (N, H) float64 tensor (nats); 0 for a node with one incoming edge, NaN for none.
    """
    import torch
    from torch_geometric.utils import scatter

    edge_index, alpha, n = _attention_inputs(edge_index, alpha, num_nodes)
    alpha = _shares(alpha, edge_index[1], n)
    plogp = torch.special.xlogy(alpha, alpha)  # (E, H), 0 log 0 = 0
    ent = -scatter(plogp, edge_index[1], dim=0, dim_size=n, reduce="sum")  # (N, H)
    deg = scatter(torch.ones_like(alpha[:, 0]), edge_index[1], dim=0, dim_size=n, reduce="sum")  # (N,)
    ent[deg == 0] = float("nan")
    return ent


def attention_entropy_ratio(edge_index, alpha, num_nodes: int | None = None):
    r"""Attention entropy over its uniform maximum, :math:`H_i / \ln d_i` (:math:`d_i` = in-degree, self-loops
    included), of the weights renormalised per target (:func:`attention_entropy`). 1 means uniform attention
    (mean aggregation), near 0 means one neighbour takes it all.

    Returns a (N, H) float64 tensor; NaN where :math:`d_i < 2` (the ratio is undefined).
    """
    import torch
    from torch_geometric.utils import scatter

    edge_index, alpha, n = _attention_inputs(edge_index, alpha, num_nodes)
    ent = attention_entropy(edge_index, alpha, n)  # (N, H)
    deg = scatter(torch.ones_like(alpha[:, 0]), edge_index[1], dim=0, dim_size=n, reduce="sum")  # (N,)
    ratio = ent / deg.log().unsqueeze(-1)
    ratio[deg < 2] = float("nan")
    return ratio


def hub_attention_mass(edge_index, alpha, hubs, num_nodes: int | None = None) -> dict[str, float]:
    r"""How much attention lands on hub sources, against what uniform attention would give.

    For each target :math:`i` with incoming edges, :math:`m_i = \sum_{j \in \mathcal{N}(i) \cap \text{hubs}}
    \alpha_{ij}` and :math:`u_i = |\mathcal{N}(i) \cap \text{hubs}| / d_i`. Returns the means over targets
    and heads: ``{"mass": mean m, "uniform": mean u, "ratio": mass / uniform}`` (ratio > 1: attention
    concentrates on hubs beyond their share of the edges). Weights that do not sum to one
    (``degree_norm="sym"``) are renormalised per target first, so :math:`m_i` is the hubs' share of what
    :math:`i` receives.

    Args:
        edge_index: (2, E) edges source → target.
        alpha: (E,) or (E, H) attention weights of those edges.
        hubs: node ids of the hubs, or a (N,) boolean mask (e.g. the top-degree fraction).
        num_nodes: N (default: the largest id in ``edge_index`` + 1).
    """
    import torch
    from torch_geometric.utils import scatter

    edge_index, alpha, n = _attention_inputs(edge_index, alpha, num_nodes)
    hubs = torch.as_tensor(hubs, device=edge_index.device)
    if hubs.dtype != torch.bool:
        ids = hubs.reshape(-1)
        if ids.is_floating_point() and not torch.equal(ids, ids.round()):
            raise ValueError("hubs must be node ids (integers) or a boolean mask, not fractional numbers")
        if ids.numel() == n > 2 and bool(((ids == 0) | (ids == 1)).all()):  # read as ids, it was hubs 0 and 1
            raise ValueError(f"hubs is {n} zeros and ones, one per node: a mask given as numbers; pass it as a "
                             "boolean mask (hubs.astype(bool) or hubs.bool()), or give the hubs' node ids")
        if ids.numel() and (int(ids.min()) < 0 or int(ids.max()) >= n):
            raise ValueError(f"hubs names node {int(ids.min()) if int(ids.min()) < 0 else int(ids.max())}, "
                             f"outside the graph's 0..{n - 1}")
    is_hub = hubs.bool() if hubs.dtype == torch.bool else \
        torch.zeros(n, dtype=torch.bool, device=edge_index.device).index_fill_(0, hubs.reshape(-1).long(), True)
    if is_hub.numel() != n:
        raise ValueError(f"hubs mask has {is_hub.numel()} entries for a graph of {n} nodes")
    on_hub = is_hub[edge_index[0]].double().unsqueeze(-1)  # (E, 1)
    alpha = _shares(alpha, edge_index[1], n)
    mass = scatter(alpha * on_hub, edge_index[1], dim=0, dim_size=n, reduce="sum")  # (N, H)
    deg = scatter(torch.ones_like(on_hub), edge_index[1], dim=0, dim_size=n, reduce="sum")  # (N, 1)
    uni = scatter(on_hub, edge_index[1], dim=0, dim_size=n, reduce="sum") / deg.clamp(min=1)  # (N, 1)
    has = deg[:, 0] > 0
    m, u = float(mass[has].mean()), float(uni[has].mean())
    return {"mass": m, "uniform": u, "ratio": m / u if u > 0 else float("nan")}


def attention_js_divergence(edge_index_before, alpha_before, edge_index_after, alpha_after, node_map=None,
                            num_nodes: int | None = None):
    r"""Jensen–Shannon divergence between each target's attention before and after a perturbation.

    Only edges present in both graphs are compared (``node_map`` (N,) maps old node ids to new ones, -1 for
    removed nodes; identity when omitted); on those edges each distribution is renormalised per target,
    then :math:`\mathrm{JS}(P \| Q) = \tfrac12 \mathrm{KL}(P \| M) + \tfrac12 \mathrm{KL}(Q \| M)`,
    :math:`M = (P + Q)/2`, in bits, so it lies in :math:`[0, 1]`.

    Returns a (N', H) float64 tensor over the nodes of the perturbed graph; NaN for targets with no
    common incoming edge.
    """
    import torch
    from torch_geometric.utils import scatter

    ei_a, p, n_a = _attention_inputs(edge_index_before, alpha_before, None)
    ei_b, q, n_b = _attention_inputs(edge_index_after, alpha_after, num_nodes)
    if p.size(1) != q.size(1):
        raise ValueError(f"alpha before has {p.size(1)} heads and alpha after {q.size(1)}")
    if node_map is not None:
        node_map = torch.as_tensor(node_map, device=ei_a.device).long()
        ei_a = node_map[ei_a]  # (2, E_a) in new ids, -1 where an endpoint was removed
        alive = (ei_a >= 0).all(0)
        ei_a, p = ei_a[:, alive], p[alive]
    n = max(n_b, int(ei_a.max()) + 1 if ei_a.numel() else 0)
    key_a = (ei_a[0] * n + ei_a[1]).cpu().numpy()
    key_b = (ei_b[0] * n + ei_b[1]).cpu().numpy()
    _, ia, ib = np.intersect1d(key_a, key_b, assume_unique=False, return_indices=True)
    ia, ib = torch.from_numpy(ia).to(p.device), torch.from_numpy(ib).to(q.device)
    tgt = ei_b[1, ib]  # (C,)
    p, q = p[ia], q[ib]  # (C, H)
    p, q = _shares(p, tgt, n), _shares(q, tgt, n)
    m = (p + q) / 2
    kl = 0.5 * (torch.special.xlogy(p, p) - torch.special.xlogy(p, m)) \
        + 0.5 * (torch.special.xlogy(q, q) - torch.special.xlogy(q, m))  # (C, H)
    js = scatter(kl, tgt, dim=0, dim_size=n, reduce="sum") / np.log(2.0)  # (N', H)
    count = scatter(torch.ones_like(tgt, dtype=torch.double), tgt, dim=0, dim_size=n, reduce="sum")
    js[count == 0] = float("nan")
    return js[:n_b].clamp(min=0.0)


def flip_rate(pred_before, pred_after, mask=None) -> float:
    """Fraction of items whose prediction changed (for multi-label rows: any label changed).

    ``pred_before`` and ``pred_after`` are (n,) class ids or (n, L) binary label sets over the same items;
    ``mask`` (n,) selects the items to count, e.g. the nodes that were not perturbed themselves.
    """
    a, b = _as_numpy(pred_before), _as_numpy(pred_after)
    if a.shape != b.shape:
        raise ValueError(f"predictions before {a.shape} and after {b.shape} must cover the same items")
    changed = (a != b).reshape(a.shape[0], -1).any(axis=1)
    if mask is not None:
        changed = changed[_as_numpy(mask).astype(bool)]
    return float(changed.mean()) if changed.size else float("nan")


def label_homophily(edge_index, y) -> dict[str, float]:
    r"""How strongly labels follow the edges, against what degree-preserving chance gives.

    Only edges whose two ends are labelled count (single-label ``y`` (N,): class id, negative = unlabelled;
    multi-label ``y`` (N, L): multi-hot, all-zero row = unlabelled). With :math:`E_\ell` the directed edges
    whose source carries label :math:`\ell`,

    .. math::
        h_\ell = \frac{|\{(u,v) \in E_\ell : \ell \in y_v\}|}{|E_\ell|},\qquad
        q_\ell = \frac{|E_\ell|}{|E|},

    :math:`h_\ell` is the chance that a neighbour of a protein with :math:`\ell` also has it and :math:`q_\ell`
    the same chance for a random edge end (a degree-preserving rewiring keeps :math:`q_\ell`, so
    :math:`h_\ell = q_\ell` is "no homophily"). Single-label: ``homophily`` is the edge homophily ratio
    :math:`\sum_\ell q_\ell h_\ell` (PyG's ``homophily(method="edge")``, Zhu et al. 2020) and ``expected``
    :math:`\sum_\ell q_\ell^2`. Multi-label: the label means :math:`\bar h` and :math:`\bar q`, so every label
    weighs the same (as in Macro-F1). ``lift`` = homophily / expected.

    ``edge_index`` should hold both directions of an undirected graph.
    """
    src, dst = (_as_numpy(t).astype(np.int64) for t in _as_numpy(edge_index))
    y = _as_numpy(y)
    multilabel = y.ndim == 2
    if multilabel:
        onehot = y.astype(bool)  # (N, L)
    else:
        onehot = np.eye(max(int(y.max()), 0) + 1, dtype=bool)[np.maximum(y, 0)] & (y >= 0)[:, None]  # (N, C)
    labelled = onehot.any(1)
    keep = labelled[src] & labelled[dst]
    if not keep.any():
        raise ValueError("label_homophily: no edge joins two labelled nodes")
    a, b = onehot[src[keep]], onehot[dst[keep]]  # (E', L)
    n_src = a.sum(0)  # |E_l|
    h = np.divide((a & b).sum(0), n_src, out=np.zeros(a.shape[1]), where=n_src > 0)
    q = n_src / keep.sum()
    present = n_src > 0
    if multilabel:
        hom, exp = float(h[present].mean()), float(q[present].mean())
    else:
        hom, exp = float((q * h).sum()), float((q**2).sum())
    return {"homophily": hom, "expected": exp, "lift": hom / exp}
