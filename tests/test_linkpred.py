"""Link-prediction baselines on tiny webs with hand-computed scores (edge i -> j: j eats i)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from gatbio import linkpred as lp
from gatbio.metrics import roc_auc


def tiny() -> sp.csr_matrix:
    # 0 -> 2, 1 -> 2, 1 -> 3: consumers 2 (eats 0, 1) and 3 (eats 1)
    return sp.csr_matrix((np.ones(3), ([0, 1, 1], [2, 2, 3])), shape=(4, 4))


def niche_web(n: int = 24, seed: int = 0) -> sp.csr_matrix:
    """A deterministic niche-model web: j eats the species whose niche lies in j's range."""
    rng = np.random.default_rng(seed)
    niche = np.sort(rng.uniform(0, 1, n))
    r = niche * rng.uniform(0.1, 0.4, n)
    c = np.array([rng.uniform(r[j] / 2, niche[j]) for j in range(n)])
    A = (np.abs(niche[:, None] - c[None, :]) <= r[None, :] / 2).astype(float)
    np.fill_diagonal(A, 0)
    return sp.csr_matrix(A)


def test_preferential_attachment_is_out_times_in_degree():
    s = lp.preferential_attachment(tiny())
    assert s[1, 2] == 2 * 2 and s[0, 3] == 1 * 1 and s[2, 0] == 0


def test_jaccard_consumers_by_hand():
    s = lp.jaccard_consumers(tiny())
    # consumers of 0: {2}; diets R(2) = {0, 1}, R(3) = {1}: J(2, 3) = 1/2
    assert s[0, 3] == pytest.approx(0.5)
    assert s[3, 0] == 0.0  # directed: 3 has no consumer


def test_l3_resource_allocation_by_hand():
    s = lp.l3_resource_allocation(tiny())
    # 0 -> 2 <- 1 -> 3, weight 1 / (k_in(2) k_out(1)) = 1 / (2 * 2)
    assert s[0, 3] == pytest.approx(0.25)
    assert s[0, 2] == pytest.approx(1 / 2 + 1 / 4)  # paths through m = 0 and m = 1
    assert s[3, 0] == 0.0


def test_scores_ignore_self_loops_and_weights():
    A = tiny().tolil()
    A[2, 2] = 5.0
    A[0, 2] = 3.0
    np.testing.assert_allclose(lp.l3_resource_allocation(A.tocsr()), lp.l3_resource_allocation(tiny()))


def test_probabilistic_niche_recovers_a_niche_web():
    A = niche_web()
    p = lp.probabilistic_niche(A, steps=150)
    off = ~np.eye(A.shape[0], dtype=bool)
    assert p.shape == A.shape and (p >= 0).all() and (p <= 1).all()
    assert roc_auc(A.toarray()[off], p[off]) > 0.9


@pytest.mark.parametrize("mode", ["links", "species"])
def test_inner_splits_hold_out_every_link(mode):
    A = niche_web()
    seen = np.zeros(A.shape, dtype=int)
    for s in lp.inner_splits(A, n_splits=4, mode=mode, seed=1):
        M = s.A_msg.toarray() > 0
        assert not M[s.rows, s.cols].any()  # a candidate is never a message edge
        assert (M <= (A.toarray() > 0)).all()
        assert (s.rows != s.cols).all()
        seen[s.rows[s.y == 1], s.cols[s.y == 1]] += 1
    truth = A.toarray().astype(int)
    if mode == "links":  # each link exactly once
        np.testing.assert_array_equal(seen, truth)
    else:  # a link is held out with its resource's fold and with its consumer's fold
        assert ((seen >= 1) == (truth == 1)).all() and seen.max() <= 2


def test_inner_splits_subsample_negatives_keeps_positives():
    A = niche_web()
    for s in lp.inner_splits(A, 5, "links", seed=0, max_negatives=30):
        assert (s.y == 0).sum() == 30 and (s.y == 1).sum() > 0


