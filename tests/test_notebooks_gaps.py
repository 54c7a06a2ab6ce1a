"""The notebooks on partial or other configs' results folders: a line that says what is missing and what to do (or
the rest of the notebook), never a stack trace.

- protein_interactions on a folder without ``gat`` (``experiments/configs/shs27k_ablation.yaml``'s models): the
  ceiling and the worked example use the model best on validation; a folder without ``config.yaml``, without
  ``summary.md`` or without its saved splits.
- hub_robustness on run files copied without their ``config.yaml``; a sweep without the ``degree`` perturbation; a
  summary stopped between ``r50.csv`` and ``extinction_curves.csv``.

Tiny folders made here (a 30-protein interaction file trained for a few epochs; hand-written robustness run files):
no benchmark is run.
"""

from __future__ import annotations

import contextlib
import io
import json
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import REPO, write_pair_files

NB = REPO / "notebooks"


def code_source(name: str, index: int) -> str:
    """Code cell ``index`` of ``name`` without its IPython magics (``%matplotlib inline``)."""
    cell = json.loads((NB / f"{name}.ipynb").read_text(encoding="utf-8"))["cells"][index]
    assert cell["cell_type"] == "code", f"{name}: cell {index} is not code"
    return "\n".join(line for line in "".join(cell["source"]).splitlines() if not line.startswith("%"))


def run_cells(name: str, indices: list[int], ns: dict) -> str:
    """Run code cells ``indices`` of ``name`` in the namespace ``ns``, in order; returns what they printed."""
    import matplotlib

    matplotlib.use("Agg")
    ns.setdefault("display", print)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        for i in indices:
            exec(code_source(name, i), ns)
    return out.getvalue()


def execute_notebook(name: str, env: dict[str, str]):
    """The notebook ``name`` executed top to bottom in a fresh kernel (raises on the first failing cell)."""
    nbformat = pytest.importorskip("nbformat")
    NotebookClient = pytest.importorskip("nbclient").NotebookClient
    import os

    nb = nbformat.read(NB / f"{name}.ipynb", as_version=4)
    old = dict(os.environ)
    os.environ.update(env)
    try:
        NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(NB)}}).execute()
    finally:
        os.environ.clear()
        os.environ.update(old)
    return nb


def stdout_of(nb, index: int) -> str:
    return "".join(o.get("text", "") for o in nb.cells[index].outputs if o.get("name") == "stdout")


# ----------------------------------------------------------------------------------------------- interactions
@pytest.fixture(scope="module")
def ablation_folder(tmp_path_factory) -> Path:
    """Results of an ablation-like config (``gat_region``, an ``abl_*`` custom model, ``profile_rule``; BFS and DFS,
    seed 0; no ``gat``) on a tiny interaction file (``dataset: files``): a few seconds."""
    from gatbio.tasks import protein_interactions as pi

    root = tmp_path_factory.mktemp("interactions")
    write_pair_files(root, n=30, n_pairs=80, seq_len=40, seed=1)
    out = root / "out"
    cfg = pi.load(None, [f"actions={root / 'actions.txt'}", f"sequences={root / 'seqs.tsv'}", "dataset=files",
                         "features=[aac]", "splits=[bfs,dfs]", "seeds=[0]", "graphs=[train]",
                         "models=[gat_region,abl_no_impute,profile_rule]",
                         "custom_models={abl_no_impute: {base: gat_region, impute: 0}}", "epochs=5", "hidden=8",
                         "heads=1", "name=tiny_ablation", f"out_dir={out}", "device=cpu"])
    pi.run(cfg, progress=False)
    return out


def _copy(folder: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(folder, tmp_path / "results"))


def test_interactions_notebook_without_gat_uses_the_model_best_on_validation(ablation_folder):
    """A folder of another config (the ablation's: no ``gat``) gave a KeyError (ceiling) and a FileNotFoundError (the
    worked example's stored gat.json); now one line names the stand-in and the config that makes ``gat``, and the
    ceiling and the worked example show that model, chosen on the validation pairs."""
    nb = execute_notebook("protein_interactions", {"GATBIO_INTERACTIONS_RESULTS": str(ablation_folder)})
    val = pd.DataFrame([json.loads(p.read_text()) for p in (ablation_folder / "runs").glob("*/s0/train/*.json")])
    best = val.groupby("model")["val_micro_f1"].mean().idxmax()
    said = stdout_of(nb, 7)
    assert "no `gat` in this folder" in said and "experiments/configs/shs27k.yaml" in said
    assert f"below, {best}, the best on the validation pairs" in said
    ceiling = "".join(o.get("data", {}).get("text/plain", "") for o in nb.cells[11].outputs)
    assert f"ours: {best} (leakage-free)" in ceiling
    stored = json.loads((ablation_folder / f"runs/bfs/s0/train/{best}.json").read_text())["micro_f1"]
    assert f"bfs seed 0: model {best}; test micro-F1 now" in stdout_of(nb, 13)
    assert f"stored {stored:.3f};" in stdout_of(nb, 13)


def test_interactions_ceiling_without_saved_splits_is_one_line(ablation_folder, tmp_path, monkeypatch):
    """Results copied without ``splits/``: the ceiling says why it is not shown (the oracle's SystemExit ended the
    cell); the notebook goes on."""
    results = _copy(ablation_folder, tmp_path)
    shutil.rmtree(results / "splits")
    monkeypatch.setenv("GATBIO_INTERACTIONS_RESULTS", str(results))
    monkeypatch.chdir(NB)
    ns: dict = {}
    printed = run_cells("protein_interactions", [1, 5, 7, 11], ns)
    assert "no ceiling:" in printed and "no bfs split files" in printed
    assert ns["ceiling"] is None


