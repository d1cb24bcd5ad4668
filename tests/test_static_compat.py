"""NVIDIA Numbast's static generator API on ours: numbast.tools.static_binding_generator
(Config, _static_binding_generator, the command object), -fmt / -noraise, what a generated
module exports (shim_obj, _type_<Struct>, __all__), Module Callbacks on shim_obj, the keys of
NVIDIA's schema this generator ignores."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest
from numba.cuda import types
from numba.cuda.datamodel.models import StructModel
from support import link_kernel_to_cubin

from numbast import BindingSkippedWarning

DATA = Path(__file__).parent / "data" / "compat"
HEADER = str(DATA / "static.cuh")
BROKEN = str(Path(__file__).parent / "data" / "static" / "broken.cuh")


def config(**keys):
    from numbast.tools.static_binding_generator import Config

    return Config.from_params(
        entry_point=HEADER,
        gpu_arch=["sm_90"],
        retain_list=[HEADER],
        types={"Foo": types.Type},
        datamodels={"Foo": StructModel},
        **keys,
    )


def generate(tmp_path, cfg) -> tuple[str, dict]:
    from numbast.tools.static_binding_generator import _static_binding_generator

    written = _static_binding_generator(cfg, tmp_path)
    source = Path(written).read_text()
    namespace: dict = {}
    exec(compile(source, written, "exec"), namespace)  # as NVIDIA's tests load modules
    return source, namespace


def test_config_has_nvidia_s_attributes_and_checks_itself(tmp_path):
    from numbast.tools.static_binding_generator import Config

    cfg = config(separate_registry=True, exclude_functions=["add"])
    assert cfg.separate_registry is True and cfg.exclude_functions == ["add"]
    assert cfg.types == {"Foo": types.Type} and cfg.retain_list == [HEADER]
    with pytest.raises(ValueError, match="Invalid regex pattern"):
        config(cooperative_launch_required_functions_regex=["[unclosed"])
    path = tmp_path / "cfg.yml"
    path.write_text(f"Entry Point: {HEADER}\nFile List: [{HEADER}]\nGPU Arch: [sm_90]\n")
    assert Config.from_yaml_path(path).entry_point == HEADER


def test_generated_module_exports_nvidia_s_names(tmp_path):
    cfg = config()
    cfg.function_argument_intents = {}  # attributes may be changed after construction
    source, names = generate(tmp_path, cfg)
    assert sorted(names["__all__"]) == ["Foo", "_type_Foo", "add"]  # the typedef is not listed
    assert names["Bar"] is names["Foo"] and names["_type_Foo"] is names["Foo"]._nbtype
    assert names["shim_obj"] is names["_numbast_shim_library"].link_object()
    for key in ("Numbast version", "Ast_canopy version", "Cudatoolkit version",
                "Generation command", "Static binding generator parameters",
                "Config file path (relative to the path of the generated binding)"):  # fmt: skip
        assert f"# {key}:" in source
    Foo, add = names["Foo"], names["add"]

    def kernel(out):
        out[0] = add(Foo().x, 1)

    assert link_kernel_to_cubin(kernel, (types.int32[:],))[:4] == b"\x7fELF"


def test_module_callbacks_are_set_on_shim_obj_and_empty_means_none(tmp_path):
    source, names = generate(tmp_path, config(module_callbacks={"setup": "", "teardown": ""}))
    assert "shim_obj.setup_callback =" not in source and names["shim_obj"].setup_callback is None

    seen = []
    source, names = generate(tmp_path, config(module_callbacks={"setup": "lambda m: None"}))
    assert "shim_obj.setup_callback = lambda m: None\n" in source
    shim_obj = names["shim_obj"]
    shim_obj.setup_callback = seen.append  # as the module's line does: wrapped
    module = object()
    shim_obj.setup_callback(module)
    shim_obj.setup_callback(module)  # numba-cuda calls it once per bound call: runs once
    assert seen == [module]


def test_shim_obj_follows_the_link_object_kernels_get():
    from numba.cuda.cudadrv.linkable_code import LTOIR

    from numbast.runtime.shim_library import ShimLibrary

    library, namespace = ShimLibrary("#define NOTHING"), {}
    library.publish(namespace, "shim_obj")
    compiled = LTOIR(b"compiled shims", name="x.ltoir")
    library.use_link_object(compiled)
    assert namespace["shim_obj"] is compiled is library.link_object()


def test_mlir_keys_are_accepted_and_ignored_with_a_warning(tmp_path):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cfg = config(mlir_backend=True, module_link_variables_used=["x"])
    assert cfg.mlir_backend is True
    messages = [str(w.message) for w in caught]
    assert any("MLIR Backend is ignored" in m for m in messages)
    assert any("Module Link Variables Used is ignored" in m for m in messages)
    assert "add" in generate(tmp_path, cfg)[1]


def write_config(tmp_path, entry: str) -> Path:
    path = tmp_path / "cfg.yml"
    path.write_text(f"Entry Point: {entry}\nFile List: [{entry}]\nGPU Arch: [sm_90]\n")
    return path


def test_the_command_object_runs_as_click_s_main(tmp_path):
    from numbast.tools.static_binding_generator import static_binding_generator

    out = tmp_path / "out"
    out.mkdir()
    cfg = write_config(tmp_path, HEADER)
    written = static_binding_generator.main(
        ["--cfg-path", cfg, "--output-dir", out, "-fmt", "false", "-noraise", "false"]
    )
    assert Path(written) == out / "static.py" and "shim_obj" in Path(written).read_text()
    with pytest.raises(SystemExit) as exited:
        static_binding_generator.main(["--cfg-path", cfg, "--output-dir", out, "--types", "{}"])
    assert exited.value.code == 2


def test_noraise_binds_what_clang_could_parse(tmp_path, capsys):
    from numbast.__main__ import main

    cfg = write_config(tmp_path, BROKEN)
    out = tmp_path / "out"
    assert main(["--cfg-path", str(cfg), "--output-dir", str(out), "-fmt", "false"]) != 0
    assert "-noraise true" in capsys.readouterr().err
    code = main(["--cfg-path", str(cfg), "--output-dir", str(out), "-noraise", "true"])
    assert code == 0 and (out / "broken.py").is_file()


def test_records_nested_in_structs_are_bound_and_not_exported(tmp_path):
    from numbast.tools.static_binding_generator import Config

    header = str(DATA / "dynamic.cuh")
    cfg = Config.from_params(
        entry_point=header, gpu_arch=["sm_90"], retain_list=[header], types={}, datamodels={}
    )
    # The header's host function is left out, with a warning that names it (not a failure).
    with pytest.warns(BindingSkippedWarning, match=r"host_only\(int\).*host function"):
        _source, names = generate(tmp_path, cfg)
    assert "Pod" in names["__all__"] and not any("Inner" in n for n in names["__all__"])
    make_pod = names["make_pod"]

    def kernel(out):
        p = make_pod(7)
        out[0] = p.inner.value + p.grid[1][2]

    assert link_kernel_to_cubin(kernel, (types.float32[:],))[:4] == b"\x7fELF"
