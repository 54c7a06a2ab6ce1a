"""``gatbio foodweb``: the GATEWAy link-prediction benchmark and missing-link prediction for a user's web.

Usage::

    gatbio foodweb benchmark --webs DIR --out DIR [--config FILE] [--jobs N] [key=value ...]
    gatbio foodweb predict FILE --top K --out links.csv [--traits TABLE] [--format ...]
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

import numpy as np

from gatbio._options import add_header_option, add_resume_options, resume_mode


def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser("foodweb", help="food-web link inference (GATEWAy benchmark, missing-link prediction)",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="foodweb_command", metavar="ACTION")

    b = sub.add_parser("benchmark", help="run the GATEWAy protocol and the new-species protocol on a folder of webs")
    b.add_argument("--webs", default=None, help="folder of web folders (default: <data root>/gateway_dev/webs)")
    b.add_argument("--out", default=None, help="results folder (default: the config's out)")
    b.add_argument("--config", default=None, help="YAML config (experiments/configs/foodweb_*.yaml)")
    b.add_argument("--jobs", type=int, default=None, help="webs in parallel (default: the config's jobs)")
    b.add_argument("overrides", nargs="*", metavar="key=value", help="config overrides, e.g. seeds=[0] gat.epochs=50")
    add_resume_options(b)
    b.set_defaults(func=run_benchmark)

    s = sub.add_parser("summarize", help="rebuild the tables of a results folder")
    s.add_argument("out", metavar="OUT")
    s.add_argument("--webs", default=None, help="the webs folder (for the published reference rows)")
    s.set_defaults(func=run_summarize)

    q = sub.add_parser("predict", help="the most likely missing links of a food web")
    q.add_argument("file", metavar="FILE", help="food-web file/folder, or a named web such as gateway/11")
    q.add_argument("--top", type=int, default=20, help="how many links (default: 20)")
    q.add_argument("--out", default=None, help="CSV to write (atomic); the table is printed either way")
    q.add_argument("--traits", default=None,
                   help="optional CSV of species traits: a 'species' column (names as in FILE) and numeric columns")
    q.add_argument("--seeds", default="0,1,2,3,4",
                   help="GAT seeds to average (default: 0,1,2,3,4, the benchmark's 5-seed ensemble)")
    q.add_argument("--format", default="auto", choices=["auto", "edgelist", "csv", "pajek", "cheddar", "adjacency"])
    q.add_argument("--direction", default="prey-predator", choices=["prey-predator", "predator-prey"],
                   help="what a line 'u v' means in the file (default: v eats u)")
    q.add_argument("--source", default=None, help="csv: prey column")
    q.add_argument("--target", default=None, help="csv: predator column")
    q.add_argument("--weight", default=None, help=argparse.SUPPRESS)
    q.add_argument("--convention", default=None, choices=["row_to_col", "col_to_row"],
                   help="adjacency: A[i, j] means i -> j (row_to_col) or j -> i (col_to_row)")
    add_header_option(q, "FILE and --traits")
    q.set_defaults(func=run_predict)
    p.set_defaults(func=lambda args: (p.print_help(), 2)[1])
    return p


def run_benchmark(args: argparse.Namespace) -> int:
    from gatbio.config import load_config
    from gatbio.tasks.foodweb import FoodWebConfig, benchmark

    overrides = list(args.overrides)
    if args.webs is not None:
        if not Path(args.webs).is_dir():
            raise FileNotFoundError(f"--webs {args.webs}: no such folder")
        overrides.append(f"webs={args.webs}")
    if args.out is not None:
        overrides.append(f"out={args.out}")
    if args.jobs is not None:
        overrides.append(f"jobs={args.jobs}")
    cfg = load_config(FoodWebConfig, args.config, overrides)
    tables = benchmark(cfg, resume=resume_mode(args))
    _print_tables(tables, cfg.out)
    return 0


def run_summarize(args: argparse.Namespace) -> int:
    from gatbio.config import load_config
    from gatbio.tasks.foodweb import FoodWebConfig, summarize_results

    cfg_path = Path(args.out) / "config.yaml"
    cfg = load_config(FoodWebConfig, cfg_path if cfg_path.is_file() else None)
    webs = args.webs or cfg.webs or None
    if webs is None:
        from gatbio.tasks.foodweb import _default_webs_dir

        webs = _default_webs_dir()
    _print_tables(summarize_results(args.out, webs, cfg), args.out)
    return 0


def _print_tables(tables, out) -> None:
    import pandas as pd

    with pd.option_context("display.width", 200, "display.max_columns", 20):
        for name in ("summary", "summary_large_sparse", "summary_species", "ablation"):
            if name in tables:
                print(f"\n== {name} ({out}/{name}.csv)")
                print(tables[name].to_string(index=False))


def _read_traits(path: str, node_names: list[str], header: bool | None = None) -> tuple[np.ndarray, list[str]]:
    """A user trait table aligned to the web's species (:func:`gatbio.data.foodweb.read_species_traits`)."""
    from gatbio.data.foodweb import read_species_traits

    return read_species_traits(path, node_names, header=header)


