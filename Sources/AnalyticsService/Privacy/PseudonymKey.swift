public import Foundation

/// One versioned pseudonym key (configuration `analytics.pseudonymKeys`, or
/// the generated key, version 0). Its secret never appears in a description.
public struct PseudonymKey: Sendable, Equatable, CustomStringConvertible {
    /// Keys shorter than this are refused (256 bits, HMAC-SHA256's block-sized strength).
    public static let minimumBytes = 32
    /// The version written into every pseudonym made with it (`p{version}:…`).
    public let version: Int
    let secret: Data

    /// A key; `secret` should be at least ``minimumBytes`` random bytes.
    public init(version: Int, secret: Data) {
        self.version = version
        self.secret = secret
    }

    public var description: String { "pseudonym key v\(version) (\(secret.count) bytes)" }
}
