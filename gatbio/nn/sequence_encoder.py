r"""A learnt sequence encoder: a 1-D convolutional network over a protein's residues, pooled to one vector.

.. math::
    H^{(1)} &= \mathrm{MaxPool}_p\big(\mathrm{ReLU}(\mathrm{Conv1d}_{k_1}(V))\big), \qquad
    H^{(j)} = \mathrm{ReLU}\big(\mathrm{Conv1d}_{k_j}(\mathrm{drop}(H^{(j-1)}))\big) \quad (j \ge 2) \\
    h &= \mathrm{drop}\Big(\mathrm{ReLU}\big(W\,\mathrm{BN}[\max_t H_t \,\|\, \tfrac1{L'} \textstyle\sum_t H_t]
    \big)\Big) \in \mathbb{R}^{D}

where :math:`V \in \mathbb{R}^{L \times d}` is the sequence's residue matrix (one embedding row per residue,
e.g. PIPR's 13-dimensional ``vec5_CTC``; :func:`gatbio.data.sequence.residue_matrix`), the convolutions are
"same"-padded, the pooling is over the sequence's own positions only (padding is masked), and :math:`L'` is the
length after the max-pool of width :math:`p`. BN (``norm``) is batch normalisation of the pooled vectors over
the proteins: random convolutions pool to nearly the same vector for every protein, and without it full-batch
training on SHS27k sat for tens of epochs predicting the mode prior before it started to learn.

It is the learnt alternative to the fixed pooled features of :mod:`gatbio.data.sequence` that issue #15 asked to
measure, in the family of PIPR's residual RCNN (Chen et al. 2019) and GNN-PPI's Conv1d + BiGRU encoder (Lv et al.
2021), kept convolutional (no recurrence) so it trains on a CPU. Sequences are processed in ``chunks`` groups of
similar length (sorted once per call), so short sequences do not pay for the padding of long ones.

Shapes:
    - input: x (N, L, d + 1): ``d`` residue channels and a last *mask* channel (1 on residues, 0 on padding)
    - output: (N, D)

References: Chen, M. et al. Multifaceted protein–protein interaction prediction based on Siamese residual RCNN.
Bioinformatics 35(14):i305–i314 (2019); Lv, G. et al. Learning unknown from correlations: graph neural network
for inter-novel-protein interaction prediction. IJCAI 2021.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from gatbio.nn.node_models import _check_float_tensor

__all__ = ["ResidueCNN"]


class ResidueCNN(nn.Module):
    r"""Convolutions over residues, masked max + mean pooling, one linear layer (module docstring).

    Args:
        in_channels: residue channels ``d`` (without the mask channel).
        hidden: output size D. (default: 128)
        channels: channels of every convolution. (default: 64)
        kernel_sizes: one odd kernel width per convolution. (default: ``(7, 5)``)
        pool: width (and stride) of the max-pool after the first convolution. (default: 3)
        dropout: dropout between convolutions and on the output. (default: 0.1)
        chunks: length groups per call (memory / speed trade-off; the result does not depend on it). (default: 8)
        norm: batch norm of the pooled vectors (over the proteins of the call) before the linear layer.
            (default: ``True``)

    Shapes:
        - input: x (N, L, in_channels + 1), the last channel the residue mask
        - output: (N, hidden)
    """

    def __init__(self, in_channels: int, hidden: int = 128, channels: int = 64,
                 kernel_sizes: Sequence[int] = (7, 5), pool: int = 3, dropout: float = 0.1, chunks: int = 8,
                 norm: bool = True):
        super().__init__()
        if not kernel_sizes or any(k < 1 or k % 2 == 0 for k in kernel_sizes):
            raise ValueError(f"kernel_sizes={list(kernel_sizes)}: give one or more odd widths, e.g. [7, 5]")
        if pool < 1 or chunks < 1:
            raise ValueError(f"pool={pool}, chunks={chunks}: both must be >= 1")
        self.in_channels, self.pool, self.dropout, self.chunks = in_channels, pool, dropout, chunks
        sizes = [in_channels] + [channels] * len(kernel_sizes)
        self.convs = nn.ModuleList(nn.Conv1d(a, b, k, padding=k // 2)
                                   for a, b, k in zip(sizes[:-1], sizes[1:], kernel_sizes, strict=True))
        # batch norm of the pooled vectors over the proteins (module docstring: why)
        self.norm = nn.BatchNorm1d(2 * channels) if norm else None
        self.lin = nn.Linear(2 * channels, hidden)

    def reset_parameters(self) -> None:
        for conv in self.convs:
            conv.reset_parameters()
        if self.norm is not None:
            self.norm.reset_parameters()
        self.lin.reset_parameters()

    def _pooled(self, x: Tensor, mask: Tensor) -> Tensor:
        """(n, L, d) residues with their (n, L) mask → (n, 2 C) masked max and mean of the last convolution."""
        m = mask[:, None].to(x.dtype)  # (n, 1, L)
        h = x.transpose(1, 2) * m  # (n, d, L); whatever lies in the padding is never read
        for j, conv in enumerate(self.convs):
            if j:
                h = F.dropout(h, self.dropout, self.training)
            # padding re-zeroed after each activation (ReLU ≥ 0, so a zero never wins a max): a protein's
            # embedding does not depend on how far it is padded, i.e. on the other proteins of its chunk
            h = F.relu(conv(h)) * m
            if j == 0 and self.pool > 1:
                h = F.max_pool1d(h, self.pool, self.pool, ceil_mode=True)
                m = F.max_pool1d(m, self.pool, self.pool, ceil_mode=True)
        keep = m > 0  # (n, 1, L')
        mx = h.masked_fill(~keep, float("-inf")).amax(2)  # (n, C)
        mean = (h * m).sum(2) / m.sum(2).clamp_min(1.0)  # (n, C)
        return torch.cat([mx, mean], dim=1)

    def forward(self, x: Tensor, edge_index: Tensor | None = None, edge_attr: Tensor | None = None) -> Tensor:
        """``edge_index`` / ``edge_attr`` are accepted and ignored (the encoder interface of
        :class:`gatbio.nn.pair_models.PairClassifier`): the encoder sees each sequence alone."""
        if not isinstance(x, Tensor) or x.dim() != 3 or x.size(-1) != self.in_channels + 1:
            shape = tuple(x.shape) if isinstance(x, Tensor) else type(x).__name__
            raise ValueError(f"ResidueCNN expects (N, L, {self.in_channels + 1}) residues with a mask channel "
                             f"(gatbio.data.sequence.residue_matrix), got {shape}")
        _check_float_tensor(x, "x", self.lin.weight.dtype)
        if self.norm is not None and self.training and x.size(0) == 1:  # torch: 'Expected more than 1 value per ...'
            raise ValueError("ResidueCNN(norm=True) batch-normalises the pooled vectors over the sequences of a call: "
                             "in training mode it needs at least 2 sequences, got 1; call model.eval() to embed one "
                             "sequence (or build it with norm=False)")
        mask = x[..., -1] > 0  # (N, L)
        # each sequence's extent: one past its last residue (not the count of mask ones, which would cut off the
        # end of a mask with gaps); the same as the count for the prefix masks of residue_matrix
        pos = torch.arange(1, mask.size(1) + 1, device=mask.device)  # (L,)
        lengths = (mask * pos).amax(1) if mask.size(1) else mask.sum(1)  # (N,)
        if bool((lengths == 0).any()):
            raise ValueError(f"ResidueCNN: {int((lengths == 0).sum())} sequence(s) without a residue")
        out = x.new_zeros(x.size(0), self.lin.in_features)
        for idx in torch.tensor_split(torch.argsort(lengths), self.chunks):
            if idx.numel():
                span = int(lengths[idx].max())
                out[idx] = self._pooled(x[idx, :span, :-1], mask[idx, :span])
        if self.norm is not None:
            out = self.norm(out)
        return F.dropout(F.relu(self.lin(out)), self.dropout, self.training)
