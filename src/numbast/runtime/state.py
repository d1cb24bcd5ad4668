"""Registration state shared by every copy of the runtime in a process.

The installed runtime (``numbast.runtime``) and the copies that standalone generated modules
carry must register into one set of tables: overloads of one Python operator, the float()/int()
conversions of a type and the non-const method table are one per process, or two modules would
shadow each other. The tables live in a placeholder module in ``sys.modules`` and are joined by
name: each table is created by whichever copy asks for it first (``shared_table``), so a newer
copy can add tables that older copies never knew about, and no version needs bumping.

The rule that keeps copies compatible: a table name never changes meaning. A table whose content
must change shape gets a new name.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from types import ModuleType
from typing import Any

# The name is historical (runtimes of the first generated modules created it); it never changes.
STATE_MODULE = "_numbast_runtime_state_v1"


def _holder() -> ModuleType:
    holder = sys.modules.get(STATE_MODULE)
    if holder is None:
        holder = sys.modules.setdefault(STATE_MODULE, ModuleType(STATE_MODULE))
    # dict.setdefault is atomic under the GIL: two copies racing get the same objects.
    tables = vars(holder).setdefault("state", {})
    tables.setdefault("lock", threading.RLock())
    return holder


_TABLES: dict[str, Any] = _holder().state
LOCK: threading.RLock = _TABLES["lock"]


def shared_table(name: str, factory: Callable[[], Any]) -> Any:
    """The process-wide table ``name``, made with ``factory()`` by the first copy that asks."""
    table = _TABLES.get(name)
    if table is None:
        with LOCK:
            table = _TABLES.setdefault(name, factory())
    return table
