// The host-callback hook of the PyFunc ops (py_func_hook.h).
#include "py_func_hook.h"

#include <memory>
#include <mutex>
#include <utility>

namespace opforge {
namespace {

std::mutex& hook_mutex() {
  static std::mutex m;
  return m;
}

std::shared_ptr<const PyFuncCallback>& hook() {
  static std::shared_ptr<const PyFuncCallback> h;
  return h;
}

}  // namespace

void set_py_func_callback(PyFuncCallback fn) {
  auto next = fn ? std::make_shared<const PyFuncCallback>(std::move(fn)) : nullptr;
  std::lock_guard<std::mutex> lock(hook_mutex());
  hook() = std::move(next);
}

Status call_py_func(const PyFuncCall& call, std::vector<Tensor>* outputs) {
  std::shared_ptr<const PyFuncCallback> fn;
  {
    std::lock_guard<std::mutex> lock(hook_mutex());
    fn = hook();
  }
  if (!fn) {
    return Status(
        Code::kFailedPrecondition,
        call.op_type + ": no Python interpreter is attached to this runtime to call function '" + call.token + "'");
  }
  return (*fn)(call, outputs);
}

}  // namespace opforge
