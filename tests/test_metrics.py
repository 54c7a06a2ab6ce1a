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


def test_label_homophily_single_label_known_answer_and_pyg():
    import torch
    from torch_geometric.utils import homophily, to_undirected

    from gatbio.metrics import label_homophily

    # path 0-1-2-3 with classes a a b b, plus node 4 unlabelled (-1) tied to 0: that edge is ignored
    ei = to_undirected(torch.tensor([[0, 1, 2, 0], [1, 2, 3, 4]]))
    y = torch.tensor([0, 0, 1, 1, -1])
    out = label_homophily(ei, y)
    # 6 directed edges among labelled nodes, 4 same-class (0-1, 2-3 both ways): 2/3;
    # edge ends: class a 3 of 6, class b 3 of 6 → chance 1/2
    assert out["homophily"] == pytest.approx(2 / 3) and out["expected"] == pytest.approx(0.5)
    assert out["lift"] == pytest.approx(4 / 3)
    keep = (y[ei] >= 0).all(0)
    assert out["homophily"] == pytest.approx(homophily(ei[:, keep], y, method="edge"))


def test_label_homophily_multilabel_known_answer_and_errors():
    import torch
    from torch_geometric.utils import to_undirected

    from gatbio.metrics import label_homophily

    ei = to_undirected(torch.tensor([[0, 1, 2], [1, 2, 3]]))  # path 0-1-2-3
    y = np.array([[1, 0], [1, 1], [0, 1], [0, 1]])
    out = label_homophily(ei, y)
    # label 0 at ends of 0→1, 1→0, 1→2: kept by 0→1, 1→0 → h = 2/3, q = 3/6
    # label 1 at ends of 1→0, 1→2, 2→1, 2→3, 3→2: kept by 1→2, 2→1, 2→3, 3→2 → h = 4/5, q = 5/6
    assert out["homophily"] == pytest.approx((2 / 3 + 4 / 5) / 2)
    assert out["expected"] == pytest.approx((3 / 6 + 5 / 6) / 2)
    with pytest.raises(ValueError, match="no edge joins two labelled nodes"):
        label_homophily(ei, np.array([[1, 0], [0, 0], [0, 1], [0, 0]]))
    with pytest.raises(ValueError, match="no edge joins two labelled nodes"):
        label_homophily(ei, np.array([-1, -1, -1, -1]))  # single-label, nobody labelled
