"""Where data lives and where each named dataset comes from.

Data root
---------
:func:`data_root` is the one lookup for the folder that holds the named datasets:

1. the environment variable ``GATBIO_DATA`` when set;
2. else ``../shared/data`` relative to the repository (or to the current directory) when it exists;
3. else the cache folder ``~/.cache/gatbio`` (created on demand; :func:`download` writes there).

:func:`check_data_root` refuses a root that is a file, or a folder that does not exist (``GATBIO_DATA`` or
``--root`` pointing nowhere), naming where the root came from; :func:`download` also checks that it can write
there before it fetches anything.

Registry
--------
:data:`DATASETS` maps each named dataset to its folder under the data root, citation, license, direction
convention, published counts and its files (path, public URL, sha256). :func:`download` fetches the files of a
dataset from their public URLs (``urllib``), checks each sha256 and writes atomically. When a file is missing
and cannot be downloaded, :class:`DatasetNotFoundError` says which file to put where, and how to fetch it
(``gatbio datasets --download NAME``, or in Python ``gatbio.data.download(NAME)``: :func:`fetch_hint`).
``GATBIO_MIRROR`` (a base URL, or a plain folder taken as ``file://``) redirects the downloads. A download shows a
bar per file on a terminal (bytes, for files over a few MB, and files, for a collection), and gives up on a server
silent for ``GATBIO_TIMEOUT`` seconds (default 60: the wait for each reply or block of data, not for the whole
file).

Loading checks each registered file it reads (:func:`require_files`): its size against the registry's (free),
and its sha256 once per process and file version for files up to :data:`HASH_ON_LOAD_MAX_BYTES` (a few ms in
all). A file cut short or altered raises :class:`DatasetIntegrityError`, one line naming the file and the fix.

URLs point at the exact upstream commits named in each dataset's ``SOURCE.md``
(``https://raw.githubusercontent.com/<repo>/<commit>/<path>``). Files that are members of a ZIP archive upstream
(Pajek yeast; the PyG ``ppi.zip``) are extracted from the downloaded archive and the member is checked. cheddar's
CSV files are made from the package's RData files (``FileSource.derived_from``; :mod:`gatbio.data.cheddar`, which
needs the optional package ``rdata``): the RData is fetched and checked, converted, and each CSV checked against
its own sha256 before it is written. Only GATEWAy's three index tables have no public URL.
The PyG PPI benchmark archive ``https://data.pyg.org/datasets/ppi.zip`` has no published sha256: its check is
skipped (documented in ``datasets/ppi.md``), the only such file.
"""

from __future__ import annotations

import functools
import hashlib
import http.client
import io
import os
import re
import sys
import urllib.error
import urllib.parse
import urllib.request
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from gatbio.data._checksums import CHECKSUMS

__all__ = ["data_root", "DATASETS", "DatasetInfo", "FileSource", "DatasetNotFoundError", "UnknownDatasetError",
           "DataRootError", "DatasetIntegrityError", "check_data_root", "root_label", "unknown_name", "download",
           "fetch_hint", "download_command", "elsewhere_hint", "member_files", "dataset_files", "resolve_name", "registry_spelling", "refuse_same_names", "match_case", "fetch_url",
           "download_timeout", "mirrored", "dataset_path", "sha256_file", "verify"]

_REPO = Path(__file__).resolve().parents[2]


def data_root() -> Path:
    """The data folder: ``$GATBIO_DATA``, else ``../shared/data`` (repo or cwd), else ``~/.cache/gatbio``."""
    env = os.environ.get("GATBIO_DATA")
    if env:
        return Path(env).expanduser()
    for base in (_REPO, Path.cwd()):
        p = base.parent / "shared" / "data"
        if p.is_dir():
            return p
    return _default_root()


class DatasetNotFoundError(FileNotFoundError):
    """A dataset file is missing (and could not be downloaded)."""


class DataRootError(DatasetNotFoundError):
    """The data root is not a usable folder (a file, a folder that does not exist, or one gatbio cannot write to
    when downloading). The message names where the root came from: ``--root``, ``GATBIO_DATA`` or the default."""


class DatasetIntegrityError(ValueError):
    """A present dataset file differs from the registry (its size or its sha256): cut short, edited or replaced."""


_ROOT_WHAT = "the data root: a folder holding one folder per dataset"


def root_label(root: str | Path, option: str | None = None) -> str:
    """How a data root is named in messages: ``--root X`` (with ``option``), ``GATBIO_DATA=X`` when the root is
    the one that variable names, else ``data root X``."""
    if option:
        return f"{option} {root}"
    env = os.environ.get("GATBIO_DATA")
    if env and Path(env).expanduser() == Path(root):
        return f"GATBIO_DATA={env}"
    return f"data root {root}"


def _default_root() -> Path:
    return Path.home() / ".cache" / "gatbio"


def check_data_root(root: str | Path | None = None, *, option: str | None = None, must_exist: bool | None = None,
                    writable: bool = False) -> Path:
    """The data root (``root``, default :func:`data_root`), checked before it is read or written.

    A file is refused; a folder that does not exist is refused when ``must_exist`` (default: unless it is the
    default ``~/.cache/gatbio``, which nothing has created yet on a fresh install: the messages about missing
    files then say where to put each one); with ``writable`` the folder (or, when it does not exist yet, its
    nearest existing parent) must take new files (checked by creating and removing a probe file, which is also
    right for the superuser and read-only file systems). Messages name the root as :func:`root_label` does
    (``option`` e.g. ``"--root"``).

    Raises:
        DataRootError: one line naming the root and what is wrong with it.
    """
    base = Path(root).expanduser() if root is not None else data_root()
    label = root_label(root if root is not None else base, option)
    if base.exists() and not base.is_dir():
        raise DataRootError(f"{label}: is a file, not a folder ({_ROOT_WHAT})")
    if must_exist is None:
        must_exist = base != _default_root()
    if must_exist and not base.exists():
        raise DataRootError(f"{label}: no such folder ({_ROOT_WHAT}; gatbio datasets --download NAME creates it)")
    if writable:
        from gatbio._paths import folder_problem

        problem = folder_problem(base)
        if problem and problem.endswith("is a file, not a folder"):
            raise DataRootError(f"{label}: {problem} ({_ROOT_WHAT})")
        if problem:
            raise DataRootError(f"{label}: {problem}; give a folder gatbio can write to (--root DIR or "
                                "GATBIO_DATA=DIR)")
    return base


class UnknownDatasetError(KeyError, ValueError):
    """A dataset or web name that is not in the registry. A :class:`KeyError` (a failed lookup) and a
    :class:`ValueError` (bad user input, shown as one line by the ``gatbio`` command)."""

    def __str__(self) -> str:  # KeyError would show the repr of the message
        return str(self.args[0]) if self.args else ""


def unknown_name(kind: str, name: str, choices: list[str], *, prefix: str = "", listing: str = "") -> UnknownDatasetError:
    """The error for an unknown ``name``: one line with the closest ``choices`` (difflib) and where to list them."""
    import difflib

    lower = {c.lower(): c for c in reversed(choices)}  # case is ignored when matching ("tl84" -> "TL84")
    close = list(dict.fromkeys(lower[c] for c in difflib.get_close_matches(name.lower(), list(lower), n=3, cutoff=0.6)))
    close = close or list(dict.fromkeys(c for c in choices if c.lower().startswith(name.lower())))[:3]  # 'yeast'
    hint = f"; did you mean {' or '.join(prefix + c for c in close)}?" if close else ""
    shown = listing or ", ".join(prefix + c for c in choices)
    return UnknownDatasetError(f"unknown {kind} {prefix + name!r}{hint} (known: {shown})")


@dataclass(frozen=True)
class FileSource:
    """One file of a dataset: ``path`` relative to the dataset folder, public ``url`` (``None``: no public
    copy; must be placed by hand), ``sha256`` (``None``: unknown upstream), ``member`` when the URL is a
    ZIP archive that holds the file, ``size`` in bytes (``None``: unknown), and ``derived_from`` when the file is
    made from another registered file of the dataset (its registry path; ``url`` is then that file's): cheddar's
    CSV files, converted from the package's RData files by :mod:`gatbio.data.cheddar` and checked against
    ``sha256`` before they are written."""

    path: str
    url: str | None
    sha256: str | None
    member: str | None = None
    size: int | None = None  # bytes (``None``: unknown; no size check at load time)
    derived_from: str | None = None  # the registered file this one is converted from (cheddar's RData)


@dataclass(frozen=True)
class DatasetInfo:
    """A named dataset: folder, provenance and the counts its SOURCE.md gives."""

    name: str
    folder: str
    kind: str  # "ppi" | "foodweb"
    title: str
    citation: str
    license: str
    direction: str
    nodes: str
    edges: str
    labels: str
    files: tuple[FileSource, ...] = field(default_factory=tuple)
    members: tuple[str, ...] = ()  # for collections: the member names (load("<name>/<member>"))
    doc: str = ""  # datasets/<doc>.md

    @property
    def is_collection(self) -> bool:
        return bool(self.members)


