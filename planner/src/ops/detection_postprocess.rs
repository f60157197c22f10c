//! `TFLite_Detection_PostProcess`, the custom op of SSD detectors: TFLM's
//! `detection_postprocess.cc` (`DetectionPostProcessInit` reads the options from the op's
//! FlexBuffers `custom_options`, `DetectionPostProcessPrepare` checks the ranks, `Eval` the
//! rest), for the kernel `stowplan::kernels::detection_postprocess` (float inputs, as TFLM's).
//!
//! The options are read as TFLM reads them ([`crate::tflite::flexbuffer`]): a missing key is
//! null (0, 0.0, false), except `detections_per_class` (100) and `use_regular_nms` (false);
//! numbers convert between integers and floats as `flexbuffers::Reference` converts them.
//! What TFLM's `Eval` checks is checked here (its failures are the model's: batch 1, at least
//! 4 values per box encoding, one class of background at most, positive
//! `max_classes_per_detection` or `detections_per_class`, an IoU threshold in `(0, 1]`), and
//! what TFLM leaves undefined is refused (float inputs and outputs only, outputs that hold what
//! TFLM writes, at least one class). The one check left to run time is TFLM's `ValidateBoxes`.
//!
//! TFLM requests eleven scratch buffers whose sizes depend on the options; the build's
//! `tflm_scratch` sees the model but not the file's bytes, so it cannot read them and reports
//! none for this op. The runtime's kernel needs no scratch.

use proc_macro2::TokenStream;
use quote::quote;

use super::{Call, Lower, OpKind, Refusal, f32_lit, invalid, kernel, unsupported};
use crate::tflite::DType;
use crate::tflite::flexbuffer::{self, Value};

/// `TFLite_Detection_PostProcess`.
pub const DETECTION_POSTPROCESS: OpKind = kernel("detection_postprocess", lower);

/// The runtime kernel's bounds (`stowplan::kernels::MAX_CLASSES_PER_DETECTION` and
/// `MAX_DETECTIONS_PER_CLASS`).
const MAX_CLASSES_PER_DETECTION: usize = 32;
const MAX_DETECTIONS_PER_CLASS: usize = 128;

