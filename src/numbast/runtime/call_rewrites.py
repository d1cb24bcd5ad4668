"""Rewrites of calls before Numba's type inference, for calls that update their arguments.

Numba values are immutable, so a C++ call that updates an object through ``this`` (a non-const
method, ``members``) or through a pointer parameter (``struct_pointers``) is rewritten into a
call that returns the updated values, which are then assigned back to the variables (and to the
array element a temporary was read from). This module holds what both rewrites share: scanning a
block for the calls to rewrite, rebuilding it, registering the rewrite with Numba once per
process, and storing an update back into its array element.

numba-cuda-mlir compiles with a copy of numba-cuda's front end (``numba_cuda_mlir.numba_cuda``):
its IR classes and its rewrite registry are its own, so its backend (``numbast.runtime_mlir``)
names that copy's ``core`` package and gets the same rewrites there.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable
from typing import Any

NUMBA_CUDA_CORE = "numba.cuda.core"

# (call expression, variable -> global or free variable it holds, variable -> expression) ->
# what the rewrite needs to know about the call, or None to leave it alone
CallPicker = Callable[[Any, dict[str, Any], dict[str, Any]], Any]
# (new block, scope, the call's assignment, what the picker said, variable -> expression)
CallReplacer = Callable[[Any, Any, Any, Any, dict[str, Any]], None]


def new_updating_stub(
    function_stub: Callable,
    positions: Iterable[int],
    positions_table: dict[Any, set[int]],
    updaters: dict[Any, Callable],
) -> Callable | None:
    """Record that ``function_stub`` takes a struct by address at ``positions``; returns the
    stub of its updating call when it has none yet (the caller registers its typing and
    lowering with its backend), else None. The tables are the backend's own."""
    from .overloads import make_function_stub
    from .state import LOCK

    with LOCK:
        positions_table.setdefault(function_stub, set()).update(positions)
        if function_stub in updaters:
            return None
        updater = make_function_stub(
            f"<updating call of {function_stub._numbast_qual_name_}>",
            f"numbast_updating_{function_stub.__name__}",
        )
        updaters[function_stub] = updater
    return updater


def install_call_rewrite(
    installed: list, name: str, pick: CallPicker, replace: CallReplacer, core: str = NUMBA_CUDA_CORE
) -> None:
    """Register a before-inference rewrite with Numba unless ``installed`` (a shared table of
    the registration state) already holds one: it rewrites each ``v = f(args)`` for which
    ``pick`` says something with ``replace`` and keeps every other statement as it is.
    ``core``: the front end's ``core`` package (numba-cuda's, or numba-cuda-mlir's copy)."""
    if installed:
        return
    ir = importlib.import_module(f"{core}.ir")
    rewrites = importlib.import_module(f"{core}.rewrites")
    Rewrite, register_rewrite = rewrites.Rewrite, rewrites.register_rewrite
    # numba-cuda also accepts numba.core's IR classes; numba-cuda-mlir's copy has its own only
    assign_types = getattr(ir, "assign_types", ir.Assign)
    global_types = getattr(ir, "global_types", ir.Global)
    freevar_types = getattr(ir, "freevar_types", ir.FreeVar)
    expr_types = getattr(ir, "expr_types", ir.Expr)

    class CallRewrite(Rewrite):
        def match(self, func_ir, block, typemap, calltypes):
            self.block = block
            self.definitions: dict[str, Any] = {}
            self.calls: dict[Any, Any] = {}  # call statement -> what ``pick`` said about it
            known: dict[str, Any] = {}  # variable -> the global or free variable it holds
            for inst in block.body:
                if not isinstance(inst, assign_types):
                    continue
                value = inst.value
                if isinstance(value, global_types) or isinstance(value, freevar_types):
                    known[inst.target.name] = value.value
                    continue
                if not isinstance(value, expr_types):
                    continue
                self.definitions[inst.target.name] = value
                if value.op != "call":
                    continue
                picked = pick(value, known, self.definitions)
                if picked is not None:
                    self.calls[inst] = picked
            return bool(self.calls)

        def apply(self):
            block = self.block.copy()
            block.clear()
            for inst in self.block.body:
                picked = self.calls.get(inst)
                if picked is None:
                    block.append(inst)
                else:
                    replace(block, self.block.scope, inst, picked, self.definitions)
            return block

    CallRewrite.__name__ = CallRewrite.__qualname__ = name
    register_rewrite("before-inference")(CallRewrite)
    installed.append(CallRewrite)


