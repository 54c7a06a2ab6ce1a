"""The resumable sweeps (protein run, protein interactions, hub robustness, food-web benchmark) on tiny inputs: each
run file records the fingerprint of its settings and its split relative to the results folder, a deleted
``splits/`` is written again when every run is done, a summary counts the runs of each config after a
``--resume-anyway``, says which settings of ``--summary-only`` it ignores, and a long unit says it still runs."""

from __future__ import annotations

import functools
import json
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
import yaml
from conftest import write_pair_files
from torch_geometric.data import Data

import gatbio.results
from gatbio.cli import main as cli_main
from gatbio.results import recorded_path, settings_fingerprint
from gatbio.tasks import protein as P
from gatbio.tasks import protein_interactions as pi

REPO = Path(__file__).resolve().parents[1]
QUICK = str(REPO / "experiments" / "configs" / "robustness_quick.yaml")


@pytest.fixture
def tiny(monkeypatch):
    """Three dense communities of 12 proteins; a protein's labels: its community, and a fourth on every 4th."""
    rng = np.random.default_rng(0)
    comm = np.repeat(np.arange(3), 12)
    pairs = [(i, j) for i in range(36) for j in range(i + 1, 36) if comm[i] == comm[j] and rng.random() < 0.5]
    y = torch.zeros(36, 4)
    y[torch.arange(36), torch.from_numpy(comm)] = 1
    y[::4, 3] = 1
    data = Data(edge_index=torch.tensor(pairs + [(j, i) for i, j in pairs]).t(), y=y, num_nodes=36)
    monkeypatch.setattr(P, "load_data", lambda name: data.clone())
    return data


def protein_overrides(out):
    return [f"out_dir={out}", "fractions=[0.5]", "seeds=[0]", "variants=[neighbor_vote,label_prop]",
            "inputs=[prone]", "embed_dim=8"]


def test_protein_run_files_splits_mixed_runs_and_summary_only(tiny, tmp_path, caplog, capsys):
    overrides = protein_overrides(tmp_path)
    P.run(P.load(None, overrides), progress=False)
    unit = tmp_path / "runs" / "node2vec-ppi" / "f0.50_s0"
    row = json.loads((unit / "label_prop.json").read_text())
    # 6. the split as a path in the results folder (it was the path the sweep was given: absolute here)
    assert row["split"] == "splits/node2vec-ppi_f0.50_s0.json"
    split = recorded_path(tmp_path, row["split"])
    kept = split.read_text()
    # 1. the settings the run was made with
    assert row["settings_fingerprint"] == settings_fingerprint(tmp_path) is not None
    # 5. a deleted splits/ of a finished folder is written again (a finished unit never ran to write it)
    shutil.rmtree(tmp_path / "splits")
    caplog.clear()
    P.run(P.load(None, overrides), progress=False)
    assert split.read_text() == kept
    assert (f"protein: 1 saved split(s) of finished runs were missing from {tmp_path / 'splits'}: made again from "
            "their seeds (e.g. node2vec-ppi_f0.50_s0.json)") in caplog.text
    # 1. --resume-anyway: config.yaml stays the first runs'; the summary counts the runs of each config
    (unit / "label_prop.json").unlink()
    text = P.run(P.load(None, [*overrides, "epochs=5"]), resume="anyway", progress=False)
    assert yaml.safe_load((tmp_path / "config.yaml").read_text())["epochs"] == 80
    assert yaml.safe_load((tmp_path / "config.resumed-1.yaml").read_text())["epochs"] == 5
    assert ("runs by the config they were made with: 1 config.yaml, 1 config.resumed-1.yaml; --restart redoes "
            "them all") in text
    # 3. --summary-only with settings that only say how runs are made: said to be ignored
    capsys.readouterr()
    P.run(P.load(None, [*overrides, "epochs=5", "jobs=2", "save_proba=true"]), summary_only=True)
    err = capsys.readouterr().err
    assert "--summary-only remakes the tables of the runs in" in err
    assert "it ignores jobs: 1 -> 2; save_proba: False -> True (settings of how runs are made)" in err
    P.run(P.load(None, [*overrides, "epochs=7"]), summary_only=True)
    assert "another configuration (epochs: 5 -> 7); summarising them as they are: a summary ignores those " \
        "settings" in capsys.readouterr().err


def test_protein_units_say_they_still_run_in_a_log(tiny, tmp_path, monkeypatch, capsys):
    """A progress line came only when a unit ended: a log said nothing while a unit of an hour ran."""
    fast_heartbeat(monkeypatch)
    P.run(P.load(None, protein_overrides(tmp_path)), progress=True)
    err = capsys.readouterr().err
    assert "protein: still running (fraction 0.5, seed 0)" in err and " in this unit" in err, err
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)  # a terminal: the bar shows the time
    (tmp_path / "runs" / "node2vec-ppi" / "f0.50_s0" / "label_prop.json").unlink()
    P.run(P.load(None, protein_overrides(tmp_path)), progress=True)
    assert "still running" not in capsys.readouterr().err


def test_interactions_run_files_record_settings_and_relative_splits(tmp_path, caplog):
    write_pair_files(tmp_path)
    cfg = pi.load(None, ["dataset=files", f"actions={tmp_path / 'actions.txt'}", f"sequences={tmp_path / 'seqs.tsv'}",
                         "features=[aac,ct]", "splits=[dfs]", "seeds=[0]", "models=[r]", "graphs=[train]",
                         "custom_models={r: {base: interolog_rule}}", f"out_dir={tmp_path / 'out'}", "device=cpu"])
    pi.run(cfg, progress=False)
    out = tmp_path / "out"
    run = out / "runs" / "dfs" / "s0" / "train" / "r.json"
    row = json.loads(run.read_text())
    assert row["split_file"] == "splits/dfs_s0.json" and recorded_path(out, row["split_file"]).is_file()
    assert row["settings_fingerprint"] == settings_fingerprint(out) is not None
    kept = (out / "splits" / "dfs_s0.json").read_text()
    shutil.rmtree(out / "splits")
    pi.run(cfg, progress=False)  # written again, the run read back
    assert (out / "splits" / "dfs_s0.json").read_text() == kept and json.loads(run.read_text()) == row