def test_pair_features_reverse_flag_and_levels():
    levels = np.array([1.0, 1.0, 2.0, 2.0])
    F, names = lp.pair_features(tiny(), levels)
    assert F.shape == (16, len(names))
    rev = F[:, names.index("reverse")].reshape(4, 4)
    assert rev[2, 0] == 1 and rev[0, 2] == 0
    assert F[:, names.index("d_level")].reshape(4, 4)[0, 2] == 1.0


def test_boosted_stack_learns_a_niche_web_and_is_seeded():
    A = niche_web(30, seed=3)
    levels_fn = lambda M: np.asarray(M.sum(0)).ravel()  # noqa: E731  (any (N,) node feature will do here)
    params = lp.StackParams(max_iter=30, max_negatives=500)
    s1 = lp.boosted_stack(A, levels_fn, params=params, seed=0)
    s2 = lp.boosted_stack(A, levels_fn, params=params, seed=0)
    np.testing.assert_array_equal(s1, s2)
    off = ~np.eye(30, dtype=bool)
    assert roc_auc(A.toarray()[off], s1[off]) > 0.85


def test_stack_scores_fits_both_learners_on_one_table():
    A = niche_web(30, seed=3)
    levels_fn = lambda M: np.asarray(M.sum(0)).ravel()  # noqa: E731
    params = lp.StackParams(max_iter=30, max_negatives=500)
    both = lp.stack_scores(A, levels_fn, params=params, seed=0)
    assert set(both) == {"hgb", "logistic"}
    np.testing.assert_array_equal(both["hgb"], lp.boosted_stack(A, levels_fn, params=params, seed=0))
    off = ~np.eye(30, dtype=bool)
    assert roc_auc(A.toarray()[off], both["logistic"][off]) > 0.85
    assert not np.allclose(both["logistic"], both["hgb"])  # two different learners
    x = np.random.default_rng(0).normal(size=(30, 2))
    x[3, 1] = np.nan  # the linear learner imputes missing traits instead of failing
    assert np.isfinite(lp.stack_scores(A, levels_fn, x, params=params, learners=("logistic",))["logistic"]).all()
    with pytest.raises(ValueError, match="unknown stack learner"):
        lp.stack_scores(A, levels_fn, params=params, learners=("svm",))


def test_boosted_stack_needs_links():
    with pytest.raises(ValueError, match="too few links"):
        lp.boosted_stack(sp.csr_matrix((6, 6)), lambda M: np.zeros(6))


def test_rank_average_preserves_a_shared_order_and_checks_weights():
    a = np.array([[0.1, 5.0], [3.0, 0.2]])
    out = lp.rank_average([a, a * 100])
    assert np.array_equal(np.argsort(out.ravel()), np.argsort(a.ravel()))
    with pytest.raises(ValueError, match="weights"):
        lp.rank_average([a, a], weights=[1.0])


def test_log_odds_pool_is_the_weighted_mean_of_log_odds():
    p = np.array([0.0, 0.2, 0.5, 0.9, 1.0])
    lo = lp.log_odds(p)
    np.testing.assert_allclose(lo[1:4], [np.log(0.25), 0.0, np.log(9.0)])
    assert np.isfinite(lo).all() and lo[0] == pytest.approx(-lo[-1])  # 0 and 1 are clipped, not infinite
    a, b = np.array([2.0, -1.0, 0.5]), np.array([-4.0, 3.0, 0.0])
    np.testing.assert_allclose(lp.log_odds_pool([a, b], [3.0, 1.0]), (3 * a + b) / 4)
    np.testing.assert_allclose(lp.log_odds_pool([a, b], [1.0, 0.0]), a)  # weight 0 drops a member
    # a constant offset of one member (subsampled negatives) leaves the ranking unchanged
    assert np.array_equal(np.argsort(lp.log_odds_pool([a, b + 7.0])), np.argsort(lp.log_odds_pool([a, b])))
    # a sure member outvotes a lukewarm one, where a rank average would tie them
    sure, luke = np.array([9.0, 0.0]), np.array([-0.1, 0.1])
    assert lp.log_odds_pool([sure, luke])[0] > lp.log_odds_pool([sure, luke])[1]
    assert lp.rank_average([sure, luke])[0] == lp.rank_average([sure, luke])[1]
    for bad in ([1.0], [-1.0, 2.0], [0.0, 0.0]):
        with pytest.raises(ValueError, match="weights"):
            lp.log_odds_pool([a, b], bad)
    with pytest.raises(ValueError, match="at least one"):
        lp.log_odds_pool([])


