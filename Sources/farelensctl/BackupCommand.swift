import ArgumentParser
import FareLensMessages
import FareLensWire
import Foundation

/// `farelensctl backup DIR`: online backup of every service database.
struct BackupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Back up every service's SQLite database on every node (or one), online, into DIR/<node>/<service>.sqlite.",
        discussion: """
            DIR is an absolute path on each node's machine (a relative path is refused with relative-path); \
            an existing non-empty backup file is refused with target-not-empty. One request per database, \
            so progress is printed as each one ends; give a larger --timeout-ms for large databases. \
            Restoring is offline: see docs/operations.md ("Backup and restore").

            Example: farelensctl backup /var/backups/farelens/2026-11-23 --timeout-ms 60000
            """
    )

    @Argument(help: "Absolute directory on the node's machine; created if missing.") var directory: String
    @Option(name: .long, help: "Only this node (a name `farelensctl status` shows).") var node: String?
    @OptionGroup var options: ConnectionOptions

    func run() async throws {
        let node = self.node, directory = self.directory, json = options.json
        let files = try await CtlRun.session(options) { session in
            var plan: [(node: String, service: String)] = []
            for name in try await NodeTargets.resolve(node, in: session) {
                let databases = try await session.request(NodeDatabasesRequest(), node: name)
                plan += databases.services.map { (name, $0) }
            }
            var files: [BackupJSON] = []
            for (index, entry) in plan.enumerated() {
                if !json { Self.say("backing up \(entry.node)/\(entry.service) (\(index + 1)/\(plan.count))… ") }
                var request = NodeBackupRequest()
                request.directory = directory
                request.service = entry.service
                let response = try await session.request(request, node: entry.node)
                if !json { Self.say(Self.size(response.bytes) + "\n") }
                files.append(BackupJSON(node: entry.node, service: entry.service, path: response.path, bytes: response.bytes))
            }
            return files
        }
        if json {
            try CtlRun.printJSON(["files": files])
        } else {
            print("backed up \(files.count) databases, \(Self.size(files.reduce(0) { $0 + $1.bytes })) in all")
        }
    }

    /// Progress, written at once; a reader that has gone does not stop the backup.
    private static func say(_ text: String) {
        try? StandardStreams.writeOutput(text)
    }

    static func size(_ bytes: UInt64) -> String {
        let value = Double(bytes)
        if value >= 1_000_000 { return String(format: "%.1f MB", value / 1_000_000) }
        if value >= 1000 { return String(format: "%.1f kB", value / 1000) }
        return "\(bytes) B"
    }
}

struct BackupJSON: Encodable, Sendable {
    let node: String
    let service: String
    let path: String
    let bytes: UInt64
}
