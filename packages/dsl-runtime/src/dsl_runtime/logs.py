"""``DSL_LOG``: one line per compile, disk-cache event and autotuning, on stderr.

``DSL_LOG=compile,cache,tune`` (any of them, or ``all``) sends the matching loggers to
stderr at INFO level when dsl_runtime is imported; the loggers are ordinary ``logging``
loggers (``dsl_runtime.jit``, ``dsl_runtime.cache``, ``dsl_runtime.tuning``), so an
application can configure them itself instead. Lines look like::

    dsl: compiled scale_add [N=?] in 41.2 ms (parse 2.1, lower 14.0, jit 20.3) key 3f2a...
    dsl: disk cache hit for scale_add (key 3f2a...) in 6.1 ms
    dsl: tuned tiled_matmul for (('a', (256, 192), 'float32'),) -> {'TILE': 16}
"""

from __future__ import annotations

import logging
import os

#: DSL_LOG category -> the logger it enables.
CATEGORIES = {"compile": "dsl_runtime.jit", "cache": "dsl_runtime.cache",
              "tune": "dsl_runtime.tuning"}

_configured: list[logging.Handler] = []


def configure_from_env() -> list[str]:
    """Enable the categories named in ``DSL_LOG`` (ValueError naming an unknown one);
    returns the loggers enabled."""
    spec = os.environ.get("DSL_LOG", "").strip()
    if not spec:
        return []
    names = [n.strip().lower() for n in spec.split(",") if n.strip()]
    unknown = [n for n in names if n not in CATEGORIES and n != "all"]
    if unknown:
        raise ValueError(f"DSL_LOG: unknown categor{'ies' if len(unknown) > 1 else 'y'} "
                         f"{', '.join(unknown)}; the categories are "
                         f"{', '.join(CATEGORIES)} (or all)")
    chosen = list(CATEGORIES) if "all" in names else names
    if not _configured:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("dsl: %(message)s"))
        _configured.append(handler)
    enabled = []
    for name in chosen:
        logger = logging.getLogger(CATEGORIES[name])
        logger.setLevel(logging.INFO)
        if _configured[0] not in logger.handlers:
            logger.addHandler(_configured[0])
        logger.propagate = False
        enabled.append(CATEGORIES[name])
    return enabled
