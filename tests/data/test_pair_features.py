"""Inputs of the interaction-type recipe: label profiles from message pairs only, the supervision split never puts a
supervised pair among the messages, the graph builder's edges and features, the profile rule."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from gatbio.data.pair_features import (
    PairGraphBuilder,
    choose_threshold,
    homologues,
    impute_profiles,
    interolog_edges,
    interolog_prior,
    interolog_scores,
    label_profiles,
    profile_prior,
    profile_rule,
    role_profiles,
    supervision_split,
)

# 5 proteins; pair 0: (0, 1) mode 0, pair 1: (1, 2) mode 1, pair 2: (2, 3) modes 0 and 1, pair 3: (3, 4) mode 1
PAIRS = torch.tensor([[0, 1], [1, 2], [2, 3], [3, 4]])
MODES = torch.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [0.0, 1.0]])
SCORE = torch.tensor([0.9, 0.5, 0.3, 0.7])


def test_profile_reads_only_the_message_pairs():
    prof = label_profiles(PAIRS, MODES, [0, 1], 5)  # pairs 2 and 3 are supervised: their modes must not show
    assert prof.shape == (5, 4)
    assert torch.allclose(prof[1], torch.tensor([0.5, 0.5, float(np.log(3.0)), 1.0]))
    assert torch.allclose(prof[2], torch.tensor([0.0, 1.0, float(np.log(2.0)), 1.0]))  # not [0.5, 1] (pair 2 hidden)
    assert torch.equal(prof[3], torch.zeros(4)) and torch.equal(prof[4], torch.zeros(4))  # unseen: all zero


@pytest.mark.parametrize("scheme", ["node", "edge", "mix"])
def test_supervision_split_never_leaks_a_supervised_pair_into_the_messages(scheme):
    rng = np.random.default_rng(0)
    pairs = np.array(sorted({tuple(sorted(rng.choice(40, 2, replace=False).tolist())) for _ in range(400)}))[:200]
    fit = np.arange(0, 200, 2)
    for _ in range(20):
        msg, sup = supervision_split(fit, pairs, scheme, rng, node_fraction=0.2, edge_fraction=0.3)
        assert len(sup) and not set(msg) & set(sup) and sorted(np.concatenate([msg, sup])) == fit.tolist()
        if scheme == "node":  # a hidden protein has no message pair: the supervised pairs look like new proteins
            hidden = set(pairs[sup].ravel()) - set(pairs[msg].ravel())
            assert all(a in hidden or b in hidden for a, b in pairs[sup])
        b = PairGraphBuilder(torch.as_tensor(pairs), torch.ones(200, 2), torch.ones(200), None)
        _, ei, _ = b.build(msg)
        edges = {tuple(e) for e in ei.t().tolist()}
        assert not any((int(a), int(c)) in edges or (int(c), int(a)) in edges for a, c in pairs[sup])
    msg, sup = supervision_split(fit, pairs, "none", rng)
    assert msg.tolist() == sup.tolist() == fit.tolist()
    with pytest.raises(ValueError, match="supervision='half': choose one of none, node, edge, mix"):
        supervision_split(fit, pairs, "half", rng)


def test_graph_builder_edges_and_features():
    knn = torch.tensor([[0, 4], [4, 0]])
    b = PairGraphBuilder(PAIRS, MODES, SCORE, torch.zeros(5, 3), knn, torch.tensor([0.8, 0.8]))
    assert b.num_features == 3 + 2 + 2 and b.edge_dim == 2 + 2 + 2
    x, ei, ea = b.build([0, 2])
    assert x.shape == (5, 7) and ei.tolist() == [[0, 2, 1, 3, 0, 4], [1, 3, 0, 2, 4, 0]]
    assert torch.allclose(ea[:4], torch.tensor([[1, 0, 1, 0, 0.9, 0], [1, 0, 1, 1, 0.3, 0]] * 2))
    assert torch.allclose(ea[4:], torch.tensor([[0, 1, 0, 0, 0, 0.8]] * 2))  # kNN: no modes, no score
    # "all pairs" setting: the other pairs are edges without their modes, and they stay out of the profiles
    x2, ei2, ea2 = b.build([0, 2], structure_idx=[0, 1, 2, 3])
    assert ei2.size(1) == 8 + 2 and torch.equal(x2, x)
    assert torch.equal(ea2[2:4, 2:4], torch.zeros(2, 2)) and torch.allclose(ea2[2:4, 4], torch.tensor([0.5, 0.7]))
    # switched off: no profile block, no edge features
    b0 = PairGraphBuilder(PAIRS, MODES, SCORE, torch.zeros(5, 3), profile=False, edge_type=False, edge_modes=False,
                          edge_score=False)
    x0, ei0, ea0 = b0.build([1])
    assert x0.shape == (5, 3) and ea0 is None and ei0.tolist() == [[1, 2], [2, 1]]


def test_profile_rule_and_threshold():
    s = profile_rule(PAIRS, MODES, [0, 1], torch.tensor([[0, 2], [3, 4]]), 5)
    # protein 0: [1, 0]; protein 2: [0, 1]; proteins 3, 4 unseen: the mean of the known pairs [0.5, 0.5]
    assert np.allclose(s, [[0.5, 0.5], [0.5, 0.5]])
    y = np.array([[1, 0], [0, 1], [1, 1]])
    t, f = choose_threshold(y, np.array([[0.9, 0.2], [0.3, 0.7], [0.6, 0.5]]), grid=[0.1, 0.4, 0.55])
    assert t == 0.4 and f == pytest.approx(1.0)


# similarity of the 5 proteins: 3 is like 0 (0.9) and a little like 2 (0.1); 4 is like 1 (0.6) and 2 (0.2);
# and a negative similarity to 0 that must give no weight
SIM = torch.tensor([[0.0, 0.1, 0.1, 0.9, -0.5],
                    [0.1, 0.0, 0.1, 0.0, 0.6],
                    [0.1, 0.1, 0.0, 0.1, 0.2],
                    [0.9, 0.0, 0.1, 0.0, 0.0],
                    [-0.5, 0.6, 0.2, 0.0, 0.0]])


def test_impute_profiles_takes_the_weighted_mean_of_the_most_similar_seen_proteins():
    block = label_profiles(PAIRS, MODES, [0, 1], 5)  # seen: 0 [1, 0], 1 [0.5, 0.5], 2 [0, 1]; unseen: 3, 4
    out = impute_profiles(block, SIM, neighbors=2)
    assert torch.equal(out[:3], block[:3])  # seen proteins keep their profiles
    # 3: neighbours 0 (0.9) and 2 (0.1) -> 0.9 [1, 0] + 0.1 [0, 1]; 4: 1 (0.6) and 2 (0.2) -> (0.6 [.5, .5] + 0.2 [0, 1]) / 0.8
    assert torch.allclose(out[3, :2], torch.tensor([0.9, 0.1]), atol=1e-6)
    assert torch.allclose(out[4, :2], torch.tensor([0.375, 0.625]), atol=1e-6)
    assert torch.equal(out[3:, 2:], block[3:, 2:])  # degree 0 and seen flag 0: the network still knows they are new
    assert torch.allclose(profile_prior(out)[3:], out[3:, :2])  # the prior uses the imputed profile
    assert torch.allclose(profile_prior(block)[3], torch.tensor([0.5, 0.5]))  # without: the mean mode vector
    # all three seen proteins with neighbors > 3 seen: the negative similarity (4 to 0) weighs nothing
    out3 = impute_profiles(block, SIM, neighbors=10)
    assert torch.allclose(out3[4, :2], torch.tensor([0.375, 0.625]), atol=1e-6)
    assert torch.equal(impute_profiles(block, SIM, 0), block)


def test_profile_rule_imputes_by_homology_and_the_builder_too():
    q = torch.tensor([[0, 3], [2, 4]])
    s = profile_rule(PAIRS, MODES, [0, 1], q, 5, similarity=SIM, neighbors=1)
    # 3 takes protein 0's [1, 0]; 4 takes protein 1's [0.5, 0.5]
    assert np.allclose(s, [[1.0, 0.0], [0.25, 0.75]])
    b = PairGraphBuilder(PAIRS, MODES, SCORE, torch.zeros(5, 3), impute_similarity=SIM, impute_neighbors=1)
    x, _, _ = b.build([0, 1])
    assert torch.allclose(x[3, 3:5], torch.tensor([1.0, 0.0])) and x[3, 6] == 0  # imputed profile, seen flag 0


# directions of PAIRS' modes (bit flags of read_string_actions): pair 0 mode 0 undirected; pair 1 mode 1: 1 acts on 2;
# pair 2 mode 0: 3 acts on 2 (backward), mode 1: both ways; pair 3 mode 1: 3 acts on 4
DIRECTION = torch.tensor([[1, 0], [0, 2], [4, 6], [0, 2]], dtype=torch.uint8)


def test_role_profiles_count_who_acts_in_each_mode():
    roles = role_profiles(PAIRS, DIRECTION, [0, 1, 2, 3], 5)  # columns: acts (mode 0, 1), acted on (0, 1), deg, seen
    assert roles.shape == (5, 6)
    assert torch.allclose(roles[:, :4], torch.tensor([[0, 0, 0, 0],  # 0: its one pair is undirected
                                                      [0, 0.5, 0, 0],  # 1: acts on 2 in one of its 2 pairs
                                                      [0, 0.5, 0.5, 1],  # 2: acted on by 1 and (mode 0) by 3
                                                      [0.5, 1, 0, 0.5],  # 3: acts on 2 (both modes) and 4
                                                      [0, 0, 0, 1.0]]))  # 4: acted on by 3
    assert torch.equal(roles[:, 4:], label_profiles(PAIRS, MODES, [0, 1, 2, 3], 5)[:, 2:])  # degree, seen
    hidden = role_profiles(PAIRS, DIRECTION, [0, 1], 5)  # pairs 2 and 3 supervised: their directions must not show
    assert torch.allclose(hidden[2, :4], torch.tensor([0, 0, 0, 1.0])) and torch.equal(hidden[3], torch.zeros(6))


def test_builder_role_block_sits_between_sequence_and_profile_and_is_imputed():
    b = PairGraphBuilder(PAIRS, MODES, SCORE, torch.zeros(5, 3), impute_similarity=SIM, impute_neighbors=1,
                         direction=DIRECTION)
    assert b.num_features == 3 + 4 + 4
    x, _, _ = b.build([0, 1])
    assert x.shape == (5, 11)
    assert torch.equal(x[:, 7:], PairGraphBuilder(PAIRS, MODES, SCORE, torch.zeros(5, 3), impute_similarity=SIM,
                                                  impute_neighbors=1).build([0, 1])[0][:, 3:])  # profile block last
    assert torch.allclose(x[1, 3:7], torch.tensor([0, 0.5, 0, 0]))  # 1 acts on 2 in mode 1, one of its two pairs
    assert torch.allclose(x[4, 3:7], x[1, 3:7])  # 4 is unseen: it takes its most similar seen protein's roles (1)


def test_homologues_are_the_protein_then_its_most_similar():
    index, weight = homologues(SIM, 2)
    assert index[:, 0].tolist() == [0, 1, 2, 3, 4] and torch.equal(weight[:, 0], torch.ones(5))
    assert index[3, 1:].tolist() == [0, 2] and torch.allclose(weight[3, 1:], torch.tensor([0.9, 0.1]))
    assert index[4, 1:].tolist() == [1, 2] and torch.allclose(weight[4, 1:], torch.tensor([0.6, 0.2]))
    _, w4 = homologues(SIM, 4)
    assert w4.min() == 0  # protein 4's fourth homologue (0, similarity -0.5) weighs nothing
    assert homologues(SIM, 9)[0].shape == (5, 5)  # at most the N - 1 other proteins
    assert homologues(SIM[:1, :1], 5)[0].tolist() == [[0]]  # one protein: itself
    with pytest.raises(ValueError, match="must be at least 1"):
        homologues(SIM, 0)


def test_interolog_scores_known_answer():
    """Protein 3 is new; its close homologue 0 (0.9) is a known partner of 1 (pair (0, 1), mode 0), and its weak
    homologue 2 (0.1) is a known partner of 1 too (pair (1, 2), mode 1): the query (1, 3) takes
    (1 * 0.9 * [1, 0] + 1 * 0.1 * [0, 1]) / (0.9 + 0.1), shrunk towards the rule's score by 0.03."""
    index, weight = homologues(SIM, 2)
    num, den = interolog_scores(PAIRS[:2], MODES[:2], torch.tensor([[1, 3], [3, 1], [4, 4]]), index, weight)
    assert torch.allclose(num[0], torch.tensor([0.9, 0.1])) and den[0] == pytest.approx(1.0)
    assert torch.equal(num[1], num[0]) and den[1] == den[0]  # symmetric
    # (4, 4): homologues {4, 1, 2} x {4, 1, 2}: pair (1, 2) in both orientations, 0.6 * 0.2 each
    assert torch.allclose(num[2], torch.tensor([0.0, 0.24])) and den[2] == pytest.approx(0.24)
    prior = torch.tensor([[0.5, 0.5]] * 3)
    t = interolog_prior(num, den, prior, 0.03)
    assert torch.allclose(t[0], (torch.tensor([0.9, 0.1]) + 0.03 * 0.5) / 1.03)
    # no interolog: the prior stays; a pair given twice (and in both orientations) counts once
    n2, d2 = interolog_scores(torch.tensor([[0, 1], [1, 0], [0, 1]]), torch.tensor([[1.0, 0], [0, 1.0], [1.0, 0]]),
                              torch.tensor([[1, 3], [2, 4]]), index, weight)
    assert torch.allclose(n2[0], torch.tensor([0.9, 0.9])) and d2[0] == pytest.approx(0.9)  # union of its modes
    assert d2[1] == 0 and torch.equal(interolog_prior(n2, d2, prior[:2], 0.03)[1], prior[1])
    with pytest.raises(ValueError, match="must be > 0"):
        interolog_prior(num, den, prior, 0.0)


