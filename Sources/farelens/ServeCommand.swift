import ArgumentParser
import FareLensRuntime
import FareLensServiceKit
import FareLensServices
import FareLensWire
import Foundation
import Logging
import Metrics
import Prometheus

/// `farelens serve`: hosts the chosen services until SIGTERM or SIGINT.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run services in this process.",
        discussion: """
            Every option also has a configuration key and an environment variable \
            (FARELENS_SERVICES, FARELENS_DATA_DIR, FARELENS_LOG_LEVEL, FARELENS_NODE_NAME, \
            FARELENS_CONFIG, FARELENS_BRIDGE_SOCKET, FARELENS_GATEWAY_LISTEN); see docs/operations.md. \
            The gateway (the app's API, docs/api.md) is one of the services: \
            'all' serves it on 127.0.0.1:8080. \
            A node listens on its socket unless told --connect; split the services \
            across processes by starting one with --listen PATH and the others \
            with --connect PATH. Flags win over the environment, \
            which wins over the config file. `farelens config keys` lists every key; \
            a FARELENS_* variable or a config file key that is none of them is a \
            warning naming the nearest key (with --strict-config, an error).
            """
    )

    @Option(name: .long, help: "Services to run: 'all' or a comma-separated list of \(ServiceCatalog.all.map(\.name).joined(separator: ",")). [key: services]")
    var services: String?

    @Option(name: .long, help: "Directory of the per-service SQLite databases (created if missing). [key: dataDir; default ./data]")
    var dataDir: String?

    @Option(name: .long, help: "JSON configuration file. [env: FARELENS_CONFIG]")
    var config: String?

    @Option(name: .long, help: "trace, debug, info, notice, warning, error or critical. [key: logLevel; default info]")
    var logLevel: String?

    @Option(name: .long, help: "This process's name in the mesh. [key: nodeName; default farelens]")
    var nodeName: String?

    @Option(name: .long, help: "Listen on this Unix socket (the hub); overrides bridge.socket. [key: listen; default: bridge.socket, else <dataDir>/farelens.sock]")
    var listen: String?

    @Option(name: .long, help: "Join the hub listening on this Unix socket instead of listening.")
    var connect: String?

    @Option(name: .long, help: "Serve GET /metrics (Prometheus text) over HTTP on HOST:PORT, e.g. 127.0.0.1:9464. [key: metrics.listen; default off]")
    var metricsListen: String?

    @Option(name: .long, help: "Serve the app's HTTP/JSON API (the gateway) on HOST:PORT; port 0 lets the system choose. [key: gateway.listen; default 127.0.0.1:8080]")
    var httpListen: String?

    @Flag(name: .long, help: "Refuse to start when a FARELENS_* variable or a config file key is not a configuration key (without it, a warning). [key: strictConfig]")
    var strictConfig = false

    @OptionGroup(title: "Demo") var demo: DemoOptions

    func run() async throws {
        // A closed stdout (`farelens serve | head -1`) is an error on write, not a signal that kills the node.
        StandardStreams.ignoreBrokenPipeSignal()
        var flags: [String: String] = [:]
        flags["listen"] = listen
        flags["connect"] = connect
        flags["services"] = services
        flags["dataDir"] = dataDir
        flags["logLevel"] = logLevel
        flags["nodeName"] = nodeName
        flags["metrics.listen"] = metricsListen
        flags["gateway.listen"] = httpListen
        if strictConfig { flags["strictConfig"] = "true" }
        do {
            let start = Date()
            let configuration = try await NodeConfiguration.load(
                flags: flags, configFile: config, defaults: demo.demo ? DemoSetup.defaults(demo.demoClock) : [:], knownKeys: .farelens)
            // Whole seconds, so a split demo's spokes given the printed epoch read the same time.
            let epoch = demo.demoEpoch ?? start.timeIntervalSince1970.rounded(.down)
            if demo.demo { try DemoSetup.prepare(dataDirectory: configuration.dataDirectory, epoch: Int64(epoch)) }
            // One level for every logger of the process, changed at run time by `farelensctl log-level`.
            let logLevel = LogLevelControl(configuration.logLevel)
            LoggingSystem.bootstrap { label in
                ControlledLogHandler(wrapping: StreamLogHandler.standardError(label: label), control: logLevel)
            }
            // Every swift-metrics metric of the process (bus, bridge, services) lands in one registry.
            let metrics = PrometheusCollectorRegistry()
            MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: metrics))
            let logger = Logger(label: "farelens")
            // A misspelled key is otherwise silently ignored (#58).
            for unknown in configuration.unknownKeys { logger.warning("\(unknown)") }
            let clock: any WallClock = demo.demo ? demo.clock(epoch: epoch) : SystemWallClock()
            let node = try Node(configuration: configuration, catalog: ServiceCatalog.all, logger: logger, clock: clock, metrics: metrics, logLevel: logLevel)
            // A reader that has gone (`| head`) must not stop the node: the line is dropped (FileHandle.write trapped).
            let say: @Sendable (String) -> Void = { line in try? StandardStreams.writeOutput(line + "\n") }
            // The hub of a demo seeds and narrates; a split demo's spokes only share its clock.
            let director = demo.demo && !configuration.isSpoke ? DemoDirector(bus: node.bus, clock: clock, socket: configuration.effectiveSocketPath, print: say) : nil
            try await node.run { report in
                say(report.line + (demo.demo ? " demo-epoch=\(Int64(epoch))" : ""))
                director?.start()
            }
            director?.stop()
            print("farelens stopped: node=\(configuration.nodeName) services drained and databases closed")
        } catch {
            try? StandardStreams.writeError("farelens: error: \(error)\n")
            throw ExitCode.failure
        }
    }
}
