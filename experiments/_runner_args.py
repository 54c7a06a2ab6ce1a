"""``--config FILE`` for the thin runners (hub_robustness.py, protein_function.py, protein_interactions.py), which
take the config file as their first argument: the ``gatbio`` command requires ``--config``, so a command copied
from one to the other works in both; and ``-h`` / ``--help`` anywhere (food_web_inference.py too)."""

from __future__ import annotations

HELP = ("-h", "--help")


def asks_help(argv: list[str]) -> bool:
    """Whether ``argv`` asks for the help: ``-h`` or ``--help`` anywhere, also right after ``--config`` (which
    took it for a missing config file), as argparse shows the help whatever else the command line holds."""
    return any(a in HELP for a in argv)


def config_first(argv: list[str], example: str) -> list[str]:
    """``argv`` with ``--config FILE`` (or ``--config=FILE``) replaced by ``FILE`` in front, where the runners read
    their config file; ``argv`` as it is without ``--config``. One line that names the fix for ``--config`` without
    a file, given twice, or beside a config file given as the first argument (``example``: a config file to show).
    A command line that asks for the help (:func:`asks_help`) is ``["--help"]``, whatever else it holds."""
    if asks_help(argv):
        return ["--help"]
    out, config = [], []
    it = iter(argv)
    for a in it:
        if a == "--config":
            value = next(it, None)
            if value is None or value.startswith("-"):
                raise SystemExit(f"--config: give the config file after it, e.g. --config {example}")
            config.append(value)
        elif a.startswith("--config="):
            if not a[len("--config="):]:
                raise SystemExit(f"--config=: give the config file, e.g. --config {example}")
            config.append(a[len("--config="):])
        else:
            out.append(a)
    if not config:
        return out
    if len(config) > 1:
        raise SystemExit(f"--config {' '.join(config)}: give one config file")
    positional = [a for a in out if not a.startswith("-") and "=" not in a]  # settings are key=value
    if positional:
        raise SystemExit(f"--config {config[0]} and {positional[0]}: give the config file once, as --config FILE or "
                         "as the first argument (settings are key=value)")
    return [config[0], *out]
