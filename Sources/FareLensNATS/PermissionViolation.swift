import Foundation

/// The server's report that this connection's user may not publish or
/// subscribe to a subject, as libnats passes it on:
/// `Permissions Violation for Publish to "ns.req.admin.x"` (or `for
/// Subscription to "…"`), possibly with a prefix and quotes around it.
struct PermissionViolation: Equatable {
    let subject: String
    let isPublish: Bool

    init(subject: String, isPublish: Bool) {
        self.subject = subject
        self.isPublish = isPublish
    }

    /// Nil when `text` is not a permissions violation naming a subject.
    init?(_ text: String) {
        let lowered = text.lowercased()
        guard let marker = lowered.range(of: "permissions violation for ") else { return nil }
        let rest = lowered[marker.upperBound...]
        let isPublish = rest.hasPrefix("publish")
        guard isPublish || rest.hasPrefix("subscription") else { return nil }
        // The subject is the first double-quoted word after the marker, in the original case.
        let original = text[text.index(text.startIndex, offsetBy: lowered.distance(from: lowered.startIndex, to: marker.upperBound))...]
        guard let open = original.firstIndex(of: "\""), let close = original[original.index(after: open)...].firstIndex(of: "\"") else { return nil }
        let subject = String(original[original.index(after: open)..<close])
        guard !subject.isEmpty else { return nil }
        self.subject = subject
        self.isPublish = isPublish
    }
}
