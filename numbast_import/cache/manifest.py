"""What an intact cache entry of each kind holds, checked in one place.

Every entry is a directory holding its artifacts and ``manifest.json``, written last, which
names the entry's kind and format, its key (in clear text, so ``numbast-cache show`` can explain
a miss) and the sha256 of every artifact. A manifest is data read from disk:
:func:`manifest_problem` checks the type of every field, required and optional, for the entry's
kind, and everything that reads manifests (imports, ``compile()``, ``verify``, ``show``,
``coverage``, ``prune``, ``clear``) reads them through it, so a damaged one is a reason to
rebuild, never an exception.

The kinds (:class:`EntryKind`): ``header`` (a mapped header's module: ``bindings.py``, its code
object ``bindings.pyc``, ``shim.cu``, ``shim.ltoir``), ``rtc`` (a compiled ``SourceModule``),
``program`` (a cuda.core program stored through ``ProgramCacheResource``) and ``instance`` (a
template instance's record, or the LTO-IR of shims compiled with instances, kept inside a header
entry).

``bindings.pyc`` is a hash-based .pyc (PEP 552): Python's magic number, flags, the source hash
of ``bindings.py`` and the marshalled code. A hit runs it without compiling, as importlib runs
a checked .pyc, after checking the magic number and the source hash.
"""

# No ``from __future__ import annotations`` here: typing.NamedTuple turns string annotations
# into ForwardRefs, compiling each when a warm import defines the classes below.

import hashlib
import importlib.util
import marshal
import types
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any, NamedTuple

from numbast_import.cache.key import FORMAT_VERSION

MANIFEST = "manifest.json"

# Header entries.
KIND = "header"
BINDINGS = "bindings.py"
BINDINGS_CODE = "bindings.pyc"
SHIM_SOURCE = "shim.cu"
SHIM_LTOIR = "shim.ltoir"
# Every header entry has its module; its shims are either one unit (shim.cu, shim.ltoir), or
# units of their own (``shim`` entries) that the manifest's ``shim_units`` names.
ARTIFACTS = (BINDINGS, BINDINGS_CODE)

_PYC_CHECKED_HASH = 0b11  # PEP 552 flags: hash-based, check_source


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# -- field types ------------------------------------------------------------------------------
class FieldType(NamedTuple):
    """What a manifest field must hold: ``description`` (for messages) and a check."""

    description: str
    accepts: Callable[[Any], bool]


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _table(value: Any, accepts_value: Callable[[Any], bool]) -> bool:
    return type(value) is dict and all(
        type(k) is str and accepts_value(v) for k, v in value.items()
    )


def _is_str(value: Any) -> bool:
    return isinstance(value, str)


def _strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def _digests(value: Any) -> bool:
    # Loops, not nested generators: a hit checks ~200 of these (cuda_fp16.h's includes).
    if type(value) is not dict:
        return False
    for name, digest in value.items():
        if type(name) is not str or type(digest) is not str:
            return False
    return True


def _stamps(value: Any) -> bool:
    if type(value) is not dict:
        return False
    for path, stamp in value.items():
        if type(path) is not str or type(stamp) is not list or len(stamp) != 2:
            return False
        if type(stamp[0]) is not int or type(stamp[1]) is not int:  # bool is not int here
            return False
    return True


_COUNTS = ("found", "bound", "skipped", "excluded", "host_only")
_NOT_BOUND = ("what", "where", "outcome", "reason")


def _coverage(value: Any) -> bool:
    """The shape ``numbast.static.coverage.summarize`` gives and ``numbast-cache coverage``
    reads."""
    if not isinstance(value, dict):
        return False
    kinds, functions = value.get("kinds"), value.get("device_functions")
    if not (isinstance(kinds, dict) and isinstance(functions, dict)):
        return False
    for counts in kinds.values():
        if not isinstance(counts, dict) or not all(_is_int(counts.get(n)) for n in _COUNTS):
            return False
        listed = counts.get("not_bound")
        if not isinstance(listed, list) or not all(
            isinstance(item, dict) and all(isinstance(item.get(n), str) for n in _NOT_BOUND)
            for item in listed
        ):
            return False
    percent = functions.get("percent")
    return (
        _is_int(functions.get("found"))
        and _is_int(functions.get("bound"))
        and (percent is None or _is_number(percent))
    )


def binds_nothing(coverage: Mapping[str, Any] | None) -> bool:
    """Whether an entry's coverage (its manifest's) counts no bound declaration at all (its
    import then warns: ``numbast_import.retain_hints``, imported only then)."""
    if not coverage:
        return False
    return not any(counts.get("bound") for counts in coverage.get("kinds", {}).values())


