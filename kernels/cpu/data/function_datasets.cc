// Datasets that call functions (map, parallel map, filter, flat_map, interleave, parallel
// interleave) and PrefetchDataset. Worker threads are the iterators' own; each joins them when
// it is destroyed.
#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>

#include "cpu/data/dataset_util.h"
#include "cpu/data/prefetch.h"
#include "opforge/ops/data_ops.h"

namespace opforge {
namespace data {

PrefetchIterator::PrefetchIterator(std::unique_ptr<IteratorBase> input, int64_t buffer)
    : input_(std::move(input)), buffer_(static_cast<size_t>(std::max<int64_t>(buffer, 1))) {
  thread_ = start_iterator_thread([this] { Run(); });
}

PrefetchIterator::~PrefetchIterator() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    cancelled_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void PrefetchIterator::Run() {
  while (true) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] { return cancelled_ || queue_.size() < buffer_; });
      if (cancelled_) return;
    }
    std::vector<Tensor> e;
    bool end = false;
    Status s = input_->GetNext(&e, &end);
    std::lock_guard<std::mutex> lock(mu_);
    if (!s.ok() || end) {
      status_ = s;
      done_ = true;
      cv_.notify_all();
      return;
    }
    queue_.push_back(std::move(e));
    cv_.notify_all();
  }
}

Status PrefetchIterator::GetNext(std::vector<Tensor>* out, bool* end) {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return !queue_.empty() || done_; });
  if (!queue_.empty()) {
    *out = std::move(queue_.front());
    queue_.pop_front();
    *end = false;
    cv_.notify_all();
    return Status::OK();
  }
  *end = status_.ok();
  return status_;
}

}  // namespace data

namespace {

using data::autotuned_threads;
using data::CapturedFunction;
using data::check_results;
using data::DatasetPtr;
using data::function_input;

class PrefetchDataset final : public DatasetBase {
 public:
  PrefetchDataset(DatasetPtr input, int64_t buffer, std::vector<DType> d, std::vector<Shape> s)
      : DatasetBase("PrefetchDataset", std::move(d), std::move(s)), input_(std::move(input)), buffer_(buffer) {}
  std::vector<DatasetPtr> inputs() const override { return {input_}; }
  Status MakeIterator(std::unique_ptr<IteratorBase>* out) const override {
    std::unique_ptr<IteratorBase> in;
    OPF_RETURN_IF_ERROR(input_->MakeIterator(&in));
    *out = std::make_unique<data::PrefetchIterator>(std::move(in), buffer_ < 0 ? 16 : buffer_);  // -1: AUTOTUNE
    return Status::OK();
  }
  int64_t Cardinality() const override { return input_->Cardinality(); }

 private:
  DatasetPtr input_;
  int64_t buffer_;
};

// MapDataset (threads = 0: on the caller's thread) and ParallelMapDatasetV2 (threads > 0:
// that many workers; elements come out in the input's order).
class MapDataset final : public DatasetBase {
 public:
  MapDataset(const std::string& op, DatasetPtr input, std::shared_ptr<const CapturedFunction> f, int64_t threads,
             std::vector<DType> d, std::vector<Shape> s)
      : DatasetBase(op, std::move(d), std::move(s)), input_(std::move(input)), f_(std::move(f)), threads_(threads) {}
  std::vector<DatasetPtr> inputs() const override { return {input_}; }
  int64_t Cardinality() const override { return input_->Cardinality(); }

  Status Apply(std::vector<Tensor> element, std::vector<Tensor>* out) const {
    OPF_RETURN_IF_ERROR(f_->Call(std::move(element), out));
    return check_results(*this, *out);
  }

