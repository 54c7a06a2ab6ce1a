"""The Triton kernels (``GATConv(impl="triton")``, gatbio.nn.kernels) against ``impl="reference"``.

Without a GPU the kernels run in Triton's interpreter on CPU tensors (``TRITON_INTERPRET=1``, set here before
they are defined); with one they are compiled and run on CUDA (and the CPU cases are skipped, as one process
cannot hold both). Every mode and option is compared in float32 to 1e-5: outputs, attention weights and the
gradients of the input, of every parameter and of the bias, on graphs with a hub row many edge blocks long
(``INTERPRET_BLOCK_E`` = 16 edges per block), duplicate edges and rows without incoming edges; errors are
measured against the reference path run in float64, relative to each tensor's largest entry. Also: the
dropout mask (repeats with the seed, the same in the backward pass), bf16/fp16 under autocast, dispatch and
errors, ``torch.library.opcheck`` and ``torch.compile(fullgraph=True)``. The compiler's checks (64-bit offsets,
an H100 build of every kernel) are in tests/nn/test_triton_compile.py.
"""

from __future__ import annotations

import os

import pytest
import torch
from torch.utils import _pytree as pytree
from torch.utils._python_dispatch import TorchDispatchMode

if not torch.cuda.is_available():
    os.environ.setdefault("TRITON_INTERPRET", "1")
pytest.importorskip("triton")

from gatbio.nn import GATConv  # noqa: E402
from gatbio.nn import conv as conv_module  # noqa: E402
from gatbio.nn import functional as GF  # noqa: E402
from gatbio.nn.kernels import attention as KA  # noqa: E402
from gatbio.nn.kernels import ops as KO  # noqa: E402


def _speed_up_interpreter() -> None:
    """Triton's interpreter (3.7 to 3.9: the same code) re-patches all of ``triton.language`` on every call of a library device
    function (``tl.sum``, ``tl.max``: ~5 ms each, 70 % of these tests' time). Patch once per kernel launch
    instead; nothing restores those patches within a launch, so the numbers are the same."""
    import triton
    from triton.runtime import interpreter as TI

    if not triton.__version__.startswith(("3.7", "3.8", "3.9")) or getattr(TI, "_gatbio_fast", False):
        return
    grid_call, patched = TI.GridExecutor.__call__, set()

    def launch(self, *args, **kwargs):
        patched.clear()
        return grid_call(self, *args, **kwargs)

    def device_call(self, *args, **kwargs):
        if self.fn not in patched:
            patched.add(self.fn)
            TI._patch_lang(self.fn)
        fn = self.rewrite()
        try:
            return fn(*args, **kwargs)
        except Exception as e:
            raise TI.InterpreterError(repr(e)) from e

    TI.GridExecutor.__call__, TI.InterpretedFunction.__call__, TI._gatbio_fast = launch, device_call, True


if KA.INTERPRET:
    _speed_up_interpreter()

ATTENTIONS = ["gat", "gatv2", "dot"]


@pytest.fixture(params=["cpu", pytest.param("cuda", marks=pytest.mark.cuda)])
def device(request) -> torch.device:
    """CPU under the interpreter, or CUDA with compiled kernels (whichever this process runs)."""
    if request.param == "cuda" and not torch.cuda.is_available():
        pytest.skip("no CUDA device")
    if request.param == "cpu" and not KA.INTERPRET:
        pytest.skip("Triton kernels are compiled for the GPU in this process (TRITON_INTERPRET is not set)")
    return torch.device(request.param)


def hub_graph(device, n=9, hub_in=50, seed=0):
    """n nodes: node 0 a hub with ``hub_in`` incoming edges (repeated sources: duplicate edges; four blocks of
    ``INTERPRET_BLOCK_E`` = 16 edges), 30 random edges among nodes 0..n-2, a self-loop 3→3, an edge 5→2 twice,
    and node n-1 with no incoming edge."""
    g = torch.Generator().manual_seed(seed)
    hub = torch.stack([torch.randint(1, n, (hub_in,), generator=g), torch.zeros(hub_in, dtype=torch.long)])
    rest = torch.randint(0, n - 1, (2, 30), generator=g)
    edge_index = torch.cat([hub, rest, torch.tensor([[3, 5, 5], [3, 2, 2]])], dim=1)  # 5→2 twice
    x = torch.randn(n, 8, generator=g)
    edge_attr = torch.randn(edge_index.size(1), 3, generator=g)
    bias = torch.randn(edge_index.size(1), 2, generator=g)
    return x.to(device), edge_index.to(device), edge_attr.to(device), bias.to(device)


def pair(device, **kwargs):
    """The same layer twice (same parameters): the reference path in float64 (the truth the float32
    kernels are measured against) and the Triton path in float32."""
    torch.manual_seed(0)
    tri = GATConv(**kwargs, impl="triton").to(device)
    g = torch.Generator().manual_seed(4)
    for p in tri.parameters():  # parameters away from their initial values (lambda = 1, bias = 0)
        p.data.add_(0.1 * torch.randn(p.shape, generator=g).to(device))
    ref = GATConv(**kwargs, impl="reference").to(device).double()
    ref.load_state_dict(tri.state_dict())
    return ref, tri


