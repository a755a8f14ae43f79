"""Chrome traces of a traced step: TensorFlow's ``tensorflow.python.client.timeline``.

A TF1 program writes one as TensorFlow's guides show::

    run_metadata = tf.RunMetadata()
    sess.run(train_op, feed, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
             run_metadata=run_metadata)
    trace = timeline.Timeline(run_metadata.step_stats).generate_chrome_trace_format(show_memory=True)
    open("timeline.json", "w").write(trace)   # chrome://tracing or https://ui.perfetto.dev

with ``from opforge import timeline`` (or ``of.compat.v1.timeline``) in place of
``from tensorflow.python.client import timeline``. The trace has one process per device
("<device> Compute", a row per executor thread, one complete event per node run), one per
device for its tensors ("<device> Tensors": their lifetimes, with show_memory) and an
"Allocators" process (with show_memory: a counter per allocator of the bytes its live tensors
hold, from each output's allocation description). Data edges between threads are flow events
(show_dataflow). It reads step stats that TensorFlow wrote as well as opforge's.
"""

from __future__ import annotations

import collections
import json
import re

__all__ = ["AllocationMaximum", "StepStatsAnalysis", "Timeline"]

# The most bytes an allocator held at once, when (microseconds) and the tensors it held then.
AllocationMaximum = collections.namedtuple("AllocationMaximum", ("timestamp", "num_bytes", "tensors"))
# What analyze_step_stats returns: the trace (a _ChromeTrace) and AllocationMaximum per allocator.
StepStatsAnalysis = collections.namedtuple("StepStatsAnalysis", ("chrome_trace", "allocator_maximums"))

_LABEL = re.compile(r"(.*) = (.*)\((.*)\)")
_OP_TIMES = ("schedule", "gpu", "all")


class _ChromeTrace:
    """The events of a trace in Chrome's Trace Event Format (ph "M" metadata, "X" complete
    events, "N"/"O"/"D" object lifetimes, "s"/"f" flows, "C" counters); timestamps in µs."""

    def __init__(self):
        self.events = []

    def process(self, pid: int, name: str) -> None:
        self.events.append({"ph": "M", "name": "process_name", "pid": pid, "args": {"name": name}})

    def thread(self, pid: int, tid: int, name: str) -> None:
        self.events.append({"ph": "M", "name": "thread_name", "pid": pid, "tid": tid, "args": {"name": name}})

    def complete(self, ts, dur, pid, tid, category, name, args) -> None:
        self.events.append({"ph": "X", "cat": category, "name": name, "pid": pid, "tid": tid, "ts": ts,
                            "dur": dur, "args": args})

    def tensor(self, phase, ts, pid, tid, name, object_id, snapshot=None) -> None:
        event = {"ph": phase, "cat": "Tensor", "name": name, "pid": pid, "tid": tid, "ts": ts, "id": object_id}
        if snapshot is not None:
            event["args"] = {"snapshot": snapshot}
        self.events.append(event)

    def flow(self, phase, ts, pid, tid, name, flow_id) -> None:
        event = {"ph": phase, "cat": "DataFlow", "name": name, "pid": pid, "tid": tid, "ts": ts, "id": flow_id}
        if phase == "f":
            event["bp"] = "e"  # binds to the consumer's event that encloses ts
        self.events.append(event)

    def counter(self, ts, pid, name, values: dict) -> None:
        self.events.append({"ph": "C", "cat": "Memory", "name": name, "pid": pid, "ts": ts, "args": values})

    def format_to_string(self, pretty: bool = False) -> str:
        if pretty:
            return json.dumps({"traceEvents": self.events}, indent=4)
        return json.dumps({"traceEvents": self.events}, separators=(",", ":"))


class _Tensor:
    """One output's lifetime: from its producer's start to the end of its last reader. `pid` is
    its device's Tensors process, (`producer_pid`, `tid`) the row of its producer, which ended
    at `ready`."""

    def __init__(self, name, object_id, created, ready, pid, producer_pid, tid, allocator, num_bytes):
        self.name, self.object_id, self.created, self.ready = name, object_id, created, ready
        self.pid, self.producer_pid, self.tid = pid, producer_pid, tid
        self.allocator, self.num_bytes = allocator, num_bytes
        self.last_use = ready


def _parse_label(label: str):
    """(node, op, inputs) of a timeline label "name = Op(a, b:1, ^c)"."""
    match = _LABEL.match(label)
    if match is None:
        return "unknown", "unknown", []
    name, op, inputs = match.groups()
    return name, op, inputs.split(", ") if inputs else []


def _times(ns):
    """(start, duration) of a NodeExecStats in microseconds, from its nanoseconds when set."""
    if ns.all_start_nanos:
        return ns.all_start_nanos / 1000.0, ns.all_end_rel_nanos / 1000.0
    return float(ns.all_start_micros), float(ns.all_end_rel_micros)


