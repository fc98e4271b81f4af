# Use ccache for C/C++ when it is installed (speeds up rebuilds; optional).
find_program(DSL_CCACHE_PROGRAM ccache)
if(DSL_CCACHE_PROGRAM AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  set(CMAKE_C_COMPILER_LAUNCHER "${DSL_CCACHE_PROGRAM}")
  set(CMAKE_CXX_COMPILER_LAUNCHER "${DSL_CCACHE_PROGRAM}")
  message(STATUS "dsl-mlir: using ccache at ${DSL_CCACHE_PROGRAM}")
endif()
