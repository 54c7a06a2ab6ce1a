r"""Splits of interacting protein pairs as GNN-PPI defines them (random, BFS, DFS), seeded and leakage-free.

The test splits follow ``GNN_DATA.split_dataset`` and ``utils.get_bfs_sub_graph`` / ``get_dfs_sub_graph`` of
GNN-PPI (Lv et al., IJCAI 2021; code at commit ``f47dfd1``, read in ``string_shs27k/SOURCE.md``), over pair indices
``0..P-1`` in the reader's order (:func:`gatbio.data.io.read_string_actions`: first appearance, as GNN-PPI):

- ``random``: a shuffle of ``0..P-1``; the first ``int(P * (1 - test_fraction))`` pairs train, the rest test.
- ``bfs`` / ``dfs``: target ``int(P * test_fraction)`` pairs. **Root**: a protein drawn uniformly, drawn again
  until it is in at most ``max_root_pairs`` (5) pairs. BFS keeps a FIFO queue of proteins: the protein taken from
  the queue adds each of its pairs (in pair-index order) that is not selected yet, and queues the pair's other
  protein unless it was expanded or is queued already. DFS keeps a stack: a protein on top that was not expanded
  adds all its unselected pairs; an expanded one pushes its first neighbour (in pair-index order) that was not
  expanded, or is popped when there is none. Both stop when at least the target is selected; the check runs only
  after a whole protein is expanded, so the test set can be larger. Test = the selected pairs, train = the rest.

Two departures, both forced and both said in the saved split:

- **Seeding.** GNN-PPI draws with Python's unseeded ``random``; here every draw comes from ``rng``, a NumPy
  :class:`~numpy.random.Generator` (``np.random.default_rng(seed)``), so a seed gives the same split on every
  machine. (Passing a :class:`random.Random` instead reproduces GNN-PPI's draws exactly: same root, same shuffle.)
- **An exhausted walk.** When the root's connected component holds fewer pairs than the target, GNN-PPI's walk
  runs out of proteins and crashes (``pop`` from an empty list); the published splits are therefore those whose
  walk succeeded. Here the walk is started again from a new root drawn by the same rule (the number of attempts
  is recorded), which gives exactly the splits GNN-PPI can produce, each as likely as there.

On top of GNN-PPI (which has no validation set and picks checkpoints on the test pairs):

- :func:`carve_validation`: a validation part of the *training* pairs, for early stopping and model choice.
  ``"same"`` (default) carves it with the split's own rule on the graph of the training pairs (for BFS/DFS a
  region of proteins, so that model choice sees new proteins as the test does; for random a random part);
  ``"random"`` carves a uniformly random part. Seeded by its own generator (``default_rng([seed, 1])``).
- :func:`message_graph`: the undirected graph of a set of pairs (both directions). Leakage-free training passes
  messages over the training pairs only (GNN-PPI's "GCT"); the published "all pairs" setting ("GCA") passes them
  over every pair, test pairs included (their labels withheld), for comparison only.
- :func:`pair_subsets`: for each test pair, how many of its two proteins appear in a training pair: BS (both), ES
  (either: one), NS (neither), as ``gnn_test.py`` scores them.
"""

from __future__ import annotations

import random as _random
from collections import deque
from typing import Any

import numpy as np
import torch

__all__ = ["PAIR_SPLITS", "VAL_SPLITS", "SUBSETS", "protein_pair_lists", "bfs_pairs", "dfs_pairs", "draw_root",
           "gnn_ppi_split", "carve_validation", "pair_split", "message_graph", "pair_subsets"]

PAIR_SPLITS = ("random", "bfs", "dfs")
VAL_SPLITS = ("same", "random")
#: Test subsets by how many of a pair's proteins appear in training pairs (index = that number).
SUBSETS = ("ns", "es", "bs")
MAX_ATTEMPTS = 1000

Rng = np.random.Generator | _random.Random


def protein_pair_lists(pairs: np.ndarray, num_nodes: int) -> list[list[int]]:
    """For each protein, the indices of the pairs it belongs to, ascending: GNN-PPI's ``node_to_edge_index``, which
    lists a pair of a protein with itself twice (once per end). That count is the root rule's (a protein in at most
    ``max_root_pairs`` pairs, :func:`draw_root`); the walks skip the repeat (the pair is selected, its other end is
    the protein itself)."""
    out: list[list[int]] = [[] for _ in range(num_nodes)]
    for i, (a, b) in enumerate(np.asarray(pairs).tolist()):
        out[a].append(i)
        out[b].append(i)
    return out


