"""GNN-PPI's pair splits: equal to a line-by-line transcription of its algorithm (Python ``random`` seeded alike),
seeded NumPy splits, the validation carve, the training graph and the BS/ES/NS subsets."""

from __future__ import annotations

import random

import numpy as np
import pytest
import torch

from gatbio.data.pair_splits import (
    carve_validation,
    gnn_ppi_split,
    message_graph,
    pair_split,
    pair_subsets,
)


# ------------------------------------------------------------------ reference: GNN-PPI's semantics, transcribed
# (gnn_data.GNN_DATA.split_dataset and utils.get_bfs_sub_graph / get_dfs_sub_graph at commit f47dfd1, as described
# in string_shs27k/SOURCE.md: list-membership tests, a FIFO list popped at 0, a stack, the module-level `random`.)
def ref_node_to_pairs(pairs):
    table = {}
    for i, (a, b) in enumerate(pairs):
        table.setdefault(a, []).append(i)
        table.setdefault(b, []).append(i)
    return table


def ref_root(table):
    node = random.randint(0, len(table) - 1)
    while len(table[node]) > 5:
        node = random.randint(0, len(table) - 1)
    return node


def ref_bfs(pairs, table, size):
    queue, chosen, done = [ref_root(table)], [], []
    while len(chosen) < size:
        cur = queue.pop(0)
        done.append(cur)
        for e in table[cur]:
            if e in chosen:
                continue
            chosen.append(e)
            end = pairs[e][1] if pairs[e][0] == cur else pairs[e][0]
            if end not in done and end not in queue:
                queue.append(end)
    return chosen


def ref_dfs(pairs, table, size):
    stack, chosen, done = [ref_root(table)], [], []
    while len(chosen) < size:
        cur = stack[-1]
        if cur in done:
            pushed = False
            for e in table[cur]:
                end = pairs[e][1] if pairs[e][0] == cur else pairs[e][0]
                if end not in done:
                    stack.append(end)
                    pushed = True
                    break
            if not pushed:
                stack.pop()
            continue
        done.append(cur)
        for e in table[cur]:
            if e not in chosen:
                chosen.append(e)
    return chosen


def ref_split(pairs, mode, test_size=0.2):
    n = len(pairs)
    if mode == "random":
        order = list(range(n))
        random.shuffle(order)
        return order[:int(n * (1 - test_size))], order[int(n * (1 - test_size)):]
    table = ref_node_to_pairs(pairs)
    walk = ref_bfs if mode == "bfs" else ref_dfs
    test = walk(pairs, table, int(n * test_size))
    return sorted(set(range(n)) - set(test)), test


def toy_graph(seed: int, n: int = 40, extra: int = 60) -> list[tuple[int, int]]:
    """A connected random graph: a random tree (so every walk can reach the target) plus extra pairs, listed in a
    shuffled order, with proteins numbered by first appearance as the reader numbers them."""
    rng = np.random.default_rng(seed)
    edges = {(int(rng.integers(0, i)), i) for i in range(1, n)}
    while len(edges) < n - 1 + extra:
        a, b = sorted(rng.choice(n, 2, replace=False).tolist())
        edges.add((a, b))
    edges = [edges_ for edges_ in sorted(edges)]
    rng.shuffle(edges)
    names: dict[int, int] = {}
    for a, b in edges:
        names.setdefault(a, len(names))
        names.setdefault(b, len(names))
    return [(names[a], names[b]) for a, b in edges]


@pytest.mark.parametrize("mode", ["random", "bfs", "dfs"])
@pytest.mark.parametrize("seed", range(6))
def test_equal_to_gnn_ppi_with_the_same_random_draws(mode, seed):
    pairs = toy_graph(seed)
    random.seed(seed)
    ref_train, ref_test = ref_split(pairs, mode)
    ours = gnn_ppi_split(np.array(pairs), 40, mode, random.Random(seed))
    assert ours["test"] == ref_test  # the same pairs, selected in the same order
    assert sorted(ours["train"]) == sorted(ref_train) and (mode != "random" or ours["train"] == ref_train)


def test_sizes_stop_after_a_whole_protein_and_root_has_few_pairs():
    pairs = np.array(toy_graph(1, n=60, extra=120))
    n = len(pairs)
    for mode in ("bfs", "dfs"):
        for seed in range(5):
            sp = gnn_ppi_split(pairs, 60, mode, np.random.default_rng(seed))
            assert len(sp["test"]) >= int(n * 0.2) and len(sp["train"]) + len(sp["test"]) == n
            assert set(sp["train"]).isdisjoint(sp["test"])
            root_pairs = int(((pairs[:, 0] == sp["root"]) | (pairs[:, 1] == sp["root"])).sum())
            assert 1 <= root_pairs <= 5
            assert pairs[sp["test"][0]].tolist().count(sp["root"]) == 1  # the walk starts at the root
    sp = gnn_ppi_split(pairs, 60, "random", np.random.default_rng(0))
    assert len(sp["train"]) == int(n * 0.8) and len(sp["test"]) == n - int(n * 0.8)


