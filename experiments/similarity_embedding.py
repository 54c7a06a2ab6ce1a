"""A label-free protein embedding from sequence similarity, written as a ``protein_features`` file.

Each protein is linked to its ``--neighbors`` most similar proteins (normalised Smith-Waterman scores through
parasail, ``--similarity align``, or TF-IDF k-mer cosine, ``kmer``); the spectral embedding of that graph
(:class:`sklearn.manifold.SpectralEmbedding`, ``--dim`` coordinates) places proteins of one homology cluster
together. It reads the sequences only (no interaction, no label), so it is safe with every split. It stands in for
the per-protein embeddings a user brings (``protein_features: FILE`` of ``gatbio protein interactions``), and is
what ``experiments/configs/shs27k_protein_features.yaml`` measures::

    python experiments/similarity_embedding.py results/shs27k_similarity_embedding.tsv
    gatbio protein interactions --config experiments/configs/shs27k_protein_features.yaml jobs=2
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np


def similarity_embedding(sequences, how: str = "align", dim: int = 32, neighbors: int = 20, kmer: int = 3,
                         seed: int = 0) -> np.ndarray:
    """``(N, dim)`` spectral coordinates of the symmetrised ``neighbors``-nearest similarity graph."""
    from sklearn.manifold import SpectralEmbedding

    from gatbio.data.sequence import alignment_similarity, kmer_similarity

    s = np.asarray(alignment_similarity(sequences) if how == "align" else kmer_similarity(sequences, kmer), float)
    s = np.clip((s + s.T) / 2, 0, None)
    np.fill_diagonal(s, 0.0)
    k = min(neighbors, len(s) - 1)
    idx = np.argsort(-s, axis=1)[:, :k]
    a = np.zeros_like(s)
    np.put_along_axis(a, idx, np.take_along_axis(s, idx, 1), 1)
    a = np.maximum(a, a.T) + 1e-9  # symmetric, and connected (a tiny weight between every two proteins)
    np.fill_diagonal(a, 0.0)
    return SpectralEmbedding(dim, affinity="precomputed", random_state=seed).fit_transform(a)


def write_features(path: Path, names, x: np.ndarray) -> None:
    """``id<TAB>numbers`` per protein (what :func:`gatbio.data.sequence.read_protein_features` reads)."""
    from gatbio.results import atomic_write_text

    atomic_write_text(path, "".join(n + "\t" + "\t".join(f"{v:.6g}" for v in row) + "\n" for n, row in zip(names, x,
                                                                                                   strict=True)))


#: The named datasets that carry protein sequences (``data.sequences``): the only ones this embedding can read.
SEQUENCE_DATASETS = ("shs27k",)


def check_arguments(ap: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Every argument checked before any work (the similarities take minutes): one line and status 2."""
    import importlib.util

    if args.dataset not in SEQUENCE_DATASETS:
        ap.error(f"--dataset {args.dataset}: not a dataset with protein sequences; give "
                 f"{' or '.join(SEQUENCE_DATASETS)}")
    for name in ("dim", "neighbors"):
        if getattr(args, name) < 1:
            ap.error(f"--{name} {getattr(args, name)}: give at least 1")
    if args.similarity == "align" and importlib.util.find_spec("parasail") is None:
        ap.error("--similarity align needs parasail (pip install parasail, or gatbio[align]); "
                 "--similarity kmer needs nothing more")
    from gatbio._paths import check_outputs

    try:
        check_outputs({"out": args.out})
    except (ValueError, OSError) as err:
        ap.error(str(err))


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", type=Path, help="the protein_features file to write")
    ap.add_argument("--dataset", default="shs27k",
                    help=f"a named dataset with protein sequences: {', '.join(SEQUENCE_DATASETS)} (default: shs27k)")
    ap.add_argument("--similarity", choices=["align", "kmer"], default="align",
                    help="align: normalised Smith-Waterman scores (parasail); kmer: TF-IDF 3-mer cosine "
                         "(default: align)")
    ap.add_argument("--dim", type=int, default=32, help="spectral coordinates per protein (default: 32)")
    ap.add_argument("--neighbors", type=int, default=20,
                    help="most similar proteins each protein is linked to (default: 20)")
    args = ap.parse_args(argv)
    check_arguments(ap, args)
    import gatbio.data as gd

    data = gd.load(args.dataset, features=())
    if args.dim >= len(data.sequences):
        ap.error(f"--dim {args.dim}: at most {len(data.sequences) - 1} for {args.dataset}'s "
                 f"{len(data.sequences)} proteins")
    x = similarity_embedding(data.sequences, args.similarity, args.dim, args.neighbors)
    write_features(args.out, data.node_names, x)
    print(f"{args.out}: {x.shape[0]} proteins x {x.shape[1]} coordinates ({args.similarity} similarity, "
          f"{args.neighbors} neighbours)")


if __name__ == "__main__":
    import sys

    from gatbio.cli import run_guarded

    sys.exit(run_guarded(Path(sys.argv[0]).name, main))  # a missing data file: one line, as gatbio gives
