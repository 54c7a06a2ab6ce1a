"""Protein interaction types on SHS27k (thin: everything lives in gatbio.tasks.protein_interactions).

    python experiments/protein_interactions.py experiments/configs/shs27k.yaml [key=value ...] [--restart]

Same as ``gatbio protein interactions --config FILE [key=value ...]`` (``--restart`` / ``--resume-anyway`` as there).
"""

import sys
from pathlib import Path

from gatbio._options import pop_resume_flag
from gatbio.cli import run_guarded, show_sweep_progress


def main(argv: list[str] | None = None) -> int:
    """Run the config; a user's mistake (a missing file, a bad setting) is one line and status 1, as ``gatbio``."""
    def work() -> int:
        from gatbio.tasks import protein_interactions

        args, resume = pop_resume_flag(list(sys.argv[1:] if argv is None else argv), usage=__doc__)
        print(protein_interactions.run(protein_interactions.load(args[0], args[1:]), resume=resume,
                                       progress=show_sweep_progress()))  # a bar, or lines in a log
        return 0

    return run_guarded(Path(__file__).name, work)


if __name__ == "__main__":
    sys.exit(main())
