//! `invoke`: the generated function that runs a model's ops in order on the planned slots, with
//! the runtime's reference kernels (`stowplan::kernels`, feature `kernels`).
//!
//! Everything TFLite Micro's kernels compute in `Prepare` (per-channel multipliers and shifts,
//! padding, activation ranges, softmax scaling, ...) is computed here, at build time, with
//! TFLM's arithmetic ([`crate::quant`]), and emitted as constants: the device runs the kernels
//! and nothing else. An op without a kernel is an error naming the op and the model.

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use crate::ModelPlan;
use crate::quant;
use crate::tflite::{Activation, BuiltinOp, DType, Op, OpOptions, Opcode, Padding, Tensor};

/// Why an op has no kernel call.
pub type NoKernel = String;

struct Ctx<'a> {
    plan: &'a ModelPlan,
    bytes: &'a [u8],
    op: &'a Op,
    rt: &'a TokenStream,
}

impl<'a> Ctx<'a> {
    fn tensor(&self, id: Option<usize>) -> Option<&'a Tensor> {
        let base = self
            .plan
            .model
            .subgraphs
            .get(self.op.subgraph.get())
            .map_or(0, |s| s.first_tensor);
        self.plan.model.tensors.get(base + id?)
    }

    fn input(&self, i: usize) -> Result<&'a Tensor, NoKernel> {
        self.tensor(self.op.inputs.get(i).copied().flatten().map(|t| t.get()))
            .ok_or_else(|| format!("input {i} is missing"))
    }

    fn output(&self, i: usize) -> Result<&'a Tensor, NoKernel> {
        self.tensor(self.op.outputs.get(i).map(|t| t.get()))
            .ok_or_else(|| format!("output {i} is missing"))
    }

    /// The planned shape (overrides applied) of a tensor.
    fn shape(&self, t: &Tensor) -> Result<Vec<usize>, NoKernel> {
        let info = self
            .plan
            .tensors
            .get(t.id.get())
            .ok_or_else(|| "tensor info missing".to_owned())?;
        info.shape
            .iter()
            .map(|&d| usize::try_from(d).map_err(|_| format!("`{}` has a dynamic shape", t.name)))
            .collect()
    }

    fn shape_n<const N: usize>(&self, t: &Tensor) -> Result<[usize; N], NoKernel> {
        let s = self.shape(t)?;
        if s.len() > N {
            return Err(format!(
                "`{}` has {} dimensions, more than {N}",
                t.name,
                s.len()
            ));
        }
        let mut out = [1usize; N];
        for (o, d) in out.iter_mut().skip(N - s.len()).zip(&s) {
            *o = *d;
        }
        Ok(out)
    }

    fn elements(&self, t: &Tensor) -> Result<usize, NoKernel> {
        product(&self.shape(t)?)
    }

    /// Per-tensor scale and zero point.
    fn quant(&self, t: &Tensor) -> Result<(f32, i32), NoKernel> {
        let q = t
            .quantization
            .as_ref()
            .filter(|q| !q.scale.is_empty())
            .ok_or_else(|| format!("`{}` has no quantisation", t.name))?;
        let scale = *q.scale.first().unwrap_or(&0.0);
        let zp = q.zero_point.first().copied().unwrap_or(0);
        let zp = i32::try_from(zp).map_err(|_| format!("`{}`: zero point {zp}", t.name))?;
        if !(scale.is_finite() && scale > 0.0) {
            return Err(format!("`{}` has scale {scale}", t.name));
        }
        Ok((scale, zp))
    }

    fn scales(&self, t: &Tensor) -> Result<Vec<f32>, NoKernel> {
        let q = t
            .quantization
            .as_ref()
            .ok_or_else(|| format!("`{}` has no quantisation", t.name))?;
        if q.scale.iter().any(|s| !(s.is_finite() && *s > 0.0)) || q.scale.is_empty() {
            return Err(format!("`{}` has a bad scale", t.name));
        }
        Ok(q.scale.clone())
    }

    /// The constant data of a tensor, as little-endian integers.
    fn const_ints(&self, t: &Tensor) -> Result<Vec<i64>, NoKernel> {
        let range = self
            .plan
            .model
            .buffers
            .get(t.buffer.get())
            .and_then(|b| b.data.clone())
            .ok_or_else(|| format!("`{}` must be a constant", t.name))?;
        let data = self.bytes.get(range).unwrap_or(&[]);
        let values = match t.dtype {
            DType::Int32 => data
                .chunks_exact(4)
                .filter_map(|c| <[u8; 4]>::try_from(c).ok())
                .map(|c| i64::from(i32::from_le_bytes(c)))
                .collect(),
            DType::Int64 => data
                .chunks_exact(8)
                .filter_map(|c| <[u8; 8]>::try_from(c).ok())
                .map(i64::from_le_bytes)
                .collect(),
            other => return Err(format!("`{}` is {}, not int32/int64", t.name, other.name())),
        };
        Ok(values)
    }
}

