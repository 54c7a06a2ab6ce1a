"""The food-web task: folds, traits fallback, per-web results, resume, summaries, predict and the CLI."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import torch
from conftest import niche_edges
from torch_geometric.data import Data

from gatbio.cli import main as gatbio_main
from gatbio.tasks import foodweb as fw


def write_web(folder, n=16, seed=0, traits=True):
    """A web folder in the gateway_dev/webs layout."""
    wid = folder.name.rsplit("_", 1)[1]
    folder.mkdir(parents=True)
    ei, niche = niche_edges(n, seed)
    (folder / f"{wid}_edge_list.txt").write_text("".join(f"{a} {b}\n" for a, b in ei.T))
    if traits:
        rows = [f"{k} {int(k % 2)} {int(k % 2 == 0)} {np.log10(niche[k] + 0.01):.5f}" for k in range(n)]
        (folder / f"{wid}_node_attr_list.txt").write_text("id met_a met_b log_mass\n" + "\n".join(rows) + "\n")
    return ei


def tiny_cfg(tmp_path, **kw) -> fw.FoodWebConfig:
    base = dict(webs=str(tmp_path / "webs"), out=str(tmp_path / "out"), seeds=[0, 1], species_seeds=[0],
                gat=fw.GATParams(epochs=4, hidden_channels=4, heads=2, rounds=1),
                stack=fw.lp.StackParams(max_iter=10, max_negatives=200), niche_steps=10, ensemble_seeds=3)
    base.update(kw)
    return fw.FoodWebConfig(**base)


def test_prepare_traits_imputes_and_flags_nan():
    x = np.array([[1.0, np.nan], [2.0, 4.0], [3.0, 8.0]])
    out, names = fw.prepare_traits(x, ["a", "b"])
    assert names == ["a", "b", "b_missing"]
    assert np.isfinite(out).all()
    np.testing.assert_array_equal(out[:, 2], [1.0, 0.0, 0.0])
    np.testing.assert_allclose(out.mean(0)[:2], 0.0, atol=1e-12)  # standardised
    assert fw.prepare_traits(None) == (None, [])


def test_species_folds_partition_the_species():
    ei, _ = niche_edges(17, 1)
    data = Data(edge_index=torch.from_numpy(ei).long(), num_nodes=17)
    folds = fw.species_folds(data, 5, seed=0)
    held = [set(f["split"]["held_out_species"]) for f in folds]
    assert set().union(*held) == set(range(17)) and sum(map(len, held)) == 17
    for f, h in zip(folds, held, strict=True):
        obs = f["observed"].numpy()
        assert not (np.isin(obs[0], list(h)) | np.isin(obs[1], list(h))).any()
        touch = np.zeros(17, dtype=bool)
        touch[list(h)] = True
        expect = touch[:, None] | touch[None, :]
        np.fill_diagonal(expect, False)
        np.testing.assert_array_equal(f["test"], expect)


def test_link_folds_follow_the_gateway_protocol(data_root):
    data = fw.read_web_folder(data_root / "gateway_dev" / "webs" / "PP2I4_250")
    folds = fw.link_folds(data)
    n, E = data.num_nodes, data.num_edges
    assert [f["split"]["test_lines"] for f in folds][0] == [0, 12]
    for f in folds:
        y = f["truth"][f["test"]]
        lo, hi = f["split"]["test_lines"]
        assert y.sum() == hi - lo  # the held-out block
        assert (~y).sum() == n * (n - 1) - E  # every non-link of the full web


def test_run_web_writes_results_and_resumes(tmp_path, monkeypatch):
    write_web(tmp_path / "webs" / "Tiny_1", n=15)
    cfg = tiny_cfg(tmp_path)
    path = fw.run_web(tmp_path / "webs" / "Tiny_1", cfg.out, cfg, "links")
    rec = json.loads(open(path).read())
    rows = rec["rows"]
    species = json.loads(open(fw.run_web(tmp_path / "webs" / "Tiny_1", cfg.out, cfg, "species")).read())
    assert len(species["splits"]) == 5 and {r["protocol"] for r in species["rows"]} == {"species"}
    links = [r for r in rows if r["protocol"] == "links"]
    assert {r["model"] for r in links} == set(fw.OUR_MODELS + fw.BASELINES)
    # folds x seeds: `gat` is a 3-seed ensemble on this small web, the ablation twin keeps `seeds`
    assert sorted(r["seed"] for r in links if r["model"] == "gat") == sorted([0, 1, 2] * 5)
    assert sorted(r["seed"] for r in links if r["model"] == "no_trophic_bias") == sorted([0, 1] * 5)
    assert {r["seed"] for r in links if r["model"] == "gat_structure"} == {0}
    assert {r["seed"] for r in species["rows"] if r["model"] == "gat"} == {0}  # species protocol: species_seeds
    blocks = [sp["test_lines"] for sp in rec["splits"]]  # consecutive blocks of file lines
    assert blocks[0][0] == 0 and blocks[-1][1] == rec["num_links"]
    assert all(a[1] == b[0] for a, b in zip(blocks, blocks[1:], strict=False))
    assert all(0 <= r["pr_auc"] <= 1 and 0 <= r["roc_auc"] <= 1 for r in rows)
    # resume: a finished web is not recomputed
    monkeypatch.setattr(fw, "fold_scores", lambda *a, **k: pytest.fail("recomputed a finished web"))
    assert fw.run_web(tmp_path / "webs" / "Tiny_1", cfg.out, cfg, "links") == path


@pytest.mark.parametrize("jobs,order", [(1, ["S_1", "M_2", "L_3"]), (2, ["L_3", "M_2", "S_1"])])
def test_benchmark_order_of_units(tmp_path, monkeypatch, jobs, order):
    """The links protocol first; in one process the smallest webs first (an interrupted run has most webs done),
    in parallel the largest first (a large web started last keeps the other workers waiting)."""
    from gatbio import parallel

    for name, n in (("L_3", 30), ("S_1", 10), ("M_2", 20)):
        write_web(tmp_path / "webs" / name, n=n, seed=n)
    seen = []

    class Stop(Exception):
        pass

    def fake(fn, items, **kwargs):
        seen.extend((Path(src).name, protocol) for src, _, _, protocol, *_ in items)
        raise Stop

    monkeypatch.setattr(parallel, "parallel_map", fake)
    with pytest.raises(Stop):
        fw.benchmark(tiny_cfg(tmp_path, jobs=jobs), progress=False)
    assert seen == [(w, "links") for w in order] + [(w, "species") for w in order]


def test_benchmark_tables(tmp_path):
    write_web(tmp_path / "webs" / "A_1", n=14, seed=1)
    write_web(tmp_path / "webs" / "B_2", n=16, seed=2)
    cfg = tiny_cfg(tmp_path, protocols=["links"], models=["full", "gat", "no_trophic_bias", "l3_ra", "boosted_stack",
                                                          "gat_structure", "structure_only", "boosted_stack_structure"])
    tables = fw.benchmark(cfg, progress=False)
    s = tables["summary"]
    assert list(s.columns[:6]) == ["model", "n_webs", "median_roc_auc", "mean_roc_auc", "median_pr_auc", "mean_pr_auc"]
    assert s["model"].is_unique and (s["n_webs"] == 2).all()
    per_web = tables["per_web"]
    assert {"web", "model", "roc_auc", "pr_auc"} <= set(per_web.columns)
    assert (tmp_path / "out" / "summary.csv").is_file() and (tmp_path / "out" / "per_fold.csv").is_file()
    ab = tables["ablation"].set_index("protocol")
    assert ab.loc["links", "n_seeds"] == 2 and ab.loc["links", "n_webs"] == 2
    assert (tmp_path / "out" / "ablation_groups.csv").is_file() and tables["ablation_groups"]["n_webs"].sum() == 2 * 3


def test_ensemble_seed_list():
    assert fw.ensemble_seed_list([0], 500, fw.FoodWebConfig(ensemble_seeds=5)) == [0, 1, 2, 3, 4]  # no size limit
    cfg = fw.FoodWebConfig(ensemble_seeds=5, ensemble_max_species=100)
    assert fw.ensemble_seed_list([0], 100, cfg) == [0, 1, 2, 3, 4]
    assert fw.ensemble_seed_list([0, 1, 2], 30, cfg) == [0, 1, 2, 3, 4]  # the ablation seeds come first
    assert fw.ensemble_seed_list([3, 7], 30, cfg) == [3, 7, 8, 9, 10]
    assert fw.ensemble_seed_list([0], 101, cfg) == [0]  # a large web keeps its seeds
    assert fw.ensemble_seed_list([0, 1], 30, fw.FoodWebConfig(ensemble_seeds=1)) == [0, 1]


def test_full_pools_every_gat_seed_with_both_stacks(monkeypatch):
    """`full` is the log-odds pool of the seed-averaged `gat` logits and both stacks: with a GAT whose seeds
    disagree, it equals that formula with every seed passed in `gat_seeds`, with each protocol's weights;
    `full_without_gat` is the same pool without the GAT."""
    ei, _ = niche_edges(14, 3)
    A = fw.adjacency_of(torch.from_numpy(ei), 14)
    rng = np.random.default_rng(0)
    fake = {s: rng.normal(size=(14, 14)) for s in range(4)}
    devices = []
    monkeypatch.setattr(fw, "fit_gat", lambda A, tr, params, trophic_bias=True, mode="links", seed=0, masks=None,
                        device=None: devices.append(device) or type("M", (), {"seed": seed})())
    monkeypatch.setattr(fw, "gat_scores", lambda model, A, tr, params: fake[model.seed])
    cfg = fw.FoodWebConfig(models=["full", "gat", "boosted_stack", "linear_stack", "full_without_gat"],
                           stack=fw.lp.StackParams(max_iter=5, max_negatives=100))
    assert cfg.pool_weights == [2.0, 1.0, 1.0] and cfg.species_pool_weights == [0.5, 1.0, 0.0]
    lo, gat = fw.lp.log_odds, np.mean([fake[s] for s in range(4)], axis=0)
    out = fw.fold_scores(A, None, cfg, "links", [0], gat_seeds=[0, 1, 2, 3])
    assert len(out["gat"]) == 4
    from gatbio.device import resolve_device

    assert devices == [resolve_device("auto")] * 4  # cfg.device (auto) reaches every GAT fit, resolved
    hgb, lin = lo(out["boosted_stack"][0]), lo(out["linear_stack"][0])
    assert not np.allclose(hgb, lin)  # two learners
    np.testing.assert_allclose(out["full"][0], (2 * gat + hgb + lin) / 4)
    np.testing.assert_allclose(out["full_without_gat"][0], (hgb + lin) / 2)
    sp = fw.fold_scores(A, None, cfg, "species", [0], gat_seeds=[0, 1, 2, 3])  # the species weights
    np.testing.assert_allclose(sp["full"][0], (0.5 * gat + lo(sp["boosted_stack"][0])) / 1.5)
    np.testing.assert_allclose(sp["full_without_gat"][0], lo(sp["boosted_stack"][0]))
    for bad in ([1.0, 1.0], [1.0, -1.0, 1.0]):
        with pytest.raises(ValueError, match="3 non-negative"):
            fw.pool(gat, {"hgb": out["boosted_stack"][0]}, bad)
    with pytest.raises(ValueError, match="no member"):
        fw.pool(None, {"hgb": out["boosted_stack"][0]}, [1.0, 0.0, 0.0])


def test_ablation_groups_pairs_webs_on_shared_seeds():
    import pandas as pd

    rows = []
    # web A (10 species): gat beats no_trophic_bias by 0.1 and 0.3 on seeds 0, 1; web B (200 species): loses by
    # 0.2 on seed 0; gat's seed 2 on A has no twin and must be ignored
    for web, seed, gat, nob in (("A", 0, 0.6, 0.5), ("A", 1, 0.8, 0.5), ("B", 0, 0.3, 0.5)):
        for fold in range(2):
            rows += [{"protocol": "links", "web": web, "fold": fold, "model": "gat", "seed": seed, "pr_auc": gat},
                     {"protocol": "links", "web": web, "fold": fold, "model": "no_trophic_bias", "seed": seed,
                      "pr_auc": nob}]
    rows.append({"protocol": "links", "web": "A", "fold": 0, "model": "gat", "seed": 2, "pr_auc": 0.0})
    meta = pd.DataFrame({"num_nodes": [10, 200], "connectance": [0.15, 0.05]}, index=pd.Index(["A", "B"], name="web"))
    g = fw.ablation_groups(pd.DataFrame(rows), meta, fw.FoodWebConfig()).set_index(["by", "group"])
    small, large = g.loc[("species", "(0.0, 30.0]")], g.loc[("species", "(100.0, inf]")]
    assert small["n_webs"] == 1 and small["paired_diff_mean"] == pytest.approx(0.2)
    assert small["seed_std_median"] == pytest.approx(np.std([0.1, 0.3], ddof=1), abs=1e-4)  # rounded to 4 places
    assert large["paired_diff_mean"] == pytest.approx(-0.2) and large["webs_improved"] == 0.0
    assert g.loc[("connectance", "(0.0, 0.06]"), "paired_diff_mean"] == pytest.approx(-0.2)


def test_benchmark_rejects_unknown_models_and_folders(tmp_path):
    with pytest.raises(FileNotFoundError, match="no such folder"):
        fw.benchmark(tiny_cfg(tmp_path), progress=False)
    write_web(tmp_path / "webs" / "A_1", n=12)
    with pytest.raises(ValueError, match="unknown model"):
        fw.benchmark(tiny_cfg(tmp_path, models=["gatt"]), progress=False)
    with pytest.raises(ValueError, match=r"species_pool_weights must be 3 non-negative"):  # before any web runs
        fw.benchmark(tiny_cfg(tmp_path, species_pool_weights=[1.0, 1.0]), progress=False)
    assert not (tmp_path / "out" / "webs").exists()


def test_predict_on_a_web_without_basal_species():
    # every species has a prey (a cycle plus chords): MacKay levels are still defined
    n = 10
    src = list(range(n)) + [0, 2, 4, 6]
    dst = [(i + 1) % n for i in range(n)] + [5, 7, 9, 1]
    data = Data(edge_index=torch.tensor([src, dst]), num_nodes=n, node_names=[f"sp{i}" for i in range(n)])
    cfg = fw.FoodWebConfig(gat=fw.GATParams(epochs=3, hidden_channels=4, heads=1, rounds=1),
                           stack=fw.lp.StackParams(max_iter=5))
    df = fw.predict_missing_links(data, top=5, cfg=cfg, seeds=[0])
    assert len(df) == 5 and df["model"].iloc[0] == "structure_only"
    links = set(zip(src, dst, strict=True))
    assert not any((int(a[2:]), int(b[2:])) in links for a, b in zip(df["resource"], df["consumer"], strict=True))
    assert df["score"].is_monotonic_decreasing


def test_predict_does_not_depend_on_the_order_of_the_rows():
    """The same web with its links in another order and its species numbered otherwise (another file order)
    gives the same ranking and scores; traits follow their species."""
    n = 9
    src = [0, 0, 1, 1, 2, 3, 4, 5, 2, 6]
    dst = [3, 4, 3, 5, 5, 6, 6, 7, 8, 8]
    names = [f"sp{i}" for i in range(n)]
    traits = np.linspace(0.0, 1.0, n).reshape(-1, 1)
    cfg = fw.FoodWebConfig(gat=fw.GATParams(epochs=3, hidden_channels=4, heads=1, rounds=1),
                           stack=fw.lp.StackParams(max_iter=5))
    data = Data(edge_index=torch.tensor([src, dst]), num_nodes=n, node_names=names)
    ref = fw.predict_missing_links(data, top=6, cfg=cfg, seeds=[0], traits=traits, trait_names=["mass"])
    relabel = np.random.default_rng(0).permutation(n)  # old index -> new index
    rows = np.random.default_rng(1).permutation(len(src))
    ei = torch.from_numpy(relabel)[torch.tensor([src, dst])][:, torch.from_numpy(rows)]
    shuffled = Data(edge_index=ei, num_nodes=n, node_names=[names[k] for k in np.argsort(relabel)])
    out = fw.predict_missing_links(shuffled, top=6, cfg=cfg, seeds=[0], traits=traits[np.argsort(relabel)],
                                   trait_names=["mass"])
    pd.testing.assert_frame_equal(out, ref)
    assert ref["model"].iloc[0] == "full"


def test_predict_rejects_a_web_without_links():
    with pytest.raises(ValueError, match="no links"):
        fw.predict_missing_links(Data(edge_index=torch.zeros(2, 0, dtype=torch.long), num_nodes=4))


def test_cli_predict_with_traits_and_bad_input(tmp_path, capsys, caplog):
    ei, _ = niche_edges(14, 3)
    web = tmp_path / "web.txt"
    web.write_text("".join(f"s{a} s{b}\n" for a, b in ei.T))
    names = sorted({f"s{k}" for k in ei.ravel()}, key=lambda s: int(s[1:]))
    traits = tmp_path / "traits.csv"
    traits.write_text("species,mass\n" + "\n".join(f"{s},{'' if k == 0 else k}" for k, s in enumerate(names)) + "\n")
    out = tmp_path / "links.csv"
    args = ["foodweb", "predict", str(web), "--top", "4", "--out", str(out), "--traits", str(traits), "--seeds", "0"]
    assert gatbio_main(args) == 0  # NaN trait (empty cell): imputed and flagged
    import pandas as pd

    df = pd.read_csv(out)
    assert len(df) == 4 and df["model"].iloc[0] == "full"
    assert {"resource", "consumer", "score", "resource_level", "consumer_level"} <= set(df.columns)
    # A species with traits and no link yet is a species of the web whose links are predicted too (it was
    # refused as "not in the web"): it is said in a note, and it appears among the predicted links.
    traits.write_text("species,mass\n" + "".join(f"{s},{k + 1}\n" for k, s in enumerate(names)) + "newcomer,3\n")
    caplog.clear()
    assert gatbio_main(args[:3] + ["--top", "400"] + args[5:]) == 0
    assert "1 species are in no link of" in caplog.text and "(newcomer): added to the web" in caplog.text
    df = pd.read_csv(out)
    assert (df["consumer"] == "newcomer").any() and (df["resource"] == "newcomer").any()
    n, links = len(names) + 1, {(a, b) for a, b in ei.T if a != b}
    assert len(df) == min(400, n * (n - 1) - len(links))  # every pair that is not a link, the newcomer's included
    empty = tmp_path / "empty.txt"
    empty.write_text("# no links\n")
    assert gatbio_main(["foodweb", "predict", str(empty)]) == 1


def test_cli_benchmark_bad_folder(tmp_path, capsys):
    assert gatbio_main(["foodweb", "benchmark", "--webs", str(tmp_path / "nope"), "--out", str(tmp_path)]) == 1
    assert "no such folder" in capsys.readouterr().err


@pytest.mark.slow
def test_notebook_runs_on_quick_results(tmp_path, data_root):
    """The notebook executes top to bottom on a tiny benchmark of one real web."""
    from conftest import REPO, run_notebook

    cfg = fw.FoodWebConfig(webs=str(data_root / "gateway_dev" / "webs"), out=str(tmp_path / "res"), only=["PP2I4_250"],
                           seeds=[0], protocols=["links"], models=["full", "gat", "no_trophic_bias", "l3_ra", "boosted_stack",
                                              "structure_only", "gat_structure", "boosted_stack_structure"],
                           gat=fw.GATParams(epochs=5), stack=fw.lp.StackParams(max_iter=10, max_negatives=500))
    fw.benchmark(cfg, progress=False)
    run_notebook(REPO / "notebooks" / "food_web_inference.ipynb",
                 env={"FOODWEB_RESULTS": cfg.out, "FOODWEB_EPOCHS": "10", "GATBIO_DATA": str(data_root)})


def niche_adjacency(n: int = 24, seed: int = 0):
    ei, niche = niche_edges(n, seed)
    traits = np.stack([np.log10(niche + 0.01), (np.arange(n) % 2).astype(float)], axis=1)
    return fw.adjacency_of(torch.from_numpy(ei), n), fw.prepare_traits(traits)[0]


def test_early_stopping_keeps_the_model_with_the_lowest_validation_loss():
    A, traits = niche_adjacency()
    params = fw.GATParams(epochs=80, eval_every=5, patience=2, hidden_channels=4, heads=2, lr=0.05)
    masks = fw.training_masks(A, traits, params)
    model, losses, best = fw._train_gat(masks[:-1], A.shape[0], params, True, 0, params.epochs, val=masks[-1])
    assert 1 <= len(losses) <= params.epochs // params.eval_every
    if len(losses) < params.epochs // params.eval_every:  # stopped early: patience evaluations without a gain
        assert len(losses) - 1 - int(np.argmin(losses)) == params.patience
    model.load_state_dict(best)
    model.eval()
    with torch.no_grad():
        v = fw._batch_logits(model, fw._stack_masks([masks[-1]], A.shape[0]), A.shape[0])
    assert float(torch.nn.functional.binary_cross_entropy_with_logits(v, masks[-1][5])) == pytest.approx(min(losses))
    # fit_gat: the best model and its number of steps; refit trains on all masks
    m = fw.fit_gat(A, traits, params, masks=masks)
    assert m.best_steps == (int(np.argmin(losses)) + 1) * params.eval_every
    m2 = fw.fit_gat(A, traits, dataclasses.replace(params, refit=True), masks=masks)
    assert not torch.equal(m.lin_in.weight, m2.lin_in.weight)
    with pytest.raises(ValueError, match="at least 2"):
        fw.fit_gat(A, traits, params, masks=masks[:1])


def test_builtin_quick_config_equals_the_yaml_file():
    """`make demo` uses fw.quick_config (a pip install has no experiments/); the YAML file must not drift."""
    from pathlib import Path

    from gatbio.config import load_config

    yaml = Path(__file__).resolve().parents[2] / "experiments" / "configs" / "foodweb_quick.yaml"
    assert load_config(fw.FoodWebConfig, yaml) == fw.quick_config("results/foodweb_quick")


@pytest.mark.parametrize("val_metric", ["loss", "ap"])
def test_batched_seeds_train_the_same_models_as_one_seed_after_another(val_metric):
    """fit_gat_seeds (one vmapped model for all seeds) = fit_gat per seed: the same early-stopped steps per seed
    (they differ between seeds here) and the same scores, up to float rounding."""
    ei, _ = niche_edges(16, 4)
    A = fw.adjacency_of(torch.from_numpy(ei), 16)
    params = fw.GATParams(epochs=45, eval_every=3, patience=2, hidden_channels=4, heads=2, val_metric=val_metric)
    seeds = [0, 1, 5]
    masks = {s: fw.training_masks(A, None, params, "links", s) for s in seeds}
    one_by_one = [fw.fit_gat(A, None, params, seed=s, masks=masks[s]) for s in seeds]
    batched = fw.fit_gat_seeds(A, None, params, seeds, masks=masks)
    steps = [m.best_steps for m in one_by_one]
    assert [m.best_steps for m in batched] == steps
    if val_metric == "loss":
        assert len(set(steps)) > 1  # the seeds stop at different steps: per-seed early stopping is exercised
    for a, b in zip(one_by_one, batched, strict=True):
        np.testing.assert_allclose(fw.gat_scores(b, A, None, params), fw.gat_scores(a, A, None, params), atol=1e-4)


def test_fold_scores_with_batched_seeds_matches_the_default():
    ei, _ = niche_edges(14, 5)
    A = fw.adjacency_of(torch.from_numpy(ei), 14)
    cfg = fw.FoodWebConfig(models=["gat"], gat=fw.GATParams(epochs=20, eval_every=2, hidden_channels=4, heads=2))
    seq = fw.fold_scores(A, None, cfg, "links", [0], gat_seeds=[0, 1, 2])["gat"]
    bat = fw.fold_scores(A, None, dataclasses.replace(cfg, gat=dataclasses.replace(cfg.gat, batch_seeds=True)),
                         "links", [0], gat_seeds=[0, 1, 2])["gat"]
    assert len(bat) == 3
    for a, b in zip(seq, bat, strict=True):
        np.testing.assert_allclose(b, a, atol=1e-4)


def test_summary_of_webs_where_every_model_was_left_out_is_one_clear_error(tmp_path):
    """Trait models on webs without traits leave no scores: a clear error, not pandas' KeyError 'protocol'."""
    (tmp_path / "webs").mkdir()
    rec = {"web": "w", "protocol": "links", "num_nodes": 5, "num_links": 6, "connectance": 0.24, "rows": []}
    (tmp_path / "webs" / "w_links.json").write_text(json.dumps(rec))
    with pytest.raises(ValueError, match="hold no model scores: every model of the config was left out"):
        fw.summarize_results(tmp_path)


