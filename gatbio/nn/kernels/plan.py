"""The graph layout the Triton kernels read: a CSR by target and a CSR by source (plain PyTorch, no Triton)."""

from __future__ import annotations

import torch
from torch import Tensor

# Index tensors are int32 (half the memory) while every index and CSR position fits, else int64.
INT32_LIMIT = 2**31 - 1


class CSRPlan:
    """Both compressed-row layouts of one graph, and its in-degrees.

    The forward kernel walks each target's incoming edges (``rowptr``, ``col``); the value gradient walks
    each source's outgoing edges (``colptr``, ``row``). ``eid`` / ``eid_t`` give each CSR position's edge in
    the order of ``edge_index``, where every (E, H) tensor (bias, attention weights) stays. Within a row the
    edges are sorted by their other end, so that consecutive gathers of feature rows are close in memory.
    Built with static-shape operations only (argsort, index_add, cumsum), so ``torch.compile`` traces it.

    Args:
        edge_index: (2, E) source → target indices (self-loops already added, if any).
        num_src: number of source nodes.
        num_dst: number of target nodes.
    """

    def __init__(self, edge_index: Tensor, num_src: int, num_dst: int):
        src, dst = edge_index[0].long(), edge_index[1].long()
        E, device = src.numel(), src.device
        # The kernels compute every offset in int64 from either index type.
        index = torch.int32 if max(E, num_src, num_dst) < INT32_LIMIT else torch.int64
        self.edge_index = edge_index
        self.num_src, self.num_dst, self.num_edges = num_src, num_dst, E
        self.rowptr, self.col, self.eid = _csr(dst, src, num_dst, num_src, index)
        self.colptr, self.row, self.eid_t = _csr(src, dst, num_src, num_dst, index)
        # In-degrees (self-loops included) of all max(N_src, N_dst) nodes, read as >= 1 (the degree modes).
        n = max(num_src, num_dst)
        self.deg = torch.zeros(n, dtype=torch.float32, device=device).index_add_(
            0, dst, torch.ones(E, dtype=torch.float32, device=device)).clamp_(min=1.0)

    def matches(self, edge_index: Tensor, num_src: int, num_dst: int) -> bool:
        """Whether this plan was built for a graph of these sizes (the indices are not compared)."""
        return (edge_index.size(1), num_src, num_dst) == (self.num_edges, self.num_src, self.num_dst)


def _csr(rows: Tensor, cols: Tensor, n_rows: int, n_cols: int, index: torch.dtype):
    """``(ptr, cols in row order, edge ids in row order)`` of the edges (rows[e], cols[e])."""
    order = torch.argsort(rows * n_cols + cols, stable=True)  # (E,) by row, then column
    count = torch.zeros(n_rows + 1, dtype=torch.long, device=rows.device)
    count.index_add_(0, rows + 1, torch.ones_like(rows))
    ptr = torch.cumsum(count, 0)  # (n_rows + 1,)
    return ptr.to(index), cols.index_select(0, order).to(index), order.to(index)