def _raw(repo: str, commit: str, path: str) -> str:
    return f"https://raw.githubusercontent.com/{repo}/{commit}/{path}"


def _files(folder: str, url_of: Callable[[str], str | None], member_of: Callable[[str], str | None] = lambda p: None,
           source_of: Callable[[str], str | None] = lambda p: None) -> tuple[FileSource, ...]:
    """The registered files of ``folder``: ``url_of`` gives each file's URL, ``member_of`` its name in a ZIP
    archive at that URL, ``source_of`` the file it is converted from (whose URL it then takes)."""
    sizes = _SIZES.get(folder, {})
    out = []
    for p, sha in sorted(CHECKSUMS[folder].items()):
        src = source_of(p)
        out.append(FileSource(p, url_of(src if src else p), sha, member_of(p), sizes.get(p), src))
    return tuple(out)


#: Size in bytes of every file of the named datasets (folder -> path -> bytes), read from the shared data folder
#: after its sha256 matched :data:`CHECKSUMS` (the SOURCE.md tables give the same numbers where they list sizes).
#: :func:`require_files` compares them at load time: a file cut short or grown is caught without hashing it.
_SIZES: dict[str, dict[str, int]] = {
    "foodwebs_cheddar": {
        "Benguela/nodes.csv": 856, "Benguela/properties.csv": 43, "Benguela/trophic.links.csv": 5301,
        "BroadstoneStream/nodes.csv": 4421, "BroadstoneStream/properties.csv": 89,
        "BroadstoneStream/trophic.links.csv": 5478, "ChesapeakeBay/nodes.csv": 842,
        "ChesapeakeBay/properties.csv": 42, "ChesapeakeBay/trophic.links.csv": 3150,
        "Millstream/c4/nodes.csv": 10734, "Millstream/c4/properties.csv": 61,
        "Millstream/c4/trophic.links.csv": 15877, "Millstream/d4/nodes.csv": 8622,
        "Millstream/d4/properties.csv": 63, "Millstream/d4/trophic.links.csv": 9520,
        "SkipwithPond/nodes.csv": 4005, "SkipwithPond/properties.csv": 85,
        "SkipwithPond/trophic.links.csv": 24449, "TL84/nodes.csv": 7466, "TL84/properties.csv": 115,
        "TL84/trophic.links.csv": 10952, "TL86/nodes.csv": 7639, "TL86/properties.csv": 115,
        "TL86/trophic.links.csv": 9881, "YthanEstuary/nodes.csv": 12053, "YthanEstuary/properties.csv": 93,
        "YthanEstuary/trophic.links.csv": 14865, "original_RData/Benguela.RData": 1568,
        "original_RData/BroadstoneStream.RData": 2235, "original_RData/ChesapeakeBay.RData": 1419,
        "original_RData/Millstream.RData": 6911, "original_RData/SkipwithPond.RData": 2219,
        "original_RData/TL84.RData": 3475, "original_RData/TL86.RData": 3355,
        "original_RData/YthanEstuary.RData": 5347, "original_RData/pHWebs.RData": 13953,
        "pHWebs/Afon_Hafren/nodes.csv": 1436, "pHWebs/Afon_Hafren/properties.csv": 79,
        "pHWebs/Afon_Hafren/trophic.links.csv": 5322, "pHWebs/Allt_a_Mharcaidh/nodes.csv": 2345,
        "pHWebs/Allt_a_Mharcaidh/properties.csv": 85, "pHWebs/Allt_a_Mharcaidh/trophic.links.csv": 11911,
        "pHWebs/Bere_Stream/nodes.csv": 4146, "pHWebs/Bere_Stream/properties.csv": 80,
        "pHWebs/Bere_Stream/trophic.links.csv": 32176, "pHWebs/Broadstone/nodes.csv": 1411,
        "pHWebs/Broadstone/properties.csv": 79, "pHWebs/Broadstone/trophic.links.csv": 6164,
        "pHWebs/Dargall_Lane/nodes.csv": 1165, "pHWebs/Dargall_Lane/properties.csv": 81,
        "pHWebs/Dargall_Lane/trophic.links.csv": 3469, "pHWebs/Duddon_Pike_Beck/nodes.csv": 2032,
        "pHWebs/Duddon_Pike_Beck/properties.csv": 86, "pHWebs/Duddon_Pike_Beck/trophic.links.csv": 10072,
        "pHWebs/Hardknott_Gill/nodes.csv": 2541, "pHWebs/Hardknott_Gill/properties.csv": 81,
        "pHWebs/Hardknott_Gill/trophic.links.csv": 13433, "pHWebs/Mill_Stream/nodes.csv": 5121,
        "pHWebs/Mill_Stream/properties.csv": 80, "pHWebs/Mill_Stream/trophic.links.csv": 59532,
        "pHWebs/Mosedal_Beck/nodes.csv": 1208, "pHWebs/Mosedal_Beck/properties.csv": 82,
        "pHWebs/Mosedal_Beck/trophic.links.csv": 4057, "pHWebs/Old_Lodge/nodes.csv": 1360,
        "pHWebs/Old_Lodge/properties.csv": 75, "pHWebs/Old_Lodge/trophic.links.csv": 5053,
    },
    "foodwebs_ulanowicz_pajek": {
        "ChesLower.paj": 5619, "ChesMiddle.paj": 6255, "ChesUpper.paj": 6400, "Chesapeake.paj": 6571,
        "CrystalC.paj": 3908, "CrystalD.paj": 3420, "Maspalomas.paj": 2965, "Michigan.paj": 7010,
        "Mondego.paj": 11916, "Narragan.paj": 6753, "StMarks.paj": 11888, "baydry.paj": 64892,
        "baywet.paj": 64281, "cypdry.paj": 17882, "cypwet.paj": 17497, "gramdry.paj": 28069,
        "gramwet.paj": 28685, "mangdry.paj": 45683, "mangwet.paj": 45925,
    },
    "gateway_dev": {
        "food_web_metadata.csv": 14844, "node_ids.csv": 178077, "web_index.csv": 11704,
        "webs/AEW03_11/11_edge_list.txt": 10722, "webs/AEW03_11/11_node_attr_list.txt": 5365,
        "webs/AEW04_12/12_edge_list.txt": 10697, "webs/AEW04_12/12_node_attr_list.txt": 5520,
        "webs/AEW08_16/16_edge_list.txt": 13615, "webs/AEW08_16/16_node_attr_list.txt": 5987,
        "webs/AEW11_18/18_edge_list.txt": 10849, "webs/AEW11_18/18_node_attr_list.txt": 5294,
        "webs/AEW49_24/24_edge_list.txt": 17522, "webs/AEW49_24/24_node_attr_list.txt": 6775,
        "webs/BP2_170/170_edge_list.txt": 153, "webs/BP2_170/170_node_attr_list.txt": 574,
        "webs/BP3_171/171_edge_list.txt": 221, "webs/BP3_171/171_node_attr_list.txt": 686,
        "webs/Balsam lake_59/59_edge_list.txt": 1333, "webs/Balsam lake_59/59_node_attr_list.txt": 1996,
        "webs/Beaver lake_60/60_edge_list.txt": 1397, "webs/Beaver lake_60/60_node_attr_list.txt": 2224,
        "webs/Brandy lake_62/62_edge_list.txt": 581, "webs/Brandy lake_62/62_node_attr_list.txt": 1224,
        "webs/Bridge brook lake_63/63_edge_list.txt": 3024,
        "webs/Bridge brook lake_63/63_node_attr_list.txt": 2890, "webs/CR1P3_177/177_edge_list.txt": 1464,
        "webs/CR1P3_177/177_node_attr_list.txt": 1570, "webs/CR2P1_179/179_edge_list.txt": 1927,
        "webs/CR2P1_179/179_node_attr_list.txt": 1780, "webs/CR2P2_180/180_edge_list.txt": 1987,
        "webs/CR2P2_180/180_node_attr_list.txt": 1967, "webs/Caribbean Reef_148/148_edge_list.txt": 21438,
        "webs/Caribbean Reef_148/148_node_attr_list.txt": 10966,
        "webs/Duddon Pike Beck_122/122_edge_list.txt": 953,
        "webs/Duddon Pike Beck_122/122_node_attr_list.txt": 1398,
        "webs/Dutch Microfauna food web PlotA_135/135_edge_list.txt": 4634,
        "webs/Dutch Microfauna food web PlotA_135/135_node_attr_list.txt": 3584,
        "webs/Emerald lake_73/73_edge_list.txt": 253, "webs/Emerald lake_73/73_node_attr_list.txt": 701,
        "webs/F1P4_186/186_edge_list.txt": 1612, "webs/F1P4_186/186_node_attr_list.txt": 1821,
        "webs/F2P4_190/190_edge_list.txt": 1336, "webs/F2P4_190/190_node_attr_list.txt": 1821,
        "webs/FXAP2_193/193_edge_list.txt": 1817, "webs/FXAP2_193/193_node_attr_list.txt": 1617,
        "webs/FXAP3_194/194_edge_list.txt": 1317, "webs/FXAP3_194/194_node_attr_list.txt": 1182,
        "webs/FXAP4_195/195_edge_list.txt": 664, "webs/FXAP4_195/195_node_attr_list.txt": 891,
        "webs/Fawn lake_75/75_edge_list.txt": 592, "webs/Fawn lake_75/75_node_attr_list.txt": 1314,
        "webs/FloridaIslandE9_153/153_edge_list.txt": 1560,
        "webs/FloridaIslandE9_153/153_node_attr_list.txt": 2657, "webs/GJAP2_201/201_edge_list.txt": 714,
        "webs/GJAP2_201/201_node_attr_list.txt": 1133, "webs/GJBP2_205/205_edge_list.txt": 1234,
        "webs/GJBP2_205/205_node_attr_list.txt": 1250, "webs/Goose lake_77/77_edge_list.txt": 463,
        "webs/Goose lake_77/77_node_attr_list.txt": 1624,
        "webs/Grand Caricaie Clmown1_0/0_edge_list.txt": 14411,
        "webs/Grand Caricaie Clmown1_0/0_node_attr_list.txt": 7881,
        "webs/Grand Caricaie Scmown2_5/5_edge_list.txt": 8589,
        "webs/Grand Caricaie Scmown2_5/5_node_attr_list.txt": 5882, "webs/HEW11_32/32_edge_list.txt": 11322,
        "webs/HEW11_32/32_node_attr_list.txt": 5819, "webs/HEW13_34/34_edge_list.txt": 12772,
        "webs/HEW13_34/34_node_attr_list.txt": 6344,
        "webs/Iceland stream IS7 August 2008_145/145_edge_list.txt": 3328,
        "webs/Iceland stream IS7 August 2008_145/145_node_attr_list.txt": 2800,
        "webs/L2P2_213/213_edge_list.txt": 2492, "webs/L2P2_213/213_node_attr_list.txt": 2042,
        "webs/L3P2_217/217_edge_list.txt": 473, "webs/L3P2_217/217_node_attr_list.txt": 932,
        "webs/Little Rainbow Lake_86/86_edge_list.txt": 1272,
        "webs/Little Rainbow Lake_86/86_node_attr_list.txt": 2058,
        "webs/Loddon Stream_139/139_edge_list.txt": 14909,
        "webs/Loddon Stream_139/139_node_attr_list.txt": 3907, "webs/Loon Lake_88/88_edge_list.txt": 575,
        "webs/Loon Lake_88/88_node_attr_list.txt": 1442, "webs/Mosendale Beck_125/125_edge_list.txt": 379,
        "webs/Mosendale Beck_125/125_node_attr_list.txt": 990, "webs/PC2P1_232/232_edge_list.txt": 343,
        "webs/PC2P1_232/232_node_attr_list.txt": 730, "webs/PC2P5_236/236_edge_list.txt": 114,
        "webs/PC2P5_236/236_node_attr_list.txt": 482, "webs/PGSBP1_237/237_edge_list.txt": 187,
        "webs/PGSBP1_237/237_node_attr_list.txt": 607, "webs/PGUBP3_241/241_edge_list.txt": 313,
        "webs/PGUBP3_241/241_node_attr_list.txt": 787, "webs/PGUBP4_242/242_edge_list.txt": 243,
        "webs/PGUBP4_242/242_node_attr_list.txt": 608, "webs/PP2I4_250/250_edge_list.txt": 281,
        "webs/PP2I4_250/250_node_attr_list.txt": 732, "webs/Razorback Lake_95/95_edge_list.txt": 883,
        "webs/Razorback Lake_95/95_node_attr_list.txt": 1649, "webs/Russian Lake_97/97_edge_list.txt": 285,
        "webs/Russian Lake_97/97_node_attr_list.txt": 1042, "webs/SEW01_41/41_edge_list.txt": 7030,
        "webs/SEW01_41/41_node_attr_list.txt": 4593, "webs/SEW08_48/48_edge_list.txt": 10965,
        "webs/SEW08_48/48_node_attr_list.txt": 5206, "webs/SF1I3_270/270_edge_list.txt": 508,
        "webs/SF1I3_270/270_node_attr_list.txt": 933, "webs/SF2M1_280/280_edge_list.txt": 138,
        "webs/SF2M1_280/280_node_attr_list.txt": 540, "webs/SF2M2_281/281_edge_list.txt": 111,
        "webs/SF2M2_281/281_node_attr_list.txt": 564, "webs/Sutton Stream_164/164_edge_list.txt": 2239,
        "webs/Sutton Stream_164/164_node_attr_list.txt": 3864,
        "webs/Test Stream_141/141_edge_list.txt": 19538, "webs/Test Stream_141/141_node_attr_list.txt": 4526,
        "webs/WP1_285/285_edge_list.txt": 1936, "webs/WP1_285/285_node_attr_list.txt": 1226,
        "webs/Ythan Estuary_8/8_edge_list.txt": 2354, "webs/Ythan Estuary_8/8_node_attr_list.txt": 4201,
        "webs/Zackenberg_133/133_edge_list.txt": 181, "webs/Zackenberg_133/133_node_attr_list.txt": 772,
    },
    "ppi_benchmark_partial": {
        "test_graph_id.npy": 44320, "train_graph_id.npy": 359376, "valid_feats.npy": 2605728,
        "valid_graph_id.npy": 52240,
    },
    "ppi_node2vec_biogrid_human": {
        "node2vec_PPI.edgelist": 1413096, "node2vec_PPI_labels.txt": 38593,
    },
    "ppi_tissue_brain_ohmnet": {
        "brain.hierarchy": 482, "brain.list": 331, "edgelists/cerebellum.edgelist": 406742,
        "edgelists/frontal_lobe.edgelist": 254694, "edgelists/medulla_oblongata.edgelist": 233503,
        "edgelists/midbrain.edgelist": 328950, "edgelists/occipital_lobe.edgelist": 235258,
        "edgelists/parietal_lobe.edgelist": 69719, "edgelists/pons.edgelist": 78954,
        "edgelists/substantia_nigra.edgelist": 328837, "edgelists/temporal_lobe.edgelist": 398008,
    },
    "ppi_yeast_bu2003": {
        "Yeast.clu": 7877, "Yeast.paj": 124998, "YeastL.net": 205150, "YeastS.net": 114032,
    },
    "string_shs27k": {
        "protein.SHS27k.sequences.dictionary.tsv": 1002278, "protein.actions.SHS27k.STRING.txt": 3958672,
        "vec5_CTC.txt": 2335,
    },
    "string_web_export_sample": {
        "string_interactions.tsv": 2240,
    },
}


