"""The static-binding config contract: every key accepted and normalized, every malformed value
reported with its key path, YAML read safely, and the CLI's exit codes and messages."""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
import types
from pathlib import Path

import pytest

from numbast.static import cli
from numbast.static.config import ConfigError, ConfigFileError, StaticConfig, load_config
from numbast.static.config_schema import load_schema

DATA = Path(__file__).parent / "data" / "static"
ROOT = Path(__file__).resolve().parents[1]


def required(entry: str = "tiny.cuh", files: str = "[tiny.cuh]", arch: str = "sm_90") -> str:
    """The three required keys as YAML text."""
    return f"Entry Point: {entry}\nFile List: {files}\nGPU Arch: {arch}\n"


REQUIRED = required()


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    """A directory holding the tiny headers, where configs are written."""
    for name in ("tiny.cuh", "tiny_ops.hpp"):
        shutil.copy(DATA / name, tmp_path / name)
    return tmp_path


def write(workdir: Path, text: str, name: str = "config.yml") -> Path:
    path = workdir / name
    path.write_text(textwrap.dedent(text))
    return path


def load(workdir: Path, extra: str = "", head: str = REQUIRED) -> StaticConfig:
    """Load the config made of ``head`` (the required keys) followed by ``extra``."""
    return load_config(write(workdir, head + textwrap.dedent(extra)))


def problems(workdir: Path, extra: str = "", head: str = REQUIRED) -> list[str]:
    """The violations reported for that config, as ``<key path>: <message>`` lines."""
    with pytest.raises(ConfigError) as info:
        load(workdir, extra, head)
    assert str(workdir / "config.yml") in str(info.value)
    return list(info.value.problems)


def reported(lines: list[str], path: str, fragment: str = "") -> bool:
    return any(line.startswith(f"{path}: ") and fragment in line for line in lines)


# --- the required keys ---------------------------------------------------------------------


def test_minimal_config_is_normalized_with_defaults(workdir):
    config = load(workdir)
    assert config.config_path == str(workdir / "config.yml")
    assert config.entry_point == str(workdir / "tiny.cuh")
    assert config.file_list == (str(workdir / "tiny.cuh"),)
    assert config.gpu_arch == ("sm_90",)
    assert config.output_filename == "tiny.py"
    defaults = StaticConfig(
        config_path=config.config_path,
        entry_point=config.entry_point,
        file_list=config.file_list,
        gpu_arch=config.gpu_arch,
    )
    assert config == defaults


@pytest.mark.parametrize("key", ["Entry Point", "File List", "GPU Arch"])
def test_required_keys_are_reported_when_missing(workdir, key):
    text = "".join(line + "\n" for line in REQUIRED.splitlines() if not line.startswith(key))
    assert reported(problems(workdir, head=text), key, "required key is missing")


def test_relative_paths_are_taken_from_the_config_directory(workdir, monkeypatch):
    (workdir / "cfg").mkdir()
    monkeypatch.chdir("/")
    text = required("../tiny.cuh", "[../tiny.cuh, ../tiny_ops.hpp]")
    config = load_config(write(workdir, text, name="cfg/config.yml"))
    assert config.entry_point == str(workdir / "tiny.cuh")
    assert config.file_list == (str(workdir / "tiny.cuh"), str(workdir / "tiny_ops.hpp"))


def test_absolute_entry_point_is_kept(workdir):
    absolute = str(DATA / "tiny.cuh")
    config = load(workdir, head=required(entry=absolute))
    assert config.entry_point == absolute


def test_entry_point_that_does_not_exist_is_reported(workdir):
    lines = problems(workdir, head=required(entry="nope.cuh"))
    assert reported(lines, "Entry Point", f"'nope.cuh' (resolved to {workdir / 'nope.cuh'})")
    assert "fix: correct the path" in lines[0]


def test_file_list_entry_that_does_not_exist_is_reported_with_its_index(workdir):
    lines = problems(workdir, head=required(files="[tiny.cuh, gone.hpp]"))
    assert lines == [
        f"File List[1]: file 'gone.hpp' (resolved to {workdir / 'gone.hpp'}) does not exist; "
        "fix: correct the path (a relative path is taken from the config file's directory)"
    ]


