"""One mapped header: ``name = "x.cuh"`` or ``name = { header = ..., <options> }``.

The table form takes the static generator's config keys under kebab-case names
(``KEBAB_TO_STATIC``). Every key is checked when the table is read
(``numbast_import.mapping_checks``), and problems are reported with the user's own key names
(``defines[0]``, not ``Predefined Macros[0]``). The static generator validates the translated
mapping again when a module is generated; whatever it still finds is translated back to
kebab-case too (``kebab_problems``).
"""

# No ``from __future__ import annotations`` here: typing.NamedTuple would compile a ForwardRef
# for each field of HeaderMapping at every import.
import hashlib
import json
import logging
import re
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any, NamedTuple

from numbast_import.errors import ImportConfigError
from numbast_import.mapping_checks import (
    DOCS,
    KEBAB_TO_STATIC,
    OWN_KEYS,
    absolute_path,
    entry_problems,
)

logger = logging.getLogger(__name__)


def _schema_digest(raw: Any) -> str:
    """A digest of a static mapping and the schema it is checked against."""
    import importlib.resources

    from numbast.static.config_schema import SCHEMA_FILE, SCHEMA_PACKAGE

    schema = importlib.resources.files(SCHEMA_PACKAGE).joinpath(SCHEMA_FILE).read_bytes()
    text = json.dumps(raw, sort_keys=True, default=str).encode()
    return hashlib.sha256(hashlib.sha256(schema).digest() + text).hexdigest()


STATIC_TO_KEBAB = {".".join(path): key for key, path in KEBAB_TO_STATIC.items()}
STATIC_TO_KEBAB["Entry Point"] = "header"

_MODULE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class HeaderMapping(NamedTuple):
    """One mapped header: ``module`` is the name under its package (``my_lib`` for
    ``cuda_headers.my_lib``); ``options`` are static-config keys (paths still relative to
    ``base_dir``) with no ``GPU Arch``: the arch is chosen when the module is loaded.
    ``source`` names where the mapping was written, for messages; ``pyproject`` is that file
    (None for ``register()`` and the built-in modules). Changed copies: ``_replace``.

    (A named tuple, not a frozen dataclass: every import through the finder defines it, and a
    frozen dataclass of these 14 fields costs ~0.8 ms to define, a named tuple ~0.1 ms.)"""

    module: str
    header: str
    options: dict[str, Any]
    base_dir: str
    source: str
    sha256: str | None = None
    bypass_parse_error: bool = False
    arch: str | None = None
    cache_dir: str | None = None
    pyproject: str | None = None
    # What register() was given (None otherwise); not compared (``__eq__``).
    registered: dict[str, Any] | None = None
    # Modules whose bound types this header's declarations use (numbast.headers.cufp8 uses
    # numbast.headers.cufp16's __half): imported first, in this order. Built-in modules only.
    uses: tuple[str, ...] = ()
    # NVRTC options as written (nvcc's spelling), and -default-device (None: detected).
    nvrtc_options: tuple[str, ...] = ()
    default_device: bool | None = None

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, HeaderMapping):
            return False if isinstance(other, tuple) else NotImplemented
        return tuple.__eq__(self._replace(registered=None), other._replace(registered=None))

    def __ne__(self, other: object) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    __hash__ = None  # type: ignore[assignment]  (its options are a dict)

    def static_mapping(self, arch: str) -> dict[str, Any]:
        """The static-binding config mapping for ``arch``, with absolute paths."""
        raw = dict(self.options)
        raw["GPU Arch"] = [arch]
        raw["Entry Point"] = absolute_path(self.base_dir, raw["Entry Point"])
        raw["File List"] = [absolute_path(self.base_dir, p) for p in raw["File List"]]
        if raw.get("Clang Include Paths"):
            raw["Clang Include Paths"] = [
                absolute_path(self.base_dir, p) for p in raw["Clang Include Paths"]
            ]
        return raw

    def static_config(
        self, arch: str, regenerate_command: str | None = None, checked_in: Path | None = None
    ):
        """The validated :class:`numbast.static.config.StaticConfig` for ``arch``; problems the
        static generator finds are reported under the table's kebab-case keys. ``checked_in``:
        a directory remembering the mappings that satisfied the schema (a cache root's
        ``keys/``), so an unchanged mapping is not checked against it again."""
        from numbast.static.config import ConfigError, config_from_mapping

        raw = self.static_mapping(arch)
        memo = None if checked_in is None else checked_in / f"schema-ok-{_schema_digest(raw)}"
        try:
            config = config_from_mapping(
                raw,
                base_dir=self.base_dir,
                source=self.source,
                schema_checked=memo is not None and memo.is_file(),
            )
        except ConfigError as exc:
            problems = kebab_problems(exc.problems)
            raise ImportConfigError(problems_message(self.source, problems)) from None
        if memo is not None and not memo.is_file():
            try:
                memo.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
                memo.touch()
            except OSError as exc:  # a read-only root: checked again next time
                logger.debug("cannot remember the checked mapping in %s: %s", memo, exc)
        from numbast_import.mapping_nvrtc import translated_nvrtc_options

        return replace(
            config,
            bypass_parse_error=self.bypass_parse_error,
            regenerate_command=regenerate_command,
            nvrtc_options=translated_nvrtc_options(self.nvrtc_options, self.source),
            default_device=bool(self.default_device),
        )

    def check_pin(self) -> None:
        """Raise when the header's contents do not match its ``sha256`` pin."""
        if self.sha256 is None:
            return
        try:
            actual = hashlib.sha256(Path(self.header).read_bytes()).hexdigest()
        except OSError as exc:
            raise ImportConfigError(
                f"{self.source}: header {self.header} cannot be read ({exc.strerror}); fix the "
                "path or create the file"
            ) from None
        if actual != self.sha256.lower():
            raise ImportConfigError(
                f"{self.source}: header {self.header} does not match its sha256 pin (pinned "
                f"{self.sha256}, file has {actual}); if the change is intended, set sha256 = "
                f'"{actual}", else restore the header'
            )


