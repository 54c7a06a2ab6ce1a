"""``gatbio robustness`` and ``gatbio foodweb``: settings refused before any output, progress as a bar on a terminal
and as lines in a log (none with ``--quiet``), a perturbation that leaves nothing to score, and the trophic-level wording of ``predict``."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from torch_geometric.data import Data

from gatbio.cli import main as cli_main
from gatbio.robustness import perturb
from gatbio.tasks import foodweb as fw
from gatbio.tasks import robustness as rb

REPO = Path(__file__).resolve().parents[2]
QUICK = str(REPO / "experiments" / "configs" / "robustness_quick.yaml")
TQDM_MARKS = ("it/s", "%|", "s/it")


def test_removing_every_node_is_refused_before_any_output(tmp_path, capsys):
    out = tmp_path / "out"
    args = ["robustness", "--config", QUICK, "fractions=[0.0,1.0]", "protein.enabled=false", "models=[gcn]",
            "perturbations=[degree]", f"out_dir={out}"]
    assert cli_main(args) == 1
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "config fractions: 1.0" in err and "[0, 1)" in err
    assert not out.exists()
    # noise on (or edges dropped around) every node is meaningful: fraction 1.0 stays allowed for those
    assert rb.load(QUICK, ["fractions=[0.0,1.0]", "perturbations=[feature_noise,edge_drop]"]).fractions == [0.0, 1.0]


def test_node_counts_round_halves_up():
    """``node_count`` is the removal's rounding (floor(f n + 1/2)), not Python's round-half-to-even: 5 % of
    node2vec-PPI's 3,890 proteins is 195 (round gave the attention diagnostic 194 hubs)."""
    from gatbio.robustness import node_count

    assert node_count(0.05, 3890) == 195 and round(0.05 * 3890) == 194
    assert [node_count(f, n) for f, n in [(0.5, 1), (0.5, 3), (0.125, 4), (0.0, 10), (1.0, 7), (0.99, 29)]] == \
        [1, 2, 1, 0, 7, 29]


def test_a_fraction_that_rounds_to_every_node_of_a_graph_is_refused(tmp_path, capsys, data_root):
    """0.99 passes the config check (< 1) but removes all 29 species of Benguela: refused, naming the web, the
    count and the largest fraction that leaves a node, before that web's split, fits or results are written."""
    out = tmp_path / "out"
    args = ["robustness", "--config", QUICK, "fractions=[0.0,0.99]", "protein.enabled=false", "models=[gcn]",
            "perturbations=[degree]", "foodweb.epochs=3", f"out_dir={out}"]
    assert cli_main(args) == 1
    # one line (after the device line, which a process prints once)
    err = [line for line in capsys.readouterr().err.strip().splitlines() if not line.startswith("gatbio: device")]
    assert len(err) == 1, err
    assert "0.99 of cheddar/Benguela's 29 nodes rounds to all 29" in err[0] and "at most 0.9827" in err[0], err
    from gatbio.robustness import node_count
    for n in (1, 2, 3, 29, 3890, 10**6):  # the fraction it names leaves a node; 1e-4 more does not
        f = rb._largest_fraction_leaving_a_node(n)
        assert node_count(f, n) < n and node_count(f + 1e-4, n) == n, (n, f)
    assert not (out / "runs").exists() and not (out / "splits").exists()


def test_attention_hubs_are_the_nodes_that_hub_removal_removes(tmp_path, monkeypatch, data_root):
    """The attention-mass diagnostic's hubs are the top ``hub_fraction`` by degree exactly as the degree removal
    at that fraction takes them (same count, same seeded order of ties)."""
    seen = []
    real = rb._attention_stats
    monkeypatch.setattr(rb, "_attention_stats", lambda att, hubs, n: seen.append(hubs) or real(att, hubs, n))
    monkeypatch.setattr(rb, "perturb", lambda *a, **k: perturbed.append(perturb(*a, **k)) or perturbed[-1])
    perturbed = []
    f = 5 / 58  # 2.5 of Benguela's 29 species: round() gives 2, the removal 3
    args = ["robustness", "--config", QUICK, "protein.enabled=false", "models=[gat_log]", "perturbations=[degree]",
            f"fractions=[0.0,{f!r}]", f"hub_fraction={f!r}", "foodweb.epochs=3", "r50_random_orders=1", "seeds=[0]",
            f"out_dir={tmp_path / 'out'}", "--quiet"]
    assert cli_main(args) == 0
    removal = next(p for p in perturbed if p.fraction == f)
    assert removal.num_affected == 3
    assert seen and all(torch.equal(h, removal.affected) for h in seen)


