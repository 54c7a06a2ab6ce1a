"""Leftovers of the device audit: device names in the DDP entry points (``spawn_ddp``, ``train_graphs``), their
``world_size`` check, and ``resolve_device`` on ``cpu:1`` and ``gpu``."""

from __future__ import annotations

import pytest
import torch
from torch_geometric.data import Data

from gatbio import device as D
from gatbio.device import DeviceError, resolve_device
from gatbio.distributed import _spawn_device, spawn_ddp, train_graphs


@pytest.fixture
def no_cuda(monkeypatch):
    monkeypatch.setattr(D, "_cuda_available", lambda: False)
    monkeypatch.setattr(D, "_mps_available", lambda: False)


class Linear(torch.nn.Module):
    """(x, edge_index) -> logits, for one-label graphs with 2 features; picklable (module level)."""

    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(2, 1)

    def forward(self, x, edge_index):
        return self.lin(x)


def graphs() -> list[Data]:
    g = torch.Generator().manual_seed(0)
    return [Data(x=torch.randn(3, 2, generator=g), edge_index=torch.tensor([[0, 1], [1, 2]]),
                 y=torch.tensor([[0.0], [1.0], [1.0]])) for _ in range(2)]


KW = dict(epochs=1, batch_size=2, seed=0)


@pytest.mark.parametrize("spec", ["auto", "CPU", " cpu ", torch.device("cpu")])
def test_spawn_ddp_and_train_graphs_resolve_device_names(no_cuda, spec):
    """'auto' and 'CPU' failed with torch's 'Expected one of cpu, cuda, ...' inside the training process."""
    expected = spawn_ddp(Linear, graphs(), 1, "cpu", **KW)
    assert spawn_ddp(Linear, graphs(), 1, spec, **KW) == expected
    torch.manual_seed(0)
    model = Linear()
    assert len(train_graphs(model, graphs(), device=spec, **KW)) == 1


@pytest.mark.parametrize("spec,message", [
    ("gpu", r"device 'gpu' is not a device name: .*; for a GPU write cuda \(PyTorch's name\)"),
    ("mps", r"device 'mps': Apple's MPS backend is not available on this machine; use --device cpu"),
    ("cuda", r"device 'cuda': CUDA is not available on this machine"),
])
def test_spawn_ddp_and_train_graphs_refuse_devices_in_one_line(no_cuda, spec, message):
    """'gpu' gave torch's list of device types, 'mps' a RuntimeError from deep in training."""
    with pytest.raises(DeviceError, match=message) as info:
        spawn_ddp(Linear, graphs(), 1, spec, **KW)
    assert "\n" not in str(info.value)
    with pytest.raises(DeviceError, match=message):
        train_graphs(Linear(), graphs(), device=spec, **KW)


@pytest.mark.parametrize("world_size", [2.5, 0, -1, True, "2", None])
def test_spawn_ddp_refuses_a_world_size_that_is_not_a_positive_integer(world_size):
    """2.5 failed with a TypeError inside torch.multiprocessing; True trained as one process."""
    with pytest.raises(ValueError, match=r"world_size=.*: give a positive integer, the number of processes") as info:
        spawn_ddp(Linear, graphs(), world_size, "cpu", **KW)
    assert "\n" not in str(info.value)


def test_bare_cuda_and_auto_mean_one_gpu_per_process(two_gpus):
    assert _spawn_device("cuda", 2) == _spawn_device("auto", 2) == _spawn_device(" CUDA ", 2) == "cuda"
    assert _spawn_device(torch.device("cuda"), 2) == "cuda"
    assert _spawn_device("cuda", 1) == "cuda:0"  # one process keeps the GPU it was given
    assert _spawn_device("cuda:1", 1) == "cuda:1"
    assert _spawn_device("cpu", 2) == "cpu"
    with pytest.raises(DeviceError, match=r"device='cuda:1' names one GPU, but world_size=2 .*use device='cuda'"):
        _spawn_device("cuda:1", 2)
    with pytest.raises(ValueError, match=r"world_size=3 needs as many GPUs, but 2 are visible"):
        spawn_ddp(Linear, graphs(), 3, "cuda", **KW)


def test_mps_runs_one_process(monkeypatch):
    monkeypatch.setattr(D, "_mps_available", lambda: True)
    assert _spawn_device("mps", 1) == "mps"
    with pytest.raises(DeviceError, match=r"device='mps' runs one process: use world_size=1"):
        _spawn_device("mps", 2)


def test_train_graphs_says_when_the_model_is_elsewhere(two_gpus):
    with pytest.raises(ValueError, match=r"device='cuda:0' but the model's parameters are on cpu: move the model"):
        train_graphs(Linear(), graphs(), device="cuda", **KW)


@pytest.mark.parametrize("spec", ["cpu:1", "CPU:3"])
def test_a_cpu_index_is_refused_not_dropped(spec):
    """'cpu:1' became 'cpu' without a word: the index was ignored."""
    with pytest.raises(DeviceError, match=r"the CPU is one device .* it has no index; use --device cpu") as info:
        resolve_device(spec)
    assert "\n" not in str(info.value)
    assert resolve_device("cpu:0") == torch.device("cpu")


@pytest.mark.parametrize("spec,fix", [("gpu", "cuda"), ("GPU:1", "cuda:1")])
def test_gpu_suggests_cuda(spec, fix):
    with pytest.raises(DeviceError, match=rf"for a GPU write {fix} \(PyTorch's name\)$"):
        resolve_device(spec)
    with pytest.raises(DeviceError) as info:
        resolve_device("tpu")
    assert "for a GPU" not in str(info.value)
