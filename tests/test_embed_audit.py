"""gatbio.embed audit: edge-list forms, random state, determinism, argument checks and constant columns."""

import networkx as nx
import numpy as np
import pytest
import torch
from torch_geometric.utils import to_undirected

from gatbio import embed

TRI = torch.tensor([[0, 1, 1, 2, 2, 0], [1, 0, 2, 1, 0, 2]])  # triangle, both directions
R = 2 ** -0.5


def cycle(n: int) -> torch.Tensor:
    src = torch.arange(n)
    return torch.stack([torch.cat([src, (src + 1) % n]), torch.cat([(src + 1) % n, src])])


def ba_graph(n: int = 150, m: int = 2, seed: int = 0) -> torch.Tensor:
    g = nx.barabasi_albert_graph(n, m, seed=seed)
    return to_undirected(torch.tensor(list(g.edges())).t(), num_nodes=n)


# --- structural encodings see the same undirected simple graph as netmf / prone / spectral ----------------------

def test_structural_encodings_collapse_duplicate_edges():
    # a repeated (0, 1) made PyG's RWPE sub-stochastic (row 0 of P summed to 2/3: return probability 1/3, not 1/2)
    # and counted node 0's degree as 3
    dup = torch.cat([TRI, torch.tensor([[0, 1], [1, 0]])], dim=1)
    x = embed.structural_encodings(dup, 3, kinds=("degree", "rwpe"), walk_length=3)
    assert torch.allclose(x[:, 0], torch.log(torch.tensor(3.0)).expand(3))  # log(1 + 2): degree 2 everywhere
    assert torch.allclose(x[:, 1:], torch.tensor([0.0, 0.5, 0.25]).expand(3, 3), atol=1e-6)
    assert torch.equal(x, embed.structural_encodings(TRI, 3, kinds=("degree", "rwpe"), walk_length=3))


def test_structural_encodings_of_a_one_direction_edge_list():
    # the path 0 - 1 - 2 given once per pair (as adjacency() accepts): degrees 1, 2, 1; the walk on the undirected
    # path returns to a leaf with probability 0, 1/2, 0, 1/2 and to the centre with 0, 1, 0, 1 (the directed
    # reading gave degree 1, 1, 0 and no returns at all)
    one = torch.tensor([[0, 1], [1, 2]])
    x = embed.structural_encodings(one, 3, kinds=("degree", "rwpe"), walk_length=4)
    assert torch.allclose(x[:, 0], torch.log1p(torch.tensor([1.0, 2.0, 1.0])))
    expect = torch.tensor([[0, 0.5, 0, 0.5], [0, 1, 0, 1], [0, 0.5, 0, 0.5]])
    assert torch.allclose(x[:, 1:], expect, atol=1e-6)
    # Laplacian eigenvectors of the undirected path (eigenvalues 1, 2): [1, 0, -1]/√2, [1, -√2, 1]/2
    pe = embed.structural_encodings(one, 3, kinds=("lappe",), lap_k=2).double()
    assert torch.allclose(pe[:, 0].abs(), torch.tensor([R, 0, R], dtype=torch.float64), atol=1e-6)
    assert torch.allclose(pe[:, 1].abs(), torch.tensor([0.5, R, 0.5], dtype=torch.float64), atol=1e-6)


def test_structural_encodings_accept_int32_and_numpy_edge_lists():
    ref = embed.structural_encodings(TRI, 3, walk_length=3, lap_k=2)
    for ei in (TRI.int(), TRI.numpy(), TRI.numpy().astype(np.float64)):
        assert torch.equal(embed.structural_encodings(ei, 3, walk_length=3, lap_k=2), ref)


# --- random state ------------------------------------------------------------------------------------------------

def test_structural_encodings_leave_the_global_random_state_alone():
    # lappe used to call torch.manual_seed(seed) and np.random.seed(seed): every call reset the caller's RNGs
    torch.manual_seed(123)
    np.random.seed(123)
    expect_t, expect_np = torch.rand(3), np.random.rand(3)
    torch.manual_seed(123)
    np.random.seed(123)
    embed.structural_encodings(TRI, 3, kinds=("lappe",), lap_k=2)
    embed.node_inputs(ba_graph(), 150, kinds=["lappe"])
    assert torch.equal(torch.rand(3), expect_t) and np.array_equal(np.random.rand(3), expect_np)


def test_lappe_is_deterministic_for_a_seed_on_arpack_sized_graphs():
    # from 100 nodes PyG calls ARPACK, whose start vector SciPy drew from OS entropy: each call gave another PE
    ei, n = ba_graph(), 150
    runs = [embed.structural_encodings(ei, n, kinds=("lappe",), lap_k=4, seed=1) for _ in range(3)]
    assert all(torch.equal(runs[0], r) for r in runs[1:])
    # and they are the eigenvectors of the 4 smallest non-zero eigenvalues of the normalised Laplacian
    a = embed.adjacency(ei, n).toarray()
    dis = 1 / np.sqrt(a.sum(1))
    lap = np.eye(n) - dis[:, None] * a * dis[None, :]
    lam = np.linalg.eigvalsh(lap)[1:5]
    pe = runs[0].double().numpy()
    assert np.allclose(lap @ pe, pe * lam[None, :], atol=1e-4)


# --- clear errors ---------------------------------------------------------------------------------------------