def _other(pairs: np.ndarray, e: int, node: int) -> int:
    a, b = pairs[e]
    return int(b) if a == node else int(a)


def bfs_pairs(pairs: np.ndarray, pair_lists: list[list[int]], size: int, root: int) -> list[int] | None:
    """The pairs GNN-PPI's BFS selects from ``root`` (in selection order), or ``None`` when the walk runs out of
    proteins before ``size`` pairs (GNN-PPI would crash there)."""
    pairs = np.asarray(pairs)
    chosen = np.zeros(len(pairs), dtype=bool)
    state = np.zeros(len(pair_lists), dtype=np.int8)  # 0 unseen, 1 queued, 2 expanded
    selected: list[int] = []
    queue = deque([root])
    state[root] = 1
    while len(selected) < size:
        if not queue:
            return None
        cur = queue.popleft()
        state[cur] = 2
        for e in pair_lists[cur]:
            if chosen[e]:
                continue
            chosen[e] = True
            selected.append(e)
            end = _other(pairs, e, cur)
            if state[end] == 0:
                state[end] = 1
                queue.append(end)
    return selected


def dfs_pairs(pairs: np.ndarray, pair_lists: list[list[int]], size: int, root: int) -> list[int] | None:
    """The pairs GNN-PPI's DFS selects from ``root`` (in selection order), or ``None`` when the walk runs out."""
    pairs = np.asarray(pairs)
    chosen = np.zeros(len(pairs), dtype=bool)
    expanded = np.zeros(len(pair_lists), dtype=bool)
    pointer = np.zeros(len(pair_lists), dtype=np.int64)  # next neighbour to look at; expanded ones stay expanded
    selected: list[int] = []
    stack = [root]
    while len(selected) < size:
        if not stack:
            return None
        cur = stack[-1]
        if expanded[cur]:
            lst = pair_lists[cur]
            while pointer[cur] < len(lst) and expanded[_other(pairs, lst[pointer[cur]], cur)]:
                pointer[cur] += 1
            if pointer[cur] < len(lst):
                stack.append(_other(pairs, lst[pointer[cur]], cur))
            else:
                stack.pop()
            continue
        expanded[cur] = True
        for e in pair_lists[cur]:
            if not chosen[e]:
                chosen[e] = True
                selected.append(e)
    return selected


def _randint(rng: Rng, n: int) -> int:
    """A uniform integer in ``0..n-1`` (``random.randint(0, n - 1)`` for a :class:`random.Random`)."""
    return rng.randint(0, n - 1) if isinstance(rng, _random.Random) else int(rng.integers(0, n))


def draw_root(pair_lists: list[list[int]], rng: Rng, max_pairs: int = 5) -> int:
    """GNN-PPI's root: a uniform protein, drawn again until it is in at most ``max_pairs`` pairs (and in one at
    least: a protein without pairs cannot start a walk; every protein of an actions file has one)."""
    if not any(0 < len(p) <= max_pairs for p in pair_lists):
        raise ValueError(f"no protein is in 1..{max_pairs} pairs: no root for a BFS/DFS split; raise max_root_pairs")
    while True:
        node = _randint(rng, len(pair_lists))
        if 0 < len(pair_lists[node]) <= max_pairs:
            return node


def gnn_ppi_split(pairs: np.ndarray | torch.Tensor, num_nodes: int, kind: str, rng: Rng, test_fraction: float = 0.2,
               max_root_pairs: int = 5) -> dict[str, Any]:
    """GNN-PPI's train / test split of pairs ``0..P-1`` (module docstring).

    Returns:
        ``{"train": [...], "test": [...], "root": int or None, "attempts": int}``; ``train`` in GNN-PPI's order
        (random: shuffled order; BFS/DFS: ascending), ``test`` in selection order.
    """
    if kind not in PAIR_SPLITS:
        raise ValueError(f"split {kind!r}: choose one of {', '.join(PAIR_SPLITS)}")
    if not 0 < test_fraction < 1:
        raise ValueError(f"test_fraction={test_fraction}: must be in (0, 1)")
    pairs = np.asarray(pairs.cpu() if isinstance(pairs, torch.Tensor) else pairs)
    n = len(pairs)
    if kind == "random":
        if isinstance(rng, _random.Random):
            order = list(range(n))
            rng.shuffle(order)
        else:
            order = rng.permutation(n).tolist()
        cut = int(n * (1 - test_fraction))
        return {"train": order[:cut], "test": order[cut:], "root": None, "attempts": 1}
    lists = protein_pair_lists(pairs, num_nodes)
    size = int(n * test_fraction)
    walk = bfs_pairs if kind == "bfs" else dfs_pairs
    for attempt in range(1, MAX_ATTEMPTS + 1):
        root = draw_root(lists, rng, max_root_pairs)
        test = walk(pairs, lists, size, root)
        if test is not None:
            chosen = np.zeros(n, dtype=bool)
            chosen[test] = True
            return {"train": np.flatnonzero(~chosen).tolist(), "test": test, "root": root, "attempts": attempt}
    raise ValueError(f"no {kind.upper()} walk from a root with <= {max_root_pairs} pairs reached {size} pairs in "
                     f"{MAX_ATTEMPTS} attempts: the graph's components are too small for test_fraction={test_fraction}")


