"""gatbio.results: the markdown table every summary writes (known answer)."""

import pandas as pd

from gatbio.results import format_mean_std, markdown_table, round_stats, summarize


def test_markdown_table_of_a_mean_std_summary():
    df = pd.DataFrame({"variant": ["a", "a", "b"], "f1": [0.2, 0.4, 0.5]})
    table = format_mean_std(summarize(df, ["variant"], ["f1"]), ["variant"], ["f1"])
    assert markdown_table(table) == ("| variant | n | f1 |\n"
                                     "|---|---|---|\n"
                                     "| a | 2 | 0.300 ± 0.141 |\n"
                                     "| b | 1 | 0.500 ± – |")  # one run: no spread (was '± 0.000')


def test_a_display_table_rounds_once():
    """0.8674 and 0.86758 have the mean 0.86749: 0.867 at 3 digits; through the 4-digit CSV value 0.8675 it would
    print 0.868."""
    df = pd.DataFrame({"variant": ["a", "a"], "f1": [0.8674, 0.86758]})
    full = summarize(df, ["variant"], ["f1"], digits=None)
    assert format_mean_std(full, ["variant"], ["f1"])["f1"][0].startswith("0.867 ± ")
    assert round_stats(full)["f1_mean"][0] == summarize(df, ["variant"], ["f1"])["f1_mean"][0] == 0.8675


# ---------------------------------------------------------------- permissions and all-or-nothing writes

import json  # noqa: E402
import os  # noqa: E402
import stat  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from pathlib import Path  # noqa: E402

import pytest  # noqa: E402

from gatbio.results import (  # noqa: E402
    FINGERPRINT_FILE,
    ResumeConflictError,
    atomic_write_many,
    atomic_write_text,
    mixed_configs_note,
    prepare_out_dir,
    write_csv,
    write_json,
)


@pytest.fixture
def umask():
    """Run with a given umask, restored afterwards."""
    old = os.umask(0o022)
    os.umask(old)

    def set_(mask: int) -> None:
        os.umask(mask)

    yield set_
    os.umask(old)


@pytest.mark.parametrize("mask", [0o022, 0o002, 0o077])
def test_written_files_get_the_umask_permissions(tmp_path, umask, mask):
    umask(mask)
    write_json(tmp_path / "a.json", {"x": 1})
    write_csv(tmp_path / "b.csv", pd.DataFrame({"x": [1]}))
    atomic_write_many({tmp_path / "c.txt": "c", tmp_path / "d.txt": b"d"})
    for name in ("a.json", "b.csv", "c.txt", "d.txt"):
        assert stat.S_IMODE((tmp_path / name).stat().st_mode) == 0o666 & ~mask, name


def test_replacing_a_file_keeps_its_permissions(tmp_path, umask):
    umask(0o022)
    p = tmp_path / "shared.txt"
    p.write_text("old")
    p.chmod(0o640)
    atomic_write_text(p, "new")
    assert p.read_text() == "new" and stat.S_IMODE(p.stat().st_mode) == 0o640


def test_atomic_write_many_writes_all_or_nothing(tmp_path):
    (tmp_path / "blocker").write_text("a file where a folder is needed")
    with pytest.raises(OSError):
        atomic_write_many({tmp_path / "pred.csv": "a", tmp_path / "blocker" / "explain.csv": "b"})
    assert sorted(p.name for p in tmp_path.iterdir()) == ["blocker"]  # no output, no temp file left


# ---------------------------------------------------------------- resuming safely


@dataclass
class Sub:
    epochs: int = 10


@dataclass
class Cfg:
    out_dir: str = "out"
    jobs: int = 1
    seeds: list[int] = field(default_factory=lambda: [0])
    lr: float = 0.01
    sub: Sub = field(default_factory=Sub)


FREE = ("out_dir", "jobs", "seeds")
OUTPUTS = ("runs", "summary.csv")


def prepare(out, resume="check", summary_only=False, **kw):
    cfg = Cfg(out_dir=str(out), **kw)
    return prepare_out_dir(out, cfg, free_keys=FREE, outputs=OUTPUTS, resume=resume, summary_only=summary_only)