def run(conv, x, edge_index, edge_attr=None, bias=None, alpha_loss=True):
    """Output, attention weights and the gradients of a fixed random loss of both (with respect to the inputs,
    the bias and edge features included, and every parameter), in ``conv``'s dtype."""
    dtype = next(conv.parameters()).dtype
    cast = (lambda t: None if t is None else t.to(dtype))  # noqa: E731
    xs = [cast(t).requires_grad_() for t in (x if isinstance(x, tuple) else (x,)) if t is not None]
    xin = xs[0] if not isinstance(x, tuple) else (xs[0], xs[1] if len(xs) > 1 else None)
    b = None if bias is None else cast(bias).requires_grad_()
    ea = None if edge_attr is None else cast(edge_attr).requires_grad_()  # edge features from an upstream encoder
    out, (ei, alpha) = conv(xin, edge_index, ea, attn_bias=b, return_attention_weights=True)
    g = torch.Generator().manual_seed(1)
    loss = (out * torch.randn(out.shape, generator=g).to(out)).sum()
    if alpha_loss:
        loss = loss + (alpha * torch.randn(alpha.shape, generator=g).to(alpha)).sum()
    inputs = xs + [t for t in (b, ea) if t is not None] + [p for p in conv.parameters()]
    grads = torch.autograd.grad(loss, inputs, allow_unused=True)
    return out, ei, alpha, grads


def close(got, truth, tol=1e-5, what=""):
    """float32 to ``tol``: |got - truth| <= tol * max(1, max|truth|) + tol * |truth| elementwise."""
    scale = max(1.0, truth.abs().max().item()) if truth.numel() else 1.0
    torch.testing.assert_close(got.to(truth.dtype), truth, atol=tol * scale, rtol=tol,
                               msg=lambda m: f"{what}: {m}")


def assert_same(truth, got, tol=1e-5):
    """Outputs, attention weights, edge_index and every gradient of a Triton run against the reference."""
    close(got[0], truth[0], tol, "output")
    assert torch.equal(got[1], truth[1])
    close(got[2], truth[2], tol, "attention weights")
    assert len(got[3]) == len(truth[3])
    for k, (gt, gg) in enumerate(zip(truth[3], got[3], strict=True)):
        assert (gt is None) == (gg is None), k
        if gt is not None:
            close(gg, gt, tol, f"gradient {k}")


# ---------------------------------------------------------------- 1. every mode, all options on
# Each attention with each degree mode; the temperature alternates between learnt and fixed (the kernels
# compute its gradient either way; a fixed one has no parameter to receive it).
@pytest.mark.parametrize("attention,temperature,degree_norm",
                         [(a, t, d) for a in ATTENTIONS for t, d in (("learn", None), (0.7, "log"), ("learn", "sym"))])
def test_all_options_match_reference(attention, temperature, degree_norm, device):
    x, ei, ea, bias = hub_graph(device)
    assert (ei[1] == 0).sum() > 3 * KA.INTERPRET_BLOCK_E  # the hub row spans four blocks
    ref, tri = pair(device, in_channels=8, out_channels=5, heads=2, attention=attention,
                    temperature=temperature, degree_norm=degree_norm, edge_dim=3, residual=True)
    assert_same(run(ref, x, ei, ea, bias), run(tri, x, ei, ea, bias))


# ---------------------------------------------------------------- 2. the other options, per mode
OPTIONS = {
    # PyG defaults: no edge features, no bias, heads concatenated
    "defaults": dict(heads=3),
    # heads averaged, one bias value per edge, no self-loops (node 13 has no incoming edge: zero row)
    "mean_heads_no_loops": dict(heads=2, concat=False, add_self_loops=False, bias_1d=True),
    "one_head_edge_features": dict(heads=1, edge_dim=3, temperature=2.0),
}


@pytest.mark.parametrize("option", list(OPTIONS))
@pytest.mark.parametrize("attention", ATTENTIONS)
def test_options_match_reference(attention, option, device):
    kw = dict(OPTIONS[option])
    bias_1d = kw.pop("bias_1d", False)
    x, ei, ea, bias = hub_graph(device)
    ref, tri = pair(device, in_channels=8, out_channels=6, attention=attention, **kw)
    ea = ea if kw.get("edge_dim") else None
    bias = (bias[:, 0] if bias_1d else bias[:, :kw["heads"]]) if option != "defaults" else None
    a, b = run(ref, x, ei, ea, bias), run(tri, x, ei, ea, bias)
    assert_same(a, b)
    if not kw.get("add_self_loops", True):
        torch.testing.assert_close(b[0][-1], tri.bias)  # no incoming edge: only the output bias


@pytest.mark.parametrize("attention", ATTENTIONS)
def test_bipartite_matches_reference(attention, device):
    g = torch.Generator().manual_seed(2)
    xs, xd = torch.randn(9, 6, generator=g).to(device), torch.randn(5, 4, generator=g).to(device)
    ei = torch.stack([torch.randint(0, 9, (40,), generator=g), torch.randint(0, 4, (40,), generator=g)]).to(device)
    ea = torch.randn(40, 2, generator=g).to(device)  # target 4 has no incoming edge
    for add_loops in (False, True):
        ref, tri = pair(device, in_channels=(6, 4), out_channels=5, heads=2, attention=attention,
                        edge_dim=2, add_self_loops=add_loops, residual=True)
        assert_same(run(ref, (xs, xd), ei, ea), run(tri, (xs, xd), ei, ea))


