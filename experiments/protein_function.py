"""Protein function prediction experiments (thin: everything lives in gatbio.tasks.protein).

    python experiments/protein_function.py experiments/configs/protein_full.yaml [key=value ...] [--restart]
    python experiments/protein_function.py --ppi24 experiments/configs/protein_ppi24.yaml

Same as ``gatbio protein run --config FILE [key=value ...]`` (``--restart`` / ``--resume-anyway`` as there).
"""

import sys

from gatbio._options import pop_resume_flag
from gatbio.tasks import protein, protein_ppi

if __name__ == "__main__":
    argv = sys.argv[1:]
    ppi24 = "--ppi24" in argv
    args, resume = pop_resume_flag([a for a in argv if a != "--ppi24"], usage=__doc__)
    if ppi24:
        print(protein_ppi.run(protein_ppi.load(args[0], args[1:]), resume=resume))
    else:
        print(protein.run(protein.load(args[0], args[1:]), resume=resume))
