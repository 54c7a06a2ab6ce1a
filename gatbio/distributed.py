"""Data-parallel training over many graphs with :class:`torch.nn.parallel.DistributedDataParallel`.

For multi-graph datasets (the 24 PPI tissue graphs, hundreds of food webs) each step takes a *global batch*
of graphs; with ``W`` processes, process ``r`` takes graphs ``r, r + W, ...`` of it, merges them into one
disconnected graph (:class:`torch_geometric.data.Batch`) and back-propagates its share of the loss; DDP
averages the gradients across processes (gloo on CPU, NCCL on GPUs). The loss of process ``r`` is scaled
so that the averaged gradient is exactly the gradient of the global batch's mean loss:

.. math::
    L_r = \\frac{W}{n} \\sum_{i \\in \\text{shard}_r} \\ell_i, \\qquad
    \\frac{1}{W} \\sum_r \\nabla L_r = \\nabla \\frac{1}{n} \\sum_{i \\in \\text{batch}} \\ell_i,

where :math:`\\ell_i` are the per-entry losses (node × label) and :math:`n` their number in the global
batch. So a run on ``W`` processes follows the same loss trajectory as one process on the same global
batches (up to floating-point summation order), which ``tests/test_distributed.py`` checks.

Launch, one process per core or GPU::

    torchrun --nproc_per_node 2 -m gatbio.distributed --dataset synthetic --epochs 5
    python -m gatbio.distributed --nproc 2 --dataset synthetic --epochs 5      # spawns the processes itself

Without ``torchrun`` and with ``--nproc 1`` it trains in this process, without DDP.
"""

from __future__ import annotations

import argparse
import functools
import math
import os
import socket
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch import nn
from torch_geometric.data import Batch, Data

__all__ = ["global_batches", "train_graphs", "spawn_ddp", "synthetic_graphs", "main"]


def global_batches(num_graphs: int, batch_size: int, epoch: int, seed: int) -> list[list[int]]:
    """The graphs of each step of an epoch: a seeded permutation cut into batches (the same in every process)."""
    g = torch.Generator().manual_seed(seed * 100_003 + epoch)
    perm = torch.randperm(num_graphs, generator=g).tolist()
    return [perm[i:i + batch_size] for i in range(0, num_graphs, batch_size)]


