"""Seeded, leakage-free node and link splits, saved with the results as JSON-able dicts.

Node splits (:func:`node_split`) are for node classification (multi-label protein function): seeded random
fractions over the labelled nodes.

Link splits follow one rule: **every input the model sees is computed from the observed (training) edges
only** — degrees, trophic levels, message-passing edges. A split therefore returns ``train_edge_index`` (the
observed network) separately from the held-out positives and negatives, and :func:`observed_graph` builds the
``Data`` that feature transforms and encoders may use.

- :func:`gateway_folds`: the GATEWAy benchmark protocol of Van Kleunen et al. (2026), exactly as described in
  ``gateway_dev/SOURCE.md``: the links **in file order** are cut into ``n_folds`` consecutive blocks
  (``sklearn.model_selection.KFold`` without shuffling); each block in turn is the test positives, the rest
  is the observed network; the test negatives are *every* ordered pair ``(i, j)``, ``i != j``, that is not a
  link of the full web (the reverse of existing links included).
- :func:`link_split`: a generic seeded directed link split (train / val / test fractions) with uniform or
  degree-matched negatives. Degree-matched negatives draw the source of a negative pair with probability
  proportional to out-degree and the target proportional to in-degree (in the observed network), so that
  positives and negatives have the same degree distribution and a degree-only predictor scores no better than
  chance (Aiyappa, Wang, Flammini & Ahn, *Implicit degree bias in the link prediction task*, ICML 2025).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import torch
from sklearn.model_selection import KFold
from torch_geometric.data import Data
from torch_geometric.utils import is_undirected

__all__ = ["LinkFold", "gateway_folds", "link_split", "node_split", "split_masks", "observed_graph", "all_non_links",
           "split_to_dict", "split_from_dict"]


@dataclass
class LinkFold:
    """One link-prediction split.

    Attributes:
        train_edge_index: long ``(2, E_obs)``, the observed network (the only edges any feature may use).
        test_pos: long ``(2, P)``, held-out links.
        test_neg: long ``(2, Q)``, held-out non-links.
        val_pos, val_neg: optional validation pairs (generic split).
        fold: fold number (GATEWAy) or ``None``.
        num_nodes: nodes of the web.
        meta: protocol, seed, fractions (saved with the results).
    """

    train_edge_index: torch.Tensor
    test_pos: torch.Tensor
    test_neg: torch.Tensor
    num_nodes: int
    fold: int | None = None
    val_pos: torch.Tensor | None = None
    val_neg: torch.Tensor | None = None
    meta: dict[str, Any] | None = None

    def __getitem__(self, key: str):  # fold["test_pos"] works too
        return getattr(self, key)

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form (edge lists as ``[[src...], [dst...]]``)."""
        out: dict[str, Any] = {"num_nodes": self.num_nodes, "fold": self.fold, "meta": self.meta or {}}
        for k in ("train_edge_index", "test_pos", "test_neg", "val_pos", "val_neg"):
            v = getattr(self, k)
            out[k] = None if v is None else v.tolist()
        return out

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> LinkFold:
        t = lambda v: None if v is None else torch.tensor(v, dtype=torch.long).view(2, -1)  # noqa: E731
        return cls(t(d["train_edge_index"]), t(d["test_pos"]), t(d["test_neg"]), int(d["num_nodes"]), d.get("fold"),
                   t(d.get("val_pos")), t(d.get("val_neg")), d.get("meta"))


def _pair_keys(edge_index: torch.Tensor, n: int) -> np.ndarray:
    ei = edge_index.cpu().numpy()
    return ei[0].astype(np.int64) * n + ei[1]


def _check_data(data, func: str) -> None:
    """``data`` must be a :class:`Data` (an ``edge_index`` tensor alone has no node count)."""
    if not isinstance(data, Data):
        kind = "an edge_index tensor" if torch.is_tensor(data) else type(data).__name__
        raise TypeError(f"{func}: data is {kind}; give a torch_geometric Data, e.g. Data(edge_index=edge_index, "
                        "num_nodes=N)")


