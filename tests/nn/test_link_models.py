"""FoodWebGAT and the trophic-level attention bias on 5-node webs."""

from __future__ import annotations

import pytest
import torch

from gatbio.nn.link_models import FoodWebGAT, TrophicBias

EI = torch.tensor([[0, 1, 1, 2, 3], [2, 2, 3, 4, 4]])  # prey -> predator
LEVELS = torch.tensor([1.0, 1.5, 2.0, 2.7, 3.6])  # distinct level gaps per receiver


def test_trophic_bias_starts_at_zero_and_has_head_shape():
    b = TrophicBias(heads=3)
    out = b(torch.tensor([-1.0, 0.0, 2.5]))
    assert out.shape == (3, 3) and torch.count_nonzero(out) == 0


def test_scores_are_directed_and_shaped():
    torch.manual_seed(0)
    m = FoodWebGAT(4, hidden_channels=8, heads=2).eval()
    s = m(torch.randn(5, 4), EI, LEVELS)
    assert s.shape == (5, 5)
    assert not torch.allclose(s, s.t())  # "j eats i" is not "i eats j"
    x = torch.randn(5, 4)
    with torch.no_grad():
        want = m(x, EI, LEVELS)
    with torch.inference_mode():  # the graph it flips inside is an inference tensor
        assert torch.allclose(m(x, EI, LEVELS), want, atol=1e-6)


def test_zero_initialised_bias_equals_the_model_without_it():
    torch.manual_seed(0)
    with_bias = FoodWebGAT(4, 8, heads=2, trophic_bias=True).eval()
    without = FoodWebGAT(4, 8, heads=2, trophic_bias=False).eval()
    without.load_state_dict({k: v for k, v in with_bias.state_dict().items() if k in without.state_dict()})
    x = torch.randn(5, 4)
    torch.testing.assert_close(with_bias(x, EI, LEVELS), without(x, EI, LEVELS))
    # a non-zero bias changes the attention, hence the scores (the level gaps differ within a receiver)
    with torch.no_grad():
        with_bias.bias_prey[0].lin.weight.normal_()
    assert not torch.allclose(with_bias(x, EI, LEVELS), without(x, EI, LEVELS))


def test_bias_gets_gradients():
    torch.manual_seed(0)
    m = FoodWebGAT(4, 8, heads=2)
    m(torch.randn(5, 4), EI, LEVELS).sum().backward()
    assert m.bias_prey[0].lin.weight.grad is not None
    assert m.bias_prey[0].lin.weight.grad.abs().sum() > 0


def test_permutation_equivariance():
    torch.manual_seed(0)
    m = FoodWebGAT(4, 8, heads=2).eval()
    x = torch.randn(5, 4)
    perm = torch.tensor([3, 0, 4, 1, 2])
    inv = torch.argsort(perm)
    s = m(x, EI, LEVELS)
    s_p = m(x[perm], inv[EI], LEVELS[perm])
    torch.testing.assert_close(s_p, s[perm][:, perm])


def test_attention_sums_to_one_per_receiver():
    torch.manual_seed(0)
    m = FoodWebGAT(4, 8, heads=2).eval()
    _, att = m.encode(torch.randn(5, 4), EI, LEVELS, return_attention_weights=True)
    layer, role, ei, alpha = att[0]
    assert role == "prey" and alpha.shape == (EI.size(1), 2)
    sums = torch.zeros(5, 2).index_add_(0, ei[1], alpha)
    receivers = torch.unique(EI[1])
    torch.testing.assert_close(sums[receivers], torch.ones(len(receivers), 2))


def test_the_reversed_graph_is_one_tensor_per_input_graph(monkeypatch):
    """The consumer layers run on ``edge_index.flip(0)``: kept with the input graph, so that their cached plans
    are found at every training step (a new flip each call rebuilt them), and not kept from inference mode."""
    from gatbio.nn import conv as C
    from gatbio.nn import fused

    built = []
    real = fused.AttentionPlan.__init__

    def counting(self, *args, **kwargs):
        built.append(1)
        real(self, *args, **kwargs)

    monkeypatch.setattr(fused.AttentionPlan, "__init__", counting)
    monkeypatch.setattr(C, "FUSED_MIN_ELEMENTS", 0)  # the fused path (with its plans) on this tiny web too
    torch.manual_seed(0)
    m = FoodWebGAT(4, 8, heads=2, attention="gatv2")  # the benchmark's attention: the fused path, with plans
    x, ei = torch.randn(5, 4), EI.clone()
    with torch.inference_mode():
        m(x, ei, LEVELS)  # nothing cached from here: the training step below needs normal tensors
    m(x, ei, LEVELS).sum().backward()
    first = len(built)
    for _ in range(3):
        m(x, ei, LEVELS).sum().backward()
    assert first > 0 and len(built) == first  # both directions' plans found again at every step
    assert sum(k[0] == id(ei) and "reversed" in k for k in C._PLANS) == 1


def test_levels_as_trophic_levels_returns_them_float64_give_the_float32_scores():
    """``trophic_levels`` returns float64 (documented); the model takes them as they come, in x's dtype, instead
    of torch's 'expected m1 and m2 to have the same dtype' from inside the bias."""
    from gatbio.ecology import trophic_levels

    torch.manual_seed(0)
    m = FoodWebGAT(4, 8, heads=2, decoder_bias=True).eval()
    with torch.no_grad():
        for b in (*m.bias_prey, *m.bias_consumers, m.pair_bias):
            b.lin.weight.normal_()  # a non-zero bias: the levels change the scores
    x = torch.randn(5, 4)
    lv64 = trophic_levels(EI, num_nodes=5)
    assert lv64.dtype == torch.float64
    s = m(x, EI, lv64)
    assert s.dtype == torch.float32
    torch.testing.assert_close(s, m(x, EI, lv64.float()))
    delta = torch.tensor([-1.0, 0.5], dtype=torch.float64)
    torch.testing.assert_close(m.bias_prey[0](delta), m.bias_prey[0](delta.float()))


def test_levels_must_be_one_per_node_and_are_needed_without_the_bias_too():
    m = FoodWebGAT(4, 8, heads=2)
    x = torch.randn(5, 4)
    with pytest.raises(ValueError, match=r"levels has shape \(4,\).*\(5,\).*one trophic level per node"):
        m(x, EI, LEVELS[:4])
    with pytest.raises(ValueError, match=r"levels has shape \(5, 1\)"):
        m(x, EI, LEVELS[:, None])
    # the docstring makes levels an input of every call; without the bias too, the error says how to get them
    for bias in (True, False):
        with pytest.raises(ValueError, match=r"levels is None.*gatbio\.ecology\.trophic_levels"):
            FoodWebGAT(4, 8, heads=2, trophic_bias=bias)(x, EI, None)
