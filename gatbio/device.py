"""Where gatbio computes: one ``device`` setting for every task, command and training function.

``device`` is ``"auto"`` (the default: the first CUDA GPU when PyTorch sees one, else the CPU), ``"cpu"``,
``"cuda"`` / ``"cuda:N"`` or ``"mps"`` (Apple GPUs). :func:`resolve_device` turns it into a
:class:`torch.device` and refuses, with the fix, a device this machine does not have; the tasks move models,
graphs, features and embeddings there and bring results back to the CPU for writing. The resolved device is
recorded in each result's stored config and announced once per command on stderr (:func:`announce_device`),
e.g. ``gatbio: device cpu (auto: no CUDA)``.

The device never changes what a result *means*, only where it was computed (up to floating-point rounding:
GPU kernels sum in another order), so a results folder started on a GPU may be resumed on a CPU and back
(``device`` is a resume-free key, :data:`gatbio.results.ALWAYS_FREE_KEYS`).
"""

from __future__ import annotations

import re
import sys
from typing import TYPE_CHECKING, TextIO

from gatbio.cli import UserError

if TYPE_CHECKING:
    import torch

__all__ = ["DEVICE_CHOICES", "DeviceError", "resolve_device", "describe_device", "announce_device", "module_device"]

#: What ``--device`` / ``device=`` accept (``cuda:N`` too).
DEVICE_CHOICES = ("auto", "cpu", "cuda", "mps")

_HINT = "use auto, cpu, cuda, cuda:N (a GPU index) or mps"


class DeviceError(UserError, ValueError):
    """A device that is not known or not available on this machine (a ``ValueError`` for the Python API, a
    one-line message for the ``gatbio`` command)."""


def _cuda_available() -> bool:
    import torch

    return torch.cuda.is_available()


def _mps_available() -> bool:
    import torch

    mps = getattr(torch.backends, "mps", None)
    return bool(mps is not None and mps.is_available())


def _no_cuda_reason() -> str:
    import torch

    if torch.version.cuda is None:
        return f"this PyTorch ({torch.__version__}) is a CPU-only build"
    return "PyTorch sees no CUDA GPU"


def resolve_device(spec: str | torch.device | None = "auto", small_graphs: bool = False) -> torch.device:
    """The :class:`torch.device` that ``spec`` names on this machine.

    Args:
        spec: ``"auto"`` or ``None`` (CUDA when available, else the CPU), ``"cpu"``, ``"cuda"`` (the current
            GPU), ``"cuda:N"``, ``"mps"``, or a :class:`torch.device`. Case and surrounding spaces are ignored.
        small_graphs: the work is tiny graphs (food webs), which train faster on the CPU than on a GPU
            (:data:`SMALL_GRAPHS_ON_GPU`): ``"auto"`` then means the CPU; a GPU named explicitly is still used.

    Returns:
        ``cpu``, ``cuda:N`` (always with its index, so that it compares equal to a tensor's ``.device``) or
        ``mps``.

    Raises:
        DeviceError: an unknown name (``"gpu"`` is told to write ``"cuda"``), ``"cpu:N"`` with ``N > 0`` (the CPU
            is one device: an index would be ignored), or a device this machine lacks (the message says which to use
            instead).
    """
    import torch

    if spec is None:
        spec = "auto"
    if isinstance(spec, torch.device):
        dev = spec
    else:
        text = str(spec).strip().lower()
        if text == "auto":
            if small_graphs or not _cuda_available():
                return torch.device("cpu")
            return torch.device("cuda", torch.cuda.current_device())
        try:
            dev = torch.device(text)
        except (RuntimeError, ValueError):
            gpu = re.fullmatch(r"gpu(:\d+)?", text)  # a common name that PyTorch calls cuda
            tip = f"; for a GPU write cuda{gpu.group(1) or ''} (PyTorch's name)" if gpu else ""
            raise DeviceError(f"device {spec!r} is not a device name: {_HINT}{tip}") from None
    if dev.type == "cpu":
        if dev.index not in (None, 0):  # torch accepts cpu:1 but computes on the one CPU device: say so, not ignore
            raise DeviceError(f"device {str(spec)!r}: the CPU is one device (all its cores), it has no index; "
                              "use --device cpu (device=cpu)")
        return torch.device("cpu")
    if dev.type == "cuda":
        if not _cuda_available():
            raise DeviceError(f"device {str(spec)!r}: CUDA is not available on this machine "
                              f"({_no_cuda_reason()}); use --device cpu (device=cpu), or --device auto to take a "
                              "GPU only where there is one")
        count = torch.cuda.device_count()
        index = torch.cuda.current_device() if dev.index is None else dev.index
        if index >= count:
            raise DeviceError(f"device {str(spec)!r}: this machine has {count} CUDA GPU(s), numbered 0 to "
                              f"{count - 1}; use --device cuda:0 (or check CUDA_VISIBLE_DEVICES)")
        return torch.device("cuda", index)
    if dev.type == "mps":
        if not _mps_available():
            raise DeviceError(f"device {str(spec)!r}: Apple's MPS backend is not available on this machine; "
                              "use --device cpu (or auto)")
        return torch.device("mps")
    raise DeviceError(f"device {str(spec)!r}: gatbio runs on the CPU, CUDA GPUs or MPS; {_HINT}")