def _check_count(name: str, value, least: int) -> int:
    """A whole number (Python or NumPy int, not a bool or a float) of at least ``least``, as a Python int."""
    import numbers

    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < least:
        raise ValueError(f"{name}={value!r}: give an integer >= {least}")
    return int(value)


def _check_nodes(edge_index: torch.Tensor, num_nodes, func: str) -> None:
    """Every node index of ``edge_index`` in ``0..num_nodes-1`` (pair keys ``a * n + b`` would collide otherwise)."""
    if edge_index.numel():
        lo, hi = int(edge_index.min()), int(edge_index.max())
        if lo < 0 or hi >= int(num_nodes):
            raise ValueError(f"{func}: edge_index holds node {lo if lo < 0 else hi} but num_nodes={num_nodes} (indices "
                             f"must be 0..{int(num_nodes) - 1}): set num_nodes to the graph's node count")


def all_non_links(edge_index: torch.Tensor, num_nodes: int) -> torch.Tensor:
    """Every ordered pair ``(i, j)``, ``i != j``, that is not an edge (row-major order), long ``(2, ·)``."""
    n = int(num_nodes)
    adj = np.zeros((n, n), dtype=bool)
    ei = edge_index.cpu().numpy()
    adj[ei[0], ei[1]] = True
    np.fill_diagonal(adj, True)
    i, j = np.nonzero(~adj)
    return torch.from_numpy(np.stack([i, j])).long()


def gateway_folds(data: Data, n_folds: int = 5) -> list[LinkFold]:
    """The GATEWAy benchmark folds (see the module docstring): consecutive blocks of the links in file order.

    ``data.edge_index`` must hold the links in the file's line order (as :func:`gatbio.data.load` gives for
    ``gateway/<id>``). Returns ``n_folds`` :class:`LinkFold` objects; in fold ``k`` the test positives are
    block ``k`` and ``train_edge_index`` the other blocks (original order kept); the test negatives are the
    same for every fold: all non-links of the full web.
    """
    _check_data(data, "gateway_folds")
    n_folds = _check_count("n_folds", n_folds, 2)
    ei = data.edge_index
    _check_nodes(ei, data.num_nodes, "gateway_folds")
    E = ei.size(1)
    keys = _pair_keys(ei, int(data.num_nodes))
    _, first, count = np.unique(keys, return_index=True, return_counts=True)
    if (count > 1).any():  # one copy could be tested while the other trains: a leak
        a, b = ei[:, int(first[count > 1][0])].tolist()
        raise ValueError(f"gateway_folds: {int((count - 1).sum())} link(s) listed more than once, e.g. ({a}, {b}): "
                         "a test link's copy would train; remove the repeats (the GATEWAy loader refuses them)")
    if E < n_folds:
        raise ValueError(f"{getattr(data, 'name', 'graph')}: {E} links cannot be cut into n_folds={n_folds} blocks")
    neg = all_non_links(ei, data.num_nodes)
    folds = []
    for k, (train_idx, test_idx) in enumerate(KFold(n_splits=n_folds, shuffle=False).split(np.arange(E))):
        folds.append(LinkFold(
            train_edge_index=ei[:, torch.from_numpy(train_idx)].clone(),
            test_pos=ei[:, torch.from_numpy(test_idx)].clone(),
            test_neg=neg,
            num_nodes=int(data.num_nodes), fold=k,
            meta={"protocol": "gateway-kfold", "n_folds": n_folds, "web": getattr(data, "name", None)},
        ))
    return folds


