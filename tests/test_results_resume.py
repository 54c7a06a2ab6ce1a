"""gatbio.results, resuming a results folder: the config of each --resume-anyway kept apart from the first, run files
made with other software named, settings a summary ignores said, a folder that lost its config record refused
unless its runs record this config, split paths read relative to the folder, and the heartbeat of a long unit."""

from __future__ import annotations

import io
import json
import time
from dataclasses import dataclass, field

import pytest
import yaml

from gatbio.results import (
    FINGERPRINT_FILE,
    ResumeConflictError,
    current_config_file,
    heartbeat,
    heartbeat_wanted,
    mixed_configs_note,
    prepare_out_dir,
    recorded_path,
    settings_fingerprint,
    software,
    write_json,
)


@dataclass
class Cfg:
    out_dir: str = "out"
    jobs: int = 1
    seeds: list[int] = field(default_factory=lambda: [0])
    lr: float = 0.01


FREE = ("out_dir", "jobs", "seeds")
OUTPUTS = ("runs", "summary.csv")


def prepare(out, resume="check", summary_only=False, **kw):
    return prepare_out_dir(out, Cfg(out_dir=str(out), **kw), free_keys=FREE, outputs=OUTPUTS, resume=resume,
                           summary_only=summary_only, summary_ignores=("jobs",))


def run_file(out, name="seed0.json", **extra):
    """A run file as the tasks write it: its result, the software, the fingerprint of the folder's settings."""
    path = out / "runs" / name
    write_json(path, {"seed": 0, "f1": 0.5, "software": software(),
                      "settings_fingerprint": settings_fingerprint(out), **extra})
    return path


def saved(path):
    return yaml.safe_load(path.read_text())


# ---------------------------------------------------------------- 1. --resume-anyway keeps the first config


def test_resume_anyway_keeps_the_first_config_and_records_the_later_one_apart(tmp_path):
    """config.yaml was rewritten with the new settings, while the finished runs had used the old ones."""
    out = tmp_path / "out"
    prepare(out)
    first = run_file(out)
    prepare(out, resume="anyway", lr=0.1)
    assert saved(out / "config.yaml")["lr"] == 0.01  # the first runs' config, kept
    assert saved(out / "config.resumed-1.yaml")["lr"] == 0.1
    fp = json.loads((out / FINGERPRINT_FILE).read_text())
    [entry] = fp["resumed_anyway"]
    assert entry["config"] == "config.resumed-1.yaml" == fp["config"] and entry["fingerprint"] == fp["fingerprint"]
    assert current_config_file(out) == out / "config.resumed-1.yaml"
    later = run_file(out, "seed1.json")
    prepare(out, lr=0.1, jobs=3)  # a plain resume with the later settings: their file records it, not config.yaml
    assert saved(out / "config.resumed-1.yaml")["jobs"] == 3 and saved(out / "config.yaml")["jobs"] == 1
    runs = [json.loads(p.read_text()) for p in (first, later)] + [{"seed": 2}]  # one from before they recorded it
    line = mixed_configs_note(out, runs)
    assert line.startswith("mixed: these results may mix configurations (resumed with --resume-anyway after lr: "
                           "0.01 -> 0.1): runs by the config they were made with: 1 config.yaml, 1 "
                           "config.resumed-1.yaml, 1 unrecorded; --restart redoes them all")
    prepare(out, resume="anyway", lr=0.2)
    assert saved(out / "config.resumed-2.yaml")["lr"] == 0.2 and saved(out / "config.resumed-1.yaml")["lr"] == 0.1
    prepare(out, resume="restart", lr=0.2)  # the record of runs that are gone goes with them
    assert not list(out.glob("config.resumed-*")) and saved(out / "config.yaml")["lr"] == 0.2
    assert current_config_file(out) == out / "config.yaml" and mixed_configs_note(out) is None


def test_without_fingerprint_the_latest_resumed_config_holds_the_settings(tmp_path):
    out = tmp_path / "out"
    prepare(out)
    run_file(out)
    prepare(out, resume="anyway", lr=0.1)
    (out / FINGERPRINT_FILE).unlink()
    prepare(out, lr=0.1)  # compared with config.resumed-1.yaml, not the first runs' config.yaml
    with pytest.raises(ResumeConflictError, match=r"lr: 0\.1 -> 0\.3"):
        prepare(out, lr=0.3)


# ---------------------------------------------------------------- 2. other software


def test_a_resume_names_run_files_made_with_other_software(tmp_path, caplog):
    out = tmp_path / "out"
    prepare(out)
    run_file(out)
    caplog.clear()
    prepare(out)
    assert "other software" not in caplog.text  # the same software: nothing to say
    now = software()
    run_file(out, "seed1.json", software={**now, "torch": "0.0.1", "cpu_kernels": "torch AVX512",
                                          "git_commit": "abc"})  # another commit alone is not named
    run_file(out, "seed2.json", software={**now, "torch": "0.0.2"})
    caplog.clear()
    prepare(out, resume="anyway")  # noted, never refused
    assert (f"{out}: 2 of its 3 run file(s) were made with other software than this run (torch 0.0.1, 0.0.2 -> "
            f"{now['torch']}; cpu_kernels torch AVX512 -> {now['cpu_kernels']}); runs made now may differ from them "
            "by that alone (--restart redoes them all with this software)") in caplog.text
    assert "git_commit" not in caplog.text
    caplog.clear()
    prepare(out, resume="restart")
    assert "other software" not in caplog.text


# ---------------------------------------------------------------- 3. --summary-only and ignored settings


