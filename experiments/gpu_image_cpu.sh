#!/usr/bin/env bash
# The test suite under the reference GPU machine's package versions (../shared/GPU.md: torch 2.11 for CUDA 13,
# PyG 2.8.0.post1, triton 3.6), run here on the CPU, before a GPU session spends device time on them.
# The CUDA wheel of torch imports and runs on a machine without a GPU; the kernels run in Triton 3.6's
# interpreter. What this catches: API drift between those versions and ours (torch 2.13, triton 3.7.1), e.g. a
# torch.compile graph break that torch 2.13 does not have. What it cannot: anything that needs the GPU.
#
#   bash experiments/gpu_image_cpu.sh [VENV]      # default /tmp/gatbio-gpu-image; ~2 GB of wheels from PyPI
#
# numpy<2.3: Triton 3.6's interpreter converts one-element arrays to Python ints, which numpy 2.3 refuses
# ("only 0-dimensional arrays can be converted to Python scalars"); the GPU runs compiled kernels, not this.
set -euo pipefail
if [ "${1:-}" = "-h" ] || [ "${1:-}" = "--help" ]; then sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0; fi
usage="usage: bash experiments/gpu_image_cpu.sh [VENV]   (default /tmp/gatbio-gpu-image; --help for more)"
if [ $# -gt 1 ]; then echo "gpu_image_cpu.sh: one argument at most, the venv folder; $usage" >&2; exit 2; fi
case "${1:-}" in
  -*) echo "gpu_image_cpu.sh: unknown option '$1': the only argument is the venv folder; $usage" >&2; exit 2 ;;
esac
# the venv as given, resolved against the caller's folder before the cd below (a relative VENV is not made in the
# repository's root)
VENV=${1:-/tmp/gatbio-gpu-image}
case "$VENV" in /*) ;; *) VENV=$PWD/$VENV ;; esac
cd "$(dirname "$0")/.."
if [ ! -x "$VENV/bin/python" ]; then
  echo "no venv in $VENV: creating one there (~2 GB of wheels from PyPI)" >&2
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q torch==2.11.0 torch_geometric==2.8.0.post1 triton==3.6.0 "numpy<2.3" scipy pandas \
    scikit-learn networkx tqdm matplotlib joblib omegaconf pytest pytest-xdist pytest-timeout hypothesis
fi
"$VENV/bin/python" -c "import torch, torch_geometric, triton, numpy; print('torch', torch.__version__, 'pyg',
torch_geometric.__version__, 'triton', triton.__version__, 'numpy', numpy.__version__)"
# python -m pytest puts this checkout first on sys.path: gatbio is imported from here, not installed there.
# The whole suite, slow tests included (the Triton compile stages too); as on the GPU machine (GPU.md) without
# the notebook packages (those tests skip) and Dask.
MPLBACKEND=Agg "$VENV/bin/python" -m pytest -q -p no:cacheprovider -n 2 tests \
  --ignore=tests/test_notebooks.py --ignore=tests/test_distributed.py
