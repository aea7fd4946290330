import ArgumentParser
import FareLensRuntime
import FareLensServiceKit
import FareLensServices
import FareLensWire
import Foundation

/// `farelens config`: what the node reads from its configuration.
struct ConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "What farelens reads from its configuration.",
        subcommands: [ConfigKeysCommand.self]
    )
}

/// `farelens config keys [--json]`: every configuration key with its type,
/// default, environment variable and option (docs/operations.md).
struct ConfigKeysCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "List every configuration key with its type, default, environment variable and option.",
        discussion: """
            A key is set in the JSON config file (nested by its dots), as its environment \
            variable, or with its option; the FARELENS_* variables listed last are not keys \
            and are never reported as unknown at start-up.
            """
    )

    @Flag(name: .long, help: "One JSON object: keys (key, type, default, environment, flag, help) and other_environment_variables (name, use).")
    var json = false

    func run() throws {
        let catalog = ConfigKeyCatalog.farelens
        do {
            try StandardStreams.writeOutput(json ? Self.json(catalog) : Self.table(catalog))
        } catch {
            // A reader that has gone (`| head`) ends the listing quietly.
        }
    }

    /// One row per key, columns aligned, the meaning last; then the other variables.
    static func table(_ catalog: ConfigKeyCatalog) -> String {
        let header = ["KEY", "TYPE", "DEFAULT", "ENVIRONMENT", "FLAG", "MEANING"]
        let rows = catalog.specs.map { [$0.key, $0.type.rawValue, $0.defaultValue ?? "-", $0.environmentName, $0.flag ?? "-", $0.help] }
        var widths = header.map(\.count)
        for row in rows {
            for (column, cell) in row.enumerated() { widths[column] = max(widths[column], cell.count) }
        }
        let line: ([String]) -> String = { cells in
            cells.enumerated().map { column, cell in
                column == cells.count - 1 ? cell : cell.padding(toLength: widths[column], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }
        var text = ([header] + rows).map(line).joined(separator: "\n") + "\n"
        text += "\nNot configuration keys, never reported as unknown:\n"
        let nameWidth = ConfigKeyCatalog.otherEnvironmentVariables.map(\.name.count).max() ?? 0
        for other in ConfigKeyCatalog.otherEnvironmentVariables {
            text += other.name.padding(toLength: nameWidth, withPad: " ", startingAt: 0) + "  " + other.use + "\n"
        }
        return text
    }

    /// The listing as JSON, keys in declaration order; `default` and `flag` are null when there is none.
    static func json(_ catalog: ConfigKeyCatalog) throws -> String {
        struct Key: Encodable {
            let key: String, type: String, `default`: String?, environment: String, flag: String?, help: String
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(key, forKey: .key)
                try container.encode(type, forKey: .type)
                try container.encode(`default`, forKey: .default)
                try container.encode(environment, forKey: .environment)
                try container.encode(flag, forKey: .flag)
                try container.encode(help, forKey: .help)
            }
            enum CodingKeys: String, CodingKey { case key, type, `default`, environment, flag, help }
        }
        struct Other: Encodable { let name: String, use: String }
        struct Listing: Encodable {
            let keys: [Key]
            let otherEnvironmentVariables: [Other]
            enum CodingKeys: String, CodingKey { case keys, otherEnvironmentVariables = "other_environment_variables" }
        }
        let listing = Listing(
            keys: catalog.specs.map { Key(key: $0.key, type: $0.type.rawValue, default: $0.defaultValue, environment: $0.environmentName, flag: $0.flag, help: $0.help) },
            otherEnvironmentVariables: ConfigKeyCatalog.otherEnvironmentVariables.map { Other(name: $0.name, use: $0.use) }
        )
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(listing), as: UTF8.self) + "\n"
    }
}
