//! Unit tests of the closed-world parameter count: each format's names, dtypes and packing,
//! what no rule classifies, shapes that do not fit, and active parameters. (The writers' own
//! layouts, on whole fixture checkpoints, are tested in `formats_fixtures`.)

use super::*;
use crate::collect::formats::format_of;
use proptest::prelude::*;
use serde_json::json;

fn tensor(name: &str, dtype: &str, shape: &[u64]) -> Tensor {
    Tensor {
        name: name.to_string(),
        dtype: dtype.to_string(),
        shape: shape.to_vec(),
    }
}

fn format(q: serde_json::Value) -> Format {
    format_of(&json!({ "quantization_config": q }))
}

fn none() -> BTreeSet<String> {
    BTreeSet::new()
}

fn total(tensors: &[Tensor], format: &Format) -> Result<u128, CountError> {
    count_parameters(tensors, format, &none()).map(|c| c.total)
}

fn w4a16() -> Format {
    format(
        json!({"quant_method": "compressed-tensors", "format": "pack-quantized",
        "config_groups": {"group_0": {"weights": {"num_bits": 4, "type": "int", "group_size": 128,
        "strategy": "group", "symmetric": true}, "targets": ["Linear"]}}, "ignore": ["lm_head"]}),
    )
}

#[test]
fn plain_checkpoints_count_floats_and_nothing_else() {
    let floats = [
        tensor("a.weight", "BF16", &[2, 3]),
        tensor("b.weight", "F32", &[4]),
        tensor("c.weight", "F8_E4M3", &[5]),
        tensor("d", "F16", &[]),
        tensor("e.weight", "BF16", &[0, 7]),
    ];
    assert_eq!(total(&floats, &Format::Plain), Ok(16));
    // A tensor no rule names is never read as absent, nor as one value per byte.
    for (dtype, name) in [
        ("I8", "x.weight"),
        ("U8", "x.weight"),
        ("I32", "x.qweight"),
        ("I64", "position_ids"),
        ("BOOL", "mask"),
        ("F4", "x.weight"),
        ("weird", "x.weight"),
    ] {
        let mut tensors = floats.to_vec();
        tensors.push(tensor(name, dtype, &[8]));
        assert_eq!(
            total(&tensors, &Format::Plain),
            Err(CountError::Unclassified {
                tensor: name.to_string(),
                dtype: dtype.to_string(),
                format: "plain (no quantization_config)".to_string(),
            }),
            "{dtype}"
        );
    }
}

#[test]
fn float_tensors_named_as_quantization_state_are_never_counted_unless_the_format_names_them() {
    // A plain checkpoint with an FP8 scale, or an fp8 one with a scale name a newer writer
    // uses: unknown, naming the tensor, never a parameter.
    let fp8 = format(json!({"quant_method": "fp8"}));
    for (f, name) in [
        (&Format::Plain, "m.down_proj.weight_scale_inv"),
        (&Format::Plain, "m.down_proj.input_scale"),
        (&fp8, "m.experts.gate_up_proj_scales_inv"),
        (&fp8, "m.down_proj.pre_quant_scale"),
        (&w4a16(), "m.o_proj.weight.absmax"),
    ] {
        let tensors = [
            tensor("m.down_proj.weight", "BF16", &[4, 4]),
            tensor(name, "F32", &[2]),
        ];
        assert!(
            matches!(total(&tensors, f), Err(CountError::Unclassified { ref tensor, .. }) if tensor == name),
            "{name} under {f}"
        );
    }
    // Parameters whose names merely hold "scale" stay parameters.
    let tensors = [
        tensor("vision.blocks.0.layer_scale", "F32", &[8]),
        tensor("logit_scale", "F32", &[]),
    ];
    assert_eq!(total(&tensors, &Format::Plain), Ok(9));
}

