"""A user's audit of gatbio.metrics: agreement with scikit-learn, labels without positives, ties, thresholds, and
inputs of the wrong shape refused with both shapes named."""

import warnings

import numpy as np
import pytest
import torch
from sklearn.metrics import average_precision_score, f1_score, roc_auc_score

from gatbio.metrics import f1_threshold, f1_top_k, micro_macro_f1, pr_auc, roc_auc


@pytest.mark.parametrize("seed", range(4))
def test_roc_and_pr_auc_match_sklearn_with_ties_1d_and_2d(seed):
    rng = np.random.default_rng(seed)
    y = rng.random(60) < 0.3
    s = np.round(rng.random(60), 1)  # many ties
    assert roc_auc(y, s) == pytest.approx(roc_auc_score(y, s))
    assert pr_auc(y, s) == pytest.approx(average_precision_score(y, s))
    assert pr_auc(torch.tensor(y), torch.tensor(s)) == pytest.approx(average_precision_score(y, s))
    Y = rng.random((60, 4)) < 0.4  # every label has both classes
    S = np.round(rng.random((60, 4)), 1)
    assert roc_auc(Y, S) == pytest.approx(roc_auc_score(Y, S, average="macro"))
    assert pr_auc(Y, S) == pytest.approx(average_precision_score(Y, S, average="macro"))
    np.testing.assert_allclose(roc_auc(Y, S, average=None), roc_auc_score(Y, S, average=None))
    np.testing.assert_allclose(pr_auc(Y, S, average=None), average_precision_score(Y, S, average=None))


def test_a_label_without_positives_is_left_out_of_the_label_mean():
    """With (n, L) inputs a label nobody has made roc_auc NaN for every label together (sklearn's macro mean of a
    NaN) and pr_auc counted sklearn's 'recall is set to one' value for it."""
    y = np.array([[1, 0, 0], [0, 1, 0], [1, 1, 0], [0, 0, 0]])  # label 2: no positive
    s = np.array([[0.9, 0.2, 0.5], [0.1, 0.8, 0.3], [0.8, 0.7, 0.1], [0.2, 0.1, 0.9]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no sklearn warning either
        assert roc_auc(y, s) == pytest.approx(1.0)  # labels 0 and 1 are ranked perfectly
        assert pr_auc(y, s) == pytest.approx(1.0)
        per = roc_auc(y, s, average=None)
    assert per[:2].tolist() == [1.0, 1.0] and np.isnan(per[2])
    y_all = y.copy()
    y_all[:, 2] = 1  # all positive: no ROC-AUC, an average precision of 1
    assert roc_auc(y_all, s) == pytest.approx(1.0) and pr_auc(y_all, s, average=None)[2] == pytest.approx(1.0)
    assert np.isnan(roc_auc(np.zeros((3, 2)), np.ones((3, 2))))  # no label defined: NaN, not a mean of nothing
    assert np.isnan(pr_auc(np.zeros(3), np.arange(3.0)))
    with pytest.raises(ValueError, match="average='micro'"):
        roc_auc(y, s, average="micro")


def test_pr_auc_of_minus_one_one_labels_is_not_nan():
    """'No positive' was read as y.sum() == 0, which a -1 / 1 labelling with as many of each also gives."""
    y = np.array([-1, 1, -1, 1])
    s = np.array([0.1, 0.9, 0.2, 0.8])
    assert pr_auc(y, s) == pytest.approx(average_precision_score(y, s)) == pytest.approx(1.0)


def test_f1_inputs_of_another_shape_are_refused_with_both_shapes():
    """A 1-D input failed with "object of type 'numpy.int64' has no len()", a (L,) row was broadcast against the
    (n, L) matrix without a word, and a threshold of the wrong length failed in NumPy's broadcasting."""
    y = np.array([[1, 0], [0, 1], [1, 1]])
    with pytest.raises(ValueError, match=r"y_true and pred must have the same shape \(n, L\); got \(3,\) and \(3,\); "
                                         r"for one binary label pass y_true\[:, None\]"):
        micro_macro_f1(y[:, 0], y[:, 1])
    with pytest.raises(ValueError, match=r"got \(2,\) and \(3, 2\)"):
        micro_macro_f1(y[0], y)  # was broadcast: each row compared with row 0
    with pytest.raises(ValueError, match=r"y_true and scores must have the same shape"):
        f1_top_k(y, np.ones((3, 3)))
    with pytest.raises(ValueError, match=r"threshold must be a scalar or one per label \(2,\); got shape \(3,\)"):
        f1_threshold(y, np.ones((3, 2)), [0.5, 0.5, 0.5])
    with pytest.raises(ValueError, match=r"y_true and scores must have the same shape \(n,\) or \(n, L\); got \(3,\) "
                                         r"and \(2,\)"):
        roc_auc(y[:, 0], np.ones(2))
    # one binary label as a column agrees with sklearn's binary F1
    p = np.array([1, 1, 0])
    got = micro_macro_f1(y[:, :1], p[:, None])
    assert got["micro_f1"] == got["macro_f1"] == pytest.approx(f1_score(y[:, 0], p))


def test_f1_threshold_is_inclusive_per_label_and_falls_back_to_the_top_label():
    y = np.array([[1, 0], [0, 1], [1, 0]])
    s = np.array([[0.5, 0.1], [0.2, 0.3], [0.05, 0.04]])
    # row 0: 0.5 >= 0.5 (inclusive); row 1: label 1 passes its own threshold 0.3; row 2: none, takes label 0
    assert f1_threshold(y, s, np.array([0.5, 0.3])) == {"micro_f1": 1.0, "macro_f1": 1.0}
    # one threshold: rows 1 and 2 have no label at 0.5 and take their top one (labels 1 and 0)
    assert f1_threshold(y, s, torch.tensor(0.5)) == {"micro_f1": 1.0, "macro_f1": 1.0}
    assert f1_threshold(y, s, 0.04)["micro_f1"] == pytest.approx(f1_score(y, np.ones((3, 2)), average="micro"))
