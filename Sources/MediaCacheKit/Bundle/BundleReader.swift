/// Reads a bundle the way import needs it: the manifest first (checked before anything
/// else is looked at), then each archive entry classified against it. Object data is
/// read only through `readObject(limit:)`, which never delivers more than the manifest
/// allows.
final class BundleReader {
    /// As the user named the bundle, for messages.
    let name: String
    let manifest: BundleManifest
    private let archive: ArchiveReader
    private let entriesByPath: [String: BundleManifest.Entry]
    /// Manifest paths met so far (accepted or rejected): each may appear once.
    private var seenPaths: Set<String> = []
    /// A rejected entry claiming more than this is not skipped over (skipping means
    /// decompressing it, which a bomb turns into hours): reading stops there.
    let skipLimit: Int64
    private var abandonedAt: (entry: String, size: Int64)?

    enum Item {
        /// A regular file with a safe name that the manifest lists, met for the first time,
        /// whose header does not claim more than the manifest allows. Its bytes are not
        /// checked yet.
        case object(BundleManifest.Entry)
        /// A file of the streaming title `entry` (the manifest lists the title), at
        /// `member` inside it: `title.json` or one of the files it lists, which the
        /// importer checks against it.
        case titleMember(BundleManifest.Entry, member: String)
        case rejected(EntryRejection)
    }

    enum ObjectRead: Equatable {
        case complete(bytes: Int64)
        /// More than the limit arrived; reading stopped there.
        case oversized(atLeast: Int64)
    }

    /// Opens the bundle and reads its manifest, which must be the first entry.
    init(path: String, name: String) throws(BundleError) {
        self.name = name
        archive = try ArchiveReader(path: path, bundle: name)
        manifest = try Self.readManifest(archive, bundle: name)
        var byPath: [String: BundleManifest.Entry] = [:]
        for entry in manifest.entries { byPath[entry.path] = entry }
        entriesByPath = byPath
        skipLimit = manifest.entries.reduce(Int64(64 << 20)) { $0 &+ max(0, $1.size) }
    }

    /// Only the manifest, for `bundle-info` and `export --exclude-manifest`.
    static func manifest(at path: String, name: String) throws(BundleError) -> BundleManifest {
        try readManifest(ArchiveReader(path: path, bundle: name), bundle: name)
    }

    private static func readManifest(_ archive: ArchiveReader, bundle: String) throws(BundleError) -> BundleManifest {
        guard let header = try archive.nextHeader() else { throw .missingManifest(bundle: bundle, firstEntry: nil) }
        guard let raw = header.rawPath, EntryPathPolicy.classify(raw) == .manifest else {
            throw .missingManifest(bundle: bundle, firstEntry: header.displayPath)
        }
        guard header.kind == .regular else {
            throw .malformedManifest(bundle: bundle, reason: "it is not a regular file")
        }
        let limit = BundleManifestCodec.maximumSize
        if let size = header.size, size > limit {
            throw .malformedManifest(bundle: bundle, reason: "\(size) bytes, more than the \(limit >> 20) MiB allowed")
        }
        var bytes: [UInt8] = []
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let n = try archive.read(into: buffer)
            if n == 0 { break }
            bytes.append(contentsOf: buffer[0..<n])
            if bytes.count > limit {
                throw .malformedManifest(bundle: bundle, reason: "more than the \(limit >> 20) MiB allowed")
            }
        }
        return try BundleManifestCodec.decode(bytes, bundle: bundle)
    }

    /// The next entry after the manifest, or nil at the end of the archive.
    /// Throws `.damaged` when the stream breaks, `.abandoned` after an entry too large
    /// to skip.
    func next() throws(BundleError) -> Item? {
        if let abandonedAt {
            throw .abandoned(bundle: name, entry: abandonedAt.entry, claimed: abandonedAt.size)
        }
        guard let header = try archive.nextHeader() else { return nil }
        let item = classify(header)
        if case .rejected = item, let size = header.size, size > skipLimit {
            abandonedAt = (header.displayPath, size)
        }
        return item
    }

    private func classify(_ header: ArchiveEntryHeader) -> Item {
        let display = header.displayPath
        guard let raw = header.rawPath, !raw.isEmpty else { return reject(display, nil, .unexpectedName) }
        let name = EntryPathPolicy.classify(raw)
        // The entry this name claims to be, if any: rejections name its URL, and it is
        // not reported again as missing.
        var claimed: BundleManifest.Entry?
        if case .object = name, let entry = entriesByPath[display], !entry.isTitle {
            claimed = entry
            guard seenPaths.insert(display).inserted else { return reject(display, entry, .duplicate) }
        }
        if case .titleMember(let key, let member) = name, let entry = entriesByPath[EntryPathPolicy.titlePath(key: key)],
            entry.isTitle
        {
            claimed = entry
            // A title is met when its title.json is; its other files are the importer's to count.
            if member == TitleManifest.fileName, !seenPaths.insert(entry.path).inserted {
                return reject(display, entry, .duplicate)
            }
        }
        if case .rejected(let reason) = name, reason == .absolutePath || reason == .parentComponent {
            return reject(display, claimed, reason)
        }
        switch header.kind {
        case .regular: break
        case .hardLink(let target): return reject(display, claimed, .hardLink(target: target))
        case .symbolicLink(let target): return reject(display, claimed, .symbolicLink(target: target))
        case .directory: return reject(display, claimed, .directory)
        case .special(let kind): return reject(display, claimed, .specialFile(kind: kind))
        }
        switch name {
        case .rejected(let reason): return reject(display, nil, reason)
        case .manifest: return reject(display, nil, .duplicate)
        case .object:
            guard let entry = claimed else { return reject(display, nil, .notInManifest) }
            if let size = header.size, size > entry.size {
                return reject(display, entry, .largerThanManifest(atLeast: size, manifest: entry.size))
            }
            return .object(entry)
        case .titleMember(_, let member):
            guard let entry = claimed else { return reject(display, nil, .notInManifest) }
            if let size = header.size, size > entry.size {
                return reject(display, entry, .largerThanManifest(atLeast: size, manifest: entry.size))
            }
            return .titleMember(entry, member: member)
        }
    }

    /// Manifest entries whose object has not appeared (so far).
    var unseenEntries: [BundleManifest.Entry] {
        manifest.entries.filter { !seenPaths.contains($0.path) }
    }

    /// Streams the current entry's data to `body` in blocks, hashed by `digests` on their
    /// second thread, stopping as soon as more than `limit` bytes have arrived (a
    /// compression bomb never gets further).
    func readObject(
        limit: Int64, digests: DigestPipeline, _ body: (UnsafeRawBufferPointer) throws -> Void
    ) throws -> ObjectRead {
        var done: Int64 = 0
        while try digests.feed(
            fill: { buffer in
                let want = Int(min(Int64(buffer.count), limit + 1 - done))
                let n = try archive.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<want]))
                done += Int64(n)
                return n
            },
            use: { block in if done <= limit { try body(block) } })
        {
            if done > limit { return .oversized(atLeast: done) }
        }
        return .complete(bytes: done)
    }

    private func reject(_ entry: String, _ claimed: BundleManifest.Entry?, _ reason: RejectionReason) -> Item {
        .rejected(EntryRejection(bundle: name, entry: entry, url: claimed?.url, reason: reason))
    }
}

extension BundleManifest {
    /// Reads and checks only the manifest of the bundle at `path` (the rest of the
    /// archive is not touched): for `bundle-info` and `export --exclude-manifest`.
    public static func read(bundleAt path: String) throws(BundleError) -> BundleManifest {
        try BundleReader.manifest(at: path, name: path)
    }
}
