"""Dataset names in configs follow the case rule of ``gatbio.data.load`` and ``gatbio datasets``
(:func:`gatbio.data.sources.resolve_name`): the food-web benchmark's ``named``, the robustness sweep's
``protein.dataset`` and ``foodweb.webs``, and protein_diagnostics' ``--datasets``. Each name is resolved once, when
the config is checked, and the registry's spelling is used after: result files keep their names
(``cheddar__TL84``), and a folder made with one case resumes with another."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import experiment_script

from gatbio.results import ResumeConflictError
from gatbio.tasks import foodweb as fw
from gatbio.tasks import protein_diagnostics as diag
from gatbio.tasks import robustness as rb


def test_named_webs_take_any_case_and_are_kept_in_the_registrys_spelling():
    cfg = fw.FoodWebConfig(named=["cheddar/tl84", "PAJEK/BayDry.paj", "gateway/ythan estuary_8", "Gateway/11",
                                  "cheddar/Benguela", "gateway/250"])
    fw.check(cfg)
    assert cfg.named == ["cheddar/TL84", "pajek/baydry", "gateway/Ythan Estuary_8", "gateway/11", "cheddar/Benguela",
                         "gateway/250"]
    assert fw._result_path("out", fw._named_source("cheddar/TL84"), "links").name == "cheddar__TL84.links.json"


@pytest.mark.parametrize("named,message", [
    (["cheddar/Bengula"], "unknown web in 'named' 'cheddar/Bengula'; did you mean cheddar/Benguela"),
    (["cheddar"], "unknown web in 'named' 'cheddar'"),  # a collection alone is no web
    (["node2vec-ppi"], "unknown web in 'named' 'node2vec-ppi'"),  # nor a protein dataset
    (["gateway/99999"], "config named: unknown GATEWAy web 'gateway/99999'"),
    (["cheddar/TL84", "cheddar/tl84"], "config named: 'cheddar/TL84' and 'cheddar/tl84' are the same web "
                                       "(cheddar/TL84); give each web once"),
])
def test_named_webs_unknown_or_twice_are_refused_in_one_line(named, message):
    with pytest.raises(ValueError) as err:
        fw.check(fw.FoodWebConfig(named=named))
    assert message in str(err.value) and "\n" not in str(err.value)


def test_a_named_web_folder_resumes_whatever_case_the_config_gives(data_root, tmp_path):
    """A folder made with named: [cheddar/TL84] resumes with named: [cheddar/tl84]: the same result file
    (cheddar__TL84), nothing computed again; config.yaml keeps the registry's spelling."""
    out = tmp_path / "out"

    def cfg(name):
        return fw.FoodWebConfig(webs="", out=str(out), named=[name], protocols=["links"], models=["l3_ra"], seeds=[0],
                                species_seeds=[0], published="none")

    fw.benchmark(cfg("cheddar/TL84"), progress=False)
    before = {p.name: p.stat().st_mtime_ns for p in (out / "webs").glob("*.json")}
    assert list(before) == ["cheddar__TL84.links.json"]
    fw.benchmark(cfg("cheddar/tl84"), progress=False)
    assert {p.name: p.stat().st_mtime_ns for p in (out / "webs").glob("*.json")} == before
    assert json.loads((out / "timing.json").read_text())["runs_computed_this_call"] == 0
    assert "cheddar/TL84" in (out / "config.yaml").read_text() and "tl84" not in (out / "config.yaml").read_text()


def test_robustness_dataset_names_take_any_case():
    cfg = rb.load(rb.QUICK_CONFIG, ["protein.dataset=NODE2VEC-PPI", "foodweb.webs=[cheddar/benguela,CHEDDAR/tl84]"])
    assert cfg.protein.dataset == "node2vec-ppi" and cfg.foodweb.webs == ["cheddar/Benguela", "cheddar/TL84"]
    assert rb._run_path(Path("o"), "foodweb", cfg.foodweb.webs[1], "gcn", 0, "random").parts[3] == "cheddar__TL84"
    assert rb._validate(cfg) == cfg  # checked again by run: the same names


@pytest.mark.parametrize("override,message", [
    ("foodweb.webs=[cheddar/Nowhere]", "config foodweb.webs: unknown dataset 'cheddar/Nowhere'; e.g. node2vec-ppi"),
    ("protein.dataset=cheddar", "config protein.dataset: unknown dataset 'cheddar'"),
    ("foodweb.webs=[gateway/99999]", "config foodweb.webs: unknown GATEWAy web 'gateway/99999'"),
    ("foodweb.webs=[cheddar/TL84,cheddar/tl84]", "config foodweb.webs: 'cheddar/TL84' and 'cheddar/tl84' are the "
                                                 "same web (cheddar/TL84); give each web once"),
])
def test_robustness_unknown_or_repeated_names_are_refused_in_one_line(override, message):
    with pytest.raises(ValueError) as err:
        rb.load(rb.QUICK_CONFIG, [override])
    assert message in str(err.value) and "\n" not in str(err.value)


