"""DDP: two CPU processes (gloo on loopback) follow the loss trajectory of one process on the same batches."""

from __future__ import annotations

import functools

import pytest
import torch
from torch_geometric.data import Data

from gatbio.distributed import (
    build_node_classifier,
    global_batches,
    spawn_ddp,
    synthetic_graphs,
    train_graphs,
)


def test_global_batches_cover_every_graph_once_per_epoch():
    b0 = global_batches(10, 4, epoch=0, seed=1)
    assert [len(b) for b in b0] == [4, 4, 2]
    assert sorted(i for b in b0 for i in b) == list(range(10))
    assert global_batches(10, 4, epoch=0, seed=1) == b0  # the same in every process
    assert global_batches(10, 4, epoch=1, seed=1) != b0  # reshuffled every epoch


def test_two_processes_match_one_process():
    # 5 graphs in global batches of 4: the last batch has one graph, so process 1 has an empty shard.
    graphs = synthetic_graphs(num_graphs=5, nodes=30, edges=120, features=8, labels=3, seed=0)
    build = functools.partial(build_node_classifier, 8, 3, 8, 2)
    kw = dict(epochs=2, batch_size=4, lr=1e-2, seed=0)
    single = spawn_ddp(build, graphs, world_size=1, **kw)
    double = spawn_ddp(build, graphs, world_size=2, **kw)
    assert len(single) == len(double) == 4  # 2 epochs × 2 steps
    torch.testing.assert_close(torch.tensor(double), torch.tensor(single), rtol=1e-5, atol=1e-6)
    assert single[-1] < single[0]  # it trained


def test_graphs_without_targets_are_rejected():
    g = Data(x=torch.randn(3, 2), edge_index=torch.tensor([[0, 1], [1, 2]]))
    with pytest.raises(ValueError, match=r"graphs\[0\] has no y"):
        train_graphs(torch.nn.Linear(2, 1), [g], epochs=1, batch_size=1)


def _no_work(*_args, **_kwargs):
    raise AssertionError("the command loaded data although its arguments were bad")


@pytest.mark.parametrize("argv, message", [
    (["--nproc", "0"], "--nproc 0: must be a positive integer"),
    (["--nproc", "-1"], "--nproc -1: must be a positive integer"),
    (["--epochs", "0"], "--epochs 0: must be a positive integer"),
    (["--batch-size", "0"], "--batch-size 0: must be a positive integer"),
    (["--hidden", "0"], "--hidden 0: must be a positive integer"),
    (["--heads", "0"], "--heads 0: must be a positive integer"),
    (["--lr", "-1"], "--lr -1.0: must be a positive number"),
    (["--lr", "nan"], "--lr nan: must be a positive number"),
])
def test_cli_refuses_bad_numbers_in_one_line_before_any_work(monkeypatch, capsys, argv, message):
    import gatbio.distributed as gd

    monkeypatch.setattr(gd, "_load_graphs", _no_work)
    with pytest.raises(SystemExit) as exc:
        gd.main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.splitlines()[-1] == f"python -m gatbio.distributed: error: {message}"
    assert "Traceback" not in err


@pytest.mark.parametrize("where", ["parent_is_a_file", "a_folder"])
def test_cli_checks_the_json_path_before_training(tmp_path, monkeypatch, capsys, where):
    import gatbio.distributed as gd

    (tmp_path / "notes.txt").write_text("x")
    target = tmp_path / "notes.txt" / "losses.json" if where == "parent_is_a_file" else tmp_path
    monkeypatch.setattr(gd, "_load_graphs", _no_work)
    with pytest.raises(SystemExit) as exc:
        gd.main(["--epochs", "1", "--device", "cpu", "--json", str(target)])
    assert exc.value.code == 2
    last = capsys.readouterr().err.splitlines()[-1]
    assert last.startswith(f"python -m gatbio.distributed: error: --json {target}: ")


def test_cli_names_the_root_option_typed(tmp_path, capsys):
    import gatbio.distributed as gd

    missing = tmp_path / "nowhere"
    with pytest.raises(SystemExit) as exc:
        gd.main(["--dataset", "ppi", "--root", str(missing), "--device", "cpu"])
    assert exc.value.code == 2
    last = capsys.readouterr().err.splitlines()[-1]
    assert last.startswith(f"python -m gatbio.distributed: error: --root {missing}: no such folder")
