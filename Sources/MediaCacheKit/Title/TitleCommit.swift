import Foundation

/// Readies a title whose every resource is held to become one cached object: writes
/// its local playlists and `title.json` beside the resources, and hands the directory
/// to the `CommitBatcher`, which renames it into `objects/` and records its row in one
/// step. Off the transfer thread.
struct TitleCommit: Sendable {
    let key: CacheKey
    let cache: CacheDirectory
    let entry: ListEntry
    let plan: any TitlePlan
    /// The choice of renditions the plan was made by, kept in `title.json`.
    let selection: RenditionSelectionOptions
    let progress: TitleProgress
    let staging: String
    /// When its last resource was held: the title's first use (see `ObjectCommitter`).
    let finishedAt: Date

    func prepare(index: CacheIndex) throws -> CommitBatcher.Publication {
        LoopThreads.preconditionOff("committing a title")
        let files = staging + "/" + TitleLayout.filesFolder
        try removeStrays(in: files)
        var members = try plan.resources.map { resource in
            guard let held = progress.held[resource.path] else { throw CommitError.incomplete(url: entry.url) }
            return TitleManifest.Member(path: resource.path, size: held.size, sha256: held.sha256)
        }
        let entryPath = TitleLayout.entry(for: plan.format)
        for (path, text) in plan.localFiles(entry: entryPath) {
            let bytes = Array(text.utf8)
            try FileSystem.writeFile(bytes, to: files + "/" + path)
            members.append(TitleManifest.Member(path: path, size: Int64(bytes.count), sha256: Digest.sha256Hex(bytes)))
        }
        let manifest = TitleManifest(
            format: plan.format, url: URLCredentials.withoutPassword(entry.url), entry: entryPath,
            renditions: plan.manifestRenditions(entry: entryPath), members: members, selection: selection)
        let manifestBytes = manifest.encoded()
        try FileSystem.writeFile(manifestBytes, to: files + "/" + TitleManifest.fileName)

        // A title directory left without its row (a crash between rename and record, or
        // one replaced) goes first: a directory cannot be renamed over a full one.
        let directory = TitleLayout.directory(key: key)
        if FileSystem.exists(cache.absolute(directory)) {
            try index.remove(key: key)
            FileSystem.removeTree(cache.absolute(directory))
        }
        let object = CachedObject(
            key: key, cacheKey: entry.identity, path: directory + "/" + entryPath,
            size: manifest.totalSize(manifestBytes: manifestBytes.count), sha256: Digest.sha256Hex(manifestBytes),
            faststart: .streamingTitle, url: URLCredentials.withoutPassword(entry.url),
            mirrors: entry.urls.dropFirst().map(URLCredentials.withoutPassword), name: entry.outName,
            contentType: plan.format.mediaType,
            addedAt: finishedAt, lastUsedAt: finishedAt)
        return CommitBatcher.Publication(
            source: files, unnamed: nil, durable: false, destination: cache.absolute(directory), object: object,
            aliases: entry.urls.map(URLCredentials.withoutPassword) + [entry.identity], jobDirectory: staging)
    }

    /// Prepares the title on `queue` (off the loop) and publishes it through `commits`;
    /// `completion` gets how the title ends, on the thread that work ended on.
    func run(
        on queue: DispatchQueue, index: CacheIndex, commits: CommitBatcher,
        completion: @escaping @Sendable (DownloadResult) -> Void
    ) {
        queue.async {
            let publication: CommitBatcher.Publication
            do {
                publication = try prepare(index: index)
            } catch {
                return completion(.failed(JobFailure(.io, "\(error)")))
            }
            commits.publish(publication) { result in
                switch result {
                case .success: completion(.committed(publication.object))
                case .failure(let error): completion(.failed(JobFailure(.io, "\(error)")))
                }
            }
        }
    }

    /// Written, not flushed: the commit group flushes the file system once before the rename.
    /// Files of renditions an earlier run chose, or half-written ones, are no part of
    /// the title: nothing unlisted is committed with it.
    private func removeStrays(in files: String) throws(SystemError) {
        let wanted = Set(plan.resources.map(\.path))
        for name in FileSystem.contentsOfDirectory(files) {
            let path = files + "/" + name
            guard FileSystem.entryType(path) == S_IFDIR else {
                if !wanted.contains(name) { FileSystem.remove(path) }
                continue
            }
            for inner in FileSystem.contentsOfDirectory(path) where !wanted.contains(name + "/" + inner) {
                FileSystem.removeTree(path + "/" + inner)
            }
        }
    }
}
