"""Describing a cluster: tf.train.ClusterSpec (jobs and their tasks' addresses), with
TensorFlow's ClusterDef / JobDef / ServerDef messages, and tf.train.replica_device_setter
(a device function that puts variables on the parameter servers, round robin).

opforge has no distributed runtime: no tf.train.Server runs the cluster described here; the
device strings it yields are recorded on the nodes and a Session places them on its own
devices (framework/devices.py)."""

from __future__ import annotations

from ..codegen._proto import cluster_pb2, tensorflow_server_pb2

ClusterDef, JobDef, ServerDef = cluster_pb2.ClusterDef, cluster_pb2.JobDef, tensorflow_server_pb2.ServerDef


class ClusterSpec:
    """The jobs of a cluster and their tasks: built from a dict (job name -> list of
    addresses, or dict task index -> address), a ClusterDef or another ClusterSpec."""

    def __init__(self, cluster):
        if isinstance(cluster, dict):
            self._cluster_spec = {}
            for job_name, tasks in cluster.items():
                if isinstance(tasks, (list, tuple)):
                    job_tasks = dict(enumerate(tasks))
                elif isinstance(tasks, dict):
                    job_tasks = {int(i): t for i, t in tasks.items()}
                else:
                    raise TypeError(f"The tasks for job {job_name!r} must be a list or a dictionary from "
                                    "integers to strings.")
                self._cluster_spec[job_name] = job_tasks
            self._make_cluster_def()
        elif isinstance(cluster, ClusterDef):
            self._cluster_def = ClusterDef()
            self._cluster_def.CopyFrom(cluster)
            self._cluster_spec = {}
            for job in self._cluster_def.job:
                self._cluster_spec[job.name] = dict(job.tasks.items())
        elif isinstance(cluster, ClusterSpec):
            self._cluster_def = ClusterDef()
            self._cluster_def.MergeFrom(cluster.as_cluster_def())
            self._cluster_spec = {job: dict(tasks) for job, tasks in cluster._cluster_spec.items()}
        else:
            raise TypeError("`cluster` must be a dictionary mapping one or more job names to lists of network "
                            "addresses, or a `ClusterDef` protocol buffer")

    def _make_cluster_def(self):
        self._cluster_def = ClusterDef()
        for job_name, tasks in sorted(self._cluster_spec.items()):
            if not isinstance(job_name, str):
                raise TypeError(f"Job name {job_name!r} must be a string")
            job_def = self._cluster_def.job.add(name=job_name)
            for i, address in sorted(tasks.items()):
                if not isinstance(address, str):
                    raise TypeError(f"Task address {address!r} must be bytes or unicode")
                job_def.tasks[i] = address

    def __bool__(self):
        return bool(self._cluster_spec)

    def __eq__(self, other):
        return isinstance(other, ClusterSpec) and self._cluster_spec == other._cluster_spec

    def __ne__(self, other):
        return not self == other

    def __repr__(self):
        return "ClusterSpec(" + repr({job: self.as_dict()[job] for job in self.jobs}) + ")"

    def as_dict(self):
        """Job name -> list of addresses (dict index -> address where indices have gaps)."""
        out = {}
        for job in self.jobs:
            indices = self.task_indices(job)
            if not indices:
                out[job] = {}
            elif max(indices) + 1 == len(indices):
                out[job] = self.job_tasks(job)
            else:
                out[job] = {i: self.task_address(job, i) for i in indices}
        return out

    def as_cluster_def(self):
        return self._cluster_def

    @property
    def jobs(self):
        return sorted(self._cluster_spec)

    def _job(self, job_name):
        try:
            return self._cluster_spec[job_name]
        except KeyError:
            raise ValueError(f"No such job in cluster: {job_name!r}") from None

    def num_tasks(self, job_name):
        return len(self._job(job_name))

    def task_indices(self, job_name):
        return sorted(self._job(job_name))

    def task_address(self, job_name, task_index):
        job = self._job(job_name)
        try:
            return job[task_index]
        except KeyError:
            raise ValueError(f"No task with index {task_index!r} in job {job_name!r}") from None

    def job_tasks(self, job_name):
        """The job's addresses by task index, None where an index has no task."""
        job = self._job(job_name)
        ret = [None] * (max(job) + 1 if job else 0)
        for i, address in job.items():
            ret[i] = address
        return ret


