"""What real libraries' coverage was missing for, one small header of ours per cause
(tests/data/library): declarations a header hides from NVRTC (``#if !defined(__CUDACC_RTC__)``,
as CUTLASS's complex.h does) are host-only, and so are inline ones defined nowhere (cooperative
groups' thread_group::num_threads); operators a Python kernel has no syntax for
(``=``, ``++``, ``--``, ``!``, literal suffixes) are excluded with the reason, not counted as
gaps; ``operator[]`` reads an element (``v[i]``, also on class template instances); and an
``operator<`` function template is spelled ``operator< <T>`` (``operator<<T>`` reads as
``<<``); an empty tag class declared in a file that is not retained binds with what names it
(CUB's ``NullType``); a type metafunction over a tuning policy (CUB's ``BlockLoadType``) binds
with a policy class of the module, and one that names members no class of the module has says
so. Each module is built once (one cache), its kernels linked to an sm_90 cubin here and run on
the GPU."""

from __future__ import annotations

import importlib
import json
from pathlib import Path

import numpy as np
import pytest
from support import link_kernel_to_cubin

from ast_canopy.nvrtc_hidden import enclosing_conditions, hidden_branches
from numbast.static.argument_needs import NEEDS_PREFIX, missing_members

DATA = Path(__file__).parent / "data" / "library"
HEADERS = ("nvrtc_hidden", "python_syntax", "subscripts", "tag_types", "policy_types")


@pytest.fixture(scope="module")
def modules(tmp_path_factory):
    """name -> (module, its manifest's coverage), the three headers imported into one cache."""
    import numbast_import

    patch = pytest.MonkeyPatch()
    patch.setenv("NUMBAST_CACHE_DIR", str(tmp_path_factory.mktemp("coverage_causes")))
    patch.setenv("NUMBAST_IMPORT_ARCH", "sm_90")
    patch.setenv("NUMBAST_IMPORT_QUIET", "1")
    for name in HEADERS:
        numbast_import.register(name, DATA / f"{name}.cuh")
    try:
        found = {}
        for name in HEADERS:
            module = importlib.import_module(f"cuda_headers.{name}")
            manifest = json.loads(Path(module.__file__).with_name("manifest.json").read_text())
            found[name] = module, manifest["coverage"]
        yield found
    finally:
        for name in HEADERS:
            numbast_import.unregister(name)
        patch.undo()


def _not_bound(coverage) -> dict[str, tuple[str, str]]:
    return {
        item["what"]: (item["outcome"], item["reason"])
        for counts in coverage["kinds"].values()
        for item in counts["not_bound"]
    }


# -- declarations NVRTC never sees -------------------------------------------------------------


def test_conditional_branches_that_only_other_compilers_take_are_found():
    text = """\
#if !defined(__CUDACC_RTC__)
a
#elif defined(X)
b
#else
c
#endif
#ifdef __CUDACC_RTC__
d
#else
#if defined(Y)
e
#endif
#endif
#if defined(__CUDACC_RTC__) || defined(Z)
f
#else
g
#endif
#if defined(Z) && ! defined __CUDACC_RTC__ // for nvcc
h
#endif
"""
    hidden = {(b.first, b.last, b.text) for b in hidden_branches(text)}
    assert hidden == {
        (2, 2, "#if !defined(__CUDACC_RTC__)"),  # a; b and c are taken by NVRTC
        (11, 13, "#else"),  # the #else of #ifdef __CUDACC_RTC__, nested #if and all
        (21, 21, "#if defined(Z) && ! defined __CUDACC_RTC__ // for nvcc"),  # h
    }  # d, f and g: NVRTC may take them


def test_the_conditions_enclosing_a_line_are_those_nvrtc_can_evaluate_at_the_end():
    text = """\
#ifndef LIB_H
#define LIB_H
#if LIB_HOSTED() && !defined(DOCS)
a
#elif defined(B)
b
#else
#if TEMP
c
#endif
#endif
#undef TEMP
#endif
"""
    expressions = {n: [c.expression for c in enclosing_conditions(text, n)] for n in (4, 6, 9)}
    assert expressions == {
        4: ["(LIB_HOSTED() && !defined(DOCS))"],  # the include guard is left out
        6: ["!((LIB_HOSTED() && !defined(DOCS))) && (defined(B))"],
        # the #else holds both negations; `#if TEMP` is left out: TEMP is #undef'd
        9: ["!((LIB_HOSTED() && !defined(DOCS))) && !(defined(B))"],
    }


