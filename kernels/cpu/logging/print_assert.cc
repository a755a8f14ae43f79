// Print (pass the input through, write tensors to stderr) and Assert (fail the run when a
// condition is false), with TensorFlow's summarized value format: "[1 2 3...]"; and Timestamp
// (read the wall clock).
#include <charconv>
#include <chrono>
#include <cstdio>
#include <map>
#include <mutex>
#include <sstream>
#include <string>

#include "cpu/cpu_util.h"
#include "opforge/ops/logging/assert_.h"
#include "opforge/ops/logging/print.h"
#include "opforge/ops/logging/timestamp.h"
#include "opforge/resource.h"
#include "opforge/shape_fns.h"

namespace opforge {
namespace {

template <typename T>
void write_value(std::ostringstream& os, const T& v) {
  if constexpr (std::is_same_v<T, bool>) {
    os << (v ? "1" : "0");
  } else if constexpr (std::is_same_v<T, int8_t> || std::is_same_v<T, uint8_t>) {
    os << static_cast<int>(v);
  } else if constexpr (std::is_same_v<T, half> || std::is_same_v<T, bfloat16>) {
    write_value(os, static_cast<float>(v));
  } else if constexpr (std::is_floating_point_v<T>) {
    char buf[64];  // the shortest text that reads back as the same value, as TensorFlow prints
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    os.write(buf, r.ptr - buf);
  } else {
    os << v;
  }
}

// TensorFlow's summarized form of a tensor's values: at most `limit` values in all, in
// row-major order, space-separated; every dimension but the outermost in brackets; "..."
// where values were left out.
template <typename Write>
void summarize_dim(std::ostringstream& os, const Shape& shape, int dim, int64_t limit, int64_t* next, Write&& write) {
  if (*next >= limit) return;
  const int64_t n = shape.dim(dim);
  if (dim == shape.rank() - 1) {
    for (int64_t i = 0; i < n; ++i) {
      if (*next >= limit) {
        if (dim != 0) os << "...";
        return;
      }
      if (i > 0) os << " ";
      write((*next)++);
    }
    return;
  }
  for (int64_t i = 0; i < n; ++i) {
    const bool opened = *next < limit;
    if (opened) os << "[";
    summarize_dim(os, shape, dim + 1, limit, next, write);
    if (opened) os << "]";
  }
}

std::string summarize(const Tensor& t, int64_t max_entries) {
  const int64_t n = t.num_elements();
  const int64_t limit = max_entries < 0 ? n : std::min(max_entries, n);
  std::ostringstream os;
  auto body = [&](auto&& write) {
    if (t.rank() == 0) {
      if (n > 0) write(0);
      return;
    }
    int64_t next = 0;
    summarize_dim(os, t.shape(), 0, limit, &next, write);
  };
  if (t.dtype() == DType::kString) {
    const auto& s = *t.strings();
    body([&](int64_t i) { os << s[static_cast<size_t>(i)]; });
  } else if (!visit_dtype(t.dtype(), [&](auto tag) {
               using T = decltype(tag);
               const T* data = t.data<T>();
               body([&](int64_t i) { write_value(os, data[i]); });
             })) {
    return "<" + dtype_name(t.dtype()) + ">";
  }
  if (limit < n) os << "...";
  return os.str();
}

// How many times this Print has run: per node and Session in a graph (the count lives in the
// session's resources, as each Session has its own kernel in TensorFlow), per op name eagerly.
std::mutex eager_print_mu;
std::map<std::string, int64_t>& eager_print_counts() {
  static auto* m = new std::map<std::string, int64_t>();
  return *m;
}

Status next_print_count(KernelContext& ctx, int64_t* count) {
  if (ExecEnv* env = ctx.env(); env && env->resources && env->node_name) {
    Variable* v = nullptr;
    OPF_RETURN_IF_ERROR(
        env->resources->lookup_or_create("_opforge_print_count/" + *env->node_name, DType::kInt64, Shape({}), &v));
    std::lock_guard<std::mutex> lock(v->mu);
    *count = v->initialized ? v->value.data<int64_t>()[0] : 0;
    Tensor next;
    OPF_RETURN_IF_ERROR(Tensor::Allocate(DType::kInt64, Shape({}), &next));
    next.data<int64_t>()[0] = *count + 1;
    v->value = next;  // values are immutable: install a new tensor
    v->initialized = true;
    return Status::OK();
  }
  std::lock_guard<std::mutex> lock(eager_print_mu);
  *count = eager_print_counts()[ctx.op().name]++;
  return Status::OK();
}

template <typename T>  // the input is passed along whatever its type
Status PrintCpu(ops::PrintArgs& a) {
  a.output = a.input;
  if (a.first_n > 0) {
    int64_t count = 0;
    OPF_RETURN_IF_ERROR(next_print_count(a.ctx, &count));
    if (count >= a.first_n) return Status::OK();
  }
  std::string line = a.message;
  for (int i = 0; i < a.data.size; ++i) line += "[" + summarize(a.data[i], a.summarize) + "]";
  line += "\n";
  std::fwrite(line.data(), 1, line.size(), stderr);  // one write: lines of concurrent runs stay whole
  std::fflush(stderr);
  return Status::OK();
}

Status AssertCpu(ops::AssertArgs& a) {
  if (a.condition.num_elements() != 1 || a.condition.rank() != 0) {
    return a.ctx.error("In[0] expected to be a scalar tensor, got shape ", a.condition.shape().to_string());
  }
  if (a.condition.data<bool>()[0]) return Status::OK();
  std::string msg = "assertion failed: ";
  for (int i = 0; i < a.data.size; ++i)
    msg += (i ? " " : "") + std::string("[") + summarize(a.data[i], a.summarize) + "]";
  return a.ctx.error(msg);
}

// Timestamp: wall-clock seconds since the epoch, microsecond resolution as TensorFlow's.
Status TimestampCpu(ops::TimestampArgs& a) {
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  a.ts.data<double>()[0] = std::chrono::duration_cast<std::chrono::microseconds>(now).count() / 1e6;
  return Status::OK();
}

}  // namespace

OPFORGE_REGISTER_FORWARDING_KERNEL(Print, CPU, PrintCpu, bool, uint8_t, int8_t, int16_t, int32_t, int64_t, bfloat16,
                                   half, float, double, StringTag, VariantTag)
OPFORGE_REGISTER_UNTYPED_KERNEL(Assert, CPU, AssertCpu)
OPFORGE_REGISTER_UNTYPED_KERNEL(Timestamp, CPU, TimestampCpu)

}  // namespace opforge
