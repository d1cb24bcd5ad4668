"""One kernel launch through the driver (``cuLaunchKernel`` with a ``kernelParams`` array).

cuda.core's ``launch`` packs its own arguments and has no struct parameters, so the launch is
the driver call itself, with the CUkernel that cuda.core loaded (the driver accepts a CUkernel
where a CUfunction is asked for, running it in the stream's context).
"""

from __future__ import annotations

from typing import Any

from numbast_import.rtc.context import LaunchError, check, driver, ensure_context

_cu_launch_kernel = None  # cuda.bindings.driver.cuLaunchKernel, looked up on first launch


_known_dims: dict[Any, tuple[int, int, int]] = {}


def dims(value: Any, what: str) -> tuple[int, int, int]:
    """A grid or block as three ints (PyCUDA takes tuples of 1 to 3, or an int)."""
    # Programs launch with a handful of shapes: remember them (a launch's host time is a few
    # microseconds, and converting a tuple is a fair part of it).
    try:
        return _known_dims[value]
    except (KeyError, TypeError):  # a new shape, or an unhashable one (a list)
        pass
    if isinstance(value, int):
        found = (value, 1, 1)
    else:
        size = len(value)
        if size == 3:
            found = (int(value[0]), int(value[1]), int(value[2]))
        elif size == 2:
            found = (int(value[0]), int(value[1]), 1)
        elif size == 1:
            found = (int(value[0]), 1, 1)
        else:
            raise ValueError(f"{what} must have 1 to 3 dimensions, not {value!r}")
    if type(value) in (tuple, int) and len(_known_dims) < 1024:
        _known_dims[value] = found
    return found


def launch_handle(handle: int) -> Any:
    """The CUfunction object to launch ``handle`` (a CUkernel or CUfunction address) with;
    made once per kernel, as cuda.bindings would otherwise make one at every launch."""
    return driver().CUfunction(handle)


def launch_kernel(
    handle: Any,
    grid: tuple[int, int, int],
    block: tuple[int, int, int],
    shared: int,
    stream: int,
    params: int,
    name: str,
) -> None:
    """Launch ``handle`` (from ``launch_handle``); ``params`` is the address of the
    ``kernelParams`` pointer array."""
    global _cu_launch_kernel
    if _cu_launch_kernel is None:
        _cu_launch_kernel = driver().cuLaunchKernel
    stream = stream or None  # the binding converts a nonzero int to a CUstream, and None to 0
    (err,) = _cu_launch_kernel(
        handle, grid[0], grid[1], grid[2], block[0], block[1], block[2], shared, stream, params, 0
    )
    if err:
        if getattr(err, "name", "") == "CUDA_ERROR_INVALID_CONTEXT":
            # A thread that has not used CUDA yet: make the primary context current, retry.
            ensure_context()
            (err,) = _cu_launch_kernel(
                handle, grid[0], grid[1], grid[2], block[0], block[1], block[2], shared,
                stream, params, 0,
            )  # fmt: skip
        if err:
            try:
                check((err,), f"launching {name} with grid={grid}, block={block}, shared={shared}")
            except LaunchError:
                raise
            except Exception as exc:
                raise LaunchError(str(exc)) from exc
