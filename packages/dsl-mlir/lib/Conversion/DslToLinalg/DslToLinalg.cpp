//===- DslToLinalg.cpp - the convert-dsl-to-linalg pass -------------------===//
//
// One rewrite pattern per op, grouped by family:
//   ElementwiseOps.cpp  unary, binary, cmp, select, broadcast, cast
//   ReductionOps.cpp    sum, max, min, mean, argmax
//   ShapeOps.cpp        transpose, reshape, concat, expand_dims, squeeze,
//                       slice, assemble
//   TensorOps.cpp       matmul, create_tensor, full, arange
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"

#include "dsl/Conversion/Passes.h"
#include "dsl/Dialect/Dsl/IR/DslDialect.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::dsl {
#define GEN_PASS_DEF_CONVERTDSLTOLINALG
#include "dsl/Conversion/Passes.h.inc"
} // namespace mlir::dsl

using namespace mlir;
using namespace mlir::dsl;

namespace {
struct ConvertDslToLinalg
    : dsl::impl::ConvertDslToLinalgBase<ConvertDslToLinalg> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    RewritePatternSet patterns(ctx);
    populateElementwiseLoweringPatterns(patterns);
    populateReductionLoweringPatterns(patterns);
    populateShapeLoweringPatterns(patterns);
    populateTensorLoweringPatterns(patterns);
    ConversionTarget target(*ctx);
    target.addIllegalDialect<DslDialect>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