#[test]
fn reviewed_buffers_are_not_parameters_whatever_their_dtype() {
    let buffers: BTreeSet<String> = [
        "position_ids".to_string(),
        "rotary_emb.inv_freq".to_string(),
    ]
    .into();
    let tensors = [
        tensor("model.embed.position_ids", "I64", &[1, 4096]),
        tensor("model.layers.0.rotary_emb.inv_freq", "F32", &[64]),
        tensor("model.norm.weight", "BF16", &[10]),
    ];
    assert_eq!(
        count_parameters(&tensors, &Format::Plain, &buffers).map(|c| c.total),
        Ok(10)
    );
    // A buffer name matches whole components only.
    let near = [tensor("model.xposition_ids", "I64", &[3])];
    assert!(count_parameters(&near, &Format::Plain, &buffers).is_err());
}

#[test]
fn fp8_scales_are_auxiliary_in_fp8_checkpoints_only() {
    let tensors = [
        tensor("m.down_proj.weight", "F8_E4M3", &[256, 256]),
        tensor("m.down_proj.weight_scale_inv", "F32", &[2, 2]),
    ];
    assert_eq!(
        total(&tensors, &format(json!({"quant_method": "fp8"}))),
        Ok(65_536)
    );
    // In a plain checkpoint nothing is auxiliary, and a scale is no parameter either: unknown.
    assert!(matches!(
        total(&tensors, &Format::Plain),
        Err(CountError::Unclassified { .. })
    ));
}

#[test]
fn mxfp4_blocks_count_twice_and_fit_their_scales() {
    let f = format(json!({"quant_method": "mxfp4"}));
    let tensors = [
        tensor("l.mlp.experts.down_proj_blocks", "U8", &[4, 8, 90, 16]),
        tensor("l.mlp.experts.down_proj_scales", "U8", &[4, 8, 90]),
        tensor("l.mlp.experts.down_proj_bias", "BF16", &[4, 8]),
    ];
    let count = count_parameters(&tensors, &f, &none()).expect("countable");
    assert_eq!(count.total, 4 * 8 * 90 * 16 * 2 + 32);
    assert_eq!(count.routed_experts, count.total);
    let mut wrong = tensors.to_vec();
    wrong[1].shape = vec![4, 8, 45];
    assert!(matches!(total(&wrong, &f), Err(CountError::Misfit { .. })));
    let mut alone = tensors.to_vec();
    alone.remove(1);
    assert!(matches!(total(&alone, &f), Err(CountError::Misfit { .. })));
}

#[test]
fn gptq_and_awq_qweights_unpack_by_their_bits_and_fit_their_scales() {
    // GPTQ: qweight [in × bits / 32, out], scales [in / group, out].
    let gptq = format(json!({"quant_method": "gptq", "bits": 4, "group_size": 128}));
    let tensors = [
        tensor("m.q_proj.qweight", "I32", &[512, 4096]),
        tensor("m.q_proj.qzeros", "I32", &[32, 512]),
        tensor("m.q_proj.scales", "F16", &[32, 4096]),
        tensor("m.q_proj.g_idx", "I32", &[4096]),
        tensor("m.q_proj.bias", "F16", &[4096]),
    ];
    assert_eq!(total(&tensors, &gptq), Ok(4096 * 4096 + 4096));
    let mut misfit = tensors.to_vec();
    misfit[2].shape = vec![32, 4000];
    assert!(matches!(
        total(&misfit, &gptq),
        Err(CountError::Misfit { .. })
    ));
    // AWQ: qweight [in, out × bits / 32], scales [in / group, out].
    let awq = format(json!({"quant_method": "awq", "bits": 4, "group_size": 128}));
    let tensors = [
        tensor("m.q_proj.qweight", "I32", &[4096, 512]),
        tensor("m.q_proj.qzeros", "I32", &[32, 512]),
        tensor("m.q_proj.scales", "F16", &[32, 4096]),
    ];
    assert_eq!(total(&tensors, &awq), Ok(4096 * 4096));
    let mut misfit = tensors.to_vec();
    misfit[2].shape = vec![32, 2048];
    assert!(matches!(
        total(&misfit, &awq),
        Err(CountError::Misfit { .. })
    ));
}

