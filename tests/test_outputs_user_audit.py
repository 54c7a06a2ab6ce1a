"""Numbers and tables a user reads: F1 inputs that are not 0/1, infinite scores, training that never scored, figures
of mismatched inputs, mean ± std over seeds with undefined runs, and JSON that other readers accept."""

from __future__ import annotations

import copy
import json

import numpy as np
import pandas as pd
import pytest
import torch
from conftest import two_cliques
from sklearn.metrics import average_precision_score, roc_auc_score
from torch_geometric.data import Data

from gatbio import metrics as M
from gatbio import plot
from gatbio.results import format_mean_std, read_json, summarize, write_json
from gatbio.train import PairTrainConfig, TrainConfig, fit, fit_pairs

# ------------------------------------------------------------------------------------------------ metrics


def test_f1_refuses_scores_passed_as_predictions():
    """astype(bool) read every nonzero probability as a prediction: micro_macro_f1(y, proba) gave 0.8, no error
    (scikit-learn refuses the mix)."""
    y = np.array([[1, 0], [0, 1], [1, 1]])
    proba = np.array([[0.9, 0.2], [0.1, 0.7], [0.6, 0.4]])
    with pytest.raises(ValueError, match=r"pred must hold binary 0/1.*first 0\.9 at \[0, 0\].*f1_threshold"):
        M.micro_macro_f1(y, proba)


@pytest.mark.parametrize("fn, args, told", [
    (M.micro_macro_f1, (np.array([[1, -1], [-1, 1]]), np.array([[1, 0], [0, 1]])), "y_true == 1"),
    (M.f1_top_k, (np.array([[0.7, 0.0], [0.0, 1.0]]), np.array([[0.9, 0.1], [0.2, 0.8]])), "0.7"),
    (M.f1_threshold, (np.array([[2, 0], [0, 1]]), np.array([[0.9, 0.1], [0.2, 0.8]]), 0.5), "one column per label"),
])
def test_f1_refuses_labels_that_are_not_0_1(fn, args, told):
    """-1 was read as a positive label, 0.7 as 0 and 2 as a label count of 2: F1 values without a word."""
    with pytest.raises(ValueError, match="y_true must hold binary 0/1") as err:
        fn(*args)
    assert told in str(err.value)


def test_f1_threshold_refuses_a_nan_threshold():
    """No score is >= NaN, so every item silently got only its top label."""
    with pytest.raises(ValueError, match="threshold is NaN"):
        M.f1_threshold(np.array([[1, 0], [0, 1]]), np.array([[0.9, 0.1], [0.2, 0.8]]), float("nan"))


def test_auc_ranks_infinite_scores_as_the_largest_and_smallest():
    """A saturated logit (inf) reached scikit-learn's "Input contains infinity"; both metrics depend only on the
    order and ties of the scores, so ±inf are the same as the largest and smallest finite values."""
    y = np.array([0, 1, 1, 0, 1, 0])
    s = np.array([0.1, np.inf, 0.5, -np.inf, 0.5, np.inf])
    finite = np.array([0.1, 1e300, 0.5, -1e300, 0.5, 1e300])
    assert M.roc_auc(y, s) == pytest.approx(roc_auc_score(y, finite))
    assert M.pr_auc(y, s) == pytest.approx(average_precision_score(y, finite))
    Y, S = np.stack([y, 1 - y], 1), np.stack([s, -s], 1)  # (n, 2): each column ranked on its own
    F = np.stack([finite, -finite], 1)
    np.testing.assert_allclose(M.roc_auc(Y, S, average=None), [roc_auc_score(Y[:, j], F[:, j]) for j in range(2)])
    np.testing.assert_allclose(M.pr_auc(Y, S, average=None),
                               [average_precision_score(Y[:, j], F[:, j]) for j in range(2)])


# ------------------------------------------------------------------------------------------------ training


def _node_model():
    from gatbio.nn.node_models import GATNodeClassifier

    torch.manual_seed(0)
    return GATNodeClassifier(2, 2, hidden_channels=4, heads=2, task="multiclass", dropout=0.0)


FIT, VAL = torch.tensor([0, 1, 2, 6, 7, 8]), torch.tensor([3, 4, 9, 10])


def _auc(y_val: np.ndarray, proba: np.ndarray) -> float:  # a metric that refuses NaN scores, as gatbio's do
    return M.roc_auc(np.eye(2)[y_val], proba)