@pytest.mark.parametrize(
    ("value", "fragment"),
    [("tiny.cuh", "is not of type 'array'"), ("[]", "should be non-empty"), ("[3]", "3 is not")],
)
def test_malformed_file_list_is_reported(workdir, value, fragment):
    lines = problems(workdir, head=required(files=value))
    assert reported(lines, "File List", fragment) or reported(lines, "File List[0]", fragment)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("sm_90", ("sm_90",)),
        ("[sm_80]", ("sm_80",)),
        ("[sm_80, sm_90, sm_100a]", ("sm_80", "sm_90", "sm_100a")),
    ],
)
def test_gpu_arch_is_always_a_tuple(workdir, value, expected):
    assert load(workdir, head=required(arch=value)).gpu_arch == expected


@pytest.mark.parametrize(
    ("value", "path", "fragment"),
    [
        ("[sm80]", "GPU Arch[0]", "'sm80' does not match '^sm_[0-9]+[a-z]?$'"),
        ("[sm_90, compute_90]", "GPU Arch[1]", "'compute_90' does not match"),
        ("sm80", "GPU Arch", "'sm80' does not match '^sm_[0-9]+[a-z]?$'"),
        ("[]", "GPU Arch", "should be non-empty"),
        ("[sm_90, sm_90]", "GPU Arch", "non-unique"),
        ("90", "GPU Arch", "90 is not of type 'string', 'array'"),
    ],
)
def test_malformed_gpu_arch_is_reported_with_its_key_path(workdir, value, path, fragment):
    lines = problems(workdir, head=required(arch=value))
    assert reported(lines, path, fragment), lines


def test_gpu_arch_message_says_how_to_fix(workdir):
    (line,) = problems(workdir, head=required(arch="[sm80]"))
    assert line.startswith("GPU Arch[0]: 'sm80' does not match '^sm_[0-9]+[a-z]?$'")
    assert "fix: write the architecture as sm_<major><minor>, for example sm_90" in line


# --- optional keys, one by one -------------------------------------------------------------


def test_name_and_version(workdir):
    config = load(workdir, "Name: tiny bindings\nVersion: 1.5\n")
    assert (config.name, config.version) == ("tiny bindings", "1.5")
    assert load(workdir, "Version: '0.1.0'\n").version == "0.1.0"
    assert reported(problems(workdir, "Version: [1]\n"), "Version", "is not of type")
    assert reported(problems(workdir, "Name: {a: 1}\n"), "Name", "is not of type")


def test_types_and_data_models(workdir):
    config = load(workdir, "Types: {tiny_pair: Type}\nData Models: {tiny_pair: StructModel}\n")
    assert config.types == {"tiny_pair": "Type"}
    assert config.data_models == {"tiny_pair": "StructModel"}


@pytest.mark.parametrize("key", ["Types", "Data Models"])
def test_malformed_type_and_model_names_are_reported(workdir, key):
    lines = problems(workdir, f"{key}: {{tiny_pair: numba.types.Number, other: 3}}\n")
    assert reported(lines, f"{key}.tiny_pair", "does not match")
    assert reported(lines, f"{key}.other", "3 is not of type 'string'")
    assert reported(problems(workdir, f"{key}: [Number]\n"), key, "is not of type 'object'")


def test_exclude(workdir):
    config = load(workdir, "Exclude: {Function: [tiny_sum, helper], Struct: [tiny_pair]}\n")
    assert config.exclude_functions == ("tiny_sum", "helper")
    assert config.exclude_structs == ("tiny_pair",)
    assert load(workdir, "Exclude: {Function:}\n").exclude_functions == ()


def test_malformed_exclude_is_reported(workdir):
    lines = problems(workdir, "Exclude: {Function: tiny_sum, Structs: [x]}\n")
    assert reported(lines, "Exclude.Function", "'tiny_sum' is not of type 'array'")
    assert reported(lines, "Exclude.Structs", "unknown key; did you mean 'Struct'?")
    lines = problems(workdir, "Exclude: {Function: [tiny_sum, 7]}\n")
    assert reported(lines, "Exclude.Function[1]", "7 is not of type 'string'")


