"""[tool.numbast-import] in the user's pyproject.toml: which file (NUMBAST_IMPORT_CONFIG, the
walk up to the first file with the table), the short and table forms, register(), errors that
name the file, the user's kebab-case key and the fix (found when the table is read; one bad
mapping leaves the others importable), and the arch and cache-root rules. In-process and
quick: nothing here parses a header."""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import os
import textwrap
import threading
from pathlib import Path

import pytest
from import_support import make_project

from numbast_import import arch as arch_module
from numbast_import.arch import ArchUnknownError, resolve_arch
from numbast_import.cache.root import CacheSafetyError, cache_layers, cache_root, check_safe
from numbast_import.cache.store import CacheStore
from numbast_import.config import ImportConfigError, find_pyproject, load_project_config
from numbast_import.errors import HeaderImportError
from numbast_import.loader import FailedHeaderLoader
from numbast_import.registry import register, registered, unregister

HEAD = '[tool.numbast-import]\narch = "sm_90"\n[tool.numbast-import.headers]\n'


@pytest.fixture(autouse=True)
def no_outside_settings(monkeypatch, tmp_path):
    for variable in ("NUMBAST_IMPORT_CONFIG", "NUMBAST_IMPORT_ARCH", "NUMBAST_CACHE_PATH"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("NUMBAST_CACHE_DIR", str(tmp_path / "cache"))


def write_pyproject(project: Path, body: str) -> Path:
    path = project / "pyproject.toml"
    path.write_text(textwrap.dedent(body))
    return path


def import_error(name: str) -> HeaderImportError:
    with pytest.raises(HeaderImportError) as caught:
        importlib.import_module(name)
    return caught.value


def test_the_pyproject_is_found_from_a_subdirectory(tmp_path, monkeypatch):
    project = make_project(tmp_path)
    monkeypatch.chdir(project / "include")
    assert find_pyproject() == project / "pyproject.toml"
    config = load_project_config()
    assert config.arch == "sm_90" and set(config.headers) == {"vec"}
    mapping = config.headers["vec"]
    assert mapping.header == str(project / "include" / "vec.cuh")
    assert "[tool.numbast-import.headers] vec" in mapping.source


def test_a_nested_pyproject_without_the_table_is_skipped(tmp_path, monkeypatch):
    project = make_project(tmp_path)
    nested = project / "sub"
    nested.mkdir()
    write_pyproject(nested, '[project]\nname = "sub"\n[tool.ruff]\nline-length = 90\n')
    monkeypatch.chdir(nested)
    assert find_pyproject() == project / "pyproject.toml"
    assert set(load_project_config().headers) == {"vec"}
    spec = importlib.util.find_spec("cuda_headers.vec")
    assert spec.origin == str(project / "include" / "vec.cuh")


def test_numbast_import_config_names_the_pyproject(tmp_path, monkeypatch):
    project = make_project(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    assert load_project_config().pyproject is None
    monkeypatch.setenv("NUMBAST_IMPORT_CONFIG", str(project / "pyproject.toml"))
    assert set(load_project_config().headers) == {"vec"}
    spec = importlib.util.find_spec("cuda_headers.vec")
    assert spec.origin == str(project / "include" / "vec.cuh")
    monkeypatch.setenv("NUMBAST_IMPORT_CONFIG", str(project))  # its directory works too
    assert set(load_project_config().headers) == {"vec"}

    monkeypatch.setenv("NUMBAST_IMPORT_CONFIG", str(tmp_path / "nope.toml"))
    error = import_error("cuda_headers.vec")
    assert isinstance(error, ImportConfigError)
    assert "NUMBAST_IMPORT_CONFIG=" in str(error) and "nope.toml" in str(error)


def test_the_table_form_maps_onto_the_static_config(tmp_path):
    project = make_project(tmp_path)
    path = write_pyproject(
        project,
        """
        [tool.numbast-import]
        arch = "sm_90"
        include-dirs = ["include"]
        cache-dir = ".cache"

        [tool.numbast-import.headers.geometry]
        header = "include/vec.cuh"
        retain = ["include/scale.h"]
        defines = ["FAST=1"]
        exclude-functions = ["dot"]
        exclude-structs = ["Hidden"]
        types = { Vec2 = "Number" }
        data-models = { Vec2 = "StructModel" }
        function-prefix-removal = ["geom_"]
        use-separate-registry = true
        bypass-parse-error = true
        """,
    )
    project_config = load_project_config(path)
    assert project_config.broken == {}
    assert project_config.cache_dir == str(project / ".cache")
    config = project_config.headers["geometry"].static_config("sm_90")
    include = project / "include"
    assert config.entry_point == str(include / "vec.cuh")
    assert config.file_list == (str(include / "vec.cuh"), str(include / "scale.h"))
    assert config.gpu_arch == ("sm_90",)
    assert config.predefined_macros == ("FAST=1",)
    assert config.exclude_functions == ("dot",) and config.exclude_structs == ("Hidden",)
    assert config.clang_include_paths == (str(include),)
    assert config.types == {"Vec2": "Number"} and config.data_models == {"Vec2": "StructModel"}
    assert config.function_prefix_removal == ("geom_",) and config.use_separate_registry
    assert config.bypass_parse_error is True


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ('[tool.numbast-import]\narchh = "sm_90"\n', "unknown key 'archh'"),
        ('[tool.numbast-import]\narch = "90"\n', 'arch = "sm_90"'),
        ('[tool.numbast-import]\ninclude-dirs = "include"\n', 'include-dirs = ["include"]'),
        ('[tool.numbast-import]\ninclude-dirs = ["nowhere"]\n', "'nowhere' does not exist"),
    ],
)
def test_bad_project_settings_name_the_file_the_key_and_the_fix(tmp_path, body, expected):
    path = write_pyproject(make_project(tmp_path), body)
    with pytest.raises(ImportConfigError) as caught:
        load_project_config(path)
    message = str(caught.value)
    assert str(path) in message and expected in message
    assert message.count("\n") == 0, "one problem, one line (not one per character)"


