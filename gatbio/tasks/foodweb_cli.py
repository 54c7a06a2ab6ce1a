"""``gatbio foodweb``: the GATEWAy link-prediction benchmark and missing-link prediction for a user's web.

Usage::

    gatbio foodweb benchmark --webs DIR --out DIR [--config FILE] [--jobs N] [key=value ...]
    gatbio foodweb predict FILE --top K --out links.csv [--plot web.png] [--traits TABLE] [--format ...]
    gatbio foodweb summarize OUT [--webs DIR]

``benchmark`` runs every web folder of DIR (the layout of ``gateway_dev/webs/``: ``<name>_<id>/<id>_edge_list.txt``
and ``<id>_node_attr_list.txt``), both protocols, all models (see :mod:`gatbio.tasks.foodweb`); an
interrupted run resumes without redoing finished webs. ``predict`` reads any format of ``gatbio trophic``
(edge list, CSV, Pajek, cheddar folder, adjacency matrix, a GATEWAy web folder, or a named web such as
``gateway/11``) and writes the K most likely missing links with species names, scores and trophic levels.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from gatbio._options import (
    IntermixedParser,
    add_device_option,
    add_header_option,
    add_resume_options,
    check_one_out,
    resume_mode,
)
from gatbio._paths import check_input_dir
from gatbio.ecology.commands import FORMATS

if TYPE_CHECKING:
    import numpy as np

PREDICT_DESCRIPTION = """\
Train the models of the GATEWAy benchmark on the whole web and list the K most likely missing links (pairs
of two different species that are not links of FILE), best first, with species names, scores and trophic levels.

The model is 'full' when the species have traits (--traits, or the web's own: a GATEWAy folder's node table, a
named GATEWAy web, a Pajek flow web's biomass and living / non-living types, a cheddar folder's node
properties; which ones is noted), else 'structure_only': a logarithmic opinion pool of the GAT and two classifiers stacked on pair features
(gradient boosting and a logistic regression), trained on the web itself. 'full' trains one GAT per seed of
--seeds and averages their logits, and so does 'structure_only' (the benchmark's trains one: here the average
keeps one GAT's start from reordering the list).

Links: a link of weight 0 carries no flow and counts as absent (as in gatbio trophic), so it is dropped, and the
pair can be predicted; other weights are not used. Cannibal (self) links are left out: a species eating itself
is neither learnt from nor predicted. A flow web's non-living compartments (a Pajek web's detritus) are never
predicted to eat, only to be eaten. All three are noted on stderr.

Columns:
  rank                1 for the likeliest missing link
  resource, consumer  the predicted link: the consumer eats the resource
  score               the pool's log-odds that the link exists:
                        (2 x GAT logit + log-odds of the boosted stack + log-odds of the linear stack) / 4.
                      Higher is likelier; 0 is even odds, +2.2 about 9 to 1, -2.2 about 1 to 9. Rank by it;
                      read it as a probability only loosely (the members are not calibrated to each other).
  resource_level,     MacKay trophic levels of the observed web: the lowest species of each connected
  consumer_level      part of the web is at 1 (a basal species can sit above 1), a consumer about 1 above
                      its resources
  model               full (with species traits) or structure_only (links alone)
