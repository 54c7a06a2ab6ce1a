"""Every command at the boundary: tables as people write them, outputs checked before work, results that never lie.

One class per test: header rows (``protein predict`` edges / labels / nodes, ``trophic``, ``foodweb predict`` and
``--traits``), one weight parser, gzip by content, duplicates counted once, output paths, no half-written
outputs, webs without traits, resumed sweeps with another config.
"""

from __future__ import annotations

import gzip
import json

import numpy as np
import pandas as pd
import pytest

from gatbio.cli import main


@pytest.fixture
def gatbio(capsys, caplog):
    """Run one ``gatbio`` command: exit code, stdout, stderr. Notes go to the ``gatbio.data`` logger (stderr when
    logging is not set up; pytest captures them in ``caplog``), so they are added to stderr here."""
    caplog.set_level("WARNING", logger="gatbio.data")

    def run(args):
        caplog.clear()
        rc = main(args)
        out = capsys.readouterr()
        return rc, out.out, out.err + "".join(r.getMessage() + "\n" for r in caplog.records)

    return run


@pytest.fixture
def ppi(tmp_path):
    """Two communities of 10 proteins (a header on every table), half annotated."""
    rng = np.random.default_rng(1)
    rows = [f"{c}{i}\t{c}{j}\t{rng.random():.2f}" for c in "KT" for i in range(10) for j in range(i + 1, 10)
            if rng.random() < 0.5]
    (tmp_path / "edges.tsv").write_text("protein_a\tprotein_b\tscore\n" + "\n".join(rows + ["K0\tT0\t0.5"]) + "\n")
    labels = [f"{c}{i} {'kinase' if c == 'K' else 'transport'}" for c in "KT" for i in range(0, 10, 2)]
    (tmp_path / "labels.txt").write_text("# known functions\nprotein function\n" + "\n".join(labels) + "\n")
    (tmp_path / "nodes.txt").write_text("protein\n" + "\n".join(f"{c}{i}" for c in "KT" for i in range(10)) + "\nLONE\n")
    return tmp_path


def predict_args(d, *extra):
    return ["protein", "predict", "--edges", str(d / "edges.tsv"), "--format", "tsv", "--labels",
            str(d / "labels.txt"), "--epochs", "5", *extra]


def test_protein_predict_headers_never_become_proteins(ppi, gatbio):
    rc, out, err = gatbio(predict_args(ppi, "--nodes", str(ppi / "nodes.txt"), "--out", str(ppi / "p.csv")))
    assert rc == 0, err
    pred = pd.read_csv(ppi / "p.csv")
    assert not {"protein_a", "protein_b", "protein", "function"} & set(pred["protein"])
    assert len(pred) == 11 and "LONE" in set(pred["protein"])
    assert "labels.txt: line 2 'protein function' read as a header" in err
    assert "edges.tsv: line 1 'protein_a\\tprotein_b\\tscore' read as a header" in err
    assert "nodes.txt: line 1 'protein' read as a header" in err
    assert "weights (column 3) were read and checked but are not used" in err
    # forced: --no-header reads the header rows as data (and then the label table names an unknown protein)
    rc, _, err = gatbio(predict_args(ppi, "--out", str(ppi / "q.csv"), "--no-header"))
    assert rc == 1 and "edges.tsv:1: weight must be a number, found 'score'" in err


@pytest.mark.parametrize("value,msg", [("abc", "must be a number, found 'abc'"),
                                       ("nan", "must be a finite number, found 'nan'"),
                                       ("inf", "must be a finite number, found 'inf'"),
                                       ("-2", "must be >= 0 (a strength, a flow or a confidence), found '-2'")])
def test_the_same_weight_message_in_every_command(tmp_path, gatbio, value, msg):
    web = tmp_path / "web.txt"
    web.write_text("# a web\na b 1\nb c 2\nc d 1\nd e 3\na c 1\nb d 2\n\ne a " + value + "\n")
    want = f"web.txt:9: weight {msg}"
    for args in (["trophic", str(web)], ["foodweb", "predict", str(web), "--seeds", "0"],
                 ["protein", "predict", "--edges", str(web), "--labels", str(web), "--out", str(tmp_path / "o.csv")]):
        rc, _, err = gatbio(args)
        assert rc == 1 and want in err, (args, err)


