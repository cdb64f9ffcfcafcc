import MediaCacheKit
import ServiceLifecycle

/// The lists given to `serve`, fetched at background priority (players come first) once
/// the server listens: its address is the first line, before any line about their
/// downloads. Finishing them leaves the server running; a shutdown stops them.
final class BackgroundLists: Service {
    private let texts: [ListText]
    private let headers: [String]
    private let batch: PrefetchBatch
    private let printer: ServeEventPrinter
    private let listening: AsyncStream<Void>
    private let listens: AsyncStream<Void>.Continuation

    init(_ texts: [ListText], headers: [String], service: DownloadService, printer: ServeEventPrinter) {
        self.texts = texts
        self.headers = headers
        self.printer = printer
        batch = PrefetchBatch(service: service, priority: .background)
        (listening, listens) = AsyncStream.makeStream(of: Void.self)
    }

    /// The server is bound and its address printed: the lists may start.
    func serverListens() {
        listens.yield()
        listens.finish()
    }

    func run() async throws {
        // Nil when the group stops before the server listens.
        guard await listening.cancelOnGracefulShutdown().first(where: { _ in true }) != nil else { return }
        let (entries, headers, batch) = (ListEntries(texts), self.headers, self.batch)
        let summary = await withGracefulShutdownHandler {
            await OwnThread.run {
                batch.run(next: {
                    entries.next { Terminal.err($0.description) }.map { JobRequest(entry: $0, commandHeaders: headers) }
                })
            }
        } onGracefulShutdown: { [texts] in
            // A list arriving on a pipe may never end: its reading stops first.
            texts.forEach { $0.stream?.stop() }
            batch.cancel()
        }
        printer.backgroundDone(summary, inputErrors: entries.errorCount)
    }
}
