"""``gatbio robustness`` on a user's own food-web file: ``foodweb.webs`` takes a path as well as a dataset name
(it said "unknown dataset" for every file)."""

from __future__ import annotations

import json

import pytest

from gatbio.cli import main
from gatbio.tasks import robustness as rb


def _web(path):
    """A 16-species web: three basal species, each consumer eats two species below it."""
    rows = ["prey,predator"] + [f"s{i},s{j}" for j in range(3, 16) for i in (j - 3, j - 2)]
    path.write_text("\n".join(rows) + "\n")
    return path


def test_a_sweep_runs_on_a_web_file_named_by_its_path(tmp_path, monkeypatch):
    web = _web(tmp_path / "my web.csv")
    monkeypatch.chdir(tmp_path)
    config = tmp_path / "sweep.yaml"
    config.write_text(f"protein: {{enabled: false}}\nfoodweb: {{webs: ['my web.csv'], epochs: 3}}\n"
                      f"models: [pyg_gat]\nperturbations: [degree]\nfractions: [0.0, 0.2]\nseeds: [0]\n"
                      f"out_dir: {tmp_path / 'out'}\n")
    assert main(["robustness", "--config", str(config), "--quiet"]) == 0
    cfg = rb.load(config)
    assert cfg.foodweb.webs == [str(web.resolve())]  # known by its absolute path: a resume from elsewhere finds it
    runs = list((tmp_path / "out" / "runs" / "foodweb").rglob("*.json"))
    assert runs and all(json.loads(p.read_text())["dataset"] == str(web.resolve()) for p in runs)
    split = json.loads(next((tmp_path / "out" / "splits" / "foodweb").rglob("seed0.json")).read_text())
    n_links = 2 * 13
    assert sum(len(split[k][0]) for k in ("train_edge_index", "val_pos", "test_pos")) == n_links  # every link split


def test_a_web_that_is_neither_a_dataset_nor_a_file_is_refused(tmp_path):
    with pytest.raises(ValueError, match=r"config foodweb.webs: unknown dataset 'nowhere.csv'; .*; or the path of a "
                                         r"food-web file or folder of yours \(no such file here\)"):
        rb.load({"foodweb": {"webs": ["nowhere.csv"]}})


def _sweep(tmp_path, web):
    config = tmp_path / "sweep.yaml"
    config.write_text(f"protein: {{enabled: false}}\nfoodweb: {{webs: ['{web}'], epochs: 2}}\nmodels: [pyg_gat]\n"
                      f"perturbations: [degree]\nfractions: [0.0, 0.2]\nseeds: [0]\nout_dir: {tmp_path / 'out'}\n")
    return config


def test_a_changed_web_file_is_not_summarised_with_its_old_runs(tmp_path, capsys):
    """Every run of a unit done: the sweep skipped the unit without reading the file, so a web file rewritten
    since gave its old runs' table beside R50 figures of the new web."""
    web = _web(tmp_path / "web.csv")
    config = _sweep(tmp_path, web)
    assert main(["robustness", "--config", str(config), "--quiet"]) == 0
    web.write_text("prey,predator\n" + "".join(f"s{j - 3},s{j}\n" for j in range(3, 16)))  # 13 links, not 26
    capsys.readouterr()
    assert main(["robustness", "--config", str(config), "--quiet"]) == 1
    assert "the saved split differs from the one this code and data give" in capsys.readouterr().err


def test_a_results_folder_of_a_moved_web_file_still_loads_its_config(tmp_path):
    web = _web(tmp_path / "web.csv")
    config = _sweep(tmp_path, web)
    assert main(["robustness", "--config", str(config), "--quiet"]) == 0
    web.rename(tmp_path / "moved.csv")
    cfg = rb.load(tmp_path / "out" / "config.yaml")  # the notebook and --summary-only read it
    assert cfg.foodweb.webs == [str(web.resolve())]
    assert rb.run_selection(cfg) is not None
