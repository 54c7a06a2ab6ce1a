"""Audit 4 of gatbio.nn.GATConv against PyG's GATConv: int32 indices, edgeless graphs, bipartite self-loops, and
the parity and invariants of the combinations the other test files leave out."""

from __future__ import annotations

import math

import pytest
import torch
import torch_geometric.nn as pyg_nn

from gatbio.nn import GATConv


def graph(seed=1, dtype=torch.float32):
    """7 nodes, 12 edges: a hub (0), an existing self-loop (3 -> 3), 3 edge features."""
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(7, 8, generator=g, dtype=dtype)
    ei = torch.tensor([[0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 3, 1], [1, 2, 3, 4, 0, 0, 0, 5, 6, 4, 3, 2]])
    return x, ei, torch.randn(12, 3, generator=g, dtype=dtype)


def pair(kw, dtype=torch.float32, **ours):
    """PyG's layer and gatbio's, with PyG's parameters (strict load) and the same seeded initialisation."""
    torch.manual_seed(0)
    ref = pyg_nn.GATConv(**kw).to(dtype)
    torch.manual_seed(0)
    conv = GATConv(**kw, **ours).to(dtype)
    for (n1, p1), (n2, p2) in zip(ref.state_dict().items(), conv.state_dict().items(), strict=True):
        assert n1 == n2 and torch.equal(p1, p2), n1  # same names, same seeded init
    conv.load_state_dict(ref.state_dict(), strict=True)
    return ref, conv


def run(layer, x, ei, ea=None, **kw):
    """Outputs, attention, and every gradient (parameters, node and edge features) of a fixed random loss that
    also reads the attention weights."""
    layer.zero_grad()
    xs = tuple(None if t is None else t.detach().clone().requires_grad_() for t in x) if isinstance(x, tuple) \
        else x.detach().clone().requires_grad_()
    ea = None if ea is None else ea.detach().clone().requires_grad_()
    out, (ei2, alpha) = layer(xs, ei, ea, return_attention_weights=True, **kw)
    g = torch.Generator().manual_seed(7)
    loss = (out * torch.randn(out.shape, generator=g, dtype=out.dtype)).sum()
    if alpha.numel():
        loss = loss + (alpha * torch.randn(alpha.shape, generator=g, dtype=alpha.dtype)).sum()
    if loss.requires_grad:
        loss.backward()
    grads = {n: p.grad for n, p in layer.named_parameters()}
    for i, t in enumerate(xs if isinstance(xs, tuple) else (xs,)):
        grads[f"x{i}"] = None if t is None else t.grad
    grads["edge_attr"] = None if ea is None else ea.grad
    return out.detach(), ei2, alpha.detach(), grads


def assert_same(a, b, atol=1e-5):
    out_a, ei_a, al_a, g_a = a
    out_b, ei_b, al_b, g_b = b
    torch.testing.assert_close(out_a, out_b, atol=atol, rtol=1e-5)
    assert torch.equal(ei_a, ei_b) and ei_a.dtype == ei_b.dtype
    torch.testing.assert_close(al_a, al_b, atol=atol, rtol=1e-5)
    assert g_a.keys() == g_b.keys()
    for name in g_a:
        assert (g_a[name] is None) == (g_b[name] is None), f"{name}: gradient None on one side only"
        if g_a[name] is not None:
            torch.testing.assert_close(g_a[name], g_b[name], atol=atol, rtol=1e-4, msg=name)


# ---------------------------------------------------------------- defects found and fixed
@pytest.mark.parametrize("impl", ["reference", "fused"])
@pytest.mark.parametrize("kw", [{}, {"attention": "gatv2"}, {"attention": "dot", "temperature": "learn"},
                                {"degree_norm": "log"}, {"degree_norm": "sym", "temperature": 0.5}])
