//===- Plugins.cpp - loading dialect and pass plugins ---------------------===//
//
// A plugin is a shared library linked against libDslPythonCAPI.so (the one
// copy of MLIR in the process) that exports the upstream entry points
// mlirGetDialectPluginInfo / mlirGetPassPluginInfo and, through dsl/Plugin.h,
// the dsl-mlir release it was built against (dslPluginAbiVersion).
//
// We open it ourselves rather than through mlir::DialectPlugin::load: with
// RTLD_LOCAL (so that neither the plugin nor, through it, this library joins
// the global symbol scope, where it could capture the symbols of another MLIR
// loaded later), once per process, and with messages that say what to do.
//
//===----------------------------------------------------------------------===//

#include "Plugins.h"

#include "dsl-c/Dsl.h"
#include "dsl/Version.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/Support/FileSystem.h"

#include <dlfcn.h>
#include <link.h>
#include <sys/stat.h>

#include <cerrno>

#include <cstring>
#include <map>
#include <mutex>
#include <string>

using llvm::StringRef;

namespace {

using DialectEntry = mlir::DialectPluginLibraryInfo (*)();
using PassEntry = mlir::PassPluginLibraryInfo (*)();
using StampEntry = const char *(*)();

constexpr const char *kDialectEntry = "mlirGetDialectPluginInfo";
constexpr const char *kPassEntry = "mlirGetPassPluginInfo";
constexpr const char *kStampEntry = "dslPluginAbiVersion";
/// The version node of every symbol libDslPythonCAPI.so exports.
constexpr StringRef kVersionNodePrefix = "DSLMLIR_";

struct LoadedPlugin {
  bool hasDialects = false;
  bool hasPasses = false;
  mlir::DialectPluginLibraryInfo dialects{};
  mlir::PassPluginLibraryInfo passes{};
};

std::mutex &pluginMutex() {
  static std::mutex mutex;
  return mutex;
}

/// Every plugin loaded so far, by dlopen handle (one handle per file).
std::map<void *, LoadedPlugin> &loadedPlugins() {
  static std::map<void *, LoadedPlugin> plugins;
  return plugins;
}

/// `name` if the library behind `handle` defines it itself: dlsym on a handle
/// also searches the library's dependencies (this library among them).
void *ownSymbol(void *handle, const char *name) {
  void *symbol = dlsym(handle, name);
  if (!symbol)
    return nullptr;
  struct link_map *map = nullptr;
  Dl_info where;
  if (dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0 || !map ||
      !dladdr(symbol, &where) || !where.dli_fname ||
      std::strcmp(where.dli_fname, map->l_name) != 0)
    return nullptr;
  return symbol;
}

/// What a path that is not a regular file is, for messages.
const char *fileKind(mode_t mode) {
  if (S_ISFIFO(mode))
    return "a FIFO";
  if (S_ISCHR(mode))
    return "a character device";
  if (S_ISBLK(mode))
    return "a block device";
  if (S_ISSOCK(mode))
    return "a socket";
  return "not a file";
}

/// The loader's message, explained where we can.
std::string explainLoadError(StringRef path, StringRef error) {
  std::string message =
      ("cannot load dsl-mlir plugin '" + path + "': " + error).str();
  // A plugin linked against another release of this library needs a version
  // node that this one does not define.
  size_t node = error.find(("version `" + kVersionNodePrefix).str());
  if (node != StringRef::npos) {
    StringRef release = error.drop_front(node + 9 + kVersionNodePrefix.size())
                            .take_until([](char c) { return c == '\''; });
    return ("dsl-mlir plugin '" + path + "' was built against dsl-mlir " +
            release + ", but this process runs " + DSL_MLIR_ABI_VERSION +
            "; rebuild the plugin against dsl-mlir " + DSL_MLIR_VERSION +
            " (loader: " + error + ")")
        .str();
  }
  // An MLIR/LLVM symbol that this library does not export.
  size_t undefined = error.find("undefined symbol: ");
  if (undefined != StringRef::npos) {
    StringRef symbol = error.drop_front(undefined + 18).take_until(
        [](char c) { return c == ',' || c == ' ' || c == '\n'; });
    std::string demangled = llvm::demangle(symbol);
    if (demangled != symbol)
      message += " [" + demangled + "]";
    message += "; dsl-mlir exports the MLIR/LLVM code it contains itself (see "
               "docs/extending.md), and a plugin must not link a second copy "
               "of MLIR";
  }
  return message;
}

/// Load (once) and check `path`; fills `plugin` and returns the handle, or
/// null with `error` set. Called with pluginMutex() held.
void *openPlugin(StringRef path, int mode, LoadedPlugin *&plugin,
                 bool &alreadyLoaded, std::string &error) {
  std::string file = path.str();
  // dlopen reads whatever the path names: a FIFO would block it forever, a
  // device would feed it without end. Only regular files are opened.
  struct stat info;
  if (::stat(file.c_str(), &info) != 0) {
    int err = errno;
    error = err == ENOENT || err == ENOTDIR
                ? ("dsl-mlir plugin '" + path + "' does not exist").str()
                : ("cannot read dsl-mlir plugin '" + path +
                   "': " + std::strerror(err))
                      .str();
    return nullptr;
  }
  if (S_ISDIR(info.st_mode)) {
    error = ("dsl-mlir plugin '" + path + "' is a directory, not a shared "
             "library")
                .str();
    return nullptr;
  }
  if (!S_ISREG(info.st_mode)) {
    error = ("dsl-mlir plugin '" + path + "' is not a regular file (" +
             fileKind(info.st_mode) + "), not a shared library")
                .str();
    return nullptr;
  }
  dlerror();
  void *handle = dlopen(file.c_str(), mode | RTLD_NODELETE);
  if (!handle) {
    const char *why = dlerror();
    error = explainLoadError(path, why ? why : "unknown error");
    return nullptr;
  }
  auto found = loadedPlugins().find(handle);
  if (found != loadedPlugins().end()) {
    // dlopen counts references; the library stays loaded anyway (NODELETE).
    dlclose(handle);
    plugin = &found->second;
    alreadyLoaded = true;
    return handle;
  }
  // From here on the library stays mapped even when refused: its static
  // initializers have run and may have registered things with this library.
  auto dialectEntry =
      reinterpret_cast<DialectEntry>(ownSymbol(handle, kDialectEntry));
  auto passEntry = reinterpret_cast<PassEntry>(ownSymbol(handle, kPassEntry));
  if (!dialectEntry && !passEntry) {
    error = ("'" + path + "' is not a dsl-mlir plugin: it exports neither " +
             kDialectEntry + " nor " + kPassEntry +
             " (declare them with DSL_MLIR_PLUGIN_EXPORT from dsl/Plugin.h)")
                .str();
    return nullptr;
  }
  // The release check comes before any call into the plugin.
  auto stamp = reinterpret_cast<StampEntry>(ownSymbol(handle, kStampEntry));
  if (!stamp) {
    error = ("'" + path + "' was not built for dsl-mlir: it does not record "
             "the dsl-mlir release it was built against (" +
             kStampEntry + "); build it with find_package(DslMLIR) and "
             "include \"dsl/Plugin.h\"")
                .str();
    return nullptr;
  }
  StringRef theirs = stamp();
  if (theirs != DSL_MLIR_ABI_VERSION) {
    error = ("dsl-mlir plugin '" + path + "' was built against " + theirs +
             ", but this process runs " + DSL_MLIR_ABI_VERSION +
             "; rebuild the plugin against dsl-mlir " + DSL_MLIR_VERSION)
                .str();
    return nullptr;
  }
  LoadedPlugin loaded;
  if (dialectEntry) {
    loaded.dialects = dialectEntry();
    loaded.hasDialects = true;
    if (loaded.dialects.apiVersion != MLIR_PLUGIN_API_VERSION) {
      error = ("dsl-mlir plugin '" + path + "' uses MLIR plugin API version " +
               std::to_string(loaded.dialects.apiVersion) +
               " in " + kDialectEntry + "; this MLIR supports version " +
               std::to_string(MLIR_PLUGIN_API_VERSION))
                  .str();
      return nullptr;
    }
    if (!loaded.dialects.registerDialectRegistryCallbacks) {
      error = ("dsl-mlir plugin '" + path + "': " + kDialectEntry +
               " returned no registration callback")
                  .str();
      return nullptr;
    }
  }
  if (passEntry) {
    loaded.passes = passEntry();
    loaded.hasPasses = true;
    if (loaded.passes.apiVersion != MLIR_PLUGIN_API_VERSION) {
      error = ("dsl-mlir plugin '" + path + "' uses MLIR plugin API version " +
               std::to_string(loaded.passes.apiVersion) + " in " + kPassEntry +
               "; this MLIR supports version " +
               std::to_string(MLIR_PLUGIN_API_VERSION))
                  .str();
      return nullptr;
    }
    if (!loaded.passes.registerPassRegistryCallbacks) {
      error = ("dsl-mlir plugin '" + path + "': " + kPassEntry +
               " returned no registration callback")
                  .str();
      return nullptr;
    }
  }
  plugin = &loadedPlugins().emplace(handle, loaded).first->second;
  alreadyLoaded = false;
  return handle;
}

const char *orEmpty(const char *text) { return text ? text : ""; }

} // namespace