def test_a_call_with_fewer_webs_says_its_tables_cover_the_folder_and_self_loops_are_said(tmp_path, caplog):
    """A folder resumed with `only` or other protocols: the tables cover every result of the folder (so that they
    agree with each other), and the call says how many are not its own; a cannibal line in a web folder is left
    out with a note."""
    write_web(tmp_path / "webs" / "A_1", n=14, seed=1)
    ei = write_web(tmp_path / "webs" / "B_2", n=16, seed=2)
    edges = tmp_path / "webs" / "B_2" / "2_edge_list.txt"
    edges.write_text("5 5\n" + edges.read_text())
    cfg = tiny_cfg(tmp_path, protocols=["links"], models=["l3_ra"])
    caplog.set_level("WARNING", logger="gatbio.data")
    tables = fw.benchmark(cfg, progress=False)
    assert (tables["summary"]["n_webs"] == 2).all()
    assert "1 cannibalism link(s) (a species eating itself) left out" in caplog.text
    b2 = json.loads((tmp_path / "out" / "webs" / "B_2.links.json").read_text())
    assert b2["num_links"] == ei.shape[1]
    assert json.loads((tmp_path / "out" / "timing.json").read_text())["machine"]["python_loop_seconds"] > 0
    tables = fw.benchmark(dataclasses.replace(cfg, only=["A_1"]), progress=False)
    assert (tables["summary"]["n_webs"] == 2).all() and set(tables["per_web"]["web"]) == {"A_1", "B_2"}
    assert "the tables cover every result of the folder, 1 of them from webs or protocols this call did not run " \
           "(1 web x protocol run(s) here)" in caplog.text
    timing = json.loads((tmp_path / "out" / "timing.json").read_text())
    assert timing["runs"] == 1 and timing["compute_seconds_by_protocol"]["links"] == pytest.approx(
        timing["compute_seconds_all_runs"])
    # the machine is named; calibrated only by a call that computed something (this one ran nothing new)
    assert timing["machine"]["cpu"] and "python_loop_seconds" not in timing["machine"]


