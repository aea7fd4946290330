import FareLensBus

/// The trace of the HTTP request being served: from its W3C `traceparent`
/// header when it has a valid one, so a client's trace continues into the
/// bus (every service's logs and the wire envelope carry it); a new one otherwise.
enum RequestTrace {
    @TaskLocal static var current: TraceID?

    /// The trace id of a `traceparent` value (`00-<32 hex>-<16 hex>-<2 hex>`), nil if malformed or all zeros.
    static func traceID(fromTraceparent header: String) -> TraceID? {
        let parts = header.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0].count == 2, parts[0] != "ff", parts[1].count == 32, parts[2].count == 16, parts[3].count == 2,
              parts[1].allSatisfy({ $0.isHexDigit && !$0.isUppercase }), parts[2].allSatisfy({ $0.isHexDigit && !$0.isUppercase }),
              parts[1] != String(repeating: "0", count: 32), parts[2] != String(repeating: "0", count: 16)
        else { return nil }
        return TraceID(hex: String(parts[1]))
    }
}
