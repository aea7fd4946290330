import Foundation

extension PrintedJSON {
    /// Whether `needle`'s bytes occur in `text`'s: a byte search over JSON
    /// text (a user id in an event's payload, `null` in a request's body).
    /// Foundation's `contains` compared Unicode text through `NSString` (1.6%
    /// of a cached search's CPU) and the standard library's generic
    /// `firstRange(of:)` was slower still (11%). (The C library's `memmem` is
    /// a GNU extension Swift's Glibc module does not export.) An empty
    /// needle occurs everywhere.
    package static func occurs(_ needle: UnsafeBufferPointer<UInt8>, in text: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = needle.first else { return true }
        guard text.count >= needle.count else { return false }
        for start in 0...(text.count - needle.count) where text[start] == first {
            if memcmp(text.baseAddress! + start, needle.baseAddress!, needle.count) == 0 { return true }
        }
        return false
    }
}
