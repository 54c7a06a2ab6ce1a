"""Interrupting a sweep and resuming it (an audit of "never lost results"): Ctrl-C while a sweep makes its tables
says that every run is saved and how to finish, and a write killed midway (SIGKILL) leaves a temporary file that
the resume removes and says so."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from dataclasses import dataclass

import pytest

from gatbio.cli import run_guarded
from gatbio.parallel import parallel_map
from gatbio.results import is_done, prepare_out_dir, read_json, release_out_dir, write_json, writing_runs


@dataclass
class Cfg:
    out_dir: str = "out"
    jobs: int = 1
    lr: float = 0.01


OUTPUTS = ("runs", "summary.csv")


def prepare(out, **kw):
    return prepare_out_dir(out, Cfg(out_dir=str(out), **kw), free_keys=("out_dir", "jobs"), outputs=OUTPUTS)


def _unit(out, seed):
    write_json(out / "runs" / f"seed{seed}.json", {"seed": seed, "f1": 0.5 + seed / 10})
    return seed


def test_ctrl_c_while_the_tables_are_made_says_every_run_is_saved(tmp_path, capsys):
    """The sweeps write their tables after their runs (the folder released): Ctrl-C there (the robustness sweep's
    figures take seconds) printed a bare "interrupted", with no word of the folder or how to finish."""
    out = tmp_path / "out"

    def sweep():
        prepare(out)
        with writing_runs(out):
            parallel_map(_unit, [(out, s) for s in range(3)], progress=False)
        raise KeyboardInterrupt  # in the tables

    assert run_guarded("gatbio", sweep) == 130
    err = capsys.readouterr().err
    assert err == (f"interrupted: every run is saved in {out.resolve()} (its tables were being made); the same "
                   "command makes them without redoing a run\n")
    assert all(is_done(out / "runs" / f"seed{s}.json") for s in range(3))

    def stopped_in_a_unit():  # interrupted among the runs: the hint as before
        prepare(out)
        with writing_runs(out):
            raise KeyboardInterrupt

    assert run_guarded("gatbio", stopped_in_a_unit) == 130
    assert capsys.readouterr().err == (f"interrupted: the runs finished so far are saved in {out.resolve()}; the "
                                       "same command resumes from them\n")
    assert run_guarded("gatbio", lambda: (_ for _ in ()).throw(KeyboardInterrupt)) == 130  # no sweep: bare
    assert capsys.readouterr().err == "interrupted\n"


_KILLED_WRITE = """
import os, signal, sys
import gatbio.results as results
from pathlib import Path

def killed(src, dst):  # the process dies between writing the temp file and renaming it into place
    os.kill(os.getpid(), signal.SIGKILL)

results.os.replace = killed
results.write_json(Path(sys.argv[1]), {"seed": 1, "f1": 0.7})
"""


def test_a_write_killed_midway_leaves_a_temp_file_that_the_resume_removes(tmp_path, caplog):
    """A process killed while it wrote (SIGKILL, the out-of-memory killer) left its temp file for good: hidden,
    never a result, but as large as the file (a .proba.npz) and never cleaned. The resume removes those of ended
    processes, says so, and keeps the results and the temp files of a process still writing."""
    out = tmp_path / "out"
    prepare(out)
    _unit(out, 0)
    release_out_dir(out)
    target = out / "runs" / "seed1.json"
    done = subprocess.run([sys.executable, "-c", _KILLED_WRITE, str(target)], capture_output=True, text=True)
    assert done.returncode == -signal.SIGKILL, done.stderr
    left = list((out / "runs").glob(".*.tmp"))
    assert len(left) == 1 and left[0].name.startswith(".seed1.json.") and not target.exists()
    assert read_json(left[0]) == {"seed": 1, "f1": 0.7}  # whole, but not renamed: no result

    prepare(out)  # the resume
    try:
        assert not left[0].exists()
        assert is_done(out / "runs" / "seed0.json") and not target.exists()
        assert (f"removed 1 temporary file(s) left by a run killed while it wrote (e.g. runs/{left[0].name}); none "
                "was a result") in caplog.text
    finally:
        release_out_dir(out)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="process ids and signals of POSIX")
def test_temp_files_of_another_machine_or_program_are_kept(tmp_path):
    """Only this machine's gatbio temp files of ended processes go: a process still writing (this one), a shared
    folder's writer on another host, or a file of another program that merely ends in .tmp, is not this run's to
    delete."""
    from gatbio.results import _writer, stale_temps

    out = tmp_path / "out"
    (out / "runs").mkdir(parents=True)
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True).stdout.strip()
    host = _writer().rsplit("-", 1)[0]
    mine = out / "runs" / f".a.json.{host}-{dead}.x1y2z3w4.tmp"
    top = out / f".summary.csv.{host}-{dead}.x1y2z3w4.tmp"  # a table's, beside the folder's outputs
    live = out / "runs" / f".b.json.{_writer()}.x1y2z3w4.tmp"
    other_host = out / "runs" / f".a.json.otherhost{host}-{dead}.x1y2z3w4.tmp"
    not_ours = out / "runs" / ".notes.tmp"
    outside = out / "elsewhere" / f".a.json.{host}-{dead}.x1y2z3w4.tmp"  # not an output of the task
    for p in (mine, top, live, other_host, not_ours, outside):
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("x")
    assert sorted(stale_temps(out, OUTPUTS)) == sorted([mine, top])
    assert all(p.exists() for p in (live, other_host, not_ours, outside)) and not mine.exists() and not top.exists()


_KILLED_POOL = """
import glob, os, signal, tempfile, threading, time
from gatbio.parallel import parallel_map

