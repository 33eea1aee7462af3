#!/usr/bin/env bash
# test-wheel.sh - proves that the wheel from scripts/build-wheel.sh installs and runs on a machine
# that has none of dpk's build-time libraries.
#
# Method: a fresh venv without system site packages gets the wheel (and numpy from PyPI); then
# README.md's Python example, the `dpk-ls` console script and a small kernel test run inside a
# user + mount namespace (unshare -Urm; no root needed) in which every shared library the
# *unrepaired* build loads from this machine - LLVM 15, the SPIR-V translator, yaml-cpp, oneTBB,
# hwloc, and everything they pull in (z3, ICU, libxml2, libffi, ...) - has /dev/null bind-mounted
# over it. Any attempt to load one of them fails loudly ("file too short"), so the run passes only
# if the wheel carries everything itself. Allowed from the system, as the manylinux policy says:
# glibc's libraries, libstdc++, libgcc_s and zlib; and the vendor runtimes (OpenCL ICDs, Level
# Zero, libcuda), which dpk finds at run time (the wheel carries its own OpenCL ICD loader, so the
# system's libOpenCL.so.1 is hidden too). A check inside the namespace first
# proves that the hiding works (dlopen of a hidden library must fail).
#   scripts/test-wheel.sh            (after scripts/build-wheel.sh)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${DPK_WHEEL_DIR:-$root/build-wheel}
python=${PYTHON:-python3}
wheel=$(ls "$out"/wheelhouse/dpk-*.whl)
venv=$out/test-venv

echo "test-wheel: $(basename "$wheel"), $(du -k "$wheel" | cut -f1) KiB"
rm -rf "$venv"
"$python" -m venv "$venv"
start=$(date +%s.%N)
"$venv/bin/python" -m pip install -q --disable-pip-version-check "$wheel"
echo "test-wheel: pip install took $(echo "$(date +%s.%N) - $start" | bc) s (numpy included)"
du -sh "$venv"/lib/python3*/site-packages/dpk* | sed 's/^/test-wheel: installed /'

# The libraries the unrepaired build resolves from this machine.
allowed='^(linux-vdso|ld-linux|libc|libm|libdl|librt|libpthread|libgcc_s|libstdc\+\+|libz)\.'
mapfile -t hidden < <(
  find "$out/release" \( -name '*.so' -o -name 'dpk-ls' -o -name 'dpkc' \) -type f -print0 |
  xargs -0 ldd 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}' |
  grep -Ev "$allowed" | awk '{print $2}' | xargs -r readlink -f | sort -u)
((${#hidden[@]})) || { echo "test-wheel: found no build-time libraries to hide" >&2; exit 1; }
echo "test-wheel: hiding ${#hidden[@]} libraries: $(printf '%s ' "${hidden[@]##*/}")"

example=$out/readme_example.py
awk '/^```python/{f=1;next}/^```/{f=0}f' "$root/README.md" > "$example"
cat > "$out/every_device.py" <<'PY'
import numpy as np
import dpk
for d in dpk.get_devices():
    a = dpk.asarray(np.arange(1000, dtype=np.float32), device=d)
    assert float(dpk.sum(a * 2)) == 999000.0, d
    print("test-wheel: kernels ran on", d.filter_string)
PY
probe=${hidden[0]}
unshare -Urm bash -euo pipefail -c '
  venv=$1; example=$2; probe=$3; shift 3
  for lib in "$@"; do mount --bind /dev/null "$lib"; done
  if "$venv/bin/python" -c "import ctypes, sys; ctypes.CDLL(sys.argv[1])" "$probe" 2>/dev/null; then
    echo "test-wheel: $probe still loads: the hiding does not work" >&2; exit 1
  fi
  cd /tmp
  echo "test-wheel: README example:"; "$venv/bin/python" "$example"
  echo "test-wheel: dpk-ls:"; "$venv/bin/dpk-ls"
  printf "%s\n" "kernel @vadd(%a: ptr<global, f32>, %b: ptr<global, f32>) {" \
    "  %i = global_id 0 : i64" "  %x = load %a[%i] : f32" "  store %b[%i], %x" "  return" "}" |
    "$venv/bin/dpkc" --emit=spirv -o /tmp/dpk-test-wheel.spv -
  echo "test-wheel: dpkc wrote $(stat -c %s /tmp/dpk-test-wheel.spv) bytes of SPIR-V"
  "$venv/bin/python" "$(dirname "$example")/every_device.py"
' bash "$venv" "$example" "$probe" "${hidden[@]}"

# Outside the namespace the same venv also finds the system's OpenCL ICDs (inside it, PoCL's own
# LLVM is hidden too, so the ICD loader finds no platform: expected, and dpk-ls says why).
echo "test-wheel: with the system's vendor runtimes visible:"
(cd /tmp && "$venv/bin/python" "$out/every_device.py")
# dpk-ls loads the OpenCL ICDs too; PoCL embeds the system's LLVM 15, whose symbols must not
# bind to the wheel's copy (frontends/c/tools/local_launcher.c).
"$venv/bin/dpk-ls" | grep -E '^\*? +[a-z_]+:[a-z]+:[0-9]+ ' | sed 's/^/test-wheel: dpk-ls: /'
echo "test-wheel: passed"