def test_trophic_and_foodweb_predict_headers_gzip_and_duplicates(tmp_path, gatbio):
    web = tmp_path / "web.txt"  # gzip content, plain name; a header; one link listed twice
    web.write_bytes(gzip.compress(b"resource consumer\n0 1\n1 2\n0 2\n2 3\n0 1\n1 3\n"))
    rc, out, err = gatbio(["trophic", str(web)])
    assert rc == 0 and "4 species, 5 links" in out and "resource" not in out.split("\n", 1)[1]
    assert "read as a header" in err and "1 duplicate link merged, each counted once" in err
    rc, out, _ = gatbio(["trophic", str(web), "--no-header"])
    assert rc == 1 or "resource" in out  # numeric ids are names here: the header row is a link
    csv = tmp_path / "links.csv"
    csv.write_text("resource,consumer\nalga,snail\nsnail,fish\nconsumer,fish\n")  # a species called consumer
    rc, out, err = gatbio(["trophic", str(csv)])
    assert rc == 0 and "5 species, 4 links" in out and "'consumer' is also a name elsewhere" in err
    rc, out, _ = gatbio(["trophic", str(csv), "--header"])
    assert "4 species, 3 links" in out


def test_foodweb_predict_traits_header_and_a_web_without_traits(tmp_path, gatbio, monkeypatch):
    from test_foodweb import niche_edges

    from gatbio.tasks import foodweb as fw

    small = fw.FoodWebConfig(gat=fw.GATParams(epochs=3, hidden_channels=4, heads=1), stack=fw.lp.StackParams(max_iter=5))
    monkeypatch.setattr(fw, "FoodWebConfig", lambda: small)  # the CLI's model, trained briefly

    ei, _ = niche_edges(14, 3)
    web = tmp_path / "web.txt"
    web.write_text("prey predator\n" + "".join(f"s{a} s{b}\n" for a, b in ei.T))
    names = sorted({f"s{k}" for k in ei.ravel()}, key=lambda s: int(s[1:]))
    only_species = tmp_path / "species.csv"
    only_species.write_text("species\n" + "\n".join(names) + "\n")
    out = tmp_path / "links.csv"
    rc, stdout, err = gatbio(["foodweb", "predict", str(web), "--top", "3", "--seeds", "0", "--out", str(out),
                           "--traits", str(only_species)])
    assert rc == 0, err
    # the given table is named (the note said "add them with --traits" to a user who had)
    assert f"--traits {only_species} has no column of numbers" in err and "model structure_only" in err
    assert "add them with --traits" not in err
    df = pd.read_csv(out)
    assert len(df) == 3 and (df["model"] == "structure_only").all()
    # more links asked for than the web has candidate pairs: all of them, said
    rc, _, err = gatbio(["foodweb", "predict", str(web), "--top", "10000", "--seeds", "0", "--quiet"])
    assert rc == 0 and "top 10000: the web has" in err and "pairs of species that are not links; all of them" in err
    assert not {"prey", "predator"} & (set(df["resource"]) | set(df["consumer"]))


def test_foodweb_predict_on_the_shipped_web_without_traits(data_root, gatbio, monkeypatch):
    from gatbio.tasks import foodweb as fw

    seen = {}

    def fake_predict(data, top, seeds=None, traits=None, trait_names=None, **kw):
        seen["x"] = fw.prepare_traits(traits if traits is not None else data.x)[0]
        return pd.DataFrame({"rank": [1], "resource": ["a"], "consumer": ["b"], "score": [0.0],
                             "resource_level": [1.0], "consumer_level": [2.0], "model": ["structure_only"]})

    monkeypatch.setattr(fw, "predict_missing_links", fake_predict)
    rc, _, err = gatbio(["foodweb", "predict", "cheddar/ChesapeakeBay", "--seeds", "0"])
    assert rc == 0 and seen["x"] is None and "no species traits" in err


@pytest.mark.parametrize("make_args,msg", [
    (lambda d: ["--out", str(d / "edges.tsv")], "--out {d}/edges.tsv is also the input --edges"),
    (lambda d: ["--out", str(d / "p.csv"), "--explain", str(d / "p.csv")], "--out and --explain are the same file"),
    (lambda d: ["--out", str(d / "labels.txt" / "p.csv")], "labels.txt is a file, not a folder"),
    (lambda d: ["--out", str(d)], "--out {d}: is a folder; give a file name"),
    (lambda d: ["--out", str(d / "p.csv"), "--explain", "/proc/gatbio/x.csv"], "--explain /proc/gatbio/x.csv: cannot write"),
    (lambda d: ["--out", str(d / "p.csv"), "--epochs", "0"], "--epochs 0"),
    (lambda d: ["--out", str(d / "p.csv"), "--nodes", str(d)], "--nodes {d}: is a folder, not a file"),
])
def test_protein_predict_outputs_are_checked_before_any_work(ppi, gatbio, monkeypatch, make_args, msg):
    from gatbio.tasks import protein

    monkeypatch.setattr(protein, "predict_unannotated", lambda *a, **k: pytest.fail("trained"))
    before = sorted(p.name for p in ppi.iterdir())
    rc, _, err = gatbio(predict_args(ppi, *make_args(ppi)))
    assert rc == 1 and msg.format(d=ppi) in err and err.count("\n") == 1
    assert sorted(p.name for p in ppi.iterdir()) == before  # nothing written


