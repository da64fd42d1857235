//! The contract: the field table behind `/api/v1/about` and the OpenAPI schemas.

/// The `/api/v1/about` body.
pub fn about_json(base_url: &str, supply_enabled: bool) -> Vec<u8> {
    let _ = (base_url, supply_enabled);
    b"{}".to_vec()
}

/// The `/api/openapi.json` body.
pub fn openapi_json(base_url: &str) -> Vec<u8> {
    let _ = base_url;
    b"{}".to_vec()
}
