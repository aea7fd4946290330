import FareLensBus
import FareLensMessages
import Logging
import NIOCore

/// The handlers of every bridge connection, in order:
/// frame decoder → envelope decoder → connection handler, and the frame
/// encoder for outgoing envelopes.
enum BridgePipeline {
    static func install(on channel: any Channel, limits: WireLimits, connection: PeerConnection, metrics: ConnectionMetrics) throws {
        let sync = channel.pipeline.syncOperations
        try sync.addHandler(ByteToMessageHandler(FrameDecoder(limits: limits, metrics: metrics), maximumBufferSize: limits.maxFrameBytes + 8))
        try sync.addHandler(EnvelopeDecoder())
        try sync.addHandler(MessageToByteHandler(EnvelopeFrameEncoder(limits: limits, metrics: metrics)))
        try sync.addHandler(PeerConnectionHandler(connection: connection))
    }
}

extension WireHello {
    /// The hello of this process: its identity, hosted addresses and wanted topics.
    init(identity: NodeIdentity, services: some Sequence<ServiceAddress>, topics: some Sequence<String>) {
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