def describe_device(device: torch.device, spec: str | torch.device | None = "auto", small_graphs: bool = False) -> str:
    """One line saying where gatbio computes and why: ``gatbio: device cpu (auto: no CUDA)``,
    ``gatbio: device cuda:0 (auto: NVIDIA H100 80GB HBM3)``, ``gatbio: device cpu (asked for)``, and for
    small graphs on a machine with a GPU ``gatbio: device cpu (auto: small graphs train faster on the CPU; ...)``."""
    import torch

    auto = spec is None or (isinstance(spec, str) and spec.strip().lower() == "auto")
    if device.type == "cuda":
        name = torch.cuda.get_device_name(device)
        why = f"auto: {name}" if auto else name
    elif auto and small_graphs and _cuda_available():
        why = "auto: small graphs train faster on the CPU than on a GPU; --device cuda to use the GPU anyway"
    elif auto:
        why = "auto: no CUDA"
    else:
        why = "asked for"
    return f"gatbio: device {device} ({why})"


_announced: set[str] = set()

# Measured on an H200 beside the same work on 2 CPU cores: the robustness sweep's food-web fits on four Cheddar webs,
# medians 0.63-1.38 s a fit on the GPU against 0.30-0.58 s (experiments/gpu_runs/2026-11-26c-h200); the food-web
# benchmark's first 32 dev webs, 2.4x slower per web (median; 1.9-3.6x; experiments/gpu_runs/2026-11-26d-h200).
# Hence --device auto runs the food-web commands on the CPU (resolve_device(..., small_graphs=True)).
SMALL_GRAPHS_ON_GPU = ("food webs are small graphs: on an H200 their fits ran 1.9-3.6x slower than on 2 CPU cores "
                       "(each training step is kernel launches and host work); --device cpu (or auto) is likely faster")


def small_graph_note(device: torch.device, file: TextIO | None = None) -> None:
    """Say once per process, on a GPU, that tiny graphs (food webs) train faster on the CPU (measured figures in
    :data:`SMALL_GRAPHS_ON_GPU`); nothing on the CPU."""
    if device.type != "cuda" or "small-graphs" in _announced:
        return
    _announced.add("small-graphs")
    print(f"gatbio: note: {SMALL_GRAPHS_ON_GPU}", file=file if file is not None else sys.stderr, flush=True)


def announce_device(device: torch.device, spec: str | torch.device | None = "auto", file: TextIO | None = None,
                    once: bool = True, small_graphs: bool = False) -> None:
    """Print :func:`describe_device` on stderr, once per process and device (a command that runs several tasks,
    such as the demo, says it once); for ``small_graphs`` work on a GPU also :func:`small_graph_note`."""
    if small_graphs:
        small_graph_note(device, file)
    line = describe_device(device, spec, small_graphs)
    if once and str(device) in _announced:
        return
    _announced.add(str(device))
    print(line, file=file if file is not None else sys.stderr, flush=True)


def module_device(module: torch.nn.Module) -> torch.device:
    """The device of ``module``'s first parameter or buffer (the CPU for a module with neither)."""
    import torch

    for t in module.parameters():
        return t.device
    for t in module.buffers():
        return t.device
    return torch.device("cpu")
