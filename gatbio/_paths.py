"""Output paths checked before any work: one clear line instead of a crash after minutes of training.

A command calls :func:`check_outputs` with the files and folders it will write and the files it reads, before
it reads or trains anything. Each check names the option and the fix:

- an output that is an input (``--out edges.txt --edges edges.txt``) would destroy the input;
- two outputs that are the same file (``--out x.csv --explain x.csv``) would overwrite each other;
- an output file that is an existing folder, an output folder that is an existing file, or a path whose parent
  is a file (``--out notes.txt/x.csv``);
- a place gatbio cannot write to (checked by creating and removing a probe file in the nearest existing folder,
  which is also right for the superuser and for read-only file systems, where permission bits say nothing).

Once every check passed, an output whose folder does not exist yet is said in one note per folder (the writers
of :mod:`gatbio.results` create it without a word, so a typo in a folder name would leave a stray folder).

Standard library only: the ``gatbio`` command imports this module while it builds its parser.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping
from pathlib import Path

__all__ = ["OutputPathError", "check_input_file", "check_inputs", "check_outputs", "check_output_dir"]


class OutputPathError(ValueError):
    """An output path that cannot or must not be written (the message names the option and the fix)."""


def _same(a: Path, b: Path) -> bool:
    try:
        if a.exists() and b.exists():
            return os.path.samefile(a, b)
    except OSError:
        pass
    return a.resolve() == b.resolve()


def folder_problem(folder: Path) -> str | None:
    """Why gatbio cannot create files in ``folder`` (or, when it does not exist yet, its nearest existing
    ancestor), or ``None``: checked by creating and removing a probe file, which is also right for the superuser
    and for read-only file systems."""
    parent = folder
    while not parent.exists():
        if parent == parent.parent:
            break
        parent = parent.parent
    if not parent.is_dir():
        return f"{parent} is a file, not a folder"
    try:
        fd, probe = tempfile.mkstemp(dir=parent, prefix=".gatbio-probe-")
    except OSError as err:
        return f"cannot write in {parent} ({err.strerror or err})"
    os.close(fd)
    os.unlink(probe)
    return None


def _writable_folder(path: Path, option: str, folder: Path | None = None) -> None:
    """``folder`` (default: the parent of ``path``), or its nearest existing ancestor, must be a folder gatbio
    can create files in."""
    problem = folder_problem(path.parent if folder is None else folder)
    if problem:
        raise OutputPathError(f"{option} {path}: {problem}")


def check_output_dir(path: str | Path, option: str = "out_dir") -> Path:
    """``path`` as a folder gatbio can write results into (it may not exist yet)."""
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise OutputPathError(f"{option} {path}: is a file, not a folder; give a folder for the results")
    _writable_folder(path, option, folder=path)
    return path


def check_outputs(files: Mapping[str, str | Path | None], inputs: Mapping[str, str | Path | None] | None = None,
                  dirs: Mapping[str, str | Path | None] | None = None, tables: tuple[str, ...] = ()) -> None:
    """Check every output before any work (module docstring). Keys are the option names used in messages
    (``"--out"``); ``None`` values are skipped. The options named in ``tables`` are tables, written as plain
    text (comma-separated, or tab-separated for ``.tsv`` / ``.tab``: :func:`gatbio.results.write_csv`): a name
    that promises compression or a spreadsheet is refused, not written as plain text under that name.

    ``files`` are the outputs the user named (on the command line): once all checks passed, a folder of theirs that
    does not exist yet is said, one note per folder (:func:`_say_new_folders`)."""
    outs = [(opt, Path(p)) for opt, p in files.items() if p is not None]
    ins = [(opt, Path(p)) for opt, p in (inputs or {}).items() if p is not None]
    for k, (opt, path) in enumerate(outs):
        if path.is_dir():
            raise OutputPathError(f"{opt} {path}: is a folder; give a file name{_example(opt, path, tables)}")
        for in_opt, src in ins:
            if src.is_file() and _same(path, src):
                raise OutputPathError(f"{opt} {path} is also the input {in_opt}: writing it would destroy the input; "
                                      "choose another file")
        for other_opt, other in outs[:k]:
            if _same(path, other):
                raise OutputPathError(f"{other_opt} and {opt} are the same file {path}: give two different files")
        if opt in tables and path.suffix.lower() in _NOT_PLAIN_TABLES:
            raise OutputPathError(f"{opt} {path}: the table is written as plain text (comma-separated, or "
                                  f"tab-separated for .tsv), not as {path.suffix.lower()}: name it .csv or .tsv")
        if path.exists() and not os.access(path, os.W_OK):
            raise OutputPathError(f"{opt} {path}: the file exists and cannot be overwritten (permission denied)")
        _writable_folder(path, opt)
    for opt, p in (dirs or {}).items():
        if p is not None:
            check_output_dir(p, opt)
    _say_new_folders(outs)


#: The file name an option's "is a folder" message suggests, by the option's name: --json writes JSON, --plot a
#: figure (.png, .pdf or .svg), --csv a table.
_SUFFIX_OF_OPTION = {"json": ".json", "plot": ".png", "png": ".png", "pdf": ".pdf", "svg": ".svg", "csv": ".csv",
                     "tsv": ".tsv", "md": ".md", "html": ".html"}


def _example(opt: str, folder: Path, tables: tuple[str, ...]) -> str:
    """``", e.g. FOLDER/out.EXT"`` with the extension the option writes (its name, else ``.csv`` for a table),
    or ``" in that folder"`` when the option's name does not say it."""
    suffix = _SUFFIX_OF_OPTION.get(opt.lstrip("-").lower(), ".csv" if opt in tables else None)
    return f", e.g. {folder / ('out' + suffix)}" if suffix else " in that folder"


