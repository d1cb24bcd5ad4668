"""``numbast-cache``: inspect and manage the on-disk cache of generated header bindings.

The library logs; this is the one place that prints. Exit status 1 means a problem was found
(``verify``) or a request could not be served (an unknown module or digest).
"""

from __future__ import annotations

import argparse
import logging
import sys
import time
from pathlib import Path

from numbast_import.cache.root import CacheSafetyError, cache_root
from numbast_import.config import ImportConfigError, ProjectConfig, load_project_config


def build_argument_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="numbast-cache",
        description=(
            "Inspect and manage the numbast-import cache of generated bindings and compiled "
            "shims (keyed on header contents, options, arch and toolkit version)."
        ),
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.add_parser("path", help="print the cache root")
    commands.add_parser("list", help="list entries: module, header, arch, size, age")
    show = commands.add_parser(
        "show", help="every key component of an entry, and why the current state would miss"
    )
    show.add_argument("target", help="a module (my_lib, cuda_headers.my_lib) or a digest prefix")
    clear = commands.add_parser("clear", help="remove the entries of a module, or all of them")
    which = clear.add_mutually_exclusive_group(required=True)
    which.add_argument("--all", action="store_true", help="remove every entry")
    which.add_argument("module", nargs="?", help="remove this module's entries")
    commands.add_parser("verify", help="check every entry's integrity (exit 1 on problems)")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_argument_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 0
    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    try:
        project = load_project_config()
        root = cache_root(project.cache_dir)
        if args.command == "path":
            print(root)
            return 0
        from numbast_import.cache.store import CacheStore

        store = CacheStore(root)
        return COMMANDS[args.command](store, project, args)
    except (ImportConfigError, CacheSafetyError) as exc:
        print(f"numbast-cache: {exc}", file=sys.stderr)
        return 1


def _summary(path: Path) -> tuple[str, str, str]:
    from numbast_import.cache.store import read_manifest

    manifest = read_manifest(path)
    if manifest is None or not isinstance(manifest.get("key"), dict):
        return "?", "(partial or damaged entry)", "?"
    key = manifest["key"]
    return key.get("module", "?"), key.get("header", "?"), key.get("arch", "?")


def _size(path: Path) -> int:
    return sum(f.stat().st_size for f in path.iterdir() if f.is_file())


def _age(path: Path) -> str:
    seconds = max(time.time() - path.stat().st_mtime, 0)
    for unit, length in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= length:
            return f"{seconds / length:.0f}{unit}"
    return f"{seconds:.0f}s"


def cmd_list(store, project: ProjectConfig, args) -> int:
    rows = []
    for path in store.entries():
        module, header, arch = _summary(path)
        rows.append((module, header, arch, f"{_size(path) / 1024:.0f} KiB", _age(path), path.name))
    if not rows:
        print(f"(no entries in {store.root})")
        return 0
    print("module\theader\tarch\tsize\tage\tdigest")
    for row in rows:
        print("\t".join(row))
    return 0


def _qualified(name: str) -> tuple[str, str]:
    """(package, short name) of a module named with or without its package."""
    for package in ("numbast.headers", "cuda_headers"):
        if name.startswith(package + "."):
            return package, name[len(package) + 1 :]
    return "cuda_headers", name


def _entries_of(store, target: str) -> list[Path]:
    package, short = _qualified(target)
    wanted = f"{package}.{short}"
    matches = [p for p in store.entries() if _summary(p)[0] == wanted]
    if not matches and len(target) >= 6 and all(c in "0123456789abcdef" for c in target):
        matches = [p for p in store.entries() if p.name.startswith(target)]
    return matches


def cmd_show(store, project: ProjectConfig, args) -> int:
    import json

    from numbast_import.cache.key import component_differences, included_file_differences
    from numbast_import.cache.store import entry_problems, read_manifest

    entries = _entries_of(store, args.target)
    current = _current_key(project, args.target)
    for path in entries:
        manifest = read_manifest(path) or {}
        print(f"entry {path}")
        key = manifest.get("key", {})
        for name in sorted(key):
            print(f"  {name}: {json.dumps(key[name], sort_keys=True)}")
        included = manifest.get("included_files", {})
        print(f"  included files: {len(included)}")
        for file, digest in included.items():
            print(f"    {file} {digest[:16]}")
        for note in ("shims_left_out",):
            if manifest.get(note):
                print(f"  {note}: {', '.join(manifest[note])}")
        problems = entry_problems(path)
        for problem in problems:
            print(f"  damaged: {problem}")
        if current is not None and not problems:
            components, digest = current
            reasons = component_differences(key, components)
            reasons += included_file_differences(included)
            if not reasons:
                print("  the current state would hit this entry")
            else:
                print("  the current state would miss this entry:")
                for reason in reasons:
                    print(f"    {reason}")
    if current is not None and not any(p.name == current[1] for p in entries):
        print(f"{args.target}: no entry for the current state (digest {current[1]})")
    if not entries and current is None:
        print(f"numbast-cache: no entry matches {args.target!r}", file=sys.stderr)
        return 1
    return 0


def _current_key(project: ProjectConfig, target: str) -> tuple[dict, str] | None:
    """The key ``target`` would have now, when it names a mapped module (else None)."""
    from numbast_import.finder import resolve_mapping
    from numbast_import.loader import entry_key

    package, short = _qualified(target)
    try:
        mapping = resolve_mapping(package, short, project)
    except ModuleNotFoundError:
        return None
    try:
        _arch, components, digest = entry_key(mapping, f"{package}.{short}")
    except (OSError, RuntimeError) as exc:  # header gone, or no arch to compute a key for
        print(f"(cannot compute the current key of {target}: {exc})")
        return None
    return components, digest


def cmd_clear(store, project: ProjectConfig, args) -> int:
    paths = list(store.entries()) if args.all else _entries_of(store, args.module)
    for path in paths:
        store.remove(path)
    print(f"removed {len(paths)} entr{'y' if len(paths) == 1 else 'ies'} from {store.root}")
    return 0


def cmd_verify(store, project: ProjectConfig, args) -> int:
    from numbast_import.cache.store import entry_problems

    bad = 0
    count = 0
    for path in store.entries():
        count += 1
        problems = entry_problems(path)
        if problems:
            bad += 1
            print(f"{path}: {'; '.join(problems)}")
    print(f"{count - bad} of {count} entries intact")
    return 1 if bad else 0


COMMANDS = {"list": cmd_list, "show": cmd_show, "clear": cmd_clear, "verify": cmd_verify}


if __name__ == "__main__":
    sys.exit(main())
