"""Tests of the adjacency forms GATConv accepts (gatbio.nn._adj): torch.sparse COO/CSR/CSC, ``adj.t()``, and
torch_sparse.SparseTensor, against the edge_index input and against PyG's own GATConv / GATv2Conv."""

from __future__ import annotations

import itertools

import pytest
import torch
import torch_geometric.nn as pyg_nn
import torch_geometric.typing
from torch_geometric.utils import to_edge_index, to_torch_coo_tensor, to_torch_csc_tensor, to_torch_csr_tensor

from gatbio.nn import GATConv, GATv2Conv, _adj

ATTENTIONS = ["gat", "gatv2", "dot"]
PYG = {"gat": pyg_nn.GATConv, "gatv2": pyg_nn.GATv2Conv}
# The transposed adjacency adj_t (N_dst, N_src) in each layout; "csc.t()" is PyG's own idiom: adj.t() of a CSC
# adjacency (N_src, N_dst) is a CSR adj_t.
BUILD = {"coo": to_torch_coo_tensor, "csr": to_torch_csr_tensor, "csc": to_torch_csc_tensor}
FORMS = ["coo", "csr", "csc", "csc.t()", "coo.t()"]

# 6 nodes, 10 edges (source → target): a hub (0), one existing self-loop (3 → 3), node 5 with no in-edges.
EI = torch.tensor([[0, 0, 0, 1, 2, 3, 4, 3, 1, 5],
                   [1, 2, 3, 0, 0, 0, 2, 3, 4, 4]])


def adj_t(edge_index, form, size, values=None):
    """The transposed adjacency (N_dst, N_src) of ``edge_index`` in one of FORMS; size = (N_src, N_dst)."""
    layout, _, t = form.partition(".")
    if t:  # build the adjacency (N_src, N_dst) and transpose it, as PyG's tests do
        return BUILD[layout](edge_index, values, size).transpose(0, 1)  # .t() for 2-D; also hybrid
    return BUILD[layout](edge_index.flip(0), values, (size[1], size[0]))


def dense(edge_index, alpha, n_src, n_dst):
    """(N_dst, N_src, H) attention matrix of an edge list."""
    out = alpha.new_zeros(n_dst, n_src, alpha.size(1))
    return out.index_put_((edge_index[1], edge_index[0]), alpha, accumulate=True)


def parts(t):
    """The layout, index tensors and values of a torch.sparse tensor, for exact comparison."""
    if t.layout == torch.sparse_coo:
        return t.layout, (t.indices(),), t.values()
    if t.layout == torch.sparse_csr:
        return t.layout, (t.crow_indices(), t.col_indices()), t.values()
    return t.layout, (t.ccol_indices(), t.row_indices()), t.values()


def pyg_accepts(form, add_loops):
    """PyG 2.8 raises for a CSC adj_t, and for an uncoalesced COO one (``coo.t()``) without self-loops."""
    return form != "csc" and (add_loops or form != "coo.t()")


def expected_layout(form):
    layout, _, t = form.partition(".")
    return {"coo": torch.sparse_coo, "csr": torch.sparse_csr, "csc": torch.sparse_csr if t else torch.sparse_csc,
            }[layout]


@pytest.mark.parametrize("attention,form,add_loops", list(itertools.product(ATTENTIONS, FORMS, [True, False])))
def test_sparse_equals_edge_index(attention, form, add_loops):
    torch.manual_seed(0)
    x = torch.randn(6, 8)
    conv = GATConv(8, 4, heads=3, attention=attention, add_self_loops=add_loops)
    out, (ei, alpha) = conv(x, EI, return_attention_weights=True)
    a = adj_t(EI, form, (6, 6))
    out_s, (att, alpha_s) = conv(x, a, return_attention_weights=True)
    torch.testing.assert_close(out_s, out, atol=1e-6, rtol=0)
    torch.testing.assert_close(conv(x, a), out, atol=1e-6, rtol=0)
    # PyG's form: a sparse (N_dst, N_src, H) tensor in the input's layout, and alpha in its entries' order.
    assert att.layout == expected_layout(form) and att.shape == (6, 6, 3)
    assert att._nnz() == ei.size(1) == alpha_s.size(0)
    if form != "coo.t()" or add_loops:  # else alpha is in the stored order of an uncoalesced input, as in PyG
        torch.testing.assert_close(parts(att)[2], alpha_s)
    torch.testing.assert_close(att.to_dense(), dense(ei, alpha, 6, 6), atol=1e-6, rtol=0)