def test_interactions_units_say_they_still_run_in_a_log(tmp_path, monkeypatch, capsys):
    """The fourth sweep with a heartbeat (parallel_map's, as the others): its label names the split and seed."""
    write_pair_files(tmp_path)
    fast_heartbeat(monkeypatch)
    cfg = pi.load(None, ["dataset=files", f"actions={tmp_path / 'actions.txt'}", f"sequences={tmp_path / 'seqs.tsv'}",
                         "features=[aac,ct]", "splits=[dfs]", "seeds=[0]", "models=[r]", "graphs=[train]",
                         "custom_models={r: {base: interolog_rule}}", f"out_dir={tmp_path / 'out'}", "device=cpu"])
    pi.run(cfg, progress=True)
    err = capsys.readouterr().err
    assert f"{cfg.name}: still running (dfs split, seed 0)" in err and " in this unit" in err, err


def fast_heartbeat(monkeypatch):
    """Heartbeats every millisecond, in a log (stderr no terminal)."""
    monkeypatch.setattr(gatbio.results, "heartbeat", functools.partial(gatbio.results.heartbeat, every=0.001))
    monkeypatch.setattr(sys.stderr, "isatty", lambda: False)


def test_robustness_restores_a_deleted_splits_folder_and_records_settings(tmp_path, caplog, capsys, monkeypatch,
                                                                          data_root):
    out = tmp_path / "out"
    args = ["robustness", "--config", QUICK, "protein.enabled=false", "models=[gcn]", "perturbations=[degree]",
            "fractions=[0.0,0.05]", "foodweb.epochs=3", "r50_random_orders=1", "foodweb.webs=[cheddar/TL84]",
            f"out_dir={out}"]
    fast_heartbeat(monkeypatch)
    assert cli_main(args) == 0
    assert "robustness: still running (cheddar/TL84, seed 0)" in capsys.readouterr().err
    [run] = (out / "runs").rglob("*.json")
    row = json.loads(run.read_text())
    assert row["settings_fingerprint"] == settings_fingerprint(out) is not None
    split = recorded_path(out, row["split"])
    kept = split.read_text()
    shutil.rmtree(out / "splits")
    caplog.clear()
    assert cli_main(args) == 0
    assert split.read_text() == kept  # the split of the seed, as the unit made it
    assert f"robustness: 1 saved split(s) of finished runs were missing from {out / 'splits'}" in caplog.text


def test_benchmark_web_results_record_the_settings(tmp_path, monkeypatch, capsys):
    fast_heartbeat(monkeypatch)
    web = tmp_path / "webs" / "A_1"
    web.mkdir(parents=True)
    A = np.triu(np.random.default_rng(0).random((14, 14)) < 0.35, 1)
    (web / "1_edge_list.txt").write_text("".join(f"{i} {j}\n" for i, j in zip(*np.nonzero(A), strict=True)))
    out = tmp_path / "out"
    assert cli_main(["foodweb", "benchmark", "--webs", str(tmp_path / "webs"), "--out", str(out),
                     "protocols=[links]", "models=[l3_ra]"]) == 0
    rec = json.loads((out / "webs" / "A_1.links.json").read_text())
    assert rec["settings_fingerprint"] == settings_fingerprint(out) is not None
    assert "food webs: still running (A_1, links)" in capsys.readouterr().err  # (": fold k of 5" once it folds)



def test_robustness_summary_pools_the_webs_once_and_reads_its_runs_once(tmp_path, caplog, monkeypatch, data_root):
    """The webs were pooled for each table, their note kept from repeating by a process-wide set (a notebook
    cell run again said it no more), and a mixed folder's run files were read twice (mixed_configs_note took a
    function for robustness alone): each note is now said once per summary, and the runs are read once."""
    from gatbio.tasks import robustness as rb
    from gatbio.tasks import robustness_summary as rs

    out = tmp_path / "out"
    overrides = ["protein.enabled=false", "models=[gcn]", "perturbations=[degree]", "fractions=[0.0,0.05]",
                 "foodweb.epochs=2", "r50_random_orders=1", "foodweb.webs=[cheddar/TL84,cheddar/Benguela]",
                 "seeds=[0,1]", f"out_dir={out}"]
    rb.run(rb.load(QUICK, overrides), progress=False)
    [gone] = [p for p in (out / "runs").rglob("*.json") if "TL84" in str(p) and p.parent.name == "seed1"]
    gone.unlink()  # TL84's seed 1: some pooled points average one web
    cfg = rb.load(QUICK, [*overrides, "foodweb.epochs=3"])
    for _ in range(2):  # a notebook cell run twice says its notes twice
        caplog.clear()
        rb.summarize(cfg)
        assert sum("some pooled points average fewer webs" in r.getMessage() for r in caplog.records) == 1
    assert not hasattr(rs, "_said")
    real, reads = rs.read_runs, []
    monkeypatch.setattr(rs, "read_runs", lambda *a, **k: reads.append(1) or real(*a, **k))
    text = rb.run(cfg, resume="anyway", progress=False)  # the missing run made with foodweb.epochs=3
    assert "runs by the config they were made with: 3 config.yaml, 1 config.resumed-1.yaml" in text
    assert reads == [1]  # once for the tables and the count of the mixed configs
