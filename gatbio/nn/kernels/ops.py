"""The Triton attention kernels as PyTorch custom operators (``gatbio::attention`` and its backward).

``torch.library.custom_op`` + ``register_fake`` + ``register_autograd``: autograd, ``torch.compile``
(the fake implementations give the output shapes without running a kernel) and the dispatcher see one
opaque operator per pass. :func:`attention` is the Python entry point that :class:`gatbio.nn.GATConv`
calls with ``impl="triton"``: under ``torch.compile`` it calls the operators, in eager mode the same
implementations through :class:`_EagerAttention` (a plain autograd Function, without the dispatch cost).
"""

from __future__ import annotations

import contextlib
import math

import torch
import triton
from torch import Tensor

from gatbio.nn.kernels import attention as K
from gatbio.nn.kernels.plan import CSRPlan

MODES = {"gat": 0, "gatv2": 1, "dot": 2}
# Edge chunks of the GATv2 edge-feature gradient: at most this many programs, each writing one (H, D, C)
# partial sum of dL/dW_e (summed here afterwards; bounded memory, no atomics).
_MAX_EDGE_CHUNKS = 1024


def _blocks(C: int) -> dict:
    # One head's channels, padded to a power of two (masks cover the padding).
    return dict(BLOCK_C=triton.next_power_of_2(C))


# Graphs of fewer edges than this (self-loops included) run each kernel in one fixed configuration
# (attention.SMALL_CONFIG) instead of autotuning it. Why: autotuning compiles every configuration of every kernel
# variant (about 0.3-0.5 s each, ten per variant; a model's two layers, training and evaluation make tens of
# variants) and times each, once per process. On an H200 that was about 40 s of a model's first fit on SHS27k's
# and node2vec-PPI's graphs (the latter 80k edges with self-loops), where later fits took 2.5-5.8 s (node2vec-PPI:
# 47.7 s on the GPU against 4.6 s on 2 CPU cores, 100 epochs each; experiments/gpu_runs/2026-11-26b-h200), while there the kernels
# take microseconds and a tuned configuration cannot win back seconds. With this threshold, from an empty cache on
# the same kind of machine, SHS27k's first fits took 2.8-9.5 s like the later ones, and node2vec-PPI's at most 4.8 s
# (experiments/gpu_runs/2026-11-26c-h200). Set it to 0 to autotune every graph (e.g.
# a long training on one graph of some 100k edges): each kernel variant is then tuned once and the choice kept in
# Triton's disk cache (attention._CACHE_RESULTS).
SMALL_GRAPH_EDGES = 2**17


def _launch(kernel, grid, *args, edges: int, **meta) -> None:
    """Launch ``kernel`` (an autotuner on a GPU) over ``grid``; ``edges``: the graph's edge count, which picks
    autotuning or :data:`SMALL_GRAPH_EDGES`'s one configuration."""
    if grid[0] == 0:
        return
    if K.INTERPRET:  # the interpreter's fixed configuration (no @triton.autotune there)
        meta["BLOCK_E"] = K.INTERPRET_BLOCK_E
    elif edges < SMALL_GRAPH_EDGES:
        kernel = kernel.fn  # the autotuner's own kernel, launched as is
        meta.update(K.small_config(meta["BLOCK_C"]).all_kwargs())
    kernel[grid](*args, **meta)


def _on_device(device: torch.device):
    """Autocast off, and the tensors' GPU made current: Triton launches on the current device, so a model on
    ``cuda:1`` while ``cuda:0`` is current would otherwise run its kernels on the wrong GPU."""
    stack = contextlib.ExitStack()
    stack.enter_context(torch.autocast(device.type, enabled=False))
    if device.type == "cuda":
        stack.enter_context(torch.cuda.device(device))
    return stack


