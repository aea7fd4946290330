import Foundation

/// The API's OpenAPI 3.1 document (`Resources/openapi.yaml`), served at `/openapi.yaml`.
enum OpenAPIDocument {
    static let text: String = {
        guard let url = Bundle.module.url(forResource: "openapi", withExtension: "yaml", subdirectory: "Resources"),
              let text = try? String(contentsOf: url, encoding: .utf8)
        else { return "openapi: 3.1.0\ninfo: {title: FareLens API, version: '1'}\npaths: {}\n" }
        return text
    }()
}
