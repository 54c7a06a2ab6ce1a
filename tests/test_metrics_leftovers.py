"""Leftovers of the metrics audit: NaN scores and class ids refused with a message, not ranked silently or
refused by scikit-learn without saying where."""

import numpy as np
import pytest
import torch

from gatbio.metrics import f1_threshold, f1_top_k, pr_auc, roc_auc, top_k_predictions

Y = np.array([[1, 0], [0, 1], [1, 1], [0, 0]])
S = np.array([[0.9, 0.1], [0.2, 0.8], [0.7, 0.6], [0.3, 0.4]])


def _with_nan(a, *where):
    a = a.astype(float).copy()
    for w in where:
        a[w] = np.nan
    return a


@pytest.mark.parametrize("fn", [roc_auc, pr_auc])
def test_auc_refuses_class_ids(fn):
    with pytest.raises(ValueError, match=r"y_true must hold binary labels 0/1 \(or booleans\), got the values 0, 1, 2"):
        fn(np.array([0, 1, 2, 1]), np.array([0.1, 0.5, 0.9, 0.4]))
    with pytest.raises(ValueError, match="got the values 0, 1, 2"):
        fn(np.array([[0, 2], [1, 0], [0, 1]]), np.ones((3, 2)))
    with pytest.raises(ValueError, match="got the values -1, 0, 1"):
        fn(np.array([-1, 0, 1, 1]), np.array([0.1, 0.5, 0.9, 0.4]))
    # 0/1 in any dtype, booleans and scikit-learn's -1/1 stay accepted
    for y in (np.array([0, 1, 1, 0]), np.array([0.0, 1, 1, 0]), np.array([False, True, True, False]),
              np.array([-1, 1, 1, -1])):
        assert fn(y, np.array([0.1, 0.9, 0.8, 0.2])) == 1.0


@pytest.mark.parametrize("fn", [roc_auc, pr_auc])
def test_auc_refuses_nan_scores_saying_where(fn):
    with pytest.raises(ValueError, match=r"scores has 2 NaN value\(s\) \(the first at row 1, column 0\)"):
        fn(Y, _with_nan(S, (1, 0), (3, 1)))
    with pytest.raises(ValueError, match=r"scores has 1 NaN value\(s\) \(the first at index 2\)"):
        fn(Y[:, 0], _with_nan(S[:, 0], 2))
    with pytest.raises(ValueError, match="NaN"):
        fn(torch.tensor(Y), torch.tensor(_with_nan(S, (0, 1))))


def test_f1_threshold_refuses_nan_scores():
    # before: a row of NaN got label 0 (argmax of NaNs), as if it had been scored
    with pytest.raises(ValueError, match=r"scores has 2 NaN value\(s\) \(the first at row 3, column 0\)"):
        f1_threshold(Y, _with_nan(S, (3, 0), (3, 1)), 0.5)
    assert f1_threshold(Y, S, 0.5)["micro_f1"] > 0


def test_top_k_refuses_nan_scores():
    with pytest.raises(ValueError, match=r"scores has 1 NaN value\(s\) \(the first at row 0, column 1\)"):
        top_k_predictions(_with_nan(S, (0, 1)), np.array([1, 1, 1, 1]))
    with pytest.raises(ValueError, match="NaN"):
        f1_top_k(Y, _with_nan(S, (2, 0)))
    assert top_k_predictions(S, np.array([1, 1, 2, 0])).tolist() == [[1, 0], [0, 1], [1, 1], [0, 0]]
