r"""Fused Triton kernels of the attention layer: ``GATConv(..., impl="triton")``.

The projections (``Linear`` layers, GAT's per-node terms :math:`a^\top W x`, the folded edge-feature scores
of GAT and dot attention) stay in PyTorch; everything per edge happens in the kernels, in the order of
:class:`gatbio.nn.GATConv`'s docstring. For an edge :math:`e = (j \to i)` and head :math:`h`:

.. math::
    u_e &= e_{ij}^h - [\lambda_h \log d_j]_{\text{log}} + b_e^h, \qquad z_e = u_e / \tau_h
        && \text{(score, degree prior, bias, temperature)} \\
    p_e &= \exp(z_e - \mathrm{lse}_i), \qquad
        \mathrm{lse}_i = \log \textstyle\sum_{e' \to i} \exp z_{e'}
        && \text{(softmax over the target's incoming edges)} \\
    \bar\alpha_e &= p_e f_e, \qquad f_e = \big[\sqrt{d_i/d_j}\big]_{\text{sym}} \cdot
        \big[m_e / (1 - p)\big]_{\text{dropout}}, \qquad
        o_i = \textstyle\sum_{e \to i} \bar\alpha_e\, v_j
        && \text{(degree factor, dropout, aggregation)}

with :math:`e_{ij}^h` the ``gat``, ``gatv2`` or ``dot`` score, :math:`d` in-degrees with self-loops and
:math:`m_e \in \{0, 1\}` the dropout mask. Heads are then concatenated or averaged, and the residual and
bias added, in PyTorch.

**Forward** (:func:`~gatbio.nn.kernels.attention.attention_fwd`): one program per (target row :math:`i`,
head :math:`h`) over a CSR by target. The row's edges are read in blocks of ``BLOCK_E``: the block's scores
are computed in registers (GAT: gathered scalars; GATv2 and dot: the gathered (BLOCK_E, C) rows of
:math:`W_l x_j` or :math:`W_k x_j` against the row's own :math:`W_r x_i` or :math:`W_q x_i`, loaded once;
GATv2 edge features as a (BLOCK_E, D) × (D, C) product with the head's slice of :math:`W_e`), then an online
softmax (running maximum :math:`m`, running sum :math:`l`, rescaled by :math:`e^{m_{old} - m_{new}}`)
accumulates :math:`\sum_e e^{z_e - m} f_e v_j` in float32 registers. Stored: :math:`o_i` (N_dst, H, C) and
:math:`\mathrm{lse}_i` (N_dst, H); nothing per edge. Asked for the attention weights, a second pass over the
row recomputes :math:`\bar\alpha_e` from the final logsumexp and writes them, (E, H).

**Backward** (FlashAttention-style: recompute, never store per-edge C-wide values). With
:math:`g_i = \partial L / \partial o_i` and :math:`\gamma_e = \partial L / \partial \bar\alpha_e` of the
returned weights (0 unless they enter the loss):

.. math::
    \delta_i &= g_i \cdot o_i + \textstyle\sum_{e \to i} \bar\alpha_e \gamma_e, \qquad
    \frac{\partial L}{\partial z_e} = p_e \big(f_e (g_i \cdot v_j + \gamma_e) - \delta_i\big), \qquad
    \frac{\partial L}{\partial u_e} = \frac{1}{\tau_h} \frac{\partial L}{\partial z_e} \\
    \frac{\partial L}{\partial b_e} &= \frac{\partial L}{\partial u_e}, \qquad
    \frac{\partial L}{\partial \tau_h} = -\frac{1}{\tau_h} \sum_e \frac{\partial L}{\partial z_e} z_e, \qquad
    \frac{\partial L}{\partial \lambda_h} = -\sum_e \frac{\partial L}{\partial u_e} \log d_j, \qquad
    \frac{\partial L}{\partial v_j} = \sum_{e: j \to i} \bar\alpha_e\, g_i

and the score's own chain rule (GAT: :math:`\partial L/\partial u_e \cdot \mathrm{LeakyReLU}'` onto
:math:`a_s^\top W x_j`, :math:`a_d^\top W x_i` and the edge term; GATv2: onto :math:`W_l x_j`, :math:`W_r x_i`,
:math:`a` and :math:`W_e e_{ij}`; dot: :math:`\partial L/\partial u_e \cdot k_j / \sqrt{C}` onto the query
and :math:`q_i / \sqrt{C}` onto the key). Three kernels:

1. :func:`~gatbio.nn.kernels.attention.attention_bwd_dst`, per (target row, head) over the CSR by target:
   recomputes :math:`p_e` from the stored logsumexp, writes :math:`\bar\alpha_e` and the score gradient
   (two (E, H) float32 tensors; the bias gradient a third for GAT) and reduces the target-side gradients in
   registers (:math:`a_d^\top W x_i`, :math:`W_r x_i`, :math:`W_q x_i`; per-row partial sums for
   :math:`\tau`, :math:`\lambda` and GATv2's :math:`a`).
2. :func:`~gatbio.nn.kernels.attention.attention_bwd_src`, per (source row, head) over the **transposed CSR**
   (by source): :math:`\partial L/\partial v_j = \sum \bar\alpha_e g_i` and the source-side score
   gradients, gathered from the (E, H) tensors of step 1. Why not atomics from step 1 instead: that would
   be E·H·C float atomic adds into the value gradient, serialised on the rows of hub sources and summed in
   a different order on every run; the transposed layout costs one more sort of the graph (cached with the
   graph, like the forward's) and one more read of two (E, H) tensors, and every output row is written
   once, by one program, deterministically.
3. :func:`~gatbio.nn.kernels.attention.gatv2_bwd_edges`, GATv2 with edge features only: the edge-feature
   gradient (E, D) and :math:`\partial L/\partial W_e`, one program per contiguous chunk of edges (at most
   1,024 chunks, each writing one (H, D, C) partial sum; no atomics).

Stored for the backward: the inputs, :math:`o` and :math:`\mathrm{lse}` (O(N·H·C) and O(N·H)); its
temporaries are O(E·H) (plus (E, D) for GATv2 edge features). No (E, H, C) or (E, H·C) tensor exists in
either pass; GATv2's pre-activations :math:`W_l x_j + W_r x_i + W_e e_{ij}` are recomputed where needed.

**Dropout**: the mask is :math:`m_e = [\,U(\text{seed}, e H + h) \ge p\,]` with Triton's Philox generator
(``tl.rand``) keyed by the edge's position in ``edge_index``, so it does not depend on the CSR order; the
seed is drawn from PyTorch's default generator of the input's device at each call (a seeded run repeats)
and saved for the backward pass, which regenerates the same mask.

**Precision**: every load is cast to float32 and every sum accumulates in float32; bf16/fp16 inputs
(``torch.autocast``) are read as they are, the output takes the values' dtype, the logsumexp stays
float32. float64 is not a kernel dtype (use ``impl="fused"`` or ``"reference"``).

**Autograd and compilation**: the kernels are wrapped as the custom operators ``gatbio::attention`` and
``gatbio::attention_backward`` (:mod:`gatbio.nn.kernels.ops`: ``torch.library.custom_op`` with fake
implementations and ``register_autograd``), so ``torch.compile`` traces through the layer as one graph. In
eager mode the same forward and backward run through a plain ``torch.autograd.Function``: the operators'
dispatch costs about 0.2 ms of host time per call, more than the kernels take on small graphs.

**Tuning and limits**: on a GPU, graphs of fewer than ``ops.SMALL_GRAPH_EDGES`` (2^17) edges, self-loops
included, run each kernel in one configuration (``attention.SMALL_CONFIG``: 16 edges per block, 4 warps), with
no autotuning: autotuning compiles and times ten configurations of every kernel variant once per process, which
cost a model's first fit about 40 s on an H200 with Triton's cache empty, where the kernels of such graphs take
microseconds (without it, first fits there took 2.8–9.5 s on SHS27k, like the later ones). On larger graphs ``@triton.autotune`` picks ``BLOCK_E`` (8–128 edges) and the warps, once per
head count and width, edge-feature width, switch set, tensor dtypes and graph mean degree (its bit length, so
a new graph of similar degree does not retune), and keeps its choice in Triton's disk cache (``cache_results``:
a new process does not time the configurations again); set ``ops.SMALL_GRAPH_EDGES = 0`` to autotune every
graph. No kernel accumulates into its outputs, so the autotuner's repeated launches need no output reset. ``BLOCK_C`` is the head width rounded up to a power of two (at least
16), so a head's C values sit in registers (C up to a few hundred). One program owns a whole target row: a hub
with millions of incoming edges is one long program (rows are not split across programs). Every offset is
computed in int64 (index tensors are int32 below 2^31 edges and nodes, int64 above), and the kernels launch on
their tensors' GPU whatever the current device. Without a GPU, ``TRITON_INTERPRET=1`` (set before this
package's kernels are first imported) runs the same kernels on CPU tensors with a fixed ``BLOCK_E`` of 16:
slow, for tests; tests/nn/test_triton_compile.py compiles them for an H100 without one.

Only :class:`CSRPlan` and :func:`available` are imported here; :mod:`gatbio.nn.kernels.ops` imports
Triton and is imported by :class:`~gatbio.nn.GATConv` when the Triton path runs.
"""

from __future__ import annotations

import importlib.util

from gatbio.nn.kernels.plan import CSRPlan

__all__ = ["CSRPlan", "available"]


# Looked up once, at import: GATConv.forward asks on every call, and torch.compile must not trace
# importlib.util.find_spec (torch 2.11's dynamo refuses to: a graph break, an error under fullgraph=True).
_AVAILABLE = importlib.util.find_spec("triton") is not None


def available() -> bool:
    """Whether the ``triton`` package can be imported (it ships with CUDA builds of PyTorch)."""
    return _AVAILABLE

