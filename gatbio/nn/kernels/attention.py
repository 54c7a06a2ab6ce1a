r"""The Triton kernels of :mod:`gatbio.nn.kernels` (the math and the design are in that package's docstring).

Four kernels, each a loop over edges in blocks of ``BLOCK_E`` with ``BLOCK_C`` channels (one head's values)
held in registers; every load is cast to float32 and every sum is accumulated in float32:

- :func:`attention_fwd`: one program per (target row, head): online softmax over the row's incoming
  edges, the weighted values accumulated in registers; writes the row's output and logsumexp (and, when
  asked, a second pass writes the attention weights).
- :func:`attention_bwd_dst`: one program per (target row, head): recomputes the weights from the stored
  logsumexp and writes the per-edge weight and score gradient (E, H), plus the target-side gradients.
- :func:`attention_bwd_src`: one program per (source row, head) over the transposed CSR: the value
  gradient and the source-side score gradients, gathered (no atomics).
- :func:`gatv2_bwd_edges`: GATv2 with edge features only: the gradients of the edge features and of the
  edge projection, one program per contiguous chunk of edges (per-chunk partial sums, no atomics).

Pointer arguments a mode does not use receive a placeholder tensor and are never read (every use is behind a
``tl.constexpr`` switch). Index tensors are int32 or int64; offsets are computed in int64.
"""

from __future__ import annotations

import importlib
import inspect
import os

import triton
import triton.language as tl

# Read when the kernels are defined, as Triton itself does: TRITON_INTERPRET=1 runs them on CPU tensors.
INTERPRET = os.environ.get("TRITON_INTERPRET", "0") == "1"
if INTERPRET and not isinstance(tl.standard.sum, importlib.import_module("triton.runtime.interpreter")
                                .InterpretedFunction):
    # triton.language was defined before the variable was set: its own functions (tl.sum, ...) are compiled
    # ones, which the interpreter cannot call.
    raise RuntimeError("TRITON_INTERPRET=1 was set after triton was imported (torch_geometric imports it): "
                       "set it in the environment before Python starts, or before importing torch_geometric "
                       "or gatbio")
# Edges per block in the interpreter (where @triton.autotune is unavailable): small, so that the tests'
# hub rows span many blocks.
INTERPRET_BLOCK_E = 16

# Argument kinds of the kernels (a kernel's signature for ahead-of-time compilation; see the tests).
FLOAT_ARGS = ("slope", "p_drop", "keep_scale", "inv_sqrt_c")
INT_ARGS = ("H", "C", "D", "E", "chunk", "deg_key")
INDEX_ARGS = ("rowptr_ptr", "col_ptr", "eid_ptr", "colptr_ptr", "row_ptr", "src_ptr", "dst_ptr")
FEATURE_ARGS = ("v_ptr", "a_src_ptr", "a_dst_ptr", "xr_ptr", "q_ptr", "k_ptr", "ea_ptr", "out_ptr", "alpha_ptr",
                "g_ptr")

# Configurations tried on a GPU: edges per block × warps. BLOCK_C is the padded head width (not tuned).
_CONFIGS = [
    triton.Config({"BLOCK_E": block_e}, num_warps=warps)
    for block_e, warps in ((8, 4), (16, 1), (16, 2), (16, 4), (16, 8), (32, 2), (32, 4), (64, 4), (64, 8),
                           (128, 8))
]
# The one configuration of a small graph (ops.SMALL_GRAPH_EDGES): no autotuning there. 16 edges × 4 warps hold 8
# values per thread at C = 64 and 32 at C = 256; ptxas (sm_90) reports at most 12 bytes of register spills per
# thread for it in any kernel variant at those widths (tests/nn/triton_aot.py, stage ``spills``, keeps it under
# 16), against up to 220 for 32 edges × 4 warps at C = 256. A row of a typical biological graph (tens of edges)
# is a few blocks. It is one of :data:`_CONFIGS`, each of which tests/nn/test_triton.py checks on a GPU.
SMALL_CONFIG = triton.Config({"BLOCK_E": 16}, num_warps=4)
# The most values of one (BLOCK_E, BLOCK_C) tile a thread may hold. ptxas (sm_90) spills registers beyond: at
# C = 256 with all options on, the forward kernel's configurations of 128 values per thread spilled up to
# 1.6 KB per thread, those of 16-32 values nothing in most variants (tests/nn/triton_aot.py, stage
# ``spills``, checks that each kernel variant keeps a configuration without spills).
_MAX_TILE_PER_THREAD = 64