_DHHNN = ("HaoWuLab-Bioinformatics/DHHNN", "01757db0eb72b8d4ffeabeb9d8a66f4e4a2ce54c")
_NETS = ("bavla/Nets", "7ec138b740b86f4455687eabfc51ba949b5346cf")
_OHMNET = ("mims-harvard/ohmnet", "9622df51f7ad63b384014f1124fcf604b505c799")
_GNNPPI = ("lvguofeng/GNN_PPI", "f47dfd1f5f43b1d8c0777e53f111be99a567d0f3")
_ICIBM = ("gtg269c/network_analysis_icibm2016", "a093360adde75c9041c1a990762a8c369aa3700d")
_CHEDDAR = ("quicklizard99/cheddar", "c2fea5ff5b22e95d46d5c63baffe4b2301b80ad2")
_GATEWAY = ("lucyvk/food_web_link_prediction", "85645df5bf94be7006b57bd02845e36d2bc742db")

#: PyG's copy of the GraphSAGE PPI benchmark (no published sha256).
PPI_ZIP_URL = "https://data.pyg.org/datasets/ppi.zip"
PPI_RAW_FILES = tuple(f"{s}_{k}" for s in ("train", "valid", "test")
                      for k in ("graph.json", "feats.npy", "graph_id.npy", "labels.npy"))

PAJEK_WEBS = ("baydry", "baywet", "gramdry", "gramwet", "mangdry", "mangwet", "cypdry", "cypwet", "Chesapeake",
              "ChesLower", "ChesMiddle", "ChesUpper", "StMarks", "CrystalC", "CrystalD", "Michigan", "Mondego",
              "Narragan", "Maspalomas")
