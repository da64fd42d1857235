//! Counting a checkpoint's parameters in a closed world (DESIGN §10, "Parameters", amended
//! 2026-11-27): every tensor is classified under the checkpoint's format (a reviewed buffer, an
//! auxiliary tensor, a packed parameter, a float parameter) or the count fails naming the tensor,
//! its dtype and the format. A packed tensor's shape must agree with its scale's as the format's
//! writer lays them out. Active parameters follow from the same classification.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use super::formats::{is_state_name, matches, Fit, Format, Mlx, MlxMode, Packed, Pattern};
use super::safetensors::Tensor;

/// The parameters of a checkpoint: all of them, and those of its routed experts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ParameterCount {
    /// The sum over parameter tensors (logical values: packed tensors unpacked).
    pub total: u128,
    /// The parameters of tensors whose name contains `.experts.` and not `shared_expert`.
    pub routed_experts: u128,
}

/// Why the parameters of a checkpoint could not be counted (the size facts are then
/// `unavailable` / `size_calculation_failed`, and the run report says this).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CountError {
    /// The checkpoint's `quantization_config` declares a format the rules do not know.
    UnknownFormat(String),
    /// A tensor no rule of the format classifies (an integer, BOOL, U8 or I8 tensor the format
    /// does not name, or a dtype not listed).
    Unclassified {
        /// The tensor's name.
        tensor: String,
        /// Its dtype.
        dtype: String,
        /// The format read.
        format: String,
    },
    /// A tensor the format packs, stored in another dtype than its writer writes.
    PackedDtype {
        /// The tensor's name.
        tensor: String,
        /// Its dtype.
        dtype: String,
        /// The dtype the writer stores it in.
        expected: String,
        /// The format read.
        format: String,
    },
    /// A packed tensor whose shape disagrees with the format's packing or with its scale.
    Misfit {
        /// The tensor's name.
        tensor: String,
        /// What disagrees.
        why: String,
        /// The format read.
        format: String,
    },
    /// A count does not fit in 128 bits.
    Overflow(String),
}

impl fmt::Display for CountError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CountError::UnknownFormat(what) => write!(
                f,
                "the checkpoint's quantization_config declares {what}, not a format the rules know"
            ),
            CountError::Unclassified {
                tensor,
                dtype,
                format,
            } => write!(
                f,
                "tensor {tensor:?} ({dtype}) is not a parameter, buffer or auxiliary tensor of the format {format}"
            ),
            CountError::PackedDtype {
                tensor,
                dtype,
                expected,
                format,
            } => write!(
                f,
                "tensor {tensor:?} is {dtype} where the format {format} packs it as {expected}"
            ),
            CountError::Misfit {
                tensor,
                why,
                format,
            } => write!(
                f,
                "tensor {tensor:?} does not fit the packing of the format {format}: {why}"
            ),
            CountError::Overflow(tensor) => {
                write!(f, "parameter count overflows at tensor {tensor:?}")
            }
        }
    }
}

impl std::error::Error for CountError {}

/// The float dtypes: one parameter per element.
const FLOAT_DTYPES: [&str; 6] = ["F64", "F32", "F16", "BF16", "F8_E4M3", "F8_E5M2"];

/// Every dtype a rule of the table reads: the float parameters', the integer and BOOL
/// tensors formats pack or name as state, and E8M0 (the MX formats' shared exponents). A
/// tensor of any other dtype (a 4- or 6-bit float, a complex number, a name safetensors may
/// add) is not recognised wherever it stands, a state name included: its count fails naming it.
const KNOWN_DTYPES: [&str; 16] = [
    "F64", "F32", "F16", "BF16", "F8_E4M3", "F8_E5M2", "F8_E8M0", "BOOL", "U8", "I8", "U16", "I16",
    "U32", "I32", "U64", "I64",
];

