"""The ``gatbio`` command.

Each sub-command lives next to the code it drives: a module in :data:`COMMAND_MODULES` defines
``add_parser(subparsers)``, which registers its sub-command and sets ``func`` on the parser; ``func(args)``
returns an exit code. This file only assembles them, so tasks can add commands without editing each other.
"""

from __future__ import annotations

import argparse
import importlib
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


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gatbio",
        description="Graph attention networks for biological networks.",
    )
    parser.add_argument("--version", action="version", version=f"gatbio {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as err:
            if err.name == name:  # that command is not part of this install yet
                continue
            raise
        module.add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "func", None) is None:
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except (UserError, FileNotFoundError, IsADirectoryError, NotADirectoryError, PermissionError, FileExistsError,
            ValueError) as err:
        # Errors raised at the boundary (readers, configs, CLI arguments, output paths) carry a message meant for
        # the user. Other exceptions (KeyError, TypeError, ...) are bugs and keep their traceback.
        print(f"gatbio {args.command}: error: {err}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # Output piped into `head` and the like: stop quietly, as Unix tools do.
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