def test_interolog_scores_equal_the_dense_sum():
    """n_ab = sum over known (c, d), both orientations, of W[a, c] W[b, d] y_cd with W the sparse homologue weights."""
    g = torch.Generator().manual_seed(0)
    n, k = 30, 4
    sim = torch.rand(n, n, generator=g)
    sim = (sim + sim.t()) / 2
    pairs = torch.combinations(torch.arange(n))[torch.randperm(435, generator=g)[:60]]  # 60 distinct pairs
    modes = (torch.rand(60, 3, generator=g) < 0.4).float()
    query = torch.randint(0, n, (50, 2), generator=g)
    index, weight = homologues(sim, k)
    num, den = interolog_scores(pairs, modes, query, index, weight, chunk=7)  # several chunks
    w = torch.zeros(n, n).scatter_(1, index, weight)  # dense (N, N)
    ym = torch.zeros(n, n, 3)
    ym[pairs[:, 0], pairs[:, 1]] = modes
    ym[pairs[:, 1], pairs[:, 0]] = modes
    adj = (ym.sum(-1) > 0).float() + 0 * ym[..., 0]
    adj[pairs[:, 0], pairs[:, 1]] = 1
    adj[pairs[:, 1], pairs[:, 0]] = 1
    dense_num = torch.einsum("qc,cdm,qd->qm", w[query[:, 0]], ym, w[query[:, 1]])
    dense_den = torch.einsum("qc,cd,qd->q", w[query[:, 0]], adj, w[query[:, 1]])
    assert torch.allclose(num, dense_num, atol=1e-5) and torch.allclose(den, dense_den, atol=1e-5)


