"""Leaving out of a runtime copy the definitions nothing in it uses.

A standalone module carries the runtime modules its rows need (``numbast.static.runtime_copy``),
but whole: the demo header's copy held helpers that only templates, struct pointers, the import
system's cached LTO-IR or dynamic binding call. Of the modules' top-level functions and classes,
the copy keeps those whose name is used somewhere in what it keeps, as a name, an attribute, an
imported name or a string (``getattr``, ``__all__``), until nothing more drops out; every other
statement (imports, assignments, registrations) is kept, and so is everything inside a kept
class. The rule is conservative: a name used anywhere keeps every definition of that name.

The carried sources' function annotations go too, and annotated names (fields) keep theirs as
text: nothing reads them, and a type named only in an annotation keeps no definition.
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Iterable

_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def without_unused_definitions(
    sources: Iterable[tuple[str, str]], entry: str, uses: Iterable[str] = ()
) -> list[tuple[str, str]]:
    """``sources`` ((module name, source), ...) without the top-level functions and classes that
    nothing left in them uses, and without function annotations. ``uses`` (the names the
    generated module's own code uses) and the names in the ``__all__`` of the module ``entry``
    (what generated modules use) are used; other modules' ``__all__`` go (a copy is never
    star-imported)."""
    outside = Counter(set(uses))
    trees = [(name, ast.parse(source)) for name, source in sources]
    for name, tree in trees:
        _drop_function_annotations(tree)
        if name != entry:
            tree.body = [statement for statement in tree.body if not _is_all(statement)]
    statements = [statement for _name, tree in trees for statement in tree.body]
    # An import is no use of what it imports: a definition only imported goes, and its imports
    # (one imported under another name is used by the import: its uses go by the other name).
    names = {
        id(statement): _renamed(statement) if _is_import(statement) else _names_used(statement)
        for statement in statements
    }
    kept = {id(statement) for statement in statements}
    while True:
        # How many kept statements use each name; a definition's use of its own name (a
        # recursive function, a class naming itself) does not keep it.
        users = Counter(name for key in kept for name in names[key]) + outside
        unused = {
            id(statement)
            for statement in statements
            if isinstance(statement, _DEFINITIONS)
            and id(statement) in kept
            and users[statement.name] == (statement.name in names[id(statement)])
        }
        if not unused:
            break
        kept -= unused
    dropped = {  # module -> the names of its definitions that go
        name: {s.name for s in tree.body if id(s) not in kept} for name, tree in trees
    }
    for name, tree in trees:
        body = []
        for statement in tree.body:
            if id(statement) not in kept:
                continue
            if isinstance(statement, ast.ImportFrom) and statement.level:
                # From another carried module: what went there is not imported.
                gone = dropped.get(_imported_module(name, statement), set())
                statement.names = [a for a in statement.names if a.name not in gone]
                if not statement.names:
                    continue
            body.append(statement)
        tree.body = body
        _drop_unused_typing_imports(tree)
    return [(name, ast.unparse(tree) + "\n") for name, tree in trees]


# Modules whose names the runtime imports for annotations: imported for nothing else, so an
# import of them no statement left uses goes (other imports may be wanted for what they run).
_TYPING_MODULES = ("typing", "collections.abc")


def _drop_unused_typing_imports(tree: ast.Module) -> None:
    used: set[str] = set()
    for statement in tree.body:
        if not _is_import(statement):
            used |= _names_used(statement)
    body = []
    for statement in tree.body:
        if isinstance(statement, ast.ImportFrom) and statement.module in _TYPING_MODULES:
            statement.names = [a for a in statement.names if (a.asname or a.name) in used]
            if not statement.names:
                continue
        body.append(statement)
    tree.body = body


def _renamed(statement: ast.Import | ast.ImportFrom) -> set[str]:
    return {alias.name for alias in statement.names if alias.asname}


def _imported_module(module: str, statement: ast.ImportFrom) -> str:
    """The module (named as ``module`` is) that ``module``'s relative ``statement`` imports
    from."""
    package = module.split(".")[: -statement.level]
    return ".".join(package + ([statement.module] if statement.module else []))


def _is_import(statement: ast.stmt) -> bool:
    return isinstance(statement, (ast.Import, ast.ImportFrom))


def _is_all(statement: ast.stmt) -> bool:
    return isinstance(statement, ast.Assign) and any(
        isinstance(target, ast.Name) and target.id == "__all__" for target in statement.targets
    )


def _names_used(node: ast.AST) -> set[str]:
    used: set[str] = set()
    for child in ast.walk(node):
        if isinstance(child, ast.Name):
            used.add(child.id)
        elif isinstance(child, ast.Attribute):
            used.add(child.attr)
        elif isinstance(child, ast.alias):
            used.add(child.name.rpartition(".")[2])
        elif isinstance(child, ast.Constant) and isinstance(child.value, str):
            used.add(child.value)
    return used


def _drop_function_annotations(tree: ast.Module) -> None:
    """Functions lose their annotations; annotated names (the fields of named tuples and
    dataclasses) keep theirs as text, which those accept and never evaluate here."""
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            node.returns = None
            arguments = node.args
            for argument in (
                *arguments.posonlyargs,
                *arguments.args,
                *arguments.kwonlyargs,
                arguments.vararg,
                arguments.kwarg,
            ):
                if argument is not None:
                    argument.annotation = None
        elif isinstance(node, ast.AnnAssign) and not isinstance(node.annotation, ast.Constant):
            node.annotation = ast.Constant(ast.unparse(node.annotation))
