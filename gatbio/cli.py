"""The ``gatbio`` command.

Each sub-command lives next to the code it drives: a module in :data:`COMMAND_MODULES` defines
``add_parser(subparsers)``, which registers its sub-command and sets ``func`` on the parser; ``func(args)``
returns an exit code. This file only assembles them, so tasks can add commands without editing each other.
A command with actions registers them with ``add_subparsers(...)`` and a metavar that lists them, not
``required=True`` (argparse would then say an action is missing before :func:`main` names an unknown option, as in
``gatbio foodweb --bogus``): without an action (or ``gatbio`` without a command), :func:`main` prints the usage and
an error naming the choices on stderr and exits with status 2, as argparse does.

Keep ``gatbio --help`` fast (well under a second): every command module is imported to build the parser, so

- a command module imports only the standard library at its top (``argparse``, ``pathlib``, ...); torch,
  numpy, pandas, PyG, scikit-learn, matplotlib and the ``gatbio`` modules that import them are imported
  inside the ``func`` that needs them (``def run(args): from gatbio.tasks.protein import run ...``);
- what ``add_parser`` needs (choices, defaults) is plain data defined in the command module itself;
- package ``__init__`` files on the way (``gatbio.data``, ``gatbio.ecology``) import their heavy parts lazily.

``tests/test_cli.py`` fails when building the parser imports torch, numpy or pandas, and when a help text shows
reStructuredText markup, a literal ``%%`` or an argument without help. Help texts may be written in the
package's docstring style: :func:`plain_text` turns the markup into plain text for the terminal.
"""

from __future__ import annotations

import argparse
import errno
import importlib
import re
import sys

from gatbio import __version__

#: Modules that contribute sub-commands (in the order they appear in ``gatbio --help``).
COMMAND_MODULES: tuple[str, ...] = (
    "gatbio.data.commands",        # gatbio datasets
    "gatbio.ecology.commands",     # gatbio trophic
    "gatbio.tasks.protein_cli",    # gatbio protein ...
    "gatbio.tasks.foodweb_cli",    # gatbio foodweb ...
    "gatbio.tasks.robustness_cli", # gatbio robustness
)


class UserError(Exception):
    """An error caused by the user's input; printed as one clear line, no traceback."""


class UsageError(UserError):
    """A command line that cannot be run as given (a missing or misplaced option): one line, exit status 2, as
    argparse's own usage errors."""


_ROLE = re.compile(r":[a-z]+:`~?([^`<]*?)(?:\s*<[^>]*>)?`")  # :func:`~a.b.c` / :ref:`text <target>`


def plain_text(text: str | None) -> str | None:
    """Docstring markup (reStructuredText) as plain text for a terminal.

    ``code`` → code, :func:`gatbio.tasks.protein.run` → gatbio.tasks.protein.run (``~`` keeps the last part),
    a paragraph's closing ``::`` → ``:``.
    """
    if not text:
        return text

    def role(m: re.Match) -> str:
        target = m.group(1).strip()
        return target.rsplit(".", 1)[-1] if m.group(0)[m.group(0).index("`") + 1] == "~" else target

    text = _ROLE.sub(role, text)
    text = text.replace("``", "")
    text = re.sub(r"(\S)::$", r"\1:", text, flags=re.M)
    return text


