"""``python -m gatbio``: the ``gatbio`` command, for environments whose scripts folder is not on ``PATH`` (or to
run it under another interpreter or a profiler: ``python -m cProfile -m gatbio ...``)."""

import sys

from gatbio.cli import main

if __name__ == "__main__":
    sys.exit(main())
