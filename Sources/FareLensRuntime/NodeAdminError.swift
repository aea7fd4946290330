public import FareLensBus
import FareLensServiceKit

/// What a node's admin address (`admin.node.<name>`) answers when it cannot
/// do what was asked: a stable code (the `remote_code` callers see, listed in
/// `Protos/node_admin.proto`) and a message naming the value at fault.
public struct NodeAdminError: ServiceError, Equatable, CustomStringConvertible {
    private enum Kind: Equatable, Sendable {
        case invalidLevel
        case relativePath
        case targetNotEmpty
        case unknownDatabase
        case backupFailed
        case clockNotStepped
    }

    private let kind: Kind
    public let message: String

    private init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var code: String {
        switch kind {
        case .invalidLevel: "invalid-level"
        case .relativePath: "relative-path"
        case .targetNotEmpty: "target-not-empty"
        case .unknownDatabase: "unknown-database"
        case .backupFailed: "backup-failed"
        case .clockNotStepped: "clock-not-stepped"
        }
    }

    public var description: String { "\(code): \(message)" }

    /// `level` is not one of swift-log's levels.
    static func invalidLevel(_ level: String) -> NodeAdminError {
        .init(.invalidLevel, "'\(level)' is not a log level; valid: \(LogLevelControl.validNames.joined(separator: ", "))")
    }

    /// The backup directory is not absolute.
    static func relativePath(_ path: String) -> NodeAdminError {
        .init(.relativePath, "backup directory '\(path)' is relative; give an absolute path on the node's machine")
    }

    /// The backup file exists and is not empty (an earlier backup, perhaps
    /// one whose caller stopped waiting, completed there).
    static func targetNotEmpty(_ path: String, bytes: UInt64) -> NodeAdminError {
        .init(.targetNotEmpty, "backup target '\(path)' already exists (\(bytes) bytes, a complete backup); choose another directory")
    }

    /// An earlier backup request is still writing this file.
    static func targetBeingWritten(_ path: String) -> NodeAdminError {
        .init(.targetNotEmpty, "backup target '\(path)' is still being written by an earlier backup request; wait, or choose another directory")
    }

    /// No database of that name on this node.
    static func unknownDatabase(_ service: String, node: String, known: [String]) -> NodeAdminError {
        .init(.unknownDatabase, "node \(node) has no database '\(service)'; it has: \(known.joined(separator: ", "))")
    }

    /// The backup could not be written.
    static func backupFailed(_ path: String, _ reason: String) -> NodeAdminError {
        .init(.backupFailed, "backup to '\(path)' failed: \(reason)")
    }

    /// Only a stepped clock can be advanced.
    static func clockNotStepped(node: String, kind: String) -> NodeAdminError {
        .init(.clockNotStepped, "node \(node)'s clock is \(kind), not stepped: only `farelens serve --demo --demo-clock stepped` can be advanced")
    }
}
