"""opforge serve's configuration: TensorFlow Serving's config files (ModelServerConfig,
BatchingParameters in text format), the version policy, and the command line's errors."""

from __future__ import annotations

import pytest

from opforge.errors import InvalidArgumentError, NotFoundError
from tests.e2e.op_libraries import opforge_cli
from opforge.serving.config import (
    BatchingOptions,
    ModelServerConfig,
    parse_grpc_channel_arguments,
    read_batching_parameters,
    read_model_server_config,
)
from opforge.serving.manager import versions_on_disk, wanted_versions


def test_model_config_file(tmp_path):
    path = tmp_path / "models.config"
    path.write_text("""
model_config_list {
  config { name: "a" base_path: "/models/a" model_platform: "tensorflow"
           model_version_policy { specific { versions: 3 versions: 5 } }
           version_labels { key: "stable" value: 3 } }
  config { name: "b" base_path: "/models/b" model_version_policy { latest { num_versions: 2 } } }
}""")
    config = read_model_server_config(str(path))
    a, b = config.model_config_list.config
    assert (a.name, a.base_path, list(a.model_version_policy.specific.versions), dict(a.version_labels)) == \
        ("a", "/models/a", [3, 5], {"stable": 3})
    assert b.model_version_policy.latest.num_versions == 2


@pytest.mark.parametrize("text, message", [
    ("model_config_list { config { name: 'a' } }", "model 'a' has no base_path"),
    ("model_config_list { config { base_path: '/x' } }", "a model config has no name"),
    ("model_config_list { config { name: 'a' base_path: '/x' } config { name: 'a' base_path: '/y' } }",
     "model name 'a' is configured twice"),
    ("model_config_list { config { name: 'a' base_path: '/x' model_platform: 'onnx' } }",
     "model 'a': model_platform 'onnx' is not served (only 'tensorflow')"),
    ("model_config_list { config { name: 'a' base_path: '/x' model_version_policy { specific {} } } }",
     "model 'a': model_version_policy specific lists no versions"),
    ("model_config_list { config { name: 'a' base_path: '/x' version_labels { key: 'l' value: -1 } } }",
     "model 'a': label 'l' names negative version -1"),
    ("custom_model_config { }", "custom_model_config is not supported; use model_config_list"),
    ("model_config_list { config { nam: 'a' } }", "not a ModelServerConfig in text format"),
])
def test_bad_model_config_file(tmp_path, text, message):
    path = tmp_path / "models.config"
    path.write_text(text)
    with pytest.raises(InvalidArgumentError, match=message.replace("(", r"\(").replace(")", r"\)")) as info:
        read_model_server_config(str(path))
    assert str(path) in str(info.value)


def test_missing_config_file(tmp_path):
    with pytest.raises(NotFoundError, match="model config file .*nope: No such file or directory"):
        read_model_server_config(str(tmp_path / "nope"))


def test_batching_parameters_file(tmp_path):
    path = tmp_path / "batching.config"
    path.write_text("max_batch_size { value: 32 }\nbatch_timeout_micros { value: 5000 }\n"
                    "num_batch_threads { value: 3 }\nallowed_batch_sizes: 8\nallowed_batch_sizes: 32\n"
                    "pad_variable_length_inputs: true\n")
    assert read_batching_parameters(str(path)) == BatchingOptions(
        max_batch_size=32, batch_timeout_micros=5000, num_batch_threads=3, allowed_batch_sizes=(8, 32),
        pad_variable_length_inputs=True)
    path.write_text("max_batch_size { value: 32 }\nallowed_batch_sizes: 8\n")
    with pytest.raises(InvalidArgumentError, match=r"batching parameters file .*: the last of allowed_batch_sizes "
                                                   r"\(8\) must equal max_batch_size \(32\)"):
        read_batching_parameters(str(path))
    path.write_text("max_batch_size: 32\n")
    with pytest.raises(InvalidArgumentError, match="not a BatchingParameters in text format"):
        read_batching_parameters(str(path))


def test_defaults_are_tensorflow_servings():
    opts = BatchingOptions()
    assert (opts.max_batch_size, opts.batch_timeout_micros, opts.max_enqueued_batches) == (1000, 0, 10)


def test_version_policy(tmp_path):
    for v in ("1", "2", "10"):
        (tmp_path / v).mkdir()
        (tmp_path / v / "saved_model.pb").write_bytes(b"")
    (tmp_path / "3").mkdir()  # no SavedModel (yet): not a version
    (tmp_path / "tmp").mkdir()
    on_disk = versions_on_disk(str(tmp_path))
    assert sorted(on_disk) == [1, 2, 10]
    config = ModelServerConfig().model_config_list.config.add(name="m", base_path=str(tmp_path))
    assert wanted_versions(config, on_disk) == {10}
    config.model_version_policy.latest.num_versions = 2
    assert wanted_versions(config, on_disk) == {2, 10}
    config.model_version_policy.all.SetInParent()
    assert wanted_versions(config, on_disk) == {1, 2, 10}
    config.model_version_policy.specific.versions.extend([2, 7])
    assert wanted_versions(config, on_disk) == {2}
    assert versions_on_disk(str(tmp_path / "missing")) == {}


def test_grpc_channel_arguments():
    assert parse_grpc_channel_arguments("grpc.max_receive_message_length=1024, grpc.primary_user_agent=x") == \
        (("grpc.max_receive_message_length", 1024), ("grpc.primary_user_agent", "x"))
    assert parse_grpc_channel_arguments("") == ()
    with pytest.raises(InvalidArgumentError, match="--grpc_channel_arguments: 'oops' is not key=value"):
        parse_grpc_channel_arguments("oops")


def _serve(*args):
    return opforge_cli("serve", *args)


def test_command_line_errors(tmp_path):
    proc = _serve("--port=0")
    assert proc.returncode == 2
    assert "opforge serve: give --model_base_path (with --model_name) or --model_config_file" in proc.stderr
    proc = _serve("--model_config_file", str(tmp_path / "nope"))
    assert proc.returncode == 2 and "opforge serve: model config file" in proc.stderr
    proc = _serve("--model_base_path=/x", "--max_request_bytes=0")
    assert proc.returncode == 2 and "--max_request_bytes must be >= 1, got 0" in proc.stderr
    proc = _serve("--model_base_path=/x", "--enable_batching=maybe")
    assert proc.returncode == 2 and "expected true or false, got 'maybe'" in proc.stderr
