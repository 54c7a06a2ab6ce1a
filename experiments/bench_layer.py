"""Benchmark gatbio's GATConv against PyG's GATConv and against the linear + sparse-product floor.

Two modes. **CPU** (the default): every case (layer × size) runs in a fresh ``spawn`` process, so its peak
memory is its own: the process's RSS high-water mark (``resource.getrusage``) minus its RSS before the first
forward pass (torch allocations are invisible to ``tracemalloc``). Time is forward + backward of the layer
(after a warm-up call), the median of ``--repeats`` calls in each of ``--rounds`` rounds; the rounds visit the
cases in turn, so machine load (other users of the CPUs) hits all of them alike and the ratios stay meaningful.

**GPU** (``--device cuda``; ``--one-process`` runs the same engine on CPU): every case in this one process,
rows below "GPU rows". Forward + backward, ``--warmup`` untimed calls (the first builds the graph's layout and
compiles Triton's kernels: on graphs of 2^17 edges or more it also autotunes them, or reads an earlier process's
choice from Triton's disk cache; smaller graphs, the ``ppi`` size among them, run one fixed configuration) then the
median of ``--repeats`` (7) timed calls; peak memory is
``torch.cuda.max_memory_allocated`` with the peak reset per case after its inputs exist (so it counts the
case's inputs, the layer, its cached graph layout and everything forward + backward allocate). PyG runs at
every size: a ``torch.cuda.OutOfMemoryError`` is recorded as ``"oom"``, its memory freed, and the run goes on.

CPU cases, per size:
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

GPU rows, per size (``gat*``, ``gatv2*``, ``dot_all`` are gatbio's GATConv with ``--impl``, default
``auto``: the Triton kernels on CUDA when Triton imports; with several impls, e.g. ``--impl triton,fused``,
the first gives the plain row names and the others ``<row>_<impl>``):
    gat        PyG's defaults (attention="gat")
    gat_all    all options on: edge features, attention bias, learnt temperature, log-degree prior, residual
    gatv2      attention="gatv2", PyG's defaults
    gatv2_all  attention="gatv2", all options on
    dot_all    attention="dot", all options on
    pyg_gat    torch_geometric.nn.GATConv (PyG's defaults)
    pyg_gatv2  torch_geometric.nn.GATv2Conv (PyG's defaults)
    floor      a linear layer in → H·C plus one CSR sparse-dense product with unit weights
    turbo      ``--turbo``: turbo-gnn's fused ``gatv2_aggr`` (yandex-research/On-Efficient-Scaling-Of-GNNs,
               built from source: ``experiments/gpu_session.sh``, step ``turbo``) after two linear projections,
               when ``turbo_gnn`` imports; head widths 32, 64, 128 or 256 only
    <row>_bf16 each gatbio row under ``torch.autocast(dtype=torch.bfloat16)`` (same parameters and inputs;
               ``--no-bf16`` skips them), with its output's largest error relative to the float32 output
``--profile DIR`` (GPU mode) also runs each case's step 3 times under ``torch.profiler`` and writes
``DIR/<size>.<row>.txt``: the operators and kernels sorted by their own device time (CPU time on CPU), and per
step the kernels launched, the device time they took and its share of the step's wall time (``<case>.profile_*``
in the JSON). Where the share is small the step waits on the host (Python, launches, synchronisations), not on
the GPU: what the table then shows is which operators to fuse or cache.
Ratios (printed and in ``--json``), e.g. ``10m.gatv2.time_ratio_vs_floor``, ``10m.gat_all.time_ratio_vs_pyg``
(gat rows against pyg_gat, gatv2 rows against pyg_gatv2), ``10m.gat_all.memory_ratio_vs_floor``,
``10m.gat_all.bf16_time_ratio_vs_fp32``, ``10m.gat_all.bf16_max_error_vs_fp32``, ``10m.gatv2.time_ratio_vs_turbo``.

Sizes: ``ppi`` (4,500 nodes, 120k edges, 1024 → 4 heads × 256), ``1m`` (10k nodes, 1M edges, 128 → 4 × 64),
``10m`` (20k nodes, 10M edges, 64 → 4 × 64; on CPU PyG is skipped when its estimated memory exceeds the
limit), and for the GPU ``50m`` (1M nodes, 50M edges) and ``100m`` (2M nodes, 100M edges), 64 → 4 × 64;
``tiny`` (300 nodes, 3,000 edges) for smoke tests. CPU default: ppi,1m,10m; GPU default: all but tiny.
``--scaling`` (CPU mode) adds a full-batch training step of a 2-layer model (64 → 4 × 64 → 16 labels) on 20k
nodes for 1e5 … 1e7 edges, with the log-log slope of time against edges.

Usage::

    python experiments/bench_layer.py --json results/bench/bench_cpu.json            # everything (CPU)
    python experiments/bench_layer.py --sizes ppi --no-scaling                        # one size
    python experiments/bench_layer.py --quick                                         # smoke test
    python experiments/bench_layer.py --device cuda --json results/bench/gpu.json     # the GPU table
    python experiments/bench_layer.py --device cuda --sizes 10m --impl triton,fused --turbo
    python experiments/bench_layer.py --device cuda --sizes ppi,10m --rows gat,gat_all,floor --no-bf16 --profile results/prof
"""

