// SdcaFprint (TensorFlow's core/kernels/sdca_ops.cc): the 128-bit FarmHash fingerprints SDCA keys
// its features by.
#include <cstdint>

#include "cpu/cpu_util.h"
#include "cpu/strings/string_util.h"
#include "opforge/ops/training/sdca_fprint.h"

#ifdef OPFORGE_HAVE_FARMHASH
#include <farmhash.h>
#endif

namespace opforge {
namespace {

Status SdcaFprintCpu(ops::SdcaFprintArgs& a) {
  if (a.input.rank() != 1) return a.ctx.error("Input must be a vector, got shape ", a.input.shape().to_string());
#ifdef OPFORGE_HAVE_FARMHASH
  const std::vector<std::string>& in = strings::values(a.input);
  const int64_t n = a.input.dim(0);
  OPF_RETURN_IF_ERROR(Tensor::Allocate(DType::kInt64, Shape{n, 2}, &a.ctx.output(0)));
  int64_t* out = a.ctx.output(0).data<int64_t>();
  for (int64_t i = 0; i < n; ++i) {
    const std::string& s = in[static_cast<size_t>(i)];
    const auto print = util::Fingerprint128(s.data(), s.size());
    const uint64_t low = util::Uint128Low64(print);
    // 0 and 1 are never the first value, so that they can serve as sentinel keys (TensorFlow's rule).
    out[2 * i] = static_cast<int64_t>(low >= 2 ? low : low + ~static_cast<uint64_t>(1));
    out[2 * i + 1] = static_cast<int64_t>(util::Uint128High64(print));
  }
  return Status::OK();
#else
  return errors::Unimplemented("SdcaFprint: opforge was built without the farmhash library ",
                               "(Debian/Ubuntu: apt-get install libfarmhash-dev, then rebuild)");
#endif
}

}  // namespace

OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(SdcaFprint, CPU, SdcaFprintCpu)

}  // namespace opforge