/// What one tensor is under a format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class<'f> {
    /// A reviewed buffer, or an auxiliary tensor of the format: no parameters.
    NotAParameter,
    /// One parameter per element.
    Float,
    /// A packed parameter of the format.
    Packed(&'f Packed),
    /// An MLX packed `weight` of this many bits per value (32 / bits values per U32).
    Mlx(u64),
}

/// The bit widths a checkpoint's quantized parameters hold, from its tensors as classified
/// (DESIGN §10, amended 2026-11-28): logical parameters by width.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Widths {
    /// Packed values of a known width (4 for two per byte, 32 / bits per word), and F8 floats
    /// (8) in a quantized checkpoint.
    pub exact: BTreeMap<u32, u128>,
    /// Integer values stored one per element (an I8 `weight`): at most this many bits; the
    /// configuration says how many.
    pub at_most: BTreeMap<u32, u128>,
}

impl Widths {
    fn add(map: &mut BTreeMap<u32, u128>, bits: u32, n: u128) {
        let e = map.entry(bits).or_insert(0);
        *e = e.saturating_add(n);
    }

    /// The bit width of the checkpoint: the width that most of its quantized parameters hold
    /// (ties: the smaller), checked against the configuration's `claim`. An exact width must
    /// equal the claim; a width of values stored one per element is the claim when the claim
    /// fits in it. `Err` says what disagrees: no quantized tensors, or a claim the tensors
    /// contradict (a configuration that says 8 bits over 4-bit packed tensors).
    pub fn checked(&self, claim: Option<u32>) -> Result<u32, String> {
        let best = self
            .exact
            .iter()
            .map(|(&b, &n)| (n, true, b))
            .chain(self.at_most.iter().map(|(&b, &n)| (n, false, b)))
            .max_by(|x, y| x.0.cmp(&y.0).then(y.2.cmp(&x.2)));
        let Some((_, exact, bits)) = best else {
            return Err("no quantized tensors".to_string());
        };
        match (exact, claim) {
            (true, Some(c)) if c != bits => Err(format!(
                "the configuration says {c} bits, its tensors hold {bits}"
            )),
            (true, _) => Ok(bits),
            (false, Some(c)) if c <= bits => Ok(c),
            (false, Some(c)) => Err(format!(
                "the configuration says {c} bits, its tensors hold at most {bits}"
            )),
            (false, None) => Err(format!(
                "its tensors hold at most {bits} bits and the configuration says none"
            )),
        }
    }
}

/// Whether a tensor's last name component is named as quantization state is: scales, zero
/// points, group indices, absolute maxima, quantization maps and state, and every name a
/// writer or loader of the table uses for it (`formats::is_state_name`). Such a tensor is
/// counted only where the checkpoint's format names it (as auxiliary); elsewhere it is
/// unclassified.
fn looks_like_quantization_state(name: &str) -> bool {
    let last = name.rsplit('.').next().unwrap_or(name);
    let parent = name.rsplit('.').nth(1).unwrap_or("");
    const STEMS: [&str; 9] = [
        "weight_scale",
        "input_scale",
        "global_scale",
        "pre_quant_scale",
        "zero_point",
        "scale_inv",
        "scales_inv",
        "g_idx",
        "quant_map",
    ];
    STEMS.iter().any(|stem| last.contains(stem))
        || matches!(
            last,
            "qzeros" | "scales" | "absmax" | "nested_absmax" | "SCB"
        )
        || matches!(last, "k_scale" | "v_scale" | "q_scale")
        || parent == "quant_state"
        || is_state_name(name)
}

/// Whether a tensor belongs to the routed experts.
fn is_routed_expert(name: &str) -> bool {
    name.contains(".experts.") && !name.contains("shared_expert")
}

/// Whether `name` ends with one of the reviewed buffer names (whole components).
fn is_buffer(name: &str, buffers: &BTreeSet<String>) -> bool {
    buffers.iter().any(|b| matches_tail(b, name))
}

fn matches_tail(tail: &str, name: &str) -> bool {
    name == tail
        || name
            .strip_suffix(tail)
            .is_some_and(|head| head.ends_with('.'))
}

