r"""Unsupervised node embeddings and structural encodings for graphs without node features.

The real PPI graphs shipped with gatbio carry no node features, so a GNN needs inputs. This module gives
the inputs that the published anchors of the node2vec-PPI benchmark use themselves, computed in closed form
with SciPy sparse linear algebra (seconds on a few thousand nodes, deterministic for a given ``seed``):

- :func:`netmf`: NetMF, the closed form of DeepWalk's implicit matrix factorisation (Qiu et al. 2018).
- :func:`prone`: ProNE, sparse matrix factorisation + spectral propagation (Zhang et al. 2019).
- :func:`spectral`: Laplacian eigenmaps (Belkin & Niyogi 2003).
- :func:`structural_encodings`: degree, random-walk and Laplacian positional encodings via PyG's own
  transforms (:class:`torch_geometric.transforms.AddRandomWalkPE`, :class:`~torch_geometric.transforms.AddLaplacianEigenvectorPE`).
- :func:`node_inputs`: one entry point, ``kinds=("prone", "netmf", ...)`` → an (N, F) float tensor.

Conventions: graphs are undirected; ``edge_index`` holds both directions (as PyG does); self-loops in the
input are kept as they are (the node2vec PPI file has 894 of them); isolated nodes get all-zero rows in
every matrix factorisation, never NaNs. Everything returns ``float32`` tensors of shape (N, dim), also on
graphs too small to fill ``dim`` columns: a graph of N nodes supports at most N - 1 NetMF/ProNE columns, N
spectral ones and N - 1 Laplacian PE ones (``lap_k``), and the columns beyond those are zero (so a tiny graph
still has the documented width; :func:`node_inputs` with ``standardize`` keeps zero columns zero). A graph
needs at least one node; ``num_nodes`` < 1 or ``dim`` < 1 is a ``ValueError``.

References
----------
.. [1] J. Qiu, Y. Dong, H. Ma, J. Li, K. Wang, J. Tang. *Network Embedding as Matrix Factorization:
   Unifying DeepWalk, LINE, PTE, and node2vec.* WSDM 2018.
.. [2] J. Zhang, Y. Dong, Y. Wang, J. Tang, M. Ding. *ProNE: Fast and Scalable Network Representation
   Learning.* IJCAI 2019. Reference code: github.com/THUDM/ProNE (``proNE.py``).
.. [3] M. Belkin, P. Niyogi. *Laplacian Eigenmaps for Dimensionality Reduction and Data Representation.*
   Neural Computation 15(6), 2003.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import numpy as np
import scipy.sparse as sp
import torch
from scipy.sparse.linalg import eigsh
from scipy.special import iv
from sklearn.preprocessing import normalize
from sklearn.utils.extmath import randomized_svd

__all__ = [
    "EMBEDDINGS",
    "adjacency",
    "netmf",
    "netmf_method",
    "embedding_line",
    "prone",
    "spectral",
    "structural_encodings",
    "node_inputs",
]

#: Names accepted by :func:`node_inputs`.
EMBEDDINGS = ("netmf", "prone", "spectral", "degree", "rwpe", "lappe")

#: Above this many nodes NetMF never forms an N × N matrix: it factorises the rank-h eigen approximation of
#: :math:`M` through a row-blocked operator (:func:`netmf` ``method="large"``). 8,000 nodes: 0.5 GB of float64.
NETMF_DENSE_MAX = 8000
_NETMF_DENSE_MAX = NETMF_DENSE_MAX  # old private name
#: Memory of one row block of the large-graph operator, in matrix entries (float32: 128 MiB).
_BLOCK_ENTRIES = 1 << 25


def adjacency(edge_index, num_nodes: int) -> sp.csr_matrix:
    """Symmetric binary adjacency (CSR, float64) from a (2, E) ``edge_index`` (tensor or array).

    Duplicate edges collapse to 1 and the matrix is symmetrised, so an edge list with one direction per
    pair gives the same graph as one with both. Node ids must be integers (a float array of whole numbers, as
    ``np.loadtxt`` gives, is accepted) in ``0 .. num_nodes - 1``.
    """
    ei = edge_index.cpu().numpy() if isinstance(edge_index, torch.Tensor) else np.asarray(edge_index)
    if ei.ndim != 2 or ei.shape[0] != 2:
        hint = " (an (E, 2) list of pairs: pass its transpose)" if ei.ndim == 2 and ei.shape[1] == 2 else ""
        raise ValueError(f"edge_index must have shape (2, E), got {tuple(ei.shape)}{hint}")
    if ei.dtype == bool or not (np.issubdtype(ei.dtype, np.integer) or np.issubdtype(ei.dtype, np.floating)):
        raise ValueError(f"edge_index must hold integer node ids, got dtype {ei.dtype}")
    if np.issubdtype(ei.dtype, np.floating):
        if ei.size and not (np.isfinite(ei).all() and np.array_equal(ei, np.round(ei))):
            raise ValueError("edge_index must hold integer node ids; this float edge_index has non-integer "
                             "or non-finite entries (they would be truncated to other nodes)")
        ei = ei.astype(np.int64)
    if ei.size and (ei.min() < 0 or ei.max() >= num_nodes):
        raise ValueError(f"edge_index holds node ids outside 0..{num_nodes - 1} (min {ei.min()}, max {ei.max()}): "
                         f"num_nodes={num_nodes} must exceed the largest id, and ids must be ≥ 0")
    a = sp.coo_matrix((np.ones(ei.shape[1]), (ei[0], ei[1])), shape=(num_nodes, num_nodes)).tocsr()
    a = a + a.T
    a.data[:] = 1.0
    return a.tocsr()


def _undirected_edge_index(edge_index, num_nodes: int) -> torch.Tensor:
    """The (2, E) int64 CPU ``edge_index`` of :func:`adjacency`'s graph: both directions, each pair once, a
    self-loop once, sorted by (row, col) as PyG's ``coalesce`` (so an already coalesced undirected input comes
    back unchanged)."""
    a = adjacency(edge_index, num_nodes)
    a.sort_indices()
    a = a.tocoo()
    return torch.from_numpy(np.vstack([a.row, a.col]).astype(np.int64))


def _check_int(name: str, arg: str, value, low: int = 1) -> None:
    """One-line ``ValueError`` unless ``value`` is an integer ≥ ``low``."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name}: {arg} must be an integer, got {value!r}")
    if value < low:
        raise ValueError(f"{name}: {arg} must be ≥ {low}, got {value!r}")


