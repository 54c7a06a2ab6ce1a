"""gatbio.device and the ``device`` plumbing: resolving a device name on this machine (CUDA and MPS mocked),
the announcement, the resume fingerprint that ignores the device, ``gatbio.train.fit(device=...)`` and the
protein task's stored device. The tasks' commands and their CUDA-vs-CPU comparisons are in
``tests/test_device_commands.py``."""

from __future__ import annotations

import io
import json

import pytest
import torch

from gatbio import device as D
from gatbio.cli import UserError
from gatbio.device import DeviceError, announce_device, describe_device, module_device, resolve_device


@pytest.fixture
def no_cuda(monkeypatch):
    monkeypatch.setattr(D, "_cuda_available", lambda: False)
    monkeypatch.setattr(D, "_mps_available", lambda: False)


def test_auto_is_the_cpu_without_cuda_and_the_current_gpu_with_it(no_cuda, monkeypatch):
    assert resolve_device("auto") == torch.device("cpu")
    assert resolve_device(None) == torch.device("cpu")
    assert resolve_device() == torch.device("cpu")
    monkeypatch.setattr(D, "_cuda_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "current_device", lambda: 1)
    assert resolve_device("auto") == torch.device("cuda", 1)


def test_auto_never_picks_mps(monkeypatch):
    monkeypatch.setattr(D, "_cuda_available", lambda: False)
    monkeypatch.setattr(D, "_mps_available", lambda: True)
    assert resolve_device("auto") == torch.device("cpu")
    assert resolve_device("mps") == torch.device("mps")


def test_explicit_devices_are_normalised(two_gpus):
    assert resolve_device("cpu") == torch.device("cpu")
    assert resolve_device(" CPU ") == torch.device("cpu")
    assert resolve_device(torch.device("cpu")) == torch.device("cpu")
    # "cuda" gets the current GPU's index, so it compares equal to a tensor's .device (cuda:0)
    assert resolve_device("cuda") == torch.device("cuda", 0)
    assert str(resolve_device("cuda")) == "cuda:0"
    assert resolve_device("cuda:1") == torch.device("cuda", 1)
    assert resolve_device(torch.device("cuda", 1)) == torch.device("cuda", 1)


def test_cuda_on_a_machine_without_it_says_so_and_suggests_the_cpu(no_cuda):
    with pytest.raises(DeviceError, match=r"device 'cuda': CUDA is not available on this machine .*use --device cpu"):
        resolve_device("cuda")
    with pytest.raises(DeviceError, match="device 'cuda:0': CUDA is not available"):
        resolve_device(torch.device("cuda", 0))
    with pytest.raises(DeviceError, match="device 'mps': Apple's MPS backend is not available.*--device cpu"):
        resolve_device("mps")


def test_a_gpu_index_beyond_the_machine_names_the_gpus_there_are(two_gpus):
    with pytest.raises(DeviceError, match=r"device 'cuda:2': this machine has 2 CUDA GPU\(s\), numbered 0 to 1"):
        resolve_device("cuda:2")


@pytest.mark.parametrize("name", ["gpu", "cuda:x", "", "tpu:0", "meta"])
def test_unknown_names_list_what_is_accepted(name):
    with pytest.raises(DeviceError, match="auto, cpu, cuda, cuda:N .* or mps"):
        resolve_device(name)


def test_device_errors_are_value_errors_and_user_errors():
    # ValueError for the Python API; UserError: the gatbio command prints the one line, no traceback
    assert issubclass(DeviceError, ValueError) and issubclass(DeviceError, UserError)


def test_the_command_prints_the_device_error_as_one_line(no_cuda, capsys, tmp_path):
    from gatbio.cli import main

    rc = main(["protein", "predict", "--edges", str(tmp_path / "e.txt"), "--labels", str(tmp_path / "l.txt"),
               "--out", str(tmp_path / "p.csv"), "--device", "cuda"])
    err = capsys.readouterr().err
    assert rc == 1 and err.startswith("gatbio protein predict: error: device 'cuda': CUDA is not available")
    assert "Traceback" not in err and not (tmp_path / "p.csv").exists()


def test_description_says_where_and_why(two_gpus):
    cpu = torch.device("cpu")
    assert describe_device(cpu, "auto") == "gatbio: device cpu (auto: no CUDA)"
    assert describe_device(cpu, "cpu") == "gatbio: device cpu (asked for)"
    assert describe_device(torch.device("cuda", 0), "auto") == "gatbio: device cuda:0 (auto: Mock GPU)"
    assert describe_device(torch.device("cuda", 1), "cuda:1") == "gatbio: device cuda:1 (Mock GPU)"


def test_announcement_is_printed_once_per_device(monkeypatch):
    monkeypatch.setattr(D, "_announced", set())
    buf = io.StringIO()
    for _ in range(3):
        announce_device(torch.device("cpu"), "auto", file=buf)
    assert buf.getvalue() == "gatbio: device cpu (auto: no CUDA)\n"
    announce_device(torch.device("cpu"), "auto", file=buf, once=False)
    assert buf.getvalue().count("\n") == 2


def test_the_small_graph_note_is_said_once_and_only_on_a_gpu(monkeypatch):
    monkeypatch.setattr(D, "_announced", set())
    buf = io.StringIO()
    D.small_graph_note(torch.device("cpu"), file=buf)
    assert buf.getvalue() == ""
    for _ in range(2):
        D.small_graph_note(torch.device("cuda", 0), file=buf)
    assert buf.getvalue().count("\n") == 1
    assert "1.9-3.6x slower than on 2 CPU cores" in buf.getvalue() and "--device cpu" in buf.getvalue()


def test_module_device_of_parameters_buffers_and_empty_modules():
    assert module_device(torch.nn.Linear(2, 2)) == torch.device("cpu")
    assert module_device(torch.nn.BatchNorm1d(2, affine=False)) == torch.device("cpu")  # buffers only
    assert module_device(torch.nn.ReLU()) == torch.device("cpu")


# ----------------------------------------------------------------------------------------------------------
# resuming on another device


def test_the_resume_fingerprint_ignores_the_device(tmp_path):
    """A folder started on a GPU resumes on the CPU (and back); other settings still count."""
    from dataclasses import dataclass

    from gatbio.results import (
        ALWAYS_FREE_KEYS,
        ResumeConflictError,
        prepare_out_dir,
        read_json,
        result_settings,
    )

    @dataclass
    class Cfg:
        epochs: int = 5
        device: str = "auto"

    assert "device" in ALWAYS_FREE_KEYS
    assert result_settings(Cfg(device="cuda:0"), ()) == result_settings(Cfg(device="cpu"), ()) == {"epochs": 5}
    prepare_out_dir(tmp_path, Cfg(device="cuda:0"), free_keys=(), outputs=("runs",))
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "seed0.json").write_text("{}")  # a finished run
    assert "device: cuda:0" in (tmp_path / "config.yaml").read_text()
    fp = read_json(tmp_path / "fingerprint.json")
    assert "device" not in fp["settings"] and "device" in fp["free_keys"]
    prepare_out_dir(tmp_path, Cfg(device="cpu"), free_keys=(), outputs=("runs",))  # not refused
    assert "device: cpu" in (tmp_path / "config.yaml").read_text()
    with pytest.raises(ResumeConflictError, match=r"epochs: 5 -> 6"):
        prepare_out_dir(tmp_path, Cfg(epochs=6, device="cpu"), free_keys=(), outputs=("runs",))


