"""Audit of where work runs on a machine without CUDA: device names, ``jobs`` and ``threads`` settings, and a
worker process that dies or raises."""

from __future__ import annotations

import os
import re

import pytest
import torch

from gatbio import device as D
from gatbio.cli import UserError
from gatbio.device import DeviceError, resolve_device
from gatbio.parallel import WorkerDiedError, parallel_map, unit_threads


@pytest.fixture
def no_cuda(monkeypatch):
    monkeypatch.setattr(D, "_cuda_available", lambda: False)
    monkeypatch.setattr(D, "_mps_available", lambda: False)


@pytest.mark.parametrize("spec,message", [
    ("cuda", r"device 'cuda': CUDA is not available on this machine .*; use --device cpu"),
    ("cuda:1", r"device 'cuda:1': CUDA is not available on this machine .*; use --device cpu"),
    ("mps", r"device 'mps': Apple's MPS backend is not available on this machine; use --device cpu"),
    ("gpu", r"device 'gpu' is not a device name: use auto, cpu, cuda, cuda:N \(a GPU index\) or mps"),
    ("garbage", r"device 'garbage' is not a device name: use auto, cpu, cuda"),
])
def test_devices_this_machine_lacks_are_one_line_refusals(no_cuda, spec, message):
    with pytest.raises(DeviceError, match=message) as info:
        resolve_device(spec)
    assert "\n" not in str(info.value) and isinstance(info.value, UserError)


@pytest.mark.parametrize("spec", ["CPU", " cpu ", "auto", "AUTO", None])
def test_cpu_and_auto_resolve_to_the_cpu_without_cuda(no_cuda, spec):
    assert resolve_device(spec) == torch.device("cpu")


def _dies_on_two(i: int) -> int:
    if i == 2:
        os._exit(3)  # a crash in native code or the out-of-memory killer: the process ends, no exception
    return i


def _raises_on_two(i: int, name: str) -> int:
    if i == 2:
        raise KeyError(f"no {name}")
    return i


def test_a_worker_that_dies_names_the_unit_it_was_running():
    """It was joblib's bare TerminatedWorkerError ('A worker process managed by the executor was unexpectedly
    terminated...'), which names no unit; from the gatbio command a traceback."""
    with pytest.raises(WorkerDiedError, match=re.escape("webs: a worker process died (exit: EXIT(3)) while running "
                                                        "unit 3 of 4 (2)")) as info:
        parallel_map(_dies_on_two, [(i,) for i in range(4)], jobs=2, progress=False, desc="webs")
    assert "run with fewer jobs" in str(info.value) and isinstance(info.value, UserError)


@pytest.mark.parametrize("jobs", [1, 2])
def test_an_error_raised_in_a_unit_keeps_its_type_and_message_and_notes_the_unit(jobs):
    with pytest.raises(KeyError, match="no web") as info:
        parallel_map(_raises_on_two, [(i, "web") for i in range(4)], jobs=jobs, progress=False, desc="webs")
    assert info.value.__notes__ == ["raised in webs: unit 3 of 4 (2, 'web')"]


@pytest.mark.parametrize("jobs", [0, -2, 2.5, "2", None])
def test_jobs_that_are_not_a_process_count_are_named(jobs):
    """2.5 ran (joblib truncated it), '2' and None failed with "'<' not supported between instances"."""
    with pytest.raises(ValueError, match=re.escape(f"jobs={jobs!r} is not allowed: use a positive number")):
        parallel_map(_raises_on_two, [(0, "x")], jobs=jobs, progress=False)


def test_more_jobs_than_units_start_no_idle_workers():
    """jobs=1000 on 2 units started 1,000 worker processes (each importing torch) and hung a 2-core machine; one
    unit now runs in this process."""
    assert parallel_map(os.getpid, [()], jobs=8, progress=False) == [os.getpid()]


def test_more_jobs_than_cores_is_said(caplog, monkeypatch):
    from gatbio import parallel

    monkeypatch.setattr(parallel, "usable_cores", lambda: 1)
    assert parallel_map(_raises_on_two, [(0, "x"), (1, "x")], jobs=2, desc="webs") == [0, 1]
    assert "webs: jobs=2 is more than the 1 CPU core(s) this process may use" in caplog.text


@pytest.mark.parametrize("threads", [0, -1, 2.5])
def test_threads_that_are_not_a_thread_count_are_named(threads):
    """torch said 'set_num_threads expects a positive integer' (a RuntimeError naming no setting)."""
    before = torch.get_num_threads()
    with pytest.raises(ValueError, match=re.escape(f"threads={threads!r} is not allowed")):
        with unit_threads(threads):
            pass
    assert torch.get_num_threads() == before
