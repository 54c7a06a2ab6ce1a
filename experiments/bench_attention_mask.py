"""Benchmark: what `-inf` masking costs the attention weights of a layer given an ``attn_bias``.

``gatbio.nn.functional.attention_weights`` reads an ``attn_bias`` of ``-inf`` as a masked edge (weight 0, no
gradient; a target whose edges are all masked gets weights 0). It does so on every call with a bias, without
asking whether one is ``-inf`` (that answer would be a value read back: a wait on a GPU, a branch ``vmap`` and
compiling refuse): three more elementwise passes over the (E, H) logits. This script times, side by side on the
CPU with a finite random bias (the common case: a trophic-level bias), alternating the two, ``repeats`` times:

- the computation without masking (bias added, divided by the temperature, PyG's ``softmax``), and
- ``attention_weights`` as the layer calls it,

checks that both give the same weights, and prints the medians and their ratio.

Usage::

    python experiments/bench_attention_mask.py [--nodes 200000] [--edges 2000000] [--heads 4] [--repeats 5]
                                               [--threads 1]
"""

from __future__ import annotations

import argparse
import statistics
import time

import torch
from torch_geometric.utils import softmax

from gatbio._options import check_at_least
from gatbio.nn import functional as GF


def unmasked(scores, edge_index, num_dst, bias, tau):
    """The weights as computed before masking (for a finite bias, the same numbers)."""
    return softmax((scores + bias) / tau.view(1, -1), edge_index[1], num_nodes=num_dst)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--nodes", type=int, default=200_000, help="nodes of the random graph, >= 2 (default: 200000)")
    ap.add_argument("--edges", type=int, default=2_000_000,
                    help="edges of the random graph (E), >= 1 (default: 2000000)")
    ap.add_argument("--heads", type=int, default=4, help="attention heads (H), >= 1 (default: 4)")
    ap.add_argument("--repeats", type=int, default=5, help="timed runs of each, the median is kept (default: 5)")
    ap.add_argument("--threads", type=int, default=1, help="torch threads (default: 1)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the random graph, scores and bias (default: 0)")
    args = ap.parse_args(argv)
    check_at_least(ap, args, {"nodes": 2, "edges": 1, "heads": 1, "repeats": 1, "threads": 1})
    torch.set_num_threads(args.threads)
    g = torch.Generator().manual_seed(args.seed)
    ei = torch.randint(0, args.nodes, (2, args.edges), generator=g)
    scores = torch.randn(args.edges, args.heads, generator=g)
    bias = torch.randn(args.edges, args.heads, generator=g)
    tau = torch.full((args.heads,), 0.7)
    runs = {"without masking": lambda: unmasked(scores, ei, args.nodes, bias, tau),
            "attention_weights": lambda: GF.attention_weights(scores, ei, args.nodes, attn_bias=bias,
                                                              temperature=tau)}
    times: dict[str, list[float]] = {k: [] for k in runs}
    out = {}
    for _ in range(args.repeats):  # alternated, so that machine load weighs on both alike
        for name, fn in runs.items():
            t0 = time.perf_counter()
            out[name] = fn()
            times[name].append(time.perf_counter() - t0)
    torch.testing.assert_close(out["attention_weights"], out["without masking"], rtol=0, atol=0)
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"N = {args.nodes:,}, E = {args.edges:,}, H = {args.heads}, {args.threads} thread(s), "
          f"median of {args.repeats}; the same weights")
    for name, t in med.items():
        print(f"{name:18s}: {1000 * t:8.1f} ms")
    print(f"ratio             : {med['attention_weights'] / med['without masking']:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
