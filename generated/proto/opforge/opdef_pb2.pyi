from ..tensorflow.core.framework import op_def_pb2 as _op_def_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class OpDef(_message.Message):
    __slots__ = ("name", "input_arg", "output_arg", "control_output", "attr", "deprecation", "summary", "description", "is_commutative", "is_aggregate", "is_stateful", "allows_uninitialized_input", "is_distributed_communication", "signature", "arg_doc", "shape_fn", "gradient", "gradient_fn", "not_differentiable", "reference", "python_name")
    class Signature(_message.Message):
        __slots__ = ("input", "output", "attr")
        INPUT_FIELD_NUMBER: _ClassVar[int]
        OUTPUT_FIELD_NUMBER: _ClassVar[int]
        ATTR_FIELD_NUMBER: _ClassVar[int]
        input: _containers.RepeatedScalarFieldContainer[str]
        output: _containers.RepeatedScalarFieldContainer[str]
        attr: _containers.RepeatedScalarFieldContainer[str]
        def __init__(self, input: _Optional[_Iterable[str]] = ..., output: _Optional[_Iterable[str]] = ..., attr: _Optional[_Iterable[str]] = ...) -> None: ...
    class ArgDoc(_message.Message):
        __slots__ = ("name", "description")
        NAME_FIELD_NUMBER: _ClassVar[int]
        DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
        name: str
        description: str
        def __init__(self, name: _Optional[str] = ..., description: _Optional[str] = ...) -> None: ...
    class Gradient(_message.Message):
        __slots__ = ("wrt", "expr")
        WRT_FIELD_NUMBER: _ClassVar[int]
        EXPR_FIELD_NUMBER: _ClassVar[int]
        wrt: str
        expr: str
        def __init__(self, wrt: _Optional[str] = ..., expr: _Optional[str] = ...) -> None: ...
    class PythonName(_message.Message):
        __slots__ = ("name", "rename_to")
        NAME_FIELD_NUMBER: _ClassVar[int]
        RENAME_TO_FIELD_NUMBER: _ClassVar[int]
        name: str
        rename_to: str
        def __init__(self, name: _Optional[str] = ..., rename_to: _Optional[str] = ...) -> None: ...
    NAME_FIELD_NUMBER: _ClassVar[int]
    INPUT_ARG_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_ARG_FIELD_NUMBER: _ClassVar[int]
    CONTROL_OUTPUT_FIELD_NUMBER: _ClassVar[int]
    ATTR_FIELD_NUMBER: _ClassVar[int]
    DEPRECATION_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    IS_COMMUTATIVE_FIELD_NUMBER: _ClassVar[int]
    IS_AGGREGATE_FIELD_NUMBER: _ClassVar[int]
    IS_STATEFUL_FIELD_NUMBER: _ClassVar[int]
    ALLOWS_UNINITIALIZED_INPUT_FIELD_NUMBER: _ClassVar[int]
    IS_DISTRIBUTED_COMMUNICATION_FIELD_NUMBER: _ClassVar[int]
    SIGNATURE_FIELD_NUMBER: _ClassVar[int]
    ARG_DOC_FIELD_NUMBER: _ClassVar[int]
    SHAPE_FN_FIELD_NUMBER: _ClassVar[int]
    GRADIENT_FIELD_NUMBER: _ClassVar[int]
    GRADIENT_FN_FIELD_NUMBER: _ClassVar[int]
    NOT_DIFFERENTIABLE_FIELD_NUMBER: _ClassVar[int]
    REFERENCE_FIELD_NUMBER: _ClassVar[int]
    PYTHON_NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    input_arg: _containers.RepeatedCompositeFieldContainer[_op_def_pb2.OpDef.ArgDef]
    output_arg: _containers.RepeatedCompositeFieldContainer[_op_def_pb2.OpDef.ArgDef]
    control_output: _containers.RepeatedScalarFieldContainer[str]
    attr: _containers.RepeatedCompositeFieldContainer[_op_def_pb2.OpDef.AttrDef]
    deprecation: _op_def_pb2.OpDeprecation
    summary: str
    description: str
    is_commutative: bool
    is_aggregate: bool
    is_stateful: bool
    allows_uninitialized_input: bool
    is_distributed_communication: bool
    signature: OpDef.Signature
    arg_doc: _containers.RepeatedCompositeFieldContainer[OpDef.ArgDoc]
    shape_fn: str
    gradient: _containers.RepeatedCompositeFieldContainer[OpDef.Gradient]
    gradient_fn: str
    not_differentiable: bool
    reference: str
    python_name: _containers.RepeatedCompositeFieldContainer[OpDef.PythonName]
    def __init__(self, name: _Optional[str] = ..., input_arg: _Optional[_Iterable[_Union[_op_def_pb2.OpDef.ArgDef, _Mapping]]] = ..., output_arg: _Optional[_Iterable[_Union[_op_def_pb2.OpDef.ArgDef, _Mapping]]] = ..., control_output: _Optional[_Iterable[str]] = ..., attr: _Optional[_Iterable[_Union[_op_def_pb2.OpDef.AttrDef, _Mapping]]] = ..., deprecation: _Optional[_Union[_op_def_pb2.OpDeprecation, _Mapping]] = ..., summary: _Optional[str] = ..., description: _Optional[str] = ..., is_commutative: _Optional[bool] = ..., is_aggregate: _Optional[bool] = ..., is_stateful: _Optional[bool] = ..., allows_uninitialized_input: _Optional[bool] = ..., is_distributed_communication: _Optional[bool] = ..., signature: _Optional[_Union[OpDef.Signature, _Mapping]] = ..., arg_doc: _Optional[_Iterable[_Union[OpDef.ArgDoc, _Mapping]]] = ..., shape_fn: _Optional[str] = ..., gradient: _Optional[_Iterable[_Union[OpDef.Gradient, _Mapping]]] = ..., gradient_fn: _Optional[str] = ..., not_differentiable: _Optional[bool] = ..., reference: _Optional[str] = ..., python_name: _Optional[_Iterable[_Union[OpDef.PythonName, _Mapping]]] = ...) -> None: ...

class OpList(_message.Message):
    __slots__ = ("op",)
    OP_FIELD_NUMBER: _ClassVar[int]
    op: _containers.RepeatedCompositeFieldContainer[OpDef]
    def __init__(self, op: _Optional[_Iterable[_Union[OpDef, _Mapping]]] = ...) -> None: ...
