"""Ahead-of-time checks of the Triton kernels for an H100 (sm_90), without a GPU.

Run by tests/nn/test_triton_compile.py in a subprocess without ``TRITON_INTERPRET`` (the interpreter's kernels
cannot be compiled), as ``python tests/nn/triton_aot.py ttir|sm90|spills|prune``. Four stages:

- ``ttir``: Triton's front end (Python AST → Triton IR) for every kernel and mode with its switches all on,
  all off and toggled one at a time; bf16, fp16 and fp32 features; int32 and int64 index tensors; and the
  sizes Triton turns into constants when they equal 1 (``H``, ``D``). In gatbio's functions (Triton's own
  library, e.g. its Philox generator, is left out) no integer ``muli`` / ``addi`` / ``subi`` may be 32-bit:
  offsets are computed in int64, as row offsets (N·H·C: 8.4M nodes × 4 heads × 64 channels), edge-feature
  offsets (E·D: 100M edges × 22 features) and CSR positions near E = 2^31 pass 2^31.
- ``sm90``: the whole compiler, PTX and Triton's bundled ``ptxas``, for each kernel and mode with every switch
  on and every switch off (bf16 features), and every autotune configuration kept at C = 256 of the GATv2
  edge-feature forward and edge gradient (the largest tiles; their shared memory must fit an H100's 227 KiB).
  Prints each binary's registers, spills and shared memory (``pytest -s``; nothing when Triton's cache had it).
- ``spills``: each kernel and mode, switches all on and all off, float32 features, at C = 64 and C = 256
  (the benchmark's head widths), specialised as a GPU compiles them for aligned tensors (``runtime_attrs``):
  at least one autotune configuration that ``attention._prune`` keeps compiles without spilling registers
  to local memory (slow memory the autotuner would otherwise have to pick from). Needs an empty Triton
  cache: ptxas reports only what it compiles.
  The small-graph configuration (``attention.SMALL_CONFIG``, launched without autotuning) spills at most 16
  bytes per thread in every one of them.
- ``prune``: the four kernels' autotuners (the objects a GPU launches) apply ``attention._prune`` and keep their
  tuning results on disk (``cache_results``).

Prints ``ok`` last when every check passed; a failure raises.
"""

from __future__ import annotations

import contextlib
import io
import multiprocessing
import re
import sys

import triton
from triton import knobs
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource

from gatbio.nn.kernels import attention as K

TARGET = GPUTarget("cuda", 90, 32)
BLOCKS = dict(BLOCK_E=32, BLOCK_C=64)

# Per kernel: the constexpr switches and, per mode, the ones that mode can turn on (ops._flags).
MODE_FLAGS = {
    0: ("HAS_A_DST", "HAS_EDGE_PRE", "HAS_BIAS", "LOG_DEG", "SYM", "DROPOUT"),
    1: ("HAS_EA", "HAS_BIAS", "LOG_DEG", "SYM", "DROPOUT"),
    2: ("HAS_BIAS", "LOG_DEG", "SYM", "DROPOUT"),
}
ALL_FLAGS = ("HAS_A_DST", "HAS_EDGE_PRE", "HAS_EA", "HAS_BIAS", "LOG_DEG", "SYM", "DROPOUT")
EXTRA = {"attention_fwd": ("NEED_ALPHA",), "attention_bwd_dst": ("HAS_GALPHA", "NEED_GBIAS")}


def signature(fn, consts: dict, feature: str = "bf16", index: str = "i32") -> dict:
    """Triton types of ``fn``'s arguments, as the launcher passes them (placeholders are float32)."""
    sig = {}
    for name in fn.arg_names:
        sig[name] = ("constexpr" if name in consts else "fp32" if name in K.FLOAT_ARGS
                     else "i32" if name in K.INT_ARGS else "*i64" if name == "seed_ptr"
                     else f"*{index}" if name in K.INDEX_ARGS else f"*{feature}" if name in K.FEATURE_ARGS
                     else "*fp32")
    return sig


def variants():
    """``(kernel, constexprs, which)`` for every kernel, mode and flag set: ``which`` is ``"all"`` (every
    switch of the mode on), ``"none"`` (all off) or ``"mixed"`` (one toggled)."""
    for name in ("attention_fwd", "attention_bwd_dst"):
        kernel = getattr(K, name)
        for mode, flags in MODE_FLAGS.items():
            switches = flags + EXTRA[name]
            sets = ([("all", set(switches)), ("none", set())] + [("mixed", set(switches) - {f}) for f in switches]
                    + [("mixed", {f}) for f in switches])
            for which, on in sets:
                yield kernel, dict({f: f in on for f in ALL_FLAGS + EXTRA[name]}, MODE=mode), which
    for mode, ea in ((0, False), (1, False), (1, True), (2, False)):
        yield K.attention_bwd_src, dict(MODE=mode, HAS_EA=ea), "all" if ea or mode != 1 else "none"
    yield K.gatv2_bwd_edges, dict(BLOCK_D=4), "all"  # 4 edge features, as in the GPU benchmark


