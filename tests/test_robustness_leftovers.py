"""Leftovers of the robustness audit: NumPy node names, bool and string fractions, the seed counts of the curve
table, a missing dataset in the curve figure, pooled webs that cover fewer webs, dropped bootstrap resamples, and
rankings that ignore edge weights (documented)."""

from __future__ import annotations

import logging

import numpy as np
import pandas as pd
import pytest
import torch
from torch_geometric.data import Data

from gatbio import robustness as R
from gatbio.robustness import drop_hub_edges, noise_hub_features, rank_nodes, remove_nodes
from gatbio.tasks import robustness_summary as rs

# a path 0 - 1 - 2 - 3 plus 1 - 4: node 1 is the hub (degree 3)
EI = torch.tensor([[0, 1, 2, 1], [1, 2, 3, 4]])


def path_graph(**attrs) -> Data:
    return Data(x=torch.arange(10.0).view(5, 2), edge_index=EI, num_nodes=5, **attrs)


# -------------------------------------------------------------------------------------------------- perturbations


def test_numpy_node_names_survive_node_removal():
    """A NumPy array of names failed in PyG's subgraph with 'Encountered invalid input type'."""
    names = np.array(["a", "b", "c", "d", "e"])
    data = path_graph(node_names=names, w=np.array([0.1, 0.2, 0.3, 0.4]))  # w: one weight per edge
    p = remove_nodes(data, 0.2)  # the hub, node 1
    assert p.affected.tolist() == [1]
    assert isinstance(p.data.node_names, np.ndarray) and p.data.node_names.tolist() == ["a", "c", "d", "e"]
    assert p.data.w.tolist() == [0.3]  # the one edge left, 2 -> 3
    assert p.data.edge_index.tolist() == [[1], [2]]
    assert data.node_names is names and names.tolist() == ["a", "b", "c", "d", "e"]  # the input is untouched
    # the same names as a list give the same result (they always did)
    assert remove_nodes(path_graph(node_names=list(names)), 0.2).data.node_names == ["a", "c", "d", "e"]


def test_numpy_attributes_survive_edge_drop_and_noise():
    data = path_graph(node_names=np.array(list("abcde")), w=np.array([0.1, 0.2, 0.3, 0.4]))
    p = drop_hub_edges(data, 0.2, p=1.0)  # every link of the hub goes
    assert p.data.node_names.tolist() == list("abcde")
    assert p.data.w.tolist() == [0.3] and p.data.edge_index.tolist() == [[2], [3]]
    assert noise_hub_features(data, 0.2).data.node_names.tolist() == list("abcde")


@pytest.mark.parametrize("fraction,kind", [(True, "boolean"), (False, "boolean"), (np.bool_(True), "boolean"),
                                           (torch.tensor(True), "boolean"), ("0.2", "string"), (b"0.2", "string")])
def test_bool_and_string_fractions_are_refused(fraction, kind):
    """True was taken as 1.0 (every node removed) and '0.2' as 0.2."""
    with pytest.raises(ValueError, match=rf"fraction=.* is a {kind}, not a number: give a fraction of nodes") as info:
        remove_nodes(path_graph(), fraction)
    assert "\n" not in str(info.value)
    with pytest.raises(ValueError, match=rf"p=.* is a {kind}, not a number"):
        drop_hub_edges(path_graph(), 0.2, p=fraction)


def test_numeric_fractions_still_work():
    for f in (0.2, 1 / 5, np.float32(0.2), torch.tensor(0.2), 0):
        remove_nodes(path_graph(), f)


def test_rankings_document_that_they_ignore_edge_weights():
    doc = rank_nodes.__doc__
    assert "not the sum of ``edge_weight``" in doc and "not weighted by ``edge_weight``" in doc
    assert "whatever ``edge_weight`` says" in doc and "edge weights" in R.__doc__
    # and they do: weights change nothing
    heavy = path_graph(edge_weight=torch.tensor([100.0, 0.01, 0.01, 0.01]))
    for by in ("degree", "betweenness", "pagerank"):
        assert torch.equal(rank_nodes(heavy, by), rank_nodes(path_graph(), by))


# -------------------------------------------------------------------------------------------------- summaries


def rows(dataset="yeast", task="protein", seeds=(0, 1, 2), models=("pyg_gat", "gat_log"), drops=None,
         fractions=(0.0, 0.05, 0.1)) -> list[dict]:
    out = []
    for model in models:
        for seed in seeds:
            d = (drops or {}).get((model, seed), 0.1 * (seed + 1) if model == "pyg_gat" else 0.05)
            for f in fractions:
                score = 0.8 - d * f * 10
                out.append({"task": task, "dataset": dataset, "model": model, "seed": seed, "perturbation": "degree",
                            "metric": "micro_f1", "fraction": f, "score": score, "clean": 0.8, "drop": 0.8 - score,
                            "relative": score / 0.8, "flip_rate": 0.0, "js_attention": 0.1})
    return out