def test_fit_refuses_to_return_untrained_weights_when_no_score_is_finite():
    """A score_fn that is NaN on every evaluation returned the initial weights with best_val=-inf (written as
    -Infinity to the run file), as if training had happened."""
    x, ei, y = two_cliques()
    with pytest.raises(ValueError, match="score_fn gave no finite score on the validation nodes in 3 evaluation"):
        fit(_node_model(), x, ei, y, FIT, VAL, lambda a, b: float("nan"), TrainConfig(epochs=6, patience=5))


def test_fit_pairs_refuses_to_return_untrained_weights_when_no_score_is_finite():
    from gatbio.nn.pair_models import build_pair_model, model_options

    x, ei, _ = two_cliques()
    pairs = torch.tensor([(i, j) for i in range(12) for j in range(i + 1, 12) if (i + j) % 3 == 0])  # (P, 2)
    modes = (torch.rand(pairs.size(0), 3, generator=torch.Generator().manual_seed(1)) < 0.4).float()
    n = pairs.size(0)
    torch.manual_seed(0)
    model = build_pair_model(model_options("gat_plain", {"hidden": 8, "heads": 2}), 2, 3)
    with pytest.raises(ValueError, match="no finite score on the validation pairs"):
        fit_pairs(model, x, ei, pairs, modes, torch.arange(n - 4), torch.arange(n - 4, n),
                  lambda a, b: float("nan"), PairTrainConfig(epochs=4, eval_every=2))


def test_fit_keeps_the_best_weights_when_the_model_diverges():
    """Weights that turn NaN (a too large lr) made the metric refuse the NaN probabilities ("fill them with
    np.nan_to_num"), a crash after the best state was found; now a NaN evaluation counts as no improvement and
    the best state (that of the best validation score) is the one returned."""
    x, ei, y = two_cliques()
    model = _node_model()
    saved = {}

    def on_epoch(epoch: int, _: int) -> None:
        if epoch == 2:  # after its evaluation: the only finite one
            saved["best"] = copy.deepcopy(model.state_dict())
            with torch.no_grad():
                for p in model.parameters():
                    p.fill_(float("nan"))

    res = fit(model, x, ei, y, FIT, VAL, _auc, TrainConfig(epochs=20, eval_every=2, patience=2), on_epoch=on_epoch)
    assert res.best_epoch == 2 and np.isfinite(res.best_val) and res.epochs_run == 6
    assert [np.isnan(s) for _, _, s in res.history] == [False, True, True]
    assert all(torch.equal(v, saved["best"][k]) for k, v in model.state_dict().items())


# ------------------------------------------------------------------------------------------------ figures


@pytest.fixture
def web():
    src, dst = [0, 1, 0, 1, 2, 3, 4, 2], [2, 2, 3, 3, 4, 4, 5, 5]
    return Data(edge_index=torch.tensor([src, dst]), num_nodes=6, name="tiny",
                node_names=["alga", "detritus", "snail", "mayfly", "stonefly", "trout"])


def test_foodweb_attention_of_another_length_is_refused(web):
    """matplotlib cycles a short colour list: 2 weights for 8 links drew every link with one of those two."""
    with pytest.raises(ValueError, match="attention has 2 weights for 8 observed links"):
        plot.foodweb_figure(web, attention=np.ones(2))


@pytest.mark.parametrize("resource, told", [("nope", "resource 'nope' is not a species"),
                                            (9, "resource 9 is not a species of this web")])
def test_foodweb_links_of_unknown_species_are_refused_naming_them(web, resource, told):
    """A bare KeyError 'nope' (or IndexError 9) from deep in the drawing."""
    links = pd.DataFrame({"resource": [resource], "consumer": ["trout"], "score": [1.0]})
    with pytest.raises(ValueError, match=told):
        plot.foodweb_figure(web, links)


def test_foodweb_links_without_a_finite_score_are_refused(web):
    """A NaN score made the colour scale NaN: arrows and colour bar without colour, no word."""
    links = pd.DataFrame({"resource": ["alga", "snail"], "consumer": ["trout", "trout"], "score": [1.0, np.nan]})
    with pytest.raises(ValueError, match=r"links: 1 score\(s\) are not finite \(the first in row 1: nan\)"):
        plot.foodweb_figure(web, links)


def test_foodweb_levels_of_another_length_and_an_empty_web_are_clear(web):
    with pytest.raises(ValueError, match="levels has 3 entries for 6 node_names"):
        plot.foodweb_figure(web, levels=np.zeros(3))
    with pytest.raises(ValueError, match="no species"):
        plot.draw_foodweb(None, np.zeros((2, 0), dtype=int), np.zeros(0), [])
    with pytest.raises(ValueError, match="edge_index holds species id -1: ids run from 0 to 2"):
        plot.draw_foodweb(None, np.array([[0, 1], [1, -1]]), np.zeros(3), ["a", "b", "c"])


