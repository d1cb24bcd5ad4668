"""``v[i] = x`` on a bound struct whose non-const ``operator[]`` returns a reference to an
element (CUTLASS's ``Array<T, N>``): C++ assigns through the reference.

Planning binds such an operator twice: as ``v[i]`` (reading) and as the non-const method
``__setitem__(i, x)`` whose shim is ``(*v)[i] = x`` (``SETITEM``). Numba values are
immutable and its ``v[i] = x`` statement has no result, so a rewrite before type inference turns
``v[i] = x`` into ``v = numbast_setitem(v, i, x)`` (storing ``v`` back into ``arr[j]`` when it
was read from there in the statement, as non-const methods do). The rewrite cannot know types
yet: it leaves kernel arguments and globals alone (arrays a kernel writes), and the stub types
any other target that has no bound ``__setitem__`` as Numba's own ``v[i] = x`` (a local array),
returning the target unchanged.
"""

from __future__ import annotations

import operator
from typing import TYPE_CHECKING

from numba.cuda import types
from numba.cuda.typing.templates import AbstractTemplate, signature

from ..core.shim_text import SETITEM
from .call_rewrites import store_back_into_source
from .overloads import DEFAULT_REGISTRIES, Registries, make_function_stub
from .state import LOCK, shared_table

if TYPE_CHECKING:
    from ..core.template_rows import ClassTemplateRow

# (type class, method name) -> [(signature, lowering)]: runtime.members' non-const methods
_MUTATORS: dict = shared_table("mutators", dict)
_STUB: list = shared_table("element_assignment_stub", list)  # the stub, once per process
_REWRITE_INSTALLED: list = shared_table("element_assignment_rewrite", list)


def enable_element_assignment(registries: Registries = DEFAULT_REGISTRIES) -> None:
    """Make ``v[i] = x`` call bound ``__setitem__`` members (once per process)."""
    with LOCK:
        if _STUB:
            return
        stub = make_function_stub("<v[i] = x>", "numbast_setitem")
        _register(stub, registries)
        _install_rewrite(stub)
        _STUB.append(stub)


def enable_for_template(row: ClassTemplateRow, registries: Registries) -> None:
    """Enable ``v[i] = x`` when a class template's instances (or its partial specializations')
    bind it: before any kernel compiles, since instances are made while kernels are typed,
    after the rewrite has run (CUTLASS's ``Array<float, 4>`` made by ``make_Array(...)``)."""
    if _assigns_elements(row):
        enable_element_assignment(registries)


def _assigns_elements(row: ClassTemplateRow) -> bool:
    from ..core import template_rows  # templates only: a struct's operator[] needs none of it

    if any(template_rows.callable_row(member).name == SETITEM for member in row.members):
        return True
    partials = row.partial_specializations
    return any(_assigns_elements(template_rows.class_template_row(p)) for p, _patterns in partials)


def _register(stub, registries: Registries) -> None:
    class ElementAssignment(AbstractTemplate):
        key = stub

        def generic(self, args, kws):
            if kws or len(args) != 3:
                return None
            target, index, value = args
            method = self.context.resolve_getattr(target, SETITEM)
            if method is not None:
                sig = self.context.resolve_function_type(method, (index, value), {})
                if sig is not None:
                    return signature(target, target, *sig.args)
                return None
            sig = self.context.resolve_setitem(target, index, value)
            return None if sig is None else signature(sig.args[0], *sig.args)

    def lower(context, builder, sig, args):
        target = sig.args[0]
        for case, lowering in _MUTATORS.get((type(target), SETITEM), ()):
            if case.args == sig.args:
                pair = lowering(context, builder, case, args)
                return builder.extract_value(pair, 1)
        plain = signature(types.none, *sig.args)
        context.get_function(operator.setitem, plain)(builder, args)
        return args[0]

    registries.typing.register_global(stub, types.Function(ElementAssignment))
    registries.lowering.lower(stub, types.VarArg(types.Any))(lower)


def _install_rewrite(stub) -> None:
    if _REWRITE_INSTALLED:
        return
    from numba.cuda.core import ir
    from numba.cuda.core.rewrites import Rewrite, register_rewrite

    class RewriteElementAssignments(Rewrite):
        def match(self, func_ir, block, typemap, calltypes):
            self.block = block
            self.found = []
            for inst in block.body:
                if isinstance(inst, (*ir.setitem_types, *ir.staticsetitem_types)):
                    if _assignable(func_ir, inst.target):
                        self.found.append(inst)
            return bool(self.found)

        def apply(self):
            block = self.block.copy()
            block.clear()
            definitions: dict = {}
            for inst in self.block.body:
                if isinstance(inst, ir.assign_types) and isinstance(inst.value, ir.expr_types):
                    definitions[inst.target.name] = inst.value
                if inst not in self.found:
                    block.append(inst)
                    continue
                loc, scope, target = inst.loc, self.block.scope, inst.target
                index = getattr(inst, "index_var", None) or inst.index
                if not isinstance(index, ir.var_types):  # a static index with no variable
                    constant = scope.redefine("$numbast_index", loc)
                    block.append(ir.Assign(ir.Const(index, loc), constant, loc))
                    index = constant
                stub_var = scope.redefine("$numbast_setitem", loc)
                block.append(ir.Assign(ir.Global(stub.__name__, stub, loc), stub_var, loc))
                call = ir.Expr.call(stub_var, [target, index, inst.value], (), loc)
                block.append(ir.Assign(call, target, loc))
                store_back_into_source(block, definitions, target, loc)
            return block

    register_rewrite("before-inference")(RewriteElementAssignments)
    _REWRITE_INSTALLED.append(RewriteElementAssignments)


def _assignable(func_ir, target) -> bool:
    """Whether ``target`` may hold a struct value: not a kernel argument, not a global."""
    from numba.cuda.core import ir

    for definition in func_ir._definitions.get(target.name, ()):
        if isinstance(definition, (*ir.arg_types, *ir.global_types, *ir.freevar_types)):
            return False
    return True
