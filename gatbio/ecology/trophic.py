r"""Trophic levels and trophic incoherence of directed networks (food webs).

Direction convention: an edge ``u → v`` means **v eats u** (prey → predator, resource → consumer), as in
networkx's ``trophic.py`` and in every food web that :func:`gatbio.data.load` returns. Weights, when used,
are non-negative interaction strengths (e.g. carbon flows).

Zero-weight links carry no flow, so they are **dropped**, as if absent, before any method (Levine, MacKay,
:math:`F_0`, :math:`q`) sees the web: a consumer whose only links have weight 0 is basal (level 1), and a web
held together only by a zero-weight link falls apart into weakly connected components, each gauged on its own
(MacKay: minimum level 1 per component). So ``a → b`` (1), ``b → c`` (0), ``c → d`` (1) has the levels of
``a → b``, ``c → d``: 1, 2, 1, 2. With ``weighted=False`` every link counts, weight 0 included.

Levine (1980)
    The classic prey-averaged trophic level. Basal species (no prey) have :math:`s_i = 1`, every other species

    .. math::
        s_i = 1 + \frac{1}{k^{in}_i} \sum_j a_{ji} s_j,

    where :math:`a_{ji}` is the weight of the edge ``j → i`` and :math:`k^{in}_i = \sum_j a_{ji}`.
    It is defined only when every species can be reached from a basal species; computed by
    :func:`networkx.trophic_levels` (a dense inverse) up to 2,000 species, beyond by one sparse solve of
    :math:`(I - P)(s - 1) = 1` over the species with prey, :math:`P_{ij} = a_{ji} / k^{in}_i` (Jacobi-preconditioned
    BiCGSTAB, with the sparse LU, which fills in on large webs, where it does not converge).

MacKay, Johnson & Sansom (2020)
    Defined on any directed graph (cycles and graphs without basal nodes included). With :math:`W` the weighted
    adjacency matrix (``W[i, j]`` = weight of ``i → j``), in- and out-strengths :math:`s^{in}, s^{out}`,

    .. math::
        u = s^{in} + s^{out}, \qquad v = s^{in} - s^{out}, \qquad
        \Lambda = \operatorname{diag}(u) - W - W^\top, \qquad \Lambda h = v.

    :math:`\Lambda` is the Laplacian of the symmetrised graph, so :math:`h` is defined up to one constant per
    weakly connected component. We solve each component with one node grounded (one sparse solve,
    :func:`scipy.sparse.linalg.spsolve`; above 2,000 species Jacobi-preconditioned conjugate gradients, as the
    sparse LU fills in on large webs, with the direct solve where they do not converge), then **fix the gauge so
    that the minimum level of each component is 1** (the paper sets the minimum to 0 or the mean to 0; 1 makes the
    levels comparable with Levine's: on a chain or a tree rooted at a single basal species both give the same
    numbers). Unlike Levine's, these levels place a species by its consumers too, so a basal species (no prey)
    eaten only by high-level consumers sits above 1 (in ``grass → rabbit → fox``, ``alga → fox`` the alga is at
    2, Levine's 1). An isolated node has level 1.
    Self-loops do not change :math:`h` (they cancel in :math:`\Lambda`).

Trophic incoherence
    MacKay et al.'s :math:`F_0 = \sum_{ij} w_{ij} (h_j - h_i - 1)^2 / \sum_{ij} w_{ij}` in ``[0, 1]``: 0 for a
    perfectly coherent (layered) network such as a chain, 1 for a directed cycle. Also Johnson et al.'s
    :math:`q`, the standard deviation of :math:`s_j - s_i` over edges with Levine levels
    (:func:`networkx.trophic_incoherence_parameter`).

Cannibalism (self-loops) is ignored by default (``self_loops="ignore"``), as in cheddar's prey-averaged
trophic level and networkx's incoherence parameter; pass ``self_loops="include"`` to count it.

References
----------
- Levine, S. (1980). Several measures of trophic structure applicable to complex food webs.
  J. Theor. Biol. 83:195–207.
- MacKay, R.S., Johnson, S. & Sansom, B. (2020). How directed is a directed network?
  R. Soc. Open Sci. 7:201138.
- Johnson, S., Domínguez-García, V., Donetti, L. & Muñoz, M.A. (2014). Trophic coherence determines food-web
  stability. PNAS 111(50):17923–17928.
"""

