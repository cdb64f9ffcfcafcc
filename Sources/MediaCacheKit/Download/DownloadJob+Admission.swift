import Foundation

/// How a job gets going: the key's lock, "is it cached already?" (an index read) and
/// the saved state (files read, a journal replayed, a data file opened) are disk work,
/// done on the job's disk queue; the transfer thread only hears the answer.
extension DownloadJob {
    /// What the disk said before the job may fetch.
    enum Preparation {
        /// Another process (or job) holds the key's lock: its pid if known, the object
        /// when it is cached already and nothing of it is downloading, else what that
        /// download has saved (of a file or a title), for this one's readers.
        case locked(holder: Int32?, cached: CachedObject?, foreign: ForeignDownload?, foreignTitle: ForeignTitle?)
        /// `note`: a title cached by another choice of renditions than this run's.
        case alreadyCached(CachedObject, note: String?)
        /// The lock is the job's; its saved state is loaded (`notices` say what was
        /// found and dropped) and its data file open.
        case ready(KeyLock, JobState, notices: [String])
        case failed(any Error)

        /// The object found cached, if that is what was found.
        var cachedObject: CachedObject? {
            switch self {
            case .locked(_, let cached, _, _): cached
            case .alreadyCached(let object, _): object
            default: nil
            }
        }
    }

    /// Starts (or, after a wait, starts again) by preparing off the transfer thread.
    func start(afterWaiting: Bool = false) {
        loop.preconditionOnLoop()
        phase = .preparing(afterWaiting: afterWaiting)
        let (key, objects, partial, loop) = (key, service.objects, partial, loop)
        let (request, spares, selection, faststart) = (request, service.spareFiles, options.renditions, options.faststart)
        let (forPlayers, shown) = (download.priority == .interactive, foreignShown)
        let titleShown = foreignTitle.map { $0.heldPaths }
        partial.diskQueue.async { [weak self] in
            let preparation = Self.prepare(
                key: key, request: request, selection: selection, faststart: faststart, objects: objects, partial: partial,
                spares: spares, forPlayers: forPlayers, titleShown: titleShown)
            // Committed by the download readers were reading: whether it is their bytes.
            let whole = shown.flatMap { shown in
                preparation.cachedObject.map {
                    ForeignDownload.isCommitted(about: shown.about, file: shown.file, as: $0, in: objects.directory)
                }
            } ?? false
            loop.post { [weak self] in self?.didPrepare(preparation, foreignWhole: whole) }
        }
    }

    private func didPrepare(_ preparation: Preparation, foreignWhole: Bool) {
        loop.preconditionOnLoop()
        // Stopped (Ctrl-C) meanwhile: the lock goes with `preparation`, nothing was fetched.
        guard case .preparing(let afterWaiting) = phase else {
            partial.close()
            return
        }
        switch preparation {
        case .locked(_, let cached?, _, _):
            keepForeignReaders(whole: foreignWhole)
            finish(.alreadyCached(cached))
        case .locked(let holder, nil, let foreign, let foreignTitle):
            if !afterWaiting {
                // This process's own earlier download of the key, still letting its lock go.
                let reason = holder == getpid()
                    ? "its last download here is still ending; waiting"
                    : "another mediacache process\(holder.map { " (pid \($0))" } ?? "") is downloading it; waiting"
                emit(.waiting(url: url, reason: reason))
            }
            show(foreign)
            show(foreignTitle)
            phase = .waitingForLock(timer: loop.after(0.25) { [weak self] in self?.start(afterWaiting: true) })
        case .alreadyCached(let object, let note):
            keepForeignReaders(whole: foreignWhole)
            if let note { emit(.notice(url: url, message: note)) }
            finish(.alreadyCached(object))
        case .ready(let lock, let loaded, let notices):
            self.lock = lock
            takeOverFromForeign(loaded)
            takeOverForeignTitle()
            for notice in notices { emit(.notice(url: url, message: notice)) }
            state = loaded
            bytesAtLastProgress = state.bytesDone
            if let length = state.length { lengthsAnnounced.insert(length) }
            if state.isComplete {
                commit()
            } else {
                chooseSource()
            }
        case .failed(let error as SystemError) where error.isDescriptorShortage && service.runningJobs > 1:
            // The other jobs free descriptors as they finish: start again shortly.
            partial.close()
            phase = .waitingForDescriptors(
                timer: loop.after(0.2) { [weak self] in self?.start(afterWaiting: afterWaiting) })
        case .failed(let error):
            fail(JobFailure(.io, "\(error)"), keepPartial: true)
        }
    }

