"""Where native extensions find dpk's extension kit (docs/extensions.md): the headers
``dpk/extension.hpp`` and ``dpk/extension.h`` (with ``dpk.h`` and ``dpk_types.h``) and the
``dpkConfig.cmake`` that gives ``find_package(dpk)`` the target ``dpk::extension``.

An installed package holds them in ``dpk/include`` and ``dpk/cmake``; a source checkout (and an
editable install, whose package folder is the source's) in ``frontends/python/include``,
``frontends/c/include``, ``include`` and ``frontends/python/cmake``.
"""

from __future__ import annotations

import os

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # .../dpk


def _package_or_tree(installed, *in_tree):
    """[dpk/<installed>] when the package has it (a wheel), else the source tree's folders,
    relative to frontends/python."""
    folder = os.path.join(_PACKAGE, installed)
    if os.path.isdir(folder):
        return [folder]
    python_frontend = os.path.dirname(os.path.dirname(_PACKAGE))  # frontends/python
    return [os.path.normpath(os.path.join(python_frontend, p)) for p in in_tree]


def get_include_dirs():
    """The folders to add to the include path of a native extension that uses
    ``dpk/extension.hpp`` (one in an installed package, three in a source checkout)."""
    return _package_or_tree("include", "include", "../c/include", "../../include")


def get_include():
    """The folder holding ``dpk/extension.hpp`` and ``dpk/extension.h`` (dpctl's name). In a
    source checkout ``dpk.h`` lies elsewhere: use ``get_include_dirs()`` or
    ``get_cmake_dir()``."""
    return get_include_dirs()[0]


def get_cmake_dir():
    """The folder of dpk's ``dpkConfig.cmake`` for native extensions: pass it as ``dpk_DIR``,
    then ``find_package(dpk CONFIG REQUIRED)`` and link ``dpk::extension``."""
    return _package_or_tree("cmake", "cmake")[0]