def test_low_rank_scores_reconstruct_a_rank_one_web_and_skip_full_ranks():
    # consumers 3, 4 both eat 0, 1, 2: A = u v^T has rank 1, so every rank reproduces it
    A = sp.csr_matrix((np.ones(6), ([0, 1, 2, 0, 1, 2], [3, 3, 3, 4, 4, 4])), shape=(5, 5))
    s = lp.low_rank_scores(A, (1, 2, 5, 9))
    assert sorted(s) == ["svd_1", "svd_2"]  # ranks >= N are skipped
    np.testing.assert_allclose(s["svd_1"], A.toarray(), atol=1e-12)
    assert not np.allclose(s["svd_1"], s["svd_1"].T)  # directed: resource and consumer roles differ


def test_low_rank_score_is_the_best_rank_r_approximation():
    D = niche_web(20, seed=1).toarray()
    s = lp.low_rank_scores(D, (3,))["svd_3"]
    assert np.linalg.matrix_rank(s, tol=1e-8) == 3
    sv = np.linalg.svd(D, compute_uv=False)
    assert np.linalg.norm(D - s) ** 2 == pytest.approx(np.sum(sv[3:] ** 2))  # Eckart–Young


def test_trait_neighbour_scores_by_hand_and_for_a_species_without_links():
    # 0 -> 2 (2 eats 0); species 3 has no links but the same traits as 2; species 1 is far in trait space
    A = sp.csr_matrix(([1.0], ([0], [2])), shape=(4, 4))
    x = np.array([[0.0], [10.0], [5.0], [5.0]])
    s = lp.trait_neighbour_scores(A, x)
    K = np.exp(-np.square(x - x.T) / (2 * np.median(np.square(x - x.T)[~np.eye(4, dtype=bool)])))
    np.fill_diagonal(K, 0)
    # consumers like 3 eat 0: only consumer 2 eats 0, weight K[2, 3] = 1 among K[:, 3]
    assert s["trait_consumers"][0, 3] == pytest.approx(1.0 / K[:, 3].sum())
    assert s["trait_consumers"][0, 3] > s["trait_consumers"][0, 1]  # 3 resembles 2 more than 1 does
    assert s["trait_consumers"][0, 2] == 0.0  # j's own diet is not used for j
    # 2 eats resources like i: the only resource of 2 is 0
    assert s["trait_resources"][1, 2] == pytest.approx(K[1, 0] / K[1].sum())


def test_pair_features_with_low_rank_and_trait_scores():
    x = np.arange(8.0).reshape(4, 2)
    F, names = lp.pair_features(tiny(), np.ones(4), x, low_rank=(1, 2), trait_scores=True)
    assert F.shape == (16, len(names))
    for n in ("svd_1", "svd_2", "trait_consumers", "trait_resources", "d_x0", "d_x1"):
        assert n in names
    np.testing.assert_allclose(F[:, names.index("d_x1")].reshape(4, 4), x[:, 1][None, :] - x[:, 1][:, None])
    F0, names0 = lp.pair_features(tiny(), np.ones(4), x)
    assert "svd_1" not in names0 and "trait_consumers" not in names0
    _, names_s = lp.pair_features(tiny(), np.ones(4), None, trait_scores=True)  # no traits: nothing added
    assert "trait_consumers" not in names_s