def fake_run(out):
    (out / "runs").mkdir(exist_ok=True)
    (out / "runs" / "seed0.json").write_text("{}")
    (out / "summary.csv").write_text("x\n")
    (out / "mine.txt").write_text("the user's own file")


def test_same_result_settings_resume_and_free_keys_may_change(tmp_path):
    out = tmp_path / "out"
    prepare(out)
    fake_run(out)
    fp = json.loads((out / FINGERPRINT_FILE).read_text())
    assert set(fp["settings"]) == {"lr", "sub.epochs"} and len(fp["fingerprint"]) == 64
    prepare(out, jobs=4, seeds=[0, 1, 2])  # where/how fast/which runs: free
    assert (out / "runs" / "seed0.json").is_file()


def test_a_differing_config_is_refused_naming_the_keys(tmp_path):
    out = tmp_path / "out"
    prepare(out)
    fake_run(out)
    before = (out / "config.yaml").read_text()
    with pytest.raises(ResumeConflictError, match=r"lr: 0\.01 -> 0\.1; sub\.epochs: 10 -> 20\).*--restart.*"
                                                  r"--resume-anyway"):
        prepare(out, lr=0.1, sub=Sub(epochs=20))
    assert (out / "config.yaml").read_text() == before  # not rewritten under the old results


def test_restart_deletes_only_the_task_outputs(tmp_path, caplog):
    out = tmp_path / "out"
    prepare(out)
    fake_run(out)
    prepare(out, resume="restart", lr=0.1)
    assert not (out / "runs").exists() and not (out / "summary.csv").exists()
    assert f"--restart: deleted this task's earlier outputs in {out}: runs/ (1 file(s)), summary.csv" in caplog.text
    assert (out / "mine.txt").read_text() == "the user's own file"
    assert json.loads((out / FINGERPRINT_FILE).read_text())["settings"]["lr"] == 0.1
    prepare(out, lr=0.1)  # the new config now resumes


def test_restart_in_a_folder_without_an_earlier_run_deletes_nothing(tmp_path):
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "keep.txt").write_text("not gatbio's")
    prepare(tmp_path, resume="restart")
    assert (tmp_path / "runs" / "keep.txt").is_file()


def test_resume_anyway_is_recorded(tmp_path):
    out = tmp_path / "out"
    prepare(out)
    fake_run(out)
    prepare(out, resume="anyway", lr=0.1)
    fp = json.loads((out / FINGERPRINT_FILE).read_text())
    assert fp["resumed_anyway"][0]["differences"] == ["lr: 0.01 -> 0.1"]
    assert (out / "runs" / "seed0.json").is_file()


def test_a_summary_of_a_folder_resumed_anyway_says_it_may_mix_configurations(tmp_path, caplog):
    # the mix was in fingerprint.json only: the tables read as one experiment
    out = tmp_path / "out"
    prepare(out)
    fake_run(out)
    assert mixed_configs_note(out) is None
    prepare(out, resume="anyway", lr=0.1)
    prepare(out, resume="anyway", lr=0.1, sub=Sub(epochs=3))
    prepare(out, lr=0.1, sub=Sub(epochs=3))  # a plain resume afterwards: the folder still holds both
    line = mixed_configs_note(out)
    assert line == (f"mixed: these results may mix configurations (resumed with --resume-anyway (2 times) after "
                    f"lr: 0.01 -> 0.1; sub.epochs: 10 -> 3); --restart redoes them all ({out / FINGERPRINT_FILE})")
    assert line in caplog.text
    prepare(out, resume="restart", lr=0.1, sub=Sub(epochs=3))
    assert mixed_configs_note(out) is None


def test_summary_only_writes_nothing(tmp_path, capsys):
    out = tmp_path / "out"
    prepare(out)
    fake_run(out)
    stamp = {p.name: p.read_text() for p in out.rglob("*") if p.is_file()}
    prepare(out, summary_only=True, lr=0.5)
    assert {p.name: p.read_text() for p in out.rglob("*") if p.is_file()} == stamp
    assert "holds runs of another configuration (lr: 0.01 -> 0.5)" in capsys.readouterr().err


