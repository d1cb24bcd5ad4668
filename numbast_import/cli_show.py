"""``numbast-cache show NAME [--arch sm_90]``: every key component of a module's entries (or of
a digest prefix), and for each whether an import would hit it now or which components differ.

Each entry is compared with the current key *for its own arch*, so no GPU and no arch are
needed to explain an entry; ``--arch`` (else the arch imports would use, when one can be
chosen) names the arch whose current entry is looked for.
"""

from __future__ import annotations

import json
from typing import Any

from numbast_import.cache.inventory import Record
from numbast_import.cli_context import OK, Context, Failure
from numbast_import.errors import HeaderImportError
from numbast_import.project_cache import Module, miss_reasons, resolve


def cmd_show(ctx: Context, args) -> int:
    found = [r for r in ctx.records() if r.kind == "header"]
    try:
        module: Module | None = resolve(args.name, ctx.project)
    except HeaderImportError as exc:
        module, not_mapped = None, str(exc)
    if module is not None:
        matches = [r for r in found if module.owns(r)]
    else:
        matches = by_digest(found, args.name)
        if not matches:
            raise Failure(
                f"no entry matches {args.name!r} (a mapped module or a digest prefix): {not_mapped}"
            )
    if args.arch:
        matches = [r for r in matches if r.arch == args.arch]
    keys = CurrentKeys(module)
    data: dict[str, Any] = {"name": args.name, "entries": [_item(r, keys) for r in matches]}
    if module is not None:
        arch, why_none = (args.arch, "") if args.arch else ctx.import_arch(module)
        if arch is not None:
            _components, digest, why_not = keys.get(arch)
            data["current"] = {"arch": arch, "digest": digest}
            if digest is None:
                data["current"]["error"] = why_not
            data["current_entry_exists"] = any(r.digest == digest for r in matches)
        else:
            data["no_arch"] = why_none
    ctx.emit(data, _show_text(data))
    return OK


class CurrentKeys:
    """The module's current key per arch, computed once each; None where it cannot be
    computed (the header is gone), with the reason."""

    def __init__(self, module: Module | None) -> None:
        self.module = module
        self._keys: dict[str, tuple[dict[str, Any] | None, str | None, str]] = {}

    def get(self, arch: str) -> tuple[dict[str, Any] | None, str | None, str]:
        """(components, digest, why not)"""
        if arch not in self._keys:
            assert self.module is not None
            try:
                components, digest = self.module.current_key(arch)
                self._keys[arch] = (components, digest, "")
            except (HeaderImportError, OSError) as exc:
                self._keys[arch] = (None, None, str(exc))
        return self._keys[arch]


def _item(record: Record, keys: CurrentKeys) -> dict[str, Any]:
    item: dict[str, Any] = {"entry": str(record.path), "read_only": record.read_only}
    item["problems"] = list(record.problems)
    if record.manifest is None:
        return item
    item["arch"] = record.arch
    item["key"] = record.manifest["key"]
    item["included_files"] = record.manifest["included_files"]
    item["shims_left_out"] = record.manifest.get("shims_left_out", [])
    item["regenerate"] = record.manifest.get("regenerate")
    if keys.module is not None and record.arch:
        components, _digest, why_not = keys.get(record.arch)
        if components is None:
            item["would_miss_because"] = [f"the current key cannot be computed: {why_not}"]
        else:
            item["would_miss_because"] = miss_reasons(record, components)
    return item


def by_digest(found: list[Record], prefix: str) -> list[Record]:
    """The records whose digest starts with ``prefix`` (six hex digits at least)."""
    if len(prefix) < 6 or any(c not in "0123456789abcdef" for c in prefix):
        return []
    return [r for r in found if (r.digest or "").startswith(prefix)]


def _show_text(data: dict[str, Any]) -> str:
    lines = []
    for item in data["entries"]:
        lines.append(f"entry {item['entry']}" + (" (read-only)" if item["read_only"] else ""))
        for name, value in sorted(item.get("key", {}).items()):
            lines.append(f"  {name}: {json.dumps(value, sort_keys=True)}")
        included = item.get("included_files", {})
        lines.append(f"  included files: {len(included)}")
        lines += [f"    {file} {digest[:16]}" for file, digest in included.items()]
        if item.get("shims_left_out"):
            lines.append(f"  shims_left_out: {', '.join(item['shims_left_out'])}")
        if item.get("regenerate"):
            lines.append(f"  regenerate: {item['regenerate']}")
        lines += [f"  damaged: {problem}" for problem in item["problems"]]
        reasons = item.get("would_miss_because")
        if reasons == []:
            lines.append(f"  an import for {item['arch']} would hit this entry")
        elif reasons:
            lines.append(f"  an import for {item['arch']} would miss this entry:")
            lines += [f"    {reason}" for reason in reasons]
    if not data["entries"]:
        lines.append(f"{data['name']}: no entries in the cache")
    current = data.get("current")
    if current is not None and current["digest"] is None:
        lines.append(f"{data['name']}: no current key for {current['arch']}: {current['error']}")
    elif current is not None and not data["current_entry_exists"]:
        lines.append(
            f"{data['name']}: no entry for the current state ({current['arch']}, digest "
            f"{current['digest']}); `numbast-cache warm {data['name']} --arch "
            f"{current['arch']}` builds it"
        )
    elif "no_arch" in data:
        archs = sorted({item["arch"] for item in data["entries"] if item.get("arch")})
        shown = f"showing the cached entries ({', '.join(archs)})" if archs else "nothing cached"
        lines.append(
            f"{data['name']}: no arch given and none to choose (no GPU, no "
            f"NUMBAST_IMPORT_ARCH, no pin): {shown}; --arch sm_XX picks one"
        )
    return "\n".join(lines)
