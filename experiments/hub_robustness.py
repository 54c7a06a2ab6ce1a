"""Hub-perturbation robustness sweep (thin script; the work is in gatbio.tasks.robustness).

    python experiments/hub_robustness.py [--config] experiments/configs/robustness_full.yaml [key=value ...] [--restart]

Same as ``gatbio robustness --config FILE [key=value ...]`` (``--restart`` / ``--resume-anyway`` as there;
``--config`` is optional here, so a command copies across).
"""

import sys
from pathlib import Path

from gatbio._options import pop_resume_flag
from gatbio.cli import run_guarded, show_sweep_progress

if str(Path(__file__).resolve().parent) not in sys.path:  # loaded from elsewhere (tests/conftest.py)
    sys.path.append(str(Path(__file__).resolve().parent))
from _runner_args import config_first  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    """Run the config; a user's mistake (a missing file, a bad setting) is one line and status 1, as ``gatbio``."""
    def work() -> int:
        from gatbio.tasks.robustness import load, run

        args, resume = pop_resume_flag(config_first(list(sys.argv[1:] if argv is None else argv),
                                                    "experiments/configs/robustness_full.yaml"), usage=__doc__)
        print(run(load(args[0], args[1:]), resume=resume, progress=show_sweep_progress()))  # a bar, or lines in a log
        return 0

    return run_guarded(Path(__file__).name, work)


if __name__ == "__main__":
    sys.exit(main())
