/*===- dsl-opt.c - mlir-opt with the dsl toolkit's dialects and passes ---===*/
#include "dsl-c/Dsl.h"

int main(int argc, char **argv) { return dslMlirOptMain(argc, argv); }
