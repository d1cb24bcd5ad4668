"""Shim keys (numbast_import.shim_keys): a shim's key changes exactly when code it reaches in
the header changes, so an edited header recompiles only what changed; and the units cut from
the keys stay as they were around an edit. Pure Python: no clang, no NVRTC."""

from __future__ import annotations

from numbast_import.header_items import header_items
from numbast_import.shim_keys import MAX_UNIT, _Reach, shim_keys, units_of

HEADER = """\
#pragma once
#include <cuda_fp16.h>
#define SCALE 2.0f
struct Pair {
  float a, b;
  __device__ Pair(float x) : a(x), b{x} {}
  __device__ float sum() const { return a + b; }
};
__device__ inline Pair operator+(const Pair &l, const Pair &r) { return Pair(l.a + r.a); }
__device__ inline float helper(float x) { return x * SCALE; }
namespace lib {
template <class T> __device__ T twice(T x) { return x + x; }
}
"""

FUNCTIONS = {
    "plain": "__device__ inline float plain(float x) { return x + 1.0f; }",
    "calls_helper": "__device__ inline float calls_helper(float x) { return helper(x); }",
    "chained": "__device__ inline float chained(float x) { return calls_helper(x) - 1; }",
    "pairs": "__device__ inline float pairs(float x) { Pair p(x); return (p + p).sum(); }",
    "templated": "__device__ inline float templated(float x) { return lib::twice(x); }",
}


def header(**replacements: str) -> str:
    functions = {**FUNCTIONS, **replacements}
    return HEADER + "\n".join(functions.values()) + "\n"


SHIMS = [  # as numbast.core.shim_text writes them
    (f"nbi_shim_{name}", f'extern "C" __device__ int nbi_shim_{name}(float *nbi_ret, float *a0) '
     f"{{\n  *nbi_ret = ::{name}((*a0));\n  return 0;\n}}\n")
    for name in FUNCTIONS
]  # fmt: skip


def changed(text: str, before: str = "", options: tuple[str, ...] = ()) -> set[str]:
    """The shims whose keys differ between ``before`` (default: HEADER's) and ``text``."""
    old = shim_keys(before or header(), SHIMS, "context", options)
    new = shim_keys(text, SHIMS, "context", options)
    return {name.removeprefix("nbi_shim_") for name in old if old[name] != new[name]}


def test_a_changed_body_changes_the_shims_that_reach_it():
    edited = header(calls_helper=FUNCTIONS["calls_helper"].replace("helper(x)", "helper(x) + 2"))
    assert changed(edited) == {"calls_helper", "chained"}
    assert changed(HEADER.replace("x * SCALE", "x * SCALE * 3") + header()[len(HEADER) :]) == {
        "calls_helper",
        "chained",
    }
    assert changed(header(plain=FUNCTIONS["plain"].replace("1.0f", "2.0f"))) == {"plain"}


def test_an_appended_function_or_macro_changes_no_key():
    appended = header() + "__device__ inline float more(float x) { return x; }\n#define MORE 1\n"
    assert changed(appended) == set()


def test_what_a_shim_reaches_through_types_operators_and_templates():
    assert changed(header().replace("a + b;", "a - b;")) == {"pairs"}  # a member's body
    assert changed(header().replace("l.a + r.a", "l.a * r.a")) == {"pairs"}  # an operator
    assert changed(header().replace("Pair(float x) : a(x)", "Pair(float x) : a(x + 1)")) == {
        "pairs"
    }  # a constructor: in its struct's shell
    assert changed(header().replace("x + x;", "x * 2;")) == {"templated"}
    assert changed(header().replace("#define SCALE 2.0f", "#define SCALE 3.0f")) == {
        "calls_helper",
        "chained",
    }


