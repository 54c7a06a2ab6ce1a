"""Benchmark: ``gatbio protein predict`` on a STRING-scale network that the repository generates itself.

Generates a STRING-like network (:func:`gatbio.data.synthetic.string_like`: heavy-tailed degrees, default
19,000 proteins, 6,000,000 directed edges, 50 functions on 40 % of the proteins, seeded) into ``--dir``, runs
``gatbio protein predict`` on it in a child process, and reports the generation time, the prediction's wall
time and its peak resident memory (``resource.getrusage(RUSAGE_CHILDREN).ru_maxrss``: the largest child, i.e.
the predict process) and CPU time (user + system, all cores: less sensitive to other jobs on the machine than
the wall time), with the line ``gatbio protein predict`` printed about its embedding. The report is
printed and written to ``DIR/report.json``; predict's stderr shows as it runs, its stdout is kept in
``DIR/predict_stdout.txt``. Targets (issue 16, two CPU cores): <= 60 min and <= 12 GB for
19k proteins / 6M edges; 100k proteins / 20M edges within 20 GB.

Usage::

    python experiments/bench_string_scale.py [--proteins 19000] [--edges 6000000] [--labels 50]
        [--labelled-fraction 0.4] [--seed 0] [--epochs 100] [--dir results/bench_string_scale]
        [--device auto|cpu|cuda] [--generate-only]

``--device`` is handed to ``gatbio protein predict`` (its default ``auto``: CUDA when PyTorch sees a GPU); the
report records the device line predict prints (issue 16's GPU target: <= 5 min for 19k proteins / 6M edges).
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

from gatbio._options import check_at_least
from gatbio.data.synthetic import string_like, write_string_like


def run(proteins: int, edges: int, labels: int, labelled_fraction: float, seed: int, epochs: int, out_dir: Path,
        generate_only: bool = False, device: str | None = None) -> dict:
    """Generate, predict, measure; returns the report (also written to ``out_dir/report.json``)."""
    from gatbio.results import write_json

    out_dir.mkdir(parents=True, exist_ok=True)
    edge_file, label_file = out_dir / "edges.txt", out_dir / "labels.txt"
    t0 = time.perf_counter()
    ppi = string_like(proteins, edges, labels, labelled_fraction, seed=seed)
    write_string_like(ppi, edge_file, label_file)
    deg = ppi.degree()
    report: dict = {"proteins": proteins, "directed_edges": 2 * len(ppi.edges), "labels": labels,
                    "labelled_fraction": labelled_fraction, "seed": seed, "epochs": epochs,
                    "degree_max": int(deg.max()), "degree_median": float(sorted(deg)[len(deg) // 2]),
                    "generate_seconds": round(time.perf_counter() - t0, 1)}
    if not generate_only:
        cmd = [sys.executable, "-m", "gatbio.cli", "protein", "predict", "--edges", str(edge_file),
               "--labels", str(label_file), "--out", str(out_dir / "predictions.csv"), "--epochs", str(epochs),
               "--seed", str(seed), "--no-header"] + (["--device", device] if device else [])
        print(f"bench_string_scale: generated {report['directed_edges']:,} directed edges in "
              f"{report['generate_seconds']} s; running: {' '.join(cmd)}", file=sys.stderr, flush=True)
        t0 = time.perf_counter()
        # predict's stderr (device line, notes, progress) is passed through as it comes, so that a run cut at a
        # time limit still shows how far it got (a GPU session lost the whole log that way); stdout goes to a
        # file beside the predictions (read afterwards: no second pipe to fill up and stall the child)
        err_lines: list[str] = []
        with open(out_dir / "predict_stdout.txt", "w+") as out:
            child = subprocess.Popen(cmd, stdout=out, stderr=subprocess.PIPE, text=True)
            for line in child.stderr:
                err_lines.append(line)
                sys.stderr.write(line)
                sys.stderr.flush()
            child.wait()
            out.seek(0)
            proc = subprocess.CompletedProcess(cmd, child.returncode, out.read(), "".join(err_lines))
        report["predict_seconds"] = round(time.perf_counter() - t0, 1)
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        report["predict_cpu_seconds"] = round(usage.ru_utime + usage.ru_stime, 1)  # both cores together
        report["predict_peak_rss_gb"] = round(usage.ru_maxrss / 2**20, 2)
        report["returncode"] = proc.returncode
        report["embedding"] = next((ln for ln in proc.stdout.splitlines() if ln.startswith("embedding:")), None)
        report["device"] = next((ln for ln in (proc.stdout + proc.stderr).splitlines()
                                 if ln.startswith("gatbio: device")), None)
        report["command"] = " ".join(cmd)
        if proc.returncode:
            report["stderr_tail"] = proc.stderr[-2000:]
    write_json(out_dir / "report.json", report)
    return report


def check_arguments(ap: argparse.ArgumentParser, a: argparse.Namespace) -> None:
    """What :func:`gatbio.data.synthetic.string_like` and ``gatbio protein predict`` accept, checked before any
    file is written (argparse's one line and status 2)."""
    check_at_least(ap, a, {"proteins": 2, "edges": 2, "labels": 1, "epochs": 1})
    if a.edges % 2:
        ap.error(f"--edges {a.edges}: directed edges, both directions of each interaction: give an even number")
    if a.edges // 2 > a.proteins * (a.proteins - 1) // 2:
        ap.error(f"--edges {a.edges:,} needs more than {a.proteins:,} proteins (at most "
                 f"{a.proteins * (a.proteins - 1):,}, both directions of every pair)")
    if not 0 < a.labelled_fraction <= 1:
        ap.error(f"--labelled-fraction {a.labelled_fraction}: give a share in (0, 1]")
    if a.dir.exists() and not a.dir.is_dir():
        ap.error(f"--dir {a.dir}: is a file, not a folder")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--proteins", type=int, default=19_000)
    ap.add_argument("--edges", type=int, default=6_000_000, help="directed edges (twice the interactions)")
    ap.add_argument("--labels", type=int, default=50)
    ap.add_argument("--labelled-fraction", type=float, default=0.4)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--epochs", type=int, default=100)
    ap.add_argument("--dir", type=Path, default=Path("results/bench_string_scale"))
    ap.add_argument("--device", default=None, help="for gatbio protein predict (default: its own, auto)")
    ap.add_argument("--generate-only", action="store_true", help="write the files, do not run predict")
    a = ap.parse_args(argv)
    check_arguments(ap, a)
    report = run(a.proteins, a.edges, a.labels, a.labelled_fraction, a.seed, a.epochs, a.dir, a.generate_only,
                 a.device)
    print(json.dumps(report, indent=1))
    return int(report.get("returncode", 0))


if __name__ == "__main__":
    sys.exit(main())