from __future__ import annotations

import warnings
from typing import Literal

import networkx as nx
import numpy as np
import scipy.linalg
import scipy.sparse as sp
import torch
from scipy.sparse.csgraph import breadth_first_order, connected_components
from scipy.sparse.linalg import MatrixRankWarning, bicgstab, cg, spsolve
from torch_geometric.data import Data
from torch_geometric.transforms import BaseTransform

__all__ = ["trophic_levels", "trophic_incoherence", "TrophicLevel", "basal_nodes"]

Method = Literal["mackay", "levine"]


def _as_graph(data_or_edge_index, num_nodes, edge_weight, weighted: bool, self_loops: str
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray, int, list[str] | None]:
    """(src, dst, weight, N, node_names) as numpy, self-loops handled."""
    from gatbio.data.io import check_edge_index

    names, what = None, "data_or_edge_index"
    if isinstance(data_or_edge_index, nx.Graph):  # networkx's own convention: an edge u -> v, v eats u
        G = data_or_edge_index
        if not G.is_directed():
            raise TypeError("data_or_edge_index is an undirected networkx graph: a food web's links have a "
                            "direction (prey -> predator); give a networkx.DiGraph")
        nodes = list(G.nodes)
        index = {v: k for k, v in enumerate(nodes)}
        edges = list(G.edges(data="weight", default=1.0))
        data_or_edge_index = Data(edge_index=torch.tensor([[index[u] for u, _, _ in edges],
                                                           [index[v] for _, v, _ in edges]],
                                                          dtype=torch.long).reshape(2, -1),
                                  edge_weight=torch.tensor([float(w) for _, _, w in edges], dtype=torch.float64),
                                  num_nodes=len(nodes), node_names=[str(v) for v in nodes])
    if isinstance(data_or_edge_index, Data):
        d = data_or_edge_index
        ei, what = d.edge_index, "data.edge_index"
        num_nodes = d.num_nodes if num_nodes is None else num_nodes
        if edge_weight is None and weighted:
            edge_weight = getattr(d, "edge_weight", None)
        names = getattr(d, "node_names", None)
    else:
        ei = data_or_edge_index
    # a path, a table, an (E, 2) array or ids like 1.5 (truncated before) are refused, saying what to pass
    src, dst = check_edge_index(ei, None if num_nodes is None else int(num_nodes), what)
    n = int(num_nodes) if num_nodes is not None else (int(max(src.max(), dst.max())) + 1 if len(src) else 0)
    if edge_weight is None or not weighted:
        w = np.ones(len(src))
    else:
        w = torch.as_tensor(edge_weight).detach().cpu().numpy().astype(np.float64).reshape(-1)
        if w.shape != src.shape:
            raise ValueError(f"edge_weight has {w.size} entries for {len(src)} edges")
        if (w < 0).any() or not np.isfinite(w).all():
            raise ValueError("edge_weight must be finite and non-negative")
    if self_loops not in ("ignore", "include"):
        raise ValueError(f"self_loops={self_loops!r}: expected 'ignore' or 'include'")
    if self_loops == "ignore":
        keep = src != dst
        src, dst, w = src[keep], dst[keep], w[keep]
    # a zero-weight link carries no flow: drop it (module docstring). Kept, it would join components in the
    # connectivity test while adding nothing to the Laplacian (a singular solve, NaN levels) and make networkx
    # see a prey that Levine's in-strength does not (an IndexError inside networkx.trophic_levels).
    keep = w > 0
    src, dst, w = src[keep], dst[keep], w[keep]
    if edge_weight is None or not weighted:  # a binary web: a link listed twice is one link (weights would add)
        pairs = np.unique(np.stack([src, dst]), axis=1) if len(src) else np.zeros((2, 0), dtype=np.int64)
        src, dst, w = pairs[0], pairs[1], np.ones(pairs.shape[1])
    return src, dst, w, n, names


