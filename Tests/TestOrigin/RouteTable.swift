import Foundation

/// Path → resource, plus the per-path counters that make faults "first N responses only".
final class RouteTable: @unchecked Sendable {
    /// What one response works with: fixed at request arrival, so a concurrent
    /// `serve` does not change a response that already started.
    struct Snapshot {
        var path: String
        var resource: Resource
        var generation: Int
        /// Non-nil when this request consumed an entry of `faults.statusSequence`.
        var scriptedStatus: ScriptedStatus?
    }

    enum CountedFault { case drop, stall, trickle }

    private struct Route {
        var resource: Resource
        var generation: Int
        var statusesServed = 0
        var requestsServed = 0
        var dropsUsed = 0
        var stallsUsed = 0
        var resetsUsed = 0
        var tricklesUsed = 0
    }

    private let lock = NSLock()
    private var routes: [String: Route] = [:]
    private var nextGeneration = 0

    /// Installs (or replaces) a resource and resets its fault counters.
    func set(_ path: String, _ resource: Resource) {
        lock.withLock {
            nextGeneration += 1
            routes[path] = Route(resource: resource, generation: nextGeneration)
        }
    }

    func remove(_ path: String) {
        lock.withLock { _ = routes.removeValue(forKey: path) }
    }

    /// Looks up the first candidate path that is served, consuming a scripted status if any remain.
    func begin(candidates: [String]) -> Snapshot? {
        lock.withLock {
            guard let path = candidates.first(where: { routes[$0] != nil }), var route = routes[path] else {
                return nil
            }
            var scripted: ScriptedStatus?
            let sequence = route.resource.faults.statusSequence
            if route.statusesServed < sequence.count {
                scripted = sequence[route.statusesServed]
                route.statusesServed += 1
            }
            var resource = route.resource
            let etags = resource.faults.etagPerRequest
            if !etags.isEmpty { resource.etag = etags[route.requestsServed % etags.count] }
            if let other = resource.faults.otherServersBytes, route.requestsServed % 2 == 1 { resource.body = .bytes(other) }
            route.requestsServed += 1
            routes[path] = route
            return Snapshot(path: path, resource: resource, generation: route.generation, scriptedStatus: scripted)
        }
    }

    /// Reserves one use of a counted fault; false when used up or the resource was replaced meanwhile.
    func claim(_ fault: CountedFault, for snapshot: Snapshot) -> Bool {
        lock.withLock {
            guard var route = routes[snapshot.path], route.generation == snapshot.generation else { return false }
            let faults = route.resource.faults
            switch fault {
            case .drop:
                guard route.dropsUsed < faults.dropCount else { return false }
                route.dropsUsed += 1
            case .stall:
                guard route.stallsUsed < faults.stallCount else { return false }
                route.stallsUsed += 1
            case .trickle:
                guard route.tricklesUsed < faults.trickleCount else { return false }
                route.tricklesUsed += 1
            }
            routes[snapshot.path] = route
            return true
        }
    }

    /// Reserves the next reset offset if it falls inside a body of `bodyLength` bytes.
    func claimReset(for snapshot: Snapshot, bodyLength: Int) -> Int? {
        lock.withLock {
            guard var route = routes[snapshot.path], route.generation == snapshot.generation else { return nil }
            let offsets = route.resource.faults.resetAfterBytes
            guard route.resetsUsed < offsets.count, offsets[route.resetsUsed] < bodyLength else { return nil }
            let offset = max(0, offsets[route.resetsUsed])
            route.resetsUsed += 1
            routes[snapshot.path] = route
            return offset
        }
    }
}