def _per_thread(config, block_c: int) -> float:
    """Values of one (BLOCK_E, BLOCK_C) tile per thread."""
    return config.kwargs["BLOCK_E"] * block_c / (32 * config.num_warps)


def _prune(configs, named_args, **kwargs):
    """The configurations whose tile fits :data:`_MAX_TILE_PER_THREAD` values per thread at this head width
    (all of them up to C = 64; at C = 256 those of 8-16 edges per block), else the one with the smallest."""
    block_c = {**named_args, **kwargs}["BLOCK_C"]
    kept = [c for c in configs if _per_thread(c, block_c) <= _MAX_TILE_PER_THREAD]
    return kept or [min(configs, key=lambda c: _per_thread(c, block_c))]


def small_config(block_c: int):
    """:data:`SMALL_CONFIG`, or at head widths where its tile would not fit the registers (BLOCK_C ≥ 1024) the
    configuration :func:`_prune` keeps with the smallest tile."""
    if _per_thread(SMALL_CONFIG, block_c) <= _MAX_TILE_PER_THREAD:
        return SMALL_CONFIG
    return min(_CONFIGS, key=lambda c: _per_thread(c, block_c))


# Device functions (called from the kernels). The interpreter re-patches all of triton.language on every
# call of a @triton.jit device function (about 5 ms each, most of a test's time); there they run as plain
# Python instead, inside the kernel's own patched scope (the same code, the same numbers).
_device = (lambda fn: fn) if INTERPRET else triton.jit


# What a configuration's speed depends on, besides the switches: the head width, edge features, and the
# graph's mean degree (edges per row: the length of each program's loop), as ``deg_key`` (its bit length, so a
# new graph of similar degree reuses the tuned choice instead of benchmarking every configuration again).
_ROW_KEY = ("H", "C", "D", "deg_key", "MODE", "HAS_A_DST", "HAS_EDGE_PRE", "HAS_EA", "HAS_BIAS", "LOG_DEG", "SYM",
            "DROPOUT")


def _tuned(*key: str):
    """``@triton.autotune`` over :data:`_CONFIGS` that :func:`_prune` keeps (tuned per value of the ``key``
    arguments, and per dtype of the tensor arguments) on a GPU, the plain kernel in the interpreter
    (``ops._launch`` fixes ``BLOCK_E``).

    The autotuner launches each configuration several times on the same buffers. That is safe here without
    ``reset_to_zero`` / ``restore_value``: no kernel accumulates into its outputs (no atomics; each output
    element is written by one program, from values that launch computed), and the one read-back of an
    output (``gatv2_bwd_edges`` adding head h to the sum of heads < h) starts from a plain write at head 0.
    tests/nn/test_triton.py launches every kernel twice to check it.
    """
    def decorate(kernel):
        return kernel if INTERPRET else triton.autotune(configs=_CONFIGS, key=list(key),
                                                        prune_configs_by={"early_config_prune": _prune},
                                                        **_CACHE_RESULTS)(kernel)
    return decorate


# Tuning results kept in Triton's on-disk cache (beside the compiled kernels, keyed by the kernel's source, the
# configurations, the tuning key, the GPU architecture and the compiler version: an H100 and an H200 share them),
# so a new process does not benchmark every configuration again (the choice of the first process that tuned, even
# one that shared the GPU with other jobs):
# on an H200 each process's first use of a kernel variant spent 1.5-19 s tuning with the binaries already cached
# (experiments/gpu_runs/2026-11-26-h200/bench_layer.json, ``*.warmup_s``). Triton before 3.2 lacks the option.
_CACHE_RESULTS = ({"cache_results": True} if "cache_results" in inspect.signature(triton.autotune).parameters
                  else {})


@_device
def _leaky(x, slope):
    return tl.where(x > 0, x, x * slope)


@_device
def _leaky_grad(x, slope):
    return tl.where(x > 0, 1.0, slope)


