// Status: the result of every fallible runtime call. Codes are TensorFlow's (and gRPC's),
// so the Python layer maps them onto the same exception classes TensorFlow has.
#pragma once

#include <sstream>
#include <string>
#include <utility>

namespace opforge {

enum class Code : int {
  kOk = 0,
  kCancelled = 1,
  kUnknown = 2,
  kInvalidArgument = 3,
  kDeadlineExceeded = 4,
  kNotFound = 5,
  kAlreadyExists = 6,
  kPermissionDenied = 7,
  kResourceExhausted = 8,
  kFailedPrecondition = 9,
  kAborted = 10,
  kOutOfRange = 11,
  kUnimplemented = 12,
  kInternal = 13,
  kUnavailable = 14,
  kDataLoss = 15,
  kUnauthenticated = 16,
};

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Code code, std::string message) : code_(code), message_(std::move(message)) {}
  static Status OK() { return Status(); }

  bool ok() const { return code_ == Code::kOk; }
  Code code() const { return code_; }
  const std::string& message() const { return message_; }

 private:
  Code code_ = Code::kOk;
  std::string message_;
};

namespace errors {

template <typename... Args>
std::string StrCat(const Args&... args) {
  std::ostringstream os;
  (os << ... << args);
  return os.str();
}

template <typename... Args>
Status InvalidArgument(const Args&... args) {
  return Status(Code::kInvalidArgument, StrCat(args...));
}
template <typename... Args>
Status NotFound(const Args&... args) {
  return Status(Code::kNotFound, StrCat(args...));
}
template <typename... Args>
Status Internal(const Args&... args) {
  return Status(Code::kInternal, StrCat(args...));
}
template <typename... Args>
Status Unimplemented(const Args&... args) {
  return Status(Code::kUnimplemented, StrCat(args...));
}
template <typename... Args>
Status OutOfRange(const Args&... args) {
  return Status(Code::kOutOfRange, StrCat(args...));
}
template <typename... Args>
Status AlreadyExists(const Args&... args) {
  return Status(Code::kAlreadyExists, StrCat(args...));
}
template <typename... Args>
Status ResourceExhausted(const Args&... args) {
  return Status(Code::kResourceExhausted, StrCat(args...));
}
template <typename... Args>
Status FailedPrecondition(const Args&... args) {
  return Status(Code::kFailedPrecondition, StrCat(args...));
}
template <typename... Args>
Status DeadlineExceeded(const Args&... args) {
  return Status(Code::kDeadlineExceeded, StrCat(args...));
}
template <typename... Args>
Status Unavailable(const Args&... args) {
  return Status(Code::kUnavailable, StrCat(args...));
}
template <typename... Args>
Status DataLoss(const Args&... args) {
  return Status(Code::kDataLoss, StrCat(args...));
}
template <typename... Args>
Status Cancelled(const Args&... args) {
  return Status(Code::kCancelled, StrCat(args...));
}

}  // namespace errors

#define OPF_RETURN_IF_ERROR(expr)              \
  do {                                         \
    ::opforge::Status _opf_status = (expr);    \
    if (!_opf_status.ok()) return _opf_status; \
  } while (0)

}  // namespace opforge