def test_structural_encodings_bad_edge_index_messages():
    for kind in ("degree", "rwpe", "lappe"):
        with pytest.raises(ValueError, match=r"node ids outside 0..2 .*num_nodes=3 must exceed the largest id"):
            embed.structural_encodings(torch.tensor([[0, 5], [5, 0]]), 3, kinds=(kind,))
        with pytest.raises(ValueError, match="node ids outside 0..2"):
            embed.structural_encodings(torch.tensor([[0, -1], [-1, 0]]), 3, kinds=(kind,))
        # an (E, 2) list of pairs: the degree was computed from its first pair, silently
        with pytest.raises(ValueError, match=r"shape \(2, E\), got \(6, 2\) \(an \(E, 2\) list of pairs"):
            embed.structural_encodings(TRI.t(), 3, kinds=(kind,))
    with pytest.raises(ValueError, match="kinds must be a non-empty list"):
        embed.structural_encodings(TRI, 3, kinds="rwpe")
    with pytest.raises(ValueError, match="kinds must be a non-empty list"):
        embed.structural_encodings(TRI, 3, kinds=())
    with pytest.raises(ValueError, match="walk_length must be an integer, got 2.5"):
        embed.structural_encodings(TRI, 3, kinds=("rwpe",), walk_length=2.5)


def test_adjacency_refuses_fractional_node_ids():
    # 0.5 was truncated to node 0: a different graph, silently
    with pytest.raises(ValueError, match="must hold integer node ids"):
        embed.adjacency(np.array([[0.5, 1.0], [1.0, 0.5]]), 3)
    with pytest.raises(ValueError, match="must hold integer node ids"):
        embed.adjacency(np.array([[0.0, np.nan], [1.0, 2.0]]), 3)
    # whole numbers in a float array (np.loadtxt) are fine
    assert (embed.adjacency(TRI.double(), 3) != embed.adjacency(TRI, 3)).nnz == 0


@pytest.mark.parametrize("negative", [0, 0.0, -1.0, float("nan"), float("inf")])
def test_netmf_refuses_a_non_positive_negative(negative):
    # b = 0 gave an sklearn "Input contains infinity" error (netmf) or a NaN matrix (netmf_matrix); b < 0 an
    # all-zero embedding, silently
    with pytest.raises(ValueError, match="netmf: negative .* must be a finite number > 0"):
        embed.netmf(TRI, 3, dim=2, negative=negative)
    with pytest.raises(ValueError, match="netmf: negative .* must be a finite number > 0"):
        embed.netmf_matrix(TRI, 3, negative=negative)


def test_netmf_and_prone_integer_arguments():
    with pytest.raises(ValueError, match="netmf: window must be an integer, got 2.5"):
        embed.netmf(TRI, 3, dim=2, window=2.5)
    with pytest.raises(ValueError, match="netmf: window must be ≥ 1, got 0"):
        embed.netmf_matrix(TRI, 3, window=0)
    with pytest.raises(ValueError, match="netmf: rank must be ≥ 1, got 0"):  # was ARPACK's "k must be greater than 0"
        embed.netmf(TRI, 3, dim=2, rank=0, method="large")
    with pytest.raises(ValueError, match="prone: order must be ≥ 1, got 0"):  # order 0 ran as order 2
        embed.prone(TRI, 3, dim=2, order=0)


# --- standardize_columns on constant columns -------------------------------------------------------------------

@pytest.mark.parametrize(("n", "value"), [(7, 0.1), (10, float(np.log(3))), (11, 0.1)])
def test_standardize_a_constant_column_gives_zeros(n, value):
    # the float32 std of n copies of 0.1 or log 3 is about 1e-8 (the round-off of the mean), not 0: the column was
    # scaled to ±0.93, neither zero (as documented) nor zero-mean
    assert torch.equal(embed.standardize_columns(torch.full((n, 1), value)), torch.zeros(n, 1))


@pytest.mark.parametrize("n", [10, 11])
def test_standardize_the_degree_of_a_regular_graph_gives_zeros(n):
    # a cycle: every node alike, log(1 + 2) everywhere: the standardised degree column was 0.95 on every node
    x = embed.node_inputs(cycle(n), n, kinds=["degree", "rwpe"], standardize=True)
    assert x.shape == (n, 17) and torch.equal(x, torch.zeros(n, 17))


def test_standardize_keeps_real_columns():
    # a constant column beside real ones: the real ones get mean 0 and std 1, the constant one zeros
    torch.manual_seed(0)
    x = torch.cat([torch.randn(50, 3) * torch.tensor([1.0, 0.01, 10.0]) + 5, torch.full((50, 1), 0.1)], dim=1)
    z = embed.standardize_columns(x)
    assert torch.allclose(z[:, :3].mean(0), torch.zeros(3), atol=1e-3)  # float32: offset 5, spread 0.01
    assert torch.allclose(z[:, :3].std(0), torch.ones(3), atol=1e-4)
    assert torch.equal(z[:, 3], torch.zeros(50))


# --- device -----------------------------------------------------------------------------------------------------

@pytest.mark.cuda
def test_structural_encodings_of_a_cuda_edge_index_are_on_the_cpu():
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device")
    ei = TRI.cuda()
    x = embed.structural_encodings(ei, 3, walk_length=3, lap_k=2)
    assert x.device.type == "cpu" and torch.equal(x, embed.structural_encodings(TRI, 3, walk_length=3, lap_k=2))
    x = embed.node_inputs(ei, 3, kinds=["prone", "degree", "rwpe", "lappe"], dim=2)  # mixed devices: cat failed
    assert x.device.type == "cpu" and x.shape == (3, 2 + 1 + 16 + 16)