@pytest.mark.parametrize(
    ("entry", "expected"),
    [
        ('bad = { header = "include/vec.cuh", exclude = [] }', "unknown key 'exclude'"),
        (
            'bad = { header = "include/vec.cuh", exclude_functions = [] }',
            "did you mean 'exclude-functions'",
        ),
        ('bad = { retain = ["include/scale.h"] }', 'give the header to bind, header = "'),
        ('bad = { header = "include/vec.cuh", defines = "FAST" }', 'defines = ["FAST=1"'),
        ('bad = { header = "include/vec.cuh", defines = ["1X"] }', "defines[0] = '1X' is not"),
        ('bad = { header = "include/vec.cuh", retain = ["gone.h"] }', "retain[0]: file 'gone.h'"),
        ('bad = { header = "include/vec.cuh", sha256 = "abc" }', "sha256 = 'abc'"),
        ('bad = { header = "include/vec.cuh", types = { V = 3 } }', "types.V = 3"),
        ('bad = { header = "include/vec.cuh", bypass-parse-error = "yes" }', "= true"),
        ('bad = { header = "missing.cuh" }', "header: file 'missing.cuh' does not exist"),
        (
            'bad = { header = "include/vec.cuh", cooperative-launch-required-functions-regex '
            '= ["("] }',
            "is not a regular expression",
        ),
        (
            'bad = { header = "include/vec.cuh", function-argument-intents = '
            '{ f = { x = "sideways" } } }',
            "function-argument-intents.f.x = 'sideways' is not an intent",
        ),
    ],
)
def test_a_bad_mapping_fails_its_own_import_only(tmp_path, monkeypatch, entry, expected):
    project = make_project(tmp_path)
    path = write_pyproject(project, HEAD + 'vec = "include/vec.cuh"\n' + entry + "\n")
    config = load_project_config(path)  # reading the table raises nothing...
    assert set(config.headers) == {"vec"}
    message = config.broken["bad"]  # ...but knows the problem already
    assert str(path) in message and "bad" in message and expected in message
    assert "Predefined Macros" not in message and "File List" not in message

    monkeypatch.chdir(project)
    spec = importlib.util.find_spec("cuda_headers.bad")
    assert isinstance(spec.loader, FailedHeaderLoader)
    error = import_error("cuda_headers.bad")
    assert isinstance(error, ImportConfigError) and expected in str(error)
    assert importlib.util.find_spec("cuda_headers.vec").origin.endswith("vec.cuh")