  Status MakeIterator(std::unique_ptr<IteratorBase>* out) const override {
    std::unique_ptr<IteratorBase> in;
    OPF_RETURN_IF_ERROR(input_->MakeIterator(&in));
    if (threads_ == 0) {
      class It final : public IteratorBase {
       public:
        It(const MapDataset* ds, std::unique_ptr<IteratorBase> in) : ds_(ds), in_(std::move(in)) {}
        Status GetNext(std::vector<Tensor>* out, bool* end) override {
          std::vector<Tensor> e;
          OPF_RETURN_IF_ERROR(in_->GetNext(&e, end));
          if (*end) return Status::OK();
          return ds_->Apply(std::move(e), out);
        }

       private:
        const MapDataset* ds_;
        std::unique_ptr<IteratorBase> in_;
      };
      *out = std::make_unique<It>(this, std::move(in));
    } else {
      *out = std::make_unique<ParallelIt>(this, std::move(in));
    }
    return Status::OK();
  }

 private:
  class ParallelIt final : public IteratorBase {
   public:
    ParallelIt(const MapDataset* ds, std::unique_ptr<IteratorBase> in) : ds_(ds), in_(std::move(in)) {
      const int64_t n = ds->threads_;
      max_in_flight_ = 2 * n;
      for (int64_t i = 0; i < n; ++i) workers_.push_back(start_iterator_thread([this] { Work(); }));
    }
    ~ParallelIt() override {
      {
        std::lock_guard<std::mutex> lock(mu_);
        cancelled_ = true;
      }
      cv_.notify_all();
      for (auto& t : workers_) t.join();
    }
    Status GetNext(std::vector<Tensor>* out, bool* end) override {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] { return results_.count(next_out_) || (input_done_ && next_out_ == next_in_); });
      auto it = results_.find(next_out_);
      if (it == results_.end()) {
        *end = true;
        return Status::OK();
      }
      Status s = std::move(it->second.first);
      *out = std::move(it->second.second);
      results_.erase(it);
      ++next_out_;
      cv_.notify_all();
      if (!s.ok()) return s;
      *end = false;
      return Status::OK();
    }

   private:
    void Work() {
      while (true) {
        std::vector<Tensor> e;
        int64_t index = 0;
        {
          std::unique_lock<std::mutex> lock(mu_);
          cv_.wait(lock, [&] { return cancelled_ || input_done_ || next_in_ - next_out_ < max_in_flight_; });
          if (cancelled_ || input_done_) return;
          bool end = false;
          Status s = in_->GetNext(&e, &end);  // the input is read under the lock: one reader at a time
          if (!s.ok() || end) {
            if (!s.ok()) results_[next_in_++] = {s, {}};  // the error comes out in its place
            input_done_ = true;
            cv_.notify_all();
            return;
          }
          index = next_in_++;
        }
        std::vector<Tensor> r;
        Status s = ds_->Apply(std::move(e), &r);
        std::lock_guard<std::mutex> lock(mu_);
        results_[index] = {std::move(s), std::move(r)};
        cv_.notify_all();
      }
    }

    const MapDataset* ds_;
    std::unique_ptr<IteratorBase> in_;
    std::mutex mu_;
    std::condition_variable cv_;
    std::map<int64_t, std::pair<Status, std::vector<Tensor>>> results_;
    int64_t next_in_ = 0, next_out_ = 0, max_in_flight_ = 2;
    bool input_done_ = false, cancelled_ = false;
    std::vector<std::thread> workers_;
  };

  DatasetPtr input_;
  std::shared_ptr<const CapturedFunction> f_;
  int64_t threads_;
};

