//===- DslOps.td - Python bindings entry for the dsl dialect ---*- tablegen -*-===//
#ifndef DSL_PYTHON_DSLOPS_TD
#define DSL_PYTHON_DSLOPS_TD
include "dsl/Dialect/Dsl/IR/DslOps.td"
#endif
