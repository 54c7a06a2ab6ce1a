r"""Synthetic protein networks at STRING scale, made by the repository itself (never shipped as data).

:func:`string_like` draws a protein-interaction graph with a heavy-tailed degree distribution like STRING's
human network (about 19,000 proteins, 6 million directed edges = 3 million interactions, a few hubs with
thousands of partners) and a multi-label function table on a fraction of the proteins whose functions
follow the interactions (so that ``gatbio protein predict`` has something to learn). :func:`write_string_like`
writes it in the formats ``gatbio protein predict`` reads (``--format edgelist``: ``a b`` per line, each
interaction once; ``--labels``: ``protein f1 f2 ...``, the node2vec format).

The model (all seeded, vectorised NumPy):

1. **Expected degrees** :math:`w_i \propto (i + i_0)^{-1/(\gamma - 1)}` (the Chung–Lu power-law sequence,
   exponent :math:`\gamma`; :math:`i_0` caps the largest at ``max_degree_fraction`` · N).
2. **Communities**: each protein belongs to one of ``num_labels`` communities (sizes drawn from a Dirichlet).
3. **Interactions** (Chung & Lu 2002, with communities): each endpoint is drawn with probability
   :math:`\propto w_i`; a fraction ``within`` of the interactions draws its second endpoint from the first's
   community. Self-loops and repeated pairs are dropped and more pairs are drawn until exactly
   ``num_edges / 2`` distinct interactions exist.
4. **Functions**: a random ``labelled_fraction`` of the proteins is annotated with its community's function,
   plus each other function with a small probability (``extra_labels`` per protein on average).

References
----------
.. [1] F. Chung, L. Lu. *Connected components in random graphs with given expected degree sequences.*
   Annals of Combinatorics 6, 2002.
.. [2] D. Szklarczyk et al. *The STRING database in 2023.* Nucleic Acids Research 51, 2023 (human network:
   19,622 proteins; 13.7 million lines in ``9606.protein.links.v12.0.txt``, each interaction listed in both
   directions).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

__all__ = ["SyntheticPPI", "string_like", "write_string_like"]


@dataclass
class SyntheticPPI:
    """A generated network: ``edges`` (M, 2) with ``edges[:, 0] < edges[:, 1]`` (each interaction once),
    ``labels`` (N, L) bool (all-False rows: unannotated), ``community`` (N,) and ``names`` (N,)."""

    edges: np.ndarray
    labels: np.ndarray
    community: np.ndarray
    names: list[str]

    @property
    def num_nodes(self) -> int:
        return len(self.names)

    def degree(self) -> np.ndarray:
        """(N,) number of interaction partners."""
        return np.bincount(self.edges.ravel(), minlength=self.num_nodes)


def _pairs(rng: np.random.Generator, p: np.ndarray, community: np.ndarray, members: list[np.ndarray],
           member_p: list[np.ndarray], count: int, within: float) -> np.ndarray:
    """``count`` candidate pairs (u, v): u ∝ w, v ∝ w (in u's community with probability ``within``)."""
    n = len(p)
    u = rng.choice(n, size=count, p=p)
    v = rng.choice(n, size=count, p=p)
    inside = rng.random(count) < within
    for c in np.unique(community[u[inside]]):
        sel = np.flatnonzero(inside & (community[u] == c))
        v[sel] = members[c][rng.choice(len(members[c]), size=len(sel), p=member_p[c])]
    return np.stack([u, v], axis=1)


def string_like(num_proteins: int = 19_000, num_edges: int = 6_000_000, num_labels: int = 50,
                labelled_fraction: float = 0.4, gamma: float = 2.3, max_degree_fraction: float = 0.4,
                within: float = 0.5, extra_labels: float = 0.5, seed: int = 0) -> SyntheticPPI:
    """A STRING-like protein network (see the module docstring for the model).

    Args:
        num_proteins: N (default: 19,000, STRING human).
        num_edges: directed edges, i.e. twice the interactions, as ``edge_index`` counts them (default: 6M).
        num_labels: functions = communities (default: 50).
        labelled_fraction: share of proteins with known functions (default: 0.4).
        gamma: power-law exponent of the expected degrees (default: 2.3).
        max_degree_fraction: the largest expected degree as a share of N (default: 0.4).
        within: share of interactions inside a community (default: 0.5).
        extra_labels: mean number of further functions of an annotated protein (default: 0.5).
        seed: everything is a function of it.
    """
    n, m = num_proteins, num_edges // 2
    if n < 2 or num_edges < 2 or num_edges % 2:
        raise ValueError(f"string_like: need >= 2 proteins and an even number >= 2 of directed edges, got "
                         f"num_proteins={num_proteins}, num_edges={num_edges}")
    if m > 0.5 * n * (n - 1):
        raise ValueError(f"string_like: {num_edges:,} directed edges need more than {n:,} proteins "
                         f"(at most half of the {n * (n - 1):,} ordered pairs)")
    if not (0 < labelled_fraction <= 1 and 1 <= num_labels and 0 <= within <= 1 and gamma > 2):
        raise ValueError("string_like: need 0 < labelled_fraction <= 1, num_labels >= 1, 0 <= within <= 1, gamma > 2")
    rng = np.random.default_rng(seed)
    # 1. expected degrees, largest first, then shuffled over the proteins
    alpha, rank = 1.0 / (gamma - 1), np.arange(1, n + 1, dtype=float)
    lo, hi = 0.0, float(n)  # offset i0: the largest expected degree 2m·w_0/Σw is max_degree_fraction·N
    for _ in range(50):
        mid = 0.5 * (lo + hi)
        seq = (rank + mid) ** -alpha
        lo, hi = (mid, hi) if 2 * m * seq[0] / seq.sum() > max_degree_fraction * n else (lo, mid)
    w = rng.permutation((rank + hi) ** -alpha)  # (N,)
    p = w / w.sum()
    # 2. communities
    community = rng.choice(num_labels, size=n, p=rng.dirichlet(np.full(num_labels, 2.0)))  # (N,)
    members = [np.flatnonzero(community == c) for c in range(num_labels)]
    member_p = [w[idx] / w[idx].sum() if len(idx) else idx.astype(float) for idx in members]
    # 3. distinct interactions, drawn in rounds until there are m of them
    keys = np.empty(0, dtype=np.int64)
    while len(keys) < m:
        need = m - len(keys)
        uv = _pairs(rng, p, community, members, member_p, int(need * 1.2) + 16, within)
        uv = uv[uv[:, 0] != uv[:, 1]]
        a, b = uv.min(axis=1).astype(np.int64), uv.max(axis=1).astype(np.int64)
        new = np.unique(a * n + b)
        new = new[~np.isin(new, keys, assume_unique=True)]
        keys = np.concatenate([keys, rng.permutation(new)[:need]])
    keys.sort()
    edges = np.stack([keys // n, keys % n], axis=1)  # (M, 2), u < v
    # 4. functions on a labelled_fraction of the proteins
    labels = np.zeros((n, num_labels), dtype=bool)
    annotated = rng.permutation(n)[: max(1, round(labelled_fraction * n))]
    labels[annotated, community[annotated]] = True
    extra = rng.random((len(annotated), num_labels)) < extra_labels / max(1, num_labels - 1)
    labels[annotated] |= extra
    width = len(str(n - 1))
    names = [f"P{i:0{width}d}" for i in range(n)]
    return SyntheticPPI(edges=edges, labels=labels, community=community, names=names)


def write_string_like(ppi: SyntheticPPI, edges_path: str | Path, labels_path: str | Path) -> None:
    """Write ``edges_path`` (``a b`` per line, each interaction once: ``--format edgelist``) and ``labels_path``
    (``protein f1 f2 ...`` for each annotated protein, functions named ``F00``..), both atomically."""
    from gatbio.results import atomic_write_bytes

    names = np.array([s.encode() for s in ppi.names])
    width = len(names[0])
    table = np.frombuffer(b"".join(names), dtype=np.uint8).reshape(-1, width)  # (N, w), names share one width
    lines = np.empty((len(ppi.edges), 2 * width + 2), dtype=np.uint8)  # (M, 2w + 2): "a b\n"
    lines[:, :width] = table[ppi.edges[:, 0]]
    lines[:, width] = ord(" ")
    lines[:, width + 1:2 * width + 1] = table[ppi.edges[:, 1]]
    lines[:, -1] = ord("\n")
    atomic_write_bytes(edges_path, lines.tobytes())
    fw = len(str(ppi.labels.shape[1] - 1))
    rows = [" ".join([ppi.names[i]] + [f"F{j:0{fw}d}" for j in np.flatnonzero(ppi.labels[i])])
            for i in np.flatnonzero(ppi.labels.any(axis=1))]
    atomic_write_bytes(labels_path, ("\n".join(rows) + "\n").encode())