def test_every_task_config_has_a_device_defaulting_to_auto():
    from gatbio.tasks.foodweb import FoodWebConfig
    from gatbio.tasks.protein import ProteinConfig
    from gatbio.tasks.protein_ppi import PPIBenchConfig
    from gatbio.tasks.robustness import RobustnessConfig

    for schema in (ProteinConfig, FoodWebConfig, RobustnessConfig, PPIBenchConfig):
        assert schema().device == "auto", schema.__name__


# ----------------------------------------------------------------------------------------------------------
# gatbio.train


def _toy():
    """Two 6-node cliques joined by one edge; class = clique; inputs one-hot of the clique plus noise."""
    g = torch.Generator().manual_seed(0)
    pairs = [(i, j) for c in (0, 6) for i in range(c, c + 6) for j in range(c, c + 6) if i != j] + [(5, 6), (6, 5)]
    ei = torch.tensor(pairs).t()
    y = torch.tensor([0] * 6 + [1] * 6)
    x = torch.nn.functional.one_hot(y, 2).float() + 0.3 * torch.randn(12, 2, generator=g)
    return x, ei, y


def _model():
    from gatbio.nn.node_models import GATNodeClassifier

    torch.manual_seed(0)
    return GATNodeClassifier(2, 2, hidden_channels=4, heads=2, task="multiclass", dropout=0.0, input_dropout=0.0,
                             attn_dropout=0.0, label_channels=2)


def test_fit_trains_on_the_device_it_is_given_and_matches_the_default():
    from gatbio.tasks.protein import val_score
    from gatbio.train import TrainConfig, fit, predict

    x, ei, y = _toy()
    fit_idx, val_idx = torch.tensor([0, 1, 2, 6, 7, 8]), torch.tensor([3, 4, 9, 10])
    cfg = TrainConfig(epochs=12, eval_every=2, patience=50, label_trick=True)
    m1, m2 = _model(), _model()
    r1 = fit(m1, x, ei, y, fit_idx, val_idx, val_score(False), cfg, seed=3)
    r2 = fit(m2, x, ei, y, fit_idx, val_idx, val_score(False), cfg, seed=3, device="cpu")
    assert module_device(m2) == torch.device("cpu")
    assert r1.history == r2.history  # the label trick's halves are drawn the same way
    p1, p2 = predict(m1, x, ei, y, fit_idx), predict(m2, x, ei, y, fit_idx)
    assert p1.device.type == "cpu" and torch.equal(p1, p2)
    assert p1.shape == (12, 2) and torch.allclose(p1.sum(1), torch.ones(12))