@_device
def _add_edge_projection(pre, e, emask, h, C, D, offs_c, cmask, ea_ptr, w_ptr):
    """``pre + e_ij W_e,h`` for a block of edges (BLOCK_E, BLOCK_C): the GATv2 edge term of head h, as D
    rank-one updates from the (E, D) features and the (H, D, C) projection (its rows stay in L1).

    Not ``tl.dot``: with it (float32, as these sums need), ptxas for sm_90 put the edge-gradient kernel at
    4-8 KB of register spills per thread in every autotune configuration (C = 64); edge features are few
    (D = 1..30), so the tensor cores gain little here."""
    for d in range(D):
        pre += (tl.load(ea_ptr + e * D + d, mask=emask, other=0.0).to(tl.float32)[:, None]
                * tl.load(w_ptr + (h * D + d) * C + offs_c, mask=cmask, other=0.0).to(tl.float32)[None, :])
    return pre


@_device
def _edge_logits(
    offs, emask, h, H, C, D, offs_c, cmask,
    nbr_ptr, eid_ptr, v_ptr, a_src_ptr, edge_pre_ptr, ea_ptr, w_ptr, k_ptr, bias_ptr, deg_ptr,
    a_i, x_i, att_h, lam, inv_tau, slope, inv_sqrt_c,
    MODE: tl.constexpr, HAS_EDGE_PRE: tl.constexpr, HAS_EA: tl.constexpr, HAS_BIAS: tl.constexpr,
    LOG_DEG: tl.constexpr,
):
    """Tempered logits of one block of a target row's edges, with what their gradients need.

    Returns ``(j, e, z, pre, rows)``: source indices and edge ids (BLOCK_E,), the logits
    :math:`z = (e - \\lambda \\log d_j + b) / \\tau` (BLOCK_E,), the pre-activation (gat: (BLOCK_E,),
    gatv2: (BLOCK_E, BLOCK_C)) or the key rows (dot), and the value rows (BLOCK_E, BLOCK_C).
    """
    j = tl.load(nbr_ptr + offs, mask=emask, other=0).to(tl.int64)
    e = tl.load(eid_ptr + offs, mask=emask, other=0).to(tl.int64)
    rmask = emask[:, None] & cmask[None, :]
    row_offs = (j * H + h)[:, None] * C + offs_c[None, :]  # (BLOCK_E, BLOCK_C)
    rows = tl.load(v_ptr + row_offs, mask=rmask, other=0.0).to(tl.float32)  # value rows (gatv2: W_l x_j)
    if MODE == 0:  # gat: LeakyReLU(a_s.x_j + a_d.x_i [+ a_e.W_e e_ij])
        pre = tl.load(a_src_ptr + j * H + h, mask=emask, other=0.0).to(tl.float32) + a_i
        if HAS_EDGE_PRE:
            pre += tl.load(edge_pre_ptr + e * H + h, mask=emask, other=0.0).to(tl.float32)
        score = _leaky(pre, slope)
    elif MODE == 1:  # gatv2: a . LeakyReLU(W_l x_j + W_r x_i [+ W_e e_ij])
        pre = rows + x_i[None, :]
        if HAS_EA:
            pre = _add_edge_projection(pre, e, emask, h, C, D, offs_c, cmask, ea_ptr, w_ptr)
        score = tl.sum(_leaky(pre, slope) * att_h[None, :], 1)
    else:  # dot: (W_q x_i).(W_k x_j) / sqrt(C); edge scores arrive in the bias
        pre = tl.load(k_ptr + row_offs, mask=rmask, other=0.0).to(tl.float32)  # key rows
        score = tl.sum(pre * x_i[None, :], 1) * inv_sqrt_c
    if LOG_DEG:
        score -= lam * tl.log(tl.load(deg_ptr + j, mask=emask, other=1.0))
    if HAS_BIAS:
        score += tl.load(bias_ptr + e * H + h, mask=emask, other=0.0).to(tl.float32)
    return j, e, score * inv_tau, pre, rows


@_device
def _edge_factor(j, e, emask, h, H, d_i, deg_ptr, seed, p_drop, keep_scale,
                 SYM: tl.constexpr, DROPOUT: tl.constexpr):
    """What multiplies the softmax weight: the ``sym`` degree factor and the inverted-dropout mask."""
    f = tl.full(j.shape, 1.0, tl.float32)
    if SYM:
        f = tl.sqrt(d_i / tl.load(deg_ptr + j, mask=emask, other=1.0))
    if DROPOUT:
        # One uniform number per (original edge, head): the same in the forward and the backward pass
        # whatever the CSR order, and the same for a given seed.
        f = tl.where(tl.rand(seed, e * H + h) >= p_drop, f * keep_scale, 0.0)
    return f


