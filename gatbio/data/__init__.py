"""Readers, named datasets, the data root and leakage-free splits.

``gatbio.data.load(name)`` returns a :class:`torch_geometric.data.Data` (or a list of them) for every named
dataset (see :func:`list_datasets` and ``gatbio datasets``)::

    node2vec-ppi          Data  human PPI, 50 multi-label hallmark labels
    yeast-bu2003          Data  yeast PPI, 12 classes + unlabelled
    shs27k                Data  STRING protein.actions subset, 7 interaction modes per pair
    string-web-sample     Data  tiny STRING web export
    ppi-tissues           list  9 brain-tissue PPI graphs
    ppi                   list  24-graph PPI benchmark (PyG raw files; not in the shared folder)
    ppi-partial           list  24 graphs, node counts only (what the shared folder has of the benchmark)
    gateway/<id|folder>   Data  a GATEWAy web, e.g. gateway/11 or gateway/AEW03_11
    cheddar/<web>         Data  e.g. cheddar/TL84, cheddar/pHWebs/Broadstone
    pajek/<web>           Data  e.g. pajek/baydry (feeding arcs only)

Data contract
-------------
Every ``Data`` has

- ``edge_index``: long ``(2, E)``; ``num_nodes``; ``node_names``: ``list[str]`` aligned with node indices;
  ``name``: ``str``.

PPI graphs are **undirected**: ``edge_index`` holds both directions of each interaction (PyG convention, as
:func:`torch_geometric.utils.to_undirected`), a self-loop once. Self-loops present in a file are **kept by
default** (``node2vec-ppi`` has 894, ``yeast-bu2003`` 536), so counts match the sources; ``load(name,
self_loops="remove")`` drops them. (``GATConv`` with ``add_self_loops=True`` replaces them anyway.)

- multi-label PPI: ``y`` float ``(N, L)`` and ``label_names`` (``node2vec-ppi``: 50 labels);
- ``yeast-bu2003``: ``y`` long ``(N,)`` with the 12 known classes ``0..11`` and ``-1`` for class U
  (uncharacterized, unlabelled); ``label_names`` (12 letters); the original 13-class code in ``y13``
  (``0..12``, ``label_names13``).

Food webs are **directed prey → predator**: an edge ``u → v`` means *v eats u*, whatever the file's own
convention. GATEWAy webs keep the **exact file line order** of their links (the benchmark folds depend on it).
Optional ``edge_weight`` (float ``(E,)``), traits ``x`` float ``(N, F)`` with ``trait_names`` (GATEWAy:
``met_*``, ``mov_*``, ``log_mass``, ``mass_missing``) and ``web_id``.

Parsed datasets are cached in memory per process; ``load`` returns a fresh copy each call.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import TYPE_CHECKING

from gatbio.data.sources import (
    DATASETS,
    DataRootError,
    DatasetNotFoundError,
    UnknownDatasetError,
    data_root,
    download,
    resolve_name,
    unknown_name,
    wanted_files,
)

__all__ = ["load", "data_root", "list_datasets", "download", "DATASETS", "DatasetNotFoundError", "UnknownDatasetError",
           "DataRootError", "dataset_names", "resolve_name"]

if TYPE_CHECKING:
    import pandas as pd

_CACHE: dict[tuple, object] = {}


def dataset_names(expand: bool = False) -> list[str]:
    """Names accepted by :func:`load` (collections as ``"gateway/<id>"`` etc. when ``expand``)."""
    out = []
    for info in DATASETS.values():
        if info.is_collection:
            if expand:
                out += [f"{info.name}/{m}" for m in info.members]
            else:
                out.append(f"{info.name}/<web>")
        else:
            out.append(info.name)
    return out


def _loader(name: str):
    """``(loader, args)`` of dataset ``name`` (as :func:`~gatbio.data.sources.resolve_name` spells it):
    ``loader(*args, root, **kwargs)`` reads it."""
    from gatbio.data import foodweb, ppi

    base, _, member = name.partition("/")
    simple = {
        "node2vec-ppi": ppi.load_node2vec_ppi,
        "yeast-bu2003": ppi.load_yeast_bu2003,
        "ppi-tissues": ppi.load_ppi_tissues,
        "shs27k": ppi.load_shs27k,
        "string-web-sample": ppi.load_string_web_sample,
        "ppi": ppi.load_ppi_benchmark,
        "ppi-partial": ppi.load_ppi_partial,
    }
    coll = {"gateway": foodweb.load_gateway, "cheddar": foodweb.load_cheddar, "pajek": foodweb.load_pajek_foodweb}
    if base in simple and not member:
        return simple[base], ()
    if base in coll:
        if not member:
            example = "11" if base == "gateway" else DATASETS[base].members[0]  # gateway: the id, as the docs name webs
            raise UnknownDatasetError(f"{base!r} is a collection: name one web, e.g. {base}/{example} "
                                      f"(all: gatbio datasets --members {base})")
        return coll[base], (member,)
    raise unknown_name("dataset", name, dataset_names(expand=True) + dataset_names(),
                       listing=", ".join(dataset_names()))


def load(name: str, *, root: str | Path | None = None, **kwargs):
    """Load a named dataset as :class:`~torch_geometric.data.Data` (or a list of them).

    Args:
        name: e.g. ``"node2vec-ppi"``, ``"yeast-bu2003"``, ``"gateway/11"``, ``"cheddar/TL84"``,
            ``"pajek/baydry"`` (see the module docstring). Case: one rule for datasets, collections and their
            webs alike (:func:`~gatbio.data.sources.resolve_name`; ``gatbio datasets --download`` follows it
            too): the exact name when there is one, else the only name equal to it ignoring case, so
            ``"SHS27K"``, ``"Pajek/BayDry"`` and ``"cheddar/tl84"`` load ``shs27k``, ``pajek/baydry`` and
            ``cheddar/TL84``; a name that equals several names ignoring case, or none, is an
            :class:`UnknownDatasetError` saying "did you mean ...?". The ``Data.name`` is the registry's
            spelling.
        root: data root (default :func:`data_root`).
        **kwargs: passed to the loader (e.g. ``self_loops="remove"``, which the PPI graphs, ``cheddar/`` and
            ``pajek/`` take; ``shs27k`` takes ``min_score``, ``features``, ``max_len``, ``extra``); a keyword the
            dataset does not take is a ``TypeError`` naming those it takes.

    Raises:
        UnknownDatasetError: unknown name (a ``KeyError`` and a ``ValueError``; the message names the closest
        known names). :class:`DatasetNotFoundError`: files missing (the message says which file to put
        where; :func:`download` fetches those with a public URL); :class:`DataRootError` (one of them): the data
        root is not a usable folder.
    """
    if not isinstance(name, str):
        raise TypeError(f"load(name): name must be a dataset name (a str, e.g. 'node2vec-ppi'); got "
                        f"{type(name).__name__} (the names: gatbio.data.dataset_names())")
    name = resolve_name(name)  # the registry's spelling: 'SHS27K' and 'shs27k' are one dataset (one cache entry)
    loader, args = _loader(name)
    _check_keywords(name, loader, kwargs)
    root_path = Path(root) if root is not None else data_root()
    # the absolute root: a relative one (root="d", GATBIO_DATA=d) names another folder after a chdir
    key = (name, str(root_path.resolve()), repr(sorted(kwargs.items())))
    if key not in _CACHE:
        _CACHE[key] = loader(*args, root_path, **kwargs)
    return copy.deepcopy(_CACHE[key])


def _check_keywords(name: str, loader, kwargs: dict) -> None:
    """A ``TypeError`` naming the dataset and the keywords its loader takes, for a keyword it does not take (Python's
    own message names the private loader: ``load_shs27k() got an unexpected keyword argument``)."""
    import inspect

    params = inspect.signature(loader).parameters
    takes = [p for p, v in params.items() if v.kind is inspect.Parameter.KEYWORD_ONLY]
    bad = sorted(set(kwargs) - set(takes))
    if bad:
        raise TypeError(f"load({name!r}) got the keyword(s) {', '.join(bad)}, which this dataset does not take; it "
                        + (f"takes {', '.join(takes)}" if takes else "takes none (only root=)"))


def list_datasets(root: str | Path | None = None) -> pd.DataFrame:
    """One row per named dataset: name, kind, nodes, edges, labels/traits, files present, citation."""
    import pandas as pd  # here, not at the top: `gatbio --help` imports this package and should stay fast

    root_path = Path(root) if root is not None else data_root()
    rows = []
    for info in DATASETS.values():
        missing = wanted_files(info.name, root=root_path)  # (cheddar's RData not wanted once its CSVs are there)
        n = len(info.files)
        present = "yes" if not missing else ("no" if len(missing) == n else f"partial ({n - len(missing)}/{n})")
        rows.append({
            "name": info.name + ("/<web>" if info.is_collection else ""),
            "kind": info.kind,
            "webs": len(info.members) if info.is_collection else 1,
            "nodes": info.nodes, "edges": info.edges, "labels/traits": info.labels,
            "direction": info.direction, "present": present, "license": info.license, "citation": info.citation,
        })
    return pd.DataFrame(rows)
