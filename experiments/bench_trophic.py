"""Trophic levels of a large web by each solver path: time and peak memory, side by side in one run.

A seeded random web of ``--species`` species and ``--links`` links (prey rank < predator rank, so Levine's levels
are defined), weighted; each of ``levine``, ``mackay`` by the iterative solve gatbio takes above
``gatbio.ecology.trophic._DIRECT_MAX`` species, and by the sparse direct solve (``-direct``: the iterative helpers
made to give up, so ``spsolve`` runs, as before). Each case runs in its own process (peak memory is per process)::

    python experiments/bench_trophic.py                      # 10,000 species, 100,000 links, all four cases
    python experiments/bench_trophic.py --cases levine mackay
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

CASES = ("levine", "mackay", "levine-direct", "mackay-direct")


def one(case: str, species: int, links: int) -> dict:
    import resource
    import time

    import numpy as np
    import torch

    import gatbio.ecology.trophic as T

    rng = np.random.default_rng(0)
    a, b = rng.integers(0, species, links), rng.integers(0, species, links)
    keep = a != b
    src, dst = np.minimum(a, b)[keep], np.maximum(a, b)[keep]
    ei = torch.from_numpy(np.stack([src, dst]))
    w = torch.from_numpy(rng.random(len(src)) + 0.1)
    if case.endswith("-direct"):
        T._bicgstab = lambda A, b, **k: None
        T._pcg = lambda A, b, **k: None
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t = time.perf_counter()
    h = T.trophic_levels(ei, case.split("-")[0], num_nodes=species, edge_weight=w)
    dt = time.perf_counter() - t
    rss1 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {"case": case, "seconds": dt, "peak_rss_gb": rss1 / 1e6, "rss_before_gb": rss0 / 1e6,
            "levels": [float(x) for x in h.tolist()]}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--species", type=int, default=10_000, help="species (default 10,000)")
    p.add_argument("--links", type=int, default=100_000, help="links drawn (default 100,000; self-pairs dropped)")
    p.add_argument("--cases", nargs="+", choices=CASES, default=list(CASES), help="which paths (default: all)")
    p.add_argument("--one", choices=CASES, help=argparse.SUPPRESS)  # a child process's case
    args = p.parse_args(argv)
    if args.one:
        print(json.dumps(one(args.one, args.species, args.links)))
        return 0
    import numpy as np

    res = {}
    for case in args.cases:
        out = subprocess.run([sys.executable, __file__, "--one", case, "--species", str(args.species), "--links",
                              str(args.links)], check=True, capture_output=True, text=True).stdout
        res[case] = json.loads(out.strip().splitlines()[-1])
        r = res[case]
        print(f"{case:<14} {r['seconds']:8.3f} s   peak RSS {r['peak_rss_gb']:.2f} GB "
              f"(before the solve {r['rss_before_gb']:.2f} GB)", flush=True)
    for m in ("levine", "mackay"):
        if m in res and f"{m}-direct" in res:
            d = np.abs(np.array(res[m]["levels"]) - np.array(res[f"{m}-direct"]["levels"])).max()
            print(f"{m}: iterative / direct = {res[m]['seconds'] / res[m + '-direct']['seconds']:.4f} of the time; "
                  f"levels differ by at most {d:.1e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