CHEDDAR_WEBS = ("Benguela", "BroadstoneStream", "ChesapeakeBay", "Millstream/c4", "Millstream/d4", "SkipwithPond",
                "TL84", "TL86", "YthanEstuary", "pHWebs/Afon_Hafren", "pHWebs/Allt_a_Mharcaidh", "pHWebs/Bere_Stream",
                "pHWebs/Broadstone", "pHWebs/Dargall_Lane", "pHWebs/Duddon_Pike_Beck", "pHWebs/Hardknott_Gill",
                "pHWebs/Mill_Stream", "pHWebs/Mosedal_Beck", "pHWebs/Old_Lodge")
TISSUES = ("cerebellum", "frontal_lobe", "medulla_oblongata", "midbrain", "occipital_lobe", "parietal_lobe", "pons",
           "substantia_nigra", "temporal_lobe")
GATEWAY_WEBS = tuple(sorted({p.split("/")[1] for p in CHECKSUMS["gateway_dev"] if p.startswith("webs/")},
                            key=lambda d: int(d.rsplit("_", 1)[1])))


def _gateway_url(p: str) -> str | None:
    if p.startswith("webs/"):
        return _raw(*_GATEWAY, "Real_Networks/Input_Data_Disaggregated_Lifestage/" + p[len("webs/"):])
    return None  # web_index.csv / metadata tables were assembled for this benchmark subset: place by hand


def _cheddar_url(p: str) -> str | None:
    if p.startswith("original_RData/"):
        return _raw(*_CHEDDAR, "data/" + p[len("original_RData/"):])
    return None


def _cheddar_source(p: str) -> str | None:
    """The RData file a cheddar CSV file is converted from (``Benguela/nodes.csv``, ``pHWebs/Broadstone/...`` ->
    ``original_RData/Benguela.RData``, ``original_RData/pHWebs.RData``; gatbio.data.cheddar): every CSV file was
    checked to come out of it byte for byte (tests/data/test_cheddar.py)."""
    if p.startswith("original_RData/"):
        return None
    return f"original_RData/{p.split('/', 1)[0]}.RData"


DATASETS: dict[str, DatasetInfo] = {d.name: d for d in [
    DatasetInfo(
        "node2vec-ppi", "ppi_node2vec_biogrid_human", "ppi",
        "Human BioGRID PPI with 50 MSigDB hallmark labels (node2vec 'PPI')",
        "Grover & Leskovec (2016) node2vec, KDD; BioGRID (Breitkreutz et al. 2008); MSigDB (Liberzon et al. 2011)",
        "not stated (BioGRID MIT; MSigDB hallmark CC BY 4.0)", "undirected",
        "3,890", "38,739 pairs (76,584 directed entries, 894 self-loops)", "50 (multi-label)",
        _files("ppi_node2vec_biogrid_human", lambda p: _raw(*_DHHNN, "data/node2vec_PPI/" + p)), doc="node2vec-ppi"),
    DatasetInfo(
        "yeast-bu2003", "ppi_yeast_bu2003", "ppi",
        "Budding-yeast PPI with 13 functional classes (Pajek 'Yeast')",
        "Bu et al. (2003) Nucleic Acids Res. 31(9):2443-2450; Batagelj & Mrvar (2003) Pajek data sets",
        "CC BY-NC-SA 2.5 (non-commercial)", "undirected",
        "2,361", "7,182 (536 self-loops)", "12 classes + U (unlabelled)",
        _files("ppi_yeast_bu2003", lambda p: _raw(*_NETS, "data/Pajek/bio/Yeast/Yeast.zip"), lambda p: p),
        doc="yeast-bu2003"),
    DatasetInfo(
        "ppi-tissues", "ppi_tissue_brain_ohmnet", "ppi",
        "Nine brain-tissue PPI networks (OhmNet)",
        "Zitnik & Leskovec (2017) Bioinformatics 33(14):i190-i198",
        "MIT (repository)", "undirected",
        "2,716 genes (754-2,608 per tissue)", "225,000 pairs in 9 graphs", "none",
        _files("ppi_tissue_brain_ohmnet", lambda p: _raw(*_OHMNET, "data/" + p)), doc="ppi-tissues"),
    DatasetInfo(
        "shs27k", "string_shs27k", "ppi",
        "SHS27k: STRING protein.actions subset with 7 interaction modes",
        "Chen et al. (2019) Bioinformatics 35(14):i305 (PIPR); Lv et al. (2021) IJCAI (GNN-PPI); STRING v11",
        "MIT (repository); STRING CC BY 4.0", "undirected (per-row direction flags)",
        "1,690", "7,624 pairs", "7 interaction modes per pair (multi-label)",
        _files("string_shs27k", lambda p: _raw(*_GNNPPI, "data/" + p)), doc="shs27k"),
    DatasetInfo(
        "string-web-sample", "string_web_export_sample", "ppi",
        "Tiny STRING web export (loader fixture)",
        "Szklarczyk et al. (2015) STRING v10, Nucleic Acids Res. 43:D447",
        "not stated (STRING CC BY 4.0 today)", "undirected",
        "12", "19", "none",
        _files("string_web_export_sample", lambda p: _raw(*_ICIBM, p)), doc="string-web-sample"),
    DatasetInfo(
        "ppi", "ppi_benchmark", "ppi",
        "PPI benchmark, 24 graphs, 121 GO labels (PyG raw layout; not in the shared folder)",
        "Hamilton, Ying & Leskovec (2017) NeurIPS; Zitnik & Leskovec (2017)",
        "not stated", "undirected",
        "56,944 (24 graphs)", "~818k", "121 (multi-label)",
        tuple(FileSource("raw/" + f, PPI_ZIP_URL, None, f) for f in PPI_RAW_FILES), doc="ppi"),
    DatasetInfo(
        "ppi-partial", "ppi_benchmark_partial", "ppi",
        "Pieces of the PPI benchmark: graph ids of all splits + valid features (no edges, no labels)",
        "Hamilton, Ying & Leskovec (2017) NeurIPS; Zitnik & Leskovec (2017)",
        "not stated", "undirected",
        "56,944 (24 graphs)", "0 (not available)", "none",
        _files("ppi_benchmark_partial", lambda p: _raw(*_DHHNN, "data/PPI/raw/" + p)), doc="ppi"),
    DatasetInfo(
        "gateway", "gateway_dev", "foodweb",
        "57 GATEWAy food webs with traits (Van Kleunen et al. 2026 benchmark subset)",
        "Brose (2018) GATEWAy v3, doi:10.25829/idiv.283-3-756; Brose et al. (2019) Nat Ecol Evol 3:919; "
        "Van Kleunen et al. (2026) Nat Commun 17:2298",
        "not stated (iDiv data portal terms)", "prey -> predator",
        "12-247 per web", "file order defines the 5 folds", "traits: met_*, mov_*, log_mass, mass_missing",
        _files("gateway_dev", _gateway_url), members=GATEWAY_WEBS, doc="gateway"),
    DatasetInfo(
        "cheddar", "foodwebs_cheddar", "foodweb",
        "19 binary food webs from the R package cheddar (CSV export)",
        "Hudson et al. (2013) Methods Ecol Evol 4(1):99-104, and the per-web papers (datasets/cheddar.md)",
        "BSD-2-Clause (cheddar)", "prey -> predator (resource -> consumer)",
        "21-92 per web", "73-1,654 per web", "traits: category one-hot, log10 M, log10 N (+ missing flags)",
        _files("foodwebs_cheddar", _cheddar_url, source_of=_cheddar_source), members=CHEDDAR_WEBS, doc="cheddar"),
    DatasetInfo(
        "pajek", "foodwebs_ulanowicz_pajek", "foodweb",
        "19 weighted carbon-flow food webs (Ulanowicz / ATLSS; Pajek)",
        "Batagelj & Mrvar (2003) Pajek data sets; Ulanowicz et al. (1998-2000) CBL reports; per-web papers",
        "CC BY-NC-SA 2.5 (non-commercial)", "prey -> predator (donor -> recipient)",
        "21-125 living + non-living compartments", "33-1,830 feeding arcs", "traits: log10 biomass, living",
        _files("foodwebs_ulanowicz_pajek", lambda p: _raw(*_NETS, "data/Pajek/bio/FoodWeb/" + p)),
        members=PAJEK_WEBS, doc="pajek"),
]}


def dataset_path(name: str, relpath: str = "", *, root: str | Path | None = None) -> Path:
    """Path of a dataset folder (or of a file in it) under the data root."""
    info = DATASETS[name]
    base = Path(root) if root is not None else data_root()
    return base / info.folder / relpath if relpath else base / info.folder


