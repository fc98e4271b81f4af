"""Import-time check that the installed sibling packages are in range."""

from __future__ import annotations

from ._version import SIBLINGS, __version__


def check_siblings(siblings: dict[str, str] = SIBLINGS) -> dict[str, str]:
    """Versions of the siblings; ImportError naming both versions and the fix if one is out
    of range (dsl-core's one version check)."""
    try:
        from dsl_core.versions import check_requirements
    except ImportError:  # no dsl-core (or one older than its version check)
        wanted = f"dsl-core{siblings['dsl-core']}"
        raise ImportError(f"dsl-runtime {__version__} needs {wanted}, which is not installed; "
                          f"fix: pip install '{wanted}'") from None
    return check_requirements(f"dsl-runtime {__version__}", siblings)