STRING = FieldType("a string", lambda v: isinstance(v, str))
STRING_OR_NULL = FieldType("a string or null", lambda v: v is None or isinstance(v, str))
INTEGER = FieldType("an integer", _is_int)
NUMBER = FieldType("a number", _is_number)
OBJECT = FieldType("an object", lambda v: isinstance(v, dict))
STRINGS = FieldType("a list of strings", _strings)
DIGESTS = FieldType("a table of file names to sha256 strings", _digests)
NAMES = FieldType("a table of strings to strings", lambda v: _table(v, _is_str))
STAMPS = FieldType("a table of paths to [size, mtime_ns]", _stamps)
SYMBOLS = FieldType(
    "a list of [name, mangled name, name was bytes, mangled was bytes]",
    lambda v: (
        isinstance(v, list)
        and all(
            isinstance(item, list)
            and len(item) == 4
            and all(isinstance(x, str) for x in item[:2])
            and all(isinstance(x, bool) for x in item[2:])
            for item in v
        )
    ),
)
COVERAGE = FieldType("a coverage summary (kinds, device_functions)", _coverage)


def _shim_units(value: Any) -> bool:
    """``[[unit digest, [shim name, ...]], ...]``."""
    return isinstance(value, list) and all(
        isinstance(unit, list)
        and len(unit) == 2
        and isinstance(unit[0], str)
        and len(unit[0]) == 64
        and _strings(unit[1])
        for unit in value
    )


SHIM_UNITS = FieldType("a list of [unit digest, [shim name, ...]]", _shim_units)

# Fields every entry's manifest has, and may have.
COMMON_REQUIRED: dict[str, FieldType] = {
    "kind": STRING,
    "format": INTEGER,
    "key": OBJECT,
    "artifacts": DIGESTS,
}
COMMON_OPTIONAL: dict[str, FieldType] = {"created": NUMBER, "built_by": OBJECT}


# -- kinds ------------------------------------------------------------------------------------
class EntryKind(NamedTuple):
    """One kind of cache entry: where its entries live under a root (``directory``, "" for the
    root itself), the format its manifests must carry, the fields beyond the common ones, the
    artifacts every entry must have, and a last check of the artifacts' contents. (Named
    tuples, not dataclasses, here and in ``entries``: they are made when a warm import starts,
    and a dataclass costs ~1 ms to define.)"""

    name: str
    directory: str
    format: int
    required: Mapping[str, FieldType] = MappingProxyType({})
    optional: Mapping[str, FieldType] = MappingProxyType({})
    artifacts: tuple[str, ...] = ()
    sharded: bool = True  # <directory>/<2 hex>/<digest>/, else <directory>/<digest>/
    # A last check of the artifacts read (a hit's reading leaves ``not_loaded`` out).
    check: Callable[[Mapping[str, bytes]], str | None] | None = None
    # Artifacts no hit executes or loads (a header module's source: its code object runs):
    # a lookup checks that they are there and safe to trust, and reads and hashes them not;
    # ``numbast-cache verify`` reads and hashes every artifact.
    not_loaded: tuple[str, ...] = ()


def manifest_problem(manifest: Any, kind: EntryKind) -> str | None:
    """Why ``manifest`` (parsed JSON) is not the manifest of an entry of ``kind``, or None."""
    if not isinstance(manifest, dict):
        return f"{MANIFEST} is not a JSON object"
    required = {**COMMON_REQUIRED, **kind.required}
    optional = {**COMMON_OPTIONAL, **kind.optional}
    for name in required:
        if name not in manifest:
            return f"{MANIFEST} lacks {name!r}"
    for name, expected in (*required.items(), *optional.items()):
        if name in manifest and not expected.accepts(manifest[name]):
            found = type(manifest[name]).__name__
            return f"{MANIFEST}: {name!r} must be {expected.description} (it is a {found})"
    if manifest["kind"] != kind.name:
        return f"{MANIFEST}: kind {manifest['kind']!r} is not {kind.name!r}"
    missing = [name for name in kind.artifacts if name not in manifest["artifacts"]]
    if missing:
        return f"{MANIFEST} lists no {', '.join(missing)}"
    if not manifest["artifacts"]:
        return f"{MANIFEST} lists no artifacts"
    for name in manifest["artifacts"]:
        if name in ("", ".", "..", MANIFEST) or "/" in name or "\\" in name or "\0" in name:
            return f"{MANIFEST} names an artifact {name!r} outside the entry"
    return None


