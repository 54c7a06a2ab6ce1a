"""The ``gatbio`` command as a person meets it: fast help, plain help texts, every option documented."""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys

import numpy as np
import pytest

from gatbio.cli import build_parser, plain_text

#: What building the parser and printing any help must not import (each costs from 0.2 s to several seconds).
HEAVY = ("torch", "torch_geometric", "numpy", "pandas", "scipy", "sklearn", "matplotlib", "networkx")


def all_parsers(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()):
    """``(command words, parser)`` for the parser and every sub-parser below it."""
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from all_parsers(sub, (*path, name))


def test_help_does_not_import_heavy_modules():
    # A fresh interpreter, so that modules other tests imported do not hide an import; it prints every help.
    code = (
        "import argparse, json, sys\n"
        "from gatbio.cli import build_parser, main\n"
        "def walk(p, path=()):\n"
        "    yield path\n"
        "    for a in p._actions:\n"
        "        if isinstance(a, argparse._SubParsersAction):\n"
        "            for name, sub in a.choices.items():\n"
        "                yield from walk(sub, (*path, name))\n"
        "words = list(walk(build_parser()))\n"
        "for w in [*words, ('--version',)]:\n"
        "    try:\n"
        "        main([*w, '--help'] if w != ('--version',) else list(w))\n"
        "    except SystemExit:\n"
        "        pass\n"
        f"print(json.dumps([len(words), [m for m in {HEAVY!r} if m in sys.modules]]))\n"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    n, heavy = json.loads(res.stdout.strip().splitlines()[-1])
    assert n >= 10  # gatbio, datasets, trophic, protein (predict, run), foodweb (3), robustness
    assert heavy == [], f"building the parser / printing help imported {heavy}"


def test_python_m_gatbio_is_the_gatbio_command():
    """``python -m gatbio`` where the scripts folder is not on PATH: the same program, its status passed on."""
    import gatbio

    ok = subprocess.run([sys.executable, "-m", "gatbio", "--version"], capture_output=True, text=True)
    assert ok.returncode == 0 and gatbio.__version__ in ok.stdout
    bad = subprocess.run([sys.executable, "-m", "gatbio", "trophic", "--no-such-option"], capture_output=True,
                         text=True)
    assert bad.returncode == 2 and "usage: gatbio trophic" in bad.stderr, bad.stderr


def test_the_lazy_package_attributes_still_work():
    from gatbio.ecology import trophic_levels
    from gatbio.ecology.trophic import trophic_levels as direct

    assert trophic_levels is direct
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        import gatbio.ecology

        gatbio.ecology.nope  # noqa: B018


RST = re.compile(r"``|:(?:func|mod|class|data|meth|attr|math|ref):`|\.\. [a-z]+::|::\s*$", re.M)


@pytest.mark.parametrize("words", [p for p, _ in all_parsers(build_parser())], ids=" ".join)
def test_help_is_plain_text_and_documents_every_argument(words):
    parser = dict(all_parsers(build_parser()))[words]
    text = parser.format_help()
    assert not RST.search(text), f"gatbio {' '.join(words)} --help shows markup: {RST.search(text).group(0)!r}"
    assert "%%" not in text and "%(" not in text
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            undocumented = [a.dest for a in action._choices_actions if not a.help]
            assert not undocumented, f"sub-commands without help: {undocumented}"
        else:
            assert action.help, f"gatbio {' '.join(words)}: {action.dest} has no help text"
            assert action.help is not argparse.SUPPRESS, f"gatbio {' '.join(words)}: {action.dest} is hidden"


def test_a_command_with_actions_names_each_in_its_help_line_and_every_command_describes_itself():
    """`gatbio --help` said "protein   protein function prediction (predict for your files, or run the
    benchmark)", leaving out its interactions and embed; `gatbio foodweb summarize --help` had no description."""
    parser = build_parser()
    top = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    lines = {c.dest: c.help for c in top._choices_actions}
    for name, sub in top.choices.items():
        for action in sub._actions:
            if isinstance(action, argparse._SubParsersAction):
                missing = [w for w in action.choices if not re.search(rf"\b{w}\b", lines[name])]
                assert not missing, f"gatbio --help: {name}'s line ({lines[name]!r}) does not name {missing}"
    for words, sub in all_parsers(parser):
        assert sub.description, f"gatbio {' '.join(words)} --help has no description"


def test_defaults_are_shown_once():
    parsers = dict(all_parsers(build_parser()))
    text = " ".join(parsers[("foodweb", "predict")].format_help().split())
    assert "--top N how many links to list (default: 20)" in text
    assert text.count("(default: 20)") == 1
    text = " ".join(parsers[("protein", "predict")].format_help().split())
    assert "(default: 0)" in text  # --seed: a 0 default is a value, not "off"
    assert "--quiet no progress" in text  # a False default is "off": not shown


def test_plain_text_known_answers():
    assert plain_text("``gatbio foodweb``: see :func:`gatbio.tasks.foodweb.benchmark`") == \
        "gatbio foodweb: see gatbio.tasks.foodweb.benchmark"
    assert plain_text(":class:`~gatbio.nn.GATConv` and :ref:`the guide <guide>`") == "GATConv and the guide"
    assert plain_text("Usage::\n\n    gatbio x") == "Usage:\n\n    gatbio x"
    assert plain_text(None) is None


def test_version():
    res = subprocess.run([sys.executable, "-m", "gatbio.cli", "--version"], capture_output=True, text=True)
    from gatbio import __version__

    assert res.returncode == 0 and res.stdout.strip() == f"gatbio {__version__}"


# ---------------------------------------------------------------------------------------------------- --out
@pytest.mark.parametrize("words,module", [(["robustness"], "gatbio.tasks.robustness"),
                                          (["protein", "run"], "gatbio.tasks.protein")])
def test_out_sets_the_results_folder_and_overrides_still_work(tmp_path, monkeypatch, words, module):
    import importlib

    from conftest import REPO

    from gatbio.cli import main

    seen = {}

    def run(cfg, **kw):
        seen["cfg"] = cfg
        return "(not run)"

    monkeypatch.setattr(importlib.import_module(module), "run", run)
    config = REPO / "experiments" / "configs" / f"{'robustness' if words[0] == 'robustness' else 'protein'}_quick.yaml"
    out = tmp_path / "my results [x]"  # a folder name that a key=value parser would read as a list
    assert main([*words, "--config", str(config), "--out", str(out), "seeds=[3]"]) == 0
    assert seen["cfg"].out_dir == str(out) and list(seen["cfg"].seeds) == [3]
    seen.clear()
    assert main([*words, "--config", str(config), f"out_dir={tmp_path / 'b'}"]) == 0
    assert seen["cfg"].out_dir == str(tmp_path / "b")


# ---------------------------------------------------------------------------------------------------- food webs
def gateway_collection(root, n: int = 12):
    """A GATEWAy-like collection (``root/webs/Test Brook_7`` with ``web_index.csv`` and ``node_ids.csv``) of a
    niche-model web of ``n`` species with one trait; returns the web folder and its species names."""
    rng = np.random.default_rng(1)
    niche = np.sort(rng.uniform(0, 1, n))
    r = niche * rng.uniform(0.2, 0.5, n)
    c = np.array([rng.uniform(r[j] / 2, niche[j]) for j in range(n)])
    A = np.abs(niche[:, None] - c[None, :]) <= r[None, :] / 2
    np.fill_diagonal(A, False)
    folder = root / "webs" / "Test Brook_7"
    folder.mkdir(parents=True)
    (folder / "7_edge_list.txt").write_text("".join(f"{a} {b}\n" for a, b in zip(*np.nonzero(A), strict=True)))
    (folder / "7_node_attr_list.txt").write_text(
        "id log_mass\n" + "".join(f"{k} {np.log10(niche[k] + 0.01):.4f}\n" for k in range(n)))
    names = [f"Species {chr(65 + k)}_larvae" for k in range(n)]
    (root / "web_index.csv").write_text(f"web_id,web_name,data_dir,n_nodes,n_links\n7,Test Brook,Test Brook_7,{n},"
                                        f"{int(A.sum())}\n")
    (root / "node_ids.csv").write_text(",0,1,2\n" + "".join(f"{k},Test Brook,{s},{k}\n" for k, s in enumerate(names)))
    return folder, names


def test_foodweb_predict_draws_a_gateway_folder_with_species_names(tmp_path, capsys):
    import pandas as pd
    from test_plot import check_image

    from gatbio import plot
    from gatbio.cli import main

    folder, names = gateway_collection(tmp_path / "coll")
    out, picture = tmp_path / "links.csv", tmp_path / "web.svg"
    assert main(["foodweb", "predict", str(folder), "--format", "gateway", "--top", "3", "--seeds", "0",
                 "--out", str(out), "--plot", str(picture)]) == 0
    df = pd.read_csv(out)
    assert len(df) == 3 and set(df["resource"]) | set(df["consumer"]) <= set(names)
    assert df["model"].iloc[0] == "full"  # the folder's trait table was read
    check_image(picture, plot.FOODWEB_SIZE)
    assert df["consumer"].iloc[0] in picture.read_text()  # the species of the predicted links are labelled
    captured = capsys.readouterr()
    # not a terminal: no progress; at most the once-per-process device line (already said when another test of
    # the session trained on the CPU first, so the test must not depend on the order the tests run in)
    assert [ln for ln in captured.err.splitlines() if not ln.startswith("gatbio: device ")] == []
    # a wrong picture suffix is an error before any training: nothing is written
    assert main(["foodweb", "predict", str(folder), "--out", str(tmp_path / "b.csv"), "--plot", "web.jpg"]) == 1
    assert "give a file ending in .png or .svg" in capsys.readouterr().err
    assert not (tmp_path / "b.csv").exists()


def test_foodweb_predict_score_help_matches_the_pool_weights():
    from gatbio.tasks.foodweb import FoodWebConfig
    from gatbio.tasks.foodweb_cli import PREDICT_DESCRIPTION

    # the help spells the pool out: (2 x GAT + 1 x boosted + 1 x linear) / 4
    assert list(FoodWebConfig().pool_weights) == [2.0, 1.0, 1.0]
    assert "(2 x GAT logit + log-odds of the boosted stack + log-odds of the linear stack) / 4" in PREDICT_DESCRIPTION


class FakeBar:
    def __init__(self):
        self.total, self.n, self.done = None, 0, []

    def reset(self, total):
        self.total, self.n = total, 0

    def set_postfix_str(self, s, refresh=True):
        self.done.append(s)

    def update(self, n=1):
        self.n += n


@pytest.mark.parametrize("models", [["full"], ["structure_only"], ["gat", "no_trophic_bias", "l3_ra"]])
def test_foodweb_progress_counts_every_fit(tmp_path, models):
    from gatbio.tasks import foodweb as fw

    folder, _ = gateway_collection(tmp_path)
    data = fw.read_web_folder(folder)
    A = fw.adjacency_of(data.edge_index, data.num_nodes)
    traits, _ = fw.prepare_traits(data.x)
    cfg = fw.FoodWebConfig(models=models, gat=fw.GATParams(epochs=2, hidden_channels=4, heads=1),
                           stack=fw.lp.StackParams(max_iter=3, max_negatives=100))
    bar = FakeBar()
    fw.fold_scores(A, traits, cfg, "links", [0, 1], gat_seeds=[0, 1, 2], progress=bar)
    assert bar.total == bar.n > 0, bar.done


def test_progress_shows_on_a_terminal_only(monkeypatch, capsys):
    import io

    from gatbio import cli

    monkeypatch.setattr(cli.sys, "stderr", io.StringIO())
    assert not cli.show_progress()
    tty = io.StringIO()
    tty.isatty = lambda: True
    monkeypatch.setattr(cli.sys, "stderr", tty)
    assert cli.show_progress() and not cli.show_progress(quiet=True)


# ---------------------------------------------------------------------------------------------------- proteins
# the fixture of tests/tasks/test_protein_cli.py: two communities of 12 proteins, half annotated, one bridge, LONE
from tasks.test_protein_cli import files  # noqa: E402, F401  (a pytest fixture)


def test_protein_predict_draws_the_best_prediction(files, capsys, monkeypatch):  # noqa: F811
    import pandas as pd
    from test_plot import check_image

    from gatbio import cli, plot

    f = files
    base = ["protein", "predict", "--edges", str(f / "edges.txt"), "--labels", str(f / "labels.txt"),
            "--nodes", str(f / "nodes.txt"), "--out", str(f / "pred.csv"), "--epochs", "12"]
    monkeypatch.setattr(cli, "show_progress", lambda quiet=False: not quiet)  # as on a terminal
    assert cli.main([*base, "--plot", str(f / "p.png"), "--explain", str(f / "why.csv")]) == 0
    captured = capsys.readouterr()
    assert "# node inputs (prone, netmf) of 25 proteins" in captured.err and "training" in captured.err  # progress
    pred = pd.read_csv(f / "pred.csv")
    best = plot.best_predicted_protein(pred)
    assert f"attention neighbourhood of {best} → {f / 'p.png'}" in captured.out
    check_image(f / "p.png", plot.PROTEIN_SIZE)
    assert pd.read_csv(f / "why.csv").groupby("protein").size().max() <= 5  # the table keeps 5 per protein
    assert cli.main([*base, "--plot", str(f / "p.svg"), "--plot-protein", "T3", "--quiet"]) == 0
    captured = capsys.readouterr()
    # --quiet: no progress; what remains on stderr is the note on the 12 annotated proteins
    assert "attention neighbourhood of T3" in captured.out
    assert [ln for ln in captured.err.splitlines() if not ln.startswith("# note: 12 annotated proteins")] == []
    check_image(f / "p.svg", plot.PROTEIN_SIZE)


@pytest.mark.parametrize("extra,message", [
    (["--plot", "p.png", "--plot-protein", "K33"], "no such protein in the network; did you mean K3"),
    (["--plot", "p.png", "--plot-protein", "K2"], "'K2' is annotated"),
    (["--plot", "p.png", "--plot-protein", "LONE"], "'LONE' has no interactions"),
    (["--plot-protein", "K3"], "give --plot FILE too"),
    (["--plot", "p.gif"], "give a file ending in .png or .svg"),
])
def test_protein_plot_mistakes_are_found_before_training(files, capsys, extra, message):  # noqa: F811
    from gatbio.cli import main

    f = files
    rc = main(["protein", "predict", "--edges", str(f / "edges.txt"), "--labels", str(f / "labels.txt"),
               "--nodes", str(f / "nodes.txt"), "--out", str(f / "pred.csv"), *extra])
    assert rc == 1 and message in capsys.readouterr().err
    assert not (f / "pred.csv").exists()


def test_error_lines_name_the_command_as_typed(tmp_path, capsys):
    from gatbio.cli import main

    missing = str(tmp_path / "none.txt")
    assert main(["protein", "predict", "--edges", missing, "--labels", missing, "--out", str(tmp_path / "p.csv")]) == 1
    assert capsys.readouterr().err.startswith("gatbio protein predict: error: ")
    assert main(["protein", "interactions", "predict", "--pairs", missing, "--out", str(tmp_path / "p.csv")]) == 1
    assert capsys.readouterr().err.startswith("gatbio protein interactions predict: error: ")
    assert main(["trophic", missing]) == 1
    assert capsys.readouterr().err.startswith("gatbio trophic: error: ")


def test_a_missing_or_misplaced_option_is_a_usage_error_exit_2(capsys):
    """As argparse's own usage errors (``protein run`` without --config exits 2), the checks a command makes
    itself on its command line exit 2 too."""
    from gatbio.cli import main

    with pytest.raises(SystemExit) as exit_:
        main(["protein", "run"])
    assert exit_.value.code == 2 and "the following arguments are required: --config" in capsys.readouterr().err
    for argv, said in ((["protein", "interactions"], "the benchmark needs --config FILE"),
                       (["protein", "interactions", "predict"], "predict needs --pairs FILE")):
        assert main(argv) == 2 and said in capsys.readouterr().err


@pytest.mark.parametrize("argv, usage", [
    (["protein", "run", "--config", "x.yaml", "--bogus"], "gatbio protein run"),
    (["foodweb", "benchmark", "--bogus"], "gatbio foodweb benchmark"),
    (["trophic", "web.txt", "--bogus"], "gatbio trophic"),
    (["--bogus"], "gatbio"),
    # an action left out too: the unknown option is named first (with required=True subparsers, argparse said
    # only that an action was missing)
    (["foodweb", "--bogus"], "gatbio foodweb"),
    (["protein", "--bogus"], "gatbio protein"),
])
def test_an_unknown_option_shows_the_usage_of_the_command_as_typed(capsys, argv, usage):
    """argparse reports an option unknown to a subcommand with the top-level usage; the command's own says what
    it takes."""
    from gatbio.cli import main

    with pytest.raises(SystemExit) as exit_:
        main(argv)
    err = capsys.readouterr().err
    assert exit_.value.code == 2
    assert f"{usage}: error: unrecognized arguments: --bogus" in err
    assert err.startswith(f"usage: {usage} ")


@pytest.mark.parametrize("argv, usage, required", [
    ([], "gatbio", "COMMAND (one of datasets, trophic, protein, foodweb, robustness; 'gatbio --help' describes them)"),
    (["foodweb"], "gatbio foodweb", "{benchmark,summarize,predict}"),
    (["protein"], "gatbio protein", "{predict,run,interactions,embed}"),
])
def test_a_command_or_action_left_out_is_a_usage_error_on_stderr(capsys, argv, usage, required):
    """``gatbio foodweb`` (and ``gatbio``) printed the whole help on stdout, ``gatbio protein`` the usage and an
    error on stderr; now all as argparse does: usage and error on stderr, nothing on stdout, exit status 2."""
    from gatbio.cli import main

    with pytest.raises(SystemExit) as exit_:
        main(argv)
    out, err = capsys.readouterr()
    assert exit_.value.code == 2 and out == ""
    assert err.startswith(f"usage: {usage} [-h]")
    assert err.rstrip().endswith(f"{usage}: error: the following arguments are required: {required}")
    if argv:  # the actions the error names are the command's actions, all of them
        sub = dict(all_parsers(build_parser()))[tuple(argv)]
        (actions,) = [a for a in sub._actions if isinstance(a, argparse._SubParsersAction)]
        assert actions.metavar == "{" + ",".join(actions.choices) + "}"


def test_a_full_disk_or_a_symlink_loop_is_one_line_with_the_fix(capsys):
    """A download into a full disk ended in a traceback ('OSError: [Errno 28] No space left on device'), as did
    a root that is a symlink loop; other OS errors are bugs or unknown and keep their traceback."""
    import errno

    import pytest

    from gatbio.cli import run_guarded

    def fail(code, path):
        def func():
            raise OSError(code, __import__("os").strerror(code), path)
        return func

    assert run_guarded("gatbio datasets", fail(errno.ENOSPC, "/data/x.tsv")) == 1
    err = capsys.readouterr().err
    assert err == ("gatbio datasets: error: No space left on device: /data/x.tsv (free some disk space there, or "
                   "write to another folder)\n")
    assert run_guarded("gatbio datasets", fail(errno.ELOOP, "loop")) == 1
    assert "points back to itself" in capsys.readouterr().err
    with pytest.raises(OSError):
        run_guarded("gatbio datasets", fail(errno.EIO, "x"))


@pytest.mark.parametrize("words", [["protein", "run"], ["foodweb", "benchmark"], ["protein", "interactions"],
                                   ["robustness"]])
def test_overrides_may_sit_on_both_sides_of_the_options(words):
    """`protein run --config F epochs=5 --out D seeds=[0]` was 'unrecognized arguments: seeds=[0]' for protein run
    and foodweb benchmark (interactions and robustness took it): every sweep reads them alike."""
    args = build_parser().parse_args([*words, "--config", "c.yaml", "epochs=5", "--out", "D", "seeds=[0]"])
    given = getattr(args, "overrides", None) or getattr(args, "args", None)
    assert list(given) == ["epochs=5", "seeds=[0]"] and args.out == "D"


@pytest.mark.parametrize("words,key", [(["protein", "run"], "out_dir"), (["foodweb", "benchmark"], "out"),
                                       (["protein", "interactions"], "out_dir"), (["robustness"], "out_dir")])
def test_two_results_folders_are_refused_before_any_reading(words, key, tmp_path, capsys):
    """`--out B out_dir=A`: B was used without a word about A."""
    from gatbio.cli import main

    argv = [*words, "--config", str(tmp_path / "none.yaml"), f"{key}={tmp_path / 'A'}", "--out", str(tmp_path / "B")]
    assert main(argv) == 1
    assert f"--out {tmp_path / 'B'} and the override {key}={tmp_path / 'A'} name two results folders: give one " \
           "of them" in capsys.readouterr().err
