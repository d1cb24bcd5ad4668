"""C++ types that nothing binds: named by their spelling alone (a template argument such as
CUB's ``NullType``), or held as opaque storage of their size and alignment.

Libraries hand their users types to hold but not to look into: CUB's
``BlockReduce<int, 128>::TempStorage`` goes in shared memory and is passed to the constructor.
Such a type, when an instance's member names it (or a user asks for ``Inst.TempStorage``), gets a
Numba type of its own: a struct of words of the C++ alignment, as many as its size needs, so
``cuda.shared.array(1, Inst.TempStorage)`` and ``cuda.local.array`` allocate it aligned, and
shims pass it as the C++ type it names. Its size and alignment are asked of the compiler once and
recorded with the instance's other answers.
"""

from __future__ import annotations

import logging
import re

from llvmlite import ir
from numba.cuda import types
from numba.cuda.datamodel.models import PrimitiveModel, StructModel
from numba.cuda.extending import register_model

from ...core.cxx_names import BUILTIN_NUMBA_NAMES
from ..cxx_types import canonical_spelling, numba_type_of, register_spelling
from ..state import LOCK, shared_table

logger = logging.getLogger(__name__)

# canonical C++ spelling -> its storage type (one Numba type per C++ spelling, process-wide)
_STORAGE: dict[str, types.Type] = shared_table("storage_types", dict)

_REFERENCE = re.compile(r"\s*&{1,2}\s*$")
_CONST = re.compile(r"^\s*(?:const|volatile)\s+|\s+(?:const|volatile)\s*$")


class CxxStorageType(types.Type):
    """An opaque C++ type of known size and alignment (``cxx_qual_name`` is its spelling)."""

    def __init__(self, spelling: str, size: int, align: int) -> None:
        self.cxx_qual_name = spelling
        self.sizeof_ = size
        self.alignof_ = align
        super().__init__(name=spelling)


class CxxOnlyType(types.Opaque):
    """A C++ type with no Numba counterpart, known by its spelling alone: what a template
    argument such as CUB's ``NullType`` is when nothing binds it. It names the type in shims
    and probes; kernels never hold a value of it."""

    def __init__(self, spelling: str) -> None:
        self.cxx_spelling = spelling  # what cxx_spelling_of gives
        super().__init__(name=spelling)


def cxx_only_type(spelling: str) -> types.Type:
    """The Numba type standing for the C++ type ``spelling``: a bound one when there is one,
    else a :class:`CxxOnlyType` (one per spelling; ``void`` as it is, names qualified)."""
    found = numba_type_of(spelling)
    if found is not None:
        return found
    text = canonical_spelling(spelling)
    if text not in BUILTIN_NUMBA_NAMES:
        text = f"::{text}"
    return CxxOnlyType(text)


class _Word128(types.Type):
    """A 16-byte word: the storage of 16-byte-aligned types (LLVM's i128 is 16-aligned)."""

    def __init__(self) -> None:
        super().__init__(name="numbast_word128")


_WORD128 = _Word128()


@register_model(_Word128)
class _Word128Model(PrimitiveModel):
    def __init__(self, dmm, fe_type):
        super().__init__(dmm, fe_type, ir.IntType(128))


_WORDS = {1: types.uint8, 2: types.uint16, 4: types.uint32, 8: types.uint64, 16: _WORD128}


@register_model(CxxStorageType)
class _StorageModel(StructModel):
    """Words of the C++ alignment (16 at most: larger alignments are not kept), enough of them
    for the C++ size."""

    def __init__(self, dmm, fe_type):
        align = min(max(fe_type.alignof_, 1), 16)
        word = _WORDS.get(align, types.uint8)
        width = 1 if word is types.uint8 else align
        count = max(1, -(-fe_type.sizeof_ // width))
        super().__init__(dmm, fe_type, [("storage", types.UniTuple(word, count))])


def bare_spelling(type_id: str) -> str:
    """A type-id without its reference and cv-qualifiers: what storage is named by."""
    text = _REFERENCE.sub("", type_id).strip().removeprefix("typename ")
    previous = None
    while previous != text:
        previous, text = text, _CONST.sub("", text)
    return text.strip()


def storage_type(spelling: str, size: int, align: int) -> types.Type:
    """The storage type of the C++ type ``spelling`` (made the first time)."""
    key = canonical_spelling(bare_spelling(spelling))
    with LOCK:
        found = _STORAGE.get(key)
        if found is None:
            found = _STORAGE[key] = CxxStorageType(key, size, align)
            register_spelling(key, found)
    return found


__all__ = ["CxxOnlyType", "CxxStorageType", "bare_spelling", "cxx_only_type", "storage_type"]
