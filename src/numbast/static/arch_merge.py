"""Parse the entry point once per GPU arch and merge the results into one set of declarations.

A header can declare different things for different architectures (``#if __CUDA_ARCH__ >=
...``). One generated module serves every arch in ``GPU Arch``, so the declarations are merged
as a union:

- A function or member present on every arch is bound as usual.
- One present on some arches only is bound too, but its shim is wrapped in
  ``#if __CUDA_ARCH__ == ...`` for those arches, with an ``#error`` naming the declaration and
  its arches otherwise. Typing does not know the target arch, so the kernel still types; the
  error comes when NVRTC compiles the shim for another arch, and only for kernels that call it.
- Structs and enums must agree on every arch (size, alignment, fields; enumerator values): one
  Numba type cannot have two layouts. If they differ the generator stops and says to generate one
  module per arch.

"Present on an arch" means declared there and callable on the device (a function declared
``__host__`` only for some arches counts as absent there).
"""

from __future__ import annotations

import dataclasses
import logging
import re
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from ast_canopy.model import Declarations, Function, Method, Struct
from numbast.planning.descriptions import method_text, signature_text

logger = logging.getLogger(__name__)

D = TypeVar("D")


class ArchMismatchError(ValueError):
    """A struct or enum differs between two of the configured GPU arches."""


def function_key(func: Function) -> str:
    """Identity of a free function across parses: its mangled name, else its signature."""
    return func.mangled_name or signature_text(func)


def member_key(method: Method) -> str:
    return method.mangled_name or method_text(method)


@dataclass
class MergedDeclarations:
    """The union of the per-arch declarations, and where each partial one exists."""

    decls: Declarations
    archs: tuple[str, ...]
    # function_key / member_key -> the arches it exists on, for those not on every arch.
    partial: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def arches_of(self, key: str) -> tuple[str, ...] | None:
        """The arches a declaration exists on, or None when it exists on all of them."""
        return self.partial.get(key)


def merge_declarations(
    per_arch: Sequence[tuple[str, Declarations]], header: str
) -> MergedDeclarations:
    """Merge the parses of one header for several arches (see the module docstring)."""
    archs = tuple(arch for arch, _ in per_arch)
    if len(per_arch) == 1:
        return MergedDeclarations(per_arch[0][1], archs)
    partial: dict[str, tuple[str, ...]] = {}
    first = per_arch[0][1]
    functions = _union(
        [(arch, d.functions) for arch, d in per_arch],
        function_key,
        lambda f: f.exec_space.is_device_callable,
        archs,
        partial,
    )
    structs = [
        _merge_struct(versions, archs, partial, header)
        for versions in _group([(arch, d.structs) for arch, d in per_arch], lambda s: s.qual_name)
    ]
    enums = []
    for versions in _group([(arch, d.enums) for arch, d in per_arch], lambda e: e.qual_name):
        _require_same(versions, archs, header, "enum", lambda e: e.enumerator_values, "values")
        enums.append(versions[0][1])
    typedefs = [v[0][1] for v in _group([(a, d.typedefs) for a, d in per_arch], _qual_name)]
    merged = dataclasses.replace(
        first,
        functions=functions,
        structs=structs,
        enums=enums,
        typedefs=typedefs,
        included_files=sorted({f for _, d in per_arch for f in d.included_files}),
    )
    if partial:
        logger.info(
            "%s: %d declarations exist on some of %s only; their shims are guarded by arch",
            header,
            len(partial),
            ", ".join(archs),
        )
    return MergedDeclarations(merged, archs, partial)


def _qual_name(decl) -> str:
    return decl.qual_name


