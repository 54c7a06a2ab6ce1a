"""Host-side cost of one forward + backward of gatbio's GATConv on the Triton path, with no GPU: what a step
costs the CPU before any kernel runs (Python, operator dispatch, autograd, the small PyTorch operations around
the kernels). On a GPU below a million edges the step waits on this, not on the kernels (experiments/README.md,
the layer benchmark's H200 figures: every Triton row 3–6 ms whatever the graph's size, the floor 1.1 ms).

The kernels run in Triton's interpreter with their launches replaced by nothing (``TRITON_INTERPRET=1``;
``gatbio.nn.kernels.ops._launch`` stubbed), on a tiny graph (300 nodes, 3,000 edges, 64 → 4 × 64), so what is
timed is everything but the kernels; the PyTorch operations themselves run on CPU tensors of that size. A proxy:
it ranks code changes by the host time they add or remove; the GPU figure is measured on a GPU.

``--against DIR`` times another checkout of gatbio (e.g. ``git worktree add /tmp/base HEAD~1``) in the same run,
rounds interleaved, each in a fresh process, and prints the ratio of the medians.

Usage::

    python experiments/bench_host_overhead.py                          # this checkout: ms per step, per row
    python experiments/bench_host_overhead.py --against /tmp/base       # this checkout / the other one
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROWS = ("gat", "gat_all", "gatv2_all", "dot_all")
REPO = Path(__file__).resolve().parent.parent

CHILD = r"""
import json, os, sys, time
os.environ["TRITON_INTERPRET"] = "1"
import torch
from gatbio.nn import GATConv
from gatbio.nn.kernels import ops
ops._launch = lambda *args, **kwargs: None  # the kernels are not run: what is left is the host's work
row, steps = sys.argv[1], int(sys.argv[2])
torch.manual_seed(0)
torch.set_num_threads(1)
N, E, F, H, C = 300, 3000, 64, 4, 64
x, ei = torch.randn(N, F), torch.randint(0, N, (2, E))
ea, bias = torch.rand(E, 4), torch.randn(E)
attention, every = row.split("_")[0], row.endswith("_all")
options = dict(edge_dim=4, residual=True, temperature="learn", degree_norm="log") if every else {}
conv = GATConv(F, C, heads=H, attention=attention, impl="triton", **options)
xin = (x, x) if attention == "dot" else x
def step():
    out = conv(xin, ei, ea, attn_bias=bias) if every else conv(xin, ei)
    out.backward(torch.ones_like(out))
    conv.zero_grad(set_to_none=True)
for _ in range(20):
    step()
t0 = time.perf_counter()
for _ in range(steps):
    step()
print(json.dumps({"ms": (time.perf_counter() - t0) / steps * 1e3}))
"""


def time_row(checkout: Path, row: str, steps: int) -> float:
    """Host milliseconds per step of ``row`` with gatbio imported from ``checkout``, in a fresh process."""
    env = {**os.environ, "PYTHONPATH": str(checkout), "OMP_NUM_THREADS": "1"}
    r = subprocess.run([sys.executable, "-c", CHILD, row, str(steps)], capture_output=True, text=True, env=env,
                       cwd=checkout)
    if r.returncode != 0:
        raise SystemExit(f"{checkout}: the {row} step failed:\n{r.stderr[-2000:]}")
    return json.loads(r.stdout.strip().splitlines()[-1])["ms"]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--against", type=Path, default=None, help="another checkout of gatbio, timed alongside")
    ap.add_argument("--rows", default=",".join(ROWS), help=f"comma-separated, from {ROWS}")
    ap.add_argument("--rounds", type=int, default=3, help="fresh processes per row and checkout, interleaved")
    ap.add_argument("--steps", type=int, default=200, help="timed steps per process")
    ap.add_argument("--json", type=Path, default=None)
    a = ap.parse_args(argv)
    from gatbio._options import check_at_least
    from gatbio._paths import check_outputs

    check_at_least(ap, a, {"rounds": 1, "steps": 1})
    try:
        check_outputs({"--json": a.json})  # before the runs, not after them
    except (ValueError, OSError) as err:
        ap.error(str(err))
    rows = [r for r in a.rows.split(",") if r]
    bad = [r for r in rows if r not in ROWS]
    if bad:
        ap.error(f"--rows: unknown {bad}; choose from {ROWS}")
    if a.against is not None and not (a.against / "gatbio" / "nn" / "conv.py").is_file():
        ap.error(f"--against {a.against}: not a gatbio checkout (no gatbio/nn/conv.py there)")
    checkouts = {"this": REPO, **({"against": a.against.resolve()} if a.against else {})}
    times: dict[str, dict[str, list[float]]] = {k: {r: [] for r in rows} for k in checkouts}
    for _ in range(a.rounds):
        for row in rows:
            for name, path in checkouts.items():
                times[name][row].append(time_row(path, row, a.steps))
    record: dict[str, float] = {}
    print(f"host ms per forward + backward (kernels not launched), median of {a.rounds} processes x {a.steps} steps")
    for row in rows:
        here = statistics.median(times["this"][row])
        record[f"{row}.host_ms"] = round(here, 3)
        line = f"  {row:<10} this {here:7.3f} ms"
        if a.against is not None:
            there = statistics.median(times["against"][row])
            record[f"{row}.against_host_ms"] = round(there, 3)
            record[f"{row}.host_ratio_vs_against"] = round(here / there, 3)
            line += f"   against {there:7.3f} ms   ratio {here / there:.3f}"
        print(line, flush=True)
    if a.json is not None:
        from gatbio.results import write_json

        write_json(a.json, {"rounds": a.rounds, "steps": a.steps, "against": str(a.against), **record})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
