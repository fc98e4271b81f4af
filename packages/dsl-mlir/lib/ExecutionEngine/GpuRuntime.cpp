//===- GpuRuntime.cpp - the mgpu* launch ABI over the CUDA driver ---------===//
//
// libdsl_gpu_runtime.so: what host code compiled by `dsl-to-llvm-nvptx`
// calls (the `mgpu*` functions the MLIR GPU translation emits: module load
// in a global constructor, function lookup and launch at each launch site).
//
// The CUDA driver is opened with dlopen at first use (`libcuda.so.1`, or
// the file named by DSL_CUDA_LIBRARY), so this library loads on machines
// without CUDA. Nothing here aborts: a failure is recorded, the failing
// call does nothing, and the caller (dsl_mlir / dsl_runtime) reads it with
// dslGpuTakeError() after the call and raises a Python exception.
//
//===----------------------------------------------------------------------===//

#include <dlfcn.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

#define DSL_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

using CUresult = int;
using CUdevice = int;
using CUcontext = void *;
using CUmodule = void *;
using CUfunction = void *;
using CUstream = void *;

constexpr int kJitErrorLogBuffer = 5;          // CU_JIT_ERROR_LOG_BUFFER
constexpr int kJitErrorLogBufferSize = 6;      // CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES
constexpr int kJitOptimizationLevel = 7;       // CU_JIT_OPTIMIZATION_LEVEL
constexpr unsigned kStreamNonBlocking = 1;     // CU_STREAM_NON_BLOCKING

/// The driver entry points we use, resolved once.
struct Driver {
  CUresult (*init)(unsigned);
  CUresult (*deviceGetCount)(int *);
  CUresult (*deviceGet)(CUdevice *, int);
  CUresult (*primaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*ctxSetCurrent)(CUcontext);
  CUresult (*ctxSynchronize)();
  CUresult (*moduleLoadData)(CUmodule *, const void *);
  CUresult (*moduleLoadDataEx)(CUmodule *, const void *, unsigned, int *, void **);
  CUresult (*moduleUnload)(CUmodule);
  CUresult (*moduleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*launchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned,
                           unsigned, unsigned, unsigned, CUstream, void **, void **);
  CUresult (*streamCreate)(CUstream *, unsigned);
  CUresult (*streamSynchronize)(CUstream);
  CUresult (*streamDestroy)(CUstream);
  CUresult (*getErrorString)(CUresult, const char **);
  CUresult (*memAlloc)(uint64_t *, size_t);
  CUresult (*memFree)(uint64_t);
  CUresult (*memcpyHtoD)(uint64_t, const void *, size_t);
  CUresult (*memcpyDtoH)(void *, uint64_t, size_t);
};

std::mutex gMutex;
Driver gDriver;
bool gLoaded = false;
std::string gLoadError;   // why the driver or the device is unavailable
std::string gModuleError; // why the last module load failed
CUcontext gContext = nullptr;
thread_local std::string tError;

void setError(const std::string &message) {
  if (tError.empty())
    tError = message;
}

std::string describe(CUresult rc) {
  const char *text = nullptr;
  if (gDriver.getErrorString)
    gDriver.getErrorString(rc, &text);
  return "CUDA error " + std::to_string(rc) + (text ? std::string(" (") + text + ")" : "");
}

template <typename F> bool resolve(void *lib, F &fn, const char *name) {
  fn = reinterpret_cast<F>(dlsym(lib, name));
  if (!fn)
    gLoadError = std::string("the CUDA driver library lacks ") + name;
  return fn != nullptr;
}