def test_interolog_edges_are_the_terms_of_the_interolog_sums():
    """Query (1, 3): its interologs are (1, 0) (protein 1 itself, rank 0; protein 3's first homologue 0, rank 1,
    weight 0.9) and (1, 2) (3's second homologue 2, rank 2, weight 0.1); query (2, 4): (2, 1) (4's first homologue
    1, weight 0.6) and (1, 2) (2's second homologue 1 and 4's second homologue 2, weight 0.1 * 0.2). On a random
    network the edges' weighted sums are interolog_scores' sums."""
    index, weight = homologues(SIM, 2)
    ev = interolog_edges(PAIRS[:2], MODES[:2], torch.tensor([[1, 3], [2, 4]]), index, weight)
    got = sorted(zip(ev.dst.tolist(), ev.rank_a.tolist(), ev.rank_b.tolist(), ev.weight.tolist(),
                     ev.modes[ev.src].tolist(), strict=True))
    assert [g[:3] for g in got] == [(0, 0, 1), (0, 0, 2), (1, 0, 1), (1, 2, 2)]
    assert [g[3] for g in got] == pytest.approx([0.9, 0.1, 0.6, 0.02])
    assert [g[4] for g in got] == [[1.0, 0.0], [0.0, 1.0], [0.0, 1.0], [0.0, 1.0]]
    g = torch.Generator().manual_seed(1)
    n = 25
    sim = torch.rand(n, n, generator=g)
    pairs = torch.combinations(torch.arange(n))[torch.randperm(300, generator=g)[:50]]
    modes = (torch.rand(50, 3, generator=g) < 0.4).float()
    query = torch.randint(0, n, (40, 2), generator=g)
    index, weight = homologues((sim + sim.t()) / 2, 3)
    num, den = interolog_scores(pairs, modes, query, index, weight)
    ev = interolog_edges(pairs, modes, query, index, weight, chunk=6)  # several chunks
    assert (ev.weight > 0).all() and len(ev.src) > 40
    assert torch.allclose(torch.zeros(40).index_add_(0, ev.dst, ev.weight), den, atol=1e-6)
    assert torch.allclose(torch.zeros(40, 3).index_add_(0, ev.dst, ev.weight[:, None] * ev.modes[ev.src]), num,
                          atol=1e-6)
    # each edge's source is the known pair (c, d) that its ranks name
    known = {tuple(p) for p in pairs.tolist()} | {tuple(p) for p in pairs.flip(1).tolist()}
    c, d = index[query[ev.dst, 0], ev.rank_a], index[query[ev.dst, 1], ev.rank_b]
    assert all((int(a), int(b)) in known for a, b in zip(c, d, strict=True))
    empty = interolog_edges(pairs[:0], modes[:0], query, index, weight)
    assert len(empty.src) == 0 and len(empty.weight) == 0


