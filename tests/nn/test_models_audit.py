"""A user's audit of the model classes: reset_parameters, state_dict round trips, inputs refused at the boundary
with one line naming the argument (not torch's IndexError / matmul errors from inside), tiny graphs."""

import io

import numpy as np
import pytest
import torch

from gatbio.nn import FoodWebGAT, GATNodeClassifier, GATPairModel, PairClassifier, PairEncoder
from gatbio.nn.sequence_encoder import ResidueCNN

EI = torch.tensor([[0, 1, 2], [1, 2, 3]])  # a food chain 0 → 1 → 2 → 3
LEVELS = torch.tensor([1.0, 2.0, 3.0, 4.0])
PAIRS = torch.tensor([[0, 1], [2, 3]])


def _residues(n: int = 4, length: int = 9, d: int = 3) -> torch.Tensor:
    x = torch.randn(n, length, d + 1)
    x[..., -1] = 1.0  # the mask channel: every position a residue
    return x


def _gat_pair_model(**kw) -> GATPairModel:
    # 3 sequence columns, then the profile block of num_modes + 2 = 9 columns
    return GATPairModel(12, 7, seq_channels=3, hidden=8, heads=2, profile_skip=True, **kw)


# --------------------------------------------------------------------------------- reset_parameters
MODELS = {
    "node": (lambda: GATNodeClassifier(3, 2, hidden_channels=4, heads=2, temperature="learn"),
             lambda m: m(torch.randn(4, 3), EI)),
    "foodweb": (lambda: FoodWebGAT(3, 4, heads=2, decoder_bias=True), lambda m: m(torch.randn(4, 3), EI, LEVELS)),
    "pair_gin": (lambda: PairClassifier(PairEncoder(3, 8, heads=2, conv="gin"), 8),
                 lambda m: m(torch.randn(4, 3), EI, PAIRS)),
    "pair_cnn": (lambda: PairClassifier(ResidueCNN(3, 8, channels=4), 8), lambda m: m(_residues(), EI, PAIRS)),
    "gat_pairs": (_gat_pair_model, lambda m: m(torch.rand(4, 12), EI, PAIRS)),
    "gat_pairs_transfer": (lambda: _gat_pair_model(interolog=True, interolog_attention="gat"), None),
}


@pytest.mark.parametrize("name", list(MODELS))
def test_reset_parameters_after_training_gives_the_seeded_initialisation(name):
    """PairClassifier and GATPairModel had no reset_parameters (AttributeError); a trained model reset with the
    same seed as a fresh one must equal it in every parameter and buffer (batch-norm statistics too)."""
    make, run = MODELS[name]
    torch.manual_seed(0)
    trained = make()
    if run is not None:
        opt = torch.optim.SGD(trained.parameters(), lr=0.5)
        trained.train()
        for _ in range(2):
            opt.zero_grad()
            run(trained).square().mean().backward()
            opt.step()
    else:  # move every parameter by hand
        with torch.no_grad():
            for p in trained.parameters():
                p.add_(1.0)
    torch.manual_seed(7)
    trained.reset_parameters()
    torch.manual_seed(3)
    fresh = make()
    torch.manual_seed(7)
    fresh.reset_parameters()
    a, b = trained.state_dict(), fresh.state_dict()
    assert a.keys() == b.keys()
    assert [k for k in a if not torch.equal(a[k], b[k])] == []


def test_gat_pairs_reset_restores_the_rule_start():
    """profile_skip's scale / shift start at 1 / 0 and the learnt interolog weighting at the rule exactly."""
    m = _gat_pair_model(interolog=True, interolog_attention="gat")
    start = {k: v.clone() for k, v in m.state_dict().items() if k.startswith(("skip_", "transfer.att"))}
    with torch.no_grad():
        for p in m.parameters():
            p.add_(0.5)
    m.reset_parameters()
    assert torch.equal(m.skip_weight, torch.ones(7)) and torch.equal(m.skip_bias, torch.zeros(7))
    for k, v in start.items():
        assert torch.equal(m.state_dict()[k], v), k


