"""experiments/gpu_session.sh: every step's command parses and names files that exist (the script itself runs
on a GPU machine only, where device time is scarce: a typo there would cost a whole call)."""

from __future__ import annotations

import argparse
import shlex
import subprocess

import pytest
from conftest import REPO, experiment_script

from gatbio.cli import build_parser

SCRIPT = REPO / "experiments" / "gpu_session.sh"


def steps() -> dict[str, list[str]]:
    out = subprocess.run(["bash", str(SCRIPT), "--list"], capture_output=True, text=True, check=True,
                         env={"OUT": "OUTDIR", "PATH": "/usr/bin:/bin"}).stdout
    return {line.split()[0]: shlex.split(line.split(None, 1)[1]) for line in out.splitlines()}


class Parsed(Exception):
    pass


def parses(main, argv: list[str]) -> argparse.Namespace:
    """Run ``main(argv)`` only as far as its argument parser: the namespace, or SystemExit on a bad option."""
    original = argparse.ArgumentParser.parse_args

    def stop(self, args=None, namespace=None):
        raise Parsed(original(self, args, namespace))

    with pytest.MonkeyPatch.context() as mp, pytest.raises(Parsed) as got:
        mp.setattr(argparse.ArgumentParser, "parse_args", stop)
        main(argv)
    return got.value.args[0]


def test_every_step_is_listed_with_its_command():
    s = steps()
    assert list(s) == ["bench", "tests", "bench-large", "protein", "foodweb", "robustness", "string", "embed",
                       "interactions", "quick-cuda"]
    assert all(cmd[0] == "python3" for cmd in s.values())
    assert all(any("OUTDIR/" in a for a in cmd) for cmd in s.values())  # everything lands in $OUT


def test_an_unknown_step_is_refused_before_anything_runs(tmp_path):
    r = subprocess.run(["bash", str(SCRIPT), "bench", "benhc"], capture_output=True, text=True,
                       env={"OUT": str(tmp_path / "out"), "PATH": "/usr/bin:/bin"})
    assert r.returncode == 2 and "unknown step 'benhc'" in r.stderr
    assert not (tmp_path / "out").exists()


def test_every_command_parses():
    for name, cmd in steps().items():
        args = cmd[1:]
        if args[:2] == ["-m", "gatbio.cli"]:
            ns = build_parser().parse_args(args[2:])
            assert ns.device == "cuda", name
            assert (REPO / ns.config).is_file(), name
        elif args[:2] == ["-m", "pytest"]:
            paths = [a for a in args if a.startswith("tests")] + [a.split("=", 1)[1] for a in args
                                                                  if a.startswith("--ignore=")]
            assert paths and all((REPO / p).exists() for p in paths), name
        else:
            script = args[0]
            assert script.startswith("experiments/") and (REPO / script).is_file(), name
            ns = parses(experiment_script(script[len("experiments/"):-3]).main, args[1:])
            assert ns.device == "cuda", name
