/// Why a bridge connection was refused or closed. Each case names what was
/// wrong and, where there is one, the limit it broke; the connection that
/// caused it is closed and every other connection is unaffected.
public struct WireProtocolError: Error, Hashable, Sendable, CustomStringConvertible {
    fileprivate enum Code: String, Hashable, Sendable {
        case frameTooLarge = "frame-too-large"
        case emptyFrame = "empty-frame"
        case unknownFlags = "unknown-flags"
        case inflatedTooLarge = "inflated-too-large"
        case corruptCompression = "corrupt-compression"
        case malformedEnvelope = "malformed-envelope"
        case unexpectedMessage = "unexpected-message"
        case unsupportedVersion = "unsupported-version"
        case peerNotAllowed = "peer-not-allowed"
        case duplicateNode = "duplicate-node"
        case socketUnavailable = "socket-unavailable"
        case slowConsumer = "slow-consumer"
    }

    private let code: Code
    /// One line naming the fault and the limit, for logs and CLI output.
    public let message: String

    private init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The stable name of the fault, e.g. `frame-too-large`.
    public var codeName: String { code.rawValue }
    public var description: String { "\(code.rawValue): \(message)" }

    /// A length prefix above the configured frame cap.
    public static func frameTooLarge(_ length: Int, cap: Int) -> Self {
        Self(.frameTooLarge, "frame of \(length) bytes exceeds the cap of \(cap) bytes")
    }
    /// A length prefix of 0: not even a flags byte follows.
    public static let emptyFrame = Self(.emptyFrame, "frame length 0 (a frame carries at least its flags byte)")
    /// Flag bits this version does not define.
    public static func unknownFlags(_ flags: UInt8) -> Self {
        Self(.unknownFlags, "flags byte 0x\(String(flags, radix: 16)) sets bits this protocol version does not define")
    }
    /// A compressed payload that inflates beyond the configured cap.
    public static func inflatedTooLarge(cap: Int) -> Self {
        Self(.inflatedTooLarge, "compressed payload inflates beyond the cap of \(cap) bytes")
    }
    /// A payload flagged as zlib that is not a valid zlib stream.
    public static let corruptCompression = Self(.corruptCompression, "payload flagged zlib is not a valid zlib stream")
    /// A payload that is not a protobuf Envelope, or lacks a required field.
    public static func malformedEnvelope(_ reason: String) -> Self {
        Self(.malformedEnvelope, "malformed envelope: \(reason)")
    }
    /// A well-formed envelope that is not allowed at this point (e.g. a request before the hello).
    public static func unexpectedMessage(_ reason: String) -> Self {
        Self(.unexpectedMessage, reason)
    }
    /// A hello with a protocol version this node does not speak.
    public static func unsupportedVersion(_ version: UInt32, supported: UInt32) -> Self {
        Self(.unsupportedVersion, "peer speaks protocol version \(version); this node speaks \(supported)")
    }
    /// A peer whose uid is not in the allow-list.
    public static func peerNotAllowed(uid: UInt32) -> Self {
        Self(.peerNotAllowed, "peer uid \(uid) is not in the allow-list")
    }
    /// A hello with `role: ADMIN` from a uid not in `bridge.adminUids`.
    public static func peerNotAdmin(uid: UInt32) -> Self {
        Self(.peerNotAllowed, "peer uid \(uid) may not join as an admin client: it is not in bridge.adminUids")
    }
    /// A node name already connected.
    public static func duplicateNode(_ name: String) -> Self {
        Self(.duplicateNode, "a node named '\(name)' is already connected")
    }
    /// A peer that has left more than the cap of bytes sent to it unread.
    public static func slowConsumer(unwritten: Int, cap: Int) -> Self {
        Self(.slowConsumer, "the peer has not read \(unwritten) bytes sent to it (cap \(cap) bytes)")
    }
    /// The socket path cannot be reached or bound.
    public static func socketUnavailable(_ path: String, reason: String) -> Self {
        Self(.socketUnavailable, "socket \(path): \(reason)")
    }
}