def test_win_rate_counts_only_webs_with_a_published_figure():
    per_web = __import__("pandas").DataFrame({
        "protocol": "links", "web": ["a", "b", "c"], "model": "full", "roc_auc": 0.9, "pr_auc": [0.5, 0.5, 0.5],
        "published_full_pr_auc": [0.4, np.nan, 0.6]})
    assert fw._win_rate(per_web) == pytest.approx(0.5)
    assert np.isnan(fw._win_rate(per_web.assign(published_full_pr_auc=np.nan)))


def test_a_named_gateway_web_runs_as_its_folder(data_root, tmp_path):
    """named: [gateway/<id>] is the GATEWAy web as the protocol reads it: file order, traits, published figures."""
    base = dict(out=str(tmp_path / "n"), protocols=["links"], models=["l3_ra"], seeds=[0])
    fw.benchmark(tiny_cfg(tmp_path, **base, webs="", named=["gateway/250"]), progress=False)
    assert fw._named_source("gateway/PP2I4_250") == fw._named_source("gateway/250")  # either name: the folder
    assert fw._named_source("cheddar/TL84") == "cheddar/TL84"
    fw.benchmark(tiny_cfg(tmp_path, **{**base, "out": str(tmp_path / "f")}, webs="", only=["PP2I4_250"]),
                 progress=False)
    named = json.loads((tmp_path / "n" / "webs" / "PP2I4_250.links.json").read_text())
    folder = json.loads((tmp_path / "f" / "webs" / "PP2I4_250.links.json").read_text())
    assert named["rows"] == folder["rows"] and named["splits"] == folder["splits"] and named["traits"]


