"""``make demo`` / ``python -m gatbio.demo``: every capability of gatbio on real data, in a few minutes.

1. The layer: a 2-layer :class:`gatbio.nn.GATConv` classifier (log-degree prior, learnt temperature) trained
   on the yeast PPI network of Bu et al. (2003), beside PyG's ``GATConv`` on the same split.
2. Protein function prediction (quick config), food-web link inference (quick config) and the hub-robustness
   sweep (quick config), through the same task functions the CLI and the experiment scripts use.

Results go to ``results/demo/`` (or the folder given as the first argument). ``--device`` (default ``auto``: a
CUDA GPU when PyTorch sees one, else the CPU; :mod:`gatbio.device`) says where every model trains::

    python -m gatbio.demo [OUT] [--device cpu|cuda|cuda:N|mps|auto]
"""

from __future__ import annotations

import argparse
import importlib
import shlex
import sys
import time
import warnings
from pathlib import Path

import torch
import torch.nn.functional as F
import torch_geometric.nn as pyg_nn
from torch_geometric.transforms import AddRandomWalkPE
from torch_geometric.utils import degree

from gatbio.nn import GATConv
from gatbio.nn.fused import SPARSE_NOTICES

#: (title, module, function): each function takes an output folder and returns a printable summary.
TASKS = (
    ("Protein function prediction (node2vec-PPI, quick)", "gatbio.tasks.protein", "run_quick"),
    ("Food-web link inference (GATEWAy, quick)", "gatbio.tasks.foodweb", "run_quick"),
    ("Hub-perturbation robustness (quick)", "gatbio.tasks.robustness", "run_quick"),
)


def _structural_features(data) -> torch.Tensor:
    """Random-walk return probabilities (16 steps) and log-degree: inputs for a graph without features."""
    pe = AddRandomWalkPE(walk_length=16, attr_name="pe")(data.clone()).pe  # (N, 16)
    logdeg = degree(data.edge_index[1], data.num_nodes).clamp(min=1).log().unsqueeze(-1)  # (N, 1)
    return torch.cat([pe, logdeg], dim=-1)


class _TwoLayer(torch.nn.Module):
    def __init__(self, conv, in_channels: int, hidden: int, classes: int, heads: int = 4):
        super().__init__()
        self.conv1 = conv(in_channels, hidden, heads=heads)
        self.conv2 = conv(hidden * heads, classes, heads=1)

    def forward(self, x, edge_index):
        x = F.elu(self.conv1(x, edge_index))
        x = F.dropout(x, p=0.2, training=self.training)
        return self.conv2(x, edge_index)


