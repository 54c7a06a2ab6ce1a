"""Acceptance checks of the interaction-type task (issue 15) that found defects: the validation carve of a small
network, GNN-PPI's root rule with self-pairs, and sequence features given read_sequences' mapping."""

from __future__ import annotations

import numpy as np
import pytest

from gatbio.data.pair_splits import carve_validation, draw_root, pair_split, protein_pair_lists


def _hub_and_chains(leaves: int = 60, chains: int = 20) -> tuple[np.ndarray, int]:
    """A hub protein with ``leaves`` partners, and ``chains`` separate 2-pair chains (a - b - c)."""
    pairs = [(0, i) for i in range(1, leaves + 1)]
    n = leaves + 1
    for _ in range(chains):
        pairs += [(n, n + 1), (n + 1, n + 2)]
        n += 3
    return np.array(pairs), n


def test_validation_parts_stop_once_the_first_holds_the_share():
    # the first BFS part reaches the hub (60 of the 100 pairs, for 30 asked); the 2-pair chains left cannot give a
    # second part: this was "no BFS walk ... test_fraction=0.09375" (a setting the user never gave)
    pairs, n = _hub_and_chains()
    c = carve_validation(pairs, list(range(len(pairs))), n, "bfs", seed=0, fraction=0.3, parts=8)
    assert c["val_parts"] == 1 and len(c["val"]) == 60 and len(c["fit"]) == 40
    assert sorted(c["fit"] + c["val"]) == list(range(len(pairs)))


def test_validation_parts_do_not_shrink_the_training_pairs_to_nothing():
    # a small STRING-like network (one hub): more parts were carved after the first already held the share, down
    # to 1 training pair, or failed with "test_fraction=1.2: must be in (0, 1)"
    rng = np.random.default_rng(3)
    pairs = [(0, i) for i in range(1, 61)] + [(i, i + 60) for i in range(1, 41)]
    pairs += [(100 + i, 100 + (i + 1) % 30) for i in range(30)] + [(int(a), int(b)) for a, b in
                                                                    rng.integers(101, 130, (20, 2)) if a != b]
    pairs = np.unique(np.sort(np.array(pairs), axis=1), axis=0)
    n = int(pairs.max()) + 1
    for seed in range(5):
        for parts in (2, 4, 8):
            sp = pair_split(pairs, n, "bfs", seed, val_fraction=0.3, val_parts=parts)
            assert len(sp["fit"]) >= 0.3 * len(sp["train"]) - 1, (seed, parts, len(sp["fit"]), len(sp["train"]))
            assert 1 <= sp["val_parts"] <= parts and f"in {sp['val_parts']} part(s)" in sp["protocol"]


def test_validation_carve_that_cannot_be_made_names_the_validation_settings():
    pairs, n = _hub_and_chains(leaves=0, chains=50)  # 2-pair components only: no walk reaches 10 pairs
    with pytest.raises(ValueError) as err:
        carve_validation(pairs, list(range(len(pairs))), n, "bfs", seed=0, fraction=0.1)
    msg = str(err.value)
    assert "val_fraction=0.1" in msg and "val_parts=1" in msg and "test_fraction" not in msg
    assert "val_split: random" in msg


def test_splits_unchanged_without_overshoot():
    # a network where no part overshoots: the parts are the asked number, as before
    rng = np.random.default_rng(0)
    pairs = np.unique(np.sort(rng.integers(0, 150, (600, 2)), axis=1), axis=0)
    pairs = pairs[pairs[:, 0] != pairs[:, 1]]
    sp = pair_split(pairs, 150, "bfs", 0, val_parts=4)
    assert sp["val_parts"] == 4


def test_self_pair_counts_twice_in_the_root_rule_as_in_gnn_ppi():
    # GNN-PPI's node_to_edge_index appends a pair to the lists of both its ends: a self-pair twice, so protein 0
    # below is in 6 (> 5) pairs there and never a root; here it counted 5 and was drawn
    pairs = np.array([[0, 0], [0, 1], [0, 2], [0, 3], [0, 4]])
    lists = protein_pair_lists(pairs, 5)
    assert lists[0] == [0, 0, 1, 2, 3, 4] and lists[1] == [1]
    rng = np.random.default_rng(0)
    assert 0 not in {draw_root(lists, rng, 5) for _ in range(200)}


