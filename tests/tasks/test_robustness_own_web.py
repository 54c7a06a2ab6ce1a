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
    with pytest.raises(ValueError, match=r"config foodweb.webs: unknown dataset 'nowhere.csv' \(and no such file\).*"
                                         r"or the path of a food-web file or folder of yours"):
        rb.load({"foodweb": {"webs": ["nowhere.csv"]}})