def make_ttir(kernel, consts: dict, **types) -> str:
    from triton._C.libtriton import ir
    from triton.compiler.compiler import make_backend

    backend = make_backend(TARGET)
    options = backend.parse_options({})
    context = ir.context()
    ir.load_dialects(context)
    backend.load_dialects(context)
    src = ASTSource(fn=kernel.fn, signature=signature(kernel.fn, consts, **types), constexprs=consts)
    return str(src.make_ir(TARGET, options, backend.get_codegen_implementation(options), backend.get_module_map(),
                           context))


INT32_ARITH = re.compile(r"= arith\.(muli|addi|subi) .*:\s*(tensor<[0-9x]+)?i32\b")
FUNC = re.compile(r"tt\.func (?:public |private )?@\"?([^\"(\s]+)")


def int32_arithmetic(ttir: str) -> list[str]:
    """The 32-bit integer multiplications, additions and subtractions of gatbio's functions in ``ttir``."""
    found, func = [], ""
    for line in ttir.splitlines():
        m = FUNC.search(line)
        if m:
            func = m.group(1)
        if not func.startswith("triton.") and INT32_ARITH.search(line):
            found.append(f"{func}: {line.strip()}")
    return found


def check_ttir() -> None:
    n, bad = 0, []
    cases = [(kernel, dict(consts, **BLOCKS), {}) for kernel, consts, _ in variants()]
    # fp16 / fp32 features, int64 index tensors (graphs past 2^31 - 1 edges or nodes), and the integers that
    # Triton turns into constants when they equal 1.
    full = [(kernel, dict(consts, **BLOCKS)) for kernel, consts, which in variants() if which == "all"]
    cases += [(kernel, consts, dict(feature=feature)) for kernel, consts in full for feature in ("fp16", "fp32")]
    cases += [(kernel, consts, dict(index="i64")) for kernel, consts in full]
    cases += [(kernel, dict(consts, H=1, D=1), {}) for kernel, consts in full]
    for kernel, consts, types in cases:
        found = int32_arithmetic(make_ttir(kernel, consts, **types))
        n += 1
        if found:
            bad.append(f"{kernel.fn.__name__} {consts} {types}:\n  " + "\n  ".join(found))
    if bad:
        raise AssertionError("32-bit integer arithmetic (offsets may wrap past 2^31):\n" + "\n".join(bad))
    print(f"ttir: {n} kernel variants, all integer arithmetic 64-bit")


def runtime_attrs(fn, sig: dict) -> dict:
    """What Triton's launcher tells the compiler of ordinary arguments: every tensor 16-byte aligned (PyTorch's
    allocations are) and the head width C a multiple of 16 (64 and 256 here), so loads can be vectorised."""
    return {(i,): [["tt.divisibility", 16]] for i, name in enumerate(fn.arg_names)
            if sig[name].startswith("*") or name == "C"}


def compile_sm90(kernel, consts: dict, num_warps: int = 4, aligned: bool = False, quiet: bool = False,
                 **types) -> dict:
    """Compile to an sm_90 binary; returns ``{"shared": bytes, "registers": int, "spill": bytes}`` from the
    binary and ``ptxas -v`` (registers and spill ``None`` when Triton's cache had the binary: ptxas did not
    run), printed unless ``quiet``. ``aligned``: with :func:`runtime_attrs` (the variant a GPU compiles for
    aligned tensors and C = 64 or 256), else without (any C, any tensor)."""
    sig = signature(kernel.fn, consts, **types)
    src = ASTSource(fn=kernel.fn, signature=sig, constexprs=consts,
                    attrs=runtime_attrs(kernel.fn, sig) if aligned else None)
    log = io.StringIO()
    with knobs.nvidia.scope(), contextlib.redirect_stdout(log):
        knobs.nvidia.dump_ptxas_log = True
        binary = triton.compile(src, target=TARGET, options=dict(num_warps=num_warps))
    regs = re.search(r"Used (\d+) registers", log.getvalue())
    spill = re.search(r"(\d+) bytes spill stores", log.getvalue())
    got = {"shared": binary.metadata.shared, "registers": regs and int(regs.group(1)),
           "spill": spill and int(spill.group(1))}
    if not quiet:
        blocks = {k: v for k, v in consts.items() if k.startswith("BLOCK")}
        switches = sorted(k for k, v in consts.items() if v is True)
        print(f"sm90 {kernel.fn.__name__} MODE={consts.get('MODE', '-')} {blocks} warps={num_warps} "
              f"{types or ''} on={switches}: registers={got['registers']} spill_bytes={got['spill']} "
              f"shared={got['shared']}", flush=True)
    return got


