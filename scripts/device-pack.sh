#!/usr/bin/env bash
# device-pack.sh - packs a build for the GPU machine (NVIDIA H100, Ubuntu 24.04, no Debian
# packages of ours): libdpk, the plugins, the test and benchmark programs, and every shared
# library they need that the GPU machine lacks (LLVM 15, SPIRV-LLVM-Translator, oneTBB,
# yaml-cpp, Google Benchmark...), xz-compressed into .devcarry/pack/dpk-pack.tar.xz (git-ignored).
# On the GPU machine: scripts/device-unpack.sh sets it up (see docs/gpu-machine.md).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${DPK_BUILD_DIR:-$root/build}
out="$root/.devcarry/pack"
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/bin" "$stage/lib/dpk/plugins" "$stage/deps" "$out"

# The GPU-only programs are not part of the default build (nothing here runs them): build them now.
for target in dpk_cuda_baselines dpk_cuda_capi_bench; do
  ninja -C "$build" -t query "$target" > /dev/null 2>&1 && ninja -C "$build" "$target" > /dev/null
done
cp -a "$build"/lib/libdpk*.so* "$stage/lib/"  # libdpk, libdpk-ls (the dpk-ls tool), bench baselines
cp -a "$build"/lib/dpk/plugins/*.so "$stage/lib/dpk/plugins/"
# The CUDA backend tests' kernels (nvcc's PTX; device-run.sh points DPK_TEST_PTX_DIR here).
if compgen -G "$build/tests/backends/cuda/ptx/*.ptx" > /dev/null; then
  mkdir -p "$stage/ptx" && cp -a "$build"/tests/backends/cuda/ptx/*.ptx "$stage/ptx/"
fi
# Test plugins only where they were built (a build folder of selected targets may have the
# folder but none of them).
if compgen -G "$build/lib/dpk/testplugins/*.so" > /dev/null; then
  mkdir -p "$stage/lib/dpk/testplugins" && cp -a "$build"/lib/dpk/testplugins/*.so "$stage/lib/dpk/testplugins/"
fi
# The programs the GPU runs use (DPK_PACK_PROGRAMS overrides); unit-test binaries of CPU-only
# parts stay behind, which keeps the pack inside the device tool's 64 MiB.
programs=${DPK_PACK_PROGRAMS:-"dpk-ls dpk-demo dpkc dpk_bench dpk_conformance_tests dpk_cuda_backend_tests dpk_cuda_baselines dpk_cuda_capi_bench dpk_opencl_backend_tests dpk_opencl_pairwise_lab dpk_opencl_program_binary"}
for program in $programs; do
  [ -x "$build/bin/$program" ] && cp -a "$build/bin/$program" "$stage/bin/"
done
[ -d "$build/python" ] && cp -aL "$build/python" "$stage/python"

# Libraries the GPU machine has itself (glibc, the C++ runtime, the NVIDIA driver's, the
# OpenCL ICD loader, hwloc) stay behind; everything else our binaries load comes along.
system_libs='^(linux-vdso|ld-linux|libc\.|libm\.|libdl\.|libpthread\.|librt\.|libstdc\+\+|libgcc_s|libcuda|libnvidia|libOpenCL|libhwloc)'
find "$stage/bin" "$stage/lib" -type f \( -perm -u+x -o -name '*.so*' \) -print0 |
  xargs -0 -r ldd 2>/dev/null | awk '/=> \// {print $1, $3}' | sort -u |
  while read -r name path; do
    [[ "$name" =~ $system_libs ]] && continue
    [[ "$path" == "$stage"* || "$path" == "$build"* ]] && continue
    cp -L "$path" "$stage/deps/$name"
  done
# Debug information is most of the size and is not needed to run.
find "$stage" -type f \( -perm -u+x -o -name '*.so*' \) -exec strip --strip-debug {} + 2>/dev/null || true
tar -C "$stage" -cf - . | xz -T2 -6 > "$out/dpk-pack.tar.xz"
cp "$root/scripts/device-unpack.sh" "$out/"
ls -la "$out"
