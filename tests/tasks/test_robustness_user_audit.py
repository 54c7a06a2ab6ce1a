"""``gatbio robustness`` on a user's own web files: a relative web path missing from the current folder says where it
was looked for (and names the config's folder when the file is there), and data that cannot be read or split stop
the sweep before ``out_dir`` is made or touched."""

from __future__ import annotations

import pytest

from gatbio.cli import main
from gatbio.data.tables import MalformedFileError
from gatbio.tasks import robustness as rb


def _web(path, links: int = 26):
    """A web of ``links`` links: three basal species, each consumer eats two species below it (26 links: 16
    species)."""
    rows = ["prey,predator"] + [f"s{i},s{j}" for j in range(3, 16) for i in (j - 3, j - 2)][:links]
    path.write_text("\n".join(rows) + "\n")
    return path


def _config(path, web, out_dir, **more):
    lines = [f"protein: {{enabled: {str(more.pop('protein', False)).lower()}}}",
             f"foodweb: {{webs: ['{web}'], epochs: 2}}", "models: [pyg_gat]", "perturbations: [degree]",
             "fractions: [0.0, 0.2]", "seeds: [0]", f"out_dir: '{out_dir}'"]
    path.write_text("\n".join(lines) + "\n")
    return path


def test_a_relative_web_file_next_to_the_config_is_named_with_the_config_folder(tmp_path, monkeypatch, capsys):
    """It said only "(no such file here)": not where it looked, nor that the file sits next to the config."""
    folder, elsewhere = tmp_path / "project", tmp_path / "elsewhere"
    folder.mkdir()
    elsewhere.mkdir()
    _web(folder / "web.txt")
    config = _config(folder / "sweep.yaml", "web.txt", tmp_path / "out")
    monkeypatch.chdir(elsewhere)
    assert main(["robustness", "--config", str(config), "--quiet"]) == 1
    err = capsys.readouterr().err
    assert "config foodweb.webs: unknown dataset 'web.txt'" in err and "(no such file here)" in err
    assert f"looked for {elsewhere / 'web.txt'}: a relative path is read from the current folder" in err
    assert f"web.txt is in the folder of the config file {config}: run gatbio from {folder}" in err
    assert err.count("\n") == 1  # one line
    assert not (tmp_path / "out").exists()


def test_a_relative_web_file_found_nowhere_says_where_it_was_looked_for(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError, match=r"\(no such file here\): looked for .*nowhere\.csv: a relative path is read "
                                         r"from the current folder$"):
        rb.load({"foodweb": {"webs": ["nowhere.csv"]}})


def _run(cfg):
    return rb.run(cfg, progress=False)


@pytest.mark.parametrize("case", ["too_few_links", "malformed", "gone"])
def test_a_web_that_cannot_be_read_or_split_leaves_no_results_folder(tmp_path, case):
    """out_dir (config.yaml, fingerprint.json) was written before any web was read: the failed run left it behind."""
    web = tmp_path / "web.csv"
    if case == "too_few_links":
        _web(web, links=3)
    elif case == "malformed":
        web.write_text("prey,predator\na,b\nc\n")
    out = tmp_path / "results" / "sweep"
    cfg = rb.load({"protein": {"enabled": False}, "foodweb": {"webs": [str(web)], "epochs": 2}, "models": ["gcn"],
                   "perturbations": ["degree"], "fractions": [0.0, 0.2], "seeds": [0], "out_dir": str(out),
                   "device": "cpu"})
    error, message = {"too_few_links": (ValueError, rf"^config foodweb.webs: {web}: 3 links are too few for val=0.1, "
                                                    r"test=0.2 .*; give a web with more links, or other foodweb.val / "
                                                    r"foodweb.test fractions$"),
                      "malformed": (MalformedFileError, rf"{web}:3:"),
                      "gone": (FileNotFoundError, "web.csv")}[case]
    with pytest.raises(error, match=message):
        _run(cfg)
    assert not (tmp_path / "results").exists()


def test_a_failing_web_leaves_an_existing_results_folder_as_it_was(tmp_path, capsys):
    out = tmp_path / "out"
    out.mkdir()
    (out / "notes.txt").write_text("mine\n")
    web = _web(tmp_path / "web.csv", links=3)
    config = _config(tmp_path / "sweep.yaml", web, out)
    assert main(["robustness", "--config", str(config), "--quiet"]) == 1
    assert "3 links are too few" in capsys.readouterr().err
    assert sorted(p.name for p in out.iterdir()) == ["notes.txt"] and (out / "notes.txt").read_text() == "mine\n"


