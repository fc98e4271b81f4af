"""Python op classes of the ``dsl`` dialect (generated from DslOps.td)."""

from ._dsl_enum_gen import *  # noqa: F403
from ._dsl_ops_gen import *  # noqa: F403
