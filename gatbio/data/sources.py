"""Where data lives and where each named dataset comes from.

Data root
---------
:func:`data_root` is the one lookup for the folder that holds the named datasets:

1. the environment variable ``GATBIO_DATA`` when set;
2. else ``../shared/data`` relative to the repository (or to the current directory) when it exists;
3. else the cache folder ``~/.cache/gatbio`` (created on demand; :func:`download` writes there).

Registry
--------
:data:`DATASETS` maps each named dataset to its folder under the data root, citation, license, direction
convention, published counts and its files (path, public URL, sha256). :func:`download` fetches the files of a
dataset from their public URLs (``urllib``), checks each sha256 and writes atomically. When a file is missing
and cannot be downloaded, :class:`DatasetNotFoundError` says which file to put where.

URLs point at the exact upstream commits named in each dataset's ``SOURCE.md``
(``https://raw.githubusercontent.com/<repo>/<commit>/<path>``). Files that are members of a ZIP archive upstream
(Pajek yeast; the PyG ``ppi.zip``) are extracted from the downloaded archive and the member is checked.
The PyG PPI benchmark archive ``https://data.pyg.org/datasets/ppi.zip`` has no published sha256: its check is
skipped (documented in ``datasets/ppi.md``), the only such file.
"""

from __future__ import annotations

import hashlib
import http.client
import io
import os
import urllib.error
import urllib.request
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from gatbio.data._checksums import CHECKSUMS

__all__ = ["data_root", "DATASETS", "DatasetInfo", "FileSource", "DatasetNotFoundError", "UnknownDatasetError",
           "unknown_name", "download",
           "fetch_url", "mirrored", "dataset_path", "sha256_file", "verify"]

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
    return Path.home() / ".cache" / "gatbio"


class DatasetNotFoundError(FileNotFoundError):
    """A dataset file is missing (and could not be downloaded)."""


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
    hint = f"; did you mean {' or '.join(prefix + c for c in close)}?" if close else ""
    shown = listing or ", ".join(prefix + c for c in choices)
    return UnknownDatasetError(f"unknown {kind} {prefix + name!r}{hint} (known: {shown})")


@dataclass(frozen=True)
class FileSource:
    """One file of a dataset: ``path`` relative to the dataset folder, public ``url`` (``None``: no public
    copy; must be placed by hand), ``sha256`` (``None``: unknown upstream), and ``member`` when the URL is a
    ZIP archive that holds the file."""

    path: str
    url: str | None
    sha256: str | None
    member: str | None = None


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


def _files(folder: str, url_of: Callable[[str], str | None], member_of: Callable[[str], str | None] = lambda p: None
           ) -> tuple[FileSource, ...]:
    return tuple(FileSource(p, url_of(p), sha, member_of(p)) for p, sha in sorted(CHECKSUMS[folder].items()))


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
    return None  # CSV conversions of the RData files (see datasets/cheddar.md)


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
        _files("foodwebs_cheddar", _cheddar_url), members=CHEDDAR_WEBS, doc="cheddar"),
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