def _say_new_folders(outs: list[tuple[str, Path]]) -> None:
    """One note per folder of ``outs`` (option, file) that does not exist yet, naming the options written there:
    the writers create it when they write (:func:`gatbio.results.atomic_write_bytes`), and a typo in a folder name
    would otherwise leave a stray folder without a word. Said in advance, as the check cannot know whether the
    command gets as far as writing."""
    new: dict[Path, tuple[Path, list[str]]] = {}  # resolved folder -> (the folder as given, its options)
    for opt, path in outs:
        if not path.parent.exists():
            new.setdefault(path.parent.resolve(), (path.parent, []))[1].append(opt)
    if not new:
        return
    # imported here, not at the top: the gatbio command imports this module while it builds its parser
    from gatbio.data.tables import note

    for folder, opts in new.values():
        note(f"the folder {folder} does not exist: it will be created for {' and '.join(opts)}")


#: Names a table output cannot have: the tables are written as plain text (CSV, or tab-separated for .tsv).
_NOT_PLAIN_TABLES = (".gz", ".bz2", ".xz", ".zip", ".xlsx", ".xls", ".ods", ".parquet", ".feather", ".json", ".npy",
                     ".npz", ".pt", ".h5", ".hdf5", ".pkl", ".pickle")


def check_input_dir(path: str | Path, option: str | None = None, what: str = "") -> Path:
    """``path`` must be an existing folder: ``--webs x: is a file, not a folder`` (with ``option``); ``what``
    says what the folder should hold, after a missing folder's message."""
    path = Path(path)
    where = f"{option} {path}" if option else str(path)
    if path.exists() and not path.is_dir():
        raise NotADirectoryError(f"{where}: is a file, not a folder{what and f' ({what})'}")
    if not path.exists():
        raise FileNotFoundError(f"{where}: no such folder{what and f' ({what})'}")
    return path


#: Relative paths written in the config files read in this process (the path as written -> the config files that
#: name it, the latest last), for the message of a missing input (:func:`remember_config_paths`,
#: :func:`check_input_file`). Every config is kept: a later one naming the same path (another experiment's config,
#: a results folder's stored config.yaml) must not hide the folder of the config that holds the file.
_CONFIG_PATHS: dict[str, list[Path]] = {}


def remember_config_paths(config_file: str | Path, doc: object) -> None:
    """Note each relative path-like string of a config file's content ``doc`` (a YAML mapping), with the file: a
    relative path of a config is read from the current folder, not the config's, and when it is missing there but
    found next to the config, :func:`check_input_file` says so (the rule itself is not changed: users depend on it)."""
    config_file = Path(config_file).resolve()  # no "..": the hint names the folder
    stack = [doc]
    while stack:
        item = stack.pop()
        if isinstance(item, Mapping):
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
        elif isinstance(item, str) and item.strip() and "\n" not in item and not Path(item).is_absolute():
            configs = _CONFIG_PATHS.setdefault(str(Path(item)), [])
            if config_file in configs:
                configs.remove(config_file)
            configs.append(config_file)


def _missing_parts(path: Path) -> tuple[str, str]:
    """For a missing relative ``path``: where it was looked for (absolute), and the same path next to the config
    file that named it, when a file is there (:func:`remember_config_paths`); ``("", "")`` for an absolute one."""
    if path.is_absolute():
        return "", ""
    looked = f"looked for {Path.cwd() / path}: a relative path is read from the current folder"
    # the latest config read that names the path and holds the file in its folder
    config = next((c for c in reversed(_CONFIG_PATHS.get(str(path), [])) if (c.parent / path).is_file()), None)
    if config is None:
        return looked, ""
    return looked, (f"; {path} is in the folder of the config file {config}: run gatbio from {config.parent}, or "
                    f"write the path relative to the current folder or absolute ({config.parent / path})")


def missing_file_hint(path: str | Path) -> str:
    """Where a missing relative ``path`` was looked for, and the config file's folder when the file is there:
    ``"looked for /cwd/web.txt: ...; web.txt is in the folder of the config file ..."``; ``""`` for an absolute
    path. For a message that says "no such file" its own way (:func:`check_input_file` says it so)."""
    looked, config = _missing_parts(Path(path))
    return looked + config


def _missing_file(path: Path) -> str:
    """What follows ``no such file`` in :func:`check_input_file`'s message: ``" (looked for ...)[; ...]"``."""
    looked, config = _missing_parts(path)
    return f" ({looked}){config}" if looked else ""


def check_input_file(path: str | Path, option: str | None = None) -> Path:
    """``path`` must be an existing, readable file: ``--labels x: is a folder, not a file`` (with ``option``); a
    missing relative path is named as looked for (absolute), with the config file's folder when it is there."""
    path = Path(path)
    where = f"{option} {path}" if option else str(path)
    if path.is_dir():
        raise IsADirectoryError(f"{where}: is a folder, not a file")
    if not path.exists():
        raise FileNotFoundError(f"{where}: no such file{_missing_file(path)}")
    if not os.access(path, os.R_OK):
        raise PermissionError(f"{where}: permission denied (the file cannot be read)")
    return path


def check_inputs(files: Mapping[str, str | Path | None]) -> None:
    """Each input (option -> path; ``None`` skipped) must be an existing, readable file (:func:`check_input_file`)."""
    for opt, p in files.items():
        if p is not None:
            check_input_file(p, opt)
