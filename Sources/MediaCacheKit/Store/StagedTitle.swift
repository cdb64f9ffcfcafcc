import Foundation

/// A title being taken in from elsewhere (a bundle, the tier). Checked member by member
/// through a `TitleAssembly`; the folder becomes the title in one step (`publication`:
/// rename into `objects/`, then its index row): never half a title in `objects/`.
///
/// Two places: an import writes into `partial/import-<random>.title/`, beside the locked
/// `partial/import-<random>` (a `StagedObject` that stays empty) which tells `gc` and
/// the next import that a live process owns the folder, and removes it unless published.
/// A tier pull writes into its title's staging folder (`TitleLayout.pullFolder`), under
/// the key's lock, and keeps what it wrote for the next pull to go on from.
final class StagedTitle {
    static let folderSuffix = "." + CachedObject.titleDirectoryExtension

    let directory: String
    /// Holds the name and the lock of an import's folder; removed with this.
    private let owner: StagedObject?
    private let cache: CacheDirectory
    private var published = false

    init(cache: CacheDirectory) throws {
        self.cache = cache
        let owner = try StagedObject(cache: cache)
        self.owner = owner
        directory = owner.path + Self.folderSuffix
        try FileSystem.makeDirectory(directory, durable: false)
    }

    /// The pull folder of the title `key`, as an earlier pull left it (or new): the caller
    /// holds the key's lock, and checks every byte it keeps.
    init(pullOf key: CacheKey, cache: CacheDirectory) throws {
        self.cache = cache
        owner = nil
        let staging = TitleLayout.staging(key: key, in: cache)
        directory = staging + "/" + TitleLayout.pullFolder
        try FileSystem.makeDirectory(staging, durable: false, replacingLink: true)
        try FileSystem.makeDirectory(directory, durable: false, replacingLink: true)
    }

    deinit {
        // Before `owner` goes (and with it the lock): no other process may take the folder first.
        if !published && owner != nil { FileSystem.removeTree(directory) }
    }

    /// Empties the folder: nothing in it can be used.
    func removeAll() throws {
        FileSystem.removeTree(directory)
        try FileSystem.makeDirectory(directory, durable: false)
    }

    /// Removes a pull's folder, and its staging folder if nothing else is in it: what was
    /// pulled failed its checks.
    func discard() {
        FileSystem.removeTree(directory)
        if owner == nil { rmdir((directory as NSString).deletingLastPathComponent) }
    }

    /// The file of `member` already in the folder (never through a link), nil if it cannot be opened.
    func existing(_ member: String) -> DataFile? {
        try? DataFile(path: directory + "/" + member, mode: .readOnly)
    }

    /// Writes the title's `title.json`, already checked by the assembly.
    func writeManifest(_ bytes: [UInt8]) throws {
        let file = try DataFile(path: directory + "/" + TitleManifest.fileName, mode: .readWrite)
        try file.write(bytes, at: 0)
    }

    /// The file for `member` (a path `TitleAssembly` accepted), its folders made,
    /// holding its first `keeping` bytes of an earlier pull and nothing after them.
    func create(_ member: String, keeping: Int64 = 0) throws -> DataFile {
        for folder in TitleOnDisk.folders(of: member) {
            try FileSystem.makeDirectory(directory + "/" + folder, durable: false, replacingLink: owner == nil)
        }
        let file = try DataFile(path: directory + "/" + member, mode: .readWrite)
        // Only a file with more: ext4 flushes a file cut to 0 when it is closed (auto_da_alloc).
        if owner == nil, try file.size() != keeping { try file.truncate(length: keeping) }
        return file
    }

    /// What the `CommitBatcher` needs to make this folder the title `object` in one step.
    /// A title directory already there without a row, or the version `--replace` takes
    /// out, goes first: a directory cannot be renamed over a full one.
    func publication(
        of object: CachedObject, key: CacheKey, aliases: [String], index: CacheIndex
    ) throws -> CommitBatcher.Publication {
        let destination = TitleLayout.directory(key: key)
        if let previous = try index.object(key: key) {
            try index.remove(key: key)
            TitleOnDisk.removeStored(previous.storedPath, in: cache)
        }
        if FileSystem.exists(cache.absolute(destination)) { TitleOnDisk.removeStored(destination, in: cache) }
        // An interrupted download of this title is obsolete once it is committed.
        return CommitBatcher.Publication(
            source: directory, unnamed: nil, durable: false, destination: cache.absolute(destination), object: object,
            aliases: aliases, jobDirectory: TitleLayout.staging(key: key, in: cache))
    }

    /// The commit renamed the folder: it is no longer ours to remove.
    func didPublish() { published = true }

    /// The row a title taken in gets: its entry playlist as the path, `title.json`'s
    /// SHA-256, every file's size together.
    static func object(
        key: CacheKey, assembly: TitleAssembly, cacheKey: String, url: String, mirrors: [String], name: String?,
        contentType: String?, validators: (String?, String?), addedAt: Date
    ) -> CachedObject {
        CachedObject(
            key: key, cacheKey: cacheKey, path: TitleLayout.directory(key: key) + "/" + assembly.manifest.entry,
            size: assembly.manifest.totalSize(manifestBytes: assembly.manifestBytes.count),
            sha256: Digest.sha256Hex(assembly.manifestBytes), faststart: .streamingTitle, url: url,
            mirrors: mirrors, name: name, contentType: contentType, validators: validators, addedAt: addedAt,
            lastUsedAt: Date())
    }
}
