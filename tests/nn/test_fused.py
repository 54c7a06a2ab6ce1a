"""The fused attention kernels against dense / PyG-style references (forward and backward)."""

from __future__ import annotations

import warnings

import pytest
import torch

from gatbio.nn import GATConv
from gatbio.nn.fused import (
    AttentionPlan,
    attention_aggregate,
    edge_dot,
    fold_edge_attention,
    gatv2_scores,
    head_dots,
)


def _graph(num_src=7, num_dst=5, num_edges=40, seed=0):
    g = torch.Generator().manual_seed(seed)
    src = torch.randint(0, num_src, (num_edges,), generator=g)
    dst = torch.randint(0, num_dst - 1, (num_edges,), generator=g)  # target num_dst-1 has no in-edges
    return torch.stack([src, dst])


def _aggregate_reference(x, alpha, edge_index, num_dst):
    """PyG message passing: gather (E, H, C), scale, scatter-add."""
    out = x.new_zeros(num_dst, *x.shape[1:])
    return out.index_add(0, edge_index[1], alpha.unsqueeze(-1) * x[edge_index[0]])


def test_aggregate_known_answer():
    # 0 -> 2 (alpha 0.25), 1 -> 2 (alpha 0.75), 2 -> 0 (alpha 1.0); node 1 has no in-edges.
    edge_index = torch.tensor([[0, 1, 2], [2, 2, 0]])
    x = torch.tensor([[1.0, 0.0], [0.0, 4.0], [2.0, 2.0]]).view(3, 1, 2)  # (N, H=1, C=2)
    alpha = torch.tensor([[0.25], [0.75], [1.0]])
    out = attention_aggregate(x, alpha, edge_index, num_dst=3)
    expected = torch.tensor([[2.0, 2.0], [0.0, 0.0], [0.25, 3.0]]).view(3, 1, 2)
    torch.testing.assert_close(out, expected)


