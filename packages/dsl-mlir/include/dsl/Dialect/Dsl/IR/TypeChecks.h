//===- TypeChecks.h - element types and sizes the toolkit can lower -*- C++ -*-===//
//
// One definition of what the lowering handles, used by the dialect's
// verifiers (the SizedShapes trait) and by `dsl-check-lowerable`, the check
// that runs before any pipeline (docs/dialect.md, "Element types and sizes").
//
//===----------------------------------------------------------------------===//
#ifndef DSL_DIALECT_DSL_IR_TYPECHECKS_H
#define DSL_DIALECT_DSL_IR_TYPECHECKS_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/OpDefinition.h"

#include <optional>

namespace mlir::dsl {

/// f16, bf16, f32, f64, i1, i8, i16, i32, i64 (signless): the dtypes of
/// dsl-core's table, as tensor, memref and vector elements.
bool isSupportedElementType(Type type);

/// The list above as text, for messages.
StringRef supportedElementTypesText();

/// The number of bytes a static shape of `type` holds (i1 counts one byte, as
/// stored), or nullopt when the product of its nonzero static sizes (from
/// which strides are computed), or that times the element size, does not fit
/// in a signed 64-bit integer. Dynamic dimensions are left out.
std::optional<int64_t> staticByteSize(ShapedType type);

/// Checks one type (recursing into shaped types and function types): element
/// types from the list above, scalar integers of 1 to 64 bits, floats f16,
/// bf16, f32, f64, and sizes that fit in 64 bits. `what` names the type in
/// the message ("result #0"); `emitError` makes the diagnostic.
LogicalResult checkLowerableType(Type type, StringRef what,
                                 function_ref<InFlightDiagnostic()> emitError);

/// The SizedShapes trait: every shaped operand and result of `op` passes
/// staticByteSize.
LogicalResult verifyShapeSizes(Operation *op);

/// `dsl-check-lowerable`: checkLowerableType on every value, block argument
/// and type attribute under `root` (the first error is reported at its op).
LogicalResult checkLowerable(Operation *root);

} // namespace mlir::dsl

namespace mlir::OpTrait::dsl {

/// Static shapes of the op's operands and results fit in 64 bits (before the
/// op's own verifier multiplies dimensions).
template <typename ConcreteType>
class SizedShapes : public TraitBase<ConcreteType, SizedShapes> {
public:
  static LogicalResult verifyTrait(Operation *op) {
    return ::mlir::dsl::verifyShapeSizes(op);
  }
};

} // namespace mlir::OpTrait::dsl

#endif // DSL_DIALECT_DSL_IR_TYPECHECKS_H
