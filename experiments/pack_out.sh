#!/usr/bin/env bash
# Pack each folder under OUT into OUT/NAME.tgz and remove the folder, except those named after OUT.
# The device tool brings back a limited number of files from $OUT (a results folder of 15 runs x 20 models is
# over it: on 2026-11-26 the SHS27k run's summary and runs/ stayed behind); one archive per folder comes back whole.
#   bash experiments/pack_out.sh OUT [KEEP ...]        # unpack here: tar xzf OUT/NAME.tgz -C DEST
set -euo pipefail
if [ "${1:-}" = "-h" ] || [ "${1:-}" = "--help" ]; then sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0; fi
out=${1:?usage: pack_out.sh OUT [KEEP ...]}
shift
if [ ! -d "$out" ]; then
  [ -e "$out" ] && why="is not a folder" || why="no such folder"
  echo "pack_out.sh: OUT $out: $why; give the folder whose subfolders to pack (usage: pack_out.sh OUT [KEEP ...])" >&2
  exit 1
fi
for d in "$out"/*/; do
  [ -d "$d" ] || continue
  name=$(basename "$d")
  for keep in "$@"; do [ "$name" = "$keep" ] && continue 2; done
  tar czf "$out/$name.tgz.part" -C "$out" "$name"
  mv "$out/$name.tgz.part" "$out/$name.tgz"
  rm -rf "${out:?}/$name"
done