def called_stub(call, known: dict[str, Any], definitions: dict[str, Any]) -> Any:
    """The numbast function stub a call calls (None for other calls): a global or free variable
    (``curand_uniform(s)``), or an attribute of a module or of an object kernels use as one
    (``curand.curand_uniform(s)``, ``bind_header``'s ``lib.f(s)``)."""
    if call.kws or call.vararg is not None:
        return None
    callee = known.get(call.func.name)
    if callee is None:
        definition = definitions.get(call.func.name)
        if definition is None or definition.op != "getattr":
            return None
        module = known.get(definition.value.name)
        if not _is_module(module):
            return None
        callee = getattr(module, definition.attr, None)
    if not getattr(callee, "_numbast_stub_", False) or not callable(callee):
        return None
    return callee


def _is_module(value: Any) -> bool:
    from types import ModuleType

    if isinstance(value, ModuleType):
        return True
    from .shim_links import runtime_part

    backends = runtime_part("runtime.backends", required=False)
    return backends is not None and isinstance(value, backends.module_classes())


def rewrite_into_updating_call(
    block,
    scope,
    inst,
    updater: Callable,
    positions: Iterable[int],
    definitions: dict,
    core: str = NUMBA_CUDA_CORE,
) -> None:
    """``r = f(a, s)`` -> ``t = updater(<positions>, a, s); r = t[0]; s = t[1]``: the updating
    call takes the positions of the arguments it updates as a literal bit mask first and returns
    the call's result, then those arguments' values after the call (each stored back into the
    array element it was read from, when a temporary)."""
    ir = importlib.import_module(f"{core}.ir")
    loc, call = inst.loc, inst.value
    positions = sorted(p for p in positions if p < len(call.args))
    updater_var = scope.redefine("$numbast_updater", loc)
    block.append(ir.Assign(ir.Global(updater.__name__, updater, loc), updater_var, loc))
    mask_var = scope.redefine("$numbast_positions", loc)
    mask = sum(1 << p for p in positions)
    block.append(ir.Assign(ir.Const(mask, loc), mask_var, loc))
    updated = scope.redefine("$numbast_updated", loc)
    expr = ir.Expr.call(updater_var, [mask_var, *call.args], (), loc)
    block.append(ir.Assign(expr, updated, loc))
    block.append(ir.Assign(ir.Expr.static_getitem(updated, 0, None, loc), inst.target, loc))
    for slot, position in enumerate(positions, start=1):
        argument = call.args[position]
        item = ir.Expr.static_getitem(updated, slot, None, loc)
        block.append(ir.Assign(item, argument, loc))
        store_back_into_source(block, definitions, argument, loc, core)


def store_back_into_source(
    block, definitions: dict, variable, loc, core: str = NUMBA_CUDA_CORE
) -> None:
    """Append ``arr[i] = variable`` to ``block`` when ``variable`` is the value of ``arr[i]``
    written in the call itself (``f(arr[i])``, ``arr[i].m()``: a temporary), so that an update
    reaches the array element (``definitions``: variable name -> the expression assigned to
    it). A named variable (``local = arr[i]``) is a copy, as in Python and C++: updates stay
    in it until the kernel stores it. Python 3.12's bytecode assigns ``arr[i]`` to the name
    directly, so the name, not the definition, tells the two apart."""
    ir = importlib.import_module(f"{core}.ir")

    if not variable.name.startswith("$"):
        return
    source = definitions.get(variable.name)
    if source is not None and source.op in ("getitem", "static_getitem"):
        index = source.index if source.op == "getitem" else source.index_var
        if index is not None:
            block.append(ir.SetItem(source.value, index, variable, loc))
