"""Audit of the food-web link-prediction API (gatbio.linkpred, gatbio.nn.link_models): each test shows a defect
found as a user (a silent wrong answer or a deep error) on a tiny web with a known answer (edge i -> j: j eats i)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
import torch

from gatbio import linkpred as lp
from gatbio.nn.link_models import FoodWebGAT, TrophicBias


def tiny_dense() -> np.ndarray:
    # 0 -> 2, 1 -> 2, 1 -> 3: consumers 2 (eats 0, 1) and 3 (eats 1)
    D = np.zeros((4, 4))
    D[[0, 1, 1], [2, 2, 3]] = 1.0
    return D


# ------------------------------------------------------------------ the adjacency: sparse and dense agree


@pytest.mark.parametrize("name", sorted(lp.STRUCTURE_SCORES))
def test_a_stored_zero_is_no_link_as_in_the_dense_form(name):
    # a weight-0 interaction 0 -> 3 stored in the sparse matrix (as a COO table with a 0 weight gives it)
    A = sp.csr_matrix((np.array([1.0, 1.0, 1.0, 0.0]), ([0, 1, 1, 0], [2, 2, 3, 3])), shape=(4, 4))
    assert lp.as_adjacency(A).nnz == 3
    fn = lp.STRUCTURE_SCORES[name]
    np.testing.assert_array_equal(fn(A), fn(tiny_dense()))
    assert lp.preferential_attachment(A)[0, 3] == 1 * 1  # k_out(0) = 1, not 2


def test_a_pair_stored_twice_is_one_link():
    # a CSR built from raw indices with the pair 0 -> 2 twice: still one link, a binary adjacency
    A = sp.csr_matrix((np.ones(4), np.array([2, 2, 2, 3]), np.array([0, 2, 4, 4, 4])), shape=(4, 4))
    np.testing.assert_array_equal(lp.as_adjacency(A).toarray(), tiny_dense())
    k_out, k_in = lp.degrees(A)
    np.testing.assert_array_equal(k_out, [1, 2, 0, 0])
    np.testing.assert_array_equal(k_in, [0, 0, 2, 1])
    # +1 and -1 stored for one pair sum to 0: no link, as in the dense matrix
    B = sp.csr_matrix((np.array([1.0, -1.0]), np.array([1, 1]), np.array([0, 2, 2, 2])), shape=(3, 3))
    assert lp.as_adjacency(B).nnz == 0 and (B.toarray() == 0).all()


def test_nan_or_infinite_adjacency_entries_are_refused():
    D = tiny_dense()
    D[3, 0] = np.nan  # was silently a link 3 -> 0
    with pytest.raises(ValueError, match=r"NaN or infinite.*row 3, column 0"):
        lp.preferential_attachment(D)
    with pytest.raises(ValueError, match="NaN or infinite"):
        lp.as_adjacency(sp.csr_matrix(np.where(tiny_dense() > 0, np.inf, 0.0)))


def test_a_one_dimensional_adjacency_names_its_own_shape():
    with pytest.raises(ValueError, match=r"got shape \(16,\)"):  # was "(1, 16)", a shape the user never gave
        lp.as_adjacency(np.zeros(16))


# ------------------------------------------------------------------ probabilistic niche model: init


def test_niche_init_with_a_missing_value_is_refused_not_all_nan():
    A = tiny_dense()
    masses = np.array([1.0, np.nan, 10.0, 100.0])  # a body mass missing, as in GATEWAy
    with pytest.raises(ValueError, match=r"init has NaN or infinite values for species \[1\]"):
        lp.probabilistic_niche(A, steps=5, init=masses)
    with pytest.raises(ValueError, match=r"init has shape \(3,\), expected \(4,\)"):
        lp.probabilistic_niche(A, steps=5, init=masses[:3])
    p = lp.probabilistic_niche(A, steps=5, init=np.nan_to_num(masses))
    assert np.isfinite(p).all()


# ------------------------------------------------------------------ trait scores: missing traits, shapes


def test_a_missing_trait_takes_the_column_median_not_zero():
    A = sp.csr_matrix(tiny_dense())
    x = np.array([[100.0, 1.0], [np.nan, 2.0], [101.0, np.inf], [103.0, 4.0]])
    filled = x.copy()
    filled[1, 0] = 101.0  # median of 100, 101, 103
    filled[2, 1] = 2.0  # median of 1, 2, 4
    got, want = lp.trait_neighbour_scores(A, x), lp.trait_neighbour_scores(A, filled)
    for k in want:
        np.testing.assert_allclose(got[k], want[k])
    # a column with no value at all adds no distance (0 everywhere)
    x_all_nan = np.column_stack([filled[:, 0], np.full(4, np.nan)])
    got = lp.trait_neighbour_scores(A, x_all_nan)
    np.testing.assert_allclose(got["trait_consumers"], lp.trait_neighbour_scores(A, filled[:, :1])["trait_consumers"])


def test_trait_scores_check_the_shape_of_x():
    A = tiny_dense()
    with pytest.raises(ValueError, match=r"x has shape \(4,\).*reshape\(-1, 1\)"):
        lp.trait_neighbour_scores(A, np.arange(4.0))
    with pytest.raises(ValueError, match=r"x has shape \(3, 1\), expected \(4, F\)"):
        lp.trait_neighbour_scores(A, np.arange(3.0)[:, None])


# ------------------------------------------------------------------ pair features


def test_pair_features_take_lists_and_check_shapes():
    A = tiny_dense()
    F, names = lp.pair_features(A, np.array([1.0, 1.0, 2.0, 2.0]), np.arange(8.0).reshape(4, 2))
    F_list, names_list = lp.pair_features(A, [1.0, 1.0, 2.0, 2.0], np.arange(8.0).reshape(4, 2).tolist())
    assert names_list == names
    np.testing.assert_array_equal(F_list, F)
    with pytest.raises(ValueError, match=r"levels has shape \(3,\), expected \(4,\)"):
        lp.pair_features(A, np.ones(3))
    with pytest.raises(ValueError, match=r"x has shape \(3, 2\), expected \(4, F\)"):
        lp.pair_features(A, np.ones(4), np.ones((3, 2)))
    with pytest.raises(ValueError, match="both rows and cols"):
        lp.pair_features(A, np.ones(4), rows=np.array([0]))


def test_pair_features_of_no_pairs_is_an_empty_table():
    A = tiny_dense()
    F, names = lp.pair_features(A, np.ones(4), rows=np.array([], dtype=int), cols=np.array([], dtype=int))
    assert F.shape == (0, len(names))
    F1, _ = lp.pair_features(A, np.ones(4), rows=np.array([2]), cols=np.array([0]))
    assert F1[0, names.index("reverse")] == 1.0  # 0 -> 2 observed: the reverse of (2, 0)


# ------------------------------------------------------------------ cross-fitting


def test_a_web_of_one_species_says_it_has_too_few_links():
    with pytest.raises(ValueError, match="too few links"):
        lp.stack_scores(np.zeros((1, 1)), lambda M: np.ones(M.shape[0]))


def test_inner_splits_check_n_splits_and_max_negatives():
    for bad in (0, -2, 2.5):
        with pytest.raises(ValueError, match="n_splits must be an integer >= 1"):
            list(lp.inner_splits(tiny_dense(), n_splits=bad))
    with pytest.raises(ValueError, match="max_negatives must be >= 0"):
        list(lp.inner_splits(tiny_dense(), n_splits=2, max_negatives=-1))


# ------------------------------------------------------------------ ensembles


def test_rank_average_refuses_weights_that_give_nan_or_inverted_ranks():
    a = np.array([[0.1, 5.0], [3.0, 0.2]])
    for bad in ([1.0, -1.0], [0.0, 0.0], [1.0, np.nan]):  # were NaN, +-inf, NaN everywhere
        with pytest.raises(ValueError, match="weights must be non-negative"):
            lp.rank_average([a, a], bad)
    # all-equal scores tie: every pair gets the mean rank (n + 1) / 2n
    np.testing.assert_allclose(lp.rank_average([np.ones((2, 2))]), np.full((2, 2), 5 / 8))


def test_rank_average_refuses_scores_of_different_shapes():
    # a (2, 3) and a (3, 2) score have as many entries, but pair (0, 2) of one is not pair (0, 2) of the other
    with pytest.raises(ValueError, match=r"member 1 has shape \(3, 2\) but member 0 has \(2, 3\)"):
        lp.rank_average([np.zeros((2, 3)), np.zeros((3, 2))])


def test_rank_average_refuses_a_nan_score_instead_of_a_nan_ensemble():
    with pytest.raises(ValueError, match="member 1 has 1 NaN"):
        lp.rank_average([np.array([1.0, 2.0, 3.0]), np.array([1.0, np.nan, 3.0])])


def test_log_odds_pool_refuses_members_that_would_broadcast():
    a = np.zeros((2, 2))
    for b in (np.array([1.0, 2.0]), np.ones((2, 1)), np.array(3.0)):  # all used to broadcast silently
        with pytest.raises(ValueError, match="every member must score the same pairs"):
            lp.log_odds_pool([a, b])


def test_log_odds_refuses_values_that_are_not_probabilities():
    logits = np.array([-2.0, 0.5, 3.0])  # a GAT's logits: were clipped to eps / 1 - eps, two pairs tied
    with pytest.raises(ValueError, match=r"probabilities in \[0, 1\].*-2\.0, 3\.0"):
        lp.log_odds(logits)
    with pytest.raises(ValueError, match="and NaN"):
        lp.log_odds(np.array([0.5, np.nan]))
    for eps in (0.0, 0.6):  # log(0) = -inf, or bounds crossed (every value became 1 - eps)
        with pytest.raises(ValueError, match=r"eps must be in \(0, 0.5\)"):
            lp.log_odds(np.array([0.2, 0.8]), eps=eps)


# ------------------------------------------------------------------ FoodWebGAT


def test_foodweb_gat_refuses_nan_levels_instead_of_all_nan_logits():
    torch.manual_seed(0)
    model = FoodWebGAT(3, 4, heads=2).eval()
    x, ei = torch.randn(4, 3), torch.tensor([[0, 1, 1], [2, 2, 3]])
    assert torch.isfinite(model(x, ei, torch.tensor([1.0, 1.0, 2.0, 2.0]))).all()
    for levels in (np.array([1.0, np.nan, 2.0, 2.0]), [1.0, 1.0, float("inf"), 2.0]):  # a user's own levels
        with pytest.raises(ValueError, match=r"levels has NaN or infinite values at nodes \[[12]\]"):
            model(x, ei, levels)


def test_trophic_bias_refuses_a_zero_width():
    with pytest.raises(ValueError, match="max_delta > 0"):
        TrophicBias(2, max_delta=0.0)  # width 0: the bias was NaN at delta = 0
    with pytest.raises(ValueError, match="num_kernels >= 1"):
        TrophicBias(2, num_kernels=0)


def test_log_odds_takes_probabilities_with_round_off_just_outside_the_unit_interval():
    p = np.array([-1e-17, 0.5, 1.0 + 2e-16])  # a user's probabilities after arithmetic round-off
    assert np.allclose(lp.log_odds(p, eps=1e-6), [lp.log_odds(np.array([1e-6]))[0], 0.0,
                                                   lp.log_odds(np.array([1 - 1e-6]))[0]])
