// An iterator that reads its input ahead on a thread of its own (PrefetchDataset, and each
// open dataset of a parallel interleave).
#pragma once

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include "opforge/dataset.h"

namespace opforge {
namespace data {

class PrefetchIterator final : public IteratorBase {
 public:
  // Buffers up to `buffer` elements (at least 1).
  PrefetchIterator(std::unique_ptr<IteratorBase> input, int64_t buffer);
  ~PrefetchIterator() override;
  Status GetNext(std::vector<Tensor>* out, bool* end) override;

 private:
  void Run();

  std::unique_ptr<IteratorBase> input_;
  const size_t buffer_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::vector<Tensor>> queue_;
  Status status_;      // the input's error, returned after the elements before it
  bool done_ = false;  // the input ended or failed
  bool cancelled_ = false;
  std::thread thread_;
};

}  // namespace data
}  // namespace opforge