def _check_netmf_args(window, negative, rank) -> None:
    """NetMF's T, b and h: T and h integers ≥ 1, b > 0 (b ≤ 0 makes M infinite or negative: NaN or all-zero)."""
    _check_int("netmf", "window", window)
    _check_int("netmf", "rank", rank)
    if isinstance(negative, bool) or not isinstance(negative, (int, float, np.integer, np.floating)) \
            or not np.isfinite(negative) or negative <= 0:
        raise ValueError(f"netmf: negative (b, the number of negative samples) must be a finite number > 0, "
                         f"got {negative!r}")


def _check_sizes(name: str, num_nodes, dim: int | None = None) -> None:
    """One-line ``ValueError`` for a graph without nodes or a non-positive embedding size."""
    if isinstance(num_nodes, bool) or not isinstance(num_nodes, (int, np.integer)) or num_nodes < 1:
        raise ValueError(f"{name}: num_nodes must be an integer ≥ 1 (the graph needs a node), got {num_nodes!r}")
    if dim is not None and (isinstance(dim, bool) or not isinstance(dim, (int, np.integer)) or dim < 1):
        raise ValueError(f"{name}: dim must be an integer ≥ 1, got {dim!r}")


def _pad_columns(x, dim: int):
    """``x`` (N, d ≤ dim), array or tensor, with zero columns appended up to (N, dim): the documented width on
    graphs too small to give ``dim`` independent columns."""
    missing = dim - x.shape[1]
    if missing <= 0:
        return x
    if isinstance(x, torch.Tensor):
        return torch.cat([x, x.new_zeros(x.shape[0], missing)], dim=1)
    return np.concatenate([x, np.zeros((x.shape[0], missing), dtype=x.dtype)], axis=1)


