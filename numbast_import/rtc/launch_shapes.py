"""Grid and block shapes for kernels that loop over ``n`` elements with a grid-stride loop
(elementwise and reduction kernels, GPUArray arithmetic)."""

from __future__ import annotations

BLOCK = 256
BLOCKS_PER_MULTIPROCESSOR = 16
_multiprocessors: list[int] = []  # of the first device asked; only the grid's size depends on it


def multiprocessor_count() -> int:
    if not _multiprocessors:
        from numbast_import.rtc.context import check, driver, ensure_context

        ensure_context()
        drv = driver()
        device = check(drv.cuCtxGetDevice(), "cuCtxGetDevice")
        attribute = drv.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT
        _multiprocessors.append(int(check(drv.cuDeviceGetAttribute(attribute, device), "SMs")))
    return _multiprocessors[0]


def splay(n: int) -> tuple[tuple[int, int], tuple[int, int, int]]:
    """(grid, block) for ``n`` elements: blocks of up to 256 threads (whole warps), at most
    16 blocks per multiprocessor; the kernel's loop covers the rest."""
    n = max(int(n), 1)
    threads = min(BLOCK, -(-n // 32) * 32)
    blocks = min(-(-n // threads), BLOCKS_PER_MULTIPROCESSOR * multiprocessor_count())
    return (blocks, 1), (threads, 1, 1)
