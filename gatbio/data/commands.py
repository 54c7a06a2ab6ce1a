"""``gatbio datasets``: list the named datasets (nodes, edges, labels/traits, presence, citation), list the
webs of a collection, or download a dataset.

Usage::

    gatbio datasets                      # one row per dataset, with whether its files are present
    gatbio datasets --long               # plus license and citation
    gatbio datasets --members gateway    # the webs of a collection (load them as gateway/<web>)
    gatbio datasets --download node2vec-ppi [--root DIR]
    gatbio datasets --verify [NAME]      # sha256 of every present file against the registry
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser("datasets", help="list the named datasets (counts, presence, citation)",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--root", default=None, help="data root (default: $GATBIO_DATA, ../shared/data, ~/.cache/gatbio)")
    p.add_argument("--long", action="store_true", help="also show license and citation columns")
    p.add_argument("--members", metavar="NAME", help="list the webs of a collection (gateway, cheddar, pajek)")
    p.add_argument("--download", metavar="NAME", help="download the missing files of a dataset (sha256 checked)")
    p.add_argument("--verify", metavar="NAME", nargs="?", const="all",
                   help="check the sha256 of the present files (all datasets, or NAME); exit 1 on a mismatch")
    p.set_defaults(func=run)
    return p


def run(args: argparse.Namespace) -> int:
    import pandas as pd

    from gatbio.data import DATASETS, data_root, download, list_datasets
    from gatbio.data.sources import unknown_name, verify

    root = args.root
    if root is not None and not (args.download or args.members) and not Path(root).is_dir():  # --download makes it
        what = "is a file, not a folder" if Path(root).exists() else "no such folder"
        raise FileNotFoundError(f"--root {root}: {what} (the data root: a folder holding one folder per dataset)")
    if args.verify:
        names = list(DATASETS) if args.verify == "all" else [args.verify]
        bad = 0
        for name in names:
            if name not in DATASETS:
                raise unknown_name("dataset", name, list(DATASETS))
            status = verify(name, root=root)
            counts = {k: sum(1 for v in status.values() if v.startswith(k)) for k in ("ok", "missing", "unchecked", "MISMATCH")}
            print(f"{name}: " + ", ".join(f"{v} {k.lower()}" for k, v in counts.items() if v))
            for path, v in status.items():
                if v.startswith("MISMATCH"):
                    print(f"  {path}: {v}")
                    bad += 1
        return 1 if bad else 0
    if args.download:
        if args.download not in DATASETS:
            raise unknown_name("dataset", args.download, list(DATASETS))
        written = download(args.download, root=root)
        print(f"{args.download}: {len(written)} file(s) written" + "".join(f"\n  {p}" for p in written))
        bad = {p: s for p, s in verify(args.download, root=root).items() if s.startswith("MISMATCH")}
        if bad:  # present files are skipped: a damaged one stays until it is deleted
            folder = Path(root) if root is not None else data_root()
            folder = folder / DATASETS[args.download].folder
            print(f"{args.download}: {len(bad)} present file(s) differ from the registry's sha256 (e.g. "
                  f"{folder / next(iter(bad))}): delete them and run --download again", file=sys.stderr)
            return 1
        return 0
    if args.members:
        info = DATASETS.get(args.members)
        if info is None or not info.is_collection:
            names = [n for n, i in DATASETS.items() if i.is_collection]
            raise unknown_name("collection (--members)", args.members, names)
        for m in info.members:
            print(f"{info.name}/{m}")
        return 0
    df = list_datasets(root)
    cols = ["name", "kind", "webs", "nodes", "edges", "labels/traits", "present"]
    if args.long:
        cols += ["direction", "license", "citation"]
    print(f"data root: {root or data_root()}")
    with pd.option_context("display.max_colwidth", 200, "display.width", 250):
        print(df[cols].to_string(index=False))
    if not args.long:
        print("\ncitations:")
        for _, r in df.iterrows():
            print(f"  {r['name']}: {r['citation']}")
    return 0
