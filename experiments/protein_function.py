"""Protein function prediction experiments (thin: everything lives in gatbio.tasks.protein).

    python experiments/protein_function.py [--config] experiments/configs/protein_full.yaml [key=value ...] [--restart]
    python experiments/protein_function.py --ppi24 [--config] experiments/configs/protein_ppi24.yaml

Same as ``gatbio protein run --config FILE [key=value ...]`` (``--restart`` / ``--resume-anyway`` as there;
``--config`` is optional here, so a command copies across).
"""

import sys
from pathlib import Path

from gatbio._options import pop_resume_flag
from gatbio.cli import run_guarded, show_sweep_progress

if str(Path(__file__).resolve().parent) not in sys.path:  # loaded from elsewhere (tests/conftest.py)
    sys.path.append(str(Path(__file__).resolve().parent))
from _runner_args import config_first  # noqa: E402

OPTIONS = ("--ppi24", "--restart", "--resume-anyway", "-h", "--help")


def main(argv: list[str] | None = None) -> int:
    """Run the config; a user's mistake (a missing file, a bad setting) is one line and status 1, as ``gatbio``."""
    def work() -> int:
        from gatbio.tasks import protein, protein_ppi

        given = config_first(list(sys.argv[1:] if argv is None else argv), "experiments/configs/protein_full.yaml")
        unknown = [a for a in given if a.startswith("-") and a not in OPTIONS]
        if unknown:  # before pop_resume_flag, whose message knows only --restart and --resume-anyway
            raise SystemExit(f"unknown option {unknown[0]}: the options are --ppi24, --restart and --resume-anyway "
                             "(settings are key=value after the config file; --help shows the usage)")
        ppi24 = "--ppi24" in given
        args, resume = pop_resume_flag([a for a in given if a != "--ppi24"], usage=__doc__)
        task = protein_ppi if ppi24 else protein
        more = {} if ppi24 else {"progress": show_sweep_progress()}  # a bar, or lines in a log
        print(task.run(task.load(args[0], args[1:]), resume=resume, **more))
        return 0

    return run_guarded(Path(__file__).name, work)


if __name__ == "__main__":
    sys.exit(main())
