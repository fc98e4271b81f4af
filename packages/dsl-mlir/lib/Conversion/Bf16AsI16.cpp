//===- Bf16AsI16.cpp - bf16 values carried as i16 in the LLVM dialect ------===//
//
// After dsl-expand-float-conversions, no arithmetic is done in bf16: values
// are loaded, moved (shuffles, selects, inserts, branches), extended to f32,
// or produced by integer rounding and stored. LLVM's x86 back end still
// legalizes bf16 *vectors* through float, which calls `__truncsfbf2` (absent
// from gcc 12's libgcc) for masked loads and stores, and aborts on others
// ("Do not know how to soft promote this operator's operand" for a
// `scalar_to_vector` of `<16 x bfloat>` built from a 7x16x17 matmul's tiles).
//
// This pass, run last in `dsl-to-llvm-cpu`, gives every such value the i16
// type of the same bits:
// - data movement (loads, stores, masked memory ops, element and value
//   inserts and extracts, shuffles, selects, freezes, poison/undef/zero,
//   branches and the block arguments they feed) changes type in place;
// - constants keep their bits as i16 constants;
// - `llvm.fpext` from bf16 becomes `zext`, `shl 16`, `bitcast` to f32 (and
//   `fpext` to f64 after it); `llvm.fcmp` compares the f32 extensions;
// - anything else touching bf16 (function arguments and results, calls,
//   other float ops) keeps its bf16 operands and results, bitcast from and to
//   i16 at its boundary. A function where such a boundary would be an
//   aggregate (not bitcastable) is left unchanged.
//
//===----------------------------------------------------------------------===//

#include "dsl/Conversion/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

namespace mlir::dsl {
#define GEN_PASS_DEF_DSLBF16ASI16
#include "dsl/Conversion/Passes.h.inc"
} // namespace mlir::dsl

using namespace mlir;

