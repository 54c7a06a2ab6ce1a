"""Why the protein-function targets are missed (thin: everything lives in gatbio.tasks.protein_diagnostics).

    python experiments/protein_diagnostics.py [--datasets yeast-bu2003 node2vec-ppi] [--seeds 0 1 ... 9]
        [--fractions 0.5 0.9]
        [--jobs 2] [--out results/protein_diagnostics]
"""

import argparse

from gatbio.tasks import protein_diagnostics

if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=protein_diagnostics.__doc__.split("\n\n")[0])
    ap.add_argument("--datasets", nargs="+", default=list(protein_diagnostics.DATASETS),
                    help=f"of {', '.join(protein_diagnostics.DATASETS)}, each once (default: all)")
    ap.add_argument("--seeds", nargs="+", type=int, default=list(range(10)), help="each once (default: 0 ... 9)")
    ap.add_argument("--fractions", nargs="+", type=float, default=[0.5])
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", default="results/protein_diagnostics")
    args = ap.parse_args()
    try:  # every argument checked before any work (one line, not a traceback)
        protein_diagnostics.check(args.datasets, args.seeds, args.jobs, args.out, args.fractions)
    except (ValueError, OSError) as err:
        ap.error(str(err))
    print(protein_diagnostics.run(args.datasets, args.seeds, args.jobs, args.out, args.fractions))
