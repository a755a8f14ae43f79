"""TensorFlow's StepStats from a traced Session run (RunOptions(trace_level=FULL_TRACE)).

The C++ executors record each node run into a plain struct (runtime StepTrace, handed over by
``_C.Session.run(..., trace=True)`` as tuples); this module builds TensorFlow's
``tensorflow.StepStats`` of it, field for field as TensorFlow's executor fills it, so
``RunMetadata.step_stats`` reads the same in TensorBoard, in TensorFlow's timeline and in
opforge's (opforge/framework/timeline.py). Differences from TensorFlow: one device per
placement (opforge runs one partition, no _Send/_Recv), fed tensors are not nodes (TensorFlow
shows its _Arg/_Recv nodes instead), ``scheduled`` is the start (the executors do not queue
nodes), and a node's memory is its output buffers plus the host allocator's bytes in use after
it (temporary buffers are not counted).
"""

from __future__ import annotations

from ..codegen._proto import step_stats_pb2

# TensorFlow's name of the one task a local Session runs in.
TASK = "/job:localhost/replica:0/task:0"


def allocator_name(device: str) -> str:
    """TensorFlow's allocator names: "cpu" for host memory, "GPU_0_bfc" for a GPU's."""
    kind, _, index = device.rpartition(":")
    return "cpu" if kind.endswith("CPU") else f"GPU_{index}_bfc"


def timeline_label(name: str, op: str, inputs) -> str:
    """TensorFlow's timeline label: "name = Op(input, input:1, ^control)"."""
    return f"{name} = {op}({', '.join(inputs)})"


def build(node_runs) -> step_stats_pb2.StepStats:
    """The StepStats of the node runs of one traced run (see ``trace_to_py`` in
    runtime/python/graph_session.cc): one DeviceStepStats per device, in first-use order; one
    NodeExecStats per node run, in the order the runs ended."""
    stats = step_stats_pb2.StepStats()
    devices = {}
    for name, op, inputs, device, start_ns, end_ns, thread_id, outputs, bytes_in_use in node_runs:
        full = TASK + device
        dev = devices.get(full)
        if dev is None:
            dev = devices[full] = stats.dev_stats.add(device=full)
        dev.thread_names[thread_id] = f"opforge thread {thread_id}"
        duration = max(end_ns - start_ns, 0)
        ns = dev.node_stats.add(
            node_name=name, timeline_label=timeline_label(name, op, inputs), thread_id=thread_id,
            all_start_micros=start_ns // 1000, op_start_rel_micros=0, op_end_rel_micros=duration // 1000,
            all_end_rel_micros=duration // 1000, scheduled_micros=start_ns // 1000,
            all_start_nanos=start_ns, op_start_rel_nanos=0, op_end_rel_nanos=duration,
            all_end_rel_nanos=duration, scheduled_nanos=start_ns)
        allocator = allocator_name(device)
        output_bytes = 0
        for slot, (dtype, dims, requested, allocated) in enumerate(outputs):
            if dtype == 0:  # dead: the untaken side of a Switch
                continue
            desc = ns.output.add(slot=slot).tensor_description
            desc.dtype = dtype
            if dims is None:  # a reference output (a variable): its value is not the node's
                desc.shape.unknown_rank = True
                continue
            for d in dims:
                desc.shape.dim.add(size=d)
            alloc = desc.allocation_description
            alloc.requested_bytes, alloc.allocated_bytes, alloc.allocator_name = requested, allocated, allocator
            output_bytes += allocated
        if output_bytes:  # as TensorFlow's: memory of the nodes that allocated
            mem = ns.memory.add(allocator_name=allocator, total_bytes=output_bytes, peak_bytes=output_bytes,
                                live_bytes=output_bytes)
            if bytes_in_use >= 0:
                mem.allocator_bytes_in_use = bytes_in_use
    return stats


def tracing_requested(options) -> bool:
    """Whether RunOptions ask for step stats (any trace_level above NO_TRACE, as TensorFlow)."""
    return options is not None and int(getattr(options, "trace_level", 0) or 0) > 0


def fill_run_metadata(run_metadata, node_runs) -> None:
    """Puts the step stats into ``run_metadata`` (opforge's RunMetadata or TensorFlow's: the
    bytes are TensorFlow's wire format either way)."""
    run_metadata.step_stats.Clear()
    run_metadata.step_stats.MergeFromString(build(node_runs).SerializeToString())