def basal_nodes(data_or_edge_index, num_nodes: int | None = None) -> torch.Tensor:
    """Indices of nodes with no prey: no incoming link other than a self-loop, links of weight 0 (a
    ``data.edge_weight`` of 0: no flow, absent) not counted, as :func:`trophic_levels` counts them."""
    src, dst, _, n, _ = _as_graph(data_or_edge_index, num_nodes, None, True, "ignore")
    indeg = np.bincount(dst, minlength=n)
    return torch.from_numpy(np.flatnonzero(indeg == 0))


def _levine(src, dst, w, n, names) -> np.ndarray:
    name = (lambda i: repr(names[i])) if names is not None else (lambda i: str(i))
    indeg = np.bincount(dst, weights=w, minlength=n)
    basal = np.flatnonzero(indeg == 0)
    if len(basal) == 0:
        raise ValueError("food web has no basal species (every node has a prey), so Levine trophic levels are "
                         "not defined; use method='mackay' (gatbio trophic --method mackay)")
    # which nodes can be reached from a basal species (a virtual root linked to every basal node)
    A = sp.csr_matrix((np.ones(len(src) + len(basal)),
                       (np.concatenate([src, np.full(len(basal), n)]), np.concatenate([dst, basal]))),
                      shape=(n + 1, n + 1))
    reached = breadth_first_order(A, n, directed=True, return_predecessors=False)
    unreachable = np.setdiff1d(np.arange(n), reached)
    if len(unreachable):
        few = ", ".join(name(i) for i in unreachable[:5])
        raise ValueError(f"{len(unreachable)} node(s) cannot be reached from a basal species (e.g. {few}), so "
                         "Levine trophic levels are not defined; use method='mackay' (gatbio trophic --method mackay)")
    if n > _DIRECT_MAX:  # networkx inverts the dense (N, N) matrix: a sparse solve instead (:data:`_DIRECT_MAX`)
        return _levine_sparse(src, dst, w, n)
    G = nx.DiGraph()
    G.add_nodes_from(range(n))
    for a, b, x in zip(src.tolist(), dst.tolist(), w.tolist(), strict=False):  # parallel edges: weights add up
        G.add_edge(a, b, weight=G[a][b]["weight"] + x if G.has_edge(a, b) else x)
    lv = nx.trophic_levels(G, weight="weight")
    return np.array([lv[i] for i in range(n)], dtype=np.float64)


def _levine_sparse(src, dst, w, n) -> np.ndarray:
    """Levine's levels by one sparse solve: with :math:`t = s - 1` and :math:`P_{ij} = a_{ji} / k^{in}_i` over the
    species that have prey, :math:`(I - P) t = 1` (basal species: :math:`t = 0`); non-singular when every species
    can be reached from a basal one, which :func:`_levine` checked. Solved iteratively (:func:`_bicgstab`), else,
    where that does not converge (a long chain), directly."""
    W = sp.csr_matrix((w, (src, dst)), shape=(n, n))  # parallel links: weights add up, as in _levine
    k_in = np.asarray(W.sum(axis=0)).ravel()
    fed = np.flatnonzero(k_in > 0)
    P = sp.diags(1.0 / k_in[fed]) @ W.T.tocsr()[fed][:, fed]
    A = (sp.identity(len(fed), format="csr") - P).tocsr()
    b = np.ones(len(fed))
    s = np.ones(n)
    t = _bicgstab(A, b)
    if t is None:  # the sparse LU, which fills in on a large web with many links (only where the above fails)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", MatrixRankWarning)
            t = spsolve(A.tocsc(), b)
    s[fed] += t
    return s


_TINY_WEIGHTS = ("MacKay trophic levels could not be computed accurately: parts of the web are held together only "
                 "by links weighing less than 1e-15 times the largest, which float64 cannot tell from no link; "
                 "drop or raise them, or pass weighted=False")


