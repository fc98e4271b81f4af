/* A stand-in for libcuda.so.1 that records what the GPU runtime asks of it.
 *
 * Tests build it with `cc -shared -fPIC` and point DSL_CUDA_LIBRARY at it, so
 * the whole host side of a launch (module load of the embedded PTX, function
 * lookup, grid, block, stream and kernel parameters) is checked on machines
 * without a GPU. "Device memory" is host memory here. Nothing is executed.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static char *g_ptx;
static char g_function[256];
static int g_launches, g_syncs, g_stream_syncs, g_param_count = 0;
static int64_t g_grid[3], g_block[3], g_params[64];
static void *g_stream;

int mock_devices(void) {
  const char *env = getenv("MOCK_CUDA_DEVICES");
  return env ? atoi(env) : 1;
}

int cuInit(unsigned flags) { (void)flags; return 0; }
int cuDeviceGetCount(int *count) { *count = mock_devices(); return 0; }
int cuDeviceGet(int *dev, int ordinal) { *dev = ordinal; return 0; }
int cuDevicePrimaryCtxRetain(void **ctx, int dev) { (void)dev; *ctx = (void *)0x1; return 0; }
int cuCtxSetCurrent(void *ctx) { (void)ctx; return 0; }
int cuCtxSynchronize(void) { ++g_syncs; return 0; }
int cuGetErrorString(int rc, const char **text) { (void)rc; *text = "mock failure"; return 0; }

int cuModuleLoadDataEx(void **module, const void *image, unsigned n, int *options, void **values) {
  free(g_ptx);
  g_ptx = strdup((const char *)image);
  if (strstr(g_ptx, "MOCK_FAIL_LOAD")) {
    for (unsigned i = 0; i < n; ++i)
      if (options[i] == 5) strcpy((char *)values[i], "ptxas: mock syntax error");
    return 218;
  }
  *module = (void *)0x3;
  return 0;
}
int cuModuleLoadData(void **module, const void *image) { return cuModuleLoadDataEx(module, image, 0, 0, 0); }
int cuModuleUnload(void *module) { (void)module; return 0; }
int cuModuleGetFunction(void **fn, void *module, const char *name) {
  (void)module;
  strncpy(g_function, name, sizeof(g_function) - 1);
  *fn = (void *)0x4;
  return 0;
}
int cuLaunchKernel(void *fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                   unsigned bz, unsigned smem, void *stream, void **params, void **extra) {
  (void)fn; (void)smem; (void)extra;
  if (getenv("MOCK_CUDA_FAIL_LAUNCH")) return 700; /* CUDA_ERROR_ILLEGAL_ADDRESS */
  ++g_launches;
  g_grid[0] = gx; g_grid[1] = gy; g_grid[2] = gz;
  g_block[0] = bx; g_block[1] = by; g_block[2] = bz;
  g_stream = stream;
  for (int i = 0; i < g_param_count && i < 64; ++i)
    memcpy(&g_params[i], params[i], sizeof(int64_t));
  return 0;
}
int cuStreamCreate(void **stream, unsigned flags) { (void)flags; *stream = (void *)0x5; return 0; }
int cuStreamSynchronize(void *stream) { (void)stream; ++g_stream_syncs; return 0; }
int cuStreamDestroy_v2(void *stream) { (void)stream; return 0; }
int cuMemAlloc_v2(uint64_t *ptr, size_t bytes) { *ptr = (uint64_t)(uintptr_t)malloc(bytes); return 0; }
int cuMemFree_v2(uint64_t ptr) { free((void *)(uintptr_t)ptr); return 0; }
int cuMemcpyHtoD_v2(uint64_t dst, const void *src, size_t n) { memcpy((void *)(uintptr_t)dst, src, n); return 0; }
int cuMemcpyDtoH_v2(void *dst, uint64_t src, size_t n) { memcpy(dst, (void *)(uintptr_t)src, n); return 0; }

/* Inspection, for tests (8 bytes are read from each of the first n params). */
void mock_set_param_count(int n) { g_param_count = n; }
int mock_launches(void) { return g_launches; }
int mock_stream_syncs(void) { return g_stream_syncs; }
int64_t mock_grid(int i) { return g_grid[i]; }
int64_t mock_block(int i) { return g_block[i]; }
int64_t mock_param(int i) { return g_params[i]; }
void *mock_stream(void) { return g_stream; }
const char *mock_ptx(void) { return g_ptx ? g_ptx : ""; }
const char *mock_function(void) { return g_function; }
