"""gatbio._options: command-line options shared by several commands and experiment scripts."""

from __future__ import annotations

import argparse

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
