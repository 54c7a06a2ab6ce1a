"""Machine-readable results: atomic writes, one JSON per run, safe resumption, and mean ± std summaries.

Every experiment writes one JSON file per (setting, seed) run with :func:`write_json` (e.g.
``runs/<split>/s<seed>/<graph>/<model>.json``). Writes go to a
temporary file in the same folder and are renamed into place, so an interrupted run never leaves a half
written result, and a sweep can resume by skipping runs whose result file already exists (:func:`is_done`).
Files get the permissions the user's umask gives (as ``open`` would), or keep those of the file they replace;
:func:`atomic_write_many` writes several outputs so that either all of them appear or none does.

Resuming safely
---------------
A resumed sweep reuses every finished run, so it must be the same experiment. :func:`prepare_out_dir` runs
before any work: it stores ``config.yaml`` and ``fingerprint.json`` (the sha256 of the *result settings*: the
config without the keys the task lists as free, those that only say where, how fast or which runs to do), and
on a later run compares them. A difference is refused with the differing keys named, unless the user asks to
start over (``resume="restart"``, ``--restart``: the task's own outputs, and only those, are deleted first) or to
reuse the old runs anyway (``resume="anyway"``, ``--resume-anyway``: recorded in ``fingerprint.json``).
``summary_only`` writes neither file. The input files a config names can join the settings by their contents'
sha256 (``inputs``); a folder holding a recorded config but none of the task's outputs (a run that stopped before
any result) is not protected.

What the folder tells a reader: ``config.yaml`` is the config of its first runs; ``--resume-anyway`` after the
settings changed keeps it and writes the new config to ``config.resumed-<k>.yaml`` (named in ``fingerprint.json``'s
``resumed_anyway``), and every run file records the fingerprint of the settings it was made with
(``settings_fingerprint``, :func:`settings_fingerprint`), so that a summary can say how many runs each config made
(:func:`mixed_configs_note`). A folder that lost both ``config.yaml`` and ``fingerprint.json`` but holds run files is
refused unless the runs record this config's fingerprint; a resume notes run files made with other software
(versions, CPU kernels) than this process's.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import os
import re
import shutil
import stat
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

__all__ = [
    # writing and reading results
    "write_json", "read_json", "holds_json", "write_csv", "write_npz", "proba_path", "atomic_write_bytes",
    "atomic_write_text", "atomic_write_many", "table_text", "InvalidJSONError", "software", "machine",
    # resuming safely
    "prepare_out_dir", "ResumeConflictError", "FolderBusyError", "RESUME_MODES", "ALWAYS_FREE_KEYS",
    "FINGERPRINT_FILE", "OUT_DIR_KEY", "LOCK_FILE", "lock_out_dir", "refuse_busy", "release_out_dir", "writing_runs",
    "forget_sweep", "resume_hint", "stale_temps", "result_settings", "fingerprint", "stored_task", "is_done", "damage",
    "missing_runs_note", "mixed_configs_note", "restore_splits", "settings_fingerprint", "current_config_file", "recorded_path",
    "heartbeat", "heartbeat_wanted", "UnitStage", "RESUMED_CONFIG", "COMPARED_SOFTWARE",
    # summaries over seeds
    "collect", "summarize", "round_stats", "seed_ranges", "over_seeds", "format_mean_std", "markdown_table",
]

_SOFTWARE = ("torch", "torch_geometric", "numpy", "scipy", "sklearn", "pandas")


def _git_commit(folder: Path) -> str | None:
    """The commit of the git checkout ``folder`` is in, ``+modified`` with uncommitted changes to tracked files;
    ``None`` outside a checkout (an installed package) or without git."""
    import subprocess

    if not (folder / ".git").exists():
        return None
    try:
        def git(*args: str) -> str:
            return subprocess.run(["git", "-C", str(folder), *args], capture_output=True, text=True, timeout=10,
                                  check=True).stdout.strip()

        commit = git("rev-parse", "--short=12", "HEAD")
        return commit + ("+modified" if git("status", "--porcelain", "--untracked-files=no") else "")
    except (OSError, subprocess.SubprocessError):
        return None


def software() -> dict[str, str | None]:
    """The software behind a result, recorded in every run file and in ``fingerprint.json``: gatbio's version,
    its git commit when it runs from a checkout (:func:`_git_commit`), the versions of Python, torch, PyG,
    NumPy, SciPy, scikit-learn and pandas, and the CPU with the kernels its libraries chose on it
    (:func:`_cpu_kernels`: figures can move with them). Computed once per process."""
    return dict(_software())


@functools.cache
def _software() -> tuple[tuple[str, str | None], ...]:
    import importlib.metadata as md
    import platform

    import gatbio

    out: dict[str, str | None] = {"gatbio": gatbio.__version__,
                                  "git_commit": _git_commit(Path(gatbio.__file__).resolve().parent.parent),
                                  "python": platform.python_version()}
    for name in _SOFTWARE:
        try:
            out[name] = md.version("scikit-learn" if name == "sklearn" else name)
        except md.PackageNotFoundError:
            out[name] = None
    out["cpu"] = _cpu_model()
    out["cpu_kernels"] = _cpu_kernels()
    return tuple(out.items())


def _cpu_kernels() -> str | None:
    """The instruction set of the CPU kernels that torch, NumPy and the BLAS libraries chose on this machine, e.g.
    ``"torch AVX512; numpy AVX512_ICL; openblas SkylakeX; mkl Intel(R) Architecture processors"``: they pick them
    at run time (torch's ATen, NumPy's dispatched loops such as ``exp`` and ``log``, OpenBLAS's DYNAMIC_ARCH, and
    MKL, torch's BLAS on x86: :func:`_torch_mkl_processor`), and kernels of another width sum or round in another
    order, so that the same code, versions and seeds can give other figures on another CPU.
    ``ATEN_CPU_CAPABILITY``, ``NPY_DISABLE_CPU_FEATURES``, ``OPENBLAS_CORETYPE``, ``MKL_ENABLE_INSTRUCTIONS`` and
    ``ONEDNN_MAX_CPU_ISA`` choose them by hand (experiments/README.md, "The machine's CPU moves figures too")."""
    try:
        import numpy  # noqa: F401  (loads NumPy's and SciPy's BLAS, so that threadpoolctl sees them)
        import scipy.linalg  # noqa: F401
        import torch
        from threadpoolctl import threadpool_info

        found = [f"torch {torch.backends.cpu.get_cpu_capability()}", f"numpy {_numpy_dispatch()}"]
        found += [f"{lib.get('internal_api')} {lib.get('architecture')}" for lib in threadpool_info()
                  if lib.get("architecture")]
        if (mkl := _torch_mkl_processor()) is not None:
            found.append(f"mkl {mkl}")
        return "; ".join(dict.fromkeys(found))
    except Exception:  # noqa: BLE001 - a record, never a reason for a run to fail
        return None


def _torch_mkl_processor() -> str | None:
    """The processor family whose code MKL, linked into torch's CPU library on x86, runs here, as MKL's version
    record names it (``MKLVersion.Processor``, e.g. ``"Intel(R) Advanced Vector Extensions 2 (Intel(R) AVX2)
    enabled processors"``; on the AMD EPYC development machine ``"Intel(R) Architecture processors"``), or ``None``
    where torch has no MKL. torch exports no call for it: MKL's own ``MKL_Get_Version`` is looked up in the loaded
    library, under the name that a statically linked MKL gives it (``mkl_serv_get_version``) as well."""
    import ctypes
    import os

    import torch

    if not torch.backends.mkl.is_available():
        return None

    class _Version(ctypes.Structure):  # mkl_types.h: MKLVersion (the pointers sit at offset 16 in every version)
        _fields_ = [("major", ctypes.c_int), ("minor", ctypes.c_int), ("update", ctypes.c_int),
                    ("patch", ctypes.c_int), ("product_status", ctypes.c_char_p), ("build", ctypes.c_char_p),
                    ("processor", ctypes.c_char_p), ("platform", ctypes.c_char_p)]

    for lib in ("libtorch_cpu.so", "libtorch_cpu.dylib", "torch_cpu.dll"):
        path = os.path.join(os.path.dirname(torch.__file__), "lib", lib)
        if not os.path.exists(path):
            continue
        handle = ctypes.CDLL(path)
        for name in ("MKL_Get_Version", "mkl_serv_get_version"):
            if hasattr(handle, name):
                version = _Version()
                getattr(handle, name)(ctypes.byref(version))
                return version.processor.decode(errors="replace") if version.processor else None
    return None


def _numpy_dispatch() -> str:
    """The widest of NumPy's dispatch targets that this process runs (``"AVX512_ICL"``, ``"X86_V3"``, ...), or its
    baseline when it runs none: NumPy builds some loops for several instruction sets and picks one at import,
    unless ``NPY_DISABLE_CPU_FEATURES`` turns a target off. NumPy has no public call for it (``numpy.show_runtime``
    prints it), hence the private module, NumPy 2's name first."""
    try:
        from numpy._core import _multiarray_umath as umath
    except ImportError:  # NumPy 1
        from numpy.core import _multiarray_umath as umath
    on = [t for t in umath.__cpu_dispatch__ if umath.__cpu_features__.get(t)]
    return (on or list(umath.__cpu_baseline__) or ["baseline"])[-1]


def _cpu_model() -> str:
    """The CPU's model name (``/proc/cpuinfo`` where Linux has it, else :func:`platform.processor`)."""
    import platform

    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as fh:
            for line in fh:
                if line.lower().startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine(calibrate: bool = True) -> dict[str, Any]:
    """The machine behind a timing, recorded in a sweep's ``timing.json``: CPU model, logical cores, the load
    average when the sweep started (``None`` where the OS has none), and with ``calibrate`` one thread's seconds
    for two fixed workloads (best of 3, under half a second in all): a pure-Python loop (``python_loop_seconds``,
    ``sum(range(2_000_000))``) and float32 matrix products in torch (``torch_matmul_seconds``, 100 products of
    256 x 256). Two timings of the same code that differ by as much as these differ come from the machine, not
    the code: on 2026-11-27 every CPU-bound command here ran 1.5-2.4x as long as the days before, and without
    such a reading the machine could not be told from the library versions."""
    import time

    out: dict[str, Any] = {"cpu": _cpu_model(), "logical_cores": os.cpu_count()}
    try:
        out["load_average"] = [round(x, 2) for x in os.getloadavg()]
    except (OSError, AttributeError):
        out["load_average"] = None
    if calibrate:
        import torch

        def best(fn) -> float:
            times = []
            for _ in range(3):
                t0 = time.perf_counter()
                fn()
                times.append(time.perf_counter() - t0)
            return round(min(times), 4)

        a = torch.randn(256, 256, generator=torch.Generator().manual_seed(0))

        def matmuls() -> None:
            b = a
            for _ in range(100):
                b = a @ b
                b = b / b.norm()

        threads = torch.get_num_threads()
        torch.set_num_threads(1)
        try:
            out["python_loop_seconds"] = best(lambda: sum(range(2_000_000)))
            out["torch_matmul_seconds"] = best(matmuls)
        finally:
            torch.set_num_threads(threads)
    return out


def _umask() -> int:
    """The process umask, read without changing it where Linux allows (``/proc/self/status``)."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)  # elsewhere: set and restore (not thread-safe, hence the /proc path first)
    os.umask(mask)
    return mask


#: A temp file of :func:`_write_temp`: ``.<name>.<host>-<pid>.<random>.tmp``, named by the process writing it.
_TEMP_NAME = re.compile(r"\..+\.(?P<host>[A-Za-z0-9_-]+)-(?P<pid>\d+)\.[^.]+\.tmp")


def _writer() -> str:
    """``<host>-<pid>`` of this process, for the names of its temp files (:func:`stale_temps`)."""
    import socket

    # the whole host name, hashed: cut short, two machines of one pool (...-vmss000000, ...-vmss000001) were one
    return f"{hashlib.sha256(socket.gethostname().encode()).hexdigest()[:12]}-{os.getpid()}"


def _alive(pid: int) -> bool:
    """Whether the process ``pid`` of this machine exists (where that cannot be told, as on Windows, where signal
    0 is a console Ctrl-C: alive, so that nothing of it is removed)."""
    if os.name == "nt":
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError, OverflowError, ValueError):  # another user's, or no way to tell: alive
        return True
    return True


def stale_temps(out: str | Path, outputs: Sequence[str]) -> list[Path]:
    """Remove the temp files that a process killed while it wrote (SIGKILL, the out-of-memory killer, a power cut)
    left in ``out`` and in the task's ``outputs`` there; returns their paths. A write renames its temp file into
    place only when the file is whole, so such a file is never a result, but each one stayed for good (hidden, and
    as large as the file being written: a ``.proba.npz``). Only temp files of this machine's processes that have
    ended are removed: another live process may still be writing its own."""
    out = Path(out)
    host = _writer().rsplit("-", 1)[0]
    found: list[Path] = []
    folders = [out, *(out / name for name in outputs if (out / name).is_dir() and not (out / name).is_symlink())]
    for i, folder in enumerate(folders):
        for path in (folder.glob(".*.tmp") if i == 0 else folder.rglob(".*.tmp")):
            m = _TEMP_NAME.fullmatch(path.name)
            if m and m["host"] == host and not _alive(int(m["pid"])) and path.is_file():
                found.append(path)
    removed = []
    for path in dict.fromkeys(found):
        try:
            path.unlink()
            removed.append(path)
        except FileNotFoundError:
            pass
    return removed


def _write_temp(path: Path, data: bytes) -> str:
    """``data`` in a fsynced temp file next to ``path``, with the mode ``path`` will have; returns its name.

    ``tempfile.mkstemp`` creates files with mode 0600; the temp file gets the mode of the file it replaces, or
    ``0666 & ~umask`` for a new file (what ``open`` gives), so that outputs are as readable as the user expects.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.{_writer()}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        mode = stat.S_IMODE(path.stat().st_mode) if path.is_file() else 0o666 & ~_umask()
        os.chmod(tmp, mode)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return tmp


def atomic_write_bytes(path: str | Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (temp file in the same folder, fsync, rename)."""
    path = Path(path)
    tmp = _write_temp(path, data)
    try:
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def atomic_write_text(path: str | Path, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically (:func:`atomic_write_bytes`)."""
    atomic_write_bytes(path, text.encode("utf-8"))


def write_npz(path: str | Path, compressed: bool = True, **arrays: Any) -> None:
    """NumPy arrays to an ``.npz`` file, written atomically (a run stopped midway leaves no cut-short file)."""
    import io

    buf = io.BytesIO()
    (np.savez_compressed if compressed else np.savez)(buf, **arrays)
    atomic_write_bytes(path, buf.getvalue())


def proba_path(path: str | Path) -> Path:
    """Where the run file ``<model>.json`` keeps its probabilities: ``<model>.proba.npz`` beside it (the protein
    tasks' runs)."""
    path = Path(path)
    return path.with_name(f"{path.stem}.proba.npz")


def table_text(df: pd.DataFrame, path: str | Path) -> str:
    """``df`` as the text of a table file named ``path``: tab-separated for ``.tsv`` / ``.tab``, comma-separated
    otherwise (``.csv`` and any other name)."""
    tabbed = Path(path).suffix.lower() in (".tsv", ".tab")
    return df.to_csv(index=False, sep="\t" if tabbed else ",")


def atomic_write_many(items: Mapping[str | Path, str | bytes]) -> None:
    """Write several files so that either all appear or none does: every temp file is written first, and
    renamed into place only when all of them were written (a command that fails leaves none of its outputs)."""
    temps: list[tuple[str, Path]] = []
    try:
        for path, data in items.items():
            path = Path(path)
            temps.append((_write_temp(path, data.encode("utf-8") if isinstance(data, str) else data), path))
    except BaseException:
        for tmp, _ in temps:
            if os.path.exists(tmp):
                os.unlink(tmp)
        raise
    for tmp, path in temps:
        os.replace(tmp, path)


def _jsonable(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return _jsonable(obj.tolist())
    if isinstance(obj, (np.integer,)):
        return int(obj)
    if isinstance(obj, (np.floating, float)):
        f = float(obj)
        return f if math.isfinite(f) else None  # JSON has no NaN or Infinity: json.dumps wrote them, invalid
    if isinstance(obj, Path):
        return str(obj)
    if hasattr(obj, "tolist"):  # torch tensors
        return _jsonable(obj.tolist())
    return obj


def write_json(path: str | Path, obj: Any) -> None:
    """Write ``obj`` as pretty JSON atomically (numpy / torch values converted, NaN and ±inf → null: JSON has
    neither, and ``Infinity`` stopped other readers: jq, R's jsonlite, JavaScript)."""
    atomic_write_text(path, json.dumps(_jsonable(obj), indent=2, sort_keys=False) + "\n")


class InvalidJSONError(json.JSONDecodeError):
    """A file that is not valid JSON (or not UTF-8 text): the message names ``file:line``, the parser's complaint
    and the column. A :class:`json.JSONDecodeError` (hence a ``ValueError``), so callers that catch those (such as
    :func:`is_done`) keep working."""

    def __init__(self, path: str | Path, msg: str, doc: str, pos: int):
        super().__init__(msg, doc, pos)
        self.path = str(path)
        self.args = (f"{path}:{self.lineno}: not valid JSON: {msg} (column {self.colno}); is the file cut short "
                     "or damaged?",)

    def __str__(self) -> str:
        return self.args[0]

    def __reduce__(self):  # picklable across worker processes
        return self.__class__, (self.path, self.msg, self.doc, self.pos)


_EMPTY = "the file is empty"  # read_json's complaint about a file of no text (damage says "empty")


def read_json(path: str | Path) -> Any:
    """The JSON of ``path``; a file that is not valid JSON raises :class:`InvalidJSONError` naming the file and
    line."""
    data = Path(path).read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        head = data[:err.start].decode("utf-8", "replace")
        raise InvalidJSONError(path, "not UTF-8 text", head, len(head)) from None
    if not text.strip():
        raise InvalidJSONError(path, _EMPTY, text, 0)
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise InvalidJSONError(path, err.msg, err.doc, err.pos) from None


def holds_json(path: str | Path, obj: Any) -> bool:
    """Whether the JSON file ``path`` holds ``obj`` as :func:`write_json` writes it (numpy / torch values
    converted, NaN as null): e.g. a saved split against the one the code makes now."""
    return read_json(path) == json.loads(json.dumps(_jsonable(obj)))


def write_csv(path: str | Path, df: pd.DataFrame) -> None:
    """Write a DataFrame as CSV atomically (tab-separated when ``path`` ends in ``.tsv`` / ``.tab``:
    :func:`table_text`)."""
    atomic_write_text(path, table_text(df, path))


# --------------------------------------------------------------------------------------------------------
# resuming safely
# --------------------------------------------------------------------------------------------------------

FINGERPRINT_FILE = "fingerprint.json"
#: Keys free in every task's config (added to the task's own ``free_keys``): ``device`` says where a run was
#: computed, not what it computed, so a folder started on a GPU can be resumed on a CPU (:mod:`gatbio.device`).
ALWAYS_FREE_KEYS = ("device",)
RESUME_MODES = ("check", "restart", "anyway")


class ResumeConflictError(ValueError):
    """The results folder holds runs of a configuration whose result settings differ from this one."""


class FolderBusyError(ResumeConflictError):
    """Another process is writing its runs into the results folder (:func:`lock_out_dir`)."""


#: How the sweeps' messages name their results folder: the option typed, or the config key that set it.
OUT_DIR_KEY = "--out (config out_dir)"
LOCK_FILE = ".gatbio.lock"
_LOCKS: dict[Path, Any] = {}  # results folder -> the open lock file this process holds
_ACTIVE: list[Path] = []  # the folder of the sweep this process is running (0 or 1), for resume_hint
_TABLES: list[Path] = []  # the folder of a sweep whose runs are all written, making its tables (0 or 1)


def lock_out_dir(out: Path, key: str = "out_dir") -> None:
    """Hold an exclusive lock on the results folder ``out`` (``fcntl.flock`` on ``out/.gatbio.lock``) until
    :func:`release_out_dir` or the end of the process, whichever comes first. A second process given the same
    folder is refused at once: two sweeps of different settings writing into one folder would otherwise mix their
    runs without a word (each overwrote the other's ``fingerprint.json``), and two of the same would do the work
    twice. The operating system drops the lock of a process that dies, however it dies, so no stale lock is left
    behind. A no-op where ``fcntl`` does not exist (Windows)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        return
    import time

    out = Path(out).resolve()
    if out in _LOCKS:
        return
    fh = open(out / LOCK_FILE, "a+", encoding="utf-8")  # noqa: SIM115 (held open: the lock lives with it)
    try:
        fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        fh.seek(0)
        who = fh.read().strip() or "another process"
        fh.close()
        raise FolderBusyError(f"{key} {out}: another gatbio run ({who}) is writing its results there; wait until "
                              "it ends, or choose another folder") from None
    fh.seek(0)
    fh.truncate()
    fh.write(f"pid {os.getpid()}, since {time.strftime('%Y-%m-%d %H:%M:%S')}\n")
    fh.flush()
    _LOCKS[out] = fh


def refuse_busy(out: str | Path, key: str = "out_dir") -> None:
    """Refuse to remake the tables of ``out`` while another process holds its lock (:func:`lock_out_dir`): a sweep
    is writing there, its tables come at its end, and tables written now would say "incomplete" of runs in
    progress, or overwrite its own with fewer runs. A no-op where ``fcntl`` does not exist, for a folder without a
    lock file, and for this process's own lock."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        return
    out = Path(out).resolve()
    if out in _LOCKS or not (out / LOCK_FILE).is_file():
        return
    with open(out / LOCK_FILE, encoding="utf-8") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_SH | fcntl.LOCK_NB)  # only while nobody holds it exclusively
        except OSError:
            who = fh.read().strip() or "another process"
            raise FolderBusyError(f"{key} {out}: another gatbio run ({who}) is writing its results there, and makes "
                                  "its tables when it ends; remake them after it ends") from None
        fcntl.flock(fh, fcntl.LOCK_UN)


def release_out_dir(out: str | Path, finished: bool = True) -> None:
    """Release :func:`lock_out_dir`'s lock on ``out``: the sweep's runs are all written (``finished``), or its
    work stopped (an error, Ctrl-C), when :func:`resume_hint` still names the folder."""
    fh = _LOCKS.pop(Path(out).resolve(), None)
    if fh is not None:
        fh.close()  # closing the file drops its flock
    if finished and _ACTIVE == [Path(out).resolve()]:  # its tables come next: Ctrl-C there names the folder too
        _TABLES[:] = _ACTIVE
        _ACTIVE.clear()


@contextmanager
def writing_runs(out: str | Path) -> Iterator[None]:
    """The block in which a sweep writes its runs into ``out`` (locked by :func:`prepare_out_dir`): the lock is
    released when the block ends, also when it raises. A run that raised kept it until its process ended: a
    notebook kernel, until restarted, refused the folder to every other process. (The pools have stopped their
    workers by then: :func:`gatbio.parallel.parallel_map`.)"""
    try:
        yield
    except BaseException:
        release_out_dir(out, finished=False)
        raise
    release_out_dir(out)


def forget_sweep() -> None:
    """A new command starts (:func:`gatbio.cli.run_guarded`): an earlier command's sweep in this process (a
    notebook, the tests) is not this one's to name in :func:`resume_hint`."""
    _ACTIVE.clear()
    _TABLES.clear()


def resume_hint() -> str:
    """What an interrupted command says after "interrupted": where its finished runs are and that the same
    command resumes from them; empty when this process ran no sweep. Interrupted while it made its tables (every
    run written), it said nothing more than "interrupted": it says that the runs are all saved and that the same
    command makes the tables without redoing one."""
    if _ACTIVE:
        return f": the runs finished so far are saved in {_ACTIVE[-1]}; the same command resumes from them"
    if _TABLES:
        return (f": every run is saved in {_TABLES[-1]} (its tables were being made); the same command makes them "
                "without redoing a run")
    return ""


def heartbeat_wanted(progress: bool) -> bool:
    """Whether a sweep's units say they are still running (:func:`heartbeat`): with progress on, where stderr is a
    log file or a pipe (on a terminal or in a notebook the progress bar shows the elapsed time)."""
    if not progress:
        return False
    from gatbio.parallel import _in_notebook

    try:
        return not (sys.stderr.isatty() or _in_notebook())
    except (AttributeError, ValueError):  # a closed or replaced stream
        return False


class UnitStage:
    """What a unit under :func:`heartbeat` does now, for its line: ``stage("gat")`` (or ``stage.stage("gat")``)
    names the step, ``stage.epoch(3, 10)`` adds the epoch of the model it trains (``gat, epoch 3/10``; a new step
    drops it). :attr:`on_epoch` is the callback for the training loops (``on_epoch=`` of :func:`gatbio.train.fit`
    and :func:`gatbio.train.fit_pairs`): :meth:`epoch` with the heartbeat on, ``None`` with it off, so that a unit
    without a heartbeat passes no callback."""

    def __init__(self, on: bool = True) -> None:
        self.on = on
        self._now: tuple[str, tuple[int, int] | None] = ("", None)  # (step, (epoch, max epochs)), replaced whole

    def __call__(self, text: str) -> None:
        self.stage(text)

    def stage(self, text: str) -> None:
        """Name what the unit does now (and forget the epoch of the step before)."""
        self._now = (str(text), None)

    def epoch(self, epoch: int, max_epochs: int) -> None:
        """The epoch the step's model has finished, of at most ``max_epochs``."""
        self._now = (self._now[0], (int(epoch), int(max_epochs)))

    @property
    def on_epoch(self) -> Callable[[int, int], None] | None:
        """:meth:`epoch` when the heartbeat is on, else ``None``."""
        return self.epoch if self.on else None

    def text(self) -> str:
        """The line's part of what the unit does: ``gat, epoch 3/10``, ``gat``, ``epoch 3/10`` or ``""``."""
        what, ep = self._now
        return ", ".join(([what] if what else []) + ([f"epoch {ep[0]}/{ep[1]}"] if ep else []))


@contextmanager
def heartbeat(label: str, on: bool = True, every: float = 60.0, stream: Any = None) -> Iterator[UnitStage]:
    """Say on stderr, every ``every`` seconds while the block runs, that the unit ``label`` still runs:
    ``protein: still running (fraction 0.5, seed 0): gat, epoch 40/200, 2:00 in this unit``. Yields a
    :class:`UnitStage`: called, it names what the unit does now (``stage("gat")``); ``stage.epoch(e, E)`` (or
    ``stage.on_epoch``, the training loops' callback) adds the epoch of the model being trained. A sweep's
    progress line comes only when a unit ends, at most every 30 s, so a log of a unit of an hour said nothing
    for an hour. A thread of this process (each worker its own units'); nothing with ``on`` false."""
    import threading
    import time

    stage = UnitStage(on)
    if not on:
        yield stage
        return
    from gatbio.parallel import _clock

    stop = threading.Event()
    start = time.monotonic()

    def beat() -> None:
        while not stop.wait(every):
            now = stage.text()
            what = f": {now}" if now else ""
            try:
                print(f"{label}{what}, {_clock(time.monotonic() - start)} in this unit",
                      file=sys.stderr if stream is None else stream, flush=True)
            except (OSError, ValueError):  # the stream went away: the run goes on without it
                return

    thread = threading.Thread(target=beat, name="gatbio-heartbeat", daemon=True)
    thread.start()
    try:
        yield stage
    finally:
        stop.set()
        thread.join(timeout=5)


def _flatten(d: Mapping, prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in d.items():
        key = f"{prefix}{k}"
        if isinstance(v, Mapping):
            out.update(_flatten(v, key + "."))
        else:
            out[key] = _jsonable(v)
    return out


def result_settings(cfg: Any, free_keys: Iterable[str]) -> dict[str, Any]:
    """The config as flat ``{"dotted.key": value}``, without ``free_keys`` (a key frees its sub-keys too)."""
    from gatbio.config import config_to_dict

    free = tuple(free_keys) + ALWAYS_FREE_KEYS
    flat = _flatten(cfg if isinstance(cfg, Mapping) else config_to_dict(cfg))
    return {k: v for k, v in sorted(flat.items()) if not any(k == f or k.startswith(f + ".") for f in free)}


def fingerprint(settings: Mapping[str, Any]) -> str:
    """sha256 of the result settings (canonical JSON)."""
    return hashlib.sha256(json.dumps(dict(settings), sort_keys=True).encode("utf-8")).hexdigest()


def _stored_settings(out: Path, schema: type, free_keys: Sequence[str]) -> dict[str, Any] | None:
    """The result settings of the runs already in ``out``: from ``fingerprint.json``, else from ``config.yaml``
    (folders written before fingerprints existed); ``None`` for a folder without earlier runs."""
    fp = out / FINGERPRINT_FILE
    if fp.is_file():
        try:
            return dict(read_json(fp)["settings"])
        except (OSError, ValueError, KeyError, TypeError):
            pass
    cfg_path = current_config_file(out)  # config.yaml, or the latest config.resumed-<k>.yaml
    if not cfg_path.is_file():
        return None
    from gatbio.config import load_config

    try:
        return result_settings(load_config(schema, cfg_path), free_keys)
    except (ValueError, OSError):
        from omegaconf import OmegaConf

        try:
            return result_settings(OmegaConf.to_container(OmegaConf.load(cfg_path)), free_keys)
        except Exception:  # an unreadable old config: treated as differing in everything
            return {"config.yaml": "unreadable"}


def stored_task(out: Path) -> str | None:
    """The config schema's name recorded in ``out``'s ``fingerprint.json`` (``None``: none recorded)."""
    try:
        task = read_json(out / FINGERPRINT_FILE).get("task")
    except (OSError, ValueError, AttributeError):
        return None
    return task if isinstance(task, str) else None


def _differences(stored: Mapping[str, Any], now: Mapping[str, Any], defaults: Mapping[str, Any]) -> list[str]:
    """``key: old -> new`` for each differing result setting; a key the stored config predates counts as its
    default value."""
    out = []
    for k in now:
        old = stored.get(k, defaults.get(k))
        if old != now[k] and not (k not in stored and k not in defaults):
            if k.endswith(".sha256") and old is not None:  # an input file (prepare_out_dir's inputs)
                out.append(f"{k[:-len('.sha256')]}: the file's contents changed (sha256 {old[:12]}... -> "
                           f"{now[k][:12]}...)")
            else:
                out.append(f"{k}: {old!r} -> {now[k]!r}")
    out += [f"{k}: {stored[k]!r} -> (no such setting)" for k in stored if k not in now and k != "config.yaml"]
    if "config.yaml" in stored:
        out.append("config.yaml: unreadable")
    return out


def _holds_results(out: Path, outputs: Sequence[str]) -> bool:
    """True when any of the task's outputs in ``out`` is a file or a folder holding a file."""
    for name in outputs:
        target = out / name
        if target.is_file() or (target.is_dir() and any(p.is_file() for p in target.rglob("*"))):
            return True
    return False


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif path.exists() or path.is_symlink():
        path.unlink()


#: Where ``--resume-anyway`` records the config of the runs it makes after the settings changed (``<k>`` from 1):
#: ``config.yaml`` keeps the config of the folder's first runs.
RESUMED_CONFIG = "config.resumed-{}.yaml"
#: The software a resume compares with each run file's ``software`` block (:func:`software`): the code's and the
#: libraries' versions and the CPU kernels (the git commit and the CPU's name are not compared).
COMPARED_SOFTWARE = ("gatbio", "python", "torch", "torch_geometric", "numpy", "scipy", "sklearn", "pandas",
                     "cpu_kernels")


def _history(out: Path) -> list:
    """``fingerprint.json``'s ``resumed_anyway`` list (empty when there is none or the file is damaged)."""
    try:
        history = read_json(out / FINGERPRINT_FILE).get("resumed_anyway", []) \
            if (out / FINGERPRINT_FILE).is_file() else []
    except (OSError, ValueError, AttributeError):
        return []
    return list(history) if isinstance(history, list) else []


def _resumed_configs(out: Path) -> list[Path]:
    """The ``config.resumed-<k>.yaml`` files of ``out``, by ``k``."""
    import re

    found = [(int(m.group(1)), p) for p in out.glob(RESUMED_CONFIG.format("*"))
             if (m := re.fullmatch(RESUMED_CONFIG.format(r"(\d+)").replace(".", r"\."), p.name))]
    return [p for _, p in sorted(found)]


def current_config_file(out: str | Path) -> Path:
    """The config file of the settings the runs of ``out`` are made with now: ``config.yaml``, or, after a
    ``--resume-anyway`` that changed them, the latest ``config.resumed-<k>.yaml`` (``config.yaml`` keeps the
    config of the first runs). What to pass as ``--config`` to finish the folder's runs."""
    out = Path(out)
    for h in reversed(_history(out)):
        if isinstance(h, dict) and isinstance(h.get("config"), str) and (out / h["config"]).is_file():
            return out / h["config"]
    if not (out / FINGERPRINT_FILE).is_file() and (resumed := _resumed_configs(out)):
        return resumed[-1]
    return out / "config.yaml"


def settings_fingerprint(out: str | Path) -> str | None:
    """The fingerprint of the result settings ``out``'s runs are made with now (``fingerprint.json``, written by
    :func:`prepare_out_dir`); ``None`` without one. Each task records it in every run file
    (``settings_fingerprint``), so that a run's settings can be told after a ``--resume-anyway`` and a folder that
    lost its config can be recognised by its runs."""
    try:
        fp = read_json(Path(out) / FINGERPRINT_FILE).get("fingerprint")
    except (OSError, ValueError, AttributeError):
        return None
    return fp if isinstance(fp, str) else None


def recorded_path(out: str | Path, value: str | Path) -> Path:
    """The file a run file's recorded path (``split``, ``split_file``) names, in the results folder ``out``.

    Run files record paths relative to their results folder (``splits/x.json``); older ones hold the path as the
    sweep was given it (absolute, or relative to the folder it ran in): those are read from their last ``splits``
    part on, in ``out``, so that a moved or copied folder still finds its own files."""
    out, p = Path(out), Path(value)
    if "splits" in p.parts:
        i = len(p.parts) - 1 - p.parts[::-1].index("splits")
        return out.joinpath(*p.parts[i:])
    return p if p.is_absolute() else out / p


def _run_records(out: Path, outputs: Sequence[str]) -> list[tuple[Path, dict]]:
    """The gatbio run files among the task's outputs in ``out`` (JSON objects with a ``software`` block; split
    files are not read) as ``(path, contents)``."""
    found = []
    for name in outputs:
        target = out / name
        files = [target] if target.is_file() else sorted(target.rglob("*.json")) if target.is_dir() else []
        for path in files:
            if path.suffix != ".json" or "splits" in path.relative_to(out).parts[:-1]:
                continue
            try:
                data = read_json(path)
            except (OSError, ValueError):
                continue
            if isinstance(data, dict) and isinstance(data.get("software"), dict):
                found.append((path, data))
    return found


def _software_note(out: Path, records: Sequence[tuple[Path, dict]]) -> str | None:
    """A note when run files of ``out`` were made with other software (:data:`COMPARED_SOFTWARE`) than this
    process runs: results made now would sit beside them in the tables."""
    now = software()
    changed: dict[str, list] = {}
    n_other = 0
    for _, rec in records:
        sw = rec["software"]
        differs = [k for k in COMPARED_SOFTWARE if k in sw and sw[k] != now.get(k)]
        n_other += bool(differs)
        for k in differs:
            changed.setdefault(k, [])
            if sw[k] not in changed[k]:
                changed[k].append(sw[k])
    if not changed:
        return None
    from gatbio.data.tables import first_few, note

    what = first_few([f"{k} {', '.join(map(str, olds))} -> {now.get(k)}" for k, olds in changed.items()], 4,
                     sep="; ")
    line = (f"{out}: {n_other} of its {len(records)} run file(s) were made with other software than this run "
            f"({what}); runs made now may differ from them by that alone (--restart redoes them all with this "
            "software)")
    note(line)
    return line


def _ignored_by_summary(out: Path, cfg: Any, keys: Sequence[str]) -> list[str]:
    """``key: old -> new`` for each of ``keys`` (settings a summary ignores: how the runs are made) whose value in
    ``cfg`` differs from the folder's config; ``device: auto`` differs from nothing (it is stored resolved)."""
    from gatbio.config import config_to_dict, load_config

    path = current_config_file(out)
    try:
        stored = _flatten(config_to_dict(load_config(type(cfg), path))) if path.is_file() else None
    except Exception:  # noqa: BLE001 - an unreadable config: nothing to compare, and a summary goes on
        stored = None
    if stored is None:
        return []
    now = _flatten(config_to_dict(cfg))
    out_ = []
    for k in dict.fromkeys([*keys, *ALWAYS_FREE_KEYS]):
        if k in now and k in stored and now[k] != stored[k] and not (k == "device" and now[k] == "auto"):
            out_.append(f"{k}: {stored[k]!r} -> {now[k]!r}")
    return out_


def prepare_out_dir(out_dir: str | Path, cfg: Any, *, free_keys: Sequence[str], outputs: Sequence[str],
                    resume: str = "check", summary_only: bool = False, key: str = "out_dir",
                    inputs: Mapping[str, str | Path | None] | None = None,
                    summary_ignores: Sequence[str] = ("jobs", "threads")) -> Path:
    """Check a results folder before a run and record this run's config (see the module docstring).

    Args:
        out_dir: the results folder (checked writable; created).
        cfg: the config dataclass (its type is the schema used to read an older ``config.yaml``).
        free_keys: config keys that never change a finished run's result (listed by each task).
        outputs: the names (files or folders, relative to ``out_dir``) the task writes; ``"restart"`` deletes
            exactly these, and only in a folder that holds an earlier gatbio run.
        resume: ``"check"`` (refuse a differing config), ``"restart"`` or ``"anyway"``.
        summary_only: only tables are remade: nothing is written, a differing config is only reported, as are
            settings of ``summary_ignores`` that differ from the folder's config (a summary ignores them).
        key: how messages name the folder (the config key, or the option that set it: ``"--out"``).
        inputs: the input files the config names (``{config key: path}``, ``None`` for unset): their contents'
            sha256 join the result settings as ``<key>.sha256``, so that a file changed in place (same path) is
            a difference too. Folders recorded before this existed lack those keys and are not refused for it.
        summary_ignores: free keys that only say how runs are made (``jobs``, ``threads``; ``device`` always), which
            a summary ignores.

    Raises:
        ResumeConflictError: with ``resume="check"``, when the result settings differ (the keys are named), or the
            folder holds run files but no record of their settings (``config.yaml``, ``fingerprint.json``) and
            they do not record this config's fingerprint themselves.
    """
    from gatbio._paths import check_output_dir
    from gatbio.config import save_config
    from gatbio.data.tables import first_few, note

    if resume not in RESUME_MODES:
        raise ValueError(f"resume={resume!r}: expected one of {', '.join(RESUME_MODES)}")
    out = check_output_dir(out_dir, key)
    if not summary_only:  # before the stored settings are read: another run may be rewriting them
        out.mkdir(parents=True, exist_ok=True)
        lock_out_dir(out, key)
        _ACTIVE[:] = [out.resolve()]
        _TABLES.clear()
    else:
        refuse_busy(out, key)
    now = result_settings(cfg, free_keys)
    if inputs:
        from gatbio.data.sources import sha256_file

        for name, path in sorted(inputs.items()):
            if path:
                now[f"{name}.sha256"] = sha256_file(path)
    stored = _stored_settings(out, type(cfg), free_keys)
    holds = _holds_results(out, outputs)
    if stored is not None and not holds:
        stored = None  # a config recorded by a run that failed before any result: nothing to protect
    task = type(cfg).__name__
    records: list[tuple[Path, dict]] | None = None  # the run files, read when needed
    unrecorded = None  # run files in a folder without config.yaml and fingerprint.json: whose, and how made?
    if stored is None and holds:
        records = _run_records(out, outputs)
        fps = {rec.get("settings_fingerprint") for _, rec in records}
        if records and fps != {fingerprint(now)}:
            unrecorded = records
        elif records and not summary_only:
            note(f"{out}: no config.yaml or fingerprint.json, but its {len(records)} run file(s) record this "
                 "config's settings: recorded again")
    if stored is not None:
        other = stored_task(out)
        shared = len(set(stored) & set(now))
        unreadable = "config.yaml" in stored  # no settings to tell a task by: a difference, named as such below
        if (other is not None and other != task) or (other is None and stored and not unreadable
                                                     and shared < len(stored) / 2):
            what = f"results of another task ({other})" if other else \
                f"results of another task, it seems ({shared} of its {len(stored)} settings are settings of {task})"
            raise ResumeConflictError(
                f"{out} holds {what}; this command neither reuses nor deletes them (--restart deletes only its own "
                "task's results): choose another output folder")
    if unrecorded is not None:
        example = unrecorded[0][0].relative_to(out)
        diff = [f"no config.yaml or fingerprint.json records the settings of its {len(unrecorded)} run file(s), "
                f"e.g. {example}"]
    elif stored is not None and "config.yaml" in stored:  # the settings of the runs there cannot be known
        diff = ["its config.yaml cannot be read and fingerprint.json is missing or damaged"]
    else:
        diff = _differences(stored, now, result_settings(type(cfg)(), free_keys)) if stored is not None else []
    shown = first_few(diff, 6, sep="; ")
    if summary_only:
        if unrecorded is not None:
            print(f"note: {out} holds {len(unrecorded)} run file(s) (e.g. {example}) but no config.yaml or "
                  "fingerprint.json: the settings they were made with cannot be checked; summarising them as they "
                  "are", file=sys.stderr)
        elif diff:
            print(f"note: {out} holds runs of another configuration ({shown}); summarising them as they are: a "
                  "summary ignores those settings (run without --summary-only to make runs with them)",
                  file=sys.stderr)
        ignored = _ignored_by_summary(out, cfg, summary_ignores) if stored is not None else []
        if ignored:
            print(f"note: --summary-only remakes the tables of the runs in {out} as they were made; it ignores "
                  f"{first_few(ignored, 4, sep='; ')} (settings of how runs are made)", file=sys.stderr)
        return out
    history = _history(out) if stored is not None else []
    if unrecorded is not None and resume == "check":
        raise ResumeConflictError(
            f"{out} holds {len(unrecorded)} run file(s) (e.g. {example}) but no config.yaml or fingerprint.json, "
            "so the task and settings they were made with cannot be checked; reusing them could mix two "
            "experiments. Pass --restart (resume='restart') to delete this task's outputs there and start over, "
            "or choose another output folder")
    if diff and resume == "check":
        raise ResumeConflictError(
            f"{out} holds results of a different configuration ({shown}); reusing them would mix two experiments. "
            "Pass --restart (resume='restart') to delete them and start over, --resume-anyway (resume='anyway') "
            "to reuse them, or choose another output folder")
    config_file = current_config_file(out) if history else out / "config.yaml"
    if resume == "restart" and (stored is not None or unrecorded is not None):
        root = out.resolve()
        removed = []
        for name in outputs:
            target = (out / name)
            if target.resolve().is_relative_to(root) and target.resolve() != root and target.exists():
                folder = target.is_dir()
                n_files = sum(1 for p in target.rglob("*") if p.is_file()) if folder else 1
                _remove(target)
                removed.append(f"{name}/ ({n_files} file(s))" if folder else name)
        for path in _resumed_configs(out):  # the record of runs that are gone
            path.unlink()
            removed.append(path.name)
        if removed:
            note(f"--restart: deleted this task's earlier outputs in {out}: {', '.join(removed)}")
        history, config_file = [], out / "config.yaml"
    elif diff and resume == "anyway":
        taken = [int(p.name.split("-")[-1].split(".")[0]) for p in _resumed_configs(out)]
        config_file = out / RESUMED_CONFIG.format(max([len(history), *taken]) + 1)
        history.append({"previous_fingerprint": None if unrecorded is not None else fingerprint(stored),
                        "differences": diff, "fingerprint": fingerprint(now), "config": config_file.name})
    if resume != "restart" and holds and (stored is not None or records):  # a resume: the run files' software
        _software_note(out, _run_records(out, outputs) if records is None else records)
    out.mkdir(parents=True, exist_ok=True)
    if left := stale_temps(out, outputs):  # the folder is locked: no other gatbio run of this folder writes now
        note(f"{out}: removed {len(left)} temporary file(s) left by a run killed while it wrote (e.g. "
             f"{left[0].relative_to(out)}); none was a result: their runs are redone if unfinished")
    save_config(cfg, config_file)
    record = {"task": task, "fingerprint": fingerprint(now), "settings": now,
              "free_keys": list(dict.fromkeys([*free_keys, *ALWAYS_FREE_KEYS])), "software": software(),
              "config": config_file.name}
    if history:
        record["resumed_anyway"] = history
    write_json(out / FINGERPRINT_FILE, record)
    return out


def damage(path: str | Path, keys: Sequence[str] = (), filled: Sequence[str] = ()) -> str | None:
    """Why the file ``path`` holds no result (:func:`is_done`), for a message: ``"empty"``, ``"not valid JSON
    (Expecting value, line 2)"``, ``"not a JSON object"``, ``"missing the keys seed"``, ``"the key curve is
    empty"`` (a key of ``filled``, whose value must be a non-empty list or object); ``None`` when it holds one,
    or when there is no file (a run not made yet is not damaged). A resumed sweep redoes such a file's run, which
    it did silently: :func:`gatbio.parallel.left_to_run` says which files and why."""
    path = Path(path)
    if not path.is_file():
        return None
    try:
        data = read_json(path)
    except InvalidJSONError as err:
        return "empty" if err.msg == _EMPTY else f"not valid JSON ({err.msg}, line {err.lineno})"
    except OSError as err:
        return f"unreadable ({err.strerror or err})"
    if not keys and not filled:
        return f"no result ({json.dumps(data)})" if data in ({}, [], None) else None
    if not isinstance(data, dict):
        return "not a JSON object"
    missing = [k for k in (*keys, *filled) if k not in data]
    if missing:
        return f"missing the keys {', '.join(dict.fromkeys(missing))}"
    # the keys alone name the run: a file holding them and an empty result (hand-made, another program's) was
    # read as finished and its run left out of the tables for good
    empty = [k for k in filled if not (isinstance(data[k], (list, dict)) and data[k])]
    return f"the key{'s' * (len(empty) > 1)} {', '.join(empty)} {'are' if len(empty) > 1 else 'is'} empty" if empty \
        else None


def is_done(path: str | Path, keys: Sequence[str] = (), filled: Sequence[str] = ()) -> bool:
    """True when a result file exists and holds a result: JSON that parses and is not empty (``{}``, ``[]`` or
    ``null`` is no result), and with ``keys`` an object that has them (a task's run files name their run: JSON
    of another shape, hand-edited or another program's, is no result either; it crashed the summary or, read as
    done, left the run out of the tables for good). A resumed sweep skips that run, and redoes one whose file
    is damaged (:func:`damage` says why); ``filled`` are keys whose value must be a non-empty list or object."""
    return Path(path).is_file() and damage(path, keys, filled) is None


def restore_splits(desc: str, out: str | Path, splits: Mapping[Path, Callable[[], Any]]) -> list[Path]:
    """Write again each saved split of ``splits`` (its path -> a function that makes it) whose file is missing or
    damaged: a sweep calls it for its finished units, as a deleted ``OUT/splits/`` left the folder's runs without
    the splits they were scored on (a unit that runs writes its own; a finished one does not run). A split follows
    from the data and its seed. A note says how many were written:
    ``protein: 1 saved split(s) of finished runs were missing from OUT/splits: made again from their seeds (e.g.
    yeast_f0.50_s0.json)``. Returns their paths."""
    written = []
    for path, make in splits.items():
        if not is_done(path):
            write_json(path, make())
            written.append(Path(path))
    if written:
        from gatbio.data.tables import note

        folder = Path(out) / "splits"
        example = written[0].relative_to(folder) if written[0].is_relative_to(folder) else written[0]
        note(f"{desc}: {len(written)} saved split(s) of finished runs were missing from {folder}: made again from "
             f"their seeds (e.g. {example})")
    return written


def missing_runs_note(files: Sequence[str | Path], where: str | Path, keys: Sequence[str] = (),
                      filled: Sequence[str] = (), finish: str = "run without --summary-only to finish them"
                      ) -> str | None:
    """For a summary of the run files ``files`` a config names: ``None`` when every one holds a result, else a
    line (also given as a note on stderr) saying how many are missing or damaged, with an example, that the
    tables leave them out, and how to ``finish`` them."""
    absent = [Path(f) for f in files if not is_done(f, keys, filled)]
    if not absent:
        return None
    damaged = [f for f in absent if f.is_file()]
    what = f"{len(absent)} of the {len(files)} runs this config names have no result"
    if damaged:
        what += f" ({len(damaged)} with a damaged or empty file, e.g. {damaged[0]})"
    else:
        what += f" (e.g. {absent[0]})"
    line = f"incomplete: {what}; the tables leave them out: {finish} (results in {where})"
    from gatbio.data.tables import note

    note(line)
    return line


def mixed_configs_note(out: str | Path, runs: Iterable[Mapping] | None = None) -> str | None:
    """For a summary of the folder ``out``: ``None``, or (when a run was resumed with ``--resume-anyway`` after the
    settings changed, as ``fingerprint.json`` records) a line, also a note on stderr, saying that its results may
    mix configurations and what differed: ``mixed: these results may mix configurations (resumed with
    --resume-anyway after epochs: 200 -> 50); --restart redoes them all``. It was recorded in fingerprint.json alone, where a
    reader of the tables months later would not look.

    With ``runs`` (the run files summarised, as dicts) the line counts the runs by the config they were made with
    (their ``settings_fingerprint``): ``... epochs: 200 -> 50): runs by the config they were made with: 6
    config.yaml, 2 config.resumed-1.yaml; --restart ...``; runs from before run files recorded it count as
    ``unrecorded``."""
    path = Path(out) / FINGERPRINT_FILE
    history = _history(Path(out))
    if not history:
        return None
    from collections import Counter

    from gatbio.data.tables import first_few, note

    diffs = [d for h in history if isinstance(h, dict) for d in h.get("differences", [])]
    times = f" ({len(history)} times)" if len(history) > 1 else ""
    counts = ""
    if runs is not None:
        entries = [h for h in history if isinstance(h, dict)]
        names: dict[Any, str] = {}  # settings fingerprint -> the config file that holds them (the first that did)
        if entries and entries[0].get("previous_fingerprint"):
            names[entries[0]["previous_fingerprint"]] = "config.yaml"
        for h in entries:
            if h.get("fingerprint") and h.get("config"):
                names.setdefault(h["fingerprint"], str(h["config"]))
        by = Counter(names.get(r.get("settings_fingerprint"), "unrecorded") if isinstance(r, Mapping)
                     else "unrecorded" for r in runs)
        order = dict.fromkeys(["config.yaml", *names.values(), "unrecorded"])
        counts = ", ".join(f"{by[name]} {name}" for name in order if by.get(name))
        counts = f": runs by the config they were made with: {counts}" if counts else ""
    line = (f"mixed: these results may mix configurations (resumed with --resume-anyway{times} after "
            f"{first_few(list(dict.fromkeys(map(str, diffs))), 4, sep='; ')}){counts}; --restart redoes them all "
            f"({path})")
    note(line)
    return line


def _as_list(items: Any) -> list:
    """``items`` as a list, one ``str`` / path being one item: iterated, ``"f1"`` would be the columns ``f``, ``1``."""
    return [items] if isinstance(items, str | Path) else list(items)


def collect(paths: Iterable[str | Path] | str | Path) -> pd.DataFrame:
    """Read many flat ``results.json`` files (or one) into one DataFrame (one row per file)."""
    rows = [read_json(p) for p in _as_list(paths)]
    return pd.DataFrame(rows)


def summarize(
    df: pd.DataFrame, by: Sequence[str] | str, metrics: Sequence[str] | str, digits: int | None = 4
) -> pd.DataFrame:
    """Mean, std and count of ``metrics`` over seeds, grouped by ``by`` (column names; one name may be a str).

    Returns a DataFrame with ``by`` columns, then ``n`` (runs per group), then ``<metric>_mean``,
    ``<metric>_std`` for each metric. ``std`` is the sample standard deviation (ddof=1; NaN for a single run, which has no
    spread to measure: a 0 read as "no variation between seeds", as the robustness tables leave it empty). The statistics
    are rounded to ``digits`` (``None``: not rounded; a display table made with :func:`format_mean_std` from a
    rounded summary would round twice: 0.86749 -> 0.8675 -> 0.868).

    A run whose metric is NaN (undefined, e.g. no test item of a subset) is left out of that metric's mean and std;
    when a group has such runs, ``<metric>_n`` (after ``<metric>_std``) counts the runs each statistic is over, which
    :func:`format_mean_std` shows (``n`` alone said every run counted). Rows whose ``by`` value is missing (NaN,
    ``None``) form a group of their own (they were dropped without a word).
    """
    g = df.groupby(_as_list(by), sort=False, dropna=False)
    out = g.size().rename("n").reset_index()
    for m in _as_list(metrics):
        stats = g[m].agg(["mean", "std", "count"]).reset_index(drop=True)
        out[f"{m}_mean"] = stats["mean"].to_numpy()
        out[f"{m}_std"] = stats["std"].to_numpy()
        if (stats["count"].to_numpy() < out["n"].to_numpy()).any():
            out[f"{m}_n"] = stats["count"].to_numpy()
    return out if digits is None else round_stats(out, digits)


def round_stats(summary: pd.DataFrame, digits: int = 4) -> pd.DataFrame:
    """A :func:`summarize` table with its ``*_mean`` and ``*_std`` columns rounded to ``digits`` (for a CSV file)."""
    return summary.round({c: digits for c in summary.columns if str(c).endswith(("_mean", "_std"))})


def seed_ranges(seeds: Iterable[int]) -> str:
    """Seeds as a short list, runs of consecutive seeds as ranges: ``0–2, 7``."""
    runs: list[list[int]] = []  # [first, last] of each run of consecutive seeds
    for s in sorted({int(s) for s in seeds}):
        if runs and s == runs[-1][1] + 1:
            runs[-1][1] = s
        else:
            runs.append([s, s])
    return ", ".join(str(a) if a == b else f"{a}–{b}" for a, b in runs)


def over_seeds(seeds: Iterable[int]) -> str:
    """How a summary names its statistics: ``"mean ± std over seeds 0–4; std of the sample (n − 1); n = runs"``
    (:func:`seed_ranges`). The seeds are those of the runs summarised, which a resumed folder or
    ``--summary-only`` may make fewer than the config lists."""
    seeds = {int(s) for s in seeds}
    label = "seed" if len(seeds) == 1 else "seeds"
    return f"mean ± std over {label} {seed_ranges(seeds)}; std of the sample (n − 1); n = runs"


def format_mean_std(df: pd.DataFrame, by: Sequence[str] | str, metrics: Sequence[str] | str,
                    digits: int = 3) -> pd.DataFrame:
    """A display table with ``mean ± std`` strings, from the output of :func:`summarize` (``± –`` where there is
    no std: a single run; ``–`` where there is no mean: no run with a value; ``(n=2)`` after a statistic over fewer
    runs than the row's ``n``, the others' values being NaN); ``by`` and ``metrics`` as there."""
    out = df[_as_list(by) + ["n"]].copy()
    for m in _as_list(metrics):
        counts = df[f"{m}_n"] if f"{m}_n" in df.columns else df["n"]
        out[m] = ["–" if pd.isna(a) else f"{a:.{digits}f} ± " + ("–" if pd.isna(b) else f"{b:.{digits}f}")
                  + (f" (n={int(k)})" if k < n else "")
                  for a, b, k, n in zip(df[f"{m}_mean"], df[f"{m}_std"], counts, df["n"], strict=True)]
    return out


def markdown_table(df: pd.DataFrame) -> str:
    """``df`` as a GitHub markdown table, index dropped (pandas' ``to_markdown`` needs the optional ``tabulate``)."""
    cells = [list(map(str, df.columns))] + [[str(v) for v in row] for row in df.itertuples(index=False)]
    lines = ["| " + " | ".join(r) + " |" for r in cells]
    return "\n".join([lines[0], "|" + "---|" * len(df.columns), *lines[1:]])