/// The name of the companion `other` of a tensor matched by `own` (`a.weight_packed` →
/// `a.weight_scale`, `x_blocks` → `x_scales`).
fn companion(name: &str, own: Pattern, other: Pattern) -> Option<String> {
    if let (Some(own), Some(other)) = (own.strip_prefix('*'), other.strip_prefix('*')) {
        return name.strip_suffix(own).map(|head| format!("{head}{other}"));
    }
    name.strip_suffix(own).map(|head| format!("{head}{other}"))
}

fn elements(tensor: &Tensor) -> Result<u128, CountError> {
    tensor
        .shape
        .iter()
        .try_fold(1u128, |acc, &d| acc.checked_mul(u128::from(d)))
        .ok_or_else(|| CountError::Overflow(tensor.name.clone()))
}

/// One checkpoint under one format: its tensors by name, for companions.
struct Classifier<'a> {
    format: &'a Format,
    label: String,
    by_name: BTreeMap<&'a str, &'a Tensor>,
    buffers: &'a BTreeSet<String>,
}

impl<'a> Classifier<'a> {
    fn misfit(&self, tensor: &Tensor, why: String) -> CountError {
        CountError::Misfit {
            tensor: tensor.name.clone(),
            why,
            format: self.label.clone(),
        }
    }

    fn classify(&self, tensor: &'a Tensor) -> Result<Class<'a>, CountError> {
        if is_buffer(&tensor.name, self.buffers) {
            return Ok(Class::NotAParameter);
        }
        if !KNOWN_DTYPES.contains(&tensor.dtype.as_str()) {
            return Err(CountError::Unclassified {
                tensor: tensor.name.clone(),
                dtype: tensor.dtype.clone(),
                format: self.label.clone(),
            });
        }
        let (packed, auxiliary): (&[Packed], &[Pattern]) = match self.format {
            Format::Mlx(m) => return self.classify_mlx(tensor, m),
            Format::Plain => (&[], &[]),
            Format::Known {
                packed, auxiliary, ..
            } => (packed, auxiliary),
            Format::Unknown(what) => return Err(CountError::UnknownFormat(what.clone())),
        };
        if auxiliary.iter().any(|p| matches(p, &tensor.name)) {
            return Ok(Class::NotAParameter);
        }
        let is_float = FLOAT_DTYPES.contains(&tensor.dtype.as_str());
        for p in packed.iter().filter(|p| matches(p.name, &tensor.name)) {
            let marked = p.marker.and_then(|m| companion(&tensor.name, p.name, m));
            let marked = marked.is_some_and(|m| self.by_name.contains_key(m.as_str()));
            if tensor.dtype == p.dtype {
                if p.exclusive || marked {
                    return Ok(Class::Packed(p));
                }
                let marker = p.marker.unwrap_or_default();
                return Err(self.misfit(tensor, format!("no {marker} beside it marks it packed")));
            }
            if p.exclusive || marked {
                return Err(CountError::PackedDtype {
                    tensor: tensor.name.clone(),
                    dtype: tensor.dtype.clone(),
                    expected: p.dtype.to_string(),
                    format: self.label.clone(),
                });
            }
        }
        // A float tensor named as quantization state is one the format does not name (a scale
        // of a newer writer): never counted as a parameter, nor skipped as absent.
        if is_float && !looks_like_quantization_state(&tensor.name) {
            return Ok(Class::Float);
        }
        Err(CountError::Unclassified {
            tensor: tensor.name.clone(),
            dtype: tensor.dtype.clone(),
            format: self.label.clone(),
        })
    }

    /// MLX (mlx `nn/layers/quantized.py`, `ops.cpp`): `scales` and `biases` are auxiliary; a
    /// `weight` is packed exactly where its module has `scales` (mlx-lm's own load rule), stored
    /// U32, at the bits the configuration gives its module, checked against the tensors.
    fn classify_mlx(&self, tensor: &Tensor, m: &Mlx) -> Result<Class<'a>, CountError> {
        if ["scales", "biases"]
            .iter()
            .any(|p| matches(p, &tensor.name))
        {
            return Ok(Class::NotAParameter);
        }
        let module = tensor.name.strip_suffix(".weight");
        let scales = module.and_then(|p| self.by_name.get(format!("{p}.scales").as_str()));
        if let (Some(module), Some(scales)) = (module, scales) {
            if tensor.dtype != "U32" {
                return Err(CountError::PackedDtype {
                    tensor: tensor.name.clone(),
                    dtype: tensor.dtype.clone(),
                    expected: "U32".to_string(),
                    format: self.label.clone(),
                });
            }
            return self.mlx_bits(tensor, module, scales, m).map(Class::Mlx);
        }
        if FLOAT_DTYPES.contains(&tensor.dtype.as_str())
            && !looks_like_quantization_state(&tensor.name)
        {
            return Ok(Class::Float);
        }
        Err(CountError::Unclassified {
            tensor: tensor.name.clone(),
            dtype: tensor.dtype.clone(),
            format: self.label.clone(),
        })
    }