def test_protein_figure_of_no_neighbours_and_no_predictions_say_so():
    """'zero-size array to reduction operation minimum'; and 'every predicted protein is isolated' of a table
    without any protein."""
    with pytest.raises(ValueError, match="protein 'P': neighbours is empty"):
        plot.protein_figure("P", pd.DataFrame({"neighbour": [], "attention": []}), [("GO:1", 0.9)])
    with pytest.raises(ValueError, match="predictions is empty"):
        plot.best_predicted_protein(pd.DataFrame({"protein": [], "isolated": [], "scores": []}))


# ------------------------------------------------------------------------------------------------ tables, JSON


def test_a_summary_counts_the_runs_each_mean_is_over():
    """A NaN run (a metric undefined in that seed) left the mean over 2 runs while the table said n = 3."""
    df = pd.DataFrame({"model": ["gat"] * 3 + ["mlp"] * 3 + ["one"],
                       "f1": [0.5, np.nan, 0.7, 0.1, 0.2, 0.3, np.nan], "acc": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]})
    s = summarize(df, "model", ["f1", "acc"], digits=None)
    assert list(s.columns) == ["model", "n", "f1_mean", "f1_std", "f1_n", "acc_mean", "acc_std"]
    assert s["n"].tolist() == [3, 3, 1] and s["f1_n"].tolist() == [2, 3, 0]
    assert s["f1_mean"][0] == pytest.approx(0.6) and s["f1_std"][0] == pytest.approx(np.std([0.5, 0.7], ddof=1))
    table = format_mean_std(s, "model", ["f1", "acc"])
    assert table["f1"].tolist() == ["0.600 ± 0.141 (n=2)", "0.200 ± 0.100", "–"]
    assert table["acc"].tolist() == ["2.000 ± 1.000", "5.000 ± 1.000", "7.000 ± –"]


def test_a_summary_keeps_rows_whose_group_value_is_missing():
    """groupby drops NaN keys: runs of a model whose setting was None vanished from the table."""
    df = pd.DataFrame({"model": ["gat", "gat", None, None], "f1": [0.5, 0.6, 0.7, 0.8]})
    s = summarize(df, "model", "f1", digits=None)
    assert s["n"].tolist() == [2, 2] and s["f1_mean"].tolist() == pytest.approx([0.55, 0.75])


def test_infinite_values_are_written_as_valid_json(tmp_path):
    """json.dumps wrote Infinity, which JSON has not: jq, R's jsonlite and JavaScript refuse the file."""
    path = tmp_path / "run.json"
    write_json(path, {"loss": float("inf"), "low": np.float32(-np.inf), "per_label": np.array([np.nan, 0.5]),
                      "n": np.int64(3), "ok": np.bool_(True)})

    def refuse(name: str):
        raise ValueError(f"not JSON: {name}")

    assert json.loads(path.read_text(), parse_constant=refuse) == read_json(path) == {
        "loss": None, "low": None, "per_label": [None, 0.5], "n": 3, "ok": True}


def test_hub_attention_mass_refuses_a_mask_given_as_zeros_and_ones():
    import numpy as np

    from gatbio.metrics import hub_attention_mass

    ei = np.array([[0, 1, 2, 3], [1, 2, 3, 0]])
    alpha = np.ones(4)
    mask = np.array([0, 0, 1, 1])  # (degree > t).astype(int): hubs 2 and 3, read as the ids 0 and 1
    with pytest.raises(ValueError, match="a mask given as numbers; pass it as a boolean mask"):
        hub_attention_mass(ei, alpha, mask)
    assert hub_attention_mass(ei, alpha, mask.astype(bool)) == hub_attention_mass(ei, alpha, [2, 3])
    with pytest.raises(ValueError, match=r"hubs names node 7, outside the graph's 0\.\.3"):
        hub_attention_mass(ei, alpha, [7])


def test_fit_of_zero_epochs_names_epochs():
    import torch

    from gatbio.train import TrainConfig, fit

    model = torch.nn.Linear(2, 1)
    x, ei, y = torch.randn(4, 2), torch.tensor([[0, 1], [1, 0]]), torch.tensor([[1.0], [0.0], [1.0], [0.0]])
    with pytest.raises(ValueError, match="no epoch was trained.*TrainConfig epochs must be at least 1"):
        fit(model, x, ei, y, torch.tensor([0, 1]), torch.tensor([2, 3]), lambda t, p: 0.5, TrainConfig(epochs=0))