def test_every_problem_of_a_mapping_is_listed_at_once(tmp_path):
    path = write_pyproject(
        make_project(tmp_path),
        HEAD + 'bad = { header = "include/vec.cuh", defines = "X", include-dirs = "inc" }\n',
    )
    message = load_project_config(path).broken["bad"]
    assert "has 2 problems" in message
    assert 'defines = ["FAST=1"' in message and 'include-dirs = ["include"]' in message


def test_static_config_problems_are_reported_in_kebab_case():
    from numbast_import.mapping import kebab_problems

    translated = kebab_problems(
        [
            "Predefined Macros[0]: does not match",
            "Exclude.Function[1]: not a string",
            "Entry Point: file 'x' does not exist",
            "File List[2]: gone",
        ]
    )
    assert translated == [
        "defines[0]: does not match",
        "exclude-functions[1]: not a string",
        "header: file 'x' does not exist",
        "retain[2]: gone",
    ]


def test_register_maps_a_header_in_code(tmp_path, monkeypatch):
    project = make_project(tmp_path)
    monkeypatch.chdir(project / "include")
    try:
        register("mine", "vec.cuh", retain=["scale.h"], exclude_functions=["dot"])
        mapping = registered("mine")
        assert mapping.header == str(project / "include" / "vec.cuh")
        assert mapping.options["Exclude"] == {"Function": ["dot"]}
        assert mapping.options["File List"] == ["vec.cuh", "scale.h"]
        assert "numbast_import.register('mine', ...) at" in mapping.source
        assert __file__ in mapping.source
        spec = importlib.util.find_spec("cuda_headers.mine")
        assert spec.origin == str(project / "include" / "vec.cuh")
        config = mapping.static_config("sm_90")
        assert config.exclude_functions == ("dot",)
    finally:
        unregister("mine")
    with pytest.raises(ImportConfigError, match=r"register\('oops', \.\.\.\).*defines = \["):
        register("oops", "vec.cuh", defines="FAST")
    with pytest.raises(ImportConfigError, match="header: file 'nope.cuh' does not exist"):
        register("oops", "nope.cuh")
    assert registered("oops") is None


def test_a_sha256_pin_must_match_the_header(tmp_path, monkeypatch):
    project = make_project(tmp_path)
    header = project / "include" / "vec.cuh"
    good = hashlib.sha256(header.read_bytes()).hexdigest()
    write_pyproject(project, HEAD + f'vec = {{ header = "include/vec.cuh", sha256 = "{good}" }}\n')
    load_project_config(project / "pyproject.toml").headers["vec"].check_pin()

    bad = "0" * 64
    write_pyproject(project, HEAD + f'vec = {{ header = "include/vec.cuh", sha256 = "{bad}" }}\n')
    monkeypatch.chdir(project)
    error = import_error("cuda_headers.vec")
    assert isinstance(error, ImportConfigError)
    assert str(header) in str(error) and good in str(error) and "sha256 pin" in str(error)


def test_a_header_removed_after_the_table_was_read_is_an_error_naming_the_mapping(
    tmp_path, monkeypatch
):
    from numbast_import.loader import load_into

    project = make_project(tmp_path)
    mapping = load_project_config(project / "pyproject.toml").headers["vec"]
    (project / "include" / "vec.cuh").unlink()
    with pytest.raises(ImportConfigError, match=r"vec.cuh does not exist; fix the path in .*vec"):
        load_into(type(os)("cuda_headers.vec"), mapping)


