"""gatbio.data.synthetic: the STRING-like generator's properties on small sizes, and the files it writes."""

import numpy as np
import pytest
import torch
from conftest import experiment_script

from gatbio.data.synthetic import string_like, write_string_like


def test_exact_sizes_simple_graph_and_label_fraction():
    g = string_like(600, 12_000, num_labels=8, labelled_fraction=0.4, seed=1)
    assert g.edges.shape == (6_000, 2) and g.num_nodes == 600 and g.labels.shape == (600, 8)
    assert (g.edges[:, 0] < g.edges[:, 1]).all()  # no self-loops, each interaction once
    assert len(np.unique(g.edges[:, 0] * 600 + g.edges[:, 1])) == 6_000  # no repeated pair
    assert g.labels.any(axis=1).sum() == 240  # exactly 40 % annotated
    assert (g.labels[np.arange(600), g.community] == g.labels.any(axis=1)).all()  # own community's function


def test_heavy_tailed_degrees_unlike_a_uniform_random_graph():
    g = string_like(2_000, 100_000, num_labels=10, seed=0)
    deg = g.degree()
    assert deg.sum() == 100_000
    # an Erdos-Renyi graph of the same density (mean 50) has max / median about 1.5 and no node above 2x the
    # median; the generated one has hubs with many times the median degree
    assert deg.max() > 8 * np.median(deg)
    assert (deg > 4 * np.median(deg)).mean() > 0.02
    er = np.random.default_rng(0).binomial(1999, 50 / 1999, 2000)
    assert er.max() < 2 * np.median(er)


def test_functions_follow_the_interactions():
    g = string_like(1_000, 20_000, num_labels=10, within=0.5, seed=0)
    u, v = g.edges.T
    same = (g.community[u] == g.community[v]).mean()
    chance = np.sum((np.bincount(g.community, minlength=10) / 1_000) ** 2)
    assert same > 2 * chance


def test_deterministic_for_a_seed():
    a, b, c = (string_like(300, 4_000, num_labels=5, seed=s) for s in (7, 7, 8))
    assert np.array_equal(a.edges, b.edges) and np.array_equal(a.labels, b.labels) and a.names == b.names
    assert not np.array_equal(a.edges, c.edges)


def test_bad_sizes_are_refused():
    with pytest.raises(ValueError, match="need more than 10 proteins"):
        string_like(10, 100)
    with pytest.raises(ValueError, match="even number"):
        string_like(100, 101)


def test_files_read_back_with_the_protein_predict_readers(tmp_path):
    from gatbio.tasks.protein_cli import read_labels, read_network

    g = string_like(400, 6_000, num_labels=6, seed=2)
    write_string_like(g, tmp_path / "e.txt", tmp_path / "l.txt")
    data = read_labels(read_network(str(tmp_path / "e.txt"), "edgelist", False, None), str(tmp_path / "l.txt"),
                       False)
    assert data.edge_index.size(1) == 6_000  # both directions of 3,000 interactions
    idx = {n: i for i, n in enumerate(g.names)}
    order = torch.tensor([idx[str(n)] for n in data.node_names])
    assert int(data.y.sum()) == int(g.labels[order.numpy()].sum())
    assert (data.y.sum(1) > 0).sum() == 160


@pytest.mark.slow
def test_bench_string_scale_runs_predict_above_the_dense_threshold(tmp_path, capsys):
    # 9,000 proteins > 8,000: protein predict must take the bounded-memory NetMF and say so
    bench = experiment_script("bench_string_scale")
    report = bench.run(9_000, 200_000, 20, 0.4, seed=0, epochs=2, out_dir=tmp_path, device="cpu")
    assert report["returncode"] == 0, report.get("stderr_tail")
    assert report["device"] == "gatbio: device cpu (asked for)" and "--device cpu" in report["command"]
    assert report["embedding"] == "embedding: prone + netmf-large (9,000 nodes > 8,000: bounded memory)"
    assert report["predict_peak_rss_gb"] < 4  # the dense NetMF alone would hold 9,000^2 float64 = 0.65 GB twice
    # predict's stderr is passed through as it comes (a run cut at a time limit keeps its log)
    err = capsys.readouterr().err
    assert "bench_string_scale: generated 200,000 directed edges" in err and "gatbio: device cpu (asked for)" in err
    assert (tmp_path / "predictions.csv").stat().st_size > 0
