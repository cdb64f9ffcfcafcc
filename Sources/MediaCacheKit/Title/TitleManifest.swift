import Foundation

/// What a cached title is made of: `title.json` in its directory. The index row's
/// SHA-256 is this file's, and this file lists every other file's size and SHA-256, so
/// one small read tells whether the title is the one committed, and `verify` re-hashes
/// each part against it.
public struct TitleManifest: Sendable, Codable, Equatable {
    public static let fileName = "title.json"
    public static let currentVersion = 1

    public var version: Int
    public var format: PresentationFormat
    /// The title's URL, without a password.
    public var url: String
    /// The local master playlist or MPD, relative to the title directory.
    public var entry: String
    public var renditions: [Rendition]
    /// Every file of the title but this one, local playlists included, in fetch order.
    public var members: [Member]
    /// The choice of renditions it was fetched by; nil in titles cached before it was kept.
    public var selection: RenditionSelectionOptions?

    public struct Rendition: Sendable, Codable, Equatable {
        /// `variant-2`, `audio-aac-English`, `media`: also the folder of its files.
        public var identity: String
        /// `variant`, `audio`, `subtitles`.
        public var kind: String
        /// Its local media playlist, relative to the title directory.
        public var playlist: String
        public var segments: Int
        /// Seconds.
        public var duration: Double
    }

    public struct Member: Sendable, Codable, Equatable {
        /// Relative to the title directory.
        public var path: String
        public var size: Int64
        public var sha256: String
    }

    public init(
        format: PresentationFormat, url: String, entry: String, renditions: [Rendition], members: [Member],
        selection: RenditionSelectionOptions? = nil
    ) {
        version = Self.currentVersion
        self.format = format
        self.url = url
        self.entry = entry
        self.renditions = renditions
        self.members = members
        self.selection = selection
    }

    /// The manifest's bytes as stored: sorted keys, so the same title gives the same digest.
    public func encoded() -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        // Encoding plain values cannot fail.
        return Array(try! encoder.encode(self))
    }

    /// Reads a manifest, naming `path` when it is not one.
    public static func decode(_ bytes: [UInt8], path: String) throws(CacheError) -> TitleManifest {
        do {
            let manifest = try JSONDecoder().decode(TitleManifest.self, from: Data(bytes))
            guard manifest.version <= currentVersion else {
                throw CacheError.corruptState(
                    path: path, reason: "written by a newer mediacache (version \(manifest.version)); update mediacache")
            }
            return manifest
        } catch let error as CacheError {
            throw error
        } catch {
            throw .corruptState(path: path, reason: "not a title manifest (\(error))")
        }
    }

    /// The title's size as `ls` shows it: every member and the manifest.
    public func totalSize(manifestBytes: Int) -> Int64 {
        members.reduce(Int64(manifestBytes)) { $0 + $1.size }
    }

    public var segmentCount: Int { renditions.reduce(0) { $0 + $1.segments } }
}

extension PresentationFormat: Codable {}
