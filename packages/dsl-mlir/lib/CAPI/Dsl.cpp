//===- Dsl.cpp - C API of the dsl toolkit ---------------------------------===//

#include "dsl-c/Dsl.h"

#include "dsl/Conversion/Passes.h"
#include "dsl/Dialect/Dsl/IR/DslDialect.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Registration.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(Dsl, dsl, mlir::dsl::DslDialect)

void dslRegisterDialects(MlirDialectRegistry registry) {
  mlir::dsl::registerDslDialects(*unwrap(registry));
}

void dslRegisterPasses(void) { mlir::dsl::registerDslPassesAndPipelines(); }

int dslMlirOptMain(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::dsl::registerDslDialects(registry);
  mlir::dsl::registerDslPassesAndPipelines();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "dsl-opt: the dsl toolkit's MLIR optimizer driver\n",
      registry));
}
