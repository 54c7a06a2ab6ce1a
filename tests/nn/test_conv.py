"""Tests of gatbio.nn.GATConv: equality with PyG, attention invariants, gradients, stability, errors."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import torch
import torch_geometric.nn as pyg_nn
from torch_geometric.utils import scatter

from gatbio.nn import GATConv

ATTENTIONS = ["gat", "gatv2", "dot"]
TEMPERATURES = [1.0, 0.5, "learn"]
DEGREE_NORMS = [None, "log", "sym"]


def small_graph(device="cpu", dtype=torch.float32, seed=0):
    """7 nodes, 12 directed edges with a hub (node 0), one existing self-loop (3→3), edge features."""
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(7, 8, generator=g, dtype=dtype)
    edge_index = torch.tensor([[0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 3, 1],
                               [1, 2, 3, 4, 0, 0, 0, 5, 6, 4, 3, 2]])
    edge_attr = torch.randn(edge_index.size(1), 3, generator=g, dtype=dtype)
    return x.to(device), edge_index.to(device), edge_attr.to(device)


def incoming_sums(alpha, edge_index, num_nodes):
    return scatter(alpha, edge_index[1], dim=0, dim_size=num_nodes, reduce="sum")  # (N, H)


# ---------------------------------------------------------------- 1. equality with PyG
@pytest.mark.parametrize("heads,concat,residual,edge_dim,add_loops",
                         list(itertools.product([1, 4], [True, False], [True, False], [None, 3], [True, False])))
@pytest.mark.parametrize("attention,reference", [("gat", pyg_nn.GATConv), ("gatv2", pyg_nn.GATv2Conv)])
def test_equals_pyg(attention, reference, heads, concat, residual, edge_dim, add_loops, device):
    x, ei, ea = small_graph(device)
    kw = dict(heads=heads, concat=concat, residual=residual, edge_dim=edge_dim, add_self_loops=add_loops)
    ref = reference(8, 5, **kw).to(device)
    ours = GATConv(8, 5, attention=attention, **kw).to(device)
    ours.load_state_dict(ref.state_dict(), strict=True)  # same parameter names
    ea = ea if edge_dim else None
    out_ref, (ei_ref, a_ref) = ref(x, ei, ea, return_attention_weights=True)
    out, (ei_ours, a_ours) = ours(x, ei, ea, return_attention_weights=True)
    assert out.shape == out_ref.shape
    torch.testing.assert_close(out, out_ref, atol=1e-6, rtol=0)
    assert torch.equal(ei_ours, ei_ref)
    assert a_ours.shape == (ei_ref.size(1), heads)
    torch.testing.assert_close(a_ours, a_ref, atol=1e-6, rtol=0)


def test_bipartite_equals_pyg():
    torch.manual_seed(0)
    xs, xd = torch.randn(5, 6), torch.randn(3, 4)
    ei = torch.tensor([[0, 1, 2, 3, 4, 0], [0, 0, 1, 1, 2, 2]])
    ref = pyg_nn.GATConv((6, 4), 5, heads=2, add_self_loops=False)
    ours = GATConv((6, 4), 5, heads=2, add_self_loops=False)
    ours.load_state_dict(ref.state_dict(), strict=True)
    torch.testing.assert_close(ours((xs, xd), ei), ref((xs, xd), ei), atol=1e-6, rtol=0)


def test_defaults_match_pyg_signature():
    import inspect

    ref = inspect.signature(pyg_nn.GATConv.__init__).parameters
    ours = inspect.signature(GATConv.__init__).parameters
    for name, p in ref.items():
        if name in ("self", "kwargs"):
            continue
        assert name in ours, name
        assert ours[name].default == p.default, name


# ---------------------------------------------------------------- 2. attention invariants
ALL_MODES = list(itertools.product(ATTENTIONS, TEMPERATURES, DEGREE_NORMS))


@pytest.mark.parametrize("attention,temperature,degree_norm", ALL_MODES)
def test_attention_sums_to_one(attention, temperature, degree_norm, device):
    x, ei, _ = small_graph(device)
    conv = GATConv(8, 4, heads=3, attention=attention, temperature=temperature, degree_norm=degree_norm).to(device)
    bias = torch.randn(ei.size(1), 3, device=device)
    _, (ei2, alpha) = conv(x, ei, attn_bias=bias, return_attention_weights=True)
    sums = incoming_sums(alpha, ei2, x.size(0))
    if degree_norm == "sym":
        # After the softmax each weight is scaled by sqrt(d_i / d_j): check that formula instead.
        conv_plain = GATConv(8, 4, heads=3, attention=attention, temperature=temperature).to(device)
        conv_plain.load_state_dict(conv.state_dict(), strict=False)
        _, (_, a_plain) = conv_plain(x, ei, attn_bias=bias, return_attention_weights=True)
        deg = torch.bincount(ei2[1], minlength=x.size(0)).float()
        factor = (deg[ei2[1]] / deg[ei2[0]]).sqrt().unsqueeze(-1)
        torch.testing.assert_close(alpha, a_plain * factor, atol=1e-6, rtol=1e-5)
    else:
        torch.testing.assert_close(sums, torch.ones_like(sums), atol=1e-5, rtol=0)


@pytest.mark.parametrize("attention,temperature,degree_norm", ALL_MODES)
def test_bias_constant_per_target_changes_nothing(attention, temperature, degree_norm):
    x, ei, _ = small_graph()
    conv = GATConv(8, 4, heads=2, attention=attention, temperature=temperature, degree_norm=degree_norm,
                   add_self_loops=False).eval()
    per_target = torch.randn(x.size(0), 2)
    out0, (_, a0) = conv(x, ei, return_attention_weights=True)
    out1, (_, a1) = conv(x, ei, attn_bias=per_target[ei[1]], return_attention_weights=True)
    torch.testing.assert_close(a1, a0, atol=1e-6, rtol=1e-5)
    torch.testing.assert_close(out1, out0, atol=1e-5, rtol=1e-5)


def test_bias_changes_attention_and_self_loops_get_zero():
    x, ei, _ = small_graph()
    conv = GATConv(8, 4, heads=1).eval()
    bias = torch.zeros(ei.size(1))
    bias[0] = 5.0  # edge 0 -> 1 gets a big bonus
    _, (ei2, a0) = conv(x, ei, return_attention_weights=True)
    _, (_, a1) = conv(x, ei, attn_bias=bias, return_attention_weights=True)
    e01 = ((ei2[0] == 0) & (ei2[1] == 1)).nonzero().item()
    assert a1[e01, 0] > a0[e01, 0]
    # With a bias that is zero everywhere, nothing changes (added self-loops get zero too).
    _, (_, a2) = conv(x, ei, attn_bias=torch.zeros(ei.size(1), 1).expand(-1, 1).reshape(-1), return_attention_weights=True)
    torch.testing.assert_close(a2, a0)
    # The added self-loops' bias is 0 whatever the given ones are: the same as the loops added by hand with bias 0
    # (a fill such as the bias's mean, as PyG fills edge features, would differ here).
    bias = torch.randn(ei.size(1), generator=torch.Generator().manual_seed(3)) + 2.0
    _, (ei3, a3) = conv(x, ei, attn_bias=bias, return_attention_weights=True)
    no_loops = GATConv(8, 4, heads=1, add_self_loops=False).eval()
    no_loops.load_state_dict(conv.state_dict())
    keep = ei[0] != ei[1]
    loops = torch.arange(x.size(0)).repeat(2, 1)
    by_hand = torch.cat([ei[:, keep], loops], dim=1)
    _, (ei4, a4) = no_loops(x, by_hand, attn_bias=torch.cat([bias[keep], torch.zeros(x.size(0))]),
                            return_attention_weights=True)
    assert torch.equal(ei3, ei4)
    torch.testing.assert_close(a3, a4)


@pytest.mark.parametrize("impl", ["reference", "fused"])
@pytest.mark.parametrize("attention", ATTENTIONS)
def test_a_bias_of_minus_inf_masks_the_edge_as_if_it_were_absent(attention, impl):
    """-inf in attn_bias removes the edge: output, weights and every gradient (the learnable temperature's
    included) equal those of the graph without it, also for a target whose every edge is masked (a zero row, as a
    node without edges gets). The temperature's gradient was NaN (0 * inf) and a fully masked target's row NaN,
    whose gradients made every parameter's NaN."""
    g = torch.Generator().manual_seed(5)
    x = torch.randn(6, 8, generator=g, dtype=torch.float64)
    ei = torch.tensor([[0, 2, 3, 1, 4, 5, 0, 3], [1, 1, 2, 3, 3, 4, 5, 5]])  # node 1's two edges both masked
    bias = torch.randn(ei.size(1), 2, generator=g, dtype=torch.float64)
    masked = torch.tensor([True, True, False, True, False, False, True, False])  # all of 1's, one of 3's and 5's
    bias[masked, 0] = float("-inf")
    bias[masked, 1] = float("-inf")
    torch.manual_seed(0)
    conv = GATConv(8, 4, heads=2, attention=attention, temperature="learn", add_self_loops=False,
                   impl=impl).double()
    with torch.no_grad():
        conv.temperature_rho.add_(torch.tensor([0.3, -0.2], dtype=torch.float64))
    w = torch.randn(6, 8, generator=g, dtype=torch.float64)  # a fixed random loss

    def run(edge_index, b):
        conv.zero_grad()
        out, (_, alpha) = conv(x, edge_index, attn_bias=b, return_attention_weights=True)
        (out * w).sum().backward()
        return out.detach(), alpha.detach(), {n: p.grad.clone() for n, p in conv.named_parameters()}

    out, alpha, grads = run(ei, bias)
    out_r, alpha_r, grads_r = run(ei[:, ~masked], bias[~masked])
    torch.testing.assert_close(out, out_r)
    assert torch.all(alpha[masked] == 0)
    torch.testing.assert_close(alpha[~masked], alpha_r)
    torch.testing.assert_close(out[1], conv.bias.detach())  # no unmasked edge: the layer's bias alone
    for name, grad in grads.items():
        assert grad.isfinite().all(), name
        torch.testing.assert_close(grad, grads_r[name], msg=name)
    # with the degree options too (degrees count the masked edges: no comparison, but nothing is NaN)
    for degree_norm in ("log", "sym"):
        conv = GATConv(8, 4, heads=2, attention=attention, temperature="learn", degree_norm=degree_norm,
                       add_self_loops=False, impl=impl).double()
        out = conv(x, ei, attn_bias=bias)
        (out * w).sum().backward()
        assert out.isfinite().all() and torch.all(out[1] == conv.bias)
        assert all(p.grad.isfinite().all() for p in conv.parameters() if p.grad is not None)


