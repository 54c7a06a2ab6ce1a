"""The food-web benchmark's wall time on W workers for two unit orders, by list scheduling (as joblib hands out
units: the next unit in the order goes to the first worker that is free; units of 10 s or more are not batched).

    GATBIO_DATA=../shared/data python experiments/gpu_runs/2026-11-26e-h200/schedule.py   # (the webs' file sizes)

Unit seconds: the 97 units the H200 machine's 16 CPU cores finished in 300 s (foodweb_unit_seconds.csv, measured
there with jobs=16), and the 17 it did not finish, from a run of those webs on 2 local CPU cores
(foodweb_local_seconds.csv) scaled by the ratio of the units both runs finished (an estimate: these are
models of the wall time, not measurements of it).
"""

import heapq
import os
import statistics
from pathlib import Path

import pandas as pd

HERE = Path(__file__).parent
WEBS = Path(os.environ.get("GATBIO_DATA", "../shared/data")) / "gateway_dev" / "webs"


def makespan(seconds: list[float], workers: int) -> tuple[float, list[float]]:
    """Wall time of running ``seconds`` in order on ``workers``, and each unit's finishing time."""
    free = [0.0] * workers
    ends = []
    for s in seconds:
        start = heapq.heappop(free)
        ends.append(start + s)
        heapq.heappush(free, start + s)
    return max(ends), ends


def _folds(seconds: float, fold_seconds: str) -> list[float]:
    f = [float(x) for x in str(fold_seconds).split(";")]
    rest = max(seconds - sum(f), 0.0) / len(f)
    return [x + rest for x in f]


def main() -> None:
    gpu = pd.read_csv(HERE / "foodweb_unit_seconds.csv")
    local = pd.read_csv(HERE / "foodweb_local_seconds.csv").rename(
        columns={"seconds": "seconds_local", "fold_seconds": "fold_seconds_local"})
    both = gpu.merge(local[["web", "protocol", "seconds_local"]], on=["web", "protocol"])
    factor = statistics.median(both["seconds"] / both["seconds_local"])
    print(f"units finished by both runs: {len(both)}; H200 machine / local seconds, median {factor:.3f} "
          f"({', '.join(f'{r:.3f}' for r in both['seconds'] / both['seconds_local'])})")
    secs = {(r.web, r.protocol): r.seconds for r in gpu.itertuples()}
    est = {(r.web, r.protocol): r.seconds_local * factor for r in local.itertuples() if (r.web, r.protocol) not in secs}
    units = {**secs, **est}
    # per fold: the fold's seconds plus a fifth of the unit's time outside its folds (reading, splitting)
    folds = {(r.web, r.protocol): _folds(r.seconds, r.fold_seconds) for r in gpu.itertuples()}
    folds.update({(r.web, r.protocol): [f * factor for f in _folds(r.seconds_local, r.fold_seconds_local)]
                  for r in local.itertuples() if (r.web, r.protocol) not in secs})
    print(f"units: {len(secs)} measured, {len(est)} estimated; all units' seconds {sum(units.values()):.0f} "
          f"({sum(units.values()) / 16:.0f} per worker of 16); largest unit {max(units.values()):.0f} s")
    size = {p.name: next(p.glob("*_edge_list.txt")).stat().st_size for p in WEBS.iterdir() if p.is_dir()}
    missing = [u for u in size for prot in ("links", "species") if (u, prot) not in units]
    assert not missing, missing
    # The step's 300 s also held what no unit's seconds count (Python and imports in the main process and in
    # each of the 16 workers, reading the config): the offset at which the old order's model has as many units
    # done by 300 s as the machine had (97).
    before = [(w, p) for p in ("links", "species") for w in sorted(size, key=size.get)]
    _, ends = makespan([units[u] for u in before], 16)
    offset = min(t for t in range(0, 120) if sum(e + t <= 300 for e in ends) <= len(secs))
    print(f"start-up offset that gives {len(secs)} units done by 300 s in the old order: {offset} s")
    for name, reverse in (("smallest first (before)", False), ("largest first (now, jobs > 1)", True)):
        order = sorted(size, key=size.get, reverse=reverse)
        seq = [(w, p) for p in ("links", "species") for w in order]
        total, ends = makespan([units[u] for u in seq], 16)
        print(f"{name}: {total:.0f} s of units on 16 workers, {total + offset:.0f} s with the offset")
        if reverse:
            fold_seq = [x for u in seq for x in folds[u]]
            total_f, _ = makespan(fold_seq, 16)
            print(f"each fold a unit, largest web first: {total_f:.0f} s, {total_f + offset:.0f} s with the offset "
                  f"({len(fold_seq)} units)")


if __name__ == "__main__":
    main()
