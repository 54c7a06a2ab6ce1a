"""The thin runners of experiments/ (protein_interactions.py, hub_robustness.py, protein_function.py): a user's
mistake in the config file or a key=value setting is one line and status 1, as ``gatbio`` gives, not a traceback.
food_web_inference.py: no arguments is the usage (not the hour-long default benchmark), a config file given as a
positional says --config. execute_notebooks.py: every folder holds results of its notebook's task, checked before
any notebook runs (no notebook is executed here)."""

from __future__ import annotations

import json

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


@pytest.fixture
def notebooks(monkeypatch):
    """experiments/execute_notebooks.py with its ``execute`` recording the notebooks it would run (nothing under
    notebooks/ is rewritten)."""
    script = experiment_script("execute_notebooks")
    ran = []
    monkeypatch.setattr(script, "execute", lambda name, folder, timeout=0: ran.append((name, folder)) or
                        script.NOTEBOOKS / f"{name}.ipynb")
    script.ran = ran
    return script


def _results(folder, task=None, config=None, files=("summary.csv",)):
    folder.mkdir(parents=True)
    for f in files:
        (folder / f).write_text("x\n")
    if task is not None:
        (folder / "fingerprint.json").write_text(json.dumps({"task": task, "settings": {}}))
    if config is not None:
        from gatbio.config import save_config

        save_config(config, folder / "config.yaml")
    return folder


def test_a_folder_of_another_task_is_refused_before_any_notebook_runs(notebooks, tmp_path, capsys):
    """The audit's case: the food-web notebook on an interactions folder (it had rewritten the notebook)."""
    folder = _results(tmp_path / "shs27k", task="InteractionsConfig")
    assert notebooks.main(["food_web_inference", "--foodweb", str(folder)]) == 1
    err = capsys.readouterr().err
    assert err.strip() == (f"--foodweb {folder}: holds results of InteractionsConfig, but food_web_inference reads "
                           "results of FoodWebConfig (give the out_dir of that task's run as --foodweb)")
    assert notebooks.ran == []
    good = _results(tmp_path / "fw", task="FoodWebConfig")  # one good and one wrong: neither runs
    inter = _results(tmp_path / "inter", task="FoodWebConfig", files=("summary.csv", "config.yaml"))
    assert notebooks.main(["food_web_inference", "protein_interactions", "--foodweb", str(good),
                           "--interactions", str(inter)]) == 1
    assert "--interactions" in capsys.readouterr().err and notebooks.ran == []


def test_the_task_is_read_from_config_yaml_without_a_fingerprint(notebooks, tmp_path, capsys):
    from gatbio.tasks.foodweb import FoodWebConfig
    from gatbio.tasks.protein_interactions import InteractionsConfig

    inter = _results(tmp_path / "inter", config=InteractionsConfig())
    assert notebooks.folder_task(inter) == "InteractionsConfig"
    assert notebooks.main(["food_web_inference", "--foodweb", str(inter)]) == 1
    assert "holds results of InteractionsConfig, but food_web_inference" in capsys.readouterr().err
    fw = _results(tmp_path / "fw", config=FoodWebConfig())
    assert notebooks.folder_task(fw) == "FoodWebConfig"
    assert notebooks.main(["food_web_inference", "--foodweb", str(fw)]) == 0
    assert notebooks.ran == [("food_web_inference", fw)]


def test_a_folder_that_says_no_task_is_refused(notebooks, tmp_path, capsys):
    folder = _results(tmp_path / "bare")
    assert notebooks.main(["food_web_inference", "--foodweb", str(folder)]) == 1
    assert f"--foodweb {folder}: no fingerprint.json or config.yaml tells which task made it; food_web_inference " \
           "reads results of FoodWebConfig" in capsys.readouterr().err
    assert notebooks.ran == []


def test_every_notebook_has_its_task(notebooks):
    assert set(notebooks.TASKS) == set(notebooks.SETUP)


@pytest.fixture
def foodweb(monkeypatch):
    script = experiment_script("food_web_inference")
    import gatbio.tasks.foodweb_cli as cli

    calls = []
    monkeypatch.setattr(cli, "main", lambda argv: calls.append(argv) or 0)
    script.calls = calls
    return script


def test_food_web_inference_without_arguments_prints_the_usage(foodweb):
    """It used to start the full default benchmark (about an hour)."""
    with pytest.raises(SystemExit) as exit_:
        foodweb.main([])
    assert isinstance(exit_.value.code, str) and "--config experiments/configs/foodweb_quick.yaml" in exit_.value.code
    assert foodweb.calls == []


@pytest.mark.parametrize("argv", [["experiments/configs/foodweb_quick.yaml"],
                                  ["--jobs", "2", "my.yml", "seeds=[0]"]])
def test_food_web_inference_says_to_give_a_config_with_config(argv, foodweb, capsys):
    """It said ``override '...yaml' is not of the form key=value``."""
    path = next(a for a in argv if a.endswith(("yaml", "yml")))
    assert foodweb.main(argv) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"food_web_inference.py: error: {path}: a config file is given with --config (python "
                          f"experiments/food_web_inference.py --config {path})") and err.count("\n") == 1
    assert foodweb.calls == []


def test_food_web_inference_passes_its_arguments_on(foodweb):
    argv = ["--config", "experiments/configs/foodweb_quick.yaml", "--out", "x.yaml", "seeds=[0]"]
    assert foodweb.main(argv) == 0
    assert foodweb.calls == [["benchmark", *argv]]


def test_notebooks_refuse_a_timeout_under_a_second_and_run_a_notebook_named_twice_once(notebooks, tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        notebooks.main(["food_web_inference", "--timeout", "0"])
    assert exit_.value.code == 2 and "--timeout 0: give the seconds a cell may run" in capsys.readouterr().err
    folder = _results(tmp_path / "fw", task="FoodWebConfig")
    assert notebooks.main(["food_web_inference", "food_web_inference", "--foodweb", str(folder)]) in (0, None)
    assert notebooks.ran == [("food_web_inference", folder)]