def _member_names(collection: str) -> tuple[str, list[str], str]:
    """``(kind, names, listing)`` of a collection's members for messages: what a member is called, every name it
    may be given as (GATEWAy: its id or its folder) and where to list them."""
    info = DATASETS[collection]
    if collection == "gateway":
        ids = sorted(int(w.rsplit("_", 1)[1]) for w in info.members)
        return ("GATEWAy web", [str(i) for i in ids] + list(info.members),
                f"{len(ids)} webs with ids {ids[0]}..{ids[-1]}: gatbio datasets --members gateway")
    kind = {"cheddar": "cheddar web", "pajek": "Pajek food web"}.get(collection, f"{collection} web")
    return kind, list(info.members), f"gatbio datasets --members {collection}"


def match_case(kind: str, name: str, choices: list[str], *, prefix: str = "", listing: str = "") -> str:
    """The one of ``choices`` that ``name`` names: itself when it is one (exact names first), else the only choice
    equal to it ignoring case (``SHS27K`` -> ``shs27k``, ``cheddar/tl84`` -> ``TL84``).

    Raises:
        UnknownDatasetError: several choices equal to ``name`` ignoring case (ambiguous: all named), or none
            (:func:`unknown_name`, with the closest names).
    """
    if name in choices:
        return name
    same = [c for c in dict.fromkeys(choices) if c.casefold() == name.casefold()]
    if len(same) == 1:
        return same[0]
    if same:
        raise UnknownDatasetError(f"{kind} {prefix + name!r} is ambiguous: {len(same)} names differ from it only by "
                                  f"case; did you mean {' or '.join(prefix + c for c in same)}? (give one exactly)")
    raise unknown_name(kind, name, choices, prefix=prefix, listing=listing)


def registry_spelling(name: str) -> str:
    """``name`` as the registry spells it (:func:`resolve_name`), or as given when it is no dataset name (the
    caller refuses it with its own message)."""
    try:
        return resolve_name(name)
    except UnknownDatasetError:
        return name


def refuse_same_names(given: Sequence[str], spelt: Sequence[str], key: str) -> None:
    """A ``ValueError`` naming config ``key`` when two of ``given`` are one dataset once spelt (``spelt``, as
    :func:`resolve_name` gives them): a config's ``unique`` rule saw them as written, ``cheddar/tl84`` and
    ``cheddar/TL84`` as two webs."""
    for i, name in enumerate(spelt):
        if name in spelt[:i]:
            raise ValueError(f"config {key}: {given[spelt.index(name)]!r} and {given[i]!r} are the same web "
                             f"({name}); give each web once")


def resolve_name(name: str) -> str:
    """The registry's spelling of a dataset name as :func:`gatbio.data.load` and ``gatbio datasets`` take it.

    One rule for every part of a name, a dataset (``shs27k``), a collection (``pajek``) and a collection's web
    (``pajek/baydry``, ``cheddar/pHWebs/Broadstone``, ``gateway/11`` or ``gateway/AEW03_11``): the exact name is
    taken when it exists, else the one name it equals ignoring case (``SHS27K``, ``Pajek/BayDry``,
    ``cheddar/phwebs/broadstone``). A Pajek web may end in ``.paj``. A collection alone (``gateway``) is returned
    as such (loading it is refused, naming one of its webs).

    Raises:
        UnknownDatasetError: an unknown name, or one that equals several names ignoring case: one line with the
            closest names ("did you mean ...?").
    """
    base, sep, member = name.partition("/")
    short = [info.name + ("/<web>" if info.is_collection else "") for info in DATASETS.values()]
    every = [f"{info.name}/{m}" for info in DATASETS.values() for m in info.members] + short
    try:
        base = match_case("dataset", base, list(DATASETS), listing=", ".join(short))
    except UnknownDatasetError:
        if not sep or base.casefold() in {n.casefold() for n in DATASETS}:  # an ambiguous name: said as such
            raise
        import difflib

        folded = {n.casefold(): n for n in DATASETS if DATASETS[n].is_collection}
        webs = []  # 'gatewy/11': the web of the collection spelt so (difflib on full names finds other webs)
        for c in difflib.get_close_matches(base.casefold(), list(folded), n=2, cutoff=0.75):
            try:
                webs.append(resolve_name(f"{folded[c]}/{member}"))
            except UnknownDatasetError:
                pass
        if webs:
            raise UnknownDatasetError(f"unknown dataset {name!r}; did you mean {' or '.join(webs)}? "
                                      f"(known: {', '.join(short)})") from None
        raise unknown_name("dataset", name, every, listing=", ".join(short)) from None
    if not sep:
        return base
    if not DATASETS[base].is_collection:
        raise unknown_name("dataset", name, every, listing=", ".join(short))
    if base == "pajek" and member.casefold().endswith(".paj"):  # the file's name
        member = member[:-4]
    kind, names, listing = _member_names(base)
    return f"{base}/{match_case(kind, member, names, prefix=base + '/', listing=listing)}"


def sha256_file(path: str | Path, chunk: int = 1 << 20) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(chunk):
            h.update(block)
    return h.hexdigest()


def _atomic_write(path: Path, data: bytes) -> None:
    # Same pattern as gatbio.results.atomic_write_bytes, without fsync-heavy text handling for large files.
    from gatbio.results import atomic_write_bytes

    atomic_write_bytes(path, data)


def _incomplete(url: str, err: http.client.IncompleteRead) -> str:
    """One line for a reply cut short: how many bytes came of how many."""
    got = len(err.partial or b"")
    total = f" of {got + err.expected:,}" if isinstance(err.expected, int) else ""
    return f"download incomplete: {url} sent {got:,}{total} bytes before the connection closed; run it again"


DEFAULT_TIMEOUT = 60.0
"""Seconds a download waits for the server to answer or send more data (``GATBIO_TIMEOUT`` overrides it)."""


def download_timeout() -> float:
    """``$GATBIO_TIMEOUT`` in seconds (a positive number), else :data:`DEFAULT_TIMEOUT`.

    Raises:
        ValueError: the variable is set to something else (one line naming it and the accepted form).
    """
    text = os.environ.get("GATBIO_TIMEOUT", "").strip()
    if not text:
        return DEFAULT_TIMEOUT
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not value > 0 or value == float("inf"):
        raise ValueError(f"GATBIO_TIMEOUT={text}: give the seconds a download may wait for the server, a positive "
                         f"number such as 300 (default {DEFAULT_TIMEOUT:g})")
    return value


def _show_progress(progress: bool | None) -> bool:
    """``progress`` as given, or (None) whether stderr is a terminal: logs and tests get no bars."""
    return sys.stderr.isatty() if progress is None else progress


_BAR_DELAY = 1.0  # seconds before a byte bar appears: small files show none
_BLOCK = 1 << 20  # read the body a MiB at a time, so that the bar moves and a stall is seen within the timeout


def _request_url(url: str) -> str:
    """``url`` as sent: a character that a request line cannot hold percent-encoded (a space, non-ASCII text:
    the registry's URLs are written as their upstream paths read, and 22 GATEWAy web folders have a space,
    ``Balsam lake_59``, which ``urllib`` refuses to send); what is already a URL (``%20``, ``?``, ``:``) is kept.
    A server, and a ``file://`` mirror folder, decodes it back to the path. Only the path and the query are
    quoted (the host is sent as given: a non-ASCII one is encoded by ``urllib`` itself), and a ``%`` that starts no
    escape (``50%off``) is sent as ``%25``."""
    def quote(text: str, safe: str) -> str:
        return urllib.parse.quote(re.sub(r"%(?![0-9A-Fa-f]{2})", "%25", text), safe=safe + "%")

    parts = urllib.parse.urlsplit(url)
    return urllib.parse.urlunsplit(parts._replace(path=quote(parts.path, "/:@!$&'()*+,;=~"),
                                                  query=quote(parts.query, "/:@!$&'()*+,;=~?")))


def fetch_url(url: str, *, timeout: float | None = None, progress: bool | None = None) -> bytes:
    """GET ``url`` (:func:`_request_url`: a space in it sent as ``%20``), the whole body in memory.

    ``timeout``: seconds to wait for the server to answer or to send the next block (default
    :func:`download_timeout`). ``progress``: a byte bar on stderr (default: when stderr is a terminal); it
    appears after a second, so small files show none.

    Raises ``urllib.error.URLError`` / ``OSError`` (``TimeoutError`` for a silent server) when offline or the
    server fails, and ``urllib.error.ContentTooShortError`` (a ``URLError``) when the reply is shorter than its
    ``Content-Length`` (a download cut short); nothing is returned (nor written) then.
    """
    from tqdm.auto import tqdm

    req = urllib.request.Request(_request_url(url), headers={"User-Agent": "gatbio"})
    timeout = download_timeout() if timeout is None else timeout
    got = bytearray()
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            length = resp.headers.get("Content-Length")
            total = int(length) if length and length.isdigit() else None
            with tqdm(total=total, desc=url.rsplit("/", 1)[-1][:40], unit="B", unit_scale=True, unit_divisor=1024,
                      leave=False, delay=_BAR_DELAY, disable=not _show_progress(progress)) as bar:
                while block := resp.read(_BLOCK):
                    got += block
                    bar.update(len(block))
    except http.client.IncompleteRead as err:
        raise urllib.error.ContentTooShortError(_incomplete(url, err), err.partial) from err
    if total is not None and len(got) < total:  # read in blocks, a body cut short is not raised by http.client
        raise urllib.error.ContentTooShortError(_incomplete(url, http.client.IncompleteRead(bytes(got),
                                                                                            total - len(got))),
                                                bytes(got))
    return bytes(got)