def test_seeded_and_saved_split_is_reproducible_and_json_able():
    import json

    pairs = torch.tensor(toy_graph(2, n=50, extra=80))
    a = pair_split(pairs, 50, "dfs", seed=3)
    b = json.loads(json.dumps(pair_split(pairs, 50, "dfs", seed=3)))
    assert a == b and a != pair_split(pairs, 50, "dfs", seed=4)
    assert sorted(a["fit"] + a["val"]) == a["train"] and set(a["train"]).isdisjoint(a["test"])
    assert len(a["val"]) >= int(len(a["train"]) * 0.1)


def test_exhausted_walk_restarts_from_a_new_root():
    # a 2-pair component (proteins 0-1-2) and a big star-free chain: a root in the small one cannot reach 6 pairs
    chain = [(i, i + 1) for i in range(3, 30)]
    pairs = np.array([(0, 1), (1, 2)] + chain)
    seen_restart = False
    for seed in range(30):
        for mode in ("bfs", "dfs"):
            sp = gnn_ppi_split(pairs, 31, mode, np.random.default_rng(seed))
            assert len(sp["test"]) >= int(len(pairs) * 0.2) and sp["root"] >= 3
            seen_restart |= sp["attempts"] > 1
    assert seen_restart
    with pytest.raises(ValueError, match="components are too small"):
        gnn_ppi_split(np.array([(0, 1), (2, 3), (4, 5), (6, 7), (8, 9)]), 10, "bfs", np.random.default_rng(0),
                   test_fraction=0.5)


def test_validation_carve_same_rule_or_random():
    pairs = np.array(toy_graph(3, n=60, extra=120))
    train = gnn_ppi_split(pairs, 60, "bfs", np.random.default_rng(0))["train"]
    for kind in ("bfs", "dfs", "random"):
        c = carve_validation(pairs, train, 60, kind, seed=0, fraction=0.15)
        assert sorted(c["fit"] + c["val"]) == sorted(train) and set(c["fit"]).isdisjoint(c["val"])
        assert len(c["val"]) >= int(len(train) * 0.15)
        if kind != "random":  # a region: its root's pairs are all validation pairs
            r = c["val_root"]
            assert all(i in set(c["val"]) for i in train if r in pairs[i])


def test_message_graph_of_training_pairs_and_subsets():
    pairs = torch.tensor([[0, 1], [1, 2], [2, 3], [4, 4]])
    ei, attr = message_graph(pairs, [0, 3], torch.tensor([0.5, 0.6, 0.7, 0.8]))
    assert ei.tolist() == [[0, 4, 1], [1, 4, 0]] and attr.tolist() == pytest.approx([0.5, 0.8, 0.5])
    ei, _ = message_graph(pairs)
    assert ei.size(1) == 7
    # training pairs (0,1) and (4,4): test (1,2) has one seen protein (ES), (2,3) none (NS), (0,1) both (BS)
    assert pair_subsets(pairs, [0, 3], [1, 2, 0], 5).tolist() == [1, 0, 2]


def test_shs27k_split_sizes(data_root):
    from gatbio.data import load

    d = load("shs27k", root=data_root, features=())
    sp = pair_split(d.pairs, d.num_nodes, "random", 0)
    assert (len(sp["train"]), len(sp["test"])) == (6099, 1525)  # int(7624 * 0.8), as GNN-PPI
    for mode in ("bfs", "dfs"):
        sp = pair_split(d.pairs, d.num_nodes, mode, 0)
        assert len(sp["test"]) >= 1524 and len(sp["train"]) + len(sp["test"]) == 7624
        sub = pair_subsets(d.pairs, sp["train"], sp["test"], d.num_nodes)
        assert (sub < 2).all()  # every test pair has an expanded protein, all of whose pairs are test pairs


def test_validation_carved_in_several_regions():
    rng = np.random.default_rng(3)
    pairs = np.array(sorted({tuple(sorted(rng.choice(200, 2, replace=False).tolist())) for _ in range(900)}))
    train = list(range(0, len(pairs)))
    one = carve_validation(pairs, train, 200, "bfs", 0, 0.1)
    four = carve_validation(pairs, train, 200, "bfs", 0, 0.1, parts=4)
    for c in (one, four):
        assert sorted(c["fit"] + c["val"]) == train and not set(c["fit"]) & set(c["val"])
        assert 0.1 * len(train) <= len(c["val"]) <= 0.2 * len(train)
    assert one["val"] != four["val"] and four["val_attempts"] >= 4
    assert carve_validation(pairs, train, 200, "random", 0, 0.1, parts=4) == carve_validation(pairs, train, 200,
                                                                                              "random", 0, 0.1)
    sp = pair_split(pairs, 200, "dfs", 1, val_parts=4)
    assert sp["val_parts"] == 4 and "in 4 part(s)" in sp["protocol"]