def header_mapping(
    module: str,
    entry: Any,
    base_dir: str,
    where: str,
    include_dirs: list[str] | tuple[str, ...] = (),
    pyproject: str | None = None,
    source: str | None = None,
) -> HeaderMapping:
    """One ``module = "header"`` or ``module = { header = ..., ... }`` entry; ``where`` names
    the table it is in (``source``, when given, names the entry itself in messages). Raises
    ImportConfigError listing every problem of the entry."""
    if not _MODULE_NAME.fullmatch(module):
        raise ImportConfigError(
            f"{source or where}: {module!r} is not a Python module name; rename it to an "
            "identifier (letters, digits and _, not starting with a digit)"
        )
    if isinstance(entry, str):
        entry = {"header": entry}
    key_where = source or f"{where} {module}"
    if not isinstance(entry, Mapping):
        raise ImportConfigError(
            f'{key_where}: write a header path, {module} = "include/{module}.cuh", or a table '
            f'with a header key, {module} = {{ header = "include/{module}.cuh" }}'
        )
    problems = entry_problems(entry, base_dir)
    if problems:
        raise ImportConfigError(problems_message(key_where, problems))
    header = entry["header"]
    options: dict[str, Any] = {"Entry Point": header}
    for key, value in entry.items():
        if key in OWN_KEYS:
            continue
        path = KEBAB_TO_STATIC[key]
        target = options
        for part in path[:-1]:
            target = target.setdefault(part, {})
        target[path[-1]] = value
    retained = options.get("File List") or []
    options["File List"] = [header, *[p for p in retained if p != header]]
    if include_dirs:
        own = options.get("Clang Include Paths") or []
        options["Clang Include Paths"] = [*own, *[d for d in include_dirs if d not in own]]
    return HeaderMapping(
        module=module,
        header=absolute_path(base_dir, header),
        options=options,
        base_dir=base_dir,
        source=key_where,
        sha256=entry.get("sha256"),
        bypass_parse_error=bool(entry.get("bypass-parse-error", False)),
        pyproject=pyproject,
        nvrtc_options=tuple(entry.get("nvrtc-options", ())),
        default_device=entry.get("default-device"),
    )


def problems_message(where: str, problems: list[str]) -> str:
    if len(problems) == 1:
        return f"{where}: {problems[0]}"
    listed = "\n".join(f"  {problem}" for problem in problems)
    return f"{where} has {len(problems)} problems:\n{listed}\n(the keys are described in {DOCS})"


def kebab_problems(problems: tuple[str, ...] | list[str]) -> list[str]:
    """The static generator's ``<key path>: <message>`` lines with kebab-case key paths."""
    translated = []
    for line in problems:
        path, sep, message = line.partition(": ")
        head = re.match(r"[^\[]*", path).group(0)
        for static, kebab in sorted(STATIC_TO_KEBAB.items(), key=lambda kv: -len(kv[0])):
            if head == static or head.startswith(static + "."):
                path = kebab + path[len(static) :]
                break
        translated.append(f"{path}{sep}{message}")
    return translated
