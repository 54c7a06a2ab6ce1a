"""Hub-perturbation robustness sweep (thin script; the work is in gatbio.tasks.robustness).

    python experiments/hub_robustness.py experiments/configs/robustness_full.yaml [key=value ...] [--restart]

Same as ``gatbio robustness --config FILE [key=value ...]`` (``--restart`` / ``--resume-anyway`` as there).
"""

import sys

from gatbio._options import pop_resume_flag
from gatbio.tasks.robustness import load, run

if __name__ == "__main__":
    args, resume = pop_resume_flag(sys.argv[1:], usage=__doc__)
    print(run(load(args[0], args[1:]), resume=resume))
