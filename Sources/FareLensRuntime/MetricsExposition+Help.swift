import FareLensServiceKit
extension MetricsExposition {
    /// The `# HELP` text of every FareLens metric, by name: one short
    /// sentence, what docs/operations.md ("Metrics") says of it.
    ///
    /// A metric added without a line here has no `# HELP`;
    /// `MetricsExpositionTests` fails for every `"farelens_…"` name in
    /// `Sources/` missing from this table.
    public static let help: [String: String] = [
        // The bus (FareLensBus).
        "farelens_bus_requests_total": "Requests this node's handlers answered, per request type and service address.",
        "farelens_bus_request_errors_total":
            "Requests this node's handlers failed, per request type, service address and kind (timeout, overloaded, remote, ...).",
        "farelens_bus_request_duration_seconds": "Time from a request being made to this node's handler answering it, in seconds.",
        "farelens_bus_events_published_total": "Events published on this node's bus, per topic.",
        "farelens_bus_events_dropped_total": "Events dropped because a subscriber on this node fell behind, per topic.",
        "farelens_bus_redeliveries_dropped_total": "Durable events from another node recognised as redeliveries and not delivered again.",
        "farelens_bus_deferred_dropped_total": "Events a service's deferred publisher could not queue, per owner.",
        "farelens_bus_deferred_refused_total": "Events whose publish the bus refused to a service's deferred publisher, per owner.",
        // A service's event outbox (FareLensRuntime).
        "farelens_event_outbox_published_total": "Events a service's event outbox published, per owner.",
        "farelens_event_outbox_retries_total": "Publishes the bus refused that a service's event outbox retried, per owner.",
        "farelens_event_outbox_undecodable_total": "Rows a service's event outbox skipped because they did not decode, per owner.",
        "farelens_event_outbox_waiting": "Rows waiting in a service's event outbox, per owner.",
        // The bridge (FareLensWire).
        "farelens_wire_frames_received_total": "Frames received on the bridge's connections, per peer node.",
        "farelens_wire_frames_sent_total": "Frames sent on the bridge's connections, per peer node.",
        "farelens_wire_bytes_received_total": "Bytes received on the bridge's connections as they travel (compressed), per peer node.",
        "farelens_wire_bytes_sent_total": "Bytes sent on the bridge's connections as they travel (compressed), per peer node.",
        "farelens_wire_payload_bytes_received_total": "Payload bytes received on the bridge's connections before compression, per peer node.",
        "farelens_wire_payload_bytes_sent_total": "Payload bytes sent on the bridge's connections before compression, per peer node.",
        "farelens_wire_events_dropped_total": "Non-durable events received from a peer and dropped because too many were waiting for delivery.",
        "farelens_bridge_durable_rejected_total": "Durable events refused because the peer's durable backlog was full, per peer node.",
        // The bus over NATS (FareLensNATS).
        "farelens_nats_durable_lag": "Durable events this node's JetStream consumer has still to settle (undelivered and unacknowledged), per node.",
        "farelens_nats_durable_expired_total": "Durable events the stream's age limit (nats.retentionHours) removed before this node read them, per node.",
        "farelens_nats_durable_redelivered_total": "Durable events JetStream handed this node again (not settled within nats.ackWaitMs, or lost with a server), per node.",
        // Search.
        "farelens_search_cache_hits_total": "Searches answered from a fresh cache entry.",
        "farelens_search_cache_misses_total": "Searches that found no fresh cache entry.",
        "farelens_search_quota_used": "Calls counted against a fare provider's quota this month, per provider (0 for the simulated market).",
        "farelens_exchange_rates_age_business_days": "Weekdays since the day of the exchange rates in use; above 4 they are stale (docs/search.md).",
        // Alerts.
        "farelens_alerts_decided_total": "Alert decisions recorded, per decision (sent, held, deduped, capped, muted, stale_price, not_alertable).",
        "farelens_alerts_outbox_pending": "Alerts waiting in the outbox for a delivery channel, as of the last delivery pass.",
        "farelens_alerts_events_set_aside_total": "Events set aside because their decisions could not be recorded for a reason in their data.",
        // The gateway.
        "farelens_gateway_requests_total": "HTTP requests the gateway answered, per method, route and status.",
        "farelens_gateway_request_duration_seconds": "Time the gateway took to answer an HTTP request, per method and route, in seconds.",
        "farelens_gateway_tokens_rejected_total": "Access tokens the gateway refused, per reason.",
        "farelens_gateway_rate_limited_total": "Requests the gateway refused for a rate limit, per bucket.",
        "farelens_gateway_clicks_not_recorded_total": "Booking clicks the gateway redirected without recording them (analytics did not answer).",
    ]
}