"""


def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser("foodweb", help="food-web link inference (the GATEWAy benchmark, predict missing "
                                              "links, summarize a benchmark's results)",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    # none given: gatbio.cli.main prints the usage and an error naming the actions on stderr, exit status 2
    sub = p.add_subparsers(dest="foodweb_command", metavar="{benchmark,summarize,predict}")

    b = sub.add_parser(
        "benchmark", help="run the GATEWAy protocol and the new-species protocol on a folder of webs",
        description="Run the GATEWAy links protocol (5 consecutive blocks of links held out in turn) and the "
                    "new-species protocol (the species in 5 seeded folds, all links of a fold's species held out) on every web folder of --webs, "
                    "for every model of the config and the published baseline, on the same folds. One JSON "
                    "per web and protocol under OUT/webs/ (written atomically; a rerun skips finished webs and "
                    "refuses a changed config), then the tables: summary.csv, per_web.csv, ablation.csv.",
        epilog="example: gatbio foodweb benchmark --config experiments/configs/foodweb_quick.yaml "
               "--out results/foodweb_quick --jobs 2")
    b.add_argument("--webs", default=None, metavar="DIR",
                   help="folder of web folders (default: <data root>/gateway_dev/webs)")
    b.add_argument("--out", default=None, metavar="DIR", help="results folder (default: the config's out)")
    b.add_argument("--config", default=None, metavar="FILE",
                   help="YAML config (experiments/configs/foodweb_*.yaml; experiments/configs/foodweb_full.yaml "
                        "is the published run; default: FoodWebConfig's defaults, which differ from it: seeds "
                        "[0,1,2], out results/foodweb, jobs 1)")
    b.add_argument("--jobs", type=int, default=None, metavar="N", help="webs in parallel (default: the config's jobs)")
    b.add_argument("overrides", nargs="*", metavar="key=value", help="config overrides, e.g. seeds=[0] gat.epochs=50")
    b.__class__ = IntermixedParser  # `--config F a=1 --out D b=2`: overrides on both sides of the options
    b.add_argument("--quiet", action="store_true",
                   help="no progress on stderr (a bar on a terminal; in a log file or a pipe, a line at most every "
                        "30 s)")
    b.add_argument("--summary-only", action="store_true",
                   help="only remake the tables of the results folder (as gatbio foodweb summarize OUT does)")
    add_device_option(b, default=None, small_graphs=True)
    add_resume_options(b)
    b.set_defaults(func=run_benchmark)

    s = sub.add_parser("summarize", help="rebuild the tables of a results folder",
                       description="Rebuild the tables of a gatbio foodweb benchmark results folder (summary.csv, "
                                   "per_web.csv, ablation.csv, ...) from its per-web results (OUT/webs/*.json) "
                                   "and the config saved next to them, without training: after a change to the "
                                   "tables, or for the webs an interrupted run has finished.",
                       epilog="example: gatbio foodweb summarize results/foodweb_quick")
    s.add_argument("out", metavar="OUT", help="results folder of gatbio foodweb benchmark")
    s.add_argument("--webs", default=None, metavar="DIR",
                   help="the webs folder, for the published reference rows (default: the one in OUT/config.yaml)")
    s.set_defaults(func=run_summarize)

    q = sub.add_parser("predict", help="the most likely missing links of a food web (table, CSV, picture)",
                       description=PREDICT_DESCRIPTION,
                       epilog="example: gatbio foodweb predict gateway/125 --top 10 --out links.csv --plot web.png")
    q.add_argument("file", metavar="FILE", help="food-web file/folder, or a named web such as gateway/11")
    q.add_argument("--top", type=int, default=20, metavar="N", help="how many links to list")
    q.add_argument("--out", default=None, metavar="CSV", help="also write the table as CSV (atomic write)")
    q.add_argument("--plot", default=None, metavar="FILE",
                   help="also draw the web by trophic level with the predicted links coloured by score "
                        "(.png, .pdf or .svg)")
    q.add_argument("--traits", default=None, metavar="CSV",
                   help="species traits: a 'species' column (names as in FILE: one differing from a species of "
                        "FILE only in case or spacing is refused) and trait columns: numbers (body mass best as "
                        "log10) or text categories (e.g. metabolic: plant, invertebrate), one-hot encoded as one "
                        "0/1 column <column>=<category> each, with a note; an empty cell is missing (imputed). A "
                        "species of the table in no link of FILE joins the web, its links predicted too (default: "
                        "the traits of a GATEWAy folder or named web, else none)")
    q.add_argument("--seeds", default="0,1,2,3,4", metavar="LIST",
                   help="GAT seeds to average, comma separated (default: 0,1,2,3,4, the benchmark's 5-seed "
                        "ensemble; with or without traits: one GAT per seed). The ranking does not depend on the "
                        "file's row order nor on the machine's core count (one thread, as the benchmark); renaming "
                        "species may move it as much as another seed does, which more seeds narrow")
    q.add_argument("--format", default="auto", choices=FORMATS,
                   help="file format, as in gatbio trophic; auto: from the name")
    q.add_argument("--direction", default="prey-predator", choices=["prey-predator", "predator-prey"],
                   help="what a line 'u v' means in a table file (default: prey-predator, v eats u; a GATEWAy "
                        "folder or a named web is already prey -> predator)")
    q.add_argument("--source", default=None, metavar="COLUMN",
                   help="edge list / csv: prey column (name, or number from 1; default: the one the header names "
                        "so, such as resource, prey_name or res.taxonomy, else the first)")
    q.add_argument("--target", default=None, metavar="COLUMN",
                   help="edge list / csv: predator column (default: the one the header names so, such as consumer, "
                        "predator or con.taxonomy, else the second)")
    q.add_argument("--weight", default=None, metavar="COLUMN",
                   help="edge list / csv: weight column (default: one named like weights, or without a header a "
                        "third column of numbers); the models use which links exist (weight > 0), not the weights")
    q.add_argument("--convention", default=None, choices=["row_to_col", "col_to_row"],
                   help="adjacency: A[i, j] means i -> j (row_to_col) or j -> i (col_to_row)")
    q.add_argument("--quiet", action="store_true", help="no progress messages (they go to stderr, and only "
                                                         "when it is a terminal)")
    add_header_option(q, "FILE and --traits")
    add_device_option(q, small_graphs=True)
    q.set_defaults(func=run_predict)
    return p


def run_benchmark(args: argparse.Namespace) -> int:
    from gatbio.cli import show_sweep_progress
    from gatbio.config import load_config
    from gatbio.tasks.foodweb import FoodWebConfig, benchmark

    overrides = list(args.overrides)
    if args.webs is not None:
        check_input_dir(args.webs, "--webs", "a folder of web folders, like gateway_dev/webs/")
        overrides.append(f"webs={args.webs}")
    if args.out is not None:
        check_one_out(args.out, args.overrides, "out")
        overrides.append(f"out={args.out}")
    if args.jobs is not None:
        overrides.append(f"jobs={args.jobs}")
    cfg = load_config(FoodWebConfig, args.config, overrides)
    if args.device is not None:
        import dataclasses

        cfg = dataclasses.replace(cfg, device=args.device)
    if args.summary_only and (args.restart or args.resume_anyway):
        raise ValueError("--summary-only trains nothing: --restart / --resume-anyway do not apply")
    # --summary-only (the protein sweeps' option, here too): the folder's tables, from its own config
    tables = benchmark(cfg, progress=show_sweep_progress(args.quiet), resume=resume_mode(args),
                       summary_only=args.summary_only)
    _print_tables(tables, cfg.out)
    return 0


def run_summarize(args: argparse.Namespace) -> int:
    from gatbio.tasks.foodweb import summarize_folder

    _print_tables(summarize_folder(args.out, args.webs), args.out)
    return 0


def _print_tables(tables, out) -> None:
    import pandas as pd

    with pd.option_context("display.width", 200, "display.max_columns", 20):
        for name in ("summary", "summary_large_sparse", "summary_species", "ablation"):
            if name in tables:
                print(f"\n== {name} ({out}/{name}.csv)")
                print(tables[name].to_string(index=False))


def _read_traits(path: str, node_names: list[str], header: bool | None = None
                 ) -> tuple[np.ndarray, list[str], list[str]]:
    """A user trait table aligned to the web's species (:func:`gatbio.data.foodweb.read_species_traits`; text columns
    one-hot encoded, with a note), and the species it names that have no link in the web yet (their rows come after
    the web's)."""
    from gatbio.data.foodweb import read_species_traits

    return read_species_traits(path, node_names, header=header, add_unknown=True, categorical=True)


def read_predict_web(args: argparse.Namespace):
    """The web of ``foodweb predict``: a GATEWAy web folder as the benchmark reads it (file order, the file's trait
    columns; its cannibal links are kept here, and left out by :func:`run_predict` with a note, as for any other
    format), with its species names when it lies in a GATEWAy collection, and the note on names that differ only
    in case or Unicode form that every format gets; anything else as ``gatbio trophic`` reads it (a named web such
    as ``gateway/11`` comes with names and traits).

    Links of weight 0 (no flow: absent, as in ``gatbio trophic``) are dropped, with a note. The options that
    say how to read a table (``--direction``, ``--source``, ``--target``, ``--weight``, ``--convention``) are
    refused for a GATEWAy folder or a named web, which they would not change."""
    path = Path(args.file)
    if args.format in ("auto", "gateway") and path.is_dir() and any(path.glob("*_edge_list.txt")):
        from gatbio.data.foodweb import gateway_folder_names
        from gatbio.ecology.commands import _note_lookalike_names, refuse_table_options
        from gatbio.tasks.foodweb import read_web_folder

        refuse_table_options(args.file, "a GATEWAy web folder", direction=args.direction, source=args.source,
                             target=args.target, weight=args.weight, convention=args.convention,
                             header=None if args.traits else args.header)  # --header reads --traits too
        data = read_web_folder(path, self_loops="keep")  # run_predict leaves the cannibal links out, with a note
        names = gateway_folder_names(path)
        if names is not None and len(names) == data.num_nodes:
            data.node_names = names
        _note_lookalike_names(path, "gateway", data)  # as read_foodweb says it for every other format
    else:
        from gatbio.ecology.commands import read_foodweb

        data = read_foodweb(args)  # refuses the table options for a named web or a cheddar folder
    return _drop_zero_weight_links(data, args.file)


def _drop_zero_weight_links(data, file: str):
    """``data`` without its links of weight <= 0 (a note says how many): such a link carries no flow and counts as
    absent, as in ``gatbio trophic``, so the models neither learn from it nor skip it as a candidate."""
    import torch

    from gatbio.data.tables import note

    w = getattr(data, "edge_weight", None)
    if w is None:
        return data
    keep = w.view(-1) > 0
    dropped = int((~keep).sum())
    if dropped:
        note(f"{file}: {dropped} of {keep.numel()} links have weight 0 and are dropped: a link of weight 0 carries "
             "no flow and counts as absent (as in gatbio trophic), so it may be predicted")
        data = data.edge_subgraph(torch.nonzero(keep).view(-1))
    return data


def run_predict(args: argparse.Namespace) -> int:
    import sys

    import numpy as np

    from gatbio._paths import check_inputs, check_outputs
    from gatbio.cli import show_progress
    from gatbio.data.tables import first_few, note
    from gatbio.device import announce_device, resolve_device
    from gatbio.results import atomic_write_bytes, write_csv
    from gatbio.tasks.foodweb import predict_missing_links

    # Everything that can be wrong with the arguments is found before any reading or training.
    device = resolve_device(args.device, small_graphs=True)  # auto: the CPU (food webs are small graphs)
    seeds = _parse_seeds(args.seeds)
    if args.top < 1:
        raise ValueError(f"--top {args.top}: give a positive number of links")
    if args.plot:  # a wrong suffix is found before training, not after
        from gatbio.plot import image_format

        image_format(args.plot)
    check_inputs({"--traits": args.traits})
    check_outputs({"--out": args.out, "--plot": args.plot}, {"FILE": args.file, "--traits": args.traits},
                  tables=("--out",))

    data = read_predict_web(args)
    names = list(getattr(data, "node_names", None) or [str(i) for i in range(data.num_nodes)])
    traits = trait_names = None
    if args.traits:
        traits, trait_names, added = _read_traits(args.traits, names, args.header)
        if added and traits.shape[1] and np.isnan(traits[:len(names)]).all():
            raise ValueError(f"--traits {args.traits}: none of its {len(added)} species is a species of {args.file} "
                             f"(e.g. {added[0]!r} in the table, {names[0]!r} in the web): the names must match "
                             "exactly; for new species (no links yet), give the traits of the web's species too")
        if added:  # species with traits and no link yet: whose diet (and predators) to predict
            note(f"--traits {args.traits}: {len(added)} species are in no link of {args.file} "
                 f"({first_few(added, 5)}): added to "
                 "the web as species without links, so their links are predicted too (check the names if they "
                 "should match species of the web)")
            from torch_geometric.data import Data

            names = names + added
            data = Data(edge_index=data.edge_index, num_nodes=len(names), node_names=names,
                        **{k: data[k] for k in ("name", "edge_weight") if k in data})
        _note_species_without_traits(args.traits, traits, names, trait_names)
        _note_traits_spanning_magnitudes(args.traits, traits, trait_names)
    if getattr(data, "edge_weight", None) is not None and data.num_edges:
        note(f"{args.file}: link weights were read and checked but are not used: predictions rest on which links "
             "exist (weight > 0)")
    loops = int((data.edge_index[0] == data.edge_index[1]).sum()) if data.num_edges else 0
    if loops:
        note(f"{args.file}: {loops} cannibal (self) link(s) left out: the models learn and predict links between "
             "two different species only")
    x = traits if traits is not None else getattr(data, "x", None)
    with_traits = not (x is None or np.asarray(x).ndim != 2 or np.asarray(x).shape[1] == 0)
    if not with_traits:
        why = (f"--traits {args.traits} has no column of numbers" if args.traits else
               f"{args.file}: no species traits (no trait columns; add them with --traits)")
        note(f"{why}: predicting from the links alone (model structure_only)")
    elif not args.traits:  # traits that came with the web (its node table, a Pajek web's biomass, ...): named
        from gatbio.data.tables import first_few

        names_x = list(getattr(data, "trait_names", None) or [])
        note(f"{args.file}: the web's own species traits are used (model full): "
             + (first_few(names_x, 6) if names_x else f"{np.asarray(x).shape[1]} column(s)")
             + "; --traits FILE gives others")

    progress = show_progress(args.quiet)
    announce_device(device, args.device, small_graphs=True)  # with the small-graph note on a GPU
    if progress:
        print(f"# training {'the GAT' if len(seeds) == 1 else f'{len(seeds)} GATs'} (seed(s) "
              f"{','.join(map(str, seeds))}) and the two stacks on {data.num_nodes} species, "
              f"{data.num_edges - loops} links", file=sys.stderr, flush=True)
    df = predict_missing_links(data, args.top, seeds=seeds, traits=traits, trait_names=trait_names,
                               progress=progress, device=device)
    import pandas as pd

    with pd.option_context("display.width", 200):
        print(f"# {getattr(data, 'name', args.file)}: {data.num_nodes} species, {data.num_edges} links"
              f"{f' ({loops} cannibal, left out)' if loops else ''}; "
              f"model {df['model'].iloc[0]}; top {len(df)} missing links (resource -> consumer: consumer eats "
              "resource; score: pooled log-odds, see --help)")
        print(df.drop(columns="model").to_string(index=False))
    if args.out:  # first: a picture that cannot be drawn must not lose the table
        write_csv(args.out, df)  # tab-separated for .tsv
        print(f"# wrote {args.out}", flush=True)
    if args.plot:
        try:
            picture = draw_predictions(data, df, args.plot)
        except Exception:
            if args.out:
                note(f"--plot {args.plot}: the picture could not be drawn; the table is in {args.out}")
            raise
        atomic_write_bytes(args.plot, picture)
        print(f"# drew {args.plot}")
    return 0


def draw_predictions(data, df, path: str) -> bytes:
    """The picture of ``foodweb predict`` (:func:`gatbio.plot.foodweb_figure`) as the bytes of the image ``path``
    names. Species names are drawn as written: matplotlib's math mode is off, so that ``$`` in a name (``grass
    $x$``) is a dollar sign, not a formula that may not parse."""
    import matplotlib

    from gatbio.plot import figure_bytes, foodweb_figure

    with matplotlib.rc_context({"text.parse_math": False}):
        return figure_bytes(foodweb_figure(data, df), path)


def _note_species_without_traits(path: str, traits: np.ndarray, names: list[str],
                                 trait_names: list[str] | None = None) -> None:
    """A note naming how many species of the web have no trait value in the table (no row, or empty cells only):
    their traits are imputed, which a table covering few species makes most of what the model sees. The one-hot
    columns of a text trait (``metabolic=plant``, ``metabolic=animal``: one cell of the table) count once."""
    import numpy as np

    from gatbio.data.tables import note

    if traits.ndim != 2 or traits.shape[1] == 0:
        return
    nan = np.isnan(traits)
    if trait_names is not None and len(trait_names) == nan.shape[1]:  # a text trait's one-hot columns: one cell
        keep = [k for k, name in enumerate(trait_names) if not (
            k and "=" in name and name.split("=", 1)[0] == trait_names[k - 1].split("=", 1)[0]
            and "=" in trait_names[k - 1] and np.array_equal(nan[:, k], nan[:, k - 1]))]
        nan = nan[:, keep]
    empty = np.flatnonzero(nan.all(axis=1))
    if len(empty):
        shown = ", ".join(names[k] for k in empty[:3]) + (", ..." if len(empty) > 3 else "")
        note(f"--traits {path}: no trait values for {len(empty)} of {len(names)} species ({shown}): their traits "
             "are imputed (each column's median, flagged by a <trait>_missing column)")
    # empty or NA cells of species that have other traits, in columns that have values
    holes = nan & ~nan.all(axis=1, keepdims=True) & ~nan.all(axis=0, keepdims=True)
    if holes.any():
        r = int(np.argwhere(holes)[0][0])
        note(f"--traits {path}: {int(holes.sum())} missing trait value(s) (empty or NA) of {int(holes.any(1).sum())} "
             f"species with other traits (e.g. {names[r]}): imputed with each column's median, flagged by a "
             "<trait>_missing column")
    blank = np.flatnonzero(nan.all(axis=0))
    if len(blank) and len(empty) < len(names):
        note(f"--traits {path}: {len(blank)} trait column(s) have no value for any species of the web: they carry "
             "no information")


def _note_traits_spanning_magnitudes(path: str, traits: np.ndarray, trait_names: list[str]) -> None:
    """A note naming the trait columns whose values are all positive and span 3 or more orders of magnitude (a body
    mass in grams, 1e-5 to 2000): traits are standardised linearly, so on such a column every species but the
    largest looks alike; the GATEWAy webs the models were tuned on give body mass as log10. Used as given."""
    import numpy as np

    from gatbio.data.tables import first_few, note

    wide = []
    for k, name in enumerate(trait_names):
        v = traits[:, k][np.isfinite(traits[:, k])]
        if len(v) > 1 and v.min() > 0 and np.log10(v.max() / v.min()) >= 3:
            wide.append(f"{name} ({v.min():.3g} to {v.max():.3g})")
    if wide:
        note(f"--traits {path}: {first_few(wide, 3)}: positive values spanning 3 or more orders of magnitude, used "
             "as given (standardised linearly, so all but the largest species look alike); a body mass is best "
             "given as its log10, as the GATEWAy webs' log_mass")


def _parse_seeds(text: str) -> list[int]:
    """``--seeds 0,1,2`` as a non-empty list of distinct non-negative integers."""
    try:
        seeds = [int(s) for s in text.split(",") if s.strip()]
    except ValueError:
        raise ValueError(f"--seeds {text!r}: expected comma-separated integers such as 0,1,2") from None
    if not seeds or min(seeds) < 0:
        raise ValueError(f"--seeds {text!r}: give at least one non-negative integer seed, e.g. 0 or 0,1,2")
    twice = next((s for k, s in enumerate(seeds) if s in seeds[:k]), None)
    if twice is not None:  # the same GAT twice would count twice in the average: a silent reweighting
        raise ValueError(f"--seeds {text!r}: seed {twice} is given twice; give each seed once, e.g. "
                         f"{','.join(map(str, dict.fromkeys(seeds)))}")
    return seeds


def main(argv: list[str] | None = None) -> int:
    """``gatbio foodweb ...`` on its own (what ``experiments/food_web_inference.py`` calls)."""
    from gatbio.cli import main as gatbio_main

    return gatbio_main(["foodweb", *(argv or [])])