# PyG's GATConv raises for the forms pyg_accepts leaves out; gatbio reads them (test_sparse_equals_edge_index).
@pytest.mark.parametrize("attention,form,add_loops,heads",
                         [(a, f, loops, h) for a, f, loops, h in itertools.product(["gat", "gatv2"], FORMS, [True, False],
                                                                                   [1, 2])
                          if pyg_accepts(f, loops) and (h == 2 or f == "csc.t()")])
def test_sparse_equals_pyg(attention, form, add_loops, heads):
    torch.manual_seed(0)
    x = torch.randn(6, 8)
    ref = PYG[attention](8, 4, heads=heads, add_self_loops=add_loops)
    ours = GATConv(8, 4, heads=heads, attention=attention, add_self_loops=add_loops)
    ours.load_state_dict(ref.state_dict())
    a = adj_t(EI, form, (6, 6))
    out_r, (att_r, alpha_r) = ref(x, a, return_attention_weights=True)
    out, (att, alpha) = ours(x, adj_t(EI, form, (6, 6)), return_attention_weights=True)
    torch.testing.assert_close(out, out_r, atol=1e-6, rtol=0)
    (layout, index, values), (layout_r, index_r, values_r) = parts(att), parts(att_r)
    assert layout == layout_r and att.shape == att_r.shape
    assert all(torch.equal(i, j) for i, j in zip(index, index_r, strict=True))
    torch.testing.assert_close(values, values_r, atol=1e-6, rtol=0)
    torch.testing.assert_close(alpha, alpha_r, atol=1e-6, rtol=0)


@pytest.mark.parametrize("attention,form,x_dst,add_loops",  # gatv2 and dot scores need target features
                         [(a, f, xd, loops) for a, f, xd, loops in itertools.product(ATTENTIONS, FORMS, [True, False],
                                                                                     [True, False])
                          if xd or a == "gat"])
def test_bipartite_sparse(attention, form, x_dst, add_loops):
    torch.manual_seed(0)
    xs, xd = torch.randn(5, 6), torch.randn(3, 4)
    ei = torch.tensor([[0, 1, 2, 3, 4, 0, 2], [0, 0, 1, 1, 2, 2, 2]])  # 0 → 0 and 2 → 2 count as self-loops
    x = (xs, xd if x_dst else None)
    conv = GATConv((6, 4), 4, heads=2, attention=attention, add_self_loops=add_loops)
    out, (ei2, alpha) = conv(x, ei, size=(5, 3), return_attention_weights=True)
    a = adj_t(ei, form, (5, 3))
    assert a.shape == (3, 5)
    out_s, (att, _) = conv(x, a, return_attention_weights=True)
    torch.testing.assert_close(out_s, out, atol=1e-6, rtol=0)
    n_edges = ei.size(1) - 2 + 3 if add_loops else ei.size(1)  # min(5, 3) loops replace the two
    assert att.shape == (3, 5, 2) and att._nnz() == ei2.size(1) == n_edges
    torch.testing.assert_close(att.to_dense(), dense(ei2, alpha, 5, 3), atol=1e-6, rtol=0)
    torch.testing.assert_close(conv(x, a, size=(5, 3)), out, atol=1e-6, rtol=0)  # a size that agrees is fine
    if attention in PYG and pyg_accepts(form, add_loops):
        ref = PYG[attention]((6, 4), 4, heads=2, add_self_loops=add_loops)
        ref.load_state_dict(conv.state_dict())
        torch.testing.assert_close(ref(x, a), out_s, atol=1e-6, rtol=0)


def stored_order(a):
    """For each stored entry of the adj_t ``a`` (in to_edge_index order), its column in EI."""
    (dst, src), _ = to_edge_index(a)
    pos = {(int(s), int(d)): k for k, (s, d) in enumerate(EI.t())}
    return torch.tensor([pos[int(s), int(d)] for s, d in zip(src, dst, strict=True)])


