"""Machine-readable results: atomic writes, one JSON per run, and mean ± std summaries.

Every experiment writes one ``results.json`` per (setting, seed) run with :func:`write_json`. Writes go to a
temporary file in the same folder and are renamed into place, so an interrupted run never leaves a half
written result, and a sweep can resume by skipping runs whose result file already exists (:func:`is_done`).
"""

from __future__ import annotations

import json
import math
import os
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd


def atomic_write_bytes(path: str | Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (temp file in the same folder, fsync, rename)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def atomic_write_text(path: str | Path, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


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
        return None if math.isnan(f) else f
    if isinstance(obj, Path):
        return str(obj)
    if hasattr(obj, "tolist"):  # torch tensors
        return _jsonable(obj.tolist())
    return obj


def write_json(path: str | Path, obj: Any) -> None:
    """Write ``obj`` as pretty JSON atomically (numpy / torch values converted, NaN → null)."""
    atomic_write_text(path, json.dumps(_jsonable(obj), indent=2, sort_keys=False) + "\n")


def read_json(path: str | Path) -> Any:
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


def write_csv(path: str | Path, df: pd.DataFrame) -> None:
    """Write a DataFrame as CSV atomically."""
    atomic_write_text(path, df.to_csv(index=False))


def is_done(path: str | Path) -> bool:
    """True when a result file exists and parses (a resumed sweep skips that run)."""
    path = Path(path)
    if not path.is_file():
        return False
    try:
        read_json(path)
    except (json.JSONDecodeError, OSError):
        return False
    return True


def collect(paths: Iterable[str | Path]) -> pd.DataFrame:
    """Read many flat ``results.json`` files into one DataFrame (one row per file)."""
    rows = [read_json(p) for p in paths]
    return pd.DataFrame(rows)


def summarize(
    df: pd.DataFrame, by: Sequence[str], metrics: Sequence[str], digits: int = 4
) -> pd.DataFrame:
    """Mean, std and count of ``metrics`` over seeds, grouped by ``by``.

    Returns a DataFrame with ``by`` columns, then ``<metric>_mean``, ``<metric>_std`` for each metric and
    ``n`` (runs per group). ``std`` is the sample standard deviation (ddof=1; 0 for a single run).
    """
    g = df.groupby(list(by), sort=False)
    out = g.size().rename("n").reset_index()
    for m in metrics:
        stats = g[m].agg(["mean", "std"]).reset_index(drop=True)
        out[f"{m}_mean"] = stats["mean"].round(digits).to_numpy()
        out[f"{m}_std"] = stats["std"].fillna(0.0).round(digits).to_numpy()
    return out


def format_mean_std(df: pd.DataFrame, by: Sequence[str], metrics: Sequence[str], digits: int = 3) -> pd.DataFrame:
    """A display table with ``mean ± std`` strings, from the output of :func:`summarize`."""
    out = df[list(by) + ["n"]].copy()
    for m in metrics:
        out[m] = [f"{a:.{digits}f} ± {b:.{digits}f}" for a, b in zip(df[f"{m}_mean"], df[f"{m}_std"], strict=True)]
    return out


def markdown_table(df: pd.DataFrame) -> str:
    """``df`` as a GitHub markdown table, index dropped (pandas' ``to_markdown`` needs the optional ``tabulate``)."""
    cells = [list(map(str, df.columns))] + [[str(v) for v in row] for row in df.itertuples(index=False)]
    lines = ["| " + " | ".join(r) + " |" for r in cells]
    return "\n".join([lines[0], "|" + "---|" * len(df.columns), *lines[1:]])
