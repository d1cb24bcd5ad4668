"""``M.Box[types.int64]`` written inside a kernel: a bound template indexed with template
arguments there is the instance, as the same expression written on the host is.

Numba types a subscript whose index is a constant as a ``static_getitem`` and asserts that the
index is no Numba type, so such a kernel failed with a bare ``AssertionError``. A rewrite
before type inference replaces the subscript of a bound class or function template (a constant
of the kernel: a global, a module attribute) by the instance, made on the host while the kernel
compiles; arguments that are not constants, or that the template refuses, are an error naming
the template and the fix (instantiate it outside the kernel).
"""

from __future__ import annotations

from typing import Any

from ..state import LOCK, shared_table

_INSTALLED: list = shared_table("kernel_subscripts_rewrite", list)  # the rewrite class, once


def _is_bound_template(value: Any) -> bool:
    """A bound class template (``ClassTemplateStub``'s subclasses) or function template stub,
    which says so (the classes import this module: no import back)."""
    return getattr(value, "_numbast_template_", False) is True


def _template_name(template: Any) -> str:
    binder = getattr(template, "_binder", None)
    if binder is not None:
        return binder.row.qual_name
    return getattr(template, "_numbast_qual_name_", repr(template))


def _instance_or_error(template: Any, index: Any, loc: Any) -> Any:
    from numba.cuda.core.errors import TypingError

    from .context import refresh_numba

    try:
        instance = template[index]
    except TypeError as exc:  # TemplateInstantiationError is one
        raise TypingError(
            f"{_template_name(template)}[{_spelled(index)}] in a kernel: {exc}. Instantiate it "
            "outside the kernel (Inst = M.Template[...]) to see the error there",
            loc=loc,
        ) from None
    refresh_numba()  # the kernel being compiled sees what the instance registered
    return instance


def _spelled(index: Any) -> str:
    items = index if isinstance(index, tuple) else (index,)
    return ", ".join(map(str, items))


_UNKNOWN = object()


def _constant(func_ir, var) -> Any:
    """The constant ``var`` holds, a bound template's instance written ``M.T[...]`` (inside
    another subscript: ``M.f[M.Pair[types.float32]]``) and tuples of them included; _UNKNOWN
    when it is not a constant."""
    from numba.cuda.core import errors, ir

    if var is None:
        return _UNKNOWN
    try:
        return func_ir.infer_constant(var)
    except errors.ConstantInferenceError:
        pass
    definition = func_ir.get_definition(var)
    if isinstance(definition, ir.expr_types) and definition.op == "build_tuple":
        items = tuple(_constant(func_ir, item) for item in definition.items)
        return _UNKNOWN if _UNKNOWN in items else items
    if isinstance(definition, ir.expr_types) and definition.op in ("getitem", "static_getitem"):
        template = _constant(func_ir, definition.value)
        if template is _UNKNOWN or not _is_bound_template(template):
            return _UNKNOWN
        if definition.op == "static_getitem":
            index = definition.index
        else:
            index = _constant(func_ir, definition.index)
        return _UNKNOWN if index is _UNKNOWN else _instance_or_error(template, index, var.loc)
    return _UNKNOWN


def install_kernel_subscripts() -> None:
    """Register the rewrite with Numba once per process."""
    with LOCK:
        if _INSTALLED:
            return
        from numba.cuda.core import errors, ir
        from numba.cuda.core.rewrites import Rewrite, register_rewrite

        class RewriteTemplateSubscripts(Rewrite):
            def match(self, func_ir, block, typemap, calltypes):
                self.block = block
                self.instances: dict[Any, Any] = {}  # assignment -> instance
                for inst in block.body:
                    if not isinstance(inst, ir.assign_types):
                        continue
                    expr = inst.value
                    if not isinstance(expr, ir.expr_types) or expr.op not in (
                        "getitem",
                        "static_getitem",
                    ):
                        continue
                    try:
                        template = func_ir.infer_constant(expr.value)
                    except errors.ConstantInferenceError:
                        continue
                    if not _is_bound_template(template):
                        continue
                    index = self._index(func_ir, expr, template)
                    self.instances[inst] = _instance_or_error(template, index, inst.loc)
                return bool(self.instances)

            @staticmethod
            def _index(func_ir, expr, template) -> Any:
                if expr.op == "static_getitem":  # Numba found the index a constant
                    return expr.index
                index = _constant(func_ir, expr.index)
                if index is _UNKNOWN:
                    raise errors.TypingError(
                        f"{_template_name(template)}[...] in a kernel takes constant template "
                        "arguments (Numba types, integers): instantiate it outside the kernel "
                        "(Inst = M.Template[...]) and use Inst inside",
                        loc=expr.loc,
                    )
                return index

            def apply(self):
                block = self.block.copy()
                block.clear()
                for inst in self.block.body:
                    instance = self.instances.get(inst)
                    if instance is not None:
                        name = getattr(instance, "__name__", "numbast_instance")
                        inst = ir.Assign(ir.Global(name, instance, inst.loc), inst.target, inst.loc)
                    block.append(inst)
                return block

        register_rewrite("before-inference")(RewriteTemplateSubscripts)
        _INSTALLED.append(RewriteTemplateSubscripts)
