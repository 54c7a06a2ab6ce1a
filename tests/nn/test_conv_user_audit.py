"""An ML user's audit of gatbio.nn.GATConv: what a PyG user does with a layer beyond calling it (trace it, move it
between devices), with gatbio's options on."""

from __future__ import annotations

import warnings

import pytest
import torch

from gatbio.nn import GATConv

# 6 nodes, no self-loop
EI = torch.tensor([[0, 1, 2, 3, 4, 5, 0, 2], [1, 2, 3, 4, 5, 0, 3, 5]])
# another graph: more edges, two of them self-loops (2 -> 2, 5 -> 5)
EI2 = torch.tensor([[0, 1, 2, 3, 4, 5, 0, 2, 2, 5, 1], [1, 2, 3, 4, 5, 0, 3, 5, 2, 5, 4]])


class _WithBias(torch.nn.Module):
    def __init__(self, **kw):
        super().__init__()
        self.conv = GATConv(8, 4, heads=2, **kw)

    def forward(self, x, edge_index, bias, *edge_attr):  # a trace takes tensors only: no edge_attr=None
        return self.conv(x, edge_index, *edge_attr, attn_bias=bias)


@pytest.mark.parametrize("kw", [{}, {"temperature": "learn", "degree_norm": "log"},
                                {"temperature": 0.5, "degree_norm": "sym", "edge_dim": 3}])
def test_jit_trace_with_a_bias_runs_a_graph_with_other_self_loops(kw):
    """torch.jit.trace (PyG's GATConv traces and then runs other graphs) with an attention bias: the trace
    recorded "no self-loop to drop" as a constant, so a graph with self-loops failed with "The size of tensor a
    (17) must match the size of tensor b (18)" (bias and edge features kept their loop rows)."""
    torch.manual_seed(0)
    model = _WithBias(**kw)
    with_ea = "edge_dim" in kw
    x = torch.randn(6, 8)

    def args(ei):
        E = ei.size(1)
        return (x, ei, torch.randn(E, 2), torch.randn(E, 3))[:4 if with_ea else 3]

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # deprecation and TracerWarnings (the index check reads values)
        traced = torch.jit.trace(model, args(EI), check_trace=False)
        for ei in (EI, EI2):
            a = args(ei)
            torch.testing.assert_close(traced(*a), model(*a), atol=1e-6, rtol=1e-5)


def _meta(t: torch.Tensor) -> torch.Tensor:
    """A tensor on another device than the CPU model (the 'meta' device stands in for a GPU here)."""
    return torch.empty(t.shape, dtype=t.dtype, device="meta")


@pytest.mark.parametrize("impl", ["reference", "fused"])
def test_inputs_on_another_device_are_named(impl):
    """A bias or edge features built on the CPU for a model on the GPU (from NumPy, say) ended in torch's "Expected
    all tensors to be on the same device", naming no argument; the 'meta' device stands in for the GPU."""
    torch.manual_seed(0)
    x, bias, ea = torch.randn(6, 8), torch.randn(EI.size(1)), torch.randn(EI.size(1), 3)
    conv = GATConv(8, 4, heads=2, edge_dim=3, temperature="learn", degree_norm="log", impl=impl)
    with pytest.raises(ValueError, match=r"attn_bias is on meta but x is on cpu.*attn_bias\.to\(x\.device\)"):
        conv(x, EI, ea, attn_bias=_meta(bias))
    with pytest.raises(ValueError, match=r"edge_attr is on meta but x is on cpu.*edge_attr\.to\(x\.device\)"):
        conv(x, EI, _meta(ea))
    with pytest.raises(ValueError, match=r"edge_index is on meta but x is on cpu.*edge_index\.to\(x\.device\)"):
        conv(x, _meta(EI), ea)  # was: no error at all, a 'meta' output without values
    with pytest.raises(ValueError, match=r"x is on meta but this layer's parameters are on cpu.*\.to\("):
        conv(_meta(x), _meta(EI), _meta(ea))
    bip = GATConv((8, 5), 4, heads=2, impl=impl)
    with pytest.raises(ValueError, match=r"x_dst is on meta but x_src is on cpu"):
        bip((x, _meta(torch.randn(3, 5))), torch.tensor([[0, 1], [0, 2]]))
    # all on one device still runs, and the checks read no values
    on_meta = GATConv(8, 4, heads=2, edge_dim=3, impl=impl).to("meta")
    assert on_meta(_meta(x), _meta(EI), _meta(ea), attn_bias=_meta(bias)).shape == (6, 8)
    torch.testing.assert_close(conv(x, EI, ea, attn_bias=bias), conv(x, EI, ea, attn_bias=bias))


