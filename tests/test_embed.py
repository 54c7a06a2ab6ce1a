"""gatbio.embed: NetMF, ProNE, spectral embeddings and PyG encodings on tiny graphs with known structure."""

import numpy as np
import pytest
import torch

from gatbio import embed


def two_cliques(k: int = 5, bridge: bool = True) -> tuple[torch.Tensor, int]:
    """Two k-cliques (nodes 0..k-1 and k..2k-1), optionally joined by the edge (0, k); both directions."""
    pairs = [(i, j) for c in (0, k) for i in range(c, c + k) for j in range(c, c + k) if i != j]
    if bridge:
        pairs += [(0, k), (k, 0)]
    return torch.tensor(pairs).t(), 2 * k


def cosine(x: torch.Tensor) -> np.ndarray:
    x = torch.nn.functional.normalize(x, dim=1)
    return (x @ x.t()).numpy()


@pytest.mark.parametrize("method", ["netmf", "prone", "spectral"])
def test_embeddings_separate_the_two_cliques(method):
    ei, n = two_cliques()
    # The normalised adjacency of this graph has eigenvalues 1, 0.927, -0.05, then -0.25 six times: a 4th
    # spectral vector would be an arbitrary member of that 6-dimensional eigenspace (chosen by ARPACK's rounding,
    # so by the BLAS and the CPU), not a function of the graph. Keep the spectral embedding to the 3 simple ones.
    dim = 3 if method == "spectral" else 4
    x = getattr(embed, method)(ei, n, dim=dim, seed=0)
    assert x.shape == (n, dim) and x.dtype == torch.float32 and torch.isfinite(x).all()
    sim = cosine(x)
    same = [sim[i, j] for i in range(1, 5) for j in range(1, 5) if i != j]  # non-bridge nodes, clique A
    across = [sim[i, j] for i in range(1, 5) for j in range(6, 10)]
    assert min(same) > max(across)


@pytest.mark.parametrize("method", ["netmf", "prone", "spectral"])
def test_embeddings_are_deterministic_for_a_seed(method):
    ei, n = two_cliques(6)
    a = getattr(embed, method)(ei, n, dim=4, seed=3)
    b = getattr(embed, method)(ei, n, dim=4, seed=3)
    assert torch.equal(a, b)


def test_netmf_dense_matches_the_closed_form():
    # M = vol/(bT) * sum_r (D^-1 A)^r D^-1; the embedding is U sqrt(S) of log max(M, 1), so for full rank
    # emb @ V-part reconstructs log M: check emb @ emb.T == U S U^T against a direct dense computation.
    ei, n = two_cliques(4)
    a = np.zeros((n, n))
    a[ei[0].numpy(), ei[1].numpy()] = 1
    d = a.sum(1)
    p = a / d[:, None]
    s = sum(np.linalg.matrix_power(p, r) for r in range(1, 4))
    m = a.sum() / (1.0 * 3) * s / d[None, :]
    logm = np.log(np.maximum(m, 1))
    np.testing.assert_allclose(embed.netmf_matrix(ei, n, window=3), logm, atol=1e-12)
    u, sv, _ = np.linalg.svd(logm)
    # The singular values are 2.309 (x2), 0.424 (x4), 0.376 (x2): a rank-7 truncation would keep one vector of
    # the 2-dimensional 0.376 subspace, chosen by rounding (seed, BLAS kernel, CPU), so it is not a function of
    # the matrix. Truncate at a gap instead, where U_k S_k U_k^T is unique, and check several seeds.
    k = 6
    assert sv[k - 1] - sv[k] > 0.04
    ref = (u[:, :k] * sv[:k]) @ u[:, :k].T
    for seed in range(4):
        x = embed.netmf(ei, n, dim=k, window=3, negative=1.0, seed=seed).double().numpy()
        assert np.allclose(x @ x.T, ref, atol=1e-4)


def test_netmf_matrix_of_a_triangle_known_answer():
    # triangle, T = 1: D^-1 A = (J - I)/2, vol = 6, so M = 6 * (J - I)/2 * 1/2 = 1.5 (J - I)
    ei = torch.tensor([[0, 1, 1, 2, 2, 0], [1, 0, 2, 1, 0, 2]])
    expect = np.log(1.5) * (1 - np.eye(3))
    np.testing.assert_allclose(embed.netmf_matrix(ei, 3, window=1), expect, atol=1e-12)


def test_isolated_node_gets_a_zero_row_not_nan():
    ei, n = two_cliques(4)
    for method in ("netmf", "prone"):
        x = getattr(embed, method)(ei, n + 1, dim=3)  # node 8 has no edge
        assert torch.isfinite(x).all() and x[n].abs().max() < 1e-6


