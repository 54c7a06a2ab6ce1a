"""experiments/bench_layer.py on a tiny graph: both modes run and write the JSON keys the README and the issue's
targets read (CPU mode: ``<size>.time_ratio_vs_pyg`` …; GPU mode, here on CPU with ``--one-process``:
``<size>.<row>.time_ratio_vs_floor``, ``…_vs_pyg``, ``bf16_time_ratio_vs_fp32``, ``bf16_max_error_vs_fp32``),
and an out-of-memory case is recorded without ending the run."""

from __future__ import annotations

import json
import os
import sys

import pytest
import torch
from conftest import REPO, experiment_script


@pytest.fixture(scope="module")
def bench():
    return experiment_script("bench_layer")


def test_one_process_mode_writes_the_ratio_keys(bench, tmp_path):
    out = tmp_path / "gpu.json"
    rc = bench.main(["--one-process", "--sizes", "tiny", "--rows", "gat_all,gatv2,pyg_gat,floor",
                     "--impl", "fused", "--repeats", "1", "--warmup", "1", "--turbo", "--json", str(out)])
    assert rc == 0
    d = json.loads(out.read_text())
    assert d["mode"] == "one-process" and d["sizes"]["tiny"]["edges"] == 3_000
    assert "partial" not in d  # the final record replaces the one saved after each size
    for row in ("gat_all", "gat_all_bf16", "gatv2", "gatv2_bf16", "pyg_gat", "floor"):
        assert d[f"tiny.{row}.time_s"] > 0, row
        assert len(d[f"tiny.{row}.times_s"]) == 1
    assert d["tiny.gat_all.path"] == "fused" and d["tiny.gat_all.impl"] == "fused"
    for key in ("tiny.gat_all.time_ratio_vs_floor", "tiny.gat_all.time_ratio_vs_pyg",
                "tiny.gatv2.time_ratio_vs_floor",
                "tiny.gat_all.bf16_time_ratio_vs_fp32", "tiny.gatv2.bf16_time_ratio_vs_fp32",
                "tiny.pyg_gat.time_ratio_vs_floor"):
        assert d[key] > 0, key
    # The ratio is the quotient of the two medians it names.
    assert d["tiny.gat_all.time_ratio_vs_pyg"] == pytest.approx(
        d["tiny.gat_all.time_s"] / d["tiny.pyg_gat.time_s"], abs=1e-3)
    # bf16 under CPU autocast: the same layer's output within 2e-2 of float32.
    assert 0 < d["tiny.gat_all.bf16_max_error_vs_fp32"] < 2e-2
    assert 0 < d["tiny.gatv2.bf16_max_error_vs_fp32"] < 2e-2
    # turbo-gnn is not installed here: the row is skipped with a note, not a failure.
    assert "turbo_gnn does not import" in d["turbo"] and "tiny.turbo.time_s" not in d
    assert "tiny.gatv2.time_ratio_vs_pyg" not in d  # pyg_gatv2 was not asked for
    assert not any(k.endswith(".peak_mem_gb") for k in d)  # no peak memory on CPU in this mode


def test_profile_writes_each_cases_operator_table(bench, tmp_path):
    prof, out = tmp_path / "prof", tmp_path / "gpu.json"
    rc = bench.main(["--one-process", "--sizes", "tiny", "--rows", "gat_all,floor", "--impl", "fused", "--no-bf16",
                     "--repeats", "1", "--warmup", "1", "--profile", str(prof), "--json", str(out)])
    assert rc == 0
    assert sorted(p.name for p in prof.iterdir()) == ["tiny.floor.txt", "tiny.gat_all.txt"]
    text = (prof / "tiny.gat_all.txt").read_text()
    assert text.startswith("3 steps (forward + backward), sorted by self_cpu_time_total")
    assert "aten::" in text  # the operators the steps ran (the fused path's sparse products among them)
    # ... then by input shapes (an (E, edge_dim) edge-feature tensor's shape among them: tiny has 4 features) and by
    # the Python functions that made each call (the layer's own module among them)
    shapes, stacks = text.split("by input shapes")[1].split("by shapes and by who called them")
    assert ", 4]" in shapes
    assert "gatbio/nn/" in stacks
    d = json.loads(out.read_text())
    # On CPU no device kernel is launched: nothing to count, a share of 0.
    assert d["tiny.gat_all.profile_kernels"] == 0 and d["tiny.gat_all.profile_device_share"] == 0
    assert "tiny.floor.profile_device_ms" in d


def test_callers_come_from_each_events_stack_as_torch_2_11_records_them(bench):
    # torch 2.11 records no Python events as parents of the operators (the caller table came out as "?" on the
    # GPU machine): the callers come from each event's own stack; an operator inside another is not outermost.
    from types import SimpleNamespace as Ev

    root = bench._ROOT
    stack = [root + "gatbio/nn/functional.py(130): dot_scores", root + "gatbio/nn/conv.py(400): forward",
             "/x/site-packages/torch/nn/modules/module.py(1775): _call_impl", "bench.py(9): step"]
    node = Ev(name="MmBackward0", cpu_parent=Ev(name="autograd::engine::evaluate_function: MmBackward0",
                                                 cpu_parent=None))
    matmul = Ev(name="aten::matmul", cpu_parent=None, stack=stack, input_shapes=[[8, 4], [4, 2]], cpu_time_total=30.0)
    events = [matmul,
              Ev(name="aten::mm", cpu_parent=matmul, stack=stack, input_shapes=[[8, 4], [4, 2]], cpu_time_total=29.0),
              Ev(name="aten::mm", cpu_parent=node, stack=[], input_shapes=[[4, 8], [8, 2]], cpu_time_total=12.0)]
    lines = bench._operators_by_caller(events, cuda=False).splitlines()[1:]
    assert len(lines) == 2  # the inner aten::mm is not counted apart from its aten::matmul
    assert lines[0].endswith("aten::matmul [[8, 4], [4, 2]]  <  gatbio/nn/functional.py(130): dot_scores < "
                             "gatbio/nn/conv.py(400): forward < torch/nn/modules/module.py(1775): _call_impl")
    assert lines[1].endswith("aten::mm [[4, 8], [8, 2]]  <  backward of MmBackward0")
    assert lines[0].split()[0] == f"{30.0 / 1e3 / bench.PROFILE_STEPS:.3f}"


