"""Representative instances of a module's templates, for its coverage report.

A template row says only that a template was planned; whether any instance of it compiles is
known once the compiler tries one. So coverage counts a function, class or alias template as
bound only when a *probe*, one representative instantiation, compiles: every template
parameter without a default gets a plain argument (``int``, then ``unsigned int``, ``float``,
... for types; 1, 2, 4, ... for integers; ``true`` / ``false``; 0 for an enum), trailing
defaulted ones take their defaults, and the instance is used the way a kernel would use it: a
function template is called with values of its parameter types (its body is instantiated), a
class or alias template's instance has its size taken (its layout is made). Each probe is an
``extern "C"`` function, so a unit of probes compiles with NVRTC like a unit of shims, and the
compiler's rejection of one probe names it (``numbast_import.template_coverage`` tries the
candidates round by round).

Templates none of whose plain candidates compile get *fallbacks*, tried in a second unit:
larger sizes (32, 64, 128) for integer parameters, and arguments of the kinds a kernel passes
besides numbers: a pointer for a type parameter that is a
function parameter's whole type (an iterator: CUB's ``LoadDirectBlocked(tid, InputIteratorT,
T (&)[N])``), and the module's own class types (its structs, and function objects: instances
of its class templates with a call operator and its structs with one, of each number of call
arguments) where a parameter takes a class (cooperative groups' ``sync(const TyGroup &)``,
``reduce(group, value, op)``), pointers and a function object last together (CUB's
``load_transform_direct_striped(tid, It, T (&)[N], TransformOp)``), and a class with pointers
for a class template's other type parameters (CUB's ``BlockLoadType<Policy, It>``). Every
fallback is a type the module binds, so an instance that compiles is one a kernel can make.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, NamedTuple

from numbast.core.template_rows import TEMPLATE_PARAMETER, TYPE_PARAMETER
from numbast.planning.member_kinds import CALL_OPERATOR

# Round r gives every type parameter TYPE_ARGUMENTS[r] and every integer one INTEGER_ARGUMENTS[r].
TYPE_ARGUMENTS = ("int", "unsigned int", "float", "double", "long long", "unsigned long long")
INTEGER_ARGUMENTS = ("1", "2", "4", "8", "3", "16")
BOOL_ARGUMENTS = ("true", "false")
ROUNDS = len(TYPE_ARGUMENTS)
# Sizes some templates insist on, tried as fallbacks (cooperative groups' multi-warp tiles take
# 64 to 512 threads).
LARGE_SIZES = ("32", "64", "128")
MAX_FALLBACKS = 24  # per template: each is a probe NVRTC compiles
MAX_CLASSES = 6  # class types tried for a type parameter
MAX_FUNCTION_OBJECTS = 2  # function objects tried beside each class type
MAX_SIZED = 8  # instances of a size (ClassTypes.sized) tried for a type parameter
SIZED_INSTANCE = LARGE_SIZES[1]  # the size they are given: a multi-warp tile's 64
_INTEGER_TYPES = re.compile(
    r"(?:(?:un)?signed\s+)?(?:char|short|int|long|long\s+long)(?:\s+int)?|unsigned|"
    r"(?:::)?(?:std::|cuda::std::)?u?int(?:8|16|32|64)_t|(?:::)?(?:std::|cuda::std::)?size_t"
)
_PLACEHOLDER = re.compile(r"\{(\d+)\}")

# Declared, never defined: a probe only needs an expression of each parameter type (the unit is
# compiled, never linked).
PROBE_HELPERS = "template <class T> __device__ T &&nbi_probe_value();"


class TemplateProbe(NamedTuple):
    """The candidate instances of one template declaration, tried in order; ``fallbacks`` only
    when none of ``candidates`` compiles."""

    kind: str  # the coverage decision's kind: "function template", "class template", ...
    what: str  # the decision's name (several overloads of a function template share one)
    candidates: tuple[tuple[str, str], ...]  # (template-id, C++ statement that uses it)
    fallbacks: tuple[tuple[str, str], ...] = ()


class ClassTypes(NamedTuple):
    """The module's class types a fallback may give a type parameter, spelled for C++."""

    classes: tuple[str, ...]  # structs and class template specializations it binds
    function_objects: tuple[str, ...]  # instances of its class templates with operator()
    # Instances of its class templates of one size parameter at a size they insist on
    # (cooperative groups' multi-warp tiles, ``thread_block_tile<64>``): tried last.
    sized: tuple[str, ...] = ()
    # Its class templates of one type parameter, function objects first: what a template
    # template parameter (``template <class> class TyOp``) is given, one per round.
    templates: tuple[str, ...] = ()


