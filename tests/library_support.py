"""Kernels using templates as libraries write them (tests/data/library/*.cuh), shared by the
CPU tests (they link to an sm_90 cubin) and the GPU tests (they check the numbers)."""

from __future__ import annotations

import functools
import warnings
from pathlib import Path

import numpy as np
from numba import cuda
from numba.cuda import types

LIBRARY = Path(__file__).parent / "data" / "library"


# Argument intents given where the defaults are not the reading wanted: NVIDIA's nested form
# for methods of class templates.
OPTIONS = {
    "value_defaults.cuh": {"arg_intents": {"check_positive": {"positive": "out_return"}}},
    "out_params.cuh": {"arg_intents": {"Items": {"Accumulate": {"total": "inout_ptr"}}}},
}


@functools.cache
def bound_library(name: str):
    """``tests/data/library/<name>`` bound once per process, with its OPTIONS."""
    from numbast import bind_header

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return bind_header(LIBRARY / name, **OPTIONS.get(name, {}))


# -- value_defaults.cuh: enum and NullType-style defaults, bool ---------------------------------

VALUES_EXPECTED = [6, 2, 0, 1, 4, 5, 0, 1, -2.5]


def values_kernel(lib):
    Tagged = lib.Tagged
    Default = Tagged[types.float32]  # Speed = FAST (an enum default), Extra = vd::Nothing
    Slow = Tagged[types.float32, lib.SLOW]
    Nothing = Tagged[types.float32, lib.FAST, "vd::Nothing"]  # explicit, as C++ text
    WithInt = Tagged[types.int32, lib.FAST, types.int32]
    choose, check_positive, negate = lib.choose, lib.check_positive, lib.maybe_negate[True]

    def kernel(out):
        out[0] = Default(np.float32(2.0)).scaled()  # 2 * FAST
        out[1] = Slow(np.float32(2.0)).scaled()  # 2 * SLOW
        out[2] = Nothing(np.float32(1.0)).has_extra()
        out[3] = WithInt(np.int32(1)).has_extra()
        out[4] = choose(True, np.float32(4.0), np.float32(5.0))
        out[5] = choose(out[0] > 100, np.float32(4.0), np.float32(5.0))
        out[6] = check_positive(np.float32(-1.0))  # bool& out_return
        out[7] = check_positive(np.float32(2.0))
        out[8] = negate(np.float32(2.5))  # template <bool Negate, class T>

    return kernel


# -- temp_storage.cuh: TempStorage in shared memory --------------------------------------------

TEMP_THREADS = 32


def temp_storage_kernel(lib):
    Total = lib.BlockTotal[types.float32, TEMP_THREADS]
    Neighbor = lib.RingNeighbor[types.int32]
    NeighborStorage = Neighbor.TempStorage  # on the host; Total.TempStorage in the kernel

    def kernel(values, out):
        i = cuda.threadIdx.x
        storage = cuda.shared.array(1, Total.TempStorage)
        out[i] = Total(storage).Total(values[i])
        ring = cuda.shared.array(1, NeighborStorage)
        out[TEMP_THREADS + i] = Neighbor(ring).Next(np.int32(i * 10), np.int32(TEMP_THREADS))

    return kernel


def temp_storage_expected(values: np.ndarray) -> np.ndarray:
    neighbors = [((i + 1) % TEMP_THREADS) * 10 for i in range(TEMP_THREADS)]
    return np.concatenate([np.full(TEMP_THREADS, values.sum()), neighbors])


# -- out_params.cuh: T& outputs, T (&)[N], defaults of trailing parameters ------------------------

OUT_EXPECTED = [2.5, 3, 4, 46, 1, 4, 1, 7]


def out_params_kernel(lib):
    from numbast import element_pointer

    Items = lib.Items[types.float32, 4]

    def kernel(source, out):
        items = Items()
        out[0] = items.Next(np.float32(1.5))  # T& next of a void member: returned
        following, twice = items.NextAndDouble(np.float32(2.0))
        out[1] = following
        out[2] = twice
        local = cuda.local.array(4, types.float32)
        items.Fill(local, np.float32(10.0))  # T (&)[N] from a local array
        out[3] = items.Total(local)  # 10 + 11 + 12 + 13
        items.Gather(element_pointer(source, 0), local)  # a member template: It = float *
        items.Sort(local)  # begin and end left to their defaults
        out[4] = local[0]
        out[5] = local[3]
        items.Gather(element_pointer(source, 0), local)
        items.Sort(local, np.int32(2))  # only [2, 4): 4 3 | 2 1 -> 4 3 1 2
        out[6] = local[2]
        total = cuda.local.array(1, types.float32)
        total[0] = np.float32(5.0)
        items.Accumulate(np.float32(2.0), total)  # in-out, by its intent (inout_ptr)
        out[7] = total[0]

    return kernel


OUT_SOURCE = np.array([4, 3, 2, 1], dtype=np.float32)

# -- functors.cuh: operator(), functors passed to templates, member operator templates -----------

FUNCTOR_EXPECTED = [3, 4, 4.5, 9, 20, 10, 12, 3]


def functors_kernel(lib):
    from numbast import element_pointer

    Larger = lib.Larger[types.float32]
    SumOf = lib.Sum[types.float32]
    Transparent = lib.Sum[()]  # Sum<void>: its operator() is a template
    Folder = lib.Folder[types.float32, 4]
    PairF, PairI = lib.Pair[types.float32], lib.Pair[types.int32]
    Scale = lib.Scale

    def kernel(values, out):
        larger = Larger()
        out[0] = larger(np.float32(1.0), np.float32(3.0))
        out[1] = SumOf()(np.float32(1.0), np.float32(3.0))
        out[2] = Transparent()(np.float32(1.5), np.float32(3.0))
        folder = Folder()
        out[3] = folder.Fold(element_pointer(values, 0), larger)  # a functor as Op
        out[4] = folder.Fold(element_pointer(values, 0), Transparent())
        pair = PairF(np.float32(1.0), np.float32(2.0))
        pair += PairI(np.int32(3), np.int32(4))  # template <class U> operator+=(Pair<U>)
        out[5] = pair.a + pair.b
        out[6] = (pair * PairI(np.int32(2), np.int32(2))).b  # template operator*
        out[7] = Scale(np.float32(2.0))(np.float32(1.5))  # a plain struct's operator()

    return kernel


FUNCTOR_VALUES = np.array([2, 9, 4, 5], dtype=np.float32)

# -- defaulted.cuh: constructors C++ supplies (= default, none declared) -------------------------

DEFAULTED_EXPECTED = [2, 5, 14, 3, 2, 7]


def defaulted_kernel(lib):
    CounterF, OffsetI, Plain, Counter = (
        lib.Counter[types.float32],
        lib.Offset[types.int32],
        lib.Plain,
        lib.Counter,
    )
    MadeF = lib.Made[types.float32]  # a private constructor: a typed global all the same

    def kernel(out):
        counter = CounterF()  # Counter() = default: count = 2 by its initializer
        out[0] = counter.get()
        counter.add(np.float32(3.0))
        out[1] = counter.get()  # 5
        out[2] = OffsetI().at(np.int32(4))  # declares no constructor: base = 10
        out[3] = Plain().apply(np.float32(2.0))  # a plain struct's defaulted constructor
        out[4] = Counter(T=np.float64).get()  # made in the kernel, by template arguments
        out[5] = MadeF.make(np.float32(7.0)).get()  # a static member makes it

    return kernel