@_device
def _program_row(ptr_ptr, H, C, BLOCK_C: tl.constexpr):
    """This program's row and head, the row's edge range in the CSR, and the channel lanes.

    Program ``pid`` handles row ``pid // H``, head ``pid % H``: the H programs of one row are adjacent in
    the launch order, so they share the row's CSR entries in cache and their gathers together read whole
    (H*C)-wide feature rows."""
    pid = tl.program_id(0).to(tl.int64)
    row = pid // H
    offs_c = tl.arange(0, BLOCK_C)
    # The edge range in int64 (int32 CSR arrays too): every edge position s + arange(BLOCK_E), and every offset
    # computed from it, is 64-bit (E near 2^31 would otherwise wrap around in the last block).
    start = tl.load(ptr_ptr + row).to(tl.int64)
    end = tl.load(ptr_ptr + row + 1).to(tl.int64)
    return row, pid % H, start, end, offs_c, offs_c < C


@_device
def _row_setup(i, h, H, C, offs_c, cmask, a_dst_ptr, xr_ptr, q_ptr, att_ptr, tau_ptr, lam_ptr, deg_ptr,
               seed_ptr, MODE: tl.constexpr, HAS_A_DST: tl.constexpr, LOG_DEG: tl.constexpr, SYM: tl.constexpr,
               DROPOUT: tl.constexpr, BLOCK_C: tl.constexpr):
    """What a (target row, head) program loads once: 1/tau_h, lambda_h, d_i, the dropout seed, and the
    target's own score terms: a_d.x_i (gat), W_r x_i (gatv2) or W_q x_i (dot), and the attention vector
    (gatv2)."""
    inv_tau = 1.0 / tl.load(tau_ptr + h).to(tl.float32)
    lam = 0.0
    if LOG_DEG:
        lam = tl.load(lam_ptr + h).to(tl.float32)
    d_i = 1.0
    if SYM:
        d_i = tl.load(deg_ptr + i)
    seed = 0
    if DROPOUT:
        seed = tl.load(seed_ptr)
    a_i = 0.0
    x_i = tl.zeros([BLOCK_C], dtype=tl.float32)
    att_h = tl.zeros([BLOCK_C], dtype=tl.float32)
    if MODE == 0:
        if HAS_A_DST:
            a_i = tl.load(a_dst_ptr + i * H + h).to(tl.float32)
    elif MODE == 1:
        x_i = tl.load(xr_ptr + (i * H + h) * C + offs_c, mask=cmask, other=0.0).to(tl.float32)
        att_h = tl.load(att_ptr + h * C + offs_c, mask=cmask, other=0.0).to(tl.float32)
    else:
        x_i = tl.load(q_ptr + (i * H + h) * C + offs_c, mask=cmask, other=0.0).to(tl.float32)
    return inv_tau, lam, d_i, seed, a_i, x_i, att_h