def _group(
    per_arch: Sequence[tuple[str, Sequence[D]]], key: Callable[[D], Hashable]
) -> list[list[tuple[str, D]]]:
    """Versions of each declaration, by key, in first-seen order: [[(arch, decl), ...], ...]."""
    groups: dict[Hashable, list[tuple[str, D]]] = {}
    for arch, decls in per_arch:
        for decl in decls:
            versions = groups.setdefault(key(decl), [])
            if all(seen_arch != arch for seen_arch, _ in versions):
                versions.append((arch, decl))
    return list(groups.values())


def _union(
    per_arch: Sequence[tuple[str, Sequence[D]]],
    key: Callable[[D], str],
    present: Callable[[D], bool],
    archs: tuple[str, ...],
    partial: dict[str, tuple[str, ...]],
) -> list[D]:
    merged = []
    for versions in _group(per_arch, key):
        available = [(arch, decl) for arch, decl in versions if present(decl)]
        chosen = available or versions
        merged.append(chosen[0][1])
        where = tuple(arch for arch in archs if any(arch == a for a, _ in chosen))
        if where != archs:
            partial[key(chosen[0][1])] = where
    return merged


def _merge_struct(
    versions: list[tuple[str, Struct]],
    archs: tuple[str, ...],
    partial: dict[str, tuple[str, ...]],
    header: str,
) -> Struct:
    _require_same(
        versions,
        archs,
        header,
        "struct",
        lambda s: (s.sizeof_, s.alignof_, [(f.name, f.type_.canonical_name) for f in s.fields]),
        "layout",
    )
    # Members of a struct that exists only on some arches exist only there too.
    struct_arches = tuple(arch for arch in archs if any(arch == a for a, _ in versions))
    methods = _union(
        [(arch, s.methods) for arch, s in versions],
        member_key,
        lambda m: m.exec_space.is_device_callable,
        struct_arches,
        partial,
    )
    if struct_arches != archs:
        for method in methods:
            partial.setdefault(member_key(method), struct_arches)
    return dataclasses.replace(versions[0][1], methods=tuple(methods))


def _require_same(versions, archs, header, kind, signature, what) -> None:
    reference_arch, reference = versions[0]
    for arch, decl in versions[1:]:
        if signature(decl) != signature(reference):
            raise ArchMismatchError(
                f"{kind} {reference.qual_name} in {header} has a different {what} on {arch} "
                f"than on {reference_arch}, so one module cannot bind it for all of "
                f"{', '.join(archs)}; fix: generate one module per arch (a config with one GPU "
                "Arch each, and a different Output Name), or Exclude it."
            )


# -- shims that exist on some arches only -----------------------------------------------------

_ARCH = re.compile(r"^sm_(\d+)([a-z]?)$")


def arch_condition(arch: str) -> str:
    """The preprocessor condition that holds when compiling device code for ``arch``."""
    match = _ARCH.match(arch)
    if match is None:
        raise ValueError(f"not a GPU arch: {arch!r}")
    digits, suffix = match.groups()
    value = int(digits) * 10  # sm_90 -> __CUDA_ARCH__ 900, sm_100 -> 1000
    condition = f"__CUDA_ARCH__ == {value}"
    if suffix == "a":
        # Arch-specific features (sm_90a): nvcc and NVRTC define __CUDA_ARCH_FEAT_SM<nn>_ALL.
        return f"({condition} && defined(__CUDA_ARCH_FEAT_SM{digits}_ALL))"
    return f"({condition})"


def guard_shim(
    shim_text: str, what: str, available: Sequence[str], all_archs: Sequence[str]
) -> str:
    """Wrap a shim so that it compiles for ``available`` arches and fails with a message that
    names the declaration on any other."""
    condition = " || ".join(arch_condition(arch) for arch in available)
    message = (
        f"numbast: {what} is declared for {', '.join(available)} only (bindings generated for "
        f"{', '.join(all_archs)}); compile this kernel for one of those arches"
    ).replace('"', "'")
    return (
        f"#if defined(__CUDA_ARCH__) && ({condition})\n{shim_text}"
        f'#else\n#error "{message}"\n#endif\n'
    )
