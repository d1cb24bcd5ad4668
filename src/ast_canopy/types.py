"""clang types -> ``model.Type``, so that the binding generator never parses C++ type strings."""

from __future__ import annotations

from clang import cindex as ci

from ast_canopy import _libclang
from ast_canopy.model import Type, TypeKind
from ast_canopy.spelling import drop_tag_keywords

_K = ci.TypeKind

# CXTypeLayoutError_Dependent: clang_Type_getSizeOf's answer for a type that names a template
# parameter; the only reliable "is dependent" signal libclang gives for types.
_LAYOUT_DEPENDENT = -3

_STRUCTURAL = {
    _K.POINTER: TypeKind.POINTER,
    _K.LVALUEREFERENCE: TypeKind.LVALUE_REFERENCE,
    _K.RVALUEREFERENCE: TypeKind.RVALUE_REFERENCE,
    _K.CONSTANTARRAY: TypeKind.ARRAY,
    _K.INCOMPLETEARRAY: TypeKind.ARRAY,
    _K.DEPENDENTSIZEDARRAY: TypeKind.ARRAY,
    _K.RECORD: TypeKind.RECORD,
    _K.ENUM: TypeKind.ENUM,
    _K.FUNCTIONPROTO: TypeKind.FUNCTION,
    _K.FUNCTIONNOPROTO: TypeKind.FUNCTION,
    _K.DEPENDENT: TypeKind.DEPENDENT,
}
_ARRAYS = (_K.CONSTANTARRAY, _K.INCOMPLETEARRAY, _K.DEPENDENTSIZEDARRAY)
_POINTER_LIKE = (_K.POINTER, _K.LVALUEREFERENCE, _K.RVALUEREFERENCE)


def _is_builtin(kind_id: int) -> bool:
    # CXType_Void (2) .. CXType_NullPtr (24), and Float128 (30) .. Ibm128 (40): half, _Float16,
    # fixed-point, __bf16... The ids in between are Overload, Dependent and Objective-C.
    return 2 <= kind_id <= 24 or 30 <= kind_id <= 40


def _layout(value: int) -> int | None:
    return value if value >= 0 else None