def test_an_unmapped_module_lists_the_mapped_names(tmp_path, monkeypatch):
    project = make_project(tmp_path)
    monkeypatch.chdir(project)
    error = import_error("cuda_headers.nope")
    assert isinstance(error, ModuleNotFoundError)
    message = str(error)
    assert "cuda_headers.nope" in message and "maps vec" in message
    assert str(project / "pyproject.toml") in message and "numbast_import.register" in message
    with pytest.raises(
        ModuleNotFoundError, match="cubf16, cucomplex, cufp16, cufp4, cufp6, cufp8, curand"
    ):
        importlib.import_module("numbast.headers.nope")
    with pytest.raises(ModuleNotFoundError, match="maps vec"):  # not replaced by importlib's
        exec("from cuda_headers import nope", {})


def test_find_spec_does_no_work(tmp_path, monkeypatch):
    project = make_project(tmp_path)
    monkeypatch.chdir(project)
    spec = importlib.util.find_spec("cuda_headers.vec")
    assert spec is not None and spec.origin == str(project / "include" / "vec.cuh")
    assert not (tmp_path / "cache").exists()


def test_the_current_gpu_wins_over_the_pin(monkeypatch):
    monkeypatch.setattr(arch_module, "current_gpu_arch", lambda memo_dir=None: ("sm_80", ""))
    assert resolve_arch("sm_90", "cuda_headers.x", "pyproject.toml") == "sm_80"
    assert resolve_arch(None, "cuda_headers.x", "pyproject.toml") == "sm_80"
    monkeypatch.setenv("NUMBAST_IMPORT_ARCH", "sm_100")
    assert resolve_arch("sm_90", "cuda_headers.x", "pyproject.toml") == "sm_100"


def test_without_a_gpu_the_pin_applies_and_without_one_the_error_says_how_to_pin(monkeypatch):
    monkeypatch.setattr(arch_module, "current_gpu_arch", lambda memo_dir=None: (None, "no driver"))
    assert resolve_arch("sm_90", "cuda_headers.x", "pyproject.toml") == "sm_90"
    with pytest.raises(ArchUnknownError) as caught:
        resolve_arch(None, "cuda_headers.x", "/p/pyproject.toml [tool.numbast-import.headers] x")
    message = str(caught.value)
    assert 'arch = "sm_90"' in message and "NUMBAST_IMPORT_ARCH=sm_90" in message
    assert "no driver" in message and isinstance(caught.value, ImportError)


def test_the_arch_environment_variable_must_be_an_arch(monkeypatch):
    monkeypatch.setenv("NUMBAST_IMPORT_ARCH", "90")
    with pytest.raises(ArchUnknownError, match="NUMBAST_IMPORT_ARCH='90' is not an arch"):
        resolve_arch("sm_80", "cuda_headers.x", "pyproject.toml")


def test_the_device_query_answers_without_a_device():
    arch, why_not = arch_module.current_gpu_arch()
    from conftest import cuda_device_available

    if cuda_device_available():
        assert arch is not None and arch.startswith("sm_") and why_not == ""
    else:
        assert arch is None and why_not


def test_the_device_query_runs_once_in_the_background_when_an_import_starts(monkeypatch):
    import threading
    import time

    asked = []

    def slow_query():
        asked.append(threading.current_thread().name)
        time.sleep(0.2)  # as long as cuInit: the importing thread goes on meanwhile
        return (8, 9, True)

    monkeypatch.delenv("NUMBAST_IMPORT_ARCH", raising=False)
    monkeypatch.setattr(arch_module, "_device_arch", None)
    monkeypatch.setattr(arch_module, "_device_capability", slow_query)
    # No context current here (on a GPU machine an earlier test of this process may have made
    # one: then the question is asked in this thread, next test).
    monkeypatch.setattr(arch_module, "_context_current", lambda: False)
    started = time.perf_counter()
    arch_module.start_device_query()
    arch_module.start_device_query()  # asked once per process
    assert time.perf_counter() - started < 0.1  # not waited for
    assert arch_module.current_gpu_arch() == ("sm_89", "")
    assert arch_module.current_gpu_arch() == ("sm_89", "")
    assert asked == ["numbast-import-arch"]


