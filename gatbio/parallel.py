"""Run independent jobs (webs, seeds, folds) in parallel: joblib on one machine, Dask on a cluster.

One code path: :func:`parallel_map` takes a function and a list of argument tuples. With ``jobs=1`` it runs
in this process; with ``jobs>1`` it uses joblib's process pool; with a Dask ``scheduler`` address it sends the
same calls to that cluster through joblib's Dask backend. Progress goes to stderr: a bar on a terminal, and
plain lines (:func:`progress_lines`) where stderr is a log file or a pipe (a cluster job, ``nohup``), which a
bar's carriage returns would garble.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import os
import re
import shutil
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from typing import Any

from tqdm.auto import tqdm

from gatbio.cli import UserError


def parallel_map(
    fn: Callable[..., Any],
    items: Sequence[tuple],
    jobs: int = 1,
    scheduler: str | None = None,
    desc: str | None = None,
    progress: bool = True,
    costs: Sequence[float] | None = None,
    heartbeat: Callable[..., str] | None = None,
) -> list[Any]:
    """``[fn(*args) for args in items]``, in parallel, results in input order.

    Args:
        fn: a picklable (module-level) function.
        items: argument tuples, one per call.
        jobs: worker processes on this machine (``-1``: all cores), at most one per item (a single item runs in
            this process); more than the cores this process may use is said on stderr (with ``progress``). Ignored
            with ``scheduler``. A worker that dies without a result raises :class:`WorkerDiedError` naming the
            unit it ran; an exception raised by ``fn`` keeps its type and message, with a note naming the unit.
        scheduler: a Dask distributed scheduler address (``tcp://host:8786``); needs ``dask[distributed]``.
        desc: progress label.
        progress: show progress on stderr (a bar on a terminal, else :func:`progress_lines`).
        costs: each item's expected cost, in any unit (e.g. a web's size): the time left is then estimated from
            the cost done and left, not the count (:func:`progress_lines`). Units of very different sizes, run
            largest first, made the count's estimate several times too long (the food-web benchmark: 4-11x).
        heartbeat: a unit's label from its arguments, e.g. ``lambda cfg, web: f"food webs: still running ({web})"``
            (called here, before any unit runs). ``fn`` is then called as ``fn(*args, stage=stage)``, ``stage``
            a :class:`gatbio.results.UnitStage` that ``fn`` tells what it does now (``stage("fold 2 of 5")``, and
            ``stage.on_epoch`` for the training loops); where a heartbeat is wanted
            (:func:`gatbio.results.heartbeat_wanted`: with ``progress``, stderr a log file or a pipe) each unit
            says on stderr every minute that it still runs (:func:`gatbio.results.heartbeat`), else the stage is
            off (its ``on_epoch`` is ``None``: no callback).
    """
    items = list(items)
    costs = _check_costs(costs, len(items))
    jobs = _check_jobs(jobs)
    for i, args in enumerate(items):
        if not isinstance(args, (tuple, list)):
            raise ValueError(f"items[{i}] is {args!r} ({type(args).__name__}): each item must be a tuple of "
                             f"arguments for fn, e.g. ({args!r},)")
    total = len(items)
    beats: list[str | None] = [None] * total  # each unit's heartbeat label (None: fn takes no stage)
    on = False
    if heartbeat is not None:
        from gatbio.results import heartbeat_wanted

        beats, on = [str(heartbeat(*args)) for args in items], heartbeat_wanted(progress)
    if scheduler is None:
        # more processes than units only start idle workers (each loading torch: jobs=1000 on 2 units tried to start
        # 1,000 and hung a 2-core machine); more than the cores share them, which the user may not know
        cores = usable_cores()
        if progress and jobs > cores and total > cores:
            from gatbio.data.tables import note

            note(f"{desc or 'parallel_map'}: jobs={jobs} is more than the {cores} CPU core(s) this process may use: "
                 "the units share them (more memory, seldom faster; the results are the same)")
        jobs = cores if jobs == -1 else jobs
        jobs = max(1, min(jobs, total))
    if scheduler is None and jobs == 1:  # progress counts results, not items handed out (a unit done when it ends)
        return _collect((_timed(fn, i, args, None, total, desc, beats[i], on) for i, args in enumerate(items)),
                        total, desc, progress, costs)

    from joblib import Parallel, delayed, effective_n_jobs, parallel_backend

    # Results come back as each unit ends, not in input order: in order, one long unit held back the count of
    # every unit finished after it (an H200's 16 workers had 58 of 114 food-web units done, largest first, when
    # the log said 1/114 after 6:35). Each call returns its index, which puts the results back in input order.
    if scheduler is not None:
        try:
            from dask.distributed import Client
        except ImportError as err:  # pragma: no cover - depends on the install
            raise ImportError("a Dask scheduler was given but dask.distributed is not installed: "
                              "pip install 'gatbio[distributed]'") from err
        calls = (delayed(_timed)(fn, i, args, None, total, desc, beats[i], on) for i, args in enumerate(items))
        with Client(scheduler) as client, parallel_backend("dask", client=client):
            gen = Parallel(return_as="generator_unordered")(calls)
            workers = sum(client.nthreads().values()) or 1
            return _collect(gen, len(items), desc, progress, costs, workers)
    with warnings.catch_warnings():
        # loky replaces a worker whose memory grew by 300 MB since its first job (per-process caches such as the
        # sequence similarities do) and warns "A worker stopped while some jobs were given to the executor": the
        # pending jobs go to the new worker and none is lost, so a user would read it as trouble where there is
        # none. A worker that dies still raises (WorkerDiedError, naming its unit).
        warnings.filterwarnings("ignore", message="A worker stopped while some jobs were given to the executor",
                                category=UserWarning)
        # each worker marks the unit it runs (a file named by its index, removed when the unit ends): a worker that
        # dies (killed for memory, a crash in native code) leaves its mark, which names the unit it was running
        _remove_stale_marks()
        marks = tempfile.mkdtemp(prefix=f"gatbio-units-{os.getpid()}-")
        try:
            calls = (delayed(_timed)(fn, i, args, marks, total, desc, beats[i], on) for i, args in enumerate(items))
            gen = Parallel(n_jobs=jobs, return_as="generator_unordered")(calls)
            return _collect(gen, total, desc, progress, costs, effective_n_jobs(jobs))
        except BrokenProcessPool as err:
            raise WorkerDiedError(_died_message(err, marks, items, desc)) from err
        finally:
            shutil.rmtree(marks, ignore_errors=True)


def _remove_stale_marks() -> None:
    """Remove the unit-mark folders (:func:`parallel_map`) of processes that have ended: one killed (SIGKILL, the
    out-of-memory killer) cannot remove its own, and each such sweep left one in the temp folder for good."""
    from gatbio.results import _alive

    root = tempfile.gettempdir()
    try:
        names = os.listdir(root)
    except OSError:
        return
    for name in names:
        m = re.fullmatch(r"gatbio-units-(\d+)-[^/]+", name)
        if m and int(m.group(1)) != os.getpid() and not _alive(int(m.group(1))):
            shutil.rmtree(os.path.join(root, name), ignore_errors=True)


class WorkerDiedError(UserError, RuntimeError):
    """A worker process of :func:`parallel_map` ended without a result (killed, e.g. by the out-of-memory killer,
    or crashed in native code); the message names the unit(s) it was running and what to try (one line from the
    ``gatbio`` command: the parent's traceback says nothing about the worker, whose own is lost)."""


def usable_cores() -> int:
    """The CPU cores this process may run on (its affinity, e.g. a batch job's share; else the machine's)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not Linux
        return max(1, os.cpu_count() or 1)


def _check_jobs(jobs) -> int:
    """``jobs`` as an int (>= 1, or -1 for every core), or an error naming the setting: 2.5, "2" or None failed
    inside joblib or with a '<' TypeError (:func:`gatbio._options.check_integer`)."""
    from gatbio._options import check_integer

    return check_integer(jobs, "jobs", "use a positive number of processes (units run side by side) or -1 for all "
                                       "cores", least=1, also=(-1,))


def _unit_name(desc: str | None, i: int, total: int, args: tuple, label: bool = True) -> str:
    """``robustness (dataset, seed): unit 3 of 8 (RobustnessConfig(...), 'protein', 'yeast', 0)`` for messages
    (``label=False``: without the ``desc:`` in front)."""
    def short(a) -> str:
        if dataclasses.is_dataclass(a) and not isinstance(a, type):
            return f"{type(a).__name__}(...)"
        text = repr(a)
        return text if len(text) <= 60 else text[:57] + "..."

    shown = ", ".join(short(a) for a in args)
    shown = shown if len(shown) <= 200 else shown[:197] + "..."
    return f"{desc or 'parallel_map'}: " * label + f"unit {i + 1} of {total} ({shown})"


def _died_message(err: BaseException, marks: str, items: Sequence[tuple], desc: str | None) -> str:
    """What a :class:`WorkerDiedError` says: the unit(s) running when the pool broke, the workers' exit codes, and
    what to try."""
    try:
        running = sorted(int(name) for name in os.listdir(marks) if name.isdigit())
    except OSError:
        running = []
    codes = re.search(r"exit codes of the workers are \{([^}]*)\}", str(err))
    how = f" (exit: {codes.group(1)})" if codes else ""
    units = "; ".join(_unit_name(desc, i, len(items), items[i], label=False) for i in running[:3])
    units += f"; and {len(running) - 3} more" if len(running) > 3 else ""
    if len(running) == 1:
        where = f" while running {units}"
    elif running:
        where = f" while these units ran (that worker had one of them): {units}"
    else:
        where = f" with no unit running ({str(err).splitlines()[0]})"
    return (f"{desc or 'parallel_map'}: a worker process died{how}{where}; it was killed (SIGKILL: often the "
            "out-of-memory killer) or crashed in native code: run with fewer jobs (each worker holds its own copy "
            "of the data), or jobs=1 to see the error where it happens")


def left_to_run(items: Sequence[tuple], done: Callable[..., bool], desc: str, unit: str, where,
                progress: bool = True, files: Callable[..., Iterable] | None = None,
                keys: Sequence[str] = (), filled: Sequence[str] = ()) -> list[tuple]:
    """The ``items`` whose unit is not finished (``done(*item)`` false), saying on stderr how many were left out:
    ``food webs: 97 of 114 (web, protocol) units already done in OUT, 17 to run``; with none finished, where
    the results go: ``food webs: 114 (web, protocol) units to run, results in OUT``.

    A resumed sweep calls it before :func:`parallel_map`, so that progress counts and times only this call's work:
    finished units, read back in a moment, made the time left look far shorter than it was.

    ``files(*item)``, where given, are a unit's result files (holding ``keys``, and ``filled`` not empty): those
    of the units to run that exist but hold no result (:func:`gatbio.results.damage`) are counted in a note naming
    the first and why, also without ``progress``:
    ``food webs: 2 damaged result file(s) will be redone (e.g. OUT/x.json: empty)``. They were redone
    silently, and a user who took the folder for finished learnt it only from the time the run took.
    """
    todo = [item for item in items if not done(*item)]
    if progress and len(todo) < len(items):
        print(f"{desc}: {len(items) - len(todo)} of {len(items)} {unit} units already done in {where}, "
              f"{len(todo)} to run", file=sys.stderr, flush=True)
    elif progress and items:  # a new folder: say where the results go (a mistyped out_dir made one silently)
        print(f"{desc}: {len(items)} {unit} units to run, results in {where}", file=sys.stderr, flush=True)
    if files is not None:
        from gatbio.results import damage

        damaged = [(path, why) for item in todo for path in files(*item) if (why := damage(path, keys, filled))]
        if damaged:
            from gatbio.data.tables import note

            path, why = damaged[0]
            note(f"{desc}: {len(damaged)} damaged result file(s) will be redone (e.g. {path}: {why})")
    return todo


def _check_costs(costs: Sequence[float] | None, n: int) -> list[float] | None:
    """``costs`` as floats, or an error naming what is wrong (one per item, finite, not negative, not all 0)."""
    if costs is None:
        return None
    costs = [float(c) for c in costs]
    if len(costs) != n:
        raise ValueError(f"costs has {len(costs)} values for {n} items: give one per item")
    if any(not math.isfinite(c) or c < 0 for c in costs) or (n and not any(costs)):
        raise ValueError("costs must be finite and non-negative, not all 0 (each item's expected cost)")
    return costs


def _timed(fn: Callable[..., Any], i: int, args: tuple, marks: str | None = None, total: int = 0,
           desc: str | None = None, beat: str | None = None, on: bool = False) -> tuple[int, Any, float]:
    """``(i, fn(*args), seconds)``: a unit's result with its place in the input and the seconds it took in its
    worker (module-level, so workers can unpickle it).

    An exception raised by ``fn`` gets a note naming the unit (:func:`_unit_name`; shown under its traceback, its
    message unchanged); ``marks``: a folder where the file ``i`` exists while the unit runs (see
    :func:`parallel_map`); ``beat``: the unit's heartbeat label, ``fn`` then called with ``stage=`` (its heartbeat
    on where ``on``)."""
    mark = None
    if marks is not None:
        try:
            mark = os.path.join(marks, str(i))
            with open(mark, "w") as fh:
                fh.write(str(os.getpid()))
        except OSError:  # no mark: a crash names no unit, nothing worse
            mark = None
    start = time.perf_counter()
    try:
        if beat is None:
            result = fn(*args)
        else:
            from gatbio import results  # (looked up now: a test may replace results.heartbeat)

            with results.heartbeat(beat, on=on) as stage:
                result = fn(*args, stage=stage)
    except Exception as err:
        if hasattr(err, "add_note"):  # Python 3.11+ (the project supports 3.10: the error as it is there)
            err.add_note(f"raised in {_unit_name(desc, i, total or i + 1, args)}")
        raise
    finally:
        if mark is not None:
            with contextlib.suppress(OSError):
                os.unlink(mark)
    return i, result, time.perf_counter() - start


def _collect(pairs: Iterator, total: int, desc: str | None, progress: bool,
             costs: Sequence[float] | None = None, workers: int = 1) -> list[Any]:
    """The results of ``pairs`` (``(input index, result, seconds)`` in the order units end) as a list in input order, the
    generator closed however that ends: an error or Ctrl-C between two results stops a pool's workers here (joblib
    aborts on ``GeneratorExit``), not whenever the generator is collected, so that none still writes while the
    caller handles it (:func:`gatbio.results.writing_runs` releases the folder)."""
    out: list[Any] = [None] * total
    try:
        for i, result in _track(pairs, total, desc, progress, costs, workers):
            out[i] = result
        return out
    finally:
        with warnings.catch_warnings():  # "N tasks ... have been cancelled. You could benefit from adjusting the
            # input task iterator": joblib's advice to a caller that stops reading early, not to a user who stopped
            warnings.filterwarnings("ignore", message=".*You could benefit from adjusting the input task iterator",
                                    category=UserWarning)
            if hasattr(pairs, "close"):
                pairs.close()


def _track(pairs: Iterable, total: int, desc: str | None, progress: bool,
           costs: Sequence[float] | None = None, workers: int = 1) -> Iterable:
    """``(input index, result)`` from ``pairs`` (``(input index, result[, seconds])``) as units end, with progress
    on stderr: a bar on a terminal, lines elsewhere, none if not ``progress``."""
    if not progress:
        return ((i, result) for i, result, *_ in pairs)
    if sys.stderr.isatty() or _in_notebook():  # a terminal, or a notebook (tqdm.auto's widget there)
        if costs is None and workers == 1:  # tqdm's own estimate (equal units, one at a time) is ours then
            return tqdm(((i, result) for i, result, *_ in pairs), total=total, desc=desc)
        return _cost_bar(pairs, total, desc, costs, workers=workers)
    return progress_lines(pairs, total, desc, costs=costs, workers=workers)


class _TimeLeft:
    """The time left of ``total`` units run on ``workers`` processes, from the units that ended so far.

    Each ended unit adds its cost (``costs[i]``, or 1) and the seconds it took in its worker. The busy seconds per
    unit of cost applied to the cost left give the work left; the work the workers have already done on the units
    still running (their time since the start, less the seconds of the units that ended) is taken off; what
    remains is shared among the workers that still have a unit. With one worker this is the elapsed time per
    cost done applied to the cost left. Counting units ended against the elapsed time instead, two workers read
    the first unit's end as half the rate it was, and units of different sizes as the size of the first ones:
    the SHS27k benchmark's resumed ``seq_cnn`` run said "about 3:56:37 left" after its first unit, when 1:06 was.

    A unit's seconds, where ``pairs`` do not carry them (``progress_lines`` on plain ``(index, result)`` pairs),
    are the time since the previous unit ended: units run one after another.
    """

    def __init__(self, total: int, costs: Sequence[float] | None, workers: int):
        self.total, self.costs, self.workers = total, costs, max(1, min(int(workers), total or 1))
        self.cost = float(total) if costs is None else float(sum(costs))
        self.done, self.spent, self.busy, self.last = 0, 0.0, 0.0, 0.0
        self.stopped: list[float] = []  # when each worker ran out of units (the queue was empty)

    def add(self, i: int, elapsed: float, seconds: float | None = None) -> None:
        """Unit ``i`` ended ``elapsed`` seconds after the start, having taken ``seconds`` in its worker."""
        self.done += 1
        self.spent += 1.0 if self.costs is None else self.costs[i]
        self.busy += (elapsed - self.last) if seconds is None else seconds
        self.last = elapsed
        if self.total - self.done < self.workers - len(self.stopped):  # no unit left for the worker that ended it
            self.stopped.append(elapsed)

    def left(self, elapsed: float) -> float:
        if self.spent <= 0:  # only units of cost 0 have ended: count them
            return elapsed / self.done * (self.total - self.done)
        running = self.workers - len(self.stopped)
        capacity = self.workers * elapsed - sum(elapsed - t for t in self.stopped)  # worker seconds so far
        in_flight = max(capacity - self.busy, 0.0)
        work = self.busy / self.spent * (self.cost - self.spent)
        return max(work - in_flight, 0.0) / max(running, 1)


def _cost_bar(pairs: Iterable, total: int, desc: str | None, costs: Sequence[float] | None, file=None,
              workers: int = 1) -> Iterator:
    """A tqdm bar counting units whose time left is :class:`_TimeLeft`'s (tqdm's own assumes equal units run one
    after another)."""
    bar = tqdm(total=total, desc=desc, file=file, bar_format="{l_bar}{bar}| {n_fmt}/{total_fmt} [{elapsed}{postfix}]")
    start, eta = time.monotonic(), _TimeLeft(total, costs, workers)
    try:
        for i, result, *seconds in pairs:
            elapsed = time.monotonic() - start
            eta.add(i, elapsed, *seconds)
            if eta.done < total:
                bar.set_postfix_str(f"about {_clock(eta.left(elapsed))} left", refresh=False)
            bar.update(1)
            yield i, result
    finally:
        bar.close()


def _in_notebook() -> bool:
    """Whether this process is a Jupyter kernel (tqdm.autonotebook's test; ipykernel merely imported, as by a
    notebook runner, is not one)."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None and hasattr(ipython, "get_ipython") else None
    return shell is not None and "IPKernelApp" in getattr(shell, "config", {})