def test_clang_include_paths(workdir):
    (workdir / "include").mkdir()
    config = load(workdir, f"Clang Include Paths: [include, {DATA}]\n")
    assert config.clang_include_paths == (str(workdir / "include"), str(DATA))
    lines = problems(workdir, "Clang Include Paths: [include, missing_dir]\n")
    assert reported(lines, "Clang Include Paths[1]", "directory 'missing_dir'")


@pytest.mark.parametrize(
    ("entry", "statement"),
    [
        ("numpy", "import numpy"),
        ("numba.cuda", "import numba.cuda"),
        ("numpy as np", "import numpy as np"),
        ("from numba import types", "from numba import types"),
        (
            "from numba.cuda import types as cuda_types",
            "from numba.cuda import types as cuda_types",
        ),
        ("import os.path", "import os.path"),
    ],
)
def test_additional_import_becomes_a_full_statement(workdir, entry, statement):
    config = load(workdir, f"Additional Import: ['{entry}']\n")
    assert config.additional_imports == (statement,)


@pytest.mark.parametrize(
    ("entry", "fragment"),
    [
        ("1numpy", "does not match"),
        ("import os; import sys", "is not a single import statement"),
        ("from numba import", "is not a valid import statement"),
    ],
)
def test_malformed_additional_import_is_reported(workdir, entry, fragment):
    lines = problems(workdir, f"Additional Import: [os, '{entry}']\n")
    assert reported(lines, "Additional Import[1]", fragment), lines


def test_shim_include_override(workdir):
    expression = "os.path.join(os.path.dirname(__file__), 'tiny.cuh')"
    config = load(workdir, f'Shim Include Override: "{expression}"\nAdditional Import: [os]\n')
    assert config.shim_include_override == expression
    lines = problems(workdir, "Shim Include Override: 'tiny.cuh)'\n")
    assert reported(lines, "Shim Include Override", "is not a Python expression")


def test_predefined_macros(workdir):
    config = load(workdir, "Predefined Macros: [TINY_FAST=1, TINY_DEBUG, 'MAX(a,b)=a']\n")
    assert config.predefined_macros == ("TINY_FAST=1", "TINY_DEBUG", "MAX(a,b)=a")
    lines = problems(workdir, "Predefined Macros: [TINY, 1TINY=2]\n")
    assert reported(lines, "Predefined Macros[1]", "fix: write the macro as NAME or NAME=value")


def test_output_name(workdir):
    assert load(workdir, "Output Name: tiny_bindings.py\n").output_filename == "tiny_bindings.py"
    assert reported(problems(workdir, "Output Name: sub/tiny.py\n"), "Output Name", "directory")
    assert reported(problems(workdir, "Output Name: tiny.txt\n"), "Output Name", "ending in .py")


def test_cooperative_launch_required_functions_regex(workdir):
    config = load(workdir, "Cooperative Launch Required Functions Regex: ['^tiny_sync', grid]\n")
    assert config.cooperative_launch_required_functions_regex == ("^tiny_sync", "grid")
    lines = problems(workdir, "Cooperative Launch Required Functions Regex: [ok, '(']\n")
    key = "Cooperative Launch Required Functions Regex[1]"
    assert reported(lines, key, "is not a valid regular expression")


def test_api_prefix_removal_is_always_tuples(workdir):
    config = load(workdir, "API Prefix Removal: {Function: tiny_, Struct: [tiny_, t_], Enum: E_}\n")
    assert config.function_prefix_removal == ("tiny_",)
    assert config.struct_prefix_removal == ("tiny_", "t_")
    assert config.enum_prefix_removal == ("E_",)
    assert load(workdir).function_prefix_removal == ()


def test_malformed_api_prefix_removal_is_reported(workdir):
    lines = problems(workdir, "API Prefix Removal: {Functions: tiny_, Struct: 3, Enum: [E_, 4]}\n")
    assert reported(lines, "API Prefix Removal.Functions", "did you mean 'Function'?")
    assert reported(lines, "API Prefix Removal.Struct", "3 is not of type")
    assert reported(lines, "API Prefix Removal.Enum[1]", "4 is not of type 'string'")