@_tuned(*_ROW_KEY, "NEED_ALPHA")
@triton.jit(do_not_specialize=["deg_key"])  # a key of the autotuner only, unused
def attention_fwd(
    rowptr_ptr, col_ptr, eid_ptr,
    v_ptr, a_src_ptr, a_dst_ptr, edge_pre_ptr, xr_ptr, att_ptr, ea_ptr, w_ptr, q_ptr, k_ptr,
    bias_ptr, tau_ptr, lam_ptr, deg_ptr, seed_ptr,
    out_ptr, lse_ptr, alpha_ptr,
    H, C, D, deg_key, slope, p_drop, keep_scale, inv_sqrt_c,
    MODE: tl.constexpr, HAS_A_DST: tl.constexpr, HAS_EDGE_PRE: tl.constexpr, HAS_EA: tl.constexpr,
    HAS_BIAS: tl.constexpr, LOG_DEG: tl.constexpr, SYM: tl.constexpr, DROPOUT: tl.constexpr,
    NEED_ALPHA: tl.constexpr,
    BLOCK_E: tl.constexpr, BLOCK_C: tl.constexpr,
):
    """out[i, h] = sum_e dropout(softmax(z)_e * f_e) v[j_e, h] and lse[i, h] = logsumexp_e z_e."""
    i, h, start, end, offs_c, cmask = _program_row(rowptr_ptr, H, C, BLOCK_C)
    inv_tau, lam, d_i, seed, a_i, x_i, att_h = _row_setup(
        i, h, H, C, offs_c, cmask, a_dst_ptr, xr_ptr, q_ptr, att_ptr, tau_ptr, lam_ptr, deg_ptr, seed_ptr,
        MODE, HAS_A_DST, LOG_DEG, SYM, DROPOUT, BLOCK_C)

    m_i = tl.full([], float("-inf"), tl.float32)  # running maximum of the logits
    l_i = tl.zeros([], dtype=tl.float32)  # running sum of exp(z - m_i)
    acc = tl.zeros([BLOCK_C], dtype=tl.float32)  # running sum of exp(z - m_i) f v_j
    for s in range(start, end, BLOCK_E):
        offs = s + tl.arange(0, BLOCK_E)
        emask = offs < end
        j, e, z, pre, rows = _edge_logits(
            offs, emask, h, H, C, D, offs_c, cmask,
            col_ptr, eid_ptr, v_ptr, a_src_ptr, edge_pre_ptr, ea_ptr, w_ptr, k_ptr, bias_ptr, deg_ptr,
            a_i, x_i, att_h, lam, inv_tau, slope, inv_sqrt_c,
            MODE, HAS_EDGE_PRE, HAS_EA, HAS_BIAS, LOG_DEG)
        z = tl.where(emask, z, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(z, 0))
        # every logit so far -inf (an attention bias of -inf masks an edge): exp(-inf - -inf) would be NaN
        m_safe = tl.where(m_new == float("-inf"), 0.0, m_new)
        rescale = tl.exp(m_i - m_safe)
        p = tl.exp(z - m_safe)  # (BLOCK_E,), 0 on masked lanes
        l_i = l_i * rescale + tl.sum(p, 0)
        w = p * _edge_factor(j, e, emask, h, H, d_i, deg_ptr, seed, p_drop, keep_scale, SYM, DROPOUT)
        acc = acc * rescale + tl.sum(w[:, None] * rows, 0)
        m_i = m_new

    has_edges = l_i > 0.0  # an unmasked edge (the largest logit adds exp(0) = 1); else a zero row, lse 0
    l_safe = tl.where(has_edges, l_i, 1.0)
    lse = tl.where(has_edges, m_i + tl.log(l_safe), 0.0)
    tl.store(out_ptr + (i * H + h) * C + offs_c, (acc / l_safe).to(out_ptr.dtype.element_ty), mask=cmask)
    tl.store(lse_ptr + i * H + h, lse)

    if NEED_ALPHA:  # second pass: the attention weights themselves, from the final logsumexp
        for s in range(start, end, BLOCK_E):
            offs = s + tl.arange(0, BLOCK_E)
            emask = offs < end
            j, e, z, pre, rows = _edge_logits(
                offs, emask, h, H, C, D, offs_c, cmask,
                col_ptr, eid_ptr, v_ptr, a_src_ptr, edge_pre_ptr, ea_ptr, w_ptr, k_ptr, bias_ptr, deg_ptr,
                a_i, x_i, att_h, lam, inv_tau, slope, inv_sqrt_c,
                MODE, HAS_EDGE_PRE, HAS_EA, HAS_BIAS, LOG_DEG)
            alpha = tl.exp(z - lse) * _edge_factor(j, e, emask, h, H, d_i, deg_ptr, seed, p_drop, keep_scale,
                                                   SYM, DROPOUT)
            tl.store(alpha_ptr + e * H + h, alpha.to(alpha_ptr.dtype.element_ty), mask=emask)


