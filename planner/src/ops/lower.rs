//! The machinery every op module lowers with: [`Lower`] (what lowering an op can see: the
//! model, the planned shapes, the file, the op, whether its output lies over its input) and its
//! helpers (inputs and outputs, shapes, quantisation, constants, literals, the calls of
//! kernels on one buffer), [`Call`] (the kernel call it makes), [`Refusal`] (why it makes none),
//! and the element conversions folding uses. No op is named here: each op's module calls these.

use std::cell::Cell;

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use super::overwrite::Overwrite;
use crate::graph::TensorInfo;
use crate::quant;
use crate::tflite::{Activation, DType, Model, Op, Padding, Tensor};

/// Why an op has no kernel call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// The runtime has no kernel for this op, or for these types or options: a fallback can run
    /// it.
    Unsupported(String),
    /// The op cannot run as the model has it (TFLM's `Prepare` fails too, or the file does not
    /// back what the op needs); the message names the tensor or option and the value.
    Invalid(String),
}

impl Refusal {
    /// The message.
    #[must_use]
    pub fn message(&self) -> &str {
        match self {
            Self::Unsupported(m) | Self::Invalid(m) => m,
        }
    }
}

/// `Err(Refusal::Unsupported(..))`.
pub(super) fn unsupported<T>(why: impl Into<String>) -> Result<T, Refusal> {
    Err(Refusal::Unsupported(why.into()))
}

/// `Err(Refusal::Invalid(..))`.
pub(super) fn invalid<T>(why: impl Into<String>) -> Result<T, Refusal> {
    Err(Refusal::Invalid(why.into()))
}

/// An op's kernel call, for the driver: the parameter constant (if any) and the statement that
/// runs it, given the names of its views: `i0`.. for what it reads, `o0`.. for its outputs, and
/// `m{i}` for input `i` in the persistent region (a variable tensor the op updates, the resource
/// variable an ASSIGN_VARIABLE writes), handed out mutably, and `s{k}` for the op's scratch
/// ([`super::OpKind::scratch`], `&mut [u32]`).
#[derive(Clone, Debug)]
pub struct Call {
    /// `pub const OP_N: .. = ..;`, TFLM's `Prepare` as constants.
    pub params: Option<TokenStream>,
    /// The kernel call.
    pub body: TokenStream,
    /// Inputs the call reads (the others are bound to `_`).
    pub reads: Vec<usize>,
    /// The kernel's check (`kernels::check_<f>`, a `const fn` giving `Result<(), KernelError>`)
    /// on the lengths of the views the call passes, named as the views (`i0`, `o0`, ..., each a
    /// `usize`) and on `OP_N` by its own name: code generation asserts it when the crate
    /// compiles, and the body calls the kernel's proven entry (`kernels::proven`), which checks
    /// nothing at run time. `None` for a kernel whose entries do not have one yet.
    pub check: Option<TokenStream>,
}

/// What lowering an op can see: the model, every tensor's planned shape, the file, the op.
#[derive(Clone, Copy, Debug)]
pub struct Lower<'a> {
    /// The model.
    pub model: &'a Model,
    /// Every tensor's planning view (shapes with overrides), by tensor id.
    pub tensors: &'a [TensorInfo],
    /// The persistent region (resource variables by handle).
    pub state: &'a crate::persistent::State,
    /// The model file (constant data).
    pub bytes: &'a [u8],
    /// The op.
    pub op: &'a Op,
    /// The runtime crate's path.
    pub rt: &'a TokenStream,
    /// The name of the op's parameter constant (`OP_3`).
    pub params: &'a syn::Ident,
    /// Outputs of folded ops ([`crate::fold`]): constants too, with the bytes computed when the
    /// crate compiled (empty when nothing was folded).
    pub folded: &'a FoldedData,
    /// The op writes its output over the input it consumes ([`Overwrite::input`], the first),
    /// as the plan puts it ([`crate::ModelPlan::overlapped`]): the view `o0` holds both, the
    /// input `.0` elements in and the output `.1`; `None` otherwise.
    pub overlap: Option<(u64, u64)>,
    /// What the op's kernels can do on one buffer, as its kind declares
    /// ([`super::OpKind::overwrite`]): `Lower::overlapped_call` takes the entry and its check
    /// from it.
    pub overwrite: Option<Overwrite>,
    /// Where lowering records the kernel it chose for an op with several
    /// (`Lower::chose`; `crate::choice` reads it), or `None`.
    pub chosen: Option<&'a Cell<Option<KernelChoice>>>,
    /// The bytes of each scratch view `s{k}` the plan gives the op ([`super::OpKind::scratch`],
    /// planned in the arena; empty for none).
    pub scratch: &'a [u64],
}

