"""Messages between the server and its worker processes over a pipe.

A message is a JSON header followed by raw buffers: tensors travel as their
bytes (little-endian, C order), never as JSON and never pickled, so a worker
that a hostile program took over cannot make the server run code by what it
sends back. In a header an array appears as ``{"buf": i, "dtype", "shape"}``.
"""
import json

import numpy as np

# dtypes that may cross the pipe (the engine's, by NumPy name)
DTYPES = frozenset({"float16", "float32", "float64", "uint8", "int8", "int16", "int32", "int64", "bool"})


class FrameError(Exception):
    """A malformed message on the pipe."""


def send_message(conn, header, buffers=()):
    """Sends a header and its buffers as consecutive pipe messages."""
    header["nbuf"] = len(buffers)
    conn.send_bytes(json.dumps(header, separators=(",", ":"), allow_nan=False).encode())
    for buf in buffers:
        conn.send_bytes(buf)


def recv_message(conn):
    """Receives one message: (header dict, list of bytes buffers)."""
    header = json.loads(conn.recv_bytes())
    if not isinstance(header, dict):
        raise FrameError("message header is not an object")
    n = header.get("nbuf", 0)
    if not isinstance(n, int) or n < 0:
        raise FrameError("bad buffer count")
    return header, [conn.recv_bytes() for _ in range(n)]


def pack_array(array, buffers):
    """Appends an array's bytes to ``buffers`` and returns its header entry."""
    if array.dtype.byteorder == ">":
        array = array.astype(array.dtype.newbyteorder("<"))
    if not array.flags.c_contiguous:  # (np.ascontiguousarray would turn a 0-d array into 1-d)
        array = array.copy(order="C")
    buffers.append(memoryview(array).cast("B") if array.size else b"")
    return {"buf": len(buffers) - 1, "dtype": array.dtype.name, "shape": list(array.shape)}


def unpack_array(entry, buffers):
    """The array a header entry refers to (read-only view over the received bytes)."""
    try:
        dtype = entry["dtype"]
        shape = tuple(int(s) for s in entry["shape"])
        buf = buffers[entry["buf"]]
    except (KeyError, TypeError, ValueError, IndexError) as e:
        raise FrameError(f"bad array entry: {e}") from None
    if dtype not in DTYPES:
        raise FrameError(f"bad dtype {dtype!r}")
    count = 1
    for s in shape:
        count *= s
    if count * np.dtype(dtype).itemsize != len(buf):
        raise FrameError("array byte count does not match its shape")
    return np.frombuffer(buf, dtype=dtype).reshape(shape)


def is_array_entry(value):
    return isinstance(value, dict) and "buf" in value and "dtype" in value
