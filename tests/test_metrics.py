"""F1 metrics of gatbio.metrics: known answers and agreement with scikit-learn."""

import numpy as np
import pytest
from sklearn.metrics import f1_score

from gatbio.metrics import f1_threshold, f1_top_k, micro_macro_f1, top_k_predictions


@pytest.mark.parametrize("seed", range(5))
def test_micro_macro_f1_matches_sklearn(seed):
    rng = np.random.default_rng(seed)
    y = rng.random((40, 7)) < 0.2
    pred = rng.random((40, 7)) < 0.3
    y[:, 3] = False  # a label nobody has
    pred[:, 3] = False  # ... and nobody is predicted: sklearn's zero_division=0 gives it F1 0
    got = micro_macro_f1(y, pred)
    assert got["micro_f1"] == pytest.approx(f1_score(y, pred, average="micro", zero_division=0))
    assert got["macro_f1"] == pytest.approx(f1_score(y, pred, average="macro", zero_division=0))


def test_f1_top_k_known_answer():
    y = np.array([[1, 0, 0], [0, 1, 1]])
    scores = np.array([[0.9, 0.8, 0.1], [0.7, 0.6, 0.5]])
    # row 0: top-1 = label 0 (right); row 1: top-2 = labels 0, 1 (one right, one wrong)
    np.testing.assert_array_equal(top_k_predictions(scores, y.sum(1)), [[1, 0, 0], [1, 1, 0]])
    out = f1_top_k(y, scores)
    assert out["micro_f1"] == pytest.approx(2 * 2 / (2 * 2 + 2))  # tp 2, fp 1, fn 1
    assert out["macro_f1"] == pytest.approx((2 / 3 + 1.0 + 0.0) / 3)


def test_f1_threshold_gives_every_item_a_label():
    y = np.array([[0, 1], [1, 0]])
    scores = np.array([[0.1, 0.2], [0.3, 0.05]])  # nothing above 0.5: each row takes its argmax
    assert f1_threshold(y, scores, 0.5) == {"micro_f1": 1.0, "macro_f1": 1.0}
