"""Run independent jobs (webs, seeds, folds) in parallel: joblib on one machine, Dask on a cluster.

One code path: :func:`parallel_map` takes a function and a list of argument tuples. With ``jobs=1`` it runs
in this process (with a progress bar); with ``jobs>1`` it uses joblib's process pool; with a Dask
``scheduler`` address it sends the same calls to that cluster through joblib's Dask backend.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from tqdm.auto import tqdm


def parallel_map(
    fn: Callable[..., Any],
    items: Sequence[tuple],
    jobs: int = 1,
    scheduler: str | None = None,
    desc: str | None = None,
    progress: bool = True,
) -> list[Any]:
    """``[fn(*args) for args in items]``, in parallel, results in input order.

    Args:
        fn: a picklable (module-level) function.
        items: argument tuples, one per call.
        jobs: worker processes on this machine (``-1``: all cores). Ignored with ``scheduler``.
        scheduler: a Dask distributed scheduler address (``tcp://host:8786``); needs ``dask[distributed]``.
        desc: progress-bar label.
        progress: show a progress bar.
    """
    items = list(items)
    if jobs == 0 or jobs < -1:
        raise ValueError(f"jobs={jobs} is not allowed: use a positive number of processes or -1 for all cores")
    for i, args in enumerate(items):
        if not isinstance(args, (tuple, list)):
            raise ValueError(f"items[{i}] is {args!r} ({type(args).__name__}): each item must be a tuple of "
                             f"arguments for fn, e.g. ({args!r},)")
    if scheduler is None and jobs == 1:
        return [fn(*args) for args in tqdm(items, desc=desc, disable=not progress)]

    from joblib import Parallel, delayed, parallel_backend

    calls = (delayed(fn)(*args) for args in items)
    if scheduler is not None:
        try:
            from dask.distributed import Client
        except ImportError as err:  # pragma: no cover - depends on the install
            raise ImportError("a Dask scheduler was given but dask.distributed is not installed: "
                              "pip install 'gatbio[distributed]'") from err
        with Client(scheduler) as client, parallel_backend("dask", client=client):
            gen = Parallel(return_as="generator")(calls)
            return list(tqdm(gen, total=len(items), desc=desc, disable=not progress))
    with warnings.catch_warnings():
        # loky replaces a worker whose memory grew by 300 MB since its first job (per-process caches such as the
        # sequence similarities do) and warns "A worker stopped while some jobs were given to the executor": the
        # pending jobs go to the new worker and none is lost, so a user would read it as trouble where there is
        # none. A worker that dies still raises (TerminatedWorkerError).
        warnings.filterwarnings("ignore", message="A worker stopped while some jobs were given to the executor",
                                category=UserWarning)
        gen = Parallel(n_jobs=jobs, return_as="generator")(calls)
        return list(tqdm(gen, total=len(items), desc=desc, disable=not progress))


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