def test_profile_rule_with_interologs_and_labelled_edges():
    index, weight = homologues(SIM, 2)
    q = torch.tensor([[1, 3], [0, 4]])
    plain = profile_rule(PAIRS, MODES, [0, 1], q, 5, similarity=SIM, neighbors=1)
    s = profile_rule(PAIRS, MODES, [0, 1], q, 5, similarity=SIM, neighbors=1, homologue_sets=(index, weight),
                     shrink=0.03)
    assert np.allclose(s[0], (np.array([0.9, 0.1]) + 0.03 * plain[0]) / 1.03)
    # (0, 4): homologues {0, 3, 1} x {4, 1, 2}: (0, 1) 1 * 0.6 [1, 0] and (1, 2) 0.1 * 0.2 [0, 1]
    assert np.allclose(s[1], (np.array([0.6, 0.02]) + 0.03 * plain[1]) / (0.62 + 0.03))
    # the builder's graph gives the message pairs back: labelled interaction edges only (no kNN, no structure edge)
    b = PairGraphBuilder(PAIRS, MODES, SCORE, torch.zeros(5, 3), torch.tensor([[0, 4], [4, 0]]),
                         torch.tensor([0.8, 0.8]), mode_record=True, edge_modes=False)
    _, ei, ea = b.build([0, 2], structure_idx=[0, 1, 2, 3])
    assert ea.shape == (ei.size(1), b.edge_dim + 2)  # features, then the record
    kp, km = PairGraphBuilder.labelled_edges(ei, ea[:, -2:])
    assert sorted(map(tuple, kp.tolist())) == [(0, 1), (1, 0), (2, 3), (3, 2)]
    assert torch.equal(km[kp[:, 0] == 2][0], MODES[2])
    _, ei0, ea0 = PairGraphBuilder(PAIRS, MODES, SCORE, None, profile=False, edge_type=False, edge_modes=False,
                                   edge_score=False, mode_record=True).build([1])
    assert ea0.tolist() == [[0.0, 1.0]] * 2  # no features: the record alone