def run_predict(args: argparse.Namespace) -> int:
    from gatbio._paths import check_inputs, check_outputs
    from gatbio.results import write_csv
    from gatbio.tasks.foodweb import predict_missing_links, read_web_folder

    seeds = _parse_seeds(args.seeds)
    if args.top < 1:
        raise ValueError(f"--top {args.top}: give a positive number of links")
    check_inputs({"--traits": args.traits})
    check_outputs({"--out": args.out}, {"FILE": args.file, "--traits": args.traits})
    path = Path(args.file)
    if path.is_dir() and any(path.glob("*_edge_list.txt")):
        data = read_web_folder(path)
    else:
        from gatbio.ecology.commands import read_foodweb

        data = read_foodweb(args)
    names = list(getattr(data, "node_names", None) or [str(i) for i in range(data.num_nodes)])
    traits = trait_names = None
    if args.traits:
        traits, trait_names = _read_traits(args.traits, names, args.header)
    import sys

    from gatbio.data.tables import note

    if getattr(data, "edge_weight", None) is not None:
        note(f"{args.file}: link weights were read and checked but are not used: predictions rest on which links "
             "exist")
    x = traits if traits is not None else getattr(data, "x", None)
    if x is None or np.asarray(x).ndim != 2 or np.asarray(x).shape[1] == 0:
        note(f"{args.file}: no species traits (no trait columns; add them with --traits): predicting from the links "
             "alone (model structure_only)")

    # no per-step progress to show (a few seconds per GAT seed on webs of ~100 species), so say what runs
    print(f"# training {len(seeds)} GAT seed(s) and the two stacks on {data.num_nodes} species, "
          f"{data.num_edges} links ...", file=sys.stderr, flush=True)
    df = predict_missing_links(data, args.top, seeds=seeds, traits=traits, trait_names=trait_names)
    import pandas as pd

    with pd.option_context("display.width", 200):
        print(f"# {getattr(data, 'name', args.file)}: {data.num_nodes} species, {data.num_edges} links; "
              f"model {df['model'].iloc[0]}; top {len(df)} missing links (resource -> consumer: consumer eats resource)")
        print(df.drop(columns="model").to_string(index=False))
    if args.out:
        write_csv(args.out, df)
        print(f"# wrote {args.out}")
    return 0


def _parse_seeds(text: str) -> list[int]:
    """``--seeds 0,1,2`` as a non-empty list of non-negative integers."""
    try:
        seeds = [int(s) for s in text.split(",") if s.strip()]
    except ValueError:
        raise ValueError(f"--seeds {text!r}: expected comma-separated integers such as 0,1,2") from None
    if not seeds or min(seeds) < 0:
        raise ValueError(f"--seeds {text!r}: give at least one non-negative integer seed, e.g. 0 or 0,1,2")
    return seeds


def main(argv: list[str] | None = None) -> int:
    """``gatbio foodweb ...`` on its own (what ``experiments/food_web_inference.py`` calls)."""
    from gatbio.cli import main as gatbio_main

    return gatbio_main(["foodweb", *(argv or [])])