#[test]
fn compressed_tensors_int4_unpacks_weight_packed() {
    let tensors = [
        tensor("m.o_proj.weight_packed", "I32", &[4096, 512]),
        tensor("m.o_proj.weight_scale", "BF16", &[4096, 32]),
        tensor("m.o_proj.weight_shape", "I64", &[2]),
        tensor("lm_head.weight", "BF16", &[10, 4096]),
    ];
    assert_eq!(total(&tensors, &w4a16()), Ok(4096 * 4096 + 40_960));
    // Relabelled dtypes and integer tensors the format does not name are never counted.
    let mut relabelled = tensors.to_vec();
    relabelled[0].dtype = "BF16".to_string();
    assert!(matches!(
        total(&relabelled, &w4a16()),
        Err(CountError::PackedDtype { .. })
    ));
    let mut stray = tensors.to_vec();
    stray.push(tensor("m.o_proj.weight_offsets", "I32", &[4096]));
    assert!(matches!(
        total(&stray, &w4a16()),
        Err(CountError::Unclassified { .. })
    ));
    // A scale with other rows, or groups that do not divide the unpacked columns.
    let mut misfit = tensors.to_vec();
    misfit[1].shape = vec![4095, 32];
    assert!(matches!(
        total(&misfit, &w4a16()),
        Err(CountError::Misfit { .. })
    ));
    misfit[1].shape = vec![4096, 3];
    assert!(matches!(
        total(&misfit, &w4a16()),
        Err(CountError::Misfit { .. })
    ));
}

#[test]
fn modelopt_nvfp4_weights_are_two_values_per_byte_where_marked() {
    let f = format(json!({"quant_method": "modelopt", "quant_algo": "NVFP4", "group_size": 16}));
    let tensors = [
        tensor("m.up_proj.weight", "U8", &[14336, 2048]),
        tensor("m.up_proj.weight_scale", "F8_E4M3", &[14336, 256]),
        tensor("m.up_proj.weight_scale_2", "F32", &[]),
        tensor("m.up_proj.input_scale", "F32", &[]),
        tensor("lm_head.weight", "BF16", &[10, 4096]),
    ];
    assert_eq!(total(&tensors, &f), Ok(14336 * 4096 + 40_960));
    // A float weight beside weight_scale_2 was relabelled; a U8 weight without it is not marked.
    let mut relabelled = tensors.to_vec();
    relabelled[0].dtype = "BF16".to_string();
    assert!(matches!(
        total(&relabelled, &f),
        Err(CountError::PackedDtype { .. })
    ));
    let mut unmarked = tensors.to_vec();
    unmarked.remove(2);
    assert!(matches!(
        total(&unmarked, &f),
        Err(CountError::Misfit { .. })
    ));
}

#[test]
fn bitsandbytes_4bit_weights_are_flattened_pairs_and_their_state_is_auxiliary() {
    let f = format(json!({"quant_method": "bitsandbytes", "load_in_4bit": true,
        "bnb_4bit_quant_type": "nf4", "bnb_4bit_use_double_quant": true}));
    let tensors = [
        tensor("m.up_proj.weight", "U8", &[29_360_128, 1]),
        tensor("m.up_proj.weight.absmax", "U8", &[917_504]),
        tensor("m.up_proj.weight.quant_map", "F32", &[16]),
        tensor("m.up_proj.weight.nested_absmax", "F32", &[3584]),
        tensor("m.up_proj.weight.nested_quant_map", "F32", &[256]),
        tensor(
            "m.up_proj.weight.quant_state.bitsandbytes__nf4",
            "U8",
            &[115],
        ),
        tensor("model.norm.weight", "BF16", &[4096]),
    ];
    assert_eq!(total(&tensors, &f), Ok(14336 * 4096 + 4096));
    let mut unflattened = tensors.to_vec();
    unflattened[0].shape = vec![14336, 2048];
    assert!(matches!(
        total(&unflattened, &f),
        Err(CountError::Misfit { .. })
    ));
}