def test_gat_bipartite_without_target_features(device):
    g = torch.Generator().manual_seed(3)
    xs = torch.randn(9, 6, generator=g).to(device)
    ei = torch.stack([torch.randint(0, 9, (30,), generator=g), torch.randint(0, 5, (30,), generator=g)]).to(device)
    ref, tri = pair(device, in_channels=(6, 4), out_channels=5, heads=2, add_self_loops=False)
    assert_same(run(ref, (xs, None), ei), run(tri, (xs, None), ei))


@pytest.mark.parametrize("attention", ATTENTIONS)
def test_minus_inf_bias_masks_edges_as_the_reference(attention, device):
    """-inf in the bias masks an edge: the hub's first blocks of edges wholly masked (the running maximum starts at
    -inf), and a target whose every edge is masked (a zero row); no NaN in the outputs or any gradient, the
    temperature's included (it summed 0 * -inf)."""
    x, ei, ea, bias = hub_graph(device)
    masked = torch.zeros(ei.size(1), dtype=torch.bool, device=ei.device)
    masked[:20] = True  # 20 of the hub's 50 incoming edges
    masked |= ei[1] == 2  # every edge into node 2
    bias = bias.masked_fill(masked[:, None], float("-inf"))
    for add_loops in (False, True):
        ref, tri = pair(device, in_channels=8, out_channels=5, heads=2, attention=attention, edge_dim=3,
                        temperature="learn", add_self_loops=add_loops)
        truth, got = run(ref, x, ei, ea, bias), run(tri, x, ei, ea, bias)
        assert got[0].isfinite().all() and all(g is None or g.isfinite().all() for g in got[3])
        assert_same(truth, got)
        if not add_loops:
            assert torch.all(got[0][2] == tri.bias)


def test_edge_index_subclass_matches_reference(device):
    """A PyG ``EdgeIndex`` (a Tensor subclass whose storage the kernels cannot read as such) is read as its plain
    edge list."""
    from torch_geometric import EdgeIndex

    x, ei, ea, bias = hub_graph(device)
    ref, tri = pair(device, in_channels=8, out_channels=5, heads=2, edge_dim=3, degree_norm="log")
    n = x.size(0)
    assert_same(run(ref, x, ei, ea, bias), run(tri, x, EdgeIndex(ei, sparse_size=(n, n)), ea, bias))


@pytest.mark.parametrize("attention", ATTENTIONS)
def test_one_channel_and_one_edge_feature_match_reference(attention, device):
    """The narrowest tiles: heads of one channel (BLOCK_C = 1) and a single edge feature (BLOCK_D = 1)."""
    x, ei, ea, bias = hub_graph(device)
    ref, tri = pair(device, in_channels=8, out_channels=1, heads=3, attention=attention, edge_dim=1,
                    degree_norm="log", temperature="learn")
    assert_same(run(ref, x, ei, ea[:, :1], bias[:, 0]), run(tri, x, ei, ea[:, :1], bias[:, 0]))


def test_gatv2_shared_weights_match_reference(device):
    x, ei, ea, bias = hub_graph(device)
    ref, tri = pair(device, in_channels=8, out_channels=5, heads=2, attention="gatv2", share_weights=True,
                    edge_dim=3, degree_norm="log")
    assert_same(run(ref, x, ei, ea, bias), run(tri, x, ei, ea, bias))


def test_no_edges(device):
    x = torch.randn(4, 8, device=device)
    ei = torch.zeros(2, 0, dtype=torch.long, device=device)
    ref, tri = pair(device, in_channels=8, out_channels=3, heads=2, add_self_loops=False)
    torch.testing.assert_close(tri(x, ei).double(), ref(x.double(), ei))


# ---------------------------------------------------------------- 3. dropout
class LargestTensor(TorchDispatchMode):
    """Records the largest tensor that any operator returns, inside gatbio's custom operators too."""

    def __init__(self):
        super().__init__()
        self.numel, self.where = 0, ""

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        if func.namespace == "gatbio":
            from torch._library.custom_ops import OPDEFS

            with self:  # run the operator's Python implementation here, to see what it allocates
                out = OPDEFS[func._schema.name]._init_fn(*args, **(kwargs or {}))
        else:
            out = func(*args, **(kwargs or {}))
        for t in pytree.tree_leaves(out):
            # (uint8: Triton's interpreter copying a tensor's bytes in and out of its kernels)
            if isinstance(t, torch.Tensor) and t.dtype != torch.uint8 and t.numel() > self.numel:
                self.numel, self.where = t.numel(), f"{func}: {tuple(t.shape)}"
        return out


def dropout_pair(device, attention="gat"):
    ref, tri = pair(device, in_channels=8, out_channels=5, heads=2, attention=attention, dropout=0.4,
                    edge_dim=3, degree_norm="sym", temperature="learn")
    return ref.train(), tri.train()