def progress_lines(pairs: Iterable, total: int, desc: str | None = None, every: float = 30.0,
                   stream=None, costs: Sequence[float] | None = None, workers: int = 1) -> Iterator:
    """Yield ``(input index, result)`` from ``pairs`` (``(input index, result)`` or ``(input index, result,
    seconds the unit took)``, in the order units end), writing a progress line to ``stream`` (stderr) at most
    every ``every`` seconds and when the last one is done:
    ``food webs: 40/114 done, 2:31 elapsed, about 4:40 left``.

    For logs, where a progress bar's carriage returns pile up on one line. The time left
    (:class:`_TimeLeft`) assumes the remaining units take as long as the finished ones on average, or with
    ``costs`` (one per unit, in input order) that they cost what the finished ones cost per unit of cost (a run
    of the largest units first then reads the rest as the small units they are), shared among ``workers``
    processes.
    """
    stream = sys.stderr if stream is None else stream
    label = f"{desc}: " if desc else ""
    start = last = time.monotonic()
    eta = _TimeLeft(total, costs, workers)
    for i, result, *seconds in pairs:
        now = time.monotonic()
        elapsed = now - start
        eta.add(i, elapsed, *seconds)
        if now - last >= every or eta.done == total:
            line = f"{label}{eta.done}/{total} done, {_clock(elapsed)} elapsed"
            if eta.done < total:
                line += f", about {_clock(eta.left(elapsed))} left"
            print(line, file=stream, flush=True)
            last = now
        yield i, result


