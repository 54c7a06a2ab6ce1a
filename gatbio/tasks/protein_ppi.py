r"""The classic 24-graph PPI benchmark (inductive, 121 labels) with the GAT paper's architecture.

Veličković et al. (ICLR 2018), inductive setting: 3 GAT layers, the first two with K=4 heads × 256 features
(concatenated, ELU), the last with 6 heads × 121 outputs averaged, skip connections across the
intermediate layers, no dropout or weight decay, Adam lr 0.005, batches of 2 graphs; reported test
Micro-F1 0.973 ± 0.002 (threshold 0.5). Hamilton et al. (2017) built the benchmark from Zitnik & Leskovec
(2017): 20 training, 2 validation and 2 test graphs, 50 features, 121 gene-ontology labels.

The benchmark's files are **not** in the shared data folder (only node counts, see
``gatbio.data.load("ppi-partial")``), so the published number cannot be reproduced here; the code is
tested on a tiny synthetic graph set written in PyG's raw layout. With the files in
``<data root>/ppi_benchmark/raw/`` (``gatbio datasets --download ppi``), ``run(load_config(...))`` reproduces
the setting.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn

from gatbio.config import load_config
from gatbio.results import software, write_json, writing_runs

__all__ = ["PPIBenchConfig", "GATPaperPPI", "load", "run"]


@dataclass
class PPIBenchConfig:
    name: str = "protein_ppi24"
    root: str | None = None  #: data root (default: GATBIO_DATA / ../shared/data)
    hidden: int = 256
    heads: int = 4
    out_heads: int = 6
    epochs: int = 200
    lr: float = 0.005
    batch_size: int = 2  #: graphs per optimiser step
    patience: int = 100  #: epochs without validation improvement
    seeds: list[int] | None = None
    out_dir: str = "results/protein_ppi24"
    device: str = "auto"  #: auto (a CUDA GPU when available, else the CPU), cpu, cuda, cuda:N, mps (gatbio.device)


class GATPaperPPI(nn.Module):
    r"""The GAT paper's inductive PPI model on :class:`gatbio.nn.GATConv`.

    .. math::
        h_1 = \mathrm{ELU}(\mathrm{GAT}^{4\times256}(x) + W_1x),\quad
        h_2 = \mathrm{ELU}(\mathrm{GAT}^{4\times256}(h_1) + W_2h_1),\quad
        z = \tfrac{1}{6}\textstyle\sum_{k=1}^{6}\mathrm{GAT}_k^{121}(h_2) + W_3h_2

    (the residual projections :math:`W` are the layers' own ``residual=True``: a learnt projection on every layer,
    as in PyG's ``examples/ppi.py``; the paper's code adds :math:`h_1` itself in layer 2).

    Shapes:
        - input: x (N, F), edge_index (2, E)
        - output: logits (N, L)
    """

    def __init__(self, in_channels: int, out_channels: int, hidden_channels: int = 256, heads: int = 4,
                 out_heads: int = 6):
        super().__init__()
        from gatbio.nn import GATConv

        self.conv1 = GATConv(in_channels, hidden_channels, heads=heads, residual=True)
        self.conv2 = GATConv(heads * hidden_channels, hidden_channels, heads=heads, residual=True)
        self.conv3 = GATConv(heads * hidden_channels, out_channels, heads=out_heads, concat=False, residual=True)

    def reset_parameters(self) -> None:
        for conv in (self.conv1, self.conv2, self.conv3):
            conv.reset_parameters()

    def forward(self, x: Tensor, edge_index: Tensor) -> Tensor:
        h = F.elu(self.conv1(x, edge_index))  # (N, 4*256)
        h = F.elu(self.conv2(h, edge_index))  # (N, 4*256)
        return self.conv3(h, edge_index)  # (N, L)


#: Settings that make no sense, rejected before any work (:func:`gatbio.config.check_settings`).
SETTING_RULES = {"hidden": ">0", "heads": ">0", "out_heads": ">0", "epochs": ">0", "lr": ">0", "batch_size": ">0",
                 "patience": ">0", "seeds": "nonempty; >=0"}


def load(path: str | Path | None = None, overrides: list[str] | None = None) -> PPIBenchConfig:
    from gatbio.config import check_settings

    cfg = load_config(PPIBenchConfig, path, overrides)
    check_settings(cfg, SETTING_RULES)
    return cfg


def _micro_f1(model: nn.Module, graphs) -> float:
    from sklearn.metrics import f1_score

    from gatbio.device import module_device

    dev = module_device(model)
    model.eval()
    ys, ps = [], []
    with torch.no_grad():
        for g in graphs:
            ps.append((model(g.x.to(dev), g.edge_index.to(dev)) > 0).cpu().numpy())
            ys.append(g.y.cpu().numpy())
    return float(f1_score(np.concatenate(ys), np.concatenate(ps), average="micro", zero_division=0))


#: Config keys that never change a finished seed's result (each seed has its own file), and what run() writes.
RESUME_FREE_KEYS = ("name", "out_dir", "seeds", "root", "device")
OUTPUTS = ("runs", "summary.json")


def run(cfg: PPIBenchConfig, resume: str = "check") -> dict:
    """Train on the train graphs, select on the validation graphs, report test Micro-F1 per seed.

    One ``runs/seed<N>/results.json`` per seed; a rerun into the same ``out_dir`` skips the finished seeds when
    the result settings are the same, and refuses other settings naming them (``resume``: ``"restart"`` deletes
    this task's outputs first, ``"anyway"`` reuses them; :func:`gatbio.results.prepare_out_dir`)."""
    from gatbio.config import check_settings
    from gatbio.data import load as load_dataset
    from gatbio.device import announce_device, resolve_device
    from gatbio.results import is_done, prepare_out_dir, read_json

    check_settings(cfg, SETTING_RULES)
    dev = resolve_device(cfg.device)
    announce_device(dev, cfg.device)
    cfg = dataclasses.replace(cfg, device=str(dev))  # stored resolved in config.yaml
    graphs = load_dataset("ppi", root=cfg.root)  # a missing benchmark is said before the folder records anything
    out = prepare_out_dir(cfg.out_dir, cfg, free_keys=RESUME_FREE_KEYS, outputs=OUTPUTS, resume=resume)
    parts = {s: [g for g in graphs if g.split == s] for s in ("train", "val", "test")}
    results = []
    with writing_runs(out):
        for seed in cfg.seeds or [0]:
            path = out / "runs" / f"seed{seed}" / "results.json"
            if not is_done(path):
                write_json(path, _fit_seed(cfg, parts, dev, seed))
            results.append(read_json(path))
        summary = {"runs": results, "test_micro_f1_mean": float(np.mean([r["test_micro_f1"] for r in results]))}
        write_json(out / "summary.json", summary)
    return summary


def _fit_seed(cfg: PPIBenchConfig, parts: dict[str, list], dev: torch.device, seed: int) -> dict[str, Any]:
    """One seed's run: fit on the training graphs, keep the epoch best on the validation graphs, score the test
    graphs."""
    from torch_geometric.loader import DataLoader

    torch.manual_seed(seed)
    g0 = parts["train"][0]
    model = GATPaperPPI(g0.num_features, g0.y.size(1), cfg.hidden, cfg.heads, cfg.out_heads).to(dev)
    opt = torch.optim.Adam(model.parameters(), lr=cfg.lr)
    loader = DataLoader(parts["train"], batch_size=cfg.batch_size, shuffle=True,
                        generator=torch.Generator().manual_seed(seed))
    best, best_state, bad, t0 = -1.0, None, 0, time.perf_counter()
    for _epoch in range(cfg.epochs):
        model.train()
        for batch in loader:
            batch = batch.to(dev)
            opt.zero_grad()
            loss = F.binary_cross_entropy_with_logits(model(batch.x, batch.edge_index), batch.y)
            loss.backward()
            opt.step()
        val = _micro_f1(model, parts["val"])
        if val > best:
            best, best_state, bad = val, {k: v.clone() for k, v in model.state_dict().items()}, 0
        else:
            bad += 1
            if bad >= cfg.patience:
                break
    model.load_state_dict(best_state)
    return {"dataset": "ppi", "seed": seed, "val_micro_f1": best, "test_micro_f1": _micro_f1(model, parts["test"]),
            "seconds": round(time.perf_counter() - t0, 2), "device": str(dev), "published_gat_micro_f1": 0.973,
            "software": software()}
