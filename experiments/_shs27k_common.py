"""What the ``experiments/shs27k_*.py`` scripts share about a results folder of ``gatbio protein interactions``:
its JSON files read with one line (not a traceback) when one is damaged, the pair table the folder was made from
(its ``config.yaml``: SHS27k, or ``dataset: files``), and its saved splits checked against that table, so that a
folder of another dataset is never scored with SHS27k's pairs.

Not a script: the scripts import it (``experiments/`` is on ``sys.path`` when one runs; the tests' loader,
``tests/conftest.py::experiment_script``, is given it by the script itself).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

#: The task whose results folders these scripts read (:func:`gatbio.results.stored_task`).
TASK = "InteractionsConfig"
#: The index lists of a saved split (:func:`gatbio.data.pair_splits.pair_split`).
SPLIT_PARTS = ("fit", "val", "train", "test")


def rerun_hint(results: Path | None) -> str:
    """How a deleted results file is made again: the folder's own config, rerun (it resumes)."""
    if results is not None and (results / "config.yaml").is_file():
        cmd = f"--config {results}/config.yaml"
    else:
        cmd = "--config <the run's config>" + (f" out_dir={results}" if results is not None else "")
    return f"delete it and rerun `gatbio protein interactions {cmd}`, which makes it again"


def read_json(path: Path, results: Path | None = None, what: str = "record") -> dict[str, Any]:
    """The JSON object of ``path`` (a run's ``<model>.json`` or a ``splits/*.json``); a damaged file (cut short,
    not UTF-8, empty, not an object) stops with one line that names it and says to delete it and rerun."""
    from gatbio.results import InvalidJSONError
    from gatbio.results import read_json as read

    try:
        obj = read(path)
    except InvalidJSONError as err:
        raise SystemExit(f"{err.path}:{err.lineno}: not valid JSON ({err.msg}, column {err.colno}; cut short or "
                         f"damaged?): {rerun_hint(results)}") from None
    except OSError as err:
        raise SystemExit(f"{path}: cannot be read ({err.strerror or err})") from None
    if not isinstance(obj, dict):
        raise SystemExit(f"{path}: not a {what} of gatbio protein interactions (a JSON {type(obj).__name__}, not an "
                         f"object): {rerun_hint(results)}")
    return obj


@dataclass
class FolderData:
    """The pair table a results folder was made from: ``data`` (``pairs``, ``pair_modes``, ``num_nodes``,
    ``sequences``, ``node_names``; no sequence features), where it came from (``source``, for messages) and its
    digest (:func:`gatbio.tasks.protein_interactions.pairs_digest`, what a saved split records)."""

    data: Any
    source: str
    digest: str


def check_folder(results: Path, option: str = "") -> Path:
    """``results`` when it is a folder that is not another task's (its ``fingerprint.json``); else one line that
    names it (after ``option``, e.g. ``--against``): no such folder, a file, or results of another task. What the
    scripts check on their command line, before they look for runs or splits in it (an absent folder used to read
    as "no results: run gatbio protein interactions first", a typo's fix hidden behind a rerun of 20 minutes)."""
    from gatbio.results import stored_task

    name = f"{option} {results}" if option else str(results)
    give = "give the out_dir of a `gatbio protein interactions` run"
    if not results.exists():
        raise SystemExit(f"{name}: no such folder ({give})")
    if not results.is_dir():
        raise SystemExit(f"{name}: is a file, not a results folder ({give})")
    task = stored_task(results)
    if task is not None and task != TASK:
        raise SystemExit(f"{name} holds results of another task ({task}), not of gatbio protein interactions: {give}")
    return results


def folder_data(results: Path) -> FolderData:
    """The data of ``results``: its ``config.yaml``'s dataset (``dataset: files``: its actions and sequences
    files); SHS27k for a folder without one. A folder of another task, or a config or data that cannot be read,
    stops with one line."""
    from gatbio.tasks import protein_interactions as pi

    check_folder(results)
    cfg_path = results / "config.yaml"
    try:
        cfg = pi.load(cfg_path) if cfg_path.is_file() else pi.InteractionsConfig()
    except (ValueError, OSError) as err:
        raise SystemExit(f"{cfg_path}: cannot be read as the config of gatbio protein interactions: {err}") from None
    source = (f"dataset {cfg.dataset} of {cfg_path}" if cfg_path.is_file()
              else f"dataset {cfg.dataset} (no config.yaml in {results}: the default)")
    try:
        if cfg.dataset == "files":  # the pair table only: cheap features, no embedding or own-feature files
            data = pi.load_data(replace(cfg, features=["aac"], embedding=None, protein_features=None, max_len=0))
            source = f"dataset: files of {cfg_path} ({cfg.actions})"
        else:
            import gatbio.data as gd

            data = gd.load(cfg.dataset, features=())
    except (ValueError, OSError, KeyError) as err:
        raise SystemExit(f"{results}: the data it was made from cannot be loaded ({source}): "
                         f"{str(err).splitlines()[0] if str(err) else type(err).__name__}") from None
    return FolderData(data, source, pi.pairs_digest(data))


def check_split(path: Path, sp: dict[str, Any], folder: FolderData) -> dict[str, Any]:
    """``sp`` (read from ``path``) when its indices point into ``folder``'s pair table: the table it records
    (``num_pairs``, ``pairs_sha256``) is that one, and no index is past its end; else one line."""
    n = len(folder.data.pairs)
    stored_n, stored_digest = sp.get("num_pairs"), sp.get("pairs_sha256")
    if (stored_n is not None and stored_n != n) or (stored_digest is not None and stored_digest != folder.digest):
        other = f"{stored_n} pairs" if stored_n is not None else "another table"
        now = f"{n} pairs" + (", other ones" if stored_n == n else "")
        raise SystemExit(f"{path}: made from another pair table ({other}) than {folder.source} ({now}): its indices "
                         "would score other pairs; give a folder made from that data (with the config.yaml of its run)")
    for part in SPLIT_PARTS:
        idx = sp.get(part)
        if idx and max(idx) >= n:
            raise SystemExit(f"{path}: its {part} pairs go up to index {max(idx)}, but {folder.source} has {n} "
                             "pairs: the split was made from other data")
    return sp


def check_indices(path: Path, name: str, idx, folder: FolderData) -> None:
    """One line when the pair indices ``idx`` (the array ``name`` of ``path``) go past ``folder``'s pair table."""
    import numpy as np

    idx = np.asarray(idx)
    n = len(folder.data.pairs)
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        raise SystemExit(f"{path}: its {name} go up to index {int(idx.max())}, but {folder.source} has {n} pairs: "
                         "made from other data")
