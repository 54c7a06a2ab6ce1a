#!/usr/bin/env bash
# turbo-gnn (yandex-research/On-Efficient-Scaling-Of-GNNs: the IO-aware CUDA kernels that issue 14 compares
# gatbio's GATv2 against) for the GPU machine, which has nvcc but no network. Nothing of it is committed here.
#
#   bash experiments/turbo_gnn.sh bundle SRC   here, after ../shared/tools/gpu-bundle (which empties the bundle):
#                                             copies turbo-gnn's source from SRC (a clone or a bare git directory
#                                             of that repository, e.g. what the fetch tool gives) into
#                                             .gpu-bundle/turbo, with wheels of its build tools (ninja,
#                                             setuptools, wheel, packaging)
#   bash experiments/turbo_gnn.sh build OUT    there (experiments/gpu_session.sh, step turbo): builds it for
#                                             sm_90 into /tmp/site and keeps the wheel in OUT. Put that wheel in
#                                             .gpu-bundle/whl for later sessions: the bundle's setup installs it,
#                                             and the ~3 min build is not repeated.
#
# The build, as read from turbo-gnn's setup.py: a torch CUDAExtension (turbo_gnn._C, linking cuSPARSE);
# TURBO_GNN_FORCE_BUILD=TRUE stops it from trying to download a prebuilt wheel (and makes a failed CUDA
# detection an error instead of a package without _C); --no-build-isolation keeps pip off the network;
# TORCH_CUDA_ARCH_LIST=9.0 builds for the H100/H200 only; MAX_JOBS spares it from importing psutil.
set -euo pipefail
cd "$(dirname "$0")/.."
BUNDLE=${BUNDLE:-.gpu-bundle}

case "${1:-}" in
-h|--help)
  sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
  exit 0
  ;;
bundle)
  src=${2:?usage: bash experiments/turbo_gnn.sh bundle PATH_TO_TURBO_GNN_GIT}
  [ -d "$BUNDLE" ] || { echo "no $BUNDLE: run ../shared/tools/gpu-bundle first" >&2; exit 1; }
  rm -rf "$BUNDLE/turbo" && mkdir -p "$BUNDLE/turbo" "$BUNDLE/whl"
  git -C "$src" archive HEAD setup.py pyproject.toml README.md LICENSE MANIFEST.in csrc turbo_gnn \
    | tar -x -C "$BUNDLE/turbo"
  git -C "$src" rev-parse HEAD > "$BUNDLE/turbo/COMMIT"
  if [ -z "${TURBO_NO_NINJA:-}" ]; then
    # ninja: parallel compiles (without it torch builds one file at a time); setuptools, wheel, packaging: what
    # the build imports (a Python 3.12 image need not have setuptools), used by the build step only.
    python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 \
      --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
      -d "$BUNDLE/turbo/build-whl" ninja setuptools wheel packaging
  fi
  du -sh "$BUNDLE" | awk '{print $2 ": " $1 " (keep the tree and the bundle under 64 MiB together)"}'
  ;;
build)
  out=${2:?usage: bash experiments/turbo_gnn.sh build OUT}
  if python3 -c "import turbo_gnn._C" 2>/dev/null; then echo "turbo_gnn already imports"; exit 0; fi
  [ -d "$BUNDLE/turbo" ] || { echo "no $BUNDLE/turbo: run 'bash experiments/turbo_gnn.sh bundle SRC' here" >&2; exit 1; }
  out=$(mkdir -p "$out" && cd "$out" && pwd)
  if ls "$BUNDLE"/turbo/build-whl/*.whl > /dev/null 2>&1; then  # the build's own tools, apart from /tmp/site
    python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/turbo-build "$BUNDLE"/turbo/build-whl/*.whl
    export PATH=/tmp/turbo-build/bin:$PATH PYTHONPATH=${PYTHONPATH:+$PYTHONPATH:}/tmp/turbo-build
  fi
  export CUDA_HOME=${CUDA_HOME:-$(dirname "$(dirname "$(command -v nvcc)")")}
  if [ ! -e "$CUDA_HOME/lib64/libcusparse.so" ]; then  # pip's nvidia packages ship only the versioned library
    nv=$(python3 -c "import nvidia; print(nvidia.__path__[0])")
    mkdir -p /tmp/culink && ln -sf "$(find "$nv" -name 'libcusparse.so.*' | head -1)" /tmp/culink/libcusparse.so
    export LIBRARY_PATH=/tmp/culink:${LIBRARY_PATH:-}
  fi
  export TORCH_CUDA_ARCH_LIST=9.0 MAX_JOBS=${MAX_JOBS:-8} TURBO_GNN_FORCE_BUILD=TRUE
  (cd "$BUNDLE/turbo" && python3 -m pip wheel -q --no-build-isolation --no-deps --no-index -w "$out" .)
  python3 -m pip install -q --no-deps --no-index --target /tmp/site "$out"/turbo_gnn-*.whl
  python3 -c "import turbo_gnn._C; print('turbo_gnn built from', open('$BUNDLE/turbo/COMMIT').read().strip())"
  ;;
*)
  echo "usage: bash experiments/turbo_gnn.sh bundle SRC | build OUT" >&2; exit 2
  ;;
esac
