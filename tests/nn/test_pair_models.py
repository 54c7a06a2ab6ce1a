"""Pair classifiers: symmetric product decoder, gatbio GAT = PyG GAT with options off, the model registry."""

from __future__ import annotations

import pytest
import torch

from gatbio.nn.pair_models import (
    PAIR_BUILDERS,
    GATPairModel,
    PairClassifier,
    PairEncoder,
    build_pair_model,
    check_options,
    model_options,
    register_pair_model,
)


def graph():
    torch.manual_seed(0)
    x = torch.randn(6, 5)
    ei = torch.tensor([[0, 1, 1, 2, 3, 4], [1, 0, 2, 1, 4, 3]])
    pairs = torch.tensor([[0, 1], [2, 5], [3, 4]])
    return x, ei, pairs


@pytest.mark.parametrize("name", ["gat_plain", "pyg_gat", "gin", "gcn", "seq_mlp"])
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
    for name in ("gat_plain", "pyg_gat"):
        torch.manual_seed(1)
        model = build_pair_model(model_options(name, {"hidden": 8, "heads": 2}), 5, 7).eval()
        outs.append(model(x, ei, pairs))
    assert torch.allclose(outs[0], outs[1], atol=1e-6)


def test_gat_options_and_edge_features():
    x, ei, pairs = graph()
    opts = model_options("g", {"hidden": 8, "heads": 2},
                         {"g": {"base": "gat_plain", "degree_norm": "log", "temperature": "learn", "edge_features": "score"}})
    model = build_pair_model(opts, 5, 7)
    assert model.edge_features == "score" and model.encoder.convs[0].degree_norm == "log"
    assert model(x, ei, pairs, torch.rand(ei.size(1), 1)).shape == (3, 7)
    with pytest.raises(ValueError, match="edge features .* need an attention layer"):
        build_pair_model(model_options("gcn", {"edge_features": "score"}), 5, 7)
    with pytest.raises(ValueError, match="are gatbio GATConv options"):
        build_pair_model(model_options("gin", {"degree_norm": "log"}), 5, 7)
    with pytest.raises(ValueError, match=r"unknown model option\(s\) \['colour'\]"):
        build_pair_model(model_options("gat_plain", {"colour": 1}), 5, 7)
    with pytest.raises(ValueError, match="unknown model 'gatt'; choose from gat_region, gat_ppi, gat_mean, gat,"):
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


@pytest.mark.parametrize("name", ["gat_region", "gat_ppi", "pyg_gat_region"])
def test_recipe_models_build_with_their_own_options_and_are_symmetric(name):
    x, ei, pairs = graph()
    x = torch.randn(6, 41)  # 32 sequence columns + 7 profile + log degree + seen flag
    ea = torch.rand(ei.size(1), 11)  # type (2) + modes (7) + score, similarity (2)
    opts = model_options(name, {"hidden": 8, "dropout": 0.0})  # shared settings do not change a recipe
    assert opts["hidden"] == 128 and opts["kind"] == "gat_pairs"
    torch.manual_seed(0)
    model = build_pair_model(opts, 41, 7).eval()
    assert isinstance(model, GATPairModel) and model.seq_channels == 32 and model.edge_dim == 11
    assert model.interolog and model.profile_skip
    if model.interolog:
        from gatbio.data.pair_features import homologues

        with pytest.raises(ValueError, match="call set_homologues"):
            model(x, ei, pairs, ea)
        model.set_homologues(*homologues(torch.rand(6, 6), 2))
        with pytest.raises(ValueError, match=r"PairGraphBuilder\(mode_record=True\)"):
            model(x, ei, pairs, ea)
        ea = torch.cat([ea, torch.rand(ei.size(1), 7)], dim=1)  # the message pairs' mode record
    out = model(x, ei, pairs, ea)
    assert out.shape == (3, 7) and torch.allclose(out, model(x, ei, pairs.flip(1), ea), atol=1e-6)
    assert model.dec[0].in_features == 3 * 128 * 3  # [a*b, |a-b|, a+b] of the jumping-knowledge concat (3 x 128)
    pw = 2.5 if name != "gat_ppi" else 1.0
    y = torch.tensor([[1.0] * 7, [0.0] * 7, [1.0] * 7])
    ref = torch.nn.functional.binary_cross_entropy_with_logits(out, y, pos_weight=torch.full((7,), pw))
    assert torch.allclose(model.loss(out, y), ref)


