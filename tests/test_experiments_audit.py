"""A researcher's audit of the experiment scripts: results-folder readers on a mistyped folder, a file or another
task's folder (one line naming it, not "no results: run ... first"); shs27k_tables.py with a damaged config.yaml
or --compare file (one line or a note, not a traceback) and with runs of models that config.yaml no longer lists
(kept, not dropped); shs27k_paired.py printing the seeds it leaves out, as its docstring says; bench_embed.py
--block checking --json before the timing; execute_notebooks.py on a failing cell (the notebook named and left as
it was, not a traceback); bench_layer.py --profile checked before the cases, and a failing profile keeping the
timings it follows."""

from __future__ import annotations

import json

import pytest
from conftest import experiment_script


def _write_run(root, split, seed, model, f1, graph="train", **metrics):
    p = root / "runs" / split / f"s{seed}" / graph / f"{model}.json"
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(json.dumps({"split": split, "seed": seed, "model": model, "graph": graph, "micro_f1": f1,
                             **metrics}))
    return p


# ------------------------------------------------------------------------------ the results folder named
def _argv(script, folder):
    return {"shs27k_tables": [str(folder)], "shs27k_paired": [str(folder), "--ref", "m"],
            "shs27k_split_modes": [str(folder)], "shs27k_impute_sweep": [str(folder)]}[script]


SCRIPTS = ["shs27k_tables", "shs27k_paired", "shs27k_split_modes", "shs27k_impute_sweep"]


@pytest.mark.parametrize("script", SCRIPTS)
@pytest.mark.parametrize("case", ["missing", "file", "other_task"])
def test_a_wrong_results_folder_is_named_on_one_line(script, case, tmp_path):
    """They said ``<folder>/runs: no results (run gatbio protein interactions --config ... first)`` for a typo, a
    file, or a food-web folder: a 20-minute rerun suggested for a wrong path."""
    folder = tmp_path / "shs27k_ful"
    if case == "file":
        folder.write_text("x\n")
    elif case == "other_task":
        _write_run(folder, "bfs", 0, "m", 0.5)  # even with runs/ of that layout
        (folder / "fingerprint.json").write_text(json.dumps({"task": "FoodWebConfig", "settings": {}}))
    with pytest.raises(SystemExit) as exit_:
        experiment_script(script).main(_argv(script, folder))
    msg = str(exit_.value.code)
    expected = {"missing": f"{folder}: no such folder", "file": f"{folder}: is a file, not a results folder",
                "other_task": f"{folder} holds results of another task (FoodWebConfig)"}[case]
    assert msg.startswith(expected) and "give the out_dir of a `gatbio protein interactions` run" in msg
    assert "\n" not in msg and "run `gatbio protein interactions --config" not in msg


def test_paired_names_a_wrong_against_folder(tmp_path):
    _write_run(tmp_path / "here", "bfs", 0, "m", 0.5)
    with pytest.raises(SystemExit, match=rf"^--against {tmp_path / 'thre'}: no such folder"):
        experiment_script("shs27k_paired").main([str(tmp_path / "here"), "--against", str(tmp_path / "thre")])


# ------------------------------------------------------------------------------ shs27k_tables.py
def test_tables_keep_the_models_that_config_yaml_no_longer_lists(tmp_path):
    """A rerun with ``models=[b]`` (a setting that may change on a resume) rewrites config.yaml; the runs of the
    first run's models are still there and used to vanish from the tables."""
    for m, f1 in (("a", 0.5), ("b", 0.6), ("c", 0.7)):
        _write_run(tmp_path, "bfs", 0, m, f1)
    (tmp_path / "config.yaml").write_text("models: [c, b]\n")
    rows = [line for line in experiment_script("shs27k_tables").tables(tmp_path).splitlines()
            if line.startswith("| `")]
    assert [r.split("`")[1] for r in rows] == ["c", "b", "a"]  # the config's order, then the others


@pytest.mark.parametrize("text,why", [("models: [a, b\n", "while parsing"), ("- a\n- b\n", "a YAML list, not a mapping"),
                                      (b"\xff\xfe", "can't decode")])
def test_tables_with_a_damaged_config_yaml_note_it_and_go_on(text, why, tmp_path, capsys):
    """It was an OmegaConf / YAML traceback; config.yaml only orders the models."""
    _write_run(tmp_path, "bfs", 0, "b", 0.6)
    _write_run(tmp_path, "bfs", 0, "a", 0.5)
    cfg = tmp_path / "config.yaml"
    cfg.write_bytes(text if isinstance(text, bytes) else text.encode())
    assert experiment_script("shs27k_tables").main([str(tmp_path)]) == 0
    out, err = capsys.readouterr()
    assert out.index("| `a` |") < out.index("| `b` |")
    assert err.startswith(f"note: {cfg}: not readable as a config (") and why in err
    assert err.rstrip().endswith("models in alphabetical order") and err.count("\n") == 1