    /// The bits of an MLX packed weight: the configuration's for its module, checked as the
    /// writer lays the tensors out (mlx `validate_quantized_input`: `W.cols × 32 / bits =
    /// scales.cols × group_size`; affine has float `scales` and `biases` of one shape, the float
    /// modes U8 `scales` and no `biases`).
    fn mlx_bits(
        &self,
        weight: &Tensor,
        module: &str,
        scales: &Tensor,
        m: &Mlx,
    ) -> Result<u64, CountError> {
        let Some(claim) = m.of_module(module) else {
            return Err(self.misfit(
                weight,
                format!("the configuration leaves {module:?} unquantized, yet it has scales"),
            ));
        };
        let biases = self.by_name.get(format!("{module}.biases").as_str());
        let float_scales = FLOAT_DTYPES.contains(&scales.dtype.as_str());
        let mode_fits = match claim.mode {
            MlxMode::Affine => {
                float_scales
                    && biases.is_some_and(|b| b.shape == scales.shape && b.dtype == scales.dtype)
            }
            _ => scales.dtype == "U8" && biases.is_none(),
        };
        if !mode_fits {
            return Err(self.misfit(
                weight,
                format!(
                    "its scales ({}) and biases do not fit the mode {} the configuration gives it",
                    scales.dtype,
                    claim.mode.name()
                ),
            ));
        }
        let (t, s) = (weight.shape.as_slice(), scales.shape.as_slice());
        let fits = match (t.split_last(), s.split_last()) {
            (Some((&cols, lead)), Some((&groups, scale_lead))) => {
                lead == scale_lead
                    && groups > 0
                    && u128::from(cols) * 32
                        == u128::from(claim.bits)
                            * u128::from(claim.group_size)
                            * u128::from(groups)
            }
            _ => false,
        };
        if !fits {
            return Err(self.misfit(
                weight,
                format!(
                    "its shape {t:?} and its scales' {s:?} are not {} bits in groups of {}",
                    claim.bits, claim.group_size
                ),
            ));
        }
        Ok(claim.bits)
    }

