"""Pair classifiers: symmetric product decoder, gatbio GAT = PyG GAT with options off, the model registry."""

from __future__ import annotations

import pytest
import torch

from gatbio.nn.pair_models import (
    PAIR_BUILDERS,
    PairClassifier,
    PairEncoder,
    build_pair_model,
    model_options,
    register_pair_model,
)


def graph():
    torch.manual_seed(0)
    x = torch.randn(6, 5)
    ei = torch.tensor([[0, 1, 1, 2, 3, 4], [1, 0, 2, 1, 4, 3]])
    pairs = torch.tensor([[0, 1], [2, 5], [3, 4]])
    return x, ei, pairs


@pytest.mark.parametrize("name", ["gat", "pyg_gat", "gin", "gcn", "seq_mlp"])
def test_every_preset_gives_symmetric_pair_logits(name):
    x, ei, pairs = graph()
    torch.manual_seed(0)
    model = build_pair_model(model_options(name, {"hidden": 8, "heads": 2}), 5, 7).eval()
    out = model(x, ei, pairs)
    assert out.shape == (3, 7)
    assert torch.allclose(out, model(x, ei, pairs.flip(1)))  # (a, b) and (b, a): same logits
    out.sum().backward()


def test_gatbio_gat_equals_pyg_gat_with_options_off():
    x, ei, pairs = graph()
    outs = []
    for name in ("gat", "pyg_gat"):
        torch.manual_seed(1)
        model = build_pair_model(model_options(name, {"hidden": 8, "heads": 2}), 5, 7).eval()
        outs.append(model(x, ei, pairs))
    assert torch.allclose(outs[0], outs[1], atol=1e-6)


def test_gat_options_and_edge_features():
    x, ei, pairs = graph()
    opts = model_options("g", {"hidden": 8, "heads": 2},
                         {"g": {"base": "gat", "degree_norm": "log", "temperature": "learn", "edge_features": "score"}})
    model = build_pair_model(opts, 5, 7)
    assert model.edge_features == "score" and model.encoder.convs[0].degree_norm == "log"
    assert model(x, ei, pairs, torch.rand(ei.size(1), 1)).shape == (3, 7)
    with pytest.raises(ValueError, match="edge features .* need an attention layer"):
        build_pair_model(model_options("gcn", {"edge_features": "score"}), 5, 7)
    with pytest.raises(ValueError, match="are gatbio GATConv options"):
        build_pair_model(model_options("gin", {"degree_norm": "log"}), 5, 7)
    with pytest.raises(ValueError, match=r"unknown model option\(s\) \['colour'\]"):
        build_pair_model(model_options("gat", {"colour": 1}), 5, 7)
    with pytest.raises(ValueError, match="unknown model 'gatt'; choose from gat, pyg_gat"):
        model_options("gatt")
    with pytest.raises(ValueError, match="base='nope' is not a model"):
        model_options("m", custom={"m": {"base": "nope"}})


def test_register_a_new_kind_of_model(monkeypatch):
    monkeypatch.setitem(PAIR_BUILDERS, "_", None)  # restore the registry afterwards

    @register_pair_model("wide_mlp")
    def build(opts, in_channels, num_modes):
        return PairClassifier(PairEncoder(in_channels, hidden=opts["width"], conv="mlp"), opts["width"], num_modes)

    try:
        opts = model_options("mine", custom={"mine": {"kind": "wide_mlp", "width": 12}})
        model = build_pair_model(opts, 5, 7)
        x, ei, pairs = graph()
        assert model(x, ei, pairs).shape == (3, 7) and model.encoder.hidden == 12
    finally:
        PAIR_BUILDERS.pop("wide_mlp", None)
    with pytest.raises(ValueError, match="model kind 'wide_mlp' is not registered"):
        build_pair_model(opts, 5, 7)
