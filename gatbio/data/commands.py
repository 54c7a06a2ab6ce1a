"""``gatbio datasets``: list the named datasets (nodes, edges, labels/traits, presence, citation), list the
webs of a collection, or download a dataset.

Usage::

    gatbio datasets                      # one row per dataset, with whether its files are present
    gatbio datasets --long               # plus license and citation
    gatbio datasets --members gateway    # the webs of a collection (load them as gateway/<web>)
    gatbio datasets --download node2vec-ppi [--root DIR]
    gatbio datasets --verify [NAME]      # sha256 of every present file against the registry

NAME is spelt as gatbio.data.load takes it: the exact name, else the one name equal to it ignoring case
(SHS27K, Pajek/BayDry); one web of a collection (pajek/baydry, gateway/11) downloads or verifies that web's files.
cheddar's CSV files are converted from the package's RData files (fetched, sha256 checked) and checked against
their own sha256 before they are written; that needs the package rdata (pip install 'gatbio[cheddar]').
One GATEWAy web (gateway/11) downloads its folder; the collection's index tables have no public URL (a note
names them: load reads them, the benchmark does not).

The data root is --root, else $GATBIO_DATA, else ../shared/data, else ~/.cache/gatbio; a root that is a file,
or a folder that does not exist (except for --download, which creates it), is refused.
"""

from __future__ import annotations

import argparse
import sys