def test_folders_from_before_fingerprints_compare_their_config_yaml(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "config.yaml").write_text("out_dir: x\njobs: 2\nseeds: [0]\nlr: 0.01\n")  # no sub.epochs: the default
    prepare(out)
    (out / FINGERPRINT_FILE).unlink()
    (out / "config.yaml").write_text("lr: 0.02\n")
    fake_run(out)
    with pytest.raises(ResumeConflictError, match=r"lr: 0\.02 -> 0\.01"):
        prepare(out)


def test_a_recorded_config_without_results_is_not_protected(tmp_path):
    """A run that failed before writing any result (e.g. on a bad input file) left config.yaml and the
    fingerprint: the corrected rerun, with other settings, starts there without --restart."""
    out = tmp_path / "out"
    prepare(out)
    (out / "runs").mkdir()  # an empty results folder is no result either
    prepare(out, lr=0.1)
    assert json.loads((out / FINGERPRINT_FILE).read_text())["settings"]["lr"] == 0.1
    (out / "runs" / "seed0.json").write_text("{}")
    with pytest.raises(ResumeConflictError, match=r"lr: 0\.1 -> 0\.2"):
        prepare(out, lr=0.2)


def test_input_files_changed_in_place_are_a_difference(tmp_path):
    """The contents of the input files a config names join its result settings (sha256): the same path with
    other contents is refused; folders recorded before the hashes existed are not refused for lacking them."""
    out, data = tmp_path / "out", tmp_path / "features.tsv"
    data.write_text("P1\t0.5\n")

    def run(**kw):
        cfg = Cfg(out_dir=str(out))
        return prepare_out_dir(out, cfg, free_keys=FREE, outputs=OUTPUTS, inputs={"features": data, "unset": None},
                               **kw)

    run()
    fake_run(out)
    settings = json.loads((out / FINGERPRINT_FILE).read_text())["settings"]
    assert set(settings) == {"lr", "sub.epochs", "features.sha256"}
    run()  # same contents: resumes
    data.write_text("P1\t0.7\n")
    with pytest.raises(ResumeConflictError, match=r"features: the file's contents changed \(sha256 [0-9a-f]{12}\.\.\. "
                                                  r"-> [0-9a-f]{12}\.\.\.\)"):
        run()
    run(resume="restart")
    assert not (out / "runs").exists()
    fake_run(out)
    record = json.loads((out / FINGERPRINT_FILE).read_text())  # an older folder: no hashes recorded
    record["settings"].pop("features.sha256")
    (out / FINGERPRINT_FILE).write_text(json.dumps(record))
    run()


def test_bad_out_dir_and_mode(tmp_path):
    (tmp_path / "file").write_text("x")
    with pytest.raises(ValueError, match=r"out_dir .*file: is a file, not a folder"):
        prepare(tmp_path / "file")
    with pytest.raises(ValueError, match=r"out_dir .*file/sub: .*file is a file, not a folder"):
        prepare(tmp_path / "file" / "sub")
    with pytest.raises(ValueError, match=r"resume='again'"):
        prepare(tmp_path / "o", resume="again")


# ---------------------------------------------------------------- reading JSON


@pytest.mark.parametrize("data, where, what", [
    (b'{"web": "x", "rows": [\n', ":2:", "Expecting value (column 1)"),  # cut short
    (b'{"a": 1}\n{"b": 2}\n', ":2:", "Extra data"),
    (b"", ":1:", "the file is empty"),
    (b'{"a": "\xff"}', ":1:", "not UTF-8 text"),
])
def test_read_json_names_the_file_and_line_of_invalid_json(tmp_path, data, where, what):
    from gatbio.results import InvalidJSONError, is_done, read_json

    path = tmp_path / "run.json"
    path.write_bytes(data)
    with pytest.raises(InvalidJSONError) as err:
        read_json(path)
    assert str(err.value).startswith(f"{path}{where} not valid JSON") and what in str(err.value)
    assert isinstance(err.value, json.JSONDecodeError) and isinstance(err.value, ValueError)  # callers' excepts
    assert not is_done(path)  # a resumed run redoes it
    import pickle

    assert str(pickle.loads(pickle.dumps(err.value))) == str(err.value)  # crosses worker processes