# --------------------------------------------------------------------------------- state_dict round trip
def test_gat_pairs_state_dict_with_homologues_loads_into_a_fresh_model():
    """hom_index / hom_weight are None until set_homologues: loading a saved interolog model into a fresh one
    failed with 'Unexpected key(s) in state_dict: "hom_index", "hom_weight"'."""
    torch.manual_seed(0)
    saved = _gat_pair_model(interolog=True)
    saved.set_homologues(torch.tensor([[0, 1], [1, 0], [2, 3], [3, 2]]), torch.tensor([[1.0, 0.5]] * 4))
    buf = io.BytesIO()
    torch.save(saved.state_dict(), buf)
    buf.seek(0)
    fresh = _gat_pair_model(interolog=True)
    fresh.load_state_dict(torch.load(buf))
    assert torch.equal(fresh.hom_index, saved.hom_index) and torch.equal(fresh.hom_weight, saved.hom_weight)
    assert all(torch.equal(v, fresh.state_dict()[k]) for k, v in saved.state_dict().items())


@pytest.mark.parametrize("name", ["node", "foodweb", "pair_gin", "pair_cnn", "gat_pairs"])
def test_state_dict_round_trip_gives_the_same_outputs(name):
    make, run = MODELS[name]
    torch.manual_seed(0)
    a = make()
    a.train()
    run(a)  # batch-norm statistics move
    a.eval()
    buf = io.BytesIO()
    torch.save(a.state_dict(), buf)
    buf.seek(0)
    torch.manual_seed(1)
    b = make()
    b.load_state_dict(torch.load(buf))
    b.eval()
    torch.manual_seed(2)
    out_a = run(a)
    torch.manual_seed(2)
    assert torch.equal(out_a, run(b))


# --------------------------------------------------------------------------------- FoodWebGAT inputs
def test_foodweb_levels_as_a_list_or_array_give_the_tensor_scores():
    """_check_levels accepted any array in encode, but forward passed the raw levels on to decode:
    AttributeError: 'list' object has no attribute 'to' (with decoder_bias)."""
    torch.manual_seed(0)
    m = FoodWebGAT(3, 4, heads=2, decoder_bias=True).eval()
    x = torch.randn(4, 3)
    expected = m(x, EI, LEVELS)
    assert torch.equal(m(x, EI, LEVELS.tolist()), expected)
    assert torch.equal(m(x, EI, LEVELS.double().numpy()), expected)
    with pytest.raises(ValueError, match=r"levels has shape \(3,\), expected \(4,\)"):
        m.decode(m.encode(x, EI, LEVELS), LEVELS[:3])


def test_foodweb_inputs_are_refused_naming_the_argument():
    """x of another dtype or width failed in the first linear layer ('mat1 and mat2 ...'); a float or
    out-of-range edge_index in the levels' indexing (IndexError), before any layer checked it."""
    m = FoodWebGAT(3, 4, heads=2).eval()
    x = torch.randn(4, 3)
    with pytest.raises(TypeError, match=r"x has dtype torch.float64 but the model's parameters are torch.float32"):
        m(x.double(), EI, LEVELS)
    with pytest.raises(ValueError, match=r"x must be \(N, 3\), one row of in_channels=3 features per node; got "
                                         r"shape \(4, 5\)"):
        m(torch.randn(4, 5), EI, LEVELS)
    with pytest.raises(ValueError, match="edge_index must hold torch.long or torch.int32 indices; got dtype "
                                         "torch.float32"):
        m(x, EI.float(), LEVELS)
    with pytest.raises(ValueError, match="edge_index contains target node index 9 but there are only 4"):
        m(x, torch.tensor([[0], [9]]), LEVELS)
    with pytest.raises(ValueError, match=r"got \(3, 2\) \(an \(E, 2\) list of edges: pass edge_index.t\(\)\)"):
        m(x, EI.t().contiguous(), LEVELS)
    with pytest.raises(TypeError, match="x has dtype torch.float64"):
        m.encode(x.double(), EI, LEVELS)


def test_foodweb_tiny_graphs_isolated_single_and_edgeless():
    torch.manual_seed(0)
    m = FoodWebGAT(3, 4, heads=2).eval()
    assert m(torch.randn(1, 3), torch.empty(2, 0, dtype=torch.long), [1.0]).shape == (1, 1)
    out = m(torch.randn(6, 3), EI, torch.ones(6))  # nodes 4 and 5 isolated
    assert out.shape == (6, 6) and torch.isfinite(out).all()