def test_seq_cnn_reads_residues_and_gives_symmetric_logits():
    torch.manual_seed(0)
    x = torch.zeros(4, 9, 4)
    x[:, :, :3] = torch.randn(4, 9, 3)
    x[:, :, 3] = (torch.arange(9) < torch.tensor([[9], [4], [7], [2]])).float()  # lengths 9, 4, 7, 2
    opts = model_options("seq_cnn")
    assert opts["kind"] == "residue_cnn" and opts["max_len"] == 2000 and opts["lr"] == 0.003
    model = build_pair_model(model_options("c", custom={"c": {"base": "seq_cnn", "channels": 4, "hidden": 8}}),
                             x.size(-1), 7).eval()  # in_channels: the residue matrix's, mask channel included
    pairs = torch.tensor([[0, 1], [2, 3]])
    out = model(x, torch.zeros(2, 0, dtype=torch.long), pairs)
    assert out.shape == (2, 7) and torch.allclose(out, model(x, None, pairs.flip(1)))
    with pytest.raises(ValueError, match=r"unknown residue_cnn option\(s\) \['heads'\]"):
        build_pair_model(model_options("c", custom={"c": {"base": "seq_cnn", "heads": 2}}), 4, 7)


def test_recipe_ablation_options_and_non_networks():
    opts = model_options("a", custom={"a": {"base": "gat_region", "edge_modes": False, "degree_norm": None}})
    model = build_pair_model(opts, 41, 7)
    assert model.edge_dim == 4 and model.convs[0].degree_norm is None
    assert build_pair_model(model_options("a", custom={"a": {"base": "gat_region", "knn": 0, "interactions": False,
                                                              "interolog": 0}}), 41, 7).edge_dim is None
    with pytest.raises(ValueError, match=r"unknown gat_pairs option\(s\) \['colour'\]"):
        build_pair_model(model_options("a", custom={"a": {"base": "gat_region", "colour": 1}}), 41, 7)
    for name in ("gat", "gat_mean", "profile_rule"):
        with pytest.raises(ValueError, match="is not a network"):
            build_pair_model(model_options(name), 41, 7)
    # a mean's options: its networks and one training each unless told
    assert model_options("gat_mean") == {"kind": "mean", "among": ["gat_region", "gat_ppi"], "inits": 1}
    assert model_options("m", custom={"m": {"kind": "mean", "among": ["gat_ppi"]}})["inits"] == 1