class FilterDataset final : public DatasetBase {
 public:
  FilterDataset(DatasetPtr input, std::shared_ptr<const CapturedFunction> f, std::vector<DType> d, std::vector<Shape> s)
      : DatasetBase("FilterDataset", std::move(d), std::move(s)), input_(std::move(input)), f_(std::move(f)) {}
  std::vector<DatasetPtr> inputs() const override { return {input_}; }
  Status MakeIterator(std::unique_ptr<IteratorBase>* out) const override {
    class It final : public IteratorBase {
     public:
      explicit It(const FilterDataset* ds) : ds_(ds) {}
      Status GetNext(std::vector<Tensor>* out, bool* end) override {
        if (!in_) OPF_RETURN_IF_ERROR(ds_->input_->MakeIterator(&in_));
        while (true) {
          OPF_RETURN_IF_ERROR(in_->GetNext(out, end));
          if (*end) return Status::OK();
          std::vector<Tensor> r;
          OPF_RETURN_IF_ERROR(ds_->f_->Call(*out, &r));
          if (r.size() != 1 || r[0].dtype() != DType::kBool || r[0].num_elements() != 1) {
            return errors::InvalidArgument("FilterDataset: the predicate must return a scalar bool");
          }
          if (r[0].scalar<bool>()) return Status::OK();
        }
      }

     private:
      const FilterDataset* ds_;
      std::unique_ptr<IteratorBase> in_;
    };
    *out = std::make_unique<It>(this);
    return Status::OK();
  }

 private:
  DatasetPtr input_;
  std::shared_ptr<const CapturedFunction> f_;
};

// FlatMapDataset is InterleaveDataset with cycle_length 1 and an endless block. With
// `parallel`, each open dataset is read ahead on a thread of its own (ParallelInterleave).
class InterleaveDataset final : public DatasetBase {
 public:
  InterleaveDataset(const std::string& op, DatasetPtr input, std::shared_ptr<const CapturedFunction> f, int64_t cycle,
                    int64_t block, bool parallel, std::vector<DType> d, std::vector<Shape> s)
      : DatasetBase(op, std::move(d), std::move(s)),
        input_(std::move(input)),
        f_(std::move(f)),
        cycle_(cycle),
        block_(block),
        parallel_(parallel) {}
  std::vector<DatasetPtr> inputs() const override { return {input_}; }
  Status MakeIterator(std::unique_ptr<IteratorBase>* out) const override {
    class It final : public IteratorBase {
     public:
      explicit It(const InterleaveDataset* ds)
          : ds_(ds), slot_datasets_(static_cast<size_t>(ds->cycle_)), slots_(slot_datasets_.size()) {}
      // TensorFlow's order: the cursor walks the cycle's slots; an empty slot takes the next
      // input element's dataset when the cursor reaches it; a slot gives block_length elements
      // before the cursor moves on; a dataset that ends frees its slot and the cursor moves on.
      Status GetNext(std::vector<Tensor>* out, bool* end) override {
        if (!in_) OPF_RETURN_IF_ERROR(ds_->input_->MakeIterator(&in_));
        while (!in_end_ || open_ > 0) {
          auto& cur = slots_[pos_];
          if (cur) {
            bool e = false;
            OPF_RETURN_IF_ERROR(cur->GetNext(out, &e));
            if (!e) {
              OPF_RETURN_IF_ERROR(check_results(*ds_, *out));
              if (++taken_ >= ds_->block_) Advance();
              *end = false;
              return Status::OK();
            }
            cur.reset();
            --open_;
            Advance();
          } else if (!in_end_) {
            OPF_RETURN_IF_ERROR(Open(&cur));
          } else {
            Advance();
          }
        }
        *end = true;
        return Status::OK();
      }

     private:
      void Advance() {
        taken_ = 0;
        pos_ = (pos_ + 1) % slots_.size();
      }
      Status Open(std::unique_ptr<IteratorBase>* slot) {
        std::vector<Tensor> e;
        OPF_RETURN_IF_ERROR(in_->GetNext(&e, &in_end_));
        if (in_end_) return Status::OK();
        std::vector<Tensor> rets;
        OPF_RETURN_IF_ERROR(ds_->f_->Call(std::move(e), &rets));
        DatasetPtr inner;
        OPF_RETURN_IF_ERROR(data::dataset_result(ds_->op(), rets, &inner));
        std::unique_ptr<IteratorBase> it;
        OPF_RETURN_IF_ERROR(inner->MakeIterator(&it));
        if (ds_->parallel_) it = std::make_unique<data::PrefetchIterator>(std::move(it), ds_->block_);
        // (the slot's dataset must outlive its iterator: drop the old iterator first)
        slot->reset();
        slot_datasets_[static_cast<size_t>(slot - slots_.data())] = std::move(inner);
        *slot = std::move(it);
        ++open_;
        return Status::OK();
      }

      const InterleaveDataset* ds_;
      std::unique_ptr<IteratorBase> in_;
      bool in_end_ = false;
      std::vector<DatasetPtr> slot_datasets_;  // what each slot's iterator walks (declared first: outlives them)
      std::vector<std::unique_ptr<IteratorBase>> slots_;
      size_t pos_ = 0;
      int64_t taken_ = 0, open_ = 0;
    };
    *out = std::make_unique<It>(this);
    return Status::OK();
  }