@_tuned(*_ROW_KEY, "HAS_GALPHA", "NEED_GBIAS")
@triton.jit(do_not_specialize=["deg_key"])  # a key of the autotuner only, unused
def attention_bwd_dst(
    rowptr_ptr, col_ptr, eid_ptr,
    v_ptr, a_src_ptr, a_dst_ptr, edge_pre_ptr, xr_ptr, att_ptr, ea_ptr, w_ptr, q_ptr, k_ptr,
    bias_ptr, tau_ptr, lam_ptr, deg_ptr, seed_ptr,
    lse_ptr, g_ptr, delta_ptr, galpha_ptr,
    abar_ptr, gs_ptr, gbias_ptr, ga_dst_ptr, gx_dst_ptr, gatt_ptr, gtau_ptr, glam_ptr,
    H, C, D, deg_key, slope, p_drop, keep_scale, inv_sqrt_c,
    MODE: tl.constexpr, HAS_A_DST: tl.constexpr, HAS_EDGE_PRE: tl.constexpr, HAS_EA: tl.constexpr,
    HAS_BIAS: tl.constexpr, LOG_DEG: tl.constexpr, SYM: tl.constexpr, DROPOUT: tl.constexpr,
    HAS_GALPHA: tl.constexpr, NEED_GBIAS: tl.constexpr,
    BLOCK_E: tl.constexpr, BLOCK_C: tl.constexpr,
):
    """Per target row and head: the weights abar_e (recomputed), the score gradient gs_e, and the row's
    own gradients (a_d.x_i, W_r x_i or W_q x_i; partial sums for tau, lambda and the GATv2 vector a)."""
    i, h, start, end, offs_c, cmask = _program_row(rowptr_ptr, H, C, BLOCK_C)
    inv_tau, lam, d_i, seed, a_i, x_i, att_h = _row_setup(
        i, h, H, C, offs_c, cmask, a_dst_ptr, xr_ptr, q_ptr, att_ptr, tau_ptr, lam_ptr, deg_ptr, seed_ptr,
        MODE, HAS_A_DST, LOG_DEG, SYM, DROPOUT, BLOCK_C)
    lse = tl.load(lse_ptr + i * H + h)
    delta = tl.load(delta_ptr + i * H + h)  # sum_e abar_e dL/dabar_e = g_i . out_i (+ alpha terms)
    g_i = tl.load(g_ptr + (i * H + h) * C + offs_c, mask=cmask, other=0.0).to(tl.float32)

    acc_x = tl.zeros([BLOCK_C], dtype=tl.float32)  # dL/d(W_r x_i) (gatv2) or dL/d(W_q x_i) (dot)
    acc_att = tl.zeros([BLOCK_C], dtype=tl.float32)  # this row's share of dL/da (gatv2)
    acc_a = tl.zeros([], dtype=tl.float32)  # dL/d(a_d.x_i) (gat)
    acc_tau = tl.zeros([], dtype=tl.float32)  # sum_e dL/dz_e z_e
    acc_lam = tl.zeros([], dtype=tl.float32)  # sum_e dL/du_e log d_j
    for s in range(start, end, BLOCK_E):
        offs = s + tl.arange(0, BLOCK_E)
        emask = offs < end
        j, e, z, pre, rows = _edge_logits(
            offs, emask, h, H, C, D, offs_c, cmask,
            col_ptr, eid_ptr, v_ptr, a_src_ptr, edge_pre_ptr, ea_ptr, w_ptr, k_ptr, bias_ptr, deg_ptr,
            a_i, x_i, att_h, lam, inv_tau, slope, inv_sqrt_c,
            MODE, HAS_EDGE_PRE, HAS_EA, HAS_BIAS, LOG_DEG)
        p = tl.where(emask, tl.exp(z - lse), 0.0)
        f = _edge_factor(j, e, emask, h, H, d_i, deg_ptr, seed, p_drop, keep_scale, SYM, DROPOUT)
        abar = p * f
        g_abar = tl.sum(rows * g_i[None, :], 1)  # dL/dabar_e = g_i . v_j
        if HAS_GALPHA:
            g_abar += tl.load(galpha_ptr + e * H + h, mask=emask, other=0.0).to(tl.float32)
        g_z = tl.where(emask, p * (g_abar * f - delta), 0.0)  # softmax backward
        g_u = g_z * inv_tau  # dL/du: the gradient of the score, of the bias and (negated) of the prior
        acc_tau += tl.sum(g_z * tl.where(emask & (p > 0.0), z, 0.0), 0)  # a masked edge: g_z = 0, z = -inf
        if LOG_DEG:
            acc_lam += tl.sum(g_u * tl.log(tl.load(deg_ptr + j, mask=emask, other=1.0)), 0)
        tl.store(abar_ptr + e * H + h, abar, mask=emask)
        if NEED_GBIAS:
            tl.store(gbias_ptr + e * H + h, g_u, mask=emask)
        if MODE == 0:
            g_pre = g_u * _leaky_grad(pre, slope)
            acc_a += tl.sum(g_pre, 0)
            tl.store(gs_ptr + e * H + h, g_pre, mask=emask)
        elif MODE == 1:
            acc_att += tl.sum(g_u[:, None] * _leaky(pre, slope), 0)
            acc_x += tl.sum(g_u[:, None] * att_h[None, :] * _leaky_grad(pre, slope), 0)
            tl.store(gs_ptr + e * H + h, g_u, mask=emask)
        else:
            acc_x += tl.sum(g_u[:, None] * pre, 0) * inv_sqrt_c
            tl.store(gs_ptr + e * H + h, g_u, mask=emask)

    tl.store(gtau_ptr + i * H + h, -acc_tau * inv_tau)
    if LOG_DEG:
        tl.store(glam_ptr + i * H + h, -acc_lam)
    if MODE == 0:
        if HAS_A_DST:
            tl.store(ga_dst_ptr + i * H + h, acc_a)
    else:
        tl.store(gx_dst_ptr + (i * H + h) * C + offs_c, acc_x, mask=cmask)
        if MODE == 1:
            tl.store(gatt_ptr + (i * H + h) * C + offs_c, acc_att, mask=cmask)


