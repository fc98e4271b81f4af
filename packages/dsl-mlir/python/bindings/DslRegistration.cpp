//===- DslRegistration.cpp - site initializer of dsl_mlir._mlir -----------===//
//
// Loaded by dsl_mlir._mlir._mlir_libs at first use: registers the toolkit's
// dialects into every new Context and its passes into the pass registry. It
// also carries the plugin loader (dsl_mlir._lib reaches it; the site
// initializer only looks at `register_dialects`).
//
//===----------------------------------------------------------------------===//

#include "dsl-c/Dsl.h"
#include "dsl-c/Jit.h"
#include "mlir-c/Bindings/Python/Interop.h"
#include "mlir-c/ExecutionEngine.h"
#include "mlir/Bindings/Python/Nanobind.h"
#include "mlir/Bindings/Python/NanobindAdaptors.h"

#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace nb = nanobind;

NB_MODULE(_site_initialize_0, m) {
  m.doc() = "dsl toolkit: dialect and pass registration";
  m.def("register_dialects",
        [](MlirDialectRegistry registry) { dslRegisterDialects(registry); },
        nb::arg("registry"));
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
  m.def(
      "translate_to_llvm_ir",
      [](MlirOperation module) {
        char *text = nullptr;
        char *error = nullptr;
        bool ok = dslTranslateToLLVMIR(module, &text, &error);
        std::string result = ok ? text : (error ? error : "unknown error");
        dslFreeString(ok ? text : error);
        if (!ok)
          throw std::runtime_error(result);
        return result;
      },
      nb::arg("module"),
      "The LLVM IR text of an operation in the LLVM dialect (RuntimeError "
      "with MLIR's diagnostics when it does not translate)");
  m.def(
      "emit_assembly",
      [](const std::string &llvmIR, const std::string &llvmPasses,
         int codegenOptLevel) {
        char *assembly = nullptr;
        char *error = nullptr;
        bool ok = dslEmitAssembly(
            mlirStringRefCreate(llvmIR.data(), llvmIR.size()),
            mlirStringRefCreate(llvmPasses.data(), llvmPasses.size()),
            codegenOptLevel, &assembly, &error);
        std::string text = ok ? assembly : (error ? error : "unknown error");
        dslFreeString(ok ? assembly : error);
        if (!ok)
          throw std::runtime_error(text);
        return text;
      },
      nb::arg("llvm_ir"), nb::arg("llvm_passes"), nb::arg("codegen_opt_level"),
      "The host assembly of LLVM IR text, optimized and compiled as the JIT "
      "does (the pass pipeline text, empty for LLVM's default one)");
  m.def(
      "lookup_symbol",
      [](nb::object engine, const std::string &name) {
        nb::object capsule = engine.attr(MLIR_PYTHON_CAPI_PTR_ATTR);
        MlirExecutionEngine e = mlirPythonCapsuleToExecutionEngine(capsule.ptr());
        if (mlirExecutionEngineIsNull(e))
          throw std::invalid_argument("lookup_symbol: not an ExecutionEngine");
        void *address = mlirExecutionEngineLookup(
            e, mlirStringRefCreate(name.data(), name.size()));
        return reinterpret_cast<std::uintptr_t>(address);
      },
      nb::arg("engine"), nb::arg("name"),
      "The address of the symbol `name` (a function or a global, unprefixed) "
      "in a JIT'd ExecutionEngine; 0 when it has none");
  m.def(
      "load_plugin",
      [](const std::string &path, MlirDialectRegistry registry) {
        DslPluginInfo info{};
        std::string error;
        MlirLogicalResult result = dslLoadPlugin(
            mlirStringRefCreate(path.data(), path.size()), registry, &info,
            [](MlirStringRef message, void *userData) {
              static_cast<std::string *>(userData)->append(message.data,
                                                           message.length);
            },
            &error);
        if (mlirLogicalResultIsFailure(result))
          return nb::make_tuple(error, nb::none(), nb::none(), false, false,
                                false);
        return nb::make_tuple(nb::none(), std::string(info.name),
                              std::string(info.version), info.hasDialects,
                              info.hasPasses, info.alreadyLoaded);
      },
      nb::arg("path"), nb::arg("registry"),
      "Load a plugin: (error, name, version, has_dialects, has_passes, "
      "already_loaded); error is None on success.");
  m.def(
      "plugin_abi_version",
      []() {
        MlirStringRef v = dslGetPluginAbiVersion();
        return std::string(v.data, v.length);
      },
      "The release plugins must have been built against.");
  dslRegisterPasses();
}
