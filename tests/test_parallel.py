"""parallel_map: serial, joblib processes and a Dask cluster give the same results, in input order."""

from __future__ import annotations

import json
import operator
import sys
import time

import pytest

from gatbio.parallel import parallel_map

ITEMS = [(i, i + 1) for i in range(12)]
EXPECTED = [i * (i + 1) for i in range(12)]


def _fails_on_three(i: int) -> int:
    if i == 3:
        raise ValueError("item 3 is bad")
    return i


def test_serial_and_joblib_agree_in_input_order():
    assert parallel_map(operator.mul, ITEMS, jobs=1, progress=False) == EXPECTED
    assert parallel_map(operator.mul, ITEMS, jobs=2, progress=False) == EXPECTED
    assert parallel_map(operator.mul, [], jobs=2, progress=False) == []


def test_dask_cluster_on_loopback_agrees_with_joblib():
    distributed = pytest.importorskip("dask.distributed")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False, protocol="tcp",
                                  host="127.0.0.1", dashboard_address=None) as cluster:
        assert cluster.scheduler_address.startswith("tcp://127.0.0.1:")
        out = parallel_map(operator.mul, ITEMS, scheduler=cluster.scheduler_address, progress=False)
    assert out == EXPECTED


def test_errors_surface_from_every_backend():
    items = [(i,) for i in range(5)]
    with pytest.raises(ValueError, match="item 3 is bad"):
        parallel_map(_fails_on_three, items, jobs=1, progress=False)
    with pytest.raises(ValueError, match="item 3 is bad"):
        parallel_map(_fails_on_three, items, jobs=2, progress=False)


def _slow_writer(i: int, path: str) -> int:
    if i:
        import time

        time.sleep(3)
        with open(path, "w") as fh:
            fh.write("written")
    return i


@pytest.mark.filterwarnings("error")  # joblib's advice on stopping early is not for a user who stopped
def test_workers_are_stopped_before_an_interruption_leaves_parallel_map(tmp_path, monkeypatch):
    """Ctrl-C between two results (in the progress code) stopped the workers only when the pool's generator was
    collected, after the caller had handled it (released the folder's lock): they went on writing meanwhile."""
    import gatbio.parallel as par

    def first_then_interrupted(results, *_):
        i, result, _seconds = next(iter(results))
        yield i, result
        raise KeyboardInterrupt

    monkeypatch.setattr(par, "_track", first_then_interrupted)
    path = tmp_path / "late.txt"
    import time

    try:
        parallel_map(_slow_writer, [(0, str(path)), (1, str(path))], jobs=2, progress=False)
    except KeyboardInterrupt as err:  # handled while its traceback (and the pool's generator) is alive, as run_guarded
        time.sleep(4)  # the second unit would have written by now
        assert err.__traceback__ is not None and not path.exists()
    else:
        pytest.fail("no KeyboardInterrupt")


@pytest.mark.parametrize("jobs", [0, -2])
def test_bad_jobs_are_rejected(jobs):
    with pytest.raises(ValueError, match=f"jobs={jobs} is not allowed"):
        parallel_map(operator.mul, ITEMS, jobs=jobs)


def test_items_must_be_argument_tuples():
    with pytest.raises(ValueError, match=r"items\[1\] is 5 \(int\)"):
        parallel_map(operator.neg, [(1,), 5], jobs=1)


_KEPT: list = []


