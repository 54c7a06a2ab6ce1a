"""The Triton kernels compiled for an H100 (sm_90) without a GPU: what the interpreter does not check.

Triton's interpreter (tests/nn/test_triton.py) runs the kernels with NumPy: it does not type-check them as the
compiler does, never lowers them to PTX, and runs 32-bit offsets on graphs far too small to overflow them.
These tests run tests/nn/triton_aot.py in a subprocess without ``TRITON_INTERPRET``: Triton's front end on
every kernel variant, checking that all offset arithmetic is 64-bit, then the whole compiler with ``ptxas``.
On a machine with a GPU the CUDA tests compile and run the kernels instead, and these are skipped.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

pytest.importorskip("triton")

SCRIPT = Path(__file__).with_name("triton_aot.py")
REPO = Path(__file__).resolve().parents[2]


def run_stage(stage: str, cache_dir: Path | None = None) -> str:
    if torch.cuda.is_available():
        pytest.skip("the CUDA tests compile and run the kernels on this machine's GPU")
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), env.get("PYTHONPATH", "")])
    if cache_dir is not None:
        env["TRITON_CACHE_DIR"] = str(cache_dir)
    result = subprocess.run([sys.executable, str(SCRIPT), stage], env=env, capture_output=True, text=True,
                            timeout=1200)
    print(result.stdout)
    assert result.returncode == 0 and result.stdout.rstrip().endswith("ok"), result.stderr[-3000:]
    return result.stdout


@pytest.mark.slow
def test_offsets_are_64_bit_in_every_kernel_variant():
    """No 32-bit integer multiplication or addition in any kernel variant's IR (the offsets of 100M-edge,
    multi-million-node graphs pass 2^31); and every variant passes the compiler's front end."""
    out = run_stage("ttir")
    assert "all integer arithmetic 64-bit" in out


def test_the_int32_check_finds_32_bit_offsets():
    """The check of the test above flags the IR of an offset computed in int32 (row * stride from a 32-bit
    program id) and passes the same offset in int64."""
    sys.path.insert(0, str(SCRIPT.parent))
    try:
        import triton_aot
    finally:
        sys.path.remove(str(SCRIPT.parent))
    ir32 = """
    tt.func public @kernel(%out_ptr: !tt.ptr<f32>) {
      %0 = tt.get_program_id x : i32
      %c64_i32 = arith.constant 64 : i32
      %1 = arith.muli %0, %c64_i32 : i32
      %2 = tt.addptr %out_ptr, %1 : !tt.ptr<f32>, i32
    }
    tt.func private @"triton.language.random.philox_impl"(%c: tensor<32xi32>) {
      %3 = arith.muli %c, %c : tensor<32xi32>
    }"""
    assert len(triton_aot.int32_arithmetic(ir32)) == 1  # the kernel's, not Triton's own generator's
    ir64 = ir32.replace("%1 = arith.muli %0, %c64_i32 : i32", "%1 = arith.muli %0, %c64_i64 : i64")
    assert triton_aot.int32_arithmetic(ir64) == []
    vec32 = "tt.func public @k() {\n %o = arith.addi %s, %r : tensor<32xi32>\n}"
    assert len(triton_aot.int32_arithmetic(vec32)) == 1


@pytest.mark.slow
def test_kernels_compile_for_sm90_without_a_gpu():
    """Every kernel, mode and its switches all on / all off, and every autotune configuration of the largest
    tiles, compile to H100 binaries with Triton's bundled ptxas (shared memory within the H100's)."""
    run_stage("sm90")


@pytest.mark.slow
def test_every_kernel_has_a_configuration_without_spills(tmp_path):
    """At the benchmark's head widths (C = 64, 256) each kernel variant, all options on or off, has an autotune
    configuration that ptxas compiles without register spills (with ``tl.dot`` for the GATv2 edge features,
    the edge-gradient kernel spilled 4-8 KB per thread in every configuration)."""
    out = run_stage("spills", cache_dir=tmp_path)
    assert "each with a configuration that does not spill" in out


def test_the_autotuners_prune_tiles_too_large_for_the_registers():
    out = run_stage("prune")
    assert "keep tiles of at most 64 values per thread" in out