# -- header entries ---------------------------------------------------------------------------
def code_to_pyc(code: types.CodeType, source: bytes) -> bytes:
    """A checked hash-based .pyc of ``code``, compiled from ``source``."""
    header = importlib.util.MAGIC_NUMBER + _PYC_CHECKED_HASH.to_bytes(4, "little")
    return header + importlib.util.source_hash(source) + marshal.dumps(code)


def pyc_problem(pyc: bytes, source: bytes | None) -> str | None:
    """Why ``pyc`` cannot be run as the code of ``source`` (None when it can; ``source``
    None: a hit, which does not read the source, checks the rest)."""
    if pyc[:4] != importlib.util.MAGIC_NUMBER:
        return f"{BINDINGS_CODE} was compiled by another Python version (magic {pyc[:4].hex()})"
    if int.from_bytes(pyc[4:8], "little") != _PYC_CHECKED_HASH:
        return f"{BINDINGS_CODE} is not a checked hash-based .pyc"
    if source is not None and pyc[8:16] != importlib.util.source_hash(source):
        return f"{BINDINGS_CODE} was not compiled from this {BINDINGS}"
    return None


def code_from_pyc(pyc: bytes, filename: str) -> types.CodeType:
    """The code object of a .pyc that :func:`pyc_problem` accepted, naming ``filename`` (the
    entry may have been built elsewhere: a read-only layer or a moved cache)."""
    code = marshal.loads(pyc[16:])
    if code.co_filename != filename:
        code = _with_filename(code, filename)
    return code


def _with_filename(code: types.CodeType, filename: str) -> types.CodeType:
    consts = tuple(
        _with_filename(c, filename) if isinstance(c, types.CodeType) else c for c in code.co_consts
    )
    return code.replace(co_filename=filename, co_consts=consts)


def _header_artifacts_problem(artifacts: Mapping[str, bytes]) -> str | None:
    return pyc_problem(artifacts[BINDINGS_CODE], artifacts.get(BINDINGS))


HEADER = EntryKind(
    name=KIND,
    directory="",
    format=FORMAT_VERSION,
    required={"included_files": DIGESTS},
    optional={
        "included_stamps": STAMPS,
        "shims_left_out": STRINGS,
        "shims_rejected": NAMES,  # shim -> NVRTC's message
        "nvrtc_options": STRINGS,  # what NVRTC compiled the shims with (-default-device...)
        "shim_units": SHIM_UNITS,  # the shims' units (shim entries), when not in shim.ltoir
        "coverage": COVERAGE,
        "project": STRING_OR_NULL,
        "regenerate": STRING_OR_NULL,
    },
    artifacts=ARTIFACTS,
    check=_header_artifacts_problem,
    # The module's source: tracebacks and inspect read it from the file; its code object,
    # hashed with the source's hash inside, is what runs.
    not_loaded=(BINDINGS,),
)

# A compiled SourceModule: kernel.<target> and source.cu; the key is the whole compile request.
RTC = EntryKind(name="rtc", directory="rtc", format=1, optional={"lowered_names": NAMES})

# A cuda.core program stored through ProgramCacheResource: program.bin under the digest of
# cuda.core's key (make_program_cache_key), which the manifest keeps in hex.
# NVRTC's symbol mapping (name expressions) is kept too, which cuda.core's own caches cannot.
PROGRAM = EntryKind(
    name="program",
    directory="programs",
    format=1,
    optional={"symbol_mapping": SYMBOLS},
    artifacts=("program.bin",),
)

# Inside a header entry (<entry>/instances/<digest>/): a template instance's record
# (record.json) or the LTO-IR of shims compiled with instances (unit.ltoir).
INSTANCE = EntryKind(name="instance", directory="", format=1, sharded=False)

# A unit of a header module's shims (shims/<2 hex>/<digest>/unit.ltoir), named by the digest
# of its shims' keys (numbast_import.shim_keys): shared by every entry whose shims have those
# keys, so an edited header compiles only the units whose shims changed. Also the answer of
# whether a header defines symbols of its own (check.json), which decides whether its shims
# can be compiled in units.
SHIM = EntryKind(
    name="shim",
    directory="shims",
    format=1,
    optional={"shims_rejected": NAMES, "shims": NAMES},
)

# NVRTC's precompiled header of a module's shim preamble (the header and what it includes):
# shim-preludes/<2 hex>/<digest>/prelude.pch.
SHIM_PRELUDE = EntryKind(
    name="shim-prelude", directory="shim-preludes", format=1, artifacts=("prelude.pch",)
)

KINDS = {kind.name: kind for kind in (HEADER, RTC, PROGRAM, INSTANCE, SHIM, SHIM_PRELUDE)}