def test_a_current_context_is_asked_in_its_own_thread(monkeypatch):
    import threading

    asked = []

    def query():
        asked.append(threading.current_thread().name)
        return (8, 6, False)

    monkeypatch.delenv("NUMBAST_IMPORT_ARCH", raising=False)
    monkeypatch.setattr(arch_module, "_device_arch", None)
    monkeypatch.setattr(arch_module, "_device_capability", query)
    monkeypatch.setattr(arch_module, "_context_current", lambda: True)
    arch_module.start_device_query()
    assert asked == [threading.current_thread().name]  # the background thread has no context
    assert arch_module.current_gpu_arch() == ("sm_86", "")


def test_a_failed_background_query_raises_where_the_arch_is_read(monkeypatch):
    def broken_query():
        raise ValueError("driver answered nonsense")

    monkeypatch.delenv("NUMBAST_IMPORT_ARCH", raising=False)
    monkeypatch.setattr(arch_module, "_device_arch", None)
    monkeypatch.setattr(arch_module, "_device_capability", broken_query)
    arch_module.start_device_query()
    with pytest.raises(ValueError, match="nonsense"):
        arch_module.current_gpu_arch()


def test_no_device_query_when_the_arch_is_set(monkeypatch):
    def unexpected():
        raise AssertionError("the driver was asked although NUMBAST_IMPORT_ARCH is set")

    monkeypatch.setenv("NUMBAST_IMPORT_ARCH", "sm_90")
    monkeypatch.setattr(arch_module, "_device_arch", None)
    monkeypatch.setattr(arch_module, "_device_capability", unexpected)
    arch_module.start_device_query()
    assert arch_module._device_arch is None
    assert resolve_arch(None, "cuda_headers.x", "pyproject.toml") == "sm_90"


def test_cache_root_order_and_layers(tmp_path, monkeypatch):
    monkeypatch.setenv("NUMBAST_CACHE_DIR", str(tmp_path / "env"))
    assert cache_root(str(tmp_path / "configured")) == tmp_path / "env"
    monkeypatch.delenv("NUMBAST_CACHE_DIR")
    assert cache_root(str(tmp_path / "configured")) == tmp_path / "configured"
    assert cache_root(None).name == "numbast-import"
    with pytest.raises(CacheSafetyError, match="site-packages"):
        cache_root(str(tmp_path / "lib" / "site-packages" / "c"))
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    layers = os.pathsep.join(str(tmp_path / n) for n in ("a", "missing", "b", "a", "w"))
    monkeypatch.setenv("NUMBAST_CACHE_PATH", layers)
    assert cache_layers(tmp_path / "w") == [tmp_path / "a", tmp_path / "b"]


def test_the_parser_cache_is_inside_the_cache_root(monkeypatch, tmp_path):
    import platformdirs

    from ast_canopy import cache as parser_cache

    monkeypatch.setattr(parser_cache, "_chosen", None)
    monkeypatch.delenv("AST_CANOPY_CACHE_DIR", raising=False)
    monkeypatch.delenv("NUMBAST_CACHE_DIR")
    expected = Path(platformdirs.user_cache_dir("numbast-import"))
    assert parser_cache.user_cache_root() == expected == cache_root(None)
    monkeypatch.setenv("NUMBAST_CACHE_DIR", str(tmp_path / "root"))
    assert parser_cache.persistent_cache_dir() == tmp_path / "root" / "parser"
    parser_cache.use_directory(tmp_path / "chosen")
    assert parser_cache.persistent_cache_dir() == tmp_path / "chosen"
    assert parser_cache.is_parser_file(tmp_path / "chosen" / "stub-include" / "x.h")
    assert not parser_cache.is_parser_file(tmp_path / "root" / "x.h")
    parser_cache.use_directory(None)
    assert parser_cache.persistent_cache_dir() is None