class TypeFactory:
    """Turns clang types into model types, memoized per translation unit.

    The model type is a function of the written, the canonical and the fully qualified
    spelling (a header uses a few dozen distinct types thousands of times): they are the memo key.
    """

    def __init__(self, policy: ci.PrintingPolicy, pointer_size: int = 8) -> None:
        self._memo: dict[tuple[str, str, str], Type] = {}
        self._by_identity: dict[tuple[int, int | None, int | None], Type] = {}
        self.policy = policy  # for fully qualified spellings
        self.pointer_size = pointer_size  # bytes; nvptx64 pointers are 8
        # Class template specializations among the record types made so far, by canonical
        # spelling without cv-qualifiers: the extractor reports those that reported
        # declarations name.
        self.specializations: dict[str, ci.Cursor] = {}
        # The other record types made so far, by the same spelling (the extractor reports the
        # empty ones declared outside the retained files: ``instances.named_tag_records``).
        self.plain_records: dict[str, ci.Cursor] = {}

    def make(self, t: ci.Type) -> Type:
        # clang uniques types: the same (sugared) type is the same pointer in this translation
        # unit, and a pointer asks nothing of libclang. A type met again under another pointer
        # falls through to the spellings.
        identity = (t._kind_id, t.data[0], t.data[1])
        found = self._by_identity.get(identity)
        if found is not None:
            return found
        canonical = t.get_canonical()
        # The same spelling can name different types in different scopes (a typedef `real` in
        # two namespaces): the fully qualified spelling tells them apart.
        qualified = t.get_fully_qualified_name(self.policy)
        key = (t.spelling, canonical.spelling, qualified)
        found = self._memo.get(key)
        if found is None:
            found = self._memo[key] = self._build(t, canonical, qualified)
        self._by_identity[identity] = found
        return found

    def decayed_array(self, t: ci.Type) -> Type:
        """The pointer an array parameter really is (``const int[3]`` -> ``const int *``).

        libclang reports a parameter's type as written and has no way to build the adjusted
        pointer type, so it is assembled here from the element type.
        """
        array = t if t.kind in _ARRAYS else t.get_canonical()
        element = self.make(array.element_type)

        def pointer_to(spelling: str) -> str:
            # A pointer to an array needs the declarator form: int (*)[3].
            bracket = spelling.find("[")
            if bracket < 0:
                return f"{spelling} *"
            return f"{spelling[:bracket].rstrip()} (*){spelling[bracket:]}"

        name = pointer_to(element.name)
        return Type(
            name=name,
            canonical_name=pointer_to(element.canonical_name),
            unqualified_non_ref_type_name=f"{element.unqualified_non_ref_type_name} *",
            kind=TypeKind.POINTER,
            pointee=element,
            sizeof_=self.pointer_size,
            alignof_=self.pointer_size,
            fully_qualified_name=pointer_to(element.fully_qualified_name),
        )

    def _build(self, t: ci.Type, canonical: ci.Type, qualified: str) -> Type:
        ckind = canonical.kind
        size = t.get_size()
        kind = _STRUCTURAL.get(ckind)
        if kind is None:
            if _is_builtin(ckind.value):
                kind = TypeKind.BUILTIN
            elif size == _LAYOUT_DEPENDENT:
                kind = TypeKind.DEPENDENT
            else:
                kind = TypeKind.OTHER
        elif kind is TypeKind.RECORD:
            if size == _LAYOUT_DEPENDENT:
                kind = TypeKind.DEPENDENT
            else:
                self._note_specialization(canonical)

        pointee: Type | None = None
        extents: tuple[int, ...] = ()
        if ckind in _POINTER_LIKE:
            # The written type keeps typedef names in the pointee ("const __half &" -> "const
            # __half"); behind a typedef of a pointer only the canonical type has a pointee.
            inner = t.get_pointee()
            if inner.kind == _K.INVALID:
                inner = canonical.get_pointee()
            pointee = self.make(inner)
        elif ckind in _ARRAYS:
            element, extents = self._array(t if t.kind in _ARRAYS else canonical)
            pointee = self.make(element)

        if kind in (TypeKind.LVALUE_REFERENCE, TypeKind.RVALUE_REFERENCE) and pointee:
            bare = pointee.unqualified_non_ref_type_name
        elif kind is TypeKind.POINTER and pointee is not None:
            bare = f"{pointee.unqualified_non_ref_type_name} *"
        else:
            bare = drop_tag_keywords(_libclang.unqualified(t).spelling)
        return Type(
            name=t.spelling,
            canonical_name=canonical.spelling,
            unqualified_non_ref_type_name=bare,
            kind=kind,
            is_const=t.is_const_qualified(),
            pointee=pointee,
            array_extents=extents,
            # GNU C gives function types a size of 1; no C++ code can use it.
            sizeof_=None if kind is TypeKind.FUNCTION else _layout(size),
            alignof_=None if kind is TypeKind.FUNCTION else _layout(t.get_align()),
            fully_qualified_name=drop_tag_keywords(qualified),
        )

    def _note_specialization(self, canonical: ci.Type) -> None:
        declaration = canonical.get_declaration()
        # Keyed by the record's own spelling: "const Vec<float, 2>" is Vec<float, 2>.
        if declaration.specialized_template is not None:
            self.specializations.setdefault(declaration.type.get_canonical().spelling, declaration)
        else:
            self.plain_records.setdefault(declaration.type.get_canonical().spelling, declaration)

    @staticmethod
    def _array(array: ci.Type) -> tuple[ci.Type, tuple[int, ...]]:
        """Innermost element type and every extent, outermost first (-1 where unknown)."""
        extents: list[int] = []
        current = array
        while current.kind in _ARRAYS:
            extents.append(current.get_array_size() if current.kind == _K.CONSTANTARRAY else -1)
            current = current.element_type
        return current, tuple(extents)
