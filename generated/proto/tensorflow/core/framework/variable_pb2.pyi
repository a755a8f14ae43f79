from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Optional as _Optional

DESCRIPTOR: _descriptor.FileDescriptor

class VariableDef(_message.Message):
    __slots__ = ("variable_name", "initial_value_name", "initializer_name", "snapshot_name", "is_resource", "trainable")
    VARIABLE_NAME_FIELD_NUMBER: _ClassVar[int]
    INITIAL_VALUE_NAME_FIELD_NUMBER: _ClassVar[int]
    INITIALIZER_NAME_FIELD_NUMBER: _ClassVar[int]
    SNAPSHOT_NAME_FIELD_NUMBER: _ClassVar[int]
    IS_RESOURCE_FIELD_NUMBER: _ClassVar[int]
    TRAINABLE_FIELD_NUMBER: _ClassVar[int]
    variable_name: str
    initial_value_name: str
    initializer_name: str
    snapshot_name: str
    is_resource: bool
    trainable: bool
    def __init__(self, variable_name: _Optional[str] = ..., initial_value_name: _Optional[str] = ..., initializer_name: _Optional[str] = ..., snapshot_name: _Optional[str] = ..., is_resource: _Optional[bool] = ..., trainable: _Optional[bool] = ...) -> None: ...