namespace {

/// `type` with every bf16 inside it (vectors, arrays, literal structs) as i16.
/// Null when `type` contains bf16 somewhere this cannot rewrite.
Type asI16(Type type) {
  MLIRContext *ctx = type.getContext();
  if (type.isBF16())
    return IntegerType::get(ctx, 16);
  if (auto vec = dyn_cast<VectorType>(type))
    return vec.getElementType().isBF16()
               ? Type(vec.clone(IntegerType::get(ctx, 16)))
               : type;
  if (auto array = dyn_cast<LLVM::LLVMArrayType>(type)) {
    Type element = asI16(array.getElementType());
    return element ? LLVM::LLVMArrayType::get(element, array.getNumElements())
                   : Type();
  }
  if (auto st = dyn_cast<LLVM::LLVMStructType>(type)) {
    if (st.isIdentified())
      return type;
    SmallVector<Type> body;
    for (Type t : st.getBody()) {
      Type converted = asI16(t);
      if (!converted)
        return {};
      body.push_back(converted);
    }
    return LLVM::LLVMStructType::getLiteral(ctx, body, st.isPacked());
  }
  return type;
}

bool hasBf16(Type type) { return asI16(type) != type; }

/// A bf16 scalar or vector: what one bitcast can carry to and from i16.
bool isBitcastable(Type type) {
  auto vec = dyn_cast<VectorType>(type);
  return type.isBF16() || (vec && vec.getElementType().isBF16());
}

bool isMovement(Operation *op) {
  return isa<LLVM::LoadOp, LLVM::StoreOp, LLVM::MaskedLoadOp,
             LLVM::MaskedStoreOp, LLVM::masked_gather, LLVM::masked_scatter,
             LLVM::ExtractElementOp, LLVM::InsertElementOp,
             LLVM::ShuffleVectorOp, LLVM::ExtractValueOp, LLVM::InsertValueOp,
             LLVM::SelectOp, LLVM::FreezeOp, LLVM::PoisonOp, LLVM::UndefOp,
             LLVM::ZeroOp, LLVM::BrOp, LLVM::CondBrOp, LLVM::SwitchOp,
             LLVM::GEPOp, LLVM::BitcastOp>(op);
}

/// Whether `pred` holds for one of the operand or result types of `op`.
template <typename Pred>
bool anyType(Operation *op, Pred pred) {
  return llvm::any_of(op->getOperandTypes(), pred) ||
         llvm::any_of(op->getResultTypes(), pred);
}

bool touchesBf16(Operation *op) { return anyType(op, hasBf16); }

/// An `llvm.mlir.constant` whose bf16 value can become i16 bits.
bool isConvertibleConstant(Operation *op) {
  auto constant = dyn_cast<LLVM::ConstantOp>(op);
  if (!constant || !isBitcastable(constant.getType()))
    return false;
  Attribute value = constant.getValue();
  return isa<FloatAttr>(value) || isa<DenseFPElementsAttr>(value);
}

/// Ops rewritten by `extendToF32` rather than kept at a boundary.
bool isExtension(Operation *op) {
  if (auto ext = dyn_cast<LLVM::FPExtOp>(op))
    return isBitcastable(ext.getArg().getType());
  if (auto cmp = dyn_cast<LLVM::FCmpOp>(op))
    return isBitcastable(cmp.getLhs().getType());
  return false;
}

/// The f32 (scalar or vector) value of the i16-carried bf16 `bits`.
Value bitsToF32(OpBuilder &b, Location loc, Value bits) {
  Type i32 = b.getI32Type(), f32 = b.getF32Type();
  Type bitsType = bits.getType();
  if (auto vec = dyn_cast<VectorType>(bitsType)) {
    i32 = vec.clone(i32);
    f32 = vec.clone(f32);
  }
  Value wide = LLVM::ZExtOp::create(b, loc, i32, bits);
  Attribute sixteen = b.getI32IntegerAttr(16);
  if (auto vec = dyn_cast<VectorType>(i32))
    sixteen = DenseElementsAttr::get(vec, sixteen);
  Value shift = LLVM::ConstantOp::create(b, loc, i32, cast<TypedAttr>(sixteen));
  Value shifted = LLVM::ShlOp::create(b, loc, wide, shift);
  return LLVM::BitcastOp::create(b, loc, f32, shifted);
}

/// A function's bf16 rewrite; `run` returns false (and changes nothing) when
/// the function has a boundary it cannot bitcast.
class FunctionRewrite {
public:
  explicit FunctionRewrite(LLVM::LLVMFuncOp fn) : fn(fn) {}

  bool run() {
    if (!collect())
      return false;
    convertEntryArguments();
    convertInPlace();
    for (Operation *op : boundaries)
      keepBoundary(op);
    for (Operation *op : extensions)
      extendToF32(op);
    foldBitcasts();
    return true;
  }

private:
  LLVM::LLVMFuncOp fn;
  SmallVector<Operation *> movements, constants, boundaries, extensions;
  DenseMap<Operation *, SmallVector<Type>> originalOperandTypes;

  bool collect() {
    for (BlockArgument arg : fn.getBody().front().getArguments())
      if (hasBf16(arg.getType()) && !isBitcastable(arg.getType()))
        return false;
    for (Block &block : fn.getBody())
      for (BlockArgument arg : block.getArguments())
        if (!asI16(arg.getType()))
          return false;
    WalkResult result = fn.walk([&](Operation *op) {
      if (!touchesBf16(op))
        return WalkResult::advance();
      if (anyType(op, [](Type t) { return !asI16(t); }))
        return WalkResult::interrupt();
      if (isMovement(op)) {
        movements.push_back(op);
      } else if (isConvertibleConstant(op)) {
        constants.push_back(op);
      } else if (isExtension(op)) {
        extensions.push_back(op);
      } else {
        if (anyType(op, [](Type t) { return hasBf16(t) && !isBitcastable(t); }))
          return WalkResult::interrupt();
        boundaries.push_back(op);
      }
      originalOperandTypes[op] = llvm::to_vector(op->getOperandTypes());
      return WalkResult::advance();
    });
    return !result.wasInterrupted();
  }

