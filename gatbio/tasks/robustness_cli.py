"""``gatbio robustness --config FILE [key=value ...]``: the hub-robustness sweep (:mod:`gatbio.tasks.robustness`)."""

from __future__ import annotations

import argparse

from gatbio._options import (
    IntermixedParser,
    add_device_option,
    add_resume_options,
    check_one_out,
    resume_mode,
)


def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "robustness",
        help="hub-perturbation robustness sweep (models x perturbations x fractions x seeds)",
        description="Train each model once per seed on the clean graph, evaluate it on hub-perturbed copies "
                    "(targeted/random node removal, hub feature noise, hub edge drop), and write per-run JSON, "
                    "summary tables (area under each degradation curve; the headline: drop and flip rate under "
                    "degree removal and feature noise at 5%, or at the largest fraction when 0.05 is not swept, "
                    "against pyg_gat) and figures: runs/, splits/, summary/*.csv, summary/summary.txt, figures/*.png "
                    "(each file: python -c 'import gatbio.tasks.robustness as r; help(r)'). "
                    "Finished runs are skipped, so an interrupted sweep resumes.",
        epilog="example: gatbio robustness --config experiments/configs/robustness_quick.yaml seeds=[0,1] jobs=2",
    )
    p.add_argument("--config", required=True, metavar="FILE", help="YAML config (the repository's experiments/configs/robustness_*.yaml are examples; "
                        "settings: python -c 'import gatbio.tasks.robustness as r; help(r.RobustnessConfig)')")
    p.add_argument("--out", metavar="DIR", default=None,
                   help="results folder (default: the config's out_dir; the same as the override out_dir=DIR)")
    p.add_argument("--summary-only", action="store_true", help="only remake the tables and figures from existing results")
    p.add_argument("--quiet", action="store_true",
                   help="no progress on stderr (a bar on a terminal; in a log file or a pipe, a line at most every "
                        "30 s)")
    p.add_argument("overrides", nargs="*", metavar="key=value", help="config overrides, e.g. seeds=[0,1] jobs=2")
    add_device_option(p, default=None)
    add_resume_options(p)
    p.set_defaults(func=main)
    p.__class__ = IntermixedParser  # `--config F a=1 --out D b=2`: overrides on both sides of the options
    return p


def main(args: argparse.Namespace) -> int:
    import dataclasses

    from gatbio.cli import show_sweep_progress
    from gatbio.tasks.robustness import load, run

    check_one_out(args.out, args.overrides)
    cfg = load(args.config, args.overrides)
    if args.out is not None:  # set on the loaded config: a folder name is not parsed as a config value
        cfg = dataclasses.replace(cfg, out_dir=args.out)
    if args.device is not None:
        cfg = dataclasses.replace(cfg, device=args.device)
    if not args.summary_only:
        note_fractions_perturbing_none(cfg)
    print(run(cfg, summary_only=args.summary_only, progress=show_sweep_progress(args.quiet), resume=resume_mode(args)))
    return 0


def note_fractions_perturbing_none(cfg) -> None:
    """A note per food web of ``cfg`` on which its fractions perturb no species (5 % of 9 species rounds to 0:
    :func:`gatbio.robustness.node_count`): those points equal the clean score by construction (no degradation),
    and the smallest fraction that perturbs one species of the web. Food webs only: a protein graph has thousands
    of nodes. Nothing is changed: the points are still computed, as the published sweeps' are."""
    if not cfg.foodweb.enabled:
        return
    from gatbio.data.tables import note, notes_said_before
    from gatbio.robustness import fractions_perturbing_none
    from gatbio.tasks.robustness import load_web

    for web in cfg.foodweb.webs:
        with notes_said_before():  # the sweep reads the web again and says its notes then
            n = int(load_web(web).num_nodes)
        none, smallest = fractions_perturbing_none(cfg.fractions, n)
        if none:
            shown, one = ", ".join(f"{f:g}" for f in none), len(none) == 1
            note(f"config fractions: {shown} of {web}'s {n} species perturb{'s' if one else ''} no species (a count "
                 f"rounds to the nearest whole species): {'that point equals' if one else 'those points equal'} the "
                 "clean score by construction, not robustness; the smallest fraction that perturbs a species of "
                 f"this web is {smallest:g}")
