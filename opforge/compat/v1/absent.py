"""What opforge.compat.v1 does not offer of TensorFlow 1's API, and why.

The names are those of TensorFlow's tf.compat.v1 in tests/data/tf1_api_surface.json (written by
tools/tf1_api_surface.py from TensorFlow itself), spelled namespace.name: ``tf.matrix_inverse``
is tf.compat.v1.matrix_inverse, ``nn.ctc_loss`` is tf.compat.v1.nn.ctc_loss. Every TF name is
either present in opforge.compat.v1 or listed here with its reason; tests/compat/test_api_surface.py
fails on a name that is neither, and on an entry here that has become present (delete it then).
``python tools/tf1_api_coverage.py`` prints the share present per namespace (the README quotes it).

KEYWORD_DIFFERENCES lists the present functions that lack a keyword parameter TensorFlow's has,
with the reason; the test fails on any other missing keyword.

An AttributeError for a listed name says the reason (opforge.compat._namespace.missing).
"""

from __future__ import annotations


def _names(text: str) -> list[str]:
    return text.split()


# reason -> the names it covers
_ABSENT_BY_REASON: dict[str, list[str]] = {

    "TF2's object-based SavedModel (tf.saved_model.save / load_v2 and their Asset and SaveOptions): it serializes a tf.Module's object graph with its traced tf.functions as FunctionDefs; opforge's SavedModel is TF1's (builder, loader, simple_save), and opforge keeps no FunctionDef library for the graphs it builds": _names("""
        saved_model.Asset saved_model.SaveOptions saved_model.load_v2 saved_model.save
    """),
    "tf.CriticalSection runs a function under a mutex resource (MutexV2 / MutexLock ops), which opforge's runtime does not have": _names("""
        tf.CriticalSection
    """),
    "tf.autograph converts Python control flow on tensors into graph ops (a source-to-source compiler), not written for opforge; opforge's tf.function traces Python as written (use tf.cond / tf.while_loop)": _names("""
        tf.autograph
    """),
    "tf.mixed_precision (TF1's enable_mixed_precision_graph_rewrite and the loss-scale optimizers) rewrites graphs to float16 in Grappler's auto-mixed-precision pass, which opforge's optimizer does not have": _names("""
        tf.mixed_precision
    """),
    "tf.Example parsing, TFRecord files and record datasets (input pipelines, issue 31)": _names("""
        io.decode_json_example io.decode_proto io.encode_proto
        tf.decode_json_example
    """),
    "compositions of existing ops not written yet (no new op needed): the other transposed-convolution spellings, raw_rnn and the state-saving RNN, DeviceWrapper, saturate_cast, broadcast_dynamic_shape, tensor_summary, ...": _names("""
    """),
    "image formats other than PNG and JPEG: opforge decodes those two (libpng, libjpeg); BMP, GIF, WebP and JPEG XL have no decoder yet": _names("""
        image.decode_bmp image.decode_gif image.decode_jxl image.decode_webp io.decode_bmp io.decode_gif io.decode_jxl
        io.decode_webp
    """),
    "image ops not yet in opforge (GenerateBoundingBoxProposals: region proposals for Faster R-CNN)": _names("""
        image.generate_bounding_box_proposals
    """),
    "tf.LMDBReader reads LMDB databases: opforge does not link liblmdb": _names("""
        tf.LMDBReader
    """),
    "tf.strings.unicode_script (UnicodeScript) needs ICU's Unicode script property tables (UScriptCode), which opforge does not link": _names("""
        strings.unicode_script
    """),
    "tf.linalg.logm: TensorFlow's MatrixLogarithm (complex64/complex128 only) is Eigen's inverse scaling and squaring over a complex Schur form; opforge has the complex dtypes and matrix ops now, but not yet that kernel": _names("""
        linalg.logm
    """),
    "segment reductions other than SegmentSum/UnsortedSegmentSum: ops not yet in opforge": _names("""
    """),
    "tf.profiler is TensorFlow's tfprof (op costs and memory from RunMetadata, ProfileOptionBuilder), not in opforge (its step timings: of.timeline)": _names("""
        tf.profiler
    """),
    "quantized kernels over (tensor, min, max) triples that opforge has no ops for yet: it has the quantized dtypes, QuantizeV2, Dequantize and fake quantization, not TF's QuantizedConcat / QuantizedAvgPool / QuantizedMaxPool / QuantizedReluX / QuantizedConv2D": _names("""
        nn.quantized_avg_pool nn.quantized_conv2d nn.quantized_max_pool nn.quantized_relu_x tf.quantized_concat
    """),
    "train.do_quantize_training_on_graphdef rewrites a GraphDef in TF's C++ (quantize_training.cc: inserting QuantizeAndDequantizeV2 and moving-average range variables before each MatMul/Conv2D input); opforge has neither that rewrite nor QuantizeAndDequantizeV2 yet": _names("""
        train.do_quantize_training_on_graphdef
    """),
    "tf.test.create_local_cluster starts tf.train.Servers (in-process gRPC workers and parameter servers): opforge has no distributed runtime": _names("""
        test.create_local_cluster
    """),
    "TensorFlow's compiler version and its file-system plugins, with no opforge counterpart": _names("""
        tf.COMPILER_VERSION tf.__compiler_version__ tf.load_file_system_library
    """),
    "TF runtime features opforge does not have: session handles (GetSessionHandle / GetSessionTensor keep tensors in a Session between runs), resource containers and colocation groups (opforge's graph nodes carry no container or _class attrs), partitioned variables (its variable scopes do not cut variables; the partitioners are there), batching functions": _names("""
        tf.check_pinned tf.colocate_with tf.container tf.create_partitioned_variables tf.delete_session_tensor
        tf.get_session_handle tf.get_session_tensor tf.nondifferentiable_batch_function
    """),
    "dtypes opforge does not have (DESIGN.md 5 lists its dtypes)": _names("""
    """),
    "SDCA (stochastic dual coordinate ascent for linear models): SdcaOptimizer and SdcaShrinkL1 update lists of ref variables (N * Ref(float)), which opforge's op signatures cannot take yet; sdca_fprint is there": _names("""
        train.sdca_optimizer train.sdca_shrink_l1
    """),
    "distributed runtime: tf.train.Server runs a cluster's tasks in processes that talk gRPC; opforge has no distributed runtime (ClusterSpec, ServerDef and replica_device_setter describe one; issue 35)": _names("""
        train.Server train.SyncReplicasOptimizer
    """),
}

