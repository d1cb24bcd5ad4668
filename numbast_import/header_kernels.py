"""The ``__global__`` functions of an imported header, launched from the host.

``my_lib.saxpy(a, x, y, n, block=(256, 1, 1), grid=(64, 1))`` launches the header's kernel
``saxpy`` with PyCUDA's calling conventions (``numbast_import.compiler``'s ``Function``:
arguments as numpy scalars, device allocations or arrays, ``prepare`` / ``prepared_call``...).
The header is compiled with NVRTC for the module's arch the first time one of its kernels is
used, once for all of them, and the cubin is kept in the cache root like any ``SourceModule``
(keyed on the header and every file it includes), so a later process loads it without NVRTC.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any


class HeaderKernels:
    """The kernels of one header module: one compiled module for all of them."""

    def __init__(
        self,
        preamble: str,
        arch: str,
        include_dirs: Sequence[str],
        nvrtc_options: Sequence[str] = (),
    ) -> None:
        self.preamble = preamble
        self.arch = arch
        self.include_dirs = list(include_dirs)
        self.nvrtc_options = list(nvrtc_options)  # the header's own (-default-device)
        self._module: Any = None
        self._lock = threading.Lock()

    def _source_module(self) -> Any:
        with self._lock:
            if self._module is None:
                from numbast_import.compiler import SourceModule

                # The preamble includes the header (with its defines): its kernels are defined
                # in this translation unit and found by their mangled names.
                self._module = SourceModule(
                    self.preamble + "\n",
                    no_extern_c=True,
                    arch=self.arch,
                    include_dirs=self.include_dirs,
                    options=self.nvrtc_options,
                )
            return self._module

    def _compile(self) -> bytes:
        """The cubin (compiled, or from the cache); no GPU needed."""
        return self._source_module().cubin

    def function(self, mangled_name: str) -> Any:
        return self._source_module().get_function(mangled_name)


class HeaderKernel:
    """A ``__global__`` function of an imported header (see the module docstring)."""

    def __init__(self, kernels: HeaderKernels, row: Sequence[Any], module_name: str) -> None:
        python_name, qual_name, mangled_name, declaration = row
        self._kernels = kernels
        self._mangled_name = mangled_name
        self.__name__ = self.__qualname__ = python_name
        self.__module__ = module_name
        self.__doc__ = (
            f"CUDA kernel {qual_name} of the imported header, launched from the host:\n"
            f"{python_name}(*args, block=(x, y, z), grid=(x, y), stream=None, shared=0)\n\n"
            f"    {declaration}"
        )

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._kernels.function(self._mangled_name)(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        # prepare, prepared_call, num_regs, ...: those of the compiled Function
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self._kernels.function(self._mangled_name), name)

    def __repr__(self) -> str:
        return f"<CUDA kernel {self.__name__} ({self._mangled_name})>"


def kernel_launchers(
    module_name: str,
    rows: Sequence[Any],
    preamble: str,
    arch: str,
    include_dirs: Sequence[str],
    nvrtc_options: Sequence[str] = (),
) -> dict[str, HeaderKernel]:
    """A launcher per ``__global__`` function (``rows``: the module's kernel rows), all compiled
    together from ``preamble`` the first time one is used, with the header's NVRTC options."""
    if not rows:
        return {}
    kernels = HeaderKernels(preamble, arch, include_dirs, nvrtc_options)
    return {row[0]: HeaderKernel(kernels, row, module_name) for row in rows}