def test_out_of_memory_is_recorded_and_the_run_goes_on(bench, monkeypatch, capsys):
    real = bench.run_gpu_case

    def flaky(row, *args, **kwargs):
        if row.kind == "pyg_gat":
            raise torch.cuda.OutOfMemoryError("CUDA out of memory. Tried to allocate 40.00 GiB")
        return real(row, *args, **kwargs)

    monkeypatch.setattr(bench, "run_gpu_case", flaky)
    rows = bench.gpu_rows(["gat", "pyg_gat", "floor"], ["reference"], bf16=False, turbo=False)
    args = type("Args", (), dict(device="cpu", seed=0, warmup=1, repeats=1, profile=None))()
    sizes = [bench.ALL_SIZES["tiny"]]
    results = bench.bench_gpu(sizes, rows, args)
    assert results["tiny.pyg_gat"]["oom"] is True
    assert "time_s" in results["tiny.gat"] and "time_s" in results["tiny.floor"]  # cases after it ran
    ratios = bench.gpu_ratios(results, sizes, rows)
    assert "tiny.gat.time_ratio_vs_floor" in ratios and "tiny.gat.time_ratio_vs_pyg" not in ratios
    assert "out of memory" in bench.gpu_table(results, sizes, rows)


def test_cpu_mode_ratio_keys(bench):
    """The CPU mode's ratio keys (those of results/bench/bench_cpu*.json, quoted in the README)."""
    results = {"ppi.ours_all": {"time_s": 0.35, "peak_mem_gb": 0.28}, "ppi.ours_off": {"time_s": 0.23},
               "ppi.pyg": {"time_s": 2.44, "peak_mem_gb": 2.08}, "ppi.floor": {"time_s": 0.66},
               "ppi.pyg_all": {"skipped": "estimated 40 GB > memory limit 8 GB"}}
    r = bench.ratios(results, [bench.SIZES["ppi"]])
    assert r["ppi.time_ratio_vs_pyg"] == pytest.approx(0.35 / 2.44, abs=1e-3)
    assert r["ppi.memory_ratio_vs_pyg"] == pytest.approx(0.28 / 2.08, abs=1e-3)
    assert r["ppi.time_ratio_vs_floor"] == pytest.approx(0.35 / 0.66, abs=1e-3)
    assert r["ppi.time_ratio_vs_pyg_options_off"] == pytest.approx(0.23 / 2.44, abs=1e-3)
    assert not any("pyg_same_options" in k for k in r)  # a skipped case gives no ratio


@pytest.mark.slow
def test_cpu_mode_keeps_its_keys(tmp_path):
    """The CPU mode (a fresh process per case) runs end to end and keeps the keys of
    results/bench/bench_cpu*.json."""
    import subprocess

    out = tmp_path / "cpu.json"
    proc = subprocess.run(
        [sys.executable, str(REPO / "experiments" / "bench_layer.py"), "--sizes", "tiny", "--layers",
         "ours_all,pyg,floor", "--rounds", "1", "--repeats", "1", "--no-scaling", "--threads", "1",
         "--json", str(out)], capture_output=True, text=True, timeout=120, cwd=REPO,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))})
    assert proc.returncode == 0, proc.stderr[-2000:]
    d = json.loads(out.read_text())
    for key in ("tiny.ours_all.time_s", "tiny.ours_all.peak_mem_gb", "tiny.pyg.time_s", "tiny.floor.time_s",
                "tiny.time_ratio_vs_pyg", "tiny.time_ratio_vs_floor", "tiny.memory_ratio_vs_pyg"):
        assert key in d, key
    assert d["tiny.time_ratio_vs_pyg"] == pytest.approx(d["tiny.ours_all.time_s"] / d["tiny.pyg.time_s"],
                                                        abs=1e-3)


@pytest.mark.parametrize("argv,message", [
    (["--rows", "nope", "--quick"], "--rows / --impl: unknown ['nope']"),
    (["--impl", "nope", "--quick"], "--rows / --impl: unknown ['nope']"),
    (["--one-process", "--impl", "nope"], "--rows / --impl: unknown ['nope']"),
    (["--rows", "gat", "--no-bf16", "--quick"], "--rows, --no-bf16: option(s) of the GPU mode"),
])
def test_unknown_rows_and_impls_are_refused_in_every_mode(bench, argv, message, monkeypatch, capsys):
    """The CPU mode checks --rows / --impl too, and refuses the GPU mode's options instead of ignoring them."""
    for mode in ("run_cpu_mode", "run_gpu_mode"):
        monkeypatch.setattr(bench, mode, lambda *a, **k: pytest.fail("the benchmark began"))
    with pytest.raises(SystemExit) as exit_:
        bench.main(argv)
    assert exit_.value.code == 2 and message in capsys.readouterr().err
