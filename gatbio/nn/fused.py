r"""Graph attention without the (E, H, C) message tensor.

PyG's :class:`~torch_geometric.nn.conv.GATConv` gathers the source features of every edge,
``x_j = x[src]`` of shape (E, H, C), scales them by the attention weights and scatters them onto the
targets. On a STRING-scale graph (20k proteins, 10M scored interactions, 4 heads × 64 channels) that one
tensor is 10 GB, and autograd keeps it for the backward pass. Here the aggregation is a sparse matrix
product instead.

**One sparse product for all heads.** For each head :math:`h` the aggregation is a sparse-dense
product :math:`X'_h = A_h X_h` with :math:`(A_h)_{ij} = \alpha^h_{ij}`. The :math:`H` products are done as
one product with the block matrix :math:`\mathcal{A}` of shape :math:`(N_{dst} H, N_{src} H)` whose row
:math:`iH + h` holds :math:`\alpha^h_{ij}` in column :math:`jH + h` (the heads interleaved, so that an
(N, H, C) tensor is the (N H, C) operand without a copy); the gradients are its transpose and a sampled
product:

.. math::
    X' = \mathcal{A} X, \qquad
    \frac{\partial L}{\partial X} = \mathcal{A}^\top \frac{\partial L}{\partial X'}, \qquad
    \frac{\partial L}{\partial \alpha^h_{ij}} = \Big\langle \frac{\partial L}{\partial X'_{iH+h}},
        X_{jH+h} \Big\rangle .

The forward pass and ``grad_x`` are CSR sparse-dense products (MKL on CPU, cuSPARSE on CUDA) and
``grad_alpha`` is a sampled dense-dense product (SDDMM, :func:`torch.sparse.sampled_addmm`) on the same
sparsity pattern; nothing of size E × H × C is allocated. The CSR layouts of :math:`\mathcal{A}` and
:math:`\mathcal{A}^\top` depend only on the graph: they are built once per graph (:class:`AttentionPlan`)
and reused in the forward and backward pass.

The scores need no (E, H, C) tensor either: GAT scores are sums of per-node terms (E × H), dot-product
scores are an SDDMM (:func:`edge_dot`), edge features enter GAT and dot scores through one
(edge_dim, H) matrix (:func:`fold_edge_attention`), and GATv2 scores, which do need
:math:`\mathrm{LeakyReLU}(W_l x_j + W_r x_i)` per edge, are computed in chunks of edges and recomputed
in the backward pass (:func:`gatv2_scores`).

**Precision** (``torch.autocast``): bf16/fp16 inputs are read as they are and every product and sum runs in
:func:`~gatbio.nn.functional.accumulation_dtype` (float32, or float64 for float64 inputs; the sparse kernels
step out of autocast). Scores (:func:`edge_dot`, :func:`gatv2_scores`, :func:`head_dots`,
:func:`edge_scores`) are returned in that dtype; :func:`attention_aggregate` returns the dtype of
``alpha * x`` (float32 for bf16 features and float32 weights); gradients take their inputs' dtypes.

Shapes: ``N_src``/``N_dst`` source/target nodes, ``E`` edges, ``H`` heads, ``C`` channels per head.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import Tensor
from torch.autograd import Function

from gatbio.nn.functional import accumulation_dtype

__all__ = [
    "AttentionPlan",
    "attention_aggregate",
    "edge_dot",
    "gatv2_scores",
    "fold_edge_attention",
    "edge_scores",
    "head_dots",
]

# Sparse CSR kernels on CPU (MKL) and CUDA (cuSPARSE) cover float32 and float64: bf16/fp16 operands are
# computed in float32 (accumulation_dtype), so the fused path is correct for every floating dtype.
# Elements (edges × H × C) per chunk where an edge-wise (E, H, C) intermediate cannot be avoided.
_CHUNK_ELEMENTS = 1 << 22


# PyTorch's notices on building a sparse tensor, once per process (so once per worker of a parallel run): CSR
# tensors are "beta"; torch 2.11 (not 2.13) also says invariant checks are "implicitly disabled" even where
# check_invariants=False is passed. Neither is for a user: the operations used here (construction, CSR @ dense,
# sampled_addmm) are tested against dense references in tests/nn/test_fused.py.
SPARSE_NOTICES = r"Sparse (CSR tensor support is in beta|invariant checks are implicitly disabled)"


def _csr(crow: Tensor, col: Tensor, values: Tensor, shape: tuple[int, int]) -> Tensor:
    """A CSR tensor from trusted indices (built by :class:`_BlockCSR`, so the invariant check is skipped)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=SPARSE_NOTICES)
        return torch.sparse_csr_tensor(crow, col, values, shape, check_invariants=False)