/// Opens the driver, initializes it and makes device 0's primary context
/// current. Returns false (with gLoadError set) when there is no usable GPU.
bool ensureDriverLocked() {
  if (gLoaded)
    return gContext != nullptr;
  gLoaded = true;
  const char *override = std::getenv("DSL_CUDA_LIBRARY");
  const char *path = override && *override ? override : "libcuda.so.1";
  void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    gLoadError = std::string("no CUDA driver: cannot load ") + path + " (" + dlerror() + ")";
    return false;
  }
  Driver &d = gDriver;
  bool ok = resolve(lib, d.init, "cuInit") && resolve(lib, d.deviceGetCount, "cuDeviceGetCount") &&
            resolve(lib, d.deviceGet, "cuDeviceGet") &&
            resolve(lib, d.primaryCtxRetain, "cuDevicePrimaryCtxRetain") &&
            resolve(lib, d.ctxSetCurrent, "cuCtxSetCurrent") &&
            resolve(lib, d.ctxSynchronize, "cuCtxSynchronize") &&
            resolve(lib, d.moduleLoadData, "cuModuleLoadData") &&
            resolve(lib, d.moduleLoadDataEx, "cuModuleLoadDataEx") &&
            resolve(lib, d.moduleUnload, "cuModuleUnload") &&
            resolve(lib, d.moduleGetFunction, "cuModuleGetFunction") &&
            resolve(lib, d.launchKernel, "cuLaunchKernel") &&
            resolve(lib, d.streamCreate, "cuStreamCreate") &&
            resolve(lib, d.streamSynchronize, "cuStreamSynchronize") &&
            resolve(lib, d.streamDestroy, "cuStreamDestroy_v2") &&
            resolve(lib, d.getErrorString, "cuGetErrorString") &&
            resolve(lib, d.memAlloc, "cuMemAlloc_v2") && resolve(lib, d.memFree, "cuMemFree_v2") &&
            resolve(lib, d.memcpyHtoD, "cuMemcpyHtoD_v2") &&
            resolve(lib, d.memcpyDtoH, "cuMemcpyDtoH_v2");
  if (!ok)
    return false;
  int count = 0;
  CUresult rc = d.init(0);
  if (rc == 0)
    rc = d.deviceGetCount(&count);
  if (rc != 0 || count == 0) {
    gLoadError = rc != 0 ? "the CUDA driver failed to initialize: " + describe(rc)
                         : std::string("the CUDA driver reports no GPU device");
    return false;
  }
  CUdevice dev = 0;
  CUcontext ctx = nullptr;
  if ((rc = d.deviceGet(&dev, 0)) != 0 || (rc = d.primaryCtxRetain(&ctx, dev)) != 0) {
    gLoadError = "cannot create a context on GPU 0: " + describe(rc);
    return false;
  }
  gContext = ctx;
  return true;
}

/// Makes the context current in this thread; false (error set) without GPU.
bool ready() {
  std::lock_guard<std::mutex> lock(gMutex);
  if (!ensureDriverLocked()) {
    setError(gLoadError);
    return false;
  }
  gDriver.ctxSetCurrent(gContext);
  return true;
}

bool check(CUresult rc, const char *what) {
  if (rc == 0)
    return true;
  setError(std::string(what) + ": " + describe(rc));
  return false;
}

} // namespace

//===----------------------------------------------------------------------===//
// The mgpu* ABI of MLIR's GPU-to-LLVM translation.
//===----------------------------------------------------------------------===//

DSL_EXPORT void *mgpuModuleLoadJIT(void *data, int optLevel) {
  if (!ready())
    return nullptr;
  char log[4096] = {0};
  int options[] = {kJitOptimizationLevel, kJitErrorLogBuffer, kJitErrorLogBufferSize};
  void *values[] = {reinterpret_cast<void *>(static_cast<intptr_t>(optLevel)), log,
                    reinterpret_cast<void *>(sizeof(log) - 1)};
  CUmodule module = nullptr;
  CUresult rc = gDriver.moduleLoadDataEx(&module, data, 3, options, values);
  if (rc != 0) {
    std::string message =
        "cannot load the kernels' PTX: " + describe(rc) + (log[0] ? std::string(": ") + log : "");
    setError(message);
    std::lock_guard<std::mutex> lock(gMutex);
    gModuleError = message;
    return nullptr;
  }
  return module;
}

DSL_EXPORT void *mgpuModuleLoad(void *data, size_t /*size*/) {
  if (!ready())
    return nullptr;
  CUmodule module = nullptr;
  return check(gDriver.moduleLoadData(&module, data), "cannot load the kernel binary") ? module : nullptr;
}

DSL_EXPORT void mgpuModuleUnload(void *module) {
  if (module && gDriver.moduleUnload)
    gDriver.moduleUnload(module);
}

DSL_EXPORT void *mgpuModuleGetFunction(void *module, const char *name) {
  if (!module) {
    std::lock_guard<std::mutex> lock(gMutex);
    setError(!gLoadError.empty()     ? gLoadError
             : !gModuleError.empty() ? gModuleError
                                     : std::string("the kernels' module was not loaded"));
    return nullptr;
  }
  if (!ready())
    return nullptr;
  CUfunction fn = nullptr;
  std::string what = std::string("no kernel '") + name + "' in the loaded module";
  return check(gDriver.moduleGetFunction(&fn, module, name), what.c_str()) ? fn : nullptr;
}

