//===- Diagnostics.h - text of types and shapes for verifier messages -----===//
#ifndef DSL_LIB_DIALECT_DSL_IR_DIAGNOSTICS_H
#define DSL_LIB_DIALECT_DSL_IR_DIAGNOSTICS_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace mlir::dsl::diag {

/// `tensor<64x?xf32>` (or `f32`) as text.
inline std::string typeStr(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << t;
  return s;
}

/// A dimension size, `?` when dynamic.
inline std::string dimStr(int64_t d) {
  return ShapedType::isDynamic(d) ? std::string("?") : std::to_string(d);
}

/// `[1, 0, 2]`.
inline std::string listStr(ArrayRef<int64_t> xs) {
  std::string s = "[";
  for (auto [i, x] : llvm::enumerate(xs))
    s += (i ? ", " : "") + std::to_string(x);
  return s + "]";
}

inline bool dimsCompatible(int64_t a, int64_t b) {
  return ShapedType::isDynamic(a) || ShapedType::isDynamic(b) || a == b;
}

/// An `unsigned` marker (named `attr`) is only meaningful on integer
/// elements (`value`'s element type).
inline LogicalResult verifyUnsignedMarker(Operation *op, bool isSet,
                                          StringRef attr, Value value) {
  Type element = getElementTypeOrSelf(value.getType());
  if (!isSet || isa<IntegerType>(element))
    return success();
  return op->emitOpError("`") << attr << "` requires integer elements, got "
                              << typeStr(value.getType());
}

} // namespace mlir::dsl::diag

#endif // DSL_LIB_DIALECT_DSL_IR_DIAGNOSTICS_H
