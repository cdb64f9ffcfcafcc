import MediaCacheKit
import ServiceLifecycle

/// `serve`'s engine in its ServiceGroup: it runs until the group stops (a signal, the
/// cache gone, the server failing), then cancels the uploads behind the downloads (they
/// stay noted for the next push) and stops every download, saving its progress.
struct EngineService: Service {
    let engine: Engine

    func run() async throws {
        // Cancelled instead of shut down (the server failed to start): saved all the same.
        try? await gracefulShutdown()
        engine.pusher?.cancel()
        let service = engine.service
        await OwnThread.run { service.shutdown() }
    }
}
