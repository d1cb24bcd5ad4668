"""A kernel: PyCUDA's ``Function``, with ``__call__``, ``prepare`` and the prepared calls.

A Function needs only a loaded kernel handle and a name, so anything that has a cubin (or
LTO-IR, linked first) and a kernel name can make one: ``Module.from_cubin(data)`` then
``get_function(name)``, or ``Function.from_kernel(cuda_core_kernel, name)``.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from typing import Any

from numbast_import.rtc import args as arguments
from numbast_import.rtc.context import Error, check, driver
from numbast_import.rtc.launch import dims, launch_handle, launch_kernel
from numbast_import.rtc.streams import Event, stream_handle

_NO_BLOCK: Any = object()


class Function:
    """A loaded kernel. ``handle`` is the CUkernel (or CUfunction) address."""

    def __init__(self, handle: int, name: str, *, kernel: Any = None, module: Any = None):
        self.handle = int(handle)
        self.name = name
        self.kernel = kernel  # the cuda.core Kernel, when cuda.core loaded it
        self.module = module
        self._param_sizes: tuple[int, ...] | None | bool = False  # False: not asked yet
        self._checked: set[tuple[str, ...]] = set()
        self._prepared: arguments.Layout | None = None
        self._block: tuple[int, int, int] | None = None
        self._shared = 0
        self._textures = module is not None and bool(getattr(module, "texture_names", ()))
        self._launch_handle: Any = None  # made on the first launch
        # Layouts of earlier calls whose argument types alone fix them (arguments.packs_as_is),
        # by those types: a repeated call packs its arguments as they are.
        self._layouts_by_kinds: dict[tuple[type, ...], arguments.Layout] = {}

    @property
    def launch_handle(self) -> Any:
        """The CUfunction object every launch passes to the driver."""
        if self._launch_handle is None:
            self._launch_handle = launch_handle(self.handle)
        return self._launch_handle

    @classmethod
    def from_kernel(cls, kernel: Any, name: str, module: Any = None) -> Function:
        return cls(int(kernel.handle), name, kernel=kernel, module=module)

    # -- parameters -------------------------------------------------------------------------

    def param_sizes(self) -> tuple[int, ...] | None:
        """The byte size of each kernel parameter, from the driver (None when it cannot say)."""
        if self._param_sizes is False:
            self._param_sizes = self._query_param_sizes()
        return self._param_sizes  # type: ignore[return-value]

    def _query_param_sizes(self) -> tuple[int, ...] | None:
        drv = driver()
        getter = getattr(drv, "cuKernelGetParamInfo", None)
        if getter is None:
            return None
        sizes = []
        while True:
            err, _offset, size = getter(self.handle, len(sizes))
            if err:
                break  # CUDA_ERROR_INVALID_VALUE past the last parameter
            sizes.append(int(size))
            if len(sizes) > 4096:
                return None
        # None when nothing answered: a CUfunction handle, or a driver without the query (a
        # kernel without parameters is not checked either, which costs nothing).
        return tuple(sizes) or None

    def _check_layout(self, layout: arguments.Layout) -> None:
        if layout.codes in self._checked:
            return
        sizes = self.param_sizes()
        if sizes is not None and sizes != layout.sizes:
            raise TypeError(
                f"kernel {self.name} takes {len(sizes)} parameters of "
                f"{', '.join(map(str, sizes)) or 'no'} bytes, but was given "
                f"{layout.count}: {layout.describe() or 'none'}. Pass numpy scalars of the "
                "parameters' types (np.int32 for int, np.float32 for float), pointers for "
                "pointer parameters, np.void structured scalars for structs"
            )
        self._checked.add(layout.codes)

    # -- calls ------------------------------------------------------------------------------

    def __call__(
        self,
        *args: Any,
        block: Any = None,
        grid: Any = (1, 1),
        stream: Any = None,
        shared: int = 0,
        texrefs: Sequence[Any] = (),
        time_kernel: bool = False,
    ) -> float | None:
        if block is None:
            raise ValueError(f"calling {self.name} needs block=(x, y, z)")
        handle = stream_handle(stream)
        kinds = tuple(map(type, args))
        layout = self._layouts_by_kinds.get(kinds)
        if layout is not None:
            params, handlers = self._pack(layout, args), ()
        else:
            codes, values, handlers = arguments.convert_call_arguments(args, handle)
            layout = arguments.layout_for(codes)
            self._check_layout(layout)
            params = self._pack(layout, values)
            if arguments.packs_as_is(kinds):
                self._layouts_by_kinds[kinds] = layout
        for handler in handlers:
            handler.pre_call(stream)
        if self._textures or texrefs:
            self._sync_textures(texrefs, handle)
        start = Event().record(stream) if time_kernel else None
        launch_kernel(
            self.launch_handle, dims(grid, "grid"), dims(block, "block"), shared, handle, params,
            self.name,
        )  # fmt: skip
        end = Event().record(stream) if time_kernel else None
        for handler in handlers:
            handler.post_call(stream)
        if start is not None and end is not None:
            end.synchronize()
            return end.time_since(start) * 1e-3
        return None

    def _pack(self, layout: arguments.Layout, values: Sequence[Any]) -> int:
        try:
            return layout.pack(values)
        except struct.error as exc:
            raise TypeError(f"cannot pack the arguments of {self.name} ({exc})") from None

    def prepare(
        self,
        arg_types: str | Sequence[Any],
        block: Any = None,
        shared: int | None = None,
        texrefs: Sequence[Any] = (),
    ) -> Function:
        """Fix the argument types (a struct format such as ``"PiP"``, or numpy types), and
        optionally the block, for the prepared calls."""
        layout = arguments.layout_for(arguments.codes_for_prepare(arg_types))
        self._check_layout(layout)
        self._prepared = layout
        self._block = dims(block, "block") if block is not None else None
        self._shared = int(shared or 0)
        self._prepared_texrefs = tuple(texrefs)
        return self

    def _prepared_params(self, values: Sequence[Any]) -> int:
        layout = self._prepared
        if layout is None:
            raise Error(f"{self.name}: call prepare(arg_types) before a prepared call")
        if len(values) != layout.count:
            raise TypeError(
                f"{self.name} was prepared for {layout.count} arguments, got {len(values)}"
            )
        try:
            return layout.pack(values)
        except (struct.error, TypeError):
            converted = [
                arguments.convert_prepared_value(code, value)
                for code, value in zip(layout.codes, values, strict=True)
            ]
            return self._pack(layout, converted)

    def _split_block(self, first: Any, rest: tuple) -> tuple[tuple[int, int, int], tuple]:
        # PyCUDA's two forms: prepared_call(grid, block, *args) and, with the block given to
        # prepare, prepared_call(grid, *args).
        if isinstance(first, tuple):
            return dims(first, "block"), rest
        if first is _NO_BLOCK:
            first_values: tuple = ()
        else:
            first_values = (first,)
        if self._block is None:
            raise ValueError(f"{self.name}: give the block to prepare() or to the prepared call")
        return self._block, (*first_values, *rest)

    def prepared_call(self, grid: Any, block: Any = _NO_BLOCK, *args: Any, shared_size: int = 0):
        if type(block) is tuple:  # the common form, checked first: this is the fast path
            block_dims, values = dims(block, "block"), args
        else:
            block_dims, values = self._split_block(block, args)
        params = self._prepared_params(values)
        if self._textures:
            self._sync_textures((), 0)
        launch_kernel(
            self.launch_handle, dims(grid, "grid"), block_dims, shared_size or self._shared, 0,
            params, self.name,
        )  # fmt: skip

    def prepared_async_call(
        self, grid: Any, block: Any, stream: Any = _NO_BLOCK, *args: Any, shared_size: int = 0
    ) -> None:
        if isinstance(block, tuple):
            block_dims, values = dims(block, "block"), args
            if stream is _NO_BLOCK:
                stream = None
        else:
            # prepared_async_call(grid, stream, *args) with the block given to prepare
            if self._block is None:
                raise ValueError(f"{self.name}: give the block to prepare() or to the call")
            values = args if stream is _NO_BLOCK else (stream, *args)
            block_dims, stream = self._block, block
        handle = stream_handle(stream)
        params = self._prepared_params(values)
        if self._textures:
            self._sync_textures((), handle)
        launch_kernel(
            self.launch_handle, dims(grid, "grid"), block_dims, shared_size or self._shared,
            handle, params, self.name,
        )  # fmt: skip

    def prepared_timed_call(
        self, grid: Any, block: Any = _NO_BLOCK, *args: Any, shared_size: int = 0
    ):
        """Launch; returns a function that waits for the kernel and gives its time in s."""
        start = Event().record()
        self.prepared_call(grid, block, *args, shared_size=shared_size)
        end = Event().record()

        def get_call_time() -> float:
            end.synchronize()
            return end.time_since(start) * 1e-3

        return get_call_time

    def _sync_textures(self, texrefs: Sequence[Any], stream: int) -> None:
        if self.module is not None:
            self.module.sync_textures(stream)
        for texref in texrefs:
            texref.sync(stream)

    def param_set_texref(self, texref: Any) -> None:
        """PyCUDA's texture binding; texture objects need none (kept for old programs)."""

    # -- attributes -------------------------------------------------------------------------

    def get_attribute(self, attribute: int) -> int:
        from numbast_import.rtc.context import current_device

        drv = driver()
        attr = drv.CUfunction_attribute(int(attribute))
        err, value = drv.cuKernelGetAttribute(attr, self.handle, current_device().device_id)
        if err:  # a CUfunction handle (module-loaded) rather than a CUkernel
            value = check(drv.cuFuncGetAttribute(attr, self.handle), f"{self.name} attribute")
        return int(value)

    def set_attribute(self, attribute: int, value: int) -> None:
        from numbast_import.rtc.context import current_device

        drv = driver()
        attr = drv.CUfunction_attribute(int(attribute))
        (err,) = drv.cuKernelSetAttribute(attr, int(value), self.handle, current_device().device_id)
        if err:
            check(drv.cuFuncSetAttribute(self.handle, attr, int(value)), f"{self.name} attribute")

    def _attribute(self, name: str) -> int:
        from numbast_import.rtc.enums import function_attribute

        return self.get_attribute(function_attribute[name])

    max_threads_per_block = property(lambda self: self._attribute("MAX_THREADS_PER_BLOCK"))
    shared_size_bytes = property(lambda self: self._attribute("SHARED_SIZE_BYTES"))
    const_size_bytes = property(lambda self: self._attribute("CONST_SIZE_BYTES"))
    local_size_bytes = property(lambda self: self._attribute("LOCAL_SIZE_BYTES"))
    num_regs = property(lambda self: self._attribute("NUM_REGS"))

    def __repr__(self) -> str:
        return f"<numbast_import Function {self.name}>"
