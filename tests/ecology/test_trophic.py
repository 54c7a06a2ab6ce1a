"""Trophic levels and incoherence: chains, published examples, networkx, a real GATEWAy web."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
import torch
from torch_geometric.data import Data

from gatbio.ecology import TrophicLevel, basal_nodes, trophic_incoherence, trophic_levels


def ei(pairs):
    return torch.tensor(pairs, dtype=torch.long).t()


def nx_levels(edge_index, n, weight=None):
    G = nx.DiGraph()
    G.add_nodes_from(range(n))
    for k, (a, b) in enumerate(edge_index.t().tolist()):
        G.add_edge(a, b, weight=1.0 if weight is None else float(weight[k]))
    lv = nx.trophic_levels(G)
    return torch.tensor([lv[i] for i in range(n)], dtype=torch.float64)


@pytest.mark.parametrize("method", ["levine", "mackay"])
def test_chain_levels_are_positions(method):
    chain = ei([(0, 1), (1, 2), (2, 3), (3, 4)])
    torch.testing.assert_close(trophic_levels(chain, method), torch.arange(1, 6, dtype=torch.float64))
    assert trophic_incoherence(chain) == pytest.approx(0.0, abs=1e-12)


def test_levine_omnivore_averages_its_prey():
    # 0 plant; 1 herbivore eats 0; 2 omnivore eats 0 and 1 -> 1 + (1 + 2) / 2 = 2.5 (Levine 1980)
    g = ei([(0, 1), (0, 2), (1, 2)])
    torch.testing.assert_close(trophic_levels(g, "levine"), torch.tensor([1.0, 2.0, 2.5], dtype=torch.float64))


def test_mackay_feed_forward_triangle_published_values():
    # MacKay, Johnson & Sansom (2020), Fig. 1-type example: h = (0, 2/3, 4/3) + const, F0 = 1/9
    g = ei([(0, 1), (0, 2), (1, 2)])
    h = trophic_levels(g, "mackay")
    torch.testing.assert_close(h, torch.tensor([1.0, 5 / 3, 7 / 3], dtype=torch.float64))
    assert trophic_incoherence(g) == pytest.approx(1 / 9)


def test_mackay_cycle_is_flat_and_maximally_incoherent():
    cyc = ei([(0, 1), (1, 2), (2, 0)])
    torch.testing.assert_close(trophic_levels(cyc, "mackay"), torch.ones(3, dtype=torch.float64))
    assert trophic_incoherence(cyc) == pytest.approx(1.0)


def test_levine_errors_name_the_fix():
    with pytest.raises(ValueError, match="no basal species.*method='mackay'"):
        trophic_levels(ei([(0, 1), (1, 0)]), "levine")
    # 0 -> 1 is fine, but 2 <-> 3 is a cycle no basal species reaches
    data = Data(edge_index=ei([(0, 1), (2, 3), (3, 2)]), num_nodes=4)
    data.node_names = ["alga", "snail", "fishA", "fishB"]
    with pytest.raises(ValueError, match=r"2 node\(s\) cannot be reached.*'fishA'.*method='mackay'"):
        trophic_levels(data, "levine")


def test_mackay_per_weakly_connected_component_min_one():
    # two components (a chain 0->1->2 and an edge 3->4) and an isolated node 5
    g = ei([(0, 1), (1, 2), (3, 4)])
    h = trophic_levels(g, "mackay", num_nodes=6)
    torch.testing.assert_close(h, torch.tensor([1.0, 2.0, 3.0, 1.0, 2.0, 1.0], dtype=torch.float64))


def test_mackay_solves_the_published_linear_system():
    rng = np.random.default_rng(0)
    n = 12
    pairs = [(a, b) for a in range(n) for b in range(n) if a != b and rng.random() < 0.25]
    g = ei(pairs)
    w = torch.rand(g.size(1), dtype=torch.float64) + 0.1
    h = trophic_levels(g, "mackay", num_nodes=n, edge_weight=w).numpy()
    W = np.zeros((n, n))
    np.add.at(W, (g[0].numpy(), g[1].numpy()), w.numpy())
    u, v = W.sum(0) + W.sum(1), W.sum(0) - W.sum(1)
    Lam = np.diag(u) - W - W.T
    np.testing.assert_allclose(Lam @ h, v, atol=1e-9)


def test_self_loops_ignored_by_default_and_do_not_move_mackay_levels():
    g = ei([(0, 1), (1, 2), (2, 2)])
    torch.testing.assert_close(trophic_levels(g, "levine"), torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64))
    torch.testing.assert_close(trophic_levels(g, "mackay", self_loops="include"), trophic_levels(g, "mackay"))
    assert trophic_incoherence(g, self_loops="include") > trophic_incoherence(g)


def test_levine_equals_networkx_on_random_dags_with_weights():
    rng = np.random.default_rng(1)
    for _ in range(5):
        n = 15
        pairs = [(a, b) for a in range(n) for b in range(a + 1, n) if rng.random() < 0.3]
        pairs += [(0, b) for b in range(1, n) if all(p[1] != b for p in pairs)]  # reachable from basal 0
        g = ei(pairs)
        w = torch.rand(g.size(1), dtype=torch.float64) + 0.5
        torch.testing.assert_close(trophic_levels(g, "levine", num_nodes=n, edge_weight=w), nx_levels(g, n, w))


def test_johnson_q_equals_networkx():
    g = ei([(0, 1), (0, 2), (1, 2), (2, 3), (1, 3)])
    G = nx.DiGraph(g.t().tolist())
    assert trophic_incoherence(g, "johnson") == pytest.approx(nx.trophic_incoherence_parameter(G))


def test_basal_nodes_and_transform_does_not_mutate():
    data = Data(edge_index=ei([(0, 2), (1, 2), (2, 3)]), num_nodes=4, x=torch.zeros(4, 2))
    assert basal_nodes(data).tolist() == [0, 1]
    out = TrophicLevel("levine")(data)
    assert "trophic_level" not in data and out.trophic_level.tolist() == [1.0, 1.0, 2.0, 3.0]
    out2 = TrophicLevel("mackay", attr_name=None)(data)
    assert out2.x.shape == (4, 3) and data.x.shape == (4, 2)
    # the appended column holds the levels themselves, the features before it unchanged
    torch.testing.assert_close(out2.x[:, -1], trophic_levels(data, "mackay").float())
    assert torch.equal(out2.x[:, :2], data.x)


def test_real_gateway_web(data_root):
    from gatbio.data import load

    web = load("gateway/8", root=data_root)  # Ythan Estuary, 92 species, 414 links
    lev = trophic_levels(web, "levine")
    basal = basal_nodes(web)
    assert len(basal) > 0 and torch.all(lev[basal] == 1.0)
    assert torch.all(lev >= 1.0) and lev.max() < 10
    G = nx.DiGraph(web.edge_index.t().tolist())
    G.add_nodes_from(range(web.num_nodes))
    ref = nx.trophic_levels(G)
    torch.testing.assert_close(lev, torch.tensor([ref[i] for i in range(web.num_nodes)], dtype=torch.float64))
    mk = trophic_levels(web, "mackay")
    assert mk.min() == pytest.approx(1.0)
    # the two definitions agree in ordering on this web (strong rank correlation), not in values
    from scipy.stats import spearmanr
    assert spearmanr(lev.numpy(), mk.numpy()).correlation > 0.8
    assert 0.0 < trophic_incoherence(web) < 1.0


@pytest.mark.parametrize("web", ["cheddar/TL84", "pajek/baydry"])
def test_real_webs_levine_basal_is_one(data_root, web):
    from gatbio.data import load

    d = load(web, root=data_root)
    lev = trophic_levels(d, "levine")
    assert torch.all(lev[basal_nodes(d)] == 1.0)
    assert torch.all(lev[lev > 1] >= 2.0 - 1e-9)  # a consumer eats at least level-1 prey


@pytest.mark.parametrize("method", ["mackay", "levine"])
def test_levels_are_permutation_equivariant_and_weight_scale_invariant(method):
    g = ei([(0, 1), (0, 2), (1, 2), (2, 3), (1, 3), (4, 3), (0, 4)])
    w = torch.tensor([1.0, 2.0, 0.5, 3.0, 1.0, 2.0, 1.0], dtype=torch.float64)
    h = trophic_levels(g, method, edge_weight=w)
    perm = torch.tensor([3, 0, 4, 1, 2])  # new id of old node i is perm[i]
    h_perm = trophic_levels(perm[g], method, edge_weight=w)
    torch.testing.assert_close(h_perm[perm], h)
    torch.testing.assert_close(trophic_levels(g, method, edge_weight=10 * w), h)
    assert not torch.allclose(trophic_levels(g, method), h)  # the weights do matter


@pytest.mark.parametrize("method", ["mackay", "levine"])
def test_zero_weight_link_is_as_if_absent(method):
    # a -> b (1), b -> c (0), c -> d (1): the zero link carries no flow, so the web is two chains a->b, c->d
    g = ei([(0, 1), (1, 2), (2, 3)])
    w = torch.tensor([1.0, 0.0, 1.0], dtype=torch.float64)
    h = trophic_levels(g, method, edge_weight=w)
    torch.testing.assert_close(h, torch.tensor([1.0, 2.0, 1.0, 2.0], dtype=torch.float64))
    without = ei([(0, 1), (2, 3)])
    torch.testing.assert_close(h, trophic_levels(without, method, num_nodes=4))
    # the same through a Data's edge_weight, and for both incoherence measures
    data = Data(edge_index=g, num_nodes=4, edge_weight=w)
    torch.testing.assert_close(trophic_levels(data, method), h)
    assert trophic_incoherence(data) == pytest.approx(0.0, abs=1e-12)
    assert trophic_incoherence(data, "johnson") == pytest.approx(trophic_incoherence(without, "johnson"))
    # weighted=False counts the link again: one chain 1..4
    torch.testing.assert_close(trophic_levels(data, method, weighted=False), torch.arange(1, 5, dtype=torch.float64))


@pytest.mark.parametrize("method", ["mackay", "levine"])
def test_zero_weight_link_in_a_weighted_web_equals_the_web_without_it(method):
    # omnivore triangle plus a zero link 3 -> 2 into the omnivore; 3 -> 4 keeps node 3 in the web
    g = ei([(0, 1), (0, 2), (1, 2), (3, 2), (3, 4)])
    w = torch.tensor([2.0, 1.0, 3.0, 0.0, 1.0], dtype=torch.float64)
    keep = w > 0
    h = trophic_levels(g, method, edge_weight=w)
    assert torch.isfinite(h).all()
    torch.testing.assert_close(h, trophic_levels(g[:, keep], method, num_nodes=5, edge_weight=w[keep]))
    if method == "levine":  # omnivore 2 eats 0 (level 1, weight 1) and 1 (level 2, weight 3): 1 + 7 / 4
        torch.testing.assert_close(h, torch.tensor([1.0, 2.0, 2.75, 1.0, 2.0], dtype=torch.float64))


def test_all_zero_weights_and_numerically_zero_weights_give_clear_answers():
    chain = ei([(0, 1), (1, 2)])
    zeros = torch.zeros(2, dtype=torch.float64)
    for method in ("mackay", "levine"):  # no link left: every species is alone, level 1
        torch.testing.assert_close(trophic_levels(chain, method, edge_weight=zeros), torch.ones(3, dtype=torch.float64))
    with pytest.raises(ValueError, match="no edges .*zero-weight"):
        trophic_incoherence(chain, edge_weight=zeros)
    # uniformly tiny weights are fine (levels do not depend on the weights' scale) ...
    tiny = torch.full((2,), 1e-320, dtype=torch.float64)
    torch.testing.assert_close(trophic_levels(chain, "mackay", edge_weight=tiny), torch.arange(1, 4, dtype=torch.float64))
    # ... but a link numerically zero next to the others is a clear error, not NaN levels
    with pytest.raises(ValueError, match="held together only by links weighing less than 1e-15 times the largest.*"
                                         "weighted=False"):
        trophic_levels(ei([(0, 1), (1, 2), (2, 3)]), "mackay",
                       edge_weight=torch.tensor([1.0, 1e-320, 1.0], dtype=torch.float64))


@pytest.mark.parametrize("light", [1e-9, 1e-12, 1e-13, 3e-15, 1e-15])
def test_mackay_levels_across_a_light_bridge_are_exact(light):
    """A chain weighted 1, light, 1 is perfectly coherent whatever the weights: levels 1, 2, 3, 4. Solved through
    the Laplacian the light link kept a few digits (1e-12: 3.9998; 1e-15: 3.8, silently); one least-squares row
    per link keeps it."""
    h = trophic_levels(ei([(0, 1), (1, 2), (2, 3)]), "mackay",
                       edge_weight=torch.tensor([1.0, light, 1.0], dtype=torch.float64))
    torch.testing.assert_close(h, torch.arange(1, 5, dtype=torch.float64), atol=1e-7, rtol=0)
    # a light link that is not the only bridge changes nothing: the omnivory triangle's limit levels
    tri = trophic_levels(ei([(0, 1), (1, 2), (0, 2)]), "mackay",
                         edge_weight=torch.tensor([light, 1.0, 3.0], dtype=torch.float64))
    torch.testing.assert_close(tri, torch.tensor([1.0, 1.0, 2.0], dtype=torch.float64), atol=1e-6, rtol=0)


def test_johnson_incoherence_counts_a_weighted_parallel_link_once():
    """As networkx on the merged web (weights add in the levels; the std runs over links)."""
    twice = ei([(0, 1), (0, 2), (1, 2), (1, 2)])
    merged = nx.DiGraph()
    merged.add_weighted_edges_from([(0, 1, 1.0), (0, 2, 1.0), (1, 2, 2.0)])
    q = trophic_incoherence(twice, "johnson", edge_weight=torch.ones(4, dtype=torch.float64))
    assert q == pytest.approx(nx.trophic_incoherence_parameter(merged, weight="weight"))
    assert q == pytest.approx(0.4157, abs=1e-4)


def test_a_link_listed_twice_in_a_binary_web_counts_once():
    """edge_index with a repeated link and no weights is a binary web: the repeat is the same link (networkx's
    DiGraph keeps one), not a heavier one; with weights given, parallel links add (the readers' merge rule)."""
    twice = ei([(0, 1), (0, 2), (1, 2), (0, 1)])
    once = ei([(0, 1), (0, 2), (1, 2)])
    for method in ("levine", "mackay"):
        torch.testing.assert_close(trophic_levels(twice, num_nodes=3, method=method),
                                   trophic_levels(once, num_nodes=3, method=method))
    torch.testing.assert_close(trophic_levels(twice, num_nodes=3, method="levine"), nx_levels(once, 3))
    assert trophic_incoherence(twice, "mackay", num_nodes=3) == pytest.approx(1 / 9)
    assert trophic_incoherence(twice, "johnson", num_nodes=3) == pytest.approx(
        nx.trophic_incoherence_parameter(nx.DiGraph([(0, 1), (0, 2), (1, 2)]), cannibalism=True))
    w = torch.tensor([1.0, 1.0, 1.0, 1.0])
    summed = trophic_levels(twice, num_nodes=3, method="levine", edge_weight=w)
    torch.testing.assert_close(summed, trophic_levels(once, num_nodes=3, method="levine",
                                                      edge_weight=torch.tensor([2.0, 1.0, 1.0])))


def test_dir_lists_the_lazily_imported_names():
    """``dir(gatbio.ecology)`` (tab completion in a notebook) lists what the package offers, though the names are
    imported on first use."""
    import gatbio.ecology

    assert set(gatbio.ecology.__all__) <= set(dir(gatbio.ecology))


def test_a_path_or_a_table_is_refused_with_the_reader_to_use(tmp_path):
    import pandas as pd

    web = tmp_path / "web.csv"
    web.write_text("a,b\nb,c\n")
    for given in ("web.csv", web):
        with pytest.raises(TypeError, match=r"data_or_edge_index is a path.*read_foodweb_file.*gatbio\.data\.load"):
            trophic_levels(given)
    table = pd.DataFrame({"prey": [0, 1], "predator": [1, 2]})
    with pytest.raises(TypeError, match=r"data_or_edge_index is a pandas DataFrame.*edges_to_data"):
        trophic_levels(table)


def test_node_ids_must_be_whole_numbers_and_the_shape_2_by_e():
    """1.5 was truncated to 1 (another web, silently); whole numbers in a float tensor read as they are."""
    with pytest.raises(ValueError, match=r"edge_index holds 1\.5.*whole number"):
        trophic_levels(torch.tensor([[0.0, 1.5], [1.0, 2.0]]))
    torch.testing.assert_close(trophic_levels(torch.tensor([[0.0, 1.0], [1.0, 2.0]])),
                               trophic_levels(ei([(0, 1), (1, 2)])))
    with pytest.raises(ValueError, match=r"edge_index has shape \(3, 2\).*\(2, E\).*\.t\(\)"):
        trophic_levels(ei([(0, 1), (1, 2), (2, 3)]).t())
    with pytest.raises(ValueError, match=r"edge_index holds node id 3.*0\.\.2"):
        trophic_levels(ei([(0, 1), (1, 3)]), num_nodes=3)


def test_a_networkx_digraph_is_read_with_its_node_order_and_weights():
    """networkx's trophic.py is the convention (an edge u -> v: v eats u): its DiGraph was refused with a
    misleading shape message. Levine's levels then equal networkx's own, weights included."""
    G = nx.DiGraph()
    G.add_edge("grass", "rabbit", weight=1.0)
    G.add_edge("rabbit", "fox", weight=3.0)
    G.add_edge("grass", "fox", weight=1.0)
    ours = trophic_levels(G, "levine").tolist()
    assert ours == pytest.approx([nx.trophic_levels(G)[v] for v in G.nodes])  # [1, 2, 2.75]
    assert ours == pytest.approx([1.0, 2.0, 2.75])
    with pytest.raises(TypeError, match="undirected networkx graph: .* give a networkx.DiGraph"):
        trophic_levels(nx.Graph([("grass", "rabbit")]))


def test_two_links_as_a_python_list_are_refused_as_ambiguous():
    """[(0, 1), (0, 2)] (grass eaten by rabbit and deer) was read as the (2, E) rows [[0, 1], [0, 2]]: a
    self-loop 0 -> 0 and 1 -> 2, levels [1, 1, 2] instead of [1, 2, 2]."""
    with pytest.raises(ValueError, match=r"a list of two pairs, \[\(0, 1\), \(0, 2\)\]: two \(source, target\) "
                                         r"links, or the two rows of a \(2, E\) edge_index\?"):
        trophic_levels([(0, 1), (0, 2)])
    assert trophic_levels(torch.tensor([(0, 1), (0, 2)]).t()).tolist() == [1.0, 2.0, 2.0]
    with pytest.raises(ValueError, match=r"list of \(source, target\) links: pass torch\.tensor\(links\)\.t\(\)"):
        trophic_levels([(0, 1), (0, 2), (1, 2)])


def test_basal_nodes_do_not_count_links_of_weight_zero():
    """A consumer whose only prey link weighs 0 is basal for trophic_levels (level 1); basal_nodes said not."""
    g = Data(edge_index=torch.tensor([[0, 1, 2], [1, 2, 3]]), edge_weight=torch.tensor([1.0, 0.0, 1.0]), num_nodes=4)
    assert trophic_levels(g, "levine").tolist() == [1.0, 2.0, 1.0, 2.0]
    assert basal_nodes(g).tolist() == [0, 2]
