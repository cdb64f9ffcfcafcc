import Foundation

/// What a title's download holds so far: each finished resource's size and SHA-256, by
/// stored path. Saved as `progress.json` beside the files, only after the files it names
/// are flushed, so after a crash every resource it lists is on disk whole.
struct TitleProgress: Sendable, Codable, Equatable {
    struct Held: Sendable, Codable, Equatable {
        var size: Int64
        var sha256: String
        var rendition: String
    }

    var version = 1
    /// Each rendition's shape when its files were fetched: files of a rendition whose
    /// shape is another now are not the same rendition's.
    var shapes: [String: String] = [:]
    var held: [String: Held] = [:]
    /// Resources on their way at the checkpoint: the bytes of each already on disk, and
    /// the version they are of (its `If-Range` value), so a resume asks for the rest only.
    var partial: [String: Partial] = [:]
    /// The copy of the title (`TitlePlan.copies`) the files held come from, when not the
    /// first: a resumed run reads its playlists from there, so its files fit them.
    var copy: Int?

    struct Partial: Sendable, Codable, Equatable {
        /// Where the bytes held end: the file is at least this long.
        var bytes: Int64
        var validator: String
        /// The bytes held of a file fetched in pieces; nil: all of the first `bytes`.
        var ranges: [ByteRange]?
        /// A file in pieces whose length the plan does not give: the origin's, once known.
        var length: Int64?

        init(bytes: Int64, validator: String) {
            self.bytes = bytes
            self.validator = validator
        }

        init(held: RangeSet, validator: String, length: Int64? = nil) {
            bytes = held.end
            self.validator = validator
            ranges = held.ranges
            self.length = length
        }

        var held: RangeSet { RangeSet(ranges ?? [ByteRange(0, bytes)]) }
    }

    /// The saved progress in `staging`, keeping only resources whose file is there with
    /// its size (a file removed or cut short since is fetched again).
    static func load(staging: String) -> TitleProgress {
        let path = staging + "/" + TitleLayout.progressFile
        guard let bytes = try? FileSystem.readAll(path),
            var progress = try? JSONDecoder().decode(TitleProgress.self, from: Data(bytes)), progress.version == 1
        else { return TitleProgress() }
        let files = staging + "/" + TitleLayout.filesFolder + "/"
        progress.held = progress.held.filter { path, held in
            FileSystem.isRegularFile(files + path) && FileSystem.fileSize(files + path) == held.size
        }
        progress.partial = progress.partial.filter { path, partial in
            progress.held[path] == nil && FileSystem.isRegularFile(files + path)
                && (FileSystem.fileSize(files + path) ?? 0) >= partial.bytes
        }
        return progress
    }

    /// The copy the progress saved in `staging` was made from; 0 when none says.
    static func savedCopy(staging: String) -> Int {
        let path = staging + "/" + TitleLayout.progressFile
        guard let bytes = try? FileSystem.readAll(path),
            let progress = try? JSONDecoder().decode(TitleProgress.self, from: Data(bytes))
        else { return 0 }
        return max(0, progress.copy ?? 0)
    }

    /// Drops what is no longer the title's: held files of renditions `plan` does not
    /// choose, or whose shape changed on the origin since (those it returns, sorted).
    mutating func keepOnly(_ plan: any TitlePlan) -> [String] {
        let shapes = plan.shapes
        let changed = Set(held.values.map(\.rendition)).filter { identity in
            self.shapes[identity].map { $0 != shapes[identity] } ?? false && shapes[identity] != nil
        }
        let planned = Set(plan.resources.map(\.path))
        held = held.filter { planned.contains($0.key) && !changed.contains($0.value.rendition) }
        partial = partial.filter { path, _ in
            planned.contains(path) && !changed.contains(String(path.prefix { $0 != "/" }))
        }
        self.shapes = shapes
        return changed.sorted()
    }

    /// What `status` and `resume` read of a title, as of a file's: its entry, headers
    /// and the bytes held (of resources whole, and of those part fetched).
    func jobState(of request: JobRequest, createdAt: Date) -> JobState {
        var state = JobState(entry: request.entry, commandHeaders: request.commandHeaders)
        state.createdAt = createdAt
        let bytes = bytesHeld + partial.values.reduce(0) { $0 + $1.held.byteCount }
        if bytes > 0 { state.completed.insert(ByteRange(0, bytes)) }
        return state
    }

    /// Records what a fetch on its way, or one that stopped, holds of its resource, for
    /// the next try to continue from (nothing without a validator to resume with).
    mutating func keepPartial(of fetch: ResourceFetch) {
        guard fetch.bytesWritten > 0, let validator = fetch.heldValidator else { return }
        partial[fetch.resource.path] = Partial(bytes: fetch.bytesWritten, validator: validator)
    }

    /// A checkpoint, off the loop: flushes the files it names, then saves it and the
    /// job state `status` and `resume` read. A failure is left to the next checkpoint (a
    /// run that ends first fetches these files again).
    func saveAfterFlushing(state: JobState, staging: String) {
        LoopThreads.preconditionOff("saving a title's progress")
        do {
            try FileSystem.writeAtomicallyFlushingFileSystem(
                [(encoded(), staging + "/" + TitleLayout.progressFile),
                 (try JobStateCodec.encode(state), staging + "/" + TitleLayout.stateFile)],
                in: staging)
        } catch {}
    }

    var bytesHeld: Int64 { held.values.reduce(0) { $0 + $1.size } }

    /// The JSON `load` reads: written by hand, as `JSONEncoder` took most of a checkpoint's
    /// time once a title held a few hundred segments (it is saved four times a second).
    func encoded() -> [UInt8] {
        var json = JSONBytes(reservingCapacity: 128 * (held.count + partial.count) + 64)
        json.object { json in
            json.key("version", version)
            if let copy { json.key("copy", copy) }
            json.key("shapes") { json in
                for (identity, shape) in shapes { json.key(identity, shape) }
            }
            json.key("held") { json in
                for (path, held) in held {
                    json.key(path) { json in
                        json.key("size", held.size)
                        json.key("sha256", held.sha256)
                        json.key("rendition", held.rendition)
                    }
                }
            }
            json.key("partial") { json in
                for (path, partial) in partial {
                    json.key(path) { json in
                        json.key("bytes", partial.bytes)
                        json.key("validator", partial.validator)
                        if let ranges = partial.ranges {
                            json.key("ranges", array: ranges) { json, range in
                                json.key("start", range.start)
                                json.key("end", range.end)
                            }
                        }
                        if let length = partial.length { json.key("length", length) }
                    }
                }
            }
        }
        return json.bytes
    }
}