 private:
  DatasetPtr input_;
  std::shared_ptr<const CapturedFunction> f_;
  int64_t cycle_, block_;
  bool parallel_;
};

// MapAndBatchDataset: a parallel map whose results are stacked batch_size at a time.
class MapAndBatchDataset final : public DatasetBase {
 public:
  MapAndBatchDataset(std::shared_ptr<const MapDataset> map, int64_t batch, bool drop, std::vector<DType> d,
                     std::vector<Shape> s)
      : DatasetBase("MapAndBatchDataset", std::move(d), std::move(s)),
        map_(std::move(map)),
        batch_(batch),
        drop_(drop) {}
  std::vector<DatasetPtr> inputs() const override { return {map_}; }
  Status MakeIterator(std::unique_ptr<IteratorBase>* out) const override {
    class It final : public IteratorBase {
     public:
      It(const MapAndBatchDataset* ds, std::unique_ptr<IteratorBase> in) : ds_(ds), in_(std::move(in)) {}
      Status GetNext(std::vector<Tensor>* out, bool* end) override {
        std::vector<std::vector<Tensor>> rows;
        while (static_cast<int64_t>(rows.size()) < ds_->batch_ && !done_) {
          std::vector<Tensor> e;
          OPF_RETURN_IF_ERROR(in_->GetNext(&e, &done_));
          if (!done_) rows.push_back(std::move(e));
        }
        *end = rows.empty() || (ds_->drop_ && static_cast<int64_t>(rows.size()) < ds_->batch_);
        if (*end) return Status::OK();
        out->resize(rows.front().size());
        std::vector<const Tensor*> parts(rows.size());
        for (size_t c = 0; c < out->size(); ++c) {
          for (size_t r = 0; r < rows.size(); ++r) parts[r] = &rows[r][c];
          OPF_RETURN_IF_ERROR(data::stack(ds_->op(), parts, &(*out)[c]));
        }
        return Status::OK();
      }

     private:
      const MapAndBatchDataset* ds_;
      std::unique_ptr<IteratorBase> in_;
      bool done_ = false;
    };
    std::unique_ptr<IteratorBase> in;
    OPF_RETURN_IF_ERROR(map_->MakeIterator(&in));
    *out = std::make_unique<It>(this, std::move(in));
    return Status::OK();
  }

 private:
  std::shared_ptr<const MapDataset> map_;
  int64_t batch_;
  bool drop_;
};

Status MapDatasetCpu(ops::MapDatasetArgs& a) {
  DatasetPtr in;
  std::shared_ptr<const CapturedFunction> f;
  OPF_RETURN_IF_ERROR(function_input(a, a.f, &in, &f));
  set_dataset_output(a.ctx, 0, std::make_shared<MapDataset>(a.kOpName, in, f, 0, a.output_types, a.output_shapes));
  return Status::OK();
}

