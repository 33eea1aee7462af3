#!/usr/bin/env bash
# check_install.sh BUILD_DIR SOURCE_DIR WORK_DIR - see CMakeLists.txt beside this file.
set -euo pipefail
build=$1 source=$2 work=$3
rm -rf "$work"
mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
# A plain install is the C package only: no second libdpk and plugin set from the Python
# component's rules (<prefix>/dpk), no demo program.
for unwanted in dpk bin/dpk-demo; do
  if [ -e "$work/prefix/$unwanted" ]; then
    echo "cmake --install left $unwanted in the prefix" >&2
    exit 1
  fi
done
for wanted in lib/libdpk.so lib/dpk/plugins/libdpk_backend_host.so include/dpk/dpk.h \
              include/dpk/dpk_types.h bin/dpk-ls lib/cmake/dpk/dpkConfig.cmake \
              lib/pkgconfig/dpk.pc include/dpk/extension.h include/dpk/extension.hpp; do
  if [ ! -e "$work/prefix/$wanted" ]; then
    echo "cmake --install did not install $wanted" >&2
    exit 1
  fi
done
# find_package(dpk) route.
cmake -S "$source/examples/c" -B "$work/examples" -DCMAKE_PREFIX_PATH="$work/prefix" > "$work/configure.log"
cmake --build "$work/examples" > "$work/build.log"
"$work/examples/ndrange_host"
"$work/examples/ir_vector_add"
# pkg-config route, with a C99 compiler in pedantic mode.
export PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig"
cc -std=c99 -pedantic -Werror "$source/examples/c/ndrange_host.c" $(pkg-config --cflags --libs dpk) -o "$work/ndrange_pc"
"$work/ndrange_pc"
# The native-extension headers stand alone in the prefix: the C ABI as C99, the C++ layer as C++17
# (docs/extensions.md), where Python's headers are there to include.
if command -v python3-config > /dev/null; then
  printf '#include <dpk/extension.h>\nint main(void) { return dpk_ext_import() == 0; }\n' |
    cc -std=c99 -Werror -fsyntax-only -I"$work/prefix/include" $(python3-config --includes) -x c -
  printf '#include <dpk/extension.hpp>\nint main() { return dpk::ext::Array().valid(); }\n' |
    c++ -std=c++17 -Werror -fsyntax-only -I"$work/prefix/include" $(python3-config --includes) -x c++ -
fi
grep -q "dpk::extension" "$work/prefix/lib/cmake/dpk/dpkConfig.cmake"
# The installed dpk-ls finds the installed plugins (beside the installed libdpk.so).
listing=$("$work/prefix/bin/dpk-ls")
grep -qE "host +loaded +$work/prefix/(bin/\.\./)?lib/dpk/plugins/" <<< "$listing"
echo "installed package: ok"
