"""gatbio._options: command-line options shared by several commands and experiment scripts."""

from __future__ import annotations

import argparse
import re

import pytest

from gatbio._options import check_at_least


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="bench")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--warmup", type=int, default=1)
    p.add_argument("--scaling-repeats", type=int, default=None)
    return p


@pytest.mark.parametrize("argv, message", [
    (["--repeats", "0"], "--repeats 0: give at least 1"),
    (["--warmup", "-1"], "--warmup -1: give at least 0"),
    (["--scaling-repeats", "0"], "--scaling-repeats 0: give at least 1"),  # the option's spelling, not the attribute's
])
def test_a_value_under_its_floor_is_argparses_one_line(argv, message, capsys):
    p = _parser()
    with pytest.raises(SystemExit) as exit_:
        check_at_least(p, p.parse_args(argv), {"repeats": 1, "warmup": 0, "scaling_repeats": 1})
    assert exit_.value.code == 2 and capsys.readouterr().err.strip().endswith(f"error: {message}")


def test_values_at_their_floor_and_unset_options_pass():
    p = _parser()
    check_at_least(p, p.parse_args(["--repeats", "1", "--warmup", "0"]),
                   {"repeats": 1, "warmup": 0, "scaling_repeats": 1})  # scaling_repeats None: not given, not checked


# ---------------------------------------------------------------- integer settings


def _entry_points():
    """The four integer settings given from Python, each through its public function."""
    from gatbio import robustness
    from gatbio.distributed import _check_world_size
    from gatbio.parallel import parallel_map, unit_threads

    def threads(n):
        with unit_threads(n):
            pass

    return {"seed": lambda v: robustness.rank_nodes(robustness_graph(), "degree", seed=v),
            "jobs": lambda v: parallel_map(abs, [(1,)], jobs=v, progress=False),
            "threads": threads,
            "world_size": _check_world_size}


def robustness_graph():
    import torch
    from torch_geometric.data import Data

    return Data(edge_index=torch.tensor([[0, 1, 1], [1, 2, 3]]), num_nodes=4)


@pytest.mark.parametrize("name", ["seed", "jobs", "threads", "world_size"])
def test_integer_settings_share_one_rule(name):
    """Four helpers had three rules for booleans: seed=True was seed 1, jobs=True and threads=True one, while
    world_size=True was refused. One rule now: a boolean is refused, a NumPy integer accepted, and the message
    names the setting and the value."""
    import numpy as np
    import torch

    check = _entry_points()[name]
    for flag in (True, np.bool_(True), torch.tensor(True)):
        with pytest.raises(ValueError, match=rf"^{name}={re.escape(repr(flag))} is not allowed \(a boolean, not a "
                                             r"number\): "):
            check(flag)
    for wrong in (2.5, "2", None):
        with pytest.raises(ValueError, match=rf"^{name}={re.escape(repr(wrong))} is not allowed: "):
            check(wrong)
    check(np.int64(1))  # a NumPy integer is a number


def test_check_integer_bounds():
    from gatbio._options import check_integer

    assert check_integer(-1, "jobs", "fix", least=1, also=(-1,)) == -1 and type(check_integer(3, "x", "")) is int
    with pytest.raises(ValueError, match=r"^seed=-1 is not allowed: give one$"):
        check_integer(-1, "seed", "give one", least=0)
    with pytest.raises(ValueError, match=r"^seed=8 is not allowed: give one$"):
        check_integer(8, "seed", "give one", least=0, below=8)