def test_self_pair_walks_match_gnn_ppi_reference():
    """GNN-PPI's get_bfs_sub_graph / get_dfs_sub_graph (utils.py, their logic) on a network with self-pairs, with
    the same Python random draws: the same test pairs."""
    import random

    def gnn_bfs(ppi, nte, size):
        cand, sel_e, sel_n = [], [], []
        r = random.randint(0, len(nte) - 1)
        while len(nte[r]) > 5:
            r = random.randint(0, len(nte) - 1)
        cand.append(r)
        while len(sel_e) < size:
            cur = cand.pop(0)
            sel_n.append(cur)
            for e in nte[cur]:
                if e not in sel_e:
                    sel_e.append(e)
                    end = ppi[e][1] if ppi[e][0] == cur else ppi[e][0]
                    if end not in sel_n and end not in cand:
                        cand.append(end)
        return sel_e

    rs = np.random.default_rng(1)
    pairs = {tuple(sorted(rs.integers(0, 60, 2).tolist())) for _ in range(200)} | {(v, v) for v in range(0, 60, 3)}
    pairs = sorted(pairs, key=lambda p: rs.random())
    order: dict[int, int] = {}
    for a, b in pairs:
        for x in (a, b):
            order.setdefault(x, len(order))
    ppi = [sorted([order[a], order[b]]) for a, b in pairs]
    nte: dict[int, list[int]] = {}
    for i, (a, b) in enumerate(ppi):
        nte.setdefault(a, []).append(i)
        nte.setdefault(b, []).append(i)
    from gatbio.data.pair_splits import gnn_ppi_split

    compared = 0
    for seed in range(30):
        random.seed(seed)
        try:
            ref = gnn_bfs(ppi, nte, int(len(ppi) * 0.2))
        except IndexError:  # GNN-PPI's exhausted walk
            continue
        ours = gnn_ppi_split(np.array(ppi), len(order), "bfs", random.Random(seed))
        if ours["attempts"] == 1:
            assert ours["test"] == ref, seed
            compared += 1
    assert compared >= 10


def test_sequence_features_refuse_read_sequences_mapping(tmp_path):
    from gatbio.data.sequence import kmer_similarity, read_sequences, sequence_features

    fa = tmp_path / "s.fa"
    fa.write_text(">P69905\nMVLSPADKTNVKAAWGKVGAHAGEYGAEALERMFLSFPTTKTYFPHF\n>Q9XYZ1\nMKKLLPTAAAGLLLLAAQPAMA\n")
    seqs = read_sequences(fa)
    # iterating the mapping gives the ids: their letters were silently featurised as residues
    with pytest.raises(TypeError, match=r"list\(seqs.values\(\)\)"):
        sequence_features(seqs, ["aac"])
    with pytest.raises(TypeError, match="mapping"):
        kmer_similarity(seqs)
    with pytest.raises(TypeError, match=r"\[seq\]"):
        sequence_features("MKVLLAAG", ["aac"])
    x, _ = sequence_features(list(seqs.values()), ["aac"])
    assert x.shape == (2, 20) and x[0].sum() == pytest.approx(1.0)


def test_note_says_fewer_validation_parts(caplog):
    from gatbio.tasks.protein_interactions import InteractionsConfig, _note_sizes

    sp = {"num_pairs": 100, "train": list(range(80)), "test": list(range(80, 100)), "val": list(range(60)),
          "val_parts": 1}
    _note_sizes(sp, InteractionsConfig(val_parts=8, val_fraction=0.3), "bfs", 0)
    assert "carved in 1 of the 8 val_parts asked" in caplog.text


def test_validation_carve_of_an_unknown_kind_says_the_kind():
    """'BFS' (upper case) was caught with the walk's failures and said as 'components are too small'."""
    pairs = np.array([[i, i + 1] for i in range(50)])
    with pytest.raises(ValueError, match=r"split 'BFS': choose one of"):
        carve_validation(pairs, list(range(50)), 51, "BFS", 0, 0.1)
