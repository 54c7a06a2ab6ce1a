r"""Hub perturbations of graphs, and the ecological robustness of food webs.

Biological networks are hub-dominated: yeast proteins with more than 15 interactions are essential about
three times as often as proteins with 5 or fewer (Jeong et al. 2001), and food webs collapse faster when the
most connected species go first (Dunne, Williams & Martinez 2002). This module perturbs a
:class:`torch_geometric.data.Data` graph around its hubs, so that a trained model can be evaluated on the
perturbed copy:

- :func:`remove_nodes`: targeted removal of the top ``fraction`` of nodes ranked by degree, betweenness or
  PageRank, or random removal (the control);
- :func:`noise_hub_features`: Gaussian noise on the features of the top ``fraction`` of nodes;
- :func:`drop_hub_edges`: drop a share of the edges that touch the top ``fraction`` of nodes;
- :func:`extinction_curve`, :func:`r50`: secondary extinctions and the robustness R50 of a food web under
  the same kinds of removal order (Dunne et al. 2002).

Conventions:

- **Nothing is modified in place.** Every perturbation returns a :class:`Perturbation` holding a new
  ``Data`` and what changed: the affected node ids, the old → new id mapping and the removed edges.
- **Hubs are ranked on the undirected, unweighted graph.** Centralities (:func:`rank_nodes`) ignore edge
  direction, self-loops and edge weights (``edge_weight``, ``edge_attr``): a hub is a hub whichever way its links
  point (prey → predator in food webs) and however strong they are (a STRING confidence is not used; rank by a
  node attribute computed from it instead, ``by="name"``).
- **Ties are broken at random, seeded** (as in Dunne et al. 2002), so two nodes of equal degree are removed
  in an order that depends on ``seed`` only. A seed is an integer >= 0 (``None`` is refused: it would draw a
  new order on every call).
- **Counts round to the nearest integer**: removing ``fraction`` of ``N`` nodes removes
  ``floor(fraction * N + 1/2)`` nodes; the number is stored in :attr:`Perturbation.num_affected`.

References:
    H. Jeong, S. P. Mason, A.-L. Barabási and Z. N. Oltvai, "Lethality and centrality in protein networks",
    Nature 411:41–42 (2001).

    J. A. Dunne, R. J. Williams and N. D. Martinez, "Network structure and biodiversity loss in food webs:
    robustness increases with connectance", Ecology Letters 5:558–567 (2002).

    S. Allesina and M. Pascual, "Googling food webs: can an eigenvector measure species' importance for
    coextinctions?", PLoS Computational Biology 5(9):e1000494 (2009).
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass, field

import networkx as nx
import numpy as np
import torch
from torch import Tensor
from torch_geometric.data import Data
from torch_geometric.utils import degree, remove_self_loops

__all__ = [
    "RANKINGS",
    "Perturbation",
    "rank_nodes",
    "node_count",
    "fractions_perturbing_none",
    "remove_nodes",
    "noise_hub_features",
    "drop_hub_edges",
    "perturb",
    "PERTURBATIONS",
    "extinction_curve",
    "r50",
]

#: Built-in node rankings for :func:`rank_nodes` (``by=``); any 1-D node attribute of the graph also works.
RANKINGS: tuple[str, ...] = ("degree", "betweenness", "pagerank", "random")

#: Above this many nodes, betweenness is estimated from ``k`` sampled sources (networkx ``k=``).
BETWEENNESS_EXACT_MAX_NODES = 1000


@dataclass
class Perturbation:
    """A perturbed copy of a graph and what was changed.

    Attributes:
        data: the perturbed graph (a new object; the input is never modified).
        kind: ``"remove_nodes"``, ``"noise_features"`` or ``"drop_edges"``.
        by: the ranking that chose the nodes (``"degree"``, ``"betweenness"``, ``"pagerank"``, ``"random"``
            or a node attribute name).
        fraction: the requested fraction of nodes.
        affected: (K,) original ids of the nodes that were perturbed (removed, noised, or whose edges were
            dropped), in ranking order.
        node_map: (N,) new id of every original node, ``-1`` for removed nodes (identity when no node is
            removed).
        removed_edges: (2, R) the original edges (original ids) that are not in ``data`` any more.
    """

    data: Data
    kind: str
    by: str
    fraction: float
    affected: Tensor
    node_map: Tensor
    removed_edges: Tensor
    info: dict = field(default_factory=dict)

    @property
    def num_affected(self) -> int:
        return int(self.affected.numel())

    @property
    def kept(self) -> Tensor:
        """(N',) original ids of the nodes in :attr:`data`, in their new order."""
        return (self.node_map >= 0).nonzero().view(-1)

    def unaffected_mask(self) -> Tensor:
        """(N',) boolean mask over the nodes of :attr:`data` that were not perturbed themselves."""
        hit = torch.zeros(self.node_map.numel(), dtype=torch.bool)
        hit[self.affected] = True
        return ~hit[self.kept]


# --------------------------------------------------------------------------------------------------
# validation


def _check_fraction(fraction: float, name: str = "fraction",
                    what: str = "a fraction of nodes, e.g. 0.05 for 5%") -> float:
    # float(True) is 1.0 (every node removed) and float("0.2") parses: a flag or a text read from a file, not a number
    flag = isinstance(fraction, (bool, np.bool_)) or (isinstance(fraction, Tensor) and fraction.dtype == torch.bool)
    if flag or isinstance(fraction, (str, bytes)):
        raise ValueError(f"{name}={fraction!r} is a {'boolean' if flag else 'string'}, not a number: give {what} "
                         "(a float in [0, 1])")
    try:
        f = float(fraction)
    except (TypeError, ValueError):
        f = math.nan
    if not (0.0 <= f <= 1.0) or math.isnan(f):
        raise ValueError(f"{name}={fraction!r} is outside [0, 1]: give {what}")
    return f


def _check_seed(seed) -> int:
    """``seed`` as an int in [0, 2**63): ``None`` drew a fresh order from the OS (a run that could not be repeated)
    and a negative or float seed failed inside NumPy or torch with a message that did not name it; ``True`` was
    seed 1 (:func:`gatbio._options.check_integer`)."""
    from gatbio._options import check_integer

    return check_integer(seed, "seed", "give an integer >= 0 (the same seed gives the same tie-break, random order "
                                       "and noise, so that a perturbation can be repeated)", least=0, below=2**63)


def _check_order(order, n: int) -> Tensor:
    """``order`` (a tensor, list or NumPy array) as a long tensor holding each node id ``0..n-1`` once.

    A repeated id (``order=[0, 0, 1, ...]``) made the top ``K`` hold fewer than ``K`` nodes while ``affected`` still
    listed ``K``; a list or array failed with an AttributeError."""
    try:
        t = torch.as_tensor(np.asarray(order.cpu() if isinstance(order, Tensor) else order))
    except (TypeError, ValueError):
        t = None
    ok = t is not None and t.dim() == 1 and t.numel() == n and not (t.is_floating_point() or t.is_complex()
                                                                    or t.dtype == torch.bool)
    if ok:
        t = t.long()
        ok = torch.equal(t.sort().values, torch.arange(n))
    if not ok:
        shape = tuple(t.shape) if t is not None else type(order).__name__
        raise ValueError(f"order must be a ranking of all {n} nodes, each id 0..{n - 1} once (what rank_nodes "
                         f"returns), got {shape if t is None or t.dim() != 1 else f'{t.numel()} values'}")
    return t


def _check_graph(data: Data) -> None:
    if getattr(data, "edge_index", None) is None or data.edge_index.numel() == 0:
        raise ValueError(
            f"the graph has no edges ({data.num_nodes} nodes, edge_index empty): hub perturbations rank nodes "
            "by their links, so load a graph with at least one edge"
        )
    if data.num_nodes is None:
        raise ValueError("the graph has no node count: set data.num_nodes or give node features data.x")


def _node_attr_names(data: Data) -> list[str]:
    return sorted(k for k in data.keys() if data.is_node_attr(k) and k != "edge_index")


def _node_attr(data: Data, name: str, what: str) -> Tensor:
    value = data[name] if name in data else None
    if not isinstance(value, Tensor) or value.dim() == 0 or value.size(0) != data.num_nodes:
        have = ", ".join(_node_attr_names(data)) or "none"
        raise ValueError(f"the graph has no node attribute {name!r} to use as {what}; "
                         f"node attributes it has: {have}")
    return value


def node_count(fraction: float, n: int) -> int:
    """How many of ``n`` nodes a ``fraction`` perturbs: ``floor(fraction * n + 1/2)`` (halves round up, unlike
    Python's ``round``: 5 % of 3,890 nodes is 195)."""
    # fraction * n to 9 decimals first: 0.35 * 90 is 31.499999999999996 in binary, a half meant as one
    return int(math.floor(round(fraction * n, 9) + 0.5))


# --------------------------------------------------------------------------------------------------
# rankings


def fractions_perturbing_none(fractions, n: int) -> tuple[list[float], float]:
    """``(the fractions above 0 that perturb no node of an n-node graph (node_count 0), the smallest fraction that
    perturbs one: 1/(2n) rounded up to 4 decimals)``: on a small food web a fraction such as 5 % of 9 species
    is 0 species, a point equal to the clean score by construction, which a sweep should say rather than plot as
    robustness."""
    none = [float(f) for f in fractions if f > 0 and node_count(float(f), n) == 0]
    return none, math.ceil(0.5 / max(n, 1) * 1e4) / 1e4


def _undirected_nx(edge_index: Tensor, num_nodes: int) -> nx.Graph:
    g = nx.Graph()
    g.add_nodes_from(range(num_nodes))
    ei, _ = remove_self_loops(edge_index)
    g.add_edges_from(ei.t().tolist())
    return g


def _scores(data: Data, by: str, seed: int, k: int | None) -> Tensor:
    n = int(data.num_nodes)
    if by == "degree":
        ei, _ = remove_self_loops(data.edge_index)
        # Undirected degree: count each neighbour once, whichever direction (or both) its edge points.
        pairs = torch.unique(torch.sort(ei, dim=0).values, dim=1)  # (2, E_undirected)
        return degree(pairs.reshape(-1), n, dtype=torch.float64)
    if by == "betweenness":
        g = _undirected_nx(data.edge_index, n)
        if k is None and n > BETWEENNESS_EXACT_MAX_NODES:
            k = 256
        if k is not None:
            k = min(int(k), n)
        bc = nx.betweenness_centrality(g, k=k, seed=seed if k is not None else None)
        return torch.tensor([bc[i] for i in range(n)], dtype=torch.float64)
    if by == "pagerank":
        pr = nx.pagerank(_undirected_nx(data.edge_index, n))
        return torch.tensor([pr[i] for i in range(n)], dtype=torch.float64)
    if by == "random":
        return torch.zeros(n, dtype=torch.float64)  # all tied: the seeded tie-break is the order
    attr = _node_attr(data, by, f"a node ranking (by={by!r}; built-in rankings: {', '.join(RANKINGS)})")
    if attr.dim() != 1 and not (attr.dim() == 2 and attr.size(1) == 1):
        raise ValueError(f"by={by!r}: a ranking needs one score per node, but the node attribute has shape "
                         f"{tuple(attr.shape)}; give a 1-D attribute (e.g. data.score = data.{by}[:, 0])")
    scores = attr.detach().double().view(n)
    bad = torch.isnan(scores).nonzero().view(-1)
    if bad.numel():  # NaN sorted as the least central: those nodes were silently kept to the end
        raise ValueError(f"by={by!r}: the node attribute is NaN for {bad.numel()} of {n} nodes (e.g. node "
                         f"{int(bad[0])}); give every node a score (e.g. fill the missing ones with -inf to rank "
                         "them last)")
    return scores


def rank_nodes(data: Data, by: str = "degree", seed: int = 0, k: int | None = None) -> Tensor:
    r"""All node ids, most central first.

    Args:
        data: the graph (``edge_index``, ``num_nodes``); direction, self-loops and edge weights are ignored.
        by: ``"degree"`` (number of distinct neighbours, not the sum of ``edge_weight``), ``"betweenness"``
            (networkx, shortest paths counted in hops, not weighted by ``edge_weight``; estimated from ``k``
            sampled sources on graphs above :data:`BETWEENNESS_EXACT_MAX_NODES` nodes), ``"pagerank"`` (networkx,
            damping 0.85, every link of weight 1 whatever ``edge_weight`` says), ``"random"`` (a seeded
            permutation: the control), or the name of a 1-D node attribute of ``data`` (largest first; e.g. a
            weighted degree computed beforehand, for a ranking that uses the weights).
        seed: an integer >= 0; breaks ties at random (and seeds the betweenness sample).
        k: betweenness sample size (default: exact up to 1000 nodes, else 256).

    Returns:
        (N,) long tensor: the node ids in decreasing order of the score, ties in seeded random order.
    """
    _check_graph(data)
    seed = _check_seed(seed)
    scores = _scores(data, by, seed, k).cpu().numpy()  # (N,)
    tie = np.random.default_rng(seed).permutation(scores.shape[0])
    order = np.lexsort((tie, -scores))  # last key is primary: score descending, then the random tie-break
    return torch.from_numpy(order).long()


def _top(data: Data, fraction: float, by: str, seed: int, k: int | None, order: Tensor | None = None) -> Tensor:
    fraction = _check_fraction(fraction)
    _check_seed(seed)  # it also seeds the noise and the edge draws
    _check_graph(data)
    n = int(data.num_nodes)
    order = rank_nodes(data, by=by, seed=seed, k=k) if order is None else _check_order(order, n)
    return order[: node_count(fraction, n)]


# --------------------------------------------------------------------------------------------------
# perturbations


def _select(data: Data, keep_nodes: Tensor | None, keep_edges: Tensor) -> Data:
    """``data.subgraph(keep_nodes)`` (``keep_edges``: the edges it keeps, in order), or with ``keep_nodes=None``
    ``data.edge_subgraph(keep_edges)``, NumPy array attributes included: PyG refuses them ("Encountered invalid
    input type"), and ``node_names`` is often one (lists and tuples it handles)."""
    arrays = {k: v for k, v in data.items() if isinstance(v, np.ndarray) and v.ndim >= 1
              and (data.is_node_attr(k) or data.is_edge_attr(k))}
    base = copy.copy(data)  # shallow: the input keeps its attributes
    for k in arrays:
        del base[k]
    new = base.subgraph(keep_nodes) if keep_nodes is not None else base.edge_subgraph(keep_edges)
    for k, v in arrays.items():
        if data.is_node_attr(k):
            new[k] = v[keep_nodes.numpy()] if keep_nodes is not None else v.copy()
        else:
            new[k] = v[keep_edges.numpy()]
    return new


def remove_nodes(data: Data, fraction: float, by: str = "degree", seed: int = 0,
                 k: int | None = None, order: Tensor | None = None) -> Perturbation:
    """Remove the top ``fraction`` of nodes ranked ``by`` (``"random"``: a random set, the control).

    Every node-level attribute (``x``, ``y``, masks, ...) is restricted to the surviving nodes and edges
    touching a removed node are dropped (:meth:`torch_geometric.data.Data.subgraph`); survivors keep their
    relative order, so ``node_map`` is increasing on them. ``order`` (a :func:`rank_nodes` result) skips
    recomputing the ranking when several fractions are swept (every perturbation takes it).
    """
    removed = _top(data, fraction, by, seed, k, order)  # (K,)
    n = int(data.num_nodes)
    keep = torch.ones(n, dtype=torch.bool)
    keep[removed] = False
    node_map = torch.full((n,), -1, dtype=torch.long)
    node_map[keep] = torch.arange(int(keep.sum()))
    ei = data.edge_index
    gone = ~(keep[ei[0]] & keep[ei[1]])  # (E,)
    new = _select(data, keep, ~gone)  # a new Data; the input is untouched
    return Perturbation(new, "remove_nodes", by, float(fraction), removed, node_map, ei[:, gone].clone())


def noise_hub_features(data: Data, fraction: float, sigma: float = 1.0, by: str = "degree", seed: int = 0,
                       attr: str = "x", k: int | None = None, order: Tensor | None = None) -> Perturbation:
    r"""Add Gaussian noise to the features of the top ``fraction`` of nodes.

    .. math::
        \mathbf{x}_i' = \mathbf{x}_i + \sigma \, \mathbf{s} \odot \boldsymbol{\varepsilon}_i, \qquad
        \boldsymbol{\varepsilon}_i \sim \mathcal{N}(0, I)

    for each hub :math:`i`, where :math:`\mathbf{s}` is the per-feature standard deviation of ``attr`` over
    all nodes (so ``sigma`` is in units of the feature's own spread). The graph is unchanged. The hubs are
    chosen as in :func:`remove_nodes` (``by``, ``seed``, ``k`` betweenness samples, or a precomputed ``order``);
    ``seed`` also seeds the noise, and ``attr`` names the node attribute perturbed.
    """
    try:
        ok = math.isfinite(float(sigma)) and float(sigma) >= 0  # a Python, NumPy or 0-d torch number
    except (TypeError, ValueError):
        ok = False
    if not ok:
        raise ValueError(f"sigma={sigma!r} must be a finite number >= 0 (the noise scale, in feature standard "
                         "deviations)")
    sigma = float(sigma)
    x = _node_attr(data, attr, "the features to perturb (attr=...)")
    if not x.is_floating_point():
        raise ValueError(f"node attribute {attr!r} has dtype {x.dtype}: Gaussian noise needs float features")
    hubs = _top(data, fraction, by, seed, k, order)
    gen = torch.Generator().manual_seed(int(seed))
    scale = x.std(dim=0, keepdim=True) if x.size(0) > 1 else torch.ones_like(x[:1])  # (1, F)
    noise = torch.randn((hubs.numel(),) + tuple(x.shape[1:]), generator=gen, dtype=x.dtype)  # (K, F)
    x_new = x.clone()
    x_new[hubs] = x[hubs] + sigma * scale * noise
    new = data.clone()
    new[attr] = x_new
    n = int(data.num_nodes)
    return Perturbation(new, "noise_features", by, float(fraction), hubs, torch.arange(n),
                        data.edge_index.new_empty((2, 0)), {"sigma": float(sigma)})


def drop_hub_edges(data: Data, fraction: float, p: float = 0.5, by: str = "degree", seed: int = 0,
                   k: int | None = None, order: Tensor | None = None) -> Perturbation:
    """Drop each link incident to the top ``fraction`` of nodes with probability ``p``, independently (seeded):
    about a share ``p`` of them, not exactly (at ``p = 0.5`` on Benguela's 25 hub links at 5 %: 14, 12 and 11 for
    seeds 0-2).

    An undirected link stored in both directions is dropped in both. Self-loops are kept. Node ids do not
    change. ``affected`` holds the hubs (in ranking order), then every other node that lost a link (by id).
    """
    p = _check_fraction(p, "p", "the probability that a hub's link is dropped, e.g. 0.5")
    hubs = _top(data, fraction, by, seed, k, order)
    n = int(data.num_nodes)
    is_hub = torch.zeros(n, dtype=torch.bool)
    is_hub[hubs] = True
    ei = data.edge_index
    lo, hi = torch.minimum(ei[0], ei[1]), torch.maximum(ei[0], ei[1])  # (E,), (E,)
    pair = lo * n + hi  # one key per undirected link
    keys, inverse = torch.unique(pair, return_inverse=True)  # (P,), (E,)
    touches = (is_hub[keys // n] | is_hub[keys % n]) & (keys // n != keys % n)  # (P,)
    gen = torch.Generator().manual_seed(int(seed))
    drop_key = touches & (torch.rand(keys.numel(), generator=gen) < p)  # (P,)
    drop = drop_key[inverse]  # (E,)
    new = _select(data, None, ~drop)  # a new Data with every node and the kept edges (and their attributes)
    removed = ei[:, drop].clone()
    touched = torch.unique(removed.reshape(-1))
    extra = touched[~is_hub[touched]]
    affected = torch.cat([hubs, extra])
    return Perturbation(new, "drop_edges", by, float(fraction), affected, torch.arange(n), removed, {"p": p})


#: Perturbation names used in configs → (function, ranking).
PERTURBATIONS: dict[str, tuple] = {
    "degree": (remove_nodes, "degree"),
    "betweenness": (remove_nodes, "betweenness"),
    "pagerank": (remove_nodes, "pagerank"),
    "random": (remove_nodes, "random"),
    "feature_noise": (noise_hub_features, "degree"),
    "edge_drop": (drop_hub_edges, "degree"),
}


def perturb(data: Data, name: str, fraction: float, seed: int = 0, **kwargs) -> Perturbation:
    """Apply the perturbation called ``name`` (a key of :data:`PERTURBATIONS`) to ``data``.

    ``degree`` / ``betweenness`` / ``pagerank`` / ``random`` remove nodes; ``feature_noise`` and
    ``edge_drop`` act on the top-degree nodes. Extra keyword arguments go to the function (``sigma=``,
    ``p=``, ``k=``, ``order=``).
    """
    if name not in PERTURBATIONS:
        raise ValueError(f"unknown perturbation {name!r}; choose one of: {', '.join(PERTURBATIONS)}")
    fn, by = PERTURBATIONS[name]
    return fn(data, fraction, by=by, seed=seed, **kwargs)


# --------------------------------------------------------------------------------------------------
# ecology: secondary extinctions and R50


def extinction_curve(data: Data, order: Tensor | None = None, by: str = "degree", seed: int = 0,
                     protect_basal: bool = False) -> tuple[np.ndarray, np.ndarray]:
    r"""Species lost as species are removed from a food web, with secondary extinctions.

    Edges point **prey → predator** (resource → consumer). Species are removed one at a time in ``order``
    (default: :func:`rank_nodes` ``by`` / ``seed``), skipping species that are already extinct. After each
    primary removal, every consumer that has lost all of its resources goes extinct, repeated until no
    more species go (Dunne et al. 2002). Basal species (no resource other than themselves) never go
    secondarily extinct, and cannibalism does not keep a species alive: self-loops are ignored.
    With ``protect_basal=True`` basal species are never removed either (skipped in ``order``), the variant
    Dunne et al. (2002) also report, since removing the few producers trivially starves a web.

    Returns:
        ``(removed, lost)``: two arrays of length :math:`S + 1` (``S`` species), the fraction of species
        removed by primary removal and the fraction lost in total (primary + secondary) after each step,
        starting at ``(0, 0)``; the curve stops early once every species is gone (then the arrays are
        shorter).
    """
    _check_graph(data)
    s = int(data.num_nodes)
    if order is None:
        order = rank_nodes(data, by=by, seed=seed)
    order = torch.as_tensor(order)
    if order.dim() != 1 or order.dtype.is_floating_point or order.dtype == torch.bool or \
            order.numel() != s or (s and not torch.equal(order.sort().values, torch.arange(s))):
        raise ValueError(f"order must hold each of the {s} species indices 0..{s - 1} once (a ranking such as "
                         f"rank_nodes gives); got {order.numel()} values")
    ei, _ = remove_self_loops(data.edge_index)
    src, dst = ei[0].tolist(), ei[1].tolist()
    resources: list[set[int]] = [set() for _ in range(s)]
    consumers: list[set[int]] = [set() for _ in range(s)]
    for u, v in zip(src, dst, strict=True):
        resources[v].add(u)
        consumers[u].add(v)
    left = [len(r) for r in resources]  # resources still alive, per species
    basal = [len(r) == 0 for r in resources]
    alive = [True] * s
    n_alive, n_primary = s, 0
    removed, lost = [0.0], [0.0]
    # Hand-written cascade (not networkx): each extinction only updates the consumers of the lost species.
    for sp in order.tolist():
        if not alive[sp] or (protect_basal and basal[sp]):
            continue
        n_primary += 1
        stack = [sp]
        alive[sp] = False
        n_alive -= 1
        while stack:
            gone = stack.pop()
            for c in consumers[gone]:
                left[c] -= 1
                if alive[c] and left[c] == 0 and not basal[c]:
                    alive[c] = False
                    n_alive -= 1
                    stack.append(c)
        removed.append(n_primary / s)
        lost.append((s - n_alive) / s)
        if n_alive == 0:
            break
    return np.asarray(removed), np.asarray(lost)


def r50(data: Data, order: Tensor | None = None, by: str = "degree", seed: int = 0,
        protect_basal: bool = False) -> float:
    r"""Robustness R50: the fraction of species removed before at least half are lost.

    :math:`R_{50}` is the fraction of species that must be removed (primary removals) for the total loss,
    primary plus secondary (:func:`extinction_curve`), to reach at least 50 % of the species
    (Dunne, Williams & Martinez 2002). It lies in :math:`(0, \lceil S/2 \rceil / S]`; the maximum means no
    secondary extinction happened before half the web was gone. With ``protect_basal=True`` (basal species
    never removed) the loss may never reach half (a web that is mostly producers): then R50 is NaN.
    ``order``, ``by`` and ``seed`` set the removal order as in :func:`extinction_curve`.
    """
    removed, lost = extinction_curve(data, order=order, by=by, seed=seed, protect_basal=protect_basal)
    hit = np.nonzero(lost >= 0.5 - 1e-12)[0]
    return float(removed[hit[0]]) if hit.size else float("nan")
