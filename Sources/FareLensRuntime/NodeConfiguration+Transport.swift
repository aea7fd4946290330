import Configuration
import Foundation
import FareLensNATS
import FareLensServiceKit

/// What joins a node's bus to other processes (`bus.transport`).
public enum BusTransportChoice: String, Sendable, CaseIterable {
    /// The Unix-socket bridge: one machine, nothing else to run.
    case socket
    /// NATS, with JetStream for durable events: several machines.
    case nats
}

extension NodeConfiguration {
    /// Reads `bus.transport` and, for NATS, the `nats.*` keys.
    ///
    /// - Throws: ``ConfigurationError`` naming the key: an unknown transport,
    ///   no or malformed `nats.urls`, a namespace NATS cannot use, a
    ///   password without a user, or a `nats` transport in a build without it.
    static func transport(_ reader: ConfigReader) throws(ConfigurationError) -> (BusTransportChoice, NATSSettings?) {
        let name = reader.string(forKey: "bus.transport", default: BusTransportChoice.socket.rawValue)
        guard let choice = BusTransportChoice(rawValue: name.lowercased()) else {
            throw .invalid(key: "bus.transport", value: name, expected: "socket or nats")
        }
        // Every key is read whatever the transport (so each is known and
        // listed); they are checked only when NATS is chosen.
        let urlsText = reader.string(forKey: "nats.urls") ?? ""
        let namespace = reader.string(forKey: "nats.namespace", default: "farelens")
        let user = reader.string(forKey: "nats.user")
        let password = reader.string(forKey: "nats.password", isSecret: true)
        let credentialsFile = reader.string(forKey: "nats.credentialsFile")
        let heartbeat = try positive(reader, "nats.heartbeatMs", 1000)
        let ackWait = try positive(reader, "nats.ackWaitMs", 30_000)
        let maxAckPending = try positive(reader, "nats.maxAckPending", 4096)
        let retentionHours = try positive(reader, "nats.retentionHours", 168)
        let replicas = try positive(reader, "nats.replicas", 1)
        guard choice == .nats else { return (choice, nil) }
        guard NATSSettings.isBuiltIn else { throw .required(key: "bus.transport", NATSError.notBuilt.message) }
        let urls = urlsText.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard !urls.isEmpty else {
            throw .required(key: "nats.urls", "bus.transport=nats needs nats.urls (FARELENS_NATS_URLS): the NATS servers, e.g. nats://127.0.0.1:4222")
        }
        if let bad = urls.first(where: { !NATSSettings.isValidURL($0) }) {
            throw .invalid(key: "nats.urls", value: bad, expected: "nats://HOST:PORT (or tls://HOST:PORT), comma-separated")
        }
        guard NATSSettings.isValidNamespace(namespace) else {
            throw .invalid(key: "nats.namespace", value: namespace, expected: "1 to 32 letters, digits, '-' or '_' (one NATS subject token and a stream name)")
        }
        if password != nil, user == nil {
            throw .required(key: "nats.user", "nats.password is set but nats.user is not")
        }
        if credentialsFile != nil, user != nil {
            throw .required(key: "nats.credentialsFile", "give nats.credentialsFile or nats.user, not both")
        }
        guard replicas <= 5 else {
            throw .invalid(key: "nats.replicas", value: "\(replicas)", expected: "1 to 5 (JetStream keeps at most 5 copies of a stream)")
        }
        var settings = NATSSettings(urls: urls, namespace: namespace)
        settings.replicas = replicas
        settings.user = user
        settings.password = password
        settings.credentialsFile = credentialsFile
        settings.heartbeat = .milliseconds(heartbeat)
        settings.ackWait = .milliseconds(ackWait)
        settings.maxAckPending = maxAckPending
        settings.retention = .seconds(3600 * retentionHours)
        return (choice, settings)
    }
}