def test_module_callbacks(workdir):
    config = load(workdir, "Module Callbacks: {setup: 'lambda mod: None', teardown: hooks.done}\n")
    assert config.module_setup_callback == "lambda mod: None"
    assert config.module_teardown_callback == "hooks.done"
    lines = problems(workdir, "Module Callbacks: {setup: 'def f(): pass', on_load: f}\n")
    assert reported(lines, "Module Callbacks.on_load", "unknown key")
    # Semantic checks wait for a schema-valid config, so fix the unknown key first.
    lines = problems(workdir, "Module Callbacks: {setup: 'def f(): pass'}\n")
    assert reported(lines, "Module Callbacks.setup", "is not a Python expression")


def test_skip_prefix(workdir):
    assert load(workdir, "Skip Prefix: __internal_\n").skip_prefix == "__internal_"
    assert reported(problems(workdir, "Skip Prefix: [a]\n"), "Skip Prefix", "is not of type")


def test_use_separate_registry(workdir):
    assert load(workdir).use_separate_registry is False
    assert load(workdir, "Use Separate Registry: true\n").use_separate_registry is True
    lines = problems(workdir, "Use Separate Registry: 'sometimes'\n")
    assert reported(lines, "Use Separate Registry", "is not of type 'boolean'")


def test_function_argument_intents_are_plain_strings_by_name_or_index(workdir):
    config = load(
        workdir,
        """\
        Function Argument Intents:
          tiny_divmod: {remainder: out_return, 0: in, "1": {intent: inout_ptr}}
          tiny_fill: {out: {intent: out_ptr}}
        """,
    )
    assert config.function_argument_intents == {
        "tiny_divmod": {"remainder": "out_return", 0: "in", 1: "inout_ptr"},
        "tiny_fill": {"out": "out_ptr"},
    }


@pytest.mark.parametrize(
    ("value", "path", "fragment"),
    [
        ("{f: {x: output}}", "Function Argument Intents.f.x", "'output' is not one of"),
        ("{f: {0: {intent: bad}}}", "Function Argument Intents.f.0.intent", "is not one of"),
        ("{f: {x: {intent: in, why: 1}}}", "Function Argument Intents.f.x.why", "unknown key"),
        ("{f: {x: {}}}", "Function Argument Intents.f.x.intent", "required key is missing"),
        ("{f: {x: 3}}", "Function Argument Intents.f.x", "3 is not of type 'string', 'object'"),
        ("{f: {-1: in}}", "Function Argument Intents.f", "key -1 is less than the minimum"),
        ("{f: {'a b': in}}", "Function Argument Intents.f", "key 'a b' does not match"),
        ("{f: {}}", "Function Argument Intents.f", "should be non-empty"),
        ("{f: in}", "Function Argument Intents.f", "is not of type 'object'"),
        ("[f]", "Function Argument Intents", "is not of type 'object'"),
    ],
)
def test_malformed_function_argument_intents_are_reported(workdir, value, path, fragment):
    lines = problems(workdir, f"Function Argument Intents: {value}\n")
    assert reported(lines, path, fragment), lines


def test_a_parameter_index_given_twice_is_reported(workdir):
    lines = problems(workdir, "Function Argument Intents: {f: {0: in, '0': out_ptr}}\n")
    assert reported(lines, "Function Argument Intents.f.0", "given twice")


OPTIONAL_KEYS = sorted(set(load_schema()["properties"]) - {"Entry Point", "File List", "GPU Arch"})


@pytest.mark.parametrize("key", OPTIONAL_KEYS)
def test_null_optional_key_means_the_default(workdir, key):
    assert load(workdir, f"{key}:\n") == load(workdir)


# --- the whole document --------------------------------------------------------------------


def test_unknown_top_level_key_is_rejected_with_a_suggestion(workdir):
    lines = problems(workdir, "GPU Archs: [sm_80]\nFrobnicate: 1\n")
    assert reported(lines, "GPU Archs", "unknown key; did you mean 'GPU Arch'?")
    assert reported(lines, "Frobnicate", "unknown key; fix: remove the key or correct its spelling")