def test_a_named_webs_saved_folds_name_their_held_out_links(data_root, tmp_path):
    """A named web's links are shuffled (split_seed) before the folds, so its test_lines count positions in that
    order, not file lines: the record says so and lists each fold's held-out links by name, which together are
    the web's links without cannibalism, each once."""
    from gatbio.data import load

    cfg = tiny_cfg(tmp_path, webs="", named=["cheddar/Benguela"], protocols=["links"], models=["l3_ra"], seeds=[0],
                   published="none")
    fw.benchmark(cfg, progress=False)
    rec = json.loads(next((tmp_path / "out" / "webs").glob("*.links.json")).read_text())
    assert "split_seed 0" in rec["link_order"]
    held = [tuple(link) for sp in rec["splits"] for link in sp["test_links"]]
    assert [len(sp["test_links"]) for sp in rec["splits"]] == [b - a for a, b in (sp["test_lines"] for sp in
                                                                                   rec["splits"])]
    web = load("cheddar/Benguela")
    names = [str(v) for v in web.node_names]
    links = {(names[a], names[b]) for a, b in web.edge_index.t().tolist() if a != b}
    assert len(held) == len(set(held)) == len(links) == rec["num_links"] and set(held) == links


def test_a_named_gateway_web_without_its_files_is_loaded_by_name(tmp_path, monkeypatch):
    """Without the gateway_dev files the name goes to gatbio.data.load, which names the missing files and how to
    download them (not 'unknown dataset <a path>')."""
    monkeypatch.setenv("GATBIO_DATA", str(tmp_path))
    assert fw._named_source("gateway/11") == "gateway/11"


