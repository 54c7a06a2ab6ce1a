"""Attention diagnostics in gatbio.metrics, on hand-made attention with known answers."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from gatbio.metrics import (
    attention_entropy,
    attention_entropy_ratio,
    attention_js_divergence,
    flip_rate,
    hub_attention_mass,
)

# Target 0 receives from 1, 2, 3 (uniform); target 1 receives from 0 only; target 2 from 0 (0.9) and 3 (0.1).
EI = torch.tensor([[1, 2, 3, 0, 0, 3], [0, 0, 0, 1, 2, 2]])
ALPHA = torch.tensor([1 / 3, 1 / 3, 1 / 3, 1.0, 0.9, 0.1])


def test_entropy_known_values():
    ent = attention_entropy(EI, ALPHA, num_nodes=4)
    assert ent.shape == (4, 1)
    assert ent[0, 0] == pytest.approx(math.log(3))
    assert ent[1, 0] == pytest.approx(0.0)
    assert ent[2, 0] == pytest.approx(-(0.9 * math.log(0.9) + 0.1 * math.log(0.1)))
    assert math.isnan(ent[3, 0])  # no incoming edge


def test_entropy_ratio_uniform_is_one_and_heads_kept():
    alpha = torch.stack([ALPHA, torch.tensor([1.0, 0, 0, 1, 0.5, 0.5])], dim=1)  # (E, 2)
    ratio = attention_entropy_ratio(EI, alpha, num_nodes=4)
    assert ratio.shape == (4, 2)
    assert ratio[0, 0] == pytest.approx(1.0) and ratio[0, 1] == pytest.approx(0.0)
    assert ratio[2, 1] == pytest.approx(1.0)
    assert torch.isnan(ratio[1]).all() and torch.isnan(ratio[3]).all()  # in-degree < 2


def test_hub_mass():
    out = hub_attention_mass(EI, ALPHA, hubs=torch.tensor([0]), num_nodes=4)
    # targets 0, 1, 2: mass on node 0 is 0, 1, 0.9; edge share from node 0 is 0, 1, 1/2
    assert out["mass"] == pytest.approx((0 + 1 + 0.9) / 3)
    assert out["uniform"] == pytest.approx((0 + 1 + 0.5) / 3)
    mask = torch.tensor([True, False, False, False])
    assert hub_attention_mass(EI, ALPHA, hubs=mask, num_nodes=4) == out
    assert out["ratio"] > 1


def test_js_identical_is_zero_and_disjoint_support_is_one():
    js = attention_js_divergence(EI, ALPHA, EI, ALPHA, num_nodes=4)
    assert torch.allclose(js[:3], torch.zeros(3, 1, dtype=torch.double), atol=1e-12) and torch.isnan(js[3]).all()
    # target 2: (1, 0) against (0, 1) is the maximum, 1 bit
    js = attention_js_divergence(EI, torch.tensor([1 / 3, 1 / 3, 1 / 3, 1, 1.0, 0]),
                                 EI, torch.tensor([1 / 3, 1 / 3, 1 / 3, 1, 0.0, 1]), num_nodes=4)
    assert js[2, 0] == pytest.approx(1.0)


def test_js_renormalises_on_surviving_edges_after_node_removal():
    # remove node 1: node_map old → new; target 0 keeps edges from 2 and 3, renormalised (1/2, 1/2) before
    node_map = torch.tensor([0, -1, 1, 2])
    ei_after = torch.tensor([[1, 2, 0, 2], [0, 0, 1, 1]])  # new ids: 2→0, 3→0, 0→2(new 1), 3→2(new 1)
    alpha_after = torch.tensor([0.5, 0.5, 0.9, 0.1])  # unchanged distributions on the survivors
    js = attention_js_divergence(EI, ALPHA, ei_after, alpha_after, node_map=node_map, num_nodes=3)
    assert js.shape == (3, 1)
    assert js[0, 0] == pytest.approx(0.0, abs=1e-12) and js[1, 0] == pytest.approx(0.0, abs=1e-12)
    assert torch.isnan(js[2, 0])  # new node 2 (old 3) has no incoming edge
    p, q = np.array([0.5, 0.5]), np.array([0.8, 0.2])
    m = (p + q) / 2
    expect = 0.5 * np.sum(p * np.log2(p / m)) + 0.5 * np.sum(q * np.log2(q / m))
    js = attention_js_divergence(EI, ALPHA, ei_after, torch.tensor([0.8, 0.2, 0.9, 0.1]),
                                 node_map=node_map, num_nodes=3)
    assert js[0, 0] == pytest.approx(expect)


def test_flip_rate():
    assert flip_rate([0, 1, 2, 3], [0, 1, 0, 0]) == pytest.approx(0.5)
    assert flip_rate([0, 1, 2, 3], [0, 1, 0, 0], mask=[True, True, False, False]) == 0.0
    multi_a = np.array([[1, 0], [0, 1], [1, 1]])
    multi_b = np.array([[1, 0], [1, 1], [1, 1]])
    assert flip_rate(multi_a, multi_b) == pytest.approx(1 / 3)
    with pytest.raises(ValueError, match="same items"):
        flip_rate([0, 1], [0, 1, 2])


def test_shape_mismatch_message():
    with pytest.raises(ValueError, match=r"edge_index must be \(2, E\)"):
        attention_entropy(EI, ALPHA[:3])


def test_weights_that_do_not_sum_to_one_are_read_as_shares():
    # degree_norm="sym" rescales each softmax weight by sqrt(d_i / d_j): scaling a target's weights must not
    # change its entropy, entropy ratio or hub share (unscaled, target 0's ratio would be far above 1)
    scale = torch.tensor([3.0, 3.0, 3.0, 0.5, 2.0, 2.0])
    for f in (attention_entropy, attention_entropy_ratio):
        assert torch.allclose(f(EI, ALPHA * scale, num_nodes=4), f(EI, ALPHA, num_nodes=4), equal_nan=True)
    assert hub_attention_mass(EI, ALPHA * scale, hubs=[0], num_nodes=4) == pytest.approx(
        hub_attention_mass(EI, ALPHA, hubs=[0], num_nodes=4))


def test_sym_layer_entropy_ratio_is_at_most_one():
    from gatbio.nn import GATConv

    torch.manual_seed(0)
    ei = torch.tensor([[0, 0, 0, 0, 1, 2, 3, 4, 1, 2], [1, 2, 3, 4, 0, 0, 0, 0, 2, 1]])
    conv = GATConv(3, 2, heads=2, degree_norm="sym")
    _, (ei_out, alpha) = conv(torch.randn(5, 3), ei, return_attention_weights=True)
    raw = torch.zeros(5, 2).index_add_(0, ei_out[1], alpha.detach())
    assert (raw - 1).abs().max() > 0.05  # the raw sym weights do not sum to one per target
    ratio = attention_entropy_ratio(ei_out, alpha, num_nodes=5)
    assert (ratio <= 1 + 1e-9).all() and (ratio > 0).all()
