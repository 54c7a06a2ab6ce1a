"""Protein interaction types on SHS27k (thin: everything lives in gatbio.tasks.protein_interactions).

    python experiments/protein_interactions.py experiments/configs/shs27k.yaml [key=value ...] [--restart]

Same as ``gatbio protein interactions --config FILE [key=value ...]`` (``--restart`` / ``--resume-anyway`` as there).
"""

import sys

from gatbio._options import pop_resume_flag
from gatbio.tasks import protein_interactions

if __name__ == "__main__":
    args, resume = pop_resume_flag(sys.argv[1:], usage=__doc__)
    print(protein_interactions.run(protein_interactions.load(args[0], args[1:]), resume=resume))