#[test]
fn an_unknown_format_counts_nothing() {
    let f = format(json!({"quant_method": "hqq", "nbits": 4}));
    let tensors = [tensor("a.weight", "BF16", &[2])];
    assert_eq!(
        total(&tensors, &f),
        Err(CountError::UnknownFormat("hqq".to_string()))
    );
}

#[test]
fn overflow_is_an_error_not_a_wrap() {
    let huge = [tensor("a", "BF16", &[u64::MAX, u64::MAX, u64::MAX])];
    assert!(matches!(
        total(&huge, &Format::Plain),
        Err(CountError::Overflow(_))
    ));
}

#[test]
fn routed_experts_exclude_shared_experts() {
    let tensors = [
        tensor(
            "model.layers.3.mlp.experts.0.gate_proj.weight",
            "BF16",
            &[10],
        ),
        tensor(
            "model.layers.3.mlp.experts.255.up_proj.weight",
            "BF16",
            &[20],
        ),
        tensor(
            "model.layers.3.mlp.shared_experts.gate_proj.weight",
            "BF16",
            &[100],
        ),
        tensor(
            "model.layers.3.mlp.shared_expert.experts.x.weight",
            "BF16",
            &[1000],
        ),
        tensor("model.layers.3.mlp.gate.weight", "BF16", &[10000]),
    ];
    assert_eq!(
        count_parameters(&tensors, &Format::Plain, &none()),
        Ok(ParameterCount {
            total: 11130,
            routed_experts: 30
        })
    );
}

#[test]
fn active_parameters_exact_moe() {
    // 8 experts, 2 per token: 6/8 of the 800 routed parameters are idle.
    let count = ParameterCount {
        total: 1000,
        routed_experts: 800,
    };
    assert_eq!(active_parameters(count, Some(8), Some(2)), Some(400));
    assert_eq!(active_parameters(count, Some(8), Some(8)), Some(1000));
    // 10 × 6 = 60 is not a multiple of 8.
    let odd = ParameterCount {
        total: 1000,
        routed_experts: 10,
    };
    assert_eq!(active_parameters(odd, Some(8), Some(2)), None);
}

#[test]
fn active_parameters_without_experts_is_the_total() {
    let dense = ParameterCount {
        total: 8_030_261_248,
        routed_experts: 0,
    };
    assert_eq!(active_parameters(dense, None, None), Some(8_030_261_248));
    assert_eq!(
        active_parameters(dense, Some(1), Some(1)),
        Some(8_030_261_248)
    );
    assert_eq!(active_parameters(dense, Some(0), None), Some(8_030_261_248));
}

#[test]
fn active_parameters_refuses_incoherent_moe() {
    let no_routed = ParameterCount {
        total: 1000,
        routed_experts: 0,
    };
    assert_eq!(active_parameters(no_routed, Some(8), Some(2)), None);
    let count = ParameterCount {
        total: 1000,
        routed_experts: 800,
    };
    assert_eq!(active_parameters(count, Some(8), None), None);
    assert_eq!(active_parameters(count, Some(8), Some(9)), None);
    let more_routed_than_total = ParameterCount {
        total: 100,
        routed_experts: 800,
    };
    assert_eq!(
        active_parameters(more_routed_than_total, Some(8), Some(2)),
        None
    );
}

proptest! {
    #[test]
    fn count_never_panics(
        shapes in proptest::collection::vec(
            (proptest::collection::vec(any::<u64>(), 0..4), 0usize..6, 0usize..5),
            0..6,
        ),
        bits in 0u64..40,
    ) {
        let dtypes = ["BF16", "U8", "I32", "BOOL", "F8_E4M3", "X"];
        let names = ["w_blocks", "w_scales", "qweight", "scales", "weight_packed"];
        let tensors: Vec<Tensor> = shapes
            .iter()
            .enumerate()
            .map(|(i, (shape, d, n))| tensor(&format!("m.{i}.{}", names[*n]), dtypes[*d], shape))
            .collect();
        for f in [
            Format::Plain,
            format(json!({"quant_method": "mxfp4"})),
            format(json!({"quant_method": "gptq", "bits": bits})),
            w4a16(),
        ] {
            if let Ok(count) = count_parameters(&tensors, &f, &none()) {
                prop_assert!(count.routed_experts <= count.total);
                let _ = active_parameters(count, Some(8), Some(2));
            }
        }
    }
}

