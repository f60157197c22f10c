"""CIRCULAR_BUFFER's Init and Prepare as TFLM computes them, for op 0 of a model.

micro/kernels/circular_buffer.cc:59-72 (CircularBufferInit: cycles_max is ElementAsInt32(0) of
the custom options, 0 when there are none), micro/kernels/circular_buffer_common.cc:38-97
(CircularBufferPrepare: input dims[0] == output dims[0], input dims[1] == 1, dims[2] and
dims[3] equal, both int8; when cycles_max <= 0 the process-wide `static int cb_prepare_count`
counts the Prepare and cycles_max becomes 1 for an output of 5, 13 or 25 slots, or of dims
2x96 at the fifth count (the count set back to 0), else 2), circular_buffer.cc:79-107 (Eval:
num_slots = output dims[1], depth = output dims[2] * dims[3]).

Op 0 is the first Prepare of its model; the suite's models where the count matters start with a
window of 5, 13 or 25 slots, which sets TFLM's count back to 0, so for op 0 the count before it
does not change the result: the fresh-process count of 1 is used.
"""

import signal_options as so
import tflm


def init_cycles_max(op):
    if op.custom_options is None or len(op.custom_options) == 0:
        return 0
    return so.int32(so.values(op), 0)


def expected(op):
    if not op.inputs or op.inputs[0] is None or not op.outputs:
        raise tflm.PrepareFails("no input or output")
    i, o = op.inputs[0].shape, op.outputs[0].shape
    if len(i) != 4 or len(o) != 4:
        raise tflm.PrepareFails("rank")
    if i[0] != o[0] or i[1] != 1 or i[2] != o[2] or o[3] != i[3]:
        raise tflm.PrepareFails("dims")
    if op.inputs[0].dtype != op.outputs[0].dtype or op.inputs[0].dtype != "int8":
        raise tflm.PrepareFails("types")
    cycles = init_cycles_max(op)
    if cycles <= 0:
        count = 1
        if o[1] in (5, 13, 25) or (count == 5 and o[2] == 2 and o[3] == 96):
            cycles = 1
        else:
            cycles = 2
    return {"num_slots": o[1], "depth": o[2] * o[3], "cycles_max": cycles}


def prepare_all(path):
    """(num_slots, cycles_max) of every CIRCULAR_BUFFER of subgraph 0 in Prepare order, with
    TFLM's count from 0 (a new process; see the module docs)."""
    from pathlib import Path

    from flatbuffers import flexbuffers
    from tflite_micro.tensorflow.lite.micro.python import schema_py_generated as schema

    m = schema.ModelT.InitFromPackedBuf(Path(path).read_bytes(), 0)
    sg = m.subgraphs[0]
    count = 0
    out = []
    for op in sg.operators:
        code = m.operatorCodes[op.opcodeIndex]
        if not code.customCode or code.customCode.decode() != "CIRCULAR_BUFFER":
            continue
        raw = op.customOptions
        cycles = 0
        if raw is not None and len(raw):
            vals = flexbuffers.Loads(bytes(bytearray(raw)))
            cycles = so.int32([vals[k] for k in sorted(vals, key=lambda k: k.encode())], 0)
        shape = [int(d) for d in sg.tensors[op.outputs[0]].shape]
        if cycles <= 0:
            count += 1
            if shape[1] in (5, 13, 25) or (count == 5 and shape[2] == 2 and shape[3] == 96):
                cycles = 1
                count = 0
            else:
                cycles = 2
        out.append((shape[1], cycles))
    return out


def determined_from(path, runs):
    """The first run from which TFLM's outputs are determined. TFLM's windows are ordinary arena
    tensors that start with what its Prepare left in the arena, and a window shifts only on
    invocations the buffers before it let through: the model's output (the concatenation of
    every window) is determined from the first complete invocation after which every window has
    been written `num_slots` times. Earlier runs' outputs are not compared (their statuses are)."""
    windows = prepare_all(path)
    until = [c for _, c in windows]
    writes = [0] * len(windows)
    for r in range(runs):
        complete = True
        for k, (slots, cycles) in enumerate(windows):
            writes[k] += 1
            until[k] -= 1
            if until[k] != 0:
                complete = False
                break
            until[k] = cycles
        if complete and all(w >= s for w, (s, _) in zip(writes, windows)):
            return r
    return runs
