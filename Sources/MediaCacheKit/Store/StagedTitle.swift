import Foundation

/// A title being taken in from elsewhere (a bundle, the tier): its files are written
/// into `partial/import-<random>.title/`, beside the locked `partial/import-<random>`
/// (a `StagedObject` that stays empty) which tells `gc` and the next import that a live
/// process owns the folder. Checked member by member through a `TitleAssembly`; the
/// folder becomes the title in one step (`publication`: rename into `objects/`, then its
/// index row), or is removed: never half a title in `objects/`.
final class StagedTitle {
    static let folderSuffix = "." + CachedObject.titleDirectoryExtension

    let directory: String
    /// Holds the name and the lock; removed with this.
    private let owner: StagedObject
    private let cache: CacheDirectory
    private var published = false

    init(cache: CacheDirectory) throws {
        self.cache = cache
        owner = try StagedObject(cache: cache)
        directory = owner.path + Self.folderSuffix
        try FileSystem.makeDirectory(directory, durable: false)
    }

    deinit {
        // Before `owner` goes (and with it the lock): no other process may take the folder first.
        if !published { FileSystem.removeTree(directory) }
    }

    /// Writes the title's `title.json`, already checked by the assembly.
    func writeManifest(_ bytes: [UInt8]) throws {
        let file = try DataFile(path: directory + "/" + TitleManifest.fileName, mode: .readWrite)
        try file.write(bytes, at: 0)
    }

    /// A new, empty file for `member` (a path `TitleAssembly` accepted), its folders made.
    func create(_ member: String) throws -> DataFile {
        for folder in TitleOnDisk.folders(of: member) {
            try FileSystem.makeDirectory(directory + "/" + folder, durable: false)
        }
        return try DataFile(path: directory + "/" + member, mode: .readWrite)
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
