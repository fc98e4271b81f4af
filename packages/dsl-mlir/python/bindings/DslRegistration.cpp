//===- DslRegistration.cpp - site initializer of dsl_mlir._mlir -----------===//
//
// Loaded by dsl_mlir._mlir._mlir_libs at first use: registers the toolkit's
// dialects into every new Context and its passes into the pass registry.
//
//===----------------------------------------------------------------------===//

#include "dsl-c/Dsl.h"
#include "dsl-c/Jit.h"
#include "mlir-c/Bindings/Python/Interop.h"
#include "mlir/Bindings/Python/Nanobind.h"
#include "mlir/Bindings/Python/NanobindAdaptors.h"

#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <stdexcept>
#include <string>
#include <vector>

NB_MODULE(_site_initialize_0, m) {
  m.doc() = "dsl toolkit: dialect and pass registration";
  m.def("register_dialects",
        [](MlirDialectRegistry registry) { dslRegisterDialects(registry); },
        nanobind::arg("registry"));
  m.def(
      "create_engine",
      [](MlirModule module, const std::string &llvmPasses, int codegenOptLevel,
         const std::vector<std::string> &libs, bool objectDump) {
        std::vector<MlirStringRef> paths;
        for (const std::string &lib : libs)
          paths.push_back(mlirStringRefCreate(lib.data(), lib.size()));
        char *error = nullptr;
        MlirExecutionEngine engine = dslExecutionEngineCreate(
            module, mlirStringRefCreate(llvmPasses.data(), llvmPasses.size()),
            codegenOptLevel, static_cast<int>(paths.size()), paths.data(),
            objectDump, &error);
        if (mlirExecutionEngineIsNull(engine)) {
          std::string message = error ? error : "unknown error";
          dslFreeString(error);
          throw std::runtime_error(message);
        }
        return nanobind::steal<nanobind::object>(
            mlirPythonExecutionEngineToCapsule(engine));
      },
      nanobind::arg("module"), nanobind::arg("llvm_passes"),
      nanobind::arg("codegen_opt_level"), nanobind::arg("shared_libs"),
      nanobind::arg("object_dump"),
      "An ExecutionEngine capsule (ExecutionEngine._CAPICreate) built with "
      "the given LLVM pass pipeline and code generation level");
  dslRegisterPasses();
}