def test_interactions_notebook_without_config_says_what_to_copy(ablation_folder, tmp_path, monkeypatch):
    """summary.csv and runs/ without config.yaml: one message (SystemExit, no stack trace) naming the file and where
    it comes from, not "config file ... does not exist" from deep in the config loader."""
    results = _copy(ablation_folder, tmp_path)
    (results / "config.yaml").unlink()
    monkeypatch.setenv("GATBIO_INTERACTIONS_RESULTS", str(results))
    monkeypatch.chdir(NB)
    with pytest.raises(SystemExit, match="has summary.csv but no config.yaml") as err:
        run_cells("protein_interactions", [1], {})
    assert "Copy the run's config.yaml" in str(err.value)


def test_interactions_summary_without_its_markdown_says_how_to_make_it(ablation_folder, tmp_path):
    """summary.csv written, summary.md not (a run stopped between the two): the command that writes it."""
    results = _copy(ablation_folder, tmp_path)
    (results / "summary.md").unlink()
    printed = run_cells("protein_interactions", [3], {"results": results, "repo": REPO, "os": __import__("os")})
    assert printed.startswith("no summary.md:") and "--summary-only" in printed


# ----------------------------------------------------------------------------------------------- hub robustness
def write_runs(out: Path, models=("pyg_gat", "gat_log"), perturbations=("degree", "random", "feature_noise"),
               seeds=(0, 1), datasets=(("protein", "node2vec-ppi"), ("foodweb", "cheddar/Benguela"))) -> None:
    """Finished run files as :func:`gatbio.tasks.robustness.run` writes them (the keys the summaries read)."""
    from gatbio.results import write_json
    from gatbio.tasks.robustness import _run_path

    rng = np.random.default_rng(0)
    for task, dataset in datasets:
        for model in models:
            for seed in seeds:
                for pert in perturbations:
                    curve = []
                    for f in (0.0, 0.05, 0.2):
                        score = 0.5 - f * rng.uniform()
                        curve.append({"fraction": f, "score": score, "clean": 0.5, "drop": 0.5 - score,
                                      "relative": score / 0.5, "flip_rate": f * rng.uniform(),
                                      "js_attention": f * rng.uniform(), "n_items": 10})
                    write_json(_run_path(out, task, dataset, model, seed, pert),
                               {"task": task, "dataset": dataset, "model": model, "seed": seed, "perturbation": pert,
                                "metric": "micro_f1" if task == "protein" else "pr_auc",
                                "clean_attention": {"entropy_ratio": 0.9, "hub_mass": 0.1, "hub_mass_uniform": 0.05},
                                "curve": curve})


def test_hub_robustness_notebook_runs_on_runs_without_config(tmp_path):
    """runs/ copied without config.yaml: the config only selects among the run files, so every run file is read
    (said in a line) and the notebook runs to its end (it stopped with FileNotFoundError in its first cell)."""
    write_runs(tmp_path)
    nb = execute_notebook("hub_robustness", {"GATBIO_ROBUSTNESS_DIR": str(tmp_path)})
    said = stdout_of(nb, 1)
    assert "has no config.yaml: every run file under runs/ is read" in said
    assert "72 curve points; 2 models, 2 seeds" in said
    assert not (tmp_path / "config.yaml").exists()  # read, not run into


def test_hub_robustness_attention_figure_without_degree_runs_is_one_line(tmp_path):
    """A sweep without the degree perturbation: the figure of hub removal says it has no runs to show (an empty
    selection gave IndexError)."""
    from gatbio.tasks import robustness_summary as rs

    write_runs(tmp_path, perturbations=("random", "feature_noise"))
    curves = rs.curve_table(rs.load_runs(tmp_path))
    import matplotlib.pyplot as plt

    printed = run_cells("hub_robustness", [12], {"curves": curves, "plt": plt})
    assert printed.startswith("no `degree` (top-degree removal) runs in this folder")


def test_hub_robustness_r50_without_extinction_curves_says_how_to_make_them(tmp_path):
    """summary/r50.csv written, extinction_curves.csv not (a summary stopped between them): the R50 table, then the
    command that makes the curves (not FileNotFoundError)."""
    from gatbio.tasks import robustness_summary as rs

    write_runs(tmp_path, datasets=(("foodweb", "cheddar/Benguela"),))
    (tmp_path / "summary").mkdir()
    pd.DataFrame({"web": ["cheddar/Benguela"] * 2, "protect_basal": [False, True], "order": ["degree"] * 2,
                  "r50_mean": [0.3, 0.4]}).to_csv(tmp_path / "summary" / "r50.csv", index=False)
    import matplotlib.pyplot as plt

    printed = run_cells("hub_robustness", [14], {"pd": pd, "os": __import__("os"), "out_dir": tmp_path,
                                                 "repo": tmp_path, "runs": rs.load_runs(tmp_path), "rs": rs,
                                                 "plt": plt})
    assert "0.3" in printed and "0.4" in printed  # the R50 table was shown (display: print)
    assert "summary/extinction_curves.csv is missing" in printed and "--summary-only" in printed
