"""One test per static-binding config key: its effect on the generated module.

Each test renders a module from a small header under tests/data/static/ (one feature each),
imports it, and where the key changes what kernels can do, compiles a kernel that uses the
bindings and links it to an sm_90 cubin (no GPU needed).
"""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
import warnings
from types import ModuleType

import numpy as np
import pytest
from numba.cuda import types
from static_support import DATA, generate, import_path, render, static_config
from support import link_kernel_to_cubin

from numbast import BindingSkippedWarning
from numbast.static.arch_merge import ArchMismatchError


def compile_library(kernel, argtypes):
    """The code library of ``kernel`` compiled for sm_90 (lowered, not linked)."""
    from numba.cuda.compiler import compile_cuda

    return compile_cuda(kernel, types.void, argtypes, cc=(9, 0)).library


@pytest.fixture(autouse=True)
def _fresh_directories(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()


# -- Entry Point, File List ---------------------------------------------------------------------


def test_entry_point_is_included_by_the_shims(tmp_path):
    mod = generate("tiny.cuh", tmp_path, File_List=["tiny.cuh", "tiny_ops.hpp"])
    assert f"#include <{DATA / 'tiny.cuh'}>" in mod._numbast_shim_library.preamble
    add = mod.tiny_ops_add

    def kernel(out):
        out[0] = add(np.int32(2), np.int32(3))

    link_kernel_to_cubin(kernel, (types.int32[:],))


def test_file_list_decides_which_files_are_bound(tmp_path):
    only_entry = generate("tiny.cuh", tmp_path / "a", File_List=["tiny.cuh"])
    both = generate("tiny.cuh", tmp_path / "b", File_List=["tiny.cuh", "tiny_ops.hpp"])
    assert "tiny_sum" in only_entry.__all__ and "tiny_ops_add" not in only_entry.__all__
    assert {"tiny_sum", "tiny_ops_add"} <= set(both.__all__)
    add = both.tiny_ops_add

    def kernel(out):
        out[0] = add(np.int32(2), np.int32(3))

    link_kernel_to_cubin(kernel, (types.int32[:],))


# -- GPU Arch -----------------------------------------------------------------------------------


def test_gpu_arch_several_arches_give_one_module_with_guarded_shims(tmp_path):
    mod = generate("arch.cuh", tmp_path, GPU_Arch=["sm_80", "sm_90"])
    assert "# GPU Arch: sm_80, sm_90" in (tmp_path / "arch.py").read_text()
    only, everywhere = mod.only_on_sm90, mod.everywhere

    def uses_sm90_only(out):
        out[0] = only(np.int32(1))

    def uses_common(out):
        out[0] = everywhere(np.int32(1))

    for arch in ("sm_80", "sm_90"):
        link_kernel_to_cubin(uses_common, (types.int32[:],), arch=arch)
    link_kernel_to_cubin(uses_sm90_only, (types.int32[:],), arch="sm_90")
    with pytest.raises(Exception, match="only_on_sm90.*declared for sm_90 only"):
        link_kernel_to_cubin(uses_sm90_only, (types.int32[:],), arch="sm_80")


def test_gpu_arch_layout_that_differs_per_arch_is_an_error(tmp_path):
    with pytest.raises(ArchMismatchError, match="per_arch.*one module per arch"):
        render(static_config("arch_layout.cuh", GPU_Arch=["sm_80", "sm_90"]), tmp_path)


# -- Name, Version --------------------------------------------------------------------------------


def test_name_and_version_are_recorded_in_the_header_comment(tmp_path):
    path = render(static_config("tiny.cuh", Name="tiny bindings", Version="1.10"), tmp_path)
    head = path.read_text().split('"""')[0]
    assert '#   Name: "tiny bindings"' in head
    assert '#   Version: "1.10"' in head


# -- Types, Data Models -----------------------------------------------------------------------


def test_types_sets_the_parent_type_class(tmp_path):
    from numba.cuda.extending import as_numba_type

    plain = generate("structs.cuh", tmp_path / "a")
    number = generate("structs.cuh", tmp_path / "b", Types={"fixed16": "Number"})
    assert not isinstance(as_numba_type(plain.fixed16), types.Number)
    assert isinstance(as_numba_type(number.fixed16), types.Number)
    fixed16 = number.fixed16

    def kernel(out):
        out[0] = types.float32(fixed16(np.float32(1.5)))  # a Numba cast, for Number types

    link_kernel_to_cubin(kernel, (types.float32[:],))


def test_data_models_choose_between_fields_and_an_opaque_value(tmp_path):
    from numba.cuda.datamodel.models import PrimitiveModel, StructModel
    from numba.cuda.descriptor import cuda_target
    from numba.cuda.extending import as_numba_type

    fields = generate("structs.cuh", tmp_path / "a")
    opaque = generate("structs.cuh", tmp_path / "b", Data_Models={"fixed16": "PrimitiveModel"})
    cuda_target.typing_context.refresh()  # what Numba does before it types a kernel
    manager = cuda_target.target_context.data_model_manager
    assert isinstance(manager[as_numba_type(fields.fixed16)], StructModel)
    assert isinstance(manager[as_numba_type(opaque.fixed16)], PrimitiveModel)
    fixed16 = fields.fixed16

    def kernel(out):
        out[0] = fixed16(np.float32(2.0)).raw  # a public field, readable with StructModel

    link_kernel_to_cubin(kernel, (types.int16[:],))


def test_unknown_type_class_fails_at_import_naming_the_struct_and_the_fix(tmp_path):
    path = render(static_config("structs.cuh", Types={"fixed16": "Nubmer"}), tmp_path)
    with pytest.raises(TypeError, match="fixed16.*'Nubmer'.*fix that entry of the config's Types"):
        import_path(path)


# -- Exclude ----------------------------------------------------------------------------------


def test_exclude_functions_and_structs(tmp_path):
    mod = generate(
        "functions.cuh",
        tmp_path / "a",
        Exclude={"Function": ["scale"], "Struct": ["__pair"]},
    )
    assert mod.__all__ == ("__twice",)  # operator+ took __pair, so it went with it
    assert not hasattr(mod, "scale") and not hasattr(mod, "__pair")


# -- Clang Include Paths ------------------------------------------------------------------------


def test_clang_include_paths_reach_the_parser_and_nvrtc(tmp_path):
    from numbast.static.renderer import render_bindings_module

    with pytest.raises(Exception, match="dep.h"):
        render_bindings_module(static_config("include_paths.cuh"))
    mod = generate("include_paths.cuh", tmp_path, Clang_Include_Paths=["include_dir"])
    uses_dep = mod.uses_dep

    def kernel(out):
        out[0] = uses_dep(np.int32(3))

    link_kernel_to_cubin(kernel, (types.int32[:],))


# -- Additional Import, Shim Include Override ---------------------------------------------------


def test_additional_import_statements_run_first(tmp_path):
    path = render(
        static_config("tiny.cuh", Additional_Import=["os", "from os import path as ospath"]),
        tmp_path,
    )
    text = path.read_text()
    assert "\nimport os\nfrom os import path as ospath\n" in text
    assert text.index("import os") < text.index("_nb_runtime = ")
    mod = import_path(path)
    assert mod.ospath is mod.os.path


def test_shim_include_override_is_evaluated_at_import(tmp_path):
    expression = "os.path.join(os.path.dirname(__file__), 'tiny.cuh')"
    (tmp_path / "tiny.cuh").write_text((DATA / "tiny.cuh").read_text())
    (tmp_path / "tiny_ops.hpp").write_text((DATA / "tiny_ops.hpp").read_text())
    mod = generate(
        "tiny.cuh",
        tmp_path,
        File_List=["tiny.cuh", "tiny_ops.hpp"],
        Shim_Include_Override=expression,
        Additional_Import=["os"],
    )
    assert mod._numbast_shim_library.preamble == f"#include <{tmp_path / 'tiny.cuh'}>"
    add = mod.tiny_ops_add

    def kernel(out):
        out[0] = add(np.int32(2), np.int32(3))

    link_kernel_to_cubin(kernel, (types.int32[:],))


# -- Predefined Macros ------------------------------------------------------------------------


def test_predefined_macros_reach_the_parser_and_the_shim(tmp_path):
    without = generate("macros.cuh", tmp_path / "a")
    assert "feature_value" not in without.__all__
    mod = generate("macros.cuh", tmp_path / "b", Predefined_Macros=["STATIC_FEATURE=7"])
    assert mod._numbast_shim_library.preamble.startswith("#define STATIC_FEATURE 7\n")
    feature_value = mod.feature_value

    def kernel(out):
        out[0] = feature_value()

    link_kernel_to_cubin(kernel, (types.int32[:],))


# -- Output Name --------------------------------------------------------------------------------


def test_output_name_names_the_written_module(tmp_path):
    config = tmp_path / "config.yml"
    config.write_text(
        f"Entry Point: {DATA / 'tiny.cuh'}\nFile List: [{DATA / 'tiny.cuh'}]\nGPU Arch: sm_90\n"
        "Output Name: tiny_bindings.py\n"
    )
    result = subprocess.run(
        [sys.executable, "-m", "numbast", "--cfg-path", str(config), "--output-dir", "out"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "out" / "tiny_bindings.py").is_file()
    assert not (tmp_path / "out" / "tiny.py").exists()


# -- Cooperative Launch Required Functions Regex ----------------------------------------------


def test_cooperative_functions_mark_kernels_for_a_cooperative_launch(tmp_path):
    mod = generate(
        "cooperative.cuh", tmp_path, Cooperative_Launch_Required_Functions_Regex=["barrier$"]
    )
    grid_barrier, plain_add = mod.grid_barrier, mod.plain_add

    def syncs(out):
        grid_barrier()
        out[0] = 1

    def adds(out):
        out[0] = plain_add(np.int32(1), np.int32(2))

    assert compile_library(syncs, (types.int32[:],)).use_cooperative
    assert not compile_library(adds, (types.int32[:],)).use_cooperative
    link_kernel_to_cubin(syncs, (types.int32[:],))


@pytest.mark.gpu
def test_cooperative_kernel_is_launched_cooperatively(tmp_path):
    from numba import cuda

    mod = generate(
        "cooperative.cuh", tmp_path, Cooperative_Launch_Required_Functions_Regex=["barrier$"]
    )
    grid_barrier = mod.grid_barrier

    @cuda.jit
    def kernel(out):
        i = cuda.grid(1)
        out[i] = 1
        grid_barrier()
        if i == 0:
            total = 0
            for j in range(out.size):
                total += out[j]
            out[0] = total

    out = cuda.to_device(np.zeros(256, dtype=np.int32))
    kernel[4, 64](out)
    assert all(overload.cooperative for overload in kernel.overloads.values())
    assert out.copy_to_host()[0] == 256


# -- API Prefix Removal, Skip Prefix ------------------------------------------------------------


def test_api_prefix_removal_renames_functions_structs_and_enums(tmp_path):
    mod = generate(
        "prefixes.cuh",
        tmp_path,
        API_Prefix_Removal={"Function": "mylib_", "Struct": ["mylib_"], "Enum": "MYLIB_"},
    )
    assert {"add", "mode_value", "unbox", "box", "MODE"} <= set(mod.__all__)
    assert [m.name for m in mod.MODE] == ["MODE_FAST", "MODE_EXACT"]
    assert mod.MODE.MODE_EXACT == 2
    add, mode_value, MODE = mod.add, mod.mode_value, mod.MODE

    def kernel(out):
        out[0] = add(np.int32(1), np.int32(2)) + mode_value(MODE.MODE_EXACT)

    link_kernel_to_cubin(kernel, (types.int32[:],))


def test_skip_prefix_leaves_functions_out(tmp_path):
    mod = generate("prefixes.cuh", tmp_path, Skip_Prefix="mylib_detail_")
    assert "mylib_detail_helper" not in mod.__all__
    assert "mylib_add" in mod.__all__


# -- Module Callbacks ---------------------------------------------------------------------------


@pytest.fixture
def callback_calls(monkeypatch):
    """A module the callbacks' expressions import from (Additional Import), recording calls."""
    recorder = ModuleType("static_test_callbacks")
    recorder.setups, recorder.teardowns = [], []
    monkeypatch.setitem(sys.modules, "static_test_callbacks", recorder)
    return recorder


CALLBACK_KEYS = {
    "File_List": ["tiny.cuh", "tiny_ops.hpp"],
    "Additional_Import": ["from static_test_callbacks import setups, teardowns"],
    "Module_Callbacks": {"setup": "setups.append", "teardown": "teardowns.append"},
}


def test_module_callbacks_travel_with_the_shims(tmp_path, callback_calls):
    mod = generate("tiny.cuh", tmp_path, **CALLBACK_KEYS)
    link = mod._numbast_shim_library.link_object()
    add = mod.tiny_ops_add

    def kernel(out):
        out[0] = add(np.int32(1), np.int32(2)) + add(np.int32(3), np.int32(4))

    library = compile_library(kernel, (types.int32[:],))
    assert link in library._linking_files
    # numba-cuda records the callbacks once per bound call; they run once per loaded module.
    assert len(library._setup_functions) == 2
    loaded = object()
    for setup in library._setup_functions:
        setup(loaded)
    for teardown in library._teardown_functions:
        teardown(loaded)
    assert callback_calls.setups == [loaded]
    assert callback_calls.teardowns == [loaded]


@pytest.mark.gpu
def test_module_setup_callback_runs_once_when_the_kernel_is_loaded(tmp_path, callback_calls):
    from numba import cuda

    mod = generate("tiny.cuh", tmp_path, **CALLBACK_KEYS)
    add = mod.tiny_ops_add

    @cuda.jit
    def kernel(out):
        out[0] = add(np.int32(1), np.int32(2)) + add(np.int32(3), np.int32(4))

    out = cuda.to_device(np.zeros(1, dtype=np.int32))
    kernel[1, 1](out)
    cuda.synchronize()
    assert len(callback_calls.setups) == 1


# -- Use Separate Registry ----------------------------------------------------------------------


def test_use_separate_registry_keeps_bindings_out_of_the_global_registries(tmp_path):
    from numba.cuda.cudadecl import registry as global_typing
    from numba.cuda.descriptor import cuda_target

    mod = generate("functions.cuh", tmp_path, Use_Separate_Registry=True)
    twice = mod.__twice
    assert all(value is not twice for value, _ in global_typing.globals)
    assert any(value is twice for value, _ in mod.typing_registry.globals)
    assert mod.target_registry.functions  # the lowerings went there

    cuda_target.typing_context.install_registry(mod.typing_registry)
    cuda_target.target_context.install_registry(mod.target_registry)

    def kernel(out):
        out[0] = twice(np.int32(4))

    link_kernel_to_cubin(kernel, (types.int32[:],))


# -- Function Argument Intents ------------------------------------------------------------------


def test_function_argument_intents_change_signatures(tmp_path):
    from numbast import element_pointer

    mod = generate(
        "intents.cuh",
        tmp_path,
        Function_Argument_Intents={
            "divmod": {"remainder": "out_return"},
            "accumulate": {0: "inout_ptr"},
        },
    )
    divmod_, accumulate = mod.divmod, mod.accumulate
    sigs = {
        name: [case.args for case in template.cases]
        for name, template in (
            ("divmod", _template_of(mod.divmod)),
            ("accumulate", _template_of(mod.accumulate)),
        )
    }
    assert sigs["divmod"] == [(types.int32, types.int32)]
    assert sigs["accumulate"] == [(types.CPointer(types.float32), types.float32)]

    def kernel(ints, floats):
        quotient, remainder = divmod_(np.int32(7), np.int32(3))
        ints[0] = quotient
        ints[1] = remainder
        accumulate(element_pointer(floats, 0), np.float32(1.5))

    link_kernel_to_cubin(kernel, (types.int32[:], types.float32[:]))


def _template_of(stub):
    from numba.cuda.cudadecl import registry
    from numba.cuda.descriptor import cuda_target

    # Registrations run before Numba types a kernel (a function's when it is looked up).
    cuda_target.typing_context.refresh()
    cuda_target.typing_context.resolve_value_type(stub)
    for value, typ in registry.globals:
        if value is stub:
            return typ.templates[0]
    raise AssertionError(f"{stub} is not registered")


# -- declarations that cannot be bound ----------------------------------------------------------


def test_unbindable_declarations_are_skipped_with_one_warning_and_the_module_imports(tmp_path):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        path = render(static_config("skipped.cuh"), tmp_path, quiet=False)
    skipped = [w for w in caught if issubclass(w.category, BindingSkippedWarning)]
    assert len(skipped) == 1
    message = str(skipped[0].message)
    for name in ("takes_callback", "sum_all", "host_only"):
        assert name in message
    assert re.search(r"skipped.cuh:\d+", message)
    mod = import_path(path)
    assert mod.__all__ == ("bindable",)
    assert "# Not bound (3 declarations):" in path.read_text()


def test_generation_imports_no_numba(tmp_path):
    script = textwrap.dedent(
        f"""
        import sys
        sys.path.insert(0, {str(DATA.parent.parent)!r})
        from static_support import render, static_config
        from pathlib import Path
        render(static_config("functions.cuh"), Path({str(tmp_path)!r}))
        loaded = sorted(m for m in sys.modules if m.split(".")[0] in ("numba", "llvmlite"))
        print(loaded)
        """
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"