def test_a_missing_protein_dataset_leaves_no_results_folder(tmp_path, monkeypatch):
    from gatbio.data.sources import DatasetNotFoundError

    monkeypatch.setenv("GATBIO_DATA", str(tmp_path / "data"))
    (tmp_path / "data").mkdir()
    cfg = rb.load({"foodweb": {"enabled": False}, "models": ["gcn"], "perturbations": ["degree"],
                   "fractions": [0.0, 0.2], "seeds": [0], "out_dir": str(tmp_path / "out"), "device": "cpu"})
    with pytest.raises(DatasetNotFoundError, match="node2vec-ppi"):
        _run(cfg)
    assert not (tmp_path / "out").exists()


def test_a_dataset_missing_beside_an_existing_results_folder_is_left_to_the_runs(tmp_path, monkeypatch):
    """A results folder moved to a machine without the protein dataset (its protein runs all finished) must still
    resume its food-web runs: the check before writing refused it, though the runs would not read the dataset."""
    from gatbio.data.sources import DatasetNotFoundError

    monkeypatch.setenv("GATBIO_DATA", str(tmp_path / "data"))
    (tmp_path / "data").mkdir()
    cfg = rb.load({"foodweb": {"enabled": False}, "models": ["gcn"], "perturbations": ["degree"],
                   "fractions": [0.0, 0.2], "seeds": [0], "out_dir": str(tmp_path / "out"), "device": "cpu"})
    with pytest.raises(DatasetNotFoundError):
        rb._check_inputs(cfg)
    (tmp_path / "out").mkdir()
    rb._check_inputs(cfg)  # left to the runs, which read it only if they still need it


def test_validation_and_test_fractions_that_leave_no_training_links_are_refused_by_their_keys():
    """foodweb.val=0.5 foodweb.test=0.5 passed the config check and failed in the first job (after out_dir was
    made) with the split's "val=0.5, test=0.5: need ... val + test < 1", which names no config key."""
    with pytest.raises(ValueError, match=r"^config foodweb.val=0.5 and foodweb.test=0.5 hold out 1 of each web's "
                                         r"links, leaving none to train on: their sum must be below 1"):
        rb.load({"foodweb": {"val": 0.5, "test": 0.5}})
    rb.load({"foodweb": {"val": 0.5, "test": 0.5, "enabled": False}})  # not used: not refused


def test_a_web_too_sparse_for_degree_matched_negatives_names_the_web_and_the_fix(tmp_path):
    """A chain of 10 links with half of them held out for validation: the split could not draw its negatives
    ("could not draw 7 degree negatives (graph too dense for that mode)", naming no web) in the first job, after
    out_dir was made."""
    web = tmp_path / "chain.csv"
    web.write_text("prey,predator\n" + "".join(f"a{i},a{i + 1}\n" for i in range(10)))
    out = tmp_path / "out"
    cfg = rb.load({"protein": {"enabled": False}, "foodweb": {"webs": [str(web)], "epochs": 2, "val": 0.5},
                   "models": ["gcn"], "perturbations": ["degree"], "fractions": [0.0, 0.2], "seeds": [0],
                   "out_dir": str(out), "device": "cpu"})
    with pytest.raises(ValueError, match=rf"^config foodweb.webs: {web}: could not draw 7 degree negatives .*; hold "
                                         r"out fewer links \(foodweb.val / foodweb.test\), or draw them with "
                                         r"foodweb.negatives=uniform$"):
        _run(cfg)
    assert not out.exists()


def test_written_figures_leave_the_sessions_matplotlib_backend_alone(tmp_path):
    # plot_curves / plot_extinctions with a path called matplotlib.use("Agg"): inline figures of a notebook stopped
    import matplotlib
    import pandas as pd

    from gatbio.tasks.robustness_summary import plot_curves, plot_extinctions

    curves = pd.DataFrame({"dataset": ["w"] * 4, "perturbation": ["degree"] * 4, "model": ["pyg_gat"] * 2 + ["gat"] * 2,
                           "fraction": [0.0, 0.1] * 2, "score_mean": [0.9, 0.8, 0.9, 0.85], "score_std": [0.01] * 4})
    ext = pd.DataFrame({"order": ["degree"] * 2, "seed": [0, 0], "web": ["w", "w"], "removed": [0.0, 0.5],
                        "lost": [0.0, 0.6]})
    before = matplotlib.get_backend()
    matplotlib.use("svg")
    try:
        plot_curves(curves, "w", path=tmp_path / "c.png")
        plot_extinctions(ext, path=tmp_path / "e.png")
        assert matplotlib.get_backend() == "svg"
    finally:
        matplotlib.use(before)
    assert (tmp_path / "c.png").read_bytes()[:4] == (tmp_path / "e.png").read_bytes()[:4] == b"\x89PNG"
