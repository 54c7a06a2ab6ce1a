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
    assert list(s) == ["turbo", "bench", "profile", "tests", "cuda-tests", "bench-large", "protein", "foodweb",
                       "robustness", "string", "embed", "interactions", "quick-cuda"]
    assert all(cmd[0] == ("bash" if name == "turbo" else "python3") for name, cmd in s.items())
    assert all(any("OUTDIR/" in a for a in cmd) for cmd in s.values())  # everything lands in $OUT


def test_an_unknown_step_is_refused_before_anything_runs(tmp_path):
    r = subprocess.run(["bash", str(SCRIPT), "bench", "benhc"], capture_output=True, text=True,
                       env={"OUT": str(tmp_path / "out"), "PATH": "/usr/bin:/bin"})
    assert r.returncode == 2 and "unknown step 'benhc'" in r.stderr
    assert not (tmp_path / "out").exists()


def test_a_step_takes_its_own_time_limit(tmp_path):
    """``STEP:SECONDS`` bounds that step alone (the others keep STEP_LIMIT); a bad limit is refused up front."""
    fake = tmp_path / "python"
    fake.write_text("#!/bin/sh\nsleep 3\n")
    fake.chmod(0o755)
    # a copy of the script beside its helper, away from this checkout's .gpu-bundle (whose setup needs the GPU
    # machine's Python)
    (tmp_path / "experiments").mkdir()
    for name in ("gpu_session.sh", "pack_out.sh"):
        (tmp_path / "experiments" / name).write_text((REPO / "experiments" / name).read_text())
    script = tmp_path / "experiments" / "gpu_session.sh"
    out = tmp_path / "out"
    env = {"PATH": "/usr/bin:/bin", "PYTHON": str(fake), "STEP_LIMIT": "30"}
    r = subprocess.run(["bash", str(script), "embed:1", "bench"], capture_output=True, text=True,
                       env={**env, "OUT": str(out)})
    lines = (out / "steps.txt").read_text().splitlines()
    assert r.returncode == 1 and len(lines) == 2, r.stdout + r.stderr
    assert lines[0].startswith("embed: timed out after 1 s") and lines[1].startswith("bench: rc 0"), lines
    bad = subprocess.run(["bash", str(script), "bench:90s"], capture_output=True, text=True,
                         env={**env, "OUT": str(tmp_path / "bad")})
    assert bad.returncode == 2 and "bench:90s" in bad.stderr and "whole seconds" in bad.stderr
    assert not (tmp_path / "bad").exists()


def test_every_command_parses():
    for name, cmd in steps().items():
        args = cmd[1:]
        if cmd[0] == "bash":
            assert (REPO / args[0]).is_file(), name
            subprocess.run(["bash", "-n", str(REPO / args[0])], check=True)  # its syntax
        elif args[:2] == ["-m", "gatbio.cli"]:
            ns = build_parser().parse_args(args[2:])
            # auto where food webs run (they train faster on the CPU: auto puts them there, the protein jobs on
            # the GPU); every other task on the GPU by name
            assert ns.device == ("auto" if name in ("foodweb", "robustness") else "cuda"), name
            assert (REPO / ns.config).is_file(), name
        elif args[:2] == ["-m", "pytest"]:
            paths = [a for a in args if a.startswith("tests")] + [a.split("=", 1)[1] for a in args
                                                                  if a.startswith("--ignore=")]
            assert paths and all((REPO / p).exists() for p in paths), name
        else:
            script = args[0]
            assert script.startswith("experiments/") and (REPO / script).is_file(), name
            ns = parses(experiment_script(script[len("experiments/"):-3]).main, args[1:])
            # auto where food webs run (they train faster on the CPU: auto puts them there, the protein jobs on
            # the GPU); every other task on the GPU by name
            assert ns.device == ("auto" if name in ("foodweb", "robustness") else "cuda"), name


def test_turbo_bundle_copies_the_source_and_build_refuses_without_it(tmp_path):
    """``turbo_gnn.sh bundle`` takes the build files of a turbo-gnn repository (here a stand-in with its
    layout) into the bundle; ``build`` without them says what to run instead of failing in pip."""
    src = tmp_path / "turbo"
    for f in ("setup.py", "pyproject.toml", "README.md", "LICENSE", "MANIFEST.in", "csrc/gatv2/k.cu",
              "turbo_gnn/__init__.py", "scripts/not_needed.py"):
        (src / f).parent.mkdir(parents=True, exist_ok=True)
        (src / f).write_text(f)
    git = ["git", "-C", str(src), "-c", "user.email=t@t", "-c", "user.name=t"]
    subprocess.run(["git", "init", "-q", str(src)], check=True)
    subprocess.run(git + ["add", "."], check=True)
    subprocess.run(git + ["commit", "-qm", "x"], check=True)
    bundle = tmp_path / "bundle"
    bundle.mkdir()
    env = {"PATH": "/usr/bin:/bin", "BUNDLE": str(bundle), "TURBO_NO_NINJA": "1", "HOME": str(tmp_path)}
    script = str(REPO / "experiments" / "turbo_gnn.sh")
    r = subprocess.run(["bash", script, "bundle", str(src)], env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert (bundle / "turbo" / "csrc" / "gatv2" / "k.cu").read_text() == "csrc/gatv2/k.cu"
    assert (bundle / "turbo" / "turbo_gnn" / "__init__.py").is_file()
    assert not (bundle / "turbo" / "scripts").exists()
    assert len((bundle / "turbo" / "COMMIT").read_text().strip()) == 40
    r = subprocess.run(["bash", script, "build", str(tmp_path / "out")], capture_output=True, text=True,
                       env={**env, "BUNDLE": str(tmp_path / "empty")})
    assert r.returncode == 1 and "turbo_gnn.sh bundle SRC" in r.stderr


@pytest.mark.parametrize("script", ["gpu_session.sh", "turbo_gnn.sh", "gpu_image_cpu.sh"])
def test_the_gpu_scripts_are_valid_bash(script):
    r = subprocess.run(["bash", "-n", str(REPO / "experiments" / script)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_pack_out_turns_each_result_folder_into_one_archive_and_keeps_the_named_ones(tmp_path):
    import tarfile

    out = tmp_path / "out"
    (out / "shs27k" / "runs" / "bfs").mkdir(parents=True)
    (out / "shs27k" / "runs" / "bfs" / "gat.json").write_text('{"micro_f1": 0.5}')
    (out / "turbo").mkdir()
    (out / "turbo" / "turbo_gnn.whl").write_text("wheel")
    (out / "steps.txt").write_text("bench: rc 0\n")
    subprocess.run(["bash", str(REPO / "experiments" / "pack_out.sh"), str(out), "turbo"], check=True)
    assert sorted(p.name for p in out.iterdir()) == ["shs27k.tgz", "steps.txt", "turbo"]
    with tarfile.open(out / "shs27k.tgz") as tar:
        assert tar.extractfile("shs27k/runs/bfs/gat.json").read() == b'{"micro_f1": 0.5}'
    assert (out / "turbo" / "turbo_gnn.whl").read_text() == "wheel"


@pytest.mark.parametrize("script", ["gpu_session.sh", "turbo_gnn.sh", "gpu_image_cpu.sh", "pack_out.sh"])
def test_every_shell_script_answers_help_without_doing_anything(script, tmp_path):
    r = subprocess.run(["bash", str(REPO / "experiments" / script), "--help"], capture_output=True, text=True,
                       cwd=tmp_path, timeout=30)
    assert r.returncode == 0 and r.stdout.strip(), r.stderr
    assert not any(tmp_path.iterdir())  # nothing made, packed or installed