fn mlx(q: serde_json::Value) -> Format {
    format_of(&json!({ "quantization": q.clone(), "quantization_config": q }))
}

#[test]
fn mlx_weights_are_packed_exactly_where_their_module_has_scales() {
    let affine4 = mlx(json!({"group_size": 64, "bits": 4}));
    let packed = [
        tensor("m.q_proj.weight", "U32", &[256, 32]),
        tensor("m.q_proj.scales", "BF16", &[256, 4]),
        tensor("m.q_proj.biases", "BF16", &[256, 4]),
        tensor("m.q_proj.bias", "BF16", &[256]),
        tensor("m.norm.weight", "BF16", &[256]),
    ];
    // 256 × 256 unpacked, the float bias and the norm; scales and biases are state.
    assert_eq!(total(&packed, &affine4), Ok(65_536 + 256 + 256));
    // A U32 weight without scales is no rule's; a float weight beside scales is not packed.
    let mut lone = packed.to_vec();
    lone.retain(|t| !t.name.ends_with("scales"));
    assert!(matches!(
        total(&lone, &affine4),
        Err(CountError::Unclassified { ref tensor, .. }) if tensor == "m.q_proj.weight"
    ));
    let mut float = packed.to_vec();
    float[0].dtype = "BF16".to_string();
    assert!(matches!(
        total(&float, &affine4),
        Err(CountError::PackedDtype { .. })
    ));
    // Affine without its biases, a module the config leaves unquantized, and a claim of 8 bits
    // over 4-bit words are misfits, never a count.
    let mut unbiased = packed.to_vec();
    unbiased.retain(|t| !t.name.ends_with("biases"));
    let left_out = mlx(json!({"group_size": 64, "bits": 4, "m.q_proj": false}));
    for (tensors, f) in [
        (&unbiased[..], &affine4),
        (&packed[..], &left_out),
        (&packed[..], &mlx(json!({"group_size": 64, "bits": 8}))),
        (
            &packed[..],
            &mlx(json!({"group_size": 32, "bits": 4, "mode": "mxfp4"})),
        ),
    ] {
        assert!(
            matches!(total(tensors, f), Err(CountError::Misfit { .. })),
            "{f}"
        );
    }
    // A module's own entry wins over the model's: 6 bits here (16/3 values per word).
    let six = mlx(json!({"group_size": 64, "bits": 4, "m.q_proj": {"group_size": 64, "bits": 6}}));
    let mut wide = packed.to_vec();
    wide[0].shape = vec![256, 48];
    assert_eq!(total(&wide, &six), Ok(65_536 + 256 + 256));
    // Only `quantization` (mlx-lm before 2024-09-04) is a declaration too, not plain.
    let old = format_of(&json!({"quantization": {"group_size": 64, "bits": 4}}));
    assert_eq!(total(&packed, &old), Ok(65_536 + 256 + 256));
}