def test_table_text_is_tab_separated_for_tsv_names():
    from gatbio.results import table_text

    df = pd.DataFrame({"a": ["x y", "z"], "b": [1, 2]})
    assert table_text(df, "out.tsv") == table_text(df, "OUT.TAB") == "a\tb\nx y\t1\nz\t2\n"
    assert table_text(df, "out.csv") == table_text(df, "out.txt") == "a,b\nx y,1\nz,2\n"


@dataclass
class OtherTask:
    out_dir: str = "out"
    sigma: float = 1.0
    betweenness_k: int = 64


def test_a_folder_of_another_task_is_neither_reused_nor_deleted(tmp_path):
    """--restart deletes only its own task's results: a folder written by another task (recorded in
    fingerprint.json, or, for older folders, told by its settings) is refused in every mode."""
    out = tmp_path / "out"
    prepare_out_dir(out, OtherTask(out_dir=str(out)), free_keys=("out_dir",), outputs=OUTPUTS)
    fake_run(out)
    assert json.loads((out / FINGERPRINT_FILE).read_text())["task"] == "OtherTask"
    for mode in ("check", "restart", "anyway"):
        with pytest.raises(ResumeConflictError, match=r"holds results of another task \(OtherTask\); this command "
                                                      r"neither reuses nor deletes them"):
            prepare(out, resume=mode)
    with pytest.raises(ResumeConflictError, match="another task"):
        prepare(out, summary_only=True)
    assert (out / "runs" / "seed0.json").is_file() and (out / "summary.csv").is_file()
    record = json.loads((out / FINGERPRINT_FILE).read_text())
    del record["task"]  # a folder from before tasks were recorded: its settings tell
    (out / FINGERPRINT_FILE).write_text(json.dumps(record))
    with pytest.raises(ResumeConflictError, match=r"another task, it seems \(0 of its 2 settings are settings of Cfg\)"):
        prepare(out, resume="restart")
    assert (out / "runs" / "seed0.json").is_file()


def test_empty_or_damaged_result_files_are_not_done_and_summaries_say_so(tmp_path, caplog):
    from gatbio.results import is_done, missing_runs_note

    files = [tmp_path / f"r{k}.json" for k in range(4)]
    files[0].write_text('{"f1": 0.5}')
    files[1].write_text("{}")  # no result
    files[2].write_text('{"f1": 0.')  # cut short
    assert [is_done(f) for f in files] == [True, False, False, False]
    line = missing_runs_note(files, tmp_path)
    assert line.startswith("incomplete: 3 of the 4 runs this config names have no result (2 with a damaged or empty "
                           f"file, e.g. {files[1]}); the tables leave them out")
    assert "incomplete: 3 of the 4 runs" in caplog.text
    assert missing_runs_note(files[:1], tmp_path) is None


def test_a_file_of_another_shape_is_no_run_of_the_task(tmp_path):
    """A run file that parses but is not the task's ({"foo": 1}, a list) crashed the robustness summary
    (KeyError: 'dataset') and, read as done, was never redone (protein run, interactions: the tables lost the run
    and the incomplete note said nothing)."""
    from gatbio.results import is_done, missing_runs_note

    keys = ("dataset", "seed")
    files = [tmp_path / f"r{k}.json" for k in range(3)]
    files[0].write_text('{"dataset": "x", "seed": 0, "f1": 0.5}')
    files[1].write_text('{"foo": 1}')
    files[2].write_text("[1, 2]")
    assert [is_done(f, keys) for f in files] == [True, False, False]
    assert [is_done(f) for f in files] == [True, True, True]  # without keys: any non-empty JSON, as before
    assert missing_runs_note(files, tmp_path, keys).startswith("incomplete: 2 of the 3 runs this config names have "
                                                               "no result (2 with a damaged or empty file")


