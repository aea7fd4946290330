import FareLensRuntime
import FareLensServiceKit
import Foundation
import Testing

@Suite("Node configuration: flags, environment, file, defaults")
struct NodeConfigurationTests {
    static func jsonFile(_ text: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("farelens-\(UUID().uuidString).json").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test("With nothing given, every value is its documented default")
    func defaults() async throws {
        let configuration = try await NodeConfiguration.load(flags: [:], configFile: nil, environment: [:])
        #expect(configuration.dataDirectory == "./data")
        #expect(configuration.services == "all")
        #expect(configuration.logLevel == .info)
        #expect(configuration.defaultDeadline == .seconds(5))
    }

    @Test("A flag beats the environment, which beats the config file")
    func precedence() async throws {
        let file = try Self.jsonFile(#"{"dataDir": "/from/file", "logLevel": "debug", "nodeName": "file-node", "bus": {"deadlineMs": 750}}"#)
        let environment = ["FARELENS_DATA_DIR": "/from/env", "FARELENS_LOG_LEVEL": "warning"]
        let configuration = try await NodeConfiguration.load(flags: ["dataDir": "/from/flag"], configFile: file, environment: environment)
        #expect(configuration.dataDirectory == "/from/flag")
        #expect(configuration.logLevel == .warning)
        #expect(configuration.nodeName == "file-node")
        #expect(configuration.defaultDeadline == .milliseconds(750))
    }

    @Test("Nested keys map to FARELENS_ environment variables in upper snake case")
    func environmentNames() async throws {
        let environment = ["FARELENS_BUS_DEADLINE_MS": "1200", "FARELENS_BUS_MAX_IN_FLIGHT": "7", "FARELENS_SERVICES": "search"]
        let configuration = try await NodeConfiguration.load(flags: [:], configFile: nil, environment: environment)
        #expect(configuration.defaultDeadline == .milliseconds(1200))
        #expect(configuration.maxInFlightPerService == 7)
        #expect(configuration.services == "search")
    }

    @Test("bridge.maxUnwrittenBytes defaults to 64 MiB and is read from FARELENS_BRIDGE_MAX_UNWRITTEN_BYTES")
    func maxUnwrittenBytes() async throws {
        #expect(try await NodeConfiguration.load(flags: [:], configFile: nil, environment: [:]).maxUnwrittenBytes == 64 << 20)
        let configuration = try await NodeConfiguration.load(flags: [:], configFile: nil, environment: ["FARELENS_BRIDGE_MAX_UNWRITTEN_BYTES": "1048576"])
        #expect(configuration.maxUnwrittenBytes == 1_048_576)
    }

    @Test("bridge.durableBacklog defaults to 100000 and is read from FARELENS_BRIDGE_DURABLE_BACKLOG")
    func durableBacklog() async throws {
        #expect(try await NodeConfiguration.load(flags: [:], configFile: nil, environment: [:]).durableBacklog == 100_000)
        let configuration = try await NodeConfiguration.load(flags: [:], configFile: nil, environment: ["FARELENS_BRIDGE_DURABLE_BACKLOG": "250"])
        #expect(configuration.durableBacklog == 250)
        await #expect { try await NodeConfiguration.load(flags: [:], configFile: nil, environment: ["FARELENS_BRIDGE_DURABLE_BACKLOG": "0"]) }
            throws: { ($0 as? ConfigurationError)?.key == "bridge.durableBacklog" }
    }

    @Test("bridge.durableBacklog above the bus's redelivery window (131072) is refused: a redelivery could then go unrecognised")
    func durableBacklogWithinRedeliveryWindow() async throws {
        let atWindow = try await NodeConfiguration.load(flags: [:], configFile: nil, environment: ["FARELENS_BRIDGE_DURABLE_BACKLOG": "131072"])
        #expect(atWindow.durableBacklog == 131_072)
        let error = await #expect(throws: ConfigurationError.self) {
            try await NodeConfiguration.load(flags: [:], configFile: nil, environment: ["FARELENS_BRIDGE_DURABLE_BACKLOG": "131073"])
        }
        #expect(error?.key == "bridge.durableBacklog")
        #expect(error?.message == "invalid value '131073' for 'bridge.durableBacklog': expected at most 131072, the ids a receiving bus remembers per publisher to recognise a redelivery")
    }

    @Test("FARELENS_CONFIG names the config file when no flag does")
    func configFileFromEnvironment() async throws {
        let file = try Self.jsonFile(#"{"nodeName": "env-file"}"#)
        let configuration = try await NodeConfiguration.load(flags: [:], configFile: nil, environment: ["FARELENS_CONFIG": file])
        #expect(configuration.nodeName == "env-file")
    }

    @Test("An invalid value is an error that names its key")
    func invalidValueNamesKey() async throws {
        await #expect { try await NodeConfiguration.load(flags: [:], configFile: nil, environment: ["FARELENS_BUS_DEADLINE_MS": "soon"]) }
            throws: { ($0 as? ConfigurationError)?.key == "bus.deadlineMs" }
        await #expect { try await NodeConfiguration.load(flags: ["logLevel": "loud"], configFile: nil, environment: [:]) }
            throws: { ($0 as? ConfigurationError)?.key == "logLevel" }
    }

    @Test("A missing or malformed config file is an error naming the file")
    func unreadableFile() async throws {
        let malformed = try Self.jsonFile("{ not json")
        for file in ["/nonexistent/farelens.json", malformed] {
            await #expect { try await NodeConfiguration.load(flags: [:], configFile: file, environment: [:]) }
                throws: { ($0 as? ConfigurationError)?.message.contains(file) == true }
        }
    }
}
