"""Command-line options shared by several ``gatbio`` commands, defined once, and the check of an integer setting
that the Python API shares with them (:func:`check_integer`); standard library only: the ``gatbio`` command
imports this module while it builds its parser."""

from __future__ import annotations

import argparse
import difflib
import operator
import re

__all__ = ["SuggestingParser", "IntermixedParser", "check_at_least", "check_one_out", "add_header_option", "add_device_option", "add_resume_options", "resume_mode",
           "pop_resume_flag", "check_integer"]


_INVALID_CHOICE = re.compile(r"invalid choice: '([^']*)' \(choose from (.*)\)$")


def suggest_choice(message: str) -> str:
    """argparse's ``invalid choice: 'protien' (choose from ...)`` with ``; did you mean 'protein'?`` added when
    one choice is close (``difflib``); other messages unchanged. Python 3.14's own suggestion is kept as it is."""
    m = _INVALID_CHOICE.search(message)
    if not m or "meant" in message:
        return message
    choices = [c.strip().strip("'\"") for c in m.group(2).split(",")]
    close = difflib.get_close_matches(m.group(1), choices, n=1, cutoff=0.6)
    if not close and m.group(1).lower() in (c.lower() for c in choices):  # 'Protein', 'DATASETS'
        close = [next(c for c in choices if c.lower() == m.group(1).lower())]
    return f"{message}; did you mean '{close[0]}'?" if close else message


class SuggestingParser(argparse.ArgumentParser):
    """argparse's parser whose "invalid choice" errors (a misspelt command, action or option value) name the
    closest choice (:func:`suggest_choice`). Its sub-parsers are of the same class (argparse's default)."""

    def error(self, message: str):
        super().error(suggest_choice(message))


class IntermixedParser(SuggestingParser):
    """A parser whose positionals may sit on both sides of its options (``parse_known_intermixed_args``):
    ``gatbio protein interactions predict --pairs F hidden=64``, ``gatbio robustness --config F a=1 --out D b=2``.
    A subparser takes it with ``parser.__class__ = IntermixedParser``."""

    _inner = False

    def parse_known_args(self, args=None, namespace=None):
        if self._inner:  # the intermixed parse calls back here: the plain parse
            return super().parse_known_args(args, namespace)
        self._inner = True
        try:
            return self.parse_known_intermixed_args(args, namespace)
        finally:
            self._inner = False


def check_one_out(out: str | None, overrides, key: str = "out_dir") -> None:
    """``--out D`` and an override ``out_dir=E`` of another folder name two results folders: refused, naming both
    (``--out`` took precedence without a word)."""
    if out is None:
        return
    for o in overrides or ():
        name, _, value = str(o).partition("=")
        if name.strip() == key and value.strip().strip("'\"") not in ("", str(out)):
            raise ValueError(f"--out {out} and the override {o} name two results folders: give one of them")


def check_at_least(parser: argparse.ArgumentParser, args: argparse.Namespace, least: dict[str, int]) -> None:
    """Refuse, with argparse's one line and exit status 2, any integer option under its least value, before any
    work: ``check_at_least(p, args, {"repeats": 1, "warmup": 0})`` -> ``--repeats 0: give at least 1``. Options
    left at ``None`` (not given, no default) are not checked; ``scaling_repeats`` is named ``--scaling-repeats``."""
    for name, floor in least.items():
        value = getattr(args, name)
        if value is not None and value < floor:
            parser.error(f"--{name.replace('_', '-')} {value}: give at least {floor}")


def check_integer(value, name: str, fix: str, *, least: int | None = None, below: int | None = None,
                  also: tuple[int, ...] = ()) -> int:
    """``value`` as an ``int``, or a ValueError naming the setting and the value: ``jobs=2.5 is not allowed: use
    ...`` (``fix``: what to give instead). One rule for every integer setting given from Python (``seed``,
    ``jobs``, ``threads``, ``world_size``): a whole number, that is anything with ``__index__`` (an ``int``, a
    NumPy integer, a 0-d integer tensor), at least ``least`` and below ``below`` where given, or one of ``also``
    (``jobs=-1``: every core); not a float (``2.5``), a text (``"2"``) or ``None``, and not a boolean, which
    Python counts as 0 or 1 (``jobs=True`` ran one process, ``seed=True`` seed 1: a flag where a number was
    meant)."""
    flag = isinstance(value, bool) or "bool" in str(getattr(value, "dtype", ""))  # NumPy's and torch's booleans too
    try:
        n = None if flag else operator.index(value)
    except TypeError:
        n = None
    if n is None or (n not in also and ((least is not None and n < least) or (below is not None and n >= below))):
        kind = " (a boolean, not a number)" if flag else ""
        raise ValueError(f"{name}={value!r} is not allowed{kind}: {fix}")
    return int(n)


