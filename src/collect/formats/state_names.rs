//! The state names of every format of the table: what any writer or loader of it uses for
//! quantization state (scales, zero points, group indices, KV-cache scales), read from their
//! code (DESIGN §10, amended 2026-11-28), and their union.

use super::{matches, Pattern};

/// The state names of float-weight formats (`fp8`, modelopt's base, compressed-tensors
/// float-quantized): vLLM's FP8 linear and MoE weights (`weight_scale_inv`, `weight_scale`,
/// `input_scale`) and every KV-cache and attention scale name its loaders map
/// (`fp8.py`/`kv_cache.py` `k_scale`, `v_scale`, `q_scale`, `prob_scale`, the deprecated
/// `kv_scale`; `get_cache_scale` `output_scale` on k/v/q projections and `prob_output_scale`).
pub(super) const FLOAT_SCALES: [Pattern; 10] = [
    "weight_scale_inv",
    "weight_scale",
    "input_scale",
    "k_scale",
    "v_scale",
    "q_scale",
    "prob_scale",
    "kv_scale",
    "output_scale",
    "prob_output_scale",
];

/// compressed-tensors' state names: `QuantizationMetadata.all_qparam_names` (the 15
/// `{input,weight,output}_{scale,zero_point,global_scale,g_idx,shape}`), its KV-cache scales
/// (`KVCacheScaleType`: `k_scale`, `v_scale`, `q_scale`), vLLM's KV remapping of
/// `output_scale` and `prob_output_scale`, and the FP8 scales its converters read
/// (`weight_scale_inv`, `weight_scale_2`).
pub(super) const CT_STATE: [Pattern; 22] = [
    "input_scale",
    "input_zero_point",
    "input_global_scale",
    "input_g_idx",
    "input_shape",
    "weight_scale",
    "weight_zero_point",
    "weight_global_scale",
    "weight_g_idx",
    "weight_shape",
    "output_scale",
    "output_zero_point",
    "output_global_scale",
    "output_g_idx",
    "output_shape",
    "k_scale",
    "v_scale",
    "q_scale",
    "prob_scale",
    "prob_output_scale",
    "weight_scale_inv",
    "weight_scale_2",
];

/// modelopt's state names beyond the float formats': NVFP4's second-level scale, AWQ's
/// `pre_quant_scale`, the affine KV cache's `k_bias`/`v_bias`, and the fused-expert names
/// `quantizer_attr_names` prefixes with the weight's (`gate_up_proj_weight_scale`).
pub(super) const MODELOPT_STATE: [Pattern; 7] = [
    "weight_scale_2",
    "pre_quant_scale",
    "k_bias",
    "v_bias",
    "*_weight_scale",
    "*_weight_scale_2",
    "*_input_scale",
];

/// AMD Quark's state names (`quark/torch/export/constants.py` LOAD_MAP and LOAD_MAP_MULTI,
/// `qparamslinear.py`): scales and zero points of weight, bias, input and output, their
/// second-level `_2` variants, the rotation, and the KV names its exports and vLLM's Quark
/// loader use (`output_scale` on any module, `prob_output_scale`, `k_scale`, `v_scale`).
pub(super) const QUARK_STATE: [Pattern; 23] = [
    "weight_scale",
    "weight_zero_point",
    "bias_scale",
    "bias_zero_point",
    "input_scale",
    "input_zero_point",
    "output_scale",
    "output_zero_point",
    "weight_scale_2",
    "weight_zero_point_2",
    "bias_scale_2",
    "bias_zero_point_2",
    "input_scale_2",
    "input_zero_point_2",
    "output_scale_2",
    "output_zero_point_2",
    "input_rotation",
    "prob_output_scale",
    "k_scale",
    "v_scale",
    "q_scale",
    "prob_scale",
    "kv_scale",
];

/// MLX's state names (mlx `nn/layers/quantized.py`): the group scales and, in affine mode, the
/// group biases. (`bias`, without the `s`, is a float layer's parameter.)
const MLX_STATE: [Pattern; 2] = ["scales", "biases"];

/// GPTQ's and AWQ's state names.
const GPTQ_AWQ_STATE: [Pattern; 3] = ["qzeros", "scales", "g_idx"];

/// bitsandbytes' 4-bit quantization state.
const BNB4_STATE: [Pattern; 5] = [
    "weight.absmax",
    "weight.quant_map",
    "weight.nested_absmax",
    "weight.nested_quant_map",
    "weight.quant_state.*",
];

/// bitsandbytes' LLM.int8 state.
const BNB8_STATE: [Pattern; 2] = ["SCB", "weight_format"];

/// gpt-oss MXFP4's block scales.
const MXFP4_STATE: [Pattern; 1] = ["*_scales"];

/// Every format's state names, by format: what any writer or loader of the table uses for
/// quantization state. A name a model also uses for a plain parameter (`k_bias`, `v_bias`: the
/// query and value biases of BEiT-style vision encoders) is state only where its format names
/// it, so it is left out of [`is_state_name`].
pub(crate) const STATE_NAMES: [(&str, &[Pattern]); 9] = [
    ("mxfp4", &MXFP4_STATE),
    ("gptq/awq", &GPTQ_AWQ_STATE),
    ("compressed-tensors", &CT_STATE),
    ("fp8", &FLOAT_SCALES),
    ("modelopt", &MODELOPT_STATE),
    ("quark", &QUARK_STATE),
    ("mlx", &MLX_STATE),
    ("bitsandbytes", &BNB4_STATE),
    ("bitsandbytes 8-bit", &BNB8_STATE),
];

/// Names that are state where their format says so and plain parameters elsewhere.
const SHARED_WITH_PARAMETERS: [Pattern; 2] = ["k_bias", "v_bias"];

/// Whether any writer or loader of the table uses `name` for quantization state (DESIGN §10,
/// amended 2026-11-28).
pub(crate) fn is_state_name(name: &str) -> bool {
    STATE_NAMES.iter().any(|(_, patterns)| {
        patterns
            .iter()
            .filter(|p| !SHARED_WITH_PARAMETERS.contains(p))
            .any(|p| matches(p, name))
    })
}