ABSENT: dict[str, str] = {name: reason for reason, names in _ABSENT_BY_REASON.items() for name in names}

# reason -> {name: the TF keywords its opforge spelling does not take}
_KEYWORDS_BY_REASON: dict[str, dict[str, tuple[str, ...]]] = {
    "TF2's DTensor layouts and TF-internal gradient plumbing (grad_a/grad_b), not part of TF1's API": {
        "linalg.matmul": ("grad_a", "grad_b"),
        "tf.fill": ("layout",),
        "tf.matmul": ("grad_a", "grad_b"),
        "tf.ones": ("layout",),
        "tf.zeros": ("layout",),
    },
    "TF 2.x additions TF1 programs do not pass: bad_indices_policy (GatherNd/ScatterNd's newer attr), stateless RNG alg": {
        "random.stateless_normal": ("alg",),
        "random.stateless_truncated_normal": ("alg",),
        "random.stateless_uniform": ("alg",),
        "tf.gather_nd": ("bad_indices_policy",),
        "tf.scatter_nd": ("bad_indices_policy",),
    },
    "opforge's own classes under TF's names, built by opforge rather than by callers (TF's constructor arguments are its internals)": {
        "data.Iterator": ("initializer", "iterator_resource", "output_classes", "output_shapes", "output_types"),
        "nn.rnn_cell.RNNCell": ("trainable",),
        "tf.DType": ("handle_data", "type_enum"),
        "tf.OpError": ("error_code",),
    },
    "variable partitioning, resource variables and constraints are not in opforge's variable scopes yet": {
        "tf.VariableScope": ("caching_device", "constraint", "partitioner", "use_resource"),
    },
    "options opforge's savers and optimizers do not have (debug info, stripping default attrs, TF2 name scoping)": {
        "train.AdamOptimizer": ("use_own_namescope_for_non_slot_vars",),
        "train.Optimizer": ("use_own_namescope_for_non_slot_vars",),
        "train.export_meta_graph": ("clear_extraneous_savers", "save_debug_info", "strip_default_attrs"),
    },
}

KEYWORD_DIFFERENCES: dict[str, tuple[str, ...]] = {
    name: params for by_name in _KEYWORDS_BY_REASON.values() for name, params in by_name.items()}
KEYWORD_REASONS: dict[str, str] = {
    name: reason for reason, by_name in _KEYWORDS_BY_REASON.items() for name in by_name}
