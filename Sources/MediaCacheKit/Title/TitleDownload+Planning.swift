import Foundation

/// How a title's download gets going once its playlists are read: what an earlier run
/// held is loaded off the loop, keys written into the playlists are stored, and the rest
/// is queued.
extension TitleDownload {
    /// The plan is made: load what an earlier run held (off the loop), then fetch the rest.
    func planned(_ plan: any TitlePlan) {
        self.plan = plan
        let (staging, files) = (staging, filesDirectory)
        let folders = Set(plan.resources.map { $0.path.split(separator: "/").dropLast().joined(separator: "/") })
        // Keys written into the playlists (`data:` URIs) are not fetched: they are stored now.
        let inline = plan.resources.filter { $0.kind == .key && DataURI.isDataURI($0.url) }
        let inPieces = plan.resources.filter { PiecedFile.isPieced($0, minFragment: options.minFragment) }.map(\.path)
        let (job, loop) = (job, loop)
        job.partial.diskQueue.async {
            let outcome = Result { () throws(SystemError) -> TitleProgress in
                try FileSystem.makeDirectory(staging, durable: false, replacingLink: true)
                try FileSystem.makeDirectory(files, durable: false, replacingLink: true)
                for folder in folders.sorted() where !folder.isEmpty {
                    try FileSystem.makeDirectory(files + "/" + folder, durable: false, replacingLink: true)
                }
                var progress = TitleProgress.load(staging: staging)
                // A file in pieces is there before its first piece is answered: a player
                // told of its length then opens it at once, before a piece's writer (on a
                // queue of its own, maybe still waiting for a thread) would have made it.
                for path in inPieces where progress.held[path] == nil {
                    _ = try DataFile(path: files + "/" + path, mode: .readWrite)
                }
                // Checked when the playlist was read: these decode to a key.
                for resource in inline {
                    guard let bytes = DataURI.bytes(of: resource.url) else { continue }
                    try FileSystem.writeFile(bytes, to: files + "/" + resource.path)
                    progress.held[resource.path] = TitleProgress.Held(
                        size: Int64(bytes.count), sha256: Digest.sha256Hex(bytes), rendition: resource.rendition)
                }
                return progress
            }
            loop.post { job.onTitle { $0.didLoad(outcome) } }
        }
    }

    func didLoad(_ outcome: Result<TitleProgress, SystemError>) {
        guard !ended, let plan else { return }
        switch outcome {
        case .failure(let error):
            end(.failed(JobFailure(.io, "\(error)")))
        case .success(var loaded):
            for identity in loaded.keepOnly(plan) {
                job.emit(.notice(url: job.url, message: "\(identity) changed on the origin since the last run; fetching it again"))
            }
            progress = loaded
            pending = plan.resources.filter { progress.held[$0.path] == nil }
            let held = plan.resources.count - pending.count
            let planner = FragmentPlanner(minFragment: options.minFragment)
            for resource in pending {
                guard PiecedFile.isPieced(resource, minFragment: options.minFragment) else { continue }
                pieced[resource.path] = PiecedFile(
                    resource: resource, partial: progress.partial.removeValue(forKey: resource.path),
                    planner: planner, connections: options.connectionsPerFile)
            }
            // Files fetched in pieces are not pending one by one, nor held.
            pending.removeAll { pieced[$0.path] != nil }
            if held > 0 {
                job.emit(.notice(url: job.url, message: "resuming: \(held) of \(plan.resources.count) parts of the title are held"))
                // Segments held must not be played under an init section or key the origin
                // has replaced since (a new encode or key under the same names and cut).
                latestURLs = Dictionary(plan.resources.map { ($0.path, $0.url) }, uniquingKeysWith: { first, _ in first })
                confirmInitSectionsAndKeys(.sinceLastRun)
            }
            job.emit(.notice(url: job.url, message: plan.summary))
            publishView(plan)
            // Files part fetched count too: their rest is all that is asked for.
            let resumed = progress.bytesHeld + pieced.values.reduce(0) { $0 + $1.held.byteCount }
                + progress.partial.values.reduce(0) { $0 + $1.held.byteCount }
            job.announceStart(
                length: nil, resumedBytes: resumed, connections: options.resourcesPerTitle,
                title: counts(listingMissing: false))
            bytesAtLastEvent = resumed
            lastProgressEvent = TransferLoop.now()
            fill()
            _ = loop.after(Self.tickInterval) { [weak self] in self?.tick() }
        }
    }
}