def test_every_violation_is_reported_at_once(workdir):
    text = "Entry Point: tiny.cuh\nGPU Arch: [sm80, sm_9x0]\n"
    extra = "Exclude: {Function: 1}\nOutput Name: a/b.py\nUse Separate Registry: 2\nTypo: 1\n"
    with pytest.raises(ConfigError) as info:
        load(workdir, extra, text)
    paths = [line.split(": ", 1)[0] for line in info.value.problems]
    assert paths == [
        "Exclude.Function",
        "File List",
        "GPU Arch[0]",
        "GPU Arch[1]",
        "Output Name",
        "Typo",
        "Use Separate Registry",
    ]
    message = str(info.value)
    assert message.startswith(f"static binding config {workdir / 'config.yml'} has 7 problems:")
    assert all(f"\n  {line}" in message for line in info.value.problems)
    assert "docs/static_config.md" in message.splitlines()[-1]


def test_schema_is_checked_before_anything_else(workdir):
    # The entry point does not exist either, but a schema violation stops the work first.
    text = required("missing.cuh", "[missing.cuh]", "sm80")
    lines = problems(workdir, head=text)
    assert len(lines) == 1 and lines[0].startswith("GPU Arch: ")


def test_python_object_tags_are_refused(workdir):
    marker = workdir / "created_by_yaml"
    path = write(workdir, REQUIRED + f"Name: !!python/object/apply:os.mkdir ['{marker}']\n")
    with pytest.raises(ConfigFileError) as info:
        load_config(path)
    assert not marker.exists()
    message = str(info.value)
    assert str(path) in message and "line 4" in message
    assert "yaml.safe_load" in message and "python/object/apply:os.mkdir" in message


def test_a_key_written_twice_is_refused(workdir):
    path = write(workdir, REQUIRED + "GPU Arch: sm_80\n")
    with pytest.raises(ConfigFileError, match="found the key 'GPU Arch' a second time"):
        load_config(path)


def test_numbast_join_tag_builds_a_string(workdir):
    path = write(workdir, required(entry="!numbast_join [tiny, .cuh]"))
    assert load_config(path).entry_point == str(workdir / "tiny.cuh")


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("", "the config is empty"),
        ("GPU Arch: [sm_90\n", "not valid YAML: line 2"),
        ("- a\n- b\n", "(top level): ['a', 'b'] is not of type 'object'"),
    ],
)
def test_documents_that_are_not_a_config(workdir, text, fragment):
    with pytest.raises(ConfigError) as info:
        load_config(write(workdir, text))
    assert fragment in str(info.value)


def test_missing_config_file(tmp_path):
    with pytest.raises(ConfigFileError, match="does not exist; fix: pass the path"):
        load_config(tmp_path / "absent.yml")


# --- the schema and its documentation ------------------------------------------------------


def test_schema_is_valid_2020_12_and_describes_every_key():
    from jsonschema import Draft202012Validator

    schema = load_schema()
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["additionalProperties"] is False
    assert set(schema["required"]) == {"Entry Point", "File List", "GPU Arch"}
    undescribed = [key for key, sub in schema["properties"].items() if not sub.get("description")]
    assert not undescribed


def test_docs_cover_every_schema_key():
    docs = (ROOT / "docs" / "static_config.md").read_text()
    headings = {
        line[4:].strip().strip("`") for line in docs.splitlines() if line.startswith("### ")
    }
    assert headings == set(load_schema()["properties"])


# --- the command line ----------------------------------------------------------------------


def run_cli(capsys, config: Path, output_dir: Path) -> tuple[int, str, str]:
    code = cli.run_static_generator(str(config), str(output_dir))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_cli_reports_a_missing_config_file(tmp_path, capsys):
    code, _, err = run_cli(capsys, tmp_path / "absent.yml", tmp_path / "out")
    assert code != 0
    assert err.startswith("numbast: error: static binding config") and "does not exist" in err
    assert not (tmp_path / "out").exists()


def test_cli_reports_invalid_yaml(workdir, capsys):
    code, _, err = run_cli(capsys, write(workdir, "Entry Point: [tiny.cuh\n"), workdir / "out")
    assert code != 0 and "not valid YAML" in err and "config.yml" in err


def test_cli_reports_a_schema_violation(workdir, capsys):
    config = write(workdir, required(arch="[sm80]"))
    code, _, err = run_cli(capsys, config, workdir / "out")
    assert code != 0 and "GPU Arch[0]: 'sm80' does not match '^sm_[0-9]+[a-z]?$'" in err