from __future__ import annotations

import argparse
import gc
import multiprocessing as mp
import os
import resource
import statistics
import sys
import time
import warnings
from dataclasses import asdict, dataclass
from pathlib import Path

from gatbio._options import check_at_least


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
    "50m": Size("50m", 1_000_000, 50_000_000, 64, 4, 64),
    "100m": Size("100m", 2_000_000, 100_000_000, 64, 4, 64),
}
QUICK_SIZES = {"tiny": Size("tiny", 300, 3_000, 32, 2, 8)}
ALL_SIZES = {**SIZES, **QUICK_SIZES}
CPU_SIZES, GPU_SIZES = "ppi,1m,10m", "ppi,1m,10m,50m,100m"
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


# ----------------------------------------------------------------------------- GPU mode: one process
OURS_ROWS = ("gat", "gat_all", "gatv2", "gatv2_all", "dot_all")
GPU_ROWS = (*OURS_ROWS, "pyg_gat", "pyg_gatv2", "floor")
IMPLS = ("auto", "triton", "fused", "reference")


@dataclass(frozen=True)
class Row:
    """One GPU case: a layer (``kind``: a gatbio row, a PyG row, the floor or turbo), its impl and dtype."""

    name: str
    kind: str
    impl: str = "auto"
    bf16: bool = False


def gpu_rows(rows: list[str], impls: list[str], bf16: bool, turbo: bool) -> list[Row]:
    """The cases of one size: each gatbio row once per impl (the first impl keeps the plain name), its bf16
    twin right after it, then PyG, the floor and turbo-gnn."""
    out = []
    for kind in rows:
        if kind not in OURS_ROWS:
            continue
        for k, impl in enumerate(impls):
            name = kind if k == 0 else f"{kind}_{impl}"
            out.append(Row(name, kind, impl))
            if bf16:
                out.append(Row(f"{name}_bf16", kind, impl, bf16=True))
    out += [Row(kind, kind) for kind in rows if kind not in OURS_ROWS]
    if turbo:
        out.append(Row("turbo", "turbo"))
    return out


def resolved_impl(impl: str, device, s: Size) -> str:
    """The path ``impl`` takes on this device and size (what :class:`gatbio.nn.GATConv` dispatches to)."""
    from gatbio.nn import conv as conv_module
    from gatbio.nn import kernels

    if impl != "auto":
        return impl
    if device.type == "cuda" and kernels.available():
        return "triton"
    big = (s.edges + s.nodes) * s.heads * s.channels >= conv_module.FUSED_MIN_ELEMENTS
    return "fused" if big else "reference"


# The head widths turbo-gnn's kernels are built for (its csrc dispatch).
TURBO_HEAD_DIMS = (32, 64, 128, 256)


def turbo_available() -> str | None:
    """``None`` when turbo-gnn's ``gatv2_aggr`` imports, else why not."""
    try:
        from turbo_gnn import AdjacencyForwardBackwardWithNodeBuckets, gatv2_aggr  # noqa: F401
    except Exception as err:  # ImportError, or a build of it that fails to load its CUDA library
        return (f"turbo_gnn does not import ({type(err).__name__}: {err}); build it from source: "
                "experiments/gpu_session.sh, step turbo")
    return None