def test_a_robustness_folder_resumes_whatever_case_the_config_gives(data_root, tmp_path):
    """Dataset names are free keys of the sweep's result settings (RESUME_FREE_KEYS): a case variant is no
    'settings differ' refusal, and finds the runs of the registry's spelling (nothing computed again)."""
    assert {"protein.dataset", "foodweb.webs"} <= set(rb.RESUME_FREE_KEYS)
    out = tmp_path / "rob"
    tiny = ["protein.enabled=false", "models=[gcn]", "perturbations=[random]", "fractions=[0.0,0.2]", "seeds=[0]",
            "r50_random_orders=1", "foodweb.epochs=2", "foodweb.rounds=1", "foodweb.hidden=4", "foodweb.heads=1",
            f"out_dir={out}", "device=cpu"]
    rb.run(rb.load(rb.QUICK_CONFIG, [*tiny, "foodweb.webs=[cheddar/TL84]"]), progress=False)
    runs = {p: p.stat().st_mtime_ns for p in out.glob("runs/**/*.json")}
    assert runs and all("cheddar__TL84" in p.parts for p in runs)
    rb.run(rb.load(rb.QUICK_CONFIG, [*tiny, "foodweb.webs=[cheddar/tl84]"]), progress=False)
    assert {p: p.stat().st_mtime_ns for p in out.glob("runs/**/*.json")} == runs
    assert json.loads((out / "timing.json").read_text())["units_computed_this_call"] == 0
    with pytest.raises(ResumeConflictError):  # a result setting still differs
        rb.run(rb.load(rb.QUICK_CONFIG, [*tiny, "foodweb.webs=[cheddar/tl84]", "foodweb.epochs=3"]), progress=False)


def test_protein_diagnostics_datasets_take_any_case(tmp_path):
    assert diag.check(["YEAST-BU2003", "Node2vec-PPI"], [0], 1, tmp_path / "out", [0.5]) == ["yeast-bu2003",
                                                                                             "node2vec-ppi"]
    with pytest.raises(ValueError, match="--datasets yeast-bu2003 Yeast-BU2003: give each dataset once"):
        diag.check(["yeast-bu2003", "Yeast-BU2003"], [0], 1, tmp_path / "out", [0.5])
    with pytest.raises(ValueError, match="--datasets SHS27K: not a dataset these diagnostics run on"):
        diag.check(["SHS27K"], [0], 1, tmp_path / "out", [0.5])
    with pytest.raises(ValueError, match=r"^unknown dataset 'yeast'; did you mean yeast-bu2003\? \(known: "
                                         r"yeast-bu2003, node2vec-ppi\)$"):
        diag.check(["yeast"], [0], 1, tmp_path / "out", [0.5])


def test_the_protein_diagnostics_script_runs_the_registrys_spelling(tmp_path, monkeypatch, capsys):
    """The run files are named by dataset (yeast-bu2003_f0.50_s0.json): a run given YEAST-BU2003 resumes them."""
    seen = {}
    monkeypatch.setattr(diag, "run", lambda datasets, *args: seen.update(datasets=datasets) or "table")
    assert experiment_script("protein_diagnostics").main(["--datasets", "YEAST-BU2003", "--seeds", "0", "--out",
                                                          str(tmp_path / "out")]) == 0
    assert seen["datasets"] == ["yeast-bu2003"] and capsys.readouterr().out == "table\n"


def test_protein_diagnostics_run_from_python_checks_and_spells_its_datasets(tmp_path, monkeypatch):
    """run() called without check() used the names as given: YEAST-BU2003's files would not resume yeast-bu2003's."""
    seen = {}

    def stop(datasets):
        seen["datasets"] = datasets
        raise RuntimeError("stop before any work")

    monkeypatch.setattr(diag, "homophily_table", stop)
    with pytest.raises(RuntimeError, match="stop before any work"):
        diag.run(["YEAST-BU2003"], seeds=[0], jobs=1, out=tmp_path / "out", fractions=[0.5])
    assert seen["datasets"] == ["yeast-bu2003"]
    with pytest.raises(ValueError, match="--datasets cheddar/TL84: not a dataset these diagnostics run on"):
        diag.run(["cheddar/TL84"], seeds=[0], jobs=1, out=tmp_path / "out")