@pytest.mark.parametrize("text, keys, why", [
    ('{"dataset": "x", "seed": 0}', ("dataset", "seed"), None),
    ('{"dataset": "x", "curve": [{"f": 0}]}', ("dataset", "+curve"), None),
    ('{"dataset": "x", "curve": []}', ("dataset", "+curve"), "the key curve is empty"),
    ('{"curve": null, "rows": {}}', ("+curve", "+rows"), "the keys curve, rows are empty"),
    ('{"dataset": "x"}', ("dataset", "+curve"), "missing the keys curve"),
    ('{"dataset": "x", "curve": []}', ("dataset", "curve"), None),  # not required to be filled
    ('{"f1": 0.5}', (), None),
    (None, ("dataset",), None),  # no file: a run not made yet, not a damaged one
    ("", (), "empty"),
    (" \n", ("dataset",), "empty"),
    ('{"dataset": "x",\n "seed": ', ("dataset",), "not valid JSON (Expecting value, line 2)"),
    ('{"a": "\udcff"}', (), "not valid JSON (not UTF-8 text, line 1)"),
    ("{}", (), "no result ({})"),
    ("null", (), "no result (null)"),
    ("[1, 2]", ("dataset",), "not a JSON object"),
    ('{"dataset": "x", "f1": 0.5}', ("dataset", "seed", "model"), "missing the keys seed, model"),
])
def test_damage_says_why_a_file_holds_no_result(tmp_path, text, keys, why):
    """damage() is is_done's reason, for a message: None for a result or no file, else what is wrong."""
    from gatbio.results import damage, is_done

    path = tmp_path / "run.json"
    if text is not None:
        path.write_bytes(text.encode("utf-8", "surrogateescape"))
    filled = tuple(k[1:] for k in keys if k.startswith("+"))
    keys = tuple(k for k in keys if not k.startswith("+"))
    assert damage(path, keys, filled) == why
    assert is_done(path, keys, filled) == (text is not None and why is None)


def test_holds_json_compares_as_write_json_writes(tmp_path):
    import numpy as np

    from gatbio.results import holds_json

    obj = {"train": np.arange(3), "score": np.float32(0.5), "gap": float("nan")}
    write_json(tmp_path / "s.json", obj)
    assert holds_json(tmp_path / "s.json", obj)
    assert not holds_json(tmp_path / "s.json", {**obj, "train": np.arange(2)})


def test_one_column_or_file_may_be_given_as_a_string(tmp_path):
    """A str was iterated as characters: summarize(df, by="model", ...) gave KeyError 'm', collect("out/b.json")
    FileNotFoundError 'o'."""
    from gatbio.results import collect

    df = pd.DataFrame({"model": ["a", "a", "b"], "f1": [0.5, 0.7, 0.9], "acc": [1.0, 0.0, 1.0]})
    as_lists = summarize(df, ["model"], ["f1"])
    pd.testing.assert_frame_equal(summarize(df, "model", "f1"), as_lists)
    pd.testing.assert_frame_equal(summarize(df, by="model", metrics=["f1"]), as_lists)
    assert list(as_lists.columns) == ["model", "n", "f1_mean", "f1_std"] and as_lists["n"].tolist() == [2, 1]
    pd.testing.assert_frame_equal(format_mean_std(as_lists, "model", "f1"),
                                  format_mean_std(as_lists, ["model"], ["f1"]))
    (tmp_path / "b.json").write_text('{"model": "b", "f1": 0.9}')
    for path in (str(tmp_path / "b.json"), tmp_path / "b.json"):
        assert collect(path).to_dict("records") == [{"model": "b", "f1": 0.9}]
    assert len(collect([tmp_path / "b.json"] * 2)) == 2


def test_over_seeds_names_the_seeds_and_the_std():
    from gatbio.results import over_seeds, seed_ranges

    assert seed_ranges([4, 0, 1, 2, 3, 3]) == "0–4" and seed_ranges([0, 1, 2, 7]) == "0–2, 7"
    assert over_seeds([0, 2]) == "mean ± std over seeds 0, 2; std of the sample (n − 1); n = runs"
    assert over_seeds([3]).startswith("mean ± std over seed 3; ")


