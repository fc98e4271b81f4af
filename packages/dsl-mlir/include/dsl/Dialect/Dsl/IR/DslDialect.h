//===- DslDialect.h - the `dsl` dialect ---------------------------*- C++ -*-===//
#ifndef DSL_DIALECT_DSL_IR_DSLDIALECT_H
#define DSL_DIALECT_DSL_IR_DSLDIALECT_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "dsl/Dialect/Dsl/IR/DslOpsDialect.h.inc"

#define GET_OP_CLASSES
#include "dsl/Dialect/Dsl/IR/DslOps.h.inc"

#endif // DSL_DIALECT_DSL_IR_DSLDIALECT_H
