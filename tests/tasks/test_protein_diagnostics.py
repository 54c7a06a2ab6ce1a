"""gatbio.tasks.protein_diagnostics: tables from per-seed results, and one real yeast unit that resumes."""

import pytest

from gatbio.tasks import protein_diagnostics as diag


def test_summary_means_and_stds_over_seeds():
    results = [{"dataset": "toy", "fraction": 0.5, "seed": 0, "rows": {"a": {"accuracy": 0.2, "macro_f1": 0.1},
                                           "b, γ = 0": {"accuracy": 0.5, "macro_f1": 0.4}}},
               {"dataset": "toy", "fraction": 0.5, "seed": 1, "rows": {"a": {"accuracy": 0.4, "macro_f1": 0.3},
                                           "b, γ = 0": {"accuracy": 0.5, "macro_f1": 0.6}}}]
    text = diag.summary(results)
    assert "### toy, 50% labelled (mean ± std over seeds 0–1; std of the sample (n − 1); n = runs)" in text
    assert "| model | n | accuracy | macro_f1 |" in text
    # sample std (ddof 1), as every summary of the project: std(0.2, 0.4) = 0.1414
    assert "| a | 2 | 0.300 ± 0.141 | 0.200 ± 0.141 |" in text
    assert "| b, γ = 0 | 2 | 0.500 ± 0.000 | 0.500 ± 0.141 |" in text


def test_a_unit_runs_on_one_thread_and_restores_the_callers(tmp_path, monkeypatch):
    """As the protocol's units (threads: 1): torch and BLAS on one thread, whatever the process had (with --jobs 1
    the unit runs in the main process, whose BLAS would use every core), and the caller's threads back after."""
    import torch
    from threadpoolctl import threadpool_info

    seen = []

    def record(*a):
        seen.append((torch.get_num_threads(), {i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"}))
        return {"dataset": "toy", "seed": 0, "fraction": 0.5, "rows": {}}

    monkeypatch.setattr(diag, "_unit", record)
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        diag.unit("toy", 0.5, 0, tmp_path)
        assert seen == [(1, {1})] and torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)
    assert (tmp_path / "runs" / "toy_f0.50_s0.json").exists()


@pytest.mark.slow
def test_yeast_unit_has_every_row_and_resumes(data_root, tmp_path, monkeypatch):
    res = diag.unit("yeast-bu2003", 0.5, 0, tmp_path)
    rows = res["rows"]
    for name in ("lr_netmf", "lr_netmf (fit part only)", "lr on netmf matrix rows (T=3)", "gat", "gat (3 inits)", "gatv2 (3 inits)", "mlp",
                 "lr_ens, γ on validation", "gat_ens, γ = 0", "gat_ens (3 inits), γ on validation"):
        assert 0 < rows[name]["accuracy"] < 1 and 0 < rows[name]["macro_f1"] < 1, name
    assert rows["gat_ens, γ on validation"]["gamma"] in diag.pr.PRIOR_POWERS
    assert rows["gat"] != rows["gat (3 inits)"]  # three initialisations are not one
    monkeypatch.setattr(diag, "_setup", lambda ds: pytest.fail("a finished unit must be read back, not rerun"))
    assert diag.unit("yeast-bu2003", 0.5, 0, tmp_path) == res


@pytest.mark.parametrize("datasets,message", [
    (["shs27k"], "--datasets shs27k: not a dataset these diagnostics run on (single-graph protein-function datasets "
                 "with node labels: yeast-bu2003, node2vec-ppi)"),
    (["yeast-bu2003", "ppi-tissues"], "--datasets ppi-tissues: not a dataset these diagnostics run on"),
    (["ppi"], "--datasets ppi: not a dataset"),
    (["nope"], "unknown dataset 'nope' (known: yeast-bu2003, node2vec-ppi)"),
    (["yeast-bu2003", "yeast-bu2003"], "--datasets yeast-bu2003 yeast-bu2003: give each dataset once"),
])
def test_check_takes_only_the_single_graph_labelled_datasets(datasets, message, tmp_path):
    """shs27k (a pair table: a TypeError deep in its loader) and ppi-tissues (several graphs: an AttributeError) were
    let through; the error lists the datasets the diagnostics run on."""
    with pytest.raises(ValueError) as err:
        diag.check(datasets, [0], 1, tmp_path / "out", [0.5])
    assert message in str(err.value)


@pytest.mark.parametrize("seeds,fractions,message", [([0, 0], [0.5], "--seeds 0 0: give each seed once"),
                                                     ([0, 1, 1], [0.5], "--seeds 0 1 1: give each seed once"),
                                                     ([0], [0.5, 0.5], "--fractions 0.5 0.5: give each fraction")])
def test_check_refuses_repeated_seeds_and_fractions(seeds, fractions, message, tmp_path):
    """A repeated seed is the same split again: it would count twice in the means over seeds."""
    with pytest.raises(ValueError, match=message):
        diag.check(["yeast-bu2003"], seeds, 1, tmp_path / "out", fractions)
    diag.check(["yeast-bu2003", "node2vec-ppi"], [0, 1], 1, tmp_path / "out", [0.5, 0.9])  # the good ones pass