/// The kernel lowering chose, when the crate compiles, for an op the runtime has several for
/// (int8 CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED and ADD): the runtime's names of the kernel
/// and of its epilogue form (`kernels::conv_kernel::name`, `epilogue`; ADD's loops have none).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KernelChoice {
    /// The kernel (`"pointwise"`, `"taps"`, ..., `"portable"`).
    pub kernel: &'static str,
    /// Its epilogue form (`"shift2"`, `"shift1"`, `"general"`), `None` for the portable loop
    /// and for ADD.
    pub epilogue: Option<&'static str>,
}

impl<'a> Lower<'a> {
    /// Records the kernel lowering chose for the op ([`Lower::chosen`]).
    pub(super) fn chose(&self, choice: KernelChoice) {
        if let Some(cell) = self.chosen {
            cell.set(Some(choice));
        }
    }

    /// `#rt::kernels`.
    pub(super) fn k(&self) -> TokenStream {
        let rt = self.rt;
        quote!(#rt::kernels)
    }

    /// The builtin's name (`CONV_2D`), or the custom code.
    pub(super) fn name(&self) -> String {
        self.op.opcode.to_string()
    }

    pub(super) fn tensor(&self, index: Option<crate::tflite::TensorIndex>) -> Option<&'a Tensor> {
        self.model.tensor(self.op.subgraph, index?)
    }