@pytest.mark.parametrize("content", [b"", b"\xa7\x00\xff garbage\n"])
def test_tables_compare_with_a_file_that_is_not_a_csv_is_one_line(content, tmp_path):
    """An empty or binary --compare file was a pandas traceback (EmptyDataError, UnicodeDecodeError)."""
    import pandas as pd

    pd.DataFrame({"split": ["bfs"], "graph": ["train"], "model": ["m"], "n": [1], "micro_f1_mean": [0.5],
                  "micro_f1_std": [0.01]}).to_csv(tmp_path / "summary.csv", index=False)
    other = tmp_path / "other.csv"
    other.write_bytes(content)
    with pytest.raises(SystemExit) as exit_:
        experiment_script("shs27k_tables").main([str(tmp_path), "--compare", str(other)])
    msg = str(exit_.value.code)
    assert msg.startswith(f"{other}: not a summary.csv of this benchmark (") and "\n" not in msg


# ------------------------------------------------------------------------------ shs27k_paired.py
def test_paired_prints_the_seeds_it_leaves_out(tmp_path, capsys):
    """Its docstring said their number is printed; it was not, and a split without the reference printed
    ``+nan ± nan`` (one seed: ``± nan``; the tables write ``± –``)."""
    paired = experiment_script("shs27k_paired")
    _write_run(tmp_path, "bfs", 0, "ref", 0.5)
    _write_run(tmp_path, "bfs", 0, "a", 0.6)
    _write_run(tmp_path, "bfs", 1, "ref", 0.5)  # no "a": left out
    _write_run(tmp_path, "dfs", 0, "a", 0.6)  # no "ref" on DFS: left out
    out = paired.paired(tmp_path, "ref").set_index("split")
    assert out.loc["bfs", "left_out"] == 1 and out.loc["dfs", "left_out"] == 1
    assert out.loc["bfs", "seeds"] == 1 and out.loc["dfs", "seeds"] == 0
    assert paired.main([str(tmp_path), "--ref", "ref"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "left_out" in lines[0] and "nan" not in "\n".join(lines)
    assert "+0.100 ± –" in lines[1] and lines[2].split()[:4] == ["dfs", "a", "ref", "–"]


def test_paired_metric_of_no_value_is_not_left_out(tmp_path):
    """A run whose metric is None (BS on a BFS split) is there: not counted as left out."""
    paired = experiment_script("shs27k_paired")
    for m in ("ref", "a"):
        _write_run(tmp_path, "bfs", 0, m, 0.5, micro_f1_bs=None)
    row = paired.paired(tmp_path, "ref", metric="micro_f1_bs").iloc[0]
    assert (row["seeds"], row["left_out"]) == (0, 0)


def test_paired_against_prints_the_seeds_of_one_folder_only(tmp_path):
    paired = experiment_script("shs27k_paired")
    here, there = tmp_path / "here", tmp_path / "there"
    for root, seeds in ((here, (0, 1)), (there, (0, 1, 2))):
        (root / "splits").mkdir(parents=True)
        for seed in seeds:
            _write_run(root, "dfs", seed, "m", 0.5 + seed / 10)
            (root / "splits" / f"dfs_s{seed}.json").write_text(json.dumps({"num_pairs": 9, "test": [seed]}))
    row = paired.across(here, there).iloc[0]
    assert (row["seeds"], row["left_out"]) == (2, 1)


# ------------------------------------------------------------------------------ bench_embed.py --block
def test_block_checks_json_before_the_timing(tmp_path, monkeypatch, capsys):
    """``--block --json <a folder>`` timed the product, then died in write_json with IsADirectoryError."""
    bench = experiment_script("bench_embed")
    monkeypatch.setattr(bench, "block_product", lambda *a, **k: pytest.fail("timed before --json was checked"))
    with pytest.raises(SystemExit) as exit_:
        bench.main(["--block", "--json", str(tmp_path)])
    assert exit_.value.code == 2 and f"--json {tmp_path}: is a folder" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_:
        bench.main(["--block", "--device", "cuda"])  # silently timed on the CPU
    assert exit_.value.code == 2 and "--device: not used by --block" in capsys.readouterr().err


# ------------------------------------------------------------------------------ execute_notebooks.py
def test_a_failing_notebook_cell_is_named_and_the_notebook_left_as_it_was(tmp_path, monkeypatch, capsys):
    from nbclient.exceptions import CellExecutionError

    script = experiment_script("execute_notebooks")
    folders = {}
    for option, task in (("foodweb", "FoodWebConfig"), ("interactions", "InteractionsConfig")):
        folders[option] = tmp_path / option
        folders[option].mkdir()
        for f in ("summary.csv", "config.yaml"):
            (folders[option] / f).write_text("x\n")
        (folders[option] / "fingerprint.json").write_text(json.dumps({"task": task, "settings": {}}))
    ran = []

    def execute(name, folder, timeout=0):
        ran.append(name)
        if name == "protein_interactions":
            raise CellExecutionError("An error occurred while executing the following cell:\n...\nValueError: boom",
                                     "ValueError", "boom")
        return script.NOTEBOOKS / f"{name}.ipynb"

    monkeypatch.setattr(script, "execute", execute)
    argv = ["food_web_inference", "protein_interactions", "--foodweb", str(folders["foodweb"]),
            "--interactions", str(folders["interactions"])]
    assert script.main(argv) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"protein_interactions: a cell failed on {folders['interactions']}: "
                          "notebooks/protein_interactions.ipynb was not rewritten; written before it: "
                          "food_web_inference\n")
    assert "ValueError: boom" in err and "Traceback" not in err
    assert ran == ["food_web_inference", "protein_interactions"]


def test_notebooks_need_their_packages_before_any_runs(tmp_path, monkeypatch, capsys):
    import importlib.util

    script = experiment_script("execute_notebooks")
    folder = tmp_path / "fw"
    folder.mkdir()
    (folder / "summary.csv").write_text("x\n")
    (folder / "fingerprint.json").write_text(json.dumps({"task": "FoodWebConfig", "settings": {}}))
    find = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "nbclient" else find(name, *a))
    monkeypatch.setattr(script, "execute", lambda *a, **k: pytest.fail("ran without nbclient"))
    assert script.main(["food_web_inference", "--foodweb", str(folder)]) == 1
    assert "executing notebooks needs nbclient: pip install -e '.[dev]'" in capsys.readouterr().err