def template_probes(planned: Any) -> tuple[TemplateProbe, ...]:
    """The probes of a planned module's function, class and alias templates."""
    types_ = module_class_types(planned)
    probes = []
    for row in planned.function_templates:
        probes.append(
            TemplateProbe(
                "function template",
                row.qual_name,
                _function_uses(row, _plain_rounds(row.params, types_.templates)),
                _function_uses(row, _fallback_arguments(row, types_)),
            )
        )
    for row in planned.class_templates:
        probes.append(
            TemplateProbe(
                "class template",
                row.qual_name,
                _type_uses(row, _plain_rounds(row.params, types_.templates)),
                _type_uses(row, _fallback_arguments(row, types_)),
            )
        )
    for row in planned.alias_templates:
        probes.append(
            TemplateProbe(
                "alias template",
                row.qual_name,
                _type_uses(row, _plain_rounds(row.params, types_.templates)),
            )
        )
    return tuple(probes)


def module_class_types(planned: Any) -> ClassTypes:
    """The class types ``planned`` binds, at most MAX_CLASSES: its structs (nested ones aside),
    then the specializations of its class templates, those with data before empty ones (traits,
    tags); and the function objects its class templates make (an instance of their plain
    arguments: ``plus<int>``)."""
    nested = getattr(planned, "nested", set())
    specializations = {i for t in planned.class_templates for _args, i in t.specializations}
    ranked = sorted(
        (index in specializations, row.sizeof <= 1, index, _global(row.qual_name))
        for index, (row, _body) in enumerate(planned.structs)
        if index not in nested
    )
    classes = tuple(dict.fromkeys(spelling for *_rank, spelling in ranked))[:MAX_CLASSES]
    function_objects: list[tuple[str, frozenset[int]]] = []  # (C++ spelling, call arities)
    sized, templates = [], []
    for row in planned.class_templates:
        arguments = representative_arguments(row.params, 0)
        if arguments is None:
            continue
        arities = _call_arities(row.members)
        calls = bool(arities)
        if calls:
            function_objects.append((template_id(row.qual_name, arguments), arities))
        if arguments == [INTEGER_ARGUMENTS[0]] and row.members:
            sized.append(template_id(row.qual_name, [SIZED_INSTANCE]))
        if len(row.params) == 1 and row.params[0].kind == TYPE_PARAMETER:
            templates.insert(sum(1 for t in templates if t[1]) if calls else len(templates),
                             (_global(row.qual_name), calls))  # fmt: skip
    for index, (row, body) in enumerate(planned.structs):
        # A struct whose call operator takes arguments is a function object too
        # (``cuda::std::identity``); one taking none is a value's getter, not one an algorithm
        # is given (``integral_constant<bool, false>``).
        arities = _call_arities((*body.members, *body.member_templates), receiver=True)
        if arities - {0} and index not in nested and index not in specializations:
            function_objects.append((_global(row.qual_name), arities))
    return ClassTypes(
        classes,
        _function_objects_of_each_arity(function_objects),
        tuple(sized[:MAX_SIZED]),
        tuple(name for name, _calls in templates),
    )


def _call_arities(members: Sequence[Any], receiver: bool = False) -> frozenset[int]:
    """How many arguments the call operators among ``members`` take: template callables'
    parameters, or (``receiver``) a struct's member rows, whose calls take the object first
    (a member template of a struct is a template callable: its parameters alone)."""
    arities = set()
    for member in members:
        if member.name != CALL_OPERATOR:
            continue
        if hasattr(member, "params"):  # a template callable
            arities.add(len(member.params))
        elif receiver:
            arities.add(len(member.call.arguments) - 1)
    return frozenset(arities)