# ----------------------------------------------------------------------------------------------- leakage
@pytest.mark.parametrize("protocol", ["links", "species"])
def test_every_model_of_a_fold_sees_its_observed_links_only(tmp_path, monkeypatch, protocol):
    """What reaches the models of a fold (:func:`fold_scores`' adjacency: degrees, trophic levels, messages, stacks,
    niche model) is the web minus the fold's held-out links, as the saved split says: the held-out block of file
    lines (links), or every link of the held-out species (species)."""
    ei = write_web(tmp_path / "webs" / "Tiny_1", n=15)
    cfg = tiny_cfg(tmp_path)
    seen = []

    def spy(A, traits, cfg_, mode, *a, **k):
        seen.append((A.toarray() > 0, mode))
        n = A.shape[0]
        return {m: [np.zeros((n, n))] for m in cfg_.models}

    monkeypatch.setattr(fw, "fold_scores", spy)
    rec = json.loads(open(fw.run_web(tmp_path / "webs" / "Tiny_1", cfg.out, cfg, protocol)).read())
    assert len(seen) == len(rec["splits"]) == 5
    for (A, mode), split in zip(seen, rec["splits"], strict=True):
        assert mode == protocol
        if protocol == "links":
            lo, hi = split["test_lines"]
            held = np.zeros(ei.shape[1], dtype=bool)
            held[lo:hi] = True
        else:
            out = np.isin(ei, split["held_out_species"])
            held = out[0] | out[1]
        expected = np.zeros_like(A)
        expected[ei[0, ~held], ei[1, ~held]] = True
        assert held.any() and np.array_equal(A, expected)


