"""Low precision: ``GATConv`` under ``torch.autocast`` on every path (reference, fused, Triton, auto).

Under autocast the projections run in bf16/fp16 while the attention statistics (scores, softmax, degree terms,
temperature) and every sum are computed in float32; the output has the dtype of the model's parameters (float32),
as PyG's ``GATConv`` returns under autocast. Each case compares the autocast run with the float32 run of the same
layer: the output and the attention weights within 2e-2 of each tensor's largest entry, every gradient finite and
within 5e-2 of the float32 gradient's scale (bf16 keeps 8 bits of mantissa), on a graph with a hub, duplicate
edges and a node without incoming edges. On CPU: bfloat16 (CPU autocast's type; the Triton kernels in Triton's
interpreter); the ``cuda`` variants run bf16 and fp16 on a GPU.
"""

from __future__ import annotations

import os

import pytest
import torch

from gatbio.nn import GATConv
from gatbio.nn import fused as FU
from gatbio.nn import kernels as KN

if not torch.cuda.is_available():
    os.environ.setdefault("TRITON_INTERPRET", "1")

ATTENTIONS = ["gat", "gatv2", "dot"]
IMPLS = ["reference", "fused", "triton", "auto"]
# Option sets: PyG's defaults; everything on (edge features, (E,) bias, learnt temperature, log-degree prior,
# residual, attention dropout); the other variants (sym degree factor, averaged heads, fixed temperature,
# (E, H) bias, no output bias).
OPTIONS = {
    "defaults": dict(),
    "all": dict(edge_dim=3, residual=True, temperature="learn", degree_norm="log", dropout=0.3),
    "sym_mean": dict(degree_norm="sym", concat=False, temperature=0.5, bias=False),
}
OUT_TOL, GRAD_TOL = 2e-2, 5e-2
# The Triton kernels keep their output o in float32 for the backward (ops.py): delta_i = g_i . o_i must cancel
# exactly across a target's row for GAT's target-side gradient (att_dst); from a bf16-rounded o it was off by
# ~10 % of its scale. Every gradient below is held to the same bound on every path.

LOW = [
    pytest.param("cpu", torch.bfloat16, id="cpu-bf16"),
    pytest.param("cuda", torch.bfloat16, id="cuda-bf16", marks=pytest.mark.cuda),
    pytest.param("cuda", torch.float16, id="cuda-fp16", marks=pytest.mark.cuda),
]


def _skip_unless_runs(device: str, impl: str) -> None:
    if device == "cuda" and not torch.cuda.is_available():
        pytest.skip("no CUDA device")
    if impl == "triton":
        if not KN.available():
            pytest.skip("triton is not installed")
        from gatbio.nn.kernels import attention as KA

        if device == "cpu" and not KA.INTERPRET:
            pytest.skip("the Triton kernels are compiled for the GPU in this process (TRITON_INTERPRET unset)")


def graph(device, n=10, hub_in=40, seed=0):
    """Node 0 a hub with ``hub_in`` incoming edges (repeated sources: duplicate edges), 30 random edges among
    nodes 0..n-2, the edge 5→2 twice, and node n-1 without incoming edges."""
    g = torch.Generator().manual_seed(seed)
    hub = torch.stack([torch.randint(1, n, (hub_in,), generator=g), torch.zeros(hub_in, dtype=torch.long)])
    rest = torch.randint(0, n - 1, (2, 30), generator=g)
    edge_index = torch.cat([hub, rest, torch.tensor([[5, 5], [2, 2]])], dim=1)
    E = edge_index.size(1)
    x = torch.randn(n, 16, generator=g)
    edge_attr = torch.randn(E, 3, generator=g)
    bias = torch.randn(E, 2, generator=g)
    return x.to(device), edge_index.to(device), edge_attr.to(device), bias.to(device)


def _run(conv, x, edge_index, edge_attr, bias, dtype=None):
    """Output, attention weights and the gradients (input, bias, every parameter) of a fixed random loss,
    under autocast to ``dtype`` when given. Dropout draws from a generator seeded the same on every run."""
    x = x.clone().requires_grad_()
    b = None if bias is None else bias.clone().requires_grad_()
    torch.manual_seed(7)
    if x.is_cuda:
        torch.cuda.manual_seed(7)
    with torch.autocast(x.device.type, dtype=dtype or torch.bfloat16, enabled=dtype is not None):
        out, (_, alpha) = conv(x, edge_index, edge_attr, attn_bias=b, return_attention_weights=True)
    g = torch.Generator().manual_seed(1)
    loss = (out.float() * torch.randn(out.shape, generator=g).to(x.device)).sum()
    inputs = [x] + ([b] if b is not None else []) + list(conv.parameters())
    grads = torch.autograd.grad(loss, inputs, allow_unused=True)
    return out, alpha, grads


def _close(got: torch.Tensor, truth: torch.Tensor, tol: float, what: str, floor: float = 1e-6) -> None:
    """Max error within ``tol`` of the truth's scale (at least ``floor``)."""
    scale = max(truth.abs().max().item() if truth.numel() else 1.0, floor)
    err = (got.float() - truth.float()).abs().max().item() if truth.numel() else 0.0
    assert err <= tol * scale, f"{what}: max error {err:.3g} > {tol} × {scale:.3g}"


