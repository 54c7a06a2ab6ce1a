"""The hub-robustness sweep: layer variants, attention capture, summaries, the CLI, a quick real run, the notebook."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import torch
from torch_geometric.nn import GATConv as PyGGATConv
from torch_geometric.nn import GCNConv

from gatbio.cli import main as cli_main
from gatbio.nn import GATConv
from gatbio.tasks import robustness as rb
from gatbio.tasks import robustness_summary as rs

REPO = Path(__file__).resolve().parents[2]


class TwoLayer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = GATConv(3, 4, heads=2, residual=True)
        self.conv2 = GATConv(8, 2, heads=1)

    def forward(self, x, edge_index):
        return self.conv2(torch.relu(self.conv1(x, edge_index)), edge_index)


EI = torch.tensor([[0, 1, 2, 3, 0, 2], [1, 0, 0, 0, 3, 1]])


@pytest.mark.parametrize("name", list(rb.MODELS))
def test_with_variant_swaps_every_layer_and_keeps_shapes(name):
    torch.manual_seed(0)
    model = rb.with_variant(TwoLayer(), name)
    convs = [m for m in model.modules() if isinstance(m, (GATConv, PyGGATConv, GCNConv))]
    assert len(convs) == 2
    if name == "pyg_gat":
        assert all(type(c) is PyGGATConv for c in convs) and convs[0].res is not None
    elif name == "gcn":
        assert all(type(c) is GCNConv for c in convs)
    else:
        assert all(type(c) is GATConv for c in convs)
        for key, value in rb.MODELS[name].items():
            assert getattr(convs[0], key) == value
        assert convs[0].attention == rb.MODELS[name].get("attention", "gat") and convs[0].residual
    assert model(torch.randn(4, 3), EI).shape == (4, 2)


def test_unknown_variant_and_model_without_attention_layers():
    with pytest.raises(ValueError, match="unknown model 'gat_magic'.*pyg_gat"):
        rb.make_variant(GATConv(3, 4), "gat_magic")
    with pytest.raises(ValueError, match="no gatbio.nn.GATConv layer"):
        rb.with_variant(torch.nn.Linear(3, 3), "gat_log")


def test_pyg_wrapper_refuses_an_attention_bias():
    layer = rb.make_variant(GATConv(3, 4), "pyg_gat")
    with pytest.raises(ValueError, match="takes no attn_bias"):
        layer(torch.randn(4, 3), EI, attn_bias=torch.zeros(EI.size(1)))


def test_forward_with_attention_returns_the_last_layer():
    torch.manual_seed(0)
    model = TwoLayer().eval()
    x = torch.randn(4, 3)
    out, (ei, alpha) = rb.forward_with_attention(model, lambda: model(x, EI))
    assert torch.equal(out, model(x, EI))
    assert alpha.shape == (ei.size(1), 1)  # conv2 has one head: the last layer, not conv1 (two heads)
    sums = torch.zeros(4).index_add_(0, ei[1], alpha[:, 0])
    assert torch.allclose(sums, torch.ones(4), atol=1e-6)
    gcn = rb.with_variant(TwoLayer(), "gcn").eval()
    assert rb.forward_with_attention(gcn, lambda: gcn(x, EI))[1] is None


def fake_runs(tmp_path: Path) -> Path:
    """Two models, three seeds, one perturbation: pyg_gat drops by 0.10 / 0.15 / 0.20 at 5 % (twice that at
    10 %), gat_log by 0.04 / 0.05 / 0.06."""
    drops = {"pyg_gat": [0.10, 0.15, 0.20], "gat_log": [0.04, 0.05, 0.06]}
    for model, per_seed in drops.items():
        for seed, d in enumerate(per_seed):
            curve = [{"fraction": f, "score": 0.5 - d * k, "clean": 0.5, "drop": d * k, "relative": (0.5 - d * k) / 0.5,
                      "flip_rate": 0.0, "js_attention": 0.0} for f, k in ((0.0, 0), (0.05, 1), (0.1, 2))]
            run = {"task": "protein", "dataset": "node2vec-ppi", "model": model, "seed": seed, "perturbation": "degree",
                   "metric": "micro_f1", "clean_attention": {"entropy_ratio": 0.9, "hub_mass": 0.2,
                                                             "hub_mass_uniform": 0.1}, "curve": curve}
            p = tmp_path / "runs" / model / f"seed{seed}" / "degree.json"
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(json.dumps(run))
    return tmp_path


def test_summary_tables_known_values(tmp_path):
    df = rs.load_runs(fake_runs(tmp_path))
    auc = rs.auc_table(df).set_index("model")
    # relative curve 1, 1 - 2d, 1 - 4d over fractions 0, .05, .1: trapezoid mean 1 - 2d, here 1 - 2 * 0.15
    assert auc.loc["pyg_gat", "auc_mean"] == pytest.approx(0.7)
    assert auc.loc["pyg_gat", "auc_std"] == pytest.approx(0.1) and auc.loc["pyg_gat", "n"] == 3
    assert auc.loc["gat_log", "auc_mean"] > auc.loc["pyg_gat", "auc_mean"]
    head = rs.headline_table(df, fraction=0.05, perturbations=["degree"]).set_index("model")
    assert head.loc["pyg_gat", "mean"] == pytest.approx(0.15) and head.loc["pyg_gat", "ratio"] == pytest.approx(1.0)
    assert head.loc["gat_log", "ratio"] == pytest.approx(0.05 / 0.15)
    assert head.loc["gat_log", "ci_low"] < 0.05 < head.loc["gat_log", "ci_high"]
    assert (head["value"] == "drop").all()
    assert rs.attention_table(tmp_path).set_index("model").loc["gat_log", "hub_mass_mean"] == pytest.approx(0.2)
    verdict = rs.headline_verdict(rs.headline_table(df, fraction=0.05, perturbations=["degree"])).iloc[0]
    assert verdict["best"] == "gat_log" and verdict["ratio"] == pytest.approx(1 / 3)
    assert verdict["target_met"] == "yes"  # paired bootstrap ratios stay in [0.27, 0.4]
    assert rs.headline_verdict(rs.headline_table(df, fraction=0.0, perturbations=["degree"])).iloc[0][
        "target_met"] == "undefined"  # vanilla GAT does not degrade at 0 %


def relabel_degree_runs(root, perturbation: str):
    """The fake sweep's degree-removal runs recast as ``perturbation``'s (files renamed, field changed)."""
    for p in (root / "runs").rglob("degree.json"):
        run = json.loads(p.read_text())
        run["perturbation"] = perturbation
        p.with_name(f"{perturbation}.json").write_text(json.dumps(run))
        p.unlink()
    return root


def test_summary_without_headline_perturbations(tmp_path):
    """A sweep of random removals only has no headline (it is about degree and feature noise): empty tables
    with their columns, and the printed summary says why, instead of a KeyError from deep in pandas."""
    root = relabel_degree_runs(fake_runs(tmp_path), "random")
    df = rs.load_runs(root)
    head = rs.headline_table(df, fraction=0.05)
    assert head.empty and list(head.columns) == rs.HEADLINE_COLUMNS
    verdict = rs.headline_verdict(head)
    assert verdict.empty and list(verdict.columns) == rs.VERDICT_COLUMNS
    cfg = rb.load(REPO / "experiments" / "configs" / "robustness_quick.yaml",
              [f"out_dir={root}", "perturbations=[random]", "foodweb.enabled=false", "protein.dataset=node2vec-ppi",
               "models=[pyg_gat,gat_log]", "seeds=[0,1,2]"])
    text = rb.summarize(cfg)
    assert "headline: none" in text and "area under the degradation curve" in text


def test_the_summary_covers_the_configs_runs_only(tmp_path, caplog):
    """A folder resumed with fewer datasets, models or seeds keeps the other run files; the summary of the
    current config leaves them out (and says so), so its tables agree with each other and with config.yaml."""
    root = fake_runs(tmp_path)
    df = rs.load_runs(root, select={"model": {"gat_log"}, "seed": {0, 1}})
    assert set(df["model"]) == {"gat_log"} and set(df["seed"]) == {0, 1}
    assert "2 run file(s) of webs, datasets, models, seeds or perturbations that this config does not name are " \
           "left out" not in caplog.text and "4 run file(s)" in caplog.text
    cfg = rb.load(REPO / "experiments" / "configs" / "robustness_quick.yaml",
                  [f"out_dir={root}", "perturbations=[degree]", "foodweb.enabled=false", "protein.dataset=node2vec-ppi",
                   "models=[gat_log]", "seeds=[0,1,2]"])
    text = rb.summarize(cfg)
    assert "1 models x 1 perturbations" in text and "pyg_gat" not in pd.read_csv(root / "summary" / "auc.csv")[
        "model"].tolist()


def test_the_summary_gives_each_rows_seed_count_where_they_differ(tmp_path):
    """summary.txt named one seed count for every row ('x 3 seeds'), though a summary of an interrupted sweep has
    rows over fewer (the CSVs' n): where the counts differ, the tables give each row's; where they agree, the
    first line alone says it."""
    root = fake_runs(tmp_path)
    cfg = rb.load(REPO / "experiments" / "configs" / "robustness_quick.yaml",
                  [f"out_dir={root}", "perturbations=[degree]", "foodweb.enabled=false", "protein.dataset=node2vec-ppi",
                   "models=[pyg_gat,gat_log]", "seeds=[0,1,2]"])

    def table(text, title, lines=3):  # the first lines under the line that starts with title, split into cells
        return [line.split() for line in text.split("\n" + title, 1)[1].splitlines()[1:1 + lines]]

    text = rb.summarize(cfg)
    assert " x 3 seeds (0–2) -> " in text.splitlines()[0] and "n=" not in text
    assert table(text, "drop at 5%")[0][-1] == "ratio" and table(text, "headline (target")[0][-1] == "target_met"
    (root / "runs" / "gat_log" / "seed2" / "degree.json").unlink()  # gat_log's third seed never ran
    text = rb.summarize(cfg)
    assert (root / "summary" / "summary.txt").read_text() == text + "\n"
    assert " x 2 to 3 of seeds 0–2 (each row's n below) -> " in text.splitlines()[0]
    for title in ("drop at 5%", "flip_rate at 5%"):
        header, *rows = table(text, title)
        assert header[-1] == "n" and {row[2]: row[-1] for row in rows} == {"pyg_gat": "3", "gat_log": "2"}
    header, row = table(text, "headline (target", 2)
    assert header[-2:] == ["vanilla_n", "best_n"] and row[-2:] == ["3", "2"]
    # the area of gat_log's curve over its 2 seeds (1 - 2 * mean(0.04, 0.05)) says so; pyg_gat's, over 3, not
    assert table(text, "area under the degradation curve", 4)[2:] == [["node2vec-ppi", "gat_log", "0.91", "(n=2)"],
                                                                    ["pyg_gat", "0.7"]]


def test_mean_ci():
    m, lo, hi, n = rs.mean_ci([1.0, 2.0, 3.0])
    assert (m, n) == (2.0, 3) and lo == pytest.approx(2 - 4.302653 / np.sqrt(3), rel=1e-5) and hi > m


def test_config_errors_are_clear(tmp_path, capsys):
    cfg = REPO / "experiments" / "configs" / "robustness_quick.yaml"
    assert cli_main(["robustness", "--config", str(cfg), "fractions=[0.0,1.5]"]) == 1
    assert "fractions: 1.5 is outside [0, 1]" in capsys.readouterr().err
    assert cli_main(["robustness", "--config", str(cfg), "models=[gat_magic]"]) == 1
    assert "unknown model 'gat_magic'" in capsys.readouterr().err
    assert cli_main(["robustness", "--config", str(cfg), "perturbations=[hubs]"]) == 1
    assert "unknown perturbation 'hubs'" in capsys.readouterr().err
    assert cli_main(["robustness", "--config", str(cfg), "fractions=[0.05]"]) == 1
    assert "include 0.0" in capsys.readouterr().err
    assert cli_main(["robustness", "--config", str(cfg), "foodweb.webs=[cheddar/Nowhere]"]) == 1
    assert "foodweb.webs: unknown dataset 'cheddar/Nowhere'" in capsys.readouterr().err


def test_builtin_quick_config_equals_the_yaml_file():
    from omegaconf import OmegaConf

    assert rb.load(rb.QUICK_CONFIG) == rb.load(REPO / "experiments" / "configs" / "robustness_quick.yaml")
    assert OmegaConf.to_container(OmegaConf.load(REPO / "experiments" / "configs" / "robustness_quick.yaml")) \
        == rb.QUICK_CONFIG


def test_unit_costs_weigh_the_task_and_the_models_left():
    left = {("protein", "node2vec-ppi", 0): ["gcn", "gat_log"], ("foodweb", "w", 0): ["gcn"], ("foodweb", "w", 1): []}
    items = [(None, "protein", "node2vec-ppi", 0), (None, "foodweb", "w", 0), (None, "foodweb", "w", 1)]
    assert rb._unit_costs(items, left) == [2 * rb.UNIT_COST["protein"], rb.UNIT_COST["foodweb"], rb.UNIT_COST["foodweb"]]
    assert rb.UNIT_COST["protein"] > rb.UNIT_COST["foodweb"]


def test_run_quick_takes_more_settings(monkeypatch, tmp_path):
    # the CUDA test runs the quick config without dropout on both devices (tests/test_device_commands.py)
    monkeypatch.setattr(rb, "run", lambda cfg, progress: cfg)
    cfg = rb.run_quick(tmp_path, device="cpu", overrides=("foodweb.dropout=0", "protein.attn_dropout=0"))
    assert (cfg.foodweb.dropout, cfg.protein.attn_dropout, cfg.device) == (0, 0, "cpu")
    assert cfg.protein.dropout == rb.load(rb.QUICK_CONFIG).protein.dropout > 0
    assert cfg.out_dir == str(tmp_path / "robustness")


@pytest.fixture(scope="module")
def quick_run(data_root, tmp_path_factory):
    """The quick config on real data, once for this module (also what the notebook reads)."""
    out = tmp_path_factory.mktemp("robustness_quick")
    text = rb.run_quick(out)
    return out / "robustness", text


@pytest.mark.slow
def test_quick_run_on_real_data(quick_run):
    out, text = quick_run
    cfg = rb.load(rb.QUICK_CONFIG)
    runs = sorted(out.glob("runs/**/*.json"))
    n_datasets = 1 + len(cfg.foodweb.webs)
    assert len(runs) == n_datasets * len(cfg.models) * len(cfg.seeds) * len(cfg.perturbations)
    df = rs.load_runs(out)
    at0 = df[df["fraction"] == 0]
    assert np.allclose(at0["drop"], 0) and np.allclose(at0["flip_rate"], 0)
    assert (df["score"].dropna().between(0, 1)).all()
    assert (out / "splits" / "protein" / "node2vec-ppi" / "seed0.json").is_file()
    for name in ("curves.csv", "auc.csv", "headline.csv", "r50.csv"):
        assert (out / "summary" / name).is_file()
    r50 = pd.read_csv(out / "summary" / "r50.csv")
    assert r50["r50_mean"].dropna().between(0, 1).all()
    assert "area under the degradation curve" in text
    # removing the top 20 % by degree removes more edges than removing 20 % at random
    js = df[(df["fraction"] == 0.2) & (df["model"] == "pyg_gat") & (df["task"] == "protein")]
    assert js.set_index("perturbation").loc["degree", "n_items"] <= js.set_index("perturbation").loc["feature_noise", "n_items"]


@pytest.mark.slow
def test_resume_skips_finished_runs(quick_run):
    out, _ = quick_run
    before = {p: p.stat().st_mtime_ns for p in out.glob("runs/**/*.json")}
    cfg = rb.load(rb.QUICK_CONFIG, [f"out_dir={out}"])
    rb.run(cfg, progress=False)
    timing = json.loads((out / "timing.json").read_text())
    # every unit was finished: none ran (left out before the pool, so progress times only this call's work)
    assert timing["jobs"] == [] and timing["units_computed_this_call"] == 0 and timing["units"] > 0
    # nothing computed: the machine is named, not calibrated (the calibration is for a call's timing)
    assert timing["machine"]["cpu"] and "python_loop_seconds" not in timing["machine"]
    assert before == {p: p.stat().st_mtime_ns for p in out.glob("runs/**/*.json")}
    # a run file of another shape is no result: the summary says so (it crashed: KeyError 'dataset'), a run
    # makes it again
    victim = sorted(before)[0]
    good = json.loads(victim.read_text())
    victim.write_text('{"foo": 1}')
    assert "incomplete: 1 of the" in rb.run(cfg, summary_only=True, progress=False)
    rb.run(cfg, progress=False)
    assert json.loads(victim.read_text())["curve"] == good["curve"]
    from gatbio.results import ResumeConflictError

    with pytest.raises(ResumeConflictError, match=r"fractions: \[0\.0, 0\.05, 0\.2\] -> \[0\.0, 0\.1\]"):
        rb.run(rb.load(rb.QUICK_CONFIG, [f"out_dir={out}", "fractions=[0.0,0.1]"]), progress=False)


@pytest.mark.slow
def test_notebook_runs_on_the_quick_results(quick_run):
    from conftest import run_notebook

    out, _ = quick_run
    run_notebook(REPO / "notebooks" / "hub_robustness.ipynb", env={"GATBIO_ROBUSTNESS_DIR": str(out)})


def test_a_pairs_bootstrap_interval_does_not_depend_on_the_other_models():
    """Each (model, pyg_gat) pair resamples with a generator seeded 0 afresh: adding an unrelated model (or web)
    to the sweep leaves gat_log's interval, and so the verdict, as it was."""
    rng = np.random.default_rng(5)
    rows = [{"task": "protein", "dataset": "d", "perturbation": "degree", "metric": "micro_f1", "model": m,
             "seed": s, "fraction": 0.05, "drop": float(rng.uniform(0.02, 0.2)), "clean": 0.5}
            for m in ("pyg_gat", "gat_log", "gcn") for s in range(8)]
    df = pd.DataFrame(rows)
    pair = df[df["model"] != "gcn"]
    alone = rs.headline_table(pair, fraction=0.05, perturbations=["degree"]).set_index("model").loc["gat_log"]
    both = rs.headline_table(pd.concat([df[df["model"] == "gcn"], pair]), fraction=0.05,
                             perturbations=["degree"]).set_index("model")
    assert both.loc["gat_log", ["ratio_ci_low", "ratio_ci_high"]].tolist() == \
        alone[["ratio_ci_low", "ratio_ci_high"]].tolist()


@pytest.mark.parametrize("foodweb", ["true", "false"])
def test_a_summary_without_r50_leaves_no_earlier_r50_tables(tmp_path, foodweb):
    """R50 follows the node removals of the food webs: a summary without them (here hub feature noise only, or no
    food web) removes the R50 table, extinction curves and figure an earlier summary of the folder wrote, which
    otherwise stood beside the new tables as if they belonged to them."""
    root = relabel_degree_runs(fake_runs(tmp_path), "feature_noise")
    stale = [root / "summary" / "r50.csv", root / "summary" / "extinction_curves.csv",
             root / "figures" / "extinctions.png"]
    for p in stale:
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("from an earlier summary")
    cfg = rb.load(REPO / "experiments" / "configs" / "robustness_quick.yaml",
                  [f"out_dir={root}", "perturbations=[feature_noise]", f"foodweb.enabled={foodweb}",
                   "models=[pyg_gat,gat_log]", "seeds=[0,1,2]"])
    text = rb.summarize(cfg)
    assert "area under the degradation curve" in text and (root / "summary" / "auc.csv").is_file()
    assert [p for p in stale if p.exists()] == []


def test_foodweb_problem_inputs_and_messages_come_from_training_links_only(monkeypatch):
    """The food-web problem's observed graph (messages, degrees, trophic levels, adjacency rows: what the model
    and the hub rankings read) is the training links of its split: no validation or test link."""
    from torch_geometric.data import Data

    import gatbio.data
    from gatbio.tasks.foodweb import adjacency_of, node_inputs, observed_levels

    rng = np.random.default_rng(0)
    n = 20
    A = np.triu(rng.random((n, n)) < 0.25, 1) | (rng.random((n, n)) < 0.05)  # directed, a few mutual links
    np.fill_diagonal(A, False)
    web = Data(edge_index=torch.from_numpy(np.stack(np.nonzero(A))).long(), num_nodes=n, name="tiny")
    monkeypatch.setattr(gatbio.data, "load", lambda name, **k: web)
    prob = rb._FoodwebProblem("tiny", 0, rb.FoodwebSettings())
    fold = prob.fold
    observed = {tuple(e) for e in prob.data.edge_index.t().tolist()}
    assert observed == {tuple(e) for e in fold.train_edge_index.t().tolist()}
    held = {tuple(e) for part in (fold.test_pos, fold.val_pos) for e in part.t().tolist()}
    assert held and not observed & held and observed | held == {tuple(e) for e in web.edge_index.t().tolist()}
    A_obs = adjacency_of(fold.train_edge_index, n)
    assert torch.equal(prob.data.x, node_inputs(A_obs, observed_levels(A_obs), None, True))
