"""Python names for the structs a module binds whose own name is C++ spelling, not a Python
identifier, so that nothing is reachable only with ``getattr(M, "ns::box<float>")``:

- an instance or specialization of a class template the module does not bind (its primary
  template lives in a header the mapping does not retain; or a function names the instance,
  ``cuda::std::integral_constant<unsigned long, 2>``) is indexed as a bound class template is:
  ``M.integral_constant[types.uint64, 2]``, ``M.box[types.float32]``;
- a record nested in a struct is an attribute of that struct's stub: ``M.Outer.Inner``.

Where a module binds the class template itself, its specializations are its own
(``runtime.templates``): ``M.complex[types.float32]`` is the one way in both cases.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Container, Mapping
from typing import Any

import numpy as np
from numba.cuda import types

from ..core.cxx_names import BUILTIN_NUMBA_NAMES, spelled_accessor
from .cxx_types import cxx_spelling_of


class TemplateInstances:
    """The instances a module binds of one class template it does not bind, indexed by their
    template arguments in C++ order (Numba types, bound structs, NumPy scalar types, ints,
    bools, or C++ text)."""

    def __init__(self, qual_name: str) -> None:
        self.qual_name = qual_name
        self.__name__ = qual_name.rsplit("::", 1)[-1]
        self._by_spelling: dict[str, Any] = {}
        self._spelled: dict[str, Any] = {}

    def add(self, spelling: str, stub: Any) -> None:
        self._by_spelling[_normal(spelling)] = stub
        self._spelled[spelling] = stub

    @property
    def instances(self) -> dict[str, Any]:
        """The bound instances, by C++ spelling."""
        return dict(self._spelled)

    def __getitem__(self, arguments: Any) -> Any:
        given = arguments if isinstance(arguments, tuple) else (arguments,)
        options = [_spellings_of(argument) for argument in given]
        for chosen in itertools.product(*options):
            stub = self._by_spelling.get(_normal(f"{self.qual_name}<{', '.join(chosen)}>"))
            if stub is not None:
                return stub
        listed = ", ".join(self._spelled) or "none"
        raise TypeError(
            f"{self.qual_name}[{', '.join(map(repr, given))}] is not bound: the module binds "
            f"instances of {self.qual_name}, not the template itself, and has {listed} (bind "
            "the header that declares the template to make others)"
        )

    def __repr__(self) -> str:
        return f"<bound instances of class template {self.qual_name}: {len(self._spelled)}>"


def spelled_names(
    spelled: Mapping[str, Any], stubs_by_qual_name: Mapping[str, Any], taken: Container[str]
) -> dict[str, Any]:
    """The module names (``taken``: those it has) for the structs bound under the C++
    spellings of ``spelled`` (spelling -> stub): instance sets to add to the module; nested
    records are set on their enclosing struct's stub."""
    names: dict[str, Any] = {}
    for spelling, stub in spelled.items():
        accessor = spelled_accessor(spelling)
        if accessor is None:
            continue
        kind, name, owner = accessor
        if kind == "nested":
            outer = stubs_by_qual_name.get(owner)
            if outer is not None and name not in vars(outer):
                setattr(outer, name, stub)
        elif name not in taken:
            instances = names.setdefault(name, TemplateInstances(owner))
            if isinstance(instances, TemplateInstances):
                instances.add(spelling, stub)
    return names


def _spellings_of(argument: Any) -> list[str]:
    """The C++ spellings a template argument may have been written with."""
    if isinstance(argument, bool):
        return ["true" if argument else "false"]
    if isinstance(argument, int):
        return [str(argument)]
    if isinstance(argument, str):
        return [argument]
    numba_type = getattr(argument, "_numba_type_", argument)
    if isinstance(numba_type, type):  # a NumPy scalar type: np.float32
        from numba.cuda.np.numpy_support import from_dtype

        numba_type = from_dtype(np.dtype(numba_type))
    if not isinstance(numba_type, types.Type):
        raise TypeError(f"{argument!r} is not a template argument (a type, an int or a bool)")
    builtin = [cxx for cxx, name in BUILTIN_NUMBA_NAMES.items() if name == str(numba_type)]
    return builtin or [cxx_spelling_of(numba_type)]


def _normal(spelling: str) -> str:
    """A spelling compared without blanks and without leading ``::`` of qualified names."""
    return re.sub(r"(^|(?<=[<,(]))::", "", re.sub(r"\s+", "", spelling))
