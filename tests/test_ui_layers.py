"""``app/ui`` is in layers, each building only on those below it, with no import circle:
kit < charts < views < panels < window. The core (``app`` outside ``app/ui``) imports
nothing of ``sentspace.app.ui`` (tests/test_core_is_qt_free.py checks it has no Qt at all)."""

from __future__ import annotations

import ast
from pathlib import Path

UI = Path(__file__).resolve().parents[1] / "app" / "ui"
LAYERS = ("kit", "charts", "views", "panels", "window")


def ui_imports() -> dict[str, set[str]]:
    """Every app.ui module and the app.ui modules it imports (anywhere in it, not
    only at the top: a late import still makes a circle; a type named under
    ``if TYPE_CHECKING`` is not imported)."""
    graph = {}
    for path in UI.rglob("*.py"):
        parts = ("sentspace", *path.relative_to(UI.parent.parent).with_suffix("").parts)
        module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING":
                node.body = []
        found = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module:
                found.add(node.module)
            elif isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
        graph[module] = {name for name in found if name.startswith("sentspace.app.ui.")}
    return graph


def layer(module: str) -> int:
    return LAYERS.index(module.split(".")[3])


def test_every_ui_module_is_in_a_layer_and_builds_only_on_lower_ones():
    graph = ui_imports()
    layered = [module for module in graph if module != "sentspace.app.ui"]
    assert {module.split(".")[3] for module in layered} == set(LAYERS)
    upward = [
        (module, imported)
        for module in layered
        for imported in graph[module]
        if layer(imported) > layer(module)
    ]
    assert upward == []


def import_circles(graph: dict[str, set[str]], starts: list[str]) -> list[list[str]]:
    """The import circles met walking ``graph`` (module: the modules it imports) depth
    first from each of ``starts``, each as the path that closes it."""
    circles, done, path = [], set(), []

    def visit(module: str) -> None:
        if module in path:
            circles.append(path[path.index(module) :] + [module])
            return
        if module in done:
            return
        path.append(module)
        for imported in sorted(graph.get(module, ())):
            visit(imported)
        path.pop()
        done.add(module)

    for module in starts:
        visit(module)
    return circles


def test_no_import_circle():
    graph = ui_imports()
    assert import_circles(graph, sorted(graph)) == []


def test_no_controller_takes_the_main_window():
    """Controllers take typed collaborators: a parameter named ``window`` must be a Qt
    window class (the docks of a QMainWindow), never the MainWindow with everything."""
    untyped = []
    for path in (UI / "window").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef) and node.name == "__init__":
                for argument in node.args.args[1:]:
                    annotation = ast.unparse(argument.annotation) if argument.annotation else ""
                    if "MainWindow" in annotation.replace("QMainWindow", "") or (
                        argument.arg in ("window", "owner_window") and not annotation
                    ):
                        untyped.append(f"{path.name}: {argument.arg}")
    assert untyped == []
