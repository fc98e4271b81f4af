//===- MyExtPasses.h - passes of the `myext` plugin ---------------*- C++ -*-===//
#ifndef MYEXT_MYEXTPASSES_H
#define MYEXT_MYEXTPASSES_H

#include "mlir/Pass/Pass.h"

namespace myext {

#define GEN_PASS_DECL
#include "MyExt/MyExtPasses.h.inc"

#define GEN_PASS_REGISTRATION
#include "MyExt/MyExtPasses.h.inc"

} // namespace myext

#endif // MYEXT_MYEXTPASSES_H
