"""The package's layering, checked from its source: imports only go downward and never in a
circle, including imports written inside functions (which would hide a cycle at import time).

LAYERS below is the one place the order lives (docs/python.md describes it). A module may
import modules of its own tier or of lower tiers; every module must belong to a tier, so a new
room or module is placed in the order when it is added. Needs no extension: the sources are
parsed with ``ast``, nothing is imported.
"""

import ast
from pathlib import Path

import pytest

PACKAGE_DIR = Path(__file__).resolve().parents[1] / "src" / "dpk"

# Lowest tier first. An entry names a module or a package (then every module under it);
# "dpk" alone is the package's __init__.py.
LAYERS = (
    ("dpk._core",),         # the compiled extension (no Python source)
    ("dpk._errors",),       # the exception classes, one per dpk status
    ("dpk._core_loader",),  # imports the extension once, registers the exception classes
    ("dpk._ir",),           # the IR-building layer every programming model shares
    ("dpk._runtime",),      # devices and queues, the policy's answers, diagnostics
    ("dpk.arrays",),        # dpk arrays: device memory, DLPack, creation functions
    ("dpk.kernels",),       # the kernel model: kapi, the AST compiler, launch
    ("dpk.extensions",),    # array extensions written as dpk kernels (linalg factorizations)
    ("dpk.primitives",),    # random, vectorize, sort/scan/reduce/... written as dpk kernels
    ("dpk.autopar",),       # the jit model: @dpk.jit functions' prange regions as kernels
    ("dpk._serialization",),  # pickling of kernels, device functions and vectorize objects
    ("dpk.scaleout",),      # MPI ranks and buffers, Dask chunks (docs/scale-out.md)
    ("dpk.fft",),           # the Array API's fft extension, written on the array layer
    ("dpk", "dpk.kernel_api", "dpk.diagnostics", "dpk.linalg", "dpk.random",  # public names
     "dpk._cli"),  # the console scripts' entry points
)

# Modules that are not Python sources in the package folder.
EXTENSION_MODULES = {"dpk._core"}

# Imports a function may make lazily: the extension, which may be missing (the pure-Python
# parts work without it). Any other import of the package belongs at module level.
LAZY_IMPORTS_ALLOWED = EXTENSION_MODULES


# ---- the import graph ------------------------------------------------------------------------

def collect_modules(package_dir):
    """{module name: path} of every .py file of the package."""
    modules = {}
    root = package_dir.parent
    for path in sorted(package_dir.rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    return modules


def _is_package(name, modules):
    return modules[name].name == "__init__.py" if name in modules else False


class _ImportVisitor(ast.NodeVisitor):
    """(target, line, at module level) for every import, with function bodies marked."""

    def __init__(self):
        self.found = []
        self.depth = 0

    def _function(self, node):
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = _function

    def visit_Import(self, node):
        self.found.append((node, self.depth == 0))

    def visit_ImportFrom(self, node):
        self.found.append((node, self.depth == 0))


def _prefixes(name):
    parts = name.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts) + 1)]


def import_edges(modules, package_name="dpk"):
    """[(importer, imported, line, at module level)] between modules of the package.

    An import loads the named module and every package above it. Packages above the importer
    itself are already being imported when it runs, so they are no dependency, unless names are
    taken from one (``from .. import name`` of a name that is not a submodule needs that
    package's __init__ to have run)."""
    known = set(modules) | EXTENSION_MODULES
    edges = []
    for name, path in modules.items():
        package = name if _is_package(name, modules) else name.rpartition(".")[0]
        ancestors = set(_prefixes(name)[:-1])
        visitor = _ImportVisitor()
        visitor.visit(ast.parse(path.read_text(encoding="utf-8"), str(path)))
        for node, top in visitor.found:
            targets = set()
            if isinstance(node, ast.Import):
                for alias in node.names:
                    *implicit, explicit = _prefixes(alias.name)
                    targets.update(p for p in implicit if p not in ancestors)
                    targets.add(explicit)
            else:
                if node.level:
                    base = package.split(".")
                    base = base[:len(base) - (node.level - 1)]
                    source = ".".join(base + ([node.module] if node.module else []))
                else:
                    source = node.module
                *implicit, _ = _prefixes(source)
                targets.update(p for p in implicit if p not in ancestors)
                submodules = [f"{source}.{a.name}" for a in node.names
                              if f"{source}.{a.name}" in known]
                targets.update(submodules)
                if len(submodules) < len(node.names) or source not in ancestors:
                    targets.add(source)
            for target in sorted(targets):
                if target in known and target != name and \
                        target.split(".")[0] == package_name:
                    edges.append((name, target, node.lineno, top))
    return edges