def test_protein_predict_writes_both_outputs_or_none(ppi, gatbio, monkeypatch):
    import gatbio.results as results

    real = results._write_temp

    def failing(path, data):
        if path.name == "why.csv":
            raise OSError(28, "No space left on device")
        return real(path, data)

    monkeypatch.setattr(results, "_write_temp", failing)
    # a full disk is one line with the fix (exit 1), and neither output is written
    assert main(predict_args(ppi, "--out", str(ppi / "p.csv"), "--explain", str(ppi / "why.csv"))) == 1
    assert not (ppi / "p.csv").exists() and not (ppi / "why.csv").exists()


def test_trophic_and_foodweb_outputs_are_checked(tmp_path, gatbio):
    web = tmp_path / "web.txt"
    web.write_text("a b\nb c\n")
    rc, _, err = gatbio(["trophic", str(web), "--csv", str(web)])
    assert rc == 1 and "--csv" in err and "is also the input FILE" in err and web.read_text() == "a b\nb c\n"
    rc, _, err = gatbio(["foodweb", "predict", str(web), "--out", str(tmp_path)])
    assert rc == 1 and "is a folder; give a file name" in err
    rc, _, err = gatbio(["foodweb", "predict", str(web), "--traits", str(tmp_path)])
    assert rc == 1 and "--traits" in err and "is a folder, not a file" in err
    rc, _, err = gatbio(["trophic", str(tmp_path / "missing.txt")])
    assert rc == 1 and "no such file or folder" in err


# ---------------------------------------------------------------- resumed sweeps


def test_resumed_sweeps_refuse_another_config_on_every_task(tmp_path, gatbio):
    """A results folder of one config refuses a sweep with other result settings, on each task command, before
    any work; --summary-only does not rewrite the stored config."""
    from gatbio.results import prepare_out_dir
    from gatbio.tasks import foodweb as fw
    from gatbio.tasks import protein, robustness

    cases = [
        (["protein", "run"], "out_dir", protein.load(None), protein, "epochs=7", "epochs: 80 -> 7"),
        (["robustness"], "out_dir", robustness.load(None), robustness, "sigma=2.0", "sigma: 1.0 -> 2.0"),
        (["foodweb", "benchmark"], "out", fw.FoodWebConfig(), fw, "gat.epochs=7", "gat.epochs: 400 -> 7"),
    ]
    cfg_file = tmp_path / "c.yaml"
    cfg_file.write_text("")
    for command, key, cfg, module, change, diff in cases:
        out = tmp_path / command[-1]
        setattr(cfg, key, str(out))
        prepare_out_dir(out, cfg, free_keys=module.RESUME_FREE_KEYS, outputs=module.OUTPUTS)
        (out / module.OUTPUTS[0]).mkdir(exist_ok=True)  # a finished run (a config without results is not protected)
        (out / module.OUTPUTS[0] / "result.txt").write_text("a result")
        stored = (out / "config.yaml").read_text()
        rc, _, err = gatbio(command + ["--config", str(cfg_file), f"{key}={out}", change])
        assert rc == 1 and diff in err and "--restart" in err, (command, err)
        assert (out / "config.yaml").read_text() == stored
        if command[0] != "foodweb":
            rc, _, err = gatbio(command + ["--config", str(cfg_file), f"{key}={out}", change, "--summary-only"])
            assert (out / "config.yaml").read_text() == stored and "holds runs of another configuration" in err
    fp = json.loads((tmp_path / "run" / "fingerprint.json").read_text())
    assert "jobs" not in fp["settings"] and "epochs" in fp["settings"]


@pytest.mark.parametrize("command", [["protein", "run", "--config", "c.yaml"], ["robustness", "--config", "c.yaml"],
                                     ["foodweb", "benchmark"]])
def test_every_task_command_has_the_resume_options(command):
    from gatbio._options import pop_resume_flag, resume_mode
    from gatbio.cli import build_parser

    parser = build_parser()
    assert resume_mode(parser.parse_args(command)) == "check"
    assert resume_mode(parser.parse_args(command + ["--restart"])) == "restart"
    assert resume_mode(parser.parse_args(command + ["--resume-anyway"])) == "anyway"
    with pytest.raises(SystemExit):
        parser.parse_args(command + ["--restart", "--resume-anyway"])
    assert pop_resume_flag(["c.yaml", "--restart", "seeds=[0]"]) == (["c.yaml", "seeds=[0]"], "restart")


