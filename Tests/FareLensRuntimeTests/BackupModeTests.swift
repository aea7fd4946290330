import FareLensBus
import FareLensMessages
import FareLensRuntime
import FareLensServiceKit
import FareLensTesting
import Foundation
import Testing

/// A backup holds what the database holds (emails, password hashes): it is
/// the owner's only, as the databases are (issue #63).
@Suite("Node backups: owner only")
struct BackupModeTests {
    @Test("a backup is written with mode 0600 in a directory of mode 0700, whatever the process's umask allowed (it was 0644)")
    func ownerOnly() async throws {
        let hub = try await AdminTestNode.start()
        let directory = hub.socket.replacingOccurrences(of: "/bus.sock", with: "/backup")
        let backup = try await withPeer(hub.socket, reaching: .node("hub")) { bus in
            var request = NodeBackupRequest()
            request.directory = directory
            request.service = "writer"
            return try await bus.request(request, to: .node("hub"))
        }
        try await hub.stop()
        let file = try FileManager.default.attributesOfItem(atPath: backup.path)
        let folder = try FileManager.default.attributesOfItem(atPath: directory + "/hub")
        #expect((file[.posixPermissions] as? Int).map { String($0, radix: 8) } == "600")
        #expect((folder[.posixPermissions] as? Int).map { String($0, radix: 8) } == "700")
    }
}
