"""TensorFlow's StepStats from a traced Session run (RunOptions(trace_level=FULL_TRACE)).

The C++ executors record each node run into a plain struct (runtime StepTrace); the bindings
write TensorFlow's ``tensorflow.StepStats`` of it in protobuf's wire format
(runtime/python/step_stats.cc), field for field as TensorFlow's executor fills it, and this
module puts it into ``RunMetadata.step_stats``, which then reads the same in TensorBoard, in
TensorFlow's timeline and in opforge's (opforge/framework/timeline.py).

What a NodeExecStats holds: node_name; timeline_label "name = Op(input, input:1, ^control)";
all_start (since the epoch), op_start_rel (0), op_end_rel and all_end_rel (the kernel's time),
in micros and nanos; scheduled (= start: the executors do not queue nodes); thread_id (1, 2,
... per executor thread, named in DeviceStepStats.thread_names); one NodeOutput per output
(dtype, shape, requested and allocated bytes, allocator "cpu"; a variable's reference output
has its dtype and an unknown shape, a dead Switch output is left out); and for a node that
allocated, AllocatorMemoryUsed with its output bytes and the host allocator's bytes in use
after it. Differences from TensorFlow: one partition (no _Send/_Recv), fed tensors are not
nodes (TensorFlow shows _Arg nodes), no _SOURCE node, temporary buffers are not counted.
"""

from __future__ import annotations


def tracing_requested(options) -> bool:
    """Whether RunOptions ask for step stats (any trace_level above NO_TRACE, as TensorFlow)."""
    return options is not None and int(getattr(options, "trace_level", 0) or 0) > 0


def fill_run_metadata(run_metadata, step_stats: bytes) -> None:
    """Puts the serialized step stats of a run into ``run_metadata`` (opforge's RunMetadata or
    TensorFlow's: the bytes are TensorFlow's wire format either way)."""
    run_metadata.step_stats.Clear()
    run_metadata.step_stats.MergeFromString(step_stats)
