"""Hub-perturbation robustness sweep (thin script; the work is in gatbio.tasks.robustness).

    python experiments/hub_robustness.py experiments/configs/robustness_full.yaml [key=value ...]

Same as ``gatbio robustness --config FILE [key=value ...]``.
"""

import sys

from gatbio.tasks.robustness import load, run

if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    print(run(load(sys.argv[1], sys.argv[2:])))
