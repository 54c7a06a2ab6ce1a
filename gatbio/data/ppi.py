"""Protein–protein interaction datasets (undirected; both directions stored, PyG convention).

Self-loops (a protein listed as interacting with itself) are **kept by default**, as in the source files, so
that edge counts match each ``SOURCE.md``; pass ``self_loops="remove"`` to drop them. Attention layers that add
their own self-loops (``GATConv(add_self_loops=True)``) remove existing ones first, so keeping them is harmless
there.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import torch
from torch_geometric.data import Data

from gatbio.data.io import (
    MalformedFileError,
    SelfLoopPolicy,
    pajek_to_data,
    read_edge_list,
    read_label_table,
    read_pajek,
    read_string_actions,
    read_string_web_export,
)
from gatbio.data.sources import PPI_RAW_FILES, TISSUES, require_files

__all__ = ["load_node2vec_ppi", "load_yeast_bu2003", "load_ppi_tissues", "load_shs27k", "attach_sequences", "load_string_web_sample",
           "load_ppi_benchmark", "load_ppi_partial", "YEAST_CLASSES"]

#: Pajek ``Yeast.clu`` class codes 1..13 (Bu et al. 2003). ``U`` = uncharacterized.
YEAST_CLASSES = ("T", "M", "U", "C", "F", "P", "G", "D", "O", "E", "R", "B", "A")


def load_node2vec_ppi(root: Path | None = None, *, self_loops: SelfLoopPolicy = "keep") -> Data:
    """node2vec's human PPI: 3,890 proteins, 38,739 interactions (894 self-loops), 50 hallmark labels.

    Node names are the file's 1-based integer ids as strings (the files carry no protein identifiers).
    ``y`` is float ``(3890, 50)`` multi-hot, ``label_names`` ``"1".."50"``.
    """
    folder = require_files("node2vec-ppi", ["node2vec_PPI.edgelist", "node2vec_PPI_labels.txt"], root=root)
    names = [str(i) for i in range(1, 3891)]
    # the file lists every interaction in both directions: merge a row with its mirror image
    # its third column is 1.000000 on every row: an unweighted network, so the column is not read (quietly)
    data = read_edge_list(folder / "node2vec_PPI.edgelist", numeric_ids=True, index_base=1, node_names=names,
                          directed=False, duplicates="merge", self_loops=self_loops, name="node2vec-ppi",
                          extra_columns="ignore")
    data.y, data.label_names = read_label_table(folder / "node2vec_PPI_labels.txt", names,
                                                label_names=[str(i) for i in range(1, 51)], require_all=True)
    return data


def load_yeast_bu2003(root: Path | None = None, *, self_loops: SelfLoopPolicy = "keep") -> Data:
    """Bu et al. (2003) yeast PPI: 2,361 proteins, 7,182 interactions (536 self-loops).

    - ``y``: long ``(N,)``, the 12 known functional classes as ``0..11`` (``label_names``, letters in
      ``YEAST_CLASSES`` order without ``U``) and ``-1`` for class ``U`` (uncharacterized: unlabelled).
    - ``y13``: long ``(N,)``, the original 13-class code minus one (``0..12``; names in ``label_names13``).
    - ``node_names``: ORF names (``YeastS.net``); ``node_descriptions``: the long labels of ``YeastL.net``.
    """
    folder = require_files("yeast-bu2003", ["YeastS.net", "YeastL.net", "Yeast.clu"], root=root)
    data = pajek_to_data(read_pajek(folder / "YeastS.net"), directed=False, self_loops=self_loops)
    data.name = "yeast-bu2003"
    long = read_pajek(folder / "YeastL.net").network()["node_names"]
    data.node_descriptions = list(long)
    clu = read_pajek(folder / "Yeast.clu").partitions
    code = np.asarray(next(iter(clu.values())))
    if len(code) != data.num_nodes or code.min() < 1 or code.max() > 13:
        raise MalformedFileError(folder / "Yeast.clu", None,
                                 f"expected {data.num_nodes} class codes in 1..13, found {len(code)}")
    data.y13 = torch.from_numpy(code - 1).long()
    data.label_names13 = list(YEAST_CLASSES)
    known = [c for c in YEAST_CLASSES if c != "U"]
    remap = np.array([known.index(c) if c != "U" else -1 for c in YEAST_CLASSES])
    data.y = torch.from_numpy(remap[code - 1]).long()
    data.label_names = known
    return data


def load_ppi_tissues(root: Path | None = None, *, self_loops: SelfLoopPolicy = "keep") -> list[Data]:
    """The nine OhmNet brain-tissue PPI graphs (one :class:`Data` per tissue, ``tissue`` set).

    Node names are the Entrez-like gene ids of each tissue's own genes (shared vocabulary across tissues:
    2,716 distinct genes in all). Each file lists every pair once; both directions are stored.
    """
    paths = [f"edgelists/{t}.edgelist" for t in TISSUES]
    folder = require_files("ppi-tissues", paths, root=root)
    out = []
    for t, p in zip(TISSUES, paths, strict=False):
        d = read_edge_list(folder / p, sep="\t", directed=False, duplicates="error", self_loops=self_loops,
                           name=f"ppi-tissues/{t}")
        d.tissue = t
        out.append(d)
    return out


#: Sequence features of ``load("shs27k")``'s ``x`` (:mod:`gatbio.data.sequence`).
SHS27K_FEATURES = ("vec5_mean", "vec5_std", "aac", "dpc", "ct")


def load_shs27k(root: Path | None = None, *, min_score: int = 0,
                features: tuple[str, ...] | list[str] = SHS27K_FEATURES, max_len: int | None = None,
                extra: tuple[tuple[str, str], ...] = ()) -> Data:
    """SHS27k (STRING ``protein.actions``): 1,690 proteins, 7,624 interacting pairs, 7 interaction modes.

    The pair table in GNN-PPI's order (first appearance in the file, :func:`~gatbio.data.io.read_string_actions`):
    ``pairs`` ``(P, 2)``, ``pair_modes`` float ``(P, 7)`` multi-hot (``mode_names``), ``pair_score`` (max STRING
    score / 1000), ``pair_direction`` (direction bit flags per pair and mode). The graph: ``edge_index`` (each pair
    in both directions), ``edge_mode`` ``(2P, 7)``, ``edge_weight``. Proteins: ``node_names`` (STRING ids),
    ``sequences`` (index-aligned), ``x`` float ``(N, F)``: the sequence ``features`` (default
    :data:`SHS27K_FEATURES`, :func:`gatbio.data.sequence.sequence_features` with the ``vec5_CTC.txt`` embedding;
    ``max_len`` truncates as GNN-PPI does at 2000), with ``feature_names``. ``extra``: ``(name, sequence)`` of
    proteins outside SHS27k, appended as nodes without any pair (a user's new proteins, to be predicted from their
    sequences; their features are computed with the others').
    """
    from gatbio.data.sequence import read_aa_embedding, read_sequences, sequence_features

    files = ["protein.actions.SHS27k.STRING.txt", "protein.SHS27k.sequences.dictionary.tsv"]
    if any(str(k).startswith("vec5") for k in features):
        files.append("vec5_CTC.txt")
    folder = require_files("shs27k", files, root=root)
    data = read_string_actions(folder / files[0], min_score=min_score, name="shs27k")
    attach_sequences(data, read_sequences(folder / files[1]), folder / files[1])
    if extra:
        known = set(data.node_names)
        clash = [n for n, _ in extra if n in known]
        if clash:
            raise ValueError(f"extra proteins {clash[:3]} are SHS27k proteins already")
        data.node_names = list(data.node_names) + [n for n, _ in extra]
        data.sequences = list(data.sequences) + [q for _, q in extra]
        data.num_nodes = len(data.node_names)
    if features:
        emb = read_aa_embedding(folder / "vec5_CTC.txt") if len(files) == 3 else None
        x, names = sequence_features(data.sequences, list(features), emb, max_len=max_len)
        data.x, data.feature_names = torch.from_numpy(x), names
    return data


def attach_sequences(data: Data, sequences: dict[str, str], path: str | Path = "<sequences>") -> Data:
    """Set ``data.sequences`` (aligned with ``node_names``); a protein without a sequence is an error.

    Proteins are matched by :func:`gatbio.data.sequence.match_ids`: by id; a UniProt FASTA record (read by
    :func:`~gatbio.data.sequence.read_sequences` as its accession, ``P69905``) also by its entry name
    (``HBA_HUMAN``) or its whole header word (``sp|P69905|HBA_HUMAN``); an id kept whole (``sp|P69905|HBA_HUMAN``
    from another reader) by one of its ``|`` fields. A protein found by another name than its id is said on stderr.
    """
    from gatbio.data.sequence import match_ids
    from gatbio.data.tables import first_few, note

    found = match_ids(sequences, data.node_names)
    missing, given = [n for n in map(str, data.node_names) if n not in found], list(sequences)
    if missing:
        raise MalformedFileError(path, None, f"{len(missing)} protein(s) of the interaction file have no sequence, "
                                             f"e.g. {missing[:3]}; the sequence file's ids are "
                                             f"{first_few([repr(str(k)) for k in given], 3)}: each needs the "
                                             "interaction file's id (the first word of a FASTA header; a UniProt "
                                             "header's accession or entry name)")
    other = {n: k for n, k in found.items() if n != k}
    if other:
        a, b = next(iter(other.items()))
        note(f"{path}: {len(other)} protein(s) of the interaction file found by another name of their sequence "
             f"record (e.g. {a!r}, the record read as {str(b)!r})")
    data.sequences = [sequences[found[n]] for n in map(str, data.node_names)]
    return data


def load_string_web_sample(root: Path | None = None) -> Data:
    """The tiny STRING web export (12 proteins, 19 interactions), as a reader fixture."""
    folder = require_files("string-web-sample", ["string_interactions.tsv"], root=root)
    return read_string_web_export(folder / "string_interactions.tsv", name="string-web-sample")


#: file prefix -> ``Data.split`` value (PyG's ``PPI`` calls the validation split ``"val"``)
_SPLIT = {"train": "train", "valid": "val", "test": "test"}


def _cache_dir() -> Path:
    return Path(os.environ.get("GATBIO_CACHE", Path.home() / ".cache" / "gatbio"))


#: in each cache folder of :func:`load_ppi_benchmark`: the raw folder (resolved) it was made for
_MADE_FOR = "made_for.txt"


def _remove_stale_caches(cache: Path, folder: Path) -> None:
    """Delete the cache folders beside ``cache`` made for an earlier version of ``folder``'s raw files: each
    version gets a folder of its own, so re-extracting ``ppi.zip`` left the old processed graphs (hundreds of MB)
    behind for good. Only a folder whose ``made_for.txt`` names ``folder`` is deleted (the links in its ``raw/``,
    not what they point to), with a note. Raw files were not enough to tell: two data roots whose raw files link
    to the same store would have deleted each other's cache at every load."""
    import shutil

    from gatbio.data.tables import note

    me = str(folder.resolve())
    for other in sorted(cache.parent.glob("*")) if cache.parent.is_dir() else []:
        made_for = other / _MADE_FOR
        if other == cache or other.is_symlink() or not made_for.is_file():
            continue
        try:
            if made_for.read_text().strip() != me:
                continue
        except OSError:
            continue
        shutil.rmtree(other, ignore_errors=True)  # unlinks the links; the raw files stay
        if not other.exists():
            note(f"removed {other}: PyG's processed PPI graphs of an earlier version of the raw files in {me}/raw")


def load_ppi_benchmark(root: Path | None = None) -> list[Data]:
    """The 24-graph PPI benchmark through :class:`torch_geometric.datasets.PPI` (20 train, 2 valid, 2 test).

    Needs PyG's raw files (``ppi.zip`` extracted) in ``<data root>/ppi_benchmark/raw/``; the shared folder does not
    have them (``gatbio.data.download("ppi")`` fetches them). PyG's processed files go next to ``raw/`` when that
    folder is writable, else under ``$GATBIO_CACHE`` (``~/.cache/gatbio``) with the raw files linked, in a folder
    of its own per raw folder and version of its files (``ppi_benchmark/<hash>``).

    Each graph has ``x`` ``(n, 50)``, ``y`` float ``(n, 121)``, ``split`` (``"train"``/``"val"``/``"test"``),
    ``graph_index`` and ``node_names`` ``"<split>:<node index within the split file>"``.
    """
    from torch_geometric.datasets import PPI

    folder = require_files("ppi", ["raw/" + f for f in PPI_RAW_FILES], root=root)
    if not os.access(folder, os.W_OK):
        # one cache folder per raw folder and version of its files: PyG reuses processed files whatever raw/ holds,
        # so a shared cache gave the first data root's graphs for every other one (and old ones for new raw files)
        import hashlib

        stamp = [str(folder.resolve())] + [f"{f}:{(s := (folder / 'raw' / f).stat()).st_size}:{s.st_mtime_ns}"
                                           for f in PPI_RAW_FILES]
        cache = _cache_dir() / "ppi_benchmark" / hashlib.sha256("\n".join(stamp).encode()).hexdigest()[:16]
        _remove_stale_caches(cache, folder)
        (cache / "raw").mkdir(parents=True, exist_ok=True)
        if not (cache / _MADE_FOR).is_file():
            (cache / _MADE_FOR).write_text(str(folder.resolve()) + "\n")
        for f in PPI_RAW_FILES:
            link = cache / "raw" / f
            if not link.exists():
                link.symlink_to((folder / "raw" / f).resolve())
        folder = cache
    out = []
    for split in ("train", "valid", "test"):
        ids = np.load(folder / "raw" / f"{split}_graph_id.npy")
        ds = PPI(str(folder), split="val" if split == "valid" else split)
        offset = 0
        for k in range(len(ds)):
            d = ds[k]
            n = d.num_nodes
            d.node_names = [f"{split}:{i}" for i in range(offset, offset + n)]
            d.split, d.graph_index, d.name = _SPLIT[split], int(ids[offset]), f"ppi/{_SPLIT[split]}{k}"
            offset += n
            out.append(d)
    return out


def load_ppi_partial(root: Path | None = None) -> list[Data]:
    """The pieces of the PPI benchmark in the shared folder: 24 graphs with node counts only.

    No edges (``edge_index`` is empty) and no labels; the two validation graphs have ``x`` ``(n, 50)``.
    Useful to check split and graph sizes, not to train.
    """
    files = [f"{s}_graph_id.npy" for s in ("train", "valid", "test")] + ["valid_feats.npy"]
    folder = require_files("ppi-partial", files, root=root)
    out = []
    feats = np.load(folder / "valid_feats.npy")
    for split in ("train", "valid", "test"):
        ids = np.load(folder / f"{split}_graph_id.npy")
        for g in np.unique(ids):
            idx = np.flatnonzero(ids == g)
            d = Data(edge_index=torch.empty(2, 0, dtype=torch.long), num_nodes=len(idx))
            d.node_names = [f"{split}:{i}" for i in idx]
            d.name, d.split, d.graph_index = f"ppi-partial/{g}", _SPLIT[split], int(g)
            if split == "valid":
                d.x = torch.from_numpy(feats[idx]).float()
            out.append(d)
    return out
