@testable import farelensctl

/// What farelensctl prints for `parsing`'s error, or "" when it parses.
func parseRefusal(_ parsing: () throws -> some Any) -> String {
    do {
        _ = try parsing()
        return ""
    } catch {
        return FareLensCtl.message(for: error)
    }
}