def _build_gpu_layer(row: Row, s: Size, device, seed: int):
    """The module of a row, its parameters drawn from ``seed`` (a row and its bf16 twin are the same layer)."""
    import torch
    import torch_geometric.nn as pyg_nn

    from gatbio.nn import GATConv

    H, C = s.heads, s.channels
    torch.manual_seed(seed)
    if row.kind == "pyg_gat":
        return pyg_nn.GATConv(s.in_channels, C, heads=H).to(device)
    if row.kind == "pyg_gatv2":
        return pyg_nn.GATv2Conv(s.in_channels, C, heads=H).to(device)
    if row.kind in ("floor", "turbo"):
        width = 2 * H * C if row.kind == "turbo" else H * C  # turbo: [W_l; W_r] as one GEMM
        return torch.nn.Linear(s.in_channels, width, bias=row.kind == "turbo").to(device)
    attention = row.kind.split("_")[0]
    options = dict(edge_dim=s.edge_dim, residual=True, temperature="learn", degree_norm="log") \
        if row.kind.endswith("_all") else {}
    return GATConv(s.in_channels, C, heads=H, attention=attention, impl=row.impl, **options).to(device)


def _gpu_step(row: Row, s: Size, device, x, edge_index, seed: int):
    """``(step, forward)``: one forward + backward of the row on its inputs, and a forward alone (no grad)."""
    import torch

    module = _build_gpu_layer(row, s, device, seed)
    H, C = s.heads, s.channels
    g = torch.Generator(device=device).manual_seed(seed + 1)
    if row.kind.endswith("_all"):
        edge_attr = torch.rand(s.edges, s.edge_dim, generator=g, device=device)
        attn_bias = torch.randn(s.edges, generator=g, device=device)

        def forward():
            return module(x, edge_index, edge_attr, attn_bias=attn_bias)
    elif row.kind == "floor":
        adj = _csr_adjacency(edge_index, s.nodes)

        def forward():
            return adj @ module(x)  # (N, H*C)
    elif row.kind == "turbo":
        from torch_geometric.utils import add_self_loops, remove_self_loops
        from turbo_gnn import AdjacencyForwardBackwardWithNodeBuckets, gatv2_aggr

        if C not in TURBO_HEAD_DIMS or H > 64:
            raise ValueError(f"turbo-gnn's gatv2_aggr takes head widths {TURBO_HEAD_DIMS} and at most 64 heads "
                             f"(this size: {H} x {C})")
        looped, _ = add_self_loops(remove_self_loops(edge_index)[0], num_nodes=s.nodes)
        index_dtype = torch.int32 if looped.size(1) < 2**31 else torch.int64  # as gatbio's own CSR
        graph = AdjacencyForwardBackwardWithNodeBuckets.from_edge_list(looped.cpu(), num_nodes=s.nodes,
                                                                       index_dtype=index_dtype).to(device)
        del looped
        # The attention vector on the module, so that zero_grad clears its gradient after each step too.
        module.register_parameter("att", torch.nn.Parameter(0.1 * torch.randn(H, C, generator=g, device=device)))

        def forward():
            h = module(x)  # (N, 2*H*C): W_l x and W_r x
            x_l, x_r = h[:, :H * C].view(-1, H, C), h[:, H * C:].view(-1, H, C)
            # (N, H, C): the target's features x_r score, the sources' x_l are aggregated (PyG's GATv2Conv)
            return gatv2_aggr(graph, x_r, x_neighbors=x_l, attention_weights=module.att, negative_slope=0.2)
    else:
        def forward():
            return module(x, edge_index)

    def run():
        with torch.autocast(device.type, dtype=torch.bfloat16, enabled=row.bf16):
            return forward()

    def step():
        out = run()
        out.backward(torch.ones_like(out))
        module.zero_grad(set_to_none=True)

    def forward_only(bf16: bool):
        with torch.no_grad(), torch.autocast(device.type, dtype=torch.bfloat16, enabled=bf16):
            return forward().float()

    return step, forward_only


PROFILE_STEPS = 3


_ROOT = str(Path(__file__).resolve().parent.parent) + "/"  # the checkout's root, left off callers' file names


