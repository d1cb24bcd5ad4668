"""Typing and lowering one call of a template instance: the call layout (argument intents),
deduction from the call's argument types, keywords as template arguments, the plan of the
instance's shim, and the memo of the calls made, shared by function and member templates.
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from typing import Any

from numba.cuda import types

from ...core.call_plans import CallPlan, ShimValue, assemble_call
from ...core.rows import COPY, HIDDEN_OUT, POINTER
from ...core.template_rows import TemplateCallableRow, TemplateTypeRow
from ..array_decay import install_array_decay, passes_as_pointer
from ..calls import Call
from ..cxx_types import cxx_spelling_of
from .args import typed_argument
from .probe import TemplateInstantiationError

# Compound assignment operators (``operator+=``): their call returns the updated first operand
# (what Python's ``a += b`` assigns back), not the C++ result (a reference to it).
COMPOUND_OPERATORS = frozenset(
    {"iadd", "isub", "imul", "itruediv", "imod", "iand", "ior", "ixor", "ilshift", "irshift"}
)

_AUTO = re.compile(r"^(const\s+)?(auto|decltype\s*\(.*\))\s*[&*]*$")


def needs_compiler_for_result(row: TemplateTypeRow) -> bool:
    return row.pattern[0] == "dependent" or bool(_AUTO.match(row.spelling.strip()))


def declared_values(spellings: Iterable[str]) -> str:
    """Values of the types ``spellings`` for a call inside a probe's ``decltype``."""
    return ", ".join(f"nbi_probe::declval<{spelling}>()" for spelling in spellings)


def shim_value(numba_type: types.Type, type_row: TemplateTypeRow | None = None) -> ShimValue:
    """How a value of ``numba_type`` crosses a template instance's shim."""
    spelling = cxx_spelling_of(numba_type)
    align = getattr(numba_type, "alignof_", None)
    rvalue = type_row is not None and type_row.reference == "&&"
    if isinstance(numba_type, types.IntEnumMember):
        return ShimValue(numba_type, spelling, enum=True)
    return ShimValue(numba_type, spelling, align=align, rvalue=rvalue)


def shim_name(what: str, text: str) -> str:
    role = re.sub(r"\W", "_", what)[:40]
    digest = hashlib.sha256(text.encode()).hexdigest()[:16]
    return f"nbi_shim_tmpl_{role}_{digest}"


def plan_instance_call(
    callable_row: TemplateCallableRow,
    parameter_types: Sequence[types.Type],
    result_type: types.Type | None,
    body: Callable,
    *,
    callee: str,
    object_value: ShimValue | None = None,
    returns_first_argument: bool = False,
    modes: Sequence[str] = (),
) -> CallPlan:
    """The call of one instantiated callable, its parameter and result types known.

    ``modes`` says how each parameter crosses the shim (``rows.COPY`` when not given; argument
    intents make ``POINTER`` and ``HIDDEN_OUT`` ones)."""
    values = [] if object_value is None else [object_value]
    for index, ((name, type_row, _default), numba_type) in enumerate(
        zip(callable_row.params, parameter_types, strict=False)
    ):
        mode = modes[index] if index < len(modes) else COPY
        values.append(_crossing(numba_type, type_row, mode, name))
    result = None if result_type is None else shim_value(result_type)
    signature = ", ".join(v.spelling for v in values)
    how = "" if all(mode == COPY for mode in modes) else f"|{','.join(modes)}"
    name = shim_name(callable_row.name or callee, f"{callee}({signature})|{callable_row.kind}{how}")
    return assemble_call(name, values, result, body, returns_first_argument)


def _crossing(numba_type: types.Type, type_row: TemplateTypeRow, mode: str, name: str) -> ShimValue:
    if mode == COPY:
        return shim_value(numba_type, type_row)
    if isinstance(numba_type, types.IntEnumMember):
        raise TemplateInstantiationError(f"enum parameter {name} is only bound as an input")
    if mode == POINTER and not type_row.reference and isinstance(numba_type, types.CPointer):
        # A C++ pointer parameter: the kernel's pointer is passed on as it is.
        return shim_value(numba_type.dtype)._replace(mode=POINTER, pointer=True)
    if mode == POINTER and isinstance(numba_type, types.UniTuple):
        # ``T (&)[N]``: the kernel passes a pointer to the first element (NVIDIA's decay).
        extents = []
        while isinstance(numba_type, types.UniTuple):
            extents.append(numba_type.count)
            numba_type = numba_type.dtype
        return shim_value(numba_type)._replace(mode=POINTER, array=tuple(extents))
    return shim_value(numba_type, type_row)._replace(mode=mode, rvalue=False)


# Argument intents (Numbast's arg_intent) -> how the parameter crosses a template's shim.
INTENT_MODES = {"in": COPY, "inout_ptr": POINTER, "out_ptr": POINTER, "out_return": HIDDEN_OUT}


def intent_modes(intents: Sequence[str], count: int) -> tuple[str, ...]:
    """One crossing mode per parameter of a callable with ``count`` parameters."""
    if not intents:
        return (COPY,) * count
    return tuple(INTENT_MODES[intent] for intent in intents)