def observed_graph(data: Data, split: LinkFold) -> Data:
    """A copy of ``data`` whose ``edge_index`` (and ``edge_weight``) is the observed network of ``split``.

    Features (degrees, trophic levels) and message passing must be computed from this graph only.
    Node attributes (``x``, ``node_names``, ...) are kept; edge attributes other than ``edge_weight`` dropped, and so
    is a pair table (``pairs``, ``pair_*``: it lists the held-out links too).
    """
    if int(split.num_nodes) != int(data.num_nodes):
        raise ValueError(f"observed_graph: the split has {split.num_nodes} nodes, data {data.num_nodes}: the split "
                         "belongs to another graph")
    out = Data(edge_index=split.train_edge_index.clone(), num_nodes=data.num_nodes)
    for k, v in data.items():
        if k in ("edge_index", "num_nodes") or (torch.is_tensor(v) and v.dim() > 0 and v.size(0) == data.num_edges
                                                and k.startswith("edge_")):
            continue
        if k == "pairs" or k.startswith("pair_"):  # SHS27k's table of every interacting pair: held-out ones too
            continue
        out[k] = v
    w = getattr(data, "edge_weight", None)
    if w is not None:
        n = data.num_nodes
        full = dict(zip(_pair_keys(data.edge_index, n).tolist(), w.tolist(), strict=False))
        keys = _pair_keys(split.train_edge_index, n).tolist()
        # an undirected split trains on both directions of an interaction the graph may store in one direction
        mirror = _pair_keys(split.train_edge_index.flip(0), n).tolist() if (split.meta or {}).get("undirected") \
            else keys
        out.edge_weight = torch.tensor([full[k] if k in full else full[m] for k, m in zip(keys, mirror, strict=True)],
                                       dtype=w.dtype)
    return out