def _operators_by_caller(events, cuda: bool, top: int = 15) -> str:
    """The outermost ``aten::`` operators of a profile, summed by (name, input shapes, caller), largest first.

    The caller is the nearest three Python functions above the call (``file(line): name``, from the event's
    recorded stack, which torch fills only under the profiler's verbose experimental config: torch 2.11 records
    no Python events otherwise, and ``group_by_stack_n`` gives empty stacks in 2.13), prefixed in the backward
    pass by the autograd node that ran it."""
    time_of = (lambda e: e.device_time_total) if cuda else (lambda e: e.cpu_time_total)
    total: dict[tuple, list] = {}
    for e in events:
        if not e.name.startswith("aten::"):
            continue
        callers = [f.split("site-packages/")[-1].split(_ROOT)[-1] for f in (e.stack or [])[:3]]
        parent, outermost = e.cpu_parent, True
        while parent is not None:
            if parent.name.startswith("aten::"):
                outermost = False
                break
            if parent.name.startswith("autograd::engine::evaluate_function: "):
                callers.insert(0, "backward of " + parent.name.split(": ", 1)[1])
                break
            parent = parent.cpu_parent
        if outermost:
            key = (e.name, str(e.input_shapes), " < ".join(callers) or "?")
            entry = total.setdefault(key, [0.0, 0])
            entry[0] += time_of(e)
            entry[1] += 1
    rows = sorted(total.items(), key=lambda kv: -kv[1][0])[:top]
    unit = "device" if cuda else "CPU"
    lines = [f"{unit + ' ms/step':>15}  {'calls':>5}  operator, input shapes, called from"]
    lines += [f"{t / 1e3 / PROFILE_STEPS:15.3f}  {n:5d}  {name} {shapes}  <  {callers}"
              for (name, shapes, callers), (t, n) in rows]
    return "\n".join(lines)


def profile_case(step, device, path: Path, wall_s: float) -> dict:
    """Run ``step`` :data:`PROFILE_STEPS` times under ``torch.profiler``; write the operator table to ``path``.

    Returns per step: ``profile_kernels`` (device kernels launched), ``profile_device_ms`` (their summed time)
    and ``profile_device_share`` (that time over the measured median step time ``wall_s``; on CPU, where there
    are no device kernels, 0)."""
    import torch
    from torch.autograd import DeviceType
    from torch.profiler import ProfilerActivity, profile

    cuda = device.type == "cuda"
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if cuda else [])
    # Shapes and Python stacks too: the operator table alone says that, e.g., an aten::gather takes a third of
    # a step (seen at 10M edges on 2026-11-26), not which call of which tensor; the two tables after it do.
    verbose = torch._C._profiler._ExperimentalConfig(verbose=True)  # fills each event's Python stack (above)
    with profile(activities=activities, record_shapes=True, with_stack=True, experimental_config=verbose) as prof:
        for _ in range(PROFILE_STEPS):
            step()
        _sync(device)
    kernels = [e for e in prof.events() if e.device_type == DeviceType.CUDA]
    device_us = sum(e.device_time for e in kernels)  # kernels' own time (µs), all launches of the steps
    sort = "self_device_time_total" if cuda else "self_cpu_time_total"
    table = prof.key_averages().table(sort_by=sort, row_limit=40, max_name_column_width=70)
    by_shape = prof.key_averages(group_by_input_shape=True).table(sort_by=sort, row_limit=40,
                                                                  max_name_column_width=40, max_shapes_column_width=80)
    by_caller = _operators_by_caller(prof.events(), cuda)
    per_step = dict(profile_kernels=round(len(kernels) / PROFILE_STEPS, 1),
                    profile_device_ms=round(device_us / 1e3 / PROFILE_STEPS, 3),
                    profile_device_share=round(device_us / 1e6 / PROFILE_STEPS / wall_s, 3) if wall_s else None)
    from gatbio.results import atomic_write_text

    atomic_write_text(path, f"{PROFILE_STEPS} steps (forward + backward), sorted by {sort}; per step: "
                    + ", ".join(f"{k} {v}" for k, v in per_step.items()) + f", median wall {wall_s * 1e3:.3f} ms"
                    + "\n\n" + table
                    + "\n\nThe same operators by input shapes (top 40):\n\n" + by_shape
                    + "\n\nThe outermost aten operators by shapes and by who called them (top 15):\n\n"
                    + by_caller + "\n")
    return per_step