def test_cli_says_when_rendering_is_not_available(workdir, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "numbast.static.renderer", None)  # import fails
    code, _, err = run_cli(capsys, write(workdir, REQUIRED), workdir / "out")
    assert code != 0 and "rendering bindings is not available" in err
    assert "\n\n" not in err.strip()


def fake_renderer(monkeypatch, render) -> None:
    from numbast.static.renderer import RenderedModule

    module = types.ModuleType("numbast.static.renderer")
    module.render_bindings_module = render
    module.render_bindings = lambda config, **_options: RenderedModule(render(config), ())
    monkeypatch.setitem(sys.modules, "numbast.static.renderer", module)


def test_cli_writes_the_rendered_module_into_a_new_directory(workdir, capsys, monkeypatch):
    seen: list[StaticConfig] = []

    def render(config: StaticConfig) -> str:
        seen.append(config)
        return "x=[1,2]\n"

    fake_renderer(monkeypatch, render)
    out = workdir / "out" / "nested"
    code, stdout, _ = run_cli(capsys, write(workdir, REQUIRED), out)
    assert code == 0 and seen[0].gpu_arch == ("sm_90",)
    written = out / "tiny.py"
    assert f"wrote {written}" in stdout
    expected = "x = [1, 2]\n" if cli.find_ruff() else "x=[1,2]\n"
    assert written.read_text() == expected
    assert [p.name for p in out.iterdir()] == ["tiny.py"]  # no temporary file left behind


def test_cli_uses_output_name(workdir, capsys, monkeypatch):
    fake_renderer(monkeypatch, lambda config: "pass\n")
    config = write(workdir, REQUIRED + "Output Name: tiny_bindings.py\n")
    assert run_cli(capsys, config, workdir)[0] == 0
    assert (workdir / "tiny_bindings.py").read_text() == "pass\n"


def test_cli_keeps_the_module_when_formatting_fails(workdir, capsys, monkeypatch, caplog):
    fake_renderer(monkeypatch, lambda config: "def broken(:\n")
    monkeypatch.setattr(cli, "find_ruff", lambda: sys.executable)  # `python format` fails
    code, _, _ = run_cli(capsys, write(workdir, REQUIRED), workdir / "out")
    assert code == 0 and (workdir / "out" / "tiny.py").read_text() == "def broken(:\n"
    assert "left unformatted" in caplog.text


def test_cli_reports_a_renderer_failure_in_one_paragraph(workdir, capsys, monkeypatch):
    def render(config: StaticConfig) -> str:
        raise RuntimeError("tiny_pair has no usable constructor")

    fake_renderer(monkeypatch, render)
    monkeypatch.delenv("NUMBAST_DEBUG", raising=False)
    code, _, err = run_cli(capsys, write(workdir, REQUIRED), workdir / "out")
    assert code != 0 and "tiny_pair has no usable constructor" in err
    assert str(workdir / "tiny.cuh") in err and "Traceback" not in err
    assert not (workdir / "out" / "tiny.py").exists()


def test_cli_reports_an_unwritable_output_dir(workdir, capsys, monkeypatch):
    fake_renderer(monkeypatch, lambda config: "pass\n")
    blocker = workdir / "a_file"
    blocker.write_text("")
    code, _, err = run_cli(capsys, write(workdir, REQUIRED), blocker / "out")
    assert code != 0 and "choose a writable --output-dir" in err


def test_python_m_numbast_reports_errors_without_a_traceback(tmp_path):
    config, out = tmp_path / "absent.yml", tmp_path / "out"
    command = [sys.executable, "-m", "numbast", "--cfg-path", str(config), "--output-dir", str(out)]
    result = subprocess.run(command, capture_output=True, text=True)
    assert result.returncode != 0
    assert "does not exist" in result.stderr and "Traceback" not in result.stderr


def test_python_m_numbast_help_still_works():
    result = subprocess.run(
        [sys.executable, "-m", "numbast", "--help"], capture_output=True, text=True
    )
    assert result.returncode == 0 and "--cfg-path" in result.stdout


def test_importing_the_config_module_loads_neither_jsonschema_nor_numba():
    code = (
        "import sys, numbast.static.config, numbast.static.cli\n"
        "print(','.join(m for m in ('jsonschema', 'numba', 'clang') if m in sys.modules))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0 and result.stdout.strip() == "", result.stdout + result.stderr
