// TensorFlow's StepStats of a traced Session run, written straight to protobuf's wire format
// (the runtime does not link libprotobuf, and building the message field by field in Python
// costs ~9 µs a node; this costs well under one). The schema is
// proto/tensorflow/core/framework/step_stats.proto (with tensor_description.proto,
// allocation_description.proto and tensor_shape.proto): the field numbers below are its.
// Python parses the bytes into RunMetadata.step_stats (opforge/framework/step_stats.py).
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "bindings.h"
#include "opforge/device.h"
#include "opforge/graph.h"

namespace opforge {
namespace bindings {
namespace {

// TensorFlow's name of the one task a local Session runs in.
constexpr char kTask[] = "/job:localhost/replica:0/task:0";

// One message being written. Zero scalars and empty strings are left out, as proto3 does.
class Wire {
 public:
  enum Type { kVarint = 0, kBytes = 2 };

  void varint(uint64_t v) {
    while (v >= 0x80) {
      out_.push_back(static_cast<char>((v & 0x7f) | 0x80));
      v >>= 7;
    }
    out_.push_back(static_cast<char>(v));
  }
  void tag(int field, Type type) { varint(static_cast<uint64_t>(field) << 3 | type); }
  void integer(int field, int64_t v) {  // int32, int64, uint32, bool and enum fields
    if (v == 0) return;
    tag(field, kVarint);
    varint(static_cast<uint64_t>(v));  // a negative value takes ten bytes, as protobuf writes it
  }
  void string(int field, const std::string& s) {
    if (s.empty()) return;
    tag(field, kBytes);
    varint(s.size());
    out_ += s;
  }
  // A nested message, written by fill(Wire&); present even when empty.
  template <typename Fill>
  void message(int field, Fill&& fill) {
    Wire sub;
    fill(sub);
    tag(field, kBytes);
    varint(sub.out_.size());
    out_ += sub.out_;
  }
  std::string& bytes() { return out_; }

 private:
  std::string out_;
};

// TensorFlow's allocator names: "cpu" for host memory, "GPU_0_bfc" for a GPU's.
std::string allocator_name(const DeviceSpec& d) {
  return d.type == Device::kCPU ? "cpu" : errors::StrCat("GPU_", d.index, "_bfc");
}

std::string timeline_label(const StepTrace::NodeRun& r) {
  std::string label = r.name + " = " + r.op + "(";
  for (size_t i = 0; i < r.inputs.size(); ++i) label += (i ? ", " : "") + r.inputs[i];
  return label + ")";
}

// NodeExecStats: times, thread, outputs (NodeOutput with their TensorDescription) and, for a
// node that allocated, its memory (AllocatorMemoryUsed).
void node_exec_stats(const StepTrace::NodeRun& r, Wire& w) {
  const int64_t duration = r.end_ns > r.start_ns ? r.end_ns - r.start_ns : 0;
  const std::string allocator = allocator_name(r.device);
  w.string(1, r.name);              // node_name
  w.integer(2, r.start_ns / 1000);  // all_start_micros
  w.integer(4, duration / 1000);    // op_end_rel_micros (op_start_rel_micros: 0)
  w.integer(5, duration / 1000);    // all_end_rel_micros
  int64_t output_bytes = 0;
  for (size_t slot = 0; slot < r.outputs.size(); ++slot) {
    const StepTrace::Output& o = r.outputs[slot];
    if (!o.produced) continue;  // dead: the untaken side of a Switch
    if (o.known_shape) output_bytes += o.allocated_bytes;
  }
  if (output_bytes > 0) {  // as TensorFlow's: memory of the nodes that allocated
    w.message(6, [&](Wire& m) {
      m.string(1, allocator);                                           // allocator_name
      m.integer(2, output_bytes);                                       // total_bytes
      m.integer(3, output_bytes);                                       // peak_bytes
      m.integer(4, output_bytes);                                       // live_bytes
      if (r.host_bytes_in_use >= 0) m.integer(5, r.host_bytes_in_use);  // allocator_bytes_in_use
    });
  }
  for (size_t slot = 0; slot < r.outputs.size(); ++slot) {
    const StepTrace::Output& o = r.outputs[slot];
    if (!o.produced) continue;
    w.message(7, [&](Wire& out) {  // output: NodeOutput
      out.integer(1, static_cast<int64_t>(slot));
      out.message(3, [&](Wire& desc) {  // tensor_description
        desc.integer(1, static_cast<int64_t>(o.dtype));
        desc.message(2, [&](Wire& shape) {  // TensorShapeProto
          if (!o.known_shape) {             // a reference output (a variable): not the node's buffer
            shape.integer(3, 1);            // unknown_rank
            return;
          }
          for (int64_t d : o.dims) shape.message(2, [&](Wire& dim) { dim.integer(1, d); });
        });
        if (!o.known_shape) return;
        desc.message(4, [&](Wire& alloc) {  // AllocationDescription
          alloc.integer(1, o.requested_bytes);
          alloc.integer(2, o.allocated_bytes);
          alloc.string(3, allocator);
        });
      });
    });
  }
  w.string(8, timeline_label(r));   // timeline_label
  w.integer(9, r.start_ns / 1000);  // scheduled_micros: the executors do not queue nodes
  w.integer(10, r.thread_id);       // thread_id
  w.integer(13, r.start_ns);        // all_start_nanos
  w.integer(15, duration);          // op_end_rel_nanos (op_start_rel_nanos: 0)
  w.integer(16, duration);          // all_end_rel_nanos
  w.integer(17, r.start_ns);        // scheduled_nanos
}

}  // namespace

std::string step_stats_bytes(const StepTrace& trace) {
  // One DeviceStepStats per device, in first-use order; its node runs in the order they ended.
  std::vector<std::string> devices;
  std::map<std::string, size_t> index;
  std::vector<Wire> nodes;
  std::vector<std::map<uint32_t, bool>> threads;
  for (const StepTrace::NodeRun& r : trace.nodes) {
    const std::string device = kTask + device_string(r.device);
    auto it = index.find(device);
    if (it == index.end()) {
      it = index.emplace(device, devices.size()).first;
      devices.push_back(device);
      nodes.emplace_back();
      threads.emplace_back();
    }
    nodes[it->second].message(2, [&](Wire& w) { node_exec_stats(r, w); });  // node_stats
    threads[it->second][r.thread_id] = true;
  }
  Wire step_stats;
  for (size_t d = 0; d < devices.size(); ++d) {
    step_stats.message(1, [&](Wire& dev) {  // dev_stats: DeviceStepStats
      dev.string(1, devices[d]);
      dev.bytes() += nodes[d].bytes();
      for (const auto& [thread, _] : threads[d]) {
        dev.message(3, [&](Wire& entry) {  // thread_names: map<uint32, string> entries
          entry.integer(1, thread);
          entry.string(2, errors::StrCat("opforge thread ", thread));
        });
      }
    });
  }
  return std::move(step_stats.bytes());
}

}  // namespace bindings
}  // namespace opforge