def test_profile_skip_adds_the_profile_rules_logit():
    """With the MLP decoder's last layer zeroed, a profile_skip model's logits are logit(profile_rule's score):
    the mean of the two proteins' profiles, an unseen protein (seen flag 0) taking the mean mode vector of the known
    pairs (pair_features.profile_prior, shared by both)."""
    from gatbio.data.pair_features import label_profiles, profile_rule

    pairs_all = torch.tensor([[0, 1], [1, 2], [3, 4], [0, 2]])
    modes = torch.tensor([[1, 0, 0, 1, 0, 0, 0], [0, 1, 0, 1, 0, 0, 0], [0, 0, 1, 0, 0, 0, 1],
                          [1, 1, 0, 0, 0, 0, 0]])
    known = [0, 1, 2]  # protein 5 has no known pair
    x = torch.cat([torch.randn(6, 4), label_profiles(pairs_all, modes, known, 6)], dim=1)  # (6, 4 + 9)
    ei = pairs_all[:3].t()
    query = torch.tensor([[0, 2], [1, 5], [3, 4], [5, 5]])
    opts = model_options("s", custom={"s": {"base": "gat_region", "profile_skip": True, "hidden": 8, "heads": 2,
                                            "knn": 0, "interactions": True, "edge_score": False,
                                            "edge_modes": False, "edge_type": False, "interolog": 0}})
    model = build_pair_model(opts, x.size(1), 7).eval()
    torch.nn.init.zeros_(model.dec[-1].weight)
    torch.nn.init.zeros_(model.dec[-1].bias)
    expect = profile_rule(pairs_all.numpy(), modes.numpy(), known, query.numpy(), 6)  # (4, 7) scores
    got = torch.sigmoid(model(x, ei, query))
    assert torch.allclose(got, torch.as_tensor(expect, dtype=torch.float32).clamp(0.02, 0.98), atol=1e-6)
    assert torch.allclose(model(x, ei, query), model(x, ei, query.flip(1)), atol=1e-6)  # symmetric
    out = model(x, ei, query).sum()
    out.backward()
    assert model.skip_weight.grad is not None and model.skip_bias.grad is not None
    with pytest.raises(ValueError, match="profile_skip needs the label profile block"):
        build_pair_model(model_options("s", custom={"s": {"base": "gat_region", "profile_skip": True,
                                                          "profile": False}}), 32, 7)
    # with the role block (roles: true) between the sequence and the profile blocks the logit is the same rule
    x_roles = torch.cat([x[:, :4], torch.rand(6, 14), x[:, 4:]], dim=1)  # (6, 4 + 14 + 9)
    m_roles = build_pair_model({**opts, "roles": True}, x_roles.size(1), 7).eval()
    assert m_roles.seq_channels == 4 and m_roles.lin_in.in_features == 27
    torch.nn.init.zeros_(m_roles.dec[-1].weight)
    torch.nn.init.zeros_(m_roles.dec[-1].bias)
    assert torch.allclose(torch.sigmoid(m_roles(x_roles, ei, query)),
                          torch.as_tensor(expect, dtype=torch.float32).clamp(0.02, 0.98), atol=1e-6)


def test_interolog_skip_adds_the_interolog_rules_logit():
    """With the MLP decoder's last layer zeroed, an interolog model's logits are logit(profile_rule's score with
    homologue_sets): the message pairs are read back from the graph's labelled interaction edges (kNN edges and
    structure-only edges of the "all pairs" setting are not interologs)."""
    from gatbio.data.pair_features import PairGraphBuilder, homologues, profile_rule

    torch.manual_seed(0)
    pairs_all = torch.tensor([[0, 1], [1, 2], [3, 4], [0, 2], [2, 5]])
    modes = torch.tensor([[1, 0, 0, 1, 0, 0, 0], [0, 1, 0, 1, 0, 0, 0], [0, 0, 1, 0, 0, 0, 1],
                          [1, 1, 0, 0, 0, 0, 0], [0, 0, 0, 0, 1, 0, 0]])
    sim = torch.rand(6, 6)
    hom = homologues(sim, 2)
    b = PairGraphBuilder(pairs_all, modes, torch.rand(5), torch.randn(6, 4), torch.tensor([[0, 5], [5, 0]]),
                         torch.tensor([0.5, 0.5]), mode_record=True)
    known = [0, 1, 2]
    x, ei, ea = b.build(known, structure_idx=[0, 1, 2, 3, 4])
    query = torch.tensor([[0, 2], [1, 5], [3, 4], [5, 5], [4, 0]])
    opts = model_options("s", custom={"s": {"base": "gat_region", "hidden": 8, "heads": 2}})
    model = build_pair_model(opts, x.size(1), 7).eval()
    model.set_homologues(*hom)
    torch.nn.init.zeros_(model.dec[-1].weight)
    torch.nn.init.zeros_(model.dec[-1].bias)
    expect = profile_rule(pairs_all.numpy(), modes.numpy(), known, query.numpy(), 6, homologue_sets=hom,
                          shrink=0.03)
    got = torch.sigmoid(model(x, ei, query, ea))
    assert torch.allclose(got, torch.as_tensor(expect, dtype=torch.float32).clamp(0.02, 0.98), atol=1e-5)
    assert torch.allclose(model(x, ei, query, ea), model(x, ei, query.flip(1), ea), atol=1e-6)  # symmetric
    assert not torch.allclose(got, torch.sigmoid(model(x, ei[:, :0], query, ea[:0])))  # the interologs matter
    # the record is not a feature: the attention layers see the same edges and features without it
    nomodes = model_options("n", custom={"n": {"base": "gat_region", "hidden": 8, "heads": 2, "edge_modes": False,
                                              "edge_type": False, "edge_score": False}})
    b2 = PairGraphBuilder(pairs_all, modes, torch.rand(5), torch.randn(6, 4), mode_record=True, edge_modes=False,
                          edge_type=False, edge_score=False)
    x2, ei2, ea2 = b2.build(known)
    m2 = build_pair_model(nomodes, x2.size(1), 7).eval()
    m2.set_homologues(*hom)
    assert m2.edge_dim is None and ea2.shape == (ei2.size(1), 7) and m2(x2, ei2, query, ea2).shape == (5, 7)
    with pytest.raises(ValueError, match="it needs interactions: true"):
        build_pair_model(model_options("s", custom={"s": {"base": "gat_region", "interactions": False}}), 41, 7)
    with pytest.raises(ValueError, match="it needs profile_skip"):
        GATPairModel(41, 7, seq_channels=32, edge_dim=11, interolog=True)