@pytest.mark.parametrize("attention,form", list(itertools.product(ATTENTIONS, FORMS)))
def test_attn_bias_and_edge_attr_per_stored_entry(attention, form):
    """attn_bias and edge_attr of a sparse input are given per stored entry, in to_edge_index order."""
    torch.manual_seed(0)
    x = torch.randn(6, 8)
    bias, ea = torch.randn(EI.size(1), 2), torch.randn(EI.size(1), 3)
    conv = GATConv(8, 4, heads=2, attention=attention, edge_dim=3)
    out = conv(x, EI, ea, attn_bias=bias)
    a = adj_t(EI, form, (6, 6))
    order = stored_order(a)
    assert not torch.equal(order, torch.arange(len(order))) or form.startswith("coo")  # a real reordering
    torch.testing.assert_close(conv(x, a, ea[order], attn_bias=bias[order]), out, atol=1e-6, rtol=0)
    # Edge features stored as the values of a hybrid (N_dst, N_src, D) tensor are read as edge_attr (PyG's rule).
    hybrid = adj_t(EI, "csr" if form == "csc.t()" else form, (6, 6), values=ea)  # no hybrid CSC transpose
    order = stored_order(hybrid)
    torch.testing.assert_close(conv(x, hybrid, attn_bias=bias[order]), out, atol=1e-6, rtol=0)


@pytest.mark.parametrize("attention", ["gat", "gatv2"])
def test_hybrid_edge_features_equal_pyg(attention):
    torch.manual_seed(0)
    x, ea = torch.randn(6, 8), torch.randn(EI.size(1), 3)
    ref = PYG[attention](8, 4, heads=2, edge_dim=3, fill_value=0.5)
    ours = GATConv(8, 4, heads=2, attention=attention, edge_dim=3, fill_value=0.5)
    ours.load_state_dict(ref.state_dict())
    a = to_torch_csr_tensor(EI.flip(0), ea, (6, 6))
    torch.testing.assert_close(ours(x, a), ref(x, a), atol=1e-6, rtol=0)
    torch.testing.assert_close(ours(x, a), ours(x, EI, ea), atol=1e-6, rtol=0)


def test_scalar_values_are_weights_not_edge_features():
    """A torch.sparse tensor's scalar values are not edge features (as in PyG): same output as all ones."""
    torch.manual_seed(0)
    x = torch.randn(6, 8)
    conv = GATConv(8, 4, edge_dim=1)
    weighted = to_torch_csr_tensor(EI.flip(0), torch.rand(EI.size(1)) + 0.5, (6, 6))
    torch.testing.assert_close(conv(x, weighted), conv(x, adj_t(EI, "csr", (6, 6))))


def test_sparse_errors():
    x = torch.randn(6, 8)
    conv = GATConv(8, 4)
    a = adj_t(EI, "csr", (6, 6))
    with pytest.raises(ValueError, match=r"size=\(6, 7\) disagrees with the sparse adjacency of shape \(6, 6\)"):
        conv(x, a, size=(6, 7))
    with pytest.raises(ValueError, match=r"the graph has 6 source nodes .* features have 5 rows"):
        conv(torch.randn(5, 8), a)
    with pytest.raises(ValueError, match=r"the graph has 3 target nodes .* features have 6 rows"):
        conv(x, adj_t(torch.tensor([[1, 2, 0, 0], [0, 0, 1, 2]]), "csr", (6, 3)))  # one x, a (3, 6) adj_t
    with pytest.raises(ValueError, match=r"must be a \(N_dst, N_src\) matrix"):
        conv(x, torch.ones(6, 6, 2).to_sparse(3))
    with pytest.raises(ValueError, match=r"stores edge features of shape \(10, 3\).*edge_dim=2"):
        GATConv(8, 4, edge_dim=2)(x, to_torch_coo_tensor(EI.flip(0), torch.ones(10, 3), (6, 6)))
    with pytest.raises(ValueError, match=r"got \(6, 6\); for a dense adjacency matrix A .*dense_to_sparse"):
        conv(x, torch.ones(6, 6, dtype=torch.long))


def test_uncoalesced_coo_keeps_stored_order_and_callers_tensor():
    torch.manual_seed(0)
    x = torch.randn(6, 8)
    conv = GATConv(8, 4, heads=2, add_self_loops=False)
    perm = torch.randperm(EI.size(1))
    a = torch.sparse_coo_tensor(EI[:, perm].flip(0), torch.ones(EI.size(1)), (6, 6))  # not coalesced
    bias = torch.randn(EI.size(1))
    out, (att, alpha) = conv(x, a, attn_bias=bias, return_attention_weights=True)
    out_e, (_, alpha_e) = conv(x, EI[:, perm], attn_bias=bias, return_attention_weights=True)
    torch.testing.assert_close(out, out_e)
    torch.testing.assert_close(alpha, alpha_e)  # stored order, as the bias
    assert not a.is_coalesced() and att.is_coalesced()  # the caller's tensor is left as it was


