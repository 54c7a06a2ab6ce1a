"""Food-web link inference on the GATEWAy benchmark (thin script: the work is in gatbio.tasks.foodweb).

    .venv/bin/python experiments/food_web_inference.py --config experiments/configs/foodweb_full.yaml --jobs 2
    .venv/bin/python experiments/food_web_inference.py --config experiments/configs/foodweb_quick.yaml

Any further ``key=value`` arguments override the config (e.g. ``out=results/x only='[AEW03_11]'``).
"""

from __future__ import annotations

import sys

from gatbio.tasks.foodweb_cli import main

if __name__ == "__main__":
    sys.exit(main(["benchmark", *sys.argv[1:]]))