/// The product of dimensions, checked.
fn product(dims: &[usize]) -> Result<usize, NoKernel> {
    dims.iter()
        .try_fold(1usize, |n, &d| n.checked_mul(d))
        .ok_or_else(|| "a shape whose element count overflows".to_owned())
}

fn usize_lits(v: &[usize]) -> TokenStream {
    let items = v.iter().map(|&d| Literal::usize_unsuffixed(d));
    quote!([#(#items),*])
}

fn i32_lit(v: i32) -> Literal {
    Literal::i32_unsuffixed(v)
}

fn f32_lit(v: f32) -> Result<TokenStream, NoKernel> {
    if !v.is_finite() {
        return Err(format!("a non-finite parameter {v}"));
    }
    let l = Literal::f32_suffixed(v);
    Ok(quote!(#l))
}

fn requant(rt: &TokenStream, (multiplier, shift): (i32, i32)) -> TokenStream {
    let (m, s) = (i32_lit(multiplier), i32_lit(shift));
    quote!(#rt::kernels::Requant { multiplier: #m, shift: #s })
}

fn fused(act: Activation) -> Result<quant::FusedActivation, NoKernel> {
    Ok(match act {
        Activation::None => quant::FusedActivation::None,
        Activation::Relu => quant::FusedActivation::Relu,
        Activation::Relu6 => quant::FusedActivation::Relu6,
        Activation::ReluN1To1 => quant::FusedActivation::ReluN1To1,
        other => return Err(format!("fused activation {other:?} is not supported")),
    })
}

/// TFLM's `CalculateActivationRangeQuantized` for an int8 output.
fn act_range_s8(act: Activation, scale: f32, zp: i32) -> Result<(i32, i32), NoKernel> {
    quant::activation_range_s8(fused(act)?, scale, zp)
        .ok_or_else(|| "the activation range overflows (TFLM's Prepare fails)".to_owned())
}

/// TFLM's `CalculateActivationRange` for floats.
fn act_range_f32(act: Activation) -> Result<(f32, f32), NoKernel> {
    Ok(quant::activation_range_f32(fused(act)?))
}

/// TFLM's `ComputePaddingHeightWidth`: the padding before, `(height, width)`.
#[allow(clippy::too_many_arguments)]
fn padding_hw(
    padding: Padding,
    stride: (i32, i32),
    dilation: (i32, i32),
    input: (usize, usize),
    filter: (usize, usize),
) -> Result<(usize, usize), NoKernel> {
    let kind = match padding {
        Padding::Same => quant::PaddingKind::Same,
        Padding::Valid => quant::PaddingKind::Valid,
        Padding::Unknown(c) => return Err(format!("padding code {c}")),
    };
    let i32_of = |v: usize| i32::try_from(v).map_err(|_| format!("dimension {v} too large"));
    let p = quant::compute_padding_height_width(
        stride.0,
        stride.1,
        dilation.0,
        dilation.1,
        i32_of(input.0)?,
        i32_of(input.1)?,
        i32_of(filter.0)?,
        i32_of(filter.1)?,
        kind,
    );
    let u = |v: i32| usize::try_from(v).map_err(|_| format!("padding {v}"));
    Ok((u(p.height)?, u(p.width)?))
}

fn positive(v: i32, what: &str) -> Result<usize, NoKernel> {
    usize::try_from(v)
        .ok()
        .filter(|&v| v > 0)
        .ok_or_else(|| format!("{what} is {v}"))
}

/// One op: the parameter constant (if any) and the statement that runs it, given the names of
/// its views (`i0`.., `o0`..).
struct Call {
    params: Option<TokenStream>,
    body: TokenStream,
    /// Inputs the call reads (the others are bound to `_`).
    reads: Vec<usize>,
}

#[allow(clippy::too_many_lines)]
fn call(cx: &Ctx<'_>, pname: &syn::Ident) -> Result<Call, NoKernel> {
    let rt = cx.rt;
    let k = quote!(#rt::kernels);
    let op = cx.op;
    let name = match &op.opcode {
        Opcode::Builtin(b) => b.name().unwrap_or("(unknown builtin)"),
        Opcode::Custom(c) => return Err(format!("custom op `{c}` has no kernel")),
    };
    let out = cx.output(0)?;
    let input0 = cx.input(0)?;
    let dt = input0.dtype;
    let some = |i: usize| {
        let v = format_ident!("i{i}");
        if op.inputs.get(i).copied().flatten().is_some() {
            quote!(::core::option::Option::Some(#v))
        } else {
            quote!(::core::option::Option::None)
        }
    };
    // What an op with input, weights and an optional bias reads.
    let weighted_reads = if op.inputs.get(2).copied().flatten().is_some() {
        vec![0, 1, 2]
    } else {
        vec![0, 1]
    };
    match (name, dt) {
        ("CONV_2D" | "DEPTHWISE_CONV_2D", DType::Int8 | DType::Float32) => {
            let depthwise = name == "DEPTHWISE_CONV_2D";
            let filter = cx.input(1)?;
            let (padding, stride_w, stride_h, dil_w, dil_h, act) = match op.options {
                OpOptions::Conv2D {
                    padding,
                    stride_w,
                    stride_h,
                    dilation_w,
                    dilation_h,
                    activation,
                } if !depthwise => (
                    padding, stride_w, stride_h, dilation_w, dilation_h, activation,
                ),
                OpOptions::DepthwiseConv2D {
                    padding,
                    stride_w,
                    stride_h,
                    dilation_w,
                    dilation_h,
                    activation,
                    ..
                } if depthwise => (
                    padding, stride_w, stride_h, dilation_w, dilation_h, activation,
                ),
                _ => return Err("its options are missing".into()),
            };
            let ishape = cx.shape_n::<4>(input0)?;
            let fshape = cx.shape_n::<4>(filter)?;
            let oshape = cx.shape_n::<4>(out)?;
            let (sh, sw) = (
                positive(stride_h, "stride_h")?,
                positive(stride_w, "stride_w")?,
            );
            let (dh, dw) = (
                positive(dil_h, "dilation_h")?,
                positive(dil_w, "dilation_w")?,
            );
            let (pad_h, pad_w) = padding_hw(
                padding,
                (stride_h, stride_w),
                (dil_h, dil_w),
                (ishape[1], ishape[2]),
                (fshape[1], fshape[2]),
            )?;
            let depth_multiplier = if depthwise {
                if ishape[3] == 0 || oshape[3] % ishape[3] != 0 {
                    return Err("output channels are not a multiple of input channels".into());
                }
                oshape[3] / ishape[3]
            } else {
                1
            };
            let (i, f, o) = (
                usize_lits(&ishape),
                usize_lits(&fshape),
                usize_lits(&oshape),
            );
            let geometry = quote!(#k::ConvGeometry {
                input: #i, filter: #f, output: #o,
                stride_h: #sh, stride_w: #sw, dilation_h: #dh, dilation_w: #dw,
                pad_h: #pad_h, pad_w: #pad_w, depth_multiplier: #depth_multiplier,
            });
            let (params, f) = if dt == DType::Int8 {
                let (in_scale, in_zp) = cx.quant(input0)?;
                let (out_scale, out_zp) = cx.quant(out)?;
                let channels = oshape[3];
                let fscales = cx.scales(filter)?;
                let per_channel: Vec<TokenStream> =
                    quant::conv_multipliers(in_scale, &fscales, out_scale, channels)
                        .ok_or_else(|| {
                            format!(
                                "{} filter scales for {channels} output channels",
                                fscales.len()
                            )
                        })?
                        .into_iter()
                        .map(|m| requant(rt, m))
                        .collect();
                let (lo, hi) = act_range_s8(act, out_scale, out_zp)?;
                let (io, oo) = (i32_lit(-in_zp), i32_lit(out_zp));
                let (lo, hi) = (i32_lit(lo), i32_lit(hi));
                (
                    quote!(pub const #pname: #k::ConvS8 = #k::ConvS8 {
                        geometry: #geometry, input_offset: #io, output_offset: #oo,
                        requant: &[#(#per_channel),*], act_min: #lo, act_max: #hi,
                    };),
                    if depthwise {
                        quote!(depthwise_conv2d_s8)
                    } else {
                        quote!(conv2d_s8)
                    },
                )
            } else {
                let (lo, hi) = act_range_f32(act)?;
                let (lo, hi) = (f32_lit(lo)?, f32_lit(hi)?);
                (
                    quote!(pub const #pname: #k::ConvF32 = #k::ConvF32 {
                        geometry: #geometry, act_min: #lo, act_max: #hi,
                    };),
                    if depthwise {
                        quote!(depthwise_conv2d_f32)
                    } else {
                        quote!(conv2d_f32)
                    },
                )
            };
            let bias = some(2);
            Ok(Call {
                params: Some(params),
                body: quote!(#k::#f(&params::#pname, i0, i1, #bias, o0);),
                reads: weighted_reads.clone(),
            })
        }
        ("FULLY_CONNECTED", DType::Int8 | DType::Float32) => {
            let filter = cx.input(1)?;
            let OpOptions::FullyConnected {
                activation,
                shuffled_weights,
                ..
            } = op.options
            else {
                return Err("its options are missing".into());
            };
            if shuffled_weights {
                return Err("shuffled weights are not supported".into());
            }
            let fshape = cx.shape(filter)?;
            let oshape = cx.shape(out)?;
            let output_depth = *oshape.last().unwrap_or(&1);
            let accum_depth = *fshape.last().unwrap_or(&1);
            let batches = cx.elements(out)? / output_depth.max(1);
            let (b, a, d) = (batches, accum_depth, output_depth);
            if dt == DType::Int8 {
                let (in_scale, in_zp) = cx.quant(input0)?;
                let (f_scale, f_zp) = cx.quant(filter)?;
                let (out_scale, out_zp) = cx.quant(out)?;
                let fscales = cx.scales(filter)?;
                let multipliers: Vec<TokenStream> = fscales
                    .iter()
                    .map(|&fs| {
                        let real = f64::from(in_scale) * f64::from(fs) / f64::from(out_scale);
                        requant(rt, quant::quantize_multiplier(real))
                    })
                    .collect();
                let _ = f_scale;
                let (lo, hi) = act_range_s8(activation, out_scale, out_zp)?;
                let (io, fo, oo) = (i32_lit(-in_zp), i32_lit(-f_zp), i32_lit(out_zp));
                let (lo, hi) = (i32_lit(lo), i32_lit(hi));
                let bias = some(2);
                Ok(Call {
                    params: Some(
                        quote!(pub const #pname: #k::FullyConnectedS8 = #k::FullyConnectedS8 {
                        batches: #b, accum_depth: #a, output_depth: #d,
                        input_offset: #io, filter_offset: #fo, output_offset: #oo,
                        requant: &[#(#multipliers),*], act_min: #lo, act_max: #hi,
                    };),
                    ),
                    body: quote!(#k::fully_connected_s8(&params::#pname, i0, i1, #bias, o0);),
                    reads: weighted_reads.clone(),
                })
            } else {
                let (lo, hi) = act_range_f32(activation)?;
                let (lo, hi) = (f32_lit(lo)?, f32_lit(hi)?);
                let bias = some(2);
                Ok(Call {
                    params: Some(
                        quote!(pub const #pname: #k::FullyConnectedF32 = #k::FullyConnectedF32 {
                        batches: #b, accum_depth: #a, output_depth: #d, act_min: #lo, act_max: #hi,
                    };),
                    ),
                    body: quote!(#k::fully_connected_f32(&params::#pname, i0, i1, #bias, o0);),
                    reads: weighted_reads.clone(),
                })
            }
        }
        ("AVERAGE_POOL_2D" | "MAX_POOL_2D", DType::Int8 | DType::Float32) => {
            let OpOptions::Pool2D {
                padding,
                stride_w,
                stride_h,
                filter_w,
                filter_h,
                activation,
            } = op.options
            else {
                return Err("its options are missing".into());
            };
            let ishape = cx.shape_n::<4>(input0)?;
            let oshape = cx.shape_n::<4>(out)?;
            let (fh, fw) = (
                positive(filter_h, "filter_height")?,
                positive(filter_w, "filter_width")?,
            );
            let (sh, sw) = (
                positive(stride_h, "stride_h")?,
                positive(stride_w, "stride_w")?,
            );
            let (pad_h, pad_w) = padding_hw(
                padding,
                (stride_h, stride_w),
                (1, 1),
                (ishape[1], ishape[2]),
                (fh, fw),
            )?;
            let (i, o) = (usize_lits(&ishape), usize_lits(&oshape));
            let geometry = quote!(#k::PoolGeometry {
                input: #i, output: #o, filter_h: #fh, filter_w: #fw,
                stride_h: #sh, stride_w: #sw, pad_h: #pad_h, pad_w: #pad_w,
            });
            let avg = name == "AVERAGE_POOL_2D";
            let (params, f) = if dt == DType::Int8 {
                let (out_scale, out_zp) = cx.quant(out)?;
                let (lo, hi) = act_range_s8(activation, out_scale, out_zp)?;
                let (lo, hi) = (i32_lit(lo), i32_lit(hi));
                (
                    quote!(pub const #pname: #k::PoolS8 = #k::PoolS8 { geometry: #geometry, act_min: #lo, act_max: #hi };),
                    if avg {
                        quote!(average_pool_s8)
                    } else {
                        quote!(max_pool_s8)
                    },
                )
            } else {
                let (lo, hi) = act_range_f32(activation)?;
                let (lo, hi) = (f32_lit(lo)?, f32_lit(hi)?);
                (
                    quote!(pub const #pname: #k::PoolF32 = #k::PoolF32 { geometry: #geometry, act_min: #lo, act_max: #hi };),
                    if avg {
                        quote!(average_pool_f32)
                    } else {
                        quote!(max_pool_f32)
                    },
                )
            };
            Ok(Call {
                params: Some(params),
                body: quote!(#k::#f(&params::#pname, i0, o0);),
                reads: vec![0],
            })
        }
        ("SOFTMAX", DType::Int8 | DType::Float32) => {
            let OpOptions::Softmax { beta } = op.options else {
                return Err("its options are missing".into());
            };
            let shape = cx.shape(input0)?;
            let depth = *shape.last().unwrap_or(&1);
            let rows = cx.elements(input0)? / depth.max(1);
            if dt == DType::Int8 {
                if out.dtype != DType::Int8 {
                    return Err("only int8 output is supported".into());
                }
                let (in_scale, _) = cx.quant(input0)?;
                let (multiplier, left_shift) =
                    quant::preprocess_softmax_scaling(f64::from(beta), f64::from(in_scale), 5);
                let diff_min = -quant::calculate_input_radius(5, left_shift, 31);
                let (m, s, d) = (i32_lit(multiplier), i32_lit(left_shift), i32_lit(diff_min));
                Ok(Call {
                    params: Some(quote!(pub const #pname: #k::SoftmaxS8 = #k::SoftmaxS8 {
                        rows: #rows, depth: #depth, input_multiplier: #m, input_left_shift: #s, diff_min: #d,
                    };)),
                    body: quote!(#k::softmax_s8(&params::#pname, i0, o0);),
                    reads: vec![0],
                })
            } else {
                let beta = f32_lit(beta)?;
                Ok(Call {
                    params: Some(
                        quote!(pub const #pname: #k::SoftmaxF32 = #k::SoftmaxF32 { rows: #rows, depth: #depth, beta: #beta };),
                    ),
                    body: quote!(#k::softmax_f32(&params::#pname, i0, o0);),
                    reads: vec![0],
                })
            }
        }
        ("ADD" | "MUL", DType::Int8 | DType::Float32) => {
            let input1 = cx.input(1)?;
            let activation = match op.options {
                OpOptions::Add { activation } | OpOptions::Mul { activation } => activation,
                _ => Activation::None,
            };
            let (a, b, o) = (
                usize_lits(&cx.shape_n::<6>(input0)?),
                usize_lits(&cx.shape_n::<6>(input1)?),
                usize_lits(&cx.shape_n::<6>(out)?),
            );
            let shape = quote!(#k::BinaryShape { input1: #a, input2: #b, output: #o });
            let add = name == "ADD";
            if dt == DType::Int8 {
                let (s1, z1) = cx.quant(input0)?;
                let (s2, z2) = cx.quant(input1)?;
                let (so, zo) = cx.quant(out)?;
                let (lo, hi) = act_range_s8(activation, so, zo)?;
                let (lo, hi) = (i32_lit(lo), i32_lit(hi));
                let (o1, o2, oo) = (i32_lit(-z1), i32_lit(-z2), i32_lit(zo));
                if add {
                    let a = quant::add_params((s1, z1), (s2, z2), (so, zo), fused(activation)?)
                        .ok_or_else(|| "TFLM's ADD Prepare would fail".to_owned())?;
                    let (m1, m2, mo) = (
                        requant(rt, a.input1),
                        requant(rt, a.input2),
                        requant(rt, a.output),
                    );
                    let (o1, o2, oo) = (
                        i32_lit(a.input1_offset),
                        i32_lit(a.input2_offset),
                        i32_lit(a.output_offset),
                    );
                    let (lo, hi) = (i32_lit(a.act_min), i32_lit(a.act_max));
                    let ls = i32_lit(a.left_shift);
                    Ok(Call {
                        params: Some(quote!(pub const #pname: #k::AddS8 = #k::AddS8 {
                            shape: #shape, left_shift: #ls,
                            input1_offset: #o1, input1: #m1, input2_offset: #o2, input2: #m2,
                            output_offset: #oo, output: #mo, act_min: #lo, act_max: #hi,
                        };)),
                        body: quote!(#k::add_s8(&params::#pname, i0, i1, o0);),
                        reads: vec![0, 1],
                    })
                } else {
                    let mo = requant(rt, quant::mul_multiplier(s1, s2, so));
                    Ok(Call {
                        params: Some(quote!(pub const #pname: #k::MulS8 = #k::MulS8 {
                            shape: #shape, input1_offset: #o1, input2_offset: #o2,
                            output_offset: #oo, output: #mo, act_min: #lo, act_max: #hi,
                        };)),
                        body: quote!(#k::mul_s8(&params::#pname, i0, i1, o0);),
                        reads: vec![0, 1],
                    })
                }
            } else {
                let (lo, hi) = act_range_f32(activation)?;
                let (lo, hi) = (f32_lit(lo)?, f32_lit(hi)?);
                let f = if add {
                    quote!(add_f32)
                } else {
                    quote!(mul_f32)
                };
                Ok(Call {
                    params: Some(quote!(pub const #pname: #k::BinaryF32 = #k::BinaryF32 {
                        shape: #shape, act_min: #lo, act_max: #hi,
                    };)),
                    body: quote!(#k::#f(&params::#pname, i0, i1, o0);),
                    reads: vec![0, 1],
                })
            }
        }
        ("QUANTIZE", DType::Float32) if out.dtype == DType::Int8 => {
            let (scale, zp) = cx.quant(out)?;
            let (scale, zp) = (f32_lit(scale)?, i32_lit(zp));
            Ok(Call {
                params: Some(
                    quote!(pub const #pname: #k::QuantizeF32S8 = #k::QuantizeF32S8 { scale: #scale, zero_point: #zp };),
                ),
                body: quote!(#k::quantize_f32_s8(&params::#pname, i0, o0);),
                reads: vec![0],
            })
        }
        ("QUANTIZE", DType::Int8) if out.dtype == DType::Int8 => {
            let (si, zi) = cx.quant(input0)?;
            let (so, zo) = cx.quant(out)?;
            let m = requant(
                rt,
                quant::quantize_multiplier(f64::from(si) / f64::from(so)),
            );
            let (io, oo) = (i32_lit(-zi), i32_lit(zo));
            Ok(Call {
                params: Some(
                    quote!(pub const #pname: #k::Requantize = #k::Requantize { input_offset: #io, output_offset: #oo, requant: #m };),
                ),
                body: quote!(#k::requantize_s8(&params::#pname, i0, o0);),
                reads: vec![0],
            })
        }
        ("DEQUANTIZE", DType::Int8) if out.dtype == DType::Float32 => {
            let (scale, zp) = cx.quant(input0)?;
            let (scale, zp) = (f32_lit(scale)?, i32_lit(zp));
            Ok(Call {
                params: Some(
                    quote!(pub const #pname: #k::DequantizeS8F32 = #k::DequantizeS8F32 { scale: #scale, zero_point: #zp };),
                ),
                body: quote!(#k::dequantize_s8_f32(&params::#pname, i0, o0);),
                reads: vec![0],
            })
        }
        ("CONCATENATION", _) => {
            let OpOptions::Concatenation { axis, activation } = op.options else {
                return Err("its options are missing".into());
            };
            if activation != Activation::None {
                return Err("a fused activation on CONCATENATION is not supported".into());
            }
            let oshape = cx.shape(out)?;
            let rank = i64::try_from(oshape.len()).unwrap_or(0);
            let axis = i64::from(axis);
            let axis = usize::try_from(if axis < 0 { axis + rank } else { axis })
                .ok()
                .filter(|&a| a < oshape.len())
                .ok_or_else(|| format!("axis {axis} of a rank-{rank} output"))?;
            let outer = product(oshape.get(..axis).unwrap_or(&[]))?;
            let mut inners = Vec::new();
            for i in 0..op.inputs.len() {
                let t = cx.input(i)?;
                if t.dtype != out.dtype {
                    return Err("inputs of different types".into());
                }
                if dt == DType::Int8 && cx.quant(t)? != cx.quant(out)? {
                    return Err("int8 inputs quantised differently from the output".into());
                }
                inners.push(product(cx.shape(t)?.get(axis..).unwrap_or(&[]))?);
            }
            let inners = usize_lits(&inners);
            let views = (0..op.inputs.len()).map(|i| format_ident!("i{i}"));
            Ok(Call {
                params: None,
                body: quote!(#k::concatenation(#outer, &#inners, &[#(#views),*], o0);),
                reads: (0..op.inputs.len()).collect(),
            })
        }
        ("PAD", DType::Int8 | DType::Float32) => {
            let paddings = cx.const_ints(cx.input(1)?)?;
            let ishape = cx.shape(input0)?;
            let r = ishape.len();
            if r > 5 || paddings.len() != 2 * r {
                return Err(format!("{} paddings for rank {r}", paddings.len()));
            }
            let mut before = [0usize; 5];
            for (d, b) in before.iter_mut().skip(5 - r).enumerate() {
                *b = usize::try_from(paddings.get(2 * d).copied().unwrap_or(0))
                    .map_err(|_| "a negative padding".to_owned())?;
            }
            let (i, o, b) = (
                usize_lits(&cx.shape_n::<5>(input0)?),
                usize_lits(&cx.shape_n::<5>(out)?),
                usize_lits(&before),
            );
            let value = if dt == DType::Int8 {
                let zp = i8::try_from(cx.quant(out)?.1)
                    .map_err(|_| "zero point out of int8".to_owned())?;
                let l = Literal::i8_suffixed(zp);
                quote!(#l)
            } else {
                quote!(0.0f32)
            };
            Ok(Call {
                params: Some(
                    quote!(pub const #pname: #k::Pad = #k::Pad { input: #i, output: #o, before: #b };),
                ),
                body: quote!(#k::pad(&params::#pname, i0, #value, o0);),
                reads: vec![0],
            })
        }
        ("TRANSPOSE", _) => {
            let perm = cx.const_ints(cx.input(1)?)?;
            let r = perm.len();
            if r > 6 || cx.shape(input0)?.len() != r {
                return Err(format!(
                    "a permutation of {r} for a rank-{} input",
                    cx.shape(input0)?.len()
                ));
            }
            let mut p6 = [0usize, 1, 2, 3, 4, 5];
            for (j, &v) in perm.iter().enumerate() {
                let v = usize::try_from(v)
                    .ok()
                    .filter(|&v| v < r)
                    .ok_or("a bad permutation")?;
                if let Some(slot) = p6.get_mut(6 - r + j) {
                    *slot = 6 - r + v;
                }
            }
            let (i, pm) = (usize_lits(&cx.shape_n::<6>(input0)?), usize_lits(&p6));
            Ok(Call {
                params: Some(
                    quote!(pub const #pname: #k::Transpose = #k::Transpose { input: #i, perm: #pm };),
                ),
                body: quote!(#k::transpose(&params::#pname, i0, o0);),
                reads: vec![0],
            })
        }
        ("RELU", DType::Int8) => {
            let r = quant::relu_params(cx.quant(input0)?, cx.quant(out)?);
            let (io, oo, lo, hi) = (
                i32_lit(r.input_offset),
                i32_lit(r.output_offset),
                i32_lit(r.act_min),
                i32_lit(r.act_max),
            );
            let m = requant(rt, r.requant);
            Ok(Call {
                params: Some(quote!(pub const #pname: #k::ReluS8 = #k::ReluS8 {
                    input_offset: #io, output_offset: #oo, requant: #m, act_min: #lo, act_max: #hi,
                };)),
                body: quote!(#k::relu_s8(&params::#pname, i0, o0);),
                reads: vec![0],
            })
        }
        ("RELU6", DType::Int8) => {
            let (si, zi) = cx.quant(input0)?;
            let (zero, six) = quant::relu6_params(si, zi);
            let to_i8 = |v: i32| i8::try_from(v).map_err(|_| format!("{v} is out of int8"));
            let (zero, six) = (
                Literal::i8_unsuffixed(to_i8(zero)?),
                Literal::i8_unsuffixed(to_i8(six)?),
            );
            Ok(Call {
                params: Some(
                    quote!(pub const #pname: #k::Relu6S8 = #k::Relu6S8 { zero: #zero, six: #six };),
                ),
                body: quote!(#k::relu6_s8(&params::#pname, i0, o0);),
                reads: vec![0],
            })
        }
        ("RELU" | "RELU6" | "LOGISTIC", DType::Float32) => {
            let f = match name {
                "RELU" => quote!(relu_f32),
                "RELU6" => quote!(relu6_f32),
                _ => quote!(logistic_f32),
            };
            Ok(Call {
                params: None,
                body: quote!(#k::#f(i0, o0);),
                reads: vec![0],
            })
        }
        ("LOGISTIC", DType::Int8) => {
            let (si, zi) = cx.quant(input0)?;
            let l = quant::logistic_params(si, zi);
            let (z, r, m, s) = (
                i32_lit(l.input_zero_point),
                i32_lit(l.input_range_radius),
                i32_lit(l.input_multiplier),
                i32_lit(l.input_left_shift),
            );
            Ok(Call {
                params: Some(quote!(pub const #pname: #k::LogisticS8 = #k::LogisticS8 {
                    input_zero_point: #z, input_range_radius: #r, input_multiplier: #m, input_left_shift: #s,
                };)),
                body: quote!(#k::logistic_s8(&params::#pname, i0, o0);),
                reads: vec![0],
            })
        }
        ("MEAN", DType::Int8 | DType::Float32) => {
            let axes = cx.const_ints(cx.input(1)?)?;
            let ishape = cx.shape(input0)?;
            let r = ishape.len();
            if r > 4 {
                return Err(format!("a rank-{r} input"));
            }
            let mut reduce = [false; 4];
            for &a in &axes {
                let rank = r as i64;
                let a = if a < 0 { a + rank } else { a };
                let a = usize::try_from(a)
                    .ok()
                    .filter(|&a| a < r)
                    .ok_or("an axis out of range")?;
                if let Some(slot) = reduce.get_mut(4 - r + a) {
                    *slot = true;
                }
            }
            let i = usize_lits(&cx.shape_n::<4>(input0)?);
            let ax = reduce.iter().map(|b| quote!(#b));
            if dt == DType::Int8 {
                let (si, zi) = cx.quant(input0)?;
                let (so, zo) = cx.quant(out)?;
                let m = requant(rt, quant::rescale_multiplier(si, so));
                let (zi, zo, si, so) = (i32_lit(zi), i32_lit(zo), f32_lit(si)?, f32_lit(so)?);
                Ok(Call {
                    params: Some(quote!(pub const #pname: #k::MeanS8 = #k::MeanS8 {
                        input: #i, axes: [#(#ax),*], input_zero_point: #zi, output_zero_point: #zo,
                        input_scale: #si, output_scale: #so, requant: #m,
                    };)),
                    body: quote!(#k::mean_s8(&params::#pname, i0, o0);),
                    reads: vec![0],
                })
            } else {
                Ok(Call {
                    params: Some(
                        quote!(pub const #pname: #k::MeanF32 = #k::MeanF32 { input: #i, axes: [#(#ax),*] };),
                    ),
                    body: quote!(#k::mean_f32(&params::#pname, i0, o0);),
                    reads: vec![0],
                })
            }
        }
        ("RESHAPE" | "SQUEEZE" | "EXPAND_DIMS", _) => {
            if out.dtype != dt {
                return Err("input and output types differ".into());
            }
            Ok(Call {
                params: None,
                body: quote!(#k::copy(i0, o0);),
                reads: vec![0],
            })
        }
        _ => Err(format!("no kernel for {name} with {} input", dt.name())),
    }
}

/// The `invoke` function and its parameter constants, or why an op has no kernel.
///
/// `has_op_fn(position)` says whether `ops::op_N` exists for the op at that position.
pub(crate) fn generate(
    plan: &ModelPlan,
    bytes: &[u8],
    rt: &TokenStream,
    has_op_fn: &dyn Fn(usize) -> bool,
    fallback: Option<&syn::Path>,
) -> Result<TokenStream, String> {
    let mut params = Vec::new();
    let mut steps = Vec::new();
    let hint = " (or give `fallback = path::to::module`, whose `op_N` functions then run the ops without a kernel on their views)";
    for (position, op) in plan.model.ops.iter().enumerate() {
        let label = op.desc().to_string();
        if op.subgraph.0 != 0 {
            if fallback.is_some() {
                // Run by the fallback of the control-flow op that calls the subgraph.
                continue;
            }
            return Err(format!(
                "{label}: `invoke` runs subgraph 0 only; this model has more subgraphs{hint}"
            ));
        }
        let f = format_ident!("op_{}", op.index.0);
        let fall_back = |why: String| -> Result<TokenStream, String> {
            match fallback {
                Some(path) if has_op_fn(position) => Ok(quote! { #path::#f(ops::#f(arena)); }),
                Some(_) => Err(format!(
                    "{label}: {why}, and its tensors are not all in the arena or constants, so it has no views for the fallback"
                )),
                None => Err(format!("{label}: {why}{hint}")),
            }
        };
        if let Opcode::Builtin(BuiltinOp::IF | BuiltinOp::WHILE | BuiltinOp::CALL_ONCE) = op.opcode
        {
            steps.push(fall_back("control flow has no kernel".to_owned())?);
            continue;
        }
        let base = plan
            .model
            .subgraphs
            .get(op.subgraph.get())
            .map_or(0, |s| s.first_tensor);
        let id = |t: crate::tflite::TensorIndex| {
            crate::tflite::TensorId(u32::try_from(base + t.get()).unwrap_or(u32::MAX))
        };
        if let (Some(Some(i)), Some(o)) = (op.inputs.first(), op.outputs.first())
            && plan.aliases.contains(&(id(*i), id(*o)))
        {
            // A reshape whose output shares its input's bytes: nothing to do.
            continue;
        }
        let cx = Ctx {
            plan,
            bytes,
            op,
            rt,
        };
        let pname = format_ident!("OP_{}", op.index.0);
        let c = match call(&cx, &pname) {
            Ok(c) => c,
            Err(why) => {
                steps.push(fall_back(why)?);
                continue;
            }
        };
        if !has_op_fn(position) {
            return Err(format!(
                "{label}: its tensors are not all in the arena or constants"
            ));
        }
        let ins = (0..op.inputs.len()).map(|i| {
            if c.reads.contains(&i) {
                let v = format_ident!("i{i}");
                quote!(#v)
            } else {
                quote!(_)
            }
        });
        let outs = (0..op.outputs.len()).map(|i| format_ident!("o{i}"));
        let body = c.body;
        let doc = format!(" {label}");
        params.extend(c.params.map(|p| quote!(#[doc = #doc] #p)));
        steps.push(quote! {
            {
                let ((#(#ins,)*), (#(#outs,)*)) = ops::#f(arena);
                #body
            }
        });
    }
    Ok(quote! {
        /// Kernel parameters, computed when the crate compiled (TFLite Micro's `Prepare`).
        pub mod params {
            #(#params)*
        }
        /// Runs the model once: write the inputs into the arena (`arena.view_mut(INPUT)`), call
        /// this, read the outputs. Every op runs its reference kernel on its planned slots (ops
        /// without one, the fallback's `op_N` on their views); nothing is planned or parsed here.
        pub fn invoke(arena: &mut Arena) {
            #(#steps)*
        }
    })
}
