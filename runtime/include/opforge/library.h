// Op libraries: shared libraries built out of tree (opforge_add_op_library) and loaded at run
// time. Loading is all-or-nothing:
//
//  1. The file is checked before anything of it runs: it must exist, be an ELF shared object
//     and carry the ABI tag of this runtime (generated code embeds OPFORGE_ABI_TAG between
//     the markers below, so the loader finds it by scanning the file, without dlopen).
//  2. It is dlopen'ed (RTLD_NOW | RTLD_LOCAL) with a registration stage active on the loading
//     thread: the static initializers of its generated registration code, of its kernels
//     and of its custom shape functions add to the stage, not to the global registries.
//  3. commit() checks the staged batch against the registries (op name clashes, kernels for
//     (op, device, dtype) that already exist) and publishes all of it, or nothing; a library
//     that is not committed is dlclose'd with its stage discarded.
#pragma once

#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "opforge/kernel.h"
#include "opforge/op.h"
#include "opforge/status.h"

// The ABI an op library is compiled against. Bump OPFORGE_ABI_VERSION whenever a change to
// the public headers (runtime/include/opforge, generated call structs) breaks binary
// compatibility with libraries built earlier.
#define OPFORGE_ABI_VERSION 4
#define OPFORGE_STR_(x) #x
#define OPFORGE_STR(x) OPFORGE_STR_(x)
#if defined(OPFORGE_ABI_TAG_OVERRIDE)  // tests build a mismatching library with this
#define OPFORGE_ABI_TAG OPFORGE_ABI_TAG_OVERRIDE
#else
#if defined(_GLIBCXX_USE_CXX11_ABI)
#define OPFORGE_ABI_CXX "libstdc++" OPFORGE_STR(_GLIBCXX_USE_CXX11_ABI)
#elif defined(_LIBCPP_VERSION)
#define OPFORGE_ABI_CXX "libc++"
#else
#define OPFORGE_ABI_CXX "cxx"
#endif
#define OPFORGE_ABI_TAG "opforge-abi-" OPFORGE_STR(OPFORGE_ABI_VERSION) "/" OPFORGE_ABI_CXX
#endif
// The tag as embedded in a library file: OPFORGE_ABI_BEGIN tag OPFORGE_ABI_END.
#define OPFORGE_ABI_BEGIN "@@OPFORGE_ABI_TAG<"
#define OPFORGE_ABI_END ">@@"

namespace opforge {

// Registrations made while a library loads.
struct RegistrationStage {
  std::vector<OpSpec> ops;
  std::vector<std::tuple<std::string, Device, DType, KernelDef>> kernels;
  std::vector<std::pair<std::string, ShapeFn>> shape_fns;
};

// The stage registrations on this thread go to; nullptr (the default): straight to the
// registries (ops to OpRegistry's pending list).
RegistrationStage* current_stage();

// While alive, registrations on this thread go to `stage` (one loader at a time; GPU backend
// libraries are loaded this way, see device.h).
class ScopedRegistrationStage {
 public:
  explicit ScopedRegistrationStage(RegistrationStage* stage);
  ~ScopedRegistrationStage();
  ScopedRegistrationStage(const ScopedRegistrationStage&) = delete;
  ScopedRegistrationStage& operator=(const ScopedRegistrationStage&) = delete;
};

// The ABI tag of this runtime.
const char* abi_tag();

class OpLibrary {
 public:
  // Checks and dlopens `path` with a stage active. NotFound: no such file; InvalidArgument:
  // not a shared library, not an opforge op library, or dlopen failed; FailedPrecondition:
  // built against another ABI. Nothing is registered on return.
  static Status Open(const std::string& path, std::unique_ptr<OpLibrary>* out);
  ~OpLibrary();  // dlcloses the library unless it was committed

  const std::string& path() const { return path_; }
  const std::string& name() const { return name_; }
  // The opdef files embedded by the generated code: (source name, text) pairs.
  const std::vector<std::pair<std::string, std::string>>& opdefs() const { return opdefs_; }
  std::vector<std::string> op_names() const;
  // What commit() would refuse, without registering anything.
  Status Check() const;
  // Publishes the staged ops, kernels and shape functions (all or nothing). After a
  // successful commit the library stays loaded for the life of the process.
  Status Commit();
  bool committed() const { return committed_; }

 private:
  OpLibrary() = default;
  std::string path_, name_;
  std::vector<std::pair<std::string, std::string>> opdefs_;
  RegistrationStage stage_;
  void* handle_ = nullptr;
  bool committed_ = false;
};

}  // namespace opforge
