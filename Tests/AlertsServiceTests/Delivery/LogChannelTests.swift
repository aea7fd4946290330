@testable import AlertsService
import FareLensTesting
import Foundation
import Logging
import Testing

@Suite("Log channel")
struct LogChannelTests {
    let clock = Locked(Date(timeIntervalSince1970: 1_767_225_600))

    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("farelens-log-channel-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    func channel(path: String?, logs: CapturedLogs = CapturedLogs()) -> LogChannel {
        LogChannel(path: path, logger: logs.logger("alerts"), now: { [clock] in clock.get() })
    }

    @Test("appends one JSON object per line, the payload embedded as JSON, creating the file and directory")
    func appendsLines() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("nested/alerts.jsonl").path
        let channel = channel(path: path)
        let pretty = "{\n  \"type\": \"alert.price_drop\",\n  \"data\": {\"title\": \"LHR→JFK \\\"now\\\"\\nline\"}\n}"
        #expect(await channel.deliver(DeliveryFixtures.alert()) == .delivered)
        #expect(await channel.deliver(DeliveryFixtures.alert(id: "alert_2", attempt: 3, body: pretty)) == .delivered)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.hasSuffix("\n"))
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        try #require(lines.count == 2)
        let first = try #require(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
        #expect(first["alert_id"] as? String == DeliveryFixtures.exampleID)
        #expect(first["user_id"] as? String == "user-1")
        #expect(first["kind"] as? String == "price_drop")
        #expect(first["attempt"] as? Int == 1)
        #expect(first["logged_at"] as? String == "2026-01-01T00:00:00Z")
        let payload = try #require(first["payload"] as? [String: Any])
        #expect(payload["type"] as? String == "alert.price_drop")
        #expect(lines[0].hasSuffix(",\"payload\":\(DeliveryFixtures.exampleBody)}"))
        let second = try #require(try JSONSerialization.jsonObject(with: Data(lines[1].utf8)) as? [String: Any])
        #expect(second["attempt"] as? Int == 3)
        let data = try #require((second["payload"] as? [String: Any])?["data"] as? [String: Any])
        #expect(data["title"] as? String == "LHR→JFK \"now\"\nline")
    }

    @Test("concurrent deliveries never interleave lines")
    func concurrentLines() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("alerts.jsonl").path
        let channel = channel(path: path)
        let big = "{\"padding\":\"" + String(repeating: "x", count: 20_000) + "\"}"
        let outcomes = try await withTimeLimit("200 lines written") {
            await withTaskGroup(of: DeliveryOutcome.self) { group in
                for index in 0 ..< 200 { group.addTask { await channel.deliver(DeliveryFixtures.alert(id: "alert_\(index)", body: big)) } }
                return await group.reduce(into: []) { $0.append($1) }
            }
        }
        #expect(outcomes.allSatisfy { $0 == .delivered })
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 200)
        let ids = Set(lines.compactMap { line in (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["alert_id"] as? String })
        #expect(ids.count == 200)
    }

    @Test("a path that cannot be written (under a file) is a retry naming the reason, and nothing crashes")
    func unwritable() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("file.txt")
        try Data("x".utf8).write(to: file)
        for path in [file.appendingPathComponent("alerts.jsonl").path, file.appendingPathComponent("deeper/alerts.jsonl").path, directory.path] {
            let outcome = await channel(path: path).deliver(DeliveryFixtures.alert())
            #expect(outcome.isRetry, "\(path): \(outcome)")
            #expect(outcome.reason?.contains(path.hasSuffix("deeper/alerts.jsonl") ? "cannot create" : "cannot open") == true, "\(outcome)")
            #expect(outcome.reason?.contains("\n") == false)
        }
    }

    @Test("a full disk (/dev/full) is a retry")
    func fullDisk() async throws {
        try #require(FileManager.default.fileExists(atPath: "/dev/full"))
        let outcome = await channel(path: "/dev/full").deliver(DeliveryFixtures.alert())
        #expect(outcome == .retry(reason: "cannot write /dev/full: No space left on device", retryAfter: nil))
    }

    @Test("a body that is not JSON fails at once")
    func notJSON() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let outcome = await channel(path: directory.appendingPathComponent("a.jsonl").path).deliver(DeliveryFixtures.alert(body: "{oops"))
        if case .failed = outcome {} else { Issue.record("expected failed, got \(outcome)") }
    }

    @Test("without a path the line goes to the logger at info")
    func toLogger() async throws {
        let logs = CapturedLogs()
        #expect(await channel(path: nil, logs: logs).deliver(DeliveryFixtures.alert()) == .delivered)
        let entry = try #require(logs.entries.first)
        #expect(entry.level == .info)
        #expect(entry.metadata["alert_id"]?.description == DeliveryFixtures.exampleID)
        let line = try #require(try JSONSerialization.jsonObject(with: Data(entry.message.utf8)) as? [String: Any])
        #expect(line["kind"] as? String == "price_drop")
        #expect(!entry.message.contains("\n"))
    }
}
