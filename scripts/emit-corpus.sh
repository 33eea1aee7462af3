#!/usr/bin/env bash
# emit-corpus.sh OUT_DIR - writes every compilation stage (dpk IR, LLVM IR per target, host
# assembly, SPIR-V, OpenCL C, PTX) of every IR file in the test corpus to OUT_DIR, one file per
# (kernel file, stage, variant). Refactorings that must not change code generation are checked by
# running it before and after and comparing the two folders: `diff -r before after`.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${DPK_BUILD_DIR:-$root/build}
dpkc=$build/bin/dpkc
out=${1:?usage: emit-corpus.sh OUT_DIR}
mkdir -p "$out"

# Host code is emitted for a fixed CPU so that the output does not depend on this machine.
variants=(
  "ir|--emit=ir"
  "llvm-host|--emit=llvm --target=host --arch=x86-64-v3"
  "llvm-host-ls64|--emit=llvm --target=host --arch=x86-64-v3 --local-size=64"
  "llvm-spirv|--emit=llvm --target=spirv"
  "llvm-ptx|--emit=llvm --target=ptx --arch=sm_90"
  "host-asm|--emit=host-asm --arch=znver3"
  "spirv|--emit=spirv"
  "opencl-c|--emit=opencl-c"
  "opencl-c-d2|--emit=opencl-c --dims=2"
  "ptx|--emit=ptx --arch=sm_90"
  "ptx-d2|--emit=ptx --arch=sm_90 --dims=2"
)
count=0
for file in "$root"/tests/ir/corpus/*.dpkir "$root"/tests/ir/roundtrip/*.dpkir \
            "$root"/tests/compiler/kernels/*.dpkir; do
  stem=$(basename "$(dirname "$file")")-$(basename "$file" .dpkir)
  for variant in "${variants[@]}"; do
    name=${variant%%|*}
    read -r -a flags <<<"${variant#*|}"
    # A stage that rejects a kernel (e.g. a dimension mismatch) is recorded with its message,
    # so that a change in what is rejected shows up in the comparison too.
    if ! "$dpkc" "${flags[@]}" -o "$out/$stem.$name" "$file" 2>"$out/$stem.$name.err"; then
      echo "(failed)" >>"$out/$stem.$name.err"
    fi
    [ -s "$out/$stem.$name.err" ] || rm -f "$out/$stem.$name.err"
    count=$((count + 1))
  done
done
echo "emit-corpus: $count outputs in $out"