@pytest.mark.parametrize("options", list(OPTIONS))
@pytest.mark.parametrize("impl", IMPLS)
@pytest.mark.parametrize("attention", ATTENTIONS)
@pytest.mark.parametrize("device,dtype", LOW)
def test_autocast_matches_float32(device, dtype, attention, impl, options):
    _skip_unless_runs(device, impl)
    kwargs = dict(OPTIONS[options])
    x, edge_index, edge_attr, bias = graph(device)
    torch.manual_seed(0)
    conv = GATConv(16, 8, heads=2, attention=attention, impl=impl, **kwargs).to(device)
    with torch.no_grad():  # parameters away from their initial values (lambda = 1, bias = 0)
        g = torch.Generator().manual_seed(4)
        for p in conv.parameters():
            p.add_(0.1 * torch.randn(p.shape, generator=g).to(device))
    ea = edge_attr if "edge_dim" in kwargs else None
    b = bias[:, 0] if options == "all" else (bias if options == "sym_mean" else None)

    out32, alpha32, grads32 = _run(conv, x, edge_index, ea, b)
    out16, alpha16, grads16 = _run(conv, x, edge_index, ea, b, dtype)

    assert out16.dtype == torch.float32  # the parameters' dtype, as PyG's GATConv under autocast
    assert out16.shape == out32.shape
    _close(out16, out32, OUT_TOL, "output")
    _close(alpha16, alpha32, OUT_TOL, "attention weights")
    for k, (g32, g16) in enumerate(zip(grads32, grads16, strict=True)):
        assert (g32 is None) == (g16 is None), f"gradient {k}: present in one run only"
        if g32 is None:
            continue
        assert g16.dtype == g32.dtype
        assert torch.isfinite(g16).all(), f"gradient {k} is not finite"
    # Gradients flow: the input and every parameter get one.
    assert grads16[0].abs().sum() > 0
    assert all(g is not None and g.abs().sum() > 0 for g in grads16[1:])
    # A gradient that is small because its terms cancel (a per-head scalar such as lambda: 0.24 against
    # others up to 9 under one dropout mask) is held to the error of its terms, not of its own size: the
    # scale is at least a tenth of the largest gradient's (measured: lambda off by 0.017 on the Triton
    # path, 0.0075 on the fused path under another mask, whose lambda gradient is 1.8).
    floor = 0.1 * max(g.abs().max().item() for g in grads32 if g is not None and g.numel())
    for k, (g32, g16) in enumerate(zip(grads32, grads16, strict=True)):
        if g32 is not None:
            _close(g16, g32, GRAD_TOL, f"gradient {k}", floor)


@pytest.mark.parametrize("impl", ["reference", "fused", "triton"])
@pytest.mark.parametrize("attention", ATTENTIONS)
def test_model_cast_to_bfloat16_returns_bfloat16(attention, impl):
    """Without autocast, a model and input cast to bf16 give a bf16 output and bf16 attention weights (statistics
    still computed in float32)."""
    _skip_unless_runs("cpu", impl)
    x, edge_index, edge_attr, _ = graph("cpu")
    torch.manual_seed(0)
    conv = GATConv(16, 8, heads=2, attention=attention, edge_dim=3, degree_norm="log", impl=impl)
    ref = conv(x, edge_index, edge_attr)
    _, (_, alpha_ref) = conv(x, edge_index, edge_attr, return_attention_weights=True)
    out, (_, alpha) = conv.to(torch.bfloat16)(x.bfloat16(), edge_index, edge_attr.bfloat16(),
                                              return_attention_weights=True)
    assert out.dtype == torch.bfloat16 and alpha.dtype == torch.bfloat16  # the weights too, as PyG's GATConv
    _close(out, ref, 3e-2, "output")
    _close(alpha, alpha_ref, 3e-2, "attention")


@pytest.mark.parametrize("device,dtype", LOW)
def test_fused_gatv2_scores_take_low_precision_projections(device, dtype):
    """The fused GATv2 scores with bf16/fp16 projections and a float32 attention vector (the autocast case
    that crashed in ``linalg.vecdot``): float32 scores, gradients in each input's dtype."""
    _skip_unless_runs(device, "fused")
    g = torch.Generator().manual_seed(3)
    xs, xd = torch.randn(6, 2, 4, generator=g), torch.randn(5, 2, 4, generator=g)
    att, ea, w = torch.randn(1, 2, 4, generator=g), torch.randn(12, 3, generator=g), torch.randn(8, 3, generator=g)
    edge_index = torch.stack([torch.randint(0, 6, (12,), generator=g), torch.randint(0, 5, (12,), generator=g)])
    xs, xd, att, ea, w, edge_index = (t.to(device) for t in (xs, xd, att, ea, w, edge_index))
    xs16, xd16 = xs.to(dtype).requires_grad_(), xd.to(dtype).requires_grad_()
    att = att.requires_grad_()
    s16 = FU.gatv2_scores(xs16, xd16, edge_index, att, 0.2, ea, w, chunk_size=5)
    s32 = FU.gatv2_scores(xs16.float(), xd16.float(), edge_index, att, 0.2, ea, w)  # the same inputs, float32
    assert s16.dtype == torch.float32
    torch.testing.assert_close(s16, s32, atol=1e-5, rtol=1e-5)  # only the inputs are low precision
    gxs, gxd, gatt = torch.autograd.grad(s16.sum(), (xs16, xd16, att))
    assert (gxs.dtype, gxd.dtype, gatt.dtype) == (dtype, dtype, torch.float32)
    assert torch.isfinite(gxs).all() and gxs.abs().sum() > 0
