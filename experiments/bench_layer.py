"""Benchmark gatbio's GATConv against PyG's GATConv and against the linear + sparse-product floor.

Every case (layer × size) runs in a fresh ``spawn`` process, so its peak memory is its own: on CPU the
process's RSS high-water mark (``resource.getrusage``) minus its RSS before the first forward pass (torch
allocations are invisible to ``tracemalloc``); on CUDA ``torch.cuda.max_memory_allocated`` minus the
memory allocated before. Time is forward + backward of the layer (after a warm-up call), the median of
``--repeats`` calls in each of ``--rounds`` rounds; the rounds visit the cases in turn, so machine load
(other users of the CPUs) hits all of them alike and the ratios stay meaningful.

Cases, per size:
    ours_all   gatbio GATConv, all options on (edge features, attention bias, learnt temperature,
               log-degree prior, residual); impl="auto" (the fused path at these sizes)
    ours_off   gatbio GATConv with PyG's defaults, impl="auto"
    ours_ref   gatbio GATConv with all options on, impl="reference" (PyG message passing), --with-reference
    pyg        torch_geometric.nn.GATConv with the same sizes (PyG's defaults)
    pyg_all    PyG's GATConv with the options it shares with ours_all (edge features, residual)
    floor      a linear layer in → H·C plus one CSR sparse-dense product with the graph (the least any
               attention layer must do)
    floor_res  the floor plus a residual linear layer in → H·C (the least a layer with ``residual=True``,
               as in ours_all, must do)

Sizes: ``ppi`` (4,500 nodes, 120k edges, 1024 → 4 heads × 256), ``1m`` (10k nodes, 1M edges, 128 → 4 × 64),
``10m`` (20k nodes, 10M edges, 64 → 4 × 64; PyG is skipped when its estimated memory exceeds the limit).
``--scaling`` adds a full-batch training step of a 2-layer model (64 → 4 × 64 → 16 labels) on 20k nodes
for 1e5 … 1e7 edges, with the log-log slope of time against edges.

Usage::

    python experiments/bench_layer.py --json results/bench/bench_cpu.json            # everything
    python experiments/bench_layer.py --sizes ppi --no-scaling                        # one size
    python experiments/bench_layer.py --device cuda --json results/bench/bench_cuda.json
    python experiments/bench_layer.py --quick                                         # smoke test
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import resource
import statistics
import sys
import time
import warnings
from dataclasses import asdict, dataclass
from pathlib import Path


@dataclass(frozen=True)
class Size:
    name: str
    nodes: int
    edges: int
    in_channels: int
    heads: int
    channels: int  # per head
    edge_dim: int = 4


SIZES = {
    "ppi": Size("ppi", 4_500, 120_000, 1024, 4, 256),
    "1m": Size("1m", 10_000, 1_000_000, 128, 4, 64),
    "10m": Size("10m", 20_000, 10_000_000, 64, 4, 64),
}
QUICK_SIZES = {"tiny": Size("tiny", 300, 3_000, 32, 2, 8)}
LAYERS = ("ours_all", "ours_off", "ours_ref", "pyg", "pyg_all", "floor", "floor_res")
SCALING_EDGES = (100_000, 300_000, 1_000_000, 3_000_000, 10_000_000)
SCALING_NODES, SCALING_IN, SCALING_HIDDEN, SCALING_HEADS, SCALING_LABELS = 20_000, 64, 64, 4, 16


# ----------------------------------------------------------------------------- memory estimates
def estimate_bytes(layer: str, s: Size, dtype_bytes: int = 4) -> int:
    """A rough upper estimate of a case's peak memory, to skip cases that would exhaust the machine.

    PyG keeps the gathered (E, H, C) source features and the (E, H, C) messages for the backward pass
    and builds two more of them (their gradients) in it; ours and the floor hold O(E·H) values and
    O(E·H) integers (CSR layouts) plus node-sized tensors.
    """
    E, N, HC = s.edges + s.nodes, s.nodes, s.heads * s.channels
    nodes = N * (s.in_channels + 4 * HC) * dtype_bytes
    if layer in ("pyg", "pyg_all", "ours_ref"):
        return 4 * E * HC * dtype_bytes + 12 * E * s.heads * dtype_bytes + 32 * E + nodes
    if layer in ("floor", "floor_res"):
        return 16 * E + 2 * E * dtype_bytes + 2 * nodes
    # ~14 (E, H) float tensors kept for the backward pass, the int32 CSR layouts (16 bytes per edge and
    # head), edge-level copies of edge_index and edge features.
    return 14 * E * s.heads * dtype_bytes + 16 * E * s.heads + 64 * E + 8 * E * s.edge_dim + nodes


def available_bytes() -> int | None:
    """MemAvailable from /proc/meminfo (Linux), else None."""
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def _rss_bytes() -> int:
    """Current resident set size (Linux /proc; falls back to the high-water mark elsewhere)."""
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
        return pages * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError):
        return _maxrss_bytes()


def _maxrss_bytes() -> int:
    scale = 1 if sys.platform == "darwin" else 1024  # ru_maxrss is bytes on macOS, KiB on Linux
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale


# ----------------------------------------------------------------------------- one case (child process)
def _random_graph(s_nodes: int, s_edges: int, seed: int, device):
    import torch

    g = torch.Generator().manual_seed(seed)
    edge_index = torch.randint(0, s_nodes, (2, s_edges), generator=g)
    return edge_index.to(device), g


def _build_layer(layer: str, s: Size, device):
    import torch
    import torch_geometric.nn as pyg_nn

    from gatbio.nn import GATConv

    H, C = s.heads, s.channels
    if layer == "pyg":
        return pyg_nn.GATConv(s.in_channels, C, heads=H).to(device)
    if layer == "pyg_all":
        return pyg_nn.GATConv(s.in_channels, C, heads=H, edge_dim=s.edge_dim, residual=True).to(device)
    if layer == "ours_off":
        return GATConv(s.in_channels, C, heads=H).to(device)
    if layer in ("ours_all", "ours_ref"):
        impl = "reference" if layer == "ours_ref" else "auto"
        return GATConv(s.in_channels, C, heads=H, edge_dim=s.edge_dim, residual=True, temperature="learn",
                       degree_norm="log", impl=impl).to(device)
    if layer in ("floor", "floor_res"):
        width = 2 * H * C if layer == "floor_res" else H * C  # [W; W_res] as one GEMM
        return torch.nn.Linear(s.in_channels, width, bias=False).to(device)
    raise ValueError(f"unknown layer {layer!r}; choose from {LAYERS}")


def _csr_adjacency(edge_index, num_nodes: int):
    """(N, N) CSR matrix with a 1 at (target, source) for every edge (the floor's one sparse product)."""
    import torch

    src, dst = edge_index
    order = torch.argsort(dst * num_nodes + src)
    crow = torch.zeros(num_nodes + 1, dtype=torch.long, device=src.device)
    torch.cumsum(torch.bincount(dst, minlength=num_nodes), 0, out=crow[1:])
    ones = torch.ones(src.numel(), device=src.device)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Sparse CSR tensor support is in beta")
        return torch.sparse_csr_tensor(crow, src[order], ones, (num_nodes, num_nodes), check_invariants=False)


def _sync(device) -> None:
    import torch

    if device.type == "cuda":
        torch.cuda.synchronize(device)


def _memory_start(device) -> int:
    import torch

    if device.type == "cuda":
        torch.cuda.synchronize(device)
        torch.cuda.reset_peak_memory_stats(device)
        return torch.cuda.memory_allocated(device)
    return _rss_bytes()


def _memory_peak(device) -> int:
    import torch

    if device.type == "cuda":
        torch.cuda.synchronize(device)
        return torch.cuda.max_memory_allocated(device)
    return _maxrss_bytes()


def _measure(step, device, repeats: int) -> dict:
    """Time ``step`` (a warm-up call, then ``repeats`` timed calls) and the memory it adds at its peak."""
    base = _memory_start(device)
    t0 = time.perf_counter()
    step()  # warm-up; for ours this builds (and caches) the CSR layout of the graph
    _sync(device)
    first = time.perf_counter() - t0
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        step()
        _sync(device)
        times.append(time.perf_counter() - t0)
    peak = _memory_peak(device)
    return {"time_s": statistics.median(times), "times_s": times, "first_call_s": first,
            "peak_mem_bytes": max(peak - base, 0)}


def run_layer_case(layer: str, s: Size, device_name: str, repeats: int, threads: int, seed: int = 0) -> dict:
    """Forward + backward timings and peak memory of one layer on one graph (run in a fresh process)."""
    import torch

    torch.set_num_threads(threads)
    device = torch.device(device_name)
    torch.manual_seed(seed)
    edge_index, g = _random_graph(s.nodes, s.edges, seed, device)
    x = torch.randn(s.nodes, s.in_channels, generator=g).to(device)
    edge_attr = torch.rand(s.edges, s.edge_dim, generator=g).to(device)
    attn_bias = torch.randn(s.edges, generator=g).to(device)
    module = _build_layer(layer, s, device)
    adj = _csr_adjacency(edge_index, s.nodes) if layer.startswith("floor") else None
    HC = s.heads * s.channels

    def step():
        if layer == "floor":
            out = adj @ module(x)  # (N, H*C)
        elif layer == "floor_res":
            h = module(x)  # (N, 2*H*C)
            out = adj @ h[:, :HC] + h[:, HC:]
        elif layer in ("ours_all", "ours_ref"):
            out = module(x, edge_index, edge_attr, attn_bias=attn_bias)
        elif layer == "pyg_all":
            out = module(x, edge_index, edge_attr)
        else:
            out = module(x, edge_index)
        out.backward(torch.ones_like(out))
        module.zero_grad(set_to_none=True)

    return _measure(step, device, repeats)


class TwoLayerGAT:
    """The scaling model: GATConv(64 → 4 × 64) → ELU → GATConv(256 → 16, 4 heads averaged), as in GAT's
    PPI model (Veličković et al. 2018), trained full-batch with multi-label BCE and Adam."""

    @staticmethod
    def build(device, impl: str = "auto"):
        import torch

        from gatbio.nn import GATConv

        class Net(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.conv1 = GATConv(SCALING_IN, SCALING_HIDDEN, heads=SCALING_HEADS, impl=impl)
                self.conv2 = GATConv(SCALING_HIDDEN * SCALING_HEADS, SCALING_LABELS, heads=SCALING_HEADS,
                                     concat=False, impl=impl)

            def forward(self, x, edge_index):
                h = torch.nn.functional.elu(self.conv1(x, edge_index))  # (N, H*64)
                return self.conv2(h, edge_index)  # (N, 16)

        return Net().to(device)


def run_training_case(edges: int, device_name: str, repeats: int, threads: int, seed: int = 0) -> dict:
    """Time and peak memory of full-batch training steps of :class:`TwoLayerGAT` (fresh process)."""
    import torch

    torch.set_num_threads(threads)
    device = torch.device(device_name)
    torch.manual_seed(seed)
    edge_index, g = _random_graph(SCALING_NODES, edges, seed, device)
    x = torch.randn(SCALING_NODES, SCALING_IN, generator=g).to(device)
    y = (torch.rand(SCALING_NODES, SCALING_LABELS, generator=g) < 0.2).float().to(device)
    model = TwoLayerGAT.build(device)
    opt = torch.optim.Adam(model.parameters(), lr=5e-3)

    def step():
        opt.zero_grad(set_to_none=True)
        loss = torch.nn.functional.binary_cross_entropy_with_logits(model(x, edge_index), y)
        loss.backward()
        opt.step()
        return float(loss.detach())

    return _measure(step, device, repeats)


def _child(queue, fn_name: str, kwargs: dict) -> None:
    try:
        queue.put(("ok", globals()[fn_name](**kwargs)))
    except Exception as err:  # report to the parent instead of dying silently
        queue.put(("error", f"{type(err).__name__}: {err}"))


def in_fresh_process(fn_name: str, timeout: float, **kwargs) -> dict:
    """Run ``fn_name(**kwargs)`` in a fresh spawn process; its peak RSS is then its own."""
    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    proc = ctx.Process(target=_child, args=(queue, fn_name, kwargs))
    proc.start()
    try:
        status, value = queue.get(timeout=timeout)
    except Exception:
        proc.kill()
        proc.join()
        code = proc.exitcode
        why = "killed (out of memory?)" if code in (-9, 137) else f"exit code {code}"
        return {"skipped": f"no result within {timeout:.0f} s ({why})"}
    proc.join()
    if status == "error":
        return {"skipped": f"failed: {value}"}
    return value


# ----------------------------------------------------------------------------- driver
def gb(n: float) -> float:
    return round(n / 2**30, 3)


def bench_layers(sizes, layers, args, limit: int) -> dict:
    results: dict[str, dict] = {}
    cases = []
    for s in sizes:
        for layer in layers:
            est = estimate_bytes(layer, s)
            key = f"{s.name}.{layer}"
            if est > limit:
                results[key] = {"skipped": f"estimated {gb(est)} GB > memory limit {gb(limit)} GB",
                                "estimated_mem_gb": gb(est)}
                print(f"  {key:<16} skipped: estimated {gb(est):.1f} GB > limit {gb(limit):.1f} GB", flush=True)
            else:
                cases.append((s, layer))
    runs: dict[str, list[dict]] = {f"{s.name}.{layer}": [] for s, layer in cases}
    for r in range(args.rounds):
        for s, layer in cases:
            key = f"{s.name}.{layer}"
            if runs[key] and "skipped" in runs[key][-1]:
                continue
            res = in_fresh_process("run_layer_case", args.timeout, layer=layer, s=s, device_name=args.device,
                                   repeats=args.repeats, threads=args.threads)
            runs[key].append(res)
            shown = res.get("skipped") or f"{res['time_s']:.3f} s, {gb(res['peak_mem_bytes']):.2f} GB"
            print(f"  round {r + 1}/{args.rounds} {key:<16} {shown}", flush=True)
    for key, rs in runs.items():
        ok = [r for r in rs if "skipped" not in r]
        if not ok:
            results[key] = rs[-1]
            continue
        results[key] = {
            "time_s": statistics.median(t for r in ok for t in r["times_s"]),
            "peak_mem_gb": gb(statistics.median(r["peak_mem_bytes"] for r in ok)),
            "first_call_s": statistics.median(r["first_call_s"] for r in ok),
            "n_timings": sum(len(r["times_s"]) for r in ok),
        }
    return results


def ratios(results: dict, sizes) -> dict:
    out = {}
    for s in sizes:
        def get(layer, field, name=s.name):
            r = results.get(f"{name}.{layer}", {})
            return r.get(field)

        for ours in ("ours_all", "ours_off"):
            suffix = "" if ours == "ours_all" else "_options_off"
            t, m = get(ours, "time_s"), get(ours, "peak_mem_gb")
            for other in ("pyg", "pyg_all", "floor", "floor_res", "ours_ref"):
                if other in ("floor_res", "pyg_all") and ours != "ours_all":
                    continue
                t2, m2 = get(other, "time_s"), get(other, "peak_mem_gb")
                label = {"pyg": "pyg", "pyg_all": "pyg_same_options", "floor": "floor",
                         "floor_res": "floor_with_residual", "ours_ref": "reference"}[other]
                if t is not None and t2:
                    out[f"{s.name}.time_ratio_vs_{label}{suffix}"] = round(t / t2, 3)
                if m is not None and m2:
                    out[f"{s.name}.memory_ratio_vs_{label}{suffix}"] = round(m / m2, 3)
    return out


def bench_scaling(args, limit: int, edges_list) -> dict:
    out: dict[str, object] = {}
    points = []
    for E in edges_list:
        s = Size("scaling", SCALING_NODES, E, SCALING_IN, SCALING_HEADS, SCALING_HIDDEN)
        est = 2 * estimate_bytes("ours_off", s)
        if est > limit:
            out[f"scaling.{E}"] = {"skipped": f"estimated {gb(est)} GB > limit {gb(limit)} GB"}
            continue
        res = in_fresh_process("run_training_case", args.timeout, edges=E, device_name=args.device,
                               repeats=args.scaling_repeats, threads=args.threads)
        if "skipped" in res:
            out[f"scaling.{E}"] = res
            print(f"  train step {E:>10,} edges: {res['skipped']}", flush=True)
            continue
        out[f"scaling.{E}"] = {"time_s": res["time_s"], "peak_mem_gb": gb(res["peak_mem_bytes"]),
                               "first_call_s": res["first_call_s"]}
        points.append((E, res["time_s"]))
        print(f"  train step {E:>10,} edges: {res['time_s']:.3f} s, peak {gb(res['peak_mem_bytes']):.2f} GB "
              f"(first step incl. CSR layout {res['first_call_s']:.2f} s)", flush=True)
    if len(points) >= 2:
        import numpy as np

        logE, logT = np.log10([p[0] for p in points]), np.log10([p[1] for p in points])
        slope, _ = np.polyfit(logE, logT, 1)
        out["scaling.loglog_slope"] = round(float(slope), 3)
        print(f"  time ∝ edges^{slope:.2f} over {points[0][0]:,} … {points[-1][0]:,} edges", flush=True)
        upper = [p for p in points if p[0] >= 1_000_000]  # where edge work dominates node work
        if 2 <= len(upper) < len(points):
            slope_hi, _ = np.polyfit(np.log10([p[0] for p in upper]), np.log10([p[1] for p in upper]), 1)
            out["scaling.loglog_slope_from_1m_edges"] = round(float(slope_hi), 3)
            print(f"  time ∝ edges^{slope_hi:.2f} over {upper[0][0]:,} … {upper[-1][0]:,} edges", flush=True)
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--device", default="cpu", help="cpu or cuda (default: cpu)")
    p.add_argument("--sizes", default="ppi,1m,10m", help=f"comma-separated, from {sorted(SIZES)}")
    p.add_argument("--layers", default="ours_all,ours_off,pyg,pyg_all,floor,floor_res", help=f"comma-separated, from {LAYERS}")
    p.add_argument("--with-reference", action="store_true", help="also time our reference path (ours_ref)")
    p.add_argument("--repeats", type=int, default=3, help="timed calls per process (after a warm-up)")
    p.add_argument("--rounds", type=int, default=3, help="fresh processes per case, interleaved")
    p.add_argument("--threads", type=int, default=os.cpu_count() or 1, help="torch threads per case")
    p.add_argument("--no-scaling", action="store_true", help="skip the 2-layer training-step scaling run")
    p.add_argument("--only-scaling", action="store_true", help="run only the training-step scaling")
    p.add_argument("--scaling-edges", default=",".join(str(e) for e in SCALING_EDGES))
    p.add_argument("--scaling-repeats", type=int, default=2)
    p.add_argument("--mem-limit-gb", type=float, default=8.0,
                   help="skip cases estimated above this (also capped at 80%% of available memory)")
    p.add_argument("--timeout", type=float, default=1200.0, help="seconds per case process")
    p.add_argument("--json", type=Path, default=None, help="write every figure and ratio to this file")
    p.add_argument("--quick", action="store_true", help="tiny sizes, one round (a smoke test)")
    args = p.parse_args(argv)

    if args.device.startswith("cuda"):
        import torch

        if not torch.cuda.is_available():
            p.error("--device cuda was given but no CUDA device is available")
    layers = [x for x in args.layers.split(",") if x]
    if args.with_reference and "ours_ref" not in layers:
        layers.append("ours_ref")
    bad = [x for x in layers if x not in LAYERS]
    if bad:
        p.error(f"--layers: unknown {bad}; choose from {LAYERS}")
    if args.quick:
        sizes, args.rounds, args.repeats, args.scaling_repeats = list(QUICK_SIZES.values()), 1, 1, 1
        scaling_edges = [2_000, 8_000]
    else:
        unknown = [n for n in args.sizes.split(",") if n not in SIZES]
        if unknown:
            p.error(f"--sizes: unknown {unknown}; choose from {sorted(SIZES)}")
        sizes = [SIZES[n] for n in args.sizes.split(",")]
        scaling_edges = [int(e) for e in args.scaling_edges.split(",") if e]
    limit = int(args.mem_limit_gb * 2**30)
    avail = available_bytes()
    if avail is not None and not args.device.startswith("cuda"):
        limit = min(limit, int(0.8 * avail))

    import torch

    print(f"bench_layer: device={args.device} threads={args.threads} torch={torch.__version__} "
          f"memory limit {gb(limit):.1f} GB, {args.rounds} rounds × {args.repeats} repeats", flush=True)
    if args.only_scaling:
        sizes = []
    results = bench_layers(sizes, layers, args, limit)
    summary = ratios(results, sizes)
    for key, value in summary.items():
        print(f"  {key:<40} {value:.3f}")
    scaling = {} if args.no_scaling else bench_scaling(args, limit, scaling_edges)
    record = {
        "command": "python experiments/bench_layer.py " + " ".join(argv if argv is not None else sys.argv[1:]),
        "device": args.device, "threads": args.threads, "torch": torch.__version__,
        "sizes": {s.name: asdict(s) for s in sizes},
        **{f"{k}.{f}": v for k, r in results.items() for f, v in r.items()},
        **summary,
        **{f"{k}.{f}" if isinstance(r, dict) else k: v
           for k, r in scaling.items() for f, v in (r.items() if isinstance(r, dict) else [(None, r)])},
    }
    record = {k.removesuffix(".None"): v for k, v in record.items()}
    if args.json is not None:
        from gatbio.results import write_json

        write_json(args.json, record)
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