def test_dropout_repeats_with_the_seed(device):
    x, ei, ea, bias = hub_graph(device)
    _, tri = dropout_pair(device)
    torch.manual_seed(5)
    out1, (_, a1) = tri(x, ei, ea, attn_bias=bias, return_attention_weights=True)
    torch.manual_seed(5)
    out2, (_, a2) = tri(x, ei, ea, attn_bias=bias, return_attention_weights=True)
    out3, (_, a3) = tri(x, ei, ea, attn_bias=bias, return_attention_weights=True)  # next seed
    assert torch.equal(out1, out2) and torch.equal(a1, a2)
    assert not torch.equal(a1, a3)
    dropped = (a1 == 0).float().mean().item()
    assert 0.25 < dropped < 0.55  # about p = 0.4 of the weights


@pytest.mark.parametrize("attention", ATTENTIONS)
def test_dropout_mask_is_the_same_in_forward_and_backward(attention, device, monkeypatch):
    """The Triton path with dropout equals the reference path given the kernel's own mask, gradients too:
    the backward regenerated the forward's mask.

    Also the memory contract, on this run with every option on (edge features, bias, learnt temperature,
    degree factor, dropout, the weights returned and in the loss): no tensor of the forward or backward pass
    holds as many values as an (E, C) one, let alone the (E, H·C) of a message tensor; the reference path,
    which builds one, is caught by the same check."""
    x, ei, ea, bias = hub_graph(device)
    ref, tri = dropout_pair(device, attention)
    torch.manual_seed(7)
    largest = LargestTensor()
    with largest:
        got = run(tri, x, ei, ea, bias)
    E, C = got[1].size(1), tri.out_channels  # edges with the self-loops
    assert x.size(0) * tri.heads * C < E * C  # an (N, H, C) node tensor is below the bound
    assert largest.numel < E * C, largest.where
    tri.eval()
    _, (_, plain) = tri(x, ei, ea, attn_bias=bias, return_attention_weights=True)
    keep = got[2] != 0  # the kernel's mask (no weight is exactly zero without dropout)
    assert (plain != 0).all() and 0 < keep.float().mean() < 1
    monkeypatch.setattr(GF, "dropout", lambda a, p, training: a * keep / (1 - p))
    largest = LargestTensor()
    with largest:
        truth = run(ref, x, ei, ea, bias)
    assert largest.numel >= E * tri.heads * C, largest.where
    assert_same(truth, got)


def test_eval_mode_has_no_dropout(device):
    x, ei, ea, bias = hub_graph(device)
    ref, tri = dropout_pair(device)
    ref.eval(), tri.eval()
    assert_same(run(ref, x, ei, ea, bias), run(tri, x, ei, ea, bias))


# ---------------------------------------------------------------- 4. dispatch and errors
def test_auto_uses_triton_only_on_cuda(device, monkeypatch):
    x, ei, _, _ = hub_graph(device)
    conv = GATConv(8, 4, heads=2).to(device)
    calls, real = [], KO.attention
    monkeypatch.setattr(KO, "attention", lambda *a, **k: calls.append(1) or real(*a, **k))
    conv(x, ei)
    assert bool(calls) == (device.type == "cuda")


def test_clear_errors(monkeypatch):
    x, ei, _, _ = hub_graph("cpu")
    conv = GATConv(8, 4, impl="triton")
    monkeypatch.setattr(KA, "INTERPRET", True)  # CPU tensors accepted: the dtype is what is wrong
    with pytest.raises(RuntimeError, match="impl='triton' computes in float32 .* got torch.float64"):
        conv.double()(x.double(), ei)
    monkeypatch.setattr(KA, "INTERPRET", False)
    with pytest.raises(RuntimeError, match="impl='triton' runs on CUDA tensors, got cpu tensors.*TRITON_INTERPRET=1"):
        conv.float()(x, ei)
    monkeypatch.setattr(conv_module.KN, "available", lambda: False)
    with pytest.raises(RuntimeError, match=r"impl='triton' needs the triton package \(pip install triton"):
        conv(x, ei)


def test_second_order_gradients_are_refused_not_silently_wrong(device):
    """The kernels' backward is not differentiable. Under ``once_differentiable`` a gradient penalty went through
    and dropped the terms through the saved inputs (wrong parameter gradients, no error); now it is refused with
    the way out, and a first-order gradient is the same as before."""
    x, ei, _, _ = hub_graph(device)
    x = x.clone().requires_grad_(True)
    torch.manual_seed(0)
    tri = GATConv(8, 4, heads=2, impl="triton", residual=True).to(device)
    ref = GATConv(8, 4, heads=2, impl="reference", residual=True).to(device)
    ref.load_state_dict(tri.state_dict())
    close(torch.autograd.grad(tri(x, ei).pow(2).sum(), x)[0], torch.autograd.grad(ref(x, ei).pow(2).sum(), x)[0],
          1e-5, "input gradient")
    with pytest.raises(RuntimeError, match=r"impl='triton'\): second-order gradients .* impl='fused' or impl='reference'"):
        torch.autograd.grad(tri(x, ei).pow(2).sum(), x, create_graph=True)


