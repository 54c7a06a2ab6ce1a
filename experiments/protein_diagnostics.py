"""Why the protein-function targets are missed (thin: everything lives in gatbio.tasks.protein_diagnostics).

    python experiments/protein_diagnostics.py [--datasets yeast-bu2003 node2vec-ppi] [--seeds 0 1 ... 9]
        [--fractions 0.5 0.9]
        [--jobs 2] [--out results/protein_diagnostics]
"""

from __future__ import annotations

import argparse
import sys

from gatbio.tasks import protein_diagnostics


def main(argv: list[str] | None = None) -> int:
    """Parse ``argv`` (default: the command line), check every argument, run, print the table; 0 on success."""
    ap = argparse.ArgumentParser(
        description=protein_diagnostics.__doc__.split("\n\n")[0],
        epilog="Writes into --out: runs/ (one JSON file per dataset, fraction and seed, as each finishes; an "
               "interrupted run resumes from them) and diagnostics.md (the means over seeds, also printed).",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    ap.add_argument("--datasets", nargs="+", default=list(protein_diagnostics.DATASETS),
                    help=f"of {', '.join(protein_diagnostics.DATASETS)}, each once")
    ap.add_argument("--seeds", nargs="+", type=int, default=list(range(10)), help="split seeds, each once")
    ap.add_argument("--fractions", nargs="+", type=float, default=[0.5],
                    help="labelled fractions of the proteins, each in (0, 1), e.g. 0.5 0.9")
    ap.add_argument("--jobs", type=int, default=2, help="(dataset, fraction, seed) runs at once")
    ap.add_argument("--out", default="results/protein_diagnostics",
                    help="folder for runs/ and diagnostics.md, created if missing")
    args = ap.parse_args(argv)
    try:  # every argument checked before any work (one line, not a traceback)
        args.datasets = protein_diagnostics.check(args.datasets, args.seeds, args.jobs, args.out, args.fractions)
    except (ValueError, OSError) as err:
        ap.error(str(err))
    print(protein_diagnostics.run(args.datasets, args.seeds, args.jobs, args.out, args.fractions))
    return 0


if __name__ == "__main__":
    sys.exit(main())
