#!/usr/bin/env bash
# setup-intel-opencl.sh - make Intel's OpenCL CPU runtime (PyPI: intel-opencl-rt) and PoCL visible
# to the OpenCL ICD loader without touching /etc, so SPIR-V runs on a real OpenCL CPU device.
#
# Usage: eval "$(scripts/setup-intel-opencl.sh)"     (or run it and copy the export line)
#   DPK_OPENCL_VENDORS_DIR  where the .icd files go (default: <repo>/build/opencl-vendors)
#   DPK_SETUP_NO_INSTALL=1  never pip install; fail if the runtime is missing
#
# What it needs and why:
#  - intel-opencl-rt: libintelocl.so, the runtime itself, installed into Python's LIBDIR;
#  - intel-cmplr-lib-rt: libimf/libsvml/libirng/libintlc.so.5, which libintelocl.so links but
#    intel-opencl-rt does not pull in (it depends only on the licence package); without them the
#    ICD loader silently drops the platform. They land in the same LIBDIR, which libintelocl.so
#    finds through its RUNPATH, so no LD_LIBRARY_PATH is needed.
#  - oneTBB >= 2021.12 in the process: libintelocl.so calls
#    tbb::detail::r1::get_thread_reference_vertex, which Debian 12's libtbb12 (2021.8) lacks. A
#    process that loaded the system libtbb.so.12 first (dpk's host backend links it) makes
#    libintelocl.so fail with an undefined symbol, and the ICD loader silently drops the Intel
#    platform. The wheel's newer libtbb.so.12 (pip package tbb) is backward compatible, so this
#    script also exports LD_PRELOAD with it when the system oneTBB is too old.
# The wheel's own etc/OpenCL/vendors/intel-cpu.icd names a conda placeholder path
# (/opt/anaconda1anaconda2anaconda3), so this script writes its own intel.icd instead.
# Idempotent: rerunning rewrites the same files. Diagnostics go to stderr, the export to stdout.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
vendors=${DPK_OPENCL_VENDORS_DIR:-$repo/build/opencl-vendors}
python=${PYTHON:-python3}
say() { echo "setup-intel-opencl: $*" >&2; }

libdir=$("$python" -c "import sysconfig; print(sysconfig.get_config_var('LIBDIR'))")
need_install=()
[ -e "$libdir/libintelocl.so" ] || need_install+=(intel-opencl-rt)
[ -e "$libdir/libimf.so" ] || need_install+=(intel-cmplr-lib-rt)
if [ ${#need_install[@]} -gt 0 ]; then
  if [ "${DPK_SETUP_NO_INSTALL:-0}" = 1 ]; then
    say "missing in $libdir: ${need_install[*]} (pip install ${need_install[*]})"
    exit 1
  fi
  say "installing ${need_install[*]} with pip"
  "$python" -m pip install --quiet "${need_install[@]}" >&2
  libdir=$("$python" -c "import sysconfig; print(sysconfig.get_config_var('LIBDIR'))")
fi
if [ ! -e "$libdir/libintelocl.so" ]; then
  say "libintelocl.so not found in $libdir after installing intel-opencl-rt"
  exit 1
fi
missing=$(ldd "$libdir/libintelocl.so" | awk '/not found/ {print $1}' | sort -u | tr '\n' ' ')
if [ -n "$missing" ]; then
  say "libintelocl.so cannot load, missing: $missing(pip install intel-cmplr-lib-rt)"
  exit 1
fi

mkdir -p "$vendors"
# Written atomically (temp file + rename): another process's tests may be reading the folder,
# and a truncated .icd file makes the ICD loader drop that platform silently.
install_icd() { # content destination
  local tmp
  tmp=$(mktemp "$vendors/.icd.XXXXXX")
  printf '%s\n' "$1" > "$tmp"
  chmod 644 "$tmp"
  mv -f "$tmp" "$2"
}
install_icd "$libdir/libintelocl.so" "$vendors/intel.icd"
if [ -e /etc/OpenCL/vendors/pocl.icd ]; then
  install_icd "$(cat /etc/OpenCL/vendors/pocl.icd)" "$vendors/pocl.icd"
else
  say "no /etc/OpenCL/vendors/pocl.icd (apt-get install pocl-opencl-icd): Intel only"
fi
# Other vendors registered system-wide (NVIDIA on the GPU machine) stay visible too.
for icd in /etc/OpenCL/vendors/*.icd; do
  [ -e "$icd" ] && [ ! -e "$vendors/$(basename "$icd")" ] && install_icd "$(cat "$icd")" "$vendors/$(basename "$icd")"
done

if command -v clinfo > /dev/null; then
  platforms=$(OCL_ICD_VENDORS="$vendors" clinfo -l 2>/dev/null || true)
  echo "$platforms" | sed 's/^/setup-intel-opencl:   /' >&2
  if [[ "$platforms" != *"Intel(R) OpenCL"* ]]; then
    say "the ICD loader did not list Intel's platform; see the clinfo output above"
    exit 1
  fi
fi
echo "export OCL_ICD_VENDORS=$vendors"

tbb_symbol=_ZN3tbb6detail2r127get_thread_reference_vertexEPNS0_2d126wait_tree_vertex_interfaceE
# No reader in these pipelines stops early (awk's `exit`, grep -q): under pipefail the writer's
# SIGPIPE would fail the pipeline, and `set -e` this script, depending on timing.
system_tbb=$({ ldconfig -p 2>/dev/null || /sbin/ldconfig -p 2>/dev/null; } |
  awk '/libtbb\.so\.12 .*x86-64/ && !found {print $NF; found = 1}')
tbb_exports=""
[ -n "$system_tbb" ] && tbb_exports=$(nm -D --defined-only "$system_tbb" 2>/dev/null || true)
if [ -n "$system_tbb" ] && [[ "$tbb_exports" != *"$tbb_symbol"* ]]; then
  say "system oneTBB ($system_tbb) is older than libintelocl.so needs: preloading the wheel's"
  case " ${LD_PRELOAD:-} " in
    *" $libdir/libtbb.so.12 "*) echo "export LD_PRELOAD=${LD_PRELOAD:-}" ;;
    *) echo "export LD_PRELOAD=$libdir/libtbb.so.12${LD_PRELOAD:+ $LD_PRELOAD}" ;;
  esac
fi
