"""``numbast-cache coverage NAME [--arch sm_90] [--json]``: how much of a header its module binds.

The numbers come from the module's cache entry for the arch (built first, in a fresh interpreter,
when there is none): each entry's manifest records, per declaration kind, what was found, bound,
skipped (with the reason: a type without a Numba counterpart, a shim NVRTC rejects, ...),
excluded by the mapping, or host-only (``numbast.static.coverage``).
"""

from __future__ import annotations

from typing import Any

from numbast_import.cli_context import OK, Context, Failure
from numbast_import.errors import HeaderImportError


def cmd_coverage(ctx: Context, args) -> int:
    from numbast_import.cache.store import CacheStore
    from numbast_import.project_cache import resolve

    try:
        module = resolve(args.name, ctx.project)
    except HeaderImportError as exc:
        raise Failure(str(exc)) from None
    store = CacheStore(ctx.root, ctx.layers)
    arch, _why_none = (args.arch, "") if args.arch else ctx.import_arch(module)
    chosen = ""
    if arch is None:
        # Inspecting needs no arch: show an entry that exists (and say which arch it is for).
        entry, arch = _current_cached_entry(ctx, store, module)
        if entry is None:
            raise Failure(
                f"{module.fullname} has no current entry in the cache, and building one needs "
                "an arch, which nothing gives (no GPU to ask, no NUMBAST_IMPORT_ARCH, no pin): "
                f'give --arch sm_90, set NUMBAST_IMPORT_ARCH=sm_90, or pin arch = "sm_90" under '
                f"[tool.numbast-import] in {ctx.project.pyproject or 'pyproject.toml'}"
            )
        chosen = "the cached entry's arch (no --arch given, and no GPU to ask)"
    else:
        entry = _entry_for(store, module, arch, ctx)
    summary = entry.manifest.get("coverage")
    if summary is None:
        raise Failure(f"the cache entry of {module.fullname} for {arch} records no coverage")
    data = {"name": module.fullname, "header": module.mapping.header, "arch": arch, **summary}
    if chosen:
        data["arch_chosen_as"] = chosen
    ctx.emit(data, coverage_text(data))
    return OK


def _entry_for(store, module, arch: str, ctx: Context):
    """The module's current entry for ``arch``, built first when there is none."""
    from numbast_import.warming import warm

    try:
        components, digest = module.current_key(arch)
    except HeaderImportError as exc:
        raise Failure(str(exc)) from None
    entry = store.lookup(digest, components)
    if entry is None:
        (result,) = warm([module.fullname], [arch], into=ctx.root, config=ctx.project.pyproject)
        if result.status == "failed":
            raise Failure(f"cannot build {module.fullname} for {arch}: {result.message}")
        entry = store.lookup(digest, components)
    if entry is None:
        raise Failure(f"{module.fullname} for {arch}: the build stored no entry in {ctx.root}")
    return entry


def _current_cached_entry(ctx: Context, store, module):
    """(entry, arch) of the most recently used cached entry of ``module`` that an import for
    its arch would hit now, or (None, None)."""
    owned = [r for r in ctx.records() if module.owns(r) and r.arch and not r.problems]
    for record in sorted(owned, key=lambda r: r.used, reverse=True):
        try:
            components, digest = module.current_key(record.arch)
        except (HeaderImportError, OSError):
            continue
        entry = store.lookup(digest, components)
        if entry is not None:
            return entry, record.arch
    return None, None


def coverage_text(data: dict[str, Any]) -> str:
    """The report as a table per kind, then every declaration not bound, with its reason."""
    rows = [("kind", "found", "bound", "skipped", "excluded", "host-only")]
    for kind, counts in sorted(data["kinds"].items()):
        rows.append(
            (
                kind,
                *(str(counts[k]) for k in ("found", "bound", "skipped", "excluded", "host_only")),
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = [f"{data['name']} ({data['header']}, {data['arch']})"]
    if data.get("arch_chosen_as"):
        lines[0] += f"; {data['arch']}: {data['arch_chosen_as']}"
    lines += [
        "  ".join(
            cell.ljust(w) if i == 0 else cell.rjust(w)
            for i, (cell, w) in enumerate(zip(row, widths, strict=True))
        )
        for row in rows
    ]
    callables = data.get("device_callables")
    if callables is not None:
        lines.append(
            f"device-callable declarations (functions, operators, methods, templates): "
            f"{_ratio(callables)}"
        )
    lines.append(f"  free functions and operators: {_ratio(data['device_functions'])}")
    for kind, counts in sorted(data["kinds"].items()):
        for what, instance in sorted(counts.get("instances", {}).items()):
            lines.append(f"  {kind} {what}: bound (an instance compiles: {instance})")
    for outcome, title in (("skipped", "not bound"), ("excluded", "excluded by the mapping")):
        listed = [
            (kind, item)
            for kind, counts in sorted(data["kinds"].items())
            for item in counts["not_bound"]
            if item["outcome"] == outcome
        ]
        if listed:
            lines.append(f"{title}:")
            lines += [
                f"  {kind} {item['what']} ({item['where']}): {item['reason']}"
                for kind, item in listed
            ]
    return "\n".join(lines)


def _ratio(counts: dict[str, Any]) -> str:
    percent = "-" if counts["percent"] is None else f"{counts['percent']}%"
    return (
        f"{counts['bound']} of {counts['found']} bound ({percent}; excluded and host-only "
        "ones not counted)"
    )
