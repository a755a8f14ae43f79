// What kernels derive from a graph constant (a convolution's packed or Winograd-transformed
// filter), kept across runs for as long as the constant lives.
//
// A frozen model multiplies the same constant filters on every run; packing them for the GEMM
// kernel (and transforming them for Winograd) each time costs a full pass over the weights,
// which at batch 1 is as much as the convolution itself. Const marks its buffer
// (Buffer::mark_constant); for such a buffer the derived value is made once and found again by
// buffer and key. An entry holds the buffer only weakly: when the graph goes, the buffer dies
// and its entries are dropped at the next insertion. Values of anything else (variables, feeds,
// eager tensors) are made on every call.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include "opforge/tensor.h"

namespace opforge {

// Bytes the cache may hold (derived values beyond it are made per call instead).
constexpr size_t kConstantCacheLimit = size_t{2} << 30;

// The value made by make() for `t` under `key` (which must name everything the value depends
// on besides t's contents: the kind of value and the geometry), cached when t is a constant.
std::shared_ptr<const void> derived_from_constant(const Tensor& t, const std::string& key, size_t bytes,
                                                  const std::function<std::shared_ptr<const void>()>& make);

template <typename V, typename Make>
std::shared_ptr<const V> derived_from_constant(const Tensor& t, const std::string& key, size_t bytes, Make make) {
  return std::static_pointer_cast<const V>(
      derived_from_constant(t, key, bytes, [&]() -> std::shared_ptr<const void> { return make(); }));
}

// Bytes held now (tests, memory accounting).
size_t constant_cache_bytes();
// Drops every entry (of.config.empty_cache()).
void clear_constant_cache();

}  // namespace opforge