def _failure(url: str, err: BaseException, timeout: float | None = None) -> str:
    """The reason of a failed download, one line naming the URL that was fetched (``timeout``: the seconds it
    waited, default :func:`download_timeout`)."""
    if isinstance(err, http.client.IncompleteRead):
        return _incomplete(url, err)
    if isinstance(err, urllib.error.ContentTooShortError):
        return str(err.reason)
    if isinstance(err, urllib.error.HTTPError):
        return f"download failed: {url}: HTTP {err.code} {err.reason}"
    if isinstance(err, TimeoutError) or isinstance(getattr(err, "reason", None), TimeoutError):
        return (f"download failed: {url}: the server sent nothing for {timeout or download_timeout():g} s; run it again, or "
                "set GATBIO_TIMEOUT=SECONDS to wait longer")
    if isinstance(err, urllib.error.URLError):
        return f"download failed: {url}: {err.reason}"
    if isinstance(err, zipfile.BadZipFile):
        return f"download failed: {url} is not a readable ZIP archive ({err})"
    return f"download failed: {url}: {err or type(err).__name__}"


def in_the_way(path: Path, root: Path) -> str | None:
    """What stands where a dataset file ``path`` (under ``root``) should be, or None: a folder, a broken symbolic
    link, or a file where one of its folders should be (such a file is 'missing' and cannot be written)."""
    if path.is_dir():
        return f"{path} is a folder, not the file: remove it"
    if path.is_symlink() and not path.exists():
        return f"{path} is a symbolic link to nothing: remove it"
    for parent in path.parents:
        if parent == root or root not in parent.parents:
            break
        if parent.exists() and not parent.is_dir():
            return f"{parent} is a file where a folder should be: remove or rename it"
    return None


def _given_root(root: str | Path, option: str | None) -> bool:
    """Whether ``root`` was given (``option``, or a root other than the one :func:`data_root` finds): a command
    that should fetch into it must then name it."""
    return bool(option) or Path(root).expanduser() != data_root()


def download_command(name: str, root: str | Path, option: str | None = None) -> str:
    """The ``gatbio datasets --download`` command that fetches dataset (or web) ``name`` into ``root``, ready to
    paste in a shell: the name quoted when it must be (``'gateway/Balsam lake_59'``), ``--root`` when the root is
    not the one found by default (``option``: where it came from, e.g. ``"--root"``)."""
    import shlex

    cmd = f"gatbio datasets --download {shlex.quote(name)}"
    return f"{cmd} --root {shlex.quote(str(root))}" if _given_root(root, option) else cmd


def fetch_hint(name: str, root: str | Path, option: str | None = None, what: str = "the files that have a "
               "public URL") -> str:
    """How to fetch dataset ``name`` into ``root``: the ``gatbio datasets --download`` command a command-line
    user runs (:func:`download_command`) and the Python call, both naming ``root`` when it is not the one found by
    default (``option``: where it came from, e.g. ``"--root"``). ``gatbio datasets --download pajek fetches the
    files that have a public URL (in Python: gatbio.data.download('pajek'))``; ``what``: what is fetched, in place
    of the default."""
    call = f"gatbio.data.download({name!r}"
    if _given_root(root, option):
        call = f"{call}, root={str(root)!r}"
    return f"{download_command(name, root, option)} fetches {what} (in Python: {call}))"


def elsewhere_hint(root: str | Path, option: str | None = None, what: str = "it") -> str:
    """The other way out when the data are not under ``root``: a root that has them, named as the root was
    given (``option`` such as ``"--root"``; ``GATBIO_DATA`` when that variable names the root or when the root is
    the default, which that variable changes; else a data root given in Python or a config)."""
    label = root_label(root, option)
    if option:
        return f"or give {option} a folder that has {what}"
    if label.startswith("GATBIO_DATA=") or not _given_root(root, option):
        return f"or set GATBIO_DATA to a folder that has {what}"
    return f"or give a data root that has {what}"


def missing_message(name: str, missing: list[FileSource], root: Path, reason: str = "",
                    option: str | None = None) -> str:
    """The message for files of dataset ``name`` missing under ``root``: where to put each one (and its URL),
    a root one level off, and the other root to use (:func:`elsewhere_hint`; ``option``: where ``root`` came
    from, e.g. ``"--root"``)."""
    info = DATASETS[name]
    folder = root / info.folder
    lines = [f"dataset {name!r}: {len(missing)} file(s) missing under {folder}"
             + (f" ({reason})" if reason else "") + ":"]
    for f in missing[:5]:
        if f.derived_from:
            src = f" (converted from {f.derived_from}, from {f.url})"
        elif f.url:
            src = f" (from {f.url}{' member ' + f.member if f.member else ''})"
        else:
            src = " (no public URL: place it by hand)"
        way = in_the_way(folder / f.path, root)
        lines.append(f"  put {f.path} at {folder / f.path}{src}" + (f"; {way}" if way else ""))
    if len(missing) > 5:
        lines.append(f"  ... and {len(missing) - 5} more (see datasets/{info.doc}.md)")
    top = info.folder.split("/")[0]
    if root.name == top and not (root / top).exists():
        lines.append(f"the data root {root} looks like the dataset's own folder: the root is the folder above it "
                     f"({root.parent})")
    else:
        deeper = [p for p in (sorted(root.glob(f"*/{top}"))[:1] if root.is_dir() else []) if p.is_dir()]
        if deeper and not (root / top).exists():
            lines.append(f"{deeper[0]} exists: the data root may be one level down ({deeper[0].parent})")
    lines.append(elsewhere_hint(root, option))
    return "\n".join(lines)


def missing_files(name: str, *, root: str | Path | None = None) -> list[FileSource]:
    info = DATASETS[name]
    base = Path(root) if root is not None else data_root()
    return [f for f in info.files if not (base / info.folder / f.path).is_file()]


def wanted_files(name: str, *, root: str | Path | None = None) -> list[FileSource]:
    """:func:`missing_files` but a file others are made from (cheddar's RData) whose files made from it are all
    present: a collection downloaded web by web converts the RData in memory and keeps only the CSV files, which
    is complete (``gatbio datasets`` lists it as present, and a download of the collection fetches nothing)."""
    info = DATASETS[name]
    missing = missing_files(name, root=root)
    gone = {f.path for f in missing}
    made_from = {f.derived_from for f in info.files if f.derived_from is not None}
    return [f for f in missing if f.path not in made_from or
            any(d.derived_from == f.path and d.path in gone for d in info.files)]


def mirror_base(mirror: str | None = None) -> str | None:
    """The base URL of ``mirror`` (or ``$GATBIO_MIRROR``; ``None`` when neither is set): a URL as given, or an
    existing folder as a ``file://`` URL (``/srv/mirror`` -> ``file:///srv/mirror``).

    Raises:
        ValueError: neither a URL nor an existing folder (one line naming the setting and the accepted forms).
    """
    what = "mirror"
    if not mirror:
        mirror, what = os.environ.get("GATBIO_MIRROR"), "GATBIO_MIRROR="
        if not mirror:
            return None
    if "://" in mirror:
        return mirror.rstrip("/")
    folder = Path(mirror).expanduser()
    if folder.is_dir():
        return folder.resolve().as_uri()
    shown = f"{what}{mirror}" if what.endswith("=") else f"{what} {mirror!r}"
    why = "is a file" if folder.exists() else "is not a URL nor an existing folder"
    raise ValueError(f"{shown}: {why}; give a URL such as http://host:8000 or file:///path/to/mirror, or a folder "
                     "that holds raw.githubusercontent.com/... as the URLs do")


def mirrored(url: str, mirror: str | None = None) -> str:
    """``url`` as fetched through ``mirror`` (or ``$GATBIO_MIRROR``; none: ``url`` itself): the mirror's base URL
    replaces the scheme, so ``https://raw.githubusercontent.com/a/b/c`` becomes
    ``http://localhost:8000/raw.githubusercontent.com/a/b/c`` (an institutional mirror, or a test server). A plain
    folder is a ``file://`` mirror (:func:`mirror_base`)."""
    base = mirror_base(mirror)
    return base + "/" + url.split("://", 1)[1] if base else url


