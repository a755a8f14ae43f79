// ReadFile, WriteFile and MatchingFiles: whole files as string tensors, and glob patterns (glob(3)).
// Forwarding kernels: they make their string outputs themselves.
#include <glob.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "opforge/kernel.h"
#include "opforge/ops/io/matching_files.h"
#include "opforge/ops/io/read_file.h"
#include "opforge/ops/io/write_file.h"

namespace opforge {
namespace {

Status scalar_string(KernelContext& ctx, const Tensor& t, const char* what, std::string* out) {
  const std::vector<std::string>* s = t.strings();
  if (s == nullptr || t.rank() != 0) {
    return ctx.error(what, " must be a scalar string, got shape ", t.shape().to_string());
  }
  *out = (*s)[0];
  return Status::OK();
}

Status ReadFileCpu(ops::ReadFileArgs& a) {
  std::string path;
  OPF_RETURN_IF_ERROR(scalar_string(a.ctx, a.filename, "filename", &path));
  struct stat st{};
  if (::stat(path.c_str(), &st) != 0) {
    return Status(errno == ENOENT ? Code::kNotFound : Code::kInvalidArgument,
                  a.ctx.op().name + ": " + path + ": " + std::strerror(errno));
  }
  if (S_ISDIR(st.st_mode)) return a.ctx.error(path, " is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) return a.ctx.error("cannot open ", path);
  std::ostringstream buf;
  buf << in.rdbuf();
  if (in.bad()) return a.ctx.error("cannot read ", path);
  return Tensor::FromStrings(Shape(), {buf.str()}, &a.contents);
}

Status make_parents(const std::string& path) {
  for (size_t pos = path.find('/', 1); pos != std::string::npos; pos = path.find('/', pos + 1)) {
    const std::string dir = path.substr(0, pos);
    if (::mkdir(dir.c_str(), 0777) != 0 && errno != EEXIST) {
      return errors::InvalidArgument("cannot create the directory ", dir, ": ", std::strerror(errno));
    }
  }
  return Status::OK();
}

Status WriteFileCpu(ops::WriteFileArgs& a) {
  std::string path, contents;
  OPF_RETURN_IF_ERROR(scalar_string(a.ctx, a.filename, "filename", &path));
  OPF_RETURN_IF_ERROR(scalar_string(a.ctx, a.contents, "contents", &contents));
  Status s = make_parents(path);
  if (!s.ok()) return a.ctx.error(s.message());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return a.ctx.error("cannot open ", path, " for writing: ", std::strerror(errno));
  out.write(contents.data(), static_cast<std::streamsize>(contents.size()));
  out.close();
  if (!out) return a.ctx.error("cannot write ", path);
  return Status::OK();
}

Status MatchingFilesCpu(ops::MatchingFilesArgs& a) {
  const std::vector<std::string>* patterns = a.pattern.strings();
  if (patterns == nullptr || a.pattern.rank() > 1) {
    return a.ctx.error("pattern must be a string scalar or vector, got shape ", a.pattern.shape().to_string());
  }
  std::vector<std::string> found;
  for (const std::string& p : *patterns) {
    glob_t g{};
    const int rc = ::glob(p.c_str(), 0, nullptr, &g);
    if (rc == 0) {
      for (size_t i = 0; i < g.gl_pathc; ++i) found.emplace_back(g.gl_pathv[i]);
    }
    ::globfree(&g);
    if (rc != 0 && rc != GLOB_NOMATCH) return a.ctx.error("cannot expand the pattern ", p);
  }
  std::sort(found.begin(), found.end());
  const auto n = static_cast<int64_t>(found.size());
  return Tensor::FromStrings(Shape({n}), std::move(found), &a.filenames);
}

}  // namespace

OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(ReadFile, CPU, ReadFileCpu)
OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(WriteFile, CPU, WriteFileCpu)
OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(MatchingFiles, CPU, MatchingFilesCpu)

}  // namespace opforge
