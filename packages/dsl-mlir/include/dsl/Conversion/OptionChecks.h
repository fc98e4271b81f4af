//===- OptionChecks.h - validating pass and pipeline options --*- C++ -*-===//
//
// MLIR's option parser reports an unknown option through the pipeline
// parser's error handler, but a value that does not parse (`vector-size=x`)
// only on stderr, and it checks no ranges. The dsl pipelines and passes check
// their option text here first, so that every problem is an error message
// of the pipeline parser (a Python exception, a dsl-opt error) that names the
// option, and then check the ranges of the parsed values.
//
//===----------------------------------------------------------------------===//
#ifndef DSL_CONVERSION_OPTIONCHECKS_H
#define DSL_CONVERSION_OPTIONCHECKS_H

#include "mlir/Support/LLVM.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"

#include <string>

namespace mlir::dsl {

enum class OptionKind { Bool, Int, IntList, String };

struct OptionSpec {
  llvm::StringLiteral name;
  OptionKind kind;
};

/// Checks `options` (the text between the braces of `owner{...}`): every key
/// names an option of `specs` (else "owner: no option K; did you mean X?"),
/// every value parses as its kind. Returns the first problem, or "" when none.
std::string checkOptionText(StringRef owner, StringRef options,
                            ArrayRef<OptionSpec> specs);

/// For `Pass::initializeOptions` overrides: checkOptionText, reported to
/// `errorHandler` (a failure), or success.
LogicalResult
checkPassOptionText(StringRef owner, StringRef options,
                    ArrayRef<OptionSpec> specs,
                    function_ref<LogicalResult(const Twine &)> errorHandler);

/// "owner: <name> must be <what>, got <value>".
std::string optionRangeError(StringRef owner, StringRef name,
                             const Twine &what, const Twine &value);

/// `low <= value <= high`, else the message of optionRangeError.
std::string checkIntRange(StringRef owner, StringRef name, int64_t value,
                          int64_t low, int64_t high);

/// The bounds of the matmul register tile (`matmul-tile-sizes`): each of M
/// and K at most kMaxTileMK, N a power of two at most kMaxTileN, and
/// M*N*K at most kMaxTileElements (larger tiles unroll into vector code that
/// takes LLVM minutes to compile).
constexpr int64_t kMaxTileMK = 64;
constexpr int64_t kMaxTileN = 256;
constexpr int64_t kMaxTileElements = 16384;
/// `vector-size`: a power of two up to this.
constexpr int64_t kMaxVectorSize = 1024;

/// "" when `sizes` is empty (the default) or a valid register tile M,N,K.
std::string checkMatmulTileSizes(StringRef owner, ArrayRef<int64_t> sizes);

/// "" when `size` is a valid `vector-size`.
std::string checkVectorSize(StringRef owner, int64_t size);

/// "" when `bits` is a valid `target-vector-bits` (0: the host's, 128, 256, 512).
std::string checkTargetVectorBits(StringRef owner, int64_t bits);

} // namespace mlir::dsl

#endif // DSL_CONVERSION_OPTIONCHECKS_H
