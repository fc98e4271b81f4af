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

#include "dsl/Dialect/Dsl/IR/TypeChecks.h"

#include "dsl/Dialect/Dsl/IR/DslOpsDialect.h.inc"
#include "dsl/Dialect/Dsl/IR/DslOpsEnums.h.inc"

#define GET_OP_CLASSES
#include "dsl/Dialect/Dsl/IR/DslOps.h.inc"

namespace mlir::dsl {

/// The shape of a tensor operand; empty (rank 0) for a scalar.
ArrayRef<int64_t> shapeOf(Type type);

/// The numpy broadcast of two shapes (rules in DslOps.td, `dsl.add`). On
/// failure, `badDim` (if given) receives the offending dimension of the
/// broadcast result, counted from the left of the longer shape.
FailureOr<SmallVector<int64_t>> broadcastShapes(ArrayRef<int64_t> a,
                                                ArrayRef<int64_t> b,
                                                int64_t *badDim = nullptr);

/// `shape` reduced over `axes`: the axes removed, or set to 1 with `keepdim`.
SmallVector<int64_t> reducedShape(ArrayRef<int64_t> shape,
                                  ArrayRef<int64_t> axes, bool keepdim);

} // namespace mlir::dsl

#endif // DSL_DIALECT_DSL_IR_DSLDIALECT_H
