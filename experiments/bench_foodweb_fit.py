"""Benchmark: seconds to train the food-web GAT (``gatbio.tasks.foodweb.fit_gat``) on GATEWAy dev webs, on the CPU.

Food webs train on the CPU (``--device auto`` puts them there: on an H200 their fits ran 1.9-3.6x slower than on
2 CPU cores), and the GAT's fits take most of the food-web benchmark's time (94 % on AEW03_11, cProfile), so
this is the figure that bounds it. Per web: fold 0 of the links protocol (its observed links), the web's traits, trophic bias on, the
benchmark config's GAT settings (``experiments/configs/foodweb_full.yaml``), seeds 0..S-1; one fresh process per
(web, checkout, round), one thread, rounds interleaved. It prints each web's median seconds and, with
``--against DIR`` (another checkout, e.g. ``git worktree add /tmp/base HEAD~1``), the ratio of the medians and
whether the two checkouts trained the same models (the sum of the first seed's logits, equal to 1e-6).

Usage::

    python experiments/bench_foodweb_fit.py [--webs AEW03_11,BP2_170] [--seeds 3] [--rounds 3]
        [--against DIR] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

CHILD = r"""
import json, os, sys, time
import torch
torch.set_num_threads(1)
from gatbio.config import load_config
from gatbio.tasks import foodweb as fw
folder, seeds = sys.argv[1], int(sys.argv[2])
cfg = load_config(fw.FoodWebConfig, "experiments/configs/foodweb_full.yaml", [])
data = fw.read_web_folder(folder)
A = fw.adjacency_of(fw.link_folds(data)[0]["observed"], data.num_nodes)
traits, _ = fw.prepare_traits(getattr(data, "x", None), getattr(data, "trait_names", None))
t0 = time.perf_counter()
models = [fw.fit_gat(A, traits, cfg.gat, trophic_bias=True, seed=s, device="cpu") for s in range(seeds)]
seconds = time.perf_counter() - t0
print(json.dumps({"seconds": seconds, "logit_sum": float(fw.gat_scores(models[0], A, traits, cfg.gat).sum())}))
"""


def time_web(checkout: Path, folder: Path, seeds: int) -> dict:
    """``{"seconds", "logit_sum"}`` of one fresh process with gatbio imported from ``checkout``."""
    env = {**os.environ, "PYTHONPATH": str(checkout), "OMP_NUM_THREADS": "1"}
    r = subprocess.run([sys.executable, "-c", CHILD, str(folder), str(seeds)], capture_output=True, text=True,
                       env=env, cwd=checkout)
    if r.returncode != 0:
        raise SystemExit(f"{checkout}: training on {folder.name} failed:\n{r.stderr[-2000:]}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--webs", default="AEW03_11,BP2_170", help="comma-separated web folders of gateway_dev/webs")
    ap.add_argument("--seeds", type=int, default=3, help="GAT seeds per web (the benchmark trains 5 per fold)")
    ap.add_argument("--rounds", type=int, default=3, help="fresh processes per web and checkout, interleaved")
    ap.add_argument("--against", type=Path, default=None, help="another checkout of gatbio, timed alongside")
    ap.add_argument("--root", type=Path, default=None, help="data root (default: GATBIO_DATA or ../shared/data)")
    ap.add_argument("--json", type=Path, default=None)
    a = ap.parse_args(argv)
    from gatbio._options import check_at_least
    from gatbio._paths import check_outputs
    from gatbio.data import data_root

    check_at_least(ap, a, {"seeds": 1, "rounds": 1})
    try:
        check_outputs({"--json": a.json})  # before the runs, not after them
        webs_dir = Path(a.root or data_root()) / "gateway_dev" / "webs"
    except (ValueError, OSError) as err:
        ap.error(str(err))
    webs = [w for w in a.webs.split(",") if w]
    missing = [w for w in webs if not (webs_dir / w).is_dir()]
    if not webs or missing:
        ap.error(f"--webs {missing or 'none given'}: not web folders of {webs_dir}")
    if a.against is not None and not (a.against / "gatbio" / "tasks" / "foodweb.py").is_file():
        ap.error(f"--against {a.against}: not a gatbio checkout (no gatbio/tasks/foodweb.py there)")
    checkouts = {"this": REPO, **({"against": a.against.resolve()} if a.against else {})}
    runs: dict[str, dict[str, list[dict]]] = {k: {w: [] for w in webs} for k in checkouts}
    for _ in range(a.rounds):
        for web in webs:
            for name, path in checkouts.items():
                runs[name][web].append(time_web(path, webs_dir / web, a.seeds))
    print(f"fit_gat seconds on the CPU (1 thread), {a.seeds} seed(s), median of {a.rounds} processes")
    record: dict[str, float | bool] = {}
    for web in webs:
        here = statistics.median(r["seconds"] for r in runs["this"][web])
        record[f"{web}.seconds"] = round(here, 3)
        line = f"  {web:<28} this {here:7.2f} s"
        if a.against is not None:
            there = statistics.median(r["seconds"] for r in runs["against"][web])
            same = abs(runs["this"][web][0]["logit_sum"] - runs["against"][web][0]["logit_sum"]) <= \
                1e-6 * max(1.0, abs(runs["against"][web][0]["logit_sum"]))
            record.update({f"{web}.against_seconds": round(there, 3), f"{web}.ratio_vs_against": round(here / there, 3),
                           f"{web}.same_models": same})
            line += f"   against {there:7.2f} s   ratio {here / there:.3f}   same models: {'yes' if same else 'NO'}"
        print(line, flush=True)
    if a.json is not None:
        from gatbio.results import write_json

        write_json(a.json, {"rounds": a.rounds, "seeds": a.seeds, "against": str(a.against), **record})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