def test_int32_edge_index_gives_the_int64_gradients(impl, kw):
    """int32 indices are accepted, but without added self-loops they reached PyG's scatter (softmax, sum
    aggregation), whose backward is torch's CPU gather through an expanded index: with int32 that read the wrong
    rows (torch 2.13), so the outputs were right and every gradient wrong (PyG's own GATConv has the same fault;
    the reference here is the int64 graph). The returned edge_index is still the caller's int32 tensor, as PyG's."""
    x, ei, ea = graph()
    torch.manual_seed(0)
    conv = GATConv(8, 5, heads=2, edge_dim=3, add_self_loops=False, impl=impl, **kw)
    bias = torch.linspace(-1.0, 1.0, ei.size(1))
    got = run(conv, x, ei.int(), ea, attn_bias=bias)
    want = run(conv, x, ei, ea, attn_bias=bias)
    assert got[1].dtype == torch.int32 and torch.equal(got[1], ei)
    assert_same(got[:1] + (want[1],) + got[2:], want)


def test_int32_edge_index_equals_pygs_int64_result():
    x, ei, ea = graph()
    for loops in (False, True):
        ref, conv = pair(dict(in_channels=8, out_channels=5, heads=3, edge_dim=3, add_self_loops=loops))
        got, want = run(conv, x, ei.int(), ea), run(ref, x, ei, ea)
        assert_same(got[:1] + (want[1],) + got[2:], want)


@pytest.mark.parametrize("case", ["no edges", "one node", "bipartite, no edges"])
def test_a_graph_without_edges_leaves_the_edge_parameters_without_gradient_as_pyg(case):
    """With no edge to attend over PyG's GATConv never uses the edge features, so lin_edge, att_edge and edge_attr
    get no gradient (None: an optimiser leaves them alone). Here they got zeros, which momentum or weight decay
    would still move."""
    g = torch.Generator().manual_seed(2)
    e0 = torch.empty(2, 0, dtype=torch.long)
    if case == "bipartite, no edges":
        kw = dict(in_channels=(6, 4), out_channels=5, heads=2, edge_dim=3, add_self_loops=False, residual=True)
        x = (torch.randn(5, 6, generator=g), torch.randn(3, 4, generator=g))
    else:
        kw = dict(in_channels=8, out_channels=5, heads=2, edge_dim=3, add_self_loops=False)
        x = torch.randn(1 if case == "one node" else 7, 8, generator=g)
    ref, conv = pair(kw)
    got, want = run(conv, x, e0, torch.empty(0, 3)), run(ref, x, e0, torch.empty(0, 3))
    assert want[3]["lin_edge.weight"] is None and want[3]["edge_attr"] is None
    assert_same(got, want)
    # adam with weight decay leaves the edge parameters where they were, as for PyG's layer
    before = conv.lin_edge.weight.detach().clone()
    conv.zero_grad(set_to_none=True)
    conv(x, e0, torch.empty(0, 3)).sum().backward()
    opt = torch.optim.AdamW(conv.parameters(), lr=0.1, weight_decay=0.5)
    opt.step()
    assert torch.equal(conv.lin_edge.weight, before)