DSL_EXPORT void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY, intptr_t gridZ,
                                 intptr_t blockX, intptr_t blockY, intptr_t blockZ, int32_t smem,
                                 void *stream, void **params, void **extra, size_t /*paramsCount*/) {
  if (!function)
    return; // the lookup recorded why
  if (gridX <= 0 || gridY <= 0 || gridZ <= 0 || blockX <= 0 || blockY <= 0 || blockZ <= 0) {
    if (gridX == 0 || gridY == 0 || gridZ == 0)
      return; // an empty grid launches nothing, as on the CPU backend
    setError("invalid launch configuration: grid (" + std::to_string(gridX) + ", " +
             std::to_string(gridY) + ", " + std::to_string(gridZ) + "), block (" +
             std::to_string(blockX) + ", " + std::to_string(blockY) + ", " +
             std::to_string(blockZ) + ")");
    return;
  }
  if (!ready())
    return;
  check(gDriver.launchKernel(function, gridX, gridY, gridZ, blockX, blockY, blockZ, smem, stream,
                             params, extra),
        "kernel launch failed");
}

DSL_EXPORT void *mgpuStreamCreate() {
  if (!ready())
    return nullptr;
  CUstream stream = nullptr;
  return check(gDriver.streamCreate(&stream, kStreamNonBlocking), "cannot create a stream") ? stream
                                                                                           : nullptr;
}

DSL_EXPORT void mgpuStreamSynchronize(void *stream) {
  if (ready())
    check(gDriver.streamSynchronize(stream), "stream synchronization failed");
}

DSL_EXPORT void mgpuStreamDestroy(void *stream) {
  if (stream && gDriver.streamDestroy)
    gDriver.streamDestroy(stream);
}

//===----------------------------------------------------------------------===//
// What dsl_mlir / dsl_runtime call through ctypes.
//===----------------------------------------------------------------------===//

/// Number of GPUs, or -1 when there is no usable driver (see dslGpuStatus).
DSL_EXPORT int dslGpuDeviceCount() {
  std::lock_guard<std::mutex> lock(gMutex);
  if (!ensureDriverLocked())
    return gLoadError.find("no GPU device") != std::string::npos ? 0 : -1;
  int count = 0;
  return gDriver.deviceGetCount(&count) == 0 ? count : -1;
}

/// Why no GPU can be used ("" when one can). Valid until the next call.
DSL_EXPORT const char *dslGpuStatus() {
  std::lock_guard<std::mutex> lock(gMutex);
  ensureDriverLocked();
  return gLoadError.c_str();
}

/// Copies this thread's pending error into `buffer` and clears it; returns
/// its length (0: no error).
DSL_EXPORT size_t dslGpuTakeError(char *buffer, size_t size) {
  size_t n = tError.size();
  if (buffer && size) {
    size_t m = n < size - 1 ? n : size - 1;
    std::memcpy(buffer, tError.data(), m);
    buffer[m] = 0;
  }
  tError.clear();
  return n;
}

/// Waits for all work on the device (tests, benchmarks). 0 on success.
DSL_EXPORT int dslGpuSynchronize() {
  if (!ready())
    return -1;
  return check(gDriver.ctxSynchronize(), "device synchronization failed") ? 0 : -1;
}

/// Device memory for tests and the DeviceArray helper. 0 on failure.
DSL_EXPORT uint64_t dslGpuAlloc(size_t bytes) {
  uint64_t ptr = 0;
  if (ready() && check(gDriver.memAlloc(&ptr, bytes ? bytes : 1), "cuMemAlloc failed"))
    return ptr;
  return 0;
}

DSL_EXPORT void dslGpuFree(uint64_t ptr) {
  if (ptr && ready())
    check(gDriver.memFree(ptr), "cuMemFree failed");
}

DSL_EXPORT int dslGpuCopyToDevice(uint64_t dst, const void *src, size_t bytes) {
  return ready() && check(gDriver.memcpyHtoD(dst, src, bytes), "copy to the device failed") ? 0 : -1;
}

DSL_EXPORT int dslGpuCopyToHost(void *dst, uint64_t src, size_t bytes) {
  return ready() && check(gDriver.memcpyDtoH(dst, src, bytes), "copy to the host failed") ? 0 : -1;
}
