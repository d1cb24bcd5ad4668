"""A mapping's NVRTC keys: ``nvrtc-options = [...]`` (nvcc's spelling, translated by
``numbast_import.rtc.options``) and ``default-device = true | false`` (unset: detected).

Options that clang must see as well have their own keys, and are refused here with the key to
use: what clang parses, NVRTC must compile with the same macros and include directories. The
arch is chosen when the module is imported, so targets are refused too. Reading the table
checks spellings only (a warm import asks NVRTC nothing); the options are translated when the
module is built.
"""

from __future__ import annotations

from collections.abc import Sequence

from numbast_import.errors import ImportConfigError

_OWN_KEY = {
    "-I": "include-dirs",
    "--include-path": "include-dirs",
    "-D": "defines",
    "--define-macro": "defines",
    "-U": "defines (leave the macro out)",
    "--undefine-macro": "defines (leave the macro out)",
}
_REFUSED = {
    **dict.fromkeys(("-arch", "--gpu-architecture", "-code", "--gpu-code"), "the arch"),
    **dict.fromkeys(("-gencode", "--generate-code"), "the arch"),
    **dict.fromkeys(("-l", "-L", "--library", "--library-path"), "linking"),
    **dict.fromkeys(("-cubin", "--cubin", "-ptx", "--ptx", "-fatbin", "--fatbin"), "the output"),
}


def nvrtc_option_problem(option: str) -> str | None:
    """Why ``option`` cannot be one of a mapping's nvrtc-options (None: it may be)."""
    from numbast_import.rtc.options import option_name

    name = option_name(option)
    if name in _OWN_KEY:
        return f"is for clang too: give it with {_OWN_KEY[name]} instead"
    if name in _REFUSED:
        return f"sets {_REFUSED[name]}, which the import system chooses; remove it"
    return None


def translated_nvrtc_options(options: Sequence[str], where: str) -> tuple[str, ...]:
    """NVRTC's spelling of a mapping's ``nvrtc-options``; ImportConfigError (naming the key and
    the option) for one NVRTC does not have."""
    from numbast_import.rtc.options import UnsupportedOptionError, translate_options

    try:
        translated = translate_options(options, where=f"{where}: nvrtc-options")
    except UnsupportedOptionError as exc:
        raise ImportConfigError(str(exc)) from None
    return tuple(translated.nvrtc)
