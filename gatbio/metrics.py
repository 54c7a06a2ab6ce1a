"""Metrics on one input contract: scores are (n_items, n_classes) or (n_items,) arrays, truth likewise.

Classification (protein function): :func:`f1_top_k` is the protocol of node2vec / NetMF / ProNE (each test
node is given its k highest-scoring labels, k = its true label count); :func:`f1_threshold` is the
realistic score that does not peek at k. Link prediction (food webs): :func:`roc_auc` and
:func:`pr_auc` (average precision), both from scikit-learn.
"""

from __future__ import annotations

import numpy as np
from sklearn.metrics import average_precision_score, f1_score, roc_auc_score


def _as_numpy(a) -> np.ndarray:
    if hasattr(a, "detach"):
        a = a.detach().cpu().numpy()
    return np.asarray(a)


def top_k_predictions(scores, k) -> np.ndarray:
    """Binary matrix with the ``k[i]`` highest-scoring labels of row ``i`` set to 1."""
    scores = _as_numpy(scores)
    k = _as_numpy(k).astype(int)
    if scores.ndim != 2 or k.shape != (scores.shape[0],):
        raise ValueError(f"scores must be (n, L) and k (n,), got {scores.shape} and {k.shape}")
    order = np.argsort(-scores, axis=1, kind="stable")
    pred = np.zeros_like(scores, dtype=np.int8)
    ranks = np.empty_like(order)
    rows = np.arange(scores.shape[0])[:, None]
    ranks[rows, order] = np.arange(scores.shape[1])[None, :]
    pred[ranks < k[:, None]] = 1
    return pred


def f1_top_k(y_true, scores) -> dict[str, float]:
    """Micro- and macro-F1 when each item gets its top-k labels, k = its true label count.

    This is the evaluation of DeepWalk/node2vec/NetMF/ProNE on multi-label node classification.
    """
    y_true = _as_numpy(y_true).astype(np.int8)
    pred = top_k_predictions(scores, y_true.sum(axis=1))
    return {
        "micro_f1": float(f1_score(y_true, pred, average="micro", zero_division=0)),
        "macro_f1": float(f1_score(y_true, pred, average="macro", zero_division=0)),
    }


def f1_threshold(y_true, scores, threshold) -> dict[str, float]:
    """Micro- and macro-F1 with a fixed threshold (scalar or one per label); at least one label per item."""
    y_true = _as_numpy(y_true).astype(np.int8)
    scores = _as_numpy(scores)
    pred = (scores >= np.asarray(threshold)).astype(np.int8)
    empty = pred.sum(axis=1) == 0
    pred[empty, np.argmax(scores[empty], axis=1)] = 1
    return {
        "micro_f1": float(f1_score(y_true, pred, average="micro", zero_division=0)),
        "macro_f1": float(f1_score(y_true, pred, average="macro", zero_division=0)),
    }


def roc_auc(y_true, scores) -> float:
    """ROC-AUC (scikit-learn); NaN when only one class is present."""
    y_true, scores = _as_numpy(y_true), _as_numpy(scores)
    if len(np.unique(y_true)) < 2:
        return float("nan")
    return float(roc_auc_score(y_true, scores))


def pr_auc(y_true, scores) -> float:
    """PR-AUC as average precision (scikit-learn); NaN when there is no positive."""
    y_true, scores = _as_numpy(y_true), _as_numpy(scores)
    if y_true.sum() == 0:
        return float("nan")
    return float(average_precision_score(y_true, scores))
