"""Execute the notebooks on the full results and write them back with their outputs (what a code host shows).

    python experiments/execute_notebooks.py                  # all four, on results/{protein,robustness,foodweb,shs27k}_full
    python experiments/execute_notebooks.py --protein DIR --robustness DIR --foodweb DIR --interactions DIR
    python experiments/execute_notebooks.py food_web_inference    # only some notebooks

Each results folder must be complete before its notebook runs: a notebook falls back to its quick config when
its folder holds no results, and the committed notebook would then show quick results under the full title.
Complete means: protein: ``summary.csv`` and ``attention_example.json``; robustness: ``runs/`` and
``summary/``; food webs: ``summary.csv``; interactions: ``summary.csv`` and ``config.yaml``. The notebooks print results paths relative to the repository.
Each folder must also hold results of its notebook's task (the task its ``fingerprint.json`` records, else the one
whose settings its ``config.yaml`` holds): a food-web notebook run on an interactions folder would be committed with
another task's tables. Every folder is checked before any notebook runs.

Each notebook runs top to bottom in a fresh kernel with its working directory in ``notebooks/`` (as
``tests/conftest.py::run_notebook``); the cells' execution timestamps are dropped, so that executing again
changes only what the results change. ``tests/test_notebooks.py`` checks what is committed. A notebook whose cell
fails (or runs past ``--timeout``) is not rewritten: the script stops there with the cell's error and names the
notebooks it wrote before it and those it did not run.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
NOTEBOOKS = REPO / "notebooks"

#: notebook → (option, environment variable the notebook reads, default folder, files that must be there)
SETUP = {
    "protein_function": ("protein", "GATBIO_PROTEIN_RESULTS", "results/protein_full",
                         ("summary.csv", "attention_example.json")),
    "hub_robustness": ("robustness", "GATBIO_ROBUSTNESS_DIR", "results/robustness_full", ("runs", "summary")),
    "food_web_inference": ("foodweb", "FOODWEB_RESULTS", "results/foodweb_full", ("summary.csv",)),
    "protein_interactions": ("interactions", "GATBIO_INTERACTIONS_RESULTS", "results/shs27k_full",
                             ("summary.csv", "config.yaml")),
}


#: notebook → the task whose results it reads (the config schema's name, as ``fingerprint.json`` records it)
TASKS = {"protein_function": "ProteinConfig", "hub_robustness": "RobustnessConfig",
         "food_web_inference": "FoodWebConfig", "protein_interactions": "InteractionsConfig"}


def folder_task(folder: Path) -> str | None:
    """The task whose results ``folder`` holds: the config schema its ``fingerprint.json`` records
    (:func:`gatbio.results.stored_task`), else the schema of :func:`gatbio.config.task_schemas` that holds the
    most of its ``config.yaml``'s keys (every one of them); ``None`` when neither tells."""
    import dataclasses

    import yaml

    from gatbio.config import task_schemas
    from gatbio.results import stored_task

    task = stored_task(folder)
    if task is not None:
        return task
    try:
        doc = yaml.safe_load((folder / "config.yaml").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return None
    if not isinstance(doc, dict) or not doc:
        return None
    keys = set(map(str, doc))
    fits = []
    for schema, _, _ in task_schemas():
        fields = {f.name for f in dataclasses.fields(schema)}
        if keys <= fields:
            fits.append((len(fields - keys), schema.__name__))  # the fewest fields the file leaves out: its own
    fits.sort()
    return fits[0][1] if fits and (len(fits) == 1 or fits[0][0] < fits[1][0]) else None


def wrong_tasks(folders: dict[str, Path]) -> list[str]:
    """One line per existing folder of ``folders`` (notebook → folder) that does not hold results of the
    notebook's task, naming the folder, the task found and the one expected."""
    lines = []
    for name, folder in folders.items():
        if not folder.is_dir():
            continue  # named by the completeness check
        option, expected = SETUP[name][0], TASKS[name]
        found = folder_task(folder)
        if found is None:
            lines.append(f"--{option} {folder}: no fingerprint.json or config.yaml tells which task made it; "
                         f"{name} reads results of {expected} (give the out_dir of that run)")
        elif found != expected:
            lines.append(f"--{option} {folder}: holds results of {found}, but {name} reads results of {expected} "
                         f"(give the out_dir of that task's run as --{option})")
    return lines


def _without_tqdm_warning(output):
    """``output`` without tqdm's "IProgress not found" warning (tqdm.auto in a kernel without ipywidgets: two
    lines on stderr naming this machine's site-packages); ``None`` when nothing else is left."""
    if output.get("output_type") != "stream" or output.get("name") != "stderr":
        return output
    lines = output["text"].splitlines(keepends=True)
    keep, skip = [], False
    for line in lines:
        if "TqdmWarning: IProgress not found" in line:
            skip = True  # the warning line, then the indented source line warnings.warn prints after it
            continue
        if skip and line.startswith("  "):
            continue
        skip = False
        keep.append(line)
    output["text"] = "".join(keep)
    return output if output["text"].strip() else None


def execute(name: str, results: Path, timeout: int = 1800) -> Path:
    """Run ``notebooks/<name>.ipynb`` on ``results`` and write it back (atomically) with its outputs."""
    import nbformat
    from nbclient import NotebookClient

    from gatbio.results import atomic_write_text

    path = NOTEBOOKS / f"{name}.ipynb"
    nb = nbformat.read(path, as_version=4)
    env_name = SETUP[name][1]
    old = os.environ.get(env_name)
    os.environ[env_name] = os.path.abspath(results)  # abspath, not resolve: a symlinked folder keeps its name
    try:
        NotebookClient(nb, timeout=timeout, kernel_name="python3",
                       resources={"metadata": {"path": str(NOTEBOOKS)}}).execute()
    finally:
        if old is None:
            os.environ.pop(env_name)
        else:
            os.environ[env_name] = old
    for cell in nb.cells:
        cell.metadata.pop("execution", None)  # timestamps: a diff of a re-run shows only changed outputs
        if cell.cell_type == "code":
            cell.outputs = [o for o in map(_without_tqdm_warning, cell.outputs) if o is not None]
    atomic_write_text(path, nbformat.writes(nb) + "\n")
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("notebooks", nargs="*", metavar="NOTEBOOK",
                        help=f"which notebooks (default: all of {', '.join(SETUP)})")
    for option, _, default, _ in SETUP.values():
        parser.add_argument(f"--{option}", metavar="DIR", default=REPO / default, type=Path,
                            help=f"results folder (default: {default})")
    parser.add_argument("--timeout", type=int, default=1800, help="seconds per cell (default: 1800)")
    args = parser.parse_args(argv)
    if args.timeout < 1:
        parser.error(f"--timeout {args.timeout}: give the seconds a cell may run, at least 1 (default 1800)")
    names = list(dict.fromkeys(args.notebooks)) or list(SETUP)  # a notebook named twice runs once
    unknown = [n for n in names if n not in SETUP]
    if unknown:
        parser.error(f"unknown notebook(s) {unknown}; choose from {', '.join(SETUP)}")
    folders = {n: getattr(args, SETUP[n][0]) for n in names}
    wrong = wrong_tasks(folders)
    if wrong:  # before any notebook runs: a notebook would be rewritten with another task's results
        print("\n".join(wrong), file=sys.stderr)
        return 1
    missing = [f"{folders[n] / f}" for n in names for f in SETUP[n][3] if not (folders[n] / f).exists()]
    if missing:
        print("results are not complete (run the full configs first, or pass the folders):\n  "
              + "\n  ".join(missing), file=sys.stderr)
        return 1
    lacking = [m for m in ("nbformat", "nbclient", "ipykernel") if importlib.util.find_spec(m) is None]
    if lacking:  # before any notebook runs, not an ImportError after the checks
        print(f"executing notebooks needs {', '.join(lacking)}: pip install -e '.[dev]' (or pip install nbformat "
              "nbclient ipykernel)", file=sys.stderr)
        return 1
    from nbclient.exceptions import CellExecutionError, DeadKernelError

    for i, n in enumerate(names):
        print(f"{n}: executing on {folders[n]} ...", flush=True)
        try:
            path = execute(n, folders[n], args.timeout)
        except (CellExecutionError, TimeoutError, DeadKernelError) as err:  # nbclient's CellTimeoutError: a TimeoutError
            why = (f"a cell ran past --timeout {args.timeout} s" if isinstance(err, TimeoutError)
                   else "the kernel died" if isinstance(err, DeadKernelError) else "a cell failed")
            done = f"; written before it: {', '.join(names[:i])}" if i else ""
            left = f"; not run: {', '.join(names[i + 1:])}" if names[i + 1:] else ""
            print(f"{n}: {why} on {folders[n]}: notebooks/{n}.ipynb was not rewritten{done}{left}\n{err}",
                  file=sys.stderr)
            return 1
        print(f"  wrote {path.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
