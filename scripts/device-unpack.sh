#!/usr/bin/env bash
# device-unpack.sh - on the GPU machine: unpacks dpk-pack.tar.xz (from device-pack.sh) into
# /opt/dpk and prints the environment to use:  eval "$(.devcarry/pack/device-unpack.sh)"
# Registers NVIDIA's OpenCL ICD as docs/gpu-machine.md says, and links the source checkout to
# /work/main, where the programs built here look for kernel files.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
mkdir -p /opt/dpk
xz -dc "$here/dpk-pack.tar.xz" | tar -C /opt/dpk -xf -
mkdir -p /etc/OpenCL/vendors /work
[ -f /usr/local/nvidia/lib64/libnvidia-opencl.so.1 ] &&
  echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
[ -e /work/main ] || ln -s "$repo" /work/main
echo "export LD_LIBRARY_PATH=/opt/dpk/lib:/opt/dpk/deps\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
echo "export PATH=/opt/dpk/bin:\$PATH"
echo "export DPK_CACHE_DIR=/tmp/dpk-cache"
