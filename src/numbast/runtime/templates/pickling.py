"""Class templates, their instances and function templates pickle by reference to the module
that binds them, so that another process (a Dask worker) gets its own module's objects, the
ones its Numba knows, and not copies of classes that nothing registered.

A class template or function template object is an attribute of its module: it pickles as
(that module, the name). An instance (``Arr[types.float32, 3]``) pickles as its class template
subscripted with its arguments again, as the host wrote them (Numba types, bound structs'
classes, ints, C++ text), so the other process makes (or finds) the same instance. A header
module of the import system pickles as its mapping (``numbast_import.pickling``); another
module as its name. Templates bound without a module (``bind_header``) have none to refer to.
"""

from __future__ import annotations

import copyreg
import importlib
import operator
import pickle
import sys
import types
from typing import Any

from ...core import template_rows
from ..structs import stub_of_type
from .member_types import InstanceStubType
from .storage import CxxOnlyType


def module_attribute(module: types.ModuleType | str, name: str) -> Any:
    """``name`` of ``module`` (a module, or its name, imported here)."""
    if isinstance(module, str):
        module = importlib.import_module(module)
    return getattr(module, name)


def by_module_attribute(obj: Any, module_name: str, name: str) -> tuple:
    """The reduction of ``obj``, the attribute ``name`` of the module ``module_name``."""
    module = sys.modules.get(module_name)
    if module is None or getattr(module, name, None) is not obj:
        raise pickle.PicklingError(
            f"cannot pickle {obj!r}: it is no attribute of an imported module (bindings made "
            "by bind_header have none); import the header as a module (cuda_headers.x) to "
            "send what it binds to other processes"
        )
    # A module type of its own (the import system's header modules) pickles itself.
    return module_attribute, (module if type(module) is not types.ModuleType else module_name, name)


def _reduce_class_template(template: type) -> tuple:
    return by_module_attribute(template, template.__module__, template._binder.row.python_name)


def _reduce_instance(instance: type) -> tuple:
    template = instance.__dict__.get("_numbast_instance_of_")
    if template is None:  # not made by a class template: a struct of a module
        return by_module_attribute(instance, instance.__module__, instance.__qualname__)
    numba_type = instance._numba_type_
    params = template._binder.params
    given = tuple(map(host_argument, numba_type.template_arguments, params))
    return operator.getitem, (template, given)


def host_argument(argument: Any, param: Any) -> Any:
    """A template argument as the host writes it (``Vec[...]``'s arguments)."""
    if param.kind == template_rows.VALUE_PARAMETER:
        return argument.value if argument.value is not None else argument.cxx
    numba_type = argument.numba_type
    if numba_type is None or isinstance(numba_type, CxxOnlyType):
        return argument.cxx
    stub = stub_of_type(numba_type)  # a bound struct (or instance): its class
    return stub if stub is not None else numba_type


def install(template_type: type) -> None:
    """Register the reductions of class templates (of metaclass ``template_type``) and of
    instances with ``copyreg``, which pickle and cloudpickle consult for classes that their
    module names."""
    copyreg.pickle(template_type, _reduce_class_template)
    copyreg.pickle(InstanceStubType, _reduce_instance)
