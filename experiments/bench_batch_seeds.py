"""Time the food-web GAT's seeds trained one after another against one batched model (``gat.batch_seeds``).

For a few GATEWAy dev webs (smallest, median and largest by links, or those named), the first fold of the links
protocol: ``gat`` with the benchmark's 5-seed ensemble and default settings, trained by :func:`fit_gat` per seed
and by :func:`fit_gat_seeds` (gatbio.tasks.foodweb); wall time of each (the faster of ``--repeats`` runs), the largest logit
difference between the two, and the fold's PR-AUC of each seed (mean over seeds) and of the seed-averaged logits
(what ``full`` pools), for both. The two ways differ only in floating-point summation order; the GAT's training
amplifies such differences (feeding the same masks in reverse order changes logits by as much), so the PR-AUCs,
not the logits, are what should agree::

    python experiments/bench_batch_seeds.py --device cpu --json results/bench/batch_seeds_cpu.json
    python experiments/bench_batch_seeds.py --device cuda --json results/bench/batch_seeds_cuda.json
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import torch

from gatbio._options import check_at_least


def main(argv: list[str] | None = None) -> int:
    from gatbio.data import data_root
    from gatbio.device import announce_device, resolve_device
    from gatbio.metrics import pr_auc
    from gatbio.results import write_json
    from gatbio.tasks import foodweb as fw

    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--device", default="auto", help="auto, cpu, cuda, cuda:N or mps (default: auto)")
    p.add_argument("--webs", nargs="*", default=None, help="web folder names (default: smallest, median, largest)")
    p.add_argument("--quantiles", default="0,0.5,1", help="without --webs: the webs at these quantiles of size "
                                                         "(file size of the edge list; default: 0,0.5,1)")
    p.add_argument("--seeds", type=int, default=5, help="GAT seeds (default: 5, the benchmark's ensemble)")
    p.add_argument("--repeats", type=int, default=2, help="timed runs of each, the fastest is kept (default: 2)")
    p.add_argument("--threads", type=int, default=1, help="torch threads (default: 1, as benchmark workers)")
    p.add_argument("--json", type=Path, default=None, help="also write the figures to this JSON file (default: printed only)")
    args = p.parse_args(argv)
    from gatbio._paths import check_outputs

    check_at_least(p, args, {"seeds": 1, "repeats": 1, "threads": 1})
    try:  # every argument checked before any work: one line each, not a traceback after the run
        dev = resolve_device(args.device)
        check_outputs({"--json": args.json})
    except (ValueError, OSError) as err:
        p.error(str(err))
    announce_device(dev, args.device)
    torch.set_num_threads(args.threads)
    folders = fw.find_web_folders(data_root() / "gateway_dev" / "webs")
    if args.webs:
        missing = sorted(set(args.webs) - {f.name for f in folders})
        if missing:
            p.error(f"--webs {missing}: no such web folder in {data_root() / 'gateway_dev' / 'webs'}")
        folders = [f for f in folders if f.name in set(args.webs)]
    else:
        folders.sort(key=lambda f: next(f.glob("*_edge_list.txt")).stat().st_size)
        picks = [round(float(q) * (len(folders) - 1)) for q in args.quantiles.split(",")]
        folders = [folders[i] for i in dict.fromkeys(picks)]
    params, seeds, rows = fw.GATParams(), list(range(args.seeds)), []
    sync = torch.cuda.synchronize if dev.type == "cuda" else (lambda: None)
    for folder in folders:
        data = fw.read_web_folder(folder)
        traits, _ = fw.prepare_traits(getattr(data, "x", None), getattr(data, "trait_names", None))
        fold = fw.link_folds(data)[0]
        A = fw.adjacency_of(fold["observed"], data.num_nodes)
        masks = {s: fw.training_masks(A, traits, params, "links", s) for s in seeds}
        times: dict[str, list[float]] = {"one_by_one": [], "batched": []}
        scores = {}
        for _ in range(args.repeats):
            for how in times:
                sync()
                t0 = time.perf_counter()
                if how == "batched":
                    models = fw.fit_gat_seeds(A, traits, params, seeds, masks=masks, device=dev)
                else:
                    models = [fw.fit_gat(A, traits, params, seed=s, masks=masks[s], device=dev) for s in seeds]
                sync()
                times[how].append(time.perf_counter() - t0)
                scores[how] = [fw.gat_scores(m, A, traits, params) for m in models]
        diff = max(float(np.abs(a - b).max()) for a, b in zip(scores["one_by_one"], scores["batched"], strict=True))
        y = fold["truth"][fold["test"]]
        row = {"web": folder.name, "species": data.num_nodes, "links": data.num_edges, "seeds": len(seeds),
               "one_by_one_s": round(min(times["one_by_one"]), 3), "batched_s": round(min(times["batched"]), 3),
               "speedup": round(min(times["one_by_one"]) / min(times["batched"]), 2),  # side by side, this run
               "max_logit_difference": round(diff, 4)}
        for how, per_seed in scores.items():
            row[f"{how}_pr_auc_mean_of_seeds"] = round(float(np.mean([pr_auc(y, s[fold["test"]]) for s in per_seed])), 4)
            row[f"{how}_pr_auc_of_mean"] = round(pr_auc(y, np.mean(per_seed, axis=0)[fold["test"]]), 4)
        rows.append(row)
        print(row, flush=True)
    if args.json is not None:
        write_json(args.json, {"device": str(dev), "threads": args.threads, "repeats": args.repeats, "rows": rows})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
