"""The ``tx`` namespace module of parser_ext_fixture (``import parser_ext_fixture_ns as tx``)."""

from __future__ import annotations

import parser_ext_fixture

from dsl_parser import extensions

extensions.activate(parser_ext_fixture.register, name="tx-ext", version="1.2.3")
extensions.expose("tx", globals())