@pytest.mark.parametrize("heads,channels", [(1, 3), (4, 5)])
def test_aggregate_matches_reference_float32(device, heads, channels):
    edge_index = _graph().to(device)
    g = torch.Generator().manual_seed(1)
    x = torch.randn(7, heads, channels, generator=g).to(device).requires_grad_()
    alpha = torch.rand(edge_index.size(1), heads, generator=g).to(device).requires_grad_()
    out = attention_aggregate(x, alpha, edge_index, num_dst=5)
    ref = _aggregate_reference(x, alpha, edge_index, 5)
    torch.testing.assert_close(out, ref, atol=1e-5, rtol=1e-5)
    assert out[4].abs().sum() == 0  # no in-edges → zero
    grad = torch.randn(ref.shape, generator=g).to(device)
    gx, ga = torch.autograd.grad(out, (x, alpha), grad)
    rx, ra = torch.autograd.grad(ref, (x, alpha), grad)
    torch.testing.assert_close(gx, rx, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(ga, ra, atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("heads", [1, 2])
def test_multigraph_is_coalesced(heads):
    """40 edges on a 5 x 7 graph: with one head the block CSR would store more entries (40) than the matrix
    has cells (35), which cuSPARSE rejects (``nnz (40) > matrix size (35)``); with two heads (80 entries, 140
    cells) it would not, but a CSR tensor with repeated entries breaks second-order gradients. Either way the
    products sum the repeated edges per cell, and every repeated edge keeps its own gradient."""
    edge_index = _graph()  # 40 edges, 7 sources, 5 targets
    plan = AttentionPlan(edge_index, 7, 5, heads)
    g = torch.Generator().manual_seed(2)
    alpha = torch.rand(40, heads, generator=g, dtype=torch.double, requires_grad=True)
    x = torch.randn(7, heads, 3, generator=g, dtype=torch.double, requires_grad=True)
    for layout, (rows, cols) in ((plan.fwd, (5, 7)), (plan.bwd, (7, 5))):
        cells = rows * heads * cols * heads
        assert (layout.col.numel() > cells) == (heads == 1)  # more entries than cells with one head only
        assert layout.merge is not None
        a = layout.matrix(alpha.detach())
        assert a.values().numel() <= cells
        # The matrix holds each cell's summed weights: head h of edge (r, c) at (r*H + h, c*H + h).
        dense = torch.zeros(rows * heads, cols * heads, dtype=torch.double)
        r, c = (edge_index[1], edge_index[0]) if rows == 5 else (edge_index[0], edge_index[1])
        for h in range(heads):
            dense.index_put_((r * heads + h, c * heads + h), alpha.detach()[:, h], accumulate=True)
        torch.testing.assert_close(a.to_dense(), dense)
    out = attention_aggregate(x, alpha, edge_index, 5, plan)
    ref = _aggregate_reference(x, alpha, edge_index, 5)
    torch.testing.assert_close(out, ref)
    grad = torch.randn(ref.shape, generator=g, dtype=torch.double)
    for got, want in zip(torch.autograd.grad(out, (x, alpha), grad), torch.autograd.grad(ref, (x, alpha), grad),
                         strict=True):
        torch.testing.assert_close(got, want)
    assert torch.autograd.gradcheck(lambda x, a: attention_aggregate(x, a, edge_index, 5, plan), (x, alpha))


def test_a_graph_without_repeated_edges_is_not_coalesced():
    edge_index = torch.tensor([[0, 1, 2, 2], [1, 2, 0, 1]])
    plan = AttentionPlan(edge_index, 3, 3, 2)
    assert plan.fwd.merge is None and plan.bwd.merge is None  # no extra sum in the products


@pytest.mark.parametrize("attention", ["gat", "gatv2", "dot"])
def test_second_order_gradients_on_a_multigraph_equal_the_reference(attention):
    """A gradient penalty (double backward) through the fused layer on a graph with a repeated edge: PyTorch's
    CSR autograd rejected the repeated entries ("SparseCompressedTensorBackward0 returned an invalid
    gradient"); with the repeats summed per cell it is the reference path's, and passes gradgradcheck."""
    edge_index = torch.tensor([[0, 0, 1, 2, 3, 3], [1, 1, 2, 3, 0, 0]])
    torch.manual_seed(0)
    fused = GATConv(3, 2, heads=2, attention=attention, impl="fused").double()
    ref = GATConv(3, 2, heads=2, attention=attention, impl="reference").double()
    ref.load_state_dict(fused.state_dict())
    x = torch.randn(4, 3, dtype=torch.double, requires_grad=True)
    assert torch.autograd.gradgradcheck(lambda x: fused(x, edge_index), (x,))
    penalties = []
    for layer in (fused, ref):
        gx, = torch.autograd.grad(layer(x, edge_index).pow(2).sum(), x, create_graph=True)
        penalties.append(torch.autograd.grad(gx.pow(2).sum(), [x, *layer.parameters()]))
    for got, want in zip(*penalties, strict=True):
        torch.testing.assert_close(got, want)


@pytest.mark.parametrize("attention", ["gat", "gatv2", "dot"])
def test_conv_fused_equals_reference_on_a_dense_multigraph(attention, device):
    """A whole layer, one head, on a multigraph with more edges than cells (self-loops added): the fused path
    (coalesced products) and the reference path (message passing) agree on outputs and every gradient."""
    edge_index = _graph(num_dst=7, num_edges=80).to(device)  # 80 edges (+ self-loops) > 7 x 7 cells
    g = torch.Generator().manual_seed(5)
    x = torch.randn(7, 6, generator=g).to(device)
    torch.manual_seed(0)
    fused = GATConv(6, 3, heads=1, attention=attention, degree_norm="log", impl="fused").to(device)
    ref = GATConv(6, 3, heads=1, attention=attention, degree_norm="log", impl="reference").to(device)
    ref.load_state_dict(fused.state_dict())
    runs = []
    for conv in (fused, ref):
        xx = x.clone().requires_grad_()
        out = conv(xx, edge_index)
        runs.append((out, torch.autograd.grad(out.square().sum(), [xx, *conv.parameters()])))
    torch.testing.assert_close(runs[0][0], runs[1][0], atol=1e-5, rtol=1e-5)
    for got, want in zip(runs[0][1], runs[1][1], strict=True):
        torch.testing.assert_close(got, want, atol=1e-5, rtol=1e-5)


def test_aggregate_gradcheck_float64():
    edge_index = _graph(num_edges=25)
    x = torch.randn(7, 3, 4, dtype=torch.double, requires_grad=True)
    alpha = torch.rand(25, 3, dtype=torch.double, requires_grad=True)
    plan = AttentionPlan(edge_index, 7, 5, 3)
    assert torch.autograd.gradcheck(lambda x, a: attention_aggregate(x, a, edge_index, 5, plan), (x, alpha))


def test_aggregate_with_duplicate_edges_and_bf16():
    edge_index = torch.tensor([[0, 0, 1], [1, 1, 0]])  # edge 0 -> 1 twice: both terms count
    x = torch.tensor([[1.0], [3.0]]).view(2, 1, 1)
    alpha = torch.tensor([[0.5], [0.25], [2.0]])
    out = attention_aggregate(x, alpha, edge_index, num_dst=2)
    torch.testing.assert_close(out.view(-1), torch.tensor([6.0, 0.75]))
    out_bf16 = attention_aggregate(x.bfloat16(), alpha.bfloat16(), edge_index, num_dst=2)
    assert out_bf16.dtype == torch.bfloat16
    torch.testing.assert_close(out_bf16.float().view(-1), torch.tensor([6.0, 0.75]))


def test_plan_for_another_graph_is_rejected():
    plan = AttentionPlan(_graph(num_edges=10), 7, 5, 2)
    x, alpha = torch.randn(7, 2, 3), torch.rand(12, 2)
    with pytest.raises(ValueError, match="build a new AttentionPlan"):
        attention_aggregate(x, alpha, _graph(num_edges=12), 5, plan)


def test_edge_dot_matches_reference_and_gradcheck(device):
    edge_index = _graph().to(device)
    g = torch.Generator().manual_seed(2)
    q = torch.randn(5, 3, 4, generator=g).to(device).requires_grad_()
    k = torch.randn(7, 3, 4, generator=g).to(device).requires_grad_()
    s = edge_dot(q, k, edge_index)
    ref = (q[edge_index[1]] * k[edge_index[0]]).sum(-1)  # (E, H)
    torch.testing.assert_close(s, ref, atol=1e-5, rtol=1e-5)
    grad = torch.randn(ref.shape, generator=g).to(device)
    for a, b in zip(torch.autograd.grad(s, (q, k), grad), torch.autograd.grad(ref, (q, k), grad), strict=True):
        torch.testing.assert_close(a, b, atol=1e-5, rtol=1e-5)
    q64 = q.detach().double().cpu().requires_grad_()
    k64 = k.detach().double().cpu().requires_grad_()
    assert torch.autograd.gradcheck(lambda q, k: edge_dot(q, k, edge_index.cpu()), (q64, k64))


def _gatv2_reference(x_src, x_dst, edge_index, att, slope, e_feat=None):
    z = x_src[edge_index[0]] + x_dst[edge_index[1]]  # (E, H, C)
    if e_feat is not None:
        z = z + e_feat
    return (torch.nn.functional.leaky_relu(z, slope) * att).sum(-1)


@pytest.mark.parametrize("with_edges", [False, True])
def test_gatv2_scores_chunked_match_reference(with_edges):
    edge_index = _graph(num_edges=30)
    g = torch.Generator().manual_seed(3)
    H, C, D = 2, 3, 4
    xs = torch.randn(7, H, C, generator=g, requires_grad=True)
    xd = torch.randn(5, H, C, generator=g, requires_grad=True)
    att = torch.randn(1, H, C, generator=g, requires_grad=True)
    ea = torch.randn(30, D, generator=g, requires_grad=True) if with_edges else None
    w = torch.randn(H * C, D, generator=g, requires_grad=True) if with_edges else None
    inputs = [t for t in (xs, xd, att, ea, w) if t is not None]
    out = gatv2_scores(xs, xd, edge_index, att, 0.2, ea, w, chunk_size=7)  # 30 edges in 5 chunks
    ref = _gatv2_reference(xs, xd, edge_index, att, 0.2, None if ea is None else (ea @ w.t()).view(30, H, C))
    torch.testing.assert_close(out, ref, atol=1e-5, rtol=1e-5)
    grad = torch.randn(ref.shape, generator=g)
    for a, b in zip(torch.autograd.grad(out, inputs, grad), torch.autograd.grad(ref, inputs, grad), strict=True):
        torch.testing.assert_close(a, b, atol=1e-5, rtol=1e-5)
    doubles = [t.detach().double().requires_grad_() for t in inputs]

    def f(*args):
        a = list(args)
        return gatv2_scores(a[0], a[1], edge_index, a[2], 0.2, *(a[3:] if with_edges else (None, None)),
                            chunk_size=7)

    assert torch.autograd.gradcheck(f, doubles)


def test_gatv2_scores_argument_errors():
    x = torch.randn(3, 1, 2)
    ei = torch.tensor([[0, 1], [1, 2]])
    with pytest.raises(ValueError, match="edge_attr and edge_weight must be given together"):
        gatv2_scores(x, x, ei, torch.randn(1, 1, 2), edge_attr=torch.randn(2, 3))
    with pytest.raises(ValueError, match="chunk_size=0"):
        gatv2_scores(x, x, ei, torch.randn(1, 1, 2), chunk_size=0)


def test_fold_edge_attention_equals_projection_then_attention():
    g = torch.Generator().manual_seed(4)
    E, D, H, C = 11, 3, 4, 5
    lin_edge = torch.nn.Linear(D, H * C, bias=False)
    att_edge = torch.randn(1, H, C, generator=g)
    edge_attr = torch.randn(E, D, generator=g)
    ref = (lin_edge(edge_attr).view(E, H, C) * att_edge).sum(-1)  # (E, H) via the (E, H, C) projection
    folded = edge_attr @ fold_edge_attention(lin_edge.weight, att_edge)
    torch.testing.assert_close(folded, ref, atol=1e-5, rtol=1e-5)


# ------------------------------------------------ GATConv: impl="fused" against impl="reference"
def _layer_pair(**kwargs):
    torch.manual_seed(0)
    ref = GATConv(8, 5, impl="reference", **kwargs)
    fused = GATConv(8, 5, impl="fused", **kwargs)
    fused.load_state_dict(ref.state_dict())
    if kwargs.get("temperature") == "learn":  # move the learnt values away from their start
        with torch.no_grad():
            ref.temperature_rho.uniform_(-1, 1)
            fused.temperature_rho.copy_(ref.temperature_rho)
    return ref, fused


def _graph_with_features(seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(9, 8, generator=g)
    edge_index = torch.tensor([[0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 3, 1, 7, 8, 8],
                               [1, 2, 3, 4, 0, 0, 0, 5, 6, 4, 3, 2, 0, 0, 7]])  # hub 0, a self-loop 3→3
    return x, edge_index, torch.randn(15, 3, generator=g), torch.randn(15, generator=g)


def _assert_same_forward_backward(ref, fused, x, args, kwargs):
    xr, xf = x.clone().requires_grad_(), x.clone().requires_grad_()
    out_r, (ei_r, a_r) = ref(xr, *args, return_attention_weights=True, **kwargs)
    out_f, (ei_f, a_f) = fused(xf, *args, return_attention_weights=True, **kwargs)
    torch.testing.assert_close(out_f, out_r, atol=1e-5, rtol=1e-5)
    assert torch.equal(ei_f, ei_r)
    torch.testing.assert_close(a_f, a_r, atol=1e-5, rtol=1e-5)
    grad = torch.randn(out_r.shape, generator=torch.Generator().manual_seed(5))
    (out_r * grad).sum().backward()
    (out_f * grad).sum().backward()
    torch.testing.assert_close(xf.grad, xr.grad, atol=1e-5, rtol=1e-5)
    params_f = dict(fused.named_parameters())
    for name, p in ref.named_parameters():
        assert (p.grad is None) == (params_f[name].grad is None), name
        if p.grad is not None:
            torch.testing.assert_close(params_f[name].grad, p.grad, atol=1e-5, rtol=1e-5, msg=name)


@pytest.mark.parametrize("degree_norm", [None, "log", "sym"])
@pytest.mark.parametrize("attention", ["gat", "gatv2", "dot"])
def test_conv_fused_equals_reference_all_options_on(attention, degree_norm):
    ref, fused = _layer_pair(heads=3, attention=attention, temperature="learn", degree_norm=degree_norm,
                             edge_dim=3, residual=True)
    x, ei, ea, bias = _graph_with_features()
    _assert_same_forward_backward(ref, fused, x, (ei, ea), {"attn_bias": bias})


@pytest.mark.parametrize("attention", ["gat", "gatv2", "dot"])
@pytest.mark.parametrize("concat,add_self_loops", [(True, False), (False, True)])
def test_conv_fused_equals_reference_options_off(attention, concat, add_self_loops):
    ref, fused = _layer_pair(heads=2, attention=attention, concat=concat, add_self_loops=add_self_loops,
                             temperature=0.5)
    x, ei, _, _ = _graph_with_features(seed=1)
    _assert_same_forward_backward(ref, fused, x, (ei,), {})


def test_conv_fused_bipartite_and_attention_dropout():
    torch.manual_seed(0)
    ref = GATConv((6, 4), 5, heads=2, add_self_loops=False, dropout=0.5, impl="reference")
    fused = GATConv((6, 4), 5, heads=2, add_self_loops=False, dropout=0.5, impl="fused")
    fused.load_state_dict(ref.state_dict())
    xs, xd = torch.randn(5, 6), torch.randn(3, 4)
    ei = torch.tensor([[0, 1, 2, 3, 4, 0], [0, 0, 1, 1, 2, 2]])
    # Dropout draws the same mask from the same generator state: identical outputs, not just in distribution.
    torch.manual_seed(7)
    out_r, (_, a_r) = ref((xs, xd), ei, return_attention_weights=True)
    torch.manual_seed(7)
    out_f, (_, a_f) = fused((xs, xd), ei, return_attention_weights=True)
    assert (a_r == 0).any()  # some attention weights were dropped
    torch.testing.assert_close(a_f, a_r)
    torch.testing.assert_close(out_f, out_r, atol=1e-5, rtol=1e-5)


def test_conv_fused_plan_cache_follows_the_graph():
    from gatbio.nn import conv

    layer = GATConv(8, 4, heads=2, impl="fused")
    x, ei, _, _ = _graph_with_features()
    out1 = layer(x, ei)

    def fused(graph):  # the graph's fused plans (its cache also holds the self-loop selection, the index check)
        return {k: v[1] for k, v in conv._PLANS.items() if k[0] == id(graph) and k[4] == "fused"}

    plans = fused(ei)
    assert len(plans) == 1
    other = GATConv(8, 4, heads=2, impl="fused")
    other(x, ei)  # another layer on the same graph shares the plan
    assert fused(ei) == plans
    ei2 = ei.flip(0)  # another graph with as many edges
    ref = GATConv(8, 4, heads=2, impl="reference")
    ref.load_state_dict(layer.state_dict())
    torch.testing.assert_close(layer(x, ei2), ref(x, ei2), atol=1e-5, rtol=1e-5)
    before = fused(ei2)
    ei2[0, 0] = 5  # modified in place: a new plan is built, and the old version's dropped
    torch.testing.assert_close(layer(x, ei2), ref(x, ei2), atol=1e-5, rtol=1e-5)
    after = fused(ei2)
    assert len(after) == 1 and after.keys() != before.keys()
    torch.testing.assert_close(layer(x, ei), out1)
    id2 = id(ei2)
    del ei2  # plans are dropped with their graph (at the next lookup: the weak reference's callback only notes it)
    layer(x, ei)
    assert not any(k[0] == id2 for k in conv._PLANS)


def test_conv_auto_picks_fused_only_for_large_message_tensors():
    from gatbio.nn.conv import FUSED_MIN_ELEMENTS

    layer = GATConv(8, 4, heads=2)  # impl="auto"
    x, ei, _, _ = _graph_with_features()
    from gatbio.nn import conv

    layer(x, ei)
    assert not any(k[0] == id(ei) and k[4] == "fused" for k in conv._PLANS)  # 24 edges × 8 channels: reference
    n = 64
    big = torch.stack([torch.arange(n).repeat_interleave(n), torch.arange(n).repeat(n)])  # n² edges
    assert big.size(1) * 2 * 64 >= FUSED_MIN_ELEMENTS  # E × H × C
    layer16 = GATConv(8, 4 * 16, heads=2)
    layer16(torch.randn(n, 8), big)
    assert any(k[0] == id(big) and k[4] == "fused" for k in conv._PLANS)


def test_head_dots_equal_elementwise_products():
    g = torch.Generator().manual_seed(6)
    x = torch.randn(5, 3, 4, generator=g, dtype=torch.double, requires_grad=True)
    a1 = torch.randn(1, 3, 4, generator=g, dtype=torch.double, requires_grad=True)
    a2 = torch.randn(1, 3, 4, generator=g, dtype=torch.double, requires_grad=True)
    d1, d2 = head_dots(x, a1, a2)
    torch.testing.assert_close(d1, (x * a1).sum(-1))
    torch.testing.assert_close(d2, (x * a2).sum(-1))
    assert torch.autograd.gradcheck(lambda x, a1, a2: torch.cat(head_dots(x, a1, a2), 1), (x, a1, a2))


def test_conv_fused_under_cpu_autocast_matches_float32():
    layer = GATConv(8, 4, heads=2, impl="fused")
    x, ei, _, _ = _graph_with_features()
    ref = layer(x, ei)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        out = layer(x, ei)
    out.float().sum().backward()  # the backward pass runs too
    torch.testing.assert_close(out.float(), ref, atol=5e-2, rtol=5e-2)  # bf16 precision


def test_torch_sparse_notices_are_not_shown(monkeypatch):
    # torch 2.11 warns "Sparse invariant checks are implicitly disabled" on building any sparse tensor, even with
    # check_invariants=False (2.13 does not): once per process, so once per worker of `jobs=16` in a benchmark log.
    # Here every sparse constructor warns as 2.11 does; the layer's fused path and its sparse-adjacency path
    # (which rebuilds the user's adjacency with the weights) show none of it.
    from torch_geometric.utils import to_torch_csr_tensor

    notice = ("Sparse invariant checks are implicitly disabled. Memory errors (e.g. SEGFAULT) will occur when "
              "operating on a sparse tensor which violates the invariants")
    for name in ("sparse_csr_tensor", "sparse_coo_tensor", "sparse_csc_tensor"):
        original = getattr(torch, name)

        def noisy(*args, _original=original, **kwargs):
            warnings.warn(notice, UserWarning, stacklevel=2)
            return _original(*args, **kwargs)

        monkeypatch.setattr(torch, name, noisy)
    with pytest.warns(UserWarning, match="implicitly disabled"):  # the patch is in effect
        adj = to_torch_csr_tensor(_graph(num_src=6, num_dst=6), size=(6, 6))
    x = torch.randn(6, 4)
    edge_index = _graph(num_src=6, num_dst=6)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        GATConv(4, 3, heads=2, impl="fused")(x, edge_index).sum().backward()
        GATConv(4, 3, heads=2)(x, adj, return_attention_weights=True)
        GATConv(4, 3, heads=2, add_self_loops=False)(x, adj, return_attention_weights=True)
    assert [str(w.message) for w in seen if "Sparse" in str(w.message)] == []