def test_triton_lookup_is_made_once_at_import(monkeypatch):
    """GATConv.forward asks ``KN.available()`` on every call, inside torch.compile's trace too; torch 2.11's dynamo
    refuses to trace ``importlib.util.find_spec`` (seen there: a graph break, an error with ``fullgraph=True``),
    so the answer must not look anything up."""
    import importlib.util

    def find_spec(*args, **kwargs):
        raise AssertionError("available() looked triton up again")

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    assert conv_module.KN.available() is True


@pytest.mark.parametrize("attention", ATTENTIONS)
def test_a_step_on_a_graph_seen_before_waits_for_no_value(attention, device):
    """No operator that reads a value back to the host (nonzero, item: on a GPU, a synchronisation) in a
    forward + backward on a graph the layer has seen: the index check and the self-loop selection are kept
    with the graph, the dropout seed stays a tensor."""
    from conftest import host_reads

    x, ei, ea, bias = hub_graph(device)
    conv = GATConv(8, 5, heads=2, attention=attention, edge_dim=3, degree_norm="log", temperature="learn",
                   residual=True, dropout=0.2, impl="triton").to(device)
    xin = (x, x) if attention == "dot" else x
    conv(xin, ei, ea, attn_bias=bias)
    ops, reads = host_reads(lambda: conv(xin, ei, ea, attn_bias=bias).sum().backward())
    assert ops > 0 and reads == []


def test_plan_is_built_once_per_graph(device, monkeypatch):
    x, ei, _, _ = hub_graph(device)
    conv = GATConv(8, 4, impl="triton").to(device)
    built = []
    real = conv_module.KN.CSRPlan
    monkeypatch.setattr(conv_module.KN, "CSRPlan", lambda *a: built.append(1) or real(*a))
    conv(x, ei)
    conv(x, ei)
    GATConv(4, 2, impl="triton").to(device)(conv(x, ei), ei)
    assert len(built) == 1


# ---------------------------------------------------------------- 5. torch.compile
@pytest.mark.parametrize("attention", ATTENTIONS)
def test_custom_operators_pass_opcheck(attention, device):
    """Schema, fake (meta) implementation, autograd registration and AOT dispatch of ``gatbio::attention``
    (the traced backward runs ``gatbio::attention_backward``'s fake and real implementations), and the
    backward operator on its own, for each mode with all of its inputs (dropout on for gat)."""
    from gatbio.nn.kernels import CSRPlan

    g = torch.Generator().manual_seed(5)
    N, H, C, E = 6, 2, 4, 20
    ei = torch.randint(0, N, (2, E), generator=g).to(device)
    plan = CSRPlan(ei, N, N)

    def leaf(*shape):
        return torch.randn(*shape, generator=g).to(device).requires_grad_()

    mode = KO.MODES[attention]
    inputs = dict.fromkeys(KO._TENSOR_INPUTS)
    inputs.update(v=leaf(N, H, C), bias=leaf(E, H), tau=(torch.rand(H, generator=g) + 0.5).to(device).requires_grad_(),
                  lam=leaf(H), deg=plan.deg, rowptr=plan.rowptr, col=plan.col, eid=plan.eid, colptr=plan.colptr,
                  row=plan.row, eid_t=plan.eid_t, edge_index=ei, seed=torch.full((1,), 3, device=device))
    if attention == "gat":
        inputs.update(a_src=leaf(N, H), a_dst=leaf(N, H), edge_pre=leaf(E, H))
    elif attention == "gatv2":
        inputs.update(xr=leaf(N, H, C), att=leaf(H, C), edge_attr=leaf(E, 3), w_edge=leaf(H * C, 3))
    else:
        inputs.update(q=leaf(N, H, C), k=leaf(N, H, C))
    dropout = 0.3 if attention == "gat" else 0.0
    args = (*inputs.values(), mode, attention == "gatv2", 0.2, dropout, True)
    torch.library.opcheck(torch.ops.gatbio.attention.default, args)

    with torch.no_grad():
        out, lse, alpha = KO.attention_op(*args)
    grads = (torch.randn(out.shape, generator=g).to(device), torch.randn(alpha.shape, generator=g).to(device))
    torch.library.opcheck(torch.ops.gatbio.attention_backward.default,
                          (*grads, out, lse, alpha, *(t if t is None else t.detach() for t in inputs.values()),
                           mode, attention == "gatv2", 0.2, dropout, True, True),
                          test_utils=("test_schema", "test_faketensor"))