def test_global_items_and_unreadable_headers_change_every_key():
    everything = set(FUNCTIONS)
    assert changed(header().replace("#include <cuda_fp16.h>", "#include <cuda_bf16.h>")) == (
        everything
    )
    assert changed(header() + "#if 0\n#endif\n") == everything
    unbalanced = header() + "namespace broken {\n"
    assert header_items(unbalanced) is None
    assert changed(unbalanced + "// a comment\n", before=unbalanced) == everything


def test_comments_spacing_and_moves_change_nothing_unless_lines_are_observed():
    assert changed(header().replace("struct Pair {", "/* pairs */\nstruct  Pair\n{")) == set()
    moved = header().replace("#pragma once\n", "#pragma once\n\n\n")
    assert changed(moved) == set()
    # Where the header names __LINE__ (or the options ask for line information), an item's
    # line is part of it: moving everything down a line changes every key.
    with_line = header(plain="__device__ inline float plain(float x) { return __LINE__; }")
    moved = with_line.replace("#pragma once\n", "#pragma once\n\n")
    assert changed(moved, before=with_line) == set(FUNCTIONS)
    appended = with_line + "__device__ inline float more(float x) { return x; }\n"
    assert changed(appended, before=with_line) == set()  # nothing above it moved
    moved = header().replace("#pragma once\n", "#pragma once\n\n")
    assert changed(moved, options=("-lineinfo",)) == set(FUNCTIONS)


def test_what_may_define_symbols():
    items = header_items(
        HEADER
        + "__device__ float strong(float x) { return x; }\n"
        + "__device__ int counter;\n"
        + "template <> __device__ float lib_spec<float>(float x);\n"
        + "extern __device__ int elsewhere;\n"
        + "typedef Pair Alias;\n"
    )
    assert items is not None
    defines = set().union(*(i.declares for i in items if i.may_define))
    assert {"strong", "counter", "lib_spec"} <= defines
    assert not defines & {"helper", "Pair", "twice", "SCALE", "elsewhere", "Alias", "sum"}


def test_units_are_cut_on_names_so_an_edit_compiles_one_unit():
    names = [f"nbi_shim__Z{len(str(i)) + 1}f{i}f" for i in range(400)]
    units = units_of(names)
    assert all(len(unit) <= MAX_UNIT for unit in units) and sum(units, []) == names
    assert 10 <= len(units) <= 40
    # A function added lands in one unit; the units before it stay as they were, and those
    # after it too once a cut falls where it fell before.
    added = names[:200] + ["nbi_shim__Z5addedf"] + names[200:]
    changed = [unit for unit in units_of(added) if unit not in units]
    assert 1 <= len(changed) <= 2 and any("nbi_shim__Z5addedf" in unit for unit in changed)


def test_the_reach_graph_grows_with_the_header_not_its_square():
    """Structs sharing member and parameter names (``a``, ``x``, ``get``: generated and real
    headers alike) lead every item to every other by name; the graph goes through the names, so
    its edges are the items' mentions and declarations (issue 23: item-to-item edges were 12
    million at 0.8 MB of header, several GB of memory at 6.5 MB)."""
    text = "".join(
        f"struct S{i} {{ float a; __device__ float get(float x) const {{ return a * x; }} }};\n"
        f"__device__ inline float f{i}(const S{i} &s, float x) {{ return s.get(x); }}\n"
        for i in range(300)
    )
    items = header_items(text)
    reach = _Reach(items, [item.digest for item in items])
    assert sum(len(edges) for edges in reach.edges) <= sum(
        len(item.mentions) + len(item.declares) for item in items
    )
    shims = [(f"nbi_shim_f{i}", f"  *nbi_ret = ::f{i}((*a0), (*a1));\n") for i in (0, 299)]
    # S0 only: f299 reaches it through the name ``get`` (through names, no reach is lost)
    edited = text.replace("float a;", "float a; int pad;", 1)
    before, after = shim_keys(text, shims, "c"), shim_keys(edited, shims, "c")
    assert before.keys() == after.keys() and all(before[n] != after[n] for n in before)