Status ParallelMapDatasetV2Cpu(ops::ParallelMapDatasetV2Args& a) {
  DatasetPtr in;
  std::shared_ptr<const CapturedFunction> f;
  int64_t n = 0;
  OPF_RETURN_IF_ERROR(function_input(a, a.f, &in, &f));
  OPF_RETURN_IF_ERROR(data::scalar_int64(a.kOpName, "num_parallel_calls", a.num_parallel_calls, &n));
  if (n == 0 || n < -1) return a.ctx.error("num_parallel_calls must be positive or -1 (AUTOTUNE), got ", n);
  set_dataset_output(
      a.ctx, 0, std::make_shared<MapDataset>(a.kOpName, in, f, autotuned_threads(n), a.output_types, a.output_shapes));
  return Status::OK();
}

Status FilterDatasetCpu(ops::FilterDatasetArgs& a) {
  DatasetPtr in;
  std::shared_ptr<const CapturedFunction> f;
  OPF_RETURN_IF_ERROR(function_input(a, a.predicate, &in, &f));
  set_dataset_output(a.ctx, 0, std::make_shared<FilterDataset>(in, f, a.output_types, a.output_shapes));
  return Status::OK();
}

Status FlatMapDatasetCpu(ops::FlatMapDatasetArgs& a) {
  DatasetPtr in;
  std::shared_ptr<const CapturedFunction> f;
  OPF_RETURN_IF_ERROR(function_input(a, a.f, &in, &f));
  set_dataset_output(
      a.ctx, 0,
      std::make_shared<InterleaveDataset>(a.kOpName, in, f, 1, INT64_MAX, false, a.output_types, a.output_shapes));
  return Status::OK();
}

template <typename Args>
Status cycle_of(Args& a, int64_t* cycle, int64_t* block) {
  OPF_RETURN_IF_ERROR(data::scalar_int64(a.kOpName, "cycle_length", a.cycle_length, cycle));
  OPF_RETURN_IF_ERROR(data::scalar_int64(a.kOpName, "block_length", a.block_length, block));
  if (*cycle == -1) *cycle = autotuned_threads(-1);
  if (*cycle <= 0) return a.ctx.error("cycle_length must be greater than zero, got ", *cycle);
  if (*cycle > (int64_t{1} << 20)) return a.ctx.error("cycle_length must be at most 2^20, got ", *cycle);
  if (*block <= 0) return a.ctx.error("block_length must be greater than zero, got ", *block);
  return Status::OK();
}

Status InterleaveDatasetCpu(ops::InterleaveDatasetArgs& a) {
  DatasetPtr in;
  std::shared_ptr<const CapturedFunction> f;
  int64_t cycle = 0, block = 0;
  OPF_RETURN_IF_ERROR(function_input(a, a.f, &in, &f));
  OPF_RETURN_IF_ERROR(cycle_of(a, &cycle, &block));
  set_dataset_output(
      a.ctx, 0,
      std::make_shared<InterleaveDataset>(a.kOpName, in, f, cycle, block, false, a.output_types, a.output_shapes));
  return Status::OK();
}

Status ParallelInterleaveDatasetV4Cpu(ops::ParallelInterleaveDatasetV4Args& a) {
  DatasetPtr in;
  std::shared_ptr<const CapturedFunction> f;
  int64_t cycle = 0, block = 0, n = 0;
  OPF_RETURN_IF_ERROR(function_input(a, a.f, &in, &f));
  OPF_RETURN_IF_ERROR(cycle_of(a, &cycle, &block));
  OPF_RETURN_IF_ERROR(data::scalar_int64(a.kOpName, "num_parallel_calls", a.num_parallel_calls, &n));
  if (n == 0 || n < -1) return a.ctx.error("num_parallel_calls must be positive or -1 (AUTOTUNE), got ", n);
  set_dataset_output(
      a.ctx, 0,
      std::make_shared<InterleaveDataset>(a.kOpName, in, f, cycle, block, true, a.output_types, a.output_shapes));
  return Status::OK();
}