  /// bf16 arguments keep their ABI type; their uses read them as i16.
  void convertEntryArguments() {
    Block &entry = fn.getBody().front();
    OpBuilder b = OpBuilder::atBlockBegin(&entry);
    for (BlockArgument arg : entry.getArguments()) {
      if (!hasBf16(arg.getType()))
        continue;
      auto cast = LLVM::BitcastOp::create(b, arg.getLoc(), asI16(arg.getType()), arg);
      arg.replaceAllUsesExcept(cast, cast);
    }
  }

  void convertInPlace() {
    for (Block &block : llvm::drop_begin(fn.getBody()))
      for (BlockArgument arg : block.getArguments())
        arg.setType(asI16(arg.getType()));
    for (Operation *op : movements)
      for (OpResult r : op->getResults())
        r.setType(asI16(r.getType()));
    for (Operation *op : constants) {
      auto constant = cast<LLVM::ConstantOp>(op);
      Type i16 = asI16(constant.getType());
      Attribute value = constant.getValue();
      if (auto f = dyn_cast<FloatAttr>(value))
        value = IntegerAttr::get(i16, f.getValue().bitcastToAPInt());
      else
        value = cast<DenseElementsAttr>(value).bitcast(
            IntegerType::get(op->getContext(), 16));
      constant.setValueAttr(value);
      constant.getResult().setType(i16);
    }
  }

  /// `op` keeps its bf16 operands and results, bitcast from and to i16.
  void keepBoundary(Operation *op) {
    OpBuilder b(op);
    for (auto [i, want] : llvm::enumerate(originalOperandTypes[op])) {
      Value operand = op->getOperand(i);
      if (operand.getType() != want)
        op->setOperand(i, LLVM::BitcastOp::create(b, op->getLoc(), want, operand));
    }
    b.setInsertionPointAfter(op);
    for (OpResult r : op->getResults()) {
      if (!hasBf16(r.getType()))
        continue;
      auto cast = LLVM::BitcastOp::create(b, op->getLoc(), asI16(r.getType()), r);
      r.replaceAllUsesExcept(cast, cast);
    }
  }

  /// `fpext` and `fcmp` of i16-carried bf16 through exact f32 extensions.
  void extendToF32(Operation *op) {
    OpBuilder b(op);
    Location loc = op->getLoc();
    if (auto ext = dyn_cast<LLVM::FPExtOp>(op)) {
      Value wide = bitsToF32(b, loc, ext.getArg());
      if (wide.getType() != ext.getType())
        wide = LLVM::FPExtOp::create(b, loc, ext.getType(), wide);
      ext.getResult().replaceAllUsesWith(wide);
      ext.erase();
      return;
    }
    auto cmp = cast<LLVM::FCmpOp>(op);
    cmp.getLhsMutable().assign(bitsToF32(b, loc, cmp.getLhs()));
    cmp.getRhsMutable().assign(bitsToF32(b, loc, cmp.getRhs()));
  }

  /// Bitcasts to the same type, and bitcast pairs that return to the start.
  void foldBitcasts() {
    SmallVector<LLVM::BitcastOp> casts;
    fn.walk([&](LLVM::BitcastOp op) { casts.push_back(op); });
    for (LLVM::BitcastOp op : casts) {
      Value source = op.getArg();
      if (auto inner = source.getDefiningOp<LLVM::BitcastOp>())
        if (inner.getArg().getType() == op.getType())
          source = inner.getArg();
      if (source.getType() == op.getType())
        op.getResult().replaceAllUsesWith(source);
    }
    for (LLVM::BitcastOp op : llvm::reverse(casts))
      if (op->use_empty())
        op.erase();
  }
};

struct Bf16AsI16 : dsl::impl::DslBf16AsI16Base<Bf16AsI16> {
  void runOnOperation() override {
    getOperation()->walk([](LLVM::LLVMFuncOp fn) {
      if (!fn.getBody().empty())
        FunctionRewrite(fn).run();
    });
  }
};

} // namespace