def test_declarations_hidden_from_nvrtc_are_host_only_with_the_directive(modules):
    _module, coverage = modules["nvrtc_hidden"]
    not_bound = _not_bound(coverage)
    hidden = {
        "first_of(Pair2f)": "nvrtc_hidden.cuh:21: #ifndef __CUDACC_RTC__",
        "under_else(float)": "nvrtc_hidden.cuh:29: #else",
        "under_conjunction(float)": "nvrtc_hidden.cuh:33: #if !defined(__CUDACC_RTC__) &&",
        "Meters::Meters(Pair2f)": "nvrtc_hidden.cuh:14: #if !defined(__CUDACC_RTC__)",
        "Meters::operator Pair2f() const": "nvrtc_hidden.cuh:14: #if !defined(__CUDACC_RTC__)",
        # a function-like macro of the header's own, that NVRTC evaluates to 0
        "under_a_macro(float)": "nvrtc_hidden.cuh:54: #if NBI_HOSTED() && !defined(NBI_DOCS),",
    }
    assert set(not_bound) == set(hidden) | set(NEVER_DEFINED)
    for what, directive in hidden.items():
        outcome, reason = not_bound[what]
        assert outcome == "host_only" and directive in reason and "NVRTC" in reason, what
    # rejected by NVRTC under a condition that holds there: not hidden by the condition (its
    # reason is NVRTC's, not the directive's); declared inline and never defined, so no kernel
    # can call it (test_inline_declarations_defined_nowhere_are_not_device_callable)
    outcome, reason = not_bound["never_defined(float)"]
    assert outcome == "host_only" and "#if" not in reason and "defined nowhere" in reason, reason
    # Meters(float), twice, either_way (a condition NVRTC takes), scaled
    callables = coverage["device_callables"]
    assert (callables["bound"], callables["found"]) == (4, 4)


NEVER_DEFINED = ("Gauge::halved() const", "never_defined(float)")


def test_inline_declarations_defined_nowhere_are_not_device_callable(modules):
    """NVRTC reports them referenced but not defined, and C++ wants an inline function's
    definition where it is called: no kernel can call them (not a gap in the bindings)."""
    _module, coverage = modules["nvrtc_hidden"]
    not_bound = _not_bound(coverage)
    for what in NEVER_DEFINED:
        outcome, reason = not_bound[what]
        assert outcome == "host_only", (what, reason)
        assert "declared inline and defined nowhere" in reason, reason
        assert "referenced but not defined" in reason, reason  # NVRTC's own words


def _hidden_kernel(module):
    def kernel(out, x):
        meters = module.Meters(x[0])
        out[0] = module.scaled(meters, x[1]) + meters.twice() + module.either_way(x[2])

    return kernel


def test_what_nvrtc_sees_links(modules):
    from numba import types

    module, _ = modules["nvrtc_hidden"]
    f32 = types.float32[::1]
    assert link_kernel_to_cubin(_hidden_kernel(module), (f32, f32))


# -- operators without Python syntax -----------------------------------------------------------


def test_operators_without_python_syntax_are_excluded_not_gaps(modules):
    _module, coverage = modules["python_syntax"]
    not_bound = _not_bound(coverage)
    expected = {
        "Tally::operator=(int)": "assignment rebinds a name",
        "Tally::operator++()": "no increment operator",
        "Tally::operator++(int)": "no increment operator",
        "Tally::operator!() const": "`not` cannot be overloaded",
        "operator--(Tally &)": "no decrement operator",
        'operator""_tally(unsigned long long)': "no user-defined literals",
    }
    assert set(not_bound) == set(expected)
    for what, why in expected.items():
        outcome, reason = not_bound[what]
        assert outcome == "excluded" and why in reason, what
        assert reason.endswith("a Python kernel has no syntax that calls it")
    # Tally(int), +=, [] and + are what a kernel can call: all bound, and the denominator
    callables = coverage["device_callables"]
    assert (callables["bound"], callables["found"]) == (4, 4)


def _syntax_kernel(module):
    def kernel(out, x):
        tally = module.Tally(x[0])
        tally += x[1]
        total = tally + module.Tally(x[2])
        out[0] = total[3]  # operator[] const
        out[1] = tally.n

    return kernel


def test_the_operators_python_has_link(modules):
    from numba import types

    module, _ = modules["python_syntax"]
    i32 = types.int32[::1]
    assert link_kernel_to_cubin(_syntax_kernel(module), (i32, i32))


# -- operator[] and operator< templates ----------------------------------------------------------


def test_subscripts_and_a_less_than_template_bind(modules):
    _module, coverage = modules["subscripts"]
    assert _not_bound(coverage) == {}
    assert "operator<" in coverage["kinds"]["function template"]["instances"]


def _subscript_kernel(module):
    def kernel(out, x):
        a = module.make_vec3(x[0], x[1], x[2])
        b = module.make_vec3(x[3], x[4], x[5])
        out[0] = a[0] + a[2] * b[1]  # Vec<float, 3>::operator[]
        out[1] = 1.0 if a < b else 0.0  # operator< <float>
        out[2] = 1.0 if b < a else 0.0

    return kernel


def test_subscripts_and_a_less_than_template_link(modules):
    from numba import types

    module, _ = modules["subscripts"]
    f32 = types.float32[::1]
    assert link_kernel_to_cubin(_subscript_kernel(module), (f32, f32))


# -- empty tag classes outside the retained files ----------------------------------------------