class Timeline:
    """The Chrome trace of one step's StepStats (``RunMetadata.step_stats``).

    ``graph`` is accepted as TensorFlow's is (and unused: the labels name each node's op and
    inputs)."""

    def __init__(self, step_stats, graph=None):
        self._step_stats = step_stats
        self._graph = graph

    def _threads(self, dev_stats):
        """Each node run's row: its thread_id when the step stats have them (opforge's), else
        non-overlapping lanes as TensorFlow's timeline assigns (TensorFlow leaves them 0)."""
        if any(ns.thread_id for ns in dev_stats.node_stats):
            return [ns.thread_id for ns in dev_stats.node_stats]
        lanes, rows = [], []
        for ns in dev_stats.node_stats:
            start, duration = _times(ns)
            for i, free_at in enumerate(lanes):
                if start >= free_at:
                    lanes[i] = start + duration
                    rows.append(i)
                    break
            else:
                rows.append(len(lanes))
                lanes.append(start + duration)
        return rows

    def analyze_step_stats(self, show_dataflow: bool = True, show_memory: bool = True,
                           op_time: str = "schedule") -> StepStatsAnalysis:
        """The trace and each allocator's maximum (see generate_chrome_trace_format)."""
        if op_time not in _OP_TIMES:
            raise ValueError(f"op_time must be one of {', '.join(_OP_TIMES)}, got {op_time!r}")
        # op_time "gpu" and "all" differ from "schedule" only by GPU tracer streams, which
        # opforge's step stats do not have: every op is shown from its start to its end.
        trace = _ChromeTrace()
        allocators_pid = 0
        trace.process(allocators_pid, "Allocators")
        tensors, runs = {}, []
        for d, dev in enumerate(self._step_stats.dev_stats):
            compute_pid, tensors_pid = 2 * d + 1, 2 * d + 2
            trace.process(compute_pid, dev.device + " Compute")
            trace.process(tensors_pid, dev.device + " Tensors")
            rows = self._threads(dev)
            for tid in sorted(set(rows)):
                trace.thread(compute_pid, tid, dev.thread_names.get(tid, f"thread {tid}"))
            for ns, tid in zip(dev.node_stats, rows):
                start, duration = _times(ns)
                _, op, inputs = _parse_label(ns.timeline_label)
                runs.append((ns, compute_pid, tid, start, duration, op, inputs))
                for output in ns.output:
                    name = ns.node_name if output.slot == 0 else f"{ns.node_name}:{output.slot}"
                    alloc = output.tensor_description.allocation_description
                    tensors[name] = _Tensor(name, len(tensors), start, start + duration, tensors_pid, compute_pid,
                                            tid, alloc.allocator_name, alloc.requested_bytes)
                    if show_memory:
                        trace.tensor("N", start, tensors_pid, tid, name, tensors[name].object_id)
                        description = str(output.tensor_description).replace('"', "")
                        trace.tensor("O", start + duration, tensors_pid, tid, name, tensors[name].object_id,
                                     {"tensor_description": description})
        flow_id = 0
        for ns, pid, tid, start, duration, op, inputs in runs:
            args = {"name": ns.node_name, "op": op}
            args.update({f"input{i}": name for i, name in enumerate(inputs)})
            trace.complete(start, duration, pid, tid, "Op", op, args)
            for name in inputs:
                tensor = tensors.get(name)
                if tensor is None:  # a control input, a fed tensor, or a node not traced
                    continue
                tensor.last_use = max(tensor.last_use, start + duration)
                # Arrows only between rows: on one row the order shows the dataflow already.
                if show_dataflow and (tensor.producer_pid, tensor.tid) != (pid, tid):
                    trace.flow("s", tensor.ready, tensor.producer_pid, tensor.tid, name, flow_id)
                    trace.flow("f", start, pid, tid, name, flow_id)
                    flow_id += 1
        maximums = self._memory(trace, tensors, allocators_pid) if show_memory else {}
        return StepStatsAnalysis(chrome_trace=trace, allocator_maximums=maximums)

    @staticmethod
    def _memory(trace, tensors, pid):
        """Tensor deletions, and per allocator a counter of its live tensors' bytes."""
        changes = collections.defaultdict(list)
        for t in tensors.values():
            trace.tensor("D", t.last_use, t.pid, t.tid, t.name, t.object_id)
            if not t.allocator:  # a reference output (a variable's buffer is not the node's)
                continue
            changes[t.allocator].append((t.created, t.num_bytes, t.name))
            changes[t.allocator].append((t.last_use, -t.num_bytes, t.name))
        maximums = {}
        for allocator, events in changes.items():
            live, total = set(), 0
            best = AllocationMaximum(timestamp=0, num_bytes=0, tensors=set())
            for ts, num_bytes, name in sorted(events, key=lambda e: (e[0], e[1])):  # frees first at a tie
                total += num_bytes
                if num_bytes < 0:
                    live.discard(name)
                else:
                    live.add(name)
                if total > best.num_bytes:
                    best = AllocationMaximum(timestamp=ts, num_bytes=total, tensors=set(live))
                trace.counter(ts, pid, allocator, {allocator: total})
            maximums[allocator] = best
        return maximums

    def generate_chrome_trace_format(self, show_dataflow: bool = True, show_memory: bool = False,
                                     op_time: str = "schedule") -> str:
        """The step as a Chrome trace (JSON text with "traceEvents"), as TensorFlow's.

        show_dataflow adds flow arrows from each tensor's producer to its readers on other
        threads; show_memory adds tensor lifetimes and per-allocator memory counters; op_time
        ("schedule", "gpu" or "all") is TensorFlow's choice of GPU kernel times, the same here."""
        analysis = self.analyze_step_stats(show_dataflow=show_dataflow, show_memory=show_memory, op_time=op_time)
        return analysis.chrome_trace.format_to_string(pretty=True)
