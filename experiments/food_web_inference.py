"""Food-web link inference on the GATEWAy benchmark (thin script: the work is in gatbio.tasks.foodweb).

    .venv/bin/python experiments/food_web_inference.py --config experiments/configs/foodweb_full.yaml --jobs 2
    .venv/bin/python experiments/food_web_inference.py --config experiments/configs/foodweb_quick.yaml

Any further ``key=value`` arguments override the config (e.g. ``out=results/x only='[AEW03_11]'``). Same as
``gatbio foodweb benchmark [options] [key=value ...]`` (``--help`` lists the options). With no arguments this
prints this usage (the full default benchmark takes about an hour: give its config to run it).
"""

from __future__ import annotations

import sys
from pathlib import Path

if str(Path(__file__).resolve().parent) not in sys.path:  # loaded from elsewhere (tests/conftest.py)
    sys.path.append(str(Path(__file__).resolve().parent))
from _runner_args import asks_help  # noqa: E402

#: ``gatbio foodweb benchmark``'s options that take a value (the word after one is not a positional).
VALUE_OPTIONS = ("--webs", "--out", "--config", "--jobs", "--device")


def main(argv: list[str] | None = None) -> int:
    """``gatbio foodweb benchmark`` with ``argv``; no arguments: the usage and status 1, as the other thin
    runners; a config file given as a positional (not ``--config FILE``): one line that says so, status 1."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv:
        raise SystemExit(__doc__.strip())
    if asks_help(argv):  # also `--config -h`, which argparse would read as --config without its file
        argv = ["--help"]
    previous = None
    for a in argv:
        if previous not in VALUE_OPTIONS and not a.startswith("-") and "=" not in a \
                and (a.endswith((".yaml", ".yml")) or Path(a).is_file()):
            print(f"{Path(__file__).name}: error: {a}: a config file is given with --config (python "
                  f"experiments/food_web_inference.py --config {a}); the other arguments are options or key=value "
                  "overrides", file=sys.stderr)  # as the other runners' mistakes: one line, status 1
            return 1
        previous = a
    from gatbio.tasks.foodweb_cli import main as foodweb_main

    return foodweb_main(["benchmark", *argv])


if __name__ == "__main__":
    sys.exit(main())