def test_an_empty_tag_class_not_retained_binds_with_what_names_it(modules):
    module, coverage = modules["tag_types"]
    assert {"Empty", "tag_count", "make_slot"} <= set(dir(module))
    # Slot<Empty>::get() (an instance's method returning the tag) binds; Heavy has a field: it
    # is left to the retain list, and what names it says so
    assert coverage["kinds"]["method"]["bound"] == 1
    (heavy,) = coverage["kinds"]["function"]["not_bound"]
    assert heavy["what"] == "tg::heavy_value(tg::Heavy)"
    assert "'tg::Heavy' has no Numba type" in heavy["reason"]


def _tag_kernel(module):
    def kernel(out):
        out[0] = module.tag_count(module.Empty())
        slot = module.make_slot()
        out[1] = module.tag_count(slot.get())

    return kernel


def test_a_kernel_making_and_passing_the_tag_links(modules):
    from numba import types

    module, _ = modules["tag_types"]
    assert link_kernel_to_cubin(_tag_kernel(module), (types.int32[::1],))


# -- type metafunctions over a policy ------------------------------------------------------------


def test_a_metafunction_binds_with_the_modules_policy_and_says_what_none_has(modules):
    from numba import types

    module, coverage = modules["policy_types"]
    templates = coverage["kinds"]["class template"]
    assert templates["instances"]["pt::LoaderFor"] == "::pt::LoaderFor<::pt::SmallPolicy, int>"
    # a policy and a pointer, the iterator whose value type is the default
    assert templates["instances"]["pt::LoaderAt"] == "::pt::LoaderAt<::pt::SmallPolicy, int *>"
    (wide,) = templates["not_bound"]
    assert wide["what"] == "pt::WideLoaderFor" and wide["outcome"] == "skipped"
    assert wide["reason"].startswith(f"{NEEDS_PREFIX} (the arguments tried have no member LANES)")
    chosen = module.LoaderFor[module.SmallPolicy, types.int32].type  # Loader<int, 4>
    assert chosen is module.Loader[types.int32, 4]._numba_type_


def test_argument_needs_are_read_only_from_errors_about_the_arguments():
    tried = ("::ns::F<int, int>", "::ns::F<::ns::Tag, int>")
    lacks = ('a.cuh(3): name followed by "::" must be a class or namespace name',
             'a.cuh(3): class "ns::v1::Tag" has no member "BLOCK_THREADS"')  # fmt: skip
    assert "no member BLOCK_THREADS" in missing_members(tried, lacks)
    # A member missing from a class that is no argument (the library's own) is something else.
    other = (lacks[0], 'a.cuh(3): class "ns::Helper" has no member "BLOCK_THREADS"')
    assert missing_members(tried, other) is None
    assert missing_members(tried, (lacks[1], "a.cuh(4): static assertion failed")) is None


def _policy_kernel(module):
    from numba import cuda, types

    Chosen = module.LoaderAt[module.SmallPolicy, types.CPointer(types.int32)]
    Loader4 = module.Loader[types.int32, 4]

    def kernel(values, out):
        i = cuda.grid(1)
        loaders = cuda.local.array(1, Chosen.type)  # the policy's choice: Loader<int, 4>
        loaders[0] = Loader4(np.int32(3))
        out[i] = loaders[0].scaled(values[i])

    return kernel


def test_a_kernel_holding_the_metafunctions_type_links(modules):
    from numba import types

    module, _ = modules["policy_types"]
    i32 = types.int32[::1]
    assert link_kernel_to_cubin(_policy_kernel(module), (i32, i32))


@pytest.mark.gpu
def test_the_kernels_compute_on_the_gpu(modules):
    from numba import cuda

    hidden = cuda.jit(_hidden_kernel(modules["nvrtc_hidden"][0]))
    out = cuda.to_device(np.zeros(1, np.float32))
    hidden[1, 1](out, cuda.to_device(np.float32([2.0, 3.0, 5.0])))
    assert out.copy_to_host()[0] == 2 * 3 + 2 * 2 + 3 * 5

    syntax = cuda.jit(_syntax_kernel(modules["python_syntax"][0]))
    out = cuda.to_device(np.zeros(2, np.int32))
    syntax[1, 1](out, cuda.to_device(np.int32([4, 5, 7])))
    np.testing.assert_array_equal(out.copy_to_host(), [(4 + 5 + 7) * 3, 4 + 5])

    subscript = cuda.jit(_subscript_kernel(modules["subscripts"][0]))
    out = cuda.to_device(np.zeros(3, np.float32))
    subscript[1, 1](out, cuda.to_device(np.float32([1, 2, 3, 4, 5, 6])))
    np.testing.assert_array_equal(out.copy_to_host(), [1 + 3 * 5, 1.0, 0.0])

    tags = cuda.jit(_tag_kernel(modules["tag_types"][0]))
    out = cuda.to_device(np.zeros(2, np.int32))
    tags[1, 1](out)
    np.testing.assert_array_equal(out.copy_to_host(), [7, 7])

    policy = cuda.jit(_policy_kernel(modules["policy_types"][0]))
    values = np.arange(32, dtype=np.int32) - 5
    out = cuda.to_device(np.zeros(32, np.int32))
    policy[1, 32](cuda.to_device(values), out)
    np.testing.assert_array_equal(out.copy_to_host(), values * 4 + 3)
