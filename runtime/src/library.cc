// Loading op libraries (see opforge/library.h for the protocol).
#include "opforge/library.h"

#include <dlfcn.h>
#include <sys/stat.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <mutex>

#include "opforge/shape_fns.h"

namespace opforge {
namespace {

thread_local RegistrationStage* g_stage = nullptr;
std::mutex g_load_mu;  // one library loads at a time

// The tag between the markers in the file's bytes; false if there is none.
bool find_abi_tag(const std::string& bytes, std::string* tag) {
  const std::string begin = OPFORGE_ABI_BEGIN, end = OPFORGE_ABI_END;
  size_t b = bytes.find(begin);
  if (b == std::string::npos) return false;
  b += begin.size();
  size_t e = bytes.find(end, b);
  if (e == std::string::npos || e - b > 256) return false;
  *tag = bytes.substr(b, e - b);
  return true;
}

}  // namespace

RegistrationStage* current_stage() { return g_stage; }

ScopedRegistrationStage::ScopedRegistrationStage(RegistrationStage* stage) {
  g_load_mu.lock();
  g_stage = stage;
}

ScopedRegistrationStage::~ScopedRegistrationStage() {
  g_stage = nullptr;
  g_load_mu.unlock();
}

const char* abi_tag() { return OPFORGE_ABI_TAG; }

Status OpLibrary::Open(const std::string& path, std::unique_ptr<OpLibrary>* out) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) {
    return errors::NotFound("load_op_library: no such file: '", path, "'");
  }
  if (!S_ISREG(st.st_mode)) {
    return errors::InvalidArgument("load_op_library: '", path, "' is not a file");
  }
  std::string bytes;
  {
    std::ifstream f(path, std::ios::binary);
    if (!f) return errors::InvalidArgument("load_op_library: cannot read '", path, "'");
    bytes.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  }
  if (bytes.size() < 4 || std::memcmp(bytes.data(),
                                      "\x7f"
                                      "ELF",
                                      4) != 0) {
    return errors::InvalidArgument("load_op_library: '", path, "' is not a shared library (no ELF header)");
  }
  std::string tag;
  if (!find_abi_tag(bytes, &tag)) {
    return errors::InvalidArgument("load_op_library: '", path,
                                   "' is not an opforge op library (it carries no opforge ABI "
                                   "tag; build it with opforge_add_op_library)");
  }
  if (tag != abi_tag()) {
    return errors::FailedPrecondition("load_op_library: '", path, "' was built against an incompatible opforge ABI ('",
                                      tag, "'; this opforge has '", abi_tag(),
                                      "'): rebuild it against the installed opforge");
  }

  std::unique_ptr<OpLibrary> lib(new OpLibrary());
  lib->path_ = path;
  {
    std::lock_guard<std::mutex> lock(g_load_mu);
    g_stage = &lib->stage_;
    dlerror();
    lib->handle_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    g_stage = nullptr;
  }
  if (lib->handle_ == nullptr) {
    const char* err = dlerror();
    lib->stage_ = RegistrationStage();
    return errors::InvalidArgument("load_op_library: cannot load '", path, "': ", err ? err : "dlopen failed");
  }
  auto name = static_cast<const char*>(dlsym(lib->handle_, "opforge_library_name"));
  auto opdefs = static_cast<const char* const*>(dlsym(lib->handle_, "opforge_library_opdefs"));
  if (name == nullptr || opdefs == nullptr) {
    return errors::InvalidArgument("load_op_library: '", path, "' is not an opforge op library (no embedded opdefs)");
  }
  lib->name_ = name;
  for (const char* const* p = opdefs; p[0] != nullptr && p[1] != nullptr; p += 2) {
    lib->opdefs_.emplace_back(p[0], p[1]);
  }
  *out = std::move(lib);
  return Status::OK();
}

OpLibrary::~OpLibrary() {
  if (committed_ || handle_ == nullptr) return;
  stage_ = RegistrationStage();  // drop std::functions pointing into the library first
  dlclose(handle_);
}

std::vector<std::string> OpLibrary::op_names() const {
  std::vector<std::string> out;
  for (const OpSpec& op : stage_.ops) out.push_back(op.name);
  return out;
}

Status OpLibrary::Check() const {
  if (committed_) return errors::FailedPrecondition("op library '", name_, "' is already committed");
  OPF_RETURN_IF_ERROR(OpRegistry::Global().check_batch(stage_.ops));
  const KernelRegistry& kernels = KernelRegistry::Global();
  for (const auto& k : stage_.kernels) {
    const std::string& op = std::get<0>(k);
    bool own = false;
    for (const OpSpec& spec : stage_.ops) own = own || spec.name == op;
    if (!own && kernels.find(op, std::get<1>(k), std::get<2>(k)) != nullptr) {
      return errors::AlreadyExists("a ", device_name(std::get<1>(k)), " kernel of op '", op, "' for ",
                                   dtype_name(std::get<2>(k)), " is already registered");
    }
  }
  for (const auto& f : stage_.shape_fns) {
    bool own = false;
    for (const OpSpec& spec : stage_.ops) own = own || spec.name == f.first;
    if (!own && shape_fns::find_custom(f.first)) {
      return errors::AlreadyExists("a custom shape function of op '", f.first, "' is already registered");
    }
  }
  return Status::OK();
}

Status OpLibrary::Commit() {
  std::lock_guard<std::mutex> lock(g_load_mu);
  OPF_RETURN_IF_ERROR(Check());
  OPF_RETURN_IF_ERROR(OpRegistry::Global().commit_batch(std::move(stage_.ops), name_));
  for (auto& k : stage_.kernels) {
    KernelRegistry::Global().add(std::get<0>(k), std::get<1>(k), std::get<2>(k), std::get<3>(k));
  }
  for (auto& f : stage_.shape_fns) shape_fns::register_custom(f.first, std::move(f.second));
  stage_ = RegistrationStage();
  committed_ = true;
  return Status::OK();
}

}  // namespace opforge