@pytest.mark.parametrize("attention,temperature,degree_norm", ALL_MODES)
def test_permutation_equivariance(attention, temperature, degree_norm):
    x, ei, ea = small_graph()
    conv = GATConv(8, 4, heads=2, attention=attention, temperature=temperature, degree_norm=degree_norm,
                   edge_dim=3).eval()
    bias = torch.randn(ei.size(1), 2)
    perm = torch.randperm(x.size(0), generator=torch.Generator().manual_seed(3))
    inv = torch.empty_like(perm)
    inv[perm] = torch.arange(perm.numel())
    out = conv(x, ei, ea, attn_bias=bias)
    out_p = conv(x[perm], inv[ei], ea, attn_bias=bias)  # node perm[k] is now called k
    torch.testing.assert_close(out_p, out[perm], atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("attention", ATTENTIONS)
def test_temperature_limits(attention):
    x, ei, _ = small_graph()
    hot = GATConv(8, 4, heads=2, attention=attention, temperature=1e6).eval()
    _, (ei2, a_hot) = hot(x, ei, return_attention_weights=True)
    deg = torch.bincount(ei2[1], minlength=x.size(0)).float()
    torch.testing.assert_close(a_hot, (1.0 / deg[ei2[1]]).unsqueeze(-1).expand_as(a_hot), atol=1e-4, rtol=0)

    cold = GATConv(8, 4, heads=2, attention=attention, temperature=1e-4).eval()
    cold_ref = GATConv(8, 4, heads=2, attention=attention).eval()
    cold_ref.load_state_dict(cold.state_dict())
    _, (ei2, a_cold) = cold(x, ei, return_attention_weights=True)
    _, (_, a_one) = cold_ref(x, ei, return_attention_weights=True)
    # argmax of the tau=1 weights per target gets (almost) all the mass
    for i in range(x.size(0)):
        m = ei2[1] == i
        for h in range(2):
            best = a_one[m, h].argmax()
            assert a_cold[m, h][best] > 0.99


def test_learnable_temperature_is_positive_and_bounded():
    conv = GATConv(8, 4, heads=3, temperature="learn", min_temperature=0.1)
    torch.testing.assert_close(conv.tau(), torch.ones(3))
    with torch.no_grad():
        conv.temperature_rho.fill_(-1e4)
    assert torch.all(conv.tau() >= 0.1)
    assert conv.temperature_rho.requires_grad


def test_log_degree_prior_discounts_hubs():
    # Target 5 receives from a hub (0, in-degree 5) and a leaf (1, in-degree 2 with self-loop).
    ei = torch.tensor([[2, 3, 4, 6, 0, 1, 0], [0, 0, 0, 0, 5, 5, 1]])
    x = torch.ones(7, 4)  # identical features: plain attention is uniform
    plain = GATConv(4, 2, heads=1).eval()
    logn = GATConv(4, 2, heads=1, degree_norm="log").eval()
    logn.load_state_dict(plain.state_dict(), strict=False)
    _, (e2, a_plain) = plain(x, ei, return_attention_weights=True)
    _, (_, a_log) = logn(x, ei, return_attention_weights=True)
    hub = ((e2[0] == 0) & (e2[1] == 5)).nonzero().item()
    leaf = ((e2[0] == 1) & (e2[1] == 5)).nonzero().item()
    assert float(a_plain[hub, 0].detach()) == pytest.approx(float(a_plain[leaf, 0].detach()))
    assert a_log[hub, 0] < a_log[leaf, 0]
    # exact: weights proportional to 1/deg(j) when lambda = 1 and scores are equal
    deg = torch.bincount(e2[1], minlength=7).float()
    m = e2[1] == 5
    expected = (1 / deg[e2[0][m]]) / (1 / deg[e2[0][m]]).sum()
    torch.testing.assert_close(a_log[m, 0], expected, atol=1e-6, rtol=0)


# ---------------------------------------------------------------- 3. gradcheck in float64
@pytest.mark.parametrize("attention,temperature,degree_norm",
                         list(itertools.product(ATTENTIONS, [0.7, "learn"], DEGREE_NORMS)))
@pytest.mark.parametrize("with_bias", [False, True])
def test_gradcheck(attention, temperature, degree_norm, with_bias):
    x, ei, ea = small_graph(dtype=torch.float64)
    conv = GATConv(8, 3, heads=2, attention=attention, temperature=temperature, degree_norm=degree_norm,
                   edge_dim=3, residual=True).double()
    x = x.clone().requires_grad_()
    bias = torch.randn(ei.size(1), 2, dtype=torch.float64, requires_grad=True) if with_bias else None
    params = [p for p in conv.parameters()]

    def f(x, bias, *ps):
        return conv(x, ei, ea, attn_bias=bias)

    inputs = (x, bias, *params) if bias is not None else (x, None, *params)
    # fast_mode checks random projections of the Jacobian (same guarantee in expectation, far cheaper)
    assert torch.autograd.gradcheck(lambda *a: f(*a), inputs, eps=1e-6, atol=1e-5, fast_mode=True)


# ---------------------------------------------------------------- 4. numerical stability
@pytest.mark.parametrize("attention,degree_norm", list(itertools.product(ATTENTIONS, DEGREE_NORMS)))
def test_no_nan_with_huge_logits_or_tiny_temperature(attention, degree_norm):
    x, ei, _ = small_graph()
    for temperature, scale in ((1.0, 1e4), (1e-3, 1.0), (1e-3, 1e4)):
        conv = GATConv(8, 4, heads=2, attention=attention, temperature=temperature, degree_norm=degree_norm)
        xs = (x * scale).requires_grad_()
        bias = torch.full((ei.size(1), 2), 1e4, requires_grad=True)
        out, (_, alpha) = conv(xs, ei, attn_bias=bias, return_attention_weights=True)
        out.square().mean().backward()
        assert torch.isfinite(out).all() and torch.isfinite(alpha).all()
        assert torch.isfinite(xs.grad).all() and torch.isfinite(bias.grad).all()
        for p in conv.parameters():
            assert p.grad is None or torch.isfinite(p.grad).all()


# ---------------------------------------------------------------- 5. device agnostic
@pytest.mark.parametrize("attention,temperature,degree_norm", ALL_MODES)
def test_runs_on_device(attention, temperature, degree_norm, device):
    x, ei, ea = small_graph(device)
    conv = GATConv(8, 4, heads=2, attention=attention, temperature=temperature, degree_norm=degree_norm,
                   edge_dim=3, residual=True).to(device)
    out = conv(x, ei, ea, attn_bias=torch.randn(ei.size(1), device=device))
    assert out.device.type == device.type and out.shape == (7, 8)
    out.sum().backward()


# ---------------------------------------------------------------- 6. errors that say what to do
@pytest.mark.parametrize("kwargs,match", [
    (dict(attention="transformer"), r"attention='transformer' is not allowed: choose one of 'gat', 'gatv2', 'dot'"),
    (dict(degree_norm="mean"), r"degree_norm='mean' is not allowed: choose one of None, 'log', 'sym'"),
    (dict(temperature=0.0), r"temperature=0.0 is not allowed: it must be a positive number or 'learn'"),
    (dict(temperature=-2), r"temperature=-2 is not allowed"),
    (dict(temperature=1e-40), r"temperature=1e-40 is not allowed: it must be at least 1e-06 \(below, attention is a"),
    (dict(temperature="learn", min_temperature=1e-9), r"min_temperature=1e-09 is not allowed: it must be at least"),
    (dict(temperature="hot"), r"temperature='hot' is not allowed: use a positive number or 'learn'"),
    (dict(min_temperature=0), r"min_temperature=0 is not allowed"),
    (dict(heads=0), r"heads=0 is not allowed"),
    (dict(share_weights=True), r"share_weights=True is only allowed with attention='gatv2'"),
    (dict(heads=True), r"heads=True is not allowed: it must be a positive integer"),
    (dict(edge_dim=0), r"edge_dim=0 is not allowed: None, a positive integer, or -1"),
    (dict(min_temperature=float("inf")), r"min_temperature=inf is not allowed: it must be a positive finite"),
    (dict(dropout=None), r"dropout=None is not allowed: it must be a number in \[0, 1\)"),
    (dict(fill_value="foo"), r"fill_value='foo' is not allowed: a number, a tensor of edge_dim values, or one of"),
    (dict(negative_slope="x"), r"negative_slope='x' is not allowed"),
])
def test_bad_constructor_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        GATConv(8, 4, **kwargs)


@pytest.mark.parametrize("in_channels", ["5", 0, True, (8, 0), (8, 4, 2)])
def test_bad_in_channels_are_named(in_channels):
    with pytest.raises(ValueError, match=r"in_channels=.* is not allowed: a positive integer, -1"):
        GATConv(in_channels, 4)


def test_bad_x_and_size_are_named():
    x, ei, _ = small_graph()
    conv = GATConv(8, 4)
    with pytest.raises(ValueError, match=r"x must be a tensor \(N, F\) or a pair \(x_src, x_dst\); got tuple of "
                                         r"length 3"):
        conv((x, x, x), ei)
    with pytest.raises(ValueError, match=r"size=\(6,\) is not allowed: a pair \(N_src, N_dst\)"):
        conv(x, ei, size=(6,))


def test_bad_call_arguments():
    x, ei, ea = small_graph()
    conv = GATConv(8, 4, heads=2)
    with pytest.raises(ValueError, match=r"attn_bias has shape \(5,\), expected \(12,\) or \(12, 2\)"):
        conv(x, ei, attn_bias=torch.zeros(5))
    with pytest.raises(ValueError, match=r"attn_bias has shape \(12, 3\), expected \(12,\) or \(12, 2\)"):
        conv(x, ei, attn_bias=torch.zeros(12, 3))
    bad = ei.clone()
    bad[1, 0] = 9
    with pytest.raises(ValueError, match=r"target node index 9 but there are only 7 target nodes"):
        conv(x, bad)
    bad = ei.clone()
    bad[0, 0] = 7
    with pytest.raises(ValueError, match=r"source node index 7 but there are only 7 source nodes"):
        conv(x, bad)
    with pytest.raises(ValueError, match=r"x has 5 features per node but this layer was built with in_channels=8"):
        conv(torch.randn(7, 5), ei)
    with pytest.raises(ValueError, match=r"edge_index must be a \(2, E\) integer tensor or a sparse .*; got \(12,\)"):
        conv(x, ei[0])
    with pytest.raises(ValueError, match=r"edge_attr was given but this layer was built with edge_dim=None"):
        conv(x, ei, ea)
    with pytest.raises(ValueError, match=r"edge_attr has shape \(12, 3\), expected \(12, 2\)"):
        GATConv(8, 4, edge_dim=2)(x, ei, ea)
    with pytest.raises(ValueError, match=r"edge_index must hold torch.long or torch.int32 indices; got dtype "
                                         r"torch.int16 \(convert it with edge_index.long\(\)\)"):
        conv(x, ei.to(torch.int16))
    with pytest.raises(ValueError, match=r"source node index \d+ but there are no source nodes \(x has no rows\)"):
        conv(x[:0], ei)


def test_node_features_of_another_dtype_are_named():
    """torch.from_numpy gives float64: PyG's layer fails inside the matrix product (``expected m1 and m2 to have
    the same dtype``); this one names x and both fixes. Under autocast the dtypes may differ (it casts)."""
    x, ei, _ = small_graph()
    conv = GATConv(8, 4, heads=2)
    with pytest.raises(ValueError, match=r"^x has dtype torch.float64 but this layer's parameters are torch.float32: "
                                         r"convert one to the other \(x.to\(torch.float32\), or the model's "
                                         r"\.to\(torch.float64\)"):
        conv(x.double(), ei)
    with pytest.raises(ValueError, match=r"^x has dtype torch.int64: node features enter a linear projection"):
        conv(x.long(), ei)
    with pytest.raises(ValueError, match=r"^x_dst has dtype torch.float64 but"):
        GATConv((8, 8), 4)((x, x.double()), ei)
    torch.testing.assert_close(conv.double()(x.double(), ei), conv.float()(x, ei).double(), rtol=1e-5, atol=1e-5)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        assert conv(x.bfloat16(), ei).dtype == torch.float32  # autocast casts: no refusal


@pytest.mark.parametrize("impl", ["reference", "fused"])
def test_a_graph_seen_before_costs_no_host_device_synchronisation(impl):
    """The index check and the self-loop selection read index values back (on a GPU: the host waits for it);
    they run once per input graph, so a training step on the same graph dispatches no operator that does
    (item, nonzero, a boolean mask) on any path. The Triton path: tests/nn/test_triton.py."""
    from conftest import host_reads

    x, ei, ea = small_graph()
    bias = torch.randn(ei.size(1))
    conv = GATConv(8, 4, heads=2, edge_dim=3, degree_norm="log", temperature="learn", residual=True, impl=impl)
    first = conv(x, ei, ea, attn_bias=bias)
    outs = []

    def step():
        outs.append(conv(x, ei, ea, attn_bias=bias))
        outs[0].sum().backward()

    ops, reads = host_reads(step)
    assert ops > 0 and reads == []
    torch.testing.assert_close(outs[0], first, rtol=0, atol=0)
    # the first call on a graph does read values (what makes the check meaningful)
    assert host_reads(lambda: conv(x, ei.clone(), ea, attn_bias=bias))[1]


def test_a_graph_changed_in_place_is_checked_and_looped_again():
    """Per-graph facts are kept for the unchanged tensor only: an index made invalid in place is refused on the
    next call, and a self-loop written in place is replaced like any other (the result equals a fresh copy's)."""
    x, ei, ea = small_graph()
    conv = GATConv(8, 4, heads=2, edge_dim=3)
    conv(x, ei, ea)
    ei[0, 0] = 7
    with pytest.raises(ValueError, match=r"source node index 7 but there are only 7 source nodes"):
        conv(x, ei, ea)
    ei[0, 0] = 1  # edge 0 -> 1 becomes the loop 1 -> 1
    torch.testing.assert_close(conv(x, ei, ea), conv(x, ei.clone(), ea), rtol=0, atol=0)
    ref = pyg_nn.GATConv(8, 4, heads=2, edge_dim=3)
    ref.load_state_dict(conv.state_dict(), strict=False)
    torch.testing.assert_close(conv(x, ei, ea), ref(x, ei, ea), rtol=1e-6, atol=1e-6)


def test_repr_and_reset_parameters():
    conv = GATConv(8, 4, heads=2, temperature="learn", degree_norm="log")
    assert repr(conv) == "GATConv(8, 4, heads=2, temperature='learn', degree_norm='log')"
    with torch.no_grad():
        conv.degree_lambda.fill_(3.0)
    conv.reset_parameters()
    assert torch.all(conv.degree_lambda == 1.0)


@pytest.mark.parametrize("attention", ["gat", "gatv2", "dot"])
@pytest.mark.parametrize("residual", [False, True])
def test_lazy_in_channels_as_in_pyg(attention, residual):
    """in_channels=-1 sizes the projections from the first input, as PyG's lazy layers do."""
    torch.manual_seed(0)
    x, edge_index = torch.randn(5, 7), torch.tensor([[0, 1, 2, 3], [1, 2, 3, 4]])
    conv = GATConv(-1, 4, heads=2, attention=attention, residual=residual)
    assert conv(x, edge_index).shape == (5, 8)
    if attention == "gat" and not residual:
        pyg = pyg_nn.GATConv(-1, 4, heads=2)
        pyg(x, edge_index)
        pyg.load_state_dict(conv.state_dict())
        torch.testing.assert_close(conv(x, edge_index), pyg(x, edge_index))
    with pytest.raises(ValueError, match="features per node"):
        conv(torch.randn(5, 6), edge_index)  # sized by the first call: 7


def test_dot_without_target_features_names_the_fix():
    conv = GATConv((7, 3), 4, attention="dot")
    with pytest.raises(ValueError, match=r"attention='dot' needs target node features"):
        conv((torch.randn(5, 7), None), torch.tensor([[0, 1], [1, 2]]))


@pytest.mark.parametrize("impl", ["reference", "fused"])
def test_inference_mode_like_no_grad(impl):
    """Inference tensors have no version counter: the layer builds its graph plan afresh instead of caching it."""
    torch.manual_seed(0)
    conv = GATConv(5, 3, heads=2, impl=impl, degree_norm="log").eval()
    x, ei = torch.randn(4, 5), torch.tensor([[0, 1, 2, 3], [1, 2, 3, 0]])
    with torch.no_grad():
        want = conv(x, ei)
        adj = torch.sparse_coo_tensor(ei.flip(0), torch.ones(4), (4, 4))
        want_adj = conv(x, adj)
    with torch.inference_mode():
        assert torch.allclose(conv(x, ei), want, atol=1e-6)
        assert torch.allclose(conv(torch.randn(4, 5) * 0 + x, ei.clone()), want, atol=1e-6)  # inference tensors
        assert torch.allclose(conv(x, adj), want_adj, atol=1e-6)


@pytest.mark.parametrize("impl", ["reference", "fused", "auto"])
@pytest.mark.parametrize("loops", [True, False])
def test_a_graph_seen_first_under_inference_mode_trains_afterwards(impl, loops):
    """A plan built under ``torch.inference_mode()`` is made of inference tensors, which autograd cannot save: it
    is not cached, so evaluating a graph in inference mode and then training on the same tensor works (it raised
    "Inference tensors cannot be saved for backward" on the fused path)."""
    torch.manual_seed(0)
    conv = GATConv(5, 3, heads=2, impl=impl, add_self_loops=loops, edge_dim=2)
    x, ei, ea = torch.randn(4, 5), torch.tensor([[0, 1, 2, 3, 1], [1, 2, 3, 0, 1]]), torch.randn(5, 2)
    with torch.inference_mode():
        seen = conv(x, ei, ea)
    out = conv(x, ei, ea)
    out.sum().backward()
    assert conv.lin.weight.grad is not None and torch.allclose(out.detach(), seen, atol=1e-6)


def test_cache_graphs_off_sees_writes_that_bypass_the_version_counter():
    import numpy as np

    from gatbio.nn import cache_graphs

    torch.manual_seed(0)
    conv, pyg = GATConv(5, 3).eval(), pyg_nn.GATConv(5, 3).eval()
    pyg.load_state_dict(conv.state_dict())
    x, buf = torch.randn(4, 5), np.array([[0, 1, 2], [1, 2, 3]])
    ei = torch.from_numpy(buf)
    old = cache_graphs(False)
    try:
        assert torch.allclose(conv(x, ei), pyg(x, ei), atol=1e-6)
        buf[1] = 0  # a sampler refilling its buffer: PyTorch does not see this write
        assert torch.allclose(conv(x, ei), pyg(x, ei), atol=1e-6)
    finally:
        assert cache_graphs(old) is False


def test_degree_norm_refuses_a_bipartite_pair_and_bool_temperature():
    x_src, x_dst, ei = torch.randn(6, 5), torch.randn(3, 5), torch.tensor([[0, 4, 5], [0, 1, 2]])
    with pytest.raises(ValueError, match="degree_norm='log' needs one node set"):
        GATConv(5, 3, degree_norm="log")((x_src, x_dst), ei)
    x = torch.randn(6, 5)
    assert GATConv(5, 3, degree_norm="log")((x, x), ei).shape == (6, 3)  # one node set given twice: fine
    with pytest.raises(ValueError, match="temperature=True is not allowed"):
        GATConv(5, 3, temperature=True)


def test_numpy_temperature_fill_value_length_and_bias_dtype():
    """A NumPy number is a temperature like any other; a tensor fill_value needs 1 or edge_dim values; attn_bias
    must be floating point, and a float64 bias does not turn a float32 layer's weights into float64."""
    x, ei = torch.randn(6, 5), torch.tensor([[0, 1, 2, 3], [1, 2, 3, 0]])
    assert GATConv(5, 3, temperature=np.float32(0.5)).tau() == 0.5
    with pytest.raises(ValueError, match=r"fill_value has shape \(3,\).*one value or edge_dim=2 values"):
        GATConv(5, 3, edge_dim=2, fill_value=torch.ones(3))
    ea = torch.randn(4, 2)
    for fill in (torch.ones(2), torch.tensor(0.5), torch.ones(1)):
        assert GATConv(5, 3, edge_dim=2, fill_value=fill)(x, ei, ea).shape == (6, 3)
        assert GATConv(5, 3, edge_dim=-1, fill_value=fill)(x, ei, ea).shape == (6, 3)
    # edge_dim=-1: the width is known at the first call, and the length is checked then (was an error from
    # deep inside PyG's add_self_loops)
    with pytest.raises(ValueError, match=r"fill_value has shape \(3,\).*one value or edge_dim=2 values"):
        GATConv(5, 3, edge_dim=-1, fill_value=torch.ones(3))(x, ei, ea)
    # NumPy integers (sizes read from arrays) are counts, as in PyG, and stored as Python ints
    conv = GATConv(np.int64(5), np.int64(3), heads=np.int32(2), edge_dim=np.int64(2))
    assert repr(conv) == "GATConv(5, 3, heads=2)" and type(conv.heads) is int and conv(x, ei, ea).shape == (6, 6)
    conv = GATConv(5, 3)
    with pytest.raises(ValueError, match="attn_bias has dtype torch.int64.*floating-point"):
        conv(x, ei, attn_bias=torch.ones(4, dtype=torch.long))
    with pytest.raises(ValueError, match="attn_bias has dtype torch.bool"):
        conv(x, ei, attn_bias=torch.ones(4, dtype=torch.bool))
    out, (_, alpha) = conv(x, ei, attn_bias=torch.ones(4, dtype=torch.float64), return_attention_weights=True)
    assert out.dtype == alpha.dtype == torch.float32
    torch.testing.assert_close(out, conv(x, ei, attn_bias=torch.ones(4)))


def test_one_node_set_for_a_bipartite_layer_and_integer_edge_features_are_refused_plainly():
    """A layer built for two node sets given one tensor (or the same one twice) ended in torch's "mat1 and mat2
    shapes cannot be multiplied"; integer edge features were refused (reference path) or cast (fused path)
    depending on the graph's size."""
    x, ei = torch.randn(6, 4), torch.tensor([[0, 1, 2, 3], [1, 2, 3, 0]])
    for xin in (x, (x, x)):
        with pytest.raises(ValueError, match=r"built for two node sets \(in_channels=\(4, 2\): 4 source and 2 "
                                             r"target features\).*pass x as a pair \(x_src, x_dst\)"):
            GATConv((4, 2), 3)(xin, ei)
    assert GATConv((4, 4), 3)(x, ei).shape == (6, 3)  # one node set with equal widths is fine
    for impl in ("reference", "fused"):
        conv = GATConv(4, 3, edge_dim=1, impl=impl)
        with pytest.raises(ValueError, match=r"edge_attr has dtype torch.int64.*edge_attr.float\(\)"):
            conv(x, ei, torch.tensor([1, 2, 3, 4]))
        assert conv(x, ei, torch.tensor([1.0, 2, 3, 4])).shape == (6, 3)


def test_every_exported_name_resolves():
    """``gatbio.nn`` loads its models on first use: they are in ``__all__`` and ``dir()`` and come with ``import *``
    (they resolved by attribute only)."""
    import gatbio.nn as gnn

    names = {}
    exec("from gatbio.nn import *", names)
    assert {"GATConv", "GATNodeClassifier", "FoodWebGAT", "TrophicBias", "GATPairModel"} <= set(names)
    assert set(gnn.__all__) <= set(dir(gnn)) and all(getattr(gnn, n) is names[n] for n in gnn.__all__)


# ---------------------------------------------------------------- PyG's contract on every path
def big_graph_pair(seed, **kw):
    """2,000 nodes, 40,000 random edges (impl='auto' takes the fused path at 4 heads x 4 channels) and a gatbio
    layer with PyG's layer holding the same weights."""
    g = torch.Generator().manual_seed(seed)
    ei = torch.randint(0, 2000, (2, 40000), generator=g)
    x = torch.randn(2000, 8, generator=g)
    conv, ref = GATConv(8, 4, heads=4, **kw), pyg_nn.GATConv(8, 4, heads=4, **kw)
    ref.load_state_dict(conv.state_dict(), strict=False)
    return x, ei, conv, ref


@pytest.mark.parametrize("impl", ["reference", "fused"])
@pytest.mark.parametrize("aggr", ["mean", "max"])
def test_another_aggr_follows_pyg_on_every_impl(impl, aggr):
    """The fused and Triton paths sum the weighted messages: another aggr (PyG's message passing honours it) runs
    the reference path under impl='auto', and impl='fused' / 'triton' say why they cannot run it."""
    x, ei, ea = small_graph()
    ref = pyg_nn.GATConv(8, 4, heads=2, aggr=aggr)
    conv = GATConv(8, 4, heads=2, aggr=aggr, impl="auto" if impl == "fused" else impl)
    conv.load_state_dict(ref.state_dict(), strict=False)
    torch.testing.assert_close(conv(x, ei), ref(x, ei), rtol=1e-6, atol=1e-6)
    xb, big, conv_big, ref_big = big_graph_pair(1, aggr=aggr)  # impl='auto' would take the fused path there
    assert conv_big._fused_plan(big, big, 2000, 2000) is None
    torch.testing.assert_close(conv_big(xb, big), ref_big(xb, big), rtol=1e-5, atol=1e-5)
    with pytest.raises(RuntimeError, match=rf"impl='fused' sums the weighted messages of every edge: "
                                           rf"aggr='{aggr}' needs impl='reference' \(impl='auto' takes it\)"):
        GATConv(8, 4, aggr=aggr, impl="fused")(x, ei)


def test_an_explainers_edge_mask_reaches_every_impl():
    """PyG's set_masks (GNNExplainer and the like) weighs each edge's message: only message passing applies it,
    so with a mask set impl='auto' runs the reference path on any graph size."""
    from torch_geometric.explain.algorithm.utils import clear_masks, set_masks

    x, ei, conv, ref = big_graph_pair(2, add_self_loops=False)
    mask = torch.rand(ei.size(1), generator=torch.Generator().manual_seed(3))
    for m in (conv, ref):
        set_masks(m, mask, ei, apply_sigmoid=True)
    torch.testing.assert_close(conv(x, ei), ref(x, ei), rtol=1e-5, atol=1e-5)
    clear_masks(conv)
    clear_masks(ref)
    torch.testing.assert_close(conv(x, ei), ref(x, ei), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("hook", ["propagate_forward_pre", "propagate_forward", "message_forward",
                                  "aggregate_forward_pre", "aggregate_forward"])
def test_message_passing_hooks_fire_on_any_graph_size(hook):
    """PyG calls its hooks from propagate / message / aggregate, which the fused and Triton paths never run: with a
    hook registered, impl='auto' takes the reference path on a graph where it would take the fused one (the hook
    fires as on PyG's layer), and impl='fused' says why it cannot run."""
    x, ei, conv, ref = big_graph_pair(4)
    assert conv._fused_plan(ei, ei, 2000, 2000) is not None  # without a hook: the fused path
    calls = {"gatbio": 0, "pyg": 0}
    for name, m in (("gatbio", conv), ("pyg", ref)):
        getattr(m, f"register_{hook}_hook")(lambda *a, name=name: calls.__setitem__(name, calls[name] + 1))
    torch.testing.assert_close(conv(x, ei), ref(x, ei), rtol=1e-5, atol=1e-5)
    assert calls["gatbio"] == calls["pyg"] >= 1
    fused = GATConv(8, 4, heads=4, impl="fused")
    getattr(fused, f"register_{hook}_hook")(lambda *a: None)
    with pytest.raises(RuntimeError, match=rf"impl='fused' sums the weighted messages of every edge: a "
                                           rf"message-passing hook \({hook}_hook\) needs impl='reference'"):
        fused(x, ei)


@pytest.mark.parametrize("hook", ["edge_update_forward_pre", "edge_update_forward"])
def test_an_edge_update_hook_that_would_never_fire_is_refused(hook):
    """PyG's GATConv computes alpha in edge_update (its hooks see it); this layer computes it elsewhere on every
    path, so such a hook would stay silent: refused, with the way to read the attention."""
    x, ei, _ = small_graph()
    conv = GATConv(8, 4)
    handle = getattr(conv, f"register_{hook}_hook")(lambda *a: None)
    with pytest.raises(RuntimeError, match=r"an edge_update hook is registered, .* would never fire; remove it and "
                                           r"read the attention with return_attention_weights=True"):
        conv(x, ei)
    handle.remove()
    assert conv(x, ei).shape == (7, 4)


def test_positional_arguments_in_pygs_order():
    """forward(x, edge_index, edge_attr, size, return_attention_weights) as PyG's GATConv, GATv2Conv's
    forward(x, edge_index, edge_attr, return_attention_weights); attn_bias (and GATv2's size) by keyword."""
    from gatbio.nn import GATv2Conv

    g = torch.Generator().manual_seed(0)
    x_src, x_dst = torch.randn(5, 4, generator=g), torch.randn(3, 4, generator=g)
    ei = torch.tensor([[0, 1, 2, 3, 4], [0, 1, 2, 0, 1]])
    ref = pyg_nn.GATConv((4, 4), 2, add_self_loops=False)
    conv = GATConv((4, 4), 2, add_self_loops=False)
    conv.load_state_dict(ref.state_dict(), strict=False)
    torch.testing.assert_close(conv((x_src, x_dst), ei, None, (5, 3)), ref((x_src, x_dst), ei, None, (5, 3)))
    out, (_, alpha) = conv((x_src, x_dst), ei, None, (5, 3), True)
    torch.testing.assert_close(alpha, ref((x_src, x_dst), ei, None, (5, 3), True)[1][1])
    x, ei7, _ = small_graph()
    ref2 = pyg_nn.GATv2Conv(8, 3, heads=2)
    conv2 = GATv2Conv(8, 3, heads=2)
    conv2.load_state_dict(ref2.state_dict(), strict=False)
    out, (ei_out, alpha) = conv2(x, ei7, None, True)
    out_ref, (_, alpha_ref) = ref2(x, ei7, None, True)
    torch.testing.assert_close(out, out_ref, rtol=1e-6, atol=1e-6)
    torch.testing.assert_close(alpha, alpha_ref, rtol=1e-6, atol=1e-6)
    assert conv2(x, ei7, attn_bias=torch.zeros(ei7.size(1)), size=(7, 7)).shape == (7, 6)
    with pytest.raises(TypeError):
        GATConv(8, 4)(x, ei7, None, None, None, torch.zeros(12))  # attn_bias is not positional


def test_flow_target_to_source_is_refused_with_the_fix():
    with pytest.raises(ValueError, match=r"flow='target_to_source' is not supported: .*pass edge_index\.flip\(0\)"):
        GATConv(8, 4, flow="target_to_source")


@pytest.mark.parametrize("impl", ["reference", "fused"])
def test_lazy_edge_dim_as_in_pyg(impl):
    x, ei, ea = small_graph()
    conv = GATConv(8, 4, heads=2, edge_dim=-1, impl=impl)
    ref = pyg_nn.GATConv(8, 4, heads=2, edge_dim=-1)
    ref(x, ei, ea)  # sizes PyG's lazy projection
    out = conv(x, ei, ea)
    conv.load_state_dict(ref.state_dict(), strict=False)
    torch.testing.assert_close(conv(x, ei, ea), ref(x, ei, ea), rtol=1e-6, atol=1e-6)
    assert out.shape == (7, 8)
    with pytest.raises(ValueError, match=r"edge_attr has shape \(12, 2\), expected \(12, 3\)"):
        conv(x, ei, ea[:, :2])
    with pytest.raises(ValueError, match=r"edge_attr has shape \(12, 3, 2\), expected \(12, 3\)"):
        conv(x, ei, torch.randn(12, 3, 2))


def test_a_buffer_refilled_in_place_keeps_one_cache_entry_per_kind():
    """A sampler that refills one edge_index buffer in place (a new version each time) does not grow the cache:
    older versions' layouts are dropped when the new one is built."""
    from gatbio.nn import conv as C

    g = torch.Generator().manual_seed(3)
    buf = torch.randint(0, 2000, (2, 40000), generator=g)
    x = torch.randn(2000, 8, generator=g)
    layer = GATConv(8, 4, heads=4)
    sizes = []
    for _ in range(4):
        buf.copy_(torch.randint(0, 2000, (2, 40000), generator=g))
        layer(x, buf)
        sizes.append(sum(1 for k in C._PLANS if k[0] == id(buf)))
    assert sizes[0] >= 2 and len(set(sizes)) == 1


def test_a_freed_graphs_entries_go_at_once_and_an_interrupt_in_the_callback_is_handed_back(monkeypatch):
    """A freed graph's cached layouts are dropped when it is freed (their memory with them), by an index of its
    keys (no scan of the whole cache). Python ignores exceptions raised in weak-reference callbacks: a Ctrl-C
    landing in one was lost (a benchmark ran on to its end), so the callback hands it back to the main thread."""
    import _thread

    from gatbio.nn import conv as C

    x, ei, _ = small_graph()
    layer = GATConv(8, 4, heads=2)
    g = ei.clone()
    layer(x, g)
    gid = id(g)
    assert any(k[0] == gid for k in C._PLANS) and C._KEYS[gid]
    del g
    assert not any(k[0] == gid for k in C._PLANS) and gid not in C._KEYS
    handed = []
    monkeypatch.setattr(_thread, "interrupt_main", lambda: handed.append(True))

    class Interrupting(dict):
        def pop(self, *a):
            raise KeyboardInterrupt

    C._forget_plans(123, None, Interrupting(), {123: {("k",)}})  # the callback, interrupted inside
    assert handed == [True]


def test_sum_aggregations_keep_the_fast_paths_and_pyg_values_are_accepted():
    """aggr='add', 'sum' and SumAggregation() are the fused paths' sum; fill_value=None and NumPy numbers are
    accepted as PyG accepts them; a malformed first call does not fix a lazy edge_dim."""
    import numpy as np
    from torch_geometric.nn.aggr import SumAggregation

    x, ei, ea = small_graph()
    for aggr in ("add", "sum", SumAggregation()):
        conv = GATConv(8, 4, heads=2, aggr=aggr, impl="fused")
        assert conv._needs_reference() is None and conv(x, ei).shape == (7, 8)
    GATConv(8, 4, fill_value=None, dropout=np.float32(0.1), negative_slope=np.float64(0.2))
    lazy = GATConv(8, 4, edge_dim=-1)
    with pytest.raises(ValueError, match=r"edge_attr has shape \(5, 2\), expected \(12, F\)"):
        lazy(x, ei, torch.randn(5, 2))
    assert lazy(x, ei, ea).shape == (7, 4)  # the width comes from the first well-formed call


def test_edge_selection_by_column_equals_by_row_and_skips_a_loop_free_graph():
    from gatbio.nn.conv import _select_edges

    torch.manual_seed(0)
    edge_attr = torch.randn(7, 4, dtype=torch.float64, requires_grad=True)
    keep = torch.tensor([0, 2, 3, 6])  # edges 1, 4, 5 were self-loops
    by_row = _select_edges(edge_attr, keep, by_column=False)
    by_column = _select_edges(edge_attr, keep, by_column=True)  # the CUDA way for narrow rows
    assert torch.equal(by_row, edge_attr.detach()[keep]) and torch.equal(by_column, by_row)
    w = torch.randn(4, 4, dtype=torch.float64)
    g_row, = torch.autograd.grad((by_row * w).sum(), edge_attr)
    g_col, = torch.autograd.grad((by_column * w).sum(), edge_attr)
    assert torch.equal(g_row, g_col) and torch.equal(g_row[[1, 4, 5]], torch.zeros(3, 4, dtype=torch.float64))
    # Nothing removed: the tensor itself, no copy.
    assert _select_edges(edge_attr, torch.arange(7)) is edge_attr
    # On the CPU the plain selection is chosen (no transposed copy).
    assert _select_edges(edge_attr, keep).is_contiguous()
