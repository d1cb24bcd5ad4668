"""A loaded module: PyCUDA's ``Module`` (``get_function``, ``get_global``, ``get_texref``),
on a cuda.core ObjectCode (a context-independent CUlibrary, loaded on first use).

Other code that has device code and kernel names makes Functions the same way::

    Module.from_cubin(cubin_bytes).get_function("saxpy")
    Module.from_ltoir([ltoir_bytes], arch="sm_90").get_function("saxpy")   # linked first
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

from numbast_import.rtc.context import LogicError, driver, ensure_context
from numbast_import.rtc.function import Function
from numbast_import.rtc.textures_rewrite import TextureDeclaration

logger = logging.getLogger(__name__)

_LOADERS = {"cubin": "from_cubin", "ptx": "from_ptx", "fatbin": "from_fatbin"}


class Module:
    """Device code and what was declared in it; loads on first use."""

    def __init__(
        self,
        code: bytes,
        target: str = "cubin",
        *,
        lowered_names: Mapping[str, str] | None = None,
        textures: Sequence[TextureDeclaration] = (),
    ) -> None:
        if target not in _LOADERS:
            raise ValueError(f"cannot load {target!r} code; load cubin, ptx or fatbin")
        self.code = bytes(code)
        self.target = target
        self.lowered_names = dict(lowered_names or {})
        self.textures = {t.name: t for t in textures}
        self.texture_names = tuple(self.textures)
        self._object_code: Any = None
        self._functions: dict[str, Function] = {}
        self._texrefs: dict[str, Any] = {}

    # -- construction from device code ------------------------------------------------------

    @classmethod
    def from_cubin(cls, data: bytes) -> Module:
        return cls(data, "cubin")

    @classmethod
    def from_buffer(cls, data: bytes | str) -> Module:
        """cubin, fatbin or PTX, told apart by their first bytes."""
        raw = data.encode() if isinstance(data, str) else bytes(data)
        if raw[:4] == b"\x7fELF":
            return cls(raw, "cubin")
        if raw[:4] == b"\x50\xed\x55\xba":
            return cls(raw, "fatbin")
        return cls(raw, "ptx")

    @classmethod
    def from_ltoir(
        cls, ltoirs: Sequence[bytes], arch: str, lowered_names: Mapping[str, str] | None = None
    ) -> Module:
        """LTO-IR linked (nvJitLink, through cuda.core's Linker) into a cubin for ``arch``."""
        from cuda.core import Linker, LinkerOptions, ObjectCode

        objects = [ObjectCode.from_ltoir(bytes(code)) for code in ltoirs]
        options = LinkerOptions(arch=arch, link_time_optimization=True)
        cubin = Linker(*objects, options=options).link("cubin")
        return cls(bytes(cubin.code), "cubin", lowered_names=lowered_names)

    # -- loading ----------------------------------------------------------------------------

    @property
    def object_code(self) -> Any:
        """The cuda.core ObjectCode (loaded into the driver on first use)."""
        if self._object_code is None:
            from cuda.core import ObjectCode

            ensure_context()
            self._object_code = getattr(ObjectCode, _LOADERS[self.target])(self.code)
        return self._object_code

    def _library_handle(self) -> int:
        return int(self.object_code.handle)

    def get_function(self, name: str) -> Function:
        """The kernel ``name`` (an ``extern "C"`` name, a mangled name, or one of the
        ``name_expressions`` given at compile time)."""
        found = self._functions.get(name)
        if found is None:
            symbol = self.lowered_names.get(name, name)
            try:
                kernel = self.object_code.get_kernel(symbol)
            except Exception as exc:  # cuda.core raises CUDAError with CUDA_ERROR_NOT_FOUND
                raise LogicError(
                    f"no kernel {name!r} in this module ({exc}). Kernels are found by their "
                    'extern "C" names; for C++ (no_extern_c=True) kernels and templates, pass '
                    f"name_expressions=[{name!r}] to SourceModule, or the mangled name"
                ) from exc
            found = self._functions[name] = Function.from_kernel(kernel, name, module=self)
        return found

    def get_global(self, name: str) -> tuple[int, int]:
        """(device address, size in bytes) of the ``__device__`` / ``__constant__`` ``name``."""
        drv = driver()
        symbol = self.lowered_names.get(name, name).encode()
        err, pointer, size = drv.cuLibraryGetGlobal(self._library_handle(), symbol)
        if err:
            raise LogicError(
                f"no global {name!r} in this module ({getattr(err, 'name', err)}); a "
                "__device__ or __constant__ variable that no kernel uses may be optimized away"
            )
        return int(pointer), int(size)

    # -- textures ---------------------------------------------------------------------------

    def get_texref(self, name: str) -> Any:
        """The TextureReference for the source's ``texture<...> name;``."""
        from numbast_import.rtc.textures import TextureReference

        found = self._texrefs.get(name)
        if found is None:
            declaration = self.textures.get(name)
            if declaration is None:
                declared = ", ".join(self.textures) or "none"
                raise LogicError(
                    f"no texture reference {name!r} in this module (declared: {declared})"
                )
            found = self._texrefs[name] = TextureReference(declaration, self)
        return found

    def sync_textures(self, stream: int) -> None:
        """Write each changed texture reference's texture object before a launch."""
        for texref in self._texrefs.values():
            texref.sync(stream)
