/// Who answers what: handlers by request type (the in-process fast path),
/// by wire type name (for transports), and admission slots by address.
struct RouteTable: Sendable {
    var byType: [ObjectIdentifier: any AnyRoute] = [:]
    var byWireName: [String: any AnyRoute] = [:]
    var slots: [ServiceAddress: ServiceSlot] = [:]
    var typesPerAddress: [ServiceAddress: Set<ObjectIdentifier>] = [:]

    /// The slot of an address, created on first use.
    mutating func slot(for address: ServiceAddress, limit: Int) -> ServiceSlot {
        if let slot = slots[address] { return slot }
        let slot = ServiceSlot(address: address, limit: limit)
        slots[address] = slot
        return slot
    }

    mutating func insert<R: BusRequest>(_ route: TypedRoute<R>, for type: R.Type) throws(BusError) {
        let key = ObjectIdentifier(type)
        guard byType[key] == nil, byWireName[R.wireTypeName] == nil else {
            throw .badMessage("a handler for \(R.wireTypeName) is already registered")
        }
        byType[key] = route
        byWireName[R.wireTypeName] = route
        typesPerAddress[route.address, default: []].insert(key)
    }

    /// Removes every handler of an address and returns its slot.
    mutating func removeAll(at address: ServiceAddress) -> ServiceSlot? {
        for key in typesPerAddress.removeValue(forKey: address) ?? [] {
            if let route = byType.removeValue(forKey: key) { byWireName.removeValue(forKey: route.wireTypeName) }
        }
        return slots.removeValue(forKey: address)
    }
}