def test_inputs_among_resolves_as_realpath_and_leaves_out_parser_files(monkeypatch, tmp_path):
    # A parse's files resolved a directory at a time must resolve as realpath does: through a
    # symlinked directory, a symlinked file (into the parser's directory: left out), "..".
    from ast_canopy import cache as parser_cache

    monkeypatch.setattr(parser_cache, "_chosen", None)
    parser_cache.use_directory(tmp_path / "parser")
    (tmp_path / "parser").mkdir(mode=0o700)
    (tmp_path / "parser" / "stub.h").write_text("")
    real = tmp_path / "real"
    (real / "sub").mkdir(parents=True)
    for name in ("a.h", "sub/b.h"):
        (real / name).write_text("")
    (tmp_path / "linked").symlink_to(real, target_is_directory=True)
    (real / "to_stub.h").symlink_to(tmp_path / "parser" / "stub.h")
    (real / "to_a.h").symlink_to(real / "a.h")
    monkeypatch.chdir(real)
    paths = [
        str(tmp_path / "linked" / "a.h"),
        str(tmp_path / "linked" / "sub" / ".." / "sub" / "b.h"),
        str(tmp_path / "linked" / "to_a.h"),
        str(tmp_path / "linked" / "to_stub.h"),
        str(tmp_path / "parser" / "stub.h"),
        "sub/b.h",
        str(tmp_path / "linked" / "missing.h"),
    ]
    inputs = parser_cache.inputs_among(paths)
    expected = [p for p in paths if "stub" not in p]
    assert list(inputs) == expected
    assert inputs == {p: os.path.realpath(p) for p in expected}
    assert parser_cache.is_parser_file(paths[3]) and not parser_cache.is_parser_file(paths[2])
    parser_cache.use_directory(None)


def test_unsafe_cache_directories_are_refused(tmp_path, monkeypatch):
    root = tmp_path / "cache"
    root.mkdir(mode=0o700)
    CacheStore(root)
    root.chmod(0o777)
    with pytest.raises(CacheSafetyError, match="writable by others.*chmod go-w"):
        CacheStore(root)
    root.chmod(0o700)
    real_uid = os.stat(root).st_uid
    monkeypatch.setattr(os, "getuid", lambda: real_uid + 1)
    with pytest.raises(CacheSafetyError, match="belongs to uid"):
        check_safe(root)
    if real_uid == 0:  # a layer owned by root (an image's /opt/...) is fine
        check_safe(root, shared=True)


def test_a_builder_waiting_for_the_lock_names_its_holder(tmp_path, monkeypatch):
    from numbast_import.cache.lock import EntryLock
    from numbast_import.errors import CacheLockTimeout

    path = tmp_path / ("ab" * 32 + ".lock")
    with EntryLock(path, "cuda_headers.vec (abcdef)"):
        # Another thread with its own lock object contends as another process would.
        monkeypatch.setenv("NUMBAST_IMPORT_LOCK_TIMEOUT", "0.3")
        errors = []

        def wait() -> None:
            try:
                with EntryLock(path):
                    pass
            except CacheLockTimeout as exc:
                errors.append(str(exc))

        waiter = threading.Thread(target=wait)
        waiter.start()
        waiter.join()
    assert errors, "the second builder should have timed out"
    assert f"pid {os.getpid()}" in errors[0] and "cuda_headers.vec (abcdef)" in errors[0]
    assert str(path) in errors[0] and "NUMBAST_IMPORT_LOCK_TIMEOUT" in errors[0]
    assert not path.exists()  # the holder deletes its lock file: none accumulate
    again = EntryLock(path, timeout=0)
    assert again.try_acquire()  # released when the holder left its with block
    assert again.try_acquire()  # re-entrant in the thread that holds it
    again.release()
    assert path.exists()
    again.release()
    assert list(tmp_path.iterdir()) == []