    /// Takes the key's lock first (two `fcntl`s), so one index read settles whether the
    /// object is already cached; then loads what an earlier run saved. Runs on the job's
    /// disk queue. `forPlayers`: players wait for it, and may read another process's
    /// download of the key; `titleShown`: the files held of that process's title that
    /// they were shown, when they were shown it.
    private static func prepare(
        key: CacheKey, request: JobRequest, selection: RenditionSelectionOptions, faststart: Bool, objects: ObjectStore,
        partial: PartialFile, spares: SpareDataFiles?, forPlayers: Bool, titleShown: Set<String>?
    ) -> Preparation {
        /// A cached title fetched by another choice of renditions, or an MP4 relocated
        /// before this run's `--no-faststart`, is not fetched again by this one: the user
        /// hears so, and how to have it.
        func cached(_ intact: IntactObject) -> Preparation {
            if !faststart, intact.object.faststart == .relocated {
                return .alreadyCached(
                    intact.object,
                    note: "cached with its moov moved to the front (faststart), not as the origin sent it as "
                        + "--no-faststart asks; to have the origin's layout, `mediacache rm URL`, then prefetch it again")
            }
            let wanted = request.entry.renditions.applied(to: selection)
            guard let chosen = intact.titleManifest?.selection, chosen != wanted else {
                return .alreadyCached(intact.object, note: nil)
            }
            let renditions = intact.titleManifest?.renditions.map(\.identity).joined(separator: ", ") ?? ""
            return .alreadyCached(
                intact.object,
                note: "cached by \(chosen.asOptions) (\(renditions)), not by this run's choice: \(wanted.asOptions); "
                    + "to fetch it by these, `mediacache rm URL`, then prefetch it again")
        }
        /// A list's `checksum=` names the origin's bytes: a cached file holding them is this
        /// entry's only if they have it (an older file of the URL, or one changed in place,
        /// is fetched again: nil); a relocated MP4 no longer holds them, which the user hears.
        func checked(_ intact: IntactObject) -> Preparation? {
            guard let expected = request.entry.checksum, !intact.object.isTitle else { return cached(intact) }
            if intact.object.faststart == .relocated {
                return .alreadyCached(
                    intact.object,
                    note: "not checked against the list's checksum: it is cached with its moov moved to the front "
                        + "(faststart), and the checksum names the origin's bytes; to check them, `mediacache rm URL`, "
                        + "then prefetch it again")
            }
            return (try? expected.matches(intact.file, length: intact.object.size)) == true ? cached(intact) : nil
        }
        let cache = objects.directory
        do {
            let taken: KeyLock??
            do {
                taken = try KeyLock.tryAcquire(key: key, in: cache)
            } catch {
                // Without the lock nothing may be written, but a cached object is still
                // cached: only a download needs the lock.
                if !FileSystem.exists(cache.jobDirectory(key: key)), let intact = objects.openIntact(key: key),
                    let found = checked(intact)
                {
                    return found
                }
                throw error
            }
            guard let lock = taken ?? nil else {
                let leftover = FileSystem.exists(cache.jobDirectory(key: key))
                let cached = leftover ? nil : objects.openIntact(key: key)?.object
                let foreign = cached == nil && leftover && forPlayers ? ForeignDownload.look(key: key, cache: cache) : nil
                let title = cached == nil && foreign == nil && forPlayers
                    ? ForeignTitle.look(key: key, cache: cache, withOutline: titleShown == nil, known: titleShown ?? [])
                    : nil
                return .locked(
                    holder: KeyLock.holder(of: key, in: cache), cached: cached, foreign: foreign, foreignTitle: title)
            }
            // A run killed between publishing the object and removing its download left
            // the latter behind.
            var refetched: [String] = []
            if let intact = objects.openIntact(key: key) {
                let leftover = cache.jobDirectory(key: key)
                if FileSystem.exists(leftover) { FileSystem.removeTree(leftover) }
                if let found = checked(intact) { return found }
                refetched.append("the cached copy does not have the list's checksum; fetching it again")
            }
            let (state, notices) = try loadState(key: key, request: request, cache: cache, partial: partial, spares: spares)
            return .ready(lock, state, notices: refetched + notices)
        } catch {
            partial.close()
            return .failed(error)
        }
    }

    /// Loads saved progress, trusting only what the data file can back.
    private static func loadState(
        key: CacheKey, request: JobRequest, cache: CacheDirectory, partial: PartialFile, spares: SpareDataFiles?
    ) throws -> (JobState, notices: [String]) {
        var notices: [String] = []
        var state = JobState(entry: request.entry, commandHeaders: request.commandHeaders)
        if let links = partial.removeLinks() {
            notices.append("\(links) was a symbolic link, which mediacache never follows; removed it, starting this file again")
        }
        do {
            if var saved = try partial.savedState() {
                // A fresh signed URL for the same cache key keeps the progress.
                saved.entry = request.entry
                saved.commandHeaders = request.commandHeaders
                state = saved
            }
        } catch {
            let reason = if case .corruptState(_, let reason)? = error as? CacheError { reason } else { "unreadable (\(error))" }
            notices.append("saved state \(partial.statePath) is \(reason); starting this file again")
        }
        if state.completed.isEmpty, partial.openUnnamed(spares: spares) { return (state, notices) }
        let size = try partial.openNamed()
        let held = state.completed.ranges.last?.end ?? 0
        // Data preallocated to the length and changed in size since is not ours any more.
        if size < held || (state.length.map { size != $0 && !state.completed.isEmpty } ?? false) {
            notices.append(
                "partial data \(cache.dataPath(key: key)) holds \(size) bytes, its saved state expects \(state.length ?? held); starting this file again")
            state.discardData()
        } else if !state.rangesSupported && !state.completed.isEmpty {
            state.discardData()
        }
        return (state, notices)
    }
}