def fetch_url(url: str, *, timeout: float = 60.0) -> bytes:
    """GET ``url``, the whole body in memory.

    Raises ``urllib.error.URLError`` / ``OSError`` when offline or the server fails, and
    ``urllib.error.ContentTooShortError`` (a ``URLError``) when the reply is shorter than its ``Content-Length``
    (a download cut short); nothing is returned (nor written) then.
    """
    req = urllib.request.Request(url, headers={"User-Agent": "gatbio"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            return resp.read()
    except http.client.IncompleteRead as err:
        raise urllib.error.ContentTooShortError(_incomplete(url, err), err.partial) from err


def _failure(url: str, err: BaseException) -> str:
    """The reason of a failed download, one line naming the URL that was fetched."""
    if isinstance(err, http.client.IncompleteRead):
        return _incomplete(url, err)
    if isinstance(err, urllib.error.ContentTooShortError):
        return str(err.reason)
    if isinstance(err, urllib.error.HTTPError):
        return f"download failed: {url}: HTTP {err.code} {err.reason}"
    if isinstance(err, urllib.error.URLError):
        return f"download failed: {url}: {err.reason}"
    if isinstance(err, zipfile.BadZipFile):
        return f"download failed: {url} is not a readable ZIP archive ({err})"
    return f"download failed: {url}: {err or type(err).__name__}"


def missing_message(name: str, missing: list[FileSource], root: Path, reason: str = "") -> str:
    info = DATASETS[name]
    folder = root / info.folder
    lines = [f"dataset {name!r}: {len(missing)} file(s) missing under {folder}"
             + (f" ({reason})" if reason else "") + ":"]
    for f in missing[:5]:
        src = f" (from {f.url}{' member ' + f.member if f.member else ''})" if f.url else " (no public URL: place it by hand)"
        lines.append(f"  put {f.path} at {folder / f.path}{src}")
    if len(missing) > 5:
        lines.append(f"  ... and {len(missing) - 5} more (see datasets/{info.doc}.md)")
    lines.append("or set GATBIO_DATA to a folder that has it")
    return "\n".join(lines)


def missing_files(name: str, *, root: str | Path | None = None) -> list[FileSource]:
    info = DATASETS[name]
    base = Path(root) if root is not None else data_root()
    return [f for f in info.files if not (base / info.folder / f.path).is_file()]


def mirrored(url: str, mirror: str | None = None) -> str:
    """``url`` as fetched through ``mirror`` (or ``$GATBIO_MIRROR``; none: ``url`` itself): the mirror's base URL
    replaces the scheme, so ``https://raw.githubusercontent.com/a/b/c`` becomes
    ``http://localhost:8000/raw.githubusercontent.com/a/b/c`` (an institutional mirror, or a test server)."""
    mirror = mirror or os.environ.get("GATBIO_MIRROR")
    return mirror.rstrip("/") + "/" + url.split("://", 1)[1] if mirror else url


def download(
    name: str,
    *,
    root: str | Path | None = None,
    files: list[str] | None = None,
    fetch: Callable[[str], bytes] = fetch_url,
    verify: bool = True,
    mirror: str | None = None,
) -> list[Path]:
    """Download the missing files of dataset ``name`` into ``<root>/<folder>/`` (default root: :func:`data_root`).

    Each file is fetched from its public URL, its sha256 checked against the registry (a mismatch raises and
    writes nothing), and written atomically. ZIP archives are fetched once per URL and the members extracted.
    Files already present are skipped. Offline, or when a server fails or cuts a download short (a reply shorter
    than its ``Content-Length``), raises :class:`DatasetNotFoundError` naming the URL, the file and where to put
    it; a file is only written once it arrived whole (and its sha256 matched), so nothing half-written is left.

    ``mirror`` (or ``$GATBIO_MIRROR``): a base URL that replaces the scheme of every URL, e.g. with
    ``http://localhost:8000`` the file ``https://raw.githubusercontent.com/a/b/c`` is fetched from
    ``http://localhost:8000/raw.githubusercontent.com/a/b/c`` (an institutional mirror, or a test server).

    Returns the paths written.
    """
    if name not in DATASETS:
        raise unknown_name("dataset", name, sorted(DATASETS))
    info = DATASETS[name]
    base = Path(root) if root is not None else data_root()
    todo = [f for f in missing_files(name, root=base) if files is None or f.path in files]
    no_url = [f for f in todo if f.url is None]
    if no_url:
        raise DatasetNotFoundError(missing_message(name, no_url, base, "no public URL"))

    archives: dict[str, zipfile.ZipFile] = {}
    written: list[Path] = []
    for k, f in enumerate(todo):
        url = mirrored(f.url, mirror)
        try:
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
        # http.client.HTTPException: a reply cut short (IncompleteRead), a garbled status line, a bad URL.
        except (urllib.error.URLError, OSError, TimeoutError, zipfile.BadZipFile, http.client.HTTPException) as err:
            if isinstance(err, DatasetNotFoundError):
                raise
            # Nothing of this file was written: the payload is only written (atomically) once whole and checked.
            # Every file not written yet is named (all members of an archive that failed, and those after it).
            raise DatasetNotFoundError(missing_message(name, todo[k:], base, _failure(url, err))) from err
        if verify and f.sha256 is not None:
            got = hashlib.sha256(payload).hexdigest()
            if got != f.sha256:
                via = f" (through the mirror, for {f.url})" if url != f.url else ""
                raise ValueError(f"{url}{via}: sha256 mismatch for {f.path}: expected {f.sha256}, got {got}; "
                                 "the file was not written")
        dest = base / info.folder / f.path
        _atomic_write(dest, payload)
        written.append(dest)
    return written


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


def require_files(name: str, paths: list[str], *, root: str | Path | None = None) -> Path:
    """The dataset folder, after checking that ``paths`` exist there (one clear message when not)."""
    info = DATASETS[name]
    base = Path(root) if root is not None else data_root()
    folder = base / info.folder
    missing = [p for p in paths if not (folder / p).is_file()]
    if missing:
        by_path = {f.path: f for f in info.files}
        srcs = [by_path.get(p, FileSource(p, None, None)) for p in missing]
        raise DatasetNotFoundError(missing_message(name, srcs, base)
                                   + f"\n(gatbio.data.download({name!r}) fetches the files that have a public URL)")
    return folder

