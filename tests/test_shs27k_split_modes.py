"""experiments/shs27k_split_modes.py (mode mixes of saved splits, their TV distance, its rank correlation with the
scores), experiments/shs27k_paired.py (paired differences between models), experiments/shs27k_tables.py (the result
tables), the interolog grid of experiments/shs27k_impute_sweep.py, the validation thresholds of
experiments/shs27k_thresholds.py and the triadic scores of experiments/shs27k_triadic.py."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import experiment_script


@pytest.fixture(scope="module")
def script():
    return experiment_script("shs27k_split_modes")


def test_split_modes_of_a_known_split(script, data_root, tmp_path, monkeypatch):
    from gatbio.data import load

    monkeypatch.setenv("GATBIO_DATA", str(data_root))
    y = load("shs27k", root=data_root).pair_modes.numpy().astype(float)
    binding = y[:, 1] > 0
    train = np.flatnonzero(binding)[:50].tolist()  # every training pair has binding
    test = np.flatnonzero(~binding)[:30].tolist()  # no test pair has it
    (tmp_path / "splits").mkdir()
    (tmp_path / "splits" / "bfs_s7.json").write_text(json.dumps({"kind": "bfs", "seed": 7, "train": train,
                                                                 "test": test}))
    row = script.split_modes(tmp_path).iloc[0]
    assert (row["split"], row["seed"]) == ("bfs", 7)
    assert row["binding train"] == 1.0 and row["binding test"] == 0.0
    tr, te = y[train], y[test]
    tv = 0.5 * np.abs(tr.sum(0) / tr.sum() - te.sum(0) / te.sum()).sum()
    assert row["TV distance"] == pytest.approx(tv, abs=5e-4) and row["TV distance"] > 0.2
    assert row["modes/pair test"] == pytest.approx(te.sum(1).mean(), abs=5e-4)


def test_no_split_files_is_a_clear_error(script, tmp_path):
    with pytest.raises(SystemExit, match="no split files"):
        script.split_modes(tmp_path)


def _write_run(root, split, seed, model, f1, **metrics):
    p = root / "runs" / split / f"s{seed}" / "train" / f"{model}.json"
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(json.dumps({"split": split, "seed": seed, "model": model, "micro_f1": f1, **metrics}))


def test_shift_correlation_ranks_distance_against_score(script, tmp_path):
    import pandas as pd

    table = pd.DataFrame({"split": ["bfs", "bfs", "dfs", "random"], "seed": [0, 1, 0, 0],
                          "TV distance": [0.1, 0.3, 0.2, 0.01]})
    for (split, seed), f1 in {("bfs", 0): 0.7, ("bfs", 1): 0.4, ("dfs", 0): 0.6}.items():
        _write_run(tmp_path, split, seed, "rule", f1)  # larger shift, lower score: rho = -1
        _write_run(tmp_path, split, seed, "up", 1 - f1)  # the reverse: rho = +1
    out = script.shift_correlation(tmp_path, ["rule", "up"], table).set_index("model")
    assert out.loc["rule", "spearman_rho"] == -1.0 and out.loc["up", "spearman_rho"] == 1.0
    assert out.loc["rule", "splits"] == 3  # the random split is left out
    with pytest.raises(SystemExit, match="no result of model 'other'"):
        script.shift_correlation(tmp_path, ["other"], table)


def test_the_number_of_region_splits_is_checked_once(script, tmp_path, monkeypatch, capsys):
    """main counted the BFS/DFS split files before the data load, then shift_correlation counted the table's
    regions again (once per model); now one count, of the splits whose scores were read, before the data load."""
    import pandas as pd

    table = pd.DataFrame({"split": ["bfs", "bfs", "dfs", "random"], "seed": [0, 1, 0, 0],
                          "TV distance": [0.1, 0.3, 0.2, 0.01]})
    (tmp_path / "splits").mkdir()
    for (split, seed), f1 in {("bfs", 0): 0.7, ("bfs", 1): 0.4, ("dfs", 0): 0.6, ("random", 0): 0.9}.items():
        (tmp_path / "splits" / f"{split}_s{seed}.json").write_text("{}")
        _write_run(tmp_path, split, seed, "rule", f1)
        _write_run(tmp_path, split, seed, "up", 1 - f1)
    counts = []
    check = script.check_regions
    monkeypatch.setattr(script, "check_regions", lambda results, n: counts.append(n) or check(results, n))
    monkeypatch.setattr(script, "split_modes", lambda results: counts.append("table") or table)
    assert script.main([str(tmp_path), "--scores", "rule", "up"]) == 0
    assert counts == [3, "table"]  # counted once, before the table (the data load)
    out = capsys.readouterr().out.splitlines()
    assert out[-2].split() == ["rule", "3", "-1.0", "0.0"] and out[-1].split() == ["up", "3", "1.0", "0.0"]
    counts.clear()
    assert script.shift_correlation(tmp_path, ["rule", "up"], table)["spearman_rho"].tolist() == [-1.0, 1.0]
    assert counts == [3]  # from Python: once, not once per model


def test_shift_correlation_of_a_constant_score_is_empty_and_said(script, tmp_path, capsys):
    """Every split scoring the same gave scipy's ConstantInputWarning and 'spearman_rho nan'."""
    import warnings

    import pandas as pd

    table = pd.DataFrame({"split": ["bfs", "bfs", "dfs"], "seed": [0, 1, 0], "TV distance": [0.1, 0.3, 0.2]})
    for split, seed in [("bfs", 0), ("bfs", 1), ("dfs", 0)]:
        _write_run(tmp_path, split, seed, "flat", 0.5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no scipy warning
        out = script.shift_correlation(tmp_path, ["flat"], table).set_index("model")
    assert out.loc["flat", "splits"] == 3 and pd.isna(out.loc["flat", "spearman_rho"])
    assert "every split's test micro-F1 is the same" in capsys.readouterr().err


def test_paired_differences_per_split_and_seed(tmp_path):
    paired = experiment_script("shs27k_paired")
    for seed, (ref, a) in enumerate([(0.60, 0.65), (0.50, 0.45), (0.70, 0.80)]):
        _write_run(tmp_path, "bfs", seed, "ref", ref)
        _write_run(tmp_path, "bfs", seed, "a", a)
    _write_run(tmp_path, "bfs", 3, "ref", 0.9)  # a seed without "a": left out of the pairs
    row = paired.paired(tmp_path, "ref").iloc[0]
    assert (row["split"], row["model"], row["seeds"], row["ahead"]) == ("bfs", "a", 3, 2)
    assert row["delta_mean"] == pytest.approx(np.mean([0.05, -0.05, 0.10]))
    assert row["delta_std"] == pytest.approx(np.std([0.05, -0.05, 0.10], ddof=1))
    assert row["per_seed"] == [0.05, -0.05, 0.1]
    with pytest.raises(SystemExit, match="no results of the reference model 'b'"):
        paired.paired(tmp_path, "b")
    with pytest.raises(SystemExit, match="no 'train' results"):
        paired.paired(tmp_path / "empty", "ref")


def test_paired_and_against_count_left_out_seeds_one_way(tmp_path, monkeypatch):
    """The seeds left out of the differences were counted from a pivot of the runs (paired) and from an outer
    merge (--against); now one count of both: the seeds with a result on one side only."""
    paired = experiment_script("shs27k_paired")
    here, there = tmp_path / "here", tmp_path / "there"
    for seed in (0, 1, 2):
        _write_run(here, "bfs", seed, "ref", 0.5)
        _write_run(there, "bfs", seed, "a", 0.4)
    for seed in (0, 3, 4):  # seeds 1, 2 without "a" here (left out), 3 and 4 without "ref" (left out)
        _write_run(here, "bfs", seed, "a", 0.6)
    _write_run(here, "bfs", 5, "a", None)  # a run without a value is there: left out of the differences only
    _write_run(here, "bfs", 5, "ref", 0.5)
    monkeypatch.setattr(paired, "same_split", lambda *a: None)  # no split files here (checked elsewhere)
    calls = []
    count = paired._left_out
    monkeypatch.setattr(paired, "_left_out", lambda *a: calls.append(a[2:]) or count(*a))
    row = paired.paired(here, "ref").iloc[0]
    assert (row["seeds"], row["left_out"]) == (1, 4)  # seed 0 paired; 1, 2, 3, 4 left out; 5 has no value
    row = paired.across(here, there, ["a"]).iloc[0]  # "a" here (0, 3, 4, 5) and there (0, 1, 2)
    assert (row["seeds"], row["left_out"]) == (1, 5)
    assert calls == [("bfs", "a", "ref"), ("bfs", "a", "a")]


def test_paired_differences_against_another_folder(tmp_path, capsys):
    """--against: each model minus the same model of another folder, on the seeds both have."""
    paired = experiment_script("shs27k_paired")
    here, there = tmp_path / "here", tmp_path / "there"
    for seed, (h, t) in enumerate([(0.70, 0.60), (0.50, 0.55)]):
        _write_run(here, "dfs", seed, "m", h)
        _write_run(there, "dfs", seed, "m", t)
    _write_run(there, "dfs", 2, "m", 0.9)  # a seed only there: left out
    _write_run(there, "dfs", 0, "other", 0.1)  # a model only there: not asked for
    for root in (here, there):  # the same splits (checked: tests/test_shs27k_checks.py)
        (root / "splits").mkdir()
        for seed in (0, 1):
            (root / "splits" / f"dfs_s{seed}.json").write_text(json.dumps({"num_pairs": 9, "test": [seed, 5]}))
    row = paired.across(here, there).iloc[0]
    assert (row["model"], row["seeds"], row["ahead"], row["per_seed"]) == ("m", 2, 1, [0.1, -0.05])
    assert row["ref"] == f"m of {there}"
    assert paired.main([str(here), "--against", str(there)]) == 0 and "+0.025" in capsys.readouterr().out
    _write_run(here, "dfs", 0, "new", 0.3)
    with pytest.raises(SystemExit, match=r"no results of \['new'\]"):
        paired.across(here, there)


def test_paired_differences_of_another_metric(tmp_path):
    paired = experiment_script("shs27k_paired")
    for seed, (ref, a) in enumerate([(0.40, 0.47), (0.50, 0.48)]):
        _write_run(tmp_path, "dfs", seed, "ref", 0.6, micro_f1_ns=ref, micro_f1_bs=None)
        _write_run(tmp_path, "dfs", seed, "a", 0.6, micro_f1_ns=a, micro_f1_bs=None)
    row = paired.paired(tmp_path, "ref", metric="micro_f1_ns").iloc[0]
    assert row["per_seed"] == [0.07, -0.02] and row["ahead"] == 1
    assert paired.paired(tmp_path, "ref", metric="micro_f1")["delta_mean"].iloc[0] == 0
    assert paired.paired(tmp_path, "ref", metric="micro_f1_bs")["seeds"].iloc[0] == 0  # no BS pairs: no pairs
    with pytest.raises(SystemExit, match="--metric 'recall': not a metric of the results"):
        paired.paired(tmp_path, "ref", metric="recall")


def test_tables_give_mean_std_per_split_model_and_graph(tmp_path):
    tables = experiment_script("shs27k_tables")
    for seed, (f1, f1_all) in enumerate([(0.6, 0.7), (0.8, 0.9)]):
        common = {"macro_f1": 0.5, "micro_f1_bs": None, "micro_f1_es": f1, "micro_f1_ns": 0.3, "n_bs": 0,
                  "n_es": 10 + seed, "n_ns": 4, "n_test": 14 + seed, "seconds": 2.0 + seed, "cpu_seconds": 1.0}
        _write_run(tmp_path, "bfs", seed, "gat", f1, **common)
        p = tmp_path / "runs" / "bfs" / f"s{seed}" / "all" / "gat.json"
        p.parent.mkdir(parents=True)
        p.write_text(json.dumps({"split": "bfs", "seed": seed, "model": "gat", "graph": "all", "micro_f1": f1_all}))
    for p in (tmp_path / "runs").glob("*/*/train/*.json"):
        p.write_text(json.dumps({**json.loads(p.read_text()), "graph": "train"}))
    text = tables.tables(tmp_path)
    assert "#### bfs (test pairs per seed, mean: BS 0, ES 10, NS 4, of 14)" in text  # 10.5 and 14.5 round to even
    assert "| `gat` | 0.700 ± 0.141 | 0.500 ± 0.000 | – | 0.700 ± 0.141 | 0.300 ± 0.000 | 0.800 ± 0.141 | 2 (1) |" in text
    with pytest.raises(SystemExit, match="no results"):
        tables.tables(tmp_path / "empty")


def test_interolog_sweep_grid_starts_with_the_imputed_rule():
    import torch

    sweep = experiment_script("shs27k_impute_sweep")
    sims = {k: torch.rand(30, 30).numpy() for k in (3, 4, 5)}
    settings = list(sweep._settings(sims, interolog=True))
    cols, kw = settings[0]
    assert cols == {"kmer": "-", "homologues": 0, "shrink": "-"} and "homologue_sets" not in kw
    assert len(settings) == 1 + 3 * len(sweep.HOMOLOGUES) * len(sweep.SHRINKS)
    cols, kw = settings[1]
    assert cols == {"kmer": 3, "homologues": 1, "shrink": 0.01} and kw["homologue_sets"][0].shape == (30, 2)
    assert kw["neighbors"] == 10 and kw["shrink"] == 0.01
    plain = list(sweep._settings(sims, interolog=False))
    assert plain[0][0] == {"kmer": "-", "neighbors": 0}


def test_per_seed_rows_give_each_models_score_and_the_choice(tmp_path):
    tables = experiment_script("shs27k_tables")
    for seed, (a, b) in enumerate([(0.6, 0.7), (0.8, 0.5)]):
        _write_run(tmp_path, "bfs", seed, "a", a, graph="train")
        _write_run(tmp_path, "bfs", seed, "b", b, graph="train")
        chosen = "a" if seed else "b"
        _write_run(tmp_path, "bfs", seed, "gat", max(a, b) if seed == 0 else a, graph="train", chosen=chosen,
                   candidates_val_micro_f1={"a": 0.1 * seed, "b": 0.05})
    out = tables.per_seed(tmp_path, "bfs")
    assert out.loc[0, "a"] == 0.6 and out.loc[1, "b"] == 0.5
    assert out.loc[0, "gat chose"] == "b" and out.loc[1, "gat chose"] == "a" and out.loc[1, "val a"] == 0.1
    with pytest.raises(SystemExit, match="no 'dfs' results"):
        tables.per_seed(tmp_path, "dfs")


def test_interolog_coverage_counts_test_pairs_with_a_known_homologous_pair(data_root, tmp_path, monkeypatch):
    """Test pair (a, b) whose own pair is among the training pairs has an interolog (itself: weight 1 x 1); the
    coverage over a split is the fraction of such test pairs when no other homologous pair is known."""
    from gatbio.data import load

    monkeypatch.setenv("GATBIO_DATA", str(data_root))
    sweep = experiment_script("shs27k_impute_sweep")
    n = load("shs27k", root=data_root, features=()).pairs.size(0)
    (tmp_path / "splits").mkdir()
    # the test pairs are also training pairs here (not a real split): every one of them has an interolog
    (tmp_path / "splits" / "bfs_s0.json").write_text(json.dumps({"train": list(range(n)), "test": [0, 1, 2, 3]}))
    row = sweep.coverage(tmp_path, ("bfs",)).iloc[0]
    assert row["with interolog (all)"] == 1.0 and row["seeds"] == 1


def test_oracle_scores_leave_the_scored_pair_out():
    """Pairs (0, 1) [1, 0], (0, 2) [0, 1], (1, 2) [1, 1]; scoring (0, 1) with the others known: profiles of 0 and 1
    without it are [0, 1] and [1, 1] (mean [0.5, 1]); homologues {0, 2} (2 weighs 0.5) and {1, 2} (0.4) give the
    interologs (0, 2) (weight 1 x 0.4) and (2, 1) (0.5 x 1), never (0, 1) itself: ([0.5, 0.9] + 0.1 [0.5, 1]) / 1.0."""
    import numpy as np
    import torch

    sweep = experiment_script("shs27k_impute_sweep")
    pairs = np.array([[0, 1], [0, 2], [1, 2]])
    modes = np.array([[1, 0], [0, 1], [1, 1]])
    index = torch.tensor([[0, 2], [1, 2], [2, 0]])
    weight = torch.tensor([[1.0, 0.5], [1.0, 0.4], [1.0, 0.3]])
    rule, inter = sweep.oracle_scores(pairs, modes, [0], index, weight, 0.1)
    assert np.allclose(rule, [[0.5, 1.0]]) and np.allclose(inter, [[0.55, 1.0]])
    rule2, _ = sweep.oracle_scores(pairs, modes, [0, 2], index, weight, 0.1)
    assert np.allclose(rule2[1], [0.5, 0.5])  # (1, 2): profiles of 1 ([1, 0]) and 2 ([0, 1]) without it


def test_similarity_embedding_separates_two_families_and_round_trips(tmp_path):
    """Two sequence families (different alphabets): the first spectral coordinate splits them; the file written is
    what read_protein_features reads back."""
    import numpy as np

    from gatbio.data.sequence import read_protein_features

    emb = experiment_script("similarity_embedding")
    rng = np.random.default_rng(0)
    seqs = ["".join(rng.choice(list("AGVILFP" if i % 2 else "DEKRHNQ"), 50)) for i in range(12)]
    x = emb.similarity_embedding(seqs, how="kmer", dim=2, neighbors=3)
    assert x.shape == (12, 2)
    first = x[:, 0]
    assert (np.sign(first[::2]) == np.sign(first[0])).all() and (np.sign(first[1::2]) == -np.sign(first[0])).all()
    names = [f"P{i}" for i in range(12)]
    emb.write_features(tmp_path / "e.tsv", names, x)
    back, cols = read_protein_features(tmp_path / "e.tsv", names)
    assert cols == ["feature_1", "feature_2"] and np.allclose(back, x, rtol=1e-5, atol=1e-6)


def test_compare_sets_a_summary_beside_another_runs_printed_tables(tmp_path):
    tables = experiment_script("shs27k_tables")
    import pandas as pd

    pd.DataFrame({"split": ["bfs", "bfs"], "graph": ["train", "train"], "model": ["gat", "gin"],
                  "n": [5, 5], "micro_f1_mean": [0.60, 0.40], "micro_f1_std": [0.03, 0.04]}
                 ).to_csv(tmp_path / "summary.csv", index=False)
    log = tmp_path / "gpu.log"
    log.write_text("gatbio: device cuda:0\nintro text\n\n## bfs\n\n| graph | model | n | micro_f1 | macro_f1 |\n"
                   "|---|---|---|---|---|\n| train | gat | 5 | 0.640 ± 0.000 | 0.5 ± 0.1 |\n"
                   "| train | gin | 5 | 0.400 ± 0.040 | 0.3 ± 0.1 |\n| all | gin | 5 | 0.5 ± 0.1 | 0.4 ± 0.1 |\n")
    d = tables.compare(tmp_path, log).set_index("model")
    assert list(d.index) == ["gat", "gin"]  # rows in both only
    assert d.loc["gat", "delta"] == pytest.approx(0.04) and d.loc["gat", "z"] == pytest.approx(0.04 / (0.03 / 2 ** 0.5), abs=1e-4)
    assert d.loc["gin", "delta"] == 0 and d.loc["gin", "z"] == 0
    log.write_text("## bfs\n| graph | model | n | micro_f1 |\n|---|---|---|---|\n| train | gat | 5 | n/a |\n")
    with pytest.raises(SystemExit, match=r"gpu.log:4: micro_f1 'n/a'"):
        tables.compare(tmp_path, log)
    log.write_text("nothing\n")
    with pytest.raises(SystemExit, match="no summary table"):
        tables.compare(tmp_path, log)


def test_thresholds_are_chosen_on_validation_only(data_root, tmp_path, monkeypatch):
    """experiments/shs27k_thresholds.py: probabilities that need a threshold of 0.3 on validation pairs get it
    (global and per mode), the test pairs are scored with it, and 0.5 stays the ``fixed`` column."""
    from gatbio.data import load

    th = experiment_script("shs27k_thresholds")
    monkeypatch.setenv("GATBIO_DATA", str(data_root))
    y = load("shs27k", features=()).pair_modes.numpy()
    val, test = np.arange(0, 200), np.arange(200, 400)

    def proba(idx):  # positives at 0.4, negatives at 0.1
        return np.where(y[idx] > 0, 0.4, 0.1).astype(np.float32)

    run = tmp_path / "runs" / "bfs" / "s3" / "train"
    run.mkdir(parents=True)
    np.savez(run / "m.proba.npz", val_pairs=val, val_proba=proba(val), test_pairs=test, test_proba=proba(test))
    assert np.all(th.per_mode_thresholds(y[val], proba(val)) < 0.4)
    row = th.compare(tmp_path, ["m"]).iloc[0]
    assert (row["split"], row["seed"]) == ("bfs", 3)
    assert row["fixed"] == 0.0 and row["global"] == 1.0 and row["per_mode"] == 1.0  # 0.4 < 0.5: nothing predicted
    assert 0.0 < row["sets"] <= 1.0 and row["lambda"] in th.LAMBDAS  # a combination is always predicted
    assert "+1.000" in th.summary(th.compare(tmp_path, ["m"])).iloc[0]["global - fixed"]
    with pytest.raises(SystemExit, match="no other.proba.npz"):
        th.compare(tmp_path, ["other"])


def test_threshold_free_decoding_picks_a_seen_mode_combination():
    """experiments/shs27k_thresholds.py ``sets``: the likeliest combination among those seen, with the prior's weight."""
    th = experiment_script("shs27k_thresholds")
    y_fit = np.array([[1, 1, 0]] * 1 + [[0, 0, 1]] * 99)
    sets, log_prior = th.label_sets(y_fit)
    assert sets.tolist() == [[0, 0, 1], [1, 1, 0]]
    assert np.allclose(np.exp(log_prior), [0.99, 0.01])
    p = np.array([[0.9, 0.2, 0.55],   # 0.5 would predict [1, 0, 1], a combination no pair has
                  [0.1, 0.3, 0.6]])
    # log-likelihoods row 0: [1,1,0] -2.51 against [0,0,1] -3.12; row 1: [0,0,1] -0.97 against [1,1,0] -4.42
    assert th.decode_sets(p, sets, log_prior).tolist() == [[1, 1, 0], [0, 0, 1]]
    # the prior (log 0.99 against log 0.01, a difference of 4.6) outweighs row 0's likelihood ratio (0.61)
    assert th.decode_sets(p, sets, log_prior, lam=1.0).tolist() == [[0, 0, 1], [0, 0, 1]]
    assert th.decode_sets(p, sets, log_prior, lam=0.1).tolist() == [[1, 1, 0], [0, 0, 1]]


@pytest.mark.parametrize("argv,message", [
    (["--dataset", "nope"], "--dataset nope: not a dataset with protein sequences"),
    (["--dataset", "yeast-bu2003", "--similarity", "kmer"], "--dataset yeast-bu2003: not a dataset with protein"),
    (["--dim", "0"], "--dim 0: give at least 1"),
    (["--neighbors", "0", "--similarity", "kmer"], "--neighbors 0: give at least 1"),
])
def test_similarity_embedding_checks_its_arguments_before_any_work(argv, message, tmp_path, monkeypatch, capsys):
    emb = experiment_script("similarity_embedding")
    monkeypatch.setattr(emb, "similarity_embedding", lambda *a, **k: pytest.fail("the work began"))
    with pytest.raises(SystemExit) as exit_:
        emb.main([str(tmp_path / "e.tsv"), *argv])
    assert exit_.value.code == 2 and message in capsys.readouterr().err


def test_thresholds_help_is_whole_and_names_the_defaults(capsys):
    """experiments/shs27k_thresholds.py --help: all four ways (not only the first paragraph), and the options'
    defaults."""
    with pytest.raises(SystemExit) as exit_:
        experiment_script("shs27k_thresholds").main(["--help"])
    out = capsys.readouterr().out
    assert exit_.value.code == 0 and "four ways" in out
    assert all(f"- {way}:" in out for way in ("fixed", "global", "per_mode", "sets")) and "``" not in out
    assert "(default: gat_region gat_ppi gat_mean)" in out and "(default: train)" in out


def test_thresholds_name_a_folder_that_is_not_a_results_folder_first(tmp_path):
    th = experiment_script("shs27k_thresholds")
    with pytest.raises(SystemExit, match="missing: no such folder"):
        th.compare(tmp_path / "missing", ["m"])
    with pytest.raises(SystemExit, match="not a results folder .*no runs/"):
        th.compare(tmp_path, ["m"])
    (tmp_path / "runs" / "bfs" / "s0" / "train").mkdir(parents=True)
    (tmp_path / "runs" / "bfs" / "s0" / "train" / "m.proba.npz").write_bytes(b"")
    with pytest.raises(SystemExit, match=r"no other.proba.npz .*models with probabilities there: m$"):
        th.compare(tmp_path, ["m", "other"])  # before the data load


def test_split_modes_checks_the_score_models_before_the_table(script, tmp_path, monkeypatch, capsys):
    _write_run(tmp_path, "bfs", 0, "rule", 0.5)
    monkeypatch.setattr(script, "split_modes", lambda *a: pytest.fail("the table was made"))
    with pytest.raises(SystemExit, match=r"no result of model\(s\) 'nope' in .*; models there: rule$"):
        script.main([str(tmp_path), "--scores", "rule", "nope"])
    assert capsys.readouterr().out == ""


def test_impute_sweep_says_its_std_is_the_population_std(tmp_path, monkeypatch, capsys):
    import pandas as pd

    sweep = experiment_script("shs27k_impute_sweep")
    (tmp_path / "splits").mkdir()
    (tmp_path / "splits" / "bfs_s0.json").write_text("{}")
    monkeypatch.setattr(sweep, "oracle", lambda *a: pd.DataFrame({"split": ["bfs"], "x": ["0.5 ± 0.1"]}))
    sweep.main([str(tmp_path), "--oracle", "--splits", "bfs"])
    assert "std over the seeds (ddof=0, population" in capsys.readouterr().out.splitlines()[0]


def test_triadic_scores_of_a_known_triangle_and_the_blend():
    """experiments/shs27k_triadic.py: pair (0, 1) shares neighbours 2 and 3; its score is the mean over them of the
    two edges' modes halved; pair (0, 4) shares none (score 0, count 0); a repeated pair takes its modes' union."""
    tri = experiment_script("shs27k_triadic")
    pairs = np.array([[0, 2], [2, 1], [0, 3], [3, 1], [3, 1], [4, 1]])
    modes = np.array([[1, 0], [1, 1], [0, 0], [1, 0], [0, 1], [1, 1]], dtype=float)
    score, count = tri.triadic_scores(pairs, modes, list(range(6)), np.array([[0, 1], [0, 4]]), 5)
    # w = 2: ([1,0] + [1,1]) / 2 = [1, .5]; w = 3: ([0,0] + [1,1]) / 2 = [.5, .5]; their mean
    np.testing.assert_allclose(score, [[0.75, 0.5], [0, 0]])
    assert count.tolist() == [2, 0]
    rule = np.full((2, 2), 0.2)
    np.testing.assert_allclose(tri.blend(rule, score, count, 0.5, 0), [[0.475, 0.35], [0.2, 0.2]])
    np.testing.assert_allclose(tri.blend(rule, score, count, 0.5, 2)[0], 0.75 * rule[0] + 0.25 * score[0])