# ------------------------------------------------------------------------------ bench_layer.py --profile
def test_profile_into_a_file_is_refused_before_the_cases(tmp_path, capsys):
    """``--profile <a file>`` ran every case, then recorded each as "failed" (FileExistsError), its timings lost:
    on a GPU, device time spent for nothing."""
    bench = experiment_script("bench_layer")
    afile = tmp_path / "prof.txt"
    afile.write_text("x\n")
    with pytest.raises(SystemExit) as exit_:
        bench.main(["--one-process", "--sizes", "tiny", "--rows", "floor", "--no-bf16", "--profile", str(afile)])
    assert exit_.value.code == 2 and f"--profile {afile}: is a file, not a folder" in capsys.readouterr().err


def test_a_failing_profile_keeps_the_cases_timings(tmp_path, monkeypatch):
    import torch

    bench = experiment_script("bench_layer")

    def broken(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(bench, "profile_case", broken)
    s = bench.ALL_SIZES["tiny"]
    row = bench.gpu_rows(["floor"], ["auto"], bf16=False, turbo=False)[0]
    g = torch.Generator().manual_seed(0)
    x = torch.randn(s.nodes, s.in_channels, generator=g)
    edge_index = torch.randint(0, s.nodes, (2, s.edges), generator=g)
    res = bench.run_gpu_case(row, s, torch.device("cpu"), x, edge_index, warmup=1, repeats=1, seed=0,
                             profile_dir=tmp_path / "prof")
    assert res["time_s"] > 0 and res["profile_error"] == "OSError: disk full" and "error" not in res


# ------------------------------------------------------------------------------ --help of the folder readers
@pytest.mark.parametrize("script,says", [
    ("shs27k_split_modes", ["the out_dir of a `gatbio protein interactions` run (default: results/shs27k_full)"]),
    ("shs27k_tables", ["the out_dir of a `gatbio protein interactions` run", "one row per seed"]),
    ("shs27k_paired", ["the out_dir of a `gatbio protein interactions` run", "left_out", "(default: train)"]),
    # the whole docstring (they showed its first sentence only), the defaults, and that nothing is written
    ("shs27k_impute_sweep", ["the out_dir of a `gatbio protein interactions` run", "(default: results/shs27k_full)",
                             "(default: bfs dfs)", "``--oracle`` prints a **ceiling**", "writes no file"]),
    ("shs27k_triadic", ["For a pair (a, b) whose proteins both have training pairs", "(default: random)",
                        "(default: 0 1 2 3 4)", "writes no file"]),
])
def test_help_says_which_folder_and_the_defaults(script, says, capsys):
    with pytest.raises(SystemExit) as exit_:
        experiment_script(script).main(["--help"])
    out = " ".join(capsys.readouterr().out.split())  # argparse wraps the help texts
    assert exit_.value.code == 0
    for text in says:
        assert " ".join(text.split()) in out, text