def layer_demo(seed: int = 0, epochs: int = 100, device: str | torch.device = "cpu") -> str:
    """Train our layer and PyG's on yeast-bu2003 (12 classes, 50% of labelled proteins for training) on
    ``device``."""
    from gatbio.data import load
    from gatbio.device import resolve_device

    dev = resolve_device(device)
    torch.manual_seed(seed)
    data = load("yeast-bu2003")
    x = _structural_features(data).to(dev)
    ei, y = data.edge_index.to(dev), data.y.to(dev)
    labelled = (data.y >= 0).nonzero().view(-1)
    perm = labelled[torch.randperm(labelled.numel(), generator=torch.Generator().manual_seed(seed))]
    train, test = perm[: perm.numel() // 2], perm[perm.numel() // 2:]
    n_classes = int(data.y.max()) + 1
    majority = (data.y[test] == data.y[train].mode().values).float().mean().item()
    train, test = train.to(dev), test.to(dev)
    lines = [f"yeast-bu2003: {data.num_nodes} proteins, {data.edge_index.size(1) // 2} interactions, "
             f"{n_classes} classes; {train.numel()} training / {test.numel()} test proteins (seed {seed})",
             f"  majority-class accuracy            {majority:.3f}"]
    models = {
        "PyG GATConv": lambda i, o, heads: pyg_nn.GATConv(i, o, heads=heads),
        "gatbio GATConv (log-degree, learnt T)": lambda i, o, heads: GATConv(
            i, o, heads=heads, degree_norm="log", temperature="learn"),
    }
    for name, conv in models.items():
        torch.manual_seed(seed)
        model = _TwoLayer(conv, x.size(1), 32, n_classes).to(dev)  # initialised on the CPU: same start everywhere
        opt = torch.optim.Adam(model.parameters(), lr=0.01, weight_decay=5e-4)
        for _ in range(epochs):
            model.train()
            opt.zero_grad()
            loss = F.cross_entropy(model(x, ei)[train], y[train])
            loss.backward()
            opt.step()
        model.eval()
        with torch.no_grad():
            acc = (model(x, ei)[test].argmax(-1) == y[test]).float().mean().item()
        lines.append(f"  {name:<36} accuracy {acc:.3f}")
    return "\n".join(lines)


def _head(text: str, where: Path, max_lines: int = 40) -> str:
    """The first ``max_lines`` lines of a task's summary (the rest is in its output folder)."""
    lines = text.splitlines()
    if len(lines) <= max_lines:
        return text
    return "\n".join(lines[:max_lines] + [f"   ... ({len(lines) - max_lines} more lines; full tables under {where}/)"])


def demo_data() -> list[tuple[str, list[str]]]:
    """What the demo reads: ``(name, registry paths)`` per dataset or web, as ``gatbio datasets --download``
    names it, taken from the quick configs it runs (the layer section reads yeast-bu2003). A web's own files: the
    GATEWAy benchmark reads the web folders only, not the collection's index tables
    (:func:`gatbio.data.sources.member_files` with ``shared=False``)."""
    from gatbio.data.sources import dataset_files, member_files
    from gatbio.tasks import foodweb, protein, robustness

    names = ["yeast-bu2003", protein.ProteinConfig().dataset, robustness.QUICK_CONFIG["protein"]["dataset"]]
    names += [f"gateway/{w}" for w in foodweb.QUICK_WEBS] + list(robustness.QUICK_CONFIG["foodweb"]["webs"])
    return [(name, member_files(name, shared=False) if "/" in name else dataset_files(name)[1])
            for name in dict.fromkeys(names)]


def check_demo_data(root: Path) -> None:
    """Every file the demo reads is under ``root``, else one message, before any work, that names each dataset
    with missing files and how to get them: the download command (every file the demo reads has a public URL;
    cheddar's CSV files, e.g. ``cheddar/Benguela`` of the robustness section, are converted from the package's
    RData files, which needs ``pip install 'gatbio[cheddar]'``, said when ``rdata`` is not installed), or, for a
    file without one, where to read how to place it by hand.

    Raises:
        DatasetNotFoundError: files are missing.
    """
    import importlib.util

    from gatbio.data.cheddar import INSTALL_HINT
    from gatbio.data.sources import DATASETS, DatasetNotFoundError, elsewhere_hint, root_label

    lines = []
    for name, paths in demo_data():
        info = DATASETS[name.split("/", 1)[0]]
        by_path = {f.path: f for f in info.files}
        missing = [by_path[p] for p in paths if not (root / info.folder / p).is_file()]
        if not missing:
            continue
        by_hand = [f for f in missing if f.url is None]
        how = []
        if len(by_hand) < len(missing):
            how.append(f"gatbio datasets --download {shlex.quote(name)}")
            if any(f.derived_from for f in missing) and importlib.util.find_spec("rdata") is None:
                how[-1] += f" (converts the package's RData files: {INSTALL_HINT} first)"
        if by_hand:
            how.append(f"{len(by_hand)} file(s) have no public URL: place them by hand under {root / info.folder} "
                       f"(datasets/{info.doc}.md says where they come from)")
        lines.append(f"  {name}: {len(missing)} file(s) missing; " + "; ".join(how))
    if lines:
        raise DatasetNotFoundError(f"the demo reads {len(lines)} dataset(s) not found under "
                                   f"{root_label(root)}:\n" + "\n".join(lines) + "\n" + elsewhere_hint(root, what="them"))


def _parser() -> argparse.ArgumentParser:
    from gatbio._options import add_device_option

    p = argparse.ArgumentParser(prog="python -m gatbio.demo",
                                description="Every capability of gatbio on real data, in a few minutes.")
    p.add_argument("out", nargs="?", default=str(Path("results") / "demo"), metavar="OUT",
                   help="results folder (default: results/demo)")
    add_device_option(p)
    return p


def main(argv: list[str] | None = None) -> int:
    """Run the demo. Errors meant for the user (a missing dataset, a bad data root, ...) and Ctrl-C end it as
    they end a ``gatbio`` command: one line on stderr (``python -m gatbio.demo: error: ...`` / ``interrupted``),
    exit status 1 / 130, no traceback."""
    p = _parser()
    args = p.parse_args(sys.argv[1:] if argv is None else argv)
    from gatbio.cli import UsageError, run_guarded

    def go() -> int:
        try:
            return _run(p, args)
        except UsageError as err:  # the demo's usage line, as argparse prints it (status 2)
            p.error(str(err))

    return run_guarded(p.prog, go)


def _run(p: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    from gatbio.device import DeviceError, announce_device, resolve_device

    try:
        dev = resolve_device(args.device)
    except DeviceError as err:  # one line, no traceback
        p.error(str(err))
    device = str(dev)
    from gatbio._paths import OutputPathError, check_output_dir

    try:
        out = check_output_dir(args.out, "OUT")  # a file, or a folder it cannot write: one line before any work
    except OutputPathError as err:
        p.error(str(err))
    from gatbio.data.sources import check_data_root

    root = check_data_root()  # GATBIO_DATA a file or a missing folder: one line before any work
    check_demo_data(root)  # every dataset the demo reads, named at once (not one per run of the demo)
    out.mkdir(parents=True, exist_ok=True)
    announce_device(dev, args.device)
    # PyTorch's beta-state notices about sparse CSR tensors are not for the user of a demo.
    warnings.filterwarnings("ignore", message=SPARSE_NOTICES)
    t_all = time.perf_counter()
    print("== gatbio demo ==", flush=True)
    print("\n-- 1. The attention layer on a real PPI graph (structural inputs only) --", flush=True)
    t0 = time.perf_counter()
    print(layer_demo(device=device), flush=True)
    print(f"   ({time.perf_counter() - t0:.0f} s)", flush=True)
    for i, (title, module, func) in enumerate(TASKS, start=2):
        print(f"\n-- {i}. {title} --", flush=True)
        try:
            fn = getattr(importlib.import_module(module), func)
        except (ModuleNotFoundError, AttributeError):
            print("   (not part of this version)")
            continue
        t0 = time.perf_counter()
        task_out = out / module.rsplit(".", 1)[-1]
        print(_head(str(fn(task_out, device=device)), task_out), flush=True)
        print(f"   ({time.perf_counter() - t0:.0f} s)", flush=True)
    print(f"\nAll results under {out}/ ; total {time.perf_counter() - t_all:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