STANDARD_PS_OPS = ("Variable", "VariableV2", "AutoReloadVariable", "MutableHashTable", "MutableHashTableV2",
                   "MutableHashTableOfTensors", "MutableHashTableOfTensorsV2", "MutableDenseHashTable",
                   "MutableDenseHashTableV2", "VarHandleOp", "BoostedTreesEnsembleResourceHandleOp",
                   "BoostedTreesQuantileStreamResourceHandleOp", "ResourceConditionalAccumulator", "DecisionTree")


def _parse_device(spec: str) -> dict:
    """"/job:ps/task:0/device:CPU:0" -> {"job": "ps", "task": "0", "device": "CPU:0"} (also replica, cpu/gpu)."""
    fields = {}
    for part in (spec or "").split("/"):
        if not part:
            continue
        key, _, value = part.partition(":")
        key = key.lower()
        if key in ("job", "replica", "task"):
            fields[key] = value
        elif key == "device":
            fields["device"] = value.upper() if value.count(":") == 1 and not value.startswith("*") else value
        elif key in ("cpu", "gpu"):
            fields["device"] = f"{key.upper()}:{value}"
        else:
            raise ValueError(f"Unknown attribute: '{part}' in '{spec}'")
    return fields


def _device_string(fields: dict) -> str:
    return "".join(f"/{k}:{fields[k]}" for k in ("job", "replica", "task", "device") if k in fields)


def _merged(base: str, override: str) -> str:
    """base's fields, with those override sets replacing them (DeviceSpec.make_merged_spec)."""
    return _device_string({**_parse_device(base), **_parse_device(override)})


class _RoundRobinStrategy:
    def __init__(self, num_tasks):
        self._num_tasks, self._next_task = num_tasks, 0

    def __call__(self, unused_op):
        task = self._next_task
        self._next_task = (self._next_task + 1) % self._num_tasks
        return task


def replica_device_setter(ps_tasks=0, ps_device="/job:ps", worker_device="/job:worker", merge_devices=True,
                          cluster=None, ps_ops=None, ps_strategy=None):
    """A device function for ``with tf.device(...)``: variables (ops of ``ps_ops``) go to the
    parameter-server tasks, chosen by ``ps_strategy`` (round robin), other ops to
    ``worker_device``; a device the op already has wins. None without ps tasks."""
    if cluster is not None:
        cluster_spec = cluster if isinstance(cluster, ClusterSpec) else ClusterSpec(cluster)
        ps_tasks = len(cluster_spec.as_dict().get("ps", []))
    if ps_tasks == 0:
        return None
    if ps_ops is None:
        ps_ops = list(STANDARD_PS_OPS)
    if not merge_devices:
        raise ValueError("DEPRECATION: It is recommended to set merge_devices=true in replica_device_setter")
    if ps_strategy is None:
        ps_strategy = _RoundRobinStrategy(ps_tasks)
    if not callable(ps_strategy):
        raise TypeError("ps_strategy must be callable")
    ps_device = ps_device or ""
    worker_device = worker_device or ""

    def device_function(op):
        current = op.device or ""
        if op.type in ps_ops:
            ps = _parse_device(ps_device)
            current_job = _parse_device(current).get("job")
            if ps.get("job") and (not current_job or current_job == ps["job"]):
                ps["task"] = str(ps_strategy(op))
            return _merged(_device_string(ps), current)
        return _merged(worker_device, current)

    return device_function