# --------------------------------------------------------------------------------- pair models and ResidueCNN
def test_pair_models_refuse_wrong_inputs_naming_the_argument():
    """Each was torch's 'mat1 and mat2 must have the same dtype' / 'shapes cannot be multiplied' or the batch
    norm's 'Expected more than 1 value per channel when training'."""
    x = torch.randn(4, 3)
    clf = PairClassifier(PairEncoder(3, 8, heads=2), 8).eval()
    with pytest.raises(TypeError, match=r"x has dtype torch.float64 .* pass x.float\(\)"):
        clf(x.double(), EI, PAIRS)
    with pytest.raises(ValueError, match=r"x must be \(N, 3\).*got shape \(4, 5\)"):
        clf(torch.randn(4, 5), EI, PAIRS)
    with pytest.raises(ValueError, match=r"embeddings of shape \(4, 8\) but this PairClassifier was built with "
                                         r"hidden=16"):
        PairClassifier(PairEncoder(3, 8, heads=2), 16)(x, EI, PAIRS)
    gin = PairClassifier(PairEncoder(3, 8, heads=2, conv="gin"), 8).train()
    with pytest.raises(ValueError, match="conv='gin' batch-normalises over the nodes .* call model.eval"):
        gin(x[:1], torch.empty(2, 0, dtype=torch.long), torch.tensor([[0, 0]]))
    assert gin.eval()(x[:1], torch.empty(2, 0, dtype=torch.long), torch.tensor([[0, 0]])).shape == (1, 7)
    with pytest.raises(ValueError, match=r"x must be \(N, 12\).*got shape \(4, 5\)"):
        _gat_pair_model()(torch.rand(4, 5), EI, PAIRS)
    with pytest.raises(TypeError, match="x has dtype torch.float64"):
        _gat_pair_model()(torch.rand(4, 12, dtype=torch.float64), EI, PAIRS)


def test_residue_cnn_refuses_float64_and_one_sequence_in_training():
    torch.manual_seed(0)
    r = ResidueCNN(3, 8, channels=4)
    x = _residues()
    with pytest.raises(TypeError, match="x has dtype torch.float64"):
        r(x.double())
    with pytest.raises(ValueError, match=r"in training mode it needs at least 2 sequences, got 1; call "
                                         r"model.eval\(\)"):
        r.train()(x[:1])
    assert r.eval()(x[:1]).shape == (1, 8)
    assert ResidueCNN(3, 8, channels=4, norm=False).train()(x[:1]).shape == (1, 8)


# --------------------------------------------------------------------------------- GATNodeClassifier inputs
def test_node_classifier_label_input_and_embeddings_are_checked_against_x():
    """A label_input of the wrong shape, or x with another number of nodes than the learnable embeddings, was
    torch.cat's 'Sizes of tensors must match' or a matmul error."""
    x = torch.randn(4, 3)
    m = GATNodeClassifier(3, 2, hidden_channels=4, heads=2, label_channels=2).eval()
    with pytest.raises(ValueError, match=r"label_input must be \(4, 2\), one row of label_channels=2 per node of "
                                         r"x; got shape \(3, 2\)"):
        m(x, EI, torch.zeros(3, 2))
    with pytest.raises(ValueError, match=r"label_input must be \(4, 2\).*got shape \(4, 5\)"):
        m(x, EI, torch.zeros(4, 5))
    with pytest.raises(TypeError, match="label_input has dtype torch.float64"):
        m(x, EI, torch.zeros(4, 2, dtype=torch.float64))
    labels = torch.tensor([[1, 0], [0, 1], [0, 0], [1, 1]])  # 0/1 integers or booleans: exact as floats
    assert torch.equal(m(x, EI, labels), m(x, EI, labels.float()))
    assert torch.equal(m(x, EI, labels.bool()), m(x, EI, labels.float()))
    emb = GATNodeClassifier(3, 2, hidden_channels=4, heads=2, num_nodes=4, embedding_dim=2).eval()
    with pytest.raises(ValueError, match="x has 3 rows but this model has learnable embeddings of num_nodes=4"):
        emb(x[:3], EI[:, :1])


@pytest.mark.parametrize("conv", ["gatbio", "pyg-gat", "gcn", "mlp"])
def test_node_classifier_tiny_graphs_and_equivariance_with_isolated_nodes(conv):
    torch.manual_seed(0)
    m = GATNodeClassifier(3, 2, hidden_channels=4, heads=2, conv=conv).eval()
    x = torch.randn(6, 3)  # nodes 4, 5 isolated
    out = m(x, EI)
    perm = torch.tensor([5, 2, 0, 4, 1, 3])
    inv = torch.argsort(perm)
    assert torch.allclose(m(x[perm], inv[EI]), out[perm], atol=1e-5)
    assert m(x[:1], torch.empty(2, 0, dtype=torch.long)).shape == (1, 2)
    assert torch.isfinite(m(x, torch.empty(2, 0, dtype=torch.long))).all()
    assert np.isfinite(out.detach().numpy()).all()