def _entry_losses(logits: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """Summed per-entry losses: BCE for multi-label float targets, cross-entropy for class indices."""
    if y.dtype.is_floating_point:
        return F.binary_cross_entropy_with_logits(logits, y, reduction="sum")
    return F.cross_entropy(logits, y, reduction="sum")


def _num_entries(d: Data) -> int:
    return d.y.numel()


def train_graphs(
    model: nn.Module,
    graphs: Sequence[Data],
    *,
    epochs: int,
    batch_size: int,
    lr: float = 5e-3,
    seed: int = 0,
    device: torch.device | str = "cpu",
) -> list[float]:
    """Train ``model`` on whole graphs, one global batch per step; returns the loss of every step.

    Inside an initialised process group (``torch.distributed``) ``model`` should be wrapped in
    :class:`~torch.nn.parallel.DistributedDataParallel`; each process then computes its shard of every
    global batch and the returned losses are those of the global batch (all-reduced), identical in every
    process. Outside one, it trains on the whole batch in this process.

    Args:
        model: maps ``(x, edge_index)`` to logits (N, L); targets ``y`` are (N, L) floats (multi-label)
            or (N,) class indices.
        graphs: :class:`~torch_geometric.data.Data` objects with ``x``, ``edge_index`` and ``y``.
        epochs: passes over the graphs.
        batch_size: graphs per global batch (over all processes).
        lr: Adam learning rate.
        seed: seed of the batch order.
        device: where this process computes, any name :func:`gatbio.device.resolve_device` takes (``"auto"``,
            ``"cpu"``, ``"cuda:N"``, ...); ``model`` must already be there.
    """
    if batch_size < 1 or epochs < 1:
        raise ValueError(f"batch_size={batch_size} and epochs={epochs} must both be positive integers")
    if len(graphs) == 0:  # trained nothing and returned no loss, silently
        raise ValueError("graphs is empty: give at least one graph to train on")
    for i, d in enumerate(graphs):
        missing = [k for k in ("x", "edge_index", "y") if getattr(d, k, None) is None]
        if missing:
            raise ValueError(f"graphs[{i}] has no {', '.join(missing)}: every graph needs x, edge_index and y")
    from gatbio.device import module_device, resolve_device

    distributed = dist.is_available() and dist.is_initialized()
    rank, world = (dist.get_rank(), dist.get_world_size()) if distributed else (0, 1)
    device = resolve_device(device)  # "auto", "CPU", "cuda:1", ...: a DeviceError naming the fix, not torch's list
    where = module_device(model)
    if where != device:
        raise ValueError(f"device={str(device)!r} but the model's parameters are on {where}: move the model there "
                         f"first (model.to({str(device)!r})) or pass device={str(where)!r}")
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.Adam(params, lr=lr)
    losses = []
    model.train()
    for epoch in range(epochs):
        for batch in global_batches(len(graphs), batch_size, epoch, seed):
            n_entries = sum(_num_entries(graphs[i]) for i in batch)
            shard = batch[rank::world]
            opt.zero_grad(set_to_none=True)
            # With fewer graphs than processes a process still runs the model (DDP's collectives need
            # every process in every forward and backward pass) on the batch's first graph, weighted 0.
            weight = world / n_entries if shard else 0.0
            b = Batch.from_data_list([graphs[i] for i in (shard or batch[:1])]).to(device)
            total = _entry_losses(model(b.x, b.edge_index), b.y) * (1.0 if shard else 0.0)  # shard's sum
            (total * weight).backward()  # DDP averages the gradients over the W processes
            opt.step()
            total = total.detach().reshape(1)
            if distributed:  # summed in float64; not before: MPS has no float64 (every step was a TypeError)
                total = total.to(torch.float64)
                dist.all_reduce(total)
            losses.append(float(total) / n_entries)
    return losses


# ------------------------------------------------------------------------------- process management
def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _backend(device: str) -> str:
    return "nccl" if device.startswith("cuda") else "gloo"


def _ddp_worker(rank: int, world: int, port: int, build_model: Callable[[], nn.Module], graphs,
                train_kwargs: dict, device: str, out_path: str) -> None:
    # the processes run on this machine, on the port found free on loopback: a MASTER_ADDR left in the environment
    # (a cluster job's, for torchrun) made them wait for another host until the 30-minute timeout
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    torch.set_num_threads(1)
    dist.init_process_group(_backend(device), rank=rank, world_size=world)
    try:
        losses = _run_rank(rank, build_model, graphs, train_kwargs, device)
        if rank == 0:
            from gatbio.results import write_json

            write_json(out_path, {"losses": losses, "world_size": world})
    except BaseException:
        import traceback

        # when and why, for spawn_ddp: the process that fails first holds the cause; the others then fail on
        # their broken connection ("Connection closed by peer"), and mp.spawn reports whichever it sees first
        from gatbio.results import atomic_write_text

        atomic_write_text(Path(out_path).with_name(f"error.{rank}.txt"),
                          f"{time.time()!r} {os.getpid()}\n{traceback.format_exc()}")
        raise
    finally:
        dist.destroy_process_group()


def _first_error(folder: Path) -> tuple[int, int, str] | None:
    """The rank, pid and traceback of the process that failed first (:func:`_ddp_worker`'s ``error.RANK.txt``)."""
    errors = []
    for f in folder.glob("error.*.txt"):
        head, _, text = f.read_text().partition("\n")
        try:  # a process stopped while writing its file (mp.spawn ends the others) left it empty or cut
            when, pid = head.split()
            errors.append((float(when), int(f.name.split(".")[1]), int(pid), text))
        except ValueError:
            continue
    return min(errors)[1:] if errors else None


def _run_rank(local_rank: int, build_model, graphs, train_kwargs: dict, device: str) -> list[float]:
    """Build the model (seeded: the same start everywhere; DDP also broadcasts rank 0's), wrap it, train.

    ``device``: ``cpu``, ``cuda`` (process ``r`` takes GPU ``r``), ``mps``, or ``cuda:N`` for a single process."""
    if device.startswith("cuda"):
        explicit = ":" in device and not dist.is_initialized()
        dev = torch.device(device) if explicit else torch.device("cuda", local_rank)
    else:
        dev = torch.device(device)
    if dev.type == "cuda":
        torch.cuda.set_device(dev)
    torch.manual_seed(train_kwargs.get("seed", 0))
    model = build_model().to(dev)
    if dist.is_initialized():
        model = nn.parallel.DistributedDataParallel(model, device_ids=[dev.index] if dev.type == "cuda" else None)
    return train_graphs(model, graphs, device=dev, **train_kwargs)


def _check_world_size(world_size) -> int:
    """``world_size`` as an int >= 1: ``2.5`` failed with a TypeError from deep in ``mp.spawn``, ``True`` meant 1
    (:func:`gatbio._options.check_integer`)."""
    from gatbio._options import check_integer

    return check_integer(world_size, "world_size", "give a positive integer, the number of processes to train with",
                         least=1)


def _spawn_device(device, world_size: int) -> str:
    """The device string the processes get: ``"cpu"``, ``"cuda"`` (process ``r`` on GPU ``r``, several processes),
    or one resolved device (``"cuda:N"``, ``"mps"``) for one process."""
    from gatbio.device import DeviceError, resolve_device

    dev = resolve_device(device)  # refuses "gpu", "tpu", a GPU this machine lacks, ... with the fix
    if world_size == 1 or dev.type == "cpu":
        return str(dev)
    if dev.type == "cuda":
        text = str(device).strip().lower() if device is not None else "auto"
        if text in ("auto", "cuda"):  # (torch.device("cuda") prints as "cuda" too)
            return "cuda"
        raise DeviceError(f"device={str(device)!r} names one GPU, but world_size={world_size} processes take one GPU "
                          "each: use device='cuda' (process r on GPU r), or world_size=1")
    raise DeviceError(f"device={str(device)!r} runs one process: use world_size=1, or device='cpu' for several")


def spawn_ddp(build_model: Callable[[], nn.Module], graphs: Sequence[Data], world_size: int,
              device: str | torch.device = "cpu", **train_kwargs) -> list[float]:
    """Train with ``world_size`` processes on this machine (spawned, gloo on loopback or NCCL); returns the
    loss trajectory. ``build_model`` must be picklable (a module-level function or a ``functools.partial``).
    ``world_size=1`` trains in this process without DDP.

    ``device`` is any name :func:`gatbio.device.resolve_device` takes. With several processes, ``"cuda"`` (and
    ``"auto"`` on a machine with a GPU) gives process ``r`` GPU ``r``; ``"cuda:N"`` and ``"mps"`` name one device,
    so they need ``world_size=1``."""
    world_size = _check_world_size(world_size)
    device = _spawn_device(device, world_size)
    if device == "cuda" and world_size > torch.cuda.device_count():
        raise ValueError(f"world_size={world_size} needs as many GPUs, but {torch.cuda.device_count()} are visible; "
                         f"use world_size={torch.cuda.device_count()} or device='cpu'")
    if world_size == 1:
        return _run_rank(0, build_model, graphs, train_kwargs, device)
    import pickle

    try:  # spawned processes get build_model pickled: say so here, not as a PicklingError from inside mp.spawn
        pickle.dumps(build_model)
    except (pickle.PicklingError, AttributeError, TypeError) as err:
        raise TypeError(f"build_model {build_model!r} cannot be sent to the spawned processes ({err}): with "
                        "world_size > 1 give a module-level function or a functools.partial of one, not a lambda "
                        "or a nested function") from None
    import torch.multiprocessing as mp

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "losses.json"
        try:
            mp.spawn(_ddp_worker, args=(world_size, _free_port(), build_model, list(graphs), train_kwargs, device,
                                        str(out)), nprocs=world_size, join=True)
        except mp.ProcessRaisedException as err:
            first = _first_error(Path(tmp))
            if first is None or first[0] == err.error_index:
                raise
            rank, pid, text = first  # the cause, not another process's broken connection
            raise mp.ProcessRaisedException(f"\n\n-- Process {rank} terminated with the following error:\n{text}",
                                            rank, pid) from err
        from gatbio.results import read_json

        return read_json(out)["losses"]


# ------------------------------------------------------------------------------- data and models for the CLI
def synthetic_graphs(num_graphs: int = 8, nodes: int = 200, edges: int = 1_000, features: int = 16,
                     labels: int = 5, seed: int = 0) -> list[Data]:
    """Random multi-label graphs whose labels depend on neighbour features (learnable by a GAT)."""
    g = torch.Generator().manual_seed(seed)
    w = torch.randn(features, labels, generator=g)
    out = []
    for _ in range(num_graphs):
        x = torch.randn(nodes, features, generator=g)
        edge_index = torch.randint(0, nodes, (2, edges), generator=g)
        neigh = torch.zeros(nodes, features).index_add_(0, edge_index[1], x[edge_index[0]])
        y = ((x + neigh) @ w > 0).float()
        out.append(Data(x=x, edge_index=edge_index, y=y))
    return out


def build_node_classifier(in_channels: int, out_channels: int, hidden: int = 32, heads: int = 4,
                          dropout: float = 0.0) -> nn.Module:
    """The protein-function model (:class:`gatbio.nn.models.GATNodeClassifier`) for DDP runs."""
    from gatbio.nn.node_models import GATNodeClassifier

    return GATNodeClassifier(in_channels, out_channels, hidden_channels=hidden, heads=heads, dropout=dropout,
                             input_dropout=dropout, attn_dropout=dropout)


def _load_graphs(name: str, root: str | None) -> list[Data]:
    if name == "synthetic":
        return synthetic_graphs()
    if name == "ppi":
        from gatbio.data.ppi import load_ppi_benchmark
        from gatbio.data.sources import check_data_root

        if root is not None:  # messages name the option typed ("--root X"), not "data root X"
            check_data_root(root, option="--root")
        graphs = load_ppi_benchmark(root)
        return [d for d in graphs if getattr(d, "split", "train") == "train"]
    raise ValueError(f"--dataset {name!r} is not supported: use 'synthetic' or 'ppi' (the 20 training graphs "
                     "of the PyG PPI benchmark)")


def _check_launch_env(env) -> None:
    """A ``ValueError`` naming the variable unless ``env`` is either not a launch (no ``RANK``, no ``WORLD_SIZE``)
    or a complete one, as torchrun sets it: integers ``0 <= RANK < WORLD_SIZE``, and ``MASTER_ADDR`` and
    ``MASTER_PORT``. ``RANK`` alone trained a separate single-process model (printed as the main process);
    a missing ``MASTER_ADDR`` was torch's traceback from the rendezvous."""
    launch = [k for k in ("RANK", "WORLD_SIZE") if k in env]
    if not launch:
        return
    fix = ("launch with torchrun (torchrun --nproc_per_node N -m gatbio.distributed ...), which sets RANK, "
           "WORLD_SIZE, MASTER_ADDR and MASTER_PORT; or unset RANK and WORLD_SIZE and use --nproc N")
    if len(launch) == 1:
        other = "WORLD_SIZE" if launch == ["RANK"] else "RANK"
        raise ValueError(f"{launch[0]}={env[launch[0]]} is set but {other} is not: {fix}")
    values = {}
    for k in ("RANK", "WORLD_SIZE", "LOCAL_RANK"):
        if k in env:
            try:
                values[k] = int(env[k])
            except ValueError:
                raise ValueError(f"{k}={env[k]!r} is not an integer: {fix}") from None
    if values["WORLD_SIZE"] < 1 or not 0 <= values["RANK"] < values["WORLD_SIZE"]:
        raise ValueError(f"RANK={values['RANK']} and WORLD_SIZE={values['WORLD_SIZE']}: need 0 <= RANK < WORLD_SIZE; "
                         f"{fix}")
    missing = [k for k in ("MASTER_ADDR", "MASTER_PORT") if not env.get(k)]
    if missing:
        raise ValueError(f"RANK and WORLD_SIZE are set but {' and '.join(missing)} not: {fix}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m gatbio.distributed",
                                description="Data-parallel (DDP) training of the GAT node classifier on many graphs.")
    p.add_argument("--dataset", default="synthetic", help="'synthetic' or 'ppi' (default: synthetic)")
    p.add_argument("--root", default=None, help="data root (default: $GATBIO_DATA)")
    p.add_argument("--nproc", type=int, default=1, help="processes to spawn when not under torchrun")
    p.add_argument("--device", default="auto",
                   help="auto (cuda when PyTorch sees a GPU, else cpu), cpu (gloo), cuda (NCCL, one GPU per process) "
                        "or, with one process, cuda:N or mps (default: auto)")
    p.add_argument("--epochs", type=int, default=5)
    p.add_argument("--batch-size", type=int, default=4, help="graphs per global batch")
    p.add_argument("--lr", type=float, default=5e-3)
    p.add_argument("--hidden", type=int, default=32)
    p.add_argument("--heads", type=int, default=4)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", type=Path, default=None, help="write the loss trajectory here")
    args = p.parse_args(argv)
    # bad numbers and output paths: one line from the parser (exit 2) before any data is loaded or trained on
    for opt, value in (("--nproc", args.nproc), ("--epochs", args.epochs), ("--batch-size", args.batch_size),
                       ("--hidden", args.hidden), ("--heads", args.heads)):
        if value < 1:
            p.error(f"{opt} {value}: must be a positive integer")
    if not (math.isfinite(args.lr) and args.lr > 0):
        p.error(f"--lr {args.lr}: must be a positive number")
    from gatbio._paths import OutputPathError, check_outputs

    try:
        check_outputs({"--json": args.json})
    except OutputPathError as err:
        p.error(str(err))
    from gatbio.device import DeviceError, announce_device, resolve_device

    try:
        _check_launch_env(os.environ)
    except ValueError as err:
        p.error(str(err))
    spec = args.device
    try:
        dev = resolve_device(spec)
    except DeviceError as err:  # one line, no traceback
        p.error(str(err))
    if "RANK" in os.environ and args.nproc != 1:  # torchrun made the processes: --nproc would spawn more in each
        p.error(f"--nproc {args.nproc} with torchrun: torchrun already started WORLD_SIZE={os.environ['WORLD_SIZE']} "
                "processes; set their number with torchrun --nproc_per_node and leave out --nproc")
    single = args.nproc == 1 and "RANK" not in os.environ
    if dev.type == "mps" and not single:
        p.error("--device mps runs one process: use --nproc 1")
    # several processes take one GPU each (process r: cuda:r); one process keeps the GPU it was given
    args.device = str(dev) if single or dev.type != "cuda" else "cuda"
    if int(os.environ.get("RANK", 0)) == 0:
        announce_device(dev, spec)
    try:
        graphs = _load_graphs(args.dataset, args.root)
    except (ValueError, FileNotFoundError) as err:  # a clear one-line message, not a traceback
        p.error(str(err))
    y = graphs[0].y
    n_out = y.size(1) if y.dim() == 2 else int(max(int(d.y.max()) for d in graphs)) + 1
    build = functools.partial(build_node_classifier, graphs[0].num_features, n_out, args.hidden, args.heads)
    kw = dict(epochs=args.epochs, batch_size=args.batch_size, lr=args.lr, seed=args.seed)
    if "RANK" in os.environ and "WORLD_SIZE" in os.environ:  # launched by torchrun
        dist.init_process_group(_backend(args.device))
        try:
            losses = _run_rank(int(os.environ.get("LOCAL_RANK", 0)), build, graphs, kw, args.device)
        finally:
            dist.destroy_process_group()
        is_main = int(os.environ["RANK"]) == 0
        world = int(os.environ["WORLD_SIZE"])
    else:
        losses = spawn_ddp(build, graphs, args.nproc, args.device, **kw)
        is_main, world = True, args.nproc
    if is_main:
        steps = len(losses)
        print(f"trained on {len(graphs)} graphs with {world} process(es): {steps} steps, "
              f"loss {losses[0]:.4f} → {losses[-1]:.4f}")
        if args.json is not None:
            from gatbio.results import write_json

            write_json(args.json, {"losses": losses, "world_size": world, "args": vars(args)})
    return 0


if __name__ == "__main__":
    sys.exit(main())