def test_software_names_the_versions_behind_a_result():
    import torch

    import gatbio
    from gatbio.results import software

    sw = software()
    assert sw["gatbio"] == gatbio.__version__ and sw["torch"] == torch.__version__
    assert set(sw) >= {"git_commit", "python", "torch_geometric", "numpy", "scipy", "sklearn", "pandas"}
    sw["torch"] = "changed"  # a copy: the cached record is not changed through it
    assert software()["torch"] == torch.__version__


def test_software_names_the_cpu_kernels_that_the_libraries_chose():
    """The same code, versions and seeds gave other SHS27k figures on a CPU whose libraries chose AVX-512 kernels,
    and NumPy's dispatched loops moved the quick protein config's (experiments/README.md, "The machine's CPU moves
    figures too"): each result records them, as chosen at run time."""
    import platform
    import subprocess
    import sys

    import torch

    from gatbio.results import software

    sw = software()
    assert sw["cpu"] and sw["cpu_kernels"].startswith("torch ")
    from gatbio.results import _numpy_dispatch

    try:
        from numpy._core import _multiarray_umath as umath
    except ImportError:  # NumPy 1
        from numpy.core import _multiarray_umath as umath
    assert f"numpy {_numpy_dispatch()}" in sw["cpu_kernels"]
    if torch.backends.mkl.is_available() and platform.system() == "Linux":  # torch's BLAS on x86: MKL, linked in
        assert "; mkl " in sw["cpu_kernels"] and "processors" in sw["cpu_kernels"], sw["cpu_kernels"]
    # every NumPy dispatch target off: what is left is the baseline the wheel was built for
    env = {**os.environ, "ATEN_CPU_CAPABILITY": "default", "OPENBLAS_CORETYPE": "Haswell",
           "NPY_DISABLE_CPU_FEATURES": " ".join(umath.__cpu_dispatch__)}
    kernels = subprocess.run([sys.executable, "-c", "from gatbio.results import software; "
                              "print(software()['cpu_kernels'])"], env=env, capture_output=True, text=True,
                             check=True).stdout.strip()
    assert kernels.startswith("torch DEFAULT; numpy "), kernels
    assert kernels.split("; ")[1] == f"numpy {umath.__cpu_baseline__[-1]}", kernels
    if platform.machine() == "x86_64":  # AVX2 (Haswell) kernels: every x86-64 CPU of the last decade has them
        assert "openblas Haswell" in kernels, kernels


def test_machine_records_the_cpu_and_a_calibration_that_a_slower_machine_raises():
    import time

    import torch

    from gatbio.results import machine

    threads = torch.get_num_threads()
    m = machine()
    assert m["cpu"] and m["logical_cores"] == __import__("os").cpu_count()
    assert m["load_average"] is None or len(m["load_average"]) == 3
    assert 0 < m["python_loop_seconds"] < 30 and 0 < m["torch_matmul_seconds"] < 30
    assert torch.get_num_threads() == threads  # the one-thread calibration leaves the caller's threads
    assert "python_loop_seconds" not in machine(calibrate=False)

    # the calibration measures the machine: a machine half as fast (every loop step slowed) reads slower
    import builtins

    real_sum = builtins.sum

    def slow_sum(it, *args):
        time.sleep(0.05)
        return real_sum(it, *args)

    builtins.sum = slow_sum
    try:
        slowed = machine()["python_loop_seconds"]
    finally:
        builtins.sum = real_sum
    assert slowed >= 0.05