def member_files(name: str, *, shared: bool = True) -> list[str]:
    """The registry paths of one member of a collection, named as :func:`gatbio.data.load` names it
    (``gateway/11`` or ``gateway/AEW03_11``, ``cheddar/TL84``, ``pajek/baydry``): the files ``load`` reads for
    that name, in any case (:func:`resolve_name`). ``shared=False``: the web's own files only, without the
    collection's files that every web's ``load`` reads (GATEWAy's index tables ``web_index.csv``,
    ``node_ids.csv`` and ``food_web_metadata.csv``, which have no public URL; the benchmark reads the web folders
    alone). An unknown member: the error that ``load`` gives (with the closest names)."""
    collection, member = resolve_name(name).split("/", 1)
    info = DATASETS[collection]
    if collection == "gateway":  # a web folder, and the index files that name its species (load reads them)
        from gatbio.data.foodweb import gateway_web_folder

        prefix = f"webs/{gateway_web_folder(member)}/"
        return [f.path for f in info.files if f.path.startswith(prefix) or (shared and "/" not in f.path)]
    return [f.path for f in info.files if f.path.startswith(member + "/") or f.path.rsplit(".", 1)[0] == member]


def dataset_files(name: str) -> tuple[str, list[str]]:
    """What a name of ``gatbio datasets --download/--verify`` and :func:`download` covers: ``(dataset, registry
    paths)``, every file of a dataset or whole collection (``shs27k``, ``pajek``), or one web's files
    (``pajek/baydry``, ``gateway/11``: :func:`member_files`). ``name`` in any case (:func:`resolve_name`)."""
    name = resolve_name(name)
    if "/" in name:
        return name.split("/", 1)[0], member_files(name)
    return name, [f.path for f in DATASETS[name].files]


def _check_writable_folders(name: str, root: Path, paths: list[Path]) -> None:
    """The folders ``paths`` go into (or their nearest existing ancestors) take new files: a dataset folder under
    a writable root may not (a shared root whose dataset folders belong to someone else). Found before any
    download, one line naming the folder, instead of an OS error on a temporary file once a file arrived.

    Raises:
        DataRootError: a folder gatbio cannot create files in.
    """
    from gatbio._paths import folder_problem

    nearest = []
    for p in paths:
        folder = p.parent
        while not folder.exists() and folder != root and folder != folder.parent:
            folder = folder.parent
        nearest.append(folder)
    for folder in dict.fromkeys(nearest):
        if folder == root:  # checked with the root
            continue
        problem = folder_problem(folder)
        if problem:
            raise DataRootError(f"{root_label(root)}: dataset {name!r}: {problem}; make that folder writable, or "
                                "download into another data root (--root DIR or GATBIO_DATA=DIR)")


def _converter(name: str):
    """The function that makes dataset ``name``'s derived files (``FileSource.derived_from``) from their source's
    bytes, ``{path: bytes}``: cheddar's CSV files from its RData files (:func:`gatbio.data.cheddar.convert_rdata`).
    It needs the optional package ``rdata``: :class:`gatbio.data.cheddar.RDataMissingError` otherwise."""
    from gatbio.data import cheddar

    return cheddar.convert_rdata


def download(
    name: str,
    *,
    root: str | Path | None = None,
    files: list[str] | None = None,
    fetch: Callable[[str], bytes] | None = None,
    verify: bool = True,
    mirror: str | None = None,
    timeout: float | None = None,
    progress: bool | None = None,
) -> list[Path]:
    """Download the missing files of dataset ``name`` into ``<root>/<folder>/`` (default root: :func:`data_root`);
    a collection's member, as :func:`gatbio.data.load` names it (``gateway/11``, ``pajek/baydry``), fetches only
    that web's files (:func:`dataset_files`).

    Each file is fetched from its public URL, its sha256 checked against the registry (a mismatch raises and
    writes nothing), and written atomically. ZIP archives are fetched once per URL and the members extracted.
    A file made from another one (``derived_from``: cheddar's CSV files, converted from the package's RData files
    by :mod:`gatbio.data.cheddar`) is converted from that file, fetched and checked once (or read from the dataset
    folder when it is there and intact), and checked against its own registered sha256 before it is written: the
    same bytes as the shipped file. The conversion needs the optional package ``rdata``: without it,
    :class:`gatbio.data.cheddar.RDataMissingError` (a :class:`DatasetNotFoundError`, one line naming
    ``pip install 'gatbio[cheddar]'``) before anything is fetched.
    Files already present are skipped. Offline, or when a server fails or cuts a download short (a reply shorter
    than its ``Content-Length``), raises :class:`DatasetNotFoundError` naming the URL, the file and where to put
    it; a file is only written once it arrived whole (and its sha256 matched), so nothing half-written is left.

    ``mirror`` (or ``$GATBIO_MIRROR``): a base URL that replaces the scheme of every URL, e.g. with
    ``http://localhost:8000`` the file ``https://raw.githubusercontent.com/a/b/c`` is fetched from
    ``http://localhost:8000/raw.githubusercontent.com/a/b/c`` (an institutional mirror, or a test server); a plain
    folder is taken as a ``file://`` mirror.

    ``fetch``: the function that GETs a URL (default :func:`fetch_url` with ``timeout``, seconds a silent server
    is waited for, default ``$GATBIO_TIMEOUT`` or 60, and ``progress``). ``progress``: bars on stderr, bytes per
    file and files per dataset (default: when stderr is a terminal).

    Before anything is fetched, the root must be a folder gatbio can write to (or one it can create):
    :class:`DataRootError` otherwise.

    Returns the paths written. Files without a public URL: the others are fetched, then
    :class:`DatasetNotFoundError` names them (to place by hand) and says how many were written. One web of a
    collection leaves out, without an error, the collection's shared files that have none (GATEWAy's index
    tables, not the web's own: :func:`member_files` with ``shared=False``); ``gatbio datasets --download`` notes
    them.
    """
    asked = resolve_name(name)  # the rule of gatbio.data.load: exact, else the one name equal ignoring case
    if "/" in asked and files is not None:
        raise ValueError(f"download({asked!r}, files=...): give the collection {asked.split('/')[0]!r} with files=, "
                         f"or the web {asked!r} without it")
    name, paths = dataset_files(asked)
    optional: set[str] = set()  # a web's download does not need them: the collection's shared files
    if "/" in asked:  # one web of a collection
        files, optional = paths, set(paths) - set(member_files(asked, shared=False))
    info = DATASETS[name]
    base = check_data_root(root, must_exist=False)  # a file: refused before anything else
    if files is not None and (unknown := [p for p in files if p not in {f.path for f in info.files}]):
        from gatbio.data.tables import first_few

        raise ValueError(f"files={unknown}: not files of dataset {name!r} ({first_few([f.path for f in info.files], 5)})")
    todo = missing_files(name, root=base) if files is not None else wanted_files(name, root=base)
    todo = [f for f in todo if files is None or f.path in files]
    # Files without a public URL are placed by hand: the others are fetched first (a collection such as gateway
    # has a few index files without one beside a hundred web files with one), then they are named.
    no_url = [f for f in todo if f.url is None and f.path not in optional]
    todo = [f for f in todo if f.url is not None]
    by_path = {f.path: f for f in info.files}
    folder = base / info.folder
    derived = [f for f in todo if f.derived_from is not None]
    convert = None
    if derived:  # before any download: the converter's package, a damaged source file already there
        from gatbio.data.cheddar import require_rdata
        from gatbio.data.tables import first_few

        require_rdata(f"dataset {name!r}: making {first_few([f.path for f in derived], 3)} from "
                      f"{first_few(sorted({f.derived_from for f in derived}), 3)}")
        convert = _converter(name)
    payloads: dict[str, bytes] = {}  # the source files of derived ones, fetched (or read) and checked once
    for src in sorted({f.derived_from for f in derived}):
        present = folder / src
        if present.is_file():  # not fetched again: used when intact
            data = present.read_bytes()
            want = by_path[src].sha256
            if verify and want is not None and hashlib.sha256(data).hexdigest() != want:
                raise ValueError(f"{present}: differs from the registered file (sha256 mismatch), so the files "
                                 f"converted from it were not made; delete it and run the download again")
            payloads[src] = data
    if todo:  # before any download: a mirror that cannot be used, a root that cannot be written
        mirror = mirror_base(mirror)
        check_data_root(base, must_exist=False, writable=True)
        blocked = [way for f in todo if (way := in_the_way(folder / f.path, base))]
        if blocked:  # found now, not as an OS error on the temporary file once fetched
            raise ValueError(f"dataset {name!r}: cannot write {len(blocked)} file(s): {'; '.join(blocked[:3])}")
        _check_writable_folders(name, base, [folder / f.path for f in todo])

    if fetch is None:
        timeout = download_timeout() if timeout is None else timeout
        fetch = functools.partial(fetch_url, timeout=timeout, progress=progress)
    from tqdm.auto import tqdm

    source_paths = {f.derived_from for f in derived}
    archives: dict[str, zipfile.ZipFile] = {}
    converted: dict[str, dict[str, bytes]] = {}

    def fetched(f: FileSource) -> bytes:
        """``f``'s bytes from its URL (a ZIP member extracted), sha256 checked; a source of derived files once."""
        if f.path in payloads:
            return payloads[f.path]
        url = mirrored(f.url, mirror)
        if f.member is not None:
            if f.url not in archives:
                archives[f.url] = zipfile.ZipFile(io.BytesIO(fetch(url)))
            zf = archives[f.url]
            names = [n for n in zf.namelist() if n == f.member or n.endswith("/" + f.member)]
            if not names:
                raise DatasetNotFoundError(f"{f.url}: the archive has no member {f.member!r}")
            payload = zf.read(names[0])
        else:
            payload = fetch(url)
        if verify and f.sha256 is not None:
            got = hashlib.sha256(payload).hexdigest()
            if got != f.sha256:
                via = f" (through the mirror, for {f.url})" if url != f.url else ""
                also = " (nor the files converted from it)" if f.path in source_paths else ""
                fix = ("the mirror's copy differs from the registered file: refresh it, or download without the "
                       "mirror (GATBIO_MIRROR unset, or no mirror= from Python)" if via else
                       "run the download again (a reply altered on the way); if it differs again, place the file "
                       f"by hand (datasets/{info.doc or name}.md says where it comes from)")
                raise ValueError(f"{url}{via}: sha256 mismatch for {f.path}: expected {f.sha256}, got {got}; "
                                 f"the file was not written{also}; {fix}")
        if f.path in source_paths:
            payloads[f.path] = payload
        return payload

    def made(f: FileSource) -> bytes:
        """A derived file, converted from its source (fetched once)."""
        src = by_path[f.derived_from]
        if src.path not in converted:
            data = fetched(src)
            try:
                converted[src.path] = convert(data)
            except ValueError as err:  # a source that passed its sha256 check (or was not checked)
                raise ValueError(f"{src.path} ({src.url}): cannot be converted ({err}); {f.path} was not "
                                 "written") from err
        if f.path not in converted[src.path]:
            raise ValueError(f"{src.path} ({src.url}): its conversion has no {f.path}; the file was not written")
        return converted[src.path][f.path]

    written: list[Path] = []
    with tqdm(total=len(todo), desc=name, unit="file", leave=False,
              disable=len(todo) < 2 or not _show_progress(progress)) as bar:
        for k, f in enumerate(todo):
            url = mirrored(f.url, mirror)
            try:
                payload = made(f) if f.derived_from is not None else fetched(f)
            # http.client.HTTPException: a reply cut short (IncompleteRead), a garbled status line, a bad URL.
            except (urllib.error.URLError, OSError, TimeoutError, zipfile.BadZipFile, http.client.HTTPException) as err:
                if isinstance(err, DatasetNotFoundError):
                    raise
                # Nothing of this file was written: the payload is only written (atomically) once whole and checked.
                # Every file not written yet is named (all members of an archive that failed, and those after it).
                raise DatasetNotFoundError(missing_message(name, todo[k:] + no_url, base,
                                                           _failure(url, err, timeout))) from err
            if verify and f.sha256 is not None and f.derived_from is not None:
                got = hashlib.sha256(payload).hexdigest()
                if got != f.sha256:  # another rdata may read a value otherwise: nothing but the shipped bytes
                    raise ValueError(f"{f.path}, converted from {f.derived_from}: sha256 mismatch: expected "
                                     f"{f.sha256}, got {got} ({_rdata_version()}); the file was not written: "
                                     f"place it by hand (datasets/{info.doc}.md says where it comes from)")
            dest = folder / f.path
            _atomic_write(dest, payload)
            written.append(dest)
            bar.update()
    if no_url:
        done = f"\n({len(written)} other file(s) with a public URL written)" if written else ""
        raise DatasetNotFoundError(missing_message(name, no_url, base, "no public URL") + done)
    return written