def test_fit_refuses_a_device_this_machine_lacks_before_training(no_cuda):
    from gatbio.tasks.protein import val_score
    from gatbio.train import fit

    x, ei, y = _toy()
    model = _model()
    before = {k: v.clone() for k, v in model.state_dict().items()}
    with pytest.raises(DeviceError, match="CUDA is not available"):
        fit(model, x, ei, y, torch.tensor([0, 6]), torch.tensor([1, 7]), val_score(False), device="cuda")
    assert all(torch.equal(before[k], v) for k, v in model.state_dict().items())


def test_label_matrix_is_made_on_the_labels_device():
    from gatbio.train import label_matrix

    y = torch.tensor([0, 2, -1, 1])
    out = label_matrix(y, torch.tensor([0, 1, 2]), 3)
    assert out.device == y.device
    assert out.tolist() == [[1, 0, 0], [0, 0, 1], [0, 0, 0], [0, 0, 0]]


# ----------------------------------------------------------------------------------------------------------
# the protein task records its device


def test_protein_sweep_records_the_resolved_device(tmp_path, monkeypatch, capsys):
    from gatbio.tasks import protein as P
    from tests.tasks.test_protein import communities

    monkeypatch.setattr(D, "_announced", set())
    monkeypatch.setattr(D, "_cuda_available", lambda: False)
    data = communities()
    monkeypatch.setattr(P, "load_data", lambda name: data.clone())
    overrides = [f"out_dir={tmp_path}", "fractions=[0.5]", "seeds=[0]", "epochs=4", "hidden=4", "heads=2",
                 "inputs=[prone]", "embed_dim=8", "variants=[neighbor_vote,gat]", "attention_example=false"]
    P.run(P.load(None, overrides))  # device: auto
    assert "gatbio: device cpu (auto: no CUDA)" in capsys.readouterr().err
    assert "device: cpu" in (tmp_path / "config.yaml").read_text()
    row = json.loads((tmp_path / "runs" / "node2vec-ppi" / "f0.50_s0" / "gat.json").read_text())
    assert row["device"] == "cpu" and row["threads"] == 1  # threads may change results: recorded per run
    assert row["software"]["torch"] == torch.__version__  # the software behind the figure
    assert json.loads((tmp_path / "fingerprint.json").read_text())["software"] == row["software"]
    # a stored run made on another device is resumed, not refused
    text = (tmp_path / "config.yaml").read_text().replace("device: cpu", "device: cuda:0")
    (tmp_path / "config.yaml").write_text(text)
    P.run(P.load(None, overrides + ["device=cpu"]))


# ----------------------------------------------------------------------------------------------------------
# small graphs (food webs): auto means the CPU, a GPU named explicitly is still used


def test_auto_is_the_cpu_for_small_graphs_even_with_a_gpu(two_gpus):
    assert resolve_device("auto", small_graphs=True) == torch.device("cpu")
    assert resolve_device(None, small_graphs=True) == torch.device("cpu")
    assert resolve_device("cuda", small_graphs=True) == torch.device("cuda", 0)  # asked for: kept
    assert resolve_device("auto") == torch.device("cuda", 0)  # other work: the GPU, as before
    line = describe_device(torch.device("cpu"), "auto", small_graphs=True)
    assert line.startswith("gatbio: device cpu (auto: small graphs train faster on the CPU")
    assert "--device cuda" in line


def test_small_graphs_without_a_gpu_say_no_cuda(no_cuda):
    assert resolve_device("auto", small_graphs=True) == torch.device("cpu")
    assert describe_device(torch.device("cpu"), "auto", small_graphs=True) == "gatbio: device cpu (auto: no CUDA)"


@pytest.mark.parametrize("flag, expected", [([], "cpu"), (["--device", "cuda"], "cuda:0")])
def test_foodweb_predict_trains_on_the_cpu_under_auto_and_on_a_gpu_asked_for(tmp_path, two_gpus, monkeypatch,
                                                                            capsys, flag, expected):
    import pandas as pd

    from gatbio.cli import main
    from gatbio.tasks import foodweb as fw

    monkeypatch.setattr(D, "_announced", set())
    seen = []

    def stub(data, top, seeds=None, traits=None, trait_names=None, progress=False, device=None):
        seen.append(device)
        return pd.DataFrame({"rank": [1], "resource": ["a"], "consumer": ["d"], "score": [0.0],
                             "resource_level": [1.0], "consumer_level": [2.0], "model": ["structure_only"]})

    monkeypatch.setattr(fw, "predict_missing_links", stub)
    web = tmp_path / "web.txt"
    web.write_text("a b\nb c\nc d\na c\n")
    rc = main(["foodweb", "predict", str(web), "--out", str(tmp_path / "p.csv"), "--quiet"] + flag)
    err = capsys.readouterr().err
    assert rc == 0 and [str(d) for d in seen] == [expected]
    if expected == "cpu":
        assert "gatbio: device cpu (auto: small graphs train faster on the CPU" in err
        assert "gatbio: note: food webs are small graphs" not in err
    else:
        assert "gatbio: device cuda:0 (Mock GPU)" in err and "gatbio: note: food webs are small graphs" in err

