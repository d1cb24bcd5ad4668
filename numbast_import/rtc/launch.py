"""One kernel launch through the driver (``cuLaunchKernel`` with a ``kernelParams`` array).

cuda.core's ``launch`` packs its own arguments and has no struct parameters, so the launch is
the driver call itself, with the CUkernel that cuda.core loaded (the driver accepts a CUkernel
where a CUfunction is asked for, running it in the stream's context).
"""

from __future__ import annotations

from typing import Any

from numbast_import.rtc.context import LaunchError, check, driver, ensure_context

_cu_launch_kernel = None  # cuda.bindings.driver.cuLaunchKernel, looked up on first launch


def dims(value: Any, what: str) -> tuple[int, int, int]:
    """A grid or block as three ints (PyCUDA takes tuples of 1 to 3, or an int)."""
    if isinstance(value, int):
        return (value, 1, 1)
    size = len(value)
    if size == 3:
        return (int(value[0]), int(value[1]), int(value[2]))
    if size == 2:
        return (int(value[0]), int(value[1]), 1)
    if size == 1:
        return (int(value[0]), 1, 1)
    raise ValueError(f"{what} must have 1 to 3 dimensions, not {value!r}")


def launch_kernel(
    handle: int,
    grid: tuple[int, int, int],
    block: tuple[int, int, int],
    shared: int,
    stream: int,
    params: int,
    name: str,
) -> None:
    """Launch; ``params`` is the address of the ``kernelParams`` pointer array."""
    global _cu_launch_kernel
    if _cu_launch_kernel is None:
        _cu_launch_kernel = driver().cuLaunchKernel
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