@pytest.mark.parametrize("attention", ATTENTIONS)
def test_eager_path_equals_the_custom_operators(attention, device, monkeypatch):
    """Eager mode calls the kernels through a plain autograd Function (the operators' dispatch costs more host
    time than the kernels on small graphs): the same outputs, attention weights and gradients of every input,
    bit for bit, dropout and a loss on the returned weights included; the operators themselves are not called."""
    from gatbio.nn.kernels import CSRPlan

    g = torch.Generator().manual_seed(11)
    N, H, C, E = 7, 2, 4, 24
    ei = torch.randint(0, N, (2, E), generator=g).to(device)
    plan = CSRPlan(ei, N, N)
    fixed = dict(deg=plan.deg, rowptr=plan.rowptr, col=plan.col, eid=plan.eid, colptr=plan.colptr, row=plan.row,
                 eid_t=plan.eid_t, edge_index=ei, seed=torch.full((1,), 5, device=device))
    shapes = dict(v=(N, H, C), bias=(E, H), lam=(H,))
    shapes.update({"gat": dict(a_src=(N, H), a_dst=(N, H), edge_pre=(E, H)),
                   "gatv2": dict(xr=(N, H, C), att=(H, C), edge_attr=(E, 3), w_edge=(H * C, 3)),
                   "dot": dict(q=(N, H, C), k=(N, H, C))}[attention])
    values = {k: torch.randn(*shape, generator=g).to(device) for k, shape in shapes.items()}
    values["tau"] = (torch.rand(H, generator=g) + 0.5).to(device)
    w_out, w_alpha = torch.randn(N, H, C, generator=g).to(device), torch.randn(E, H, generator=g).to(device)

    def run(op):
        leaves = {k: t.clone().requires_grad_() for k, t in values.items()}
        inputs = {name: leaves.get(name, fixed.get(name)) for name in KO._TENSOR_INPUTS}
        out, _, alpha = op(*inputs.values(), KO.MODES[attention], attention == "gat", 0.2, 0.25, True)
        loss = (out * w_out).sum() + (alpha * w_alpha).sum()
        return out, alpha, torch.autograd.grad(loss, list(leaves.values()))

    ref = run(KO.attention_op)
    got = run(KO._EagerAttention.apply)
    torch.testing.assert_close(got[0], ref[0], rtol=0, atol=0)
    torch.testing.assert_close(got[1], ref[1], rtol=0, atol=0)
    for a, b in zip(got[2], ref[2], strict=True):
        torch.testing.assert_close(a, b, rtol=0, atol=0)

    def refuse(*args, **kwargs):
        raise AssertionError("eager mode dispatched the custom operator")

    monkeypatch.setattr(KO, "attention_op", refuse)
    x, ei2, ea, bias = hub_graph(device)
    conv = GATConv(8, 5, heads=2, attention=attention, edge_dim=3, impl="triton").to(device)
    xin = (x, x) if attention == "dot" else x
    conv(xin, ei2, ea, attn_bias=bias).sum().backward()


@pytest.mark.parametrize("backend", ["aot_eager", pytest.param("inductor", marks=pytest.mark.cuda)])
def test_compiles_without_graph_breaks(backend, device):
    """The custom operators trace: one graph for forward and backward (``fullgraph=True``), same numbers;
    on a GPU also through Inductor (which generates its own Triton code around the operators).

    Self-loop removal (``add_self_loops=True``) selects edges by value, a data-dependent shape that dynamo
    captures only with ``capture_dynamic_output_shape_ops`` (else it breaks the graph there, outside the
    kernels). Inductor (torch 2.13) then fails on every path, the reference one too ("AssertionError: u6 -> u0"
    in its fake-tensor propagation), so its graph has no self-loop step."""
    if backend == "inductor" and device.type != "cuda":
        pytest.skip("Inductor is checked on the GPU")
    x, ei, ea, bias = hub_graph(device)
    torch.manual_seed(0)
    conv = GATConv(8, 5, heads=2, edge_dim=3, degree_norm="log", temperature="learn", impl="triton",
                   add_self_loops=backend != "inductor").to(device)
    torch._dynamo.reset()
    compiled = torch.compile(conv, fullgraph=True, backend=backend)
    outs = []
    with torch._dynamo.config.patch(capture_dynamic_output_shape_ops=True):
        for layer in (conv, compiled):
            xg = x.clone().requires_grad_()
            out = layer(xg, ei, ea, attn_bias=bias)
            grads = torch.autograd.grad(out.square().sum(), [xg, *conv.parameters()])
            outs.append((out, grads))
    tol = dict(atol=1e-4, rtol=1e-4) if backend == "inductor" else {}  # Inductor fuses the PyTorch parts
    torch.testing.assert_close(outs[1][0], outs[0][0], **tol)
    for ga, gb in zip(outs[0][1], outs[1][1], strict=True):
        torch.testing.assert_close(gb, ga, **tol)


# ---------------------------------------------------------------- 6. low precision
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
@pytest.mark.parametrize("attention", ATTENTIONS)
def test_autocast_low_precision_close_to_float32(attention, dtype, device):
    """Under autocast the projections run in bf16/fp16 and the kernels read them as they are (the
    interpreter too: the kernels use no tl.dot, whose bf16 is wrong there), accumulating in float32."""
    if device.type == "cpu" and dtype == torch.float16:
        pytest.skip("float16 autocast is checked on the GPU (bfloat16 is CPU autocast's type)")
    x, ei, ea, bias = hub_graph(device)
    torch.manual_seed(0)
    conv = GATConv(8, 16, heads=4, attention=attention, edge_dim=3, degree_norm="log", impl="triton").to(device)
    out32 = conv(x, ei, ea, attn_bias=bias[:, 0])
    with torch.autocast(device.type, dtype=dtype):
        out16, (_, alpha) = conv(x, ei, ea, attn_bias=bias[:, 0], return_attention_weights=True)
        out16.float().square().sum().backward()
    # the attention weights are float32 statistics, as on the other paths; the output is cast back
    assert alpha.dtype == torch.float32
    torch.testing.assert_close(out16.float(), out32, atol=2e-2, rtol=2e-2)
    assert all(torch.isfinite(p.grad).all() for p in conv.parameters())