bool mlir::dsl::checkPlugin(StringRef path, PluginKind kind,
                            std::string &error) {
  std::lock_guard<std::mutex> lock(pluginMutex());
  LoadedPlugin *plugin = nullptr;
  bool alreadyLoaded = false;
  // dsl-opt loads the plugin again through mlir::DialectPlugin (RTLD_GLOBAL).
  if (!openPlugin(path, RTLD_NOW | RTLD_GLOBAL, plugin, alreadyLoaded, error))
    return false;
  bool dialect = kind == PluginKind::Dialect;
  if (dialect ? plugin->hasDialects : plugin->hasPasses)
    return true;
  error = ("'" + path + "' is a " + (dialect ? "pass" : "dialect") +
           " plugin: it exports " + (dialect ? kPassEntry : kDialectEntry) +
           " but not " + (dialect ? kDialectEntry : kPassEntry) + ", which " +
           (dialect ? "--load-dialect-plugin" : "--load-pass-plugin") +
           " needs; load it with " +
           (dialect ? "--load-pass-plugin" : "--load-dialect-plugin"))
              .str();
  return false;
}

MlirStringRef dslGetPluginAbiVersion(void) {
  return mlirStringRefCreateFromCString(DSL_MLIR_ABI_VERSION);
}

MlirLogicalResult dslLoadPlugin(MlirStringRef path, MlirDialectRegistry registry,
                                DslPluginInfo *info, MlirStringCallback onError,
                                void *userData) {
  std::lock_guard<std::mutex> lock(pluginMutex());
  LoadedPlugin *plugin = nullptr;
  bool alreadyLoaded = false;
  std::string error;
  if (!openPlugin(unwrap(path), RTLD_NOW | RTLD_LOCAL, plugin, alreadyLoaded,
                  error)) {
    if (onError)
      onError(mlirStringRefCreate(error.data(), error.size()), userData);
    return mlirLogicalResultFailure();
  }
  if (plugin->hasDialects && !mlirDialectRegistryIsNull(registry))
    plugin->dialects.registerDialectRegistryCallbacks(unwrap(registry));
  if (plugin->hasPasses && !alreadyLoaded)
    plugin->passes.registerPassRegistryCallbacks();
  if (info) {
    const char *name = plugin->hasDialects ? plugin->dialects.pluginName
                                           : plugin->passes.pluginName;
    const char *version = plugin->hasDialects ? plugin->dialects.pluginVersion
                                              : plugin->passes.pluginVersion;
    info->name = orEmpty(name);
    info->version = orEmpty(version);
    info->hasDialects = plugin->hasDialects;
    info->hasPasses = plugin->hasPasses;
    info->alreadyLoaded = alreadyLoaded;
  }
  return mlirLogicalResultSuccess();
}
