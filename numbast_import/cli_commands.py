"""The commands of ``numbast-cache`` (the argument parser is ``numbast_import.cli``, the
context and output helpers ``numbast_import.cli_context``). Each returns the exit status and
prints text or, with ``--json``, one JSON document."""

from __future__ import annotations

import errno
import os
import shutil
import time

from numbast_import.cache import inventory
from numbast_import.cache.inventory import Record
from numbast_import.cache.root import KEYS_DIR, PARSER_DIR
from numbast_import.cli_context import (
    OK,
    PROBLEM,
    Context,
    Failure,
    UsageError,
    human_age,
    human_size,
)
from numbast_import.cli_coverage import cmd_coverage
from numbast_import.cli_show import by_digest, cmd_show
from numbast_import.cli_table import short_path, table, terminal_width
from numbast_import.errors import HeaderImportError
from numbast_import.project_cache import resolve, stale_reason


def cmd_dir(ctx: Context, args) -> int:
    data = {
        "root": str(ctx.root),
        "layers": [str(layer) for layer in ctx.layers],
        "parser": str(ctx.root / PARSER_DIR),
        "size": inventory.tree_size(ctx.root),  # everything, leftovers of dead writers too
    }
    lines = [f"{ctx.root} ({human_size(data['size'])})"]
    lines += [f"{layer} (read-only layer)" for layer in ctx.layers]
    ctx.emit(data, "\n".join(lines))
    return OK


def cmd_list(ctx: Context, args) -> int:
    found = ctx.records()  # template instances are part of their header entry
    parts = [r for r in found if r.kind in inventory.PART_KINDS]  # shared by header entries
    found = [r for r in found if r.kind not in inventory.PART_KINDS]
    if ctx.as_json:
        ctx.emit([r.as_json() for r in found], "")
        return OK
    if not found:
        print(f"(nothing cached in {ctx.root})")
        return OK
    rows = [("kind", "name", "project", "header", "arch", "cuda", "size", "age", "digest")]
    wide = getattr(args, "wide", False)
    for r in found:
        name = r.name + (" (read-only)" if r.read_only else "")
        name += " (damaged)" if r.problems else " (obsolete)" if r.obsolete else ""
        created = r.created or r.used
        project, header = r.project or "-", r.header or "-"
        if not wide:  # the project's directory, and the header relative to it
            base = os.path.dirname(r.project) if r.project else None
            project, header = short_path(base), short_path(r.header, base)
        rows.append(
            (r.kind, name, project, header, r.arch or "-", r.cuda or "-")
            + (human_size(r.size), human_age(created), (r.digest or "")[: 64 if wide else 12])
        )
    print(table(rows) if wide else table(rows, terminal_width(), cuttable=((2, 3), (1,))))
    shared = ""
    if parts:
        size = human_size(inventory.total_size(parts))
        shared = f" (and {len(parts)} compiled shim units and preludes they share, {size})"
    print(f"{len(found)} items{shared}, {human_size(inventory.tree_size(ctx.root))} in {ctx.root}")
    return OK


def cmd_clear(ctx: Context, args) -> int:
    chosen = [bool(args.names), args.all, args.stale]
    if sum(chosen) != 1:
        raise UsageError("clear: give module names, or --all, or --stale (one of them)")
    writable = [r for r in ctx.records() if not r.read_only]
    reasons: dict[str, str] = {}
    if args.all:
        targets = writable
    elif args.stale:
        arch = _current_arch(ctx)
        targets = []
        for record in writable:
            reason = stale_reason(record, ctx.project, arch)
            if reason:
                targets.append(record)
                reasons[str(record.path)] = reason
    else:
        targets = _named(ctx, writable, args.names)
    removed = _remove(ctx, targets)
    if args.all and ctx.root.is_dir():
        inventory.remove_leftovers(ctx.root)
        # The parser's toolkit layout and stand-in headers stay: a parse running now reads
        # them (the preludes, its cached results, were removed above as records).
        shutil.rmtree(ctx.root / KEYS_DIR, ignore_errors=True)
    data = {
        "root": str(ctx.root),
        "removed": [dict(r.as_json(), reason=reasons.get(str(r.path))) for r in removed],
        "freed": inventory.total_size(removed),
    }
    lines = [f"removed {r.kind} {r.name} {r.path}" + _why(reasons, r) for r in removed]
    count = len(removed)
    lines.append(
        f"removed {count} item{'' if count == 1 else 's'} ({human_size(data['freed'])}) from "
        f"{ctx.root}"
    )
    ctx.emit(data, "\n".join(lines))
    return OK


def _why(reasons: dict[str, str], record: Record) -> str:
    reason = reasons.get(str(record.path))
    return f": {reason}" if reason else ""


def _named(ctx: Context, writable: list[Record], names: list[str]) -> list[Record]:
    targets: list[Record] = []
    for name in names:
        try:
            module = resolve(name, ctx.project)
        except HeaderImportError as exc:
            matches = by_digest(writable, name)
            if not matches:
                raise Failure(f"{exc}; nothing of that name or digest to clear") from None
        else:
            matches = [r for r in writable if module.owns(r)]
        targets += [r for r in matches if r not in targets]
    return targets


