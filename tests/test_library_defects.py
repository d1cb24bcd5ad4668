"""Which NVRTC errors prove a declaration ill-formed in the library itself
(numbast.static.library_defects): only errors nothing of ours can cause. The messages are
NVRTC's, as coverage records them for CUTLASS's complex.h (tests/test_cutlass_patterns.py builds
a header of ours with both patterns)."""

from __future__ import annotations

import pytest

from numbast.static.library_defects import library_defect

LOOKUP = 'complex.h(592): no instance of function template "cutlass::log" matches the argument list'
OVERLOAD = (
    'complex.h(604): no instance of overloaded function "cutlass::sqrt" matches the argument list'
)
OPERATOR = (
    'complex.h(612): no operator "-" matches these operands '
    "(operand types are: - const cutlass::complex<float>)"
)
CONVERSION = (
    'complex.h(492): no suitable conversion function from "cutlass::complex<float>" to "double" '
    "exists"
)
STATIC_ASSERT = 'complex.h(216): static assertion failed with "Component type must match"'
CONST_CAST = "complex.h(218): reinterpret_cast cannot cast away const or other type qualifiers"


@pytest.mark.parametrize("errors", [[LOOKUP], [OVERLOAD, LOOKUP], [OPERATOR], [CONVERSION]])
def test_lookups_among_the_librarys_own_declarations_are_its_defects(errors):
    reason = library_defect(errors, "cutlass::log10", "complex.h:597", fixed_types=False)
    assert reason is not None and reason.startswith("ill-formed in the library")


@pytest.mark.parametrize("error", [STATIC_ASSERT, CONST_CAST])
def test_a_fixed_instance_whose_body_fails_is_a_defect_a_probe_is_not(error):
    what, where = (
        "cutlass::complex<float>::red(cutlass::complex<cutlass::half_t> *) const",
        "complex.h:215",
    )
    assert library_defect([error], what, where, fixed_types=True) is not None
    # A template's probe chose its arguments: a static_assert may only refuse that choice.
    assert library_defect([error], "cutlass::f", "complex.h:215", fixed_types=False) is None


@pytest.mark.parametrize(
    "errors, where",
    [
        (
            [LOOKUP, 'no instance of function template "cutlass::log" matches'],
            "complex.h:1",
        ),  # our probe
        (['cmath(40): no instance of overloaded function "sqrt" matches'], "complex.h:1"),  # ours
        ([LOOKUP], "real.h:10"),  # another header than the declaration's
        (['complex.h(468): no instance of overloaded function "sqrt" matches'], "complex.h:1"),
        (
            ['complex.h(9): no operator "-" matches these operands (operand types are: - __half)'],
            "complex.h:1",
        ),  # cuda_fp16's operators depend on macros
        (
            [
                'complex.h(9): no suitable conversion function from "__half" to "cutlass::half_t" '
                "exists"
            ],
            "complex.h:1",
        ),
        (['complex.h(9): identifier "hypot" is undefined'], "complex.h:1"),
        ([], "complex.h:1"),
    ],
)
def test_errors_our_environment_could_cause_are_not_evidence(errors, where):
    assert library_defect(errors, "cutlass::log", where, fixed_types=False) is None