def _clock(seconds: float) -> str:
    """``h:mm:ss`` or ``m:ss``."""
    m, s = divmod(int(round(seconds)), 60)
    h, m = divmod(m, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


@contextmanager
def unit_threads(n: int) -> Iterator[None]:
    """Run one unit of work (a task's fold, seed or web) on ``n`` threads: torch's and the BLAS / OpenMP libraries'
    (NumPy, SciPy, scikit-learn, through threadpoolctl); both are restored on exit.

    Results depend on the thread count: a BLAS product or an SVD sums in another order on two threads than on one,
    and a fit amplifies that (on yeast, 10 repetitions of the protein benchmark, LR on ProNE moved by 0.002
    accuracy and the label-input GAT by 0.009). Without this, a unit's BLAS threads were whatever the process had:
    every core with ``jobs=1`` (the main process), ``cores / jobs`` in joblib's workers, so ``jobs`` (a setting that
    must not change results) and the machine's core count changed the figures. A task's ``threads`` setting fixes
    them.

    threadpoolctl limits only the libraries already loaded when the limit starts: SciPy's own OpenBLAS and
    scikit-learn's OpenMP runtime load with their first import, which may come inside the unit (the main process's
    first unit with ``jobs=1``), so both are imported first; otherwise that unit ran them on every core.
    """
    from gatbio._options import check_integer

    # torch said "set_num_threads expects a positive integer", naming no setting
    n = check_integer(n, "threads", "give a positive number of threads for each unit of work (1 keeps results "
                                    "independent of the machine's core count)", least=1)
    import scipy.linalg  # noqa: F401  (loads SciPy's BLAS, see above)
    import sklearn.utils._openmp_helpers  # noqa: F401  (loads scikit-learn's OpenMP runtime)
    import torch
    from threadpoolctl import threadpool_limits

    before = torch.get_num_threads()
    torch.set_num_threads(n)
    try:
        with threadpool_limits(limits=n):
            yield
    finally:
        torch.set_num_threads(before)