def test_a_folder_another_process_writes_into_is_refused(tmp_path):
    """Two sweeps into one folder at once mixed their runs without a word (each rewrote fingerprint.json while the
    other computed): the second is refused while the first runs; the lock dies with its process."""
    import subprocess
    import sys

    from gatbio.results import FolderBusyError, release_out_dir

    out = tmp_path / "out"
    out.mkdir()
    holder = subprocess.Popen([sys.executable, "-c", "import sys, time; from gatbio.results import lock_out_dir; "
                               f"lock_out_dir({str(out)!r}); print('held', flush=True); time.sleep(60)"],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(FolderBusyError, match=rf"another gatbio run \(pid {holder.pid}, since .*\) is writing"):
            prepare(out, lr=0.5)
        assert not (out / "fingerprint.json").exists()  # refused before it read or wrote anything
        # remaking the tables writes them too: they would say "incomplete" of runs in progress, or, written after
        # the sweep's own at its end, replace them with fewer runs (it was allowed)
        with pytest.raises(FolderBusyError, match=rf"another gatbio run \(pid {holder.pid}, .*\) is writing its "
                                                  r"results there, and makes its tables when it ends"):
            prepare(out, summary_only=True)
    finally:
        holder.kill()
        holder.wait()
    prepare(out, lr=0.5)  # killed without a chance to clean up: no stale lock left behind
    prepare(out, lr=0.5)  # the same process again: its own lock
    release_out_dir(out)


def test_sigterm_ends_a_command_as_ctrl_c_does_and_names_the_folder(tmp_path, capsys):
    """SIGTERM (a batch system's time limit) ended a sweep without a word, and Ctrl-C did not say how to resume."""
    import signal
    import time

    from gatbio.cli import run_guarded

    def sweep():
        prepare(tmp_path / "out")
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(5)  # the signal arrives first

    assert run_guarded("gatbio", sweep) == 143
    err = capsys.readouterr().err
    assert err == (f"terminated: the runs finished so far are saved in {(tmp_path / 'out').resolve()}; the same "
                   "command resumes from them\n")
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL  # restored

    def interrupted():
        raise KeyboardInterrupt

    assert run_guarded("gatbio", interrupted) == 130  # another command: no earlier sweep's folder named
    assert capsys.readouterr().err == "interrupted\n"


def test_a_damaged_config_without_fingerprint_is_a_difference_not_another_task(tmp_path):
    """A folder whose config.yaml is damaged and fingerprint.json missing was called "results of another task",
    which --restart and --resume-anyway both refuse: the folder could not be used again."""
    out = tmp_path / "out"
    prepare(out)
    fake_run(out)
    (out / "fingerprint.json").unlink()
    (out / "config.yaml").write_text("out_dir: [unclosed\n")
    with pytest.raises(ResumeConflictError, match=r"different configuration \(its config\.yaml cannot be read .*"
                                                  r"Pass --restart"):
        prepare(out)
    prepare(out, resume="anyway")
    assert (out / "runs" / "seed0.json").exists()
    (out / "fingerprint.json").unlink()
    (out / "config.yaml").write_text("out_dir: [unclosed\n")
    prepare(out, resume="restart")
    assert not (out / "runs").exists()


# ---------------------------------------------------------------- restore_splits


def test_restore_splits_writes_only_the_missing_or_damaged_splits_and_says_so(tmp_path, caplog):
    """protein and robustness each wrote their own copy of this; one function now, each passing what differs."""
    from gatbio.results import restore_splits

    caplog.set_level("WARNING", logger="gatbio.data")
    splits = tmp_path / "splits"
    kept, missing, damaged = splits / "a_s0.json", splits / "web" / "s1.json", splits / "b_s2.json"
    write_json(kept, {"test": [0]})
    damaged.write_text("")
    made = []

    def maker(name):
        return lambda: made.append(name) or {"test": [name]}

    todo = {kept: maker("kept"), missing: maker("missing"), damaged: maker("damaged")}
    assert restore_splits("sweep", tmp_path, todo) == [missing, damaged]
    assert made == ["missing", "damaged"]  # a split that is there is not made again
    assert json.loads(missing.read_text()) == {"test": ["missing"]} and json.loads(kept.read_text()) == {"test": [0]}
    assert [r.getMessage() for r in caplog.records] == [
        f"note: sweep: 2 saved split(s) of finished runs were missing from {splits}: made again from their seeds "
        f"(e.g. {Path('web') / 's1.json'})"]
    caplog.clear()
    assert restore_splits("sweep", tmp_path, todo) == [] and not caplog.records  # nothing missing, nothing said
