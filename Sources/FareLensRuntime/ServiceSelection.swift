public import FareLensServiceKit
import Foundation

/// Parses `--services all|search,scoring,…` against the known services.
public enum ServiceSelection {
    /// The descriptors named by `spec`, in catalog order.
    ///
    /// - Throws: ``ConfigurationError`` naming an unknown service, or when
    ///   nothing is selected.
    public static func select(_ spec: String, from catalog: [ServiceDescriptor]) throws(ConfigurationError) -> [ServiceDescriptor] {
        let names = spec.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty }
        let known = catalog.map(\.name)
        guard !names.isEmpty else {
            throw .invalid(key: "services", value: spec, expected: "'all' or a comma-separated list of \(known.joined(separator: ", "))")
        }
        if names == ["all"] { return catalog }
        for name in names where !known.contains(name) {
            throw .invalid(key: "services", value: name, expected: "one of all, \(known.joined(separator: ", "))")
        }
        return catalog.filter { names.contains($0.name) }
    }
}