    /// The logical values of a packed tensor, after checking its shape against its scale's.
    fn unpacked(&self, tensor: &Tensor, p: &Packed) -> Result<u128, CountError> {
        let stored = elements(tensor)?;
        let scaled = stored
            .checked_mul(p.numerator)
            .ok_or_else(|| CountError::Overflow(tensor.name.clone()))?;
        if scaled % p.denominator != 0 {
            return Err(self.misfit(tensor, "its packed values are not whole".to_string()));
        }
        let per = |d: u64| -> Option<u128> {
            let v = u128::from(d).checked_mul(p.numerator)?;
            (v % p.denominator == 0).then_some(v / p.denominator)
        };
        if let Some((scale_name, fit)) = p.scale {
            let name = companion(&tensor.name, p.name, scale_name).unwrap_or_default();
            let Some(scale) = self.by_name.get(name.as_str()) else {
                return Err(self.misfit(tensor, format!("no {name:?} beside it")));
            };
            let (t, s) = (tensor.shape.as_slice(), scale.shape.as_slice());
            let fits = match (fit, t, s) {
                (Fit::RowsAlike, [rows, cols], [scale_rows, groups]) => {
                    rows == scale_rows
                        && *groups > 0
                        && per(*cols).is_some_and(|c| c % u128::from(*groups) == 0)
                }
                (Fit::ColumnsAlike, [rows, cols], [groups, scale_cols]) => {
                    cols == scale_cols
                        && *groups > 0
                        && per(*rows).is_some_and(|r| r % u128::from(*groups) == 0)
                }
                (Fit::LogicalColumns, [rows, cols], [groups, scale_cols]) => {
                    per(*cols) == Some(u128::from(*scale_cols)) && *groups > 0 && rows % groups == 0
                }
                (Fit::Blocks, [head @ .., _], _) => head == s,
                (Fit::Flattened, [_, 1], _) => true,
                _ => false,
            };
            if !fits {
                return Err(self.misfit(
                    tensor,
                    format!("its shape {t:?} does not fit {name:?} of shape {s:?}"),
                ));
            }
        }
        Ok(scaled / p.denominator)
    }
}

/// DESIGN §10 parameter counting in a closed world: every tensor of the checkpoint is a
/// reviewed buffer (`buffers`, matched on trailing name components), an auxiliary tensor of the
/// `format`, a packed parameter of it (counted unpacked, its shape checked against its scale),
/// or a float parameter (F64, F32, F16, BF16, F8_E4M3, F8_E5M2: one per element); anything else
/// is an error naming the tensor. `routed_experts` = the parameters of tensors whose name
/// contains `.experts.` and not `shared_expert`.
pub fn count_parameters(
    tensors: &[Tensor],
    format: &Format,
    buffers: &BTreeSet<String>,
) -> Result<ParameterCount, CountError> {
    classify_checkpoint(tensors, format, buffers).map(|(count, _)| count)
}

/// [`count_parameters`], with the bit widths the quantized parameters hold (F8 floats count as
/// 8 bits where the format is a quantization).
pub fn classify_checkpoint(
    tensors: &[Tensor],
    format: &Format,
    buffers: &BTreeSet<String>,
) -> Result<(ParameterCount, Widths), CountError> {
    let classifier = Classifier {
        format,
        label: format.to_string(),
        by_name: tensors.iter().map(|t| (t.name.as_str(), t)).collect(),
        buffers,
    };
    let mut count = ParameterCount::default();
    let mut widths = Widths::default();
    let mut anchor = HiddenAnchor::default();
    for tensor in tensors {
        let overflow = || CountError::Overflow(tensor.name.clone());
        let class = classifier.classify(tensor)?;
        anchor.see(tensor, class);
        let parameters = match class {
            Class::NotAParameter => 0,
            Class::Float => {
                let n = elements(tensor)?;
                if tensor.dtype.starts_with("F8_") && *format != Format::Plain {
                    Widths::add(&mut widths.exact, 8, n);
                }
                n
            }
            Class::Packed(p) => {
                let n = classifier.unpacked(tensor, p)?;
                // Bits per logical value: the stored element's bits × denominator / numerator.
                let storage = storage_bits(p.dtype).unwrap_or(0) * p.denominator;
                let width = |b: u128| u32::try_from(b).ok().filter(|&b| b > 0);
                if p.numerator == 1 && p.denominator == 1 {
                    if let Some(b) = width(storage) {
                        Widths::add(&mut widths.at_most, b, n);
                    }
                } else if storage.is_multiple_of(p.numerator) {
                    if let Some(b) = width(storage / p.numerator) {
                        Widths::add(&mut widths.exact, b, n);
                    }
                }
                n
            }
            Class::Mlx(bits) => {
                let scaled = elements(tensor)?.checked_mul(32).ok_or_else(overflow)?;
                let bits = u128::from(bits);
                if scaled % bits != 0 {
                    return Err(
                        classifier.misfit(tensor, "its packed values are not whole".to_string())
                    );
                }
                let width = u32::try_from(bits).map_err(|_| overflow())?;
                Widths::add(&mut widths.exact, width, scaled / bits);
                scaled / bits
            }
        };
        count.total = count.total.checked_add(parameters).ok_or_else(overflow)?;
        if is_routed_expert(&tensor.name) {
            count.routed_experts = count
                .routed_experts
                .checked_add(parameters)
                .ok_or_else(overflow)?;
        }
    }
    if let Some(tensor) = anchor.unanchored() {
        return Err(classifier.misfit(
            tensor,
            "the width most packed modules unpack to is no norm vector's (the hidden size): the \
             configuration's bits and group size, whose product alone the tensors fix in affine \
             mode, do not fit them"
                .to_string(),
        ));
    }
    Ok((count, widths))
}