# ---------------------------------------------------------------- 7. what a GPU run depends on
def test_launching_each_kernel_twice_changes_nothing(device, monkeypatch):
    """``@triton.autotune`` launches each configuration several times on the same output buffers (without
    ``reset_to_zero``): every kernel must write its outputs afresh, never add to what a launch left. GATv2
    with edge features and the weights in the loss runs all four kernels, the edge-feature gradient's
    read-back of its own output included."""
    x, ei, ea, bias = hub_graph(device)
    ref, tri = pair(device, in_channels=8, out_channels=5, heads=2, attention="gatv2", edge_dim=3,
                    degree_norm="log", temperature="learn")
    launched, real = [], KO._launch

    def twice(kernel, grid, *args, **meta):
        launched.append(kernel)
        real(kernel, grid, *args, **meta)
        real(kernel, grid, *args, **meta)

    monkeypatch.setattr(KO, "_launch", twice)
    assert_same(run(ref, x, ei, ea, bias), run(tri, x, ei, ea, bias))
    assert set(launched) == {KA.attention_fwd, KA.attention_bwd_dst, KA.attention_bwd_src, KA.gatv2_bwd_edges}


def test_int64_indices_match_reference(device, monkeypatch):
    """Graphs past 2^31 - 1 edges or nodes get int64 CSR arrays: the kernels read them as they read int32."""
    from gatbio.nn.kernels import plan as KP

    monkeypatch.setattr(KP, "INT32_LIMIT", 0)
    plans, real = [], conv_module.KN.CSRPlan
    monkeypatch.setattr(conv_module.KN, "CSRPlan", lambda *a: plans.append(real(*a)) or plans[-1])
    x, ei, ea, bias = hub_graph(device)
    ref, tri = pair(device, in_channels=8, out_channels=5, heads=2, edge_dim=3, degree_norm="sym")
    got = run(tri, x, ei, ea, bias)
    assert [(p.rowptr.dtype, p.col.dtype, p.eid_t.dtype) for p in plans] == [(torch.int64,) * 3]
    assert_same(run(ref, x, ei, ea, bias), got)


class _Kernel:
    """Stands for a kernel on a GPU: records how it was launched; ``fn``: the kernel an autotuner wraps."""

    def __init__(self, launches, name, fn=None):
        self.launches, self.name, self.fn = launches, name, fn

    def __getitem__(self, grid):
        return lambda *args, **meta: self.launches.append((self.name, grid, args, meta))


@pytest.mark.parametrize("edges", [0, 1000, 2**17 - 1, 2**17, 10**8])
def test_small_graphs_launch_one_configuration_large_ones_autotune(edges, monkeypatch):
    """On a GPU (``INTERPRET`` false): below ``SMALL_GRAPH_EDGES`` edges the autotuner's own kernel runs in
    ``SMALL_CONFIG`` (no autotuning: one compile per kernel variant, no timing), from there on the autotuner
    picks; ``SMALL_GRAPH_EDGES = 0`` autotunes every graph. Empty grids launch nothing."""
    launches = []
    tuner = _Kernel(launches, "autotuner", fn=_Kernel(launches, "kernel"))
    monkeypatch.setattr(KA, "INTERPRET", False)
    KO._launch(tuner, (7,), "x", edges=edges, MODE=0, BLOCK_C=64)
    small = edges < 2**17
    expected = (dict(MODE=0, BLOCK_C=64, BLOCK_E=16, num_warps=4, num_ctas=1, num_stages=3) if small
                else dict(MODE=0, BLOCK_C=64))
    assert launches == [("kernel" if small else "autotuner", (7,), ("x",), expected)]
    monkeypatch.setattr(KO, "SMALL_GRAPH_EDGES", 0)
    KO._launch(tuner, (7,), "x", edges=edges, MODE=0, BLOCK_C=64)
    assert launches[-1] == ("autotuner", (7,), ("x",), dict(MODE=0, BLOCK_C=64))
    KO._launch(tuner, (0,), "x", edges=edges, MODE=0, BLOCK_C=64)
    assert len(launches) == 2


def test_the_small_graph_configuration_is_an_autotune_configuration_kept_at_every_width():
    """So the GPU tests of every configuration (``test_every_autotune_config_matches_reference``) cover it, and
    its tile fits the registers at the widest heads (``_prune``)."""
    small = (KA.SMALL_CONFIG.kwargs, KA.SMALL_CONFIG.num_warps)
    assert small in [(c.kwargs, c.num_warps) for c in KA._CONFIGS]
    for block_c in (16, 64, 256, 512):
        assert small in [(c.kwargs, c.num_warps) for c in KA._prune(KA._CONFIGS, {}, BLOCK_C=block_c)]
        assert KA.small_config(block_c) is KA.SMALL_CONFIG
    # wider heads (its tile would hold 128+ values per thread): the kept configuration with the smallest tile
    for block_c in (1024, 4096):
        got = KA.small_config(block_c)
        kept = KA._prune(KA._CONFIGS, {}, BLOCK_C=block_c)
        assert got in kept and KA._per_thread(got, block_c) == min(KA._per_thread(c, block_c) for c in kept)