def test_return_attention_weights_false_returns_output_only():
    """As PyG >= 2.8: return_attention_weights=False means no weights."""
    x = torch.randn(6, 8)
    assert isinstance(GATConv(8, 4)(x, EI, return_attention_weights=False), torch.Tensor)


def test_gatv2conv_is_pygs_signature_and_repr():
    import inspect

    ref = inspect.signature(pyg_nn.GATv2Conv.__init__).parameters
    ours = inspect.signature(GATv2Conv.__init__).parameters
    assert [p for p in ref if p != "kwargs"] == [p for p in ours if p != "kwargs"]
    assert all(ours[n].default == p.default for n, p in ref.items())
    conv = GATv2Conv(8, 32, 2, True, 0.2, 0.0, True, None, "mean", True, True)  # share_weights positional
    assert conv.share_weights and conv.attention == "gatv2" and conv.residual is False
    assert repr(conv) == "GATv2Conv(8, 32, heads=2)"
    assert repr(GATv2Conv(8, 4, temperature=0.5)) == "GATv2Conv(8, 4, heads=1, temperature=0.5)"
    ref = pyg_nn.GATv2Conv(8, 4, heads=2)
    ours = GATv2Conv(8, 4, heads=2)
    ours.load_state_dict(ref.state_dict())
    x = torch.randn(6, 8)
    torch.testing.assert_close(ours(x, EI), ref(x, EI), atol=1e-6, rtol=0)
    with pytest.raises(ValueError, match="GATv2Conv is attention='gatv2'"):
        GATv2Conv(8, 4, attention="dot")