class HelpFormatter(argparse.HelpFormatter):
    """argparse's formatter, with two changes: a description or epilog written on several lines keeps its line
    breaks (module docstrings with usage examples), and an option's default is shown when its help does not
    mention one already (``None`` and ``False`` defaults are not shown: they mean "off")."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if "\n" in text.strip():
            return "".join(indent + line for line in text.splitlines(keepends=True))
        return super()._fill_text(text, width, indent)

    def _get_help_string(self, action: argparse.Action) -> str:
        help_ = action.help or ""
        default = action.default
        off = default is None or default is False or default is argparse.SUPPRESS or default in ([], "")
        if "default" in help_ or off or not action.option_strings or isinstance(action, argparse._VersionAction):
            return help_
        return help_ + " (default: %(default)s)"


def show_progress(quiet: bool = False) -> bool:
    """Whether a command shows progress: not with ``--quiet``, and only when stderr is a terminal (a log file
    or a pipe gets no progress bars)."""
    return not quiet and sys.stderr.isatty()


def show_sweep_progress(quiet: bool = False) -> bool:
    """Whether a sweep (units of work over datasets, seeds, webs) shows progress: unless ``--quiet``; a bar on a
    terminal, a line at most every 30 s in a log file or a pipe (:func:`gatbio.parallel.parallel_map`), so that
    a run under ``nohup`` or a cluster scheduler says how far it is."""
    return not quiet


def _finish(parser: argparse.ArgumentParser) -> None:
    """Give ``parser`` and its sub-parsers the plain-text help and :class:`HelpFormatter`."""
    parser.formatter_class = HelpFormatter
    parser.description = plain_text(parser.description)
    parser.epilog = plain_text(parser.epilog)
    for action in parser._actions:
        if action.help not in (None, argparse.SUPPRESS):
            action.help = plain_text(action.help)
        if isinstance(action, argparse._SubParsersAction):
            for choice in action._choices_actions:
                choice.help = plain_text(choice.help)
            for sub in dict.fromkeys(action.choices.values()):  # aliases map to the same parser
                _finish(sub)


def build_parser() -> argparse.ArgumentParser:
    from gatbio._options import SuggestingParser

    parser = SuggestingParser(
        prog="gatbio",
        description="Graph attention networks for biological networks.",
        epilog="Run 'gatbio COMMAND --help' for a command's options.",
    )
    parser.add_argument("--version", action="version", version=f"gatbio {__version__}",
                        help="print the version and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")  # not required: `gatbio --bogus` names --bogus
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as err:
            if err.name == name:  # that command is not part of this install yet
                continue
            raise
        module.add_parser(sub)
    _finish(parser)
    return parser


def command_name(args: argparse.Namespace) -> str:
    """The command as typed, for error lines: ``gatbio protein predict``, ``gatbio protein interactions predict``,
    ``gatbio foodweb benchmark`` (not only its first word)."""
    words = ["gatbio", args.command]
    action = getattr(args, f"{args.command}_command", None)
    if action:
        words.append(action)
        rest = getattr(args, "args", None)
        if action == "interactions" and rest and rest[0] == "predict":
            words.append("predict")
    return " ".join(words)


def _active_parser(parser: argparse.ArgumentParser, args: argparse.Namespace) -> argparse.ArgumentParser:
    """The innermost (sub)parser of the command as typed: ``gatbio protein run`` -> the ``run`` parser."""
    while True:
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        chosen = getattr(args, subs[0].dest, None) if subs else None
        if chosen is None or chosen not in subs[0].choices:
            return parser
        parser = subs[0].choices[chosen]


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if extra:  # argparse names the top-level usage for these; the command's own usage says what it takes
        _active_parser(parser, args).error(f"unrecognized arguments: {' '.join(extra)}")
    if getattr(args, "func", None) is None:  # no command given (or no action): argparse's usage and error, exit 2
        active = _active_parser(parser, args)
        subs = next(a for a in active._actions if isinstance(a, argparse._SubParsersAction))
        name = argparse._get_action_name(subs)
        if not name.startswith("{"):  # a metavar that does not list them (COMMAND): the choices too
            name += f" (one of {', '.join(subs.choices)}; '{active.prog} --help' describes them)"
        active.error(f"the following arguments are required: {name}")
    return run_guarded(command_name(args), lambda: args.func(args))


#: What a command raises at the boundary (readers, configs, CLI arguments, output paths), with a message meant for
#: the user. Other exceptions (KeyError, TypeError, ...) are bugs and keep their traceback.
USER_ERRORS = (UserError, FileNotFoundError, IsADirectoryError, NotADirectoryError, PermissionError, FileExistsError,
               ValueError)


def run_guarded(prog: str, func) -> int:
    """``func()``'s exit status, with the error handling of every gatbio program: a :class:`UsageError` is one line
    and status 2, the other :data:`USER_ERRORS` one line and status 1, Ctrl-C ``interrupted`` and 130 (SIGTERM,
    e.g. a batch system's time limit, the same and 143: it ended the process without a word, and with ``jobs > 1``
    left the workers running and writing), a closed pipe (output piped into ``head``) a quiet 0. A sweep that is
    interrupted says where its finished runs are (:func:`gatbio.results.resume_hint`)."""
    import signal
    import threading

    def terminated(signum, _frame):
        raise _Terminated(signum)

    results = sys.modules.get("gatbio.results")  # loaded: an earlier command of this process may have run a sweep
    if results is not None:
        results.forget_sweep()
    previous = None
    if threading.current_thread() is threading.main_thread():  # signal handlers can only be set there
        previous = signal.signal(signal.SIGTERM, terminated)
    try:
        return int(func() or 0)
    except UsageError as err:
        print(f"{prog}: error: {err}", file=sys.stderr)
        return 2
    except USER_ERRORS as err:
        print(f"{prog}: error: {err}", file=sys.stderr)
        return 1
    except KeyboardInterrupt as err:  # Ctrl-C, or SIGTERM (_Terminated): the pools stop their workers on it
        from gatbio.results import resume_hint

        print(f"{'terminated' if isinstance(err, _Terminated) else 'interrupted'}{resume_hint()}", file=sys.stderr)
        return 143 if isinstance(err, _Terminated) else 130
    except BrokenPipeError:
        # Output piped into `head` and the like: stop quietly, as Unix tools do.
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as err:
        # The machine's limits, met while reading or writing (a full disk, a symlink loop, a read-only file
        # system): the user's to fix, said in one line with what to do; other OS errors keep their traceback.
        fix = _OS_FIXES.get(err.errno)
        if fix is None:
            raise
        where = f": {err.filename}" if err.filename else ""
        print(f"{prog}: error: {err.strerror}{where} ({fix})", file=sys.stderr)
        return 1
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


class _Terminated(KeyboardInterrupt):
    """SIGTERM, raised in the main thread as an interruption, so that it takes Ctrl-C's path."""


_OS_FIXES = {errno.ENOSPC: "free some disk space there, or write to another folder",
             errno.EDQUOT: "your disk quota is used up: free some space, or write to another folder",
             errno.ELOOP: "a symbolic link in this path points back to itself: fix or remove it",
             errno.EROFS: "that file system is read-only: write to another folder",
             errno.ENAMETOOLONG: "use a shorter path",
             errno.EMFILE: "too many open files: raise the limit (ulimit -n) or use fewer jobs"}


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