def _function_objects_of_each_arity(found: Sequence[tuple[str, frozenset[int]]]) -> tuple:
    """At most MAX_FUNCTION_OBJECTS of ``found``, in order, but the first of each number of
    call arguments before a second of one already chosen: a template calling its function
    object with one argument (CUB's ``load_transform_direct_striped``) needs a unary one
    where the module's first two are binary (``maximum<int>``, ``plus<int>``)."""
    chosen: list[str] = []
    covered: set[int] = set()
    for spelling, arities in found:
        if not arities <= covered:
            chosen.append(spelling)
            covered |= arities
    chosen += [spelling for spelling, _arities in found if spelling not in chosen]
    return tuple(chosen[:MAX_FUNCTION_OBJECTS])


def _global(qual_name: str) -> str:
    return qual_name if qual_name.startswith("::") else f"::{qual_name}"


def probe_function(name: str, statement: str) -> str:
    """The probe as an ``extern "C"`` device function named ``name``."""
    return f'extern "C" __device__ void {name}(void) {{ {statement} }}'


def representative_arguments(
    params: Sequence[Any], round_: int, templates: Sequence[str] = ()
) -> list[str] | None:
    """Round ``round_``'s arguments for ``params``, up to the last one without a default (the
    rest take their defaults); None when a parameter has no representative value (a template
    template parameter takes ``templates[round_]``, the module's class templates)."""
    needed = max((i + 1 for i, p in enumerate(params) if p.default is None), default=0)
    arguments = []
    for param in params[:needed]:
        if param.kind == TYPE_PARAMETER:
            arguments.append(TYPE_ARGUMENTS[round_])
            continue
        if param.kind == TEMPLATE_PARAMETER:
            if round_ >= len(templates):
                return None
            arguments.append(templates[round_])
            continue
        value_type = " ".join(param.value_type.replace("const", "").split())
        if value_type == "bool":
            arguments.append(BOOL_ARGUMENTS[round_ % len(BOOL_ARGUMENTS)])
        elif _INTEGER_TYPES.fullmatch(value_type):
            arguments.append(INTEGER_ARGUMENTS[round_])
        elif value_type and not value_type.endswith(("*", "&")) and "auto" not in value_type:
            arguments.append(f"static_cast<{value_type}>(0)")  # an enum (or a typedef of one)
        else:
            return None
    return arguments


def _plain_rounds(params: Sequence[Any], templates: Sequence[str] = ()) -> list[list[str]]:
    rounds = []
    for round_ in range(ROUNDS):
        arguments = representative_arguments(params, round_, templates)
        if arguments is None:
            break
        rounds.append(arguments)
    return rounds


