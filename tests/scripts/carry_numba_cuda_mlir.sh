#!/usr/bin/env bash
# Packs numba-cuda-mlir for the GPU machine, which has no package index, a Python 3.12 and
# room for 64 MiB per transfer: its wheel (~71 MB) does not fit, so this script carries the
# package as an xz tarball plus an install script, in .gpu-mlir/ (git-ignored).
#
#   tests/scripts/carry_numba_cuda_mlir.sh        here: writes .gpu-mlir/ (prints its size)
#   bash .gpu-mlir/install.sh                     there: unpacks into .mlir_site/ (kept while
#                                                 the machine stays warm; ignored by git)
#   PYTHONPATH=$PWD/.mlir_site bash .gpu/run.sh python3 -m pytest -q -p no:cacheprovider \
#       tests/test_mlir_*.py                      there, with .gpu/ (../shared/gpu/prepare.sh)
#   PYTHONPATH=$PWD/.mlir_site bash .gpu/run.sh python3 benchmarks/binding_overhead.py \
#       --backend mlir
#
# .gpu-mlir/ and .gpu/ together are over 64 MiB: carry .gpu-mlir/ in one call (running
# install.sh), then .gpu/ in the next, while the machine is still warm.
# NUMBA_CUDA_MLIR_VERSION (default 0.6.0) and PYTHON_VERSION (default 3.12) pick the wheel.
set -euo pipefail
root=$(git rev-parse --show-toplevel)
cd "$root"
version=${NUMBA_CUDA_MLIR_VERSION:-0.6.0}
python_version=${PYTHON_VERSION:-3.12}
exclude=$(git rev-parse --git-path info/exclude)  # .git is a file in a worktree
mkdir -p "$(dirname "$exclude")"
for ignored in /.gpu-mlir/ /.mlir_site/; do
  grep -qx "$ignored" "$exclude" 2>/dev/null || echo "$ignored" >> "$exclude"
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 -m pip download -q --no-deps --only-binary=:all: --python-version "$python_version" \
  --implementation cp --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 \
  -d "$work/wheel" "numba-cuda-mlir==$version"
mkdir -p "$work/site"
python3 -m zipfile -e "$work"/wheel/numba_cuda_mlir-*.whl "$work/site"
find "$work/site" -name __pycache__ -type d -prune -exec rm -rf {} +
rm -rf .gpu-mlir && mkdir -p .gpu-mlir
tar -C "$work/site" -cf - . | xz -T0 -9 > ".gpu-mlir/numba_cuda_mlir-$version.tar.xz"
cat > .gpu-mlir/install.sh <<'EOF'
#!/usr/bin/env bash
# Unpacks numba-cuda-mlir into .mlir_site/ of the project root (put it on PYTHONPATH).
set -euo pipefail
here=$(dirname "$(readlink -f "$0")")
root=$(dirname "$here")
rm -rf "$root/.mlir_site" && mkdir -p "$root/.mlir_site"
xz -dc "$here"/numba_cuda_mlir-*.tar.xz | tar -C "$root/.mlir_site" -xf -
PYTHONPATH="$root/.mlir_site${PYTHONPATH:+:$PYTHONPATH}" python3 -c \
  "import numba_cuda_mlir; print('numba-cuda-mlir', numba_cuda_mlir.__version__, 'in', '$root/.mlir_site')"
EOF
chmod +x .gpu-mlir/install.sh
du -sh .gpu-mlir