def run_gpu_case(row: Row, s: Size, device, x, edge_index_host, warmup: int, repeats: int, seed: int,
                 profile_dir: Path | None = None) -> dict:
    """Forward + backward timings and peak memory of one row, in this process (and its profile, when
    ``profile_dir`` is given: :func:`profile_case`, after the timed calls)."""
    import torch

    # The case's own copy of the graph: gatbio caches its CSR layout per edge_index tensor, so each case
    # builds (and pays for, in time and memory) its own, freed with the copy at the end of the case.
    edge_index = edge_index_host.to(device)
    step, forward_only = _gpu_step(row, s, device, x, edge_index, seed)
    result = {}
    if row.bf16:  # largest error of the bf16 output relative to the float32 output, same layer and inputs
        out32 = forward_only(False)
        err = (forward_only(True) - out32).abs().max() / out32.abs().max().clamp_min(1e-30)
        result["max_error_vs_fp32"] = round(float(err), 6)
        del out32
    cuda = device.type == "cuda"
    if cuda:
        torch.cuda.synchronize(device)
        torch.cuda.reset_peak_memory_stats(device)
        inputs = torch.cuda.memory_allocated(device)
    t0 = time.perf_counter()
    for _ in range(max(warmup, 1)):
        step()
    _sync(device)
    first = time.perf_counter() - t0
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        step()
        _sync(device)
        times.append(time.perf_counter() - t0)
    result.update(time_s=statistics.median(times), times_s=times, warmup_s=first)
    if cuda:
        result.update(peak_mem_gb=gb(torch.cuda.max_memory_allocated(device)), inputs_mem_gb=gb(inputs))
    if profile_dir is not None:  # a profile that fails keeps the case's timings (they were recorded as a failure)
        try:
            result.update(profile_case(step, device, profile_dir / f"{s.name}.{row.name}.txt", result["time_s"]))
        except Exception as err:  # any profiler or file error: the measured figures stand
            result["profile_error"] = f"{type(err).__name__}: {err}".splitlines()[0][:300]
    return result


def _free_device_memory(device) -> None:
    import torch

    gc.collect()
    if device.type == "cuda":
        torch.cuda.empty_cache()


def bench_gpu(sizes, rows: list[Row], args, after_size=None) -> dict:
    """Every row at every size, in this process; out-of-memory and other failures are recorded per case.
    ``after_size(results)`` is called after each size (to save what is measured so far)."""
    import torch

    device = torch.device(args.device)
    results: dict[str, dict] = {}
    for s in sizes:
        g = torch.Generator().manual_seed(args.seed)
        edge_index_host = torch.randint(0, s.nodes, (2, s.edges), generator=g)  # host copy; each case moves it
        x = torch.randn(s.nodes, s.in_channels, generator=g).to(device)
        print(f"size {s.name}: {s.nodes:,} nodes, {s.edges:,} edges, {s.in_channels} → {s.heads} × {s.channels}",
              flush=True)
        for row in rows:
            key = f"{s.name}.{row.name}"
            res: dict = {}
            try:
                res = run_gpu_case(row, s, device, x, edge_index_host, args.warmup, args.repeats, args.seed,
                                   profile_dir=args.profile)
            except torch.cuda.OutOfMemoryError as err:
                res = {"oom": True, "error": str(err).splitlines()[0][:200]}
            except MemoryError as err:
                res = {"oom": True, "error": f"MemoryError: {err}"[:200]}
            except Exception as err:  # a failing case must not end a GPU session's run
                res = {"error": f"{type(err).__name__}: {err}".splitlines()[0][:300]}
                if "out of memory" in str(err).lower() or "ALLOC_FAILED" in str(err):  # cuBLAS / cuSPARSE
                    res["oom"] = True
            _free_device_memory(device)
            if row.kind in OURS_ROWS:
                res["impl"] = row.impl
                res["path"] = resolved_impl(row.impl, device, s)
            results[key] = res
            if "time_s" in res:
                mem = f", peak {res['peak_mem_gb']:.2f} GB" if "peak_mem_gb" in res else ""
                err = f", bf16 error {res['max_error_vs_fp32']:.2g}" if "max_error_vs_fp32" in res else ""
                prof = (f", {res['profile_kernels']:g} kernels, device busy {res['profile_device_share']:.0%}"
                        if res.get("profile_device_share") is not None and device.type == "cuda" else "")
                shown = f"{1e3 * res['time_s']:9.2f} ms{mem}{err}{prof}"
            else:
                shown = "out of memory" if res.get("oom") else res["error"]
            path = f" [{res['path']}]" if "path" in res else ""
            print(f"  {row.name:<22}{shown}{path}", flush=True)
        del x, edge_index_host
        _free_device_memory(device)
        if after_size is not None:
            after_size(results)
    return results


