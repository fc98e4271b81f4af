"""Python AST -> MLIR: composed sub-parsers (expressions, ops, calls, loops, ifs).

Entry points are re-exported by ``dsl_parser.language`` (``pl``).
"""