def _weak_bridges(W: sp.csr_matrix, w: np.ndarray, ncomp: int):
    """Whether some weakly connected component holds together only through light links: ``"singular"`` through
    links under 1e-15 times the largest weight (no level across them is meaningful in float64), ``True`` through
    links under 1e-8 times it (the solve then needs the least-squares form), else ``False``."""
    if not len(w):
        return False
    top = w.max()
    for cut, answer in ((1e-15, "singular"), (1e-8, True)):
        if (w < cut * top).any():
            strong = W.multiply(W >= cut * top)
            if connected_components(strong, directed=True, connection="weak")[0] > ncomp:
                return answer
    return False


#: Webs of more species than this (isolated species included, for either method) are solved iteratively, with the
#: direct solve only where the iterative one does not converge: the sparse LU fills in on a large web (a
#: 10,000-species random web of 100,000 links, ``python experiments/bench_trophic.py`` on 2 cores, 2026-11-28:
#: 85 s and 1 GB more memory for MacKay's levels, 12 s and 0.4 GB for Levine's, against 0.07 s each
#: iteratively, levels within 1e-11), and networkx's dense inverse for
#: Levine's grows as N^3 in time and N^2 in memory. Webs up to this size (every shipped web, and most published
#: ones) keep the direct solves, so that their levels stay bit for bit those of earlier runs.
_DIRECT_MAX = 2000


def _pcg(A: sp.csc_matrix, b: np.ndarray, rtol: float = 1e-13, maxiter: int = 1000) -> np.ndarray | None:
    """``A^{-1} b`` for a symmetric positive definite ``A`` by conjugate gradients with a Jacobi (diagonal)
    preconditioner (:func:`scipy.sparse.linalg.cg`), or ``None`` when the residual does not fall below
    ``rtol * |b|`` within ``maxiter`` steps (an ill-conditioned web, such as a long chain: the caller then solves
    directly)."""
    x, info = cg(A, b, rtol=rtol, atol=0.0, maxiter=maxiter, M=sp.diags(1.0 / A.diagonal()))
    ok = info == 0 and np.isfinite(x).all() and np.linalg.norm(b - A @ x) <= 10 * rtol * np.linalg.norm(b)
    return x if ok else None


def _bicgstab(A: sp.csr_matrix, b: np.ndarray, rtol: float = 1e-13, maxiter: int = 1000) -> np.ndarray | None:
    """``A^{-1} b`` for Levine's non-symmetric ``I - P`` by BiCGSTAB with a Jacobi (diagonal) preconditioner
    (:func:`scipy.sparse.linalg.bicgstab`), or ``None`` when the residual does not fall below ``rtol * |b|`` within
    ``maxiter`` steps (or the method breaks down: a long chain, whose ``P`` is nilpotent; the caller then solves
    directly), as :func:`_pcg`."""
    with np.errstate(all="ignore"):  # a breakdown is reported by info (or a non-finite x), and answered below
        x, info = bicgstab(A, b, rtol=rtol, atol=0.0, maxiter=maxiter, M=sp.diags(1.0 / A.diagonal()))
        ok = info == 0 and np.isfinite(x).all() and np.linalg.norm(b - A @ x) <= 10 * rtol * np.linalg.norm(b)
    return x if ok else None


def _solve_grounded(A: sp.csc_matrix, b: np.ndarray, n: int, iterative: bool = True) -> np.ndarray:
    """The grounded Laplacian system of :func:`_mackay` for a web of ``n`` species: directly (sparse LU) up to
    :data:`_DIRECT_MAX` species, else by preconditioned conjugate gradients, falling back to the direct solve where
    they do not converge (``iterative=False``, for parts joined only by light links, whose small residual says
    little of the error: always directly)."""
    if iterative and n > _DIRECT_MAX:
        x = _pcg(A, b)
        if x is not None:
            return x
    with warnings.catch_warnings():  # a singular system is reported by the caller, as one clear error
        warnings.simplefilter("ignore", MatrixRankWarning)
        return spsolve(A, b)