@pytest.mark.parametrize("fill_value", ["mean", "add", "sum", "max", "min", "mul"])
@pytest.mark.parametrize("impl", ["reference", "fused"])
def test_bipartite_with_more_targets_than_sources_fills_the_loops_by_reduction(fill_value, impl):
    """(x_src, x_dst) with more targets than sources, edge features and a reduction fill_value (the default
    "mean"): the loops go on the first N_src targets, each with its incoming edges' reduced features. PyG's
    add_self_loops reduced every edge into N_src rows and failed ("index 4 is out of bounds for dimension 0 with
    size 3"), PyG's GATConv likewise; the result now equals the layer without self-loops on the graph looped by
    hand."""
    g = torch.Generator().manual_seed(3)
    xs, xd = torch.randn(3, 6, generator=g), torch.randn(5, 4, generator=g)
    ei = torch.tensor([[0, 1, 2, 0, 1, 2, 1], [0, 1, 4, 3, 3, 2, 1]])  # 1 -> 1 is an existing loop: replaced
    ea = torch.randn(ei.size(1), 3, generator=g)
    torch.manual_seed(0)
    conv = GATConv((6, 4), 5, heads=2, edge_dim=3, fill_value=fill_value, residual=True, impl=impl)
    plain = GATConv((6, 4), 5, heads=2, edge_dim=3, add_self_loops=False, residual=True, impl=impl)
    plain.load_state_dict(conv.state_dict())
    keep = ei[0] != ei[1]
    ei_k, ea_k = ei[:, keep], ea[keep]
    reduce = {"add": torch.sum, "sum": torch.sum, "mean": torch.mean, "mul": torch.prod,
              "max": lambda t, dim: t.max(dim).values, "min": lambda t, dim: t.min(dim).values}[fill_value]
    loops = [reduce(ea_k[ei_k[1] == i], dim=0) if (ei_k[1] == i).any() else torch.zeros(3) for i in range(3)]
    by_hand = torch.cat([ei_k, torch.arange(3).repeat(2, 1)], dim=1)
    got = run(conv, (xs, xd), ei, ea)
    want = run(plain, (xs, xd), by_hand, torch.cat([ea_k, torch.stack(loops)]))
    assert torch.equal(got[1], by_hand)
    torch.testing.assert_close(got[0], want[0], atol=1e-6, rtol=1e-5)
    torch.testing.assert_close(got[2], want[2], atol=1e-6, rtol=1e-5)
    for name, grad in got[3].items():
        if name != "edge_attr":  # the loops' features come from edge_attr here, given by hand there
            torch.testing.assert_close(grad, want[3][name], atol=1e-5, rtol=1e-4, msg=name)


# ---------------------------------------------------------------- parity that already held (kept from regressing)
@pytest.mark.parametrize("fill_value,heads,concat,residual,bias", [
    ("mean", 3, True, True, True), ("add", 3, False, True, False), (0.5, 1, False, False, True),
    (torch.tensor([1.0, -2.0, 0.5]), 3, True, False, False), ("max", 2, False, True, True)])
@pytest.mark.parametrize("loops", [True, False])
def test_bipartite_and_edge_features_equal_pyg(fill_value, heads, concat, residual, bias, loops):
    g = torch.Generator().manual_seed(4)
    xs, xd = torch.randn(5, 6, generator=g), torch.randn(3, 4, generator=g)
    ei = torch.tensor([[0, 1, 2, 3, 4, 0, 2, 2], [0, 0, 1, 1, 2, 2, 2, 2]])  # a duplicate edge and a loop
    ea = torch.randn(ei.size(1), 3, generator=g)
    kw = dict(in_channels=(6, 4), out_channels=5, heads=heads, concat=concat, residual=residual, bias=bias,
              edge_dim=3, fill_value=fill_value, add_self_loops=loops)
    ref, conv = pair(kw)
    assert repr(conv) == repr(ref)
    assert_same(run(conv, (xs, xd), ei, ea), run(ref, (xs, xd), ei, ea))
    assert_same(run(conv, (xs, xd), ei, ea, size=(5, 3)), run(ref, (xs, xd), ei, ea, size=(5, 3)))
    assert_same(run(conv, (xs, None), ei, ea, size=(5, 3)), run(ref, (xs, None), ei, ea, size=(5, 3)))


@pytest.mark.parametrize("case", ["float64", "one node with a loop", "no edges, loops added", "duplicates",
                                  "pair (x, x[:4])", "dropout in eval"])
def test_corner_cases_equal_pyg(case):
    x, ei, ea = graph(dtype=torch.float64 if case == "float64" else torch.float32)
    kw = dict(in_channels=8, out_channels=5, heads=2, edge_dim=3, residual=True)
    if case == "one node with a loop":
        x, ei, ea = x[:1], torch.zeros(2, 1, dtype=torch.long), ea[:1]
    elif case == "no edges, loops added":
        ei, ea = ei[:, :0], ea[:0]
    elif case == "duplicates":
        ei = torch.tensor([[0, 0, 1, 1, 2, 2, 2, 3, 0, 1, 2, 6], [1, 1, 0, 0, 2, 2, 1, 3, 1, 0, 4, 5]])
    elif case == "pair (x, x[:4])":
        x, ei = (x, x[:4]), torch.tensor([[0, 5, 6, 2, 1, 0, 3, 3, 4, 5, 6, 2], [0, 1, 3, 3, 2, 2, 1, 0, 0, 1, 2, 3]])
    elif case == "dropout in eval":
        kw["dropout"] = 0.5
    ref, conv = pair(kw, dtype=x[0].dtype if isinstance(x, tuple) else x.dtype)
    if case == "dropout in eval":
        ref.eval(), conv.eval()
    for loops in (True, False):
        ref.add_self_loops = conv.add_self_loops = loops
        assert_same(run(conv, x, ei, ea), run(ref, x, ei, ea), atol=1e-6 if case != "float64" else 1e-12)


