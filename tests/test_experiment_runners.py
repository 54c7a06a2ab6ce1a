"""The thin runners of experiments/ (protein_interactions.py, hub_robustness.py, protein_function.py): a user's
mistake in the config file or a key=value setting is one line and status 1, as ``gatbio`` gives, not a traceback."""

from __future__ import annotations

import pytest
from conftest import REPO, experiment_script

CONFIGS = REPO / "experiments" / "configs"


@pytest.mark.parametrize("script,argv,message", [
    ("protein_interactions", ["{tmp}/missing.yaml"], "config file {tmp}/missing.yaml does not exist"),
    ("hub_robustness", ["{tmp}/notyaml.txt"], "the top level must be a mapping"),
    ("hub_robustness", [f"{CONFIGS}/robustness_full.yaml", "modles=[gat]"], "Did you mean: 'models'?"),
    ("protein_function", [f"{CONFIGS}/protein_full.yaml", "variants=[nope]", "out_dir={tmp}/out"],
     "unknown variant(s) ['nope']"),
    ("protein_function", ["--ppi24", "{tmp}/missing.yaml"], "config file {tmp}/missing.yaml does not exist"),
    ("protein_interactions", [f"{CONFIGS}/shs27k.yaml", "models=[gat_regoin]"], "unknown model 'gat_regoin'"),
    ("protein_interactions", [f"{CONFIGS}/shs27k.yaml", "splits=[bsf]"], "choose one or more of random, bfs, dfs"),
])
def test_a_users_mistake_is_one_line(script, argv, message, tmp_path, capsys):
    (tmp_path / "notyaml.txt").write_text("hi\n")
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    assert experiment_script(script).main(argv) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"{script}.py: error: ") and err.count("\n") == 1, err
    assert message.replace("{tmp}", str(tmp_path)) in err


def test_protein_function_names_all_its_options():
    with pytest.raises(SystemExit, match="the options are --ppi24, --restart and --resume-anyway"):
        experiment_script("protein_function").main(["--foo", "x.yaml"])


@pytest.mark.parametrize("script,module", [("hub_robustness", "robustness"),
                                           ("protein_interactions", "protein_interactions"),
                                           ("protein_function", "protein")])
def test_the_runners_show_progress_on_a_terminal_and_in_a_log(script, module, monkeypatch, capsys):
    """As ``gatbio`` does (gatbio.cli.show_sweep_progress): progress in both (gatbio.parallel draws a bar on a
    terminal and writes lines into a log file or a pipe)."""
    import importlib

    task = importlib.import_module(f"gatbio.tasks.{module}")
    seen = {}
    monkeypatch.setattr(task, "load", lambda path, overrides: "cfg")
    monkeypatch.setattr(task, "run", lambda cfg, **kwargs: seen.update(kwargs) or "summary")
    for tty in (False, True):
        monkeypatch.setattr("sys.stderr.isatty", lambda tty=tty: tty)
        assert experiment_script(script).main(["x.yaml"]) == 0
        assert seen["progress"] is True
    assert capsys.readouterr().out == "summary\nsummary\n"