def test_prone_rows_are_unit_length():
    ei, n = two_cliques(6)
    x = embed.prone(ei, n, dim=4)
    assert torch.allclose(x.norm(dim=1), torch.ones(n), atol=1e-5)


def test_structural_encodings_known_values():
    tri = torch.tensor([[0, 1, 1, 2, 2, 0], [1, 0, 2, 1, 0, 2]])
    x = embed.structural_encodings(tri, 3, kinds=("degree", "rwpe"), walk_length=3)
    assert x.shape == (3, 4)
    assert torch.allclose(x[:, 0], torch.log(torch.tensor(3.0)).expand(3))  # log(1 + 2)
    # random walk on a triangle: return probability 0 after 1 step, 1/2 after 2, 1/4 after 3
    assert torch.allclose(x[:, 1:], torch.tensor([0.0, 0.5, 0.25]).expand(3, 3), atol=1e-6)


def test_node_inputs_concatenates_and_standardizes():
    ei, n = two_cliques(5)
    x = embed.node_inputs(ei, n, kinds=["prone", "degree"], dim=3, standardize=True)
    assert x.shape == (n, 4)
    assert torch.allclose(x.mean(0), torch.zeros(4), atol=1e-5)


def test_bad_input_messages():
    with pytest.raises(ValueError, match=r"edge_index must have shape \(2, E\)"):
        embed.adjacency(torch.zeros(3, 4, dtype=torch.long), 4)
    with pytest.raises(ValueError, match="node ids outside 0..2"):
        embed.adjacency(torch.tensor([[0], [5]]), 3)
    with pytest.raises(ValueError, match="unknown input kind 'node2vec'; choose from netmf"):
        embed.node_inputs(torch.tensor([[0], [1]]), 2, kinds=["node2vec"])
    with pytest.raises(ValueError, match="unknown structural encoding 'pagerank'"):
        embed.structural_encodings(torch.tensor([[0], [1]]), 2, kinds=["pagerank"])


def ring_of_cliques(sizes: tuple[int, ...] = (4, 5, 6, 7)) -> tuple[torch.Tensor, int]:
    """Cliques of the given sizes joined in a ring by one edge each (no symmetry: distinct singular values)."""
    starts = np.cumsum((0,) + sizes)
    pairs = [(b + i, b + j) for b, k in zip(starts[:-1], sizes, strict=True) for i in range(k) for j in range(k) if i != j]
    ring = [(int(b), int(starts[(c + 1) % len(sizes)]) + 1) for c, b in enumerate(starts[:-1])]
    pairs += ring + [(v, u) for u, v in ring]
    return torch.tensor(pairs).t(), int(starts[-1])