def _sample_negatives(n: int, forbidden: set[int], count: int, rng: np.random.Generator,
                      mode: str, src_pool: np.ndarray | None = None, dst_pool: np.ndarray | None = None,
                      undirected: bool = False) -> np.ndarray:
    out: list[tuple[int, int]] = []
    seen = set(forbidden)
    max_pairs = n * (n - 1) - len({k for k in forbidden if k // n != k % n})
    if undirected:
        max_pairs //= 2
    if count > max_pairs:
        raise ValueError(f"asked for {count} negative pairs but only {max_pairs} non-links exist")
    tries = 0
    while len(out) < count:
        m = max(2 * (count - len(out)), 16)
        if mode == "degree":
            s = src_pool[rng.integers(0, len(src_pool), m)]
            d = dst_pool[rng.integers(0, len(dst_pool), m)]
        else:
            s, d = rng.integers(0, n, m), rng.integers(0, n, m)
        for a, b in zip(s.tolist(), d.tolist(), strict=False):
            if undirected and a > b:
                a, b = b, a  # one direction per pair; forbidden holds both directions of every link
            k = a * n + b
            if a != b and k not in seen:
                seen.add(k)
                out.append((a, b))
                if len(out) == count:
                    break
        tries += 1
        if tries > 1000:
            raise ValueError(f"could not draw {count} {mode} negatives (graph too dense for that mode)")
    return np.array(out, dtype=np.int64).reshape(-1, 2).T


def link_split(
    data: Data,
    *,
    val: float = 0.1,
    test: float = 0.2,
    seed: int = 0,
    neg_ratio: float = 1.0,
    negatives: Literal["uniform", "degree"] = "uniform",
    undirected: bool | None = None,
) -> LinkFold:
    """A seeded random link split with sampled negatives (directed by default; undirected graphs detected).

    Args:
        val, test: fractions of the links held out for validation and test.
        seed: the split's seed (stored in ``meta``).
        neg_ratio: negatives per positive, for validation and test.
        negatives: ``"uniform"`` (random ordered non-links) or ``"degree"`` (degree-matched: sources drawn
            proportional to out-degree, targets to in-degree of the observed network; Aiyappa et al. 2025).

        undirected: split interactions rather than directed edges (default: auto, ``is_undirected``). Each
            held-out interaction (stored in one direction or both) leaves the training graph in **both** directions
            (otherwise its mirror image would leak it); ``test_pos`` / ``val_pos`` / negatives then hold one direction per pair (``u < v``);
            self-loops stay in training.

    Negatives are never links of the full graph (in either direction, for undirected graphs) and never
    self-pairs; validation and test negatives are disjoint. A link listed more than once is split once (a note
    says how many repeats): a test link never trains.
    """
    _check_data(data, "link_split")
    seed = _check_count("seed", seed, 0)  # a plain int in meta (a NumPy int is not JSON-able)
    if not 0 <= val < 1 or not 0 < test < 1 or val + test >= 1:
        raise ValueError(f"val={val}, test={test}: need 0 <= val, 0 < test and val + test < 1")
    if negatives not in ("uniform", "degree"):
        raise ValueError(f"negatives={negatives!r}: expected 'uniform' or 'degree'")
    if not np.isfinite(neg_ratio) or neg_ratio < 0:
        raise ValueError(f"neg_ratio={neg_ratio}: give a number >= 0 (negatives per positive)")
    _check_nodes(data.edge_index, data.num_nodes, "link_split")
    if undirected is None:
        undirected = data.edge_index.numel() > 0 and is_undirected(data.edge_index, num_nodes=data.num_nodes)
    n = int(data.num_nodes)
    ei = data.edge_index
    # what is split: directed edges, or one direction (u < v) per interaction of an undirected graph: the stored
    # u < v entries, then those stored only as v > u (a graph listing each interaction once, in either direction)
    if undirected:
        lower, upper = ei[:, ei[0] < ei[1]], ei[:, ei[0] > ei[1]].flip(0)
        items = torch.cat([lower, upper], dim=1)
        kl, ku = _pair_keys(lower, n), _pair_keys(upper, n)
        uk = np.unique(np.concatenate([kl, ku]))
        cl, cu = np.bincount(np.searchsorted(uk, kl), minlength=len(uk)), np.bincount(np.searchsorted(uk, ku),
                                                                                      minlength=len(uk))
        repeats = int(np.maximum(cl, cu).sum()) - len(uk)  # an interaction stored once in each direction is no repeat
    else:
        items = ei
    # a link listed twice (a file listing each interaction in both directions, a table's repeated rows) is split
    # once: else one copy could be tested while the other trains, a leak (first occurrences, in file order)
    _, first = np.unique(_pair_keys(items, n), return_index=True)
    if not undirected:
        repeats = items.size(1) - len(first)
    if repeats:
        from gatbio.data.tables import note

        note(f"link_split: {repeats} repeated {'interaction' if undirected else 'link'}(s) of "
             f"{getattr(data, 'name', None) or 'the graph'} split once each (a test link must not also train)")
    if len(first) < items.size(1):
        items = items[:, torch.from_numpy(np.sort(first))]
    P = items.size(1)
    rng = np.random.default_rng(seed)
    perm = rng.permutation(P)
    n_test, n_val = int(round(test * P)), int(round(val * P))
    if n_test == 0 or (val > 0 and n_val == 0) or P - n_test - n_val <= 0:
        raise ValueError(f"{P} links are too few for val={val}, test={test} ({n_test} test, {n_val} validation, "
                         f"{P - n_test - n_val} training)")
    test_idx, val_idx, train_idx = perm[:n_test], perm[n_test:n_test + n_val], np.sort(perm[n_test + n_val:])
    train = items[:, torch.from_numpy(train_idx)]
    if undirected:  # both directions of each training interaction, and the self-loops (once each)
        loops = ei[:, ei[0] == ei[1]]
        loops = loops[:, torch.from_numpy(np.sort(np.unique(_pair_keys(loops, n), return_index=True)[1]))]
        train = torch.cat([train, train.flip(0), loops], dim=1)
    forbidden = set(_pair_keys(ei, n).tolist())
    if undirected:  # both directions of every interaction, however the graph stores it
        forbidden |= set(_pair_keys(ei.flip(0), n).tolist())
    tr = train.numpy()
    pools = (tr[0], tr[1]) if negatives == "degree" else (None, None)
    n_neg_test, n_neg_val = int(round(neg_ratio * n_test)), int(round(neg_ratio * n_val))
    neg = _sample_negatives(n, forbidden, n_neg_test + n_neg_val, rng, negatives, *pools, undirected=undirected)
    return LinkFold(
        train_edge_index=train.clone(),
        test_pos=items[:, torch.from_numpy(test_idx)].clone(),
        test_neg=torch.from_numpy(neg[:, :n_neg_test]).long(),
        val_pos=items[:, torch.from_numpy(val_idx)].clone(),
        val_neg=torch.from_numpy(neg[:, n_neg_test:]).long(),
        num_nodes=n,
        meta={"protocol": "random-link-split", "seed": seed, "val": val, "test": test, "neg_ratio": neg_ratio,
              "negatives": negatives, "undirected": bool(undirected), "graph": getattr(data, "name", None)},
    )


def node_split(
    num_nodes: int,
    *,
    train: float = 0.6,
    val: float = 0.2,
    test: float | None = None,
    seed: int = 0,
    labeled: torch.Tensor | np.ndarray | None = None,
) -> dict[str, Any]:
    """A seeded random node split, as a JSON-able dict (save it next to the results).

    Args:
        num_nodes: nodes of the graph.
        train, val, test: fractions of the labelled nodes (``test`` defaults to the rest).
        seed: the split's seed.
        labeled: optional bool mask ``(N,)``; only these nodes are split (e.g. ``data.y >= 0`` for yeast).

    Returns:
        ``{"train": [...], "val": [...], "test": [...], "seed": s, "fractions": [...], "num_nodes": N}`` with
        sorted node indices. Use :func:`split_masks` for boolean masks.
    """
    if torch.is_tensor(num_nodes) and num_nodes.numel() == 1 and not num_nodes.is_floating_point():
        num_nodes = int(num_nodes)  # a 0-d tensor, as some Data objects hold it
    num_nodes, seed = _check_count("num_nodes", num_nodes, 1), _check_count("seed", seed, 0)  # JSON-able, seeded
    test = 1.0 - train - val if test is None else test
    if min(train, val, test) < 0 or train + val + test > 1 + 1e-9:
        raise ValueError(f"train={train}, val={val}, test={test}: fractions must be >= 0 and sum to at most 1")
    idx = np.arange(num_nodes)
    if labeled is not None:
        mask = np.asarray(labeled.cpu() if torch.is_tensor(labeled) else labeled, dtype=bool)
        if mask.shape != (num_nodes,):
            raise ValueError(f"labeled has shape {mask.shape}, expected ({num_nodes},)")
        idx = idx[mask]
    rng = np.random.default_rng(seed)
    perm = rng.permutation(idx)
    m = len(perm)
    n_tr, n_va = int(round(train * m)), int(round(val * m))
    # When the fractions cover every labelled node, the test set takes the remainder, so rounding never
    # silently drops a node (41 nodes at 0.5/0/0.5 give 20 + 21, not 20 + 20).
    if abs(train + val + test - 1.0) < 1e-9:
        n_te = m - n_tr - n_va
    else:
        n_te = min(int(round(test * m)), m - n_tr - n_va)
    empty = [k for k, f, c in (("train", train, n_tr), ("val", val, n_va), ("test", test, n_te)) if f > 1e-9 and c <= 0]
    if empty:  # a part asked for but left without a node: an error, not a silently empty set
        raise ValueError(f"{m} {'labelled ' if labeled is not None else ''}node(s) are too few for train={train}, "
                         f"val={val}, test={test}: the {' and '.join(empty)} part would be empty")
    return {
        "train": sorted(perm[:n_tr].tolist()),
        "val": sorted(perm[n_tr:n_tr + n_va].tolist()),
        "test": sorted(perm[n_tr + n_va:n_tr + n_va + n_te].tolist()),
        "seed": seed, "fractions": [train, val, test], "num_nodes": num_nodes,
    }


def split_masks(split: dict[str, Any]) -> dict[str, torch.Tensor]:
    """Boolean masks ``{"train": (N,), "val": (N,), "test": (N,)}`` from a :func:`node_split` dict."""
    n = split["num_nodes"]
    out = {}
    for k in ("train", "val", "test"):
        m = torch.zeros(n, dtype=torch.bool)
        m[torch.tensor(split[k], dtype=torch.long)] = True
        out[k] = m
    return out


def split_to_dict(split: LinkFold | dict) -> dict:
    """JSON-able form of a node or link split."""
    return split.to_dict() if isinstance(split, LinkFold) else dict(split)


def split_from_dict(d: dict) -> LinkFold | dict:
    return LinkFold.from_dict(d) if "train_edge_index" in d else d
