r"""Directed link-prediction baselines for food webs, as pure functions of an observed adjacency.

Convention (as in networkx ``trophic.py`` and the GATEWAy files): ``A[i, j] = 1`` means the link
:math:`i \to j` exists, i.e. **j eats i** (i is the resource, j the consumer). Every score function takes the
observed adjacency (a ``scipy.sparse`` matrix or a dense array, shape (N, N)) and returns a dense (N, N)
array with a score for every ordered pair; callers pick the candidate pairs they need (e.g. every pair that
is not an observed link). Nothing here looks at held-out links: a score is a function of what is observed.

- :func:`preferential_attachment`: :math:`k^{out}_i \, k^{in}_j`.
- :func:`jaccard_consumers`: "consumers like j eat i" (item-based collaborative filtering on diets).
- :func:`l3_resource_allocation`: length-3 paths :math:`i \to k \leftarrow m \to j`, weighted
  :math:`1 / (k^{in}_k k^{out}_m)` (Kovács et al. 2019's L3, degree-normalised as resource allocation).
- :func:`probabilistic_niche`: the probabilistic niche model fitted by maximum likelihood
  (Williams, Anandanadesan & Purves 2010).
- :func:`boosted_stack`: pair features (traits, degrees, trophic levels, the scores above) and scikit-learn's
  ``HistGradientBoostingClassifier``, trained by cross-fitting inside the observed network so every observed
  link serves as a positive exactly once (:func:`inner_splits`); :func:`stack_scores` also fits a logistic
  regression on the same features (a linear learner beside the trees, computed from one feature table).
- :func:`rank_average`: the rank-average ensemble of several scores; :func:`log_odds_pool`: the weighted mean of
  several models' log-odds (a logarithmic opinion pool), which keeps how confident each model is.

References:
    Kovács, I. A. et al. Network-based prediction of protein interactions. Nat Commun 10, 1240 (2019).
    Williams, R. J., Anandanadesan, A. & Purves, D. The probabilistic niche model reveals the niche
    structure and role of body size in a complex food web. PLoS ONE 5, e12092 (2010).
    Van Kleunen, L. B. et al. Nat Commun 17, 2298 (2026) (the GATEWAy link-prediction benchmark).
    Genest, C. & Zidek, J. V. Combining probability distributions: a critique and an annotated bibliography.
    Statist. Sci. 1, 114-135 (1986) (logarithmic opinion pools).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
from scipy.stats import rankdata

__all__ = [
    "as_adjacency",
    "degrees",
    "preferential_attachment",
    "jaccard_consumers",
    "jaccard_resources",
    "l3_resource_allocation",
    "probabilistic_niche",
    "structure_scores",
    "low_rank_scores",
    "trait_neighbour_scores",
    "pair_features",
    "inner_splits",
    "InnerSplit",
    "StackParams",
    "boosted_stack",
    "stack_scores",
    "STACK_LEARNERS",
    "rank_average",
    "log_odds",
    "log_odds_pool",
    "STRUCTURE_SCORES",
]


def as_adjacency(A) -> sp.csr_matrix:
    """A binary CSR copy of a square sparse or dense adjacency, without self-loops.

    Every nonzero entry is a link, whatever its weight, in a sparse matrix as in a dense one: a stored zero (a
    weight-0 interaction) is no link, and a pair stored twice in a CSR built from raw indices counts once, with
    its summed weight (a link unless that is 0). NaN or infinite entries are refused (a link or not?)."""
    if not sp.issparse(A) and np.ndim(A) != 2:
        raise ValueError(f"adjacency must be a square (N, N) matrix, got shape {np.shape(A)}")
    A = sp.csr_matrix(A, dtype=np.float64, copy=True)
    if A.ndim != 2 or A.shape[0] != A.shape[1]:
        raise ValueError(f"adjacency must be a square (N, N) matrix, got shape {A.shape}")
    A.sum_duplicates()
    if not np.isfinite(A.data).all():
        C = A.tocoo()
        bad = ~np.isfinite(C.data)
        raise ValueError(f"adjacency has {int(bad.sum())} NaN or infinite entries (first at row {C.row[bad][0]}, "
                         f"column {C.col[bad][0]}): give 1 for a link and 0 for none")
    A.eliminate_zeros()  # stored zeros are no links (as in the dense form)
    A.data[:] = 1.0
    A.setdiag(0)
    A.eliminate_zeros()
    A.sort_indices()  # one layout for one graph, whatever the order of the links it was built from
    return A


def degrees(A) -> tuple[np.ndarray, np.ndarray]:
    """Out-degree (number of consumers of i) and in-degree (number of resources of j), each (N,)."""
    A = as_adjacency(A)
    return np.asarray(A.sum(1)).ravel(), np.asarray(A.sum(0)).ravel()


def preferential_attachment(A) -> np.ndarray:
    r"""Preferential attachment for directed links: :math:`s_{ij} = k^{out}_i \cdot k^{in}_j`.

    A generalist consumer (large in-degree) eating a widely eaten resource (large out-degree) is likely.
    """
    k_out, k_in = degrees(A)
    return np.outer(k_out, k_in)  # (N, N)


def _jaccard(M: sp.csr_matrix) -> np.ndarray:
    """Jaccard similarity of the rows of a binary matrix (dense (R, R), diagonal 0)."""
    inter = (M @ M.T).toarray()  # (R, R)
    size = np.asarray(M.sum(1)).ravel()
    union = size[:, None] + size[None, :] - inter
    with np.errstate(divide="ignore", invalid="ignore"):
        J = np.where(union > 0, inter / union, 0.0)
    np.fill_diagonal(J, 0.0)
    return J


def jaccard_consumers(A) -> np.ndarray:
    r"""Directed Jaccard score "consumers like j eat i".

    .. math::
        s_{ij} = \sum_{c \ne j} A_{ic} \, J(c, j), \qquad
        J(c, j) = \frac{|R(c) \cap R(j)|}{|R(c) \cup R(j)|}

    with :math:`R(c)` the resources (diet) of :math:`c`: i is likely eaten by j when i's consumers have diets
    like j's. The term :math:`c = j` (:math:`J(j, j) = 1`) is left out, so an observed link i → j does not score
    itself: the score of a held-out or an observed pair rests on the other consumers alike.
    """
    A = as_adjacency(A)
    J = _jaccard(A.T.tocsr())  # (N, N) diet similarity of consumers
    return np.asarray(A @ J)  # (N, N)


def jaccard_resources(A) -> np.ndarray:
    r"""The mirror score "j eats resources like i": :math:`s_{ij} = \sum_{r \ne i} J'(i, r) A_{rj}`, with
    :math:`J'` the Jaccard similarity of consumer sets (the term :math:`r = i` left out, as in
    :func:`jaccard_consumers`)."""
    A = as_adjacency(A)
    J = _jaccard(A)  # (N, N) similarity of resources by their consumers
    return np.asarray((A.T @ J).T)  # (N, N): J @ A


def l3_resource_allocation(A) -> np.ndarray:
    r"""Length-3 resource-allocation path score (L3-RA).

    .. math::
        s_{ij} = \sum_{k, m} \frac{A_{ik} \, A_{mk} \, A_{mj}}{k^{in}_k \, k^{out}_m}

    i.e. i and m share the consumer k, and m is eaten by j: "j eats something that is eaten like i". Hubs
    are down-weighted as in resource allocation (Kovács et al. 2019). Parameter-free.
    """
    A = as_adjacency(A)
    k_out, k_in = degrees(A)
    inv_in = sp.diags(np.divide(1.0, k_in, out=np.zeros_like(k_in), where=k_in > 0))
    inv_out = sp.diags(np.divide(1.0, k_out, out=np.zeros_like(k_out), where=k_out > 0))
    return np.asarray((A @ inv_in @ A.T @ inv_out @ A).toarray())  # (N, N)


def probabilistic_niche(A, steps: int = 300, seed: int = 0, init: np.ndarray | None = None) -> np.ndarray:
    r"""The probabilistic niche model (Williams, Anandanadesan & Purves 2010), fitted by maximum likelihood.

    Each species has a niche value :math:`n_i \in (0, 1)`; each consumer a feeding-range centre :math:`c_j`
    and width :math:`r_j`; the probability that j eats i is

    .. math::
        p_{ij} = p_0 \exp\left(-\left(\frac{n_i - c_j}{r_j / 2}\right)^2\right).

    The parameters maximise the Bernoulli log-likelihood of the observed adjacency (every observed non-link
    counts as a 0). The paper used simulated annealing; here Adam on the same likelihood, started from the
    species' order along ``init`` (e.g. trophic levels or body masses; default: in-degree minus out-degree),
    which keeps the fit deterministic and fast (``init`` must then be finite: fill missing body masses, e.g. with
    trophic levels, first). Returns the (N, N) matrix of :math:`p_{ij}`.
    """
    import torch

    A = as_adjacency(A)
    N = A.shape[0]
    Y = torch.as_tensor(A.toarray(), dtype=torch.float32)  # (N, N)
    k_out, k_in = degrees(A)
    order = (k_in - k_out) if init is None else np.asarray(init, dtype=float)
    if order.shape != (N,):
        raise ValueError(f"init has shape {order.shape}, expected ({N},): one value per species")
    if not np.isfinite(order).all():  # rankdata would make every niche value, and so every p_ij, NaN
        raise ValueError(f"init has NaN or infinite values for species {np.flatnonzero(~np.isfinite(order)).tolist()}: "
                         "fill them (e.g. with trophic levels) or pass init=None")
    n0 = (rankdata(order) - 0.5) / N  # (N,) in (0, 1)
    g = torch.Generator().manual_seed(seed)
    n_logit = torch.logit(torch.as_tensor(n0, dtype=torch.float32)).clone()
    # initial range centre / width: mean and spread of the niche values of the observed diet
    Yn = Y * torch.as_tensor(n0, dtype=torch.float32)[:, None]
    cnt = Y.sum(0).clamp(min=1)
    c0 = torch.where(Y.sum(0) > 0, Yn.sum(0) / cnt, torch.as_tensor(n0, dtype=torch.float32) * 0.5)
    n_logit = (n_logit + 0.01 * torch.randn(N, generator=g)).requires_grad_(True)
    c = c0.clone().requires_grad_(True)
    log_r = torch.full((N,), float(np.log(0.2)), requires_grad=True)
    p0_logit = torch.tensor(2.0, requires_grad=True)
    opt = torch.optim.Adam([n_logit, c, log_r, p0_logit], lr=0.05)
    eye = torch.eye(N, dtype=torch.bool)

    def probs() -> torch.Tensor:
        n = torch.sigmoid(n_logit)
        z = (n[:, None] - c[None, :]) / (0.5 * log_r.exp()[None, :])  # (N, N)
        return torch.sigmoid(p0_logit) * torch.exp(-z.square())

    for _ in range(steps):
        opt.zero_grad()
        p = probs().clamp(1e-6, 1 - 1e-6)
        nll = -(Y * p.log() + (1 - Y) * (1 - p).log()).masked_fill(eye, 0.0).sum()
        nll.backward()
        opt.step()
    with torch.no_grad():
        return probs().double().numpy()


#: The parameter-free structure scores, by name (the pair features of :func:`pair_features` use them all).
STRUCTURE_SCORES: dict[str, Callable[..., np.ndarray]] = {
    "preferential_attachment": preferential_attachment,
    "jaccard": jaccard_consumers,
    "jaccard_resources": jaccard_resources,
    "l3_ra": l3_resource_allocation,
}


def structure_scores(A) -> dict[str, np.ndarray]:
    """Every parameter-free score of :data:`STRUCTURE_SCORES` on ``A``, each (N, N)."""
    return {name: fn(A) for name, fn in STRUCTURE_SCORES.items()}


def low_rank_scores(A, ranks: tuple[int, ...] = (2, 4, 8, 16)) -> dict[str, np.ndarray]:
    r"""Truncated-SVD reconstructions of the observed adjacency, one (N, N) score per rank ``r``:

    .. math::
        s^{(r)}_{ij} = \sum_{k \le r} \sigma_k u_{ik} v_{jk}, \qquad A = U \Sigma V^\top,

    the best rank-r approximation of ``A`` (Eckart–Young): a latent "resource role" of i against a latent
    "consumer role" of j, directed because ``U`` and ``V`` differ. Ranks of at least N are skipped (the
    reconstruction would be ``A`` itself). Keys: ``svd_<r>``.
    """
    A = as_adjacency(A)
    N = A.shape[0]
    ranks = tuple(r for r in ranks if 0 < r < N)
    if not ranks:
        return {}
    U, S, Vt = np.linalg.svd(A.toarray())  # (N, N), (N,), (N, N)
    US = U * S  # (N, N)
    return {f"svd_{r}": US[:, :r] @ Vt[:r] for r in ranks}


def _traits(x, n: int) -> np.ndarray:
    """``x`` as an (n, F) float array, or a ``ValueError`` saying what was given."""
    x = np.asarray(x, dtype=float)
    if x.ndim != 2 or x.shape[0] != n:
        hint = " (one trait per species: pass x.reshape(-1, 1))" if x.ndim == 1 and len(x) == n else ""
        raise ValueError(f"x has shape {x.shape}, expected ({n}, F): one row of traits per species{hint}")
    return x


def trait_neighbour_scores(A, x: np.ndarray) -> dict[str, np.ndarray]:
    r"""Collaborative filtering in trait space: "consumers with traits like j eat i" and "j eats resources
    with traits like i", each (N, N).

    .. math::
        s^{con}_{ij} = \frac{\sum_{c \ne j} A_{ic} K_{cj}}{\sum_{c \ne j} K_{cj}}, \qquad
        s^{res}_{ij} = \frac{\sum_{r \ne i} K_{ir} A_{rj}}{\sum_{r \ne i} K_{ir}}, \qquad
        K_{uv} = \exp\left(-\frac{\lVert x_u - x_v \rVert^2}{2 \sigma^2}\right)

    with :math:`\sigma^2` the median squared distance between distinct species (a parameter-free bandwidth:
    :math:`\sigma` is the median distance, up to the averaging of the two middle values of an even count). Unlike
    the path scores these need no link of i or j, so they score a species new to the web from its traits.
    A missing (NaN or infinite) trait takes the median of its column (0 when the column has none), so a species
    with a missing value looks typical rather than like one whose trait is 0.
    """
    A = as_adjacency(A)
    x = _traits(x, A.shape[0])
    missing = ~np.isfinite(x)
    if missing.any():
        median = np.ma.median(np.ma.masked_array(x, missing), axis=0).filled(0.0)  # (F,)
        x = np.where(missing, median[None, :], x)
    d2 = np.square(x[:, None, :] - x[None, :, :]).sum(-1)  # (N, N)
    off = ~np.eye(len(x), dtype=bool)
    med = np.median(d2[off]) if off.any() else 0.0
    K = np.exp(-d2 / (2.0 * med)) if med > 0 else np.ones_like(d2)  # (N, N)
    np.fill_diagonal(K, 0.0)
    norm = K.sum(0)  # (N,)
    norm[norm == 0] = 1.0
    D = A.toarray()
    return {"trait_consumers": (D @ K) / norm[None, :], "trait_resources": (K @ D) / norm[:, None]}


def pair_features(
    A,
    levels: np.ndarray,
    x: np.ndarray | None = None,
    rows: np.ndarray | None = None,
    cols: np.ndarray | None = None,
    low_rank: tuple[int, ...] = (),
    trait_scores: bool = False,
) -> tuple[np.ndarray, list[str]]:
    """Features of the ordered pairs ``(rows[p], cols[p])`` (default: all N² pairs) for :func:`boosted_stack`.

    Per pair: the traits of the resource i and the consumer j (if ``x`` is given), their observed in/out
    degrees and trophic levels, the level difference, whether the reverse link j→i is observed, and the
    scores of :data:`STRUCTURE_SCORES` and the low-rank scores of :func:`low_rank_scores` at the ranks
    ``low_rank``; with ``trait_scores`` (and ``x``) also the trait differences :math:`x_j - x_i` and the
    scores of :func:`trait_neighbour_scores`. Everything is computed from ``A`` (the observed network) only.

    Returns:
        ``(F, names)`` with ``F`` of shape (P, n_features).
    """
    A = as_adjacency(A)
    N = A.shape[0]
    levels = np.asarray(levels, dtype=float)
    if levels.shape != (N,):
        raise ValueError(f"levels has shape {levels.shape}, expected ({N},): one trophic level per species")
    if x is not None:
        x = _traits(x, N)
    if (rows is None) != (cols is None):
        raise ValueError("give both rows and cols (the pairs to describe), or neither (every pair)")
    if rows is None:
        rows, cols = np.divmod(np.arange(N * N), N)
    rows, cols = np.asarray(rows, dtype=np.intp), np.asarray(cols, dtype=np.intp)
    k_out, k_in = degrees(A)
    node = np.stack([k_out, k_in, levels], axis=1)  # (N, 3)
    names_node = ["k_out", "k_in", "level"]
    if x is not None:
        node = np.concatenate([node, x], axis=1)
        names_node += [f"x{f}" for f in range(x.shape[1])]
    cols_out = [node[rows], node[cols], (levels[cols] - levels[rows])[:, None],
                A.toarray()[cols, rows][:, None]]
    names = [f"res_{n}" for n in names_node] + [f"con_{n}" for n in names_node] + ["d_level", "reverse"]
    scores = {**structure_scores(A), **low_rank_scores(A, tuple(low_rank))}
    if trait_scores and x is not None:
        cols_out.append(x[cols] - x[rows])
        names += [f"d_x{f}" for f in range(x.shape[1])]
        scores.update(trait_neighbour_scores(A, x))
    for name, S in scores.items():
        cols_out.append(S[rows, cols][:, None])
        names.append(name)
    return np.concatenate(cols_out, axis=1), names


@dataclass
class InnerSplit:
    """One cross-fitting split of the observed network.

    Attributes:
        A_msg: the adjacency the features are computed from (observed minus the held-out part), (N, N) CSR.
        rows, cols: the candidate pairs scored in this split (held-out positives and observed non-links).
        y: 1 for a held-out observed link, 0 otherwise, aligned with ``rows`` / ``cols``.
    """

    A_msg: sp.csr_matrix
    rows: np.ndarray
    cols: np.ndarray
    y: np.ndarray


def inner_splits(
    A, n_splits: int = 5, mode: str = "links", seed: int = 0, max_negatives: int | None = None
) -> Iterator[InnerSplit]:
    """Cross-fitting splits inside the observed network: every observed link is held out exactly once.

    ``mode="links"``: the observed links are cut into ``n_splits`` random folds; candidates are the held-out
    links (positives) and every observed non-link (negatives). ``mode="species"``: the species with links are
    cut into folds; all links of a fold's species are held out; candidates are every pair touching one of
    those species (the new-species protocol). ``max_negatives`` subsamples negatives per split (seeded).
    """
    if mode not in ("links", "species"):
        raise ValueError(f"mode must be 'links' or 'species', got {mode!r}")
    if isinstance(n_splits, bool) or not isinstance(n_splits, (int, np.integer)) or n_splits < 1:
        raise ValueError(f"n_splits must be an integer >= 1, got {n_splits!r}")
    if max_negatives is not None and max_negatives < 0:
        raise ValueError(f"max_negatives must be >= 0 or None, got {max_negatives!r}")
    A = as_adjacency(A)
    N = A.shape[0]
    rng = np.random.default_rng(seed)
    src, dst = A.nonzero()
    dense = A.toarray().astype(bool)  # (N, N)
    if mode == "links":
        fold_of = rng.permutation(len(src)) % n_splits
    else:
        active = np.flatnonzero(dense.any(0) | dense.any(1))
        sp_fold = np.full(N, -1)
        sp_fold[active] = rng.permutation(len(active)) % n_splits
    for f in range(n_splits):
        if mode == "links":
            held = fold_of == f
            cand = ~dense
            np.fill_diagonal(cand, False)
            keep = ~held
        else:
            out = sp_fold == f
            keep = ~(out[src] | out[dst])
            held = ~keep
            cand = out[:, None] | out[None, :]
            np.fill_diagonal(cand, False)
        A_msg = sp.csr_matrix((np.ones(int(keep.sum())), (src[keep], dst[keep])), shape=(N, N))
        y_mat = np.zeros((N, N), dtype=bool)
        y_mat[src[held], dst[held]] = True
        cand = cand | y_mat
        if mode == "species":
            cand &= ~A_msg.toarray().astype(bool)
        rows, cols = np.nonzero(cand)
        y = y_mat[rows, cols]
        if max_negatives is not None and (~y).sum() > max_negatives:
            neg = np.flatnonzero(~y)
            keep_idx = np.concatenate([np.flatnonzero(y), rng.choice(neg, max_negatives, replace=False)])
            keep_idx.sort()
            rows, cols, y = rows[keep_idx], cols[keep_idx], y[keep_idx]
        yield InnerSplit(A_msg, rows, cols, y.astype(np.int8))


@dataclass
class StackParams:
    """Settings of :func:`boosted_stack` (scikit-learn ``HistGradientBoostingClassifier`` and cross-fitting)."""

    n_splits: int = 5
    max_negatives: int = 20000
    max_iter: int = 200
    learning_rate: float = 0.05
    max_leaf_nodes: int = 15
    min_samples_leaf: int = 20
    l2_regularization: float = 1.0
    low_rank: list[int] = field(default_factory=list)  # ranks of the truncated-SVD pair features (low_rank_scores)
    trait_scores: bool = False  # trait differences and trait_neighbour_scores as pair features (with traits)


#: Learners :func:`stack_scores` can fit on the pair features.
STACK_LEARNERS = ("hgb", "logistic")


def boosted_stack(
    A,
    trophic_fn: Callable[[sp.csr_matrix], np.ndarray],
    x: np.ndarray | None = None,
    mode: str = "links",
    params: StackParams | None = None,
    seed: int = 0,
) -> np.ndarray:
    """Gradient-boosted trees on :func:`pair_features`, cross-fitted inside the observed network.

    Training rows come from :func:`inner_splits` (each observed link is a positive once, with features from
    the rest of the observed network, so a link never explains itself); the model then scores every pair with
    features from the whole observed network ``A``.

    Args:
        A: observed adjacency (N, N).
        trophic_fn: adjacency → (N,) trophic levels (e.g. MacKay levels), called on every feature network.
        x: optional (N, F) species traits (NaN allowed: the trees handle missing values).
        mode: ``"links"`` or ``"species"`` (see :func:`inner_splits`), matching the evaluation protocol.
        params: the trees' and the cross-fitting's settings (default: :class:`StackParams`).
        seed: seeds the inner splits, their sampled non-links and the trees.

    Returns:
        (N, N) scores (predicted probabilities).
    """
    return stack_scores(A, trophic_fn, x, mode, params, seed, ("hgb",))["hgb"]


def stack_scores(
    A,
    trophic_fn: Callable[[sp.csr_matrix], np.ndarray],
    x: np.ndarray | None = None,
    mode: str = "links",
    params: StackParams | None = None,
    seed: int = 0,
    learners: tuple[str, ...] = STACK_LEARNERS,
) -> dict[str, np.ndarray]:
    """:func:`boosted_stack`'s cross-fitted pair features, with one or more learners fitted on them:
    ``"hgb"`` (``HistGradientBoostingClassifier``) and ``"logistic"`` (``LogisticRegression`` on standardised
    features, missing values imputed by the median). The feature table (most of the cost) is built once.

    Args:
        A, trophic_fn, x, mode, params, seed: as in :func:`boosted_stack`.
        learners: the learners to fit, a subset of :data:`STACK_LEARNERS`.

    Returns:
        ``{learner: (N, N) predicted probabilities}``.
    """
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.impute import SimpleImputer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from threadpoolctl import threadpool_limits

    bad = [name for name in learners if name not in STACK_LEARNERS]
    if bad or not learners:
        raise ValueError(f"unknown stack learner(s) {bad or learners!r}; choose from {STACK_LEARNERS}")
    params = params or StackParams()
    A = as_adjacency(A)
    feats, ys = [], []
    for split in inner_splits(A, params.n_splits, mode, seed, params.max_negatives):
        F, _ = pair_features(split.A_msg, trophic_fn(split.A_msg), x, split.rows, split.cols, params.low_rank,
                             params.trait_scores)
        feats.append(F)
        ys.append(split.y)
    y = np.concatenate(ys)
    if y.size == 0 or y.min() == y.max():
        raise ValueError("the observed network has too few links to train the boosted stack")
    X = np.concatenate(feats)
    F_all, _ = pair_features(A, trophic_fn(A), x, low_rank=params.low_rank, trait_scores=params.trait_scores)
    N = A.shape[0]
    out = {}
    # one OpenMP / BLAS thread: these tables are small (thread start-up costs more than it saves), and benchmark
    # workers run in parallel over webs already
    with threadpool_limits(limits=1):
        for name in learners:
            if name == "hgb":
                clf = HistGradientBoostingClassifier(
                    max_iter=params.max_iter, learning_rate=params.learning_rate,
                    max_leaf_nodes=params.max_leaf_nodes, min_samples_leaf=params.min_samples_leaf,
                    l2_regularization=params.l2_regularization, early_stopping=False, random_state=seed)
            else:
                clf = make_pipeline(SimpleImputer(strategy="median", keep_empty_features=True), StandardScaler(),
                                    LogisticRegression(C=1.0, max_iter=2000))
            clf.fit(X, y)
            out[name] = clf.predict_proba(F_all)[:, 1].reshape(N, N)
    return out


def _check_members(members: list, weights: list[float] | None, fn: str) -> tuple[list[np.ndarray], list[float]]:
    """The members as float arrays of one shape, and their weights (default all 1): non-negative, finite, not all
    zero, one per member; else a ``ValueError`` naming ``fn``. Arrays of different shapes would broadcast or
    line up different pairs silently."""
    if not members:
        raise ValueError(f"{fn} needs at least one member")
    members = [np.asarray(m, dtype=float) for m in members]
    weights = [1.0] * len(members) if weights is None else [float(w) for w in weights]
    if len(weights) != len(members):
        raise ValueError(f"{fn} got {len(members)} members but {len(weights)} weights")
    if not np.isfinite(weights).all() or min(weights) < 0 or sum(weights) <= 0:
        raise ValueError(f"{fn} weights must be non-negative, finite and not all zero, got {weights}")
    for k, m in enumerate(members):
        if m.shape != members[0].shape:
            raise ValueError(f"{fn}: member {k} has shape {m.shape} but member 0 has {members[0].shape}; every "
                             "member must score the same pairs")
    return members, weights


def rank_average(scores: list[np.ndarray], weights: list[float] | None = None) -> np.ndarray:
    """Rank-average ensemble: each score array becomes its normalised rank in (0, 1], then a weighted mean.

    Ranks make scores on different scales (probabilities, path counts) comparable; ties share a rank. Every score
    has the same shape; weights are non-negative, not all zero; a NaN score is refused (it has no rank).
    """
    scores, weights = _check_members(scores, weights, "rank_average")
    shape = scores[0].shape
    out = np.zeros(scores[0].size)
    for k, (s, w) in enumerate(zip(scores, weights, strict=True)):
        if np.isnan(s).any():  # rankdata would make every rank, and so the whole ensemble, NaN
            raise ValueError(f"rank_average: member {k} has {int(np.isnan(s).sum())} NaN scores")
        out += w * rankdata(s.ravel()) / s.size
    return (out / sum(weights)).reshape(shape)


def log_odds(p: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    r""":math:`\log(p / (1 - p))` of probabilities, clipped to ``[eps, 1 - eps]`` first so that a learner's 0 or 1
    stays finite (it then ties with the other near-certain pairs and the other members of a pool decide).
    Values outside [0, 1] beyond round-off (1e-9; e.g. logits, which go to :func:`log_odds_pool` as they are) or
    NaN are refused."""
    if not 0 < eps < 0.5:
        raise ValueError(f"eps must be in (0, 0.5), got {eps}")
    p = np.asarray(p, dtype=float)
    if not ((p >= -1e-9) & (p <= 1 + 1e-9)).all():  # round-off just outside [0, 1] is clipped with the rest
        raise ValueError(f"log_odds takes probabilities in [0, 1], got values in [{np.nanmin(p)}, {np.nanmax(p)}]"
                         f"{' and NaN' if np.isnan(p).any() else ''} (logits are log-odds already: pool them as "
                         "they are)")
    p = np.clip(p, eps, 1.0 - eps)
    return np.log(p) - np.log1p(-p)


def log_odds_pool(logits: list[np.ndarray], weights: list[float] | None = None) -> np.ndarray:
    r"""Logarithmic opinion pool: the weighted mean of several models' log-odds,
    :math:`\sum_m w_m \, \ell_m / \sum_m w_m` (Genest & Zidek 1986).

    Unlike :func:`rank_average` it keeps each model's confidence: a pair one model is sure of and another is
    lukewarm about stays near the top. Members must be log-odds (a GAT's logits, or :func:`log_odds` of a
    classifier's probabilities); a constant offset of one member (e.g. from subsampled training negatives)
    shifts every pair alike and leaves the ranking unchanged. Weights are non-negative, not all zero.
    """
    logits, weights = _check_members(logits, weights, "log_odds_pool")
    out = sum(w * s for s, w in zip(logits, weights, strict=True) if w > 0)
    return out / sum(weights)