def _rdata_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return f"rdata {version('rdata')}"
    except PackageNotFoundError:
        return "rdata of unknown version"


def verify(name: str, *, root: str | Path | None = None) -> dict[str, str]:
    """Check the sha256 of every present file of dataset ``name`` against the registry.

    Returns ``{path: status}`` with status ``"ok"``, ``"missing"``, ``"unchecked"`` (no published sha256) or
    ``"MISMATCH (got <sha256>)"``.
    """
    info = DATASETS[name]
    base = Path(root) if root is not None else data_root()
    out = {}
    for f in info.files:
        p = base / info.folder / f.path
        if not p.is_file():
            out[f.path] = "missing"
        elif f.sha256 is None:
            out[f.path] = "unchecked"
        else:
            got = sha256_file(p)
            out[f.path] = "ok" if got == f.sha256 else f"MISMATCH (got {got})"
    return out


#: Files up to this size whose registry entry has a sha256 are hashed once per process when loaded (a few ms
#: for the largest registered file, 4 MB); larger ones only have their size compared.
HASH_ON_LOAD_MAX_BYTES = 64 << 20
_VERIFIED: set[tuple[str, int, int]] = set()  # (path, size, mtime_ns) whose sha256 matched in this process


def _check_intact(name: str, folder: Path, f: FileSource) -> None:
    """Compare a present registered file with the registry: its size (free), and its sha256 (once per process
    and file version, small files only). Files the registry has no size for are not checked (the PPI benchmark,
    datasets registered by a user or a test)."""
    if f.size is None:
        return
    path = folder / f.path
    st = path.stat()
    fix = (f"run `gatbio datasets --verify {name}`, then delete the damaged file and run "
           f"`gatbio datasets --download {name}` (or copy it again from the source)") if f.url else (
           f"run `gatbio datasets --verify {name}`, then copy the file again from its source (it has no public URL "
           f"to download it from: datasets/{DATASETS[name].doc}.md says where it comes from)")
    if st.st_size != f.size:
        how = "cut short" if st.st_size < f.size else "longer than the original"
        raise DatasetIntegrityError(f"dataset {name!r}: {path} has {st.st_size:,} bytes, the registered file "
                                    f"{f.size:,} ({how}: damaged or altered); {fix}")
    if f.sha256 is None or st.st_size > HASH_ON_LOAD_MAX_BYTES:
        return
    key = (str(path.resolve()), st.st_size, st.st_mtime_ns)
    if key in _VERIFIED:
        return
    if sha256_file(path) != f.sha256:
        raise DatasetIntegrityError(f"dataset {name!r}: {path} differs from the registered file (sha256 "
                                    f"mismatch: altered or damaged); {fix}")
    _VERIFIED.add(key)


def require_files(name: str, paths: list[str], *, root: str | Path | None = None, option: str | None = None) -> Path:
    """The dataset folder, after checking that ``paths`` exist there and are the registered files.

    A missing file's message says where to put it, and how to fetch those with a public URL: the
    ``gatbio datasets --download`` command and the Python call (:func:`fetch_hint`). ``option``: where ``root``
    came from (``"--root"``), named in the messages instead of ``GATBIO_DATA`` (:func:`root_label`).

    Raises:
        DataRootError: the root is a file, or a folder named by ``GATBIO_DATA`` (or given) that does not exist.
        DatasetNotFoundError: files missing (which file to put where).
        DatasetIntegrityError: a present file whose size (or sha256, for files up to
            :data:`HASH_ON_LOAD_MAX_BYTES`) differs from the registry's: cut short or altered.
    """
    info = DATASETS[name]
    base = Path(root).expanduser() if root is not None else data_root()
    check_data_root(base, option=option)  # a file, or a folder that does not exist (but the default cache)
    folder = base / info.folder
    missing = [p for p in paths if not (folder / p).is_file()]
    by_path = {f.path: f for f in info.files}
    if missing:
        srcs = [by_path.get(p, FileSource(p, None, None)) for p in missing]
        # a collection's member (one web): the hint fetches its files, not the whole collection
        member = next((f"{name}/{m}" for m in info.members if set(paths) <= set(member_files(f"{name}/{m}"))),
                      None) if info.is_collection and len(paths) < len(info.files) else None
        hint = ""
        if any(f.derived_from for f in srcs):  # cheddar's CSV files
            hint = "\n" + fetch_hint(member or name, base, option, "them, converted from the package's RData "
                                      "files (which needs pip install 'gatbio[cheddar]')")
        elif any(f.url for f in srcs):
            hint = "\n" + fetch_hint(member or name, base, option)
        raise DatasetNotFoundError(missing_message(name, srcs, base, option=option) + hint)
    for p in paths:
        if p in by_path:
            _check_intact(name, folder, by_path[p])
    return folder

