"""Rewrites of calls before Numba's type inference, for calls that update their arguments.

Numba values are immutable, so a C++ call that updates an object through ``this`` (a non-const
method, ``members``) or through a pointer parameter (``struct_pointers``) is rewritten into a
call that returns the updated values, which are then assigned back to the variables (and to the
array element a temporary was read from). This module holds what both rewrites share: scanning a
block for the calls to rewrite, rebuilding it, registering the rewrite with Numba once per
process, and storing an update back into its array element.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

# (call expression, variable -> global or free variable it holds, variable -> expression) ->
# what the rewrite needs to know about the call, or None to leave it alone
CallPicker = Callable[[Any, dict[str, Any], dict[str, Any]], Any]
# (new block, scope, the call's assignment, what the picker said, variable -> expression)
CallReplacer = Callable[[Any, Any, Any, Any, dict[str, Any]], None]


def install_call_rewrite(
    installed: list, name: str, pick: CallPicker, replace: CallReplacer
) -> None:
    """Register a before-inference rewrite with Numba unless ``installed`` (a shared table of
    the registration state) already holds one: it rewrites each ``v = f(args)`` for which
    ``pick`` says something with ``replace`` and keeps every other statement as it is."""
    if installed:
        return
    from numba.cuda.core import ir
    from numba.cuda.core.rewrites import Rewrite, register_rewrite

    class CallRewrite(Rewrite):
        def match(self, func_ir, block, typemap, calltypes):
            self.block = block
            self.definitions: dict[str, Any] = {}
            self.calls: dict[Any, Any] = {}  # call statement -> what ``pick`` said about it
            known: dict[str, Any] = {}  # variable -> the global or free variable it holds
            for inst in block.body:
                if not isinstance(inst, ir.assign_types):
                    continue
                value = inst.value
                if isinstance(value, (ir.global_types, ir.freevar_types)):
                    known[inst.target.name] = value.value
                    continue
                if not isinstance(value, ir.expr_types):
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


def store_back_into_source(block, definitions: dict, variable, loc) -> None:
    """Append ``arr[i] = variable`` to ``block`` when ``variable`` is the value of ``arr[i]``
    written in the call itself (``f(arr[i])``, ``arr[i].m()``: a temporary), so that an update
    reaches the array element (``definitions``: variable name -> the expression assigned to
    it). A named variable (``local = arr[i]``) is a copy, as in Python and C++: updates stay
    in it until the kernel stores it. Python 3.12's bytecode assigns ``arr[i]`` to the name
    directly, so the name, not the definition, tells the two apart."""
    from numba.cuda.core import ir

    if not variable.name.startswith("$"):
        return
    source = definitions.get(variable.name)
    if source is not None and source.op in ("getitem", "static_getitem"):
        index = source.index if source.op == "getitem" else source.index_var
        if index is not None:
            block.append(ir.SetItem(source.value, index, variable, loc))