def test_torchscript_gives_one_clear_error():
    class Wrapper(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = GATConv(8, 4)

        def forward(self, x, edge_index):
            return self.conv(x, edge_index)

    with pytest.raises(NotImplementedError, match=r"GATConv cannot be compiled with TorchScript.*torch.compile"):
        torch.jit.script(Wrapper())


@pytest.mark.slow
def test_torch_compile_with_edge_index_and_sparse_input():
    torch.manual_seed(0)
    x = torch.randn(6, 8)
    conv = GATConv(8, 4, heads=2)
    compiled = torch.compile(conv, backend="eager")  # dynamo's tracing, without a C++ toolchain
    a = adj_t(EI, "csc.t()", (6, 6))
    torch.testing.assert_close(compiled(x, EI), conv(x, EI))
    torch.testing.assert_close(compiled(x, a), conv(x, EI), atol=1e-6, rtol=0)


@pytest.mark.slow
@pytest.mark.parametrize("attention", ["gat", "gatv2"])
def test_torch_compile_fullgraph_on_a_graph_large_enough_for_the_fused_path(attention):
    """Above FUSED_MIN_ELEMENTS eager ``impl="auto"`` takes the fused path; under the compiler the edge count after
    the self-loops is a symbol, and the threshold was a data-dependent guard (an error with fullgraph=True):
    compiled, "auto" traces the reference path, with the same numbers."""
    from gatbio.nn.conv import FUSED_MIN_ELEMENTS

    torch.manual_seed(0)
    n, e, heads, out = 400, 4000, 4, 32
    assert e * heads * out >= FUSED_MIN_ELEMENTS  # eager mode takes the fused path
    x, edge_index = torch.randn(n, 16), torch.randint(0, n, (2, e))
    conv = GATConv(16, out, heads=heads, attention=attention)
    compiled = torch.compile(conv, fullgraph=True, backend="eager")
    torch.testing.assert_close(compiled(x, edge_index), conv(x, edge_index), atol=1e-5, rtol=1e-5)


# ------------------------------------------------------------------ torch_sparse.SparseTensor
@pytest.mark.skipif(not torch_geometric.typing.WITH_TORCH_SPARSE, reason="torch_sparse not installed")
@pytest.mark.parametrize("attention,add_loops", list(itertools.product(["gat", "gatv2"], [True, False])))
def test_sparse_tensor_equals_pyg(attention, add_loops):
    from torch_geometric.typing import SparseTensor

    torch.manual_seed(0)
    x = torch.randn(6, 8)
    ref = PYG[attention](8, 4, heads=2, add_self_loops=add_loops)
    ours = GATConv(8, 4, heads=2, attention=attention, add_self_loops=add_loops)
    ours.load_state_dict(ref.state_dict())
    a = SparseTensor.from_edge_index(EI, sparse_sizes=(6, 6)).t()
    out_r, att_r = ref(x, a, return_attention_weights=True)
    out, att = ours(x, a, return_attention_weights=True)
    torch.testing.assert_close(out, out_r, atol=1e-6, rtol=0)
    torch.testing.assert_close(att.to_dense(), att_r.to_dense(), atol=1e-6, rtol=0)
    with pytest.raises(NotImplementedError):
        GATConv(8, 4, edge_dim=1, add_self_loops=True)(x, a)


class FakeSparseTensor(torch_geometric.typing.SparseTensor):
    """Just enough of torch_sparse.SparseTensor (coo, sparse_sizes, set_value, the constructor) to run the
    SparseTensor path where torch_sparse is not installed."""

    def __init__(self, row, col, value=None, sparse_sizes=None, is_sorted=False):
        if not is_sorted:
            perm = torch.argsort(row * sparse_sizes[1] + col, stable=True)
            row, col, value = row[perm], col[perm], None if value is None else value[perm]
        self.row, self.col, self.value, self.sizes = row, col, value, tuple(sparse_sizes)

    def coo(self):
        return self.row, self.col, self.value

    def sparse_sizes(self):
        return self.sizes

    def set_value(self, value, layout=None):
        assert layout == "coo"
        return FakeSparseTensor(self.row, self.col, value, self.sizes, is_sorted=True)


@pytest.mark.skipif(torch_geometric.typing.WITH_TORCH_SPARSE, reason="uses a stand-in for torch_sparse")
@pytest.mark.parametrize("attention,add_loops", list(itertools.product(ATTENTIONS, [True, False])))
def test_sparse_tensor_path(attention, add_loops, monkeypatch):
    monkeypatch.setattr(_adj, "SparseTensor", FakeSparseTensor)
    torch.manual_seed(0)
    x = torch.randn(6, 8)
    conv = GATConv(8, 4, heads=2, attention=attention, add_self_loops=add_loops)
    out, (ei, alpha) = conv(x, EI, return_attention_weights=True)
    a = FakeSparseTensor(EI[1], EI[0], sparse_sizes=(6, 6))  # adj_t: row = target, col = source
    out_s, att = conv(x, a, return_attention_weights=True)  # PyG returns the SparseTensor alone
    torch.testing.assert_close(out_s, out, atol=1e-6, rtol=0)
    assert isinstance(att, FakeSparseTensor) and att.sizes == (6, 6)
    row, col, value = att.coo()
    assert value.shape == (ei.size(1), 2)
    torch.testing.assert_close(dense(torch.stack([col, row]), value, 6, 6), dense(ei, alpha, 6, 6),
                               atol=1e-6, rtol=0)
    # Stored values are edge features for a layer with edge_dim; PyG refuses them with added self-loops.
    w = torch.randn(EI.size(1))
    with_values = FakeSparseTensor(EI[1], EI[0], w, sparse_sizes=(6, 6))
    conv_e = GATConv(8, 4, heads=2, attention=attention, edge_dim=1, add_self_loops=add_loops)
    if add_loops:
        with pytest.raises(NotImplementedError, match="not supported for an adjacency given as a torch_sparse"):
            conv_e(x, with_values)
    else:
        r, c, v = with_values.coo()
        torch.testing.assert_close(conv_e(x, with_values), conv_e(x, torch.stack([c, r]), v), atol=1e-6, rtol=0)


@pytest.mark.parametrize("form", ["csr", "csc"])
def test_hybrid_input_without_loops_returns_weights_per_head(form):
    """A CSR/CSC adjacency storing edge features (N_dst, N_src, D) gives attention weights of shape
    (N_dst, N_src, H), not the input's trailing D (set_sparse_value would keep it, and to_dense then fails)."""
    torch.manual_seed(0)
    x, ea = torch.randn(6, 8), torch.randn(EI.size(1), 3)
    conv = GATConv(8, 4, heads=2, edge_dim=3, add_self_loops=False)
    out, (att, alpha) = conv(x, adj_t(EI, form, (6, 6), ea), return_attention_weights=True)
    out_e, (ei_e, alpha_e) = conv(x, EI, ea, return_attention_weights=True)
    assert att.shape == (6, 6, 2) and att.layout == expected_layout(form)
    torch.testing.assert_close(out, out_e)
    torch.testing.assert_close(att.to_dense(), dense(ei_e, alpha_e, 6, 6))


@pytest.mark.parametrize("attention", ["gat", "gatv2"])
def test_repeated_coo_entries_are_merged_with_self_loops_as_pyg(attention):
    """An uncoalesced COO adj_t storing the edge 0 → 1 twice: with self-loops PyG merges the repeats into one edge
    (0.743 / 0.257 here, not two edges of 0.426 and a loop of 0.147); per-entry attn_bias is then refused."""
    torch.manual_seed(0)
    x = torch.randn(6, 5)
    ei = torch.tensor([[0, 1, 0], [1, 2, 1]])

    def fresh():  # PyG marks the tensor it reads coalesced in place: a new one for each call
        return torch.sparse_coo_tensor(ei.flip(0), torch.ones(3), (6, 6))

    ref = PYG[attention](5, 4, heads=2)
    ours = GATConv(5, 4, heads=2, attention=attention)
    ours.load_state_dict(ref.state_dict())
    out, (att, alpha) = ours(x, fresh(), return_attention_weights=True)
    out_p, (att_p, alpha_p) = ref(x, fresh(), return_attention_weights=True)
    torch.testing.assert_close(out, out_p, atol=1e-6, rtol=0)
    torch.testing.assert_close(att.to_dense(), att_p.to_dense(), atol=1e-6, rtol=0)
    assert att._nnz() == 2 + 6  # 0 → 1 once, 1 → 2, one loop per node
    torch.testing.assert_close(att.to_dense()[1].sum(0), torch.ones(2))
    with pytest.raises(ValueError, match=r"stores 1 repeated entries.*coalesce it first"):
        ours(x, fresh(), attn_bias=torch.zeros(3))
    # without self-loops every stored entry is an edge, the repeat included (bias per stored entry)
    plain = GATConv(5, 4, heads=2, attention=attention, add_self_loops=False)
    _, (_, alpha_plain) = plain(x, fresh(), attn_bias=torch.zeros(3), return_attention_weights=True)
    assert alpha_plain.shape == (3, 2)


@pytest.mark.parametrize("impl", ["reference", "fused"])
@pytest.mark.parametrize("attention", ATTENTIONS)
def test_edge_index_subclass_equals_edge_index(impl, attention):
    """A PyG ``EdgeIndex`` is an edge list: the same output and weights as its plain tensor on every path (the
    fused path, which ``impl="auto"`` picks for larger graphs, failed on it with an AttributeError), and its sparse
    size is the layer's size (PyG reads it so: a node with no edge beyond the largest index still gets a row)."""
    from torch_geometric import EdgeIndex

    torch.manual_seed(0)
    x = torch.randn(8, 8)  # nodes 6 and 7 are in no edge: only the sparse size says they exist
    conv = GATConv(8, 4, heads=3, attention=attention, impl=impl)
    out, (ei, alpha) = conv(x, EI, return_attention_weights=True)
    out_e, (ei_e, alpha_e) = conv(x, EdgeIndex(EI, sparse_size=(8, 8)), return_attention_weights=True)
    torch.testing.assert_close(out_e, out, atol=1e-6, rtol=0)
    assert torch.equal(ei_e, ei) and type(ei_e) is torch.Tensor
    torch.testing.assert_close(alpha_e, alpha)
    # bipartite: 8 sources, 7 targets from the sparse size alone
    xb = (x, torch.randn(7, 8))
    conv_b = GATConv((8, 8), 4, heads=3, attention=attention, impl=impl, add_self_loops=False)
    torch.testing.assert_close(conv_b(xb, EdgeIndex(EI, sparse_size=(8, 7))), conv_b(xb, EI, size=(8, 7)))
    with pytest.raises(ValueError, match=r"size=\(8, 9\) disagrees with the EdgeIndex's sparse_size \(8, 8\)"):
        conv(x, EdgeIndex(EI, sparse_size=(8, 8)), size=(8, 9))
    if attention != "dot":  # PyG's own layer agrees
        ref = PYG[attention](8, 4, heads=3)
        ours = GATConv(8, 4, heads=3, attention=attention, impl=impl)
        ours.load_state_dict(ref.state_dict())
        torch.testing.assert_close(ours(x, EdgeIndex(EI, sparse_size=(8, 8))),
                                   ref(x, EdgeIndex(EI, sparse_size=(8, 8))), atol=1e-6, rtol=0)