def test_unknown_gateway_web_id_is_refused_before_any_output(tmp_path, capsys):
    out = tmp_path / "out"
    assert cli_main(["robustness", "--config", QUICK, "foodweb.webs=[gateway/999]", f"out_dir={out}"]) == 1
    err = capsys.readouterr().err
    assert "config foodweb.webs: unknown GATEWAy web 'gateway/999'" in err and "57 webs" in err
    assert not out.exists()  # no config.yaml / fingerprint.json
    assert rb.load(QUICK, ["foodweb.webs=[gateway/11]"]).foodweb.webs == ["gateway/11"]
    # the food-web benchmark's named webs: the same check
    with pytest.raises(ValueError, match=r"config named: unknown GATEWAy web 'gateway/999'"):
        fw.check(fw.FoodWebConfig(named=["gateway/999"], out=str(out)))
    fw.check(fw.FoodWebConfig(named=["gateway/11"], out=str(out)))


def test_no_surviving_items_gives_nan_not_a_crash():
    """A removal that takes every held-out pair (here every node) scores NaN on 0 items instead of failing in
    numpy's reshape."""
    n = 4
    data = Data(x=torch.randn(n, 2), edge_index=torch.tensor([[0, 1, 2, 3], [1, 2, 3, 0]]), num_nodes=n,
                levels=torch.ones(n))
    prob = object.__new__(rb._FoodwebProblem)
    prob.data, prob.pairs, prob.labels = data, torch.tensor([[0, 1], [2, 3]]), torch.tensor([1.0, 0.0])
    prob.forward = lambda model, d: (torch.zeros(d.num_nodes, d.num_nodes), None)
    clean = torch.zeros(n, n)
    for fraction in (1.0, 0.75):  # all nodes; or three of them, leaving no pair with both ends
        row = prob.evaluate(None, clean, None, perturb(data, "degree", fraction))
        assert row["n_items"] == 0 and np.isnan(row["score"]) and np.isnan(row["flip_rate"])
    row = prob.evaluate(None, clean, None, perturb(data, "degree", 0.0))
    assert row["n_items"] == 2 and row["flip_rate"] == 0.0


@pytest.mark.parametrize("perturbation", ["degree", "feature_noise"])
def test_robustness_progress_in_a_log_is_lines_not_a_bar(tmp_path, capsys, data_root, perturbation):
    args = ["robustness", "--config", QUICK, "protein.enabled=false", "models=[gcn]", f"perturbations=[{perturbation}]",
            "fractions=[0.0,0.05]", "foodweb.epochs=3", "r50_random_orders=1", f"out_dir={tmp_path / 'out'}"]
    assert cli_main(args) == 0
    out, err = capsys.readouterr()
    assert not any(mark in err for mark in TQDM_MARKS) and "\r" not in err, err
    assert "robustness (dataset, seed): 1/1 done, 0:" in err, err  # the last unit's line (one job: seed 0)
    # R50 follows the removal orders; a sweep without any says so (it used to stop with KeyError: 'web')
    assert ("R50 (fraction" in out) == (perturbation == "degree") and ("R50: none" in out) != (perturbation == "degree")