def test_curve_table_counts_seeds_with_a_value_per_metric():
    """n counted rows, NaN included: 3 seeds were claimed behind a mean of 1."""
    df = pd.DataFrame(rows())
    at = (df["model"] == "pyg_gat") & (df["fraction"] == 0.1)
    df.loc[at & (df["seed"] > 0), ["relative"]] = np.nan  # 2 seeds without a relative score (clean 0)
    df.loc[at & (df["seed"] == 2), ["score", "drop"]] = np.nan
    ct = rs.curve_table(df).set_index(["model", "fraction"])
    row = ct.loc[("pyg_gat", 0.1)]
    assert row["relative_n"] == 1 and row["score_n"] == 2 and row["drop_n"] == 2 and row["clean_n"] == 3
    assert row["n"] == 2  # that of score
    assert row["relative_mean"] == pytest.approx(df.loc[at & (df["seed"] == 0), "relative"].item())
    assert ct.loc[("gat_log", 0.1), "n"] == 3 and ct.loc[("gat_log", 0.1), "relative_n"] == 3


def test_plot_curves_names_a_missing_dataset():
    """It failed with matplotlib's 'Number of columns must be a positive integer, not 0'."""
    curves = rs.curve_table(pd.DataFrame(rows("yeast") + rows("human")))
    with pytest.raises(ValueError, match=r"^dataset='mouse' is not in the curve table; datasets it has: 'human', "
                                         r"'yeast'$"):
        rs.plot_curves(curves, "mouse", "relative")


def foodwebs(missing: bool) -> pd.DataFrame:
    """Three webs; with ``missing``, web C has no run for pyg_gat seed 1 and a NaN relative for seed 0 at 10 %."""
    df = pd.DataFrame(rows("A", "foodweb") + rows("B", "foodweb") + rows("C", "foodweb"))
    if missing:
        c = df["dataset"] == "C"
        df = df[~(c & (df["model"] == "pyg_gat") & (df["seed"] == 1))].copy()
        df.loc[c & (df["model"] == "pyg_gat") & (df["seed"] == 0) & (df["fraction"] == 0.1), "relative"] = np.nan
    return df


def test_pooled_webs_say_when_points_cover_fewer_webs(caplog):
    """Each pooled point averaged whichever webs had a value, silently: other webs at other points."""
    with caplog.at_level(logging.WARNING, logger="gatbio.data"):
        rs.curve_table(foodwebs(missing=False))
    assert "fewer webs" not in caplog.text
    with caplog.at_level(logging.WARNING, logger="gatbio.data"):
        pooled = rs.with_pooled_webs(foodwebs(missing=True))  # pooled once, for both tables: said once
        ct = rs.curve_table(pooled)
        rs.auc_table(pooled)
    pooled = ct[ct["dataset"] == "foodwebs (mean of 3)"]
    assert len(pooled) == 6
    lines = [r.getMessage() for r in caplog.records if "fewer webs" in r.getMessage()]
    assert len(lines) == 1 and "\n" not in lines[0]
    line = lines[0]
    assert line.startswith("note: foodwebs (mean of 3): some pooled points average fewer webs")
    # seed 1 of pyg_gat: 3 fractions with 2 webs for every metric; seed 0 at 10 %: 2 webs for relative
    assert "score at 3 of 18 points (2 webs)" in line and "relative at 4 of 18 points (2 webs)" in line


def test_headline_bootstrap_says_how_many_resamples_it_dropped(caplog):
    """Resamples whose reference mean is 0 gave an infinite ratio and were dropped without a word."""
    drops = {("pyg_gat", 0): 0.0, ("pyg_gat", 1): 0.0, ("pyg_gat", 2): 0.3}  # mean 0.1 > 0, but 0 in resamples
    df = pd.DataFrame(rows(drops=drops))
    with caplog.at_level(logging.WARNING, logger="gatbio.data"):
        head = rs.headline_table(df, fraction=0.05, perturbations=["degree"]).set_index("model")
    idx = np.random.default_rng(0).integers(0, 3, size=(2000, 3))
    ref = np.array([0.0, 0.0, 0.3])[idx].mean(1) * 0.5
    expected = int((ref == 0).sum())
    assert expected > 0
    line = [r.getMessage() for r in caplog.records if "bootstrap" in r.getMessage()]
    assert line == [f"note: headline yeast / degree / {model} (drop at 0.05): {expected} of 2000 bootstrap resamples "
                    "have no finite ratio to pyg_gat (its mean over the resampled seeds is 0, or a value is NaN) and "
                    f"are left out of ratio_ci; the interval rests on the other {2000 - expected}"
                    for model in ("pyg_gat", "gat_log")]  # the reference's own ratio is resampled too
    assert np.isfinite(head.loc["gat_log", "ratio_ci_high"])
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="gatbio.data"):
        rs.headline_table(pd.DataFrame(rows()), fraction=0.05, perturbations=["degree"])
    assert "bootstrap" not in caplog.text  # nothing dropped, nothing said
