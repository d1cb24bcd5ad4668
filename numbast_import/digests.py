"""One digest of several strings, each framed by its length (so that ("ab", "c") and ("a",
"bc") differ): the keys of shims and their units, and a module's identity among them."""

from __future__ import annotations

import hashlib


def framed_digest(*parts: str) -> str:
    h = hashlib.sha256()
    for part in parts:
        data = part.encode()
        h.update(len(data).to_bytes(8, "little"))
        h.update(data)
    return h.hexdigest()