def add_header_option(parser: argparse.ArgumentParser, what: str = "every table this command reads") -> None:
    """``--header`` / ``--no-header`` (default ``None``: detected, see :mod:`gatbio.data.tables`)."""
    parser.add_argument(
        "--header", action=argparse.BooleanOptionalAction, default=None,
        help=f"force the first non-comment row of {what} to be a header (--header) or data (--no-header); "
             "default: detected, and a note on stderr says when a row was read as a header")


def add_device_option(parser: argparse.ArgumentParser, default: str | None = "auto",
                      small_graphs: bool = False) -> None:
    """``--device``: where models, graphs and embeddings live (:func:`gatbio.device.resolve_device` checks it).

    ``default=None`` leaves the config's ``device`` setting in charge (commands with ``--config``);
    ``small_graphs``: the command's graphs are tiny (food webs), so auto means the CPU."""
    shown = "the config's device, auto unless it says otherwise" if default is None else default
    auto = ("auto (the CPU: food webs are small graphs, which train faster there than on a GPU)" if small_graphs
            else "auto (a CUDA GPU when PyTorch sees one, else the CPU)")
    parser.add_argument(
        "--device", default=default, metavar="DEV",
        help=f"where to train and embed: {auto}, cpu, cuda, cuda:N or mps (default: {shown})")


def add_resume_options(parser: argparse.ArgumentParser) -> None:
    """``--restart`` / ``--resume-anyway``: what to do when the results folder holds runs of another config."""
    g = parser.add_mutually_exclusive_group()
    g.add_argument("--restart", action="store_true",
                   help="delete the results this command wrote before in the output folder and start over")
    g.add_argument("--resume-anyway", action="store_true",
                   help="keep and reuse earlier results even though settings that change them differ from the "
                        "stored config (recorded in fingerprint.json)")


def resume_mode(args: argparse.Namespace) -> str:
    """``"restart"``, ``"anyway"`` or ``"check"`` (the default: refuse a differing config) from parsed options.

    ``--summary-only`` with ``--restart`` / ``--resume-anyway`` is a usage error: a summary neither deletes nor
    runs anything, so the other option would be ignored."""
    if getattr(args, "summary_only", False) and (getattr(args, "restart", False)
                                                 or getattr(args, "resume_anyway", False)):
        from gatbio.cli import UsageError

        flag = "--restart" if getattr(args, "restart", False) else "--resume-anyway"
        raise UsageError(f"--summary-only remakes the tables of the runs already there; {flag} (which deletes or "
                         "reuses runs) has no meaning with it: give one or the other")
    if getattr(args, "restart", False):
        return "restart"
    if getattr(args, "resume_anyway", False):
        return "anyway"
    return "check"


def pop_resume_flag(argv: list[str], usage: str | None = None) -> tuple[list[str], str]:
    """``argv`` without ``--restart`` / ``--resume-anyway``, and the resume mode they ask for (for the thin
    scripts of ``experiments/`` that read ``sys.argv`` themselves).

    With ``usage`` (the script's docstring): ``-h`` / ``--help`` prints it and exits 0, no arguments left exits
    with it, and any other ``--option`` stops with one line that names it (instead of being taken for the config
    file's path)."""
    flags = {"--restart": "restart", "--resume-anyway": "anyway"}
    if usage is not None:
        if any(a in ("-h", "--help") for a in argv):
            print(usage.strip())
            raise SystemExit(0)
        unknown = [a for a in argv if a.startswith("-") and a not in flags]
        if unknown:
            raise SystemExit(f"unknown option {unknown[0]}: the options are --restart and --resume-anyway "
                             "(settings are key=value after the config file; --help shows the usage)")
    given = [a for a in argv if a in flags]
    if len(set(given)) > 1:
        raise SystemExit("--restart and --resume-anyway exclude each other")
    rest = [a for a in argv if a not in flags]
    if usage is not None and not rest:
        raise SystemExit(usage.strip())
    return rest, flags[given[0]] if given else "check"
