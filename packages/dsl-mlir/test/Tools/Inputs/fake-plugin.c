/* A minimal plugin for the dsl-opt plugin tests: the upstream entry point of
 * one kind (DIALECT or PASS defined), and the release stamp taken from the
 * dsl-mlir library it is linked against, so it passes every other check. */
#include <stddef.h>
#include <stdint.h>

typedef struct {
  uint32_t apiVersion;
  const char *name;
  const char *version;
  void (*registerCallbacks)(void *);
} Info;

typedef struct {
  const char *data;
  size_t length;
} StringRef;

StringRef dslGetPluginAbiVersion(void);

static void registerNothing(void *unused) { (void)unused; }

#ifdef DIALECT
Info mlirGetDialectPluginInfo(void) {
  Info info = {1, "fake-dialects", "1.0", registerNothing};
  return info;
}
#endif
#ifdef PASS
Info mlirGetPassPluginInfo(void) {
  Info info = {1, "fake-passes", "1.0", registerNothing};
  return info;
}
#endif

const char *dslPluginAbiVersion(void) { return dslGetPluginAbiVersion().data; }
