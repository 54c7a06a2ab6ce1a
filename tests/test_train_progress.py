"""The training loops' ``on_epoch`` callback (called once per epoch, changing nothing) and the heartbeat's line
that names the epoch of the model a unit trains (``gat, epoch 3/10``)."""

from __future__ import annotations

import io
import time

import pytest
import torch
from conftest import two_cliques

from gatbio.results import UnitStage, heartbeat
from gatbio.train import FitResult, PairTrainConfig, TrainConfig, fit, fit_pairs, predict, predict_pairs


def _node_model():
    from gatbio.nn.node_models import GATNodeClassifier

    torch.manual_seed(0)  # dropout on: the callback must leave torch's random draws alone
    return GATNodeClassifier(2, 2, hidden_channels=4, heads=2, task="multiclass", dropout=0.2, input_dropout=0.1,
                             attn_dropout=0.1, label_channels=2)


def _same(a: torch.nn.Module, b: torch.nn.Module) -> bool:
    sa, sb = a.state_dict(), b.state_dict()
    return sa.keys() == sb.keys() and all(torch.equal(sa[k], sb[k]) for k in sa)


@pytest.mark.parametrize("patience", [50, 1])  # every epoch, and an early stop
def test_fit_calls_on_epoch_once_per_epoch_and_changes_nothing(patience):
    from gatbio.tasks.protein import val_score

    x, ei, y = two_cliques()
    fit_idx, val_idx = torch.tensor([0, 1, 2, 6, 7, 8]), torch.tensor([3, 4, 9, 10])
    cfg = TrainConfig(epochs=10, eval_every=2, patience=patience, label_trick=True)  # label trick: seeded draws
    calls: list[tuple[int, int]] = []
    m0, m1 = _node_model(), _node_model()
    r0 = fit(m0, x, ei, y, fit_idx, val_idx, val_score(False), cfg, seed=3)
    after0 = torch.rand(3)  # the global RNG's state after training
    r1 = fit(m1, x, ei, y, fit_idx, val_idx, val_score(False), cfg, seed=3, on_epoch=lambda e, n: calls.append((e, n)))
    after1 = torch.rand(3)
    assert calls == [(e, 10) for e in range(1, r1.epochs_run + 1)]
    assert (r1.epochs_run < 10) == (patience == 1)
    assert isinstance(r1, FitResult) and r0 == r1  # history, best epoch, epochs run: the same
    assert _same(m0, m1) and torch.equal(after0, after1)
    assert torch.equal(predict(m0, x, ei, y, fit_idx), predict(m1, x, ei, y, fit_idx))


def _pair_problem():
    g = torch.Generator().manual_seed(1)
    x, ei, _ = two_cliques()
    pairs = torch.tensor([(i, j) for i in range(12) for j in range(i + 1, 12) if (i + j) % 3 == 0])  # (P, 2)
    modes = (torch.rand(pairs.size(0), 3, generator=g) < 0.4).float()  # (P, M)
    return x, ei, pairs, modes


def test_fit_pairs_calls_on_epoch_once_per_epoch_and_changes_nothing():
    from gatbio.nn.pair_models import build_pair_model, model_options
    from gatbio.tasks.protein_interactions import _val_score

    x, ei, pairs, modes = _pair_problem()
    n = pairs.size(0)
    fit_idx, val_idx = torch.arange(0, n - 4), torch.arange(n - 4, n)
    cfg = PairTrainConfig(epochs=7, eval_every=2, patience=50)
    runs = []
    for on in (False, True):
        calls: list[tuple[int, int]] = []
        torch.manual_seed(0)
        model = build_pair_model(model_options("gat_plain", {"hidden": 8, "heads": 2, "dropout": 0.2}), 2, 3)
        res = fit_pairs(model, x, ei, pairs, modes, fit_idx, val_idx, _val_score(0.5), cfg, seed=2,
                        on_epoch=(lambda e, m, calls=calls: calls.append((e, m))) if on else None)
        runs.append((model, res, calls, predict_pairs(model, x, ei, pairs)))
    (m0, r0, c0, p0), (m1, r1, c1, p1) = runs
    assert c0 == [] and c1 == [(e, 7) for e in range(1, 8)] and r1.epochs_run == 7
    assert r0 == r1 and _same(m0, m1) and torch.equal(p0, p1)


def test_heartbeat_line_names_the_epoch():
    stream = io.StringIO()
    label = "protein: still running (fraction 0.5, seed 0)"
    with heartbeat(label, every=0.05, stream=stream) as stage:
        assert isinstance(stage, UnitStage) and stage.on_epoch is not None
        stage("gat")
        stage.on_epoch(3, 10)
        time.sleep(0.3)
        stage.stage("gcn")  # a new step: its model has no epoch yet
        time.sleep(0.3)
    lines = stream.getvalue().splitlines()
    assert all(line.endswith(" in this unit") for line in lines), lines
    what = [line.rsplit(", ", 1)[0] for line in lines]  # without the time (a loaded machine may reach 0:01)
    first = f"{label}: gat, epoch 3/10"
    assert what[0] == first and what[-1] == f"{label}: gcn", lines
    k = what.index(f"{label}: gcn")
    assert set(what[:k]) == {first} and set(what[k:]) == {f"{label}: gcn"}, lines


def test_stage_text_and_no_callback_with_the_heartbeat_off():
    s = UnitStage()
    assert s.text() == ""
    s.epoch(1, 5)
    assert s.text() == "epoch 1/5"
    s("gat")
    s.epoch(2, 5)
    assert s.text() == "gat, epoch 2/5"
    quiet = io.StringIO()
    with heartbeat("x", on=False, every=0.01, stream=quiet) as stage:
        assert stage.on_epoch is None  # a unit without a heartbeat passes no callback
        stage("gat")
        stage.epoch(3, 10)
        time.sleep(0.05)
    assert quiet.getvalue() == ""


@pytest.mark.parametrize("beat", [True, False])
def test_protein_unit_passes_the_heartbeat_callback_only_when_on(tmp_path, monkeypatch, beat):
    from gatbio.tasks import protein as P
    from tests.tasks.test_protein import communities

    data = communities()
    monkeypatch.setattr(P, "load_data", lambda name: data.clone())
    seen = []

    class Stop(Exception):
        pass

    def train_neural(*a, on_epoch=None, **k):
        seen.append(on_epoch)
        raise Stop

    monkeypatch.setattr(P, "train_neural", train_neural)
    cfg = P.load(None, [f"out_dir={tmp_path}", "fractions=[0.5]", "seeds=[0]", "variants=[gat]", "device=cpu"])
    with pytest.raises(Stop):
        # the heartbeat's stage, as parallel_map(heartbeat=...) passes it; none without a heartbeat
        P.run_unit(cfg, 0.5, 0, {"nn": None}, **({"stage": UnitStage(on=True)} if beat else {}))
    assert len(seen) == 1
    if beat:
        assert seen[0] is not None and seen[0].__self__.__class__ is UnitStage
    else:
        assert seen[0] is None
