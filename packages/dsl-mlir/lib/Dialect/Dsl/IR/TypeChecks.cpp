//===- TypeChecks.cpp - element types and sizes the toolkit can lower -----===//

#include "dsl/Dialect/Dsl/IR/TypeChecks.h"

#include "Diagnostics.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Operation.h"
#include "llvm/Support/CheckedArithmetic.h"

using namespace mlir;
using namespace mlir::dsl::diag;

bool mlir::dsl::isSupportedElementType(Type type) {
  if (type.isF16() || type.isBF16() || type.isF32() || type.isF64())
    return true;
  auto i = dyn_cast<IntegerType>(type);
  if (!i || !i.isSignless())
    return false;
  unsigned w = i.getWidth();
  return w == 1 || w == 8 || w == 16 || w == 32 || w == 64;
}

StringRef mlir::dsl::supportedElementTypesText() {
  return "f16, bf16, f32, f64, i1, i8, i16, i32, i64";
}

/// Bytes per stored element (i1 is one byte; index is 64 bits).
static int64_t elementBytes(Type element) {
  if (element.isIndex())
    return 8;
  if (element.isIntOrFloat())
    return std::max<int64_t>(1, (element.getIntOrFloatBitWidth() + 7) / 8);
  return 1;
}

std::optional<int64_t> mlir::dsl::staticByteSize(ShapedType type) {
  // Strides multiply the sizes right to left, so a size 0 does not make
  // tensor<0x4x(2^63-1)xf32> safe: the product of the nonzero sizes must fit.
  std::optional<int64_t> n = 1;
  bool empty = false;
  if (type.hasRank())
    for (int64_t d : type.getShape()) {
      if (ShapedType::isDynamic(d))
        continue;
      if (d == 0) {
        empty = true;
        continue;
      }
      if (!(n = llvm::checkedMul(*n, d)))
        return std::nullopt;
    }
  std::optional<int64_t> bytes =
      llvm::checkedMul(*n, elementBytes(type.getElementType()));
  if (!bytes)
    return std::nullopt;
  return empty ? 0 : *bytes;
}

static InFlightDiagnostic tooLarge(InFlightDiagnostic d, Type type) {
  return std::move(d)
         << " of type " << typeStr(type)
         << " is too large: the product of its nonzero sizes, or its byte "
            "size, does not fit in a signed 64-bit integer";
}

LogicalResult mlir::dsl::verifyShapeSizes(Operation *op) {
  auto check = [&](Type t, StringRef kind, unsigned i) -> LogicalResult {
    auto shaped = dyn_cast<ShapedType>(t);
    if (!shaped || staticByteSize(shaped))
      return success();
    return tooLarge(op->emitOpError() << kind << " #" << i, t);
  };
  for (auto [i, t] : llvm::enumerate(op->getOperandTypes()))
    if (failed(check(t, "operand", i)))
      return failure();
  for (auto [i, t] : llvm::enumerate(op->getResultTypes()))
    if (failed(check(t, "result", i)))
      return failure();
  return success();
}

LogicalResult
mlir::dsl::checkLowerableType(Type type, StringRef what,
                              function_ref<InFlightDiagnostic()> emitError) {
  if (auto fn = dyn_cast<FunctionType>(type)) {
    for (auto [i, t] : llvm::enumerate(fn.getInputs()))
      if (failed(checkLowerableType(
              t, (what + " input #" + std::to_string(i)).str(), emitError)))
        return failure();
    for (auto [i, t] : llvm::enumerate(fn.getResults()))
      if (failed(checkLowerableType(
              t, (what + " result #" + std::to_string(i)).str(), emitError)))
        return failure();
    return success();
  }
  if (auto shaped = dyn_cast<ShapedType>(type)) {
    Type element = shaped.getElementType();
    if (!isSupportedElementType(element) && !element.isIndex())
      return emitError() << what << " has type " << typeStr(type)
                         << ", whose element type " << typeStr(element)
                         << " the lowering does not handle (element types: "
                         << supportedElementTypesText() << ", index)";
    if (!staticByteSize(shaped))
      return tooLarge(emitError() << what, type);
    return success();
  }
  if (auto i = dyn_cast<IntegerType>(type)) {
    if (i.getWidth() >= 1 && i.getWidth() <= 64)
      return success();
    return emitError() << what << " has type " << typeStr(type)
                       << ": the lowering handles integers of 1 to 64 bits";
  }
  if (isa<FloatType>(type) && !isSupportedElementType(type))
    return emitError() << what << " has type " << typeStr(type)
                       << ": the lowering handles the floats f16, bf16, f32 "
                          "and f64";
  if (isa<ComplexType>(type))
    return emitError() << what << " has type " << typeStr(type)
                       << ": the lowering does not handle complex numbers";
  return success();
}

static LogicalResult checkOp(Operation *op) {
  auto emit = [op] { return op->emitError(); };
  auto name = [](StringRef kind, size_t i) {
    return kind.str() + " #" + std::to_string(i);
  };
  for (auto [i, t] : llvm::enumerate(op->getResultTypes()))
    if (failed(dsl::checkLowerableType(t, name("result", i), emit)))
      return failure();
  for (Region &region : op->getRegions())
    for (Block &block : region)
      for (BlockArgument arg : block.getArguments())
        if (failed(dsl::checkLowerableType(
                arg.getType(), name("block argument", arg.getArgNumber()),
                emit)))
          return failure();
  for (NamedAttribute attr : op->getAttrs())
    if (auto t = dyn_cast<TypeAttr>(attr.getValue()))
      if (failed(dsl::checkLowerableType(
              t.getValue(), ("attribute '" + attr.getName().strref() + "'").str(),
              emit)))
        return failure();
  return success();
}

LogicalResult mlir::dsl::checkLowerable(Operation *root) {
  WalkResult result = root->walk([](Operation *op) {
    return failed(checkOp(op)) ? WalkResult::interrupt()
                               : WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}
