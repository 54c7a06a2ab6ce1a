r"""Inputs built from known interactions for pair (interaction-type) models: label profiles, the message graph with
edge features, and the per-epoch split of training pairs into messages and supervised pairs.

Everything here is computed from a set of **message pairs** (pairs whose modes the model may see). The leakage rule:
a pair that is scored (supervised in training, validation, test) is never a message pair of its own inputs, so its
modes never reach its own profiles or edge features.

Label profile (:func:`label_profiles`), per protein :math:`v` with message pairs :math:`\mathcal{M}(v)`:

.. math::
    p_v = \frac{1}{|\mathcal{M}(v)|} \sum_{(v,u) \in \mathcal{M}(v)} y_{vu} \in [0, 1]^M, \qquad
    d_v = \log(1 + |\mathcal{M}(v)|), \qquad s_v = [\,|\mathcal{M}(v)| > 0\,]

(zeros for a protein without message pairs: a new protein of a BFS/DFS test region).

Role profile (:func:`role_profiles`, optional): STRING gives many actions a direction (``a_is_acting``: a
transcription factor acts on its target's expression, a kinase on its substrate). Per protein and mode, the
fraction of its message pairs in which it acts, and the fraction in which it is acted on: a known target of
transcription factors paired with a new protein has "expression" only if the new protein is a factor, which the
undirected profile cannot tell. The label itself stays undirected.

Homology imputation (:func:`impute_profiles`, optional): a protein without message pairs takes the
similarity-weighted mean profile of its ``k`` most similar proteins *with* message pairs,

.. math::
    p_v = \frac{\sum_{u \in \mathcal{N}_k(v)} s_{vu}\, p_u}{\sum_{u \in \mathcal{N}_k(v)} s_{vu}}, \qquad
    \mathcal{N}_k(v) = \operatorname{top-}k_{u:\, s_u = 1}\, s_{vu},

with :math:`s_{vu}` a label-free sequence similarity (TF-IDF 4-mer cosine,
:func:`gatbio.data.sequence.kmer_similarity`); its degree and seen flag stay 0. Homologous proteins tend to share
interaction modes, so this is "annotation transfer by homology" (as for function prediction, e.g. BLAST best hits)
applied to the mode profile; it is what lets the profile of a BFS/DFS test protein be anything but the global mean.

Interolog transfer (:func:`interolog_scores`, optional): the modes of a pair :math:`(a, b)` taken from the known
pairs :math:`(c, d)` whose two proteins resemble :math:`a` and :math:`b` (conserved interactions between homologous
proteins are *interologs*: Walhout et al. 2000; Yu et al. 2004). With :math:`\mathcal{H}(v)` the protein itself
(weight :math:`w_{vv} = 1`) and its ``k`` most similar proteins (weight :math:`w_{vu} = \max(s_{vu}, 0)`,
:func:`homologues`), and :math:`\mathcal{M}` the message pairs taken in both orientations,

.. math::
    n_{ab} = \sum_{(c, d) \in \mathcal{M}} [c \in \mathcal{H}(a)]\,[d \in \mathcal{H}(b)]\;
             w_{ac}\, w_{bd}\; y_{cd} \in \mathbb{R}^M, \qquad
    m_{ab} = \sum_{(c, d) \in \mathcal{M}} [c \in \mathcal{H}(a)]\,[d \in \mathcal{H}(b)]\; w_{ac}\, w_{bd},

and the score shrinks the interolog mean towards the profile rule's score :math:`r_{ab}` (below) by a pseudo-weight
:math:`\lambda` (:func:`interolog_prior`):

.. math::
    t_{ab} = \frac{n_{ab} + \lambda\, r_{ab}}{m_{ab} + \lambda},

so a pair without any interolog (:math:`m_{ab} = 0`) keeps :math:`r_{ab}`, and one whose new protein's close homologue
is a known partner of the other protein (:math:`w_{aa} w_{bd} = s_{bd} \gg \lambda`) takes that pair's modes. For
a pair of two seen proteins the pair itself is not a message (it is the one being scored), so only its homologous
pairs count. ``k = 5`` and :math:`\lambda = 0.03` with 4-mer similarities were chosen on validation micro-F1
(``experiments/shs27k_impute_sweep.py --interolog``).
:func:`interolog_edges` gives the same evidence term by term (known pair -> query pair, with its weight and the
homologue ranks of :math:`c` and :math:`d`) for a model that learns how to weigh it.

References (interologs): Walhout, A. J. M. et al. Protein interaction mapping in C. elegans using proteins involved
in vulval development. Science 287:116–122 (2000). Yu, H. et al. Annotation transfer between genomes:
protein–protein interologs and protein–DNA regulogs. Genome Research 14:1107–1118 (2004).

Supervision schemes (:func:`supervision_split`, drawn again every epoch):

- ``none``: every fit pair is both a message and supervised (the plain GNN-PPI setting; the model's inputs then
  carry the labels it is trained on, so only label-free inputs are safe with it);
- ``node``: hide a random fraction ``node_fraction`` of the proteins that have fit pairs; fit pairs touching a hidden
  protein are supervised, the others are messages. Hidden proteins look like test proteins of a BFS/DFS split
  (their own pairs are unknown);
- ``edge``: a random fraction ``edge_fraction`` of the fit pairs is supervised, the rest are messages (like a
  random split's test pairs);
- ``mix``: each epoch a fair coin picks ``node`` or ``edge``.

:class:`PairGraphBuilder` turns a set of message pairs into ``(x, edge_index, edge_attr)``: node features = the
sequence block, then the label profile block; edges = message pairs (both directions) plus a label-free
sequence-similarity kNN graph (:func:`gatbio.data.sequence.sequence_knn_graph`); edge features = edge type one-hot
``[interaction, similarity]``, the message pair's modes (zero on kNN edges), the STRING score (zero on kNN edges)
and the k-mer cosine similarity (zero on interaction edges).

:func:`profile_rule` is the no-learning baseline on the same profiles: a pair's score for mode :math:`m` is the
mean of its two proteins' profiles (an unseen protein takes the mean mode vector of the message pairs).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import torch
from torch import Tensor

__all__ = ["SUPERVISION", "label_profiles", "role_profiles", "impute_profiles", "profile_prior", "supervision_split",
           "PairGraphBuilder", "profile_rule", "choose_threshold", "sequence_block", "homologues", "interolog_scores",
           "interolog_prior", "rule_scores", "interolog_edges", "InterologEdges"]

SUPERVISION = ("none", "node", "edge", "mix")


def _idx(idx) -> Tensor:
    return torch.as_tensor(np.asarray(idx, dtype=np.int64))


def label_profiles(pairs: Tensor, modes: Tensor, msg_idx, num_nodes: int,
                   dtype: torch.dtype = torch.float32) -> Tensor:
    """``(N, M + 2)``: each protein's mean mode vector over its message pairs ``msg_idx``, ``log(1 + degree)``
    and a seen flag (module docstring). Only the pairs ``msg_idx`` are read."""
    p = torch.as_tensor(pairs)[_idx(msg_idx)]  # (K, 2)
    y = torch.as_tensor(modes).to(dtype)[_idx(msg_idx)]  # (K, M)
    ends = torch.cat([p[:, 0], p[:, 1]])  # (2K,)
    deg = torch.zeros(num_nodes, dtype=dtype).index_add_(0, ends, torch.ones(len(ends), dtype=dtype))  # (N,)
    prof = torch.zeros(num_nodes, y.size(1), dtype=dtype).index_add_(0, ends, torch.cat([y, y]))
    prof = prof / deg.clamp(min=1)[:, None]
    return torch.cat([prof, torch.log1p(deg)[:, None], (deg > 0).float()[:, None]], dim=1)


def role_profiles(pairs: Tensor, direction: Tensor, msg_idx, num_nodes: int,
                  dtype: torch.dtype = torch.float32) -> Tensor:
    """``(N, 2 M + 2)``: per protein and mode, the fraction of its message pairs ``msg_idx`` in which it *acts*
    (``M`` columns) and in which it is *acted on* (``M`` columns) in that mode, then ``log(1 + degree)`` and the
    seen flag as in :func:`label_profiles` (module docstring, "Role profile"). ``direction``: ``(P, M)`` bit flags of
    :func:`gatbio.data.io.read_string_actions` (``pair_direction``; 2: first protein acts, 4: second acts)."""
    from gatbio.data.io import DIRECTION_BACKWARD, DIRECTION_FORWARD

    p = torch.as_tensor(pairs)[_idx(msg_idx)]  # (K, 2)
    f = torch.as_tensor(direction)[_idx(msg_idx)].to(torch.int64)  # (K, M)
    fwd = ((f & DIRECTION_FORWARD) > 0).to(dtype)  # (K, M): the first protein acts on the second
    bwd = ((f & DIRECTION_BACKWARD) > 0).to(dtype)  # (K, M): the second acts on the first
    ends = torch.cat([p[:, 0], p[:, 1]])  # (2K,)
    acts = torch.cat([fwd, bwd])  # (2K, M): the end acts
    acted = torch.cat([bwd, fwd])  # (2K, M): the end is acted on
    deg = torch.zeros(num_nodes, dtype=dtype).index_add_(0, ends, torch.ones(len(ends), dtype=dtype))  # (N,)
    roles = torch.zeros(num_nodes, 2 * f.size(1), dtype=dtype).index_add_(0, ends, torch.cat([acts, acted], 1))
    roles = roles / deg.clamp(min=1)[:, None]
    return torch.cat([roles, torch.log1p(deg)[:, None], (deg > 0).to(dtype)[:, None]], dim=1)


def impute_profiles(block: Tensor, similarity: Tensor, neighbors: int) -> Tensor:
    """A :func:`label_profiles` block ``(N, M + 2)`` whose unseen proteins (no message pairs) take the
    ``similarity``-weighted mean profile of their ``neighbors`` most similar seen proteins (module docstring);
    ``similarity``: ``(N, N)``, label-free. Degree and seen columns are unchanged; ``neighbors=0``: no change."""
    m = block.size(1) - 2
    seen = block[:, m + 1] > 0  # (N,)
    unseen = (~seen).nonzero().squeeze(1)  # (U,)
    k = min(int(neighbors), int(seen.sum()))
    if k < 1 or len(unseen) == 0:
        return block
    sim = torch.as_tensor(similarity).to(block.device, block.dtype)
    w, j = sim[unseen][:, seen].topk(k, dim=1)  # (U, k): the k most similar seen proteins
    w = w.clamp_min(0) + 1e-12  # a negative similarity gives no weight; an all-zero row: the k profiles' plain mean
    imputed = (w[..., None] * block[seen, :m][j]).sum(1) / w.sum(1, keepdim=True)  # (U, M)
    out = block.clone()
    out[unseen, :m] = imputed
    return out


def profile_prior(block: Tensor) -> Tensor:
    """``(N, M)`` from a :func:`label_profiles` block ``(N, M + 2)``: each protein's profile, or for a protein
    without message pairs and without an imputed profile (:func:`impute_profiles`) the mean mode vector of the
    message pairs (the degree-weighted mean of the profiles)."""
    m = block.size(1) - 2
    prof, deg, seen = block[:, :m], torch.expm1(block[:, m:m + 1]), block[:, m + 1:] > 0  # degree from log(1 + d)
    mean = (prof * deg).sum(0) / deg.sum().clamp(min=1e-12)  # (M,)
    return torch.where(seen | (prof.sum(1, keepdim=True) > 0), prof, mean)


def homologues(similarity, k: int) -> tuple[Tensor, Tensor]:
    """Each protein's homologue set for :func:`interolog_scores`: ``(index, weight)``, both ``(N, k' + 1)``; column
    0 is the protein itself (weight 1), then its ``k' = min(k, N - 1)`` most similar other proteins by ``similarity``
    ``(N, N)`` (label-free; its diagonal is ignored) with weight ``max(similarity, 0)``."""
    sim = torch.as_tensor(similarity).float().clone()  # (N, N)
    n = sim.size(0)
    if k < 1:
        raise ValueError(f"interolog homologues k={k}: must be at least 1 (or switch the transfer off: interolog: 0)")
    k = min(k, n - 1)  # a small network has fewer other proteins
    sim.fill_diagonal_(-float("inf"))  # never its own homologue: the protein itself is column 0
    w, j = sim.topk(k, dim=1)  # (N, k)
    index = torch.cat([torch.arange(n)[:, None], j], dim=1)  # (N, k + 1)
    weight = torch.cat([torch.ones(n, 1), w.clamp_min(0)], dim=1)  # (N, k + 1)
    return index, weight


def _interolog_lookup(known_pairs: Tensor, known_modes: Tensor, query: Tensor, index: Tensor, weight: Tensor,
                      chunk: int):
    r"""The shared lookup of :func:`interolog_scores` and :func:`interolog_edges`: ``(modes (K', M), q (Q, 2),
    steps)`` where ``modes`` are the distinct known pairs' modes (a repeated pair's union) and ``steps`` yields, per
    chunk of ``chunk`` queries, ``(start, pos (C, J), w (C, J))``: the row in ``modes`` of each of the
    ``J = (k + 1)^2`` candidate pairs :math:`\mathcal{H}(a) \times \mathcal{H}(b)` and its weight
    :math:`w_{ac} w_{bd}` (0 where the candidate is not a known pair)."""
    n = index.size(0)
    kp = torch.as_tensor(known_pairs).to(index.device).long()  # (K, 2)
    ky = torch.as_tensor(known_modes).to(device=index.device, dtype=weight.dtype)  # (K, M)
    q = torch.as_tensor(query).to(index.device).long()  # (Q, 2)
    if len(kp) == 0 or len(q) == 0:
        return ky.new_zeros(0, ky.size(1)), q, iter(())
    keys = torch.cat([kp[:, 0] * n + kp[:, 1], kp[:, 1] * n + kp[:, 0]])  # (2K,) both orientations
    keys, inv = torch.unique(keys, return_inverse=True)  # sorted, distinct
    modes = torch.zeros(len(keys), ky.size(1), dtype=ky.dtype, device=ky.device).scatter_reduce_(
        0, inv[:, None].expand(-1, ky.size(1)), torch.cat([ky, ky]), "amax")  # (K', M): a repeated pair's union

    def steps():
        for s in range(0, len(q), chunk):
            qa, qb = q[s:s + chunk, 0], q[s:s + chunk, 1]
            combo = (index[qa][:, :, None] * n + index[qb][:, None, :]).flatten(1)  # (C, J) candidate keys
            w = (weight[qa][:, :, None] * weight[qb][:, None, :]).flatten(1)  # (C, J)
            pos = torch.searchsorted(keys, combo).clamp_max(len(keys) - 1)
            yield s, pos, w * (keys[pos] == combo)  # only candidates that are known pairs

    return modes, q, steps()


def interolog_scores(known_pairs: Tensor, known_modes: Tensor, query: Tensor, index: Tensor, weight: Tensor,
                     chunk: int = 1 << 16) -> tuple[Tensor, Tensor]:
    r"""The interolog sums of the query pairs (module docstring): ``(n (Q, M), m (Q,))``.

    Args:
        known_pairs: ``(K, 2)`` protein indices of the known (message) pairs, each pair once in either orientation
            (both orientations are read); known_modes: ``(K, M)`` their modes.
        query: ``(Q, 2)`` protein indices.
        index, weight: ``(N, k + 1)`` homologue sets (:func:`homologues`).
        chunk: query pairs per step (memory: ``chunk * (k + 1)^2`` lookups).

    The ``(k + 1)^2`` protein pairs :math:`\mathcal{H}(a) \times \mathcal{H}(b)` of each query are looked up among
    the known pairs by a sorted key (``searchsorted``): ``O((K + Q k^2) log K)``, on the tensors' device. Each
    distinct pair counts once (a pair listed twice, or in both orientations, takes the union of its modes).
    """
    modes, q, steps = _interolog_lookup(known_pairs, known_modes, query, index, weight, chunk)
    num = torch.zeros(len(q), modes.size(1), dtype=weight.dtype, device=index.device)
    den = torch.zeros(len(q), dtype=weight.dtype, device=index.device)
    for s, pos, w in steps:
        num[s:s + len(w)] = torch.einsum("cj,cjm->cm", w, modes[pos])
        den[s:s + len(w)] = w.sum(1)
    return num, den


class InterologEdges(NamedTuple):
    """The interolog evidence of query pairs as a bipartite graph (:func:`interolog_edges`): ``modes`` (K', M) of
    the distinct known pairs (the sources), and per edge (E,): ``src`` (row of ``modes``), ``dst`` (query),
    ``weight`` :math:`w_{ac} w_{bd}`, and ``rank_a``, ``rank_b``: the columns of :math:`c` and :math:`d` in the
    homologue sets of :math:`a` and :math:`b` (0: the protein itself)."""

    modes: Tensor
    src: Tensor
    dst: Tensor
    weight: Tensor
    rank_a: Tensor
    rank_b: Tensor


def interolog_edges(known_pairs: Tensor, known_modes: Tensor, query: Tensor, index: Tensor, weight: Tensor,
                    chunk: int = 1 << 16) -> InterologEdges:
    """The interologs of :func:`interolog_scores` one by one, as edges known pair -> query pair with weight > 0
    (:class:`InterologEdges`), for a model that learns how to weigh them (:class:`gatbio.nn.pair_models.
    GATPairModel`'s ``interolog_attention``): :func:`interolog_scores` is their weighted sum,
    ``n[q] = sum(weight * modes[src])`` and ``m[q] = sum(weight)`` over the edges into ``q``."""
    modes, _, steps = _interolog_lookup(known_pairs, known_modes, query, index, weight, chunk)
    k1 = index.size(1)
    out: list[list[Tensor]] = [[], [], [], []]
    for s, pos, w in steps:
        c, j = (w > 0).nonzero(as_tuple=True)
        for part, value in zip(out, (pos[c, j], c + s, w[c, j], j), strict=True):
            part.append(value)
    if not out[0]:
        empty = torch.zeros(0, dtype=torch.long, device=index.device)
        return InterologEdges(modes, empty, empty, weight.new_zeros(0), empty, empty)
    src, dst, w, j = (torch.cat(part) for part in out)
    return InterologEdges(modes, src, dst, w, torch.div(j, k1, rounding_mode="floor"), j % k1)


def interolog_prior(num: Tensor, den: Tensor, prior: Tensor, shrink: float) -> Tensor:
    """``(n + shrink * prior) / (m + shrink)``: the interolog mean shrunk towards ``prior`` (Q, M) by the pseudo-weight
    ``shrink`` (module docstring); a pair without interologs keeps ``prior``."""
    if shrink <= 0:
        raise ValueError(f"interolog_shrink={shrink}: must be > 0 (the prior's pseudo-weight)")
    return (num + shrink * prior) / (den[:, None] + shrink)


def rule_scores(prior: Tensor, query: Tensor, known: tuple[Tensor, Tensor] | None = None,
                homologue_sets: tuple[Tensor, Tensor] | None = None, shrink: float = 0.03) -> Tensor:
    """The no-learning score ``(Q, M)`` of the protein pairs ``query`` ``(Q, 2)``: the mean of the two proteins' rows
    of ``prior`` ``(N, M)`` (:func:`profile_prior`); with the known pairs ``known = (pairs (K, 2), modes (K, M))`` and
    ``homologue_sets`` (:func:`homologues`), the interolog transfer shrunk towards that mean (:func:`interolog_prior`).
    What :func:`profile_rule` returns and what :class:`gatbio.nn.pair_models.GATPairModel` adds as a logit."""
    q = torch.as_tensor(query).to(prior.device).long()
    score = (prior[q[:, 0]] + prior[q[:, 1]]) / 2  # (Q, M)
    if known is not None and homologue_sets is not None:
        index, weight = homologue_sets
        num, den = interolog_scores(*known, q, index, weight.to(prior.dtype))
        score = interolog_prior(num, den, score, shrink)
    return score


def supervision_split(fit_idx, pairs, scheme: str, rng: np.random.Generator, node_fraction: float = 0.2,
                      edge_fraction: float = 0.3) -> tuple[np.ndarray, np.ndarray]:
    """Split the fit pairs into ``(messages, supervised)`` by ``scheme`` (module docstring); disjoint except with
    ``none`` (then both are all fit pairs). ``rng`` draws the split (one draw per call)."""
    if scheme not in SUPERVISION:
        raise ValueError(f"supervision={scheme!r}: choose one of {', '.join(SUPERVISION)}")
    fit = np.asarray(fit_idx, dtype=np.int64)
    if scheme == "none":
        return fit, fit
    if scheme == "mix":
        scheme = "edge" if rng.random() < 0.5 else "node"
    pairs = np.asarray(pairs)
    if scheme == "edge":
        sup = rng.random(len(fit)) < edge_fraction
    else:
        prots = np.unique(pairs[fit])
        hidden = np.zeros(int(pairs.max()) + 1, dtype=bool)
        hidden[rng.choice(prots, int(node_fraction * len(prots)), replace=False)] = True
        sup = hidden[pairs[fit]].any(axis=1)
    return fit[~sup], fit[sup]


def sequence_block(x: np.ndarray, dim: int | None) -> np.ndarray:
    """Standardise the columns of ``x`` (over all proteins; label-free), then project on the first ``dim``
    principal components scaled by the standard deviation of the first (``None``/0: standardised ``x``)."""
    x = np.asarray(x, dtype=np.float64)
    x = (x - x.mean(0)) / (x.std(0) + 1e-6)
    if dim and dim < min(x.shape):
        from sklearn.decomposition import PCA

        x = PCA(dim, random_state=0).fit_transform(x)
        x = x / x[:, :1].std()
    return x.astype(np.float32)


@dataclass
class PairGraphBuilder:
    """Node features, message graph and edge features from a set of message pairs (module docstring).

    Args:
        pairs: ``(P, 2)`` protein indices; modes: ``(P, M)`` multi-hot; score: ``(P,)`` STRING score in [0, 1].
        x_seq: ``(N, S)`` sequence block (:func:`sequence_block`; ``None``: a constant column).
        knn_index, knn_weight: the sequence-similarity graph (:func:`gatbio.data.sequence.sequence_knn_graph`;
            ``None``: no kNN edges).
        profile: append the label profile block (:func:`label_profiles`).
        impute_similarity, impute_neighbors: impute the profiles of proteins without message pairs from their
            ``impute_neighbors`` most similar seen proteins (:func:`impute_profiles`; ``0``: no imputation).
        interactions: message pairs are edges. edge_type / edge_modes / edge_score: the edge feature blocks
            (``edge_score`` gives two columns: STRING score, k-mer similarity).
        mode_record: append ``M`` last edge columns with the message pair's modes (zero on other edges), whatever
            the feature blocks: the record the interolog transfer reads (:meth:`labelled_edges`), not a feature
            (:class:`gatbio.nn.pair_models.GATPairModel` strips it before its attention layers).
        direction: ``(P, M)`` direction flags (``pair_direction``): append the role block (:func:`role_profiles`,
            ``2 M`` columns, imputed like the profiles) between the sequence block and the profile block; ``None``:
            no role block.
    """

    pairs: Tensor
    modes: Tensor
    score: Tensor
    x_seq: Tensor | None
    knn_index: Tensor | None = None
    knn_weight: Tensor | None = None
    impute_similarity: Tensor | None = None
    impute_neighbors: int = 0
    profile: bool = True
    interactions: bool = True
    edge_type: bool = True
    edge_modes: bool = True
    edge_score: bool = True
    mode_record: bool = False
    direction: Tensor | None = None

    @property
    def num_nodes(self) -> int:
        return int(self.x_seq.size(0)) if self.x_seq is not None else int(self.pairs.max()) + 1

    @property
    def seq_channels(self) -> int:
        return int(self.x_seq.size(1)) if self.x_seq is not None else 1

    @property
    def num_features(self) -> int:
        return (self.seq_channels + 2 * self.modes.size(1) * (self.direction is not None)
                + (self.modes.size(1) + 2 if self.profile else 0))

    @property
    def edge_dim(self) -> int | None:
        d = 2 * self.edge_type + self.modes.size(1) * self.edge_modes + 2 * self.edge_score
        return d or None

    @staticmethod
    def labelled_edges(edge_index: Tensor, record: Tensor) -> tuple[Tensor, Tensor]:
        """The message pairs and their modes read back from a :meth:`build` graph with ``mode_record``:
        ``(pairs (K, 2), modes (K, M))`` from the edges whose record (the last ``M`` edge columns) has a mode, each
        direction once (kNN edges and the structure-only edges of the "all pairs" setting have none)."""
        keep = record.sum(1) > 0  # labelled interaction edges
        return edge_index[:, keep].t(), record[keep]

    def build(self, msg_idx, structure_idx=None) -> tuple[Tensor, Tensor, Tensor | None]:
        """``(x (N, F), edge_index (2, E), edge_attr (E, edge_dim) or None)`` from the message pairs ``msg_idx``
        (with ``mode_record``: ``(E, edge_dim + M)``, the record last).

        ``structure_idx``: further pairs that are edges without their modes (zero mode features; they do not count
        in profiles): the published "all pairs" setting, where every interaction is known but not its type."""
        n, m = self.num_nodes, self.modes.size(1)
        msg = _idx(msg_idx)
        x = self.x_seq if self.x_seq is not None else torch.ones(n, 1)
        if self.direction is not None:  # role block between the sequence and the profile blocks
            roles = role_profiles(self.pairs, self.direction, msg, n)  # (N, 2M + 2)
            if self.impute_neighbors and self.impute_similarity is not None:
                roles = impute_profiles(roles, self.impute_similarity, self.impute_neighbors)
            x = torch.cat([x, roles[:, :2 * m]], dim=1)
        if self.profile:
            block = label_profiles(self.pairs, self.modes, msg, n)  # (N, M + 2)
            if self.impute_neighbors and self.impute_similarity is not None:
                block = impute_profiles(block, self.impute_similarity, self.impute_neighbors)
            x = torch.cat([x, block], dim=1)  # (N, F)
        eis, eas = [], []
        if self.interactions:
            labelled = torch.ones(len(msg), dtype=torch.bool)
            if structure_idx is not None:
                extra = _idx(np.setdiff1d(np.asarray(structure_idx, dtype=np.int64), msg.numpy()))
                msg = torch.cat([msg, extra])
                labelled = torch.cat([labelled, torch.zeros(len(extra), dtype=torch.bool)])
            p = self.pairs[msg]  # (K, 2)
            eis.append(torch.cat([p.t(), p.flip(1).t()], dim=1))  # (2, 2K)
            k = len(msg)
            ea = []
            if self.edge_type:
                ea.append(torch.tensor([[1.0, 0.0]]).expand(k, 2))
            if self.edge_modes:
                ea.append(self.modes[msg].float() * labelled[:, None])
            if self.edge_score:
                ea += [self.score[msg].float()[:, None], torch.zeros(k, 1)]
            if self.mode_record:
                ea.append(self.modes[msg].float() * labelled[:, None])
            eas.append(torch.cat(ea, dim=1).repeat(2, 1) if ea else None)
        if self.knn_index is not None:
            k = self.knn_index.size(1)
            eis.append(self.knn_index)
            ea = []
            if self.edge_type:
                ea.append(torch.tensor([[0.0, 1.0]]).expand(k, 2))
            if self.edge_modes:
                ea.append(torch.zeros(k, m))
            if self.edge_score:
                ea += [torch.zeros(k, 1), self.knn_weight.float()[:, None]]
            if self.mode_record:
                ea.append(torch.zeros(k, m))
            eas.append(torch.cat(ea, dim=1) if ea else None)
        width = (self.edge_dim or 0) + m * self.mode_record
        if not eis:
            return x, torch.zeros(2, 0, dtype=torch.long), torch.zeros(0, width) if width else None
        ei = torch.cat(eis, dim=1)
        ea = torch.cat(eas, dim=0) if width else None
        return x, ei, ea


def profile_rule(pairs, modes, known_idx, query_pairs, num_nodes: int, similarity=None,
                 neighbors: int = 0, homologue_sets: tuple[Tensor, Tensor] | None = None,
                 shrink: float = 0.03) -> np.ndarray:
    """``(Q, M)`` scores of the protein pairs ``query_pairs`` ``(Q, 2)``: the mean of the two proteins' mode
    profiles over the known pairs ``known_idx`` (indices into ``pairs`` / ``modes``); a protein without known pairs
    takes the mean mode vector of the known pairs or, with ``similarity`` ``(N, N)`` and ``neighbors > 0``, the
    profile imputed from its most similar proteins with known pairs (:func:`impute_profiles`).

    With ``homologue_sets`` (``(index, weight)`` of :func:`homologues`) the score is the interolog transfer from the
    known pairs, shrunk towards that mean by the pseudo-weight ``shrink`` (:func:`interolog_prior`; module
    docstring)."""
    y = torch.as_tensor(np.asarray(modes, dtype=np.float64))
    p = torch.as_tensor(np.asarray(pairs))
    block = label_profiles(p, y, known_idx, num_nodes, dtype=torch.float64)  # float64: scores meet a threshold grid
    if neighbors and similarity is not None:
        block = impute_profiles(block, similarity, neighbors)
    q = torch.as_tensor(np.asarray(query_pairs, dtype=np.int64).reshape(-1, 2))
    known = _idx(known_idx)
    return rule_scores(profile_prior(block), q, (p[known], y[known]), homologue_sets, shrink).numpy()


def choose_threshold(y_true: np.ndarray, scores: np.ndarray, grid: np.ndarray | None = None) -> tuple[float, float]:
    """The threshold of ``grid`` (default 0.15, 0.175, ..., 0.6) with the best micro-F1 of ``scores > t`` against
    ``y_true``; returns ``(threshold, micro-F1)`` (the smallest on ties)."""
    from sklearn.metrics import f1_score

    grid = np.round(np.arange(0.15, 0.6001, 0.025), 4) if grid is None else np.asarray(grid)
    y = np.asarray(y_true).astype(int)
    f = [f1_score(y, (scores > t).astype(int), average="micro", zero_division=0) for t in grid]
    best = int(np.argmax(f))
    return float(grid[best]), float(f[best])