@_tuned("H", "C", "D", "deg_key", "MODE", "HAS_EA")
@triton.jit(do_not_specialize=["deg_key"])  # a key of the autotuner only, unused
def attention_bwd_src(
    colptr_ptr, row_ptr, eid_ptr,
    v_ptr, xr_ptr, att_ptr, ea_ptr, w_ptr, q_ptr, g_ptr, abar_ptr, gs_ptr,
    gv_ptr, ga_src_ptr, gk_ptr,
    H, C, D, deg_key, slope, inv_sqrt_c,
    MODE: tl.constexpr, HAS_EA: tl.constexpr,
    BLOCK_E: tl.constexpr, BLOCK_C: tl.constexpr,
):
    """Per source row and head, over its outgoing edges (the transposed CSR): dL/dv_j = sum_e abar_e g_i,
    plus the source side of the score gradient (a_s.x_j for gat, W_l x_j for gatv2, W_k x_j for dot)."""
    j, h, start, end, offs_c, cmask = _program_row(colptr_ptr, H, C, BLOCK_C)
    x_j = tl.zeros([BLOCK_C], dtype=tl.float32)
    att_h = tl.zeros([BLOCK_C], dtype=tl.float32)
    if MODE == 1:
        x_j = tl.load(v_ptr + (j * H + h) * C + offs_c, mask=cmask, other=0.0).to(tl.float32)
        att_h = tl.load(att_ptr + h * C + offs_c, mask=cmask, other=0.0).to(tl.float32)

    acc_v = tl.zeros([BLOCK_C], dtype=tl.float32)
    acc_k = tl.zeros([BLOCK_C], dtype=tl.float32)
    acc_a = tl.zeros([], dtype=tl.float32)
    for s in range(start, end, BLOCK_E):
        offs = s + tl.arange(0, BLOCK_E)
        emask = offs < end
        i = tl.load(row_ptr + offs, mask=emask, other=0).to(tl.int64)
        e = tl.load(eid_ptr + offs, mask=emask, other=0).to(tl.int64)
        rmask = emask[:, None] & cmask[None, :]
        row_offs = (i * H + h)[:, None] * C + offs_c[None, :]
        abar = tl.load(abar_ptr + e * H + h, mask=emask, other=0.0)
        gs = tl.load(gs_ptr + e * H + h, mask=emask, other=0.0)
        g_rows = tl.load(g_ptr + row_offs, mask=rmask, other=0.0).to(tl.float32)  # dL/dout_i
        acc_v += tl.sum(abar[:, None] * g_rows, 0)
        if MODE == 0:
            acc_a += tl.sum(gs, 0)
        elif MODE == 1:
            pre = x_j[None, :] + tl.load(xr_ptr + row_offs, mask=rmask, other=0.0).to(tl.float32)
            if HAS_EA:
                pre = _add_edge_projection(pre, e, emask, h, C, D, offs_c, cmask, ea_ptr, w_ptr)
            acc_v += tl.sum(gs[:, None] * att_h[None, :] * _leaky_grad(pre, slope), 0)
        else:
            q_rows = tl.load(q_ptr + row_offs, mask=rmask, other=0.0).to(tl.float32)
            acc_k += tl.sum(gs[:, None] * q_rows, 0)

    tl.store(gv_ptr + (j * H + h) * C + offs_c, acc_v, mask=cmask)
    if MODE == 0:
        tl.store(ga_src_ptr + j * H + h, acc_a)
    elif MODE == 2:
        tl.store(gk_ptr + (j * H + h) * C + offs_c, acc_k * inv_sqrt_c, mask=cmask)