def _mackay(src, dst, w, n) -> np.ndarray:
    if len(w) and not 1e-100 < w.max() < 1e100:
        # h is invariant to the weights' scale; uniformly tiny (or huge) weights would underflow (overflow) below.
        # Ordinary weights are left as they are, so that levels stay bit for bit those of earlier runs.
        w = w / w.max()
    W = sp.csr_matrix((w, (src, dst)), shape=(n, n))  # duplicates are summed; w > 0 (zeros dropped by _as_graph)
    s_in = np.asarray(W.sum(axis=0)).ravel()
    s_out = np.asarray(W.sum(axis=1)).ravel()
    u, v = s_in + s_out, s_in - s_out
    L = (sp.diags(u) - W - W.T).tocsr()  # (N, N) Laplacian of the symmetrised graph
    ncomp, comp = connected_components(W, directed=True, connection="weak")
    # ground the first node of each component: the remaining system is non-singular (one solve for all)
    _, first = np.unique(comp, return_index=True)  # (ncomp,) lowest node index of each component
    free = np.ones(n, dtype=bool)
    free[first] = False
    h = np.zeros(n)
    weak = _weak_bridges(W, w, ncomp)
    if weak == "singular":
        raise ValueError(_TINY_WEIGHTS)
    if free.any():
        idx = np.flatnonzero(free)
        if weak and len(w) * len(idx) <= 5e7:
            # Parts of the web joined only by links far lighter than the largest: the Laplacian's sums (a node's
            # 1 + 1e-12) keep the light link to a few digits, and the solve lost up to 1e-4 in level (a chain
            # weighted 1, 1e-12, 1 came out 1, 2, 3, 3.9998). The least-squares form of the same definition,
            # min sum_e w_e (h_dst - h_src - 1)^2, one row per link (QR), keeps each link's weight: levels to
            # about 1e-8 down to weights 1e-15 times the largest.
            sw = np.sqrt(w)
            rows = np.arange(len(w))
            B = np.zeros((len(w), n))
            np.add.at(B, (rows, dst), sw)
            np.add.at(B, (rows, src), -sw)
            h[idx] = scipy.linalg.lstsq(B[:, idx], sw, lapack_driver="gelsy")[0]
        else:
            h[idx] = _solve_grounded(L[idx][:, idx].tocsc(), v[idx], n, iterative=not weak)
    if not np.isfinite(h).all():  # not expected with positive weights; a guard against ones that underflow
        raise ValueError(_TINY_WEIGHTS)
    # gauge: minimum level 1 in every weakly connected component
    mins = np.full(ncomp, np.inf)
    np.minimum.at(mins, comp, h)
    return h - mins[comp] + 1.0


def trophic_levels(
    data_or_edge_index,
    method: Method = "mackay",
    num_nodes: int | None = None,
    edge_weight: torch.Tensor | None = None,
    *,
    weighted: bool = True,
    self_loops: Literal["ignore", "include"] = "ignore",
) -> torch.Tensor:
    """Trophic level of every node (see the module docstring for the math and conventions).

    Args:
        data_or_edge_index: a :class:`Data` (its ``edge_weight`` is used when present and ``weighted``), a
            :class:`networkx.DiGraph` (levels in ``list(G.nodes)`` order, its ``weight`` edge attribute as the
            weights) or an ``edge_index`` long ``(2, E)`` with edges prey → predator (whole numbers; a path or a
            table is refused: read it first, e.g. with :func:`gatbio.ecology.commands.read_foodweb_file`; a Python
            list of two pairs is refused as ambiguous: give a tensor).
        method: ``"mackay"`` (any directed graph; per weakly connected component, minimum level 1) or
            ``"levine"`` (basal species at 1; needs every node reachable from a basal species).
        num_nodes: number of nodes (default: from ``data`` or the largest id + 1).
        edge_weight: optional ``(E,)`` non-negative weights (overrides ``data.edge_weight``).
        weighted: ``False`` ignores all weights (every link weighs 1). Otherwise a link of weight 0 is
            dropped, as if absent (see the module docstring: the web may split into components).
        self_loops: ``"ignore"`` (default) or ``"include"`` cannibalism.

    Returns:
        float ``(N,)`` tensor (float64).

    Raises:
        ValueError: for ``"levine"`` when there is no basal species or some node cannot be reached from one
        (the message names a few such nodes and suggests ``method="mackay"``); for ``"mackay"`` when parts of
        the web are held together only by links weighing less than 1e-15 times the largest (float64 cannot
        tell them from no link). Parts joined only by links under 1e-8 times the largest are solved in the
        least-squares form, one row per link (levels to about 1e-8); light links that are not the only bridge
        leave the levels as they are.
    """
    src, dst, w, n, names = _as_graph(data_or_edge_index, num_nodes, edge_weight, weighted, self_loops)
    if method == "levine":
        h = _levine(src, dst, w, n, names)
    elif method == "mackay":
        h = _mackay(src, dst, w, n)
    else:
        raise ValueError(f"method={method!r}: expected 'mackay' or 'levine'")
    return torch.from_numpy(h)


