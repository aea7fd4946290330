package import FareLensBus
package import FareLensMessages
import Logging
import NIOCore

/// The handlers of every bridge connection, in order: the envelope frame
/// decoder, which hands each envelope to the connection, then the handler
/// that closes the connection on a fault or when the channel goes inactive.
/// Outgoing frames need no handler: ``OutboundFrames`` writes them as bytes.
enum BridgePipeline {
    static func install(on channel: any Channel, connection: PeerConnection) throws {
        let sync = channel.pipeline.syncOperations
        let decoder = EnvelopeFrameDecoder(connection: connection)
        try sync.addHandler(ByteToMessageHandler(decoder, maximumBufferSize: connection.limits.maxFrameBytes + 8))
        try sync.addHandler(PeerConnectionHandler(connection: connection))
    }
}

extension WireHello {
    /// The hello of this process: its identity, hosted addresses and wanted topics.
    package init(identity: NodeIdentity, services: some Sequence<ServiceAddress>, topics: some Sequence<String>) {
        self.init()
        protocolVersion = wireProtocolVersion
        role = identity.role == .admin ? .admin : .node
        nodeName = identity.nodeName
        self.services = Set(services.map(\.name) + identity.services).sorted()
        topicsWanted = topics.sorted()
        pid = UInt32(clamping: identity.pid)
        softwareVersion = identity.softwareVersion
        startedAtUnixMs = identity.startedAtUnixMs
    }

    /// Whether this node wants events on `topic`.
    func wants(_ topic: String) -> Bool {
        topicsWanted.contains(topic) || topicsWanted.contains("*")
    }
}