    /// Input `i`, which the op requires.
    pub(super) fn input(&self, i: usize) -> Result<&'a Tensor, Refusal> {
        match self.op.inputs.get(i) {
            Some(Some(t)) => self
                .tensor(Some(*t))
                .ok_or_else(|| Refusal::Invalid(format!("input {i} does not exist"))),
            Some(None) => invalid(format!(
                "input {i} is omitted, and {} needs it",
                self.name()
            )),
            None => invalid(format!(
                "{} has {} inputs, {} needs input {i}",
                self.name(),
                self.op.inputs.len(),
                self.name()
            )),
        }
    }

    /// Input `i` if present (optional inputs, such as a bias).
    pub(super) fn optional_input(&self, i: usize) -> Option<&'a Tensor> {
        self.tensor(self.op.inputs.get(i).copied().flatten())
    }

    /// The kernel call of a CONV_2D or DEPTHWISE_CONV_2D (`f`, with input 0, the filter, the
    /// optional bias and the output) and its parameters: on one buffer through
    /// `kernels::overlap` when the output lies over the input ([`Lower::overlap`]), with a
    /// compile-time proof that the offsets suit the driver.
    pub(super) fn conv_call(&self, f: &TokenStream, params: TokenStream) -> Result<Call, Refusal> {
        self.conv_call_with(f, params, None, false)
    }

    /// [`Lower::conv_call`] with the kernel chosen when the crate compiles: `kernel`, the
    /// name of a `u8` constant the parameters define beside the op's (`OP_N_KERNEL`), makes the
    /// call `f_with::<K>` (and its check `check_f_with::<K>`), so only that kernel is linked;
    /// with `scratch`, `f_with_scratch::<K>` with the op's first scratch view `s0` after the others
    /// (the kernel's working memory in the arena). Scratch views the call does not take are
    /// bound to `_`.
    pub(super) fn conv_call_with(
        &self,
        f: &TokenStream,
        params: TokenStream,
        kernel: Option<&syn::Ident>,
        scratch: bool,
    ) -> Result<Call, Refusal> {
        let k = self.k();
        let pname = self.params;
        let bias = self.optional_view(2);
        let with_bias = self.optional_input(2).is_some();
        let bias_len = if with_bias {
            quote!(::core::option::Option::Some(i2))
        } else {
            quote!(::core::option::Option::None)
        };
        // The entry, and its kernel constant as the check (in `params`) and the body (in
        // `invoke`) name it.
        let (entry, in_params, in_body) = match kernel {
            Some(c) => (
                format_ident!(
                    "{}_{}",
                    f.to_string(),
                    if scratch { "with_scratch" } else { "with" }
                ),
                quote!(::<#c>),
                quote!(::<{ params::#c }>),
            ),
            None => (format_ident!("{}", f.to_string()), quote!(), quote!()),
        };
        let check = format_ident!("check_{}", entry);
        let s0 = if scratch && kernel.is_some() {
            quote!(, s0)
        } else {
            quote!()
        };
        // The scratch views the call leaves.
        let unused = (usize::from(scratch && kernel.is_some())..self.scratch.len())
            .map(|k| format_ident!("s{k}"));
        let unused = quote!(#(let _ = #unused;)*);
        if self.overlap.is_some() {
            let mut call = self.overlapped_call(
                f,
                params,
                |ia, oa| quote!(&#pname.geometry, #ia, #oa),
                &quote!(i1, #bias),
                if with_bias { vec![1, 2] } else { vec![1] },
                "at least the overlapped driver's least displacement above",
            )?;
            let (ia, oa) = self.overlap.unwrap_or_default();
            let (ia, oa) = (Literal::u64_unsuffixed(ia), Literal::u64_unsuffixed(oa));
            call.check = Some(
                quote!(#k::overlap::#check #in_params (&#pname, o0, #ia, #oa, i1, #bias_len #s0)),
            );
            call.body = quote!(
                #unused
                #k::proven::overlap::#entry #in_body (&params::#pname, o0, #ia, #oa, i1, #bias #s0);
            );
            return Ok(call);
        }
        Ok(Call {
            params: Some(params),
            body: quote!(
                #unused
                #k::proven::#entry #in_body (&params::#pname, i0, i1, #bias, o0 #s0);
            ),
            reads: if with_bias { vec![0, 1, 2] } else { vec![0, 1] },
            check: Some(quote!(#k::#check #in_params (&#pname, i0, i1, #bias_len, o0 #s0))),
        })
    }

    /// The kernel call of an elementwise op with one input (`f`, with input 0 and the output)
    /// and its parameters: on one buffer through `kernels::overlap::f` when the output lies over
    /// the input ([`Lower::overlap`]; `len` elements, each input element `width` elements of the
    /// view), with a compile-time proof that the offsets suit it. Either way the kernel's check
    /// (`kernels::check_f`, or `kernels::overlap::check_f` on one buffer) is asserted when the
    /// crate compiles and the body calls its proven entry.
    pub(crate) fn elementwise_call(
        &self,
        f: &TokenStream,
        params: TokenStream,
        len: usize,
        width: usize,
    ) -> Result<Call, Refusal> {
        let k = self.k();
        let pname = self.params;
        let check = format_ident!("check_{}", f.to_string());
        // A kernel without parameters (`params` empty) has none in its two-buffer entry and
        // takes `&()` in its one-buffer entry.
        let plain = params.is_empty();
        let Some((ia, oa)) = self.overlap else {
            return Ok(if plain {
                Call {
                    params: None,
                    body: quote!(#k::proven::#f(i0, o0);),
                    reads: vec![0],
                    check: Some(quote!(#k::#check(i0, o0))),
                }
            } else {
                Call {
                    params: Some(params),
                    body: quote!(#k::proven::#f(&params::#pname, i0, o0);),
                    reads: vec![0],
                    check: Some(quote!(#k::#check(&#pname, i0, o0))),
                }
            });
        };
        let (n, w) = (
            Literal::usize_unsuffixed(len),
            Literal::usize_unsuffixed(width),
        );
        let mut call = self.overlapped_call(
            f,
            params,
            |ia, oa| quote!(#ia, #oa, #n, #w),
            &quote!(#n),
            vec![],
            "at or above",
        )?;
        let (ia, oa) = (Literal::u64_unsuffixed(ia), Literal::u64_unsuffixed(oa));
        let (p_check, p_body) = if plain {
            (quote!(&()), quote!(&()))
        } else {
            (quote!(&#pname), quote!(&params::#pname))
        };
        call.check = Some(quote!(#k::overlap::#check(#p_check, o0, #ia, #oa, #n)));
        call.body = quote!(#k::proven::overlap::#f(#p_body, o0, #ia, #oa, #n););
        Ok(call)
    }

    /// [`Lower::elementwise_call`] for a kernel without parameters (`f(i0, o0)`): its entry in
    /// `kernels::overlap` takes `&()`.
    pub(crate) fn plain_elementwise_call(
        &self,
        f: &TokenStream,
        len: usize,
    ) -> Result<Call, Refusal> {
        // No parameter constant.
        self.elementwise_call(f, TokenStream::new(), len, 1)
    }

    /// The call of `f`'s entry in `kernels::overlap` for an op whose output the plan puts over
    /// its input ([`Lower::overlap`]; the plain call when it does not): the entry takes the
    /// parameters, the one view `o0` of both, the input's and the output's offsets in it, then
    /// `args`. The entry must be one the op's declaration lists ([`Lower::overwrite`]), and the
    /// compile-time check of the offsets asserted beside the parameters is the one it names,
    /// with the arguments `fits(input_at, output_at)` (the input must start `place` its
    /// output); `reads` are the inputs that keep views of their own. For an entry without a
    /// check yet; [`Lower::checked_overlapped_call`] for one with its check.
    ///
    /// # Errors
    ///
    /// An Unsupported refusal when the op's kind declares no one-buffer kernels, or not `f`.
    pub(crate) fn overlapped_call(
        &self,
        f: &TokenStream,
        params: TokenStream,
        fits: impl FnOnce(&Literal, &Literal) -> TokenStream,
        args: &TokenStream,
        reads: Vec<usize>,
        place: &str,
    ) -> Result<Call, Refusal> {
        self.overlapped(f, params, fits, args, None, reads, place)
    }

    /// [`Lower::overlapped_call`] for an entry with a check (`kernels::overlap::check_<f>`) and
    /// a proven twin (`kernels::proven::overlap::f`): the check, on the parameters, the length
    /// of the view `o0`, the offsets and then `lens` (the entry's other arguments with each
    /// view's length for the view: the views' names bound to their lengths, as `Call::check`
    /// takes them; empty for none), asserted when the crate compiles, and the body calling the
    /// proven entry.
    ///
    /// # Errors
    ///
    /// As [`Lower::overlapped_call`].
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn checked_overlapped_call(
        &self,
        f: &TokenStream,
        params: TokenStream,
        fits: impl FnOnce(&Literal, &Literal) -> TokenStream,
        args: &TokenStream,
        lens: &TokenStream,
        reads: Vec<usize>,
        place: &str,
    ) -> Result<Call, Refusal> {
        self.overlapped(f, params, fits, args, Some(lens), reads, place)
    }

    /// [`Lower::overlapped_call`] (`lens` `None`) and [`Lower::checked_overlapped_call`].
    #[allow(clippy::too_many_arguments)]
    fn overlapped(
        &self,
        f: &TokenStream,
        params: TokenStream,
        fits: impl FnOnce(&Literal, &Literal) -> TokenStream,
        args: &TokenStream,
        lens: Option<&TokenStream>,
        reads: Vec<usize>,
        place: &str,
    ) -> Result<Call, Refusal> {
        let Some(declared) = self.overwrite else {
            return unsupported(format!(
                "{} declares no kernel on one buffer, and the plan puts its output over its input",
                self.name()
            ));
        };
        let entry = f.to_string();
        if !declared.entries.contains(&entry.as_str()) {
            return unsupported(format!(
                "`kernels::overlap::{entry}` is not among {}'s kernels on one buffer ({})",
                self.name(),
                declared.entries.join(", ")
            ));
        }
        let k = self.k();
        let pname = self.params;
        let (input_at, output_at) = self.overlap.unwrap_or_default();
        let (ia, oa) = (
            Literal::u64_unsuffixed(input_at),
            Literal::u64_unsuffixed(output_at),
        );
        let why = format!(
            "{}: its input must start {place} its output",
            self.op.desc()
        );
        let fits_check = format_ident!("{}", declared.fits);
        let fits = fits(&ia, &oa);
        // A kernel without parameters (`params` empty) takes `&()`; its check takes nothing.
        let (p, p_check) = if params.is_empty() {
            (quote!(&()), quote!())
        } else {
            (quote!(&params::#pname), quote!(&#pname,))
        };
        let params = Some(quote! {
            #params
            const _: () = ::core::assert!(#k::overlap::#fits_check(#fits), #why);
        });
        let Some(lens) = lens else {
            return Ok(Call {
                params,
                // The check holds, so the entry runs the whole op (its result is `true`).
                body: quote!(let _ = #k::overlap::#f(#p, o0, #ia, #oa, #args);),
                reads,
                check: None,
            });
        };
        let check = format_ident!("check_{entry}");
        let lens = if lens.is_empty() {
            quote!()
        } else {
            quote!(, #lens)
        };
        let args = if args.is_empty() {
            quote!()
        } else {
            quote!(, #args)
        };
        Ok(Call {
            params,
            body: quote!(#k::proven::overlap::#f(#p, o0, #ia, #oa #args);),
            reads,
            check: Some(quote!(#k::overlap::#check(#p_check o0, #ia, #oa #lens))),
        })
    }

    /// `Some(i<i>)` or `None` for an optional input's view.
    pub(super) fn optional_view(&self, i: usize) -> TokenStream {
        if self.optional_input(i).is_some() {
            let v = format_ident!("i{i}");
            quote!(::core::option::Option::Some(#v))
        } else {
            quote!(::core::option::Option::None)
        }
    }

    /// The type of input `i`, if present (for messages).
    pub(crate) fn optional_input_type(&self, i: usize) -> Option<String> {
        self.optional_input(i).map(|t| t.dtype.to_string())
    }

    /// Output `i`.
    pub(crate) fn output(&self, i: usize) -> Result<&'a Tensor, Refusal> {
        self.tensor(self.op.outputs.get(i).copied())
            .ok_or_else(|| Refusal::Invalid(format!("{} has no output {i}", self.name())))
    }

    /// The planned shape (overrides applied) of a tensor.
    pub(super) fn shape(&self, t: &Tensor) -> Result<Vec<usize>, Refusal> {
        let info = self
            .tensors
            .get(t.id.get())
            .ok_or_else(|| Refusal::Invalid(format!("{} has no planning view", t.desc())))?;
        info.shape
            .iter()
            .map(|&d| {
                usize::try_from(d).map_err(|_| {
                    Refusal::Unsupported(format!(
                        "{} has a dynamic shape, which the kernels do not take",
                        t.desc()
                    ))
                })
            })
            .collect()
    }

    /// The shape right-aligned into `N` dimensions, padded with leading 1s.
    pub(super) fn shape_n<const N: usize>(&self, t: &Tensor) -> Result<[usize; N], Refusal> {
        let s = self.shape(t)?;
        if s.len() > N {
            return unsupported(format!(
                "{} has {} dimensions; {} takes at most {N}",
                t.desc(),
                s.len(),
                self.name()
            ));
        }
        let mut out = [1usize; N];
        for (o, d) in out.iter_mut().skip(N - s.len()).zip(&s) {
            *o = *d;
        }
        Ok(out)
    }

    /// The element count of a tensor, checked.
    pub(super) fn elements(&self, t: &Tensor) -> Result<usize, Refusal> {
        product(&self.shape(t)?)
            .ok_or_else(|| Refusal::Invalid(format!("{}'s element count overflows", t.desc())))
    }

    /// Per-tensor scale and zero point (TFLM's `params.scale` and `params.zero_point`: the
    /// first of each). The zero point is a value of the tensor's type (checked when the model
    /// was read), so it fits `i32`.
    pub(super) fn quant(&self, t: &Tensor) -> Result<(f32, i32), Refusal> {
        let q = t
            .quantization
            .as_ref()
            .filter(|q| !q.scale.is_empty())
            .ok_or_else(|| {
                Refusal::Invalid(format!(
                    "{} has no quantisation, and {} on {} needs it",
                    t.desc(),
                    self.name(),
                    t.dtype
                ))
            })?;
        let scale = q.scale.first().copied().unwrap_or(0.0);
        let zp = q.zero_point.first().copied().unwrap_or(0);
        let zp = i32::try_from(zp).map_err(|_| {
            Refusal::Invalid(format!("{} has zero point {zp}, outside int32", t.desc()))
        })?;
        if !(scale.is_finite() && scale > 0.0) {
            return invalid(format!(
                "{} has scale {scale}; a scale must be positive and finite",
                t.desc()
            ));
        }
        Ok((scale, zp))
    }

    /// Minus a tensor's zero point (TFLM's `input_offset`), checked.
    pub(super) fn offset(&self, t: &Tensor) -> Result<i32, Refusal> {
        let (_, zp) = self.quant(t)?;
        zp.checked_neg().ok_or_else(|| {
            Refusal::Invalid(format!(
                "{} has zero point {zp}, whose negation overflows int32",
                t.desc()
            ))
        })
    }

    /// All scales of a tensor (per-channel or one), each positive and finite.
    pub(super) fn scales(&self, t: &'a Tensor) -> Result<&'a [f32], Refusal> {
        let q = t
            .quantization
            .as_ref()
            .ok_or_else(|| Refusal::Invalid(format!("{} has no quantisation", t.desc())))?;
        if q.scale.is_empty() {
            return invalid(format!("{} has no scales", t.desc()));
        }
        if let Some(s) = q.scale.iter().find(|s| !(s.is_finite() && **s > 0.0)) {
            return invalid(format!(
                "{} has scale {s}; a scale must be positive and finite",
                t.desc()
            ));
        }
        Ok(&q.scale)
    }

    /// The data of a constant tensor, checked to hold its whole shape.
    pub(super) fn constant_data(&self, t: &Tensor) -> Result<&'a [u8], Refusal> {
        self.backed(t)?.ok_or_else(|| {
            Refusal::Unsupported(format!(
                "{} must be a constant for the kernel; it has no data",
                t.desc()
            ))
        })
    }

    /// Where a constant's bytes lie in the model file: `None` for a tensor in the arena, a
    /// folded constant (computed when the crate compiled, not in the file) and a buffer outside
    /// the file.
    pub(super) fn file_range(&self, t: &Tensor) -> Option<std::ops::Range<usize>> {
        if self.folded.contains_key(&t.id) {
            return None;
        }
        let range = self.model.buffers.get(t.buffer.get())?.data.clone()?;
        self.bytes.get(range.clone()).map(|_| range)
    }

    /// A constant's data (`None` for a tensor in the arena, whose slot the plan sizes from its
    /// shape), checked to hold exactly its shape: a kernel is never given a shape its data does
    /// not back.
    pub(super) fn backed(&self, t: &Tensor) -> Result<Option<&'a [u8]>, Refusal> {
        if let Some(data) = self.folded.get(&t.id) {
            // Made from the tensor's shape by folding.
            return Ok(Some(data.as_slice()));
        }
        let Some(range) = self
            .model
            .buffers
            .get(t.buffer.get())
            .and_then(|b| b.data.clone())
        else {
            return Ok(None);
        };
        let data = self.bytes.get(range).ok_or_else(|| {
            Refusal::Invalid(format!("{}'s data lies outside the file", t.desc()))
        })?;
        let need = if t.dtype == DType::Int4 {
            // TFLM packs int4 constants two to a byte (low nibble first), the last byte
            // half-used for an odd count.
            self.elements(t)
                .ok()
                .and_then(|n| u64::try_from(n.div_ceil(2)).ok())
        } else {
            t.dtype
                .element_bytes()
                .and_then(|e| u64::try_from(self.elements(t).ok()?).ok()?.checked_mul(e))
        };
        match need {
            Some(n) if n == data.len() as u64 => Ok(Some(data)),
            _ => invalid(format!(
                "{} has shape {:?} of {} but its buffer holds {} bytes",
                t.desc(),
                t.shape,
                t.dtype,
                data.len()
            )),
        }
    }

    /// A tensor must have type `dtype`.
    pub(super) fn expect_type(&self, t: &Tensor, dtype: DType, role: &str) -> Result<(), Refusal> {
        if t.dtype == dtype {
            Ok(())
        } else {
            invalid(format!(
                "{} ({role} of {}) is {}; {} with these inputs needs {dtype}",
                t.desc(),
                self.name(),
                t.dtype,
                self.name()
            ))
        }
    }

    /// The constant data of an int32 or int64 tensor, as integers.
    pub(super) fn const_ints(&self, t: &Tensor) -> Result<Vec<i64>, Refusal> {
        let data = self.constant_data(t)?;
        Ok(match t.dtype {
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
            other => {
                return invalid(format!("{} is {other}, not int32 or int64", t.desc()));
            }
        })
    }

    /// The input and output types must be the same.
    pub(super) fn same_type(&self, a: &Tensor, b: &Tensor) -> Result<(), Refusal> {
        if a.dtype == b.dtype {
            Ok(())
        } else {
            invalid(format!(
                "{} is {} but {} is {}; {} needs the same type",
                a.desc(),
                a.dtype,
                b.desc(),
                b.dtype,
                self.name()
            ))
        }
    }

    /// The types this op's kernel does not take.
    pub(super) fn no_kernel_for(&self, t: &Tensor) -> Refusal {
        Refusal::Unsupported(format!(
            "the runtime has no {} kernel for {} ({})",
            self.name(),
            t.dtype,
            t.desc()
        ))
    }
}

/// The product of dimensions, checked.
pub(super) fn product(dims: &[usize]) -> Option<usize> {
    dims.iter().try_fold(1usize, |n, &d| n.checked_mul(d))
}

pub(super) fn usize_lits(v: &[usize]) -> TokenStream {
    let items = v.iter().map(|&d| Literal::usize_unsuffixed(d));
    quote!([#(#items),*])
}

pub(super) fn i32_lit(v: i32) -> Literal {
    Literal::i32_unsuffixed(v)
}

pub(super) fn f32_lit(v: f32) -> Result<TokenStream, Refusal> {
    if !v.is_finite() {
        return invalid(format!("a parameter is {v}"));
    }
    let l = Literal::f32_suffixed(v);
    Ok(quote!(#l))
}

/// `Requant { multiplier, shift }` tokens.
pub(super) fn requant(rt: &TokenStream, (multiplier, shift): (i32, i32)) -> TokenStream {
    let (m, s) = (i32_lit(multiplier), i32_lit(shift));
    quote!(#rt::kernels::Requant { multiplier: #m, shift: #s })
}

/// A fused activation the kernels apply.
pub(super) fn fused(act: Activation) -> Result<quant::FusedActivation, Refusal> {
    Ok(match act {
        Activation::None => quant::FusedActivation::None,
        Activation::Relu => quant::FusedActivation::Relu,
        Activation::Relu6 => quant::FusedActivation::Relu6,
        Activation::ReluN1To1 => quant::FusedActivation::ReluN1To1,
        other => return unsupported(format!("the fused activation {other:?}")),
    })
}

/// TFLM's `CalculateActivationRangeQuantized` for an int8 output.
pub(super) fn act_range_s8(act: Activation, scale: f32, zp: i32) -> Result<(i32, i32), Refusal> {
    quant::activation_range_s8(fused(act)?, scale, zp).ok_or_else(|| {
        Refusal::Invalid(format!(
            "the {act:?} range at output scale {scale} overflows int32 (TFLM's Prepare fails)"
        ))
    })
}

/// TFLM's `CalculateActivationRange` for floats.
pub(super) fn act_range_f32(act: Activation) -> Result<(f32, f32), Refusal> {
    Ok(quant::activation_range_f32(fused(act)?))
}

/// TFLM's `ComputePaddingHeightWidth`: the padding before, `(height, width)`.
pub(crate) fn padding_hw(
    padding: Padding,
    stride: (usize, usize),
    dilation: (usize, usize),
    input: (usize, usize),
    filter: (usize, usize),
) -> Result<(usize, usize), Refusal> {
    let kind = match padding {
        Padding::Same => quant::PaddingKind::Same,
        Padding::Valid => quant::PaddingKind::Valid,
        Padding::Unknown(c) => {
            return invalid(format!("padding code {c} is neither SAME nor VALID"));
        }
    };
    let i32_of = |v: usize| {
        i32::try_from(v).map_err(|_| Refusal::Invalid(format!("dimension {v} exceeds int32")))
    };
    let p = quant::compute_padding_height_width(
        i32_of(stride.0)?,
        i32_of(stride.1)?,
        i32_of(dilation.0)?,
        i32_of(dilation.1)?,
        i32_of(input.0)?,
        i32_of(input.1)?,
        i32_of(filter.0)?,
        i32_of(filter.1)?,
        kind,
    );
    let u = |v: i32| usize::try_from(v).map_err(|_| Refusal::Invalid(format!("padding {v}")));
    Ok((u(p.height)?, u(p.width)?))
}

/// An option that must be a positive integer (strides, dilations, filter sizes).
pub(super) fn positive(v: i32, what: &str) -> Result<usize, Refusal> {
    usize::try_from(v)
        .ok()
        .filter(|&v| v > 0)
        .ok_or_else(|| Refusal::Invalid(format!("{what} is {v}; it must be positive")))
}

/// An axis of a rank-`rank` tensor, negative counting from the end.
pub(super) fn axis(axis: i64, rank: usize) -> Result<usize, Refusal> {
    let r = i64::try_from(rank).unwrap_or(i64::MAX);
    let a = if axis < 0 {
        axis.checked_add(r)
    } else {
        Some(axis)
    };
    a.and_then(|a| usize::try_from(a).ok())
        .filter(|&a| a < rank)
        .ok_or_else(|| Refusal::Invalid(format!("axis {axis} of a rank-{rank} tensor")))
}

/// A tensor's dimensions, `None` if one is negative.
pub(super) fn dims(t: &Tensor) -> Option<Vec<u64>> {
    t.shape.iter().map(|&d| u64::try_from(d).ok()).collect()
}

/// Input `i` of `op`, if present.
pub(super) fn input<'m>(model: &'m Model, op: &Op, i: usize) -> Option<&'m Tensor> {
    model.tensor(op.subgraph, (*op.inputs.get(i)?)?)
}

/// Output `i` of `op`.
pub(super) fn output<'m>(model: &'m Model, op: &Op, i: usize) -> Option<&'m Tensor> {
    model.tensor(op.subgraph, *op.outputs.get(i)?)
}

// Helpers of the data-movement, indexing and reduction ops (slice, gather, reduce, ...).
impl Lower<'_> {
    /// The tensor's type must be one of `types` (those TFLM's kernel takes for the op): an
    /// Unsupported refusal naming them otherwise.
    pub(super) fn one_of(&self, t: &Tensor, types: &[DType]) -> Result<(), Refusal> {
        if types.contains(&t.dtype) {
            return Ok(());
        }
        let names: Vec<String> = types.iter().map(ToString::to_string).collect();
        unsupported(format!(
            "{} of {} ({}): TFLM's kernel takes {}",
            self.name(),
            t.dtype,
            t.desc(),
            names.join(", ")
        ))
    }

    /// The data of a constant that TFLM's `Prepare` requires to be constant: an Invalid refusal
    /// (TFLM's `Prepare` fails) when it is not.
    pub(super) fn tflm_constant(&self, t: &Tensor, role: &str) -> Result<&[u8], Refusal> {
        match self.backed(t)? {
            Some(data) => Ok(data),
            None => invalid(format!(
                "{} ({role} of {}) is not a constant, which TFLM's Prepare requires",
                t.desc(),
                self.name()
            )),
        }
    }

    /// The data of a constant whose values TFLM reads when the op runs and stowplan resolves
    /// when it builds: an Unsupported refusal, saying why, when it is not a constant.
    pub(super) fn build_constant(&self, t: &Tensor, role: &str) -> Result<&[u8], Refusal> {
        match self.backed(t)? {
            Some(data) => Ok(data),
            None => unsupported(format!(
                "{} ({role} of {}) is not a constant: its values shape the kernel's work, which \
                 stowplan resolves when it builds",
                t.desc(),
                self.name()
            )),
        }
    }

    /// The tensor must have shape `want`.
    pub(super) fn expect_shape(&self, t: &Tensor, want: &[usize]) -> Result<(), Refusal> {
        let have = self.shape(t)?;
        if have == want {
            Ok(())
        } else {
            invalid(format!(
                "{} has shape {have:?}; {} makes {want:?}",
                t.desc(),
                self.name()
            ))
        }
    }

    /// Every output of the op has the input's type.
    pub(super) fn outputs_like(&self, input: &Tensor) -> Result<Vec<&Tensor>, Refusal> {
        (0..self.op.outputs.len())
            .map(|i| {
                let o = self.output(i)?;
                self.same_type(input, o)?;
                Ok(o)
            })
            .collect()
    }
}

/// The first `n` int32 values of constant data, as TFLM's `GetTensorData<int32_t>` reads them
/// whatever the tensor's type (an int64 tensor gives its low and high words): `None` if the data
/// holds fewer.
pub(super) fn raw_i32s(data: &[u8], n: usize) -> Option<Vec<i32>> {
    let v: Vec<i32> = data
        .chunks_exact(4)
        .take(n)
        .filter_map(|c| <[u8; 4]>::try_from(c).ok())
        .map(i32::from_le_bytes)
        .collect();
    (v.len() == n).then_some(v)
}

/// `dims` right-aligned into `N` dimensions, padded in front with `fill` (`None` for more than
/// `N` dimensions).
pub(super) fn pad_front<const N: usize, T: Copy>(dims: &[T], fill: T) -> Option<[T; N]> {
    let lead = N.checked_sub(dims.len())?;
    let mut out = [fill; N];
    for (o, d) in out.iter_mut().skip(lead).zip(dims) {
        *o = *d;
    }
    Some(out)
}

pub(super) fn i32_lits(v: &[i32]) -> TokenStream {
    let items = v.iter().map(|&d| Literal::i32_unsuffixed(d));
    quote!([#(#items),*])
}

/// The views `o0, o1, ..` of an op's outputs, as `[o0, o1, ..]`.
pub(super) fn output_views(n: usize) -> TokenStream {
    let views = (0..n).map(|i| format_ident!("o{i}"));
    quote!([#(#views),*])
}

/// A rank-`rank` tensor's dimension index from a model value (negative counts from the end),
/// as TFLM resolves it: `None` outside the rank.
pub(super) fn resolve_axis(value: i64, rank: usize) -> Option<usize> {
    let r = i64::try_from(rank).ok()?;
    let a = if value < 0 {
        value.checked_add(r)?
    } else {
        value
    };
    usize::try_from(a).ok().filter(|&a| a < rank)
}

/// The bytes of each folded tensor (little-endian, as the model's constants), by tensor.
pub type FoldedData = std::collections::BTreeMap<crate::tflite::TensorId, Vec<u8>>;

/// An element type folding moves between a tensor's little-endian bytes and the typed slices
/// the kernels take (the types generated views have: bool as `u8`, float16 as `u16`).
pub(crate) trait Element: Copy + Default {
    /// Its size in bytes.
    const BYTES: usize;
    /// From its little-endian bytes (`BYTES` of them).
    fn from_le(bytes: &[u8]) -> Self;
    /// Appends its little-endian bytes.
    fn put_le(self, out: &mut Vec<u8>);
}

macro_rules! element {
    ($($t:ty),*) => {$(
        impl Element for $t {
            const BYTES: usize = ::core::mem::size_of::<$t>();
            fn from_le(bytes: &[u8]) -> Self {
                let mut b = [0u8; ::core::mem::size_of::<$t>()];
                for (x, y) in b.iter_mut().zip(bytes) {
                    *x = *y;
                }
                <$t>::from_le_bytes(b)
            }
            fn put_le(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
        }
    )*};
}
element!(i8, u8, i16, u16, i32, u32, i64, f32);

/// `data` as elements (a trailing partial element is dropped; callers pass whole tensors).
pub(crate) fn values<T: Element>(data: &[u8]) -> Vec<T> {
    data.chunks_exact(T::BYTES).map(T::from_le).collect()
}

/// `v` as little-endian bytes.
pub(crate) fn le_bytes<T: Element>(v: &[T]) -> Vec<u8> {
    let mut out = Vec::with_capacity(v.len().saturating_mul(T::BYTES));
    for &x in v {
        x.put_le(&mut out);
    }
    out
}

/// Runs `$body` with the type alias `$t` bound to the element type of `$dtype` (as generated
/// views type it); other types give `$other`.
macro_rules! with_element {
    ($dtype:expr, $t:ident => $body:expr, $other:expr) => {
        match $dtype {
            crate::tflite::DType::Float32 => {
                type $t = f32;
                $body
            }
            crate::tflite::DType::Int8 => {
                type $t = i8;
                $body
            }
            crate::tflite::DType::Uint8 | crate::tflite::DType::Bool => {
                type $t = u8;
                $body
            }
            crate::tflite::DType::Int16 => {
                type $t = i16;
                $body
            }
            crate::tflite::DType::Uint16 | crate::tflite::DType::Float16 => {
                type $t = u16;
                $body
            }
            crate::tflite::DType::Int32 => {
                type $t = i32;
                $body
            }
            crate::tflite::DType::Uint32 => {
                type $t = u32;
                $body
            }
            crate::tflite::DType::Int64 => {
                type $t = i64;
                $body
            }
            _ => $other,
        }
    };
}
pub(crate) use with_element;

impl<'a> Lower<'a> {
    /// Input `i`'s constant data as elements of `T` (folding).
    pub(crate) fn const_values<T: Element>(&self, i: usize) -> Result<Vec<T>, Refusal> {
        Ok(values(self.constant_data(self.input(i)?)?))
    }

    /// As many default elements of `T` as output `i` holds (folding).
    pub(crate) fn output_values<T: Element>(&self, i: usize) -> Result<Vec<T>, Refusal> {
        Ok(vec![T::default(); self.elements(self.output(i)?)?])
    }
}