def test_reset_parameters_draws_as_pyg():
    for kw in (dict(in_channels=8), dict(in_channels=(6, 4), residual=True, edge_dim=3, bias=False, concat=False)):
        ref, conv = pyg_nn.GATConv(out_channels=4, heads=2, **kw), GATConv(out_channels=4, heads=2, **kw)
        torch.manual_seed(5)
        ref.reset_parameters()
        torch.manual_seed(5)
        conv.reset_parameters()
        assert list(ref.state_dict()) == list(conv.state_dict())
        assert all(torch.equal(a, b) for a, b in zip(ref.state_dict().values(), conv.state_dict().values(), strict=True))


# ---------------------------------------------------------------- the new options
def star():
    """Leaves 1, 2, 3 -> centre 0 and 0 -> 1; identical features, so every raw score is the same. With the added
    loops the in-degrees are d = (4, 2, 1, 1)."""
    return torch.ones(4, 4), torch.tensor([[1, 2, 3, 0], [0, 0, 0, 1]])


def weights(conv, x, ei, **kw):
    _, (ei2, alpha) = conv(x, ei, return_attention_weights=True, **kw)
    return {(int(s), int(t)): float(a) for (s, t), a in zip(ei2.t(), alpha[:, 0].detach(), strict=True)}


def test_degree_options_on_a_star_by_hand():
    x, ei = star()
    d = {0: 4, 1: 2, 2: 1, 3: 1}
    torch.manual_seed(0)
    log = GATConv(4, 2, degree_norm="log").eval()
    a = weights(log, x, ei)  # z = e - log d_j: weights proportional to 1 / d_j
    into0 = {j: 1 / d[j] for j in (1, 2, 3, 0)}
    for j, w in into0.items():
        assert a[(j, 0)] == pytest.approx(w / sum(into0.values()), abs=1e-6)
    assert a[(0, 1)] == pytest.approx(1 / 3, abs=1e-6) and a[(1, 1)] == pytest.approx(2 / 3, abs=1e-6)
    # temperature after the prior: z = (e - log d_j) / tau, weights proportional to d_j^(-1/tau)
    cold = GATConv(4, 2, degree_norm="log", temperature=0.5).eval()
    cold.load_state_dict(log.state_dict())
    a = weights(cold, x, ei)
    assert a[(0, 1)] == pytest.approx(0.2, abs=1e-6) and a[(1, 1)] == pytest.approx(0.8, abs=1e-6)
    # the bias before the temperature: +log 2 on 1 -> 0 cancels its prior, 1 weighs as much as 2 and 3
    bias = torch.tensor([math.log(2.0), 0.0, 0.0, 0.0])
    a = weights(cold, x, ei, attn_bias=bias)
    assert a[(1, 0)] == pytest.approx(a[(2, 0)], abs=1e-6) == pytest.approx(1 / (3 + 1 / 16), abs=1e-6)
    # sym: the uniform softmax times sqrt(d_i / d_j)
    sym = GATConv(4, 2, degree_norm="sym").eval()
    a = weights(sym, x, ei)
    want = {(1, 0): 0.25 * math.sqrt(2), (2, 0): 0.5, (3, 0): 0.5, (0, 0): 0.25, (0, 1): 0.5 * math.sqrt(0.5),
            (1, 1): 0.5, (2, 2): 1.0, (3, 3): 1.0}
    assert a.keys() == want.keys()
    for k, w in want.items():
        assert a[k] == pytest.approx(w, abs=1e-6), k


