//===- RuntimeChecks.cpp - run-time checks that report through a hook -----===//
//
// See dsl/Conversion/RuntimeChecks.h. The hook global and the message
// strings are LLVM dialect globals created next to the functions; the calls
// are LLVM dialect ops inside an scf.if, which the rest of the pipeline
// carries through untouched until convert-*-to-llvm.
//
//===----------------------------------------------------------------------===//

#include "dsl/Conversion/RuntimeChecks.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::dsl;

namespace {

constexpr unsigned kHookValues = 4;

/// The hook global (an i64 holding the hook's address, 0 when unset).
LLVM::GlobalOp getOrCreateHook(OpBuilder &b, ModuleOp module) {
  if (auto hook = module.lookupSymbol<LLVM::GlobalOp>(kErrorHookSymbol))
    return hook;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(module.getBody());
  return LLVM::GlobalOp::create(b, module.getLoc(), b.getI64Type(),
                                /*isConstant=*/false, LLVM::Linkage::External,
                                kErrorHookSymbol, b.getI64IntegerAttr(0),
                                /*alignment=*/8);
}

/// A private constant holding `text` and a terminating NUL (one per text).
LLVM::GlobalOp getOrCreateMessage(OpBuilder &b, ModuleOp module,
                                  StringRef text) {
  std::string data = (text + Twine('\0')).str();
  std::string base = "__dsl_error_message_" + llvm::utohexstr(llvm::hash_value(text));
  std::string name = base;
  for (unsigned i = 1;; ++i) {
    auto existing = module.lookupSymbol(name);
    if (!existing)
      break;
    auto global = dyn_cast<LLVM::GlobalOp>(existing);
    if (global && global.getValueAttr() == b.getStringAttr(data))
      return global;
    name = base + "_" + std::to_string(i);
  }
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(module.getBody());
  auto type = LLVM::LLVMArrayType::get(b.getI8Type(), data.size());
  return LLVM::GlobalOp::create(b, module.getLoc(), type, /*isConstant=*/true,
                                LLVM::Linkage::Internal, name,
                                b.getStringAttr(data));
}

Value asI64(OpBuilder &b, Location loc, Value v) {
  Type i64 = b.getI64Type();
  if (v.getType().isIndex())
    return arith::IndexCastOp::create(b, loc, i64, v);
  unsigned width = v.getType().getIntOrFloatBitWidth();
  if (width < 64)
    return arith::ExtSIOp::create(b, loc, i64, v);
  return v;
}

} // namespace

std::string mlir::dsl::describeLocation(Location loc) {
  std::string text;
  loc->walk([&](Location l) {
    if (auto file = dyn_cast<FileLineColLoc>(l)) {
      text = (file.getFilename().getValue() + ":" + Twine(file.getLine()) + ":" +
              Twine(file.getColumn()))
                 .str();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return text.empty() ? "<unknown>" : text;
}

void mlir::dsl::emitRuntimeError(OpBuilder &b, Location loc, ModuleOp module,
                                 RuntimeErrorKind kind, StringRef message,
                                 ValueRange values) {
  assert(values.size() <= kHookValues && "at most four values");
  LLVM::GlobalOp hook = getOrCreateHook(b, module);
  std::string text = (Twine(static_cast<char>(kind)) + message).str();
  LLVM::GlobalOp msg = getOrCreateMessage(b, module, text);
  auto ptr = LLVM::LLVMPointerType::get(b.getContext());
  Type i64 = b.getI64Type();
  Value hookAddr = LLVM::AddressOfOp::create(b, loc, hook);
  Value fn = LLVM::LoadOp::create(b, loc, i64, hookAddr);
  Value zero = arith::ConstantIntOp::create(b, loc, i64, 0);
  Value set = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, fn, zero);
  scf::IfOp::create(b, loc, set, [&](OpBuilder &tb, Location tl) {
    SmallVector<Value> args{LLVM::IntToPtrOp::create(tb, tl, ptr, fn),
                            LLVM::AddressOfOp::create(tb, tl, msg)};
    for (Value v : values)
      args.push_back(asI64(tb, tl, v));
    while (args.size() < kHookValues + 2)
      args.push_back(arith::ConstantIntOp::create(tb, tl, i64, 0));
    auto type = LLVM::LLVMFunctionType::get(
        LLVM::LLVMVoidType::get(b.getContext()), {ptr, i64, i64, i64, i64});
    LLVM::CallOp::create(tb, tl, type, args);
    scf::YieldOp::create(tb, tl);
  });
}

void mlir::dsl::emitCheck(OpBuilder &b, Location loc, ModuleOp module, Value ok,
                          RuntimeErrorKind kind, StringRef message,
                          ValueRange values) {
  if (isConstantTrue(ok))
    return;
  Value one = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
  Value failed = arith::XOrIOp::create(b, loc, ok, one);
  scf::IfOp::create(b, loc, failed, [&](OpBuilder &tb, Location tl) {
    emitRuntimeError(tb, tl, module, kind, message, values);
    scf::YieldOp::create(tb, tl);
  });
}

Value mlir::dsl::allPass(OpBuilder &b, Location loc,
                         ArrayRef<RuntimeCheck> checks) {
  SmallVector<Value> conditions;
  for (const RuntimeCheck &c : checks)
    conditions.push_back(c.ok);
  return allOf(b, loc, conditions);
}

void mlir::dsl::emitChecks(OpBuilder &b, Location loc, ModuleOp module,
                           ArrayRef<RuntimeCheck> checks) {
  Value all = allPass(b, loc, checks);
  if (isConstantTrue(all))
    return;
  if (checks.size() == 1) {
    emitCheck(b, loc, module, all, checks[0].kind, checks[0].message,
              checks[0].values);
    return;
  }
  Value one = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
  Value failed = arith::XOrIOp::create(b, loc, all, one);
  scf::IfOp::create(b, loc, failed, [&](OpBuilder &tb, Location tl) {
    for (const RuntimeCheck &c : checks)
      emitCheck(tb, tl, module, c.ok, c.kind, c.message, c.values);
    scf::YieldOp::create(tb, tl);
  });
}

Value mlir::dsl::allOf(OpBuilder &b, Location loc, ValueRange conditions) {
  Value all;
  for (Value c : conditions) {
    if (isConstantTrue(c))
      continue;
    all = all ? b.createOrFold<arith::AndIOp>(loc, all, c) : c;
  }
  return all ? all : arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
}

bool mlir::dsl::isConstantTrue(Value v) {
  std::optional<int64_t> c = getConstantIntValue(v);
  return c && *c != 0;
}