def gpu_ratios(results: dict, sizes, rows: list[Row]) -> dict:
    """The ratios of the GPU rows (see the module docstring for the keys)."""
    out = {}

    def get(s: Size, name: str, field: str):
        return results.get(f"{s.name}.{name}", {}).get(field)

    for s in sizes:
        for row in rows:
            if row.kind == "floor":
                continue
            others = [("floor", "floor")]
            if row.kind in OURS_ROWS and not row.bf16:
                pyg = {"gat": "pyg_gat", "gatv2": "pyg_gatv2"}.get(row.kind.split("_")[0])
                if pyg is not None:
                    others.append(("pyg", pyg))
                if row.kind == "gatv2":
                    others.append(("turbo", "turbo"))
            for label, other in others:
                for field, what in (("time_s", "time"), ("peak_mem_gb", "memory")):
                    a, b = get(s, row.name, field), get(s, other, field)
                    if a is not None and b:
                        out[f"{s.name}.{row.name}.{what}_ratio_vs_{label}"] = round(a / b, 3)
            if row.bf16:
                fp32 = row.name.removesuffix("_bf16")
                for field, what in (("time_s", "time"), ("peak_mem_gb", "memory")):
                    a, b = get(s, row.name, field), get(s, fp32, field)
                    if a is not None and b:
                        out[f"{s.name}.{fp32}.bf16_{what}_ratio_vs_fp32"] = round(a / b, 3)
                err = get(s, row.name, "max_error_vs_fp32")
                if err is not None:
                    out[f"{s.name}.{fp32}.bf16_max_error_vs_fp32"] = err
    return out


