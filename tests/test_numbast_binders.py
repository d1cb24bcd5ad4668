"""Dynamic binding keeps what it knows per shim writer (function stubs, function template stubs,
the template context) in one registry, never as attributes of the user's writer, and two
threads binding with one writer share one state."""

from __future__ import annotations

import threading
import warnings
from pathlib import Path

from ast_canopy import parse_declarations_from_source
from numbast import MemoryShimWriter, bind_cxx_function, bind_cxx_function_template
from numbast.dynamic.binders import BINDERS

HEADER = Path(__file__).parent / "data" / "binding" / "templates.cuh"


def test_binding_leaves_the_writer_alone_and_threads_share_its_state():
    decls = parse_declarations_from_source(str(HEADER), [str(HEADER)], "sm_90")
    writer = MemoryShimWriter(f'#include "{HEADER}"')
    before = set(vars(writer))
    states, barrier = [], threading.Barrier(8)

    def state_of_writer():
        barrier.wait()
        states.append(BINDERS.of(writer))

    threads = [threading.Thread(target=state_of_writer) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(states) == 8 and all(state is states[0] for state in states)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        stub = bind_cxx_function_template(writer, decls.function_templates[0])
        for func in decls.functions:
            bind_cxx_function(writer, func)
    assert set(vars(writer)) == before  # nothing of the binders' on the user's object
    state = BINDERS.of(writer)
    assert state.template_stubs[decls.function_templates[0].function.qual_name] is stub
    assert state.templates is not None and state.templates.library is writer
    other = MemoryShimWriter(f'#include "{HEADER}"')
    assert BINDERS.of(other) is not state
