"""Request and response bodies: the single source of the OpenAPI schema.

Tensors are typed ``Any`` for validation (``tensor_wire`` reads them, fast and
with messages that name the tensor) and described precisely for the schema.
"""
from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, WithJsonSchema

_NUMBER = {"oneOf": [{"type": "number"}, {"type": "boolean"}, {"enum": ["NaN", "Infinity", "-Infinity"]}]}
_NESTED = {"oneOf": [_NUMBER, {"type": "array", "items": {}}]}

TensorIn = Annotated[Any, WithJsonSchema({
    "title": "TensorIn",
    "description": "A nested list (typed as torch.tensor types it), a bare number, {data, dtype, requires_grad}, "
                   "{b64, shape, dtype} (raw little-endian C-order bytes), or a KServe v2 tensor "
                   "{name, shape, datatype, data}.",
    "oneOf": [
        _NESTED,
        {"type": "object", "required": ["data"], "properties": {
            "data": _NESTED, "dtype": {"type": "string", "example": "float32"},
            "requires_grad": {"type": "boolean"}}},
        {"type": "object", "required": ["b64", "shape", "dtype"], "properties": {
            "b64": {"type": "string", "format": "byte"},
            "shape": {"type": "array", "items": {"type": "integer", "minimum": 0}},
            "dtype": {"type": "string"}, "requires_grad": {"type": "boolean"}}},
        {"type": "object", "required": ["shape", "datatype", "data"], "properties": {
            "name": {"type": "string"}, "shape": {"type": "array", "items": {"type": "integer", "minimum": 0}},
            "datatype": {"enum": ["BOOL", "UINT8", "INT8", "INT16", "INT32", "INT64", "FP16", "FP32", "FP64"]},
            "data": {"type": "array", "items": {}}}},
    ]})]

TensorOut = Annotated[Any, WithJsonSchema({
    "title": "TensorOut",
    "type": "object",
    "description": "{shape, dtype, data} with data a nested list or a bare number, or {shape, dtype, b64}; "
                   "NaN and infinities travel as the strings \"NaN\", \"Infinity\", \"-Infinity\".",
    "required": ["shape", "dtype"],
    "properties": {"shape": {"type": "array", "items": {"type": "integer"}}, "dtype": {"type": "string"},
                   "data": {}, "b64": {"type": "string"}}})]


class _Body(BaseModel):
    # strict: a JSON boolean is no number and a number no boolean, as the schema says
    model_config = ConfigDict(extra="forbid", strict=True)


class CreateSession(_Body):
    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False)
    device: Literal["cpu", "cuda"] = "cpu"
    ttl_s: float | None = Field(None, ge=1.0, description=(
        "lifetime in seconds, at least 1 (default GRADSERVE_SESSION_TTL_S, 3600; capped at "
        "GRADSERVE_MAX_SESSION_TTL_S, 7 days); a session unused for GRADSERVE_IDLE_TIMEOUT_S (1800) "
        "expires before that, so expires_at may be nearer than ttl_s"))


_EXPIRES_AT = ("when the session expires if it is not used again: the earlier of its lifetime's end and its "
               "last use plus the idle timeout (each request moves it on)")


class SessionCreated(BaseModel):
    id: str
    token: str = Field(description="the session's bearer token; shown once")
    device: str
    expires_at: datetime = Field(description=_EXPIRES_AT)


class VariableInfo(BaseModel):
    shape: list[int]
    dtype: str
    requires_grad: bool
    has_grad: bool


class SessionInfo(BaseModel):
    id: str
    device: str
    created_at: datetime
    expires_at: datetime = Field(description=_EXPIRES_AT)
    ttl_expires_at: datetime | None = Field(None, description="the end of the session's lifetime (created_at "
                                                              "plus its ttl_s), however it is used")
    idle_timeout_s: float | None = Field(None, description="a session unused this long expires")
    variables: dict[str, VariableInfo]
    bytes: int
    omitted: int | None = Field(None, description="variables past the server's max_tensors, or with names longer "
                                "than 256 characters (a variable name's limit), not listed")


class RunRequest(_Body):
    program: str = Field(description="program source (SPEC section 2)")
    inputs: dict[str, TensorIn] = Field(default_factory=dict, description="bound as variables before the run")
    outputs: list[str] | None = Field(None, description="names or dotted paths to return; omitted: every "
                                                        "top-level name the run bound to a tensor (at most 64)")
    graph: bool = False
    encoding: Literal["json", "base64", "binary"] = Field("json", description=(
        "how the answer's tensors travel: nested lists, base64, or raw bytes after a JSON header "
        "(Triton's binary tensor extension; see Inference-Header-Content-Length)"))


class RunResult(BaseModel):
    values: dict[str, Any]
    grads: dict[str, TensorOut]
    graph: dict[str, Any] | None
    stdout: str
    elapsed_ms: float
    omitted: dict[str, str] | None = Field(None, description="present when values were left out of this answer: "
                                           "{\"limit\", \"message\"} (auto_outputs: the run bound more than 64 "
                                           "tensors and no outputs were named; the message lists them)")


class VariableValue(BaseModel):
    value: TensorOut
    grad: TensorOut | None


class NodeTensors(BaseModel):
    run: str
    node: int
    value: TensorOut | None
    grad: TensorOut | None


class ErrorDetail(BaseModel):
    model_config = ConfigDict(extra="allow")
    type: str
    message: str
    line: int | None = None
    col: int | None = None
    traceback: list[dict[str, Any]] | None = None
    limit: str | None = None


class ErrorBody(BaseModel):
    model_config = ConfigDict(extra="allow")
    error: ErrorDetail


class GraphNode(BaseModel):
    model_config = ConfigDict(extra="allow")
    id: int
    kind: Literal["leaf", "op", "output"]
    op: str | None = None
    name: str | None = None
    shape: list[int]
    dtype: str
    requires_grad: bool
    line: int | None = None
    module: str | None = Field(None, description="the module path (\"encoder.layers.0\") whose forward made the "
                                                 "node, or that owns the parameter; \"\" for the outermost module")
    call: int | None = Field(None, description="the module call (an entry of \"modules\") the node belongs to")
    value: dict[str, Any] | None = None
    grad: dict[str, Any] | None = None


class GraphEdge(BaseModel):
    model_config = ConfigDict(populate_by_name=True)
    from_: int = Field(alias="from")
    to: int
    input_index: int


class ModuleCall(BaseModel):
    call: int
    path: str
    class_: str = Field(alias="class")
    parent: int | None = None


class Graph(BaseModel):
    nodes: list[GraphNode]
    edges: list[GraphEdge]
    modules: list[ModuleCall] | None = None


class Health(BaseModel):
    status: str


class Readiness(BaseModel):
    status: str
    workers: list[dict[str, Any]]


def errors(*statuses):
    """OpenAPI ``responses`` entries for the error statuses a route may answer."""
    return {status: {"model": ErrorBody} for status in statuses}
