"""GATNodeClassifier: shapes, attention, losses, label input, the linear skip, equivariance, errors."""

import pytest
import torch

from gatbio.nn.models import GATNodeClassifier

EI = torch.tensor([[0, 1, 1, 2, 2, 3, 3, 0], [1, 0, 2, 1, 3, 2, 0, 3]])  # 4-cycle, both directions


@pytest.mark.parametrize("conv", ["gatbio", "pyg-gat", "gcn", "mlp"])
@pytest.mark.parametrize("task", ["multilabel", "multiclass"])
def test_output_shapes_and_losses(conv, task):
    torch.manual_seed(0)
    m = GATNodeClassifier(8, 3, hidden_channels=4, heads=2, num_layers=2, task=task, conv=conv)
    out = m(torch.randn(4, 8), EI)
    assert out.shape == (4, 3)
    target = torch.tensor([[1.0, 0, 1], [0, 1, 0], [1, 1, 0], [0, 0, 1]]) if task == "multilabel" \
        else torch.tensor([0, 2, 1, 1])
    loss = m.loss(out, target)
    loss.backward()
    assert torch.isfinite(loss) and m.lin_in.weight.grad is not None
    p = m.predict_proba(out)
    if task == "multiclass":
        assert torch.allclose(p.sum(1), torch.ones(4))
    else:
        assert ((p > 0) & (p < 1)).all()


@pytest.mark.parametrize("opts", [{}, {"attention": "gatv2"}, {"degree_norm": "log", "temperature": "learn"}])
def test_attention_per_layer_sums_to_one_per_target(opts):
    m = GATNodeClassifier(5, 2, hidden_channels=3, heads=2, num_layers=3, **opts).eval()
    out, att = m(torch.randn(4, 5), EI, return_attention_weights=True)
    assert len(att) == 3
    for ei, alpha in att:
        assert alpha.shape[0] == ei.shape[1]
        if opts.get("degree_norm") != "sym":  # "log" is a prior in the logits: still a softmax per target
            sums = torch.zeros(4, alpha.shape[1]).index_add_(0, ei[1], alpha)
            assert torch.allclose(sums, torch.ones_like(sums), atol=1e-5)


def test_permutation_equivariance():
    torch.manual_seed(0)
    m = GATNodeClassifier(6, 3, hidden_channels=4, heads=2, label_channels=3).eval()
    x, lab = torch.randn(4, 6), torch.rand(4, 3)
    perm = torch.tensor([2, 0, 3, 1])
    inv = torch.argsort(perm)
    out = m(x, EI, lab)
    out_p = m(x[perm], inv[EI], lab[perm])
    assert torch.allclose(out[perm], out_p, atol=1e-5)


def test_linear_skip_is_logistic_regression_when_graph_branch_is_zero():
    m = GATNodeClassifier(3, 2, hidden_channels=2, heads=1, num_layers=1).eval()
    for p in m.convs.parameters():
        torch.nn.init.zeros_(p)
    x = torch.randn(4, 3)
    assert torch.allclose(m(x, EI), m.lin_skip(x), atol=1e-6)


def test_label_input_and_learnable_embeddings():
    m = GATNodeClassifier(0, 2, hidden_channels=2, heads=1, label_channels=2, num_nodes=4, embedding_dim=3)
    assert m(None, EI, torch.zeros(4, 2)).shape == (4, 2)
    with pytest.raises(ValueError, match="pass label_input"):
        m(None, EI)


def test_constructor_errors_name_the_fix():
    with pytest.raises(ValueError, match="task='regression': choose one of multilabel, multiclass"):
        GATNodeClassifier(3, 2, task="regression")
    with pytest.raises(ValueError, match="gatbio GATConv options; they need conv='gatbio'"):
        GATNodeClassifier(3, 2, conv="gcn", attention="gatv2")
    with pytest.raises(ValueError, match="needs num_nodes"):
        GATNodeClassifier(3, 2, embedding_dim=4)
    with pytest.raises(ValueError, match=r"x must be \(N, 3\)"):
        GATNodeClassifier(3, 2)(torch.randn(4, 5), EI)


def test_inputs_of_another_type_or_dtype_are_refused_with_the_cast():
    """float64 is what torch.from_numpy gives for float64 features: torch's message was a dtype mismatch in a
    matmul; a numpy array gave AttributeError 'dim'."""
    m = GATNodeClassifier(5, 3, hidden_channels=2, heads=1).eval()
    x = torch.randn(4, 5)
    with pytest.raises(TypeError, match=r"x has dtype torch.float64 but the model's parameters are torch.float32: "
                                        r"pass x.float\(\)"):
        m(x.double(), EI)
    with pytest.raises(TypeError, match=r"x must be a torch.Tensor .*got ndarray \(use torch.as_tensor\(x, "
                                        r"dtype=torch.float32\)\)"):
        m(x.numpy(), EI)
    with pytest.raises(TypeError, match="x has dtype torch.int64"):
        m(x.long(), EI)
    assert torch.allclose(m.double()(x.double(), EI), m.float()(x, EI).double(), atol=1e-5)  # a converted model
    with torch.autocast("cpu", dtype=torch.bfloat16):  # autocast casts for the layers: a bf16 x is fine there
        assert m(x.bfloat16(), EI).shape == (4, 3)


def test_multiclass_loss_leaves_out_unlabelled_targets():
    """-1 (yeast-bu2003's unlabelled class U) gave torch's 'Target -1 is out of bounds'."""
    m = GATNodeClassifier(5, 3, task="multiclass")
    logits = torch.randn(4, 3)
    target = torch.tensor([0, -1, 2, -1])
    assert torch.allclose(m.loss(logits, target), m.loss(logits[[0, 2]], target[[0, 2]]))


def test_multiclass_loss_of_unlabelled_targets_only_is_zero_not_nan():
    """torch's mean over no labelled target is 0 / 0 = NaN, and one such step made every parameter NaN."""
    m = GATNodeClassifier(5, 3, task="multiclass")
    logits = torch.randn(2, 3, requires_grad=True)
    loss = m.loss(logits, torch.tensor([-1, -1]))
    loss.backward()
    assert loss.item() == 0.0 and torch.equal(logits.grad, torch.zeros(2, 3))
    assert torch.isnan(torch.nn.functional.cross_entropy(logits, torch.tensor([-1, -1]), ignore_index=-1))


@pytest.mark.parametrize("arg", ["out_channels", "hidden_channels", "heads", "out_heads"])
def test_a_size_of_zero_is_named_as_given(arg):
    """hidden_channels=0 was reported as out_channels=0 (the layer's own argument)."""
    kwargs = {"in_channels": 5, "out_channels": 3, arg: 0}
    with pytest.raises(ValueError, match=rf"^{arg}=0: must be a positive integer"):
        GATNodeClassifier(**kwargs)