Status MapAndBatchDatasetCpu(ops::MapAndBatchDatasetArgs& a) {
  DatasetPtr in;
  std::shared_ptr<const CapturedFunction> f;
  int64_t batch = 0, n = 0;
  OPF_RETURN_IF_ERROR(function_input(a, a.f, &in, &f));
  OPF_RETURN_IF_ERROR(data::scalar_int64(a.kOpName, "batch_size", a.batch_size, &batch));
  OPF_RETURN_IF_ERROR(data::scalar_int64(a.kOpName, "num_parallel_calls", a.num_parallel_calls, &n));
  if (batch <= 0) return a.ctx.error("batch_size must be positive (greater than zero), got ", batch);
  if (n == 0 || n < -1) return a.ctx.error("num_parallel_calls must be positive or -1 (AUTOTUNE), got ", n);
  if (a.drop_remainder.dtype() != DType::kBool || a.drop_remainder.num_elements() != 1) {
    return a.ctx.error("drop_remainder must be a scalar bool");
  }
  // the map's elements: the batch's rows (output_shapes without their batch dimension)
  std::vector<Shape> rows;
  for (const Shape& s : a.output_shapes) {
    rows.push_back(s.unknown_rank() || s.rank() == 0
                       ? Shape::UnknownRank()
                       : Shape(std::vector<int64_t>(s.dims().begin() + 1, s.dims().end())));
  }
  auto map = std::make_shared<MapDataset>("MapAndBatchDataset", in, f, autotuned_threads(n), a.output_types, rows);
  set_dataset_output(a.ctx, 0,
                     std::make_shared<MapAndBatchDataset>(std::move(map), batch, a.drop_remainder.scalar<bool>(),
                                                          a.output_types, a.output_shapes));
  return Status::OK();
}

Status LegacyParallelInterleaveDatasetV2Cpu(ops::LegacyParallelInterleaveDatasetV2Args& a) {
  DatasetPtr in;
  std::shared_ptr<const CapturedFunction> f;
  int64_t cycle = 0, block = 0;
  OPF_RETURN_IF_ERROR(function_input(a, a.f, &in, &f));
  OPF_RETURN_IF_ERROR(cycle_of(a, &cycle, &block));
  set_dataset_output(
      a.ctx, 0,
      std::make_shared<InterleaveDataset>(a.kOpName, in, f, cycle, block, true, a.output_types, a.output_shapes));
  return Status::OK();
}

Status PrefetchDatasetCpu(ops::PrefetchDatasetArgs& a) {
  DatasetPtr in;
  int64_t buffer = 0;
  OPF_RETURN_IF_ERROR(dataset_from_tensor(a.kOpName, a.input_dataset, &in));
  OPF_RETURN_IF_ERROR(check_element_spec(a.kOpName, a.output_types, a.output_shapes));
  OPF_RETURN_IF_ERROR(data::scalar_int64(a.kOpName, "buffer_size", a.buffer_size, &buffer));
  if (buffer < -1) return a.ctx.error("buffer_size must be >= 0 or -1 (AUTOTUNE), got ", buffer);
  if (buffer == 0) {  // no prefetching: the input itself
    a.ctx.output(0) = a.input_dataset;
    return Status::OK();
  }
  set_dataset_output(a.ctx, 0, std::make_shared<PrefetchDataset>(in, buffer, a.output_types, a.output_shapes));
  return Status::OK();
}

}  // namespace

OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(MapDataset, CPU, MapDatasetCpu)
OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(ParallelMapDatasetV2, CPU, ParallelMapDatasetV2Cpu)
OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(FilterDataset, CPU, FilterDatasetCpu)
OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(FlatMapDataset, CPU, FlatMapDatasetCpu)
OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(InterleaveDataset, CPU, InterleaveDatasetCpu)
OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(ParallelInterleaveDatasetV4, CPU, ParallelInterleaveDatasetV4Cpu)
OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(PrefetchDataset, CPU, PrefetchDatasetCpu)
OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(MapAndBatchDataset, CPU, MapAndBatchDatasetCpu)
OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(LegacyParallelInterleaveDatasetV2, CPU, LegacyParallelInterleaveDatasetV2Cpu)

}  // namespace opforge
