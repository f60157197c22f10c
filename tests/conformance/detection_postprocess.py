"""TFLite_Detection_PostProcess's Init and Prepare as TFLM computes them.

tensorflow/lite/micro/kernels/detection_postprocess.cc:117-150 (DetectionPostProcessInit: the
options from the op's FlexBuffers custom_options, read here with the flatbuffers package's own
FlexBuffers reader), :152-223 (DetectionPostProcessPrepare: ranks) and the checks of its Eval
(DecodeCenterSizeBoxes :274-279, NonMaxSuppressionMultiClass :725-737, the helpers :426-433,
:530 and :640).

stowplan's DetectionPostProcess holds the options as TFLM's OpData does (num_classes from the
options; num_classes_with_background and the box stride from the shapes).
"""

import math

import numpy as np
from flatbuffers import flexbuffers

import tflm

# tflm.Op keeps the builtin options only: keep the custom options too (this module is imported
# before its models are read).
if not hasattr(tflm.Op, "_with_custom_options"):
    _init = tflm.Op.__init__

    def _init_with_custom_options(self, model, op):
        _init(self, model, op)
        raw = op.customOptions
        self.custom_options = bytes(bytearray(raw)) if raw is not None else None

    tflm.Op.__init__ = _init_with_custom_options
    tflm.Op._with_custom_options = True


def as_int32(v):
    """flexbuffers Reference::AsInt32: AsInt64 (floats truncated, bools as 0/1, null 0),
    narrowed."""
    if v is None:
        i = 0
    elif isinstance(v, float):
        i = tflm.INT32_MIN if math.isnan(v) else int(v)
    else:
        i = int(v)
    return tflm.wrap_i32(i)


def as_float(v):
    """Reference::AsFloat: AsDouble rounded to float."""
    return float(np.float32(0.0 if v is None else float(v)))


def expected(op):
    if op.custom_options is None:
        raise tflm.PrepareFails("no custom options")
    m = flexbuffers.Loads(op.custom_options)
    if not isinstance(m, dict):
        m = {}
    # detection_postprocess.cc:126-146
    max_detections = as_int32(m.get("max_detections"))
    max_classes_per_detection = as_int32(m.get("max_classes_per_detection"))
    dpc = m.get("detections_per_class")
    detections_per_class = 100 if dpc is None else as_int32(dpc)
    regular = m.get("use_regular_nms")
    use_regular_nms = False if regular is None else bool(regular)
    num_classes = as_int32(m.get("num_classes"))
    boxes, scores, anchors = op.input(0), op.input(1), op.input(2)
    # :153-165 three inputs of ranks 3, 3, 2; :169 four outputs.
    if len(op.inputs) != 3 or len(op.outputs) != 4:
        raise tflm.PrepareFails("three inputs and four outputs")
    if (len(boxes.shape), len(scores.shape), len(anchors.shape)) != (3, 3, 2):
        raise tflm.PrepareFails("input ranks")
    # Eval: batch 1, 4 or more values per box, float inputs, a background class at most.
    if boxes.shape[0] != 1 or boxes.shape[2] < 4 or scores.shape[0] != 1 or \
            scores.shape[1] != boxes.shape[1]:
        raise tflm.PrepareFails("shapes")
    if boxes.dtype != "float32" or scores.dtype != "float32":
        raise tflm.PrepareFails("quantised inputs")
    ncwb = scores.shape[2]
    if not (0 <= ncwb - num_classes <= 1):
        raise tflm.PrepareFails("num_classes does not fit the class predictions")
    iou = as_float(m.get("nms_iou_threshold"))
    if use_regular_nms:
        if detections_per_class <= 0:
            raise tflm.PrepareFails("detections_per_class <= 0")
    elif max_classes_per_detection <= 0:
        raise tflm.PrepareFails("max_classes_per_detection <= 0")
    if not (0.0 < iou <= 1.0):
        raise tflm.PrepareFails("nms_iou_threshold outside (0, 1]")
    return {
        "num_boxes": boxes.shape[1],
        "box_stride": boxes.shape[2],
        "num_classes": num_classes,
        "num_classes_with_background": ncwb,
        "max_detections": max_detections,
        "max_classes_per_detection": max_classes_per_detection,
        "detections_per_class": detections_per_class,
        "use_regular_nms": use_regular_nms,
        "score_threshold": as_float(m.get("nms_score_threshold")),
        "iou_threshold": iou,
        "y_scale": as_float(m.get("y_scale")),
        "x_scale": as_float(m.get("x_scale")),
        "h_scale": as_float(m.get("h_scale")),
        "w_scale": as_float(m.get("w_scale")),
    }
