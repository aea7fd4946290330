/// A configuration value that cannot be used, naming its key.
public struct ConfigurationError: Error, Sendable, CustomStringConvertible {
    /// The configuration key at fault, e.g. `bus.deadlineMs`.
    public let key: String
    /// A one-line reason.
    public let message: String

    public static func invalid(key: String, value: String, expected: String) -> ConfigurationError {
        ConfigurationError(key: key, message: "invalid value '\(value)' for '\(key)': expected \(expected)")
    }
    /// A key missing or at odds with another; `message` says which and why.
    public static func required(key: String, _ message: String) -> ConfigurationError {
        ConfigurationError(key: key, message: message)
    }
    public static func unreadable(file: String, reason: String) -> ConfigurationError {
        ConfigurationError(key: "config", message: "cannot read config file '\(file)': \(reason)")
    }
    /// Keys the node does not know, refused because `strictConfig` is set: one line naming each.
    public static func unknown(_ keys: [UnknownConfigKey]) -> ConfigurationError {
        ConfigurationError(
            key: keys.first?.name ?? "strictConfig",
            message: "strictConfig (--strict-config) refuses keys the node does not know: "
                + (keys.count == 1 ? keys[0].description : keys.enumerated().map { "(\($0.offset + 1)) \($0.element)" }.joined(separator: " ")))
    }
    public var description: String { message }
}
