"""Audit of gatbio.data.splits: leaks, wrong negatives, silent empty parts and node-count mismatches on tiny graphs
with answers counted by hand."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch
from torch_geometric.data import Data

from gatbio.data.splits import (
    LinkFold,
    gateway_folds,
    link_split,
    node_split,
    observed_graph,
    split_from_dict,
)


def pairs(t):
    return {tuple(p) for p in t.t().tolist()}


def one_direction_graph():
    """6 proteins, 10 interactions, each stored once and in either direction (no mirror): not symmetric."""
    e = [(0, 1), (2, 1), (2, 3), (4, 3), (4, 5), (0, 5), (0, 2), (3, 1), (2, 4), (5, 3)]
    return Data(edge_index=torch.tensor(e).t(), num_nodes=6), {(min(a, b), max(a, b)) for a, b in e}


def test_known_counts_on_a_tiny_web():
    """By hand: 10 links, 6 nodes -> 5 folds of 2; 6*5 - 10 = 20 non-links. link_split: test round(0.2*10) = 2,
    val 1, train 7, 2 + 1 negatives."""
    e = [(0, 2), (1, 2), (0, 3), (2, 4), (3, 4), (2, 5), (4, 5), (1, 3), (3, 5), (5, 4)]
    d = Data(edge_index=torch.tensor(e).t(), num_nodes=6)
    folds = gateway_folds(d)
    assert [f.test_pos.size(1) for f in folds] == [2] * 5 and all(f.test_neg.size(1) == 20 for f in folds)
    s = link_split(d, seed=0, val=0.1, test=0.2)
    assert (s.test_pos.size(1), s.val_pos.size(1), s.train_edge_index.size(1)) == (2, 1, 7)
    assert (s.test_neg.size(1), s.val_neg.size(1)) == (2, 1)
    back = split_from_dict(json.loads(json.dumps(s.to_dict())))
    for k in ("train_edge_index", "test_pos", "test_neg", "val_pos", "val_neg"):
        assert torch.equal(back[k], s[k]) and back[k].dtype == torch.long
    assert back.meta == s.meta and back.num_nodes == 6


def test_forced_undirected_split_of_a_one_direction_graph_keeps_every_interaction_and_no_positive_negative():
    """undirected=True on a graph listing each interaction once: the 5 interactions stored as (v, u), v > u, were
    never split (not in train, test nor val), and a sampled negative (u, v) could be such a stored (v, u)."""
    d, und = one_direction_graph()
    for seed in range(20):
        s = link_split(d, undirected=True, seed=seed, val=0.1, test=0.3)  # 4 of the 5 non-links
        train = pairs(s.train_edge_index)
        held = pairs(s.test_pos) | pairs(s.val_pos)
        assert all(a < b for a, b in held) and not any((a, b) in train or (b, a) in train for a, b in held)
        assert {(min(a, b), max(a, b)) for a, b in train} | held == und  # every interaction split, once
        assert s.test_pos.size(1) == 3 and s.val_pos.size(1) == 1  # round(0.3 * 10), round(0.1 * 10)
        negs = pairs(s.test_neg) | pairs(s.val_neg)
        assert not any((min(a, b), max(a, b)) in und for a, b in negs)
        # the observed graph's weights: each training interaction in both directions, weight of the stored one
        d.edge_weight = torch.arange(10, dtype=torch.float)
        w = dict(zip(map(tuple, d.edge_index.t().tolist()), d.edge_weight.tolist(), strict=True))
        obs = observed_graph(d, s)
        for (a, b), x in zip(obs.edge_index.t().tolist(), obs.edge_weight.tolist(), strict=True):
            assert x == w.get((a, b), w.get((b, a)))
        del d.edge_weight


def test_node_indices_beyond_num_nodes_are_refused():
    """num_nodes=3 with a node 3: link_split keyed (0, 3) as 0*3+3 = (1, 0), called it a repeat and dropped
    (1, 0) from the split; gateway_folds failed with NumPy's IndexError."""
    d = Data(edge_index=torch.tensor([[0, 1, 2, 0], [3, 0, 1, 2]]), num_nodes=3)
    with pytest.raises(ValueError, match=r"link_split: edge_index holds node 3 but num_nodes=3"):
        link_split(d, seed=0, val=0.0, test=0.5)
    with pytest.raises(ValueError, match=r"gateway_folds: edge_index holds node 3 but num_nodes=3"):
        gateway_folds(d, 2)


