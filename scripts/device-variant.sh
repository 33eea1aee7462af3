#!/usr/bin/env bash
# device-variant.sh NAME BUILD_DIR - stages one build's libdpk.so and CUDA plugin (stripped) as
# variant NAME in .devcarry/variants/NAME (git-ignored), for scripts/device-cuda-bench.sh on the
# GPU machine, which runs the programs of the pack (device-pack.sh) against each variant's libdpk
# in turn. A variant is about 2 MB, so several travel beside one pack. The plugin folder holds
# only the CUDA plugin: every variant then loads the same set of plugins. The CUDA plugin tests'
# PTX files come along when the build has them.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
[ $# -eq 2 ] || { echo "usage: $0 NAME BUILD_DIR" >&2; exit 2; }
name=$1
build=$(cd "$2" && pwd)
dest="$root/.devcarry/variants/$name"
rm -rf "$dest"
mkdir -p "$dest/lib/dpk/plugins"
cp -L "$build/lib/libdpk.so" "$dest/lib/"
cp -L "$build/lib/dpk/plugins/libdpk_backend_cuda.so" "$dest/lib/dpk/plugins/"
strip --strip-debug "$dest/lib/libdpk.so" "$dest/lib/dpk/plugins/libdpk_backend_cuda.so"
if [ -d "$build/tests/backends/cuda/ptx" ]; then
  cp -a "$build/tests/backends/cuda/ptx" "$dest/ptx"
fi
du -sh "$dest"
