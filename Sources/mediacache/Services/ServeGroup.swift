import Logging
import MediaCacheServe
import ServiceLifecycle

/// What `serve` runs, as one ServiceGroup. Its graceful shutdown (a signal through
/// `SignalTrap`, or the cache gone) goes from the last service to the first: the
/// background lists stop, the watch ends, the engine saves every download's progress
/// (readers of downloads end there), and then the server closes each connection once
/// its answer is written. Whatever is left after `gracePeriod` is cancelled (a player
/// that stopped reading a cached file), so the command ends within two seconds.
enum ServeGroup {
    static let gracePeriod: Duration = .seconds(1)

    static func make(server: MediaServer, engine: Engine, watch: CacheWatch, background: BackgroundLists?) -> ServiceGroup {
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [
            // The server stopping or failing (its address taken) stops everything.
            .init(service: server),
            .init(service: EngineService(engine: engine)),
            // The cache gone: progress saved first, then exit 3.
            .init(service: watch, failureTerminationBehavior: .gracefullyShutdownGroup),
        ]
        if let background {
            // Lists done, the server goes on.
            services.append(.init(service: background, successTerminationBehavior: .ignore))
        }
        // The command's own lines say what happens.
        let logger = Logger(label: "mediacache-serve") { _ in SwiftLogNoOpLogHandler() }
        var configuration = ServiceGroupConfiguration(services: services, logger: logger)
        configuration.maximumGracefulShutdownDuration = gracePeriod
        return ServiceGroup(configuration: configuration)
    }
}