def test_learnt_temperature_gets_gradients_and_stays_positive():
    x, ei, _ = graph()
    conv = GATConv(8, 4, heads=3, temperature="learn", min_temperature=0.05)
    opt = torch.optim.SGD(conv.parameters(), lr=100.0)
    for _ in range(3):
        opt.zero_grad()
        _, (ei2, alpha) = conv(x, ei, attn_bias=torch.randn(ei.size(1), 3), return_attention_weights=True)
        alpha.square().sum().backward()  # sharper attention wants a smaller temperature
        assert conv.temperature_rho.grad is not None and conv.temperature_rho.grad.abs().min() > 0
        opt.step()
        tau = conv.tau()
        assert torch.all(tau >= 0.05) and torch.isfinite(tau).all()
    sums = torch.zeros(7, 3).index_add_(0, ei2[1], alpha.detach())
    torch.testing.assert_close(sums, torch.ones(7, 3), atol=1e-5, rtol=0)


@pytest.mark.parametrize("kwargs,match", [
    (dict(temperature=-0.5), r"temperature=-0.5 is not allowed: it must be a positive number or 'learn'"),
    (dict(temperature=float("nan")), r"temperature=nan is not allowed"),
    (dict(min_temperature=-1.0, temperature="learn"), r"min_temperature=-1.0 is not allowed"),
])
def test_invalid_temperatures_are_named(kwargs, match):
    with pytest.raises(ValueError, match=match):
        GATConv(8, 4, **kwargs)


def test_a_bias_for_other_edges_is_named():
    x, ei, _ = graph()
    conv = GATConv(8, 4, heads=2)
    # one per edge after the layer's self-loops (the weights' edge_index) is not one per given edge
    _, (ei2, _) = conv(x, ei, return_attention_weights=True)
    with pytest.raises(ValueError, match=rf"attn_bias has shape \({ei2.size(1)}, 2\), expected \(12,\) or \(12, 2\)"):
        conv(x, ei, attn_bias=torch.zeros(ei2.size(1), 2))
    with pytest.raises(ValueError, match=r"attn_bias has shape \(12, 1\), expected \(12,\) or \(12, 2\)"):
        conv(x, ei, attn_bias=torch.zeros(12, 1))
    with pytest.raises(ValueError, match=r"attn_bias has dtype torch.int64: it is added to the attention logits"):
        conv(x, ei, attn_bias=torch.zeros(12, dtype=torch.long))


@pytest.mark.parametrize("attention", ["gat", "gatv2", "dot"])
def test_bias_and_temperatures_keep_permutation_equivariance_with_int32(attention):
    x, ei, ea = graph()
    conv = GATConv(8, 4, heads=2, attention=attention, temperature="learn", degree_norm="log", edge_dim=3).eval()
    bias = torch.randn(ei.size(1), 2)
    perm = torch.randperm(7, generator=torch.Generator().manual_seed(3))
    inv = torch.empty_like(perm)
    inv[perm] = torch.arange(7)
    out = conv(x, ei, ea, attn_bias=bias)
    out_p = conv(x[perm], inv[ei].int(), ea, attn_bias=bias)
    torch.testing.assert_close(out_p, out[perm], atol=1e-5, rtol=1e-5)


def test_gradcheck_float64_with_int32_graph_and_bias():
    x, ei, ea = graph(dtype=torch.float64)
    conv = GATConv(8, 3, heads=2, temperature="learn", degree_norm="sym", edge_dim=3, add_self_loops=False).double()
    x = x.clone().requires_grad_()
    bias = torch.randn(ei.size(1), 2, dtype=torch.float64, requires_grad=True)
    params = list(conv.parameters())
    assert torch.autograd.gradcheck(lambda x, b, *ps: conv(x, ei.int(), ea, attn_bias=b), (x, bias, *params),
                                    eps=1e-6, atol=1e-5, fast_mode=True)