def test_functional_attention_weights_names_bad_arguments():
    """gatbio.nn.functional.attention_weights is public: degree_norm='LOG' was ignored silently (plain softmax),
    a negative temperature inverted the attention without a word, and a degree option without its degrees ended
    in "'NoneType' object has no attribute 'clamp'"."""
    from gatbio.nn import functional as GF

    ei = torch.tensor([[0, 1, 2, 0], [1, 2, 0, 0]])
    scores, deg = torch.randn(4, 2), GF.in_degree(ei, 3)
    with pytest.raises(ValueError, match=r"degree_norm='LOG' is not allowed.*None, 'log', 'sym'"):
        GF.attention_weights(scores, ei, 3, degree_norm="LOG", deg=deg)
    for norm in ("log", "sym"):
        with pytest.raises(ValueError, match=rf"degree_norm='{norm}' needs deg"):
            GF.attention_weights(scores, ei, 3, degree_norm=norm, degree_lambda=torch.ones(2))
    with pytest.raises(ValueError, match=r"degree_norm='log' needs degree_lambda"):
        GF.attention_weights(scores, ei, 3, degree_norm="log", deg=deg)
    for tau in (0.0, -1.0, float("nan"), float("inf")):
        with pytest.raises(ValueError, match=r"temperature=.* is not allowed: a positive finite number"):
            GF.attention_weights(scores, ei, 3, temperature=tau)
    # the accepted forms give weights summing to one per target
    for kw in ({"temperature": 0.5}, {"temperature": torch.tensor([0.5, 2.0])}, {"degree_norm": "log", "deg": deg,
                                                                                  "degree_lambda": torch.ones(2)}):
        alpha = GF.attention_weights(scores, ei, 3, **kw)
        torch.testing.assert_close(torch.zeros(3, 2).index_add_(0, ei[1], alpha), torch.ones(3, 2))


@pytest.mark.slow
@pytest.mark.parametrize("kw", [{"temperature": 0.5, "degree_norm": "sym"},
                                {"temperature": "learn", "degree_norm": "log", "attention": "dot"}])
def test_torch_compile_fullgraph_dynamic_with_the_options(kw):
    """fullgraph=True, dynamic=True (the graph's size a symbol, a fixed temperature a symbolic float): one graph
    for two graph sizes, the outputs and the gradients of the learnt temperature, prior and bias as in eager mode."""
    torch.manual_seed(0)
    conv = GATConv(8, 4, heads=2, **kw)
    torch._dynamo.reset()
    compiled = torch.compile(conv, backend="aot_eager", fullgraph=True, dynamic=True)
    x = torch.randn(6, 8)
    for ei in (EI, EI2):
        grads = []
        for layer in (compiled, conv):
            conv.zero_grad()
            bias = torch.linspace(-1, 1, ei.size(1)).requires_grad_()
            out = layer(x, ei, attn_bias=bias)
            out.square().sum().backward()
            grads.append([out, bias.grad] + [p.grad for p in conv.parameters()])
        for got, want in zip(*grads, strict=True):
            torch.testing.assert_close(got, want, atol=1e-5, rtol=1e-5)