def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser("datasets", help="list the named datasets (counts, presence, citation)",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--root", default=None, help="data root (default: $GATBIO_DATA, ../shared/data, ~/.cache/gatbio)")
    p.add_argument("--long", action="store_true", help="also show license and citation columns")
    p.add_argument("--members", metavar="NAME", help="list the webs of a collection (gateway, cheddar, pajek)")
    p.add_argument("--download", metavar="NAME",
                   help="download the missing files of a dataset, or of one web of a collection (pajek/baydry, "
                        "gateway/11) (sha256 checked; cheddar's CSV files converted from its RData files, "
                        "which needs pip install 'gatbio[cheddar]'; files without a public URL are "
                        "named, to place by hand); GATBIO_MIRROR=URL or a folder fetches them through a mirror "
                        "(the URL's scheme replaced: GATBIO_MIRROR=http://mirror/x fetches "
                        "https://host/path as http://mirror/x/host/path); GATBIO_TIMEOUT=SECONDS: how long a silent "
                        "server is waited for (default 60); bars on a terminal")
    p.add_argument("--verify", metavar="NAME", nargs="?", const="all",
                   help="check the sha256 of the present files (all datasets, or NAME); exit 1 on a mismatch, and when "
                        "NAME's files are missing")
    p.set_defaults(func=run)
    return p


def run(args: argparse.Namespace) -> int:
    import pandas as pd

    from gatbio.data import DATASETS, download, list_datasets
    from gatbio.data.sources import (
        check_data_root,
        dataset_files,
        download_command,
        match_case,
        missing_files,
        resolve_name,
        root_label,
        verify,
    )
    from gatbio.data.tables import first_few

    actions = [f"--{k}" for k in ("verify", "download", "members") if getattr(args, k, None)]
    if len(actions) > 1:  # one ran and the others were dropped without a word
        from gatbio.cli import UsageError

        raise UsageError(f"{' and '.join(actions)}: give one of them per command")

    root = args.root
    option = "--root" if root is not None else None  # else GATBIO_DATA or the default, named as such
    if args.verify:
        asked = None if args.verify == "all" else resolve_name(args.verify)  # load's rule: 'SHS27K', 'Pajek/BayDry'
        names, only = list(DATASETS), None
        if asked is not None:  # one dataset, or one web: its own files
            name, paths = dataset_files(asked)
            names, only = [name], set(paths)
        base = check_data_root(root, option=option)  # a file, a missing folder: refused
        bad = missing = 0
        for name in names:
            status = {p: v for p, v in verify(name, root=base).items() if only is None or p in only}
            counts = {k: sum(1 for v in status.values() if v.startswith(k)) for k in ("ok", "missing", "unchecked", "MISMATCH")}
            print(f"{asked or name}: " + ", ".join(f"{v} {k.lower()}" for k, v in counts.items() if v))
            for path, v in status.items():
                if v.startswith("MISMATCH"):
                    print(f"  {path}: {v}")
                    bad += 1
            missing += counts["missing"]
        if asked and missing:  # the files of the dataset asked for are not (all) there
            info = DATASETS[names[0]]
            gone = [p for p, v in status.items() if v == "missing"]
            by_hand = [p for p in gone if next(f for f in info.files if f.path == p).url is None]
            how = []  # the download fetches those with a public URL; the others (GATEWAy's index) are placed by hand
            if len(by_hand) < len(gone):
                how.append(f"{download_command(asked, base, option)} fetches "
                           + ("them" if not by_hand else f"the {len(gone) - len(by_hand)} with a public URL"))
            if by_hand:
                one = len(by_hand) == 1
                how.append(f"{first_few(by_hand, 3)}: no public URL; place {'it' if one else 'them'} by hand, "
                           f"datasets/{info.doc or info.name}.md says where {'it comes' if one else 'they come'} from")
            print(f"{asked}: {missing} of {len(status)} file(s) missing under {base / info.folder} "
                  f"({'; '.join(how)})", file=sys.stderr)
            return 1
        if args.verify == "all" and missing == sum(len(DATASETS[n].files) for n in names):
            print(f"note: {root_label(base, option)} holds none of the datasets' files (set GATBIO_DATA or --root to "
                  "the folder that has them, or fetch one with gatbio datasets --download NAME)", file=sys.stderr)
        return 1 if bad else 0
    if args.download:
        asked = resolve_name(args.download)  # load's rule: exact, else the one name equal ignoring case
        name, files = dataset_files(asked)  # a dataset's files, or one web's
        base = check_data_root(root, option=option, must_exist=False)
        if [f for f in missing_files(name, root=base) if f.path in files]:  # before any download
            check_data_root(base, option=option, must_exist=False, writable=True)  # a root it cannot write to
        written = download(asked, root=base)
        print(f"{asked}: {len(written)} file(s) written" + "".join(f"\n  {p}" for p in written))
        folder = base / DATASETS[name].folder
        if "/" in asked and (left := [f.path for f in missing_files(name, root=base) if f.path in files]):
            # download wrote the web's own files (it raises for one of those it cannot get): what is left are the
            # collection's shared files without a public URL (GATEWAy's index tables)
            print(f"note: {asked}: the collection's index files {', '.join(left)} have no public URL and are not "
                  f"there: the food-web benchmark reads the web's folder alone, gatbio.data.load({asked!r}) needs "
                  f"the index; place them by hand under {folder} if you want it (datasets/{DATASETS[name].doc}.md)",
                  file=sys.stderr)
        bad = {p: s for p, s in verify(name, root=base).items() if s.startswith("MISMATCH") and p in files}
        if bad:  # present files are skipped: a damaged one stays until it is deleted
            info = DATASETS[name]
            by_hand = [p for p in bad if next(f for f in info.files if f.path == p).url is None]
            fix = "delete them and run --download again"
            if by_hand:  # deleted, a file without a public URL would not come back: copied again from its source
                one = len(by_hand) == 1
                fix = (f"copy {first_few(by_hand, 3)} again from {'its' if one else 'their'} source (no public URL: "
                       f"datasets/{info.doc or info.name}.md says where {'it comes' if one else 'they come'} from)")
                if len(by_hand) < len(bad):
                    fix = f"delete the others and run --download again; {fix}"
            print(f"{asked}: {len(bad)} present file(s) differ from the registry's sha256 (e.g. "
                  f"{folder / next(iter(bad))}): {fix}", file=sys.stderr)
            return 1
        return 0
    if args.members:
        names = [n for n, i in DATASETS.items() if i.is_collection]
        info = DATASETS[match_case("collection (--members)", args.members, names)]  # 'Gateway': load's rule
        for m in info.members:
            print(f"{info.name}/{m}")
        return 0
    base = check_data_root(root, option=option)
    df = list_datasets(base)
    cols = ["name", "kind", "webs", "nodes", "edges", "labels/traits", "present"]
    if args.long:
        cols += ["direction", "license", "citation"]
    print(f"data root: {base}")
    with pd.option_context("display.max_colwidth", 200, "display.width", 250):
        print(df[cols].to_string(index=False))
    if (df["present"] == "no").all():
        print(f"note: {root_label(base, option)} holds none of the datasets' files (set GATBIO_DATA or --root to "
              "the folder that has them, or fetch one with gatbio datasets --download NAME)", file=sys.stderr)
    if not args.long:
        print("\ncitations:")
        for _, r in df.iterrows():
            print(f"  {r['name']}: {r['citation']}")
    return 0
