// Regular-expression kernels over RE2 (TensorFlow's engine: the same syntax, linear-time
// matching, no backtracking blow-ups on hostile patterns): RegexReplace, StaticRegexReplace,
// RegexFullMatch, StaticRegexFullMatch.
#include <memory>
#include <string>
#include <vector>

#include "cpu/strings/string_util.h"
#include "opforge/ops/strings/regex_full_match.h"
#include "opforge/ops/strings/regex_replace.h"
#include "opforge/ops/strings/static_regex_full_match.h"
#include "opforge/ops/strings/static_regex_replace.h"

#ifdef OPFORGE_HAVE_RE2
#include <re2/re2.h>
#endif

namespace opforge {
namespace {

using strings::values;

#ifdef OPFORGE_HAVE_RE2

// The compiled pattern, or InvalidArgument with RE2's reason (quietly: RE2 would log it).
Status compile(const char* op, const std::string& pattern, std::unique_ptr<RE2>* out) {
  RE2::Options options;
  options.set_log_errors(false);
  *out = std::make_unique<RE2>(pattern, options);
  if (!(*out)->ok()) {
    return errors::InvalidArgument(op, ": Invalid pattern: ", pattern, ", error: ", (*out)->error());
  }
  return Status::OK();
}

Status scalar_string(const char* op, const Tensor& t, const char* what, std::string* out) {
  if (t.rank() != 0)
    return errors::InvalidArgument(op, ": ", what, " must be scalar, got shape ", t.shape().to_string());
  *out = values(t)[0];
  return Status::OK();
}

Status replace(KernelContext& ctx, const char* op, const Tensor& input, const std::string& pattern,
               const std::string& rewrite, bool global) {
  std::unique_ptr<RE2> re;
  OPF_RETURN_IF_ERROR(compile(op, pattern, &re));
  std::string why;
  if (!re->CheckRewriteString(rewrite, &why)) {
    return errors::InvalidArgument(op, ": Invalid rewrite pattern: ", rewrite, ", error: ", why);
  }
  std::vector<std::string> out(values(input));
  for (std::string& s : out) {
    if (global) {
      RE2::GlobalReplace(&s, *re, rewrite);
    } else {
      RE2::Replace(&s, *re, rewrite);
    }
  }
  return Tensor::FromStrings(input.shape(), std::move(out), &ctx.output(0));
}

Status full_match(KernelContext& ctx, const char* op, const Tensor& input, const std::string& pattern) {
  std::unique_ptr<RE2> re;
  OPF_RETURN_IF_ERROR(compile(op, pattern, &re));
  OPF_RETURN_IF_ERROR(Tensor::Allocate(DType::kBool, input.shape(), &ctx.output(0)));
  bool* out = ctx.output(0).data<bool>();
  const std::vector<std::string>& in = values(input);
  for (size_t k = 0; k < in.size(); ++k) out[k] = RE2::FullMatch(in[k], *re);
  return Status::OK();
}

Status RegexReplaceCpu(ops::RegexReplaceArgs& a) {
  std::string pattern, rewrite;
  OPF_RETURN_IF_ERROR(scalar_string("RegexReplace", a.pattern, "Pattern", &pattern));
  OPF_RETURN_IF_ERROR(scalar_string("RegexReplace", a.rewrite, "Rewrite", &rewrite));
  return replace(a.ctx, "RegexReplace", a.input, pattern, rewrite, a.replace_global);
}

Status StaticRegexReplaceCpu(ops::StaticRegexReplaceArgs& a) {
  return replace(a.ctx, "StaticRegexReplace", a.input, a.pattern, a.rewrite, a.replace_global);
}

Status RegexFullMatchCpu(ops::RegexFullMatchArgs& a) {
  std::string pattern;
  OPF_RETURN_IF_ERROR(scalar_string("RegexFullMatch", a.pattern, "Pattern", &pattern));
  return full_match(a.ctx, "RegexFullMatch", a.input, pattern);
}

Status StaticRegexFullMatchCpu(ops::StaticRegexFullMatchArgs& a) {
  return full_match(a.ctx, "StaticRegexFullMatch", a.input, a.pattern);
}

#else  // built without RE2: the ops exist (graphs import) but say why they cannot run

template <typename Args>
Status no_re2(Args&) {
  return errors::Unimplemented(Args::kOpName, ": opforge was built without RE2 ",
                               "(Debian/Ubuntu: apt-get install libre2-dev, then rebuild)");
}
Status RegexReplaceCpu(ops::RegexReplaceArgs& a) { return no_re2(a); }
Status StaticRegexReplaceCpu(ops::StaticRegexReplaceArgs& a) { return no_re2(a); }
Status RegexFullMatchCpu(ops::RegexFullMatchArgs& a) { return no_re2(a); }
Status StaticRegexFullMatchCpu(ops::StaticRegexFullMatchArgs& a) { return no_re2(a); }

#endif

}  // namespace

OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(RegexReplace, CPU, RegexReplaceCpu)
OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(StaticRegexReplace, CPU, StaticRegexReplaceCpu)
OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(RegexFullMatch, CPU, RegexFullMatchCpu)
OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(StaticRegexFullMatch, CPU, StaticRegexFullMatchCpu)

}  // namespace opforge