def carve_validation(pairs: np.ndarray | torch.Tensor, train: list[int], num_nodes: int, kind: str, seed: int,
                     fraction: float = 0.1, max_root_pairs: int = 5, parts: int = 1) -> dict[str, Any]:
    """Split the training pairs ``train`` into ``fit`` and ``val`` (a ``fraction`` of them).

    ``kind``: ``"random"`` (a uniformly random part) or the test split's kind (``"random"``, ``"bfs"``, ``"dfs"``:
    the same rule on the graph of the training pairs, :func:`gnn_ppi_split`). ``parts`` > 1 (BFS/DFS): the
    validation is ``parts`` regions of ``fraction / parts`` of the training pairs each, carved one after the other
    from what is left (several small regions give a less noisy model choice than one). On a small network the
    whole-protein walk can overshoot: once the parts carved hold ``fraction`` of the training pairs, no more are
    carved (``val_parts`` in the result says how many were); a part that what is left cannot give is a
    ``ValueError`` naming ``val_fraction`` / ``val_parts`` and the fix. Seeded by
    ``np.random.default_rng([seed, 1])``, independent of the test split's generator.

    Returns ``{"fit": [...], "val": [...], "val_root": int or None, "val_attempts": int, "val_parts": int}``
    (ascending indices; with several parts, the first part's root and the attempts of all parts; ``val_parts`` is
    1 for a random carve).
    """
    if not 0 < fraction < 1:
        raise ValueError(f"val_fraction={fraction}: must be in (0, 1)")
    if parts < 1:
        raise ValueError(f"val_parts={parts}: must be >= 1")
    if kind not in PAIR_SPLITS:  # said here: the carve's own failures are caught below
        raise ValueError(f"split {kind!r}: choose one of {', '.join(PAIR_SPLITS)}")
    pairs = np.asarray(pairs.cpu() if isinstance(pairs, torch.Tensor) else pairs)
    train_arr = np.asarray(train, dtype=np.int64)
    rng = np.random.default_rng([seed, 1])
    if kind == "random":
        parts = 1
    rest, vals, root, attempts = train_arr, [], None, 0
    for j in range(parts):
        if j and len(train_arr) - len(rest) >= fraction * len(train_arr):
            parts = j  # the earlier parts (whole proteins) hold the asked share already: more would only shrink fit
            break
        frac = fraction / parts * len(train_arr) / len(rest)
        try:  # (a part as large as what is left, or a walk that never reaches it: no part to carve)
            local = gnn_ppi_split(pairs[rest], num_nodes, kind, rng, test_fraction=frac,
                                  max_root_pairs=max_root_pairs) if frac < 1 else None
        except ValueError:
            local = None
        if local is None:
            raise ValueError(
                f"the {kind.upper()} validation carve (val_fraction={fraction}, val_parts={parts}): part {j + 1} "
                f"needs {int(len(rest) * frac) if frac < 1 else round(fraction / parts * len(train_arr))} of the "
                f"{len(rest)} training pairs left, and no walk from a root with <= {max_root_pairs} pairs reaches "
                "that many (the training graph's components are too small): use fewer val_parts, a smaller "
                "val_fraction, a larger max_root_pairs, or val_split: random")
        vals.append(rest[np.asarray(local["test"], dtype=np.int64)])
        rest = rest[np.asarray(local["train"], dtype=np.int64)]
        root = local["root"] if j == 0 else root
        attempts += local["attempts"]
    val = np.sort(np.concatenate(vals))
    fit = np.sort(rest)
    return {"fit": fit.tolist(), "val": val.tolist(), "val_root": root, "val_attempts": attempts, "val_parts": parts}