def find_cycle(edges):
    """One import cycle as [m0, m1, ..., m0] with the edges' lines, or None."""
    graph = {}
    for src, dst, line, _ in edges:
        graph.setdefault(src, {}).setdefault(dst, line)
    state, stack = {}, []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(graph.get(node, {})):
            if state.get(nxt) == "open":
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state:
                cycle = visit(nxt)
                if cycle:
                    return cycle
        stack.pop()
        state[node] = "done"
        return None

    for node in sorted(graph):
        if node not in state:
            cycle = visit(node)
            if cycle:
                return [(a, graph[a][b]) for a, b in zip(cycle, cycle[1:])] + [(cycle[-1], None)]
    return None


def format_cycle(cycle):
    return " -> ".join(f"{m} (line {line})" if line else m for m, line in cycle)


def tier_of(module):
    """The index of the module's tier in LAYERS, or None when it is in none."""
    for index, entries in enumerate(LAYERS):
        for entry in entries:
            if module == entry or (entry != "dpk" and module.startswith(entry + ".")):
                return index
    return None


# ---- the tests -------------------------------------------------------------------------------

MODULES = collect_modules(PACKAGE_DIR)
EDGES = import_edges(MODULES)


def test_the_package_is_found():
    assert "dpk" in MODULES and len(MODULES) > 10, PACKAGE_DIR


def test_every_module_has_a_tier():
    missing = sorted(m for m in MODULES if tier_of(m) is None)
    assert not missing, f"modules in no tier of LAYERS (add them where they belong): {missing}"


def test_no_import_cycles():
    cycle = find_cycle(EDGES)
    assert cycle is None, f"import cycle: {format_cycle(cycle)}"


def test_imports_go_downward():
    upward = [f"{src} (tier {tier_of(src)}) imports {dst} (tier {tier_of(dst)}) at line {line}"
              for src, dst, line, _ in EDGES
              if None not in (tier_of(src), tier_of(dst)) and tier_of(dst) > tier_of(src)]
    assert not upward, "imports that go up the layers:\n" + "\n".join(upward)


def test_package_imports_are_at_module_level():
    lazy = [f"{src} imports {dst} inside a function (line {line})"
            for src, dst, line, top in EDGES if not top and dst not in LAZY_IMPORTS_ALLOWED]
    assert not lazy, "\n".join(lazy)


# The checker itself, on packages made for the purpose: it must see a cycle that only a
# function-level import closes, and a name taken from a package above.

def _write_package(tmp_path, files):
    for rel, text in files.items():
        path = tmp_path / "dpk" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return collect_modules(tmp_path / "dpk")


def test_checker_sees_a_cycle_hidden_in_a_function(tmp_path):
    modules = _write_package(tmp_path, {
        "__init__.py": "",
        "low/__init__.py": "from .a import f\n",
        "low/a.py": "def f():\n    from ..high import g\n    return g\n",
        "high.py": "from .low import f\n\ndef g():\n    return f\n",
    })
    edges = import_edges(modules)
    assert ("dpk.low.a", "dpk.high", 2, False) in edges
    cycle = find_cycle(edges)
    assert cycle is not None and {m for m, _ in cycle} == {"dpk.low", "dpk.low.a", "dpk.high"}


@pytest.mark.parametrize("statement, target", [
    ("from .. import name", "dpk"),
    ("import dpk.kernels.x", "dpk.kernels.x"),
    ("from ..kernels import x", "dpk.kernels.x"),
    ("from dpk.kernels.x import thing", "dpk.kernels"),
])
def test_checker_resolves_imports(tmp_path, statement, target):
    modules = _write_package(tmp_path, {
        "__init__.py": "",
        "kernels/__init__.py": "",
        "kernels/x.py": "",
        "arrays/__init__.py": "",
        "arrays/y.py": statement + "\n",
    })
    assert ("dpk.arrays.y", target) in {(s, d) for s, d, _, _ in import_edges(modules)}
