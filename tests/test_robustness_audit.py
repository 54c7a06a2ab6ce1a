"""Audit of gatbio.robustness on tiny graphs with known answers: rankings, orders, seeds, alignment, no mutation."""

from __future__ import annotations

import copy

import numpy as np
import pytest
import torch
from torch_geometric.data import Data

from gatbio.robustness import (
    PERTURBATIONS,
    drop_hub_edges,
    noise_hub_features,
    perturb,
    rank_nodes,
    remove_nodes,
)


def weighted_star() -> Data:
    """Hub 0 → 1, 2, 3 (directed, one direction stored), 3 → 4, and 1 → 0 (0-1 stored both ways); weights by edge."""
    ei = torch.tensor([[0, 0, 0, 3, 1], [1, 2, 3, 4, 0]])
    return Data(x=torch.arange(10, dtype=torch.float).view(5, 2), edge_index=ei,
                edge_weight=torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0]), y=torch.tensor([10, 11, 12, 13, 14]),
                node_names=["a", "b", "c", "d", "e"], num_nodes=5)


def test_degree_counts_distinct_neighbours_whatever_the_direction_and_weight():
    d = weighted_star()
    # undirected distinct neighbours: 0 has 3 (1 counted once though stored both ways), 3 has 2, the rest 1
    order = rank_nodes(d, "degree")
    assert order[:2].tolist() == [0, 3]
    assert sorted(order[2:].tolist()) == [1, 2, 4]
    # ties (1, 2, 4) broken by the seed only: the same seed, the same order
    assert torch.equal(rank_nodes(d, "degree", seed=5), rank_nodes(d, "degree", seed=5))


def test_removal_keeps_names_labels_features_and_edge_weights_aligned():
    d = weighted_star()
    p = remove_nodes(d, 0.2)  # round(0.2 * 5) = 1: the hub
    assert p.affected.tolist() == [0] and p.node_map.tolist() == [-1, 0, 1, 2, 3]
    assert p.data.node_names == ["b", "c", "d", "e"] and p.data.y.tolist() == [11, 12, 13, 14]
    assert torch.equal(p.data.x, d.x[1:])
    # the only surviving edge is 3 → 4 (new ids 2 → 3) with its own weight
    assert p.data.edge_index.tolist() == [[2], [3]] and p.data.edge_weight.tolist() == [4.0]
    assert p.removed_edges.tolist() == [[0, 0, 0, 1], [1, 2, 3, 0]]


@pytest.mark.parametrize("name", list(PERTURBATIONS))
def test_no_perturbation_modifies_its_input_and_a_seed_repeats_it(name):
    d = weighted_star()
    before = {k: (v.clone() if isinstance(v, torch.Tensor) else copy.deepcopy(v)) for k, v in d.items()}
    a, b = perturb(d, name, 0.4, seed=3), perturb(d, name, 0.4, seed=3)
    for k, v in before.items():
        assert (torch.equal(d[k], v) if isinstance(v, torch.Tensor) else d[k] == v), k
    assert torch.equal(a.affected, b.affected)
    for k, v in a.data.items():
        assert (torch.equal(v, b.data[k]) if isinstance(v, torch.Tensor) else v == b.data[k]), k


@pytest.mark.parametrize("bad", [torch.tensor([0, 0, 0, 0, 0]), torch.tensor([0, 1, 2, 3, 9]),
                                 torch.tensor([0.0, 1, 2, 3, 4]), [0, 1, 2], torch.tensor([[0, 1, 2, 3, 4]])])
def test_an_order_must_hold_every_node_once(bad):
    """A repeated id made the top 2 of [0, 0, ...] remove one node while affected said two (a wrong count in every
    result built on it); a float or out-of-range order ended in an IndexError."""
    with pytest.raises(ValueError, match=r"order must be a ranking of all 5 nodes, each id 0\.\.4 once"):
        remove_nodes(weighted_star(), 0.4, order=bad)


def test_an_order_may_be_a_list_or_array():
    """A list or NumPy array (e.g. read back from a results file) raised AttributeError: 'list' has no 'dim'."""
    d = weighted_star()
    want = remove_nodes(d, 0.4, order=torch.tensor([4, 3, 2, 1, 0])).affected.tolist()
    assert want == [4, 3]
    assert remove_nodes(d, 0.4, order=[4, 3, 2, 1, 0]).affected.tolist() == want
    assert noise_hub_features(d, 0.4, order=np.array([4, 3, 2, 1, 0])).affected.tolist() == want


@pytest.mark.parametrize("seed", [None, -1, 1.5, "3"])
def test_a_seed_must_be_a_non_negative_integer(seed):
    """seed=None drew a new random order on every call (a 'random' removal that could not be repeated); -1, 1.5 and
    '3' failed inside NumPy ('expected non-negative integer', 'SeedSequence expects int')."""
    d = weighted_star()
    with pytest.raises(ValueError, match=r"seed=.*give an integer >= 0"):
        remove_nodes(d, 0.4, by="random", seed=seed)
    with pytest.raises(ValueError, match=r"seed=.*give an integer >= 0"):
        rank_nodes(d, "degree", seed=seed)


def test_numpy_and_tensor_integer_seeds_are_seeds():
    d = weighted_star()
    want = remove_nodes(d, 0.4, by="random", seed=7).affected
    assert torch.equal(remove_nodes(d, 0.4, by="random", seed=np.int64(7)).affected, want)
    assert torch.equal(remove_nodes(d, 0.4, by="random", seed=torch.tensor(7)).affected, want)


def test_a_ranking_attribute_with_nan_is_refused():
    """NaN scores were ranked silently as the least central (numpy sorts NaN last)."""
    d = weighted_star()
    d.score = torch.tensor([1.0, float("nan"), 3.0, 2.0, 0.0])
    with pytest.raises(ValueError, match=r"by='score': the node attribute is NaN for 1 of 5 nodes \(e\.g\. node 1\)"):
        rank_nodes(d, "score")
    d.score = torch.tensor([1.0, -float("inf"), 3.0, 2.0, 0.0])  # -inf is a score: last
    assert rank_nodes(d, "score").tolist() == [2, 3, 0, 4, 1]


@pytest.mark.parametrize("fraction,message", [(None, "is outside \\[0, 1\\]"), ("many", "is a string, not a number"),
                                              (float("nan"), "is outside \\[0, 1\\]"), (-0.01, "is outside \\[0, 1\\]"),
                                              (1.01, "is outside \\[0, 1\\]")])
def test_fractions_that_are_not_in_the_unit_interval_say_so(fraction, message):
    with pytest.raises(ValueError, match=rf"fraction=.* {message}: give a fraction of nodes"):
        remove_nodes(weighted_star(), fraction)


def test_fractions_zero_and_one():
    d = weighted_star()
    assert remove_nodes(d, 0).num_affected == 0 and remove_nodes(d, 0).data.num_nodes == 5
    gone = remove_nodes(d, 1)
    assert gone.data.num_nodes == 0 and gone.removed_edges.size(1) == 5


def test_edge_drop_probability_errors_speak_of_a_probability():
    """p=1.5 was told to 'give a fraction of nodes, e.g. 0.05 for 5%'."""
    with pytest.raises(ValueError, match=r"p=1\.5 is outside \[0, 1\]: give the probability that a hub's link is "
                                         r"dropped"):
        drop_hub_edges(weighted_star(), 0.2, p=1.5)
    p = drop_hub_edges(weighted_star(), 0.2, p=1.0)  # every link of the hub, both stored directions of 0-1
    assert p.data.edge_index.tolist() == [[3], [4]] and p.data.edge_weight.tolist() == [4.0]
