"""Leftovers of the model audit: edge features a model was built for but not given, the 'meta' device (shape
inference), TrophicBias's input shape, FoodWebGAT's attention from forward, attention asked of a model without
attention, and residue masks with gaps. Tiny graphs."""

import re

import pytest
import torch

from gatbio.nn import (
    FoodWebGAT,
    GATConv,
    GATNodeClassifier,
    GATPairModel,
    PairClassifier,
    PairEncoder,
    TrophicBias,
)
from gatbio.nn.sequence_encoder import ResidueCNN

EI = torch.tensor([[0, 1, 2], [1, 2, 3]])  # a food chain 0 → 1 → 2 → 3
LEVELS = torch.tensor([1.0, 2.0, 3.0, 4.0])
PAIRS = torch.tensor([[0, 1], [2, 3]])


# ------------------------------------------------------------------------ 1. edge_dim without edge_attr
def test_pair_encoder_with_edge_dim_refuses_a_call_without_edge_attr():
    torch.manual_seed(0)
    enc = PairEncoder(3, 8, heads=2, edge_dim=1)
    x = torch.randn(4, 3)
    with pytest.raises(ValueError, match=r"edge_attr is None but this PairEncoder was built with edge_dim=1"):
        enc(x, EI)
    with pytest.raises(ValueError, match="edge_attr is None"):
        PairClassifier(enc, 8)(x, EI, PAIRS)
    assert enc(x, EI, torch.rand(3, 1)).shape == (4, 8)  # given: runs
    assert PairEncoder(3, 8, heads=2)(x, EI).shape == (4, 8)  # no edge_dim: no edge_attr needed


def test_gat_pair_model_with_edge_dim_refuses_a_call_without_edge_attr():
    torch.manual_seed(0)
    model = GATPairModel(5, 7, hidden=8, heads=2, edge_dim=2)
    x = torch.randn(4, 5)
    with pytest.raises(ValueError, match=r"edge_attr is None but this GATPairModel was built with edge_dim=2"):
        model(x, EI, PAIRS)
    assert model(x, EI, PAIRS, edge_attr=torch.rand(3, 2)).shape == (2, 7)
    assert model(x, EI[:, :0], PAIRS, edge_attr=torch.zeros(0, 2)).shape == (2, 7)  # PairGraphBuilder, no edges
    assert GATPairModel(5, 7, hidden=8, heads=2)(x, EI, PAIRS).shape == (2, 7)


# ------------------------------------------------------------------------ 2. the 'meta' device
def test_check_dtype_works_on_meta_tensors():
    conv = GATConv(4, 3, heads=2).to("meta")
    conv._check_dtype(torch.empty(5, 4, device="meta"), "x")  # was: unknown device type for autocast
    with pytest.raises(ValueError, match="x has dtype torch.float64 but this layer's parameters are torch.float32"):
        conv._check_dtype(torch.empty(5, 4, device="meta", dtype=torch.float64), "x")


def test_layer_and_models_run_on_meta_for_shapes():
    # An empty edge list: the layer's index range check reads values back, which a meta tensor has not.
    x, ei = torch.empty(5, 4, device="meta"), torch.empty(2, 0, dtype=torch.long, device="meta")
    conv = GATConv(4, 3, heads=2, add_self_loops=False).to("meta")
    out = conv(x, ei)
    assert out.device.type == "meta" and out.shape == (5, 6)
    node = GATNodeClassifier(4, 2, hidden_channels=4, heads=2, add_self_loops=False).to("meta")
    assert node(x, ei).shape == (5, 2)
    web = FoodWebGAT(4, 4, heads=2, decoder_bias=True).to("meta")
    assert web(x, ei, torch.empty(5, device="meta")).shape == (5, 5)


# ------------------------------------------------------------------------ 3. TrophicBias's delta
@pytest.mark.parametrize("delta", [torch.zeros(2, 3), torch.tensor(0.5)])
def test_trophic_bias_refuses_a_delta_that_is_not_one_dimensional(delta):
    with pytest.raises(ValueError, match=re.escape(f"delta has shape {tuple(delta.shape)}, expected (E,)")):
        TrophicBias(2)(delta)
    assert TrophicBias(2)(delta.reshape(-1)).shape == (delta.numel(), 2)


# ------------------------------------------------------------------------ 5. attention from forward
def test_foodweb_forward_returns_the_attention_of_encode():
    torch.manual_seed(0)
    model = FoodWebGAT(3, 4, heads=2, num_layers=2).eval()
    x = torch.randn(4, 3)
    out, att = model(x, EI, LEVELS, return_attention_weights=True)
    assert torch.equal(out, model(x, EI, LEVELS))
    _, att_enc = model.encode(x, EI, LEVELS, return_attention_weights=True)
    assert [(a[0], a[1]) for a in att] == [(0, "prey"), (0, "consumers"), (1, "prey"), (1, "consumers")]
    for (_, _, ei, alpha), (_, _, ei_e, alpha_e) in zip(att, att_enc, strict=True):
        assert torch.equal(ei, ei_e) and torch.equal(alpha, alpha_e) and alpha.shape == (3, 2)
    assert torch.equal(att[0][2], EI) and torch.equal(att[1][2], EI.flip(0))


@pytest.mark.parametrize("conv", ["gcn", "mlp"])
def test_node_classifier_without_attention_refuses_return_attention_weights(conv):
    model = GATNodeClassifier(3, 2, hidden_channels=4, heads=2, conv=conv)
    with pytest.raises(ValueError, match=rf"return_attention_weights=True but this model was built with "
                                         rf"conv='{conv}'"):
        model(torch.randn(4, 3), EI, return_attention_weights=True)
    assert model(torch.randn(4, 3), EI).shape == (4, 2)


def test_node_classifier_pyg_gat_still_returns_attention():
    _, att = GATNodeClassifier(3, 2, hidden_channels=4, heads=2, conv="pyg-gat")(torch.randn(4, 3), EI,
                                                                                  return_attention_weights=True)
    assert len(att) == 2


# ------------------------------------------------------------------------ 6. residue masks with gaps
def test_residue_cnn_reads_residues_after_a_gap_in_the_mask():
    torch.manual_seed(0)
    enc = ResidueCNN(3, 8, channels=4, kernel_sizes=(3,), pool=1, norm=False).eval()
    x = torch.randn(1, 9, 4)
    x[..., -1] = torch.tensor([1.0, 1, 0, 0, 1, 1, 0, 0, 0])  # residues at 0, 1, 4, 5: 4 ones, extent 6
    y = x.clone()
    y[0, 5, :-1] += 5.0  # change the last residue
    assert not torch.equal(enc(x), enc(y))  # the count of ones (4) cut it off before


def test_residue_cnn_prefix_masks_unchanged_by_the_extent():
    torch.manual_seed(0)
    enc = ResidueCNN(3, 8, channels=4).eval()
    x = torch.randn(3, 7, 4)
    x[..., -1] = 0.0
    for i, n in enumerate((7, 2, 5)):
        x[i, :n, -1] = 1.0
    whole = enc(x)
    for i in range(3):  # each alone, cut to its own length: the same embedding
        n = int(x[i, :, -1].sum())
        torch.testing.assert_close(enc(x[i:i + 1, :n]), whole[i:i + 1], rtol=0, atol=1e-6)
