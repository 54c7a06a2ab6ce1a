"""Leftovers of the experiments/ audit: the shell helpers refuse bad arguments in one line before doing anything
(gpu_image_cpu.sh, pack_out.sh, gpu_session.sh); protein_diagnostics.py has a main() and says what it writes;
shs27k_tables.py notes runs that config.yaml does not list; shs27k_split_modes.py --scores refuses too few
regions; the thin runners take --config as gatbio does; the bench scripts' --help gives each default; an output that
is a folder is answered with a file name of the option's own type (gatbio/_paths.py)."""

from __future__ import annotations

import argparse
import importlib
import json
import re
import subprocess
from pathlib import Path

import pytest
from conftest import REPO, experiment_script

EXP = REPO / "experiments"


def _fake(path: Path, body: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(0o755)
    return path


# ------------------------------------------------------------------------------ gpu_image_cpu.sh
def _image(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    """gpu_image_cpu.sh with a ``python3`` that only records its arguments and fails: nothing is created or
    downloaded even where the script would make a venv."""
    fakebin = cwd / "fakebin"
    _fake(fakebin / "python3", f'echo "$@" >> {cwd}/python3.calls; exit 1')
    return subprocess.run(["bash", str(EXP / "gpu_image_cpu.sh"), *args], capture_output=True, text=True, cwd=cwd,
                          env={"PATH": f"{fakebin}:/usr/bin:/bin"})


def test_gpu_image_cpu_refuses_an_option_as_the_venv(tmp_path):
    for arg in ("--list", "-x"):
        r = _image([arg], tmp_path)
        assert r.returncode == 2, r.stderr
        assert f"unknown option '{arg}'" in r.stderr and "usage: bash experiments/gpu_image_cpu.sh [VENV]" in r.stderr
        assert len(r.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "python3.calls").exists()  # no `python3 -m venv --list`
    r = _image(["a", "b"], tmp_path)
    assert r.returncode == 2 and "one argument at most" in r.stderr


def test_gpu_image_cpu_resolves_a_relative_venv_against_the_callers_folder(tmp_path):
    """``bash experiments/gpu_image_cpu.sh myvenv`` from elsewhere uses ./myvenv, not the repository's myvenv."""
    _fake(tmp_path / "myvenv" / "bin" / "python", f'echo "$@" >> {tmp_path}/venv.calls; exit 0')
    r = _image(["myvenv"], tmp_path)
    assert r.returncode == 0, r.stderr
    calls = (tmp_path / "venv.calls").read_text().splitlines()
    assert calls[0].startswith("-c import torch") and calls[-1].startswith("-m pytest")  # versions, then the suite
    assert not (tmp_path / "python3.calls").exists()  # no venv was made anywhere
    assert not (REPO / "myvenv").exists()


# ------------------------------------------------------------------------------ pack_out.sh
def test_pack_out_refuses_a_missing_or_file_out(tmp_path):
    for out, why in ((tmp_path / "nope", "no such folder"), (tmp_path / "f.txt", "is not a folder")):
        if why != "no such folder":
            out.write_text("x")
        r = subprocess.run(["bash", str(EXP / "pack_out.sh"), str(out)], capture_output=True, text=True)
        assert r.returncode == 1 and r.stderr == f"pack_out.sh: OUT {out}: {why}; give the folder whose " \
            "subfolders to pack (usage: pack_out.sh OUT [KEEP ...])\n"


def test_pack_out_packs_each_folder_but_those_kept(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "x.txt").write_text("x")
    (tmp_path / "keep").mkdir()
    r = subprocess.run(["bash", str(EXP / "pack_out.sh"), str(tmp_path), "keep"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.tgz", "keep"]


# ------------------------------------------------------------------------------ gpu_session.sh
def test_gpu_session_refuses_an_empty_step_name_in_one_line(tmp_path):
    for args in ([""], [":5"], ["bench", ""]):
        r = subprocess.run(["bash", str(EXP / "gpu_session.sh"), *args], capture_output=True, text=True,
                           env={"OUT": str(tmp_path / "out"), "PATH": "/usr/bin:/bin"})
        assert r.returncode == 2, r.stderr
        assert "bad array subscript" not in r.stderr
        assert r.stderr.startswith(f"step '{args[-1]}': no step name; give one of turbo bench") and \
            len(r.stderr.splitlines()) == 1, r.stderr
        assert not (tmp_path / "out").exists()


# ------------------------------------------------------------------------------ protein_diagnostics.py
def test_protein_diagnostics_has_a_main_and_its_help_says_what_it_writes(capsys):
    mod = experiment_script("protein_diagnostics")
    with pytest.raises(SystemExit) as exit_:
        mod.main(["--help"])
    out = " ".join(capsys.readouterr().out.split())  # argparse wraps the help texts
    assert exit_.value.code == 0
    for text in ("runs/", "diagnostics.md", "--fractions", "(default: [0.5])", "(default: 2)",
                 "(default: results/protein_diagnostics)"):
        assert text in out, text


def test_protein_diagnostics_main_checks_then_runs(tmp_path, monkeypatch, capsys):
    mod = experiment_script("protein_diagnostics")
    with pytest.raises(SystemExit) as exit_:
        mod.main(["--jobs", "0", "--out", str(tmp_path / "out")])
    assert exit_.value.code == 2 and "--jobs 0: give at least 1" in capsys.readouterr().err
    seen = []
    monkeypatch.setattr(mod.protein_diagnostics, "run", lambda *a: seen.append(a) or "table")
    assert mod.main(["--seeds", "0", "1", "--out", str(tmp_path / "out")]) == 0
    assert capsys.readouterr().out == "table\n"
    assert seen == [(list(mod.protein_diagnostics.DATASETS), [0, 1], 2, str(tmp_path / "out"), [0.5])]


# ------------------------------------------------------------------------------ shs27k_tables.py
def _write_run(root: Path, split: str, seed: int, model: str = "m", f1: float = 0.5) -> None:
    p = root / "runs" / split / f"s{seed}" / "train" / f"{model}.json"
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(json.dumps({"split": split, "seed": seed, "model": model, "graph": "train", "micro_f1": f1}))


def test_tables_note_runs_that_config_yaml_does_not_list(tmp_path, capsys):
    """summary.csv uses config.yaml's seeds and splits; the tables average every run on disk: said on stderr."""
    for split, seed in (("bfs", 0), ("bfs", 1), ("bfs", 5), ("dfs", 0)):
        _write_run(tmp_path, split, seed)
    (tmp_path / "config.yaml").write_text("seeds: [0, 1]\nsplits: [bfs]\nmodels: [m]\n")
    assert experiment_script("shs27k_tables").main([str(tmp_path)]) == 0
    out, err = capsys.readouterr()
    assert "#### bfs" in out and "#### dfs" in out  # the tables themselves are as before
    assert err.startswith(f"note: {tmp_path}/runs holds seeds 5 and splits dfs, which {tmp_path}/config.yaml does "
                          "not list") and "summary.csv only the config's" in err and err.count("\n") == 1, err
    (tmp_path / "config.yaml").write_text("seeds: [0, 1, 5]\nsplits: [bfs, dfs]\nmodels: [m]\n")
    assert experiment_script("shs27k_tables").main([str(tmp_path)]) == 0
    assert capsys.readouterr().err == ""  # they agree: nothing said


# ------------------------------------------------------------------------------ shs27k_split_modes.py
def test_split_modes_scores_refuse_fewer_than_three_regions(tmp_path):
    """It printed ``spearman_rho nan`` (2 BFS/DFS splits: rho is +-1 at best, with fewer not defined)."""
    import pandas as pd

    mod = experiment_script("shs27k_split_modes")
    for split in ("bfs", "dfs"):
        _write_run(tmp_path, split, 0)
        (tmp_path / "splits").mkdir(exist_ok=True)
        (tmp_path / "splits" / f"{split}_s0.json").write_text("{}")
    (tmp_path / "splits" / "random_s0.json").write_text("{}")  # not a region: not counted
    expected = f"--scores: {tmp_path}/splits holds 2 BFS/DFS split(s); a rank correlation needs at least 3"
    with pytest.raises(SystemExit, match=re.escape(expected)):
        mod.main([str(tmp_path), "--scores", "m"])  # before the data load
    table = pd.DataFrame({"split": ["random", "bfs", "dfs"], "seed": [0, 0, 0], "TV distance": [0.1, 0.2, 0.3]})
    with pytest.raises(SystemExit, match=re.escape(expected)):
        mod.shift_correlation(tmp_path, ["m"], table)


# ------------------------------------------------------------------------------ the thin runners: --config
RUNNERS = [("hub_robustness", "robustness"), ("protein_interactions", "protein_interactions"),
           ("protein_function", "protein")]


@pytest.mark.parametrize("script,module", RUNNERS)
@pytest.mark.parametrize("argv", [["--config", "x.yaml", "a=1", "--restart"], ["--config=x.yaml", "a=1", "--restart"],
                                  ["a=1", "--config", "x.yaml", "--restart"], ["x.yaml", "a=1", "--restart"]])
def test_the_runners_take_config_as_gatbio_does(script, module, argv, monkeypatch, capsys):
    """``gatbio robustness --config FILE ...`` requires --config; the runners refused it ("unknown option")."""
    task = importlib.import_module(f"gatbio.tasks.{module}")
    seen = {}
    monkeypatch.setattr(task, "load", lambda path, overrides: seen.update(path=path, overrides=overrides) or "cfg")
    monkeypatch.setattr(task, "run", lambda cfg, **kwargs: seen.update(kwargs) or "summary")
    assert experiment_script(script).main(argv) == 0
    assert seen["path"] == "x.yaml" and seen["overrides"] == ["a=1"] and seen["resume"] == "restart"
    assert capsys.readouterr().out == "summary\n"


def test_protein_function_ppi24_takes_config(monkeypatch, capsys):
    from gatbio.tasks import protein_ppi

    seen = {}
    monkeypatch.setattr(protein_ppi, "load", lambda path, overrides: seen.update(path=path) or "cfg")
    monkeypatch.setattr(protein_ppi, "run", lambda cfg, **kwargs: "ppi24")
    assert experiment_script("protein_function").main(["--ppi24", "--config", "p.yaml"]) == 0
    assert seen["path"] == "p.yaml" and capsys.readouterr().out == "ppi24\n"


@pytest.mark.parametrize("script,module", RUNNERS)
@pytest.mark.parametrize("argv,message", [
    (["--config"], "--config: give the config file after it, e.g. --config experiments/configs/"),
    (["--config", "--restart"], "--config: give the config file after it"),
    (["--config", "a.yaml", "--config", "b.yaml"], "--config a.yaml b.yaml: give one config file"),
    (["b.yaml", "--config", "a.yaml"], "--config a.yaml and b.yaml: give the config file once"),
])
def test_the_runners_name_a_bad_config_option(script, module, argv, message):
    with pytest.raises(SystemExit) as exit_:
        experiment_script(script).main(argv)
    msg = str(exit_.value.code)
    assert msg.startswith(message) and "\n" not in msg, msg


@pytest.mark.parametrize("script,module", [*RUNNERS, ("food_web_inference", "foodweb_cli")])
@pytest.mark.parametrize("argv", [["--config", "-h"], ["--config", "--help"], ["--config=x.yaml", "--help"],
                                  ["--config", "x.yaml", "--restart", "-h"]])
def test_the_runners_show_the_help_when_asked_after_config(script, module, argv, monkeypatch, capsys):
    """``--config -h`` read -h as the config file ("--config: give the config file after it"; food_web_inference:
    argparse's "--config: expected one argument", status 2); help wins, as argparse's own, status 0."""
    task = importlib.import_module(f"gatbio.tasks.{module}")
    monkeypatch.setattr(task, "load" if module != "foodweb_cli" else "run_benchmark",
                        lambda *a, **k: pytest.fail("ran instead of showing the help"))
    with pytest.raises(SystemExit) as exit_:
        experiment_script(script).main(argv)
    out = capsys.readouterr().out
    assert exit_.value.code == 0
    usage = "gatbio foodweb benchmark [-h]" if script == "food_web_inference" else f"experiments/{script}.py [--config]"
    assert usage in out, out


# ------------------------------------------------------------------------------ bench scripts: --help
@pytest.mark.parametrize("script,says", [
    ("bench_attention_mask", ["--nodes NODES nodes of the random graph, >= 2 (default: 200000)", "(default: 2000000)",
                              "attention heads (H), >= 1 (default: 4)", "the median is kept (default: 5)",
                              "torch threads (default: 1)", "scores and bias (default: 0)"]),
    ("bench_readers", ["(default: 5000000)", "distinct protein ids, >= 2 (default: 19000)",
                       "the median is kept (default: 3)", "seed of the synthetic file (default: 0)"]),
    ("bench_batch_seeds", ["the PR-AUCs, not the logits, are what should agree", "(default: printed only)"]),
])
def test_bench_help_says_each_option_and_its_default(script, says, capsys):
    with pytest.raises(SystemExit) as exit_:
        experiment_script(script).main(["--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert exit_.value.code == 0
    for text in says:
        assert text in out, text
    # every option has a help text that gives its default (the parser caught as it parses)
    caught = []

    def stop(self, args=None, namespace=None):
        caught.append(self)
        raise SystemExit(0)

    with pytest.MonkeyPatch.context() as mp, pytest.raises(SystemExit):
        mp.setattr(argparse.ArgumentParser, "parse_args", stop)
        experiment_script(script).main([])
    actions = [a for a in caught[0]._actions if a.dest != "help"]
    assert actions and all(a.help and "default" in a.help for a in actions), [a.dest for a in actions]


# ------------------------------------------------------------------------------ gatbio/_paths.py
@pytest.mark.parametrize("opt,tables,name", [("--json", (), "out.json"), ("--plot", (), "out.png"),
                                             ("--csv", ("--csv",), "out.csv"), ("--out", ("--out",), "out.csv")])
def test_an_output_that_is_a_folder_suggests_the_options_own_file_type(opt, tables, name, tmp_path):
    from gatbio._paths import OutputPathError, check_outputs

    with pytest.raises(OutputPathError) as err:
        check_outputs({opt: tmp_path}, tables=tables)
    assert str(err.value) == f"{opt} {tmp_path}: is a folder; give a file name, e.g. {tmp_path / name}"


def test_an_output_folder_of_an_option_that_names_no_type_suggests_none(tmp_path):
    from gatbio._paths import OutputPathError, check_outputs

    with pytest.raises(OutputPathError, match=r"^out .*: is a folder; give a file name in that folder$"):
        check_outputs({"out": tmp_path})
