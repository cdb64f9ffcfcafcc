import NIOPosix

/// Work that may block (an index read, a `pread` of a chunk, reading a source record)
/// runs on NIO's thread pool: Swift's cooperative pool has one thread per core, so a
/// request waiting on the disk there would stall every other client of `serve`.
enum BlockingWork {
    static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await NIOThreadPool.singleton.runIfActive(body)
    }
}