@dataclass(frozen=True)
class _BlockCSR:
    r"""CSR layout of the head-interleaved block matrix :math:`\mathcal{A}` of a graph.

    Row ``r*H + h``, column ``c*H + h`` holds edge (r, c) of head h, so that an (N, H, C) tensor is the
    (N*H, C) dense operand as it is, without a copy. ``perm[p]`` is the flat index ``e*H + h`` (into an
    (E, H) edge tensor) of the value stored at CSR position p: ``values = edge_values.reshape(-1)[perm]``.

    **Multigraphs.** A repeated edge is one entry per repeat in ``crow`` / ``col``, but the products read a
    matrix with one entry per cell: :meth:`matrix` sums the repeats of each cell first (``merge[p]`` is the
    coalesced entry of CSR position p, with its own ``merged_crow`` / ``merged_col``). Two reasons: cuSPARSE
    rejects a CSR matrix with more stored entries than cells (``cusparseCreateCsr(): dimension mismatch, nnz >
    matrix size``: a tiny graph with many repeated edges, and one head), and the autograd of a CSR tensor with
    repeated entries fails in a second-order gradient (double backward of the aggregation). The per-edge layout (``crow``, ``col``) stays for :meth:`sddmm`, so every
    repeated edge still gets its own gradient (the same one: the cell's).
    """

    crow: Tensor  # (n_rows*H + 1,) int32 (int64 beyond 2**31 entries)
    col: Tensor  # (E*H,)
    perm: Tensor  # (E*H,)
    shape: tuple[int, int]
    merge: Tensor | None = None  # (E*H,) coalesced entry of each CSR position, when an edge is repeated
    merged_crow: Tensor | None = None  # (n_rows*H + 1,)
    merged_col: Tensor | None = None  # (number of distinct cells,)

    @staticmethod
    def build(rows: Tensor, cols: Tensor, n_rows: int, n_cols: int, heads: int) -> _BlockCSR:
        H, E, device = heads, rows.numel(), rows.device
        order = torch.argsort(rows * n_cols + cols)  # (E,) by row, then column (cache locality)
        r = rows.index_select(0, order)  # (E,) sorted rows
        deg = torch.bincount(r, minlength=n_rows)  # (n_rows,)
        ptr = torch.cumsum(deg, 0) - deg  # (n_rows,) first sorted edge of each row
        h = torch.arange(H, device=device)
        # Row r holds its deg[r] edges once per head: edge k of row r, head h sits at
        # H*ptr[r] + h*deg[r] + k = (H-1)*ptr[r] + j + h*deg[r] for the sorted edge j = ptr[r] + k.
        start = (H - 1) * ptr.index_select(0, r) + torch.arange(E, device=device)  # (E,)
        pos = (start.unsqueeze(1) + h * deg.index_select(0, r).unsqueeze(1)).reshape(-1)  # (E*H,)
        perm = torch.empty(E * H, dtype=torch.long, device=device)
        perm[pos] = (order.unsqueeze(1) * H + h).reshape(-1)
        col = torch.empty(E * H, dtype=torch.long, device=device)
        col[pos] = (cols.index_select(0, order).unsqueeze(1) * H + h).reshape(-1)
        crow = torch.zeros(n_rows * H + 1, dtype=torch.long, device=device)
        torch.cumsum(deg.repeat_interleave(H), 0, out=crow[1:])
        merged = (None, None, None)
        keys = (r * n_cols).add_(cols.index_select(0, order))  # (E,) sorted cell of each edge
        if E > 1 and bool((keys[1:] == keys[:-1]).any()):
            # A repeated edge: the products read one entry per cell, its repeats summed. PyTorch's sparse
            # CSR tensors accept repeated entries, but their autograd does not: a second-order gradient through
            # such a matrix fails ("SparseCompressedTensorBackward0 returned an invalid gradient"); the sum of
            # the repeats is differentiable. Once per graph (the plan is cached): one comparison of E keys.
            merged = _BlockCSR._coalesced(crow, col, n_rows * H, n_cols * H)
        if E * H < 2**31 and max(n_rows, n_cols) * H < 2**31:  # int32 indices: half the memory
            crow, col, perm = crow.int(), col.int(), perm.int()
            merged = tuple(None if t is None else t.int() for t in merged)
        return _BlockCSR(crow, col, perm, (n_rows * H, n_cols * H), *merged)

    @staticmethod
    def _coalesced(crow: Tensor, col: Tensor, n_rows: int, n_cols: int) -> tuple[Tensor, Tensor, Tensor]:
        """``(merge, crow, col)`` of the CSR layout with one entry per occupied cell. Within a row the
        entries are sorted by column (:meth:`build` sorts the edges by row, then column), so the repeats of a
        cell are consecutive."""
        row = torch.repeat_interleave(torch.arange(n_rows, device=col.device), crow.diff())  # (nnz,)
        cells, merge = torch.unique_consecutive(row * n_cols + col, return_inverse=True)  # (n_cells,), (nnz,)
        merged_crow = torch.zeros(n_rows + 1, dtype=torch.long, device=col.device)
        torch.cumsum(torch.bincount(cells // n_cols, minlength=n_rows), 0, out=merged_crow[1:])
        return merge, merged_crow, cells % n_cols

    def matrix(self, edge_values: Tensor) -> Tensor:
        """The sparse CSR matrix holding ``edge_values`` (E, H), one entry per cell (repeated edges summed)."""
        values = edge_values.reshape(-1).index_select(0, self.perm)  # (E*H,) CSR order
        if self.merge is None:
            return _csr(self.crow, self.col, values, self.shape)
        summed = values.new_zeros(self.merged_col.numel()).index_add_(0, self.merge, values)  # (n_cells,)
        return _csr(self.merged_crow, self.merged_col, summed, self.shape)

    def spmm(self, edge_values: Tensor, dense: Tensor) -> Tensor:
        """Per-head ``A_h(edge_values) @ dense[:, h]`` for dense (n_cols, H, C) → (n_rows, H, C), computed and
        returned in the accumulation dtype of both operands (float32 for bf16/fp16)."""
        acc = accumulation_dtype(edge_values.dtype, dense.dtype)
        _, H, C = dense.shape
        with torch.autocast(dense.device.type, enabled=False):  # sparse kernels run in the given dtype
            out = self.matrix(edge_values.to(acc)) @ dense.to(acc).reshape(-1, C)  # (n_rows*H, C)
        return out.view(-1, H, C)

    def sddmm(self, a: Tensor, b: Tensor) -> Tensor:
        """``out[e, h] = <a[row(e), h], b[col(e), h]>`` for dense (n_rows, H, C) and (n_cols, H, C) → (E, H),
        computed and returned in the accumulation dtype of both operands (float32 for bf16/fp16)."""
        acc = accumulation_dtype(a.dtype, b.dtype)
        H, C = a.shape[1:]
        a2, b2 = a.to(acc).reshape(-1, C), b.to(acc).reshape(-1, C)  # (n_rows*H, C), (n_cols*H, C)
        nnz, (n_rows, n_cols) = self.col.numel(), self.shape
        with torch.autocast(a.device.type, enabled=False):
            if nnz > n_rows * n_cols:
                # Repeated edges and more of them than matrix cells: sampled_addmm rejects this (PyTorch
                # 2.x), and the dense product is smaller than the edge list anyway.
                row = torch.repeat_interleave(torch.arange(n_rows, device=a.device), self.crow.diff())
                values = (a2 @ b2.t())[row, self.col]  # (E*H,)
            else:
                pattern = _csr(self.crow, self.col, a2.new_zeros(nnz), self.shape)
                values = torch.sparse.sampled_addmm(pattern, a2, b2.t(), beta=0.0).values()  # (E*H,)
        out = torch.empty_like(values)
        out[self.perm] = values  # back to edge order
        return out.view(-1, H)


class AttentionPlan:
    """The sparse layouts of one graph for the fused kernels: :math:`\\mathcal{A}` (rows = targets) and
    :math:`\\mathcal{A}^\\top` (rows = sources), for ``heads`` heads.

    Build it once per graph and pass it to :func:`attention_aggregate` / :func:`edge_dot` to skip the
    sort (O(E log E)) on every call; it holds ``2 E H`` 32-bit integers per direction.

    Args:
        edge_index: (2, E) source → target indices.
        num_src: number of source nodes.
        num_dst: number of target nodes.
        heads: number of attention heads.
    """

    def __init__(self, edge_index: Tensor, num_src: int, num_dst: int, heads: int):
        src, dst = edge_index[0].long(), edge_index[1].long()
        self.num_edges = src.numel()
        self.num_src, self.num_dst, self.heads = num_src, num_dst, heads
        self.fwd = _BlockCSR.build(dst, src, num_dst, num_src, heads)
        self.bwd = _BlockCSR.build(src, dst, num_src, num_dst, heads)

    def matches(self, edge_index: Tensor, num_src: int, num_dst: int, heads: int) -> bool:
        """Whether this plan was built for a graph of these sizes (the indices are not compared)."""
        return (edge_index.size(1), num_src, num_dst, heads) == (
            self.num_edges, self.num_src, self.num_dst, self.heads)


def _plan(plan: AttentionPlan | None, edge_index: Tensor, num_src: int, num_dst: int, heads: int):
    if plan is None:
        return AttentionPlan(edge_index, num_src, num_dst, heads)
    if not plan.matches(edge_index, num_src, num_dst, heads):
        raise ValueError(
            f"the AttentionPlan was built for {plan.num_edges} edges, {plan.num_src} → {plan.num_dst} nodes and "
            f"{plan.heads} heads, but got {edge_index.size(1)} edges, {num_src} → {num_dst} nodes and "
            f"{heads} heads; build a new AttentionPlan for this graph")
    return plan


class _AttentionAggregate(Function):
    @staticmethod
    def forward(ctx, x: Tensor, alpha: Tensor, plan: AttentionPlan) -> Tensor:
        out = plan.fwd.spmm(alpha, x).to(torch.promote_types(x.dtype, alpha.dtype))  # (N_dst, H, C)
        ctx.save_for_backward(x, alpha)
        ctx.plan = plan
        return out

    @staticmethod
    def backward(ctx, grad_out: Tensor):
        x, alpha = ctx.saved_tensors
        plan: AttentionPlan = ctx.plan
        grad_x = grad_alpha = None
        if ctx.needs_input_grad[0]:
            grad_x = plan.bwd.spmm(alpha, grad_out).to(x.dtype)  # A^T g, (N_src, H, C)
        if ctx.needs_input_grad[1]:
            grad_alpha = plan.fwd.sddmm(grad_out, x).to(alpha.dtype)  # (E, H)
        return grad_x, grad_alpha, None


def attention_aggregate(
    x: Tensor, alpha: Tensor, edge_index: Tensor, num_dst: int, plan: AttentionPlan | None = None,
) -> Tensor:
    r"""Attention-weighted sum of source features, :math:`x'_i = \sum_{e: j \to i} \alpha_e\, x_j`, per head.

    Equal to ``torch.zeros(num_dst, H, C).index_add_(0, dst, alpha[..., None] * x[src])`` (PyG's
    message passing) but never builds the (E, H, C) tensor, in the forward or the backward pass.
    Differentiable in ``x`` and ``alpha``.

    Args:
        x: (N_src, H, C) source features (values).
        alpha: (E, H) attention weights of the edges.
        edge_index: (2, E) source → target indices.
        num_dst: number of target nodes.
        plan: the graph's :class:`AttentionPlan` (built here when ``None``).

    Returns:
        (N_dst, H, C) aggregated features (summed in float32 or wider), in the dtype of ``alpha * x``.
    """
    plan = _plan(plan, edge_index, x.size(0), num_dst, x.size(1))
    return _AttentionAggregate.apply(x, alpha, plan)


class _EdgeDot(Function):
    @staticmethod
    def forward(ctx, q: Tensor, k: Tensor, plan: AttentionPlan) -> Tensor:
        ctx.save_for_backward(q, k)
        ctx.plan = plan
        return plan.fwd.sddmm(q, k)  # (E, H)

    @staticmethod
    def backward(ctx, grad_s: Tensor):
        # s_e = <q_dst(e), k_src(e)>: grad_q = A(grad_s) k and grad_k = A(grad_s)^T q are two spmm.
        q, k = ctx.saved_tensors
        plan: AttentionPlan = ctx.plan
        grad_q = grad_k = None
        if ctx.needs_input_grad[0]:
            grad_q = plan.fwd.spmm(grad_s, k).to(q.dtype)  # (N_dst, H, C)
        if ctx.needs_input_grad[1]:
            grad_k = plan.bwd.spmm(grad_s, q).to(k.dtype)  # (N_src, H, C)
        return grad_q, grad_k, None


def edge_dot(q: Tensor, k: Tensor, edge_index: Tensor, plan: AttentionPlan | None = None) -> Tensor:
    r"""Per-edge, per-head dot products :math:`s^h_{ij} = \langle q^h_i, k^h_j \rangle` (an SDDMM).

    Equal to ``(q[dst] * k[src]).sum(-1)`` without the two (E, H, C) gathers; differentiable in both.

    Args:
        q: (N_dst, H, C) target (query) features.
        k: (N_src, H, C) source (key) features.
        edge_index: (2, E) source → target indices.
        plan: the graph's :class:`AttentionPlan` (built here when ``None``).

    Returns:
        (E, H) dot products, in the accumulation dtype of ``q`` and ``k`` (float32 for bf16/fp16).
    """
    plan = _plan(plan, edge_index, k.size(0), q.size(0), q.size(1))
    return _EdgeDot.apply(q, k, plan)


class _GATv2Scores(Function):
    """Chunked :math:`a^\\top \\mathrm{LeakyReLU}(x_j + x_i [+ W_e e_{ij}])`, recomputed in the backward pass.

    PyTorch has no fused kernel for this, and autograd would keep three (E, H, C) tensors; here at most
    one chunk of ``chunk`` edges is alive at a time. Each chunk is computed in the accumulation dtype
    (float32 for bf16/fp16 inputs), outside autocast; the gradients take their inputs' dtypes.
    """

    @staticmethod
    def forward(ctx, x_src, x_dst, att, edge_attr, edge_weight, src, dst, negative_slope, chunk):
        E, H = src.numel(), x_src.size(1)
        acc = _acc_of(x_src, x_dst, att, edge_attr, edge_weight)
        out = torch.empty(E, H, dtype=acc, device=x_src.device)
        with torch.autocast(x_src.device.type, enabled=False):
            att_acc, w_acc = att.to(acc), None if edge_weight is None else edge_weight.to(acc)
            for s in range(0, E, chunk):
                z = _gatv2_pre(x_src, x_dst, edge_attr, w_acc, src, dst, s, s + chunk, acc)  # (e, H, C)
                torch.linalg.vecdot(F.leaky_relu(z, negative_slope), att_acc, out=out[s:s + chunk])
        ctx.save_for_backward(x_src, x_dst, att, edge_attr, edge_weight, src, dst)
        ctx.negative_slope, ctx.chunk = negative_slope, chunk
        return out

    @staticmethod
    def backward(ctx, grad_out):
        x_src, x_dst, att, edge_attr, edge_weight, src, dst = ctx.saved_tensors
        slope, chunk = ctx.negative_slope, ctx.chunk
        E, (H, C) = src.numel(), x_src.shape[1:]
        acc = _acc_of(x_src, x_dst, att, edge_attr, edge_weight)
        need = ctx.needs_input_grad

        def zeros(t: Tensor | None, wanted: bool) -> Tensor | None:  # gradient sums in the accumulation dtype
            return torch.zeros(t.shape, dtype=acc, device=t.device) if t is not None and wanted else None

        g_src, g_dst, g_att = zeros(x_src, need[0]), zeros(x_dst, need[1]), zeros(att, need[2])
        g_ea, g_w = zeros(edge_attr, need[3]), zeros(edge_weight, need[4])
        with torch.autocast(x_src.device.type, enabled=False):
            att_acc, w_acc = att.to(acc), None if edge_weight is None else edge_weight.to(acc)
            grad_out = grad_out.to(acc)
            for s in range(0, E, chunk):
                z = _gatv2_pre(x_src, x_dst, edge_attr, w_acc, src, dst, s, s + chunk, acc)  # (e, H, C)
                go = grad_out[s:s + chunk].unsqueeze(-1)  # (e, H, 1)
                if g_att is not None:
                    g_att += (go * F.leaky_relu(z, slope)).sum(0)
                # d LeakyReLU(z) / dz is 1 where z > 0 and the slope elsewhere: ATen's fused leaky_relu_backward
                # (the same numbers as a where/compare/multiply, in one pass instead of three over (e, H, C)).
                gz = torch.ops.aten.leaky_relu_backward(go * att_acc, z, slope, False)  # (e, H, C)
                if g_src is not None:
                    g_src.index_add_(0, src[s:s + chunk], gz)
                if g_dst is not None:
                    g_dst.index_add_(0, dst[s:s + chunk], gz)
                gz = gz.reshape(gz.size(0), H * C)  # (e, H*C)
                if g_ea is not None:
                    g_ea[s:s + chunk] = gz @ w_acc
                if g_w is not None:
                    g_w += gz.t() @ edge_attr[s:s + chunk].to(acc)

        def cast(g: Tensor | None, like: Tensor | None) -> Tensor | None:
            return None if g is None else g.to(like.dtype)

        return (cast(g_src, x_src), cast(g_dst, x_dst), cast(g_att, att), cast(g_ea, edge_attr),
                cast(g_w, edge_weight), None, None, None, None)


def _acc_of(*tensors: Tensor | None) -> torch.dtype:
    return accumulation_dtype(*(t.dtype for t in tensors if t is not None))


def _gatv2_pre(x_src, x_dst, edge_attr, edge_weight, src, dst, start, stop, dtype) -> Tensor:
    """Pre-activation :math:`x_j + x_i [+ W_e e_{ij}]` of edges ``start:stop`` in ``dtype``, shape (e, H, C)."""
    z = (x_src.index_select(0, src[start:stop]).to(dtype)
         + x_dst.index_select(0, dst[start:stop]).to(dtype))  # (e, H, C)
    if edge_attr is not None:
        z = z + (edge_attr[start:stop].to(dtype) @ edge_weight.t()).view(z.shape)  # (e, H*C) → (e, H, C)
    return z


def gatv2_scores(
    x_src: Tensor, x_dst: Tensor, edge_index: Tensor, att: Tensor, negative_slope: float = 0.2,
    edge_attr: Tensor | None = None, edge_weight: Tensor | None = None, chunk_size: int | None = None,
) -> Tensor:
    r"""GATv2 scores :math:`a_h^\top \mathrm{LeakyReLU}(x_j^h + x_i^h + (W_e e_{ij})^h)`, chunked over edges.

    Equal to :func:`gatbio.nn.functional.gatv2_scores` with ``e_feat = (edge_attr @ edge_weight.T)``, but
    with at most ``chunk_size`` edges' (e, H, C) pre-activations alive at once (forward and backward).

    Args:
        x_src: (N_src, H, C) :math:`W_l x`.
        x_dst: (N_dst, H, C) :math:`W_r x`.
        edge_index: (2, E) source → target indices.
        att: (1, H, C) or (H, C) attention vector.
        negative_slope: LeakyReLU slope.
        edge_attr: optional (E, D) edge features.
        edge_weight: (H*C, D) weight of the edge projection :math:`W_e` (with ``edge_attr``).
        chunk_size: edges per chunk (default: about 4M elements per chunk).

    Returns:
        (E, H) scores in the accumulation dtype of the inputs (float32 for bf16/fp16 projections).
    """
    H, C = x_src.shape[1:]
    if (edge_attr is None) != (edge_weight is None):
        raise ValueError("edge_attr and edge_weight must be given together (edge_weight: the (H*C, D) "
                         "weight of the edge projection)")
    if chunk_size is None:
        chunk_size = max(1, _CHUNK_ELEMENTS // (H * C))
    if chunk_size < 1:
        raise ValueError(f"chunk_size={chunk_size} is not allowed: it must be a positive integer")
    return _GATv2Scores.apply(x_src, x_dst, att.reshape(H, C), edge_attr, edge_weight,
                              edge_index[0], edge_index[1], float(negative_slope), int(chunk_size))


def fold_edge_attention(edge_weight: Tensor, att_edge: Tensor) -> Tensor:
    r"""The (D, H) matrix :math:`M` with :math:`e_{ij} M = (a_e^\top W_e e_{ij})_h`, so that edge-feature
    scores cost (E × D × H) instead of building the (E, H, C) projection :math:`W_e e_{ij}`.

    :math:`M_{dh} = \sum_c (W_e)_{(h, c), d}\, (a_e)_{h, c}`.

    Args:
        edge_weight: (H*C, D) weight of the edge projection (``lin_edge.weight``).
        att_edge: (1, H, C) edge attention vector.

    Returns:
        (D, H) matrix; ``edge_attr @ M`` gives the (E, H) edge scores.
    """
    _, H, C = att_edge.shape
    W = edge_weight.view(H, C, -1)  # (H, C, D)
    return torch.einsum("hcd,hc->dh", W, att_edge.view(H, C))  # (D, H)


def edge_scores(edge_attr: Tensor, edge_weight: Tensor, att_edge: Tensor) -> Tensor:
    r"""Edge-feature scores :math:`(a_e^\top W_e e_{ij})_h` of GAT and dot attention, (E, H), through the
    folded matrix of :func:`fold_edge_attention`, computed in the accumulation dtype of the inputs (outside
    autocast: these are attention logits, not a projection worth running in bf16).

    Args:
        edge_attr: (E, D) edge features.
        edge_weight: (H*C, D) weight of the edge projection (``lin_edge.weight``).
        att_edge: (1, H, C) edge attention vector.

    Returns:
        (E, H) edge scores.
    """
    acc = accumulation_dtype(edge_attr.dtype, edge_weight.dtype, att_edge.dtype)
    with torch.autocast(edge_attr.device.type, enabled=False):
        return edge_attr.to(acc) @ fold_edge_attention(edge_weight.to(acc), att_edge.to(acc))  # (E, H)


def head_dots(x: Tensor, *atts: Tensor) -> list[Tensor]:
    r"""Per-head dot products :math:`(x_n^h)^\top a^h` of node features with attention vectors, as one GEMM.

    Equal to ``[(x * a).sum(-1) for a in atts]``, but done as ``x.view(N, H*C) @ B`` with the
    (H*C, len(atts)*H) block matrix :math:`B_{(h,c),(k,h)} = a_k^{h,c}`: one pass over ``x`` in the
    forward and the backward pass instead of an (N, H, C) product and reduction per vector (the
    memory-bound part of GAT's score computation on wide layers).

    Args:
        x: (N, H, C) node features.
        *atts: attention vectors, each (1, H, C) or (H, C).

    Returns:
        one (N, H) tensor per attention vector, in the accumulation dtype of the inputs (float32 for bf16/fp16
        features: computed outside autocast, as these are attention logits).
    """
    N, H, C = x.shape
    acc = accumulation_dtype(x.dtype, *(a.dtype for a in atts))
    with torch.autocast(x.device.type, enabled=False):
        eye = torch.eye(H, dtype=acc, device=x.device)  # (H, H)
        blocks = [(a.to(acc).reshape(H, C, 1) * eye.view(H, 1, H)).reshape(H * C, H) for a in atts]  # (H*C, H)
        out = x.reshape(N, H * C).to(acc) @ torch.cat(blocks, dim=1)  # (N, K*H)
    return list(out.split(H, dim=1))
