"""GATConv on 'meta' tensors (shape inference, no values) with its self-loops and on graphs large enough for the
fused path: shapes as on the CPU for a graph without self-loops; the documented upper bound with some."""

import pytest
import torch

from gatbio.nn import FoodWebGAT, GATConv, GATNodeClassifier
from gatbio.nn.conv import FUSED_MIN_ELEMENTS

# a loop-free graph on 5 nodes (the meta layer assumes no self-loops: exact here)
EI = torch.tensor([[0, 1, 2, 3, 4, 0], [1, 2, 3, 4, 0, 2]])


def _meta(t: torch.Tensor) -> torch.Tensor:
    return torch.empty(t.shape, dtype=t.dtype, device="meta")


@pytest.mark.parametrize("kw", [{}, {"attention": "gatv2"}, {"attention": "dot"}, {"degree_norm": "sym"},
                                {"degree_norm": "log", "temperature": "learn"}, {"edge_dim": 3},
                                {"edge_dim": 3, "fill_value": 0.5, "attention": "gatv2"}])
def test_self_loops_on_meta_give_the_cpu_shapes(kw):
    torch.manual_seed(0)
    x, bias = torch.randn(5, 4), torch.randn(EI.size(1))
    ea = torch.randn(EI.size(1), 3) if "edge_dim" in kw else None
    conv = GATConv(4, 3, heads=2, **kw)
    out, (ei, alpha) = conv(x, EI, ea, return_attention_weights=True, attn_bias=bias)
    conv_meta = GATConv(4, 3, heads=2, **kw).to("meta")
    out_m, (ei_m, alpha_m) = conv_meta(_meta(x), _meta(EI), None if ea is None else _meta(ea),
                                       return_attention_weights=True, attn_bias=_meta(bias))  # was: nonzero on meta
    assert out_m.is_meta and out_m.shape == out.shape == (5, 6)
    assert ei_m.shape == ei.shape == (2, EI.size(1) + 5) and alpha_m.shape == alpha.shape
    assert ei_m.dtype == ei.dtype and alpha_m.dtype == alpha.dtype


def test_meta_assumes_no_self_loops_in_the_input():
    # Two of the 6 edges are loops: a real device replaces them (6 - 2 + 5 edges), meta cannot see which.
    ei = torch.tensor([[0, 1, 2, 3, 3, 4], [0, 2, 3, 4, 3, 0]])
    conv = GATConv(4, 3, heads=2)
    out, (looped, _) = conv(torch.randn(5, 4), ei, return_attention_weights=True)
    out_m, (looped_m, alpha_m) = conv.to("meta")(torch.empty(5, 4, device="meta"), _meta(ei),
                                                 return_attention_weights=True)
    assert out_m.shape == out.shape  # the output's shape does not depend on the loops
    assert looped.shape == (2, 9) and looped_m.shape == (2, 11) and alpha_m.shape == (11, 2)


def test_bipartite_self_loops_on_meta():
    conv = GATConv((4, 2), 3, heads=2).to("meta")
    x = (torch.empty(5, 4, device="meta"), torch.empty(3, 2, device="meta"))
    out, (ei, alpha) = conv(x, _meta(EI[:, :2]), return_attention_weights=True)  # targets 1, 2 < 3
    assert out.shape == (3, 6) and ei.shape == (2, 2 + 3) and alpha.shape == (5, 2)


@pytest.mark.parametrize("impl", ["auto", "fused"])
@pytest.mark.parametrize("loops", [False, True])
def test_a_graph_for_the_fused_path_runs_on_meta(impl, loops):
    # impl="auto" takes the fused path from FUSED_MIN_ELEMENTS message entries; its CSR build (bincount) has no
    # meta kernel, so meta takes the reference path, whose shapes are the same.
    H, C = 2, 4
    E = FUSED_MIN_ELEMENTS // (H * C) + 1
    conv = GATConv(4, C, heads=H, add_self_loops=loops, impl=impl, edge_dim=2).to("meta")
    ei = torch.empty(2, E, dtype=torch.long, device="meta")
    out, (_, alpha) = conv(torch.empty(100, 4, device="meta"), ei, torch.empty(E, 2, device="meta"),
                           return_attention_weights=True)
    assert out.shape == (100, H * C) and alpha.shape == (E + 100 * loops, H)


def test_models_with_self_loops_run_on_meta():
    x, ei = torch.empty(5, 4, device="meta"), _meta(EI)
    assert GATNodeClassifier(4, 2, hidden_channels=4, heads=2).to("meta")(x, ei).shape == (5, 2)
    web = FoodWebGAT(4, 4, heads=2, decoder_bias=True).to("meta")
    assert web(x, ei, torch.empty(5, device="meta")).shape == (5, 5)
