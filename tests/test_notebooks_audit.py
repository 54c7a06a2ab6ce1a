"""What the notebooks' markdown says is what their own outputs show, and they say what to run when results are missing.

The claim tests read the committed notebooks' stored outputs (the tables the code printed on the full results) and
check each sentence of the markdown that states a figure or a comparison against them; they skip, naming the
command, while a notebook is committed unexecuted. The fallback tests run single cells (or a notebook copy) on
folders that lack results.
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser

import pandas as pd
import pytest
from conftest import REPO
from test_notebooks import output_text, skip_if_never_executed

NB = REPO / "notebooks"


def cells(name: str) -> list[dict]:
    return json.loads((NB / f"{name}.ipynb").read_text(encoding="utf-8"))["cells"]


def markdown(name: str, index: int) -> str:
    """The markdown of cell ``index`` on one line (a sentence may wrap anywhere)."""
    cell = cells(name)[index]
    assert cell["cell_type"] == "markdown", f"{name}: cell {index} is not markdown"
    return " ".join("".join(cell["source"]).split())


def code_source(name: str, index: int) -> str:
    cell = cells(name)[index]
    assert cell["cell_type"] == "code", f"{name}: cell {index} is not code"
    return "".join(cell["source"])


class _Tables(HTMLParser):
    """The ``<table>``s of an HTML output, each as rows of cell texts (header and body rows kept apart)."""

    def __init__(self):
        super().__init__()
        self.tables, self._cell, self._part = [], None, None

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.tables.append({"thead": [], "tbody": []})
        elif tag in ("thead", "tbody"):
            self._part = tag
        elif tag == "tr" and self.tables and self._part:
            self.tables[-1][self._part].append([])
        elif tag in ("th", "td"):
            self._cell = []

    def handle_endtag(self, tag):
        if tag in ("th", "td") and self._cell is not None:
            self.tables[-1][self._part][-1].append("".join(self._cell).strip())
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def stored_frames(name: str, index: int) -> list[pd.DataFrame]:
    """The DataFrames that code cell ``index`` displayed (its HTML outputs), first header row as columns, first
    column as index; numbers as floats where they parse."""
    cell = cells(name)[index]
    assert cell["cell_type"] == "code"
    frames = []
    for out in cell["outputs"]:
        html = out.get("data", {}).get("text/html")
        if not html:
            continue
        parser = _Tables()
        parser.feed("".join(html) if isinstance(html, list) else html)
        for t in parser.tables:
            head = t["thead"][0]
            body = [r for r in t["tbody"] if r]
            df = pd.DataFrame([r[1:] for r in body], index=[r[0] for r in body], columns=head[1:len(body[0])])
            frames.append(df.apply(lambda col: pd.to_numeric(col, errors="coerce") if col.str.match(
                r"^-?[\d.]+(e-?\d+)?$|^NaN$").all() else col))
    return frames


def stored_text(name: str, index: int) -> str:
    return "".join(output_text(o) for o in cells(name)[index]["outputs"])


def stored_stdout(name: str, index: int) -> str:
    return "".join(output_text(o) for o in cells(name)[index]["outputs"] if o.get("name") == "stdout")


def executed(name: str) -> None:
    skip_if_never_executed(NB / f"{name}.ipynb")


# ----------------------------------------------------------------------------------------------- food webs
def test_food_web_summary_claims_match_the_table():
    executed("food_web_inference")
    text = markdown("food_web_inference", 2)
    assert "`full` has the highest median PR-AUC and ROC-AUC" in text
    assert re.search(r"`win_rate_vs_published`.*is 1\.0 for it: it is ahead on every web", text)
    s = stored_frames("food_web_inference", 3)[0].set_index("model")
    assert s["median_pr_auc"].idxmax() == "full" and s["median_roc_auc"].idxmax() == "full"
    assert s.loc["full", "win_rate_vs_published"] == 1.0
    structure = ["structure_only", "gat_structure", "boosted_stack_structure", "l3_ra", "jaccard",
                 "preferential_attachment", "niche", "published_structure"]
    assert s.loc[structure, "median_pr_auc"].idxmax() == "structure_only"  # "best ... without traits"


def test_food_web_species_sparse_and_ablation_claims_match_the_tables():
    executed("food_web_inference")
    text = markdown("food_web_inference", 4)
    frames = dict(zip(stored_stdout("food_web_inference", 5).split(),
                      stored_frames("food_web_inference", 5), strict=True))
    assert set(frames) == {"summary_species", "summary_large_sparse", "ablation"}
    for name in frames:
        assert f"`{name}`" in text, f"the markdown does not introduce the table {name} that the cell shows"
    # new species: the structural baselines tie; the GAT adds little to the boosted stack
    sp = frames["summary_species"].set_index("model")
    assert "the structural baselines tie (ROC-AUC 0.5)" in text
    assert (sp.loc[["l3_ra", "jaccard", "preferential_attachment"], "median_roc_auc"] == 0.5).all()
    assert "the GAT adds little to the boosted stack" in text
    assert 0 <= sp.loc["full", "median_pr_auc"] - sp.loc["boosted_stack", "median_pr_auc"] < 0.02
    # large sparse webs: full beats the published model on every one, full_without_gat ahead of it in PR-AUC
    ls = frames["summary_large_sparse"].set_index("model")
    assert "`full` still beats the published model on every one of them" in text
    assert ls.loc["full", "win_rate_vs_published"] == 1.0
    assert "(`full_without_gat`) are ahead of it in PR-AUC" in text
    for col in ("median_pr_auc", "mean_pr_auc"):
        assert ls.loc["full_without_gat", col] > ls.loc["full", col]
    # the ablation of this run is one seed; the README's 3-seed figure is quoted as the README has it
    assert "one seed (`n_seeds`)" in text
    assert (frames["ablation"]["n_seeds"] == 1).all()
    readme = (REPO / "experiments/README.md").read_text(encoding="utf-8")
    assert "median gap −0.003 ± 0.009 PR-AUC" in text and "| links | 57 | 3 | 0.791 | 0.796 | −0.003 ± 0.009 |" in readme


# ----------------------------------------------------------------------------------------------- hub robustness
def test_hub_robustness_ratio_wording_matches_the_tables():
    """NaN ratios are those whose vanilla mean is not above 0; a finite ratio can still be ``undefined``."""
    executed("hub_robustness")
    text = markdown("hub_robustness", 6)
    assert "The ratio is NaN where vanilla GAT's mean is not above 0" in text
    assert "the verdict below calls the target `undefined`" in text
    v = stored_frames("hub_robustness", 9)[0]
    assert (v["ratio"].isna() == (v["vanilla"] <= 0)).all()
    assert ((v["target_met"] == "undefined") & v["ratio"].notna()).any()  # why the sentence says "still shown"


def test_hub_robustness_finding_matches_the_verdict():
    executed("hub_robustness")
    text = markdown("hub_robustness", 8)
    v = stored_frames("hub_robustness", 9)[0]
    drop = v[v["value"] == "drop"]
    assert "vanilla GAT's mean drop stays within ±0.03 in every row" in text
    assert (drop["vanilla"].abs() < 0.03).all()
    pooled = drop[drop["dataset"].isin(["node2vec-ppi", "foodwebs (mean of 4)"])]
    assert pooled["target_met"].isin(["undefined", "point only"]).all()
    flips = v[(v["value"] == "flip_rate") & (v["dataset"] == "node2vec-ppi")].set_index("perturbation")
    m = re.search(r"changes the top-k label set of ([\d.]+) %.*\(`gat_log`\) cuts that to ([\d.]+) % \(ratio ([\d.]+), "
                  r"target met\); under hub feature noise ([\d.]+) % → ([\d.]+) % \(([\d.]+)\)", text)
    assert m, "the finding's sentence changed: update this test with it"
    deg, noise = flips.loc["degree"], flips.loc["feature_noise"]
    assert deg["best"] == noise["best"] == "gat_log"
    assert deg["target_met"] == noise["target_met"] == "yes"
    assert [float(x) for x in m.groups()] == [round(100 * deg["vanilla"], 1), round(100 * deg["best_mean"], 1),
                                              round(deg["ratio"], 2), round(100 * noise["vanilla"], 1),
                                              round(100 * noise["best_mean"], 1), round(noise["ratio"], 2)]
    readme = " ".join((REPO / "README.md").read_text(encoding="utf-8").split())
    assert "from 12.2 % to 4.3 % (hub removal) and 7.9 % to 2.2 % (hub noise); on a CPU with AVX-512 kernels, " \
           "12.8 % to 4.5 % and 8.0 % to 2.2 %" in readme  # the AVX-512 figures the notebook quotes


def test_hub_robustness_r50_cell_does_not_say_no_food_webs_when_the_summary_is_missing(tmp_path):
    """A sweep stopped before its summary has food-web runs but no ``summary/r50.csv``: the cell says how to make it,
    not "no food webs in this sweep"."""
    import contextlib
    import io

    src = code_source("hub_robustness", 14)
    runs = pd.DataFrame({"task": ["foodweb", "protein"]})
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(src, {"pd": pd, "os": __import__("os"), "out_dir": tmp_path, "repo": tmp_path, "runs": runs,
                   "display": print, "rs": None, "plt": None})
    assert "no food webs" not in out.getvalue()
    assert "--summary-only" in out.getvalue() and "r50.csv" in out.getvalue()
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(src, {"pd": pd, "os": __import__("os"), "out_dir": tmp_path, "repo": tmp_path,
                   "runs": runs[runs["task"] == "protein"], "display": print, "rs": None, "plt": None})
    assert out.getvalue().strip() == "no food webs in this sweep"


# ----------------------------------------------------------------------------------------------- protein function
def _summary_md(text: str) -> pd.DataFrame:
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in text.splitlines()
            if line.startswith("| 0.") or line.startswith("| 1")]
    df = pd.DataFrame(rows, columns=["fraction", "variant", "n", "macro_f1", "micro_f1", "macro_f1_thr",
                                     "micro_f1_thr"])
    for c in ("macro_f1",):
        df[c + "_mean"] = df[c].str.split(" ± ").str[0].astype(float)
        df[c + "_std"] = df[c].str.split(" ± ").str[1].astype(float)
    df["fraction"] = df["fraction"].astype(float)
    return df


def test_protein_function_best_variant_claims_match_the_tables():
    executed("protein_function")
    text = markdown("protein_function", 4)
    best = stored_frames("protein_function", 5)[0]
    assert "`lr_ens` (embedding models only) up to 60 % labelled, `gat_ens`" in text and "from 70 %" in text
    assert (best.loc[best["fraction"] <= 0.6, "variant"] == "lr_ens").all()
    assert (best.loc[best["fraction"] >= 0.7, "variant"] == "gat_ens").all()
    s = _summary_md(stored_text("protein_function", 3))
    assert len(s) == 144
    ens = s[s["variant"].isin(["lr_ens", "gat_ens"])].pivot(index="fraction", columns="variant", values="macro_f1")
    gap = (s[s["variant"] == "lr_ens"].set_index("fraction")["macro_f1_mean"]
           - s[s["variant"] == "gat_ens"].set_index("fraction")["macro_f1_mean"]).abs()
    m = re.search(r"never more than ([\d.]+) apart \(50 %: ([\d.]+ ± [\d.]+) against ([\d.]+ ± [\d.]+)\)", text)
    assert m, "the sentence on the two ensembles changed: update this test with it"
    assert round(gap.max(), 3) == float(m.group(1))
    assert [ens.loc[0.5, "lr_ens"], ens.loc[0.5, "gat_ens"]] == [m.group(2), m.group(3)]
    assert "No model reaches the 0.22 Macro-F1 target at 50 %" in text
    assert s.loc[s["fraction"] == 0.5, "macro_f1_mean"].max() < 0.22


def test_protein_function_notebook_without_attention_example_says_so(tmp_path):
    """A summary without ``attention_example.json`` (a sweep without gat / gat_labels): a message, not a
    FileNotFoundError; the notebook runs to its end."""
    from conftest import run_notebook

    rows = [{"fraction": f, "variant": v, "n": 1, "macro_f1_mean": 0.1 + f / 10, "macro_f1_std": 0.0,
             "micro_f1_mean": 0.2 + f / 10, "micro_f1_std": 0.0} for f in (0.3, 0.5) for v in ("lr_prone", "mlp")]
    pd.DataFrame(rows).to_csv(tmp_path / "summary.csv", index=False)
    (tmp_path / "summary.md").write_text("a summary\n")
    run_notebook(NB / "protein_function.ipynb", env={"GATBIO_PROTEIN_RESULTS": str(tmp_path)})  # raises on an error


@pytest.mark.parametrize("name,module,func,env", [
    ("protein_function", "gatbio.tasks.protein", "run_quick", "GATBIO_PROTEIN_RESULTS"),
    ("protein_interactions", "gatbio.tasks.protein_interactions", "run", "GATBIO_INTERACTIONS_RESULTS"),
    ("hub_robustness", "gatbio.tasks.robustness", "run", "GATBIO_ROBUSTNESS_DIR"),
])
def test_quick_run_refused_by_another_runs_folder_is_one_message(name, module, func, env, tmp_path, monkeypatch):
    """``$ENV`` names a folder of another, unfinished run: the quick config refuses to resume there; the first cell
    ends with that refusal and what to do (``SystemExit``: Jupyter shows its message without a stack trace)."""
    import importlib

    from gatbio.results import ResumeConflictError

    def refuse(*args, **kwargs):
        raise ResumeConflictError(f"{tmp_path}: its runs were made with other settings (epochs); --restart ...")

    monkeypatch.setattr(importlib.import_module(module), func, refuse)
    if name != "protein_function":  # they load the quick config before running it
        monkeypatch.setattr(importlib.import_module(module), "load", lambda *a, **k: None)
    monkeypatch.setenv(env, str(tmp_path))
    monkeypatch.chdir(NB)
    src = "\n".join(line for line in code_source(name, 1).splitlines() if not line.startswith("%"))
    with pytest.raises(SystemExit, match="the quick config was not run into") as err:
        exec(src, {})
    assert env in str(err.value) and "resumes" in str(err.value)


# ----------------------------------------------------------------------------------------------- interactions
def test_protein_interactions_ceiling_claims_match_the_table():
    executed("protein_interactions")
    text = markdown("protein_interactions", 10)
    c = stored_frames("protein_interactions", 11)[0]
    profile = c.iloc[:, 0].str.split(" ± ").str[0].astype(float)
    interolog = c.iloc[:, 1].str.split(" ± ").str[0].astype(float)
    ours = c.iloc[:, 2].astype(float)
    assert "Even exact mode profiles of every protein stay near 0.75–0.78" in text
    assert profile.between(0.745, 0.785).all()
    assert "reach about 0.88 on every split type" in text
    assert interolog.between(0.875, 0.885).all()
    assert "on the random split our model is already at that ceiling" in text
    assert abs(ours["random"] - interolog["random"]) < 0.005
    assert (ours[["bfs", "dfs"]] < interolog[["bfs", "dfs"]] - 0.05).all()  # "the BFS/DFS gap ... is the cold start"


def test_protein_interactions_worked_example_claims_match_its_output():
    executed("protein_interactions")
    text = markdown("protein_interactions", 12)
    assert "every BFS test pair has at least one protein without any training pair (ES or NS)" in text
    assert list(stored_frames("protein_interactions", 13)[0].index) == ["ES", "NS"]
    m = re.search(r"test micro-F1 now ([\d.]+), stored ([\d.]+)", stored_text("protein_interactions", 13))
    assert m and m.group(1) == m.group(2), "the worked example's score differs from the stored result"
    assert "not in this folder" in markdown("protein_interactions", 4)  # the ablation models are another config's
    s = stored_frames("protein_interactions", 5)[0]
    assert not any(m.startswith("abl_") for m in s.index)
