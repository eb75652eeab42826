// The OpenAPI 3.1 document of every endpoint `hearth serve` answers lives next to this file, in openapi.json: edit
// it as a document. SwiftPM embeds it in the binary at build time (`resources: [.embedInCode(…)]` in Package.swift),
// so `hearth` stays one file to deploy. `OpenAPIRouteTests` fails, naming the route, when the document, the RPC
// catalog and the router disagree, and decodes every documented example into its HearthWire type.

/// The OpenAPI 3.1 description of every HTTP endpoint, served at `GET /openapi.json`.
public enum OpenAPIDocument {
    /// The document's bytes, as embedded at build time.
    public static var bytes: [UInt8] { PackageResources.openapi_json }

    /// The document's JSON text.
    public static let json = String(decoding: PackageResources.openapi_json, as: UTF8.self)
}