/// A float parameter's tokens; non-finite values (a threshold of minus infinity) by their bits.
fn float(v: f32) -> Result<TokenStream, Refusal> {
    if v.is_finite() {
        return f32_lit(v);
    }
    let bits = proc_macro2::Literal::u32_suffixed(v.to_bits());
    Ok(quote!(::core::primitive::f32::from_bits(#bits)))
}

/// A non-negative count of the options as `usize`.
fn count(v: i32, what: &str) -> Result<usize, Refusal> {
    usize::try_from(v).map_err(|_| {
        Refusal::Invalid(format!(
            "{what} is {v}; TFLM's TFLite_Detection_PostProcess needs it non-negative"
        ))
    })
}

fn lower(cx: &Lower<'_>) -> Result<Call, Refusal> {
    let k = cx.k();
    let pname = cx.params;
    // detection_postprocess.cc:153 and :169: three inputs, four outputs.
    if cx.op.inputs.len() != 3 || cx.op.outputs.len() != 4 {
        return invalid(format!(
            "TFLite_Detection_PostProcess has {} inputs and {} outputs; TFLM's needs 3 and 4",
            cx.op.inputs.len(),
            cx.op.outputs.len()
        ));
    }
    let Some(range) = cx.op.custom_options.clone() else {
        return invalid("it has no custom_options, from which TFLM reads its options");
    };
    let options = cx
        .bytes
        .get(range)
        .ok_or_else(|| Refusal::Invalid("its custom_options lie outside the file".to_owned()))?;
    let map = flexbuffer::root_map(options).map_err(|e| {
        Refusal::Invalid(format!(
            "its custom_options are not a valid FlexBuffers map: {e}"
        ))
    })?;
    // An absent map reads as empty in TFLM: every key null.
    let get = |key: &str| -> Result<Value, Refusal> {
        match &map {
            Some(m) => m.get(key).map_err(|e| {
                Refusal::Unsupported(format!(
                    "option {key}: {e} (stowplan reads numbers and bools)"
                ))
            }),
            None => Ok(Value::Null),
        }
    };
    let max_detections = get("max_detections")?.as_i32();
    let max_classes_per_detection = get("max_classes_per_detection")?.as_i32();
    let dpc = get("detections_per_class")?;
    let detections_per_class = if dpc.is_null() { 100 } else { dpc.as_i32() };
    let regular = get("use_regular_nms")?;
    let use_regular_nms = if regular.is_null() {
        false
    } else {
        regular.as_bool().ok_or_else(|| {
            Refusal::Unsupported(
                "use_regular_nms is a float, whose conversion to bool TFLM leaves undefined"
                    .to_owned(),
            )
        })?
    };
    let score_threshold = get("nms_score_threshold")?.as_f32();
    let iou_threshold = get("nms_iou_threshold")?.as_f32();
    let num_classes = get("num_classes")?.as_i32();
    let scales = [
        get("y_scale")?.as_f32(),
        get("x_scale")?.as_f32(),
        get("h_scale")?.as_f32(),
        get("w_scale")?.as_f32(),
    ];

    let boxes = cx.input(0)?;
    let class_predictions = cx.input(1)?;
    let anchors = cx.input(2)?;
    // detection_postprocess.cc:163-165: ranks 3, 3, 2.
    for (t, rank) in [(boxes, 3), (class_predictions, 3), (anchors, 2)] {
        if t.shape.len() != rank {
            return invalid(format!(
                "{} has rank {}; TFLite_Detection_PostProcess needs {rank}",
                t.desc(),
                t.shape.len()
            ));
        }
    }
    // Eval: float box encodings and class predictions (anything else fails); the anchors are
    // read as floats whatever their type.
    for t in [boxes, class_predictions] {
        if t.dtype != DType::Float32 {
            return invalid(format!(
                "{} is {}; TFLM's TFLite_Detection_PostProcess takes float32 only (its Eval fails)",
                t.desc(),
                t.dtype
            ));
        }
    }
    if anchors.dtype != DType::Float32 {
        return unsupported(format!(
            "{} is {}; TFLM reads the anchors as float32 whatever their type",
            anchors.desc(),
            anchors.dtype
        ));
    }
    let bs = cx.shape_n::<3>(boxes)?;
    let cs = cx.shape_n::<3>(class_predictions)?;
    let num_boxes = bs[1];
    // DecodeCenterSizeBoxes and NonMaxSuppressionMultiClass.
    if bs[0] != 1 || bs[2] < 4 {
        return invalid(format!(
            "{} has shape {bs:?}; TFLM needs [1, boxes, 4 or more]",
            boxes.desc()
        ));
    }
    if cs[0] != 1 || cs[1] != num_boxes {
        return invalid(format!(
            "{} has shape {cs:?}; TFLM needs [1, {num_boxes}, classes]",
            class_predictions.desc()
        ));
    }
    let ncwb = cs[2];
    let classes = usize::try_from(num_classes)
        .ok()
        .filter(|&c| c <= ncwb && ncwb - c <= 1);
    let Some(classes) = classes else {
        return invalid(format!(
            "num_classes is {num_classes} and {} has {ncwb} classes: TFLM needs them equal, or one more (a background class)",
            class_predictions.desc()
        ));
    };
    if cx.elements(anchors)? / 4 < num_boxes {
        return invalid(format!(
            "{} holds {} values; TFLM reads 4 for each of the {num_boxes} boxes",
            anchors.desc(),
            cx.elements(anchors)?
        ));
    }
    let max_detections = count(max_detections, "max_detections")?;
    let iou_ok = iou_threshold > 0.0 && iou_threshold <= 1.0;
    let (per_detection, detections) = if use_regular_nms {
        if detections_per_class <= 0 {
            return invalid(format!(
                "detections_per_class is {detections_per_class}; TFLM's regular NMS needs it positive"
            ));
        }
        if classes > 0 && !iou_ok {
            return invalid(format!(
                "nms_iou_threshold is {iou_threshold}; TFLM needs it in (0, 1]"
            ));
        }
        let per_class = count(detections_per_class, "detections_per_class")?.min(num_boxes);
        if per_class > MAX_DETECTIONS_PER_CLASS {
            return unsupported(format!(
                "detections_per_class {detections_per_class} over {num_boxes} boxes: the runtime's regular NMS keeps at most {MAX_DETECTIONS_PER_CLASS} per class"
            ));
        }
        (1, max_detections)
    } else {
        if max_classes_per_detection <= 0 {
            return invalid(format!(
                "max_classes_per_detection is {max_classes_per_detection}; TFLM's fast NMS needs it positive"
            ));
        }
        if !iou_ok {
            return invalid(format!(
                "nms_iou_threshold is {iou_threshold}; TFLM needs it in (0, 1]"
            ));
        }
        if classes == 0 {
            return unsupported(
                "num_classes is 0: TFLM's fast NMS then reads a class index it never wrote",
            );
        }
        let per_detection =
            count(max_classes_per_detection, "max_classes_per_detection")?.min(classes);
        if per_detection > MAX_CLASSES_PER_DETECTION {
            return unsupported(format!(
                "{per_detection} classes per detection: the runtime's fast NMS takes at most {MAX_CLASSES_PER_DETECTION}"
            ));
        }
        (per_detection, max_detections.min(num_boxes))
    };
    // The outputs: float32 (TFLM writes floats into them), holding what TFLM writes.
    let entries = detections
        .checked_mul(per_detection)
        .ok_or_else(|| Refusal::Invalid("the detections' count overflows".to_owned()))?;
    for (i, (name, each)) in [("boxes", 4), ("classes", 1), ("scores", 1), ("count", 0)]
        .into_iter()
        .enumerate()
    {
        let t = cx.output(i)?;
        if t.dtype != DType::Float32 {
            return unsupported(format!(
                "{} (the detection {name}) is {}; TFLM writes float32 into it",
                t.desc(),
                t.dtype
            ));
        }
        let need = if each == 0 {
            1
        } else {
            entries.saturating_mul(each)
        };
        if cx.elements(t)? < need {
            return invalid(format!(
                "{} (the detection {name}) holds {} values; TFLM writes {need}",
                t.desc(),
                cx.elements(t)?
            ));
        }
    }
    let stride = bs[2];
    let (mcpd, dpc_lit) = (
        count(
            max_classes_per_detection.max(0),
            "max_classes_per_detection",
        )?,
        count(detections_per_class.max(0), "detections_per_class")?,
    );
    let [ys, xs, hs, ws] = scales;
    let (st, it, ys, xs, hs, ws) = (
        float(score_threshold)?,
        float(iou_threshold)?,
        float(ys)?,
        float(xs)?,
        float(hs)?,
        float(ws)?,
    );
    Ok(Call {
        params: Some(
            quote!(pub const #pname: #k::DetectionPostProcess = #k::DetectionPostProcess {
            num_boxes: #num_boxes, box_stride: #stride, num_classes: #classes,
            num_classes_with_background: #ncwb, max_detections: #max_detections,
            max_classes_per_detection: #mcpd, detections_per_class: #dpc_lit,
            use_regular_nms: #use_regular_nms, score_threshold: #st, iou_threshold: #it,
            y_scale: #ys, x_scale: #xs, h_scale: #hs, w_scale: #ws,
        };),
        ),
        body: quote!(#k::proven::detection_postprocess(&params::#pname, i0, i1, i2, o0, o1, o2, o3);),
        reads: vec![0, 1, 2],
        check: Some(quote!(#k::check_detection_postprocess(&#pname, i0, i1, i2, o0, o1, o2, o3))),
    })
}