@pytest.mark.parametrize("attention", ["gat", "gatv2"])
def test_interolog_attention_starts_as_the_rule_and_learns_its_weights(attention):
    """The learnt interolog weighting is a gatbio GATConv whose attention logits carry the rule's log weights as
    attn_bias; it starts with its attention parameters at zero, temperature 1 and an identity projection of the
    known pairs' modes, so the decoder's skip logit is the interolog rule's score exactly (with the MLP's last layer
    zeroed: sigmoid(logits) = the rule's score); its gradient reaches the attention, and moved parameters move it."""
    from gatbio.data.pair_features import PairGraphBuilder, homologues, interolog_prior, interolog_scores

    torch.manual_seed(0)
    pairs_all = torch.tensor([[0, 1], [1, 2], [3, 4], [0, 2], [2, 5]])
    modes = torch.tensor([[1, 0, 0, 1, 0, 0, 0], [0, 1, 0, 1, 0, 0, 0], [0, 0, 1, 0, 0, 0, 1],
                          [1, 1, 0, 0, 0, 0, 0], [0, 0, 0, 0, 1, 0, 0]])
    hom = homologues(torch.rand(6, 6) + 0.05, 2)
    b = PairGraphBuilder(pairs_all, modes, torch.rand(5), torch.randn(6, 4), mode_record=True)
    known = [0, 1, 2]
    x, ei, ea = b.build(known)
    query = torch.tensor([[0, 2], [1, 5], [3, 4], [5, 5], [4, 0]])
    opts = model_options("s", custom={"s": {"base": "gat_region", "hidden": 8, "heads": 2,
                                            "interolog_attention": attention, "interolog_heads": 3}})
    model = build_pair_model(opts, x.size(1), 7).eval()
    model.set_homologues(*hom)
    t = model.transfer
    assert t.heads == 3 and t.attention == attention and not t.concat
    torch.nn.init.zeros_(model.dec[-1].weight)
    torch.nn.init.zeros_(model.dec[-1].bias)
    prior = model.encode(x, ei, ea).prior
    rule = (prior[query[:, 0]] + prior[query[:, 1]]) / 2
    num, den = interolog_scores(pairs_all[known], modes[known].float(), query, *hom)
    expect = interolog_prior(num, den, rule, 0.03)
    assert den.gt(0).sum() >= 3
    got = torch.sigmoid(model(x, ei, query, ea))
    assert torch.allclose(got, expect.clamp(0.02, 0.98), atol=1e-5)
    # without message pairs there is no interolog: the profile mean of the graph without edges
    bare = model.encode(x, ei[:, :0], ea[:0])
    p0 = (bare.prior[query[:, 0]] + bare.prior[query[:, 1]]) / 2
    assert torch.allclose(torch.sigmoid(model.decode(bare, query)), p0.clamp(0.02, 0.98), atol=1e-5)
    model.train()
    model(x, ei, query, ea).sum().backward()
    att = t.att_edge if attention == "gat" else t.att  # reads the edge features (log weights, self flags)
    assert t.temperature_rho.grad.abs().sum() > 0 and att.grad.abs().sum() > 0
    with torch.no_grad():
        att.add_(0.5)
    assert not torch.allclose(torch.sigmoid(model.eval()(x, ei, query, ea)), got, atol=1e-3)
    with pytest.raises(ValueError, match="interolog_attention='dot'"):
        check_options("d", {**opts, "interolog_attention": "dot"})
    with pytest.raises(ValueError, match="it needs interolog > 0"):
        check_options("d", {**opts, "interolog": 0})
    with pytest.raises(ValueError, match="interolog_heads=0"):
        check_options("d", {**opts, "interolog_heads": 0})


