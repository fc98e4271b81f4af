"""Import-time check that the installed siblings are in range (as jax checks jaxlib).

It reads the installed distributions' metadata through dsl-core's one version check, so
it runs before the native package is imported: an incompatible dsl-mlir fails with this
message, not with an obscure error from inside its extension modules.
"""

from __future__ import annotations

from ._version import SIBLINGS, __version__


def check_siblings(siblings: dict[str, str] = SIBLINGS) -> dict[str, str]:
    """Versions of the siblings; an ImportError naming both versions and the fix if one is
    out of range or missing."""
    try:
        from dsl_core.versions import check_requirements
    except ImportError:  # no dsl-core (or one older than its version check)
        wanted = f"dsl-core{siblings['dsl-core']}"
        raise ImportError(f"dsl-parser {__version__} needs {wanted}, which is not installed; "
                          f"fix: pip install '{wanted}'") from None
    return check_requirements(f"dsl-parser {__version__}", siblings)
