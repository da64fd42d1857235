//! MLX quantization as mlx-lm writes it (pinned in docs/decisions.md): the model's mode, group
//! size and bits with the per-module entries beside them, read from `quantization_config` or
//! the older bare `quantization`.

use serde_json::{Map, Value};

/// An MLX quantization: `mode` (`affine` unless written), `group_size` and `bits` of the whole
/// model, and the per-module entries mlx-lm writes beside them (module path → its own, or
/// `None` for a module written `false`: left unquantized).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mlx {
    /// The model's quantization.
    pub global: MlxQuant,
    /// Per-module entries, by module path.
    pub modules: std::collections::BTreeMap<String, Option<MlxQuant>>,
}

/// One MLX quantization: mode, group size and bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MlxQuant {
    /// `affine`, `mxfp4`, `nvfp4` or `mxfp8`.
    pub mode: MlxMode,
    /// Values per scale.
    pub group_size: u64,
    /// Bits per value.
    pub bits: u64,
}

/// The modes of MLX quantization (mlx `ops.cpp`: `affine_quantize`, `fp_quantize`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MlxMode {
    /// Float `scales` and `biases` of the weight's dtype; bits 2, 3, 4, 5, 6, 8.
    Affine,
    /// U8 E8M0 `scales`, group 32, 4 bits, no biases.
    Mxfp4,
    /// U8 E4M3 `scales`, group 16, 4 bits, no biases.
    Nvfp4,
    /// U8 E8M0 `scales`, group 32, 8 bits, no biases.
    Mxfp8,
}

impl MlxMode {
    /// The mode's name as mlx-lm writes it.
    pub fn name(self) -> &'static str {
        match self {
            MlxMode::Affine => "affine",
            MlxMode::Mxfp4 => "mxfp4",
            MlxMode::Nvfp4 => "nvfp4",
            MlxMode::Mxfp8 => "mxfp8",
        }
    }

    /// The only group size and bits of a float mode (`None` for affine).
    pub fn fixed(self) -> Option<(u64, u64)> {
        match self {
            MlxMode::Affine => None,
            MlxMode::Mxfp4 => Some((32, 4)),
            MlxMode::Nvfp4 => Some((16, 4)),
            MlxMode::Mxfp8 => Some((32, 8)),
        }
    }
}

impl Mlx {
    /// The quantization the configuration gives the module `path`: its own entry, else the
    /// model's; `None` where the entry is `false`.
    pub fn of_module(&self, path: &str) -> Option<MlxQuant> {
        match self.modules.get(path) {
            Some(own) => *own,
            None => Some(self.global),
        }
    }

    /// The format's name for the smallest quantization (`mlx-affine`, `mlx-mxfp4`, ...).
    pub fn name(&self) -> String {
        format!("mlx-{}", self.global.mode.name())
    }
}

/// Whether a quantization object is mlx-lm's: integer `group_size` and `bits`, no `quant_method`.
pub(super) fn is_mlx(q: &Map<String, Value>) -> bool {
    !q.contains_key("quant_method")
        && q.get("group_size").is_some_and(Value::is_u64)
        && q.get("bits").is_some_and(Value::is_u64)
}

fn mlx_quant(q: &Map<String, Value>) -> Result<MlxQuant, String> {
    let mode = match q.get("mode").map(Value::as_str) {
        None | Some(Some("affine")) => MlxMode::Affine,
        Some(Some("mxfp4")) => MlxMode::Mxfp4,
        Some(Some("nvfp4")) => MlxMode::Nvfp4,
        Some(Some("mxfp8")) => MlxMode::Mxfp8,
        Some(other) => return Err(format!("mlx mode {other:?}")),
    };
    let (Some(group_size), Some(bits)) = (
        q.get("group_size").and_then(Value::as_u64),
        q.get("bits").and_then(Value::as_u64),
    ) else {
        return Err("mlx quantization without integer group_size and bits".to_string());
    };
    // mlx ops.cpp validate_mode_with_type / affine_quantize: the writer's only choices.
    let valid = match mode.fixed() {
        Some(fixed) => fixed == (group_size, bits),
        None => [2, 3, 4, 5, 6, 8].contains(&bits) && [32, 64, 128].contains(&group_size),
    };
    if !valid {
        return Err(format!(
            "mlx {} of {bits} bits in groups of {group_size}",
            mode.name()
        ));
    }
    Ok(MlxQuant {
        mode,
        group_size,
        bits,
    })
}

/// An MLX quantization object: the model's quantization and the per-module entries (an
/// object or `false`) mlx-lm writes in the same object.
pub(super) fn mlx(q: &Map<String, Value>) -> Result<Mlx, String> {
    let global = mlx_quant(q)?;
    let mut modules = std::collections::BTreeMap::new();
    for (key, value) in q {
        match (key.as_str(), value) {
            ("group_size" | "bits" | "mode", _) => {}
            (_, Value::Object(own)) => {
                modules.insert(key.clone(), Some(mlx_quant(own)?));
            }
            (_, Value::Bool(false)) => {
                modules.insert(key.clone(), None);
            }
            (_, other) => return Err(format!("mlx quantization entry {key:?}: {other}")),
        }
    }
    Ok(Mlx { global, modules })
}