def _fallback_arguments(row: Any, types_: ClassTypes) -> list[list[str]]:
    """The fallback argument lists of a function or class template (see the module
    docstring), most likely first, at most MAX_FALLBACKS (each that fails costs NVRTC errors,
    and NVRTC stops at 100 a compile)."""
    base = representative_arguments(row.params, 0, types_.templates)
    if base is None:
        return []
    open_types = [i for i, p in enumerate(row.params[: len(base)]) if p.kind == TYPE_PARAMETER]
    callable_row = getattr(row, "callable", None)
    sizes = [
        i
        for i, p in enumerate(row.params[: len(base)])
        if p.kind != TYPE_PARAMETER and base[i] == INTEGER_ARGUMENTS[0]
    ]
    larger = [_with(base, dict.fromkeys(sizes, size)) for size in LARGE_SIZES] if sizes else []
    found: list[list[str]] = []
    inside: list[int] = []
    if callable_row is not None:
        # A function template: the type parameters that are a parameter's whole type; an
        # iterator among them is most often a pointer. Where there are none, a kernel gives
        # them all explicitly (``check_reduce_params<TyGroup, TyVal, TyRet>()``): each may
        # take a class as well. Beside whole ones, those inside a parameter's type take the
        # module's own classes, last (CUTLASS's abs(complex<T>) compiles for its half_t alone).
        whole = {t.pattern[1] for _n, t, _d in callable_row.params if t.pattern[0] == "param"}
        if whole:
            inside = [i for i in open_types if i not in whole and _inside_a_parameter(row, i)]
            open_types = [i for i in open_types if i in whole]
            found.append([f"{a} *" if i in open_types else a for i, a in enumerate(base)])
            if len(open_types) > 1 and open_types[-1] == _last_parameter_type(row):
                # Iterators and a function object as the last argument (CUB's
                # load_transform_direct_striped(tid, It, T (&)[N], TransformOp)).
                pointers = {i: f"{base[i]} *" for i in open_types[:-1]}
                found += [
                    _with(base, {**pointers, open_types[-1]: function_object})
                    for function_object in types_.function_objects
                ]
    objects = types_.function_objects
    for position, index in enumerate(open_types):
        last = position == len(open_types) - 1
        for class_type in (*types_.classes, *(objects if last else ())):
            found.append(_with(base, {index: class_type}))
        if position == 0 and callable_row is None and not last:
            # A class template of a class and iterators (CUB's BlockLoadType<Policy, It>,
            # whose default T is the iterator's value type): pointers for the others.
            pointers = {i: f"{base[i]} *" for i in open_types[1:]}
            found += [_with(base, {**pointers, index: c}) for c in types_.classes]
        if position == 0:
            found += larger
        if not last:
            # A class and a function object (C++ writes the function object last).
            for function_object in objects:
                for class_type in types_.classes:
                    found.append(_with(base, {index: class_type, open_types[-1]: function_object}))
    if not open_types:
        found += larger
    elif types_.sized:
        found += [_with(base, {open_types[0]: sized}) for sized in types_.sized]
    for index in inside:  # last: the fallbacks tried before they came keep their order
        found += [_with(base, {index: class_type}) for class_type in types_.classes]
    return found[:MAX_FALLBACKS]


def _last_parameter_type(row: Any) -> int | None:
    """The template parameter that is the whole type of a function template's last parameter."""
    if not row.callable.params:
        return None
    pattern = row.callable.params[-1][1].pattern
    return pattern[1] if pattern[0] == "param" else None


def _inside_a_parameter(row: Any, index: int) -> bool:
    """Whether template parameter ``index`` is written inside a function parameter's type
    (``complex<T> const &``), not as the whole of one."""
    placeholder = f"{{{index}}}"
    return any(placeholder in t.spelling for _n, t, _d in row.callable.params)


def _with(arguments: list[str], replaced: dict[int, str]) -> list[str]:
    return [replaced.get(i, a) for i, a in enumerate(arguments)]


def template_id(qual_name: str, arguments: Sequence[str]) -> str:
    name = qual_name if qual_name.startswith("::") else f"::{qual_name}"
    if name.endswith("<"):  # operator< and operator<<: `operator<<int>` reads as `<<` then `int>`
        name += " "
    closing = " >" if arguments and arguments[-1].endswith(">") else ">"
    return f"{name}<{', '.join(arguments)}{closing}"


def _substitute(spelling: str, arguments: Sequence[str]) -> str | None:
    try:
        return _PLACEHOLDER.sub(lambda m: arguments[int(m.group(1))], spelling)
    except IndexError:
        return None  # names a parameter left to its default: not written out here


def _function_uses(row: Any, rounds: list[list[str]]) -> tuple[tuple[str, str], ...]:
    uses = []
    for arguments in rounds:
        values = []
        for _name, param_type, _has_default in row.callable.params:
            spelling = _substitute(param_type.spelling, arguments)
            if spelling is None:
                break
            values.append(f"nbi_probe_value<{spelling}>()")
        else:
            callee = template_id(row.qual_name, arguments)
            uses.append((callee, f"(void){callee}({', '.join(values)});"))
    return _distinct(uses)


def _type_uses(row: Any, rounds: list[list[str]]) -> tuple[tuple[str, str], ...]:
    uses = []
    for arguments in rounds:
        instance = template_id(row.qual_name, arguments)
        uses.append((instance, f"(void)sizeof({instance});"))
    return _distinct(uses)


def _distinct(uses: list[tuple[str, str]]) -> tuple[tuple[str, str], ...]:
    """Rounds that give the same instance (a template of one value parameter) are tried once."""
    seen: dict[str, tuple[str, str]] = {}
    for use in uses:
        seen.setdefault(use[0], use)
    return tuple(seen.values())
