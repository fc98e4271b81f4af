//===- DslRegistration.cpp - site initializer of dsl_mlir._mlir -----------===//
//
// Loaded by dsl_mlir._mlir._mlir_libs at first use: registers the toolkit's
// dialects into every new Context and its passes into the pass registry.
//
//===----------------------------------------------------------------------===//

#include "dsl-c/Dsl.h"
#include "mlir/Bindings/Python/Nanobind.h"
#include "mlir/Bindings/Python/NanobindAdaptors.h"

NB_MODULE(_site_initialize_0, m) {
  m.doc() = "dsl toolkit: dialect and pass registration";
  m.def("register_dialects",
        [](MlirDialectRegistry registry) { dslRegisterDialects(registry); },
        nanobind::arg("registry"));
  dslRegisterPasses();
}
