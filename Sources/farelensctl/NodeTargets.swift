import FareLensBus
import FareLensMessages

/// The nodes a per-node command (`metrics`, `backup`, `log-level`) talks
/// to: every connected node the hub's mesh status lists, hub first, or the
/// one `--node` names. Each is then asked at its own address
/// `admin.node.<name>` (docs/wire-protocol.md 6.7).
enum NodeTargets {
    /// - Throws: ``CtlFailure`` when `--node` names no connected node.
    static func resolve(_ only: String?, in session: CtlSession) async throws -> [String] {
        let status = try await session.request(MeshStatusRequest())
        let connected = status.nodes.filter(\.connected).map(\.nodeName)
        guard let only else { return connected }
        guard connected.contains(only) else {
            throw CtlFailure(code: "unknown-node", "no connected node is named '\(only)'; connected: \(connected.joined(separator: ", "))", field: "--node")
        }
        return [only]
    }
}

extension CtlSession {
    /// One request to the node named `node`, at its admin address.
    func request<R: BusRequest>(_ request: R, node: String) async throws -> R.Response where R.Response: Sendable {
        let address = ServiceAddress.node(node)
        do {
            return try await bus.request(request, timeout: budget, to: address)
        } catch {
            throw CtlFailure(error, address: "\(address)", timeoutMs: budget.milliseconds)
        }
    }
}