def unit(i):
    time.sleep(5)

def kill_when_running():  # once a unit runs (its mark is there)
    while not glob.glob(os.path.join(tempfile.gettempdir(), "gatbio-units-*", "*")):
        time.sleep(0.05)
    os.kill(os.getpid(), signal.SIGKILL)

threading.Thread(target=kill_when_running, daemon=True).start()
parallel_map(unit, [(0,), (1,)], jobs=2, progress=False)
"""


def _unit_sum(a, b):
    return a + b


def test_a_killed_parallel_sweep_leaves_no_unit_marks_for_good(tmp_path, monkeypatch):
    """A sweep with jobs > 1 marks its units in a temp folder, removed when the sweep ends; one killed (SIGKILL)
    left it in the temp folder for good, one per killed sweep. The next pool removes those of ended processes
    and keeps those of live ones."""
    import tempfile

    env = {**os.environ, "TMPDIR": str(tmp_path)}
    sweep = subprocess.Popen([sys.executable, "-c", _KILLED_POOL], env=env, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        assert sweep.wait(timeout=120) == -signal.SIGKILL
    finally:  # its orphaned workers (idle once their unit ends) go with their process group
        with contextlib.suppress(ProcessLookupError):
            os.killpg(sweep.pid, signal.SIGKILL)
    left = [p for p in tmp_path.iterdir() if p.name.startswith("gatbio-units-")]
    assert len(left) == 1  # the killed sweep's
    live = tmp_path / f"gatbio-units-{os.getppid()}-abc123"  # a live process's (the one that runs the tests)
    live.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    assert parallel_map(_unit_sum, [(1, 2), (3, 4)], jobs=2, progress=False) == [3, 7]
    assert not left[0].exists() and live.exists()
    assert [p for p in tmp_path.iterdir() if p.name.startswith("gatbio-units-")] == [live]


def test_a_process_that_cannot_be_asked_counts_as_alive():
    """os.kill(2**31, 0) raised OverflowError (a temp or mark name with a huge number crashed every other run)."""
    from gatbio.results import _alive

    assert _alive(2**31) is True and _alive(os.getpid()) is True


def test_temp_names_carry_the_whole_host_name_hashed(monkeypatch):
    """Cut to 32 characters, two machines of one pool named ...-vmss000000 and ...-vmss000001 were one host, and
    one could remove the other's live temp files."""
    import socket

    from gatbio import results

    names = []
    for host in ("aks-nodepool1-12345678-vmss000000", "aks-nodepool1-12345678-vmss000001"):
        monkeypatch.setattr(socket, "gethostname", lambda h=host: h)
        names.append(results._writer().rsplit("-", 1)[0])
    assert names[0] != names[1]