def test_link_split_numpy_seed_is_saved_as_a_plain_int():
    rng = np.random.default_rng(0)
    e = sorted({(int(a), int(b)) for a, b in rng.integers(0, 20, (60, 2)) if a != b})
    s = link_split(Data(edge_index=torch.tensor(e).t(), num_nodes=20), seed=np.int64(3))
    assert type(s.meta["seed"]) is int
    json.dumps(s.to_dict())  # was: "Object of type int64 is not JSON serializable"


def test_link_split_refuses_an_empty_validation_set_and_negative_neg_ratio():
    """4 links, val=0.1: round(0.4) = 0 validation links, silently (an empty test set was already an error)."""
    d = Data(edge_index=torch.tensor([[0, 1, 2, 3], [1, 2, 3, 0]]), num_nodes=4)
    with pytest.raises(ValueError, match=r"4 links are too few for val=0.1, test=0.25 \(1 test, 0 validation"):
        link_split(d, val=0.1, test=0.25, seed=0)
    assert link_split(d, val=0.0, test=0.25, seed=0).val_pos.size(1) == 0  # no validation asked: fine
    with pytest.raises(ValueError, match=r"neg_ratio=-1"):
        link_split(d, val=0.0, test=0.25, neg_ratio=-1)


def test_gateway_folds_refuse_a_repeated_link():
    """A link listed twice in a user's web: fold 0 tested (0, 1) while its copy trained."""
    e = [(0, 1), (1, 2), (2, 3), (3, 0), (0, 2), (0, 1)]
    d = Data(edge_index=torch.tensor(e).t(), num_nodes=4)
    with pytest.raises(ValueError, match=r"1 link\(s\) listed more than once, e.g. \(0, 1\)"):
        gateway_folds(d, 2)


def test_observed_graph_drops_the_pair_table_and_refuses_another_graphs_split():
    """SHS27k's Data carries ``pairs`` (every interacting pair) and ``pair_*``: kept in the observed graph, they
    handed the held-out positives to whatever reads it."""
    d, _ = one_direction_graph()
    d.pairs, d.pair_score = d.edge_index.t().clone(), torch.ones(10)
    d.x = torch.randn(6, 2)
    s = link_split(d, seed=0, undirected=False)
    obs = observed_graph(d, s)
    assert "pairs" not in obs and "pair_score" not in obs and torch.equal(obs.x, d.x)
    other = Data(edge_index=d.edge_index, num_nodes=7)
    with pytest.raises(ValueError, match=r"the split has 6 nodes, data 7"):
        observed_graph(other, s)


def test_node_split_refuses_a_part_left_empty():
    """3 nodes at 0.5/0.25/0.25: 2 + 1 + 0, the test set silently empty; no labelled node: every part empty."""
    with pytest.raises(ValueError, match=r"3 node\(s\) are too few .* the test part would be empty"):
        node_split(3, train=0.5, val=0.25, test=0.25)
    with pytest.raises(ValueError, match=r"0 labelled node\(s\) are too few .* the train and test part"):
        node_split(5, train=0.5, val=0.0, labeled=torch.zeros(5, dtype=torch.bool))
    s = node_split(3, train=0.5, val=0.0, seed=0)  # train and the rest: 2 + 1
    assert (len(s["train"]), len(s["val"]), len(s["test"])) == (2, 0, 1)
    assert isinstance(split_from_dict(json.loads(json.dumps(s))), dict)
    assert not isinstance(split_from_dict(s), LinkFold)