def pair_split(pairs: np.ndarray | torch.Tensor, num_nodes: int, kind: str, seed: int, test_fraction: float = 0.2,
               val_fraction: float = 0.1, val_kind: str = "same", max_root_pairs: int = 5,
               val_parts: int = 1) -> dict[str, Any]:
    """The whole split of one (kind, seed): GNN-PPI's train / test (``default_rng(seed)``), then the validation
    carve from train (:func:`carve_validation`). JSON-able: ``train``, ``test``, ``fit``, ``val`` (pair indices),
    the roots, attempts and a ``protocol`` sentence."""
    if val_kind not in VAL_SPLITS:
        raise ValueError(f"val_split={val_kind!r}: choose one of {', '.join(VAL_SPLITS)}")
    shape = tuple(np.shape(pairs))
    if len(shape) != 2 or shape[1] != 2:
        fix = " (it looks like (2, P): pass pairs.t())" if len(shape) == 2 and shape[0] == 2 else ""
        raise ValueError(f"pairs has shape {shape}: expected (P, 2), one (protein, protein) pair per row{fix}")
    if shape[0] < 5:
        raise ValueError(f"{shape[0]} pair(s) are too few to split into training, validation and test pairs")
    sp = gnn_ppi_split(pairs, num_nodes, kind, np.random.default_rng(seed), test_fraction, max_root_pairs)
    if not sp["test"]:
        raise ValueError(f"the {kind} split of {shape[0]} pairs left no test pair (the walk takes whole proteins; "
                         f"test_fraction={test_fraction} of so few pairs rounds to none): give more pairs or a larger "
                         "test_fraction")
    vk = kind if val_kind == "same" else "random"
    carve = carve_validation(pairs, sp["train"], num_nodes, vk, seed, val_fraction, max_root_pairs, val_parts)
    n, parts = len(pairs), carve["val_parts"]
    return {"kind": kind, "seed": seed, "num_pairs": n, "test_fraction": test_fraction, "val_fraction": val_fraction,
            "val_split": val_kind, "val_parts": parts, "max_root_pairs": max_root_pairs,
            "protocol": (f"GNN-PPI {kind} split of {n} pairs ({len(sp['test'])} test; numpy default_rng({seed}); an "
                         f"exhausted walk restarts from a new root), validation: {len(carve['val'])} training pairs "
                         f"carved by the {vk} rule in {parts} part(s) (default_rng([{seed}, 1]))"),
            "root": sp["root"], "attempts": sp["attempts"], **carve,
            "train": sorted(sp["train"]), "test": sorted(sp["test"])}


def message_graph(pairs: torch.Tensor, idx: torch.Tensor | list[int] | np.ndarray | None = None,
                  edge_attr: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor | None]:
    """The undirected message-passing graph of the pairs ``idx`` (all pairs when ``None``): each pair in both
    directions, ``(2, 2k)`` (the ``k`` pairs, then their mirror images; a self-pair once), with ``edge_attr``
    (per pair, ``(P, ...)``) repeated alike."""
    pairs = torch.as_tensor(pairs)
    if idx is not None:
        idx = torch.as_tensor(np.asarray(idx, dtype=np.int64))
        pairs = pairs[idx]
        edge_attr = None if edge_attr is None else edge_attr[idx]
    nl = pairs[:, 0] != pairs[:, 1]
    ei = torch.cat([pairs.t(), pairs[nl].flip(1).t()], dim=1).contiguous()  # (2, 2k)
    if edge_attr is not None:
        edge_attr = torch.cat([edge_attr, edge_attr[nl]], dim=0)
    return ei, edge_attr


def pair_subsets(pairs: np.ndarray | torch.Tensor, train: list[int], test: list[int], num_nodes: int) -> np.ndarray:
    """For each test pair, how many of its proteins (0, 1 or 2) appear in any training pair: NS, ES, BS
    (:data:`SUBSETS`); a self-pair counts its protein twice."""
    pairs = np.asarray(pairs.cpu() if isinstance(pairs, torch.Tensor) else pairs)
    seen = np.zeros(num_nodes, dtype=bool)
    seen[pairs[np.asarray(train, dtype=np.int64)].reshape(-1)] = True
    t = pairs[np.asarray(test, dtype=np.int64)]
    return seen[t[:, 0]].astype(np.int64) + seen[t[:, 1]].astype(np.int64)