# The largest dynamic shared memory of one block on an H100 (227 KiB).
SM90_SHARED = 232448


def check_sm90() -> None:
    for kernel, consts, which in variants():
        if which == "mixed":
            continue  # the front end checked the mixed sets; the back end gets all on and all off
        compile_sm90(kernel, dict(consts, **BLOCKS))
    # Every autotune configuration kept at the widest head of the benchmark (C = 256) of the GATv2
    # edge-feature forward and gradient (the largest tiles).
    for kernel, consts, which in variants():
        if kernel in (K.attention_fwd, K.gatv2_bwd_edges) and which == "all" and consts.get("MODE", 1) == 1:
            for config in K._prune(K._CONFIGS, {}, BLOCK_C=256):
                shared = compile_sm90(kernel, dict(consts, **config.kwargs, BLOCK_C=256),
                                      num_warps=config.num_warps)["shared"]
                assert shared <= SM90_SHARED, (kernel.fn.__name__, config, shared)


def _spills(job) -> tuple:
    name, consts, config, block_c = job
    got = compile_sm90(getattr(K, name), dict(consts, **config.kwargs, BLOCK_C=block_c),
                       num_warps=config.num_warps, aligned=True, quiet=True, feature="fp32")
    assert got["spill"] is not None, "no ptxas report: was the kernel in Triton's cache?"
    return got["registers"], got["spill"]


def check_spills() -> None:
    """Each kernel variant (switches all on / all off) has, at C = 64 and C = 256, an autotune configuration
    among those ``_prune`` keeps that ptxas compiles without spilling to local memory. Needs an empty Triton
    cache (ptxas reports only on a real compile)."""
    jobs, names = [], []
    for kernel, consts, which in variants():
        if which == "mixed":
            continue
        for block_c in (64, 256):
            for config in K._prune(K._CONFIGS, {}, BLOCK_C=block_c):
                jobs.append((kernel.fn.__name__, consts, config, block_c))  # picklable: the name
                names.append((kernel.fn.__name__, consts.get("MODE", "-"), which, block_c,
                               f"E{config.kwargs['BLOCK_E']}w{config.num_warps}"))
    with multiprocessing.Pool(2) as pool:
        results = pool.map(_spills, jobs)
    best: dict = {}
    for (name, mode, which, block_c, config), (regs, spill) in zip(names, results, strict=True):
        print(f"spills {name} MODE={mode} {which} C={block_c} {config}: registers={regs} spill={spill}")
        key = (name, mode, which, block_c)
        best[key] = min(best.get(key, spill), spill)
    bad = [key for key, spill in best.items() if spill > 0]
    assert not bad, f"every kept autotune configuration spills: {bad}"
    print(f"spills: {len(best)} kernel variants x head widths, each with a configuration that does not spill")
    # The one configuration of small graphs (no autotuning there) may spill a few bytes at most in any variant
    # (seen: 4-12 bytes in gatv2_bwd_edges at C = 64 and attention_bwd_src at C = 256).
    small = f"E{K.SMALL_CONFIG.kwargs['BLOCK_E']}w{K.SMALL_CONFIG.num_warps}"
    small_spills = {key[:4]: spill for key, (_, spill) in zip(names, results, strict=True) if key[4] == small}
    assert len(small_spills) == len(best), "attention._prune dropped the small-graph configuration somewhere"
    worst = max(small_spills.items(), key=lambda item: item[1])
    assert worst[1] <= 16, f"the small-graph configuration {small} spills {worst[1]} bytes in {worst[0]}"
    print(f"spills: the small-graph configuration {small} spills at most {worst[1]} bytes ({worst[0]})")


def check_prune() -> None:
    """The autotuners of all four kernels (what a GPU launches) apply ``_prune`` to the head width's tile."""
    for name in ("attention_fwd", "attention_bwd_dst", "attention_bwd_src", "gatv2_bwd_edges"):
        tuner = getattr(K, name)
        tuner.nargs = {}
        wide = [(c.kwargs["BLOCK_E"], c.num_warps) for c in tuner.prune_configs({"BLOCK_C": 256})]
        assert wide == [(8, 4), (16, 2), (16, 4), (16, 8), (32, 4), (64, 8)], (name, wide)
        assert tuner.prune_configs({"BLOCK_C": 64}) == K._CONFIGS, name
        assert tuner.cache_results, name
        tuner.nargs = None
    print("prune: the autotuners keep tiles of at most 64 values per thread, and their results on disk")


if __name__ == "__main__":
    stage = sys.argv[1]
    {"ttir": check_ttir, "sm90": check_sm90, "spills": check_spills, "prune": check_prune}[stage]()
    print("ok")
