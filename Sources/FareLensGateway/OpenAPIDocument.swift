import Foundation

/// The API's OpenAPI 3.1 document (`Resources/openapi.yaml`), served at
/// `/openapi.yaml`; nil only if the bundle lost it (the route then answers 500).
enum OpenAPIDocument {
    static let text: String? = Bundle.module.url(forResource: "openapi", withExtension: "yaml", subdirectory: "Resources")
        .flatMap { try? String(contentsOf: $0, encoding: .utf8) }
}
