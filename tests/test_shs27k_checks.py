"""What the experiments/shs27k_*.py scripts refuse or survive: a results folder of another dataset (scored with
its own pairs, or refused when its splits point into other data), damaged run, split and probability files (one
line naming the file), splits that differ between two folders (``shs27k_paired.py --against``), a one-seed summary
(``± –``), a split without training-graph runs, unknown metrics, rule models in the threshold comparison, and
repeated or negative seeds (``shs27k_triadic.py``)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import experiment_script, write_pair_files

MODES = ("activation", "binding", "catalysis", "expression", "inhibition", "ptmod", "reaction")


@pytest.fixture
def folder(tmp_path):
    """A results folder of ``dataset: files`` (30 proteins, 80 pairs; modes by the proteins' families) with its
    config.yaml and a saved BFS split of seed 0 that records the pair table's digest; ``(out, cfg, data, split)``."""
    from gatbio.config import save_config
    from gatbio.data.pair_splits import pair_split
    from gatbio.results import write_json
    from gatbio.tasks import protein_interactions as pi

    write_pair_files(tmp_path, n=30, n_pairs=80, seq_len=40, seed=1, score=500)
    out = tmp_path / "out"
    cfg = pi.load(None, [f"actions={tmp_path / 'actions.txt'}", f"sequences={tmp_path / 'seqs.tsv'}",
                         "dataset=files", "features=[aac]", "splits=[bfs]", "seeds=[0]", "models=[seq_mlp]",
                         f"out_dir={out}", "device=cpu"])
    out.mkdir()
    save_config(cfg, out / "config.yaml")
    data = pi.load_data(cfg)
    sp = pair_split(data.pairs, data.num_nodes, "bfs", 0)
    sp["pairs_sha256"] = pi.pairs_digest(data)
    write_json(out / "splits" / "bfs_s0.json", sp)
    return out, cfg, data, sp


def _write_run(root, split, seed, model, f1, graph="train", **metrics):
    p = root / "runs" / split / f"s{seed}" / graph / f"{model}.json"
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(json.dumps({"split": split, "seed": seed, "model": model, "graph": graph, "micro_f1": f1,
                             **metrics}))
    return p


def _write_proba(out, sp, y, model="m", proba=None):
    run = out / "runs" / "bfs" / "s0" / "train"
    run.mkdir(parents=True, exist_ok=True)
    val, test = np.asarray(sp["val"]), np.asarray(sp["test"])
    proba = proba or (lambda idx: np.where(y[idx] > 0, 0.9, 0.1).astype(np.float32))  # right at 0.5
    np.savez(run / f"{model}.proba.npz", val_pairs=val, val_proba=proba(val), test_pairs=test,
             test_proba=proba(test))
    return run / f"{model}.proba.npz"


# ------------------------------------------------------------------------------ the folder's own data (1)
def test_split_modes_are_those_of_the_folders_own_pairs(folder):
    out, _, data, sp = folder
    y = data.pair_modes.numpy().astype(float)
    tr, te = y[np.asarray(sp["train"])], y[np.asarray(sp["test"])]
    tv = 0.5 * np.abs(tr.sum(0) / tr.sum() - te.sum(0) / te.sum()).sum()
    row = experiment_script("shs27k_split_modes").split_modes(out).iloc[0]
    assert row["TV distance"] == pytest.approx(tv, abs=5e-4)
    assert row["binding train"] == pytest.approx(tr[:, MODES.index("binding")].mean(), abs=5e-4)


def test_thresholds_score_the_folders_own_pairs(folder):
    """Probabilities right at 0.5 on the files' pairs: every way scores 1.0 (SHS27k's pairs would not)."""
    out, _, data, sp = folder
    _write_proba(out, sp, data.pair_modes.numpy())
    row = experiment_script("shs27k_thresholds").compare(out, ["m"]).iloc[0]
    assert row["fixed"] == 1.0 and row["global"] == 1.0 and row["per_mode"] == 1.0


def _refusals(out):
    sweep = experiment_script("shs27k_impute_sweep")
    return {"split_modes": lambda: experiment_script("shs27k_split_modes").split_modes(out),
            "thresholds": lambda: experiment_script("shs27k_thresholds").compare(out, ["m"]),
            "coverage": lambda: sweep.coverage(out, ("bfs",)),
            "oracle": lambda: sweep.oracle(out, ("bfs",)),
            "sweep": lambda: sweep.sweep(out, ("bfs",))}


@pytest.mark.parametrize("what", ["split_modes", "thresholds", "coverage", "oracle", "sweep"])
def test_a_split_of_another_pair_table_is_refused(what, folder):
    out, _, data, sp = folder
    _write_proba(out, sp, data.pair_modes.numpy())
    path = out / "splits" / "bfs_s0.json"
    path.write_text(json.dumps({**sp, "pairs_sha256": "0" * 64}))
    with pytest.raises(SystemExit, match=r"bfs_s0.json: made from another pair table \(80 pairs\) than dataset: "
                                         r"files of .*config.yaml .*\(80 pairs, other ones\)"):
        _refusals(out)[what]()
    path.write_text(json.dumps({**sp, "num_pairs": 500, "pairs_sha256": None}))
    with pytest.raises(SystemExit, match=r"made from another pair table \(500 pairs\)"):
        _refusals(out)[what]()


def test_a_folder_without_config_is_read_as_shs27k_and_its_split_checked(folder, data_root, monkeypatch):
    """No config.yaml: SHS27k (the default dataset), so a split recorded from the files' pairs is refused."""
    out = folder[0]
    monkeypatch.setenv("GATBIO_DATA", str(data_root))
    (out / "config.yaml").unlink()
    with pytest.raises(SystemExit, match=r"made from another pair table \(80 pairs\) than dataset shs27k \(no "
                                         r"config.yaml"):
        experiment_script("shs27k_split_modes").split_modes(out)


def test_a_folder_of_another_task_is_refused(folder):
    out = folder[0]
    (out / "fingerprint.json").write_text(json.dumps({"task": "FoodWebConfig"}))
    with pytest.raises(SystemExit, match=r"holds results of another task \(FoodWebConfig\)"):
        experiment_script("shs27k_split_modes").split_modes(out)


# ------------------------------------------------------------------------------ --against: the same splits (1)
def test_paired_against_refuses_folders_with_other_splits(tmp_path, capsys):
    paired = experiment_script("shs27k_paired")
    here, there = tmp_path / "here", tmp_path / "there"
    sp = {"kind": "dfs", "seed": 0, "num_pairs": 10, "train": [0, 1, 2, 3, 4, 5, 6], "test": [7, 8, 9],
          "pairs_sha256": "a" * 64}
    for root, f1 in ((here, 0.7), (there, 0.6)):
        _write_run(root, "dfs", 0, "m", f1)
        (root / "splits").mkdir()
        (root / "splits" / "dfs_s0.json").write_text(json.dumps(sp))
    assert paired.main([str(here), "--against", str(there)]) == 0 and "+0.100" in capsys.readouterr().out
    (there / "splits" / "dfs_s0.json").write_text(json.dumps({**sp, "test": [6, 8, 9]}))
    with pytest.raises(SystemExit, match=r"dfs_s0.json: .*other test pairs than .*here.*dfs_s0.json"):
        paired.across(here, there)
    (there / "splits" / "dfs_s0.json").write_text(json.dumps({**sp, "pairs_sha256": "b" * 64}))
    with pytest.raises(SystemExit, match=r"made from another pair table than"):
        paired.across(here, there)
    (there / "splits" / "dfs_s0.json").unlink()
    with pytest.raises(SystemExit, match=r"there/splits/dfs_s0.json: no such file: the two folders' splits cannot "
                                         r"be compared"):
        paired.across(here, there)


# ------------------------------------------------------------------------------ one seed, no train graph (3, 4)
def test_tables_of_one_seed_say_no_std_as_the_summary_does(tmp_path):
    tables = experiment_script("shs27k_tables")
    _write_run(tmp_path, "bfs", 0, "gat", 0.6, macro_f1=0.5, micro_f1_bs=None, micro_f1_es=0.6, micro_f1_ns=0.3,
               n_bs=0, n_es=10, n_ns=4, n_test=14, seconds=2.0, cpu_seconds=1.0)
    assert "| `gat` | 0.600 ± – | 0.500 ± – | – | 0.600 ± – | 0.300 ± – | – (no graph) | 2 (1) |" in tables.tables(tmp_path)


def test_compare_reads_a_one_seed_summary(tmp_path, capsys):
    """summary.md writes ``± –`` for a single run: a std of NaN, and z then has no value."""
    tables = experiment_script("shs27k_tables")
    import pandas as pd

    pd.DataFrame({"split": ["bfs"], "graph": ["train"], "model": ["gat"], "n": [1], "micro_f1_mean": [0.70],
                  "micro_f1_std": [np.nan]}).to_csv(tmp_path / "summary.csv", index=False)
    log = tmp_path / "summary.md"
    log.write_text("## bfs\n\n| graph | model | n | micro_f1 |\n|---|---|---|---|\n| train | gat | 1 | 0.728 ± – |\n")
    d = tables.compare(tmp_path, log).iloc[0]
    assert d["micro_f1_mean_other"] == 0.728 and np.isnan(d["micro_f1_std_other"]) and np.isnan(d["z"])
    assert d["delta"] == pytest.approx(0.028)
    assert tables.main([str(tmp_path), "--compare", str(log)]) == 0
    assert "largest |z| –" in capsys.readouterr().out


def test_tables_of_a_split_without_training_graph_runs(tmp_path):
    tables = experiment_script("shs27k_tables")
    for seed in (0, 1):
        _write_run(tmp_path, "bfs", seed, "gat", 0.6 + seed / 10, graph="all", seconds=1.0, cpu_seconds=1.0)
    text = tables.tables(tmp_path)
    assert "#### bfs (test pairs per seed, mean: BS –, ES –, NS –, of –)" in text
    assert "| `gat` | – | – | – | – | – | 0.650 ± 0.071 | – |" in text


# ------------------------------------------------------------------------------ damaged files (5, 6)
def _damaged_run_calls(tmp_path):
    tables, paired = experiment_script("shs27k_tables"), experiment_script("shs27k_paired")
    modes, sweep = experiment_script("shs27k_split_modes"), experiment_script("shs27k_impute_sweep")
    import pandas as pd

    table = pd.DataFrame({"split": ["bfs"], "seed": [0], "TV distance": [0.1]})
    return {"tables": lambda: tables.tables(tmp_path), "per_seed": lambda: tables.per_seed(tmp_path, "bfs"),
            "paired": lambda: paired.paired(tmp_path, "m"),
            "scores": lambda: modes.shift_correlation(tmp_path, ["m"], table),
            "split_modes": lambda: modes.split_modes(tmp_path),
            "impute_sweep": lambda: sweep._split_files(tmp_path, ("bfs",))}


@pytest.mark.parametrize("what", ["tables", "per_seed", "paired", "scores", "split_modes", "impute_sweep"])
@pytest.mark.parametrize("damage", [b'{"split": "bfs", "se', b"", b"\xff\xfe"])
def test_a_damaged_run_or_split_file_is_named_with_the_fix(what, damage, tmp_path):
    good = _write_run(tmp_path, "bfs", 0, "m", 0.5)
    (tmp_path / "splits").mkdir()
    path = (tmp_path / "splits" / "bfs_s0.json") if what in ("split_modes", "impute_sweep") else good
    path.write_bytes(damage)
    with pytest.raises(SystemExit) as exit_:
        _damaged_run_calls(tmp_path)[what]()
    msg = str(exit_.value.code)
    assert msg.startswith(f"{path}:1: not valid JSON") and "delete it and rerun" in msg and "\n" not in msg


def test_a_damaged_probability_file_is_named(folder):
    out, _, data, sp = folder
    path = _write_proba(out, sp, data.pair_modes.numpy())
    path.write_bytes(path.read_bytes()[:60])
    with pytest.raises(SystemExit, match=rf"^{path}: not a readable probability file .*delete it and its m.json"):
        experiment_script("shs27k_thresholds").compare(out, ["m"])
    path.write_bytes(b"")
    with pytest.raises(SystemExit, match=rf"^{path}: not a readable probability file"):
        experiment_script("shs27k_thresholds").compare(out, ["m"])


# ------------------------------------------------------------------------------ arguments (7, 9, 10)
@pytest.mark.parametrize("metric", ["options", "seconds", "split"])
def test_paired_takes_only_its_metrics(metric, tmp_path, capsys):
    paired = experiment_script("shs27k_paired")
    _write_run(tmp_path, "bfs", 0, "ref", 0.5, seconds=1.0, options={"kind": "x"})
    _write_run(tmp_path, "bfs", 0, "m", 0.6, seconds=2.0, options={"kind": "y"})
    with pytest.raises(SystemExit) as exit_:
        paired.main([str(tmp_path), "--ref", "ref", "--metric", metric])
    assert exit_.value.code == 2 and f"--metric: invalid choice: '{metric}'" in capsys.readouterr().err
    with pytest.raises(SystemExit, match=rf"--metric {metric!r}: not a metric of the results; choose micro_f1"):
        paired.paired(tmp_path, "ref", metric=metric)


def test_paired_takes_the_validation_figure_that_the_docs_quote(tmp_path):
    # experiments/README.md's "Δ val" columns come from --metric val_micro_f1 (refused for a while: a regression)
    paired = experiment_script("shs27k_paired")
    _write_run(tmp_path, "bfs", 0, "ref", 0.5, val_micro_f1=0.70)
    _write_run(tmp_path, "bfs", 0, "m", 0.6, val_micro_f1=0.65)
    out = paired.paired(tmp_path, "ref", metric="val_micro_f1")
    assert out.loc[out["model"] == "m", "delta_mean"].item() == pytest.approx(-0.05)
    assert "val_micro_f1" in paired.METRICS


def test_thresholds_refuse_a_rule_that_chooses_its_own_threshold(tmp_path, monkeypatch):
    """profile_rule's tables figure is at its threshold_chosen, not 0.5: it is not one of the learnt models whose
    0.5 the script compares with thresholds chosen on validation."""
    th = experiment_script("shs27k_thresholds")
    run = tmp_path / "runs" / "bfs" / "s0" / "train"
    run.mkdir(parents=True)
    for m, extra in (("profile_rule", {"threshold_chosen": 0.4, "options": {"kind": "profile_rule"}}),
                     ("gat_region", {"options": {"kind": "gat_pairs"}})):
        (run / f"{m}.proba.npz").write_bytes(b"")
        (run / f"{m}.json").write_text(json.dumps({"split": "bfs", "seed": 0, "model": m, **extra}))
    monkeypatch.setattr(th, "folder_data", lambda *a: pytest.fail("the data was loaded"))
    with pytest.raises(SystemExit, match=r"^--models profile_rule: a no-learning rule .*threshold_chosen 0.4.*leave "
                                         r"it out"):
        th.compare(tmp_path, ["gat_region", "profile_rule"])


@pytest.mark.parametrize("seeds,message", [(["0", "0"], "--seeds 0 0: each seed once"),
                                           (["-1"], "--seeds -1: give seeds >= 0")])
def test_triadic_refuses_repeated_and_negative_seeds(seeds, message, monkeypatch, capsys):
    import gatbio.data as gd

    tri = experiment_script("shs27k_triadic")
    monkeypatch.setattr(gd, "load", lambda *a, **k: pytest.fail("the work began"))
    with pytest.raises(SystemExit) as exit_:
        tri.main(["--seeds", *seeds])
    assert exit_.value.code == 2 and message in capsys.readouterr().err


@pytest.mark.parametrize("argv, message", [
    (["--coverage", "--oracle"], "argument --oracle: not allowed with argument --coverage"),
    (["--interolog", "--oracle"], "--interolog chooses the sweep; --oracle prints another table"),
])
def test_impute_sweep_takes_one_table_per_call(tmp_path, capsys, argv, message):
    # --oracle won silently over --coverage, and --interolog was ignored with either
    with pytest.raises(SystemExit) as exit_:
        experiment_script("shs27k_impute_sweep").main([str(tmp_path), *argv])
    assert exit_.value.code == 2 and message in capsys.readouterr().err


def test_compare_reads_a_statistic_over_fewer_runs(tmp_path):
    """summary.md writes ``mean ± std (n=2)`` where some seeds' values were undefined: still a mean and a std."""
    tables = experiment_script("shs27k_tables")
    log = tmp_path / "summary.md"
    log.write_text("## bfs\n\n| graph | model | n | micro_f1 |\n|---|---|---|---|\n"
                   "| train | gat | 3 | 0.728 ± 0.010 (n=2) |\n")
    row = tables.read_summary(log).iloc[0]
    assert row["micro_f1_mean"] == 0.728 and row["micro_f1_std"] == 0.010