#[test]
fn quark_names_its_state_on_any_module_and_packs_fp4_beside_its_scale() {
    let quark = |dtype: &str| {
        format(
            json!({"quant_method": "quark", "global_quant_config": {"weight":
            {"dtype": dtype, "qscheme": if dtype == "fp4" { "per_group" } else { "per_tensor" },
             "group_size": if dtype == "fp4" { json!(32) } else { json!(null) }}}}),
        )
    };
    let fp8 = [
        tensor("m.k_proj.weight", "F8_E4M3", &[128, 256]),
        tensor("m.k_proj.weight_scale", "F32", &[]),
        tensor("m.k_proj.input_scale", "F32", &[]),
        tensor("m.k_proj.output_scale", "F32", &[]),
        tensor("m.o_proj.output_scale", "F32", &[]),
        tensor("m.self_attn.prob_output_scale", "F32", &[]),
        tensor("m.o_proj.input_rotation", "I8", &[64, 64]),
    ];
    assert_eq!(total(&fp8, &quark("fp8_e4m3")), Ok(32_768));
    let fp4 = [
        tensor("m.up_proj.weight", "U8", &[512, 128]),
        tensor("m.up_proj.weight_scale", "U8", &[512, 8]),
        tensor("lm_head.weight", "BF16", &[8, 256]),
    ];
    assert_eq!(total(&fp4, &quark("fp4")), Ok(131_072 + 2_048));
    assert!(
        total(&fp4[..1], &quark("fp4")).is_err(),
        "no scale marks it"
    );
    // Element types not in the table yet, and FP4 beside FP8 layers: unknown, not guessed.
    for q in [
        json!({"quant_method": "quark", "global_quant_config": {"weight": {"dtype": "int4", "qscheme": "per_group"}}}),
        json!({"quant_method": "quark", "global_quant_config": {"weight": {"dtype": "fp4", "qscheme": "per_group", "group_size": 32}},
               "layer_quant_config": {"*self_attn*": {"weight": {"dtype": "fp8_e4m3", "qscheme": "per_tensor"}}}}),
        json!({"quant_method": "quark", "global_quant_config": {"weight": [{"dtype": "fp8_e4m3"}, {"dtype": "fp4"}]}}),
    ] {
        assert!(matches!(format(q.clone()), Format::Unknown(_)), "{q}");
    }
}

#[test]
fn kv_and_output_scales_the_loaders_map_are_state() {
    // Quark's FP8-KV export under quant_method fp8 (custom_mode fp8) or as Quark writes it:
    // `k_proj.output_scale` is never a parameter (the issue counted it: total +64).
    let tensors = [
        tensor("m.k_proj.weight", "F8_E4M3", &[128, 256]),
        tensor("m.k_proj.output_scale", "F32", &[]),
        tensor("m.attn.prob_output_scale", "F32", &[]),
        tensor("m.attn.kv_scale", "F32", &[]),
    ];
    assert_eq!(
        total(&tensors, &format(json!({"quant_method": "fp8"}))),
        Ok(32_768)
    );
    for name in [
        "m.k_proj.output_scale",
        "m.o_proj.biases",
        "m.o_proj.bias_zero_point",
    ] {
        let plain = [tensor("m.weight", "BF16", &[4]), tensor(name, "F32", &[1])];
        assert!(
            matches!(
                total(&plain, &Format::Plain),
                Err(CountError::Unclassified { .. })
            ),
            "{name}"
        );
    }
}

#[test]
fn the_bit_width_is_the_tensors_checked_against_the_claim() {
    let widths = |exact: &[(u32, u128)], at_most: &[(u32, u128)]| Widths {
        exact: exact.iter().copied().collect(),
        at_most: at_most.iter().copied().collect(),
    };
    assert_eq!(widths(&[(4, 100)], &[]).checked(Some(4)), Ok(4));
    assert!(widths(&[(4, 100)], &[]).checked(Some(8)).is_err());
    assert_eq!(widths(&[(4, 100)], &[]).checked(None), Ok(4));
    // Most parameters decide (a mixed recipe); ties go to the smaller width.
    assert_eq!(widths(&[(4, 100), (6, 40)], &[]).checked(Some(4)), Ok(4));
    assert_eq!(widths(&[(4, 50), (8, 50)], &[]).checked(None), Ok(4));
    // One value per I8 element holds at most 8 bits: the claim says how many.
    assert_eq!(widths(&[], &[(8, 10)]).checked(Some(4)), Ok(4));
    assert!(widths(&[], &[(8, 10)]).checked(None).is_err());
    assert!(
        widths(&[], &[]).checked(Some(8)).is_err(),
        "no quantized tensors"
    );
}