def test_a_resumed_benchmark_names_the_damaged_result_file_it_redoes(tmp_path, caplog):
    """A result file cut short (a full disk, an interrupted copy) was redone on resume without a word, so a user
    who took the folder for finished learnt it only from the time it took: the note names the file and why."""
    args = _tiny_benchmark(tmp_path)
    assert cli_main([*args, "--quiet"]) == 0
    [result] = (tmp_path / "out" / "webs").glob("*.json")
    text = result.read_text()
    result.write_text(text[: len(text) // 2])
    caplog.clear()
    assert cli_main([*args, "--quiet"]) == 0
    assert f"food webs: 1 damaged result file(s) will be redone (e.g. {result}: not valid JSON (" in caplog.text
    assert json.loads(result.read_text())["web"] == json.loads(text)["web"]  # redone
    caplog.clear()
    assert cli_main([*args, "--quiet"]) == 0
    assert "damaged" not in caplog.text  # finished: nothing to say


def test_a_resumed_robustness_sweep_names_the_damaged_run_file_it_redoes(tmp_path, caplog, data_root):
    """The same for the robustness sweep, whose (dataset, seed) unit has a file per model and perturbation: the
    note counts the files, not the units."""
    args = ["robustness", "--config", QUICK, "protein.enabled=false", "models=[gcn]", "perturbations=[degree]",
            "fractions=[0.0,0.05]", "foodweb.epochs=3", "r50_random_orders=1", f"out_dir={tmp_path / 'out'}",
            "--quiet"]
    assert cli_main(args) == 0
    run = sorted((tmp_path / "out" / "runs").rglob("*.json"))[0]
    kept = json.loads(run.read_text())
    run.write_text(json.dumps({k: v for k, v in kept.items() if k != "curve"}))  # another program's edit
    caplog.clear()
    assert cli_main(args) == 0
    assert f"robustness: 1 damaged result file(s) will be redone (e.g. {run}: missing the keys curve)" in caplog.text
    assert json.loads(run.read_text())["curve"] == kept["curve"]  # redone, as it was
    run.write_text(json.dumps({**kept, "curve": []}))  # the run's names and no result: no longer read as finished
    caplog.clear()
    assert cli_main(args) == 0
    assert f"robustness: 1 damaged result file(s) will be redone (e.g. {run}: the key curve is empty)" in caplog.text
    assert json.loads(run.read_text())["curve"] == kept["curve"]


def _progress_seen(monkeypatch, module, name, argv, tty):
    seen = {}

    def fake(cfg, *a, progress=True, **k):
        seen["progress"] = progress
        return "" if module is rb else {}

    monkeypatch.setattr(module, name, fake)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: tty)
    assert cli_main(argv) == 0
    return seen["progress"]


# progress unless --quiet, terminal or not (gatbio.parallel draws a bar on a terminal, lines in a log)
@pytest.mark.parametrize("quiet,tty,expected", [(False, False, True), (False, True, True), (True, True, False),
                                                (True, False, False)])
def test_progress_follows_quiet(tmp_path, monkeypatch, quiet, tty, expected):
    flag = ["--quiet"] * quiet
    rob = ["robustness", "--config", QUICK, f"out_dir={tmp_path / 'r'}", *flag]
    assert _progress_seen(monkeypatch, rb, "run", rob, tty) is expected
    bench = ["foodweb", "benchmark", "--out", str(tmp_path / "f"), *flag]
    assert _progress_seen(monkeypatch, fw, "benchmark", bench, tty) is expected


def _tiny_benchmark(tmp_path) -> list[str]:
    """``gatbio foodweb benchmark`` arguments for one random acyclic 14-species web (prey i -> predator j > i)
    and one fast model."""
    web = tmp_path / "webs" / "A_1"
    web.mkdir(parents=True)
    rng = np.random.default_rng(0)
    A = np.triu(rng.random((14, 14)) < 0.35, 1)
    (web / "1_edge_list.txt").write_text("".join(f"{i} {j}\n" for i, j in zip(*np.nonzero(A), strict=True)))
    return ["foodweb", "benchmark", "--webs", str(tmp_path / "webs"), "--out", str(tmp_path / "out"),
            "protocols=[links]", "models=[l3_ra]"]


def test_benchmark_progress_in_a_log_is_lines_not_a_bar(tmp_path, capsys):
    args = _tiny_benchmark(tmp_path)
    assert cli_main(args) == 0
    err = capsys.readouterr().err
    assert not any(mark in err for mark in TQDM_MARKS) and "\r" not in err, err
    assert "food webs: 1/1 done, 0:" in err, err
    # resumed: the finished unit is left out of this call's count (and its time estimate), and said so
    assert cli_main(args) == 0
    err = capsys.readouterr().err
    assert "food webs: 1 of 1 (web, protocol) units already done in" in err and "0 to run" in err, err
    assert "1/1 done" not in err, err
    assert json.loads((tmp_path / "out" / "timing.json").read_text())["runs_computed_this_call"] == 0
    assert cli_main([*args, "--quiet", "--restart"]) == 0
    assert "food webs" not in capsys.readouterr().err


def test_predict_help_states_the_mackay_gauge(capsys):
    with pytest.raises(SystemExit):
        cli_main(["foodweb", "predict", "--help"])
    text = " ".join(line[22:] if line.startswith("  ") else line for line in capsys.readouterr().out.splitlines())
    text = " ".join(text.split())  # the description's right-hand column, as one line
    assert "basal species at 1" not in text
    assert "the lowest species of each connected part of the web is at 1 (a basal species can sit above 1)" in text
    # what the wording says: basal species 3 (eaten only by the top of a chain 0 -> 1 -> 2) sits above 1
    A = fw.adjacency_of(torch.tensor([[0, 1, 3], [1, 2, 2]]), 4)
    levels = fw.observed_levels(A)
    assert levels.min() == pytest.approx(1.0) and levels[3] > 1.5


def test_a_fraction_that_removes_a_later_web_is_refused_before_the_protein_runs(tmp_path, capsys, data_root,
                                                                                   monkeypatch):
    """The node-count check covers every dataset before any work: found only when the sweep reached the web, it
    came after the protein runs were written, and the suggested fraction was then refused as another
    configuration (--restart would delete those runs)."""
    fitted = []
    monkeypatch.setattr(rb, "_make_problem", lambda *a: fitted.append(a) or pytest.fail("work started"))
    out = tmp_path / "out"
    args = ["robustness", "--config", QUICK, "fractions=[0.0,0.99]", "models=[gcn]", "perturbations=[degree]",
            f"out_dir={out}", "--quiet"]
    assert cli_main(args) == 1
    err = [line for line in capsys.readouterr().err.strip().splitlines() if not line.startswith("gatbio: device")]
    assert len(err) == 1 and "0.99 of cheddar/Benguela's 29 nodes rounds to all 29" in err[0], err
    assert not fitted and not out.exists()


@pytest.mark.parametrize("override, message", [
    ("fractions=[0.0]", "config fractions=[0.0]: perturbs nothing; add a fraction above 0, e.g. [0.0, 0.05]"),
    ("protein.inputs=[]", "config protein.inputs=[]: is empty"),
    ("protein.inputs=[id]", "config protein.inputs: 'id' is not an input of this sweep"),
    ("protein.inputs=[prone,node2vec]", "config protein.inputs: unknown input 'node2vec'; choose from netmf, "),
])
def test_sweeps_that_perturb_nothing_or_have_no_inputs_are_refused_before_any_output(tmp_path, capsys, override,
                                                                                      message):
    """fractions=[0.0] ran to the end with every drop 0 and no area; protein.inputs=[] failed after the splits were
    written ('no node attribute x ... attr=...'), and an unknown input without naming the key."""
    out = tmp_path / "out"
    assert cli_main(["robustness", "--config", QUICK, override, f"out_dir={out}", "--quiet"]) == 1
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and message in err, err
    assert not out.exists()


def test_a_saved_split_that_differs_from_the_seeds_is_refused_on_resume(tmp_path, capsys, data_root):
    """The split saved with the runs is the one they used: a resumed sweep whose data or split code now give another
    split for the seed refuses (naming the file and --restart) instead of mixing runs of two splits."""
    out = tmp_path / "out"
    args = ["robustness", "--config", QUICK, "protein.enabled=false", "models=[gcn]", "perturbations=[degree]",
            "fractions=[0.0,0.05]", "foodweb.epochs=3", "r50_random_orders=1", f"out_dir={out}", "--quiet"]
    assert cli_main(args) == 0
    split = next((out / "splits").rglob("seed0.json"))
    assert cli_main(args + ["models=[gcn,pyg_gat]"]) == 0  # a resumed run on the same split: fine
    saved = json.loads(split.read_text())
    key = next(k for k, v in saved.items() if isinstance(v, list) and v)
    saved[key] = saved[key][1:]  # as if the split code had changed
    split.write_text(json.dumps(saved))
    capsys.readouterr()
    assert cli_main(args + ["models=[gcn,pyg_gat,gat_log]"]) == 1
    err = capsys.readouterr().err
    assert f"{split}: the saved split differs from the one this code and data give" in err and "--restart" in err


def test_a_web_whose_files_changed_is_not_credited_with_its_old_result(tmp_path, capsys):
    """`webs` is free on a resume (another copy of the webs): a web folder of the same name with other links was
    credited with the old result, silently (num_links 24 in the file, 14 in the web)."""
    web = tmp_path / "webs" / "A_1"
    web.mkdir(parents=True)
    rng = np.random.default_rng(0)
    A = np.triu(rng.random((14, 14)) < 0.35, 1)
    lines = [f"{i} {j}\n" for i, j in zip(*np.nonzero(A), strict=True)]
    (web / "1_edge_list.txt").write_text("".join(lines))
    args = ["foodweb", "benchmark", "--webs", str(tmp_path / "webs"), "--out", str(tmp_path / "out"),
            "protocols=[links]", "models=[l3_ra]", "--quiet"]
    assert cli_main(args) == 0
    assert len(json.loads((tmp_path / "out/webs/A_1.links.json").read_text())["web_sha256"]) == 64
    (web / "notes.txt").write_text("sampled in 1998\n")  # a file the web is not read from changes nothing
    assert cli_main(args) == 0  # the same files: resumed
    result = tmp_path / "out/webs/A_1.links.json"
    kept = result.read_text()
    result.write_text("[1, 2]")  # not a result of the benchmark: made again (it crashed the digest check)
    assert cli_main(args) == 0 and json.loads(result.read_text())["rows"] == json.loads(kept)["rows"]
    (web / "1_edge_list.txt").write_text("".join(lines[:-3]))
    capsys.readouterr()
    assert cli_main(args) == 1
    err = capsys.readouterr().err
    assert "A_1.links.json: made from another version of the web" in err and "--restart" in err, err
    assert cli_main([*args, "--restart"]) == 0
    assert json.loads((tmp_path / "out/webs/A_1.links.json").read_text())["num_links"] == len(lines) - 3


def test_summarize_names_another_tasks_folder(tmp_path, capsys):
    """`gatbio foodweb summarize` on a robustness folder said "bad config in .../config.yaml:1: Key 'name' not in
    'FoodWebConfig'. Did you mean: 'named'?"."""
    out = tmp_path / "rob"
    out.mkdir()
    (out / "fingerprint.json").write_text(json.dumps({"task": "RobustnessConfig", "settings": {}}))
    (out / "config.yaml").write_text("name: tiny\n")
    assert cli_main(["foodweb", "summarize", str(out)]) == 1
    assert "holds results of another task (RobustnessConfig), not of gatbio foodweb benchmark" in capsys.readouterr().err


@pytest.mark.parametrize("command, config", [
    (["protein", "run"], "protein_quick.yaml"),
    (["protein", "interactions"], "shs27k_quick.yaml"),
    (["robustness"], "robustness_quick.yaml"),
])
def test_a_results_folder_that_is_a_file_is_named_as_the_option_typed(tmp_path, capsys, command, config):
    """The message said 'out_dir X' where the user typed --out X (the food-web benchmark said --out already)."""
    target = tmp_path / "afile"
    target.write_text("x")
    rc = cli_main([*command, "--config", str(REPO / "experiments" / "configs" / config), "--out", str(target),
                   "--device", "cpu"])
    assert rc == 1
    assert capsys.readouterr().err.splitlines()[-1].endswith(
        f"error: --out (config out_dir) {target}: is a file, not a folder; give a folder for the results")
