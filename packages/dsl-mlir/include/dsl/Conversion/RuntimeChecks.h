//===- RuntimeChecks.h - run-time checks that report through a hook -*- C++ -*-===//
//
// Offsets and sizes known only at run time are checked by the generated code
// once per op (and, under `boundscheck`, once per kernel element access). A
// failed check never aborts: the code calls the module's error hook with a
// constant message and up to four integers, then carries on with a safe value
// (the caller of the compiled function raises the recorded error afterwards).
//
// The hook is a function pointer stored in the module's i64 global
// `__dsl_error_hook` (0 until the runtime that loads the code sets it, so that
// a JIT'd module and a cached shared library resolve it the same way):
//
//   void hook(const char *message, int64_t v0, int64_t v1, int64_t v2, int64_t v3)
//
// `message` starts with the kind of the error ('I': IndexError, 'V':
// ValueError, 'Z': ZeroDivisionError) followed by the text, in which `{0}`..`{3}` stand for the values.
//
//===----------------------------------------------------------------------===//
#ifndef DSL_CONVERSION_RUNTIMECHECKS_H
#define DSL_CONVERSION_RUNTIMECHECKS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

#include <string>

namespace mlir::dsl {

/// The symbol of the i64 global holding the error hook's address.
constexpr StringLiteral kErrorHookSymbol = "__dsl_error_hook";

/// The kinds of run-time errors (the first character of a hook message).
enum class RuntimeErrorKind : char { Index = 'I', Value = 'V', ZeroDivision = 'Z' };

/// "file:line:col" of the first file location inside `loc` ("<unknown>" when
/// there is none).
std::string describeLocation(Location loc);

/// Emits, at `b`'s insertion point, a call of the error hook (when it is set)
/// with `message` and `values` (at most four index or integer values).
/// Creates the hook global and the message's string constant in `module`.
void emitRuntimeError(OpBuilder &b, Location loc, ModuleOp module,
                      RuntimeErrorKind kind, StringRef message,
                      ValueRange values);

/// `if (!ok) emitRuntimeError(...)`: nothing when `ok` is the constant true.
void emitCheck(OpBuilder &b, Location loc, ModuleOp module, Value ok,
               RuntimeErrorKind kind, StringRef message, ValueRange values);

/// One condition of an op's check and the error reported when it fails.
struct RuntimeCheck {
  Value ok;
  RuntimeErrorKind kind;
  std::string message;
  SmallVector<Value, 4> values;
};

/// `if (!(all ok)) { for each failed check: emitRuntimeError(...) }`: one
/// branch on the fast path, each failing condition reported (the hook keeps
/// the first). Nothing when every condition is the constant true.
void emitChecks(OpBuilder &b, Location loc, ModuleOp module,
                ArrayRef<RuntimeCheck> checks);

/// The conjunction of `conditions` (the constant true when empty), folded.
Value allOf(OpBuilder &b, Location loc, ValueRange conditions);

/// The conjunction of the `ok` conditions of `checks`, as `allOf`.
Value allPass(OpBuilder &b, Location loc, ArrayRef<RuntimeCheck> checks);

/// Whether `v` is the constant true.
bool isConstantTrue(Value v);

} // namespace mlir::dsl

#endif // DSL_CONVERSION_RUNTIMECHECKS_H