def trophic_incoherence(
    data_or_edge_index,
    method: Literal["mackay", "johnson"] = "mackay",
    num_nodes: int | None = None,
    edge_weight: torch.Tensor | None = None,
    *,
    weighted: bool = True,
    self_loops: Literal["ignore", "include"] = "ignore",
    levels: torch.Tensor | None = None,
) -> float:
    """Trophic incoherence: MacKay et al.'s :math:`F_0` (``"mackay"``, in ``[0, 1]``) or Johnson et al.'s
    :math:`q` (``"johnson"``, the std of Levine trophic differences over edges). 0 means perfectly coherent.

    ``levels``: the web's levels, when already computed, as :func:`trophic_levels` returned them for the same web
    and options (MacKay's for ``"mackay"``, Levine's for ``"johnson"``): used instead of solving for them again
    (the same result).
    """
    src, dst, w, n, names = _as_graph(data_or_edge_index, num_nodes, edge_weight, weighted, self_loops)
    if len(src) == 0:
        raise ValueError("the graph has no edges (other than self-loops and zero-weight links); trophic "
                         "incoherence is undefined")
    if levels is not None:
        levels = torch.as_tensor(levels).detach().cpu().numpy().astype(np.float64).reshape(-1)
        if levels.shape != (n,):
            raise ValueError(f"levels has {levels.size} entries for {n} nodes")
    if method == "mackay":
        h = _mackay(src, dst, w, n) if levels is None else levels
        return float(np.sum(w * (h[dst] - h[src] - 1.0) ** 2) / np.sum(w))
    if method == "johnson":
        s = _levine(src, dst, w, n, names) if levels is None else levels
        # unweighted std over the web's links, as networkx.trophic_incoherence_parameter: a link listed twice
        # (weights add up in the levels) is one link here too
        links = np.unique(np.stack([src, dst]), axis=1)
        return float(np.std(s[links[1]] - s[links[0]]))
    raise ValueError(f"method={method!r}: expected 'mackay' or 'johnson'")


class TrophicLevel(BaseTransform):
    """Adds trophic levels as a node attribute (does not mutate its input).

    Compute it on the **observed** graph of a split (:func:`gatbio.data.splits.observed_graph`) so that
    held-out links never influence it.

    Args:
        method: ``"mackay"`` or ``"levine"``.
        attr_name: attribute to write (default ``"trophic_level"``); ``None`` concatenates to ``x``.
        **kwargs: passed on to :func:`trophic_levels` (``weighted``, ``self_loops``).
    """

    def __init__(self, method: Method = "mackay", attr_name: str | None = "trophic_level", **kwargs):
        self.method, self.attr_name, self.kwargs = method, attr_name, kwargs

    def forward(self, data: Data) -> Data:
        data = data.clone()
        h = trophic_levels(data, self.method, **self.kwargs).to(torch.float)
        if self.attr_name is None:
            x = getattr(data, "x", None)
            data.x = h.view(-1, 1) if x is None else torch.cat([x, h.view(-1, 1).to(x.dtype)], dim=-1)
        else:
            data[self.attr_name] = h
        return data

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(method={self.method!r}, attr_name={self.attr_name!r})"