/// MLX affine tensors fix only bits × group size (4-bit groups of 64 and 8-bit groups of 32
/// store alike), so the configuration's claim is anchored on a width the checkpoint states in
/// floats: the width most packed modules unpack to is the length of a norm vector (the hidden
/// size, which most of a transformer's projections take in: q, k, v, gate, up, the
/// embedding). A claim of the same product over other bits makes every width half or twice
/// as wide. Without norm vectors there is no anchor and no check.
#[derive(Default)]
struct HiddenAnchor<'t> {
    /// The first MLX packed weight.
    first: Option<&'t Tensor>,
    /// The packed weights by the width they unpack to.
    widths: BTreeMap<u128, usize>,
    /// The lengths of the float norm vectors.
    norms: BTreeSet<u128>,
}

impl<'t> HiddenAnchor<'t> {
    fn see(&mut self, tensor: &'t Tensor, class: Class<'_>) {
        match (class, tensor.shape.as_slice()) {
            (Class::Mlx(bits), [.., cols]) if bits > 0 => {
                self.first.get_or_insert(tensor);
                *self
                    .widths
                    .entry(u128::from(*cols) * 32 / u128::from(bits))
                    .or_insert(0) += 1;
            }
            (Class::Float, [n]) if tensor.name.contains("norm") => {
                self.norms.insert(u128::from(*n));
            }
            _ => {}
        }
    }

    /// The first packed weight when the width most packed modules unpack to is no norm's.
    fn unanchored(&self) -> Option<&'t Tensor> {
        let most = self.widths.values().copied().max()?;
        let anchored = self
            .widths
            .iter()
            .any(|(w, &n)| n == most && self.norms.contains(w));
        (!self.norms.is_empty() && !anchored)
            .then_some(self.first)
            .flatten()
    }
}

/// Bits per stored element of an integer dtype a writer packs into.
fn storage_bits(dtype: &str) -> Option<u128> {
    match dtype {
        "U8" | "I8" => Some(8),
        "I16" | "U16" => Some(16),
        "I32" | "U32" => Some(32),
        "I64" | "U64" => Some(64),
        _ => None,
    }
}

/// Active parameters: total − R × (E − k) / E with R the routed-expert parameters, E the
/// number of experts and k the experts per token. Without E, or E ≤ 1, the total. `None`
/// (`size_calculation_failed`) when E > 1 and R is 0, k is missing or larger than E, the
/// division is not exact, or the result would be negative.
pub fn active_parameters(
    count: ParameterCount,
    experts: Option<u64>,
    experts_per_token: Option<u64>,
) -> Option<u128> {
    let e = match experts {
        Some(e) if e > 1 => u128::from(e),
        _ => return Some(count.total),
    };
    let k = u128::from(experts_per_token?);
    let r = count.routed_experts;
    if r == 0 {
        return None;
    }
    let inactive = r.checked_mul(e.checked_sub(k)?)?;
    if inactive % e != 0 {
        return None;
    }
    count.total.checked_sub(inactive / e)
}

#[cfg(test)]
#[path = "parameters_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "parameters_fixtures.rs"]
mod fixtures;
