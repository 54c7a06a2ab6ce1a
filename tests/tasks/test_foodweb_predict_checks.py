"""``gatbio foodweb predict`` and ``summarize``: what they read, refuse and say (zero-weight and cannibal links,
options that do not apply, a complete web, seeds, sparse trait tables, bad results folders)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
import torch
from torch_geometric.data import Data

from gatbio.cli import main as gatbio_main
from gatbio.tasks import foodweb as fw
from gatbio.tasks import foodweb_cli

PREDICT = fw.predict_missing_links  # the real one (some tests stub it in the CLI)
CHAIN = ["a b", "b c", "c d", "d e", "e f", "a c", "b d", "c e"]  # 8 links of 6 species


@pytest.fixture
def captured(predict_stub):
    """What ``predict`` would train on (tests/conftest.py ``predict_stub``: the training replaced, fast)."""
    return predict_stub


def _stderr(capsys, caplog) -> tuple[str, str]:
    """stdout, and stderr with the notes (``gatbio.data.tables.note`` logs them; pytest captures the log)."""
    out, err = capsys.readouterr()
    text = caplog.text
    caplog.clear()
    return out, err + text


def _pairs(data) -> set[tuple[str, str]]:
    names = data.node_names
    return {(names[a], names[b]) for a, b in data.edge_index.t().tolist()}


def test_predict_drops_zero_weight_links_as_trophic_does(tmp_path, capsys, caplog, captured):
    web = tmp_path / "web.txt"
    web.write_text("".join(f"{x} 1\n" for x in CHAIN) + "a d 0\nb e 0\n")
    assert gatbio_main(["foodweb", "predict", str(web), "--seeds", "0", "--device", "cpu"]) == 0
    err = _stderr(capsys, caplog)[1]
    assert "2 of 10 links have weight 0 and are dropped" in err
    data = captured["data"]
    assert data.num_edges == 8 and not {("a", "d"), ("b", "e")} & _pairs(data)  # absent: may be predicted
    # the same links as gatbio trophic counts (its prey / predator columns skip weight-0 links)
    from gatbio.ecology.commands import read_foodweb_file, trophic_table

    t = trophic_table(read_foodweb_file(web)).set_index("species")
    idx = {s: k for k, s in enumerate(data.node_names)}
    for s in t.index:
        assert t.loc[s, "prey"] == int((data.edge_index[1] == idx[s]).sum())
        assert t.loc[s, "predators"] == int((data.edge_index[0] == idx[s]).sum())


def _gateway_folder(tmp_path):
    folder = tmp_path / "webs" / "W_7"
    folder.mkdir(parents=True)
    (folder / "7_edge_list.txt").write_text("0 1\n1 2\n2 3\n3 4\n0 2\n1 3\n2 2\n")
    return folder


@pytest.mark.parametrize("option", [["--direction", "predator-prey"], ["--source", "x"], ["--target", "y"],
                                    ["--weight", "w"], ["--convention", "row_to_col"], ["--no-header"]])
def test_table_options_are_refused_for_gateway_folders_and_named_webs(tmp_path, capsys, captured, option):
    for file in (str(_gateway_folder(tmp_path)), "gateway/281"):
        assert gatbio_main(["foodweb", "predict", file, "--seeds", "0", "--device", "cpu", *option]) == 1
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and "Traceback" not in err
        assert " ".join(option) in err and "apply to table files only" in err
    assert not captured  # refused before any training


def test_direction_still_applies_to_table_files_and_gateway_folders_read_as_before(tmp_path, captured):
    web = tmp_path / "web.txt"
    web.write_text("".join(f"{x}\n" for x in CHAIN))
    assert gatbio_main(["foodweb", "predict", str(web), "--device", "cpu", "--direction", "predator-prey"]) == 0
    assert ("b", "a") in _pairs(captured["data"])
    folder = _gateway_folder(tmp_path)
    assert gatbio_main(["foodweb", "predict", str(folder), "--device", "cpu"]) == 0
    assert captured["data"].num_edges == 7  # the cannibal link is kept, and left out by the models


def test_a_complete_web_has_no_missing_link_to_predict(tmp_path, capsys):
    web = tmp_path / "complete.txt"
    web.write_text("a b\nb a\na c\nc a\nb c\nc b\n")
    assert gatbio_main(["foodweb", "predict", str(web), "--seeds", "0", "--device", "cpu"]) == 1
    err = capsys.readouterr().err
    assert "no missing link to predict" in err and "Traceback" not in err


def tiny() -> fw.FoodWebConfig:
    return fw.FoodWebConfig(gat=fw.GATParams(epochs=3, hidden_channels=4, heads=1, rounds=1),
                            stack=fw.lp.StackParams(max_iter=5))


def _cycle_web(loops: bool = False) -> Data:
    n = 8
    src = list(range(n)) + [0, 2, 4] + ([3, 5] if loops else [])
    dst = [(i + 1) % n for i in range(n)] + [4, 6, 1] + ([3, 5] if loops else [])
    return Data(edge_index=torch.tensor([src, dst]), num_nodes=n, node_names=[f"sp{i}" for i in range(n)])


def test_structure_only_averages_the_gats_of_every_seed_as_the_help_says(tmp_path, capsys, caplog, monkeypatch):
    """Without traits the ranking is the pool of a GAT and the stacks: one GAT's start reorders it, so predict
    averages the GATs of every --seed (the benchmark's structure_only keeps one): the first seed alone differs,
    the same seeds give the same list, and the model trains one GAT per seed."""
    data = _cycle_web()
    one = PREDICT(data, top=50, cfg=tiny(), seeds=[0])
    three = PREDICT(data, top=50, cfg=tiny(), seeds=[0, 1, 2])
    assert one["model"].iloc[0] == three["model"].iloc[0] == "structure_only"
    assert not one["score"].equals(three["score"])
    pd.testing.assert_frame_equal(three, PREDICT(data, top=50, cfg=tiny(), seeds=[0, 1, 2]))
    calls = []
    real = fw.fit_gat
    monkeypatch.setattr(fw, "fit_gat", lambda *a, **k: calls.append(k["seed"]) or real(*a, **k))
    PREDICT(data, top=5, cfg=tiny(), seeds=[0, 1, 2])
    assert calls == [0, 1, 2]
    assert "and so does 'structure_only'" in " ".join(foodweb_cli.PREDICT_DESCRIPTION.split())
    # the CLI's progress line counts the GATs it trains
    import gatbio.cli

    monkeypatch.setattr(gatbio.cli, "show_progress", lambda quiet: True)
    web = tmp_path / "web.txt"
    web.write_text("".join(f"{x}\n" for x in CHAIN))
    monkeypatch.setattr(fw, "predict_missing_links", lambda data, top, **kw: one.head(1))
    assert gatbio_main(["foodweb", "predict", str(web), "--seeds", "0,1,2", "--device", "cpu"]) == 0
    err = _stderr(capsys, caplog)[1]
    assert "the other --seeds are not used" not in err and "# training 3 GATs (seed(s) 0,1,2)" in err


def test_cannibal_links_are_noted_and_never_candidates(tmp_path, capsys, caplog, captured):
    web = tmp_path / "web.txt"
    web.write_text("".join(f"{x}\n" for x in CHAIN) + "c c\ne e\n")
    assert gatbio_main(["foodweb", "predict", str(web), "--seeds", "0", "--device", "cpu"]) == 0
    out, err = _stderr(capsys, caplog)
    assert "2 cannibal (self) link(s) left out" in err
    assert "10 links (2 cannibal, left out)" in out
    assert "Cannibal (self) links are left out" in foodweb_cli.PREDICT_DESCRIPTION
    df = PREDICT(_cycle_web(loops=True), top=1000, cfg=tiny(), seeds=[0])
    assert len(df) == 8 * 7 - 11 and not (df["resource"] == df["consumer"]).any()


def test_a_trait_table_covering_few_species_is_noted(tmp_path, capsys, caplog, captured):
    web = tmp_path / "web.txt"
    web.write_text("".join(f"{x}\n" for x in CHAIN))
    traits = tmp_path / "traits.csv"
    traits.write_text("species,mass\na,3\n")
    assert gatbio_main(["foodweb", "predict", str(web), "--seeds", "0", "--device", "cpu",
                        "--traits", str(traits)]) == 0
    err = _stderr(capsys, caplog)[1]
    assert "no trait values for 5 of 6 species (b, c, d, ...): their traits are imputed" in err
    assert np.isnan(captured["traits"]).all(axis=1).sum() == 5


def test_trait_tables_from_spreadsheets_and_tables_that_match_no_species(tmp_path, capsys, caplog, captured):
    """A semicolon CSV (a European spreadsheet's) made every line one fake species; a table whose names match none
    of the web's ('1.0' for '1') ran on with every trait imputed; empty cells of species with other traits were
    imputed without a word (a GATEWAy folder's were said)."""
    web = tmp_path / "web.txt"
    web.write_text("".join(f"{x}\n" for x in CHAIN))
    base = ["foodweb", "predict", str(web), "--seeds", "0", "--device", "cpu", "--traits"]
    semi = tmp_path / "semi.csv"
    semi.write_text("species;mass\na;-3\nb;0.5\nc;1\nd;2\ne;1\nf;3\n")
    assert gatbio_main(base + [str(semi)]) == 0
    assert captured["data"].num_nodes == 6 and captured["traits"][:, 0].tolist() == [-3, 0.5, 1, 2, 1, 3]
    semi.write_text("species;mass\na;-3,5\nb;0,5\n")
    assert gatbio_main(base + [str(semi)]) == 1
    assert "semi.csv:2: trait 'mass' must be a number, found '-3,5': a decimal comma? write '-3.5'" in \
        capsys.readouterr().err
    other = tmp_path / "other.csv"
    other.write_text("species,mass\n1.0,3\n2.0,4\n")
    assert gatbio_main(base + [str(other)]) == 1
    assert "--traits " + str(other) + ": none of its 2 species is a species of " + str(web) + " (e.g. '1.0' in the " \
           "table, 'a' in the web): the names must match exactly" in capsys.readouterr().err
    holes = tmp_path / "holes.csv"
    holes.write_text("species,mass,len,notes\na,,1,\nb,2,NA,\nc,1,2,\nd,2,1,\ne,3,1,\nf,1,1,\n")
    caplog.clear()
    assert gatbio_main(base + [str(holes)]) == 0
    err = _stderr(capsys, caplog)[1]
    assert "2 missing trait value(s) (empty or NA) of 2 species with other traits (e.g. a): imputed" in err
    assert "1 trait column(s) have no value for any species of the web: they carry no information" in err


def test_a_table_naming_a_column_twice_is_refused_at_its_header(tmp_path, capsys):
    """pandas gives df['mass'] as a table when 'mass' is named twice: a TypeError traceback deep in the traits."""
    web = tmp_path / "web.txt"
    web.write_text("".join(f"{x}\n" for x in CHAIN))
    traits = tmp_path / "t.csv"
    traits.write_text("species,mass,mass\na,1,2\nb,2,3\n")
    assert gatbio_main(["foodweb", "predict", str(web), "--traits", str(traits)]) == 1
    assert f"{traits}:1: column 'mass' appears twice in the header (columns 2 and 3): rename one" in \
        capsys.readouterr().err


def test_the_webs_own_traits_are_named_when_they_make_the_model_full(data_root, tmp_path, capsys, caplog,
                                                                     captured):
    """A Pajek flow web ran as 'full' with no word of which traits (the help named GATEWAy's and --traits only)."""
    web = data_root / "foodwebs_ulanowicz_pajek" / "Maspalomas.paj"
    assert gatbio_main(["foodweb", "predict", str(web), "--seeds", "0", "--device", "cpu"]) == 0
    assert "the web's own species traits are used (model full): log10_biomass, biomass_missing, living" in \
        _stderr(capsys, caplog)[1]
    assert captured["traits"] is None and captured["data"].x.shape[1] == 3  # the web's, passed on as data.x


def test_a_web_folder_of_species_names_is_told_the_benchmarks_layout(tmp_path):
    """A user's folder 'mine_1/1_edge_list.txt' of names was refused with 'source id must be an integer', which
    said nothing of the layout the benchmark reads, nor of the command for such a web."""
    from gatbio.data.tables import MalformedFileError

    (tmp_path / "mine_1").mkdir()
    (tmp_path / "mine_1" / "1_edge_list.txt").write_text("# my web\ngrass rabbit\nrabbit fox\n")
    with pytest.raises(MalformedFileError, match=r"1_edge_list\.txt:2: expected node ids \(whole numbers 0\.\.N-1\), "
                                                 r"found 'grass rabbit': the benchmark reads web folders in the "
                                                 r"GATEWAy layout .*; a web of species names runs with gatbio foodweb "
                                                 r"predict FILE"):
        fw.read_web_folder(tmp_path / "mine_1")


def test_non_living_compartments_of_a_flow_web_are_never_predicted_to_eat(caplog):
    """A Pajek flow web's detritus (living = 0) was listed as the consumer of 60 of Maspalomas' 387 candidate
    links: arcs into detritus are egestion and mortality, left out of the feeding links, so it eats nothing."""
    names = ["alga", "snail", "fish", "heron", "POC", "crab"]
    links = [(0, 1), (0, 2), (1, 2), (2, 3), (4, 1), (4, 5), (5, 3), (1, 3), (0, 5)]
    data = Data(edge_index=torch.tensor(links).t(), num_nodes=6, node_names=names,
                x=torch.tensor([[1.0, 0, 1], [0.5, 0, 1], [1.2, 0, 1], [2.0, 0, 1], [0.0, 1, 0], [0.7, 0, 1]]),
                trait_names=["log10_biomass", "biomass_missing", "living"])
    df = PREDICT(data, top=100, seeds=[0])
    assert len(df) == 36 - 6 - len(links) - 5  # every non-link but the 5 with POC as the consumer
    assert "POC" not in set(df["consumer"]) and "POC" in set(df["resource"])
    assert "1 non-living compartment(s) (POC) are not offered as consumers" in caplog.text


# ---------------------------------------------------------------- summarize


def _results(tmp_path, webs: list[str] = ("W_7",)):
    out = tmp_path / "out"
    (out / "webs").mkdir(parents=True)
    for w in webs:
        rows = [{"web": w, "protocol": "links", "fold": 0, "model": m, "seed": 0, "roc_auc": 0.8, "pr_auc": 0.5,
                 "n_pos": 2, "n_neg": 9} for m in ("full", "l3_ra")]
        rec = {"web": w, "protocol": "links", "num_nodes": 5, "num_links": 6, "connectance": 0.3, "seconds": 1.0,
               "rows": rows}
        (out / "webs" / f"{w}.links.json").write_text(json.dumps(rec))
    return out


def test_summarize_checks_webs_and_says_when_published_rows_are_missing(tmp_path, capsys, caplog):
    out = _results(tmp_path)
    assert gatbio_main(["foodweb", "summarize", str(out), "--webs", str(tmp_path / "nonexistent")]) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "--webs" in err and "no such folder" in err
    webs = tmp_path / "gw" / "webs"
    webs.mkdir(parents=True)
    assert gatbio_main(["foodweb", "summarize", str(out), "--webs", str(webs)]) == 0
    out_, err = _stderr(capsys, caplog)
    assert "published reference figures not found" in err and "web_index.csv" in err
    assert "published_full" not in out_
    (tmp_path / "gw" / "web_index.csv").write_text(
        "data_dir,full_pr_auc,full_roc_auc,struc_pr_auc,struc_roc_auc\nW_7,0.4,0.7,0.3,0.6\n")
    assert gatbio_main(["foodweb", "summarize", str(out), "--webs", str(webs)]) == 0
    out_, err = _stderr(capsys, caplog)
    assert "published_full" in out_ and "win_rate_vs_published" in out_ and "not found" not in err
    (tmp_path / "gw" / "web_index.csv").write_text("data_dir,full_pr_auc,full_roc_auc\nOther_1,0.4,0.7\n")
    assert gatbio_main(["foodweb", "summarize", str(out), "--webs", str(webs)]) == 0
    assert "none of the 1 webs of the results is in" in _stderr(capsys, caplog)[1]


def test_benchmark_summary_only_remakes_the_tables_as_summarize_does(tmp_path, capsys, caplog):
    """`foodweb benchmark --summary-only` was 'unrecognized arguments' (the protein sweeps have it)."""
    out = _results(tmp_path)
    assert gatbio_main(["foodweb", "benchmark", "--out", str(out), "--summary-only"]) == 0
    assert (out / "summary.csv").is_file() and "== summary" in capsys.readouterr().out
    assert gatbio_main(["foodweb", "benchmark", "--out", str(out), "--summary-only", "--restart"]) == 1
    assert "--summary-only trains nothing: --restart / --resume-anyway do not apply" in capsys.readouterr().err


def test_summarize_waits_for_a_benchmark_writing_in_the_folder(tmp_path, capsys):
    """It wrote tables from the webs finished so far while a benchmark ran there (whose own tables, at its end,
    it could then replace with fewer webs)."""
    import subprocess
    import sys

    out = _results(tmp_path)
    holder = subprocess.Popen([sys.executable, "-c", "import time; from gatbio.results import lock_out_dir; "
                               f"lock_out_dir({str(out)!r}); print('held', flush=True); time.sleep(60)"],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        assert gatbio_main(["foodweb", "summarize", str(out)]) == 1
        assert f"another gatbio run (pid {holder.pid}" in capsys.readouterr().err
        assert not (out / "summary.csv").exists()
    finally:
        holder.kill()
        holder.wait()
    assert gatbio_main(["foodweb", "summarize", str(out)]) == 0


def test_summarize_of_an_interrupted_benchmark_says_what_is_missing(tmp_path, capsys, caplog):
    """A folder whose benchmark was interrupted after W_7's links unit: the tables looked final (summary_species
    simply absent); the note now says 3 of the config's 4 (web, protocol) units have no result and how to finish."""
    import yaml

    webs = tmp_path / "webs"
    for w in ("W_7", "W_8"):
        (webs / w).mkdir(parents=True)
        (webs / w / f"{w.split('_')[1]}_edge_list.txt").write_text("0 1\n")
    out = _results(tmp_path)
    (out / "config.yaml").write_text(yaml.safe_dump({"webs": str(webs), "protocols": ["links", "species"]}))
    assert gatbio_main(["foodweb", "summarize", str(out)]) == 0
    err = _stderr(capsys, caplog)[1]
    assert "incomplete: 3 of the 4 runs this config names have no result (e.g. " in err
    assert "the tables leave them out: rerun the benchmark with the folder's config (gatbio foodweb benchmark " \
           f"--config {out / 'config.yaml'}) to finish them" in err


@pytest.mark.parametrize("text, expect", [
    ("{}", "x.links.json: not a per-web result of gatbio foodweb benchmark: no keys 'web', 'protocol'"),
    ('{"web": "x", "rows": [\n', "x.links.json:2: not valid JSON: Expecting value (column 1)"),
    ("[1]", "x.links.json: not a per-web result of gatbio foodweb benchmark: expected a JSON object"),
    ('{"web": "x", "protocol": "links", "num_nodes": 5, "num_links": 6, "connectance": 0.3, "rows": [{"web": "x"}]}',
     "x.links.json: not a per-web result of gatbio foodweb benchmark: row 0 of 'rows' has no keys 'protocol'"),
])
def test_summarize_names_the_bad_result_file(tmp_path, capsys, text, expect):
    out = _results(tmp_path)
    (out / "webs" / "x.links.json").write_text(text)
    assert gatbio_main(["foodweb", "summarize", str(out)]) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert expect in err and str(out / "webs") in err


def test_predict_reads_a_predator_first_header_by_its_names(tmp_path, capsys, caplog, captured):
    web = tmp_path / "web.csv"
    web.write_text("predator_name,prey_name\n" + "".join(f"{b},{a}\n" for a, b in (x.split() for x in CHAIN)))
    assert gatbio_main(["foodweb", "predict", str(web), "--seeds", "0", "--device", "cpu"]) == 0
    assert _pairs(captured["data"]) == {tuple(x.split()) for x in CHAIN}  # prey -> predator, no header species
    assert "column 'prey_name' read as the prey (resource)" in _stderr(capsys, caplog)[1]


def test_species_names_are_drawn_as_written_and_the_table_is_written_first(tmp_path, capsys, monkeypatch):
    """A '$' in a species name is text, not matplotlib math (grass $\\x$ would not parse); and a picture that
    cannot be drawn does not lose the table: --out is written before plotting."""
    names = {"a": "grass $\\x$", "b": "rabbit $x$", "c": "fox_{1}"}
    web = tmp_path / "web.tsv"
    web.write_text("".join("\t".join(names.get(s, s) for s in x.split()) + "\n" for x in CHAIN))

    def stub(data, top, **kw):
        return pd.DataFrame({"rank": [1], "resource": ["grass $\\x$"], "consumer": ["fox_{1}"], "score": [0.5],
                             "resource_level": [1.0], "consumer_level": [2.0], "model": ["structure_only"]})

    monkeypatch.setattr(fw, "predict_missing_links", stub)
    out, picture = tmp_path / "links.csv", tmp_path / "web.svg"
    assert gatbio_main(["foodweb", "predict", str(web), "--seeds", "0", "--device", "cpu", "--out", str(out),
                        "--plot", str(picture)]) == 0, capsys.readouterr().err
    assert pd.read_csv(out)["resource"].tolist() == ["grass $\\x$"]
    assert "grass $\\x$" in picture.read_text() and "rabbit $x$" in picture.read_text()  # drawn literally
    out.unlink()

    def broken(*a, **k):
        raise ValueError("cannot draw")  # as matplotlib's math parser raises

    monkeypatch.setattr(foodweb_cli, "draw_predictions", broken)
    assert gatbio_main(["foodweb", "predict", str(web), "--seeds", "0", "--device", "cpu", "--out", str(out),
                        "--plot", str(tmp_path / "other.svg")]) == 1
    assert pd.read_csv(out)["consumer"].tolist() == ["fox_{1}"] and not (tmp_path / "other.svg").exists()
    assert "cannot draw" in capsys.readouterr().err


@pytest.mark.parametrize("seeds,twice", [("0,0", 0), ("0,1,2,1", 1)])
def test_a_seed_given_twice_is_refused_before_any_reading(tmp_path, capsys, seeds, twice):
    """`--seeds 0,0` trained the same GAT twice and averaged it with itself, silently (the configs' seeds lists
    refuse a repeated seed)."""
    assert gatbio_main(["foodweb", "predict", str(tmp_path / "no_such_web.txt"), "--seeds", seeds]) == 1
    err = capsys.readouterr().err
    assert err == (f"gatbio foodweb predict: error: --seeds '{seeds}': seed {twice} is given twice; give each seed "
                   f"once, e.g. {','.join(dict.fromkeys(seeds.split(',')))}\n")


def _no_training(monkeypatch):
    """Fail any test that reaches training: the calls below must be refused before it."""
    def trained(*args, **kwargs):
        raise AssertionError("trained before refusing the call")

    monkeypatch.setattr(fw, "fold_scores", trained)


def _bad_calls():
    web = _cycle_web()
    names = web.node_names
    ei = web.edge_index
    return [
        # an (E, 2) edge_index was reshaped into (2, E): another graph, ranked silently
        ({"data": Data(edge_index=ei.t().contiguous(), num_nodes=8, node_names=names)}, ValueError,
         r"data\.edge_index has shape \(11, 2\).*\(2, E\).*\.t\(\)"),
        ({"data": Data(edge_index=ei.float() + 0.5, num_nodes=8, node_names=names)}, ValueError,
         r"data\.edge_index holds 0\.5.*whole number"),
        ({"data": Data(edge_index=ei, num_nodes=8, node_names=names[:5])}, ValueError,
         r"data\.node_names has 5 names for the web's 8 species"),
        ({"traits": np.zeros((3, 2))}, ValueError, r"traits has 3 rows for the web's 8 species"),
        ({"data": Data(edge_index=ei, num_nodes=8, node_names=names, x=torch.zeros(7, 2))}, ValueError,
         r"data\.x has 7 rows for the web's 8 species"),
        ({"traits": np.zeros((8, 2)), "trait_names": ["mass"]}, ValueError,
         r"trait_names has 1 name for 2 trait columns"),
        ({"seeds": []}, ValueError, r"seeds=\[\]: give at least one GAT seed"),
        ({"seeds": [0.5]}, TypeError, r"seeds=\[0\.5\]: the GAT seeds are integers"),
        ({"top": "5"}, TypeError, r"top='5': expected an integer"),
        ({"top": 0}, ValueError, r"top=0: must be at least 1"),
    ]


@pytest.mark.parametrize("case", range(len(_bad_calls())))
def test_predict_refuses_bad_arguments_before_training(monkeypatch, case):
    """Each was an IndexError or TypeError after minutes of training, a ranking of another graph, or a silent
    fallback to the default seeds; now one error naming the argument, what was given and the fix."""
    _no_training(monkeypatch)
    kwargs, error, msg = _bad_calls()[case]
    kwargs = {"data": _cycle_web(), "top": 3, "seeds": [0], **kwargs}
    with pytest.raises(error, match=msg):
        PREDICT(cfg=tiny(), **kwargs)


def test_predict_takes_one_seed_as_an_int_and_lists_the_columns_its_docstring_names(monkeypatch):
    """``seeds=0`` fell back to the default seeds (0 is falsy); an int is one seed. The docstring's column list
    left out ``model``."""
    used = []

    def scores(A, tr, cfg, protocol, seeds, progress=None, structure_seeds=None):
        used.append(list(seeds))
        return {"structure_only": [np.zeros(A.shape)]}

    monkeypatch.setattr(fw, "fold_scores", scores)
    out = PREDICT(_cycle_web(), top=3, cfg=tiny(), seeds=0)
    assert used == [[0]] and len(out) == 3
    doc = " ".join(PREDICT.__doc__.split())
    listed = doc.split("Columns: ``", 1)[1].split("``", 1)[0].split(", ")
    assert listed == list(out.columns)


def test_benchmark_summary_only_names_the_settings_a_summary_ignores(tmp_path, capsys, caplog):
    """`foodweb benchmark --summary-only gat.epochs=5 --jobs 4` summarised silently, as if the settings had applied."""
    from gatbio.config import save_config
    from gatbio.tasks.foodweb import FoodWebConfig

    out = _results(tmp_path)
    save_config(FoodWebConfig(out=str(out)), out / "config.yaml")
    assert gatbio_main(["foodweb", "benchmark", "--out", str(out), "--summary-only"]) == 0
    assert "ignore" not in _stderr(capsys, caplog)[1]
    assert gatbio_main(["foodweb", "benchmark", "--out", str(out), "--summary-only", "--jobs", "4",
                        "gat.epochs=5"]) == 0
    out_, err = _stderr(capsys, caplog)
    assert "== summary" in out_
    assert "gat.epochs" in err and "jobs" in err and "ignore" in err


def test_predict_trains_on_the_configs_threads_whatever_the_machines_cores(monkeypatch):
    """The scores depend on the thread count (the top score of GATEWAy web AEW49_24: 6.668, 6.708 and 6.839 on 1, 2
    and 4 threads), and predict trained on torch's default, the machine's cores: the list depended on the
    machine. It trains on ``cfg.threads`` (1), torch's and BLAS's, as the benchmark's webs; both are restored."""
    from threadpoolctl import threadpool_info

    seen = []

    def scores(A, tr, cfg, protocol, seeds, progress=None, structure_seeds=None):
        seen.append((torch.get_num_threads(), {i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"}))
        return {"structure_only": [np.zeros(A.shape)]}

    monkeypatch.setattr(fw, "fold_scores", scores)
    before = torch.get_num_threads()
    torch.set_num_threads(2)  # a machine with two cores or more: torch's default
    try:
        PREDICT(_cycle_web(), top=3, cfg=tiny(), seeds=[0])
        assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)
    assert seen == [(1, {1})]