def test_summary_only_says_which_given_settings_it_ignores(tmp_path, capsys):
    out = tmp_path / "out"
    prepare(out)
    run_file(out)
    capsys.readouterr()
    prepare(out, summary_only=True, seeds=[0, 1])  # seeds choose the runs summarised: not ignored
    assert capsys.readouterr().err == ""
    prepare(out, summary_only=True, jobs=4, lr=0.5)
    err = capsys.readouterr().err
    assert (f"note: {out} holds runs of another configuration (lr: 0.01 -> 0.5); summarising them as they are: a "
            "summary ignores those settings (run without --summary-only to make runs with them)") in err
    assert (f"note: --summary-only remakes the tables of the runs in {out} as they were made; it ignores jobs: 1 "
            "-> 4 (settings of how runs are made)") in err
    assert err.count("\n") == 2


# ---------------------------------------------------------------- 4. a folder that lost config.yaml and fingerprint


def strip(out):
    (out / "config.yaml").unlink()
    (out / FINGERPRINT_FILE).unlink()


def test_a_folder_without_its_config_record_is_refused_unless_its_runs_record_this_config(tmp_path, caplog, capsys):
    """Run files in a folder stripped of config.yaml and fingerprint.json were taken over by any config silently."""
    out = tmp_path / "out"
    prepare(out)
    run_file(out)
    strip(out)
    caplog.clear()
    prepare(out)  # the runs record this config's fingerprint: resumed, and recorded again
    assert "its 1 run file(s) record this config's settings: recorded again" in caplog.text
    assert (out / "config.yaml").is_file() and settings_fingerprint(out)
    strip(out)
    with pytest.raises(ResumeConflictError, match=r"holds 1 run file\(s\) \(e\.g\. runs/seed0\.json\) but no "
                                                  r"config\.yaml or fingerprint\.json, so the task and settings they "
                                                  r"were made with cannot be checked.*Pass --restart .* or choose "
                                                  r"another output folder"):
        prepare(out, lr=0.1)
    assert not (out / "config.yaml").exists()  # refused before it recorded anything
    capsys.readouterr()
    prepare(out, summary_only=True, lr=0.1)
    assert "the settings they were made with cannot be checked; summarising them as they are" in \
        capsys.readouterr().err
    prepare(out, resume="restart", lr=0.1)  # --restart deletes them, as the message says
    assert not (out / "runs").exists() and saved(out / "config.yaml")["lr"] == 0.1


def test_old_run_files_without_a_fingerprint_in_a_stripped_folder_are_refused_and_reused_anyway(tmp_path):
    out = tmp_path / "out"
    prepare(out)
    run_file(out, settings_fingerprint=None)  # made before run files recorded it
    strip(out)
    with pytest.raises(ResumeConflictError, match="no config.yaml or fingerprint.json"):
        prepare(out)
    prepare(out, resume="anyway")
    [entry] = json.loads((out / FINGERPRINT_FILE).read_text())["resumed_anyway"]
    assert entry["differences"] == ["no config.yaml or fingerprint.json records the settings of its 1 run file(s), "
                                     "e.g. runs/seed0.json"]
    assert (out / "runs" / "seed0.json").is_file() and not (out / "config.yaml").exists()
    assert saved(out / "config.resumed-1.yaml")["lr"] == 0.01


def test_files_that_are_no_gatbio_runs_do_not_count_as_a_stripped_folder(tmp_path):
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "notes.json").write_text('{"mine": true}')
    prepare(tmp_path, lr=0.3)
    assert (tmp_path / "runs" / "notes.json").is_file()


# ---------------------------------------------------------------- 6. split paths relative to the results folder


@pytest.mark.parametrize("value", ["splits/node2vec-ppi_f0.50_s0.json",  # as run files record them now
                                   "/old/machine/results/protein/splits/node2vec-ppi_f0.50_s0.json",  # absolute
                                   "results/protein/splits/node2vec-ppi_f0.50_s0.json"])  # relative to the old cwd
def test_a_recorded_split_path_is_read_in_the_results_folder(tmp_path, value):
    assert recorded_path(tmp_path, value) == tmp_path / "splits" / "node2vec-ppi_f0.50_s0.json"


def test_a_recorded_path_outside_splits_is_kept(tmp_path):
    from pathlib import Path

    assert recorded_path(tmp_path, "/data/x.json") == Path("/data/x.json")
    assert recorded_path(tmp_path, "x.json") == tmp_path / "x.json"


# ---------------------------------------------------------------- 7. heartbeat


def test_heartbeat_says_the_unit_still_runs_and_what_it_does():
    stream = io.StringIO()
    with heartbeat("protein: still running (fraction 0.5, seed 0)", every=0.05, stream=stream) as stage:
        stage("gat")
        time.sleep(0.3)
    lines = stream.getvalue().splitlines()
    assert lines and all(line == "protein: still running (fraction 0.5, seed 0): gat, 0:00 in this unit"
                         for line in lines), lines
    n = len(lines)
    time.sleep(0.15)
    assert len(stream.getvalue().splitlines()) == n  # stopped with the unit
    quiet = io.StringIO()
    with heartbeat("x", on=False, every=0.01, stream=quiet) as stage:
        stage("gat")
        time.sleep(0.05)
    assert quiet.getvalue() == ""


def test_heartbeat_only_in_a_log(monkeypatch):
    import sys

    monkeypatch.setattr(sys.stderr, "isatty", lambda: False)
    assert heartbeat_wanted(True) and not heartbeat_wanted(False)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)  # a terminal has the progress bar
    assert not heartbeat_wanted(True)