@pytest.mark.parametrize("name", ["gat_plain", "gat_region"])
def test_pairs_in_the_edge_index_layout_or_out_of_range_are_refused(name):
    """PyG's (2, P) layout was read as two pairs of the first proteins (logits (2, M), no error)."""
    x, ei, pairs = graph()
    opts = model_options(name, {"hidden": 8, "heads": 2})
    if name == "gat_region":  # the recipe without its builder's inputs: no profile block, no interologs
        opts = {**opts, "hidden": 8, "heads": 2, "profile": False, "profile_skip": False, "interolog": 0}
    model = build_pair_model(opts, 5, 7).eval()
    edge_attr = torch.rand(ei.size(1), model.edge_dim) if getattr(model, "edge_dim", None) else None
    assert model(x, ei, pairs, edge_attr).shape == (3, 7)
    with pytest.raises(ValueError, match=r"pairs must be \(P, 2\).*got shape \(2, 3\).*pass pairs\.t\(\)"):
        model(x, ei, pairs.t(), edge_attr)
    with pytest.raises(ValueError, match=r"got shape \(3,\)$"):
        model(x, ei, pairs[:, 0], edge_attr)
    with pytest.raises(ValueError, match=r"protein index 6 but there are 6 proteins \(valid indices 0\.\.5\)"):
        model(x, ei, torch.tensor([[0, 6]]), edge_attr)
    with pytest.raises(ValueError, match="protein index -1"):
        model(x, ei, torch.tensor([[-1, 2]]), edge_attr)
    with pytest.raises(TypeError, match=r"integer protein indices; got dtype torch.float32 \(use pairs.long\(\)\)"):
        model(x, ei, pairs.float(), edge_attr)
    with pytest.raises(TypeError, match=r"got list \(use torch.as_tensor\(pairs, dtype=torch.long\)\)"):
        model(x, ei, pairs.tolist(), edge_attr)
    h = model.encode(x, ei, edge_attr)
    with pytest.raises(ValueError, match=r"pass pairs\.t\(\)"):  # decode alone: the shape, without reading values
        model.decode(h, pairs.t())
    from gatbio.train import predict_pairs

    assert predict_pairs(model, x, ei, pairs, edge_attr).shape == (3, 7)
    with pytest.raises(ValueError, match=r"protein index 6 but there are 6 proteins"):  # was torch's IndexError
        predict_pairs(model, x, ei, torch.tensor([[0, 6]]), edge_attr)
