"""gatbio.config: configs that are not what they should be fail with one line naming the file, line or key."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from gatbio.cli import main
from gatbio.config import check_settings, load_config


@dataclass
class Inner:
    epochs: int = 10


@dataclass
class Cfg:
    lr: float = 0.01
    seeds: list[int] = field(default_factory=lambda: [0])
    dropout: float = 0.5
    cap: int | None = None
    inner: Inner = field(default_factory=Inner)


@pytest.mark.parametrize("text,msg", [
    ("lr: [1, 2\nseeds: [0]\n", r"c\.yaml:2: malformed YAML: expected ',' or '\]'"),
    ("lr: 0.1\n\tseeds: [0]\n", r"c\.yaml:2: malformed YAML: found character '\\t'"),
    ("- lr\n- seeds\n", r"c\.yaml: the top level must be a mapping of 'key: value' lines, found a list"),
    ("just a sentence\n", r"c\.yaml: the top level must be a mapping of 'key: value' lines, found a str"),
    ("lr: 0.1\n\nlearning_rate: 3\n", r"bad config in .*c\.yaml:3: Key 'learning_rate' not in 'Cfg'"),
    # a key given twice is malformed YAML (PyYAML alone keeps the last value, silently)
    ("lr: 0.1\nseeds: [0]\nlr: 0.5\n", r"c\.yaml:3: malformed YAML: key 'lr' is given twice \(first on line 1\)"),
    ("inner:\n  epochs: 2\n  epochs: 3\n", r"c\.yaml:3: malformed YAML: key 'epochs' is given twice"),
])
def test_malformed_yaml_names_file_and_line(tmp_path, text, msg):
    p = tmp_path / "c.yaml"
    p.write_text(text)
    with pytest.raises(ValueError, match=msg):
        load_config(Cfg, p)


def test_a_bad_override_names_the_override_not_a_line_of_the_file(tmp_path):
    p = tmp_path / "c.yaml"
    p.write_text("seeds: [0]\nlr: 0.1\n")
    with pytest.raises(ValueError) as err:
        load_config(Cfg, p, ["lr=fast"])
    assert str(err.value) == "override 'lr=fast': lr must be a number, not 'fast'"  # no line of c.yaml


def test_an_override_that_is_not_yaml_is_one_line():
    with pytest.raises(ValueError, match=r"override 'seeds=\[0': its value is not valid YAML \(did not find "
                                         r"expected ',' or '\]'\)"):
        load_config(Cfg, None, ["lr=0.5", "seeds=[0"])
    cfg = load_config(Cfg, None, ["lr=0.5", "seeds=[1,2]", "inner.epochs=3", "lr=0.25"])  # later ones win
    assert (cfg.lr, cfg.seeds, cfg.inner.epochs) == (0.25, [1, 2], 3)


def test_config_path_problems(tmp_path, caplog):
    with pytest.raises(IsADirectoryError, match="is a folder"):
        load_config(Cfg, tmp_path)
    with pytest.raises(FileNotFoundError, match="does not exist"):
        load_config(Cfg, tmp_path / "nope.yaml")
    (tmp_path / "empty.yaml").write_text("")
    assert load_config(Cfg, tmp_path / "empty.yaml") == Cfg()  # an empty file: the defaults, said in a note
    assert "empty.yaml is empty (or only comments): every setting takes its default" in caplog.text


@pytest.mark.parametrize("rules,overrides,msg", [
    ({"lr": ">0"}, ["lr=0"], r"config lr=0\.0: must be > 0"),
    ({"lr": ">0"}, ["lr=-1e-3"], r"config lr=-0\.001: must be > 0"),
    ({"seeds": "nonempty"}, ["seeds=[]"], r"config seeds=\[\]: is empty; give at least one value"),
    ({"seeds": "nonempty; >=0"}, ["seeds=[0,-2]"], r"config seeds: -2: must be >= 0"),
    ({"dropout": "[0, 1)"}, ["dropout=1.0"], r"config dropout=1\.0: must be in \[0, 1\)"),
    ({"inner.epochs": ">0"}, ["inner.epochs=0"], r"config inner\.epochs=0: must be > 0"),
    ({"lr": ">0"}, ["lr=nan"], r"config lr=nan: must be a number, not nan"),
    # accepted before: NaN results (protein), or 'Input contains NaN' minutes later naming no key (food webs)
    ({"lr": ">0"}, ["lr=inf"], r"config lr=inf: must be a finite number"),
    ({"dropout": "[0, 1)"}, ["dropout=-inf"], r"config dropout=-inf: must be a finite number"),
])
def test_check_settings_rejects_what_makes_no_sense(rules, overrides, msg):
    with pytest.raises(ValueError, match=msg):
        check_settings(load_config(Cfg, None, overrides), rules)


def test_check_settings_accepts_good_values_and_unset_options():
    check_settings(Cfg(), {"lr": ">0", "seeds": "nonempty; >=0", "dropout": "[0, 1)", "cap": ">0",
                           "inner.epochs": "[1, inf)"})


@pytest.mark.parametrize("command,override,msg", [
    (["protein", "run"], "heads=0", "config heads=0: must be > 0"),
    (["protein", "run"], "epochs=-1", "config epochs=-1: must be > 0"),
    (["protein", "run"], "seeds=[]", "config seeds=[]: is empty"),
    (["protein", "run"], "lr=0", "config lr=0.0: must be > 0"),
    (["robustness"], "protein.heads=0", "config protein.heads=0: must be > 0"),
    (["robustness"], "foodweb.epochs=0", "config foodweb.epochs=0: must be > 0"),
    (["foodweb", "benchmark"], "gat.heads=0", "config gat.heads=0: must be > 0"),
    (["foodweb", "benchmark"], "n_folds=1", "config n_folds=1: must be in [2, inf)"),
    # empty lists that leave a task nothing to run (found before any folder is written)
    (["protein", "run"], "variants=[]", "config variants=[]: is empty"),
    (["foodweb", "benchmark"], "models=[]", "config models=[]: is empty"),
    (["foodweb", "benchmark"], "species_models=[]", "config species_models=[]: the new-species protocol runs"),
    (["foodweb", "benchmark"], "species_models=[niche]", "and none is; add one, or drop 'species'"),
    (["robustness"], "foodweb.webs=[]", "config foodweb.webs=[]: is empty"),
])
def test_nonsense_settings_stop_every_task_before_any_work(tmp_path, capsys, command, override, msg):
    cfg = tmp_path / "c.yaml"
    cfg.write_text("models: [full, l3_ra]\n" if override == "species_models=[niche]" else "")
    out = tmp_path / "out"
    key = "out" if command[0] == "foodweb" else "out_dir"
    assert main(command + ["--config", str(cfg), override, f"{key}={out}"]) == 1
    err = capsys.readouterr().err
    assert msg in err and err.count("\n") == 1
    assert not out.exists()  # nothing written


def test_yaml_errors_reach_the_user_as_one_line(tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text("seeds: [0, 1\n")
    for command in (["protein", "run"], ["robustness"], ["foodweb", "benchmark"]):
        assert main(command + ["--config", str(bad)]) == 1
        err = capsys.readouterr().err
        assert "bad.yaml:2: malformed YAML" in err and "Traceback" not in err
    assert main(["robustness", "--config", str(tmp_path)]) == 1
    assert "is a folder" in capsys.readouterr().err


def test_a_benchmark_of_trait_models_only_without_traits_is_refused(tmp_path, capsys):
    cfg = tmp_path / "c.yaml"
    cfg.write_text("models: [full, linear_stack]\nprotocols: [links]\nuse_traits: false\n")
    out = tmp_path / "out"
    assert main(["foodweb", "benchmark", "--config", str(cfg), f"out={out}"]) == 1
    err = capsys.readouterr().err
    assert "with use_traits=false: every one of them needs traits" in err and err.count("\n") == 1
    assert not out.exists()


@pytest.mark.parametrize("override,msg", [
    ("seeds=3", "bad config in command-line overrides seeds=3: seeds: expected a list, e.g. seeds=[3]"),
    ("seeds=a", "bad config in command-line overrides seeds=a: seeds: expected a list, e.g. seeds=[a]"),
])
def test_a_scalar_for_a_list_says_a_list_is_expected(override, msg):
    # was: "Invalid value assigned: AnyNode is not a ListConfig, TupleConfig, list, or tuple."
    with pytest.raises(ValueError) as err:
        load_config(Cfg, None, [override])
    assert str(err.value) == msg


def test_a_scalar_for_a_list_in_a_file_keeps_file_and_line(tmp_path):
    p = tmp_path / "c.yaml"
    p.write_text("lr: 0.1\nseeds: 0\n")
    with pytest.raises(ValueError) as err:
        load_config(Cfg, p)
    assert str(err.value) == f"bad config in {p}:2: seeds: expected a list, e.g. seeds: [0]"


def test_an_unknown_nested_key_lists_the_keys_of_its_section(tmp_path):
    # was: the allowed top-level keys (lr, seeds, ...) for a key of `inner`
    with pytest.raises(ValueError, match=r"Key 'foo' not in 'Inner' \(allowed keys of inner: epochs\)$"):
        load_config(Cfg, None, ["inner.foo=1"])
    p = tmp_path / "c.yaml"
    p.write_text("inner:\n  foo: 1\n")
    with pytest.raises(ValueError, match=r"c\.yaml:2: Key 'foo' not in 'Inner' \(allowed keys of inner: epochs\)$"):
        load_config(Cfg, p)
    with pytest.raises(ValueError, match=r"Key 'nope' not in 'Cfg' \(allowed top-level keys: lr, seeds, dropout"):
        load_config(Cfg, None, ["nope=1"])


@pytest.mark.parametrize("override,msg", [
    ("fractions=0.1", ": fractions: expected a list, e.g. fractions=[0.1]"),
    ("models=gat_log", "models: expected a list, e.g. models=[gat_log]"),
    ("protein.foo=1", "Key 'foo' not in 'ProteinSettings' (allowed keys of protein: enabled, dataset,"),
])
def test_robustness_config_errors_are_plain(tmp_path, capsys, override, msg):
    cfg = tmp_path / "c.yaml"
    cfg.write_text("")
    assert main(["robustness", "--config", str(cfg), override, f"out_dir={tmp_path / 'out'}"]) == 1
    err = capsys.readouterr().err
    assert msg in err and err.count("\n") == 1 and "AnyNode" not in err


def test_check_settings_unique_names_the_repeated_value():
    from dataclasses import dataclass, field

    from gatbio.config import check_settings

    @dataclass
    class C:
        seeds: list[int] = field(default_factory=lambda: [0, 1, 0])
        models: list[str] = field(default_factory=lambda: ["gat"])

    with pytest.raises(ValueError, match=r"config seeds=\[0, 1, 0\]: 0 is listed twice; give each value once"):
        check_settings(C(), {"seeds": "nonempty; unique; >=0"})
    check_settings(C(seeds=[0, 1]), {"seeds": "unique", "models": "unique"})


@dataclass
class Shapes:
    jobs: int = 1
    seeds: list[int] = field(default_factory=lambda: [0])
    extra: dict[str, int] = field(default_factory=dict)
    inner: Inner = field(default_factory=Inner)
    other: Inner = field(default_factory=Inner)


@pytest.mark.parametrize("text,msg", [
    # was: "Merge error: int is not a subclass of Inner. value: 3" with the top-level keys, and no key or line
    ("jobs: 2\ninner: 3\n", ":2: inner: expected a mapping of settings (indented 'key: value' lines under it; keys "
                            "of inner: epochs), got 3"),
    ("jobs: 2\ninner: [1, 2]\n", ":2: inner: expected a mapping of settings (indented 'key: value' lines under it; "
                                 "keys of inner: epochs), got a list [1, 2]"),
    # was: a TypeError traceback ("Cannot merge incompatible container types")
    ("seeds:\n  a: 1\n", ":1: seeds: expected a list ([a, b], or '- a' lines under it), got a mapping {a: 1}"),
    # was: "Value '{'a': 1}' of type 'DictConfig' could not be converted to Integer"; the line below `jobs:` is
    # indented by mistake, and the message says so
    ("jobs:\n  seeds: [1]\n", ":1: jobs: expected a single value (a whole number), got a mapping {seeds: [1]} "
                              "(is the line below it indented by mistake?)"),
    ("seeds: [0, [1]]\n", ":1: seeds[1]: expected a single value (a whole number), got a list [1]"),
    ("extra: 3\n", ":1: extra: expected a mapping of 'name: value' entries, got 3"),
    ("jobs: 2\ninner:\n#  epochs: 3\n", ":2: inner: expected a mapping of settings (indented 'key: value' lines under "
                                       "it; keys of inner: epochs), got nothing (null); delete the line to keep every "
                                       "default"),
    # the line of the key in its own section, not of the first key of that name (other.epochs, not inner.epochs)
    ("inner:\n  epochs: 2\nother:\n  epochs: {a: 1}\n", ":4: other.epochs: expected a single value (a whole "
                                                        "number), got a mapping {a: 1}"),
])
def test_a_value_of_the_wrong_shape_names_file_line_and_key(tmp_path, text, msg):
    p = tmp_path / "c.yaml"
    p.write_text(text)
    with pytest.raises(ValueError) as err:
        load_config(Shapes, p)
    assert str(err.value) == f"bad config in {p}{msg}"


def test_a_value_of_the_wrong_shape_in_an_override_says_how_to_set_it():
    with pytest.raises(ValueError) as err:
        load_config(Shapes, None, ["inner=3"])
    assert str(err.value) == ("bad config in command-line overrides inner=3: inner: expected a mapping of settings, "
                              "set one at a time as inner.KEY=VALUE (keys of inner: epochs), got 3")
    with pytest.raises(ValueError, match=r"seeds: expected a list, e.g. seeds=\[0,1\], got a mapping \{a: 1\}$"):
        load_config(Shapes, None, ["seeds={a: 1}"])


@pytest.mark.parametrize("command,config,edit,msg", [
    # a section's indented lines replaced by a single value, or by a list
    (["robustness"], "robustness_quick.yaml", (r"^protein:\n(  .*\n)+", "protein: 3\n"),
     "protein: expected a mapping of settings (indented 'key: value' lines under it; keys of protein: enabled, "),
    (["foodweb", "benchmark"], "foodweb_full.yaml", (r"^gat:\n(  .*\n)+", "gat: [16, 4]\n"),
     "gat: expected a mapping of settings (indented 'key: value' lines under it; keys of gat: "),
    # every line of a section commented out: was "field 'protein' is not Optional"
    (["robustness"], "robustness_quick.yaml", (r"^protein:\n(  .*\n)+", "protein:\n#  dim: 32\n"),
     "protein: expected a mapping of settings (indented 'key: value' lines under it; keys of protein: "),
    # a mapping for a list: was a TypeError traceback
    (["robustness"], "robustness_quick.yaml", (r"^seeds: \[0\]\n", "seeds:\n  first: 0\n"),
     "seeds: expected a list ([a, b], or '- a' lines under it), got a mapping {first: 0}"),
    (["protein", "interactions"], "shs27k.yaml", (r"^test_fraction: 0.2\n", "test_fraction: {a: 1}\n"),
     "test_fraction: expected a single value (a number), got a mapping {a: 1}"),
])
def test_a_real_config_with_a_value_of_the_wrong_shape_is_one_line(tmp_path, capsys, command, config, edit, msg):
    import re
    from pathlib import Path

    text = (Path(__file__).parents[1] / "experiments" / "configs" / config).read_text()
    text, n = re.subn(edit[0], edit[1], text, count=1, flags=re.M)
    assert n == 1  # the shipped config still has what the test edits
    line = text.split("\n").index(edit[1].split("\n")[0]) + 1
    p = tmp_path / "cfg.yaml"
    p.write_text(text)
    assert main(command + ["--config", str(p)]) == 1
    err = capsys.readouterr().err
    assert f"error: bad config in {p}:{line}: {msg}" in err
    assert err.count("\n") == 1 and "Traceback" not in err


def _schemas() -> dict[str, type]:
    """Every registered config schema, by the command that reads its files (gatbio.config.TASK_SCHEMAS)."""
    import importlib

    from gatbio.config import TASK_SCHEMAS

    out = {}
    for ref, (command, _) in TASK_SCHEMAS.items():
        module, name = ref.split(":")
        out[command] = getattr(importlib.import_module(module), name)
    return out


def test_every_shipped_config_given_to_another_command_names_the_one_that_reads_it():
    # was: "Key 'splits' not in 'ProteinConfig' (allowed top-level keys: ...)" for shs27k_quick.yaml, and "Key
    # 'out_heads' not in 'ProteinConfig'. Did you mean one of: 'threads', 'heads', 'out_dir'?" for protein_ppi24.yaml
    from pathlib import Path

    schemas = _schemas()
    configs = sorted((Path(__file__).parents[1] / "experiments" / "configs").glob("*.yaml"))
    assert len(configs) >= 20
    for path in configs:
        readers = []
        for command, schema in schemas.items():
            try:
                load_config(schema, path)
                readers.append(command)
            except ValueError:
                pass
        assert len(readers) == 1, f"{path.name} loads with {readers}"  # the shipped configs: one task each
        for command, schema in schemas.items():
            if command == readers[0]:
                continue
            with pytest.raises(ValueError) as err:
                load_config(schema, path)
            msg = str(err.value)
            assert msg.startswith(f"bad config in {path}: this is a config of {readers[0]} (key"), msg
            assert f", not of {command}: run {readers[0]} " in msg and msg.endswith(f" {path}"), msg


def test_another_tasks_config_names_its_keys_and_command(tmp_path, capsys):
    p = tmp_path / "ppi.yaml"
    p.write_text("name: mine\nsplits: [bfs]\ngraphs: [all]\nepochs: 5\n")
    assert main(["protein", "run", "--config", str(p)]) == 1
    err = capsys.readouterr().err
    assert err == (f"gatbio protein run: error: bad config in {p}: this is a config of gatbio protein interactions "
                   f"(keys splits, graphs are its settings), not of gatbio protein run: run gatbio protein "
                   f"interactions --config {p}\n")


@pytest.mark.parametrize("text,msg", [
    # one misspelt key: the typo message and its suggestion stand
    ("name: x\nepoch: 5\n", "Key 'epoch' not in 'ProteinConfig'. Did you mean: 'epochs'?"),
    # a key of another task among this task's keys: not another task's file, the key is named
    ("name: x\nfractions: [0.5]\nvariants: [gat]\ngraphs: [all]\n", "Key 'graphs' not in 'ProteinConfig' (allowed"),
    # keys of no task at all
    ("colour: red\nshape: round\n", "Key 'colour' not in 'ProteinConfig' (allowed"),
])
def test_a_typo_or_a_stray_key_keeps_the_key_by_key_message(tmp_path, text, msg):
    from gatbio.tasks.protein import ProteinConfig

    p = tmp_path / "c.yaml"
    p.write_text(text)
    with pytest.raises(ValueError) as err:
        load_config(ProteinConfig, p)
    assert msg in str(err.value) and "this is a config of" not in str(err.value)


@pytest.mark.parametrize("overrides,msg", [
    # OmegaConf's: "bad config in command-line overrides <every override>: Value '100.0' of type 'float' could not
    # be converted to Integer": the converted value, neither the key nor which override
    (["lr=0.1", "inner.epochs=1e2"], r"^override 'inner\.epochs=1e2': inner\.epochs must be a whole number, "
                                     r"not '1e2'$"),
    (["dropout=abc"], r"^override 'dropout=abc': dropout must be a number, not 'abc'$"),
    (["seeds=[a]"], r"^override 'seeds=\[a\]': seeds must be a list of whole numbers, e.g\. seeds=\[0,1\], "
                    r"not '\[a\]'$"),
    (["inner.epochs="], r"^override 'inner\.epochs=': no value given; give a whole number, or leave the override "
                        r"out"),
])
def test_an_override_of_the_wrong_type_is_named_as_typed(overrides, msg):
    with pytest.raises(ValueError, match=msg):
        load_config(Cfg, None, overrides)


def test_a_sections_key_given_at_the_top_is_pointed_to_its_section():
    """robustness's `epochs=5` was refused as unknown with no word of protein.epochs / foodweb.epochs."""
    with pytest.raises(ValueError, match=r"Key 'epochs' not in 'Cfg'; did you mean inner\.epochs\?"):
        load_config(Cfg, None, ["epochs=5"])
