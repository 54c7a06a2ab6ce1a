"""Splits: the GATEWAy protocol, the generic link split, node splits, and proofs of no leakage."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch
from torch_geometric.data import Data
from torch_geometric.utils import degree

from gatbio.data.splits import (
    LinkFold,
    all_non_links,
    gateway_folds,
    link_split,
    node_split,
    observed_graph,
    split_masks,
)
from gatbio.ecology import trophic_levels


def pairs(t):
    return {tuple(p) for p in t.t().tolist()}


def toy_web():
    # 6 species, 10 links in a fixed "file order"
    e = [(0, 2), (1, 2), (0, 3), (2, 4), (3, 4), (2, 5), (4, 5), (1, 3), (3, 5), (5, 4)]
    d = Data(edge_index=torch.tensor(e).t(), num_nodes=6)
    d.name = "toy"
    return d


def test_gateway_folds_are_consecutive_blocks_in_file_order():
    d = toy_web()
    folds = gateway_folds(d, n_folds=5)
    assert [f.fold for f in folds] == list(range(5))
    for k, f in enumerate(folds):
        assert f.test_pos.tolist() == d.edge_index[:, 2 * k:2 * k + 2].tolist()
        keep = [i for i in range(10) if i not in (2 * k, 2 * k + 1)]
        assert f.train_edge_index.tolist() == d.edge_index[:, keep].tolist()  # order kept
    # the test blocks partition the links
    assert sorted(p for f in folds for p in pairs(f.test_pos)) == sorted(pairs(d.edge_index))


def test_gateway_negatives_are_all_non_links_of_the_full_web():
    d = toy_web()
    neg = gateway_folds(d)[0].test_neg
    n = d.num_nodes
    assert neg.size(1) == n * (n - 1) - d.num_edges
    assert not (pairs(neg) & pairs(d.edge_index)) and all(a != b for a, b in pairs(neg))
    assert (2, 0) in pairs(neg)  # the reverse of an existing link is a negative
    assert (4, 5) not in pairs(neg) and (5, 4) not in pairs(neg)  # reciprocal pair: both links


def test_gateway_folds_match_sklearn_kfold_on_a_real_web(data_root):
    from gatbio.data import load

    web = load("gateway/11", root=data_root)
    folds = gateway_folds(web)
    sizes = [f.test_pos.size(1) for f in folds]
    assert sizes == [363, 362, 362, 362, 362] and sum(sizes) == 1811
    assert folds[0].test_neg.size(1) == 122 * 121 - 1811
    assert torch.equal(folds[1].test_pos, web.edge_index[:, 363:725])


def test_no_test_edge_influences_training_inputs():
    """Degrees, trophic levels and message-passing edges come from the observed network only."""
    d = toy_web()
    for f in gateway_folds(d):
        obs = observed_graph(d, f)
        assert not (pairs(obs.edge_index) & pairs(f.test_pos))  # message passing never sees a test link
        # removing the test links from the full web gives exactly the observed inputs
        keep = [p not in pairs(f.test_pos) for p in map(tuple, d.edge_index.t().tolist())]
        manual = d.edge_index[:, torch.tensor(keep)]
        assert torch.equal(obs.edge_index, manual)
        assert torch.equal(degree(obs.edge_index[1], 6), degree(manual[1], 6))
        torch.testing.assert_close(trophic_levels(obs, "mackay"), trophic_levels(manual, "mackay", num_nodes=6))
        # and the inputs do change when the test links are (wrongly) included: the check can fail
        assert not torch.equal(degree(obs.edge_index[1], 6), degree(d.edge_index[1], 6))
        # a web whose held-out links are others (flipped) gives the same observed inputs for the same fold: the
        # observed graph reads the fold's training links, never the web's (a fold built from d2 would compare a
        # tensor with itself)
        d2 = Data(edge_index=torch.cat([manual, f.test_pos.flip(0)], 1), num_nodes=6)
        assert torch.equal(observed_graph(d2, f).edge_index, obs.edge_index)


def test_observed_graph_keeps_weights_of_observed_links_only():
    d = toy_web()
    d.edge_weight = torch.arange(10, dtype=torch.float)
    d.x = torch.randn(6, 3)
    f = gateway_folds(d)[1]
    obs = observed_graph(d, f)
    assert obs.edge_weight.tolist() == [0.0, 1.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]
    assert torch.equal(obs.x, d.x)


def test_link_split_seeded_disjoint_and_no_links_as_negatives():
    rng = np.random.default_rng(0)
    n = 40
    e = {(int(a), int(b)) for a, b in rng.integers(0, n, (200, 2)) if a != b}
    d = Data(edge_index=torch.tensor(sorted(e)).t(), num_nodes=n)
    s1, s2 = link_split(d, seed=3), link_split(d, seed=3)
    assert torch.equal(s1.test_pos, s2.test_pos) and torch.equal(s1.test_neg, s2.test_neg)
    assert not torch.equal(link_split(d, seed=4).test_pos, s1.test_pos)
    tr, te, va = pairs(s1.train_edge_index), pairs(s1.test_pos), pairs(s1.val_pos)
    assert not (tr & te) and not (tr & va) and not (te & va) and len(tr | te | va) == len(e)
    negs = pairs(s1.test_neg) | pairs(s1.val_neg)
    assert not (negs & e) and len(negs) == s1.test_neg.size(1) + s1.val_neg.size(1)
    assert all(a != b for a, b in negs)
    json.dumps(s1.to_dict())  # saved with the results
    assert torch.equal(LinkFold.from_dict(s1.to_dict()).test_neg, s1.test_neg)


def test_degree_matched_negatives_follow_observed_degrees():
    # a star-heavy graph: node 0 eats everyone; uniform negatives rarely hit node 0 as target
    n = 60
    e = [(i, 0) for i in range(1, 50)] + [(i, i + 1) for i in range(50, 59)]
    d = Data(edge_index=torch.tensor(e).t(), num_nodes=n)
    deg = link_split(d, seed=0, negatives="degree", neg_ratio=1.0, test=0.3, val=0.0)
    uni = link_split(d, seed=0, negatives="uniform", neg_ratio=1.0, test=0.3, val=0.0)
    # degree-matched negatives avoid existing links but their sources come from nodes with out-degree > 0
    obs_out = set(deg.train_edge_index[0].tolist())
    assert set(deg.test_neg[0].tolist()) <= obs_out
    assert set(deg.test_neg[1].tolist()) <= set(deg.train_edge_index[1].tolist())
    assert not set(uni.test_neg[0].tolist()) <= obs_out
    with pytest.raises(ValueError, match="negatives='nope'"):
        link_split(d, negatives="nope")


def test_node_split_fractions_seed_and_labelled_mask():
    s = node_split(100, train=0.6, val=0.2, seed=1)
    assert (len(s["train"]), len(s["val"]), len(s["test"])) == (60, 20, 20)
    assert not (set(s["train"]) & set(s["test"])) and len(set(s["train"]) | set(s["val"]) | set(s["test"])) == 100
    assert s == node_split(100, train=0.6, val=0.2, seed=1) and s != node_split(100, seed=2)
    json.dumps(s)
    lab = torch.arange(100) % 2 == 0
    s2 = node_split(100, train=0.5, val=0.25, seed=0, labeled=lab)
    assert all(i % 2 == 0 for k in ("train", "val", "test") for i in s2[k])
    m = split_masks(s2)
    assert int(m["train"].sum()) == 25 and not (m["train"] & m["test"]).any()
    with pytest.raises(ValueError, match="fractions"):
        node_split(10, train=0.9, val=0.3)


def test_all_non_links_counts():
    e = torch.tensor([[0, 1], [1, 2]])
    neg = all_non_links(e, 3)
    assert pairs(neg) == {(0, 2), (1, 0), (2, 0), (2, 1)}


def test_undirected_link_split_holds_out_both_directions():
    # a PPI-like undirected graph (both directions stored) with a self-loop
    rng = np.random.default_rng(5)
    und = {(int(min(a, b)), int(max(a, b))) for a, b in rng.integers(0, 30, (120, 2)) if a != b}
    e = sorted(und) + [(b, a) for a, b in sorted(und)] + [(3, 3)]
    d = Data(edge_index=torch.tensor(e).t(), num_nodes=30)
    s = link_split(d, seed=0, val=0.1, test=0.2)
    assert s.meta["undirected"] is True
    train = pairs(s.train_edge_index)
    for a, b in pairs(s.test_pos) | pairs(s.val_pos):
        assert a < b and (a, b) not in train and (b, a) not in train  # no mirror-image leak
    assert (3, 3) in train and len(pairs(s.test_pos)) == round(0.2 * len(und))
    for a, b in pairs(s.test_neg) | pairs(s.val_neg):
        assert a < b and (a, b) not in und
    # forcing the directed split on the same graph would leak mirrors: the auto-detection matters
    leaky = link_split(d, seed=0, undirected=False)
    assert any((b, a) in pairs(leaky.train_edge_index) for a, b in pairs(leaky.test_pos))


def test_link_split_observed_inputs_ignore_held_out_links():
    rng = np.random.default_rng(2)
    e = sorted({(int(a), int(b)) for a, b in rng.integers(0, 25, (90, 2)) if a != b})
    d = Data(edge_index=torch.tensor(e).t(), num_nodes=25)
    s = link_split(d, seed=1, undirected=False)
    obs = observed_graph(d, s)
    held = pairs(s.test_pos) | pairs(s.val_pos)
    assert not (pairs(obs.edge_index) & held)
    # moving the held-out links elsewhere leaves every training input unchanged (the same split on the other web)
    d2 = Data(edge_index=torch.cat([s.train_edge_index, s.test_pos.flip(0)], 1), num_nodes=25)
    obs2 = observed_graph(d2, s)
    torch.testing.assert_close(trophic_levels(obs, "mackay"), trophic_levels(obs2, "mackay"))
    assert torch.equal(degree(obs.edge_index[0], 25), degree(obs2.edge_index[0], 25))


def test_node_split_keeps_every_node_when_fractions_sum_to_one():
    from gatbio.data.splits import node_split

    for n in (41, 7, 100, 3):
        s = node_split(n, train=0.5, val=0.0, seed=1)
        assert len(s["train"]) + len(s["val"]) + len(s["test"]) == n
        assert not set(s["train"]) & set(s["test"])
    s = node_split(10, train=0.3, val=0.2, test=0.1, seed=0)  # explicit partial split stays partial
    assert (len(s["train"]), len(s["val"]), len(s["test"])) == (3, 2, 1)


@pytest.mark.parametrize("undirected", [True, False])
def test_a_repeated_link_is_split_once_so_no_test_link_trains(undirected, caplog):
    """A file listing each interaction in both directions, read as undirected, holds every pair twice per
    direction; a table's repeated rows hold a directed link twice. Each copy was split on its own: 41 of 60 test
    positives were training edges too (a leak). Now each link is one item, split once, with a note."""
    from gatbio.data.splits import link_split

    g = torch.Generator().manual_seed(0)
    pairs = torch.randint(0, 40, (2, 120), generator=g)
    pairs = pairs[:, pairs[0] != pairs[1]]
    ei = torch.cat([pairs, pairs, pairs.flip(0), pairs.flip(0)], 1) if undirected else torch.cat([pairs, pairs], 1)
    fold = link_split(Data(edge_index=ei, num_nodes=40), seed=0, undirected=undirected)
    train = set(map(tuple, fold.train_edge_index.t().tolist()))
    held = fold.test_pos.t().tolist() + fold.val_pos.t().tolist()
    assert held and not any(tuple(p) in train or (undirected and tuple(p[::-1]) in train) for p in held)
    unique = len({(min(a, b), max(a, b)) if undirected else (a, b) for a, b in ei.t().tolist()})
    assert fold.test_pos.size(1) == round(0.2 * unique)  # fractions of the distinct links
    assert "repeated" in caplog.text and "split once each" in caplog.text


def test_split_functions_name_the_argument_a_user_got_wrong():
    """Each gave a library's error (a ZeroDivisionError, 'too many values to unpack', sklearn's n_splits, an
    AttributeError) or a silent oddity (float indices, an unseeded split saved as seed None)."""
    from gatbio.data.pair_splits import pair_split
    from gatbio.data.splits import gateway_folds, link_split, node_split

    web = Data(edge_index=torch.tensor([[0, 1, 2, 3, 0, 1], [1, 2, 3, 4, 2, 3]]), num_nodes=5)
    cases = [
        (lambda: pair_split(np.array([[0, 1]]), 2, "random", seed=0), ValueError, r"1 pair\(s\) are too few to split"),
        (lambda: pair_split(np.zeros((2, 40), dtype=int), 4, "bfs", 0), ValueError,
         r"pairs has shape \(2, 40\): expected \(P, 2\).*pass pairs\.t\(\)"),
        (lambda: gateway_folds(web, n_folds=1), ValueError, r"n_folds=1: give an integer >= 2"),
        (lambda: gateway_folds(web.edge_index), TypeError, r"gateway_folds: data is an edge_index tensor; give a "
                                                           r"torch_geometric Data"),
        (lambda: link_split(web.edge_index), TypeError, r"link_split: data is an edge_index tensor"),
        (lambda: node_split(10.0), ValueError, r"num_nodes=10\.0: give an integer >= 1"),
        (lambda: node_split(10, seed=None), ValueError, r"seed=None: give an integer >= 0"),
    ]
    for call, error, match in cases:
        with pytest.raises(error, match=match):
            call()
    sp = node_split(torch.tensor(10), seed=np.int64(3))  # a 0-d tensor and a NumPy seed: plain ints in the dict
    assert type(sp["num_nodes"]) is int and type(sp["seed"]) is int and json.dumps(sp)
