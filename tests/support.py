"""Helpers shared by the tests: prove a kernel compiles and links to a cubin with no GPU.

``link_kernel_to_cubin`` compiles a Python kernel with numba-cuda to LTO-IR for an explicit
compute capability, compiles every link file the kernel collected (and any extra CUDA C++
sources) to LTO-IR with NVRTC, and links everything with nvJitLink (LTO) into a cubin. An
unresolved extern symbol makes nvJitLink fail, so a binding whose shim is missing or misnamed
fails the test. Nothing here needs a driver.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

DEFAULT_ARCH = "sm_90"


def _cc_of(arch: str) -> tuple[int, int]:
    digits = arch.removeprefix("sm_").removeprefix("compute_").rstrip("af")
    return int(digits[:-1]), int(digits[-1])


def compile_cuda_source_to_ltoir(source: str, name: str, arch: str = DEFAULT_ARCH) -> bytes:
    """Compile one CUDA C++ translation unit to LTO-IR with NVRTC, in the one NVRTC environment
    of numbast.core.nvrtc (its include path and stand-in system headers)."""
    from numbast.core.nvrtc import compile_unit, unit_options

    return compile_unit(source, name, unit_options(arch, lto=True), "ltoir").code


def link_kernel_to_cubin(
    pyfunc: Callable[..., Any],
    signature: Any,
    *,
    arch: str = DEFAULT_ARCH,
    extra_sources: Iterable[tuple[str, str]] = (),
) -> bytes:
    """Compile ``pyfunc`` as a kernel with ``signature`` and link it to a cubin for ``arch``.

    ``extra_sources`` are ``(name, cuda_cpp_source)`` pairs linked in as well, for tests that
    supply a shim by hand. Returns the cubin bytes; raises if any symbol stays unresolved.
    """
    from numba import cuda

    codes, _ = cuda.compile_all(
        pyfunc, signature, device=False, abi="numba", cc=_cc_of(arch), output="ltoir"
    )
    ltoirs = [_as_ltoir_bytes(code) for code in codes]
    ltoirs += [compile_cuda_source_to_ltoir(src, name, arch) for name, src in extra_sources]
    return link_ltoirs_to_cubin(ltoirs, arch=arch)


def link_ltoirs_to_cubin(ltoirs: Sequence[bytes], *, arch: str = DEFAULT_ARCH) -> bytes:
    from cuda.core import Linker, LinkerOptions, ObjectCode

    objects = [ObjectCode.from_ltoir(code, name=f"part{i}") for i, code in enumerate(ltoirs)]
    linker = Linker(*objects, options=LinkerOptions(arch=arch, link_time_optimization=True))
    cubin = linker.link("cubin").code
    assert cubin, "nvJitLink produced an empty cubin"
    return bytes(cubin)


def _as_ltoir_bytes(code: Any) -> bytes:
    """compile_all returns raw bytes for the kernel, cuda.core ObjectCode for NVRTC output and
    LinkableCode objects for anything else."""
    if isinstance(code, (bytes, bytearray)):
        return bytes(code)
    for attribute in ("code", "data"):
        data = getattr(code, attribute, None)
        if isinstance(data, (bytes, bytearray)):
            return bytes(data)
    raise TypeError(f"cannot link {type(code).__name__} into a cubin")


BINDING_DATA = __import__("pathlib").Path(__file__).parent / "data" / "binding"


def bound_test_header(name: str, **options: Any):
    """Parse and bind ``tests/data/binding/<name>`` once per process (bindings are global)."""
    key = (name, tuple(sorted((k, repr(v)) for k, v in options.items())))
    cached = _BOUND_HEADERS.get(key)
    if cached is None:
        from numbast import bind_header

        cached = bind_header(BINDING_DATA / name, **options)
        _BOUND_HEADERS[key] = cached
    return cached


_BOUND_HEADERS: dict = {}
