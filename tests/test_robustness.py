"""Hub perturbations and food-web robustness on tiny graphs with known answers."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from torch_geometric.data import Data
from torch_geometric.utils import to_undirected

from gatbio.robustness import (
    drop_hub_edges,
    extinction_curve,
    noise_hub_features,
    perturb,
    r50,
    rank_nodes,
    remove_nodes,
)


def star_plus_tail() -> Data:
    """Node 0 is a hub linked to 1, 2, 3; node 3 also links to 4 (undirected, both directions stored)."""
    ei = to_undirected(torch.tensor([[0, 0, 0, 3], [1, 2, 3, 4]]))
    x = torch.arange(15, dtype=torch.float).view(5, 3)
    return Data(x=x, edge_index=ei, y=torch.arange(5), num_nodes=5)


def snapshot(d: Data) -> dict:
    return {k: v.clone() for k, v in d.items() if isinstance(v, torch.Tensor)}


def assert_unchanged(d: Data, before: dict) -> None:
    for k, v in before.items():
        assert torch.equal(d[k], v), f"input attribute {k} was modified"


@pytest.mark.parametrize("by", ["degree", "betweenness", "pagerank"])
def test_rank_nodes_hub_first(by):
    order = rank_nodes(star_plus_tail(), by=by)
    assert order[:2].tolist() == [0, 3]  # the hub, then the bridge to node 4
    assert sorted(order.tolist()) == list(range(5))


def test_rank_ties_seeded_and_random_is_a_permutation():
    d = star_plus_tail()
    assert torch.equal(rank_nodes(d, "random", seed=3), rank_nodes(d, "random", seed=3))
    orders = {tuple(rank_nodes(d, "random", seed=s).tolist()) for s in range(10)}
    assert len(orders) > 1
    # leaves 1, 2, 4 tie on degree 1: their order changes with the seed, the hubs stay first
    tails = {tuple(rank_nodes(d, "degree", seed=s)[2:].tolist()) for s in range(20)}
    assert len(tails) > 1 and all(sorted(t) == [1, 2, 4] for t in tails)


def test_rank_by_node_attribute():
    d = star_plus_tail()
    d.essential = torch.tensor([0.0, 5.0, 1.0, 0.0, 2.0])
    assert rank_nodes(d, "essential")[:3].tolist() == [1, 4, 2]


def test_remove_top_degree_node():
    d = star_plus_tail()
    before = snapshot(d)
    p = remove_nodes(d, 0.2, by="degree")  # round(0.2 * 5) = 1 node: the hub
    assert_unchanged(d, before)
    assert p.affected.tolist() == [0]
    assert p.node_map.tolist() == [-1, 0, 1, 2, 3]
    assert p.kept.tolist() == [1, 2, 3, 4]
    assert p.data.num_nodes == 4
    assert torch.equal(p.data.x, d.x[1:]) and p.data.y.tolist() == [1, 2, 3, 4]
    assert sorted(map(tuple, p.data.edge_index.t().tolist())) == [(2, 3), (3, 2)]  # 3–4 in new ids
    assert p.removed_edges.size(1) == 6 and bool((p.removed_edges == 0).any(0).all())
    assert p.unaffected_mask().all()


def test_remove_fraction_zero_and_one():
    d = star_plus_tail()
    assert remove_nodes(d, 0.0).data.num_nodes == 5
    assert remove_nodes(d, 1.0).data.num_nodes == 0


def test_random_removal_seeded():
    d = star_plus_tail()
    a, b = remove_nodes(d, 0.4, by="random", seed=7), remove_nodes(d, 0.4, by="random", seed=7)
    assert torch.equal(a.affected, b.affected) and a.num_affected == 2


def test_noise_only_on_hubs_and_seeded():
    d = star_plus_tail()
    before = snapshot(d)
    p = noise_hub_features(d, 0.4, sigma=1.0, seed=1)  # hubs 0 and 3
    assert_unchanged(d, before)
    changed = (p.data.x != d.x).any(1)
    assert changed.tolist() == [True, False, False, True, False]
    assert torch.equal(p.data.edge_index, d.edge_index)
    assert torch.equal(p.data.x, noise_hub_features(d, 0.4, sigma=1.0, seed=1).data.x)
    assert torch.equal(noise_hub_features(d, 0.4, sigma=0.0).data.x, d.x)
    assert p.unaffected_mask().tolist() == [False, True, True, False, True]


def test_drop_all_hub_edges_both_directions():
    d = star_plus_tail()
    before = snapshot(d)
    p = drop_hub_edges(d, 0.2, p=1.0)  # every link of hub 0 goes, in both directions
    assert_unchanged(d, before)
    assert sorted(map(tuple, p.data.edge_index.t().tolist())) == [(3, 4), (4, 3)]
    assert p.data.num_nodes == 5 and p.removed_edges.size(1) == 6
    assert p.affected.tolist()[0] == 0 and sorted(p.affected.tolist()) == [0, 1, 2, 3]
    assert drop_hub_edges(d, 0.2, p=0.0).data.edge_index.size(1) == d.edge_index.size(1)


def test_perturb_by_name():
    d = star_plus_tail()
    assert perturb(d, "degree", 0.2).affected.tolist() == [0]
    assert perturb(d, "edge_drop", 0.2, p=1.0).kind == "drop_edges"
    with pytest.raises(ValueError, match="unknown perturbation 'hubs'.*degree"):
        perturb(d, "hubs", 0.1)


@pytest.mark.parametrize("fraction", [-0.1, 1.5, float("nan")])
def test_fraction_outside_unit_interval(fraction):
    with pytest.raises(ValueError, match=r"outside \[0, 1\]"):
        remove_nodes(star_plus_tail(), fraction)


def test_graph_without_edges():
    d = Data(x=torch.zeros(3, 2), edge_index=torch.empty(2, 0, dtype=torch.long))
    with pytest.raises(ValueError, match="no edges"):
        noise_hub_features(d, 0.1)


def test_missing_node_attribute_names_what_exists():
    with pytest.raises(ValueError, match=r"no node attribute 'feat'.*x, y"):
        noise_hub_features(star_plus_tail(), 0.1, attr="feat")
    with pytest.raises(ValueError, match=r"no node attribute 'essential'.*built-in rankings: degree"):
        rank_nodes(star_plus_tail(), by="essential")


def chain_web() -> Data:
    """Two basal species 0, 1 feed 2; 2 feeds 3 and 4; 4 is cannibal (prey → predator edges)."""
    return Data(edge_index=torch.tensor([[0, 1, 2, 2, 4], [2, 2, 3, 4, 4]]), num_nodes=5)


def test_secondary_extinctions_known_cascade():
    removed, lost = extinction_curve(chain_web(), order=torch.tensor([2, 0, 1, 3, 4]))
    # removing 2 starves 3 and 4 (the cannibal link does not keep 4 alive): 3/5 lost after one removal
    assert removed.tolist() == [0.0, 0.2, 0.4, 0.6]
    assert lost.tolist() == [0.0, 0.6, 0.8, 1.0]
    assert r50(chain_web(), order=torch.tensor([2, 0, 1, 3, 4])) == pytest.approx(0.2)


def test_basal_species_never_secondarily_extinct():
    # removing one basal species does not kill 2, which still has the other resource
    removed, lost = extinction_curve(chain_web(), order=torch.tensor([0, 3, 1, 2, 4]))
    assert lost[1] == pytest.approx(0.2)
    assert lost[3] == pytest.approx(1.0)  # removing 1 then starves 2, 4 (3 already removed)
    # r50 is 0.5 at most when nothing cascades: a web of isolated basal pairs
    web = Data(edge_index=torch.tensor([[0, 2], [0, 2]]), num_nodes=4)
    assert r50(web, by="random") == pytest.approx(0.5)


def test_protect_basal_skips_producers():
    # removing basal 0 then 1 would starve everything; protected, only consumers are removed
    removed, lost = extinction_curve(chain_web(), order=torch.tensor([0, 1, 2, 3, 4]), protect_basal=True)
    assert removed.tolist() == [0.0, 0.2]  # only 2 is removed: it starves 3 and 4, nothing else can go
    assert lost.tolist() == [0.0, 0.6]
    assert r50(chain_web(), order=torch.tensor([0, 1, 2, 3, 4]), protect_basal=True) == pytest.approx(0.2)
    # two producers feeding one consumer can never lose half when producers are protected: R50 is undefined
    web = Data(edge_index=torch.tensor([[0, 1], [2, 2]]), num_nodes=3)
    assert r50(web, by="degree") == pytest.approx(2 / 3)  # unprotected: 2 then a producer (2 of 3 lost)
    assert np.isnan(r50(web, by="degree", protect_basal=True))


def test_precomputed_order_is_used_and_checked():
    d = star_plus_tail()
    order = torch.tensor([4, 3, 2, 1, 0])
    assert remove_nodes(d, 0.2, order=order).affected.tolist() == [4]
    assert noise_hub_features(d, 0.2, order=order).affected.tolist() == [4]
    with pytest.raises(ValueError, match="ranking of all 5 nodes"):
        drop_hub_edges(d, 0.2, order=order[:3])


def test_an_extinction_order_must_rank_every_species_once():
    """A short, repeated or out-of-range order would give a wrong R50 (or an IndexError): named instead."""
    data = Data(edge_index=torch.tensor([[0, 1], [1, 2]]), num_nodes=3)
    for bad in ([0, 1], [0, 0, 1], [0, 1, 3], [[0, 1, 2]], [0.0, 1.0, 2.0]):
        with pytest.raises(ValueError, match=r"order must hold each of the 3 species indices 0\.\.2 once"):
            extinction_curve(data, order=torch.tensor(bad))
    removed, lost = extinction_curve(data, order=torch.tensor([0, 2, 1]))
    assert lost[1] == 1.0  # the chain's base removed: all three gone


def test_node_count_rounds_halves_up_despite_binary_fractions():
    from gatbio.robustness import node_count

    assert node_count(0.35, 90) == 32  # 0.35 * 90 is 31.499999999999996 in floating point
    assert node_count(0.05, 3890) == 195 and node_count(0.05, 29) == 1 and node_count(0.02, 25) == 1


def test_a_ranking_attribute_must_hold_one_score_per_node_and_noise_a_finite_sigma():
    data = star_plus_tail()
    data.score = torch.arange(10, dtype=torch.float).view(5, 2)
    with pytest.raises(ValueError, match=r"by='score': a ranking needs one score per node, but the node attribute "
                                         r"has shape \(5, 2\)"):
        rank_nodes(data, by="score")
    data.score = torch.tensor([[0.0], [4.0], [1.0], [3.0], [2.0]])
    assert rank_nodes(data, by="score").tolist() == [1, 3, 4, 2, 0]
    with pytest.raises(ValueError, match=r"sigma=nan must be a finite number >= 0"):
        noise_hub_features(data, 0.2, sigma=float("nan"))
    data.x = torch.randn(5, 3)
    for sigma in (np.float32(1.0), torch.tensor(1.0), 1):  # numbers of any kind, as before
        assert noise_hub_features(data, 0.2, sigma=sigma).data.x.shape == (5, 3)
