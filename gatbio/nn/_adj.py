r"""The adjacency forms the attention layer accepts: every form of PyG's ``Adj``, read as one edge list.

PyG layers take the graph either as an edge list ``edge_index`` of shape (2, E), row 0 the sources and row 1
the targets, or as the *transposed* sparse adjacency matrix :math:`A^\top` of shape (N_dst, N_src), whose entry
(i, j) is the edge j → i: a ``torch.sparse`` tensor (COO, CSR or CSC) or a ``torch_sparse.SparseTensor``,
usually written ``adj.t()`` (see :meth:`torch_geometric.nn.conv.MessagePassing.propagate`). The layer reads a
sparse adjacency as the edge list of its stored entries, in the order of
:func:`torch_geometric.utils.to_edge_index` (COO in stored order, CSR row by row, CSC column by column), so
that ``attn_bias`` and ``edge_attr`` given for a sparse input are given per stored entry in that order.

What the layer returns as attention weights follows PyG's ``GATConv`` for each input form:

- ``edge_index`` → ``(edge_index', alpha)`` with alpha (E', H) in the order of ``edge_index'`` (a plain tensor
  for a PyG ``EdgeIndex`` too, whose sparse size is the layer's ``size`` when none is given);
- ``torch.sparse`` → ``(adj', alpha)``: ``adj'`` in the input's layout, of shape (N_dst, N_src, H), holding
  alpha at each entry, alpha (E', H) in the order of those entries;
- ``SparseTensor`` → ``adj'`` alone, holding alpha (E', H) as its values.

With self-loops added, an uncoalesced COO input's repeated entries are merged into one edge first (as PyG does;
without self-loops each stored entry is an edge, as in PyG), and PyG builds ``adj'`` by coalescing (sorting the entries by row, or by column for CSC)
the stored entries without their self-loops followed by one loop per node; without, ``adj'`` has the input's
own entries.

Edge features of a sparse input, as in PyG: the ``edge_attr`` argument when given (one row per stored entry),
else, for a layer with ``edge_dim``, the stored values: those of a ``SparseTensor``, or those of a
``torch.sparse`` tensor when they have a feature dimension (a hybrid tensor of shape (N_dst, N_src, D)); a
``torch.sparse`` tensor's scalar values are edge weights and are not read.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import torch
from torch import Tensor
from torch_geometric import EdgeIndex
from torch_geometric.typing import SparseTensor
from torch_geometric.utils import (
    coalesce,
    is_sparse,
    to_edge_index,
    to_torch_coo_tensor,
    to_torch_csc_tensor,
    to_torch_csr_tensor,
)

from gatbio.nn.fused import SPARSE_NOTICES

_BUILD = {torch.sparse_coo: to_torch_coo_tensor, torch.sparse_csr: to_torch_csr_tensor,
          torch.sparse_csc: to_torch_csc_tensor}


@dataclass(frozen=True)
class SparseAdjacency:
    """A sparse adjacency as given to the layer, kept to return the attention weights in its form."""

    adj: object  # torch.sparse tensor or torch_sparse.SparseTensor, shape (N_dst, N_src)
    num_src: int
    num_dst: int


def read_adjacency(
    adj,
    size: tuple[int, int] | None,
    edge_attr: Tensor | None,
    edge_dim: int | None,
    add_self_loops: bool,
    per_entry: bool = False,
) -> tuple[Tensor, Tensor | None, tuple[int, int] | None, SparseAdjacency | None]:
    """``(edge_index, edge_attr, size, sparse)`` of any adjacency form; ``sparse`` is None for an edge list.

    ``per_entry``: the caller has values per stored entry (``attn_bias``); a COO input whose repeated entries
    ``add_self_loops`` merges is then refused.

    An edge list (anything but a sparse adjacency) is returned as given, for the layer's own checks; a PyG
    ``EdgeIndex`` as its plain (2, E) tensor, ``size`` defaulting to its sparse size (as PyG's ``MessagePassing``
    reads it). The fused and Triton paths index raw storage, which the ``EdgeIndex`` subclass does not give.
    """
    if isinstance(adj, EdgeIndex):
        rows, cols = adj.sparse_size()  # (N_src, N_dst); None where unknown
        if size is not None and any(n is not None and n != m for n, m in zip((rows, cols), size, strict=True)):
            raise ValueError(f"size={tuple(size)} disagrees with the EdgeIndex's sparse_size {(rows, cols)}; leave "
                             "size out, or build the EdgeIndex with sparse_size=size")
        if size is None and rows is not None and cols is not None:
            size = (rows, cols)
        return adj.as_tensor(), edge_attr, size, None
    if not is_sparse(adj):
        return adj, edge_attr, size, None
    if isinstance(adj, SparseTensor):
        if add_self_loops and edge_dim is not None:
            # PyG's contract (its tests expect this error): torch_sparse has no way to fill loop features.
            raise NotImplementedError(
                "edge features with add_self_loops=True are not supported for an adjacency given as a "
                "torch_sparse.SparseTensor (as in PyG); pass edge_index and edge_attr, a torch.sparse "
                "tensor, or add_self_loops=False")
        row, col, value = adj.coo()  # (E,) each, row = target, col = source
        num_dst, num_src = adj.sparse_sizes()
    else:
        if adj.dim() not in (2, 3) or adj.sparse_dim() != 2:
            raise ValueError(f"a sparse adjacency must be a (N_dst, N_src) matrix with optional edge features "
                             f"(N_dst, N_src, D); got shape {tuple(adj.shape)} with {adj.sparse_dim()} sparse "
                             "dimensions")
        if adj.layout == torch.sparse_coo:
            if add_self_loops and not adj.is_coalesced():
                # PyG merges repeated entries of an uncoalesced COO input when it adds self-loops (and keeps
                # them without): so does the layer. Per-entry edge_attr / attn_bias then have no entry to go to.
                merged = adj.coalesce()
                if merged._nnz() != adj._nnz():
                    if edge_attr is not None or per_entry:
                        raise ValueError(
                            f"the COO adjacency stores {adj._nnz() - merged._nnz()} repeated entries, which "
                            "add_self_loops=True merges (as PyG): per-entry edge_attr / attn_bias cannot follow; "
                            "coalesce it first (adj.coalesce(), features summed) or pass edge_index")
                    adj = merged
            # to_edge_index would mark the caller's tensor coalesced in place; read the stored order as it is.
            (row, col), value = adj._indices(), adj._values()
        else:
            (row, col), value = to_edge_index(adj)
        num_dst, num_src = adj.shape[0], adj.shape[1]
        if value.dim() == 1:  # scalar values are edge weights, not edge features (PyG's rule)
            value = None
    if size is not None and tuple(size) != (num_src, num_dst):
        raise ValueError(f"size={tuple(size)} disagrees with the sparse adjacency of shape ({num_dst}, {num_src}), "
                         f"which is (N_dst, N_src) and so means size=({num_src}, {num_dst}); "
                         "leave size out for a sparse adjacency")
    if edge_attr is None and edge_dim is not None and value is not None:
        width = 1 if value.dim() == 1 else value.size(-1)
        if width != edge_dim and edge_dim != -1:
            raise ValueError(f"the sparse adjacency stores edge features of shape {tuple(value.shape)}, "
                             f"but this layer was built with edge_dim={edge_dim}; pass edge_attr, or values "
                             f"of width {edge_dim}")
        edge_attr = value
    edge_index = torch.stack([col, row]).long()  # (2, E): source → target
    return edge_index, edge_attr, (num_src, num_dst), SparseAdjacency(adj, num_src, num_dst)


def attention_like(sparse: SparseAdjacency, edge_index: Tensor, alpha: Tensor, looped: bool):
    """Attention weights in PyG's return form for a sparse input (see the module docstring).

    ``edge_index`` (2, E') and ``alpha`` (E', H) are the layer's final edge list and weights: the input's
    stored entries in order (without their self-loops when ``looped``), then the added self-loops.
    """
    adj, size = sparse.adj, (sparse.num_dst, sparse.num_src)
    if not looped:  # the input's own entries, in their order
        if isinstance(adj, SparseTensor):
            return adj.set_value(alpha, layout="coo")
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=SPARSE_NOTICES)
            if adj.layout == torch.sparse_coo:
                # As set_sparse_value, reading indices without the coalesced flag to_edge_index would have set.
                out = torch.sparse_coo_tensor(adj._indices(), alpha, size + alpha.shape[1:], device=alpha.device)
                return out.coalesce(), alpha
            # Built from the compressed indices, not with set_sparse_value: that keeps the trailing feature
            # dimension of a hybrid input (N_dst, N_src, D), where the weights need (N_dst, N_src, H).
            if adj.layout == torch.sparse_csr:
                out = torch.sparse_csr_tensor(adj.crow_indices(), adj.col_indices(), alpha, size + alpha.shape[1:])
            else:
                out = torch.sparse_csc_tensor(adj.ccol_indices(), adj.row_indices(), alpha, size + alpha.shape[1:])
            return out, alpha
    by_row = isinstance(adj, SparseTensor) or adj.layout != torch.sparse_csc
    index, alpha = coalesce(edge_index.flip(0), alpha, max(size), sort_by_row=by_row)  # (2, E'), (E', H)
    if isinstance(adj, SparseTensor):
        return SparseTensor(row=index[0], col=index[1], value=alpha, sparse_sizes=size, is_sorted=True)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=SPARSE_NOTICES)
        return _BUILD[adj.layout](index, alpha, size, is_coalesced=True), alpha