@_tuned("H", "C", "D")
@triton.jit
def gatv2_bwd_edges(
    src_ptr, dst_ptr, v_ptr, xr_ptr, att_ptr, ea_ptr, w_ptr, gs_ptr,
    gea_ptr, gw_ptr,
    E, chunk, H, C, D, slope,
    BLOCK_E: tl.constexpr, BLOCK_C: tl.constexpr, BLOCK_D: tl.constexpr,
):
    """GATv2 edge features: dL/de_ij = sum_h W_e,h^T dpre and this chunk's share of dL/dW_e (H, D, C).

    Edges in their original order, ``chunk`` per program; heads in an inner loop, so each edge's
    gradient is summed over heads in place by the one program that owns it.
    """
    pid = tl.program_id(0).to(tl.int64)
    lo = pid * chunk
    hi = tl.minimum(lo + chunk, E)
    offs_c = tl.arange(0, BLOCK_C)
    cmask = offs_c < C
    offs_d = tl.arange(0, BLOCK_D)
    dmask = offs_d < D
    for hh in range(H):
        h = tl.cast(hh, tl.int64)  # 64-bit offsets throughout
        att_h = tl.load(att_ptr + h * C + offs_c, mask=cmask, other=0.0).to(tl.float32)
        acc_w = tl.zeros([BLOCK_D, BLOCK_C], dtype=tl.float32)
        for s in range(lo, hi, BLOCK_E):
            e = s + tl.arange(0, BLOCK_E)
            emask = e < hi
            j = tl.load(src_ptr + e, mask=emask, other=0).to(tl.int64)
            i = tl.load(dst_ptr + e, mask=emask, other=0).to(tl.int64)
            rmask = emask[:, None] & cmask[None, :]
            pre = (tl.load(v_ptr + (j * H + h)[:, None] * C + offs_c[None, :], mask=rmask, other=0.0)
                   .to(tl.float32)
                   + tl.load(xr_ptr + (i * H + h)[:, None] * C + offs_c[None, :], mask=rmask, other=0.0)
                   .to(tl.float32))
            pre = _add_edge_projection(pre, e, emask, h, C, D, offs_c, cmask, ea_ptr, w_ptr)
            gs = tl.load(gs_ptr + e * H + h, mask=emask, other=0.0)
            g_pre = tl.where(rmask, gs[:, None] * att_h[None, :] * _leaky_grad(pre, slope), 0.0)
            # dW_e += e^T g_pre and de = g_pre W_e^T, one feature d at a time (not tl.dot: see above; with
            # tl.dot this kernel spilled 4-8 KB per thread in every autotune configuration).
            g_ea = tl.zeros([BLOCK_E, BLOCK_D], dtype=tl.float32)
            for d in range(D):
                ea_d = tl.load(ea_ptr + e * D + d, mask=emask, other=0.0).to(tl.float32)
                w_d = tl.load(w_ptr + (h * D + d) * C + offs_c, mask=cmask, other=0.0).to(tl.float32)
                acc_w += tl.where(offs_d[:, None] == d, tl.sum(ea_d[:, None] * g_pre, 0)[None, :], 0.0)
                g_ea += tl.where(offs_d[None, :] == d, tl.sum(g_pre * w_d[None, :], 1)[:, None], 0.0)
            ea_mask = emask[:, None] & dmask[None, :]
            ea_offs = e[:, None] * D + offs_d[None, :]
            g_ea += tl.load(gea_ptr + ea_offs, mask=ea_mask & (h > 0), other=0.0)
            tl.store(gea_ptr + ea_offs, g_ea, mask=ea_mask)
        tl.store(gw_ptr + ((pid * H + h) * D + offs_d[:, None]) * C + offs_c[None, :], acc_w,
                 mask=dmask[:, None] & cmask[None, :])
        # The next head reads back this head's gea: make every thread's stores visible to the whole block.
        tl.debug_barrier()