@pytest.mark.parametrize("script", ["protein_function.py", "hub_robustness.py", "protein_interactions.py"])
def test_thin_scripts_answer_help_and_refuse_unknown_options(script):
    """``--help`` prints the usage (exit 0) instead of being read as a config path; an unknown option is named."""
    import subprocess
    import sys
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "experiments" / script

    def call(*args):
        return subprocess.run([sys.executable, str(path), *args], capture_output=True, text=True, timeout=120)

    helped = call("--help")
    assert helped.returncode == 0 and f"python experiments/{script}" in helped.stdout and not helped.stderr
    unknown = call("c.yaml", "--restrat")
    assert unknown.returncode == 1 and "unknown option --restrat" in unknown.stderr
    assert "Traceback" not in unknown.stderr
    bare = call()
    assert bare.returncode == 1 and f"python experiments/{script}" in bare.stderr


def test_pop_resume_flag_with_usage():
    from gatbio._options import pop_resume_flag

    assert pop_resume_flag(["c.yaml", "--resume-anyway"], usage="u") == (["c.yaml"], "anyway")
    with pytest.raises(SystemExit, match="exclude"):
        pop_resume_flag(["c.yaml", "--restart", "--resume-anyway"], usage="u")
    with pytest.raises(SystemExit) as stop:
        pop_resume_flag(["--restart"], usage="usage: x")
    assert stop.value.code == "usage: x"


def test_folders_given_as_files_say_so(tmp_path, gatbio):
    """A file where a folder is expected (--webs, summarize's OUT), or a missing folder: one line each."""
    a_file = tmp_path / "webs.txt"
    a_file.write_text("a b\n")
    for args, msg in [
        (["foodweb", "benchmark", "--webs", str(a_file), "--out", str(tmp_path / "o")], "is a file, not a folder"),
        (["foodweb", "benchmark", "--webs", str(tmp_path / "nope"), "--out", str(tmp_path / "o")], "no such folder"),
        (["foodweb", "summarize", str(a_file)], f"OUT {a_file}: is a file, not a folder"),
        (["foodweb", "summarize", str(tmp_path / "nope")], "no such folder (the results folder"),
    ]:
        rc, _, err = gatbio(args)
        assert rc == 1 and msg in err and err.count("\n") == 1, (args, err)
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("command,override,named", [
    (["protein", "run", "--config", "experiments/configs/protein_quick.yaml"], "seeds=[0,0]", "seeds=[0, 0]: 0"),
    (["protein", "run", "--config", "experiments/configs/protein_quick.yaml"], "variants=[gat,gat]",
     "variants=['gat', 'gat']: 'gat'"),
    (["robustness", "--config", "experiments/configs/robustness_quick.yaml"], "models=[gcn,gcn]",
     "models=['gcn', 'gcn']: 'gcn'"),
    (["protein", "interactions", "--config", "experiments/configs/shs27k_quick.yaml"], "splits=[bfs,bfs]",
     "splits=['bfs', 'bfs']: 'bfs'"),
    (["foodweb", "benchmark", "--config", "experiments/configs/foodweb_quick.yaml"], "seeds=[1,1]",
     "seeds=[1, 1]: 1"),
])
def test_a_seed_or_model_listed_twice_is_refused_before_any_work(tmp_path, gatbio, command, override, named):
    """A repeated seed (or model, variant, split) would run twice, or in two workers at once, and count twice in the
    mean ± std: refused with the key, before any output."""
    key = "out" if command[0] == "foodweb" else "out_dir"
    out = tmp_path / "out"
    rc, _, err = gatbio(command + [f"{key}={out}", override])
    assert rc != 0 and f"config {named} is listed twice" in err, err
    assert not out.exists()


@pytest.mark.parametrize("command", [["protein", "run"], ["robustness"], ["protein", "interactions"]])
@pytest.mark.parametrize("flag", ["--restart", "--resume-anyway"])
def test_summary_only_with_restart_or_resume_anyway_is_a_usage_error(tmp_path, gatbio, command, flag):
    cfg = tmp_path / "c.yaml"
    cfg.write_text("")
    rc, _, err = gatbio(command + ["--config", str(cfg), "--summary-only", flag])
    assert rc == 2 and f"--summary-only remakes the tables of the runs already there; {flag}" in err, err