def _current_arch(ctx: Context) -> str | None:
    from numbast_import.arch import ARCH_ENV, current_gpu_arch

    return os.environ.get(ARCH_ENV) or current_gpu_arch()[0] or ctx.project.arch


def _remove(ctx: Context, targets: list[Record]) -> list[Record]:
    removed = []
    for record in targets:
        try:
            inventory.remove(record)
        except FileNotFoundError:
            continue  # removed meanwhile
        except OSError as exc:
            if exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
                raise Failure(
                    f"the cache root {ctx.root} is read-only ({exc.strerror}): nothing can be "
                    "removed from it. Entries in it stay usable; point NUMBAST_CACHE_DIR at a "
                    "writable directory to build new ones there"
                ) from None
            raise
        removed.append(record)
    return removed


def cmd_prune(ctx: Context, args) -> int:
    leftovers = inventory.remove_leftovers(ctx.root) if ctx.root.is_dir() else []
    writable = [r for r in ctx.records(verify=True) if not r.read_only]
    targets = [r for r in writable if r.problems or r.obsolete]
    kept = [r for r in writable if not (r.problems or r.obsolete) and r.kind != "instance"]
    if args.older_than is not None:
        cutoff = time.time() - args.older_than * 86400
        targets += [r for r in kept if r.used < cutoff]
        kept = [r for r in kept if r.used >= cutoff]
    if args.max_size is not None:
        # Everything on disk counts, not only what can be evicted (the parser's toolkit
        # layout, memos, live builders' files).
        total = inventory.tree_size(ctx.root) - inventory.total_size(targets)
        for record in sorted(kept, key=lambda r: r.used):
            if total <= args.max_size:
                break
            targets.append(record)
            total -= record.size
    removed = _remove(ctx, targets)
    legacy = inventory.legacy_parser_dir()
    if legacy is not None:
        shutil.rmtree(legacy, ignore_errors=True)
        leftovers.append(legacy)
    remaining = inventory.tree_size(ctx.root)
    data = {
        "root": str(ctx.root),
        "removed": [r.as_json() for r in removed],
        "leftovers": [str(p) for p in leftovers],
        "freed": inventory.total_size(removed),
        "size": remaining,
    }
    lines = [f"removed {r.kind} {r.name} ({human_size(r.size)}) {r.path}" for r in removed]
    lines += [f"removed leftover {path}" for path in leftovers]
    lines.append(
        f"pruned {len(removed)} items and {len(leftovers)} leftovers, freed "
        f"{human_size(data['freed'])}; {human_size(remaining)} remain in {ctx.root}"
    )
    ctx.emit(data, "\n".join(lines))
    return OK


def cmd_warm(ctx: Context, args) -> int:
    from numbast_import.warming import warm

    results = warm(
        args.names, archs=args.arch, into=ctx.root, config=ctx.project.pyproject, jobs=args.jobs
    )
    lines = []
    for result in results:
        line = f"{result.status} {result.name} {result.arch or ''}".rstrip()
        line += f": {result.entry}" if result.entry else ""
        line += f": {result.message}" if result.message else ""
        lines.append(line)
    if not args.arch and any(_lacks_an_arch(ctx, r) for r in results):
        lines.append("numbast-cache: building needs an arch: give --arch sm_90 (or sm_80,sm_90)")
    ctx.emit([r.as_json() for r in results], "\n".join(lines))
    return PROBLEM if any(r.status == "failed" for r in results) else OK


def _lacks_an_arch(ctx: Context, result) -> bool:
    """Whether ``result`` failed because no arch could be chosen (a mapped module, no GPU, no
    NUMBAST_IMPORT_ARCH, no pin)."""
    if result.status != "failed" or result.arch is not None:
        return False
    try:
        module = resolve(result.name, ctx.project)
    except HeaderImportError:
        return False
    return ctx.import_arch(module)[0] is None


def cmd_verify(ctx: Context, args) -> int:
    checked = [r for r in ctx.records(verify=True) if not r.obsolete]
    bad = [r for r in checked if r.problems]
    data = {
        "checked": len(checked),
        "damaged": [{"path": str(r.path), "kind": r.kind, "problems": r.problems} for r in bad],
    }
    lines = [f"{r.path}: {'; '.join(r.problems)}" for r in bad]
    lines.append(f"{len(checked) - len(bad)} of {len(checked)} entries intact")
    ctx.emit(data, "\n".join(lines))
    return PROBLEM if bad else OK


COMMANDS = {
    "dir": cmd_dir,
    "path": cmd_dir,
    "list": cmd_list,
    "show": cmd_show,
    "clear": cmd_clear,
    "prune": cmd_prune,
    "warm": cmd_warm,
    "verify": cmd_verify,
    "coverage": cmd_coverage,
}