def test_training_masks_never_show_a_supervised_link_among_its_inputs():
    """Inside the observed network (cross-fitting): in every mask, the links the GAT is trained to find are in
    neither its messages nor its node inputs (degrees, trophic levels, adjacency rows): a held-out link's presence
    does not change its own inputs."""
    ei, _ = niche_edges(14, 1)
    n = 14
    A = fw.adjacency_of(torch.from_numpy(ei), n)
    params = fw.GATParams(rounds=1)
    for mode in ("links", "species"):
        for x, msg, lv, rows, cols, y in fw.training_masks(A, None, params, mode, seed=0):
            pos = {(int(a), int(b)) for a, b, t in zip(rows, cols, y, strict=True) if t > 0}
            assert pos and not pos & {tuple(e) for e in msg.t().tolist()}
            A_msg = fw.adjacency_of(msg, n)
            assert torch.equal(x, fw.node_inputs(A_msg, fw.observed_levels(A_msg), None, params.adjacency_inputs))
            assert torch.allclose(lv, torch.tensor(fw.observed_levels(A_msg), dtype=torch.float))


def test_benchmark_without_the_gateway_data_says_how_to_get_it(tmp_path, monkeypatch, capsys):
    # was: "<root>/gateway_dev/webs: no such folder" with no word of how to get the webs
    root = tmp_path / "data"
    root.mkdir()
    monkeypatch.setenv("GATBIO_DATA", str(root))
    quick = Path(__file__).resolve().parents[2] / "experiments" / "configs" / "foodweb_quick.yaml"
    assert gatbio_main(["foodweb", "benchmark", "--config", str(quick), "--out", str(tmp_path / "out")]) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    assert f"GATBIO_DATA={root}: no GATEWAy webs (no folder {root / 'gateway_dev' / 'webs'})" in err
    assert "gatbio datasets --download gateway fetches them" in err
    assert "gatbio.data.download('gateway')" in err and "set GATBIO_DATA to a folder that has them" in err
    assert "or give --webs DIR" in err
    (root / "gateway_dev" / "webs").mkdir(parents=True)  # there, but without a web folder
    with pytest.raises(FileNotFoundError, match=r"no web folders with a \*_edge_list.txt file.*"
                                                r"gatbio datasets --download gateway fetches them"):
        fw.benchmark(tiny_cfg(tmp_path, webs=""), progress=False)
    monkeypatch.setenv("GATBIO_DATA", str(tmp_path / "none"))  # the root itself is missing: said as such
    with pytest.raises(FileNotFoundError, match=rf"^GATBIO_DATA={tmp_path / 'none'}: no such folder \(the data root"):
        fw.benchmark(tiny_cfg(tmp_path, webs=""), progress=False)


def test_unit_costs_follow_the_web_size_and_protocol(tmp_path):
    """The progress's time left weighs each (web, protocol) unit: a larger edge list costs more, a new-species
    unit a quarter of the same web's links unit, and a named web without a folder gives no costs (the count)."""
    small, large = tmp_path / "S_1", tmp_path / "L_2"
    for folder, n in ((small, 10), (large, 1000)):
        folder.mkdir()
        (folder / f"{folder.name.split('_')[1]}_edge_list.txt").write_text("".join(f"{i} {i + 1}\n" for i in range(n)))
    costs = fw._unit_costs([(str(small), None, None, "links"), (str(small), None, None, "species"),
                            (str(large), None, None, "links")])
    assert costs[1] == pytest.approx(costs[0] / 4) and costs[2] > 10 * costs[0]
    assert fw._unit_costs([(str(small), None, None, "links"), ("gateway/125", None, None, "links")]) is None