def gram_at_gap(x: np.ndarray, m: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """x x^T of an embedding and U_k S_k U_k^T of the matrix it factorises; k must sit at a singular-value gap."""
    u, sv, _ = np.linalg.svd(m)
    assert sv[k - 1] - sv[k] > 1e-3 * sv[0]
    return x @ x.T, (u[:, :k] * sv[:k]) @ u[:, :k].T


def test_netmf_method_threshold_and_line():
    n = embed.NETMF_DENSE_MAX
    assert embed.netmf_method(n)[0] == "netmf" and embed.netmf_method(n + 1)[0] == "netmf-large"
    assert embed.embedding_line(["prone", "netmf"], 19000) == \
        "embedding: prone + netmf-large (19,000 nodes > 8,000: bounded memory)"
    assert embed.embedding_line(["prone"], 19000) == "embedding: prone"
    with pytest.raises(ValueError, match="method must be 'auto', 'dense' or 'large'"):
        embed.netmf(*two_cliques(), method="big")


def test_netmf_large_factorises_the_rank_h_matrix_without_forming_it():
    # method="large" must give the rank-d SVD of log max(M_h, 1), M_h the rank-h eigen approximation, which
    # netmf_matrix(method="large") forms densely; row blocks of 3 rows (block_entries) must not change it.
    ei, n = ring_of_cliques()
    rank, k = 12, 4
    m = embed.netmf_matrix(ei, n, window=3, rank=rank, method="large")
    assert np.allclose(m, m.T)
    a = embed.adjacency(ei, n)
    for block in (3 * n, n * n):
        x = embed._netmf_large(a, 3, 1.0, rank, k, 0, torch.device("cpu"), block_entries=block).double().numpy()
        got, ref = gram_at_gap(x, m, k)
        assert np.allclose(got, ref, atol=1e-4 * np.abs(ref).max())
    dense = embed.netmf_matrix(ei, n, window=3, method="dense")
    assert not np.allclose(m, dense, atol=1e-3)  # rank 12 of 22 is an approximation, so the check above can fail


def test_netmf_large_is_close_to_dense_with_a_full_spectrum():
    # with h = N - 2 of N eigenpairs the approximation drops only the two most negative eigenvalues, whose
    # powers nearly cancel in sum_r lambda^r: the embeddings then agree on which nodes are alike
    ei, n = ring_of_cliques()
    dense = embed.netmf(ei, n, dim=4, window=10, method="dense")
    large = embed.netmf(ei, n, dim=4, window=10, rank=n - 2, method="large")
    assert torch.allclose(dense @ dense.T, large @ large.T, atol=0.05 * float((dense @ dense.T).abs().max()))


def test_netmf_dense_torch_matches_scipy():
    ei, n = ring_of_cliques()
    a = embed.adjacency(ei, n)
    m = embed.netmf_matrix(ei, n, window=3, method="dense")
    x = embed._netmf_dense_torch(a, 3, 1.0, 4, 0, torch.device("cpu")).numpy()
    got, ref = gram_at_gap(x, m, 4)
    assert np.allclose(got, ref, atol=1e-8 * np.abs(ref).max())


@pytest.mark.cuda
@pytest.mark.parametrize("method", ["dense", "large"])
def test_netmf_on_cuda_matches_cpu(method):
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device")
    ei, n = ring_of_cliques()
    cpu = embed.netmf(ei, n, dim=4, window=3, rank=12, method=method).double()
    gpu = embed.netmf(ei, n, dim=4, window=3, rank=12, method=method, device="cuda").double()
    assert gpu.device.type == "cpu"
    assert torch.allclose(cpu @ cpu.T, gpu @ gpu.T, atol=1e-4 * float((cpu @ cpu.T).abs().max()))


# --- tiny graphs: every kind keeps its documented width; missing columns are zero ---------------------------

PATH3 = torch.tensor([[0, 1, 1, 2], [1, 0, 2, 1]])  # 0 - 1 - 2
EDGE2 = torch.tensor([[0, 1], [1, 0]])
NO_EDGES = torch.zeros(2, 0, dtype=torch.long)
WIDTH = {"netmf": 8, "prone": 8, "spectral": 8, "degree": 1, "rwpe": 16, "lappe": 16}  # at dim=8


@pytest.mark.parametrize("kind", embed.EMBEDDINGS)
@pytest.mark.parametrize("graph", [(EDGE2, 2), (PATH3, 3), (NO_EDGES, 4), (NO_EDGES, 1), two_cliques(2)],
                         ids=["edge2", "path3", "no-edges", "one-node", "two-cliques"])
def test_node_inputs_keep_their_width_on_tiny_graphs(kind, graph):
    ei, n = graph
    for standardize in (False, True):
        x = embed.node_inputs(ei, n, kinds=[kind], dim=8, standardize=standardize)
        assert x.shape == (n, WIDTH[kind]) and x.dtype == torch.float32 and torch.isfinite(x).all()


def test_netmf_and_prone_pad_a_three_node_graph_with_zero_columns():
    # path 0-1-2, T = 1: M = vol/T * A_ij/(d_i d_j) = 4 A_ij / 2, so log max(M, 1) = log 2 * A. A has eigenvalues
    # ±sqrt 2 and 0, so the rank-2 factor (all a 3-node graph gives) has x x^T = |log2 A| = log2 sqrt2 * G.
    x = embed.netmf(PATH3, 3, dim=6, window=1).double()
    assert x.shape == (3, 6) and torch.equal(x[:, 2:], torch.zeros(3, 4, dtype=torch.float64))
    g = torch.tensor([[0.5, 0, 0.5], [0, 1, 0], [0.5, 0, 0.5]], dtype=torch.float64)
    assert torch.allclose(x @ x.T, np.log(2) * np.sqrt(2) * g, atol=1e-6)
    p = embed.prone(PATH3, 3, dim=6)
    assert p.shape == (3, 6) and torch.equal(p[:, 2:], torch.zeros(3, 4))
    assert torch.allclose(p.norm(dim=1), torch.ones(3), atol=1e-5)  # rows still unit length


def test_spectral_of_tiny_graphs_known_eigenvectors():
    # D^-1/2 A D^-1/2 of the path 0-1-2: eigenvalues 1, 0, -1 with vectors [1, √2, 1]/2, [1, 0, -1]/√2,
    # [1, -√2, 1]/2; a 3-node graph has 3 of them, the other dim - 3 columns are zero.
    x = embed.spectral(PATH3, 3, dim=5).double()
    r = 2 ** -0.5
    assert x.shape == (3, 5) and torch.equal(x[:, 3:], torch.zeros(3, 2, dtype=torch.float64))
    assert torch.allclose(x[:, 0], torch.tensor([0.5, r, 0.5], dtype=torch.float64), atol=1e-6)  # sign fixed
    assert torch.allclose(x[:, 1].abs(), torch.tensor([r, 0, r], dtype=torch.float64), atol=1e-6)
    assert torch.allclose(x[:, 2].abs(), torch.tensor([0.5, r, 0.5], dtype=torch.float64), atol=1e-6)
    # one edge (was "k must be greater than 0"): eigenvectors [1, 1]/√2 (eigenvalue 1), [1, -1]/√2 (-1)
    x = embed.spectral(EDGE2, 2, dim=4)
    assert torch.allclose(x, torch.tensor([[r, r, 0, 0], [r, -r, 0, 0]]), atol=1e-6)
    # isolated nodes get zero rows, a graph without edges is all zeros (was an ARPACK error)
    assert torch.equal(embed.spectral(EDGE2, 4, dim=3)[2:], torch.zeros(2, 3))
    assert torch.equal(embed.spectral(NO_EDGES, 4, dim=3), torch.zeros(4, 3))


@pytest.mark.parametrize("n", [2, 3, 16, 17, 18])
def test_lappe_gives_lap_k_columns_on_small_graphs(n):
    # a path of n nodes has n - 1 non-trivial Laplacian eigenvectors: that many columns, then zeros up to 16
    src = torch.arange(n - 1)
    ei = torch.stack([torch.cat([src, src + 1]), torch.cat([src + 1, src])])
    x = embed.structural_encodings(ei, n, kinds=["lappe"])
    assert x.shape == (n, 16) and torch.isfinite(x).all()
    filled = min(16, n - 1)
    assert (x[:, :filled].norm(dim=0) > 0.99).all() and torch.equal(x[:, filled:], torch.zeros(n, 16 - filled))


def test_lappe_of_a_path_known_eigenvectors():
    # normalised Laplacian of 0-1-2: eigenvalues 0, 1, 2; the PE skips the trivial one (sign arbitrary)
    x = embed.structural_encodings(PATH3, 3, kinds=["lappe"], lap_k=4).double()
    r = 2 ** -0.5
    assert torch.allclose(x[:, 0].abs(), torch.tensor([r, 0, r], dtype=torch.float64), atol=1e-6)
    assert torch.allclose(x[:, 1].abs(), torch.tensor([0.5, r, 0.5], dtype=torch.float64), atol=1e-6)
    assert torch.equal(x[:, 2:], torch.zeros(3, 2, dtype=torch.float64))


def test_netmf_large_method_on_a_tiny_graph():
    for ei, n in ((EDGE2, 2), (NO_EDGES, 3)):
        x = embed.netmf(ei, n, dim=4, method="large")
        assert x.shape == (n, 4) and torch.isfinite(x).all()
    assert torch.equal(embed.netmf(NO_EDGES, 3, dim=4, method="large"), torch.zeros(3, 4))


def test_tiny_graph_bad_sizes_messages():
    with pytest.raises(ValueError, match="node_inputs: num_nodes must be an integer ≥ 1.*got 0"):
        embed.node_inputs(NO_EDGES, 0, kinds=["lappe"])
    for fn in (embed.netmf, embed.prone, embed.spectral):
        with pytest.raises(ValueError, match=rf"{fn.__name__}: dim must be an integer ≥ 1, got 0"):
            fn(PATH3, 3, dim=0)
    with pytest.raises(ValueError, match="lap_k must be ≥ 1, got 0"):
        embed.structural_encodings(PATH3, 3, kinds=["lappe"], lap_k=0)
    with pytest.raises(ValueError, match=r"kinds must be a list of names, e.g. kinds=\['prone'\]"):
        embed.node_inputs(PATH3, 3, kinds="prone")


def test_standardize_keeps_round_off_columns_zero_on_a_tree():
    """A 100-node tree-like graph asked for 98 dimensions: NetMF's and ProNE's columns of zero singular values
    are round-off (norms near 1e-8); standardised they stay zero instead of becoming unit-variance noise."""
    import networkx as nx
    from torch_geometric.utils import to_undirected

    from gatbio.embed import node_inputs

    g = nx.barabasi_albert_graph(100, 1, seed=0)
    ei = to_undirected(torch.tensor(list(g.edges())).t())
    for kind in ("netmf", "prone"):
        raw = node_inputs(ei, 100, (kind,), dim=98)
        x = node_inputs(ei, 100, (kind,), dim=98, standardize=True)
        norms = raw.norm(dim=0)
        noise = norms < 1e-5 * norms.max()
        assert noise.any(), kind  # the graph does leave such columns
        assert (x[:, noise] == 0).all() and torch.allclose(x[:, ~noise].std(0), torch.ones(int((~noise).sum())))