def _top_eigenpairs(norm: sp.spmatrix, k: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The ``k`` algebraically largest eigenpairs of the symmetric sparse (N, N) ``norm``, as SciPy's ``eigsh``.

    ARPACK needs ``k < N - 1`` and a non-zero matrix; below that (tiny graphs) the dense ``eigh`` gives them
    (at most N), and a graph without edges (``norm`` = 0) gives eigenvalues 0 with zero vectors, so isolated
    nodes keep all-zero rows. Eigenvalues come in ascending order (as ``eigsh``), vectors as columns.
    """
    n = norm.shape[0]
    k = min(k, n)
    if norm.nnz == 0 or not np.any(norm.data):
        return np.zeros(k), np.zeros((n, k))
    if k >= n - 1:
        lam, u = np.linalg.eigh(norm.toarray())  # ascending
        return lam[n - k:], u[:, n - k:]
    return eigsh(norm, k=k, which="LA", v0=np.random.default_rng(seed).standard_normal(n))


def _svd_embedding(m, dim: int, seed: int, n_iter: int = 5) -> np.ndarray:
    """U_d · sqrt(Σ_d) of a seeded randomized truncated SVD (Halko et al. 2011, via scikit-learn).

    At most ``min(m.shape) - 1`` columns (none for a 1 × 1 matrix); the callers pad to ``dim``.
    """
    dim = min(dim, min(m.shape) - 1)
    if dim < 1:
        return np.zeros((m.shape[0], 0))
    u, s, _ = randomized_svd(m, n_components=dim, n_iter=n_iter, random_state=seed)
    return u * np.sqrt(s)[None, :]


def _to_tensor(x: np.ndarray) -> torch.Tensor:
    return torch.from_numpy(np.ascontiguousarray(x, dtype=np.float32))


def netmf_matrix(edge_index, num_nodes: int, window: int = 10, negative: float = 1.0, rank: int = 256,
                 seed: int = 0, method: str = "auto") -> np.ndarray:
    r"""The matrix :math:`\log\max(M, 1)` that :func:`netmf` factorises (see there), dense (N, N) float64.

    Its rows are the proteins' full multi-hop neighbourhood profiles before the rank-d truncation; exact up to
    8,000 nodes, the rank-``rank`` approximation above. This function returns the whole matrix, so its memory
    is N² floats at any size; :func:`netmf` above 8,000 nodes factorises the same matrix without storing it.
    ``method`` as in :func:`netmf_method` (``"large"``: the approximation at any size).
    """
    _check_sizes("netmf", num_nodes)
    _check_netmf_args(window, negative, rank)
    kind, _ = netmf_method(num_nodes, method)
    a = adjacency(edge_index, num_nodes)
    deg = np.asarray(a.sum(axis=1)).ravel()  # (N,)
    vol = deg.sum()
    dinv = np.divide(1.0, deg, out=np.zeros_like(deg), where=deg > 0)
    if kind == "netmf":
        p = sp.diags(dinv) @ a  # D^-1 A, (N, N) sparse
        power = p.toarray()
        s = power.copy()
        for _ in range(window - 1):  # S = sum_r P^r
            power = p @ power  # sparse @ dense keeps this O(nnz · N)
            s += power
        m = s * dinv[None, :]  # (N, N) S D^-1
    else:
        dis = np.sqrt(dinv)
        norm = sp.diags(dis) @ a @ sp.diags(dis)
        lam, u = _top_eigenpairs(norm, min(rank, max(num_nodes - 2, 1)), seed)
        lam_sum = np.array([sum(x**r for r in range(1, window + 1)) for x in lam])  # (h,)
        du = dis[:, None] * u  # (N, h)
        m = (du * lam_sum[None, :]) @ du.T  # (N, N)
    m *= vol / (negative * window)
    logm = np.log(np.maximum(m, 1.0))  # zero rows for isolated nodes
    return logm


def netmf_method(num_nodes: int, method: str = "auto") -> tuple[str, str]:
    """Which NetMF :func:`netmf` computes for ``num_nodes`` nodes, and why: ``("netmf", reason)`` (the exact dense
    matrix) or ``("netmf-large", reason)`` (rank-h approximation, never an N × N matrix)."""
    if method not in ("auto", "dense", "large"):
        raise ValueError(f"netmf: method must be 'auto', 'dense' or 'large', got {method!r}")
    if method == "dense":
        return "netmf", "method='dense' asked for"
    if method == "large":
        return "netmf-large", "method='large' asked for"
    if num_nodes <= NETMF_DENSE_MAX:
        return "netmf", f"{num_nodes:,} nodes <= {NETMF_DENSE_MAX:,}: exact dense matrix"
    return "netmf-large", f"{num_nodes:,} nodes > {NETMF_DENSE_MAX:,}: bounded memory"


def embedding_line(kinds: Sequence[str], num_nodes: int) -> str:
    """One printable line naming the embeddings :func:`node_inputs` computes for ``kinds``, e.g.
    ``embedding: prone + netmf-large (19,000 nodes > 8,000: bounded memory)``."""
    names, why = [], ""
    for kind in kinds:
        if kind == "netmf":
            kind, why = netmf_method(num_nodes)
        names.append(kind)
    return f"embedding: {' + '.join(names)}" + (f" ({why})" if why else "")


def _resolve(device) -> torch.device | None:
    """``None`` → ``None`` (SciPy on the CPU); ``"auto"`` → CUDA when available, else ``None``; else a device."""
    from gatbio.device import resolve_device  # one parser of device names, with its clear errors

    if device is None:
        return None
    if isinstance(device, str) and device.strip().lower() == "auto":
        dev = resolve_device("auto")
        return dev if dev.type == "cuda" else None
    return resolve_device(device)


def _randomized_svd_sym(apply, n: int, dim: int, seed: int, device: torch.device, dtype: torch.dtype,
                        n_iter: int = 5, oversample: int = 10) -> torch.Tensor:
    r""":math:`U_d\Sigma_d^{1/2}` of a symmetric (N, N) matrix given only as ``apply(Q) = M @ Q``.

    Halko et al. (2011) as in :func:`sklearn.utils.extmath.randomized_svd`: a seeded Gaussian start (drawn on
    the CPU, so every device starts from the same numbers), ``n_iter`` power iterations of :math:`MM^\top`
    (two products each, QR-orthonormalised), :math:`B = Q^\top M = (MQ)^\top`, an SVD of the small :math:`B`;
    each column's sign is fixed (largest-magnitude entry positive) so the output is deterministic.
    """
    dim = min(dim, n - 1)
    if dim < 1:  # a 1-node graph: no column (the caller pads to its dim)
        return torch.zeros(n, 0, device=device, dtype=dtype)
    width = min(n, dim + oversample)
    gen = torch.Generator().manual_seed(seed)
    q = torch.randn(n, width, generator=gen, dtype=torch.float64).to(device=device, dtype=dtype)  # (N, l)
    q = torch.linalg.qr(apply(q)).Q
    for _ in range(n_iter):
        q = torch.linalg.qr(apply(q)).Q
        q = torch.linalg.qr(apply(q)).Q
    b = apply(q).T  # (l, N) = Q^T M, M symmetric
    ub, sv, _ = torch.linalg.svd(b, full_matrices=False)
    u = q @ ub[:, :dim]  # (N, d)
    sign = torch.sign(u.gather(0, u.abs().argmax(dim=0, keepdim=True)))  # (1, d)
    sign[sign == 0] = 1
    return u * sign * sv[:dim].clamp_min(0).sqrt()[None, :]


def _netmf_dense_torch(a: sp.csr_matrix, window: int, negative: float, dim: int, seed: int,
                       device: torch.device) -> torch.Tensor:
    """The exact dense NetMF (as :func:`netmf_matrix`) in float64 torch on ``device``, then the randomized SVD."""
    n = a.shape[0]
    deg = np.asarray(a.sum(axis=1)).ravel()
    dinv = torch.from_numpy(np.divide(1.0, deg, out=np.zeros_like(deg), where=deg > 0)).to(device)  # (N,)
    p = (sp.diags(dinv.cpu().numpy()) @ a).tocsr()
    p.sort_indices()  # torch CSR wants sorted column indices per row
    from gatbio.nn.fused import SPARSE_NOTICES

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=SPARSE_NOTICES)
        pt = torch.sparse_csr_tensor(torch.from_numpy(p.indptr).long(), torch.from_numpy(p.indices).long(),
                                     torch.from_numpy(p.data), size=(n, n), check_invariants=True).to(device)
    power = pt.to_dense()  # (N, N)
    s = power.clone()
    for _ in range(window - 1):
        power = pt @ power  # sparse @ dense
        s += power
    s *= dinv[None, :] * (float(deg.sum()) / (negative * window))  # M
    logm = s.clamp_min_(1.0).log_()  # (N, N), in place: one N x N buffer besides `power`
    del power
    return _randomized_svd_sym(lambda q: logm @ q, n, dim, seed, device, torch.float64)


def _netmf_large(a: sp.csr_matrix, window: int, negative: float, rank: int, dim: int, seed: int,
                 device: torch.device, n_iter: int = 5, block_entries: int = _BLOCK_ENTRIES) -> torch.Tensor:
    r"""NetMF for large graphs (Qiu et al. 2018, Alg. 4, "NetMF for a large window size") in bounded memory.

    The top-``rank`` eigenpairs :math:`D^{-1/2}AD^{-1/2}\approx U_h\Lambda_hU_h^\top` (SciPy's ARPACK on the
    sparse matrix, :math:`O(|E|h)` per iteration) give :math:`M \approx LR^\top` with
    :math:`L = \frac{\mathrm{vol}}{bT}D^{-1/2}U_h\sum_r\Lambda_h^r` and :math:`R = D^{-1/2}U_h`, both (N, h).
    The matrix :math:`\log\max(LR^\top, 1)` is never stored: each product with it, which is all the randomized
    SVD needs, computes it one block of rows at a time (float32, ``block_entries`` entries per block), applies
    the elementwise log exactly and multiplies. Memory: :math:`O(Nh + \text{block})`; time
    :math:`O(N^2h)` per product, 12 products (``n_iter=5``).
    """
    n = a.shape[0]
    deg = np.asarray(a.sum(axis=1)).ravel()
    dis = np.sqrt(np.divide(1.0, deg, out=np.zeros_like(deg), where=deg > 0))
    norm = sp.diags(dis) @ a @ sp.diags(dis)
    lam, u = _top_eigenpairs(norm, min(rank, max(n - 2, 1)), seed)  # (h,), (N, h)
    lam_sum = sum(lam**r for r in range(1, window + 1))  # (h,)
    right = dis[:, None] * u  # (N, h)
    left = right * (lam_sum * deg.sum() / (negative * window))[None, :]  # (N, h)
    left_t = torch.from_numpy(left).to(device=device, dtype=torch.float32)
    right_t = torch.from_numpy(np.ascontiguousarray(right.T)).to(device=device, dtype=torch.float32)  # (h, N)
    rows = max(1, block_entries // n)

    def apply(q: torch.Tensor) -> torch.Tensor:
        out = torch.empty_like(q)  # (N, l)
        for i in range(0, n, rows):
            blk = (left_t[i:i + rows] @ right_t).clamp_min_(1.0).log_()  # (B, N) rows of log max(M, 1)
            out[i:i + rows] = blk @ q
        return out

    return _randomized_svd_sym(apply, n, dim, seed, device, torch.float32, n_iter=n_iter)


def netmf(edge_index, num_nodes: int, dim: int = 128, window: int = 10, negative: float = 1.0,
          rank: int = 256, seed: int = 0, method: str = "auto", device=None) -> torch.Tensor:
    r"""NetMF embedding [1]_: the matrix DeepWalk factorises implicitly, factorised explicitly.

    With adjacency :math:`A`, degrees :math:`D`, volume :math:`\mathrm{vol}(G)=\sum_{ij}A_{ij}`, window
    :math:`T` and :math:`b` negative samples,

    .. math::
        M = \frac{\mathrm{vol}(G)}{bT}\Big(\sum_{r=1}^{T}(D^{-1}A)^r\Big)D^{-1},\qquad
        \mathrm{emb} = U_d\,\Sigma_d^{1/2}\ \text{of}\ \mathrm{SVD}_d\big(\log\max(M, 1)\big).

    ``method="auto"`` (see :func:`netmf_method`): up to 8,000 nodes :math:`M` is computed exactly (dense);
    above, ``"large"``: the paper's rank-:math:`h` approximation :math:`D^{-1/2}AD^{-1/2}\approx
    U_h\Lambda_hU_h^\top`, so that :math:`M \approx \frac{\mathrm{vol}}{bT} D^{-1/2}U_h\big(\sum_r\Lambda_h^r\big)
    U_h^\top D^{-1/2}`, factorised without ever storing an N × N matrix (row blocks, see ``_netmf_large``).
    The paper's PPI setting is :math:`T=10, b=1, h=256, d=128`.

    Args:
        edge_index: (2, E) undirected edges.
        num_nodes: N.
        dim: embedding size d (default: 128).
        window: T (default: 10).
        negative: b (default: 1.0).
        rank: h, eigenpairs of the approximation (``"large"`` only; default: 256).
        seed: seeds the randomized SVD / eigen solver start vector (default: 0).
        method: ``"auto"``, ``"dense"`` or ``"large"`` (default: ``"auto"``).
        device: where the dense linear algebra runs: ``None`` (default) = the CPU, with SciPy for the dense
            method (faster there than torch, see experiments/README "Embeddings at STRING scale"); a torch
            device (``"cuda"``, ``"auto"`` = CUDA when available) = torch on that device. The eigenpairs of the
            large method are always SciPy's (sparse). The output stays on the CPU.

    Shapes:
        output: (N, dim) float32; a graph of N ≤ dim nodes gives N - 1 columns, then zero columns.
    """
    _check_sizes("netmf", num_nodes, dim)
    _check_netmf_args(window, negative, rank)
    kind, _ = netmf_method(num_nodes, method)
    dev = _resolve(device)
    if kind == "netmf-large":
        a = adjacency(edge_index, num_nodes)
        x = _netmf_large(a, window, negative, rank, dim, seed, dev or torch.device("cpu")).float().cpu()
    elif dev is not None and dev.type != "cpu":
        a = adjacency(edge_index, num_nodes)
        x = _netmf_dense_torch(a, window, negative, dim, seed, dev).float().cpu()
    else:
        logm = netmf_matrix(edge_index, num_nodes, window, negative, rank, seed)
        x = _to_tensor(_svd_embedding(logm, dim, seed))
    return _pad_columns(x, dim)


def _chebyshev_gaussian(a: sp.csr_matrix, emb: np.ndarray, order: int, mu: float, theta: float) -> np.ndarray:
    """ProNE spectral propagation: Chebyshev expansion of a band-pass Gaussian filter, then D^-1 A mixing."""
    n = a.shape[0]
    if order == 1:
        return emb
    a_loop = sp.eye(n, format="csr") + a
    da = normalize(a_loop, norm="l1")  # row-stochastic (I + A)
    lap = sp.eye(n, format="csr") - da  # random-walk Laplacian in [0, 2]
    m = lap - mu * sp.eye(n, format="csr")  # shifted so the filter peaks at eigenvalue mu
    lx0 = emb
    lx1 = m @ emb
    lx1 = 0.5 * (m @ lx1) - emb
    conv = iv(0, theta) * lx0
    conv -= 2 * iv(1, theta) * lx1
    for i in range(2, order):
        lx2 = m @ lx1
        lx2 = (m @ lx2 - 2 * lx1) - lx0
        conv = conv + (2 if i % 2 == 0 else -2) * iv(i, theta) * lx2
        lx0, lx1 = lx1, lx2
    return a_loop @ (emb - conv)


def prone(edge_index, num_nodes: int, dim: int = 128, order: int = 10, mu: float = 0.2, theta: float = 0.5,
          neg_power: float = 0.75, seed: int = 0) -> torch.Tensor:
    r"""ProNE embedding [2]_: sparse matrix factorisation, then spectral propagation.

    **Step 1** (factorisation). With :math:`P = D^{-1}A` and negative-sampling weights
    :math:`p_j \propto (\sum_i P_{ij})^{0.75}`, factorise the sparse matrix (only on edges, so
    :math:`O(|E|)` memory)

    .. math:: R_{ij} = \log P_{ij} - \log p_j\quad\text{for } A_{ij}\neq 0,\qquad R \approx U_d\Sigma_dV_d^\top,
       \qquad E_0 = \mathrm{normalize}_{\ell_2}(U_d\Sigma_d^{1/2}).

    **Step 2** (propagation). Filter :math:`E_0` with :math:`g(\lambda)=e^{-\frac{1}{2}[(\lambda-\mu)^2-1]\theta}`
    on the random-walk Laplacian :math:`L = I - (D+I)^{-1}(A+I)`, expanded in Chebyshev polynomials of
    order ``order`` (coefficients are modified Bessel functions :math:`I_k(\theta)`), then
    :math:`E = (I+A)(E_0 - g(L)E_0)` and a final dense SVD to ``dim`` dimensions, rows ℓ2-normalised.

    This follows the reference code (THUDM/ProNE, defaults ``step=10, mu=0.2, theta=0.5``).

    Args:
        edge_index: (2, E) undirected edges.
        num_nodes: N.
        dim: embedding size d (default: 128).
        order: Chebyshev order (default: 10).
        mu, theta: band-pass filter centre and width (defaults: 0.2, 0.5).
        neg_power: exponent of the negative-sampling distribution (default: 0.75).
        seed: seeds the randomized SVD (default: 0).

    Shapes:
        output: (N, dim) float32; a graph of N ≤ dim nodes gives N - 1 columns, then zero columns.
    """
    _check_sizes("prone", num_nodes, dim)
    _check_int("prone", "order", order)
    a = adjacency(edge_index, num_nodes)
    p = normalize(a, norm="l1")  # D^-1 A (CSR, zero rows stay zero)
    neg = np.asarray(p.sum(axis=0)).ravel() ** neg_power  # (N,)
    if neg.sum() > 0:  # no edges: R is empty anyway, and 0/0 would only warn
        neg = neg / neg.sum()
    r = p.tocoo()
    keep = r.data > 0
    rows, cols = r.row[keep], r.col[keep]
    vals = np.log(r.data[keep]) - np.log(np.maximum(neg[cols], 1e-300))
    rmat = sp.csr_matrix((vals, (rows, cols)), shape=a.shape)
    e0 = _svd_embedding(rmat, dim, seed)  # (N, d)
    if e0.shape[1] == 0:  # a single node: nothing to factorise
        return torch.zeros(num_nodes, dim)
    e0 = normalize(e0, norm="l2")
    e1 = _chebyshev_gaussian(a, e0, order, mu, theta)  # (N, d)
    # Final dense SVD as in the reference code: rotates into the principal axes and rescales.
    u, s, _ = np.linalg.svd(e1, full_matrices=False)
    emb = normalize(u[:, :dim] * np.sqrt(s[:dim])[None, :], norm="l2")
    return _to_tensor(_pad_columns(emb, dim))


def spectral(edge_index, num_nodes: int, dim: int = 128, seed: int = 0) -> torch.Tensor:
    r"""Laplacian eigenmaps [3]_: the eigenvectors of the ``dim`` largest eigenvalues of
    :math:`D^{-1/2}AD^{-1/2}` (= smallest of the normalised Laplacian), the trivial one included.

    The sign of each eigenvector is fixed (largest-magnitude entry positive) so the output is deterministic.
    Isolated nodes get all-zero rows (as in the other factorisations; a graph without edges gives zeros).
    ARPACK computes the eigenvectors when ``dim`` < N - 1, a dense eigendecomposition otherwise.

    Shapes:
        output: (N, dim) float32; a graph of N < dim nodes gives its N eigenvectors, then zero columns.
    """
    _check_sizes("spectral", num_nodes, dim)
    a = adjacency(edge_index, num_nodes)
    deg = np.asarray(a.sum(axis=1)).ravel()
    dis = np.divide(1.0, np.sqrt(deg), out=np.zeros_like(deg), where=deg > 0)
    norm = sp.diags(dis) @ a @ sp.diags(dis)
    lam, u = _top_eigenpairs(norm, dim, seed)
    u = u[:, np.argsort(-lam, kind="stable")]
    u[deg == 0] = 0.0  # eigenvalue-0 vectors may sit on isolated nodes: keep their rows zero
    sign = np.sign(u[np.abs(u).argmax(axis=0), np.arange(u.shape[1])])
    sign[sign == 0] = 1
    return _to_tensor(_pad_columns(u * sign[None, :], dim))


def structural_encodings(edge_index, num_nodes: int, kinds: Sequence[str] = ("degree", "rwpe", "lappe"),
                         walk_length: int = 16, lap_k: int = 16, seed: int = 0) -> torch.Tensor:
    r"""Structural encodings computed by PyG transforms, concatenated.

    - ``degree``: :math:`\log(1 + d_i)` (one column), via :func:`torch_geometric.utils.degree`.
    - ``rwpe``: random-walk return probabilities :math:`[(D^{-1}A)^k]_{ii},\ k=1..K`
      (:class:`torch_geometric.transforms.AddRandomWalkPE`, ``walk_length`` columns).
    - ``lappe``: ``lap_k`` Laplacian eigenvectors (:class:`torch_geometric.transforms.AddLaplacianEigenvectorPE`;
      its sign is arbitrary, the seed fixes it and the ARPACK start vector; the global torch / NumPy random
      state is left as it was). The trivial eigenvector is skipped, so a graph
      of N nodes has at most N - 1 of them (N - 2 from 100 nodes on, where PyG uses ARPACK); the columns
      beyond those are zero, so the width stays ``lap_k``.

    :math:`A` is :func:`adjacency`'s, as for the factorisations: the encodings see the undirected simple graph
    (an edge given in one direction counts in both, a duplicate edge once, a self-loop once), whatever the form
    of ``edge_index``, on any device (the output is on the CPU).

    Shapes:
        output: (N, F) float32 with F = 1·[degree] + walk_length·[rwpe] + lap_k·[lappe].
    """
    import torch_geometric.transforms as T
    from torch_geometric.data import Data
    from torch_geometric.utils import degree

    _check_sizes("structural_encodings", num_nodes)
    if isinstance(kinds, str) or not kinds:
        raise ValueError(f"structural_encodings: kinds must be a non-empty list of names from degree, rwpe, lappe, "
                         f"e.g. kinds=['rwpe'], got {kinds!r}")
    for kind in kinds:
        if kind not in ("degree", "rwpe", "lappe"):
            raise ValueError(f"unknown structural encoding {kind!r}; choose from degree, rwpe, lappe")
    if "rwpe" in kinds:
        _check_int("structural_encodings", "walk_length", walk_length)
    if "lappe" in kinds:
        _check_int("structural_encodings", "lap_k", lap_k)
    ei = _undirected_edge_index(edge_index, num_nodes)  # (2, E') int64, CPU
    cols = []
    for kind in kinds:
        if kind == "degree":
            cols.append(torch.log1p(degree(ei[0], num_nodes)).unsqueeze(1))  # (N, 1)
        elif kind == "rwpe":
            d = T.AddRandomWalkPE(walk_length=walk_length, attr_name="pe")(Data(edge_index=ei, num_nodes=num_nodes))
            cols.append(d.pe)  # (N, walk_length)
        else:  # lappe
            lape = T.AddLaplacianEigenvectorPE
            # PyG asks for k + 1 eigenvectors: at most N dense (below its threshold), fewer than N with ARPACK.
            k = min(lap_k, num_nodes - 1 if num_nodes < lape.SPARSE_THRESHOLD else num_nodes - 2)
            if k < 1:  # a single node: no non-trivial eigenvector
                cols.append(torch.zeros(num_nodes, lap_k))
                continue
            # ARPACK's start vector (else SciPy draws it from OS entropy: a different PE on every call) ...
            v0 = np.random.default_rng(seed).standard_normal(num_nodes)
            kwargs = {"v0": v0} if num_nodes >= lape.SPARSE_THRESHOLD else {}
            # ... and PyG's random signs (torch's global CPU generator), seeded without touching the caller's state.
            with torch.random.fork_rng(devices=[]):
                torch.default_generator.manual_seed(seed)
                d = lape(k=k, attr_name="pe", is_undirected=True, **kwargs)(Data(edge_index=ei, num_nodes=num_nodes))
            cols.append(_pad_columns(d.pe.float(), lap_k))  # (N, lap_k)
    return torch.cat(cols, dim=1).float()


#: Relative spread below which :func:`node_inputs` (``standardize``) treats a column as zero: round-off.
NUMERICAL_ZERO = 1e-5
#: A column whose standard deviation is below this many machine epsilons of its largest magnitude is constant
#: (:func:`standardize_columns`): the round-off of its mean (about 5 epsilons at most, measured up to 1e6 rows).
CONSTANT_EPS = 64


def node_inputs(edge_index, num_nodes: int, kinds: Sequence[str] = ("prone",), dim: int = 128,
                seed: int = 0, standardize: bool = False, device=None) -> torch.Tensor:
    """Concatenate the named embeddings/encodings (see :data:`EMBEDDINGS`).

    With ``standardize`` each column gets zero mean and unit variance (constant columns, and columns whose spread
    is round-off, below :data:`NUMERICAL_ZERO` times the largest column's, are zero). The
    published protocol feeds the raw embeddings to the logistic regression (ProNE rows are ℓ2-normalised),
    and that scale regularises better there, so the default keeps them raw. ``device``: where NetMF's dense
    linear algebra runs (see :func:`netmf`); the others are sparse SciPy work on the CPU. The output is on the CPU.

    Every kind keeps its documented width on any graph of at least one node: ``dim`` columns for netmf,
    prone and spectral, 1 / 16 / 16 for degree, rwpe, lappe; columns a tiny graph cannot fill are zero.

    Shapes:
        output: (N, F) float32.
    """
    if not kinds:
        raise ValueError("node_inputs: give at least one kind, e.g. kinds=['prone']")
    if isinstance(kinds, str):
        raise ValueError(f"node_inputs: kinds must be a list of names, e.g. kinds=[{kinds!r}], not a string")
    _check_sizes("node_inputs", num_nodes, dim)
    parts = []
    for kind in kinds:
        if kind == "netmf":
            x = netmf(edge_index, num_nodes, dim=dim, seed=seed, device=device)
        elif kind == "prone":
            x = prone(edge_index, num_nodes, dim=dim, seed=seed)
        elif kind == "spectral":
            x = spectral(edge_index, num_nodes, dim=dim, seed=seed)
        elif kind in ("degree", "rwpe", "lappe"):
            x = structural_encodings(edge_index, num_nodes, kinds=(kind,), seed=seed)
        else:
            raise ValueError(f"unknown input kind {kind!r}; choose from {', '.join(EMBEDDINGS)}")
        parts.append(standardize_columns(x) if standardize else x)
    return torch.cat(parts, dim=1)


def standardize_columns(x: torch.Tensor) -> torch.Tensor:
    """Zero mean and unit variance per column of one embedding (N, d): constant columns, and columns whose spread
    is round-off (below :data:`NUMERICAL_ZERO` times the largest column's: a zero singular value of a small or
    tree-like graph, norms of 1e-8 beside columns of norm 1), are zero columns, not noise scaled up to unit
    variance like the real ones. A column is constant also when its spread is the round-off of its mean
    (:data:`CONSTANT_EPS` machine epsilons of its largest magnitude): the degree column of a regular graph,
    whose float32 standard deviation is about 1e-7, not 0."""
    std = x.std(dim=0, keepdim=True) if x.shape[0] > 1 else torch.zeros_like(x)  # one node: no spread
    real = std > NUMERICAL_ZERO * std.max().clamp_min(torch.finfo(x.dtype).tiny) if x.numel() else std > 0
    if x.numel():
        real &= std > CONSTANT_EPS * torch.finfo(x.dtype).eps * x.abs().amax(dim=0, keepdim=True)
    return torch.where(real, (x - x.mean(dim=0, keepdim=True)) / torch.where(real, std, torch.ones_like(std)),
                       torch.zeros_like(x))