def _grows(i: int) -> int:
    """Keeps 350 MB alive in the worker after its first call (as a per-process cache does), then waits past loky's
    one-second memory check, so loky recycles the worker while jobs are pending."""
    import time

    import numpy as np

    if _KEPT == [] and i > 1:
        _KEPT.append(np.ones(350_000_000 // 8))
    time.sleep(1.2)
    return i


@pytest.mark.slow
def test_a_recycled_worker_is_not_a_warning(recwarn):
    """loky restarts a worker whose memory grew by 300 MB (our per-process caches do) and warns 'A worker stopped
    while some jobs were given to the executor': no job is lost, so the warning is noise to a user."""
    pytest.importorskip("psutil")  # loky checks memory only with psutil
    assert parallel_map(_grows, [(i,) for i in range(8)], jobs=2) == list(range(8))
    assert not [w for w in recwarn if "A worker stopped" in str(w.message)]


def _threads_now() -> tuple[int, set[int]]:
    import numpy  # noqa: F401  (its BLAS is the one that matters: NumPy, SciPy and scikit-learn share it)
    import torch
    from threadpoolctl import threadpool_info

    return torch.get_num_threads(), {i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"}


def test_unit_threads_sets_torch_and_blas_threads_and_restores_them():
    from gatbio.parallel import unit_threads

    before = _threads_now()
    with unit_threads(1):
        assert _threads_now() == (1, {1})
    assert _threads_now() == before


def test_unit_threads_limit_libraries_first_imported_inside_the_unit():
    """In a fresh process (the main process of a jobs=1 run), SciPy's own BLAS and scikit-learn's OpenMP runtime
    load with their first import, which may come inside the first unit: they run on one thread too (before, on
    every core, and a cached PCA of that first unit moved gat_ppi's SHS27k scores by up to 0.014)."""
    import os
    import subprocess
    import sys

    code = ("import gatbio.parallel as gp\n"
            "from threadpoolctl import threadpool_info\n"
            "with gp.unit_threads(1):\n"
            "    import scipy.linalg, sklearn.decomposition\n"
            "    print(sorted({i['num_threads'] for i in threadpool_info()}))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={k: v for k, v in os.environ.items()
                              if k not in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")})
    assert out.stdout.strip() == "[1]", out.stdout + out.stderr


@pytest.mark.parametrize("module, unit, body", [
    ("gatbio.tasks.protein", "run_unit", "_run_unit"),
    ("gatbio.tasks.protein_interactions", "run_unit", "_run_unit"),
    ("gatbio.tasks.foodweb", "run_web", "_run_web"),
    ("gatbio.tasks.robustness", "_job", "_job_body"),
])
def test_every_task_unit_runs_on_its_configured_threads(monkeypatch, module, unit, body):
    """A unit's BLAS threads were the process's (every core with jobs=1, cores / jobs in joblib's workers), so
    ``jobs`` and the machine changed the figures (yeast: LR-ProNE 0.357 -> 0.359 accuracy). Each task's unit
    runs on the config's ``threads``, torch's and BLAS's alike."""
    import importlib
    from types import SimpleNamespace

    mod = importlib.import_module(module)
    seen = []
    monkeypatch.setattr(mod, body, lambda *a, **k: seen.append(_threads_now()))
    cfg = SimpleNamespace(threads=1)
    args = {"run_web": ("web", "out", cfg)}.get(unit, (cfg, None, None, None))
    getattr(mod, unit)(*args)
    assert seen == [(1, {1})]


def test_progress_lines_known_answer(monkeypatch):
    # A clock read at the start and once per finished unit: lines when 30 s have passed since the last one, and
    # at the last unit (with no time left to estimate).
    import io

    from gatbio import parallel

    clock = iter([0.0, 10.0, 40.0, 50.0, 100.0])
    monkeypatch.setattr(parallel.time, "monotonic", lambda: next(clock))
    out = io.StringIO()
    assert list(parallel.progress_lines(enumerate("abcd"), 4, "food webs", stream=out)) == list(enumerate("abcd"))
    assert out.getvalue().splitlines() == ["food webs: 2/4 done, 0:40 elapsed, about 0:40 left",
                                           "food webs: 4/4 done, 1:40 elapsed"]


def test_progress_with_costs_estimates_the_time_left_from_the_cost_done(monkeypatch):
    """Units run largest first: counting units, the first line said 3:00 left when 0:45 were; with each unit's
    cost, the rate of the cost done (10 s per unit of cost) gives the truth."""
    import io

    from gatbio import parallel

    costs = [6.0, 3.0, 1.0, 0.5]  # each unit takes 10 s per unit of cost: 60, 30, 10, 5 s
    clock = iter([0.0, 60.0, 90.0, 100.0, 105.0])
    monkeypatch.setattr(parallel.time, "monotonic", lambda: next(clock))
    out = io.StringIO()
    assert list(parallel.progress_lines(enumerate("abcd"), 4, "webs", stream=out, costs=costs)) == list(enumerate("abcd"))
    assert out.getvalue().splitlines() == ["webs: 1/4 done, 1:00 elapsed, about 0:45 left",
                                           "webs: 2/4 done, 1:30 elapsed, about 0:15 left",
                                           "webs: 4/4 done, 1:45 elapsed"]
    # without costs the same run read 3:00 left after the first unit
    clock = iter([0.0, 60.0, 90.0, 100.0, 105.0])
    out = io.StringIO()
    list(parallel.progress_lines(enumerate("abcd"), 4, "webs", stream=out))
    assert out.getvalue().splitlines()[0] == "webs: 1/4 done, 1:00 elapsed, about 3:00 left"


def test_the_cost_done_is_that_of_the_units_that_ended_in_whatever_order(monkeypatch):
    """Units end in any order in a pool: the time left weighs the units that ended, not the first ones given."""
    import io

    from gatbio import parallel

    costs = [6.0, 3.0, 1.0, 0.5]  # 10 s per unit of cost; they end smallest first: 5, 10, 30 then 60 s
    clock = iter([0.0, 5.0, 15.0, 45.0, 105.0])
    monkeypatch.setattr(parallel.time, "monotonic", lambda: next(clock))
    out = io.StringIO()
    ended = [(3, "d"), (2, "c"), (1, "b"), (0, "a")]
    assert list(parallel.progress_lines(iter(ended), 4, "webs", stream=out, costs=costs)) == ended
    # 4.5 of 10.5 units of cost done in 45 s: 60 s left (the first three given would be 10 of 10.5: 2 s)
    assert out.getvalue().splitlines() == ["webs: 3/4 done, 0:45 elapsed, about 1:00 left",
                                           "webs: 4/4 done, 1:45 elapsed"]


def test_with_two_workers_the_time_left_counts_the_unit_still_running(monkeypatch):
    """Two workers, six units of 10 s each: when the first ends (t = 10 s) the second is nearly done and four are
    left, 20 s of the two workers' time. Counting units ended against the elapsed time read 50 s (the SHS27k
    benchmark's resumed seq_cnn run: "about 3:56:37 left" after its first unit, when 1:06 was)."""
    import io

    from gatbio import parallel

    clock = iter([0.0, 10.0, 10.0, 20.0, 20.0, 30.0, 30.0])
    monkeypatch.setattr(parallel.time, "monotonic", lambda: next(clock))
    out = io.StringIO()
    ended = [(i, "x", 10.0) for i in range(6)]  # (index, result, seconds the unit took in its worker)
    got = list(parallel.progress_lines(iter(ended), 6, "units", every=0, stream=out, workers=2))
    assert got == [(i, "x") for i in range(6)]
    assert out.getvalue().splitlines() == ["units: 1/6 done, 0:10 elapsed, about 0:20 left",
                                           "units: 2/6 done, 0:10 elapsed, about 0:20 left",
                                           "units: 3/6 done, 0:20 elapsed, about 0:10 left",
                                           "units: 4/6 done, 0:20 elapsed, about 0:10 left",
                                           "units: 5/6 done, 0:30 elapsed, about 0:00 left",
                                           "units: 6/6 done, 0:30 elapsed"]
    clock = iter([0.0, 10.0])
    out = io.StringIO()
    next(parallel.progress_lines(iter(ended), 6, "units", every=0, stream=out))  # as if one worker ran them
    assert out.getvalue() == "units: 1/6 done, 0:10 elapsed, about 0:50 left\n"


def test_the_time_left_of_the_last_units_is_that_of_one_worker_each():
    """Once the queue is empty a worker that ends its unit stays idle: the last unit (cost 3, 30 s) is left to one
    worker, not shared among all of them."""
    from gatbio.parallel import _TimeLeft

    eta = _TimeLeft(3, [1.0, 1.0, 3.0], workers=2)  # 10 s per unit of cost; units 0 and 2 start at 0, 1 at 10 s
    eta.add(0, 10.0, 10.0)
    assert eta.left(10.0) == pytest.approx((40.0 - 10.0) / 2)  # 4 units of cost left, 10 s of them done already
    eta.add(1, 20.0, 10.0)  # no unit left for this worker: it stops
    assert eta.stopped == [20.0]
    assert eta.left(20.0) == pytest.approx(10.0)  # unit 2 has run 20 of its 30 s, alone
    assert eta.left(25.0) == pytest.approx(5.0)


@pytest.mark.parametrize("jobs", [1, 2, -1])
def test_the_estimate_knows_how_many_workers_run(monkeypatch, jobs):
    from joblib import effective_n_jobs

    from gatbio import parallel

    seen, track = [], parallel._track

    def spy(pairs, total, desc, progress, costs, workers):
        seen.append(workers)
        return track(pairs, total, desc, progress, costs, workers)

    monkeypatch.setattr(parallel, "_track", spy)
    assert parallel_map(operator.mul, ITEMS, jobs=jobs, progress=False) == EXPECTED
    assert seen == [effective_n_jobs(jobs)] and (jobs != 2 or seen == [2])


def _nap(i, seconds):
    time.sleep(seconds)
    return i


def test_a_pool_counts_units_as_they_end_and_returns_them_in_input_order(monkeypatch):
    """A long first unit (the largest web, run first) held back the count of all the units that ended after it:
    58 of 114 food-web units were done on an H200's 16 workers when the log said 1/114 after 6:35."""
    from gatbio import parallel

    seen, track = [], parallel._track

    def spy(pairs, *args, **kwargs):
        for i, result in track(pairs, *args, **kwargs):
            seen.append(i)
            yield i, result

    monkeypatch.setattr(parallel, "_track", spy)
    items = [(0, 3.0)] + [(i, 0.0) for i in range(1, 6)]
    assert parallel_map(_nap, items, jobs=2, progress=False) == list(range(6))
    assert sorted(seen) == list(range(6)) and seen[-1] == 0, seen


def test_a_bar_with_costs_shows_the_cost_based_time_left(monkeypatch):
    import io

    from gatbio import parallel

    clock = iter([0.0, 60.0, 90.0, 100.0])
    monkeypatch.setattr(parallel.time, "monotonic", lambda: next(clock))
    bar = parallel.tqdm
    monkeypatch.setattr(parallel, "tqdm", lambda *a, **k: bar(*a, mininterval=0, **k))  # draw at every unit
    out = io.StringIO()
    seen = [out.getvalue() for _ in parallel._cost_bar(enumerate("abc"), 3, "webs", [6.0, 3.0, 1.0], file=out)]
    # after the first unit (60 s for 6 of 10 units of cost): 40 s left, not tqdm's 2 units x 60 s
    assert seen[0].endswith(", about 0:40 left]") and " 1/3 [" in seen[0]
    assert seen[1].endswith(", about 0:10 left]") and " 2/3 [" in seen[1]
    assert "3/3" in out.getvalue()


@pytest.mark.parametrize("costs, msg", [([1.0], "costs has 1 values for 2 items"),
                                        ([1.0, float("nan")], "finite and non-negative"),
                                        ([0, 0], "not all 0"), ([-1, 2], "finite and non-negative")])
def test_costs_that_cannot_be_costs_are_refused(costs, msg):
    with pytest.raises(ValueError, match=msg):
        parallel_map(operator.mul, [(1, 2), (3, 4)], jobs=1, progress=False, costs=costs)


def test_parallel_map_with_costs_gives_the_same_results(capsys):
    assert parallel_map(operator.mul, ITEMS, jobs=1, desc="units", costs=range(1, len(ITEMS) + 1)) == EXPECTED
    assert capsys.readouterr().err.splitlines()[-1].startswith(f"units: {len(ITEMS)}/{len(ITEMS)} done")


def test_one_process_counts_a_unit_done_when_it_ends(capsys):
    """With jobs=1 the progress wrapped the items: 'food webs: 2/2 done' was printed when the last unit started
    (an interrupted run then had one result), and every time-left estimate was a unit early."""
    seen = []

    def unit(k):
        seen.append(capsys.readouterr().err)  # what progress said before this unit ran
        return k

    assert parallel_map(unit, [(1,), (2,)], jobs=1, desc="units") == [1, 2]
    assert "2/2 done" not in "".join(seen) and "units: 2/2 done" in capsys.readouterr().err


def test_left_to_run_keeps_the_unfinished_in_order_and_says_how_many_were_done(capsys):
    from gatbio.parallel import left_to_run

    items = [(1, "a"), (2, "b"), (3, "c"), (4, "d")]
    assert left_to_run(items, lambda i, _: i % 2 == 0, "units", "(n, letter)", "OUT") == [(1, "a"), (3, "c")]
    assert capsys.readouterr().err == "units: 2 of 4 (n, letter) units already done in OUT, 2 to run\n"
    assert left_to_run(items, lambda *_: False, "units", "(n, letter)", "OUT") == items  # nothing done yet
    assert capsys.readouterr().err == "units: 4 (n, letter) units to run, results in OUT\n"
    assert left_to_run(items, lambda *_: True, "units", "(n, letter)", "OUT", progress=False) == []
    assert left_to_run(items, lambda *_: False, "units", "(n, letter)", "OUT", progress=False) == items
    assert capsys.readouterr().err == ""


def test_left_to_run_names_the_damaged_result_files_it_will_redo(tmp_path, capsys, caplog):
    """A resumed sweep redid a unit whose result file was damaged (empty, cut short, of another shape) without a
    word: the files of the units left to run that exist but hold no result are counted in one note, with the
    first one and why; missing files (not run yet) and the files of finished units are not."""
    from gatbio.parallel import left_to_run
    from gatbio.results import is_done

    def files(n):
        return [tmp_path / f"{n}{m}.json" for m in "ab"]

    for n in range(4):
        for path in files(n):
            path.write_text(json.dumps({"n": n}))
    (tmp_path / "1b.json").write_text('{"n": 1')  # cut short
    (tmp_path / "2a.json").write_text("[]")  # another shape
    (tmp_path / "3a.json").unlink()  # not run yet
    items = [(n,) for n in range(4)]
    todo = left_to_run(items, lambda n: all(is_done(p, ("n",)) for p in files(n)), "units", "(n,)", "OUT",
                       files=files, keys=("n",))
    assert todo == [(1,), (2,), (3,)]
    assert capsys.readouterr().err == "units: 1 of 4 (n,) units already done in OUT, 3 to run\n"
    notes = [r.getMessage() for r in caplog.records]
    assert notes == [f"note: units: 2 damaged result file(s) will be redone (e.g. {tmp_path / '1b.json'}: not "
                     "valid JSON (Expecting ',' delimiter, line 1))"]
    caplog.clear()
    left_to_run(items, lambda n: n == 0, "units", "(n,)", "OUT", progress=False, files=files, keys=("n",))
    assert "2 damaged result file(s)" in caplog.text  # also when quiet: a warning, not progress
    caplog.clear()
    left_to_run(items[:1], lambda n: False, "units", "(n,)", "OUT", files=files, keys=("n",))
    assert not caplog.records  # every file of the unit holds a result: nothing to say


def test_progress_goes_to_a_log_as_lines(capsys, monkeypatch):
    # stderr captured by pytest is no terminal, as a log file is not: lines, not a bar's carriage returns; also
    # where a notebook runner has imported ipykernel and IPython in this process (the suite's notebook tests do),
    # as long as no kernel runs here.
    import types

    monkeypatch.setitem(sys.modules, "ipykernel", types.ModuleType("ipykernel"))
    ipython = types.ModuleType("IPython")
    ipython.get_ipython = lambda: None
    monkeypatch.setitem(sys.modules, "IPython", ipython)
    assert parallel_map(operator.mul, ITEMS, jobs=2, desc="units") == EXPECTED
    err = capsys.readouterr().err
    assert "\r" not in err and err.splitlines()[-1].startswith("units: 12/12 done, 0:")
    assert parallel_map(operator.mul, ITEMS, jobs=1, progress=False) == EXPECTED
    assert capsys.readouterr().err == ""


def test_progress_in_a_notebook_kernel_is_a_bar(monkeypatch):
    import types

    from gatbio import parallel

    shell = types.SimpleNamespace(config={"IPKernelApp": {}})
    ipython = types.ModuleType("IPython")
    ipython.get_ipython = lambda: shell
    monkeypatch.setitem(sys.modules, "IPython", ipython)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: False)
    assert isinstance(parallel._track(iter([1]), 1, "x", True), parallel.tqdm)
    shell.config = {}  # an IPython terminal shell: its stderr decides
    assert not isinstance(parallel._track(iter([1]), 1, "x", True), parallel.tqdm)


def _staged(web: str, stage=None) -> tuple:
    """A unit that names its step and an epoch, and returns whether it got an epoch callback."""
    stage(f"fold 1 of {web}")
    if stage.on_epoch is not None:
        stage.on_epoch(2, 5)
    time.sleep(0.1)
    return web, stage.on_epoch is not None


def test_parallel_map_holds_the_units_heartbeat(monkeypatch, capsys):
    """Four task modules each threaded the heartbeat by hand (a flag in their units, heartbeat() in the unit,
    heartbeat_wanted() in run): parallel_map(heartbeat=...) holds it once, for every sweep."""
    import functools

    import gatbio.results

    monkeypatch.setattr(gatbio.results, "heartbeat", functools.partial(gatbio.results.heartbeat, every=0.01))
    monkeypatch.setattr(sys.stderr, "isatty", lambda: False)  # a log: the heartbeat is wanted
    label = {"heartbeat": lambda web: f"webs: still running ({web})"}
    assert parallel_map(_staged, [("A",)], desc="webs", **label) == [("A", True)]
    err = capsys.readouterr().err
    assert "webs: still running (A): fold 1 of A, epoch 2/5, 0:00 in this unit" in err, err
    # no progress, or a terminal (its bar shows the time): the unit gets a stage without a callback, no line
    assert parallel_map(_staged, [("B",)], progress=False, **label) == [("B", False)]
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    assert parallel_map(_staged, [("C",)], desc="webs", **label) == [("C", False)]
    assert "still running" not in capsys.readouterr().err
    assert parallel_map(operator.neg, [(1,)], progress=False) == [-1]  # without heartbeat=: no stage argument
    # in worker processes (jobs=2: the label is made here, the stage in the worker; its 60 s cannot be patched there)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: False)
    assert parallel_map(_staged, [("D",), ("E",)], jobs=2, desc="webs", **label) == [("D", True), ("E", True)]
