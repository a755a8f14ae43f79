// Shape: a list of dims, any of which may be unknown (-1), or an unknown rank.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

namespace opforge {

class Shape {
 public:
  static constexpr int64_t kUnknownDim = -1;

  Shape() = default;  // a scalar
  Shape(std::initializer_list<int64_t> dims) : dims_(dims) {}
  explicit Shape(std::vector<int64_t> dims) : dims_(std::move(dims)) {}
  static Shape UnknownRank() {
    Shape s;
    s.unknown_rank_ = true;
    return s;
  }

  bool unknown_rank() const { return unknown_rank_; }
  int rank() const { return unknown_rank_ ? -1 : static_cast<int>(dims_.size()); }
  int64_t dim(int i) const { return dims_[static_cast<size_t>(i)]; }
  const std::vector<int64_t>& dims() const { return dims_; }
  std::vector<int64_t>& mutable_dims() { return dims_; }
  bool fully_defined() const;
  // Product of dims; -1 if any dim or the rank is unknown.
  int64_t num_elements() const;
  bool operator==(const Shape& o) const { return unknown_rank_ == o.unknown_rank_ && dims_ == o.dims_; }
  bool operator!=(const Shape& o) const { return !(*this == o); }
  std::string to_string() const;  // "[2,3]", "[?,3]", "<unknown>"
  // The most specific shape both this and o have: equal dims stay, differing dims become
  // unknown, differing ranks an unknown rank (what a value that is either has).
  Shape relaxed(const Shape& o) const;
  // Whether a value of shape `value` may stand where this (partially known) shape is declared.
  bool is_compatible_with(const Shape& value) const;

 private:
  std::vector<int64_t> dims_;
  bool unknown_rank_ = false;
};

}  // namespace opforge
