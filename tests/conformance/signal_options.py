"""What the signal library's conformance modules share: each op's custom options as TFLM reads
them (signal/micro/kernels/*.cc, *Init through tensorflow/lite/micro/flatbuffer_utils.cc:
FlexbufferWrapper::ElementAsInt64/ElementAsBool read value `i` of the root map's values, keys in
sorted order, as the raw integer of its bytes), read with the flatbuffers package's own
FlexBuffers reader."""

from flatbuffers import flexbuffers

import tflm

# tflm.Op keeps the builtin options only: keep the custom options too (as
# detection_postprocess.py does; whichever module runs first patches).
if not hasattr(tflm.Op, "_with_custom_options"):
    _init = tflm.Op.__init__

    def _init_with_custom_options(self, model, op):
        _init(self, model, op)
        raw = op.customOptions
        self.custom_options = bytes(bytearray(raw)) if raw is not None else None

    tflm.Op.__init__ = _init_with_custom_options
    tflm.Op._with_custom_options = True


def values(op):
    """The option values in key order (TFLM's FlexbufferWrapper positions)."""
    if op.custom_options is None:
        raise tflm.PrepareFails("no custom options")
    m = flexbuffers.Loads(op.custom_options)
    if not isinstance(m, dict):
        raise tflm.PrepareFails("options are not a map")
    return [m[k] for k in sorted(m, key=lambda k: k.encode())]


def int32(vals, i):
    """ElementAsInt32(i) of integer and bool options (the ones the suite writes)."""
    if i >= len(vals):
        raise tflm.PrepareFails(f"option {i} is past the map")
    return tflm.wrap_i32(int(vals[i]))


def dims(t):
    return len(t.shape)
