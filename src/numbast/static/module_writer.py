"""Write the source text of a generated bindings module from its planned rows.

Layout of a generated module (see docs/static.md):

1. a comment with its provenance (generator version, config, CUDA version, arches) and a
   docstring;
2. the config's Additional Import statements;
3. the runtime: ``from numbast.runtime import apply`` (the import system's cache entries), or,
   for a standalone module, a copy of the runtime package's sources, loaded once per process
   under a private name (so the module runs where numbast is not installed);
4. the rows (``numbast.core.rows``): shims, type descriptions, enums, structs, struct bodies,
   functions and aliases, as literals;
5. the shim library and one call that registers the rows, then the public names.

Everything per declaration is data: the code is the same few lines for every module and every
size of header, which keeps the module small to compile and fast to import.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from numbast.core.row_writer import RowWriter
from numbast.core.rows import FORMAT
from numbast.core.unit_files import wants_units
from numbast.static.config import StaticConfig
from numbast.static.literals import literal
from numbast.static.module_code import ModuleCode, RowConstants
from numbast.static.module_plan import ModulePlan
from numbast.static.provenance import Provenance, provenance_comment, regenerate_command
from numbast.static.runtime_copy import FEATURES, UNIT_FILES, runtime_copy, runtime_features

# -- the rows ---------------------------------------------------------------------------------


def _rows(
    name: str,
    rows: Sequence[str],
    comment: str = "",
    values: Sequence[Any] = (),
    constants: RowConstants | None = None,
) -> tuple[str, str]:
    """The block ``name=(rows),`` and its skeleton: the same lines, with the rows one
    placeholder for ``values`` (``numbast.static.module_code``); "" without ``constants``."""
    comment = "".join(f"    # {line}\n" for line in comment.splitlines()) if comment else ""
    if not rows:
        text = f"{comment}    {name}=(),\n"
        return text, text
    body = "".join(f"        {row},\n" for row in rows)
    if constants is None:
        skeleton = ""
    else:
        placeholder = literal(constants.placeholder(tuple(values)))
        blank = "\n" * len(rows)  # one row per line: the lines after stay where they are
        skeleton = f"{comment}    {name}=({placeholder}\n{blank}    ),\n"
    return f"{comment}    {name}=(\n{body}    ),\n", skeleton


def _type_row(ref: Any) -> str:
    label = getattr(ref, "label", "")
    return f"{literal(ref.description)},  # {label}" if label else literal(ref.description)


_BLOCKS = (
    ("shims", "(shim name, C++ text): compiled only once a kernel calls it"),
    ("types", "Numba types, described; rows refer to them by index"),
    ("enums", "(Python name, C++ name, ((enumerator, value), ...), scoped)"),
    ("structs", "(Python name, C++ name, sizeof, alignof, parent type (Types), Data Models)"),
    (
        "struct_bodies",
        "per struct: (fields ((name, type), ...) or None, public fields, members (kind,\n"
        "name, call, implicit conversion / non-const)); a call is (shim, ((type, mode,\n"
        "align), ...), result type or -1, result align, returns its first argument)",
    ),
    (
        "functions",
        "(Python name, C++ name, operator, call, typing label, needs a cooperative launch,\n"
        "C++ declaration)",
    ),
    ("aliases", "(typedef, what it names)"),
    (
        "class_templates",
        "class templates: parameters, fields, members, specializations (struct indices)",
    ),
    ("function_templates", "function templates: parameters and the templated function"),
    ("alias_templates", "alias templates: parameters and the class template instance they name"),
    ("kernels", "__global__ functions (launched from the host through the import system)"),
)


def rows_block(
    plan: ModulePlan, writer: RowWriter | None = None, constants: RowConstants | None = None
) -> tuple[str, str]:
    """``_nb_rows = ModuleRows(...)``: every row of the module as literals, indexed by
    ``writer`` (which then holds the module's types and shims); and its skeleton for
    ``constants`` ("" without)."""
    rows = plan.rows(RowWriter() if writer is None else writer)
    head = (
        "# The bindings as data; numbast/core/rows.py and template_rows.py document the layouts.\n"
        "_nb_rows = _nb_runtime.ModuleRows(\n"
        f"    format={FORMAT},\n"
    )
    text, skeleton = [head], [head]
    for name, comment in _BLOCKS:
        if name == "types":
            values = [ref.description for ref in rows.types]
            lines = [_type_row(ref) for ref in rows.types]
        else:
            values = [tuple(row) for row in getattr(rows, name)]
            lines = [literal(value) for value in values]
        block, shape = _rows(name, lines, comment, values, constants)
        text.append(block)
        skeleton.append(shape)
    text.append(")\n")
    skeleton.append(")\n")
    return "".join(text), "".join(skeleton) if constants is not None else ""


# -- the module -------------------------------------------------------------------------------


def runtime_block(
    embed_runtime: bool, plan: ModulePlan | None = None, units: bool = False, code: str = ""
) -> str:
    """``units``: the module links shim units compiled beside it (``unit_files_block``);
    ``code``: the module's code that uses the runtime (a copy keeps what it names)."""
    if not embed_runtime:
        return "from numbast.runtime import apply as _nb_runtime\n"
    features = runtime_features(plan) if plan is not None else list(FEATURES)
    if units and UNIT_FILES not in features:
        features.append(UNIT_FILES)
    return runtime_copy(features, re.findall(r"[A-Za-z_]\w*", code))


def unit_files_block() -> str:
    """A standalone module's kernels link the shim units ``python -m numbast`` compiled beside
    it (``numbast.runtime.unit_files``), where they are."""
    return (
        "# Kernels link the units of the shims they call, compiled beside this module (its\n"
        "# _shims directory) when it was generated; without them the shims compile from source.\n"
        "import importlib as _nb_importlib\n\n"
        '_nb_importlib.import_module(_nb_runtime.__package__ + ".unit_files").use_unit_files(\n'
        "    _numbast_shim_library, __file__\n"
        ")\n"
    )


def _registries_block(config: StaticConfig) -> str:
    if not config.use_separate_registry:
        return "_nb_registries = _nb_runtime.DEFAULT_REGISTRIES\n"
    return (
        "# Use Separate Registry: install these into the CUDA typing and target contexts.\n"
        "from numba.cuda.core.imputils import Registry as _nb_TargetRegistry\n"
        "from numba.cuda.typing.templates import Registry as _nb_TypingRegistry\n\n"
        "typing_registry = _nb_TypingRegistry()\n"
        "target_registry = _nb_TargetRegistry(__name__)\n"
        "_nb_registries = _nb_runtime.Registries(typing_registry, target_registry)\n"
    )


def _shim_library_block(config: StaticConfig, plan: ModulePlan, embed_runtime: bool) -> str:
    """The shim library, its link object as ``shim_obj`` (NVIDIA Numbast's name, kept current
    by the library), the Module Callbacks set on it, and, in the import system's modules, the
    shims compiled in the module's cache entry."""
    if plan.preamble is not None:
        preamble = literal(plan.preamble)
    else:  # a Shim Include Override expression, evaluated as the module is imported
        include = config.shim_include_override
        preamble = f"_nb_runtime.shim_preamble({include}, {literal(config.predefined_macros)})"
    callbacks = "".join(
        f"shim_obj.{attribute} = {expression}\n"
        for attribute, expression in (
            ("setup_callback", config.module_setup_callback),
            ("teardown_callback", config.module_teardown_callback),
        )
        if expression
    )
    entry = ""
    if not embed_runtime:
        entry = (
            "# The import system runs this module with its cache entry (numbast_import.loader):\n"
            "# the shims compiled, the template instances kept, the header's kernels.\n"
            '_nb_entry = globals()["__numbast_entry__"]\n'
            "_nb_entry.use_compiled_shims(_numbast_shim_library)\n"
        )
    return (
        "_numbast_shim_library = _nb_runtime.ShimLibrary(\n"
        f"    {preamble},\n"
        "    _nb_rows.shims,\n"
        '    name=f"{__name__}_shims.cu",\n'
        f"    include_dirs={literal(config.clang_include_paths)},\n"
        + (
            f"    nvrtc_options={literal(config.shim_nvrtc_options)},\n"
            if config.shim_nvrtc_options
            else ""
        )
        + ")\n"
        "# The link object kernels get the shims from (they need no link=; NVIDIA's name).\n"
        '_numbast_shim_library.publish(globals(), "shim_obj")\n' + callbacks + entry
    )


def _constants_block(plan: ModulePlan) -> str:
    """The header's object-like macros that expand to a literal, as NumPy scalars of their C++
    type (a kernel reads them as typed constants)."""
    if not plan.constants:
        return ""
    lines = "".join(
        f"{row.python_name} = {row.python_expression('_nb_np')}  # {row.cxx_type}: "
        f"{row.expansion}\n"
        for row in plan.constants
    )
    return "# Macros of the header that expand to a literal, with their C++ type.\n" + (
        "import numpy as _nb_np\n\n" + lines
    )


def _type_exports(plan: ModulePlan) -> str:
    """``_type_<Struct>``: the Numba type of each exported struct, as NVIDIA's modules have."""
    return "".join(f"{name} = {struct}._numba_type_\n" for name, struct in type_exports(plan))


def type_exports(plan: ModulePlan) -> list[tuple[str, str]]:
    """(``_type_<Struct>``, struct) for the structs exported under a Python identifier (not
    the instances of class templates a header names, which are exported by their spelling)."""
    return [(f"_type_{name}", name) for name in plan.struct_names() if name.isidentifier()]


@dataclass(frozen=True)
class WrittenModule:
    """A module's source, and the shims its rows list (name, C++ text), which the import
    system compiles without running the module."""

    source: str
    shims: tuple[tuple[str, str], ...]
    code: ModuleCode | None = None  # to compile it without parsing its rows


def write_module(
    plan: ModulePlan,
    config: StaticConfig,
    provenance: Provenance,
    embed_runtime: bool = True,
    code: bool = False,
) -> WrittenModule:
    """The complete source of the bindings module. ``embed_runtime``: carry a copy of the
    runtime (a standalone module); otherwise import the installed one and run with the import
    system's cache entry (``__numbast_entry__``). ``code``: also what compiling it without
    parsing its rows needs (``numbast.static.module_code``)."""
    major, minor = provenance.cuda_version
    header = os.path.basename(config.entry_point)
    regenerate = literal(regenerate_command(config))
    public_names = plan.public_names() + [name for name, _struct in type_exports(plan)]
    writer = RowWriter()
    constants = RowConstants() if code else None
    rows_text = rows_block(plan, writer, constants)  # first: it collects the shims
    units = embed_runtime and plan.preamble is not None and wants_units(len(writer.shims))
    instances = "" if embed_runtime else "        instances=_nb_entry.instances,\n"
    kernels = (
        ""
        if embed_runtime or not plan.kernels
        else "# The header's __global__ functions, launched from the host.\n"
        "globals().update(\n"
        "    _nb_entry.kernels(__name__, _nb_rows.kernels, _numbast_shim_library.preamble)\n"
        ")\n"
    )
    parts: list[str | tuple[str, str]] = [  # text, or (text, its skeleton)
        provenance_comment(config, provenance),
        f'"""Numba-CUDA bindings for {header}: {len(plan.structs)} structs, '
        f"{len(plan.enums)} enums, {len(plan.functions)} functions and operators.\n\n"
        f"Generated by numbast (see the comment above); importing it needs "
        f"{'numba-cuda only' if embed_runtime else 'numbast'}. Use the names\nbelow inside "
        '@cuda.jit kernels; kernels need no link= argument.\n"""\n\n',
        "".join(f"{statement}\n" for statement in config.additional_imports),
        _RUNTIME,  # made last: a copy carries what the rest names
        "\n",
        # Data, a row to a line: formatters (ruff format, black) leave it so.
        "# fmt: off\n" if embed_runtime else "",
        rows_text,
        "# fmt: on\n" if embed_runtime else "",
        "\n",
        # Not in an import-system entry: its key has the toolkit's CUDA version, so a hit was
        # made from the headers found now (the check reads 64 KB of cuda_runtime_api.h).
        f"_nb_runtime.warn_if_older_cuda({literal((major, minor))}, __name__, {regenerate})\n"
        if embed_runtime
        else "",
        _shim_library_block(config, plan, embed_runtime),
        unit_files_block() if units else "",
        _registries_block(config),
        "globals().update(\n"
        "    _nb_runtime.apply_module(\n"
        "        __name__,\n"
        "        _nb_rows,\n"
        "        _numbast_shim_library,\n"
        "        _nb_registries,\n"
        f"        {regenerate},\n"
        f"        arch={literal(template_arch(config))},\n" + instances + "    )\n"
        ")\n",
        kernels,
        _type_exports(plan),
        _constants_block(plan),
        _assigned("__all__", tuple(sorted(public_names)), constants),
        "# The C++ types bound here, for modules that use them: (C++ name, Python name, an\n"
        "# enum's integer type or None).\n",
        _assigned("__numbast_types__", tuple(plan.exported_types()), constants),
        _skipped_comment(plan.skipped),
    ]
    code = "".join(part for part in parts if isinstance(part, str) and part is not _RUNTIME)
    parts[parts.index(_RUNTIME)] = runtime_block(embed_runtime, plan, units, code)
    source = "".join(part if isinstance(part, str) else part[0] for part in parts)
    if constants is None:
        return WrittenModule(source, tuple(writer.shims))
    skeleton = "".join(part if isinstance(part, str) else part[1] for part in parts)
    return WrittenModule(
        source, tuple(writer.shims), ModuleCode(skeleton, tuple(constants.constants))
    )


# Where the runtime block goes in write_module's parts (an object of its own, compared by id).
_RUNTIME = "<the runtime block>"


def _assigned(name: str, value: tuple, constants: RowConstants | None) -> tuple[str, str]:
    """``name = value`` and its skeleton, a placeholder for ``value`` (the names a big header
    exports: one line, but their strings are shared with the rows in the code's constants)."""
    text = f"{name} = {literal(value)}\n"
    if constants is None:
        return text, ""
    return text, f"{name} = {literal(constants.placeholder(value))}\n"


def template_arch(config: StaticConfig) -> str | None:
    """The arch templates are instantiated for: the one GPU Arch, else the current GPU's."""
    return config.gpu_arch[0] if len(config.gpu_arch) == 1 else None


def _skipped_comment(skipped: Sequence[str]) -> str:
    if not skipped:
        return ""
    lines = [f"Not bound ({len(skipped)} declarations):"] + [f"  {entry}" for entry in skipped]
    return "\n" + "".join(f"# {line}\n" for line in lines)