def _deg_key(num_edges: int, num_rows: int) -> int:
    """The autotuning key of a graph's mean degree: the bit length of edges per row (0, 1, 2-3, 4-7, ...)."""
    return (num_edges // max(num_rows, 1)).bit_length()


def _or(t: Tensor | None, placeholder: Tensor) -> Tensor:
    return placeholder if t is None else t.contiguous()


def _flags(mode, a_dst, edge_pre, edge_attr, bias, lam, sym, dropout) -> dict:
    return dict(MODE=mode, HAS_A_DST=a_dst is not None, HAS_EDGE_PRE=edge_pre is not None,
                HAS_EA=edge_attr is not None and mode == 1, HAS_BIAS=bias is not None, LOG_DEG=lam is not None,
                SYM=sym, DROPOUT=dropout > 0.0)


def _w_heads(w_edge: Tensor | None, H: int, C: int) -> Tensor | None:
    """(H*C, D) edge projection → (H, D, C), so a head's row d is contiguous over channels."""
    return None if w_edge is None else w_edge.reshape(H, C, -1).transpose(1, 2).contiguous()


# ---------------------------------------------------------------------------------------------- forward
def attention_impl(
    v: Tensor, a_src: Tensor | None, a_dst: Tensor | None, edge_pre: Tensor | None, xr: Tensor | None,
    att: Tensor | None, edge_attr: Tensor | None, w_edge: Tensor | None, q: Tensor | None,
    k: Tensor | None, bias: Tensor | None, tau: Tensor, lam: Tensor | None, deg: Tensor,
    rowptr: Tensor, col: Tensor, eid: Tensor, colptr: Tensor, row: Tensor, eid_t: Tensor,
    edge_index: Tensor, seed: Tensor, mode: int, sym: bool, negative_slope: float, dropout: float,
    need_alpha: bool,
) -> tuple[Tensor, Tensor, Tensor]:
    """Returns ``out`` (N_dst, H, C), ``lse`` (N_dst, H) and ``alpha`` (E, H) (empty unless ``need_alpha``),
    all float32 whatever ``v``'s dtype: the backward forms its softmax correction δ = g · o from ``out`` and
    reuses the stored ``alpha``, and either rounded to bf16 spoils the gradients whose terms cancel across a
    target's row (GAT's ``att_dst``, the log-degree strengths λ); :func:`attention` casts ``out`` to ``v``'s
    dtype for the caller."""
    N_dst, (H, C), E = rowptr.numel() - 1, v.shape[1:], col.numel()
    D = 0 if edge_attr is None else edge_attr.size(1)
    out = torch.empty(N_dst, H, C, dtype=torch.float32, device=v.device)
    lse = torch.empty(N_dst, H, dtype=torch.float32, device=v.device)
    alpha = torch.empty(E if need_alpha else 0, H, dtype=torch.float32, device=v.device)
    ph = torch.empty(1, dtype=torch.float32, device=v.device)
    with _on_device(v.device):
        _launch(K.attention_fwd, (N_dst * H,),
                rowptr, col, eid, v.contiguous(), _or(a_src, ph), _or(a_dst, ph), _or(edge_pre, ph),
                _or(xr, ph), _or(att, ph), _or(edge_attr, ph), _or(_w_heads(w_edge, H, C), ph), _or(q, ph),
                _or(k, ph), _or(bias, ph), tau.contiguous(), _or(lam, ph), deg, seed, out, lse,
                alpha if need_alpha else ph,
                H, C, D, _deg_key(E, N_dst), float(negative_slope), float(dropout), 1.0 / (1.0 - dropout),
                1.0 / math.sqrt(C),
                **_flags(mode, a_dst, edge_pre, edge_attr, bias, lam, sym, dropout), NEED_ALPHA=need_alpha,
                **_blocks(C), edges=E)
    return out, lse, alpha


attention_op = torch.library.custom_op("gatbio::attention", attention_impl, mutates_args=())


@attention_op.register_fake
def _(v, a_src, a_dst, edge_pre, xr, att, edge_attr, w_edge, q, k, bias, tau, lam, deg, rowptr, col, eid,
      colptr, row, eid_t, edge_index, seed, mode, sym, negative_slope, dropout, need_alpha):
    N_dst, (H, C) = rowptr.shape[0] - 1, v.shape[1:]
    return (v.new_empty(N_dst, H, C, dtype=torch.float32), v.new_empty(N_dst, H, dtype=torch.float32),
            v.new_empty(col.shape[0] if need_alpha else 0, H, dtype=torch.float32))


# --------------------------------------------------------------------------------------------- backward
# The backward operator returns one float32 tensor per differentiable input (empty where a mode has none).
_GRADS = ("v", "a_src", "a_dst", "edge_pre", "xr", "att", "edge_attr", "w_edge", "q", "k", "bias", "tau", "lam")


def attention_backward_impl(
    g: Tensor, galpha: Tensor | None, out: Tensor, lse: Tensor, alpha: Tensor | None,
    v: Tensor, a_src: Tensor | None, a_dst: Tensor | None, edge_pre: Tensor | None, xr: Tensor | None,
    att: Tensor | None, edge_attr: Tensor | None, w_edge: Tensor | None, q: Tensor | None,
    k: Tensor | None, bias: Tensor | None, tau: Tensor, lam: Tensor | None, deg: Tensor,
    rowptr: Tensor, col: Tensor, eid: Tensor, colptr: Tensor, row: Tensor, eid_t: Tensor,
    edge_index: Tensor, seed: Tensor, mode: int, sym: bool, negative_slope: float, dropout: float,
    need_gbias: bool, need_gedge: bool,
) -> list[Tensor]:
    N_dst, N_src, (H, C), E = rowptr.numel() - 1, colptr.numel() - 1, v.shape[1:], col.numel()
    D = 0 if edge_attr is None else edge_attr.size(1)
    dev, f32 = v.device, torch.float32
    ph = torch.empty(1, dtype=f32, device=dev)
    g = g.contiguous()
    flags = _flags(mode, a_dst, edge_pre, edge_attr, bias, lam, sym, dropout)
    blocks = _blocks(C)
    w_heads = _w_heads(w_edge, H, C)
    with _on_device(dev):
        # delta_i = sum_e abar_e dL/dabar_e = g_i . out_i (+ the returned weights' own gradient).
        delta = (g.float() * out.float()).sum(-1)  # (N_dst, H)
        if galpha is not None:
            delta.index_add_(0, edge_index[1], alpha.float() * galpha.float())
        abar = torch.empty(E, H, dtype=f32, device=dev)  # the weights after softmax, degree factor, dropout
        gs = torch.empty(E, H, dtype=f32, device=dev)  # score gradient (gat: of the pre-activation)
        gbias = torch.empty(E, H, dtype=f32, device=dev) if need_gbias and mode == 0 else None
        ga_dst = torch.zeros(N_dst, H, dtype=f32, device=dev) if mode == 0 and a_dst is not None else None
        gx_dst = torch.zeros(N_dst, H, C, dtype=f32, device=dev) if mode != 0 else None
        gatt_rows = torch.zeros(N_dst, H, C, dtype=f32, device=dev) if mode == 1 else None
        gtau_rows = torch.zeros(N_dst, H, dtype=f32, device=dev)
        glam_rows = torch.zeros(N_dst, H, dtype=f32, device=dev) if lam is not None else None
        _launch(K.attention_bwd_dst, (N_dst * H,),
                rowptr, col, eid, v.contiguous(), _or(a_src, ph), _or(a_dst, ph), _or(edge_pre, ph),
                _or(xr, ph), _or(att, ph), _or(edge_attr, ph), _or(w_heads, ph), _or(q, ph), _or(k, ph),
                _or(bias, ph), tau.contiguous(), _or(lam, ph), deg, seed, lse, g, delta, _or(galpha, ph),
                abar, gs, _or(gbias, ph), _or(ga_dst, ph), _or(gx_dst, ph), _or(gatt_rows, ph), gtau_rows,
                _or(glam_rows, ph),
                H, C, D, _deg_key(E, N_dst), float(negative_slope), float(dropout), 1.0 / (1.0 - dropout),
                1.0 / math.sqrt(C),
                **flags, HAS_GALPHA=galpha is not None, NEED_GBIAS=gbias is not None, **blocks, edges=E)

        gv = torch.zeros(N_src, H, C, dtype=f32, device=dev)
        ga_src = torch.zeros(N_src, H, dtype=f32, device=dev) if mode == 0 else None
        gk = torch.zeros(N_src, H, C, dtype=f32, device=dev) if mode == 2 else None
        _launch(K.attention_bwd_src, (N_src * H,),
                colptr, row, eid_t, v.contiguous(), _or(xr, ph), _or(att, ph), _or(edge_attr, ph),
                _or(w_heads, ph), _or(q, ph), g, abar, gs, gv, _or(ga_src, ph), _or(gk, ph),
                H, C, D, _deg_key(E, N_src), float(negative_slope), 1.0 / math.sqrt(C),
                MODE=mode, HAS_EA=flags["HAS_EA"], **blocks, edges=E)

        gea = gw = None
        if flags["HAS_EA"] and need_gedge and E > 0:
            chunk = -(-E // min(_MAX_EDGE_CHUNKS, E))
            chunk = -(-chunk // 16) * 16
            n_chunks = -(-E // chunk)
            gea = torch.empty(E, D, dtype=f32, device=dev)
            gw_chunks = torch.empty(n_chunks, H, D, C, dtype=f32, device=dev)
            _launch(K.gatv2_bwd_edges, (n_chunks,),
                    edge_index[0].contiguous(), edge_index[1].contiguous(), v.contiguous(), xr.contiguous(),
                    att.contiguous(), edge_attr.contiguous(), w_heads, gs, gea, gw_chunks,
                    E, chunk, H, C, D, float(negative_slope), BLOCK_D=triton.next_power_of_2(D), **blocks,
                    edges=E)
            gw = gw_chunks.sum(0).transpose(1, 2).reshape(H * C, D)  # (H, D, C) → (H*C, D)
        elif flags["HAS_EA"] and need_gedge:
            gea = torch.zeros(0, D, dtype=f32, device=dev)
            gw = torch.zeros(H * C, D, dtype=f32, device=dev)

    grads = dict(v=gv, a_src=ga_src, a_dst=ga_dst, edge_pre=gs if mode == 0 and edge_pre is not None else None,
                 xr=gx_dst if mode == 1 else None, att=None if gatt_rows is None else gatt_rows.sum(0),
                 edge_attr=gea, w_edge=gw, q=gx_dst if mode == 2 else None, k=gk,
                 bias=(gbias if mode == 0 else gs) if need_gbias else None,
                 tau=gtau_rows.sum(0), lam=None if glam_rows is None else glam_rows.sum(0))
    # A fresh empty tensor per missing gradient: outputs of a custom operator may not alias each other.
    return [torch.empty(0, dtype=f32, device=dev) if grads[name] is None else grads[name] for name in _GRADS]


attention_backward_op = torch.library.custom_op("gatbio::attention_backward", attention_backward_impl,
                                                mutates_args=())


@attention_backward_op.register_fake
def _(g, galpha, out, lse, alpha, v, a_src, a_dst, edge_pre, xr, att, edge_attr, w_edge, q, k, bias, tau,
      lam, deg, rowptr, col, eid, colptr, row, eid_t, edge_index, seed, mode, sym, negative_slope, dropout,
      need_gbias, need_gedge):
    N_dst, N_src, (H, C), E = rowptr.shape[0] - 1, colptr.shape[0] - 1, v.shape[1:], col.shape[0]
    D = 0 if edge_attr is None else edge_attr.shape[1]
    has_ea = edge_attr is not None and mode == 1 and need_gedge

    def new(present: bool, *shape):
        return v.new_empty(*shape, dtype=torch.float32) if present else v.new_empty(0, dtype=torch.float32)

    return [new(True, N_src, H, C), new(mode == 0, N_src, H), new(mode == 0 and a_dst is not None, N_dst, H),
            new(mode == 0 and edge_pre is not None, E, H), new(mode == 1, N_dst, H, C), new(mode == 1, H, C),
            new(has_ea, E, D), new(has_ea, H * C, D), new(mode == 2, N_dst, H, C), new(mode == 2, N_src, H, C),
            new(need_gbias, E, H), new(True, H), new(lam is not None, H)]


# --------------------------------------------------------------------------------------------- autograd
_TENSOR_INPUTS = ("v", "a_src", "a_dst", "edge_pre", "xr", "att", "edge_attr", "w_edge", "q", "k", "bias",
                  "tau", "lam", "deg", "rowptr", "col", "eid", "colptr", "row", "eid_t", "edge_index", "seed")


def _setup_context(ctx, inputs, output) -> None:
    ctx.mode, ctx.sym, ctx.negative_slope, ctx.dropout, ctx.need_alpha = inputs[len(_TENSOR_INPUTS):]
    out, lse, alpha = output
    ctx.save_for_backward(*inputs[:len(_TENSOR_INPUTS)], out, lse, alpha if ctx.need_alpha else None)


def _backward(ctx, g_out, g_lse, g_alpha, backward=None):
    saved = dict(zip(_TENSOR_INPUTS, ctx.saved_tensors[:len(_TENSOR_INPUTS)], strict=True))
    out, lse, alpha = ctx.saved_tensors[len(_TENSOR_INPUTS):]
    need = dict(zip(_TENSOR_INPUTS, ctx.needs_input_grad, strict=False))
    galpha = g_alpha if ctx.need_alpha and g_alpha is not None else None
    grads = (backward or attention_backward_op)(
        g_out, galpha, out, lse, alpha, **saved, mode=ctx.mode, sym=ctx.sym,
        negative_slope=ctx.negative_slope, dropout=ctx.dropout, need_gbias=need["bias"],
        need_gedge=need["edge_attr"] or need["w_edge"])
    result = []
    for name in _TENSOR_INPUTS:
        if name in _GRADS and need[name] and saved[name] is not None:
            result.append(grads[_GRADS.index(name)].to(saved[name].dtype))
        else:
            result.append(None)
    return (*result, None, None, None, None, None)


attention_op.register_autograd(_backward, setup_context=_setup_context)


class _EagerAttention(torch.autograd.Function):
    """The same forward and backward as the custom operators, called directly: what eager mode runs.

    Why not the operators there too: a ``torch.library.custom_op`` call with this many arguments costs about
    0.23 ms of Python on the host (argument defaults filled in from the schema, alias checks, the dispatcher's
    redispatch through autograd; measured on CPU with the kernels not launched: 250 µs per forward call
    against 17 µs for the function itself, 0.6 ms per forward + backward), more than the kernels take on a
    GPU below a million edges. ``torch.compile`` still traces the operators (:func:`attention`)."""

    @staticmethod
    def forward(ctx, *inputs):
        output = attention_impl(*inputs)
        _setup_context(ctx, inputs, output)
        ctx.mark_non_differentiable(output[1])  # the logsumexp: saved for the backward, never a result
        return output

    @staticmethod
    def backward(ctx, g_out, g_lse, g_alpha):
        # The kernels' backward is not itself differentiable. ``once_differentiable`` would not say so: it flags
        # only a second derivative through the incoming gradients and silently drops the terms through the
        # saved inputs (a gradient penalty got wrong parameter gradients). Grad mode is on here exactly when
        # the caller asked for a graph of the gradients (create_graph=True): refuse that clearly instead.
        if torch.is_grad_enabled():
            raise RuntimeError(
                "GATConv(impl='triton'): second-order gradients (torch.autograd.grad(..., create_graph=True) or "
                "backward(create_graph=True), e.g. a gradient penalty) are not supported by the fused Triton "
                "kernels; build the layer with impl='fused' or impl='reference', which support them")
        return _backward(ctx, g_out, g_lse, g_alpha, backward=attention_backward_impl)


# ------------------------------------------------------------------------------------------- entry point
def attention(
    v: Tensor, plan: CSRPlan, *, attention: str, tau: Tensor,
    a_src: Tensor | None = None, a_dst: Tensor | None = None, edge_pre: Tensor | None = None,
    x_dst: Tensor | None = None, att: Tensor | None = None, edge_attr: Tensor | None = None,
    w_edge: Tensor | None = None, k: Tensor | None = None, bias: Tensor | None = None,
    lam: Tensor | None = None, sym: bool = False, negative_slope: float = 0.2, dropout: float = 0.0,
    need_alpha: bool = False,
) -> tuple[Tensor, Tensor | None]:
    r"""The attention layer from scores to aggregation, fused (see :mod:`gatbio.nn.kernels`).

    Args:
        v: (N_src, H, C) values :math:`V x_j` (for gatv2 also the source term :math:`W_l x_j`).
        plan: the graph's :class:`~gatbio.nn.kernels.CSRPlan` (self-loops already in it).
        attention: ``"gat"``, ``"gatv2"`` or ``"dot"``.
        tau: (H,) temperatures.
        a_src, a_dst: gat: (N_src, H) and (N_dst, H) node terms :math:`a_s^\top W x_j`,
            :math:`a_d^\top W x_i` (``a_dst`` may be ``None``).
        edge_pre: gat: (E, H) edge terms inside the LeakyReLU.
        x_dst: gatv2: (N_dst, H, C) :math:`W_r x_i`; dot: (N_dst, H, C) queries :math:`W_q x_i`.
        att: gatv2: (H, C) attention vector.
        edge_attr, w_edge: gatv2: (E, D) edge features and the (H*C, D) edge projection.
        k: dot: (N_src, H, C) keys.
        bias: (E, H) additive logits (attention bias; dot: plus the edge-feature scores).
        lam: (H,) strengths of the log-degree prior (``degree_norm="log"``).
        sym: multiply by :math:`\sqrt{d_i / d_j}` after the softmax.
        negative_slope: LeakyReLU slope (gat, gatv2).
        dropout: attention dropout probability (in-kernel random numbers from a seed drawn from torch's
            default generator of ``v``'s device).
        need_alpha: also return the (E, H) attention weights (after degree factor and dropout).

    Returns:
        ``(out, alpha)``: (N_dst, H, C) in ``v``'s dtype, and (E, H) float32 or ``None``.
    """
    mode = MODES[attention]
    if dropout > 0.0:
        seed = torch.randint(0, 2**62, (1,), dtype=torch.int64, device=v.device)
    else:
        seed = torch.zeros(1, dtype=torch.int64, device=v.device)

    def c(t: Tensor | None) -> Tensor | None:
        return None if t is None else t.contiguous()

    # Compiled: the custom operator, traced as one opaque node; eager: the same code without its dispatch cost.
    op = attention_op if torch.compiler.is_compiling() else _EagerAttention.apply
    out, _, alpha = op(
        v.contiguous(), c(a_src), c(a_dst), c(edge_pre), c(x_dst) if mode == 1 else None,
        None if att is None else att.reshape(v.size(1), v.size(2)).contiguous(),
        c(edge_attr) if mode == 1 else None, c(w_edge) if mode == 1 and edge_attr is not None else None,
        c(x_dst) if mode == 2 else None, c(k), c(bias), tau.contiguous(), c(lam), plan.deg,
        plan.rowptr, plan.col, plan.eid, plan.colptr, plan.row, plan.eid_t, plan.edge_index, seed,
        mode, sym, float(negative_slope), float(dropout), need_alpha)
    # a differentiable cast: the backward operator gets a float32 gradient and the float32 output
    return out.to(v.dtype), (alpha if need_alpha else None)
