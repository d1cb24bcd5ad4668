"""The sources and modules of elementwise kernels: ``operation`` in a grid-stride loop over
``i`` below ``n`` (or from ``start`` to ``stop`` by ``step``), compiled as a SourceModule.
PyCUDA's ``get_elwise_module`` family; ``numbast_import.elementwise`` (ElementwiseKernel) and
``rtc.linear_combination`` build on it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from numbast_import.rtc.dtypes import Argument, ScalarArg, needs_headers, parse_c_args

# The loop runs over i; the names tid, total_threads and cta_start are PyCUDA's, and snippets
# written for it use them in loop_prep and after_loop.
_KERNEL = """{headers}
{preamble}

extern "C" __global__ void {name}({parameters})
{{
  const size_t tid = threadIdx.x;
  const size_t total_threads = (size_t)gridDim.x * blockDim.x;
  const size_t cta_start = (size_t)blockDim.x * blockIdx.x;
  {index_type} i;
  {loop_prep};
{loops}
  {after_loop};
}}
"""
_COUNTED_LOOP = """  for (i = cta_start + tid; i < n; i += total_threads)
  {{
    {operation};
  }}"""
_RANGE_LOOP = """  const long long first = start + (long long)(cta_start + tid) * step;
  const long long stride = (long long)total_threads * step;
  if (step < 0)
  {{
    for (i = first; i > stop; i += stride)
    {{
      {operation};
    }}
  }}
  else
  {{
    for (i = first; i < stop; i += stride)
    {{
      {operation};
    }}
  }}"""


def _source(
    arguments: Sequence[Argument],
    operation: str,
    name: str,
    preamble: str,
    loop_prep: str,
    after_loop: str,
    use_range: bool,
) -> str:
    loop = _RANGE_LOOP if use_range else _COUNTED_LOOP
    return _KERNEL.format(
        headers="\n".join(needs_headers(a.dtype for a in arguments)),
        preamble=preamble,
        name=name,
        parameters=", ".join(argument.declarator() for argument in arguments),
        index_type="long long" if use_range else "size_t",
        loop_prep=loop_prep,
        loops=loop.format(operation=operation),
        after_loop=after_loop,
    )


def _module(arguments, operation, name, keep, options, preamble, loop_prep, after_loop, ranged):
    from numbast_import.rtc.source_module import SourceModule

    source = _source(
        parse_c_args(arguments), operation, name, preamble, loop_prep, after_loop, ranged
    )
    return SourceModule(source, options=options, keep=keep, no_extern_c=True)


def with_loop_arguments(arguments: Any, use_range: bool) -> list[Argument]:
    """``arguments`` and what the loop runs over: ``n``, or ``start``, ``stop``, ``step``."""
    arguments = parse_c_args(arguments)
    if use_range:
        return [*arguments, *(ScalarArg(np.intp, name) for name in ("start", "stop", "step"))]
    return [*arguments, ScalarArg(np.uintp, "n")]


def elementwise_source(
    arguments: Any, operation: str, name: str = "kernel", use_range: bool = False, **kwargs: Any
) -> str:
    """The source get_elwise_kernel_and_types compiles (``n`` or the range appended)."""
    arguments = with_loop_arguments(arguments, use_range)
    parts = {"preamble": "", "loop_prep": "", "after_loop": ""}
    parts.update((k, v) for k, v in kwargs.items() if k in parts)
    return _source(arguments, operation, name, use_range=use_range, **parts)


def get_elwise_module(
    arguments: Any,
    operation: str,
    name: str = "kernel",
    keep: bool = False,
    options: Sequence[str] | None = None,
    preamble: str = "",
    loop_prep: str = "",
    after_loop: str = "",
) -> Any:
    """A SourceModule with kernel ``name(arguments)`` running ``operation`` for ``i`` below
    ``n``, which must be one of ``arguments``."""
    return _module(
        arguments, operation, name, keep, options, preamble, loop_prep, after_loop, False
    )


def get_elwise_range_module(
    arguments: Any,
    operation: str,
    name: str = "kernel",
    keep: bool = False,
    options: Sequence[str] | None = None,
    preamble: str = "",
    loop_prep: str = "",
    after_loop: str = "",
) -> Any:
    """As get_elwise_module, for ``i`` from ``start`` to ``stop`` by ``step`` (arguments)."""
    return _module(arguments, operation, name, keep, options, preamble, loop_prep, after_loop, True)


def get_elwise_kernel_and_types(
    arguments: Any,
    operation: str,
    name: str = "kernel",
    keep: bool = False,
    options: Sequence[str] | None = None,
    use_range: bool = False,
    **kwargs: Any,
) -> tuple[Any, Any, list[Argument]]:
    """(module, prepared Function, arguments): ``n`` (or start, stop, step) appended."""
    arguments = with_loop_arguments(arguments, use_range)
    builder = get_elwise_range_module if use_range else get_elwise_module
    module = builder(arguments, operation, name, keep, options, **kwargs)
    function = module.get_function(name)
    function.prepare("".join(argument.struct_char for argument in arguments))
    return module, function, arguments


def get_elwise_kernel(
    arguments: Any,
    operation: str,
    name: str = "kernel",
    keep: bool = False,
    options: Sequence[str] | None = None,
    **kwargs: Any,
) -> Any:
    """A prepared Function taking ``arguments`` and then the element count."""
    return get_elwise_kernel_and_types(arguments, operation, name, keep, options, **kwargs)[1]