def gpu_table(results: dict, sizes, rows: list[Row]) -> str:
    """A Markdown table of the GPU rows: time and peak memory per size."""
    head = "| row | " + " | ".join(s.name for s in sizes) + " |"
    lines = [head, "|---" * (len(sizes) + 1) + "|"]
    for row in rows:
        cells = []
        for s in sizes:
            r = results.get(f"{s.name}.{row.name}", {})
            if "time_s" in r:
                mem = f", {r['peak_mem_gb']:.2f} GB" if "peak_mem_gb" in r else ""
                cells.append(f"{1e3 * r['time_s']:.1f} ms{mem}")
            else:
                cells.append("out of memory" if r.get("oom") else "failed" if "error" in r else "")
        lines.append(f"| {row.name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


#: The options of the GPU mode's argument group (their ``dest``): refused in the CPU mode, which has no use for them.
GPU_ONLY = ("rows", "impl", "no_bf16", "turbo", "warmup", "seed", "profile")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--device", default="cpu", help="cpu or cuda (default: cpu); cuda runs the GPU mode")
    p.add_argument("--sizes", default=None,
                   help=f"comma-separated, from {sorted(ALL_SIZES)} (default: {CPU_SIZES} on CPU, {GPU_SIZES} on GPU)")
    p.add_argument("--json", type=Path, default=None, help="write every figure and ratio to this file")
    p.add_argument("--repeats", type=int, default=None,
                   help="timed calls per case (after the warm-up; default: 3 per process on CPU, 7 on GPU)")
    cpu = p.add_argument_group("CPU mode (a fresh process per case)")
    cpu.add_argument("--layers", default="ours_all,ours_off,pyg,pyg_all,floor,floor_res",
                     help=f"comma-separated, from {LAYERS}")
    cpu.add_argument("--with-reference", action="store_true", help="also time our reference path (ours_ref)")
    cpu.add_argument("--rounds", type=int, default=3, help="fresh processes per case, interleaved")
    cpu.add_argument("--threads", type=int, default=os.cpu_count() or 1, help="torch threads per case")
    cpu.add_argument("--no-scaling", action="store_true", help="skip the 2-layer training-step scaling run")
    cpu.add_argument("--only-scaling", action="store_true", help="run only the training-step scaling")
    cpu.add_argument("--scaling-edges", default=",".join(str(e) for e in SCALING_EDGES))
    cpu.add_argument("--scaling-repeats", type=int, default=2)
    cpu.add_argument("--mem-limit-gb", type=float, default=8.0,
                     help="skip cases estimated above this (also capped at 80%% of available memory)")
    cpu.add_argument("--timeout", type=float, default=1200.0, help="seconds per case process")
    cpu.add_argument("--quick", action="store_true", help="tiny sizes, one round (a smoke test)")
    gpu = p.add_argument_group("GPU mode (--device cuda, or --one-process: every case in this process; the CPU mode "
                              "refuses these options)")
    gpu.add_argument("--one-process", action="store_true",
                     help="run the GPU mode's cases on --device (on CPU: times and ratios, no peak memory)")
    gpu.add_argument("--rows", default=",".join(GPU_ROWS), help=f"comma-separated, from {GPU_ROWS}")
    gpu.add_argument("--impl", default="auto",
                     help=f"comma-separated impls of the gatbio rows, from {IMPLS} (the first: plain row names)")
    gpu.add_argument("--no-bf16", action="store_true", help="skip the bf16 autocast twin of each gatbio row")
    gpu.add_argument("--turbo", action="store_true",
                     help="add turbo-gnn's gatv2_aggr (skipped, with a note, when turbo_gnn does not import)")
    gpu.add_argument("--warmup", type=int, default=2, help="untimed calls per case before the timed ones")
    gpu.add_argument("--seed", type=int, default=0)
    gpu.add_argument("--profile", type=Path, default=None, metavar="DIR",
                     help="also profile each case (torch.profiler, 3 steps): DIR/<size>.<row>.txt")
    args = p.parse_args(argv)

    import torch

    on_gpu = args.device.startswith("cuda")
    if args.device != "cpu" and not on_gpu:
        p.error(f"--device {args.device}: cpu or cuda (cuda:N)")
    if on_gpu and not torch.cuda.is_available():
        p.error("--device cuda was given but no CUDA device is available")
    check_at_least(p, args, {"repeats": 1, "rounds": 1, "scaling_repeats": 1, "warmup": 0})
    from gatbio._paths import check_output_dir, check_outputs

    try:
        check_outputs({"--json": args.json})  # before the cases, not after them
        if args.profile is not None:  # a file there made every profiled case "failed", its timings lost
            check_output_dir(args.profile, "--profile")
    except (ValueError, OSError) as err:
        p.error(str(err))
    one_process = on_gpu or args.one_process
    names = [n for n in (args.sizes or (GPU_SIZES if one_process else CPU_SIZES)).split(",") if n]
    unknown = [n for n in names if n not in ALL_SIZES]
    if unknown:
        p.error(f"--sizes: unknown {unknown}; choose from {sorted(ALL_SIZES)}")
    sizes = [ALL_SIZES[n] for n in names]
    rows, impls = [r for r in args.rows.split(",") if r], [i for i in args.impl.split(",") if i]
    bad = [r for r in rows if r not in GPU_ROWS] + [i for i in impls if i not in IMPLS]
    if bad or not impls:  # in every mode: a typo is named, not run past
        p.error(f"--rows / --impl: unknown {bad or 'none given'}; rows from {GPU_ROWS}, impls from {IMPLS}")
    if not one_process:  # the CPU mode times --layers in fresh processes: the GPU mode's options do nothing there
        given = [f"--{dest.replace('_', '-')}" for dest in GPU_ONLY if getattr(args, dest) != p.get_default(dest)]
        if given:
            p.error(f"{', '.join(given)}: option(s) of the GPU mode (--device cuda, or --one-process on CPU); "
                    "the CPU mode times --layers and would ignore them")
    command = "python experiments/bench_layer.py " + " ".join(argv if argv is not None else sys.argv[1:])
    if one_process:
        record = run_gpu_mode(p, args, sizes, command)
    else:
        record = run_cpu_mode(p, args, sizes, command)
    if args.json is not None:
        from gatbio.results import write_json

        write_json(args.json, record)
        print(f"wrote {args.json}")
    return 0


def run_gpu_mode(p: argparse.ArgumentParser, args, sizes, command: str) -> dict:
    """Every case in this process (see the module docstring); returns the JSON record."""
    import torch
    import torch_geometric

    rows = [r for r in args.rows.split(",") if r]
    impls = [i for i in args.impl.split(",") if i]  # both checked by main
    args.repeats = args.repeats or 7
    turbo_note = None
    if args.turbo:
        turbo_note = turbo_available()
        if turbo_note is not None:
            print(f"turbo-gnn row skipped: {turbo_note}", flush=True)
    cases = gpu_rows(rows, impls, bf16=not args.no_bf16, turbo=args.turbo and turbo_note is None)
    device = torch.device(args.device)
    name = torch.cuda.get_device_name(device) if device.type == "cuda" else "cpu"
    try:
        import triton

        triton_version = triton.__version__
    except ImportError:
        triton_version = None
    print(f"bench_layer (one process): {name}, torch {torch.__version__}, triton {triton_version}, "
          f"PyG {torch_geometric.__version__}; forward + backward, median of {args.repeats} after "
          f"{args.warmup} warm-up calls", flush=True)

    def record(results: dict) -> dict:
        return {
            "command": command, "mode": "one-process", "device": args.device, "device_name": name,
            "torch": torch.__version__, "triton": triton_version, "torch_geometric": torch_geometric.__version__,
            "repeats": args.repeats, "warmup": args.warmup, "impls": impls,
            "sizes": {s.name: asdict(s) for s in sizes},
            "turbo": "not requested" if not args.turbo else (turbo_note or "measured"),
            **{f"{k}.{f}": v for k, r in results.items() for f, v in r.items()},
            **gpu_ratios(results, sizes, cases),
        }

    def save_partial(results: dict) -> None:  # a run cut short (a time limit) keeps the sizes it finished
        if args.json is not None:
            from gatbio.results import write_json

            write_json(args.json, {**record(results), "partial": True})

    results = bench_gpu(sizes, cases, args, after_size=save_partial)
    summary = gpu_ratios(results, sizes, cases)
    print()
    print(gpu_table(results, sizes, cases))
    print()
    for key, value in summary.items():
        print(f"  {key:<46} {value:.3f}")
    return record(results)


def run_cpu_mode(p: argparse.ArgumentParser, args, sizes, command: str) -> dict:
    """A fresh process per case, rounds interleaved (see the module docstring); returns the JSON record."""
    import torch

    layers = [x for x in args.layers.split(",") if x]
    if args.with_reference and "ours_ref" not in layers:
        layers.append("ours_ref")
    bad = [x for x in layers if x not in LAYERS]
    if bad:
        p.error(f"--layers: unknown {bad}; choose from {LAYERS}")
    args.repeats = args.repeats or 3
    if args.quick:
        sizes, args.rounds, args.repeats, args.scaling_repeats = list(QUICK_SIZES.values()), 1, 1, 1
        scaling_edges = [2_000, 8_000]
    else:
        scaling_edges = [int(e) for e in args.scaling_edges.split(",") if e]
    limit = int(args.mem_limit_gb * 2**30)
    avail = available_bytes()
    if avail is not None:
        limit = min(limit, int(0.8 * avail))

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
        "command": command,
        "device": args.device, "threads": args.threads, "torch": torch.__version__,
        "sizes": {s.name: asdict(s) for s in sizes},
        **{f"{k}.{f}": v for k, r in results.items() for f, v in r.items()},
        **summary,
        **{f"{k}.{f}" if isinstance(r, dict) else k: v
           for k, r in scaling.items() for f, v in (r.items() if isinstance(r, dict) else [(None, r)])},
    }
    return {k.removesuffix(".None"): v for k, v in record.items()}


if __name__ == "__main__":
    sys.exit(main())
