#!/usr/bin/env bash
# check_dpkc.sh DPKC - dpkc on hostile input (issue 15, item O): every case ends in a typed
# error (exit status 1 and a message), never an abort, a stack overflow or a hang, and deep but
# legal nesting compiles in bounded time. Registered as the CTest test compiler.dpkc_hostile.
set -u
dpkc=${1:?usage: check_dpkc.sh DPKC}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

# nested KIND DEPTH: a kernel whose body nests DEPTH regions of KIND (if, for), unindented.
nested() {
  local kind=$1 depth=$2 d
  echo 'kernel @k(%p: ptr<global, i32>, %c: bool, %n: i64) {'
  echo '%z = const 0 : i64'
  for ((d = 0; d < depth; d++)); do
    if [ "$kind" = if ]; then echo 'if %c {'; else echo "for %i$d = %z to %n step %n {"; fi
  done
  echo '%v = const 1 : i32'
  echo 'store %p[%z], %v'
  for ((d = 0; d < depth; d++)); do echo '}'; done
  echo '}'
}

# expect_error NAME SUBSTRING DPKC-ARGS...: dpkc exits 1 within 60 s with SUBSTRING on stderr.
expect_error() {
  local name=$1 expected=$2
  shift 2
  timeout 60 "$dpkc" "$@" -o "$tmp/out" 2>"$tmp/err"
  local status=$?
  if [ "$status" -ne 1 ] || ! grep -qF -- "$expected" "$tmp/err"; then
    echo "FAIL $name: exit status $status (want 1 and '$expected'); stderr: $(head -c 400 "$tmp/err")"
    failures=$((failures + 1))
  else
    echo "ok   $name"
  fi
}

# expect_success_within SECONDS NAME DPKC-ARGS...
expect_success_within() {
  local seconds=$1 name=$2
  shift 2
  local start=$SECONDS
  timeout "$seconds" "$dpkc" "$@" -o "$tmp/out" 2>"$tmp/err"
  local status=$?
  if [ "$status" -ne 0 ]; then
    echo "FAIL $name: exit status $status within ${seconds} s; stderr: $(head -c 400 "$tmp/err")"
    failures=$((failures + 1))
  else
    echo "ok   $name ($((SECONDS - start)) s)"
  fi
}

nested if 1 >"$tmp/small.dpkir"
nested if 10000 >"$tmp/if10000.dpkir"
nested for 10000 >"$tmp/for10000.dpkir"
nested if 256 >"$tmp/if256.dpkir"
nested for 200 >"$tmp/for200.dpkir"
printf 'kernel @a.b(%%p: ptr<global, i32>) {\n  return\n}\n' >"$tmp/dotted.dpkir"
printf 'kernel @kernel(%%p: ptr<global, i32>) {\n  return\n}\n' >"$tmp/keyword.dpkir"

# --arch is checked against the target before LLVM sees it (a host object for sm_90 aborted).
expect_error host-obj-arch-sm_90 "host: unknown CPU 'sm_90'" --emit=host-obj --arch=sm_90 "$tmp/small.dpkir"
expect_error host-asm-arch-sm_90 "host: unknown CPU 'sm_90'" --emit=host-asm --arch=sm_90 "$tmp/small.dpkir"
expect_error llvm-host-arch-sm_90 "host: unknown CPU 'sm_90'" --emit=llvm --arch=sm_90 "$tmp/small.dpkir"
expect_error ptx-arch-znver3 "ptx: bad CUDA architecture 'znver3'" --emit=ptx --arch=znver3 "$tmp/small.dpkir"
expect_error ptx-arch-sm_1 "ptx: bad CUDA architecture 'sm_1'" --emit=ptx --arch=sm_1 "$tmp/small.dpkir"
expect_error ptx-arch-sm_90x "ptx: bad CUDA architecture 'sm_90x'" --emit=ptx --arch=sm_90x "$tmp/small.dpkir"
expect_success_within 60 host-obj-arch-znver3 --emit=host-obj --arch=znver3 "$tmp/small.dpkir"
expect_success_within 60 ptx-arch-sm_90 --emit=ptx --arch=sm_90 "$tmp/small.dpkir"

# Nesting beyond the IR's limit is a parse error naming line:column (it overflowed the stack).
expect_error if-depth-10000 "if10000.dpkir:259:7: error: regions nest deeper than 256 levels" --emit=ir "$tmp/if10000.dpkir"
expect_error for-depth-10000 "for10000.dpkir:259:" --emit=ir "$tmp/for10000.dpkir"

# Kernel names every target can use (@a.b was emitted as invalid OpenCL C).
expect_error kernel-name-dotted "kernel name 'a.b' is not a C identifier" --emit=opencl-c "$tmp/dotted.dpkir"
expect_error kernel-name-keyword "kernel name 'kernel' is reserved in C or OpenCL C" --emit=opencl-c "$tmp/keyword.dpkir"

# Linked device code (docs/linking.md): garbage, a missing file and no definition are typed errors.
printf 'extern func @f(%%a: i32) -> i32\nkernel @k(%%p: ptr<global, i32>) {\n%%z = const 0 : i64\n%%a = load %%p[%%z] : i32\n%%b = call @f(%%a) : i32\nstore %%p[%%z], %%b\n}\n' >"$tmp/extern.dpkir"
printf 'define i32 @f(i32 %%x) {' >"$tmp/garbage.ll"
printf 'int g(int x) { return x; }\n' >"$tmp/other.cl"
expect_error link-garbage-ll "garbage.ll: not valid LLVM 15 IR for target host" --emit=host-obj --link="$tmp/garbage.ll" "$tmp/extern.dpkir"
expect_error link-missing-file "cannot open $tmp/absent.ll" --emit=ptx --link="$tmp/absent.ll" "$tmp/extern.dpkir"
expect_error link-missing-symbol "symbol 'f' (declared i32(i32)) is not defined by the file $tmp/other.cl" --emit=opencl-c --link="$tmp/other.cl" "$tmp/extern.dpkir"
expect_error link-no-file "no file is linked for target spirv" --emit=spirv "$tmp/extern.dpkir"

# Deep legal nesting stays fast (if 2000 deep took 5.2 s to print; for 200 deep > 60 s at O3).
expect_success_within 20 if-depth-256-ir --emit=ir "$tmp/if256.dpkir"
expect_success_within 20 if-depth-256-opencl-c --emit=opencl-c "$tmp/if256.dpkir"
expect_success_within 30 if-depth-256-host --emit=host-obj "$tmp/if256.dpkir"
expect_success_within 30 for-depth-200-llvm --emit=llvm "$tmp/for200.dpkir"
expect_success_within 30 for-depth-200-ptx --emit=ptx --arch=sm_90 "$tmp/for200.dpkir"
expect_success_within 30 for-depth-200-spirv --emit=spirv "$tmp/for200.dpkir"

[ "$failures" -eq 0 ] || { echo "$failures case(s) failed"; exit 1; }