@pytest.mark.cuda
@pytest.mark.parametrize("config", range(len(KA._CONFIGS)))
@pytest.mark.parametrize("attention", ATTENTIONS)
def test_every_autotune_config_matches_reference(attention, config, monkeypatch):
    """Each configuration the autotuner may pick (edges per block × warps), run on its own: the hub row spans
    several blocks of the smaller ones, and the GATv2 edge-feature products run in every layout."""
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device")
    import triton

    cfg = KA._CONFIGS[config]

    def fixed(kernel, grid, *args, edges, **meta):
        if grid[0] == 0:
            return
        fn = kernel.fn if isinstance(kernel, triton.runtime.Autotuner) else kernel
        fn[grid](*args, **meta, **cfg.kwargs, num_warps=cfg.num_warps)

    monkeypatch.setattr(KO, "_launch", fixed)
    device = torch.device("cuda")
    x, ei, ea, bias = hub_graph(device, hub_in=300)
    ref, tri = pair(device, in_channels=8, out_channels=5, heads=2, attention=attention, edge_dim=3,
                    degree_norm="log", temperature="learn", residual=True)
    assert_same(run(ref, x, ei, ea, bias), run(tri, x, ei, ea, bias))


@pytest.mark.cuda
@pytest.mark.parametrize("attention", ATTENTIONS)
@pytest.mark.parametrize("autotuned", [True, False], ids=["autotuned", "small-graph-config"])
def test_large_graph_matches_reference(attention, autotuned, monkeypatch):
    """A graph of GPU size: 3,000 nodes, 100k random edges and a hub with 20k incoming edges, 4 heads of 64
    channels (the benchmark's), all options; float32 against float64 to 1e-4. Autotuned (the size threshold
    lowered below it) and in the small graphs' one configuration."""
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device")
    monkeypatch.setattr(KO, "SMALL_GRAPH_EDGES", 0 if autotuned else 10**9)
    device = torch.device("cuda")
    g = torch.Generator().manual_seed(6)
    n = 3000
    hub = torch.stack([torch.randint(1, n, (20_000,), generator=g), torch.zeros(20_000, dtype=torch.long)])
    ei = torch.cat([hub, torch.randint(0, n, (2, 100_000), generator=g)], dim=1).to(device)
    x = torch.randn(n, 32, generator=g).to(device)
    ea = torch.randn(ei.size(1), 4, generator=g).to(device)
    bias = torch.randn(ei.size(1), 4, generator=g).to(device)
    ref, tri = pair(device, in_channels=32, out_channels=64, heads=4, attention=attention, edge_dim=4,
                    degree_norm="log", temperature="learn", residual=True)
    assert_same(run(ref, x, ei, ea, bias), run(tri, x, ei, ea, bias), tol=1e-4)


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
@pytest.mark.parametrize("attention", ATTENTIONS)
def test_low_precision_model_close_to_float32(attention, dtype, device):
    """A model cast to bf16/fp16 (no autocast): the kernels read low-precision features, edge features and
    weights and accumulate in float32; outputs within 2e-2 of the float32 model (relative to its largest
    output), gradients finite and in the model's dtype. In the interpreter: GATv2 in bf16 (with edge features)."""
    if device.type == "cpu" and (attention, dtype) != ("gatv2", torch.bfloat16):
        pytest.skip("checked on the GPU (the interpreter is slow)")
    x, ei, ea, bias = hub_graph(device, hub_in=300 if device.type == "cuda" else 50)
    torch.manual_seed(0)
    conv = GATConv(8, 16, heads=4, attention=attention, edge_dim=3, degree_norm="sym", impl="triton").to(device)
    out32 = conv(x, ei, ea, attn_bias=bias[:, 0])
    low = conv.to(dtype)
    out16 = low(x.to(dtype), ei, ea.to(dtype), attn_bias=bias[:, 0].to(dtype))
    out16.float().square().sum().backward()
    assert out16.dtype == dtype
    torch.testing.assert_close(out16.float(), out32, atol=2e-2 * out32.abs().max().item(), rtol=2e-2)
    assert all(p.grad.dtype == dtype and torch.isfinite(p.grad).all() for p in low.parameters())


@pytest.mark.cuda
def test_runs_on_the_gpu_of_its_tensors():
    """A model on cuda:1 while cuda:0 is the current device: the kernels launch on the tensors' GPU."""
    if torch.cuda.device_count() < 2:
        pytest.skip("needs two CUDA devices")
    device = torch.device("cuda:1")
    x, ei, ea, bias = hub_graph(device)
    ref, tri = pair(device, in_channels=8, out_channels=5, heads=2, attention="gatv2", edge_dim=3)
    with torch.cuda.device(0):
        assert_same(run(ref, x, ei, ea, bias), run(tri, x, ei, ea, bias))
