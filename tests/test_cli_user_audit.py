"""A user who copies a config from experiments/configs/, edits it and drives gatbio from the shell: the mistakes
they make are named with the fix, and what they write means what they meant."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest

from gatbio import _paths
from gatbio._paths import check_input_file, remember_config_paths
from gatbio.cli import main
from gatbio.config import load_config


@dataclass
class Inner:
    webs: list[str] = field(default_factory=lambda: ["cheddar/TL84"])
    enabled: bool = True


@dataclass
class Cfg:
    name: str = "run"
    out_dir: str = "results/run"
    seeds: list[int] = field(default_factory=lambda: [0])
    epochs: int = 10
    inner: Inner = field(default_factory=Inner)


def test_a_tab_in_a_config_says_to_indent_with_spaces(tmp_path):
    # was: PyYAML's "found character '\t' that cannot start any token" alone
    p = tmp_path / "c.yaml"
    p.write_text("name: x\ninner:\n\tenabled: true\n")
    with pytest.raises(ValueError, match=r"c\.yaml:3: malformed YAML: found character '\\t' .*spaces, not tabs"):
        load_config(Cfg, p)


@pytest.mark.parametrize("overrides, whole", [
    (["seeds=[0,", "1]"], "seeds=[0, 1]"),
    (["epochs=3", "seeds=[0,", "1,", "2]", "name=x"], "seeds=[0, 1, 2]"),
])
def test_a_list_the_shell_split_at_its_spaces_says_how_to_quote_it(overrides, whole):
    # was: "override '1]' is not of the form key=value", naming a piece the user never typed as such
    with pytest.raises(ValueError) as err:
        load_config(Cfg, None, overrides)
    assert f"the shell split {whole!r} at its spaces: quote it, '{whole}', or write it without spaces, " \
           f"{whole.replace(' ', '')}" in str(err.value)


def test_the_quoting_hint_stops_where_the_list_closes():
    with pytest.raises(ValueError) as err:
        load_config(Cfg, None, ["seeds=[0,", "1]", "jobs"])
    assert "quote it, 'seeds=[0, 1]', or write it without spaces, seeds=[0,1])" in str(err.value)


def test_a_word_without_a_value_keeps_the_plain_message():
    with pytest.raises(ValueError) as err:
        load_config(Cfg, None, ["epochs=3", "seeds"])
    assert str(err.value) == "override 'seeds' is not of the form key=value"


def test_a_split_list_on_the_command_line_is_one_line_exit_1(tmp_path, capsys):
    cfg = tmp_path / "rob.yaml"
    cfg.write_text(Path("experiments/configs/robustness_quick.yaml").read_text())
    assert main(["robustness", "--config", str(cfg), "--out", str(tmp_path / "out"), "seeds=[0,", "1]"]) == 1
    err = capsys.readouterr().err
    assert "quote it, 'seeds=[0, 1]', or write it without spaces, seeds=[0,1]" in err
    assert "Traceback" not in err


@pytest.mark.parametrize("override, said", [
    ("name=#x", "name must be text, and # starts a YAML comment, so no value is left; for the text #x, quote it "
                "twice: 'name=\"#x\"'"),
    ("name=~", "name must be text, and ~ means no value (null) in YAML"),
    ("epochs=null", "epochs must be a whole number, and null means no value in YAML"),
])
def test_a_null_override_says_that_yaml_read_nothing(override, said):
    # was: "name must be text, not '#x'" (#x is text, as far as the user can see)
    with pytest.raises(ValueError) as err:
        load_config(Cfg, None, [override])
    assert str(err.value) == f"override {override!r}: {said}"


@pytest.mark.parametrize("text, line, key, got", [
    ("name: no\n", 1, "name", "false"),
    ("epochs: 3\nout_dir: off\n", 2, "out_dir", "false"),
    ("inner:\n  webs: [cheddar/TL84, yes]\n", 2, "inner.webs[1]", "true"),
])
def test_yes_or_no_for_a_text_setting_is_refused_in_a_file(tmp_path, text, line, key, got):
    # was: kept as the text 'False' / 'True' without a word (a results folder named False, a web named True)
    p = tmp_path / "c.yaml"
    p.write_text(text)
    with pytest.raises(ValueError) as err:
        load_config(Cfg, p)
    assert str(err.value).startswith(f"bad config in {p}:{line}: {key}: expected text, got {got} (YAML reads an "
                                      "unquoted yes, no, on, off, true or false as true or false): put the word in "
                                      "quotes")


@pytest.mark.parametrize("text, word", [("out_dir: off\n", "'off'"), ("name: False  # no\n", "'False'"),
                                        ("inner:\n  webs: [cheddar/TL84, On]\n", "'On'")])
def test_the_quoting_hint_names_the_word_as_written(tmp_path, text, word):
    # was: "e.g. 'no'" for out_dir: off, as if the user had written no
    p = tmp_path / "c.yaml"
    p.write_text(text)
    with pytest.raises(ValueError, match=f"put the word in quotes, e.g. {word}$"):
        load_config(Cfg, p)


def test_yes_for_a_text_setting_is_refused_in_an_override_and_quoting_keeps_it():
    with pytest.raises(ValueError, match=r"name: expected text, got true .*quote it twice, e\.g\. 'name=\"yes\"'"):
        load_config(Cfg, None, ["name=yes"])
    assert load_config(Cfg, None, ['name="yes"']).name == "yes"
    assert load_config(Cfg, None, ["inner.enabled=yes"]).inner.enabled is True  # a true/false setting takes it


def test_a_home_folder_path_in_a_config_is_the_home_folder(tmp_path, monkeypatch):
    # was: out_dir: ~/results made a folder named '~' in the current folder
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    p = tmp_path / "c.yaml"
    p.write_text("out_dir: ~/results/mine\ninner:\n  webs: [~/webs/a.csv, cheddar/TL84, not~/home]\n")
    cfg = load_config(Cfg, p)
    assert cfg.out_dir == str(tmp_path / "home" / "results" / "mine")
    assert cfg.inner.webs == [str(tmp_path / "home" / "webs" / "a.csv"), "cheddar/TL84", "not~/home"]
    assert load_config(Cfg, None, ["out_dir='~/x'"]).out_dir == str(tmp_path / "home" / "x")  # quoted in the shell
    assert load_config(Cfg, p, ["name=~user"]).name == "~user"  # no slash: not a path


def test_the_missing_file_hint_names_the_config_whose_folder_holds_it(tmp_path, monkeypatch):
    # was: the latest config read that named the path alone was kept (one per path in the whole process), so a
    # second config naming the same relative path hid the folder of the first, which holds the file
    monkeypatch.setattr(_paths, "_CONFIG_PATHS", {})
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "edges.txt").write_text("x y\n")
    (tmp_path / "run").mkdir()
    monkeypatch.chdir(tmp_path / "run")
    remember_config_paths(tmp_path / "a" / "cfg.yaml", {"actions": "edges.txt"})
    remember_config_paths(tmp_path / "b" / "cfg.yaml", {"actions": "edges.txt"})
    with pytest.raises(FileNotFoundError) as err:
        check_input_file("edges.txt", "config actions:")
    assert f"edges.txt is in the folder of the config file {tmp_path / 'a' / 'cfg.yaml'}" in str(err.value)
    (tmp_path / "b" / "edges.txt").write_text("x y\n")  # both hold it: the latest config read is named
    with pytest.raises(FileNotFoundError) as err:
        check_input_file("edges.txt", "config actions:")
    assert f"in the folder of the config file {tmp_path / 'b' / 'cfg.yaml'}" in str(err.value)


def test_the_missing_file_hint_names_a_config_given_with_dot_dot_by_its_plain_folder(tmp_path, monkeypatch):
    monkeypatch.setattr(_paths, "_CONFIG_PATHS", {})
    (tmp_path / "cfg").mkdir()
    (tmp_path / "cfg" / "edges.txt").write_text("x y\n")
    (tmp_path / "run").mkdir()
    monkeypatch.chdir(tmp_path / "run")
    remember_config_paths(Path("../cfg/sweep.yaml"), {"actions": "edges.txt"})  # as typed: --config ../cfg/sweep.yaml
    with pytest.raises(FileNotFoundError) as err:
        check_input_file("edges.txt", "config actions:")
    assert f"the config file {tmp_path / 'cfg' / 'sweep.yaml'}: run gatbio from {tmp_path / 'cfg'}," in str(err.value)