def call_layout(
    params: Sequence[tuple], modes: Sequence[str], count: int, what: str
) -> list[int | None]:
    """Which call argument each parameter takes, for a call with ``count`` arguments: one
    entry per parameter the call uses (a prefix of ``params``: C++ leaves out only trailing
    defaulted ones), None for out_return parameters, which the call does not pass. Raises
    TypingError when ``count`` arguments cannot fill the parameters."""
    from numba.cuda.core.errors import TypingError

    visible = [i for i, mode in enumerate(modes) if mode != HIDDEN_OUT]
    hidden = [i for i, mode in enumerate(modes) if mode == HIDDEN_OUT]
    if count > len(visible):
        raise TypingError(f"{what} takes {len(visible)} argument(s), {count} given")
    given = visible[:count]
    used = max(given + hidden, default=-1) + 1
    layout: list[int | None] = []
    for index in range(used):
        if modes[index] == HIDDEN_OUT:
            layout.append(None)
        elif index in given:
            layout.append(given.index(index))
        else:
            raise TypingError(
                f"{what}: parameter {params[index][0] or index} must be given (an out_return "
                "parameter follows it)"
            )
    missing = [p[0] or str(i) for i, p in enumerate(params[used:], used) if not p[2]]
    if missing:
        raise TypingError(f"{what}: missing argument(s) for {', '.join(missing)}")
    return layout


def deduce_from_call(
    deduction: Any,
    params: Sequence[tuple],
    modes: Sequence[str],
    layout: Sequence[int | None],
    args: Sequence[types.Type],
) -> None:
    """Deduce template arguments from the call's argument types: a parameter passed by pointer
    (inout_ptr / out_ptr on a reference) deduces from the pointee."""
    from numba.cuda.core.errors import TypingError

    for index, position in enumerate(layout):
        if position is None:
            continue
        name, type_row, _default = params[index]
        actual = args[position]
        pattern = type_row.pattern
        if modes[index] == POINTER and type_row.reference:
            if not isinstance(actual, (types.CPointer, types.Array)):
                raise TypingError(
                    f"parameter {name or index} is passed by pointer (its argument intent): "
                    f"give an array or a pointer, not {actual}"
                )
            actual = actual.dtype
            while pattern[0] == "array":  # T (&)[N] takes a pointer to its first element
                pattern = pattern[1]
        deduction.deduce(pattern, actual)


def keyword_arguments(
    params: Sequence[Any], kws: Mapping[str, types.Type]
) -> tuple[dict[int, Any], dict[str, types.Type]]:
    """Split a kernel call's keywords into template arguments (by parameter index, from their
    Numba types) and the rest (the call's own keyword arguments)."""
    names = {param.name: index for index, param in enumerate(params)}
    template: dict[int, Any] = {}
    rest: dict[str, types.Type] = {}
    for name, numba_type in kws.items():
        index = names.get(name)
        if index is None:
            rest[name] = numba_type
        else:
            template[index] = typed_argument(numba_type, params[index])
    return template, rest


def with_keywords(sig: Any, kws: Mapping[str, types.Type]) -> Any:
    """``sig`` extended with the keyword arguments a call gave (template arguments by name),
    so Numba folds them into its arguments; their values are dropped when lowering."""
    if not kws:
        return sig
    import inspect

    from numba.cuda.typing.templates import signature

    names = [f"arg{i}" for i in range(len(sig.args))] + list(kws)
    pysig = inspect.Signature(
        [inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD) for n in names]
    )
    extended = signature(sig.return_type, *sig.args, *kws.values(), recvr=sig.recvr)
    return extended.replace(pysig=pysig)


def lower_without_keywords(call: Any, library: Any, count: int):
    """The lowering of ``call`` for a signature extended by :func:`with_keywords`: it passes
    on the first ``count`` arguments (the receiver counted) and drops the rest."""

    def lower(context, builder, sig, args):
        trimmed = sig.replace(args=sig.args[:count])
        return call.lowering(library)(context, builder, trimmed, args[:count])

    return lower


class InstanceCalls:
    """The calls of one template's instances by key, each made once although several threads
    may type kernels at a time; an instance that cannot be made is remembered as why not, and
    raised as TemplateInstantiationError each time it is asked for."""

    def __init__(self) -> None:
        self._known: dict[Hashable, Call | str] = {}
        self._lock = threading.Lock()

    def get(self, key: Hashable, make: Callable[[], Call], what: str) -> Call:
        """The call for ``key``, made by ``make`` the first time; ``what`` names the instance
        in the error when it cannot be made."""
        with self._lock:
            known = self._known.get(key)
        if known is None:
            try:
                known = make()
            except (TemplateInstantiationError, TypeError) as exc:
                known = f"{what}: {exc}"
            with self._lock:
                self._known[key] = known
        if isinstance(known, str):
            raise TemplateInstantiationError(known)
        return known


def check_arguments(typing_context: Any, actuals: Sequence, formals: Sequence, what: str) -> None:
    """Raise TypingError unless each argument converts to its parameter's type (an array
    passes as a pointer to its elements)."""
    from numba.cuda.core.errors import TypingError

    for actual, formal in zip(actuals, formals, strict=True):
        if actual == formal or passes_as_pointer(actual, formal):
            continue
        if typing_context.can_convert(actual, formal) is None:
            raise TypingError(f"{what}: cannot pass {actual} as {formal}")
    if any(passes_as_pointer(a, f) for a, f in zip(actuals, formals, strict=True)):
        install_array_decay()
